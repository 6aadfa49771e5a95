/* Expressions and types as ClickHouse SQL (see ch_sql.h). */
#include "backends/clickhouse/ch_sql.h"

#include <stdio.h>
#include <string.h>

const char *chx_type(Type t, const ChCaps *caps, bool not_null, Arena *a, const char **why)
{
    const char *base = NULL;
    switch ((TypeId)t.id) {
    case T_BOOL: base = "UInt8"; break;
    case T_INT2: base = "Int16"; break;
    case T_INT4: base = "Int32"; break;
    case T_INT8: base = "Int64"; break;
    case T_FLOAT4: base = "Float32"; break;
    case T_FLOAT8: base = "Float64"; break;
    case T_NUMERIC: {
        int p = t.precision > 0 ? t.precision : 38, s = t.scale >= 0 ? t.scale : 0;
        if (t.precision <= 0 && t.scale < 0) s = 10;
        if (p > 38) {
            *why = "numeric with more than 38 digits has no exact ClickHouse type";
            return NULL;
        }
        base = arena_printf(a, "Decimal(%d, %d)", p, s);
        break;
    }
    case T_TEXT: base = "String"; break;
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ: base = caps->datetime64 ? "DateTime64(6, 'UTC')" : "DateTime('UTC')"; break;
    case T_DATE: base = "Date"; break;
    case T_INTERVAL:
        *why = "ClickHouse has no interval column type";
        return NULL;
    default:
        *why = "a column whose type is not known";
        return NULL;
    }
    return not_null ? base : arena_printf(a, "Nullable(%s)", base);
}

const char *chx_cast(const char *sql, Type t, const ChCaps *caps, Arena *a)
{
    const char *why = NULL;
    const char *ty = chx_type(t, caps, false, a, &why);
    return ty ? arena_printf(a, "CAST(%s AS %s)", sql, ty) : sql;
}

typedef struct Ctx {
    const char *const *env;
    int nenv;
    const ChCaps *caps;
    Arena *a;
    const char *why;
} Ctx;

static bool put(Ctx *c, const Expr *e, StrBuf *out);

static bool fail(Ctx *c, const char *fmt, const char *arg)
{
    if (!c->why) c->why = arena_printf(c->a, fmt, arg);
    return false;
}

static bool put_args(Ctx *c, Expr **args, int from, int to, StrBuf *out)
{
    for (int i = from; i < to; i++) {
        if (i > from) sb_puts(out, ", ");
        if (!put(c, args[i], out)) return false;
    }
    return true;
}

static void put_const(Ctx *c, const Expr *e, StrBuf *out)
{
    if (e->cval.isnull) {
        sb_puts(out, "NULL");
        return;
    }
    StrBuf t = STRBUF_INIT;
    value_format_text(e->type, &e->cval, &t);
    const char *txt = sb_cstr(&t);
    switch ((TypeId)e->type.id) {
    case T_BOOL: sb_puts(out, e->cval.i ? "toUInt8(1)" : "toUInt8(0)"); break;
    case T_INT2: sb_printf(out, "toInt16(%s)", txt); break;
    case T_INT4: sb_printf(out, "toInt32(%s)", txt); break;
    case T_INT8: sb_printf(out, "toInt64(%s)", txt); break;
    case T_FLOAT4:
    case T_FLOAT8:
        sb_puts(out, "toFloat64(");
        ch_strz(out, txt);
        sb_putc(out, ')');
        break;
    case T_NUMERIC: {
        const char *dot = strchr(txt, '.');
        int scale = dot ? (int)strlen(dot + 1) : 0;
        sb_puts(out, "toDecimal128(");
        ch_strz(out, txt);
        sb_printf(out, ", %d)", scale);
        break;
    }
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ:
        sb_puts(out, c->caps->datetime64 ? "toDateTime64(" : "toDateTime(");
        ch_str(out, txt, strcspn(txt, "+"));
        sb_puts(out, c->caps->datetime64 ? ", 6, 'UTC')" : ", 'UTC')");
        break;
    case T_DATE:
        sb_puts(out, "toDate(");
        ch_strz(out, txt);
        sb_putc(out, ')');
        break;
    default:
        ch_strz(out, txt);
        break;
    }
    sb_free(&t);
}

static const char *cmp_fn(int op)
{
    switch (op) {
    case OP_EQ: return "=";
    case OP_NE: return "!=";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    default: return NULL;
    }
}

/* A boolean operand as SQL text (for the three-valued combinations below). */
static const char *sub(Ctx *c, const Expr *e)
{
    StrBuf b = STRBUF_INIT;
    bool ok = put(c, e, &b);
    const char *s = ok ? arena_strdup(c->a, sb_cstr(&b)) : NULL;
    sb_free(&b);
    return s;
}

/* AND / OR with PostgreSQL's three-valued logic (servers before 21 return NULL for
 * `0 AND NULL`): AND is false when an operand is false, else NULL when one is NULL. */
static bool put_andor(Ctx *c, const Expr *e, StrBuf *out, bool is_and)
{
    const char **s = ARENA_ARRAY(c->a, const char *, e->nargs);
    for (int i = 0; i < e->nargs; i++)
        if (!(s[i] = sub(c, e->args[i]))) return false;
    sb_puts(out, "multiIf(");
    for (int i = 0; i < e->nargs; i++) {
        if (i) sb_puts(out, " OR ");
        sb_printf(out, "ifNull(%s, %d) = %d", s[i], is_and ? 1 : 0, is_and ? 0 : 1);
    }
    sb_printf(out, ", toNullable(toUInt8(%d)), ", is_and ? 0 : 1);
    for (int i = 0; i < e->nargs; i++) {
        if (i) sb_puts(out, " OR ");
        sb_printf(out, "isNull(%s)", s[i]);
    }
    sb_printf(out, ", NULL, toNullable(toUInt8(%d)))", is_and ? 1 : 0);
    return true;
}

static bool put_func(Ctx *c, const Expr *e, StrBuf *out)
{
    const char *name = NULL;
    switch ((FuncKind)e->func) {
    case FN_LOWER: name = "lowerUTF8"; break;
    case FN_UPPER: name = "upperUTF8"; break;
    case FN_LENGTH: name = "lengthUTF8"; break;
    case FN_OCTET_LENGTH: name = "length"; break;
    case FN_ABS: name = "abs"; break;
    case FN_REVERSE: name = "reverseUTF8"; break;
    case FN_CONCAT:
        /* concat() skips NULL arguments in PostgreSQL */
        sb_puts(out, "concat(");
        for (int i = 0; i < e->nargs; i++) {
            if (i) sb_puts(out, ", ");
            sb_puts(out, "ifNull(toString(");
            if (!put(c, e->args[i], out)) return false;
            sb_puts(out, "), '')");
        }
        if (e->nargs == 1) sb_puts(out, ", ''");
        sb_putc(out, ')');
        return true;
    case FN_SUBSTRING:
        if (e->nargs == 2) {
            sb_puts(out, "substringUTF8(");
            if (!put_args(c, e->args, 0, 2, out)) return false;
            sb_putc(out, ')');
            return true;
        }
        if (e->nargs == 3) {
            sb_puts(out, "substringUTF8(");
            if (!put_args(c, e->args, 0, 3, out)) return false;
            sb_putc(out, ')');
            return true;
        }
        break;
    case FN_STARTS_WITH: name = "startsWith"; break;
    default: break;
    }
    if (!name) return fail(c, "function %s has no ClickHouse translation yet", func_kind_name((FuncKind)e->func));
    sb_printf(out, "%s(", name);
    if (!put_args(c, e->args, 0, e->nargs, out)) return false;
    sb_putc(out, ')');
    return true;
}

static bool put(Ctx *c, const Expr *e, StrBuf *out)
{
    switch (e->kind) {
    case EX_CONST: put_const(c, e, out); return true;
    case EX_COLUMN:
        if (e->col < 0 || e->col >= c->nenv || !c->env[e->col]) return fail(c, "%s", "a column without SQL");
        sb_puts(out, c->env[e->col]);
        return true;
    case EX_CAST: {
        const Expr *in = e->args[0];
        const char *why = NULL;
        const char *ty = chx_type(e->type, c->caps, false, c->a, &why);
        if (!ty) return fail(c, "%s", why);
        if (e->type.id == T_TEXT && in->type.id != T_TEXT) {
            if (in->type.id == T_NUMERIC || type_is_float(in->type) || type_is_temporal(in->type) ||
                in->type.id == T_BOOL)
                return fail(c, "%s", "the text form of numbers, booleans and times differs in ClickHouse");
            sb_puts(out, "toString(");
            if (!put(c, in, out)) return false;
            sb_putc(out, ')');
            return true;
        }
        if (type_is_integer(e->type) && (type_is_float(in->type) || in->type.id == T_NUMERIC))
            return fail(c, "%s", "a cast to an integer rounds in PostgreSQL and truncates in ClickHouse");
        sb_puts(out, "CAST(");
        if (!put(c, in, out)) return false;
        sb_printf(out, " AS %s)", ty);
        return true;
    }
    case EX_OP: {
        if (e->op == OP_NEG) {
            sb_puts(out, "(-");
            if (!put(c, e->args[0], out)) return false;
            sb_putc(out, ')');
            return true;
        }
        const Expr *l = e->args[0], *r = e->nargs > 1 ? e->args[1] : NULL;
        if (!r) return fail(c, "%s", "a unary operator");
        const char *cmp = cmp_fn(e->op);
        if (cmp) {
            sb_putc(out, '(');
            if (!put(c, l, out)) return false;
            sb_printf(out, " %s ", cmp);
            if (!put(c, r, out)) return false;
            sb_putc(out, ')');
            return true;
        }
        switch (e->op) {
        case OP_ADD:
        case OP_SUB:
        case OP_MUL:
            if (type_is_temporal(e->type) || e->type.id == T_INTERVAL)
                return fail(c, "%s", "date and interval arithmetic has no exact ClickHouse translation yet");
            if (e->type.id == T_NUMERIC && e->op == OP_MUL)
                return fail(c, "%s", "numeric multiplication keeps a different scale in ClickHouse");
            sb_putc(out, '(');
            if (!put(c, l, out)) return false;
            sb_puts(out, e->op == OP_ADD ? " + " : e->op == OP_SUB ? " - " : " * ");
            if (!put(c, r, out)) return false;
            sb_putc(out, ')');
            return true;
        case OP_DIV:
            if (type_is_integer(e->type)) {
                /* PostgreSQL truncates toward zero, as intDiv does; x / 0 is an error in
                 * both (ClickHouse: "Division by zero") */
                sb_puts(out, "intDiv(");
                if (!put(c, l, out)) return false;
                sb_puts(out, ", ");
                if (!put(c, r, out)) return false;
                sb_putc(out, ')');
                return true;
            }
            if (type_is_float(e->type)) {
                sb_putc(out, '(');
                if (!put(c, l, out)) return false;
                sb_puts(out, " / ");
                if (!put(c, r, out)) return false;
                sb_putc(out, ')');
                return true;
            }
            return fail(c, "%s", "numeric division rounds to a different scale in ClickHouse");
        case OP_MOD:
            if (!type_is_integer(e->type)) return fail(c, "%s", "modulo of non-integers");
            sb_puts(out, "modulo(");
            if (!put(c, l, out)) return false;
            sb_puts(out, ", ");
            if (!put(c, r, out)) return false;
            sb_putc(out, ')');
            return true;
        case OP_CONCAT:
            if (l->type.id != T_TEXT || r->type.id != T_TEXT)
                return fail(c, "%s", "|| of a non-text value");
            sb_puts(out, "concat(");
            if (!put(c, l, out)) return false;
            sb_puts(out, ", ");
            if (!put(c, r, out)) return false;
            sb_putc(out, ')');
            return true;
        case OP_IS_DISTINCT:
        case OP_IS_NOT_DISTINCT: {
            const char *a = sub(c, l), *b = sub(c, r);
            if (!a || !b) return false;
            sb_printf(out, "%s(isNull(%s) AND isNull(%s) OR ifNull(%s = %s, 0))",
                      e->op == OP_IS_DISTINCT ? "NOT " : "", a, b, a, b);
            return true;
        }
        case OP_LIKE:
        case OP_NOT_LIKE:
            sb_puts(out, e->op == OP_LIKE ? "like(" : "notLike(");
            if (!put(c, l, out)) return false;
            sb_puts(out, ", ");
            if (!put(c, r, out)) return false;
            sb_putc(out, ')');
            return true;
        default:
            return fail(c, "operator %s has no ClickHouse translation yet", op_kind_symbol((OpKind)e->op));
        }
    }
    case EX_AND: return put_andor(c, e, out, true);
    case EX_OR: return put_andor(c, e, out, false);
    case EX_NOT:
        sb_puts(out, "not(");
        if (!put(c, e->args[0], out)) return false;
        sb_putc(out, ')');
        return true;
    case EX_IS_NULL:
        sb_puts(out, e->negated ? "isNotNull(" : "isNull(");
        if (!put(c, e->args[0], out)) return false;
        sb_putc(out, ')');
        return true;
    case EX_BOOL_TEST: {
        const char *a = sub(c, e->args[0]);
        if (!a) return false;
        switch (e->op) {
        case BT_IS_TRUE: sb_printf(out, "ifNull(%s = 1, 0)", a); break;
        case BT_IS_NOT_TRUE: sb_printf(out, "NOT ifNull(%s = 1, 0)", a); break;
        case BT_IS_FALSE: sb_printf(out, "ifNull(%s = 0, 0)", a); break;
        case BT_IS_NOT_FALSE: sb_printf(out, "NOT ifNull(%s = 0, 0)", a); break;
        case BT_IS_UNKNOWN: sb_printf(out, "isNull(%s)", a); break;
        default: sb_printf(out, "isNotNull(%s)", a); break;
        }
        return true;
    }
    case EX_IN_LIST: {
        /* as a chain of = with three-valued OR: x IN (a, NULL) is NULL, not false */
        const char *x = sub(c, e->args[0]);
        if (!x) return false;
        StrBuf eq = STRBUF_INIT, nul = STRBUF_INIT;
        for (int i = 1; i < e->nargs; i++) {
            const char *v = sub(c, e->args[i]);
            if (!v) {
                sb_free(&eq);
                sb_free(&nul);
                return false;
            }
            if (i > 1) {
                sb_puts(&eq, " OR ");
                sb_puts(&nul, " OR ");
            }
            sb_printf(&eq, "ifNull(%s = %s, 0) = 1", x, v);
            sb_printf(&nul, "isNull(%s = %s)", x, v);
        }
        int yes = e->negated ? 0 : 1;
        sb_printf(out, "multiIf(%s, toNullable(toUInt8(%d)), %s, NULL, toNullable(toUInt8(%d)))", sb_cstr(&eq), yes,
                  sb_cstr(&nul), 1 - yes);
        sb_free(&eq);
        sb_free(&nul);
        return true;
    }
    case EX_CASE: {
        sb_puts(out, "multiIf(");
        int n = e->nargs - (e->has_else ? 1 : 0);
        for (int i = 0; i + 1 < n; i += 2) {
            sb_puts(out, "ifNull(");
            if (!put(c, e->args[i], out)) return false;
            sb_puts(out, ", 0) = 1, ");
            const char *v = sub(c, e->args[i + 1]);
            if (!v) return false;
            sb_printf(out, "%s, ", chx_cast(v, e->type, c->caps, c->a));
        }
        if (e->has_else) {
            const char *v = sub(c, e->args[e->nargs - 1]);
            if (!v) return false;
            sb_puts(out, chx_cast(v, e->type, c->caps, c->a));
        } else {
            sb_puts(out, chx_cast("NULL", e->type, c->caps, c->a));
        }
        sb_putc(out, ')');
        return true;
    }
    case EX_COALESCE:
        sb_puts(out, "coalesce(");
        for (int i = 0; i < e->nargs; i++) {
            if (i) sb_puts(out, ", ");
            const char *v = sub(c, e->args[i]);
            if (!v) return false;
            sb_puts(out, chx_cast(v, e->type, c->caps, c->a));
        }
        sb_putc(out, ')');
        return true;
    case EX_NULLIF: {
        const char *a = sub(c, e->args[0]), *b = sub(c, e->args[1]);
        if (!a || !b) return false;
        sb_printf(out, "multiIf(ifNull(%s = %s, 0) = 1, NULL, %s)", a, b, chx_cast(a, e->type, c->caps, c->a));
        return true;
    }
    case EX_GREATEST:
    case EX_LEAST:
        return fail(c, "%s", "GREATEST/LEAST skip NULLs in PostgreSQL; no exact ClickHouse translation yet");
    case EX_FUNC: return put_func(c, e, out);
    case EX_SUBQUERY: return fail(c, "%s", "a scalar subquery");
    }
    return fail(c, "%s", "an expression weir cannot translate");
}

bool chx_expr(const Expr *e, const char *const *env, int nenv, const ChCaps *caps, Arena *a, StrBuf *out,
              const char **why)
{
    Ctx c = {env, nenv, caps, a, NULL};
    bool ok = put(&c, e, out);
    if (!ok && why) *why = c.why ? c.why : "an expression weir cannot translate";
    return ok;
}

const char *chx_expr_str(const Expr *e, const char *const *env, int nenv, const ChCaps *caps, Arena *a,
                         const char **why)
{
    StrBuf b = STRBUF_INIT;
    bool ok = chx_expr(e, env, nenv, caps, a, &b, why);
    const char *s = ok ? arena_strdup(a, sb_cstr(&b)) : NULL;
    sb_free(&b);
    return s;
}
