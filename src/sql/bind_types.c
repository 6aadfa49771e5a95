/* PostgreSQL's type rules as far as weir's types go: type categories and preferred
 * types, the implicit and explicit cast tables, the common type of operator operands
 * and of CASE/COALESCE/UNION branches (select_common_type), coercion of expressions
 * (unknown literals are parsed into the required type, constants are folded, other
 * expressions get an explicit EX_CAST), and type names as written in SQL. */
#include "sql/bind_internal.h"

#include <stdio.h>
#include <string.h>

TypeCat bind_type_cat(Type t)
{
    switch ((TypeId)t.id) {
    case T_UNKNOWN: return CAT_UNKNOWN;
    case T_BOOL: return CAT_BOOL;
    case T_INT2:
    case T_INT4:
    case T_INT8:
    case T_FLOAT4:
    case T_FLOAT8:
    case T_NUMERIC: return CAT_NUM;
    case T_TEXT: return CAT_STR;
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ:
    case T_DATE: return CAT_DATETIME;
    case T_INTERVAL: return CAT_SPAN;
    case T_ARRAY: return CAT_ARRAY;
    case T_JSON: return CAT_JSON;
    case T__COUNT: break;
    }
    return CAT_UNKNOWN;
}

/* Position in the implicit-cast chain of a category (a value casts implicitly to any
 * type of higher rank): int2 < int4 < int8 < numeric < real < double precision,
 * date < timestamp < timestamptz. */
static int rank(Type t)
{
    switch ((TypeId)t.id) {
    case T_INT2: return 1;
    case T_INT4: return 2;
    case T_INT8: return 3;
    case T_NUMERIC: return 4;
    case T_FLOAT4: return 5;
    case T_FLOAT8: return 6;
    case T_DATE: return 1;
    case T_TIMESTAMP: return 2;
    case T_TIMESTAMPTZ: return 3;
    default: return 0;
    }
}

static bool type_same(Type a, Type b)
{
    return a.id == b.id && a.precision == b.precision && a.scale == b.scale && a.elem == b.elem;
}

const char *bind_type_display(Binder *b, Type t)
{
    char buf[96];
    if (t.id == T_UNKNOWN) return "unknown";
    if (t.id == T_TEXT && t.precision >= 0) return "character varying";
    if (t.id == T_ARRAY && t.elem == T_TEXT && t.precision >= 0) return "character varying[]";
    return arena_strdup(b->arena, type_name(type_base(t), buf, sizeof buf));
}

const char *bind_type_full(Binder *b, Type t)
{
    char buf[96];
    if (t.id == T_UNKNOWN) return "unknown";
    return arena_strdup(b->arena, type_name(t, buf, sizeof buf));
}

bool bind_can_implicit(Type from, Type to)
{
    if (from.id == T_ARRAY && to.id == T_ARRAY) return bind_can_implicit(type_elem(from), type_elem(to));
    if (from.id == to.id || from.id == T_UNKNOWN) return true;
    TypeCat cf = bind_type_cat(from), ct = bind_type_cat(to);
    if (cf != ct) return false;
    if (cf == CAT_NUM || cf == CAT_DATETIME) return rank(from) < rank(to);
    return false;
}

bool bind_can_explicit(Type from, Type to)
{
    if (bind_can_implicit(from, to)) return true;
    if (from.id == T_ARRAY && to.id == T_ARRAY) return bind_can_explicit(type_elem(from), type_elem(to));
    if (from.id == T_JSON) return to.id == T_TEXT;
    if (to.id == T_JSON) return from.id == T_TEXT;
    TypeCat cf = bind_type_cat(from), ct = bind_type_cat(to);
    if (cf == CAT_NUM && ct == CAT_NUM) return true;
    if (cf == CAT_DATETIME && ct == CAT_DATETIME) return true;
    if (from.id == T_TEXT || to.id == T_TEXT) return true; /* I/O conversion casts */
    if ((from.id == T_BOOL && to.id == T_INT4) || (from.id == T_INT4 && to.id == T_BOOL)) return true;
    return false;
}

Type bind_op_common(Type a, Type b)
{
    if (a.id == T_ARRAY && b.id == T_ARRAY) return type_array(bind_op_common(type_elem(a), type_elem(b)));
    if (a.id == b.id) return type_base(a);
    if (bind_type_cat(a) == CAT_NUM && bind_type_cat(b) == CAT_NUM) {
        /* real with anything else resolves to the preferred double precision */
        if (type_is_float(a) || type_is_float(b)) return type_make(T_FLOAT8);
        if (a.id == T_NUMERIC || b.id == T_NUMERIC) return type_make(T_NUMERIC);
        return rank(a) > rank(b) ? type_make((TypeId)a.id) : type_make((TypeId)b.id);
    }
    if (bind_type_cat(a) == CAT_DATETIME && bind_type_cat(b) == CAT_DATETIME)
        return rank(a) > rank(b) ? type_make((TypeId)a.id) : type_make((TypeId)b.id);
    return type_make((TypeId)a.id);
}

bool bind_common_type(Binder *b, Expr *const *es, int n, const char *context, Type *out)
{
    Type cand = type_make(T_UNKNOWN);
    bool have = false;
    for (int i = 0; i < n; i++) {
        Type t = es[i]->type;
        if (t.id == T_UNKNOWN) continue;
        if (!have) {
            cand = t;
            have = true;
            continue;
        }
        if (t.id == cand.id && t.elem == cand.elem) continue;
        TypeCat cc = bind_type_cat(cand), ct = bind_type_cat(t);
        if (cc == CAT_ARRAY && ct == CAT_ARRAY) {
            Type ce = type_elem(cand), te = type_elem(t);
            if (bind_type_cat(ce) != bind_type_cat(te) || (ce.id != te.id && bind_type_cat(ce) != CAT_NUM &&
                                                           bind_type_cat(ce) != CAT_DATETIME)) {
                bind_error(b, es[i]->loc, "type-mismatch", "cast the values to one type, e.g. x::text[]",
                           "%s types %s and %s cannot be matched", context, bind_type_display(b, cand),
                           bind_type_display(b, t));
                return false;
            }
            if (rank(te) > rank(ce)) cand = t;
            continue;
        }
        if (cc != ct) {
            bind_error(b, es[i]->loc, "type-mismatch", "cast the values to one type, e.g. x::text",
                       "%s types %s and %s cannot be matched", context, bind_type_display(b, cand),
                       bind_type_display(b, t));
            return false;
        }
        if (rank(t) > rank(cand)) cand = t;
    }
    if (!have) {
        *out = type_make(T_TEXT);
        return true;
    }
    /* the typmod survives only when every input has it (a NULL literal has none) */
    for (int i = 0; i < n; i++)
        if (!type_same(es[i]->type, cand)) {
            cand = type_base(cand);
            break;
        }
    *out = cand;
    return true;
}

bool bind_is_unknown_literal(const Expr *e)
{
    return e && e->kind == EX_CONST && e->type.id == T_UNKNOWN;
}

static Expr *const_at(Binder *b, Type t, Value v, int loc)
{
    Expr *c = plan_expr_const(b->arena, t, v);
    c->loc = loc;
    return c;
}

static Expr *parse_literal(Binder *b, Expr *e, Type to)
{
    if (e->cval.isnull) return const_at(b, to, value_null(), e->loc);
    Value v;
    char err[256] = "";
    if (!value_parse(to, e->cval.s, e->cval.len, b->arena, &v, err, sizeof err)) {
        if (!err[0])
            snprintf(err, sizeof err, "invalid input syntax for type %s: \"%.*s\"", bind_type_display(b, to),
                     (int)e->cval.len, e->cval.s);
        bind_error(b, e->loc, "invalid-literal", NULL, "%s", err);
        return NULL;
    }
    return const_at(b, to, v, e->loc);
}

static Expr *fold_cast(Binder *b, Expr *e, Type to, int loc)
{
    if (!e) return NULL;
    if (e->cval.isnull) return const_at(b, to, value_null(), loc);
    Value v;
    char err[256] = "";
    if (!value_cast(e->type, to, &e->cval, b->arena, &v, err, sizeof err)) {
        if (!err[0])
            snprintf(err, sizeof err, "cannot cast this %s value to %s", bind_type_display(b, e->type),
                     bind_type_display(b, to));
        bind_error(b, loc, "invalid-literal", NULL, "%s", err);
        return NULL;
    }
    return const_at(b, to, v, loc);
}

static Expr *cast_node(Binder *b, Expr *e, Type to, int loc)
{
    Expr *c = plan_expr_new(b->arena, EX_CAST, to, loc);
    c->args = ARENA_ARRAY(b->arena, Expr *, 1);
    c->args[0] = e;
    c->nargs = 1;
    return c;
}

Expr *bind_coerce(Binder *b, Expr *e, Type to)
{
    if (!e) return NULL;
    if (e->type.id == to.id && e->type.elem == to.elem && (type_same(e->type, to) || (to.precision < 0 && to.scale < 0)))
        return e;
    return bind_coerce_exact(b, e, to);
}

Expr *bind_coerce_exact(Binder *b, Expr *e, Type to)
{
    if (!e) return NULL;
    if (type_same(e->type, to)) return e;
    if (bind_is_unknown_literal(e)) return parse_literal(b, e, to);
    if (e->kind == EX_CONST) return fold_cast(b, e, to, e->loc);
    return cast_node(b, e, to, e->loc);
}

Expr *bind_cast(Binder *b, Expr *e, Type to, int loc)
{
    if (!e) return NULL;
    if (!bind_can_explicit(e->type, to)) {
        bind_error(b, loc, "type-mismatch", NULL, "cannot cast type %s to %s", bind_type_display(b, e->type),
                   bind_type_full(b, to));
        return NULL;
    }
    if (type_same(e->type, to)) return e;
    if (bind_is_unknown_literal(e)) {
        /* an explicit cast truncates a too-long string (varchar's input would reject it) */
        Expr *c = to.id == T_TEXT && to.precision >= 0 ? fold_cast(b, parse_literal(b, e, type_make(T_TEXT)), to, e->loc)
                                                         : parse_literal(b, e, to);
        if (c && loc >= 0 && loc < c->loc) c->loc = loc;
        return c;
    }
    if (e->kind == EX_CONST) return fold_cast(b, e, to, e->loc < loc || loc < 0 ? e->loc : loc);
    return cast_node(b, e, to, loc);
}

Expr *bind_default_unknown(Binder *b, Expr *e)
{
    if (e && bind_is_unknown_literal(e)) return bind_coerce(b, e, type_make(T_TEXT));
    return e;
}

/* ---- type names ------------------------------------------------------------------ */

/* PostgreSQL's internal names (what the grammar produces for INT, BIGINT, ...) and
 * their SQL spellings. */
static const struct {
    const char *internal, *sql;
} internal_names[] = {
    {"int2", "smallint"}, {"int4", "integer"}, {"int8", "bigint"}, {"float4", "real"},
    {"float8", "double precision"}, {"bool", "boolean"}, {"varchar", "character varying"},
    {"bpchar", "character"}, {"timestamptz", "timestamp with time zone"}, {"timetz", "time with time zone"},
    {"decimal", "numeric"},
};

/* Types PostgreSQL has and weir does not handle yet. */
static const char *const known_unsupported[] = {
    "character", "bytea", "jsonb", "uuid", "time", "time with time zone", "money", "inet", "cidr",
    "macaddr", "xml", "bit", "varbit", "point", "oid", "name", "char", "tsvector", "int4range",
};

bool bind_type_name(Binder *b, const AstTypeName *tn, Type *out)
{
    int loc = tn->loc;
    if (tn->nnames == 0) {
        bind_error(b, loc, "unknown-type", NULL, "missing type name");
        return false;
    }
    const char *base;
    if (tn->nnames == 1) {
        base = tn->names[0];
    } else if (tn->nnames == 2 && strcmp(tn->names[0], "pg_catalog") == 0) {
        base = tn->names[1];
    } else {
        StrBuf sb = STRBUF_INIT;
        for (int i = 0; i < tn->nnames; i++) {
            if (i) sb_putc(&sb, '.');
            sb_puts(&sb, tn->names[i]);
        }
        bind_error(b, loc, "unknown-type", NULL, "type \"%s\" does not exist", sb_cstr(&sb));
        sb_free(&sb);
        return false;
    }
    for (size_t i = 0; i < sizeof internal_names / sizeof internal_names[0]; i++)
        if (strcmp(base, internal_names[i].internal) == 0) {
            base = internal_names[i].sql;
            break;
        }
    StrBuf sb = STRBUF_INIT;
    sb_puts(&sb, base);
    if (tn->ntypmods > 0) {
        sb_putc(&sb, '(');
        for (int i = 0; i < tn->ntypmods; i++) sb_printf(&sb, i ? ",%d" : "%d", tn->typmods[i]);
        sb_putc(&sb, ')');
    }
    const char *full = arena_strdup(b->arena, sb_cstr(&sb));
    sb_free(&sb);
    if (tn->is_array) {
        Type e;
        if (type_parse(full, &e) && e.id != T_JSON) {
            *out = type_array(e);
            return true;
        }
        bind_unsupported(b, loc, arena_printf(b->arena, "array type %s[]", full));
        return false;
    }
    if (type_parse(full, out)) return true;
    for (size_t i = 0; i < sizeof known_unsupported / sizeof known_unsupported[0]; i++)
        if (strcmp(base, known_unsupported[i]) == 0) {
            bind_unsupported(b, loc, arena_printf(b->arena, "type %s", full));
            return false;
        }
    Type probe;
    if (tn->ntypmods > 0 && type_parse(base, &probe)) {
        bind_error(b, loc, "unknown-type", NULL, "type modifier is not allowed for type \"%s\": %s", base, full);
        return false;
    }
    bind_error(b, loc, "unknown-type", bind_did_you_mean(b, base, type_known_names, type_known_names_count),
               "type \"%s\" does not exist", full);
    return false;
}
