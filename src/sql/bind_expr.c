/* Binding of scalar expressions: column references, operators
 * (arithmetic, comparison, ||, LIKE, the ~ regular expression operators), boolean logic, IS [NOT] NULL/TRUE/DISTINCT FROM,
 * IN lists, BETWEEN (desugared into comparisons), CASE (simple CASE desugared into
 * equality conditions), COALESCE, NULLIF, GREATEST/LEAST; subqueries are handed to
 * bind_subquery.c and window calls to bind_over.c. Operator resolution follows
 * PostgreSQL: an unknown literal takes the type of the other operand, numeric operands
 * meet at their common type, and incompatible operands are "operator does not exist". */
#include "sql/bind_internal.h"

#include "base/regex.h"

#include <string.h>

static Expr *new_node(Binder *b, ExprKind k, Type t, int loc, int nargs)
{
    Expr *e = plan_expr_new(b->arena, k, t, loc);
    if (nargs > 0) e->args = ARENA_ARRAY(b->arena, Expr *, nargs);
    e->nargs = nargs;
    return e;
}

static Expr *node2(Binder *b, ExprKind k, int op, Type t, int loc, Expr *x, Expr *y)
{
    Expr *e = new_node(b, k, t, loc, y ? 2 : 1);
    e->op = op;
    e->args[0] = x;
    if (y) e->args[1] = y;
    return e;
}

Expr *bind_column_expr(Binder *b, const ScopeCol *c, int loc)
{
    Expr *e = plan_expr_column(b->arena, c->index, c->type);
    e->loc = loc;
    return e;
}

/* Operator spelling in PostgreSQL's messages. */
static const char *op_sql(int op)
{
    switch (op) {
    case OP_LIKE: return "~~";
    case OP_NOT_LIKE: return "!~~";
    case OP_ILIKE: return "~~*";
    case OP_NOT_ILIKE: return "!~~*";
    case OP_IS_DISTINCT:
    case OP_IS_NOT_DISTINCT: return "=";
    default: return op_kind_symbol((OpKind)op);
    }
}

char *bind_expr_text(ExprCtx *cx, const Expr *e)
{
    StrBuf sb = STRBUF_INIT;
    const PlanNode *in = cx->scope ? cx->scope->input : NULL;
    plan_expr_sql(e, in ? in->cols : NULL, in ? in->ncols : 0, &sb);
    char *s = arena_strdup(cx->b->arena, sb.len ? sb_cstr(&sb) : "x");
    sb_free(&sb);
    return s;
}

static bool is_comparison(int op)
{
    return (op >= OP_EQ && op <= OP_IS_NOT_DISTINCT) || (op >= OP_LIKE && op <= OP_NOT_IREGEX);
}

static const char *op_hint(ExprCtx *cx, int op, const Expr *l, const Expr *r)
{
    Binder *b = cx->b;
    if (!l || !r || l->type.id == T_UNKNOWN || r->type.id == T_UNKNOWN)
        return "no operator matches the given name and argument types; you might need to add explicit type casts";
    if (is_comparison(op)) {
        /* suggest casting the text side to the other side's type; else the left side */
        const Expr *from = l, *to = r;
        if (r->type.id == T_TEXT && l->type.id != T_TEXT) {
            from = r;
            to = l;
        }
        return arena_printf(b->arena, "cast one side, e.g. %s::%s", bind_expr_text(cx, from), bind_type_display(b, to->type));
    }
    if (op == OP_CONCAT) return arena_printf(b->arena, "cast one side to text, e.g. %s::text", bind_expr_text(cx, l));
    if (op == OP_MOD && bind_type_cat(l->type) == CAT_NUM && bind_type_cat(r->type) == CAT_NUM)
        return arena_printf(b->arena, "%% is defined for integers and numeric: cast, e.g. %s::numeric",
                            bind_expr_text(cx, type_is_float(l->type) ? l : r));
    if ((op == OP_ADD || op == OP_SUB) && l->type.id == T_DATE && r->type.id == T_INT8)
        return arena_printf(b->arena, "date %s integer adds days: cast the number, e.g. %s::integer",
                            op_sql(op), bind_expr_text(cx, r));
    return "no operator matches the given name and argument types; you might need to add explicit type casts";
}

static void op_error(ExprCtx *cx, int op, const Expr *l, const Expr *r, int loc)
{
    Binder *b = cx->b;
    const char *hint = op_hint(cx, op, l, r);
    if (l)
        bind_error(b, loc, "type-mismatch", hint, "operator does not exist: %s %s %s", bind_type_display(b, l->type),
                   op_sql(op), bind_type_display(b, r->type));
    else
        bind_error(b, loc, "type-mismatch", hint, "operator does not exist: %s %s", op_sql(op),
                   bind_type_display(b, r->type));
}

static void not_unique(ExprCtx *cx, int op, const Expr *l, const Expr *r, int loc)
{
    Binder *b = cx->b;
    if (l)
        bind_error(b, loc, "type-mismatch", "cast the literals to the type you mean, e.g. '1'::integer",
                   "operator is not unique: %s %s %s", bind_type_display(b, l->type), op_sql(op),
                   bind_type_display(b, r->type));
    else
        bind_error(b, loc, "type-mismatch", "cast the literal to the type you mean, e.g. '1'::integer",
                   "operator is not unique: %s %s", op_sql(op), bind_type_display(b, r->type));
}

static bool is_null_literal(const Expr *e)
{
    return bind_is_unknown_literal(e) && e->cval.isnull;
}

/* ---- comparison -------------------------------------------------------------------- */

/* Brings l and r to one comparable type (PostgreSQL's resolution of =, <, ...). */
static bool compare_operands(ExprCtx *cx, int op, Expr **pl, Expr **pr, int loc)
{
    Binder *b = cx->b;
    Expr *l = *pl, *r = *pr;
    bool lu = bind_is_unknown_literal(l), ru = bind_is_unknown_literal(r);
    if (lu && ru) {
        l = bind_coerce(b, l, type_make(T_TEXT));
        r = bind_coerce(b, r, type_make(T_TEXT));
    } else if (lu) {
        l = bind_coerce(b, l, type_base(r->type));
    } else if (ru) {
        r = bind_coerce(b, r, type_base(l->type));
    } else if (l->type.id == T_JSON || r->type.id == T_JSON) {
        /* json has no comparison operators */
        bind_error(b, loc, "type-mismatch", "compare their text, e.g. x::text = y::text",
                   "operator does not exist: %s %s %s", bind_type_display(b, l->type), op_sql(op),
                   bind_type_display(b, r->type));
        return false;
    } else if (l->type.id != r->type.id || l->type.elem != r->type.elem) {
        TypeCat cl = bind_type_cat(l->type), cr = bind_type_cat(r->type);
        TypeCat el = cl == CAT_ARRAY && cr == CAT_ARRAY ? bind_type_cat(type_elem(l->type)) : CAT_UNKNOWN;
        bool arrays_ok = el != CAT_UNKNOWN && el == bind_type_cat(type_elem(r->type)) && (el == CAT_NUM || el == CAT_DATETIME);
        if (!arrays_ok && (cl != cr || (cl != CAT_NUM && cl != CAT_DATETIME))) {
            op_error(cx, op, l, r, loc);
            return false;
        }
        Type t = bind_op_common(l->type, r->type);
        l = bind_coerce(b, l, t);
        r = bind_coerce(b, r, t);
    }
    if (!l || !r) return false;
    *pl = l;
    *pr = r;
    return true;
}

static Expr *compare(ExprCtx *cx, int op, Expr *l, Expr *r, int loc, bool warn_null)
{
    if (!l || !r) return NULL;
    if (warn_null && (op == OP_EQ || op == OP_NE) && (is_null_literal(l) || is_null_literal(r)))
        bind_warning(cx->b, loc, "null-comparison", op == OP_EQ ? "use IS NULL" : "use IS NOT NULL",
                     "comparison with NULL is never true: it yields NULL for every row");
    if (!compare_operands(cx, op, &l, &r, loc)) return NULL;
    return node2(cx->b, EX_OP, op, type_make(T_BOOL), loc, l, r);
}

/* ---- arithmetic ---------------------------------------------------------------------- */

static bool is_dt(Type t) { return bind_type_cat(t) == CAT_DATETIME; }
static bool is_ts(Type t) { return t.id == T_TIMESTAMP || t.id == T_TIMESTAMPTZ; }
static bool is_iv(Type t) { return t.id == T_INTERVAL; }
static bool is_num(Type t) { return bind_type_cat(t) == CAT_NUM; }
static bool is_small_int(Type t) { return t.id == T_INT2 || t.id == T_INT4; }

/* The type an unknown literal takes opposite `known` in `op` (PostgreSQL's operator
 * resolution with one unknown input), or T_UNKNOWN when no operator fits. */
static Type unknown_partner(int op, Type known, bool unknown_on_left, bool *ambiguous)
{
    *ambiguous = false;
    TypeCat c = bind_type_cat(known);
    if (c == CAT_NUM) return type_make((TypeId)known.id);
    if (c == CAT_SPAN) {
        if (op == OP_ADD || op == OP_SUB) return type_make(T_INTERVAL);
        if (op == OP_MUL) return type_make(T_FLOAT8);
        if (op == OP_DIV && !unknown_on_left) return type_make(T_FLOAT8);
        return type_make(T_UNKNOWN);
    }
    if (c == CAT_DATETIME) {
        if (op == OP_SUB && !unknown_on_left) return type_make((TypeId)known.id);
        if (op == OP_ADD && is_ts(known)) return type_make(T_INTERVAL);
        if (op == OP_ADD && known.id == T_DATE) *ambiguous = true;
        return type_make(T_UNKNOWN);
    }
    return type_make(T_UNKNOWN);
}

static Expr *arith(ExprCtx *cx, int op, Expr *l, Expr *r, int loc)
{
    Binder *b = cx->b;
    bool lu = bind_is_unknown_literal(l), ru = bind_is_unknown_literal(r);
    if (lu && ru) {
        not_unique(cx, op, l, r, loc);
        return NULL;
    }
    if (lu || ru) {
        bool amb;
        Type t = unknown_partner(op, lu ? r->type : l->type, lu, &amb);
        if (amb) {
            not_unique(cx, op, l, r, loc);
            return NULL;
        }
        if (t.id == T_UNKNOWN) {
            op_error(cx, op, l, r, loc);
            return NULL;
        }
        if (lu) l = bind_coerce(b, l, t);
        else r = bind_coerce(b, r, t);
        if (!l || !r) return NULL;
    }
    Type lt = l->type, rt = r->type;
    Type res;
    if (is_num(lt) && is_num(rt)) {
        Type t = bind_op_common(lt, rt);
        if (op == OP_MOD && type_is_float(t)) {
            op_error(cx, op, l, r, loc);
            return NULL;
        }
        l = bind_coerce(b, l, t);
        r = bind_coerce(b, r, t);
        res = t;
    } else if (op == OP_ADD || op == OP_SUB) {
        if (is_ts(lt) && is_iv(rt)) {
            res = type_make((TypeId)lt.id);
        } else if (op == OP_ADD && is_iv(lt) && is_ts(rt)) {
            res = type_make((TypeId)rt.id);
        } else if (lt.id == T_DATE && is_iv(rt)) {
            res = type_make(T_TIMESTAMP);
        } else if (op == OP_ADD && is_iv(lt) && rt.id == T_DATE) {
            res = type_make(T_TIMESTAMP);
        } else if (lt.id == T_DATE && is_small_int(rt)) {
            r = bind_coerce(b, r, type_make(T_INT4));
            res = type_make(T_DATE);
        } else if (op == OP_ADD && is_small_int(lt) && rt.id == T_DATE) {
            l = bind_coerce(b, l, type_make(T_INT4));
            res = type_make(T_DATE);
        } else if (is_iv(lt) && is_iv(rt)) {
            res = type_make(T_INTERVAL);
        } else if (op == OP_SUB && lt.id == T_DATE && rt.id == T_DATE) {
            res = type_make(T_INT4);
        } else if (op == OP_SUB && is_dt(lt) && is_dt(rt)) {
            Type t = bind_op_common(lt, rt);
            l = bind_coerce(b, l, t);
            r = bind_coerce(b, r, t);
            res = type_make(T_INTERVAL);
        } else {
            op_error(cx, op, l, r, loc);
            return NULL;
        }
    } else if (op == OP_MUL && is_iv(lt) && is_num(rt)) {
        r = bind_coerce(b, r, type_make(T_FLOAT8));
        res = type_make(T_INTERVAL);
    } else if (op == OP_MUL && is_num(lt) && is_iv(rt)) {
        l = bind_coerce(b, l, type_make(T_FLOAT8));
        res = type_make(T_INTERVAL);
    } else if (op == OP_DIV && is_iv(lt) && is_num(rt)) {
        r = bind_coerce(b, r, type_make(T_FLOAT8));
        res = type_make(T_INTERVAL);
    } else {
        op_error(cx, op, l, r, loc);
        return NULL;
    }
    if (!l || !r) return NULL;
    return node2(b, EX_OP, op, res, loc, l, r);
}

Expr *bind_binary_op(ExprCtx *cx, int op, Expr *l, Expr *r, int loc)
{
    if (!l || !r) return NULL;
    switch (op) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_MOD: return arith(cx, op, l, r, loc);
    default: return compare(cx, op, l, r, loc, true);
    }
}

static Expr *negate(ExprCtx *cx, Expr *x, int loc)
{
    if (bind_is_unknown_literal(x)) {
        not_unique(cx, OP_NEG, NULL, x, loc);
        return NULL;
    }
    if (!is_num(x->type) && !is_iv(x->type)) {
        op_error(cx, OP_NEG, NULL, x, loc);
        return NULL;
    }
    /* unconstrained result, as for every numeric operator */
    return node2(cx->b, EX_OP, OP_NEG, type_make((TypeId)x->type.id), loc, x, NULL);
}

/* text || text, and anynonarray || text as PostgreSQL: the non-text side is output as text. */
static Expr *concat_side(ExprCtx *cx, Expr *e, int loc)
{
    Binder *b = cx->b;
    if (bind_is_unknown_literal(e) || e->type.id == T_TEXT) return bind_coerce(b, e, type_make(T_TEXT));
    if (e->type.id == T_BOOL) {
        /* PostgreSQL prints booleans as t/f here but casts them to 'true'/'false':
         * make the user choose rather than guess */
        bind_unsupported(b, loc, "|| with a boolean operand (cast it explicitly: x::text gives 'true'/'false')");
        return NULL;
    }
    return bind_cast(b, e, type_make(T_TEXT), e->loc);
}

static Expr *concat_op(ExprCtx *cx, Expr *l, Expr *r, int loc)
{
    if (l->type.id == T_ARRAY || r->type.id == T_ARRAY) {
        /* anyarray || anyarray, anyarray || element, element || anyarray (an unknown
         * literal beside an array is an array, as PostgreSQL resolves it) */
        bool la = l->type.id == T_ARRAY, ra = r->type.id == T_ARRAY;
        FuncKind f = (la && ra) || (la && bind_is_unknown_literal(r)) || (ra && bind_is_unknown_literal(l)) ? FN_ARRAY_CAT
                   : la ? FN_ARRAY_APPEND : FN_ARRAY_PREPEND;
        return bind_array_concat(cx, f, l, r, loc, NULL);
    }
    bool ltext = bind_is_unknown_literal(l) || l->type.id == T_TEXT;
    bool rtext = bind_is_unknown_literal(r) || r->type.id == T_TEXT;
    if (!ltext && !rtext) {
        op_error(cx, OP_CONCAT, l, r, loc);
        return NULL;
    }
    l = concat_side(cx, l, loc);
    r = concat_side(cx, r, loc);
    if (!l || !r) return NULL;
    return node2(cx->b, EX_OP, OP_CONCAT, type_make(T_TEXT), loc, l, r);
}

static Expr *like_op(ExprCtx *cx, int op, Expr *l, Expr *r, int loc)
{
    if (!l || !r) return NULL;
    bool ok = (bind_is_unknown_literal(l) || l->type.id == T_TEXT) && (bind_is_unknown_literal(r) || r->type.id == T_TEXT);
    if (!ok) {
        op_error(cx, op, l, r, loc);
        return NULL;
    }
    l = bind_coerce(cx->b, l, type_make(T_TEXT));
    r = bind_coerce(cx->b, r, type_make(T_TEXT));
    if (!l || !r) return NULL;
    Expr *e = node2(cx->b, EX_OP, op, type_make(T_BOOL), loc, l, r);
    if (op >= OP_REGEX && op <= OP_NOT_IREGEX &&
        !bind_prepare_regex(cx->b, e, r, NULL, op == OP_IREGEX || op == OP_NOT_IREGEX ? REGEX_ICASE : 0, NULL))
        return NULL;
    return e;
}

/* ---- boolean logic and tests -------------------------------------------------------------- */

Expr *bind_require_bool(ExprCtx *cx, Expr *e, const char *what, int loc)
{
    if (!e) return NULL;
    if (bind_is_unknown_literal(e)) return bind_coerce(cx->b, e, type_make(T_BOOL));
    if (e->type.id == T_BOOL) return e;
    bind_error(cx->b, loc, "type-mismatch", NULL, "argument of %s must be type boolean, not type %s", what,
               bind_type_display(cx->b, e->type));
    return NULL;
}

Expr *bind_condition(ExprCtx *cx, Ast *a, const char *what)
{
    Expr *e = bind_expr(cx, a);
    return bind_require_bool(cx, e, what, bind_ast_start(a));
}

static Expr *bool_list(ExprCtx *cx, Ast *a)
{
    const char *what = a->kind == AST_AND ? "AND" : "OR";
    Expr *e = new_node(cx->b, a->kind == AST_AND ? EX_AND : EX_OR, type_make(T_BOOL), a->loc, a->args.n);
    bool ok = true;
    for (int i = 0; i < a->args.n; i++) {
        e->args[i] = bind_condition(cx, a->args.items[i], what);
        if (!e->args[i]) ok = false;
    }
    return ok ? e : NULL;
}

static const char *const bool_test_names[] = {"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN",
                                              "IS NOT UNKNOWN"};

static Expr *bool_test(ExprCtx *cx, Ast *a)
{
    int kind = a->booltest;
    if (kind < 0 || kind > 5) {
        bind_unsupported(cx->b, a->loc, "this boolean test");
        return NULL;
    }
    Expr *x = bind_condition(cx, a->expr, bool_test_names[kind]);
    if (!x) return NULL;
    return node2(cx->b, EX_BOOL_TEST, kind, type_make(T_BOOL), a->loc, x, NULL);
}

static Expr *null_test(ExprCtx *cx, Ast *a)
{
    Expr *x = bind_default_unknown(cx->b, bind_expr(cx, a->expr));
    if (!x) return NULL;
    Expr *e = node2(cx->b, EX_IS_NULL, 0, type_make(T_BOOL), a->loc, x, NULL);
    e->negated = a->negated;
    return e;
}

/* ---- IN, BETWEEN, DISTINCT FROM, NULLIF ---------------------------------------------------- */

static Expr *in_list(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    int n = a->args.n + 1;
    Expr **es = ARENA_ARRAY(b->arena, Expr *, n);
    bool ok = true;
    es[0] = bind_expr(cx, a->lexpr);
    for (int i = 1; i < n; i++) es[i] = bind_expr(cx, a->args.items[i - 1]);
    for (int i = 0; i < n; i++)
        if (!es[i]) ok = false;
    if (!ok) return NULL;
    /* common comparison type of the left side and every element */
    Type cand = type_make(T_UNKNOWN);
    int first = -1;
    for (int i = 0; i < n; i++) {
        Type t = es[i]->type;
        if (t.id == T_UNKNOWN) continue;
        if (first < 0) {
            cand = type_base(t);
            first = i;
            continue;
        }
        if (t.id == cand.id) continue;
        TypeCat cc = bind_type_cat(cand), ct = bind_type_cat(t);
        if (cc != ct || (cc != CAT_NUM && cc != CAT_DATETIME)) {
            op_error(cx, OP_EQ, es[first], es[i], es[i]->loc >= 0 ? es[i]->loc : a->loc);
            return NULL;
        }
        cand = bind_op_common(cand, t);
    }
    if (cand.id == T_UNKNOWN) cand = type_make(T_TEXT);
    Expr *e = new_node(b, EX_IN_LIST, type_make(T_BOOL), a->loc, n);
    e->negated = a->negated;
    for (int i = 0; i < n; i++) {
        e->args[i] = bind_coerce(b, es[i], cand);
        if (!e->args[i]) ok = false;
    }
    return ok ? e : NULL;
}

static Expr *bool2(Binder *b, ExprKind k, int loc, Expr *x, Expr *y)
{
    if (!x || !y) return NULL;
    Expr *e = new_node(b, k, type_make(T_BOOL), loc, 2);
    e->args[0] = x;
    e->args[1] = y;
    return e;
}

static Expr *between(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    if (a->args.n != 2) {
        bind_unsupported(b, a->loc, "this form of BETWEEN");
        return NULL;
    }
    Expr *x = bind_expr(cx, a->lexpr);
    Expr *lo = bind_expr(cx, a->args.items[0]);
    Expr *hi = bind_expr(cx, a->args.items[1]);
    if (!x || !lo || !hi) return NULL;
    int loc = a->loc;
#define CMP(op, l, r) compare(cx, (op), plan_expr_copy(b->arena, (l)), plan_expr_copy(b->arena, (r)), loc, false)
    Expr *e;
    if (!a->negated) {
        e = bool2(b, EX_AND, loc, CMP(OP_GE, x, lo), CMP(OP_LE, x, hi));
        if (e && a->symmetric)
            e = bool2(b, EX_OR, loc, e, bool2(b, EX_AND, loc, CMP(OP_GE, x, hi), CMP(OP_LE, x, lo)));
    } else {
        e = bool2(b, EX_OR, loc, CMP(OP_LT, x, lo), CMP(OP_GT, x, hi));
        if (e && a->symmetric)
            e = bool2(b, EX_AND, loc, e, bool2(b, EX_OR, loc, CMP(OP_LT, x, hi), CMP(OP_GT, x, lo)));
    }
#undef CMP
    return e;
}

static Expr *distinct_from(ExprCtx *cx, Ast *a)
{
    Expr *l = bind_expr(cx, a->lexpr), *r = bind_expr(cx, a->rexpr);
    return compare(cx, a->negated ? OP_IS_NOT_DISTINCT : OP_IS_DISTINCT, l, r, a->loc, false);
}

static Expr *nullif(ExprCtx *cx, Ast *a)
{
    Expr *l = bind_expr(cx, a->lexpr), *r = bind_expr(cx, a->rexpr);
    if (!l || !r) return NULL;
    if (!compare_operands(cx, OP_EQ, &l, &r, a->loc)) return NULL;
    Expr *e = new_node(cx->b, EX_NULLIF, l->type, a->loc, 2);
    e->args[0] = l;
    e->args[1] = r;
    return e;
}

/* ---- CASE, COALESCE, GREATEST/LEAST --------------------------------------------------------- */

/* Coerces every expression to their common type; returns it through *t. */
static bool unify(ExprCtx *cx, Expr **es, int n, const char *context, Type *t)
{
    if (!bind_common_type(cx->b, es, n, context, t)) return false;
    bool ok = true;
    for (int i = 0; i < n; i++) {
        es[i] = bind_coerce(cx->b, es[i], *t);
        if (!es[i]) ok = false;
    }
    return ok;
}

static Expr *case_expr(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    int nw = a->whens.n;
    bool ok = true;
    Expr *arg = NULL;
    if (a->expr) {
        arg = bind_expr(cx, a->expr);
        if (!arg) return NULL;
    }
    Expr **conds = ARENA_ARRAY(b->arena, Expr *, nw + 1);
    /* results with ELSE first: PostgreSQL resolves the ELSE branch's type first */
    Expr **res = ARENA_ARRAY(b->arena, Expr *, nw + 1);
    int nres = 0;
    Expr *els = NULL;
    if (a->else_expr) {
        els = bind_expr(cx, a->else_expr);
        if (!els) ok = false;
        res[nres++] = els;
    }
    int first_res = nres;
    for (int i = 0; i < nw; i++) {
        Ast *w = a->whens.items[i];
        if (w->kind != AST_CASE_WHEN) {
            bind_unsupported(b, w->loc, ast_kind_name(w->kind));
            return NULL;
        }
        if (arg) {
            Expr *v = bind_expr(cx, w->lexpr);
            conds[i] = v ? compare(cx, OP_EQ, plan_expr_copy(b->arena, arg), v, w->loc, true) : NULL;
        } else {
            conds[i] = bind_condition(cx, w->lexpr, "CASE/WHEN");
        }
        res[nres] = bind_expr(cx, w->rexpr);
        if (!conds[i] || !res[nres]) ok = false;
        nres++;
    }
    if (!ok) return NULL;
    Type t;
    if (!unify(cx, res, nres, "CASE", &t)) return NULL;
    /* without ELSE the implicit NULL has no typmod, so the result has none (exprTypmod) */
    if (!els) t = type_base(t);
    Expr *e = new_node(b, EX_CASE, t, a->loc, 2 * nw + (els ? 1 : 0));
    for (int i = 0; i < nw; i++) {
        e->args[2 * i] = conds[i];
        e->args[2 * i + 1] = res[first_res + i];
    }
    if (els) {
        e->args[2 * nw] = res[0];
        e->has_else = true;
    }
    return e;
}

/* ---- arrays ------------------------------------------------------------------------ */

static Expr *func_n(Binder *b, FuncKind f, Type t, int loc, int n);

/* a @> b, a <@ b, a && b over arrays of one element type (an unknown literal takes the
 * other side's type). */
static Expr *array_containment(ExprCtx *cx, const char *name, Expr *l, Expr *r, int loc)
{
    Binder *b = cx->b;
    if (bind_is_unknown_literal(l) && r->type.id == T_ARRAY) l = bind_coerce(b, l, type_base(r->type));
    if (bind_is_unknown_literal(r) && l && l->type.id == T_ARRAY) r = bind_coerce(b, r, type_base(l->type));
    if (!l || !r) return NULL;
    if (l->type.id != T_ARRAY || r->type.id != T_ARRAY || l->type.elem != r->type.elem) {
        bind_error(b, loc, "type-mismatch", l->type.id == T_ARRAY && r->type.id == T_ARRAY ? "cast one side, e.g. x::text[]" : NULL,
                   "operator does not exist: %s %s %s", bind_type_display(b, l->type), name, bind_type_display(b, r->type));
        return NULL;
    }
    bool overlap = name[0] == '&', contained = name[0] == '<';
    Expr *e = func_n(b, overlap ? FN_ARRAY_OVERLAP : FN_ARRAY_CONTAINS, type_make(T_BOOL), loc, 2);
    e->args[0] = contained ? r : l;
    e->args[1] = contained ? l : r;
    return e;
}

static Expr *func_n(Binder *b, FuncKind f, Type t, int loc, int n)
{
    Expr *e = new_node(b, EX_FUNC, t, loc, n);
    e->func = f;
    return e;
}

/* ARRAY[e, ...]: the elements' common type (unknown literals: text), one dimension. */
static Expr *array_ctor(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    int n = a->args.n;
    if (n == 0) {
        bind_error(b, a->loc, "type-mismatch", "write a typed empty array, e.g. '{}'::integer[]",
                   "cannot determine type of empty array");
        return NULL;
    }
    Expr **es = ARENA_ARRAY(b->arena, Expr *, n);
    bool ok = true;
    for (int i = 0; i < n; i++)
        if (!(es[i] = bind_expr(cx, a->args.items[i]))) ok = false;
    if (!ok) return NULL;
    for (int i = 0; i < n; i++)
        if (es[i]->type.id == T_ARRAY || es[i]->type.id == T_JSON) {
            bind_unsupported(b, es[i]->loc >= 0 ? es[i]->loc : a->loc,
                             es[i]->type.id == T_ARRAY ? "ARRAY[...] of arrays (a multidimensional array)"
                                                       : "ARRAY[...] of json (json[])");
            return NULL;
        }
    Type t;
    if (!bind_common_type(b, es, n, "ARRAY", &t)) return NULL;
    Expr *e = func_n(b, FN_ARRAY, type_array(t), a->loc, n);
    for (int i = 0; i < n; i++)
        if (!(e->args[i] = bind_coerce(b, es[i], t))) return NULL;
    return e;
}

/* a[i]: element i (1-based) of a one-dimensional array, NULL outside. */
static Expr *subscript(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    Expr *x = bind_expr(cx, a->expr), *i = bind_expr(cx, a->lexpr);
    if (!x || !i) return NULL;
    if (x->type.id != T_ARRAY) {
        bind_error(b, a->loc, "type-mismatch", NULL, "cannot subscript type %s because it does not support subscripting",
                   bind_type_display(b, x->type));
        return NULL;
    }
    if (bind_is_unknown_literal(i)) i = bind_coerce(b, i, type_make(T_INT4));
    if (!i) return NULL;
    if (!type_is_integer(i->type)) {
        bind_error(b, bind_ast_start(a->lexpr), "type-mismatch", NULL, "array subscript must have type integer");
        return NULL;
    }
    Expr *e = func_n(b, FN_ARRAY_SUBSCRIPT, type_elem(x->type), a->loc, 2);
    e->args[0] = x;
    e->args[1] = bind_coerce(b, i, type_make(T_INT8));
    return e->args[1] ? e : NULL;
}

/* x op ANY (array) and x op ALL (array) for the comparison operators. */
static Expr *array_cmp(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    const char *n = a->name ? a->name : "?";
    int op = !strcmp(n, "=") ? OP_EQ : !strcmp(n, "<>") || !strcmp(n, "!=") ? OP_NE : !strcmp(n, "<") ? OP_LT
           : !strcmp(n, "<=") ? OP_LE : !strcmp(n, ">") ? OP_GT : !strcmp(n, ">=") ? OP_GE : -1;
    if (op < 0) {
        bind_unsupported(b, a->loc, arena_printf(b->arena, "%s %s (array)", n, a->negated ? "ALL" : "ANY"));
        return NULL;
    }
    Expr *l = bind_expr(cx, a->lexpr), *r = bind_expr(cx, a->rexpr);
    if (!l || !r) return NULL;
    if (bind_is_unknown_literal(l) && bind_is_unknown_literal(r)) l = bind_coerce(b, l, type_make(T_TEXT));
    if (bind_is_unknown_literal(r)) r = bind_coerce(b, r, type_array(type_base(l->type)));
    if (!l || !r) return NULL;
    if (r->type.id != T_ARRAY) {
        bind_error(b, bind_ast_start(a->rexpr), "type-mismatch", NULL, "op ANY/ALL (array) requires array on right side");
        return NULL;
    }
    Type et = type_elem(r->type);
    if (bind_is_unknown_literal(l)) l = bind_coerce(b, l, type_base(et));
    if (!l) return NULL;
    if (l->type.id != et.id) {
        TypeCat cl = bind_type_cat(l->type), ce = bind_type_cat(et);
        if (cl != ce || (cl != CAT_NUM && cl != CAT_DATETIME)) {
            bind_error(b, a->loc, "type-mismatch", NULL, "operator does not exist: %s %s %s", bind_type_display(b, l->type),
                       a->name, bind_type_display(b, et));
            return NULL;
        }
        Type t = bind_op_common(l->type, et);
        l = bind_coerce(b, l, t);
        r = bind_coerce(b, r, type_array(t));
        if (!l || !r) return NULL;
    }
    if (et.id == T_JSON) {
        bind_error(b, a->loc, "type-mismatch", NULL, "operator does not exist: json %s json", n);
        return NULL;
    }
    Expr *e = func_n(b, FN_ARRAY_CMP, type_make(T_BOOL), a->loc, 3);
    e->args[0] = l;
    e->args[1] = r;
    e->args[2] = plan_expr_const(b->arena, type_make(T_INT4), value_int(op));
    e->negated = a->negated;
    return e;
}

static Expr *variadic_common(ExprCtx *cx, Ast *a, ExprKind kind, const char *context)
{
    Binder *b = cx->b;
    int n = a->args.n;
    Expr *e = new_node(b, kind, type_make(T_UNKNOWN), a->loc, n);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        e->args[i] = bind_expr(cx, a->args.items[i]);
        if (!e->args[i]) ok = false;
    }
    if (!ok) return NULL;
    if (!unify(cx, e->args, n, context, &e->type)) return NULL;
    return e;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

/* LIKE and the POSIX regular expression operators, by their operator names. */
static int like_kind(const char *name)
{
    if (strcmp(name, "~~") == 0) return OP_LIKE;
    if (strcmp(name, "!~~") == 0) return OP_NOT_LIKE;
    if (strcmp(name, "~~*") == 0) return OP_ILIKE;
    if (strcmp(name, "!~~*") == 0) return OP_NOT_ILIKE;
    if (strcmp(name, "~") == 0) return OP_REGEX;
    if (strcmp(name, "!~") == 0) return OP_NOT_REGEX;
    if (strcmp(name, "~*") == 0) return OP_IREGEX;
    if (strcmp(name, "!~*") == 0) return OP_NOT_IREGEX;
    return -1;
}

static Expr *op_expr(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    const char *name = a->name ? a->name : "";
    if (!a->lexpr) {
        /* prefix operator */
        if (strcmp(name, "-") != 0 && strcmp(name, "+") != 0) {
            bind_unsupported(b, a->loc, arena_printf(b->arena, "prefix operator %s", name));
            return NULL;
        }
        Expr *x = bind_expr(cx, a->rexpr);
        if (!x) return NULL;
        if (name[0] == '-') return negate(cx, x, a->loc);
        if (bind_is_unknown_literal(x)) {
            not_unique(cx, OP_ADD, NULL, x, a->loc);
            return NULL;
        }
        if (!is_num(x->type) && !is_iv(x->type)) {
            bind_error(b, a->loc, "type-mismatch", NULL, "operator does not exist: + %s",
                       bind_type_display(b, x->type));
            return NULL;
        }
        return x;
    }
    if (!a->rexpr) {
        bind_unsupported(b, a->loc, arena_printf(b->arena, "postfix operator %s", name));
        return NULL;
    }
    int op = -1;
    if (strcmp(name, "+") == 0) op = OP_ADD;
    else if (strcmp(name, "-") == 0) op = OP_SUB;
    else if (strcmp(name, "*") == 0) op = OP_MUL;
    else if (strcmp(name, "/") == 0) op = OP_DIV;
    else if (strcmp(name, "%") == 0) op = OP_MOD;
    else if (strcmp(name, "=") == 0) op = OP_EQ;
    else if (strcmp(name, "<>") == 0 || strcmp(name, "!=") == 0) op = OP_NE;
    else if (strcmp(name, "<") == 0) op = OP_LT;
    else if (strcmp(name, "<=") == 0) op = OP_LE;
    else if (strcmp(name, ">") == 0) op = OP_GT;
    else if (strcmp(name, ">=") == 0) op = OP_GE;
    else if (strcmp(name, "||") == 0) op = OP_CONCAT;
    else if (like_kind(name) >= 0) op = like_kind(name);
    else if (strcmp(name, "@>") == 0 || strcmp(name, "<@") == 0 || strcmp(name, "&&") == 0) {
        Expr *l = bind_expr(cx, a->lexpr), *r = bind_expr(cx, a->rexpr);
        return l && r ? array_containment(cx, name, l, r, a->loc) : NULL;
    } else if (strcmp(name, "^") == 0) {
        Expr *args[2] = {bind_expr(cx, a->lexpr), bind_expr(cx, a->rexpr)};
        if (!args[0] || !args[1]) return NULL;
        return bind_scalar_func(cx, "power", args, 2, a->loc);
    } else {
        bind_unsupported(b, a->loc, arena_printf(b->arena, "operator %s", name));
        return NULL;
    }
    Expr *l = bind_expr(cx, a->lexpr);
    Expr *r = bind_expr(cx, a->rexpr);
    if (!l || !r) return NULL;
    if (op == OP_CONCAT) return concat_op(cx, l, r, a->loc);
    if (op >= OP_LIKE && op <= OP_NOT_IREGEX) return like_op(cx, op, l, r, a->loc);
    return bind_binary_op(cx, op, l, r, a->loc);
}

Expr *bind_expr(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    if (!a) {
        bind_error(b, -1, "sql-syntax", NULL, "missing expression");
        return NULL;
    }
    switch (a->kind) {
    case AST_COLUMN_REF: {
        if (a->star) {
            bind_unsupported(b, a->loc, a->nnames ? "a whole-row reference (x.*) in an expression" : "* in an expression");
            return NULL;
        }
        bool outer;
        const ScopeCol *c = bind_resolve_column(cx, a, &outer);
        if (!c) return NULL;
        Expr *e = bind_column_expr(b, c, a->loc);
        if (outer && b->corr && b->corr->domain && cx->allow_outer) {
            e->col = bind_domain_col(b, b->corr, c->index);
            return e;
        }
        if (outer) {
            if (!cx->allow_outer && b->corr && b->corr->soft) {
                b->corr->retry = true;
                return NULL;
            }
            if (!cx->allow_outer && b->corr && b->corr->domain) {
                /* inside a subquery expression, in a query nested in it */
                bind_error(b, a->loc, "unsupported",
                           "correlate in the subquery's own clauses, e.g. (SELECT max(s.n) FROM (SELECT ...) s WHERE "
                           "s.k = o.k)",
                           "a reference to a column of an outer query inside a FROM subquery or WITH query of a "
                           "subquery (LATERAL) is not supported yet");
                return NULL;
            }
            if (!cx->allow_outer) {
                bind_error(b, a->loc, "unsupported",
                           "correlate EXISTS / IN subqueries through equalities in their WHERE clause, e.g. "
                           "WHERE b.order_id = o.order_id",
                           "a reference to a column of an outer query here is not supported yet");
                return NULL;
            }
            e->col = BIND_OUTER_COL(c->index);
        }
        return e;
    }
    case AST_CONST: return bind_literal(cx, a);
    case AST_TYPE_CAST: return bind_type_cast(cx, a);
    case AST_OP: return op_expr(cx, a);
    case AST_AND:
    case AST_OR: return bool_list(cx, a);
    case AST_NOT: {
        Expr *x = bind_condition(cx, a->expr ? a->expr : (a->args.n ? a->args.items[0] : NULL), "NOT");
        return x ? node2(b, EX_NOT, 0, type_make(T_BOOL), a->loc, x, NULL) : NULL;
    }
    case AST_IN_LIST: return in_list(cx, a);
    case AST_BETWEEN: return between(cx, a);
    case AST_LIKE: {
        int op = a->ilike ? (a->negated ? OP_NOT_ILIKE : OP_ILIKE) : (a->negated ? OP_NOT_LIKE : OP_LIKE);
        Expr *l = bind_expr(cx, a->lexpr), *r = bind_expr(cx, a->rexpr);
        return like_op(cx, op, l, r, a->loc);
    }
    case AST_DISTINCT_FROM: return distinct_from(cx, a);
    case AST_NULLIF: return nullif(cx, a);
    case AST_NULL_TEST: return null_test(cx, a);
    case AST_BOOL_TEST: return bool_test(cx, a);
    case AST_FUNC_CALL: return bind_func_call(cx, a);
    case AST_CASE: return case_expr(cx, a);
    case AST_COALESCE: return variadic_common(cx, a, EX_COALESCE, "COALESCE");
    case AST_MIN_MAX:
        return variadic_common(cx, a, a->is_greatest ? EX_GREATEST : EX_LEAST, a->is_greatest ? "GREATEST" : "LEAST");
    case AST_SUBLINK: return bind_sublink_expr(cx, a);
    case AST_ARRAY: return array_ctor(cx, a);
    case AST_SUBSCRIPT: return subscript(cx, a);
    case AST_ARRAY_CMP: return array_cmp(cx, a);
    case AST_UNSUPPORTED: {
        /* CURRENT_TIMESTAMP and its kin come as "NAME (processing time)" */
        const char *pt = a->name ? strstr(a->name, " (processing time)") : NULL;
        if (pt) {
            char *name = arena_strdup(b->arena, a->name);
            name[pt - a->name] = '\0';
            bind_refuse_nondeterministic(b, name, a->loc);
            return NULL;
        }
        bind_unsupported(b, a->loc, a->name ? a->name : "this construct");
        return NULL;
    }
    default:
        bind_unsupported(b, a->loc, arena_printf(b->arena, "%s in an expression", ast_kind_name(a->kind)));
        return NULL;
    }
}
