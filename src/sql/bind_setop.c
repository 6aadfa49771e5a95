/* Set operations. UNION ALL of any number of branches is one PL_UNION_ALL; UNION,
 * INTERSECT [ALL] and EXCEPT [ALL] are binary PL_SETOP nodes (left-deep, as the grammar
 * nests them; a UNION ALL operand is its own PL_UNION_ALL). Column types are unified
 * PostgreSQL-style (select_common_type, casts inserted into the branches), names come
 * from the first branch, and unknown literals in branches wait for the set operation
 * to type them. */
#include "sql/bind_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_union_all(const Ast *q)
{
    return q->kind == AST_SELECT && q->setop == AST_SETOP_UNION && q->setop_all;
}

static const char *setop_word(const Ast *q)
{
    switch (q->setop) {
    case AST_SETOP_EXCEPT: return "EXCEPT";
    case AST_SETOP_INTERSECT: return "INTERSECT";
    default: return "UNION";
    }
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

/* Unifies the column types of bound branches; NULL-free types through *types. */
static bool unify(Binder *b, PlanNode **plans, Ast **br, int n, const char *word, Type **types)
{
    int ncols = plans[0]->ncols;
    bool ok = true;
    for (int i = 1; i < n; i++)
        if (plans[i]->ncols != ncols) {
            bind_error(b, br[i]->loc, "setop-columns", NULL, "each %s query must have the same number of columns", word);
            ok = false;
        }
    if (!ok) return false;
    Type *t = ARENA_ARRAY(b->arena, Type, ncols + 1);
    Expr **col = ARENA_ARRAY(b->arena, Expr *, n);
    for (int c = 0; c < ncols; c++) {
        for (int i = 0; i < n; i++) col[i] = branch_column(b, plans[i], c, br[i]->loc);
        if (!bind_common_type(b, col, n, word, &t[c])) ok = false;
    }
    if (!ok) return false;
    for (int i = 0; i < n; i++)
        if (!coerce_branch(b, &plans[i], t, ncols, br[i]->loc)) ok = false;
    *types = t;
    return ok;
}

static PlanNode *setop_node(Binder *b, PlanKind k, PlanNode **plans, int n, const Type *types, int loc)
{
    PlanNode *u = plan_node_new(b->arena, k, loc);
    u->inputs = plans;
    u->ninputs = n;
    u->ncols = plans[0]->ncols;
    u->cols = ARENA_ARRAY(b->arena, PlanColumn, u->ncols + 1);
    for (int c = 0; c < u->ncols; c++) {
        u->cols[c].name = plans[0]->cols[c].name;
        u->cols[c].type = types[c];
    }
    return u;
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
    Type *types;
    if (!ok || !unify(b, plans, br, n, "UNION", &types)) return NULL;
    return setop_node(b, PL_UNION_ALL, plans, n, types, q->loc);
}

PlanNode *bind_setop(Binder *b, Ast *q, const CteEnv *env, int flags)
{
    if (is_union_all(q)) return bind_union_all(b, q, env, flags);
    PlanNode **plans = ARENA_ARRAY(b->arena, PlanNode *, 2);
    Ast **br = ARENA_ARRAY(b->arena, Ast *, 2);
    br[0] = q->larg;
    br[1] = q->rarg;
    plans[0] = bind_query(b, q->larg, env, QF_KEEP_UNKNOWN | (flags & QF_UNIQUE_NAMES));
    plans[1] = bind_query(b, q->rarg, env, QF_KEEP_UNKNOWN);
    Type *types;
    if (!plans[0] || !plans[1] || !unify(b, plans, br, 2, setop_word(q), &types)) return NULL;
    PlanNode *s = setop_node(b, PL_SETOP, plans, 2, types, q->rarg->loc);
    s->setop = q->setop == AST_SETOP_EXCEPT ? SETOP_EXCEPT : q->setop == AST_SETOP_INTERSECT ? SETOP_INTERSECT : SETOP_UNION;
    s->all = q->setop_all;
    return s;
}

bool bind_setop_order(Binder *b, Ast *q, const PlanNode *p, int *cols)
{
    bool ok = true;
    for (int i = 0; i < q->order_by.n; i++) {
        Ast *s = q->order_by.items[i];
        Ast *e = s->kind == AST_SORT_BY ? s->expr : s;
        if (cols) cols[i] = -1;
        if (!e) continue;
        if (e->kind == AST_CONST && e->const_kind == AST_CONST_INT) {
            long pos = strtol(e->text, NULL, 10);
            if (pos < 1 || pos > p->ncols) {
                bind_error(b, e->loc, "invalid-order-by", NULL, "ORDER BY position %ld is not in select list", pos);
                ok = false;
            } else if (cols) {
                cols[i] = (int)pos - 1;
            }
            continue;
        }
        int found = -1;
        if (e->kind == AST_COLUMN_REF && e->nnames == 1 && !e->star)
            for (int c = 0; c < p->ncols && found < 0; c++)
                if (strcmp(p->cols[c].name, e->names[0]) == 0) found = c;
        if (found < 0) {
            bind_error(b, bind_ast_start(e), "invalid-order-by",
                       "only result column names can be used, not expressions or functions",
                       "invalid UNION/INTERSECT/EXCEPT ORDER BY clause");
            ok = false;
        } else if (cols) {
            cols[i] = found;
        }
    }
    return ok;
}
