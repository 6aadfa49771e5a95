/* Binder helpers shared by every bind_*.c file: diagnostics at SQL positions, AST
 * walks (leftmost position, aggregate detection), PostgreSQL's output column naming
 * (FigureColname), message fragments, and small plan helpers (column remapping,
 * conjunct lists, Filter nodes, interval constants, durations). */
#include "sql/bind_internal.h"

#include <stdarg.h>
#include <string.h>

SrcPos bind_pos(const Binder *b, int loc)
{
    return project_sql_pos(b->model, loc < 0 ? 0 : loc);
}

static void add_diag(Binder *b, DiagSeverity sev, int loc, const char *code, const char *hint,
                     const char *fmt, va_list ap)
{
    StrBuf sb = STRBUF_INIT;
    sb_vprintf(&sb, fmt, ap);
    diag_add(b->dl, sev, bind_pos(b, loc), code, hint, "%s", sb_cstr(&sb));
    sb_free(&sb);
}

void bind_error(Binder *b, int loc, const char *code, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_diag(b, DIAG_ERROR, loc, code, hint, fmt, ap);
    va_end(ap);
    b->failed = true;
}

bool bind_check_depth(Binder *b, const PlanNode *plan, int loc)
{
    int deep = -1;
    if (!plan_deeper_than(plan, SQL_MAX_DEPTH, &deep)) return true;
    bind_error(b, loc >= 0 ? loc : deep, "too-deep", SQL_TOO_DEEP_HINT, SQL_TOO_DEEP_MESSAGE);
    return false;
}

void bind_warning(Binder *b, int loc, const char *code, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_diag(b, DIAG_WARNING, loc, code, hint, fmt, ap);
    va_end(ap);
}

void bind_unsupported(Binder *b, int loc, const char *what)
{
    bind_error(b, loc, "unsupported", NULL, "%s is not supported yet", what);
}

/* ---- AST walks ---------------------------------------------------------------- */

static void list_walk(AstList *l, void (*fn)(Ast *, void *), void *ud)
{
    for (int i = 0; i < l->n; i++) bind_ast_walk(l->items[i], fn, ud);
}

void bind_ast_walk(Ast *a, void (*fn)(Ast *, void *), void *ud)
{
    if (!a) return;
    fn(a, ud);
    list_walk(&a->distinct_on, fn, ud);
    list_walk(&a->targets, fn, ud);
    list_walk(&a->from, fn, ud);
    bind_ast_walk(a->where, fn, ud);
    list_walk(&a->group_by, fn, ud);
    bind_ast_walk(a->having, fn, ud);
    list_walk(&a->order_by, fn, ud);
    bind_ast_walk(a->limit, fn, ud);
    bind_ast_walk(a->offset, fn, ud);
    list_walk(&a->ctes, fn, ud);
    list_walk(&a->windows, fn, ud);
    bind_ast_walk(a->larg, fn, ud);
    bind_ast_walk(a->rarg, fn, ud);
    bind_ast_walk(a->expr, fn, ud);
    bind_ast_walk(a->lexpr, fn, ud);
    bind_ast_walk(a->rexpr, fn, ud);
    /* a RANGE_FUNCTION's args alias its func's args: walk them once */
    if (!(a->kind == AST_RANGE_FUNCTION && a->func)) list_walk(&a->args, fn, ud);
    bind_ast_walk(a->agg_filter, fn, ud);
    list_walk(&a->agg_order, fn, ud);
    bind_ast_walk(a->over, fn, ud);
    list_walk(&a->whens, fn, ud);
    bind_ast_walk(a->else_expr, fn, ud);
    bind_ast_walk(a->subquery, fn, ud);
    bind_ast_walk(a->func, fn, ud);
    bind_ast_walk(a->quals, fn, ud);
    list_walk(&a->partition, fn, ud);
    list_walk(&a->order, fn, ud);
    for (int r = 0; r < a->nvalues; r++) list_walk(&a->values[r], fn, ud);
}

static int min_loc(int a, int b)
{
    if (a < 0) return b;
    if (b < 0) return a;
    return a < b ? a : b;
}

int bind_ast_start(const Ast *a)
{
    if (!a) return -1;
    int loc = a->loc;
    switch (a->kind) {
    case AST_SELECT:
    case AST_SUBLINK:
    case AST_RANGE_SUBSELECT:
    case AST_RANGE_FUNCTION:
    case AST_RANGE_VAR:
    case AST_JOIN:
    case AST_CTE:
        return loc;
    default: break;
    }
    loc = min_loc(loc, bind_ast_start(a->expr));
    loc = min_loc(loc, bind_ast_start(a->lexpr));
    loc = min_loc(loc, bind_ast_start(a->rexpr));
    for (int i = 0; i < a->args.n; i++) loc = min_loc(loc, bind_ast_start(a->args.items[i]));
    for (int i = 0; i < a->whens.n; i++) loc = min_loc(loc, bind_ast_start(a->whens.items[i]));
    return loc;
}

int bind_agg_kind(const Ast *fc)
{
    if (!fc || fc->kind != AST_FUNC_CALL || !fc->name || !bind_func_unqualified(fc)) return -1;
    const char *n = fc->name;
    if (strcmp(n, "count") == 0) return fc->agg_star ? AGG_COUNT_STAR : AGG_COUNT;
    if (strcmp(n, "sum") == 0) return AGG_SUM;
    if (strcmp(n, "avg") == 0) return AGG_AVG;
    if (strcmp(n, "min") == 0) return AGG_MIN;
    if (strcmp(n, "max") == 0) return AGG_MAX;
    if (strcmp(n, "bool_and") == 0 || strcmp(n, "every") == 0) return AGG_BOOL_AND;
    if (strcmp(n, "bool_or") == 0) return AGG_BOOL_OR;
    if (strcmp(n, "string_agg") == 0) return AGG_STRING_AGG;
    if (strcmp(n, "array_agg") == 0) return AGG_ARRAY_AGG;
    if (strcmp(n, "json_agg") == 0) return AGG_JSON_AGG;
    if (strcmp(n, "json_object_agg") == 0) return AGG_JSON_OBJECT_AGG;
    if (strcmp(n, "mode") == 0) return AGG_MODE;
    if (strcmp(n, "percentile_cont") == 0) return AGG_PERCENTILE_CONT;
    if (strcmp(n, "percentile_disc") == 0) return AGG_PERCENTILE_DISC;
    return -1;
}

bool bind_is_stats_agg(const Ast *fc)
{
    static const char *const names[] = {"variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop"};
    if (!fc || fc->kind != AST_FUNC_CALL || !fc->name || !bind_func_unqualified(fc)) return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(fc->name, names[i]) == 0) return true;
    return false;
}

static bool list_has_agg(const AstList *l)
{
    for (int i = 0; i < l->n; i++)
        if (bind_ast_has_agg(l->items[i])) return true;
    return false;
}

bool bind_ast_has_agg(const Ast *a)
{
    if (!a) return false;
    switch (a->kind) {
    case AST_SELECT:
    case AST_SUBLINK:
    case AST_RANGE_SUBSELECT:
    case AST_CTE:
        return false; /* a subquery's aggregates belong to the subquery */
    case AST_FUNC_CALL:
        if (!a->over && (bind_agg_kind(a) >= 0 || bind_is_stats_agg(a))) return true;
        break;
    default: break;
    }
    return bind_ast_has_agg(a->expr) || bind_ast_has_agg(a->lexpr) || bind_ast_has_agg(a->rexpr) ||
           list_has_agg(&a->args) || list_has_agg(&a->whens) || bind_ast_has_agg(a->else_expr) ||
           bind_ast_has_agg(a->agg_filter);
}

bool bind_func_unqualified(const Ast *fc)
{
    return fc->nnames <= 1 || (fc->nnames == 2 && strcmp(fc->names[0], "pg_catalog") == 0);
}

/* ---- naming --------------------------------------------------------------------- */

/* PostgreSQL's FigureColnameInternal: returns a strength (0 none, 1 type name,
 * 2 a real name) and sets *name. */
static int figure(const Ast *a, const char **name)
{
    if (!a) return 0;
    switch (a->kind) {
    case AST_COLUMN_REF:
        if (!a->star && a->nnames > 0) {
            *name = a->names[a->nnames - 1];
            return 2;
        }
        return 0;
    case AST_FUNC_CALL:
        *name = a->name;
        return 2;
    case AST_NULLIF:
        *name = "nullif";
        return 2;
    case AST_TYPE_CAST: {
        int s = figure(a->expr, name);
        if (s <= 1 && a->type_name.nnames > 0) {
            *name = a->type_name.names[a->type_name.nnames - 1];
            return 1;
        }
        return s;
    }
    case AST_CASE: {
        int s = figure(a->else_expr, name);
        if (s <= 1) {
            *name = "case";
            return 1;
        }
        return s;
    }
    case AST_COALESCE:
        *name = "coalesce";
        return 2;
    case AST_ARRAY:
        *name = "array";
        return 2;
    case AST_SUBSCRIPT:
        return figure(a->expr, name);
    case AST_MIN_MAX:
        *name = a->is_greatest ? "greatest" : "least";
        return 2;
    case AST_SUBLINK:
        if (a->sublink == AST_SUBLINK_EXISTS) {
            *name = "exists";
            return 2;
        }
        if (a->sublink == AST_SUBLINK_EXPR && a->subquery && a->subquery->kind == AST_SELECT &&
            a->subquery->targets.n > 0) {
            const Ast *t = a->subquery->targets.items[0];
            if (t->kind == AST_RES_TARGET && t->name) {
                *name = t->name;
                return 2;
            }
            return figure(t->kind == AST_RES_TARGET ? t->expr : t, name);
        }
        return 0;
    default:
        return 0;
    }
}

const char *bind_figure_colname(const Ast *a)
{
    const char *name = NULL;
    if (figure(a, &name) > 0 && name) return name;
    return "?column?";
}

const char *bind_did_you_mean(Binder *b, const char *word, const char *const *cands, int n)
{
    return diag_did_you_mean(b->dl, word, cands, n);
}

const char *bind_func_signature(Binder *b, const char *name, Expr *const *args, int nargs, bool star)
{
    StrBuf sb = STRBUF_INIT;
    sb_printf(&sb, "%s(", name);
    if (star) sb_putc(&sb, '*');
    for (int i = 0; i < nargs; i++) {
        if (i) sb_puts(&sb, ", ");
        sb_puts(&sb, bind_type_display(b, args[i]->type));
    }
    sb_putc(&sb, ')');
    const char *s = arena_strdup(b->arena, sb_cstr(&sb));
    sb_free(&sb);
    return s;
}

/* ---- plan helpers ------------------------------------------------------------- */

void bind_expr_remap(Expr *e, int (*fn)(int col, void *ud), void *ud)
{
    if (!e) return;
    if (e->kind == EX_COLUMN) e->col = fn(e->col, ud);
    for (int i = 0; i < e->nargs; i++) bind_expr_remap(e->args[i], fn, ud);
}

Expr *bind_expr_mapped(Binder *b, const Expr *e, int (*fn)(int col, void *ud), void *ud)
{
    Expr *c = plan_expr_copy(b->arena, e);
    bind_expr_remap(c, fn, ud);
    return c;
}

void bind_expr_cols(const Expr *e, void (*fn)(int col, void *ud), void *ud)
{
    if (!e) return;
    if (e->kind == EX_COLUMN) fn(e->col, ud);
    for (int i = 0; i < e->nargs; i++) bind_expr_cols(e->args[i], fn, ud);
}

void bind_push(Binder *b, void ***v, int *n, int *cap, void *item)
{
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        void **w = ARENA_ARRAY(b->arena, void *, nc);
        if (*n) memcpy(w, *v, sizeof(void *) * (size_t)*n);
        *v = w;
        *cap = nc;
    }
    (*v)[(*n)++] = item;
}

void bind_conjuncts(Binder *b, Expr *e, Expr ***v, int *n, int *cap)
{
    if (!e) return;
    if (e->kind == EX_AND) {
        for (int i = 0; i < e->nargs; i++) bind_conjuncts(b, e->args[i], v, n, cap);
        return;
    }
    bind_push(b, (void ***)v, n, cap, e);
}

Expr *bind_and(Binder *b, Expr **v, int n, int loc)
{
    if (n == 0) return NULL;
    if (n == 1) return v[0];
    Expr *e = plan_expr_new(b->arena, EX_AND, type_make(T_BOOL), loc);
    e->args = ARENA_ARRAY(b->arena, Expr *, n);
    memcpy(e->args, v, sizeof(Expr *) * (size_t)n);
    e->nargs = n;
    return e;
}

PlanNode *bind_unary_node(Binder *b, PlanKind k, PlanNode *input, int loc)
{
    PlanNode *p = plan_node_new(b->arena, k, loc);
    p->inputs = ARENA_ARRAY(b->arena, PlanNode *, 1);
    p->inputs[0] = input;
    p->ninputs = 1;
    p->cols = input->cols;
    p->ncols = input->ncols;
    return p;
}

PlanNode *bind_filter_node(Binder *b, PlanNode *input, Expr *pred, int loc)
{
    PlanNode *f = bind_unary_node(b, PL_FILTER, input, loc);
    f->pred = pred;
    return f;
}

bool bind_interval_us(const Expr *e, int64_t *us)
{
    if (!e || e->kind != EX_CONST || e->type.id != T_INTERVAL || e->cval.isnull) return false;
    if (e->cval.iv.months != 0) return false;
    const int64_t day = 86400000000LL;
    int64_t days = e->cval.iv.days;
    if (days > INT64_MAX / day || days < INT64_MIN / day) return false;
    int64_t v = days * day;
    if ((e->cval.i > 0 && v > INT64_MAX - e->cval.i) || (e->cval.i < 0 && v < INT64_MIN - e->cval.i)) return false;
    *us = v + e->cval.i;
    return true;
}

