/* Query-level binding: the WITH clause (each WITH query bound once, in order, seeing
 * the ones before it; references copy its plan), set operations (UNION ALL of any
 * number of branches, column types unified PostgreSQL-style with casts inserted into
 * the branches, names from the first branch), and where ORDER BY / LIMIT / OFFSET may
 * appear: a continuously maintained result has no order, so ORDER BY without LIMIT on
 * the model's own query is accepted with a warning and dropped; everything else is
 * "not supported yet" until top-N arrives. */
#include "sql/bind_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- WITH ---------------------------------------------------------------------------- */

static const CteEnv *bind_ctes(Binder *b, Ast *q, const CteEnv *env)
{
    const CteEnv *outer = env;
    for (int i = 0; i < q->ctes.n; i++) {
        Ast *c = q->ctes.items[i];
        if (c->kind != AST_CTE) {
            bind_unsupported(b, c->loc, c->kind == AST_UNSUPPORTED && c->name ? c->name : ast_kind_name(c->kind));
            continue;
        }
        bool dup = false;
        for (const CteEnv *e = env; e != outer && !dup; e = e->next) dup = strcmp(e->name, c->name) == 0;
        if (dup) {
            bind_error(b, c->loc, "duplicate-cte", "give each WITH query its own name",
                       "WITH query name \"%s\" specified more than once", c->name);
            continue;
        }
        PlanNode *plan = bind_query(b, c->subquery, env, 0);
        if (plan && c->nalias_cols)
            plan = bind_rename_columns(b, plan, c->alias_cols, c->nalias_cols, c->loc,
                                       arena_printf(b->arena, "WITH query \"%s\"", c->name));
        CteEnv *n = ARENA_NEW(b->arena, CteEnv);
        n->name = c->name;
        n->plan = plan;
        n->next = env;
        env = n;
    }
    return env;
}

/* ---- UNION ALL --------------------------------------------------------------------------- */

static bool is_union_all(const Ast *q)
{
    return q->kind == AST_SELECT && q->setop == AST_SETOP_UNION && q->setop_all;
}

/* Branches of a UNION ALL tree, left to right; a parenthesised branch with its own
 * WITH / ORDER BY / LIMIT is a leaf (bound as a query of its own). */
static void collect_branches(Ast *q, bool top, Ast ***out, int *n, int *cap, Arena *a)
{
    if (is_union_all(q) && (top || (!q->ctes.n && !q->order_by.n && !q->limit && !q->offset))) {
        collect_branches(q->larg, false, out, n, cap, a);
        collect_branches(q->rarg, false, out, n, cap, a);
        return;
    }
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 4;
        Ast **v = ARENA_ARRAY(a, Ast *, nc);
        if (*n) memcpy(v, *out, sizeof(Ast *) * (size_t)*n);
        *out = v;
        *cap = nc;
    }
    (*out)[(*n)++] = q;
}

/* The expression producing column i of a branch, for type resolution and errors. */
static Expr *branch_column(Binder *b, PlanNode *p, int i, int loc)
{
    if (p->kind == PL_PROJECT) return p->exprs[i];
    Expr *e = plan_expr_column(b->arena, i, p->cols[i].type);
    e->loc = loc;
    return e;
}

static bool coerce_branch(Binder *b, PlanNode **pp, const Type *types, int n, int loc)
{
    PlanNode *p = *pp;
    bool need = false;
    for (int i = 0; i < n; i++) {
        Type t = p->cols[i].type;
        if (t.id != types[i].id || t.precision != types[i].precision || t.scale != types[i].scale) need = true;
    }
    if (!need) return true;
    if (p->kind != PL_PROJECT) {
        Expr **exprs = ARENA_ARRAY(b->arena, Expr *, n);
        PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, n);
        for (int i = 0; i < n; i++) {
            exprs[i] = plan_expr_column(b->arena, i, p->cols[i].type);
            cols[i] = p->cols[i];
        }
        p = bind_project_node(b, p, exprs, cols, n, loc);
    } else {
        PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, n);
        memcpy(cols, p->cols, sizeof(PlanColumn) * (size_t)n);
        p->cols = cols;
    }
    for (int i = 0; i < n; i++) {
        p->exprs[i] = bind_coerce_exact(b, p->exprs[i], types[i]);
        if (!p->exprs[i]) return false;
        p->cols[i].type = types[i];
    }
    *pp = p;
    return true;
}

static PlanNode *bind_union_all(Binder *b, Ast *q, const CteEnv *env, int flags)
{
    Ast **br = NULL;
    int n = 0, cap = 0;
    collect_branches(q, true, &br, &n, &cap, b->arena);
    PlanNode **plans = ARENA_ARRAY(b->arena, PlanNode *, n);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        int f = QF_KEEP_UNKNOWN | (i == 0 ? (flags & QF_UNIQUE_NAMES) : 0);
        plans[i] = bind_query(b, br[i], env, f);
        if (!plans[i]) ok = false;
    }
    if (!ok) return NULL;
    int ncols = plans[0]->ncols;
    for (int i = 1; i < n; i++)
        if (plans[i]->ncols != ncols) {
            bind_error(b, br[i]->loc, "setop-columns", NULL, "each UNION query must have the same number of columns");
            ok = false;
        }
    if (!ok) return NULL;
    Type *types = ARENA_ARRAY(b->arena, Type, ncols + 1);
    Expr **col = ARENA_ARRAY(b->arena, Expr *, n);
    for (int c = 0; c < ncols; c++) {
        for (int i = 0; i < n; i++) col[i] = branch_column(b, plans[i], c, br[i]->loc);
        if (!bind_common_type(b, col, n, "UNION", &types[c])) ok = false;
    }
    if (!ok) return NULL;
    for (int i = 0; i < n; i++)
        if (!coerce_branch(b, &plans[i], types, ncols, br[i]->loc)) ok = false;
    if (!ok) return NULL;
    PlanNode *u = plan_node_new(b->arena, PL_UNION_ALL, q->loc);
    u->inputs = plans;
    u->ninputs = n;
    u->ncols = ncols;
    u->cols = ARENA_ARRAY(b->arena, PlanColumn, ncols + 1);
    for (int c = 0; c < ncols; c++) {
        u->cols[c].name = plans[0]->cols[c].name;
        u->cols[c].type = types[c];
    }
    return u;
}

/* ORDER BY of a set operation may name result columns only. */
static void check_setop_order(Binder *b, Ast *q, const PlanNode *p)
{
    for (int i = 0; i < q->order_by.n; i++) {
        Ast *s = q->order_by.items[i];
        Ast *e = s->kind == AST_SORT_BY ? s->expr : s;
        if (!e) continue;
        if (e->kind == AST_CONST && e->const_kind == AST_CONST_INT) {
            long pos = strtol(e->text, NULL, 10);
            if (pos < 1 || pos > p->ncols)
                bind_error(b, e->loc, "invalid-order-by", NULL, "ORDER BY position %ld is not in select list", pos);
            continue;
        }
        bool ok = false;
        if (e->kind == AST_COLUMN_REF && e->nnames == 1 && !e->star)
            for (int c = 0; c < p->ncols && !ok; c++) ok = strcmp(p->cols[c].name, e->names[0]) == 0;
        if (!ok)
            bind_error(b, bind_ast_start(e), "invalid-order-by",
                       "only result column names can be used, not expressions or functions",
                       "invalid UNION/INTERSECT/EXCEPT ORDER BY clause");
    }
}

/* ---- query ---------------------------------------------------------------------------------- */

static const char *setop_name(const Ast *q)
{
    switch (q->setop) {
    case AST_SETOP_UNION: return q->setop_all ? "UNION ALL" : "UNION";
    case AST_SETOP_EXCEPT: return q->setop_all ? "EXCEPT ALL" : "EXCEPT";
    case AST_SETOP_INTERSECT: return q->setop_all ? "INTERSECT ALL" : "INTERSECT";
    default: return "set operation";
    }
}

PlanNode *bind_query(Binder *b, Ast *q, const CteEnv *env, int flags)
{
    if (!q) {
        bind_error(b, -1, "sql-syntax", NULL, "missing query");
        return NULL;
    }
    if (q->kind == AST_UNSUPPORTED) {
        bind_unsupported(b, q->loc, q->name ? q->name : "this statement");
        return NULL;
    }
    if (q->kind != AST_SELECT) {
        bind_unsupported(b, q->loc, ast_kind_name(q->kind));
        return NULL;
    }
    bool ok = true;
    if (q->ctes.n) {
        if (q->recursive) {
            bind_unsupported(b, q->ctes.items[0]->loc, "WITH RECURSIVE");
            return NULL;
        }
        env = bind_ctes(b, q, env);
    }
    if (flags & QF_TOP) flags |= QF_UNIQUE_NAMES;
    if (q->limit) {
        bind_unsupported(b, bind_ast_start(q->limit), "LIMIT");
        ok = false;
    }
    if (q->offset) {
        bind_unsupported(b, bind_ast_start(q->offset), "OFFSET");
        ok = false;
    }
    bool drop_order = false;
    if (q->order_by.n && !q->limit) {
        int loc = bind_ast_start(q->order_by.items[0]);
        if (flags & QF_TOP) {
            bind_warning(b, loc, "order-by-ignored", "remove the ORDER BY; order rows where you read the result",
                         "ORDER BY is ignored: a continuously maintained result has no order");
            drop_order = true;
        } else {
            bind_unsupported(b, loc, "ORDER BY in a subquery, WITH query or UNION branch");
            ok = false;
        }
    }
    PlanNode *p;
    if (q->setop != AST_SETOP_NONE) {
        if (!is_union_all(q)) {
            int loc = q->rarg ? q->rarg->loc : q->loc;
            bind_unsupported(b, loc, setop_name(q));
            return NULL;
        }
        p = bind_union_all(b, q, env, flags);
        if (p && drop_order) check_setop_order(b, q, p);
    } else {
        p = bind_select(b, q, env, flags | (drop_order ? QF_CHECK_ORDER : 0));
    }
    return ok ? p : NULL;
}
