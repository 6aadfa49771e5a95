/* Subqueries in expressions (sublinks).
 *
 * In a top-level WHERE conjunct (combined with AND):
 *   EXISTS (q)          semi join           NOT EXISTS (q)       anti join
 *   x IN (q)            semi join on x = q   x NOT IN (q)        null-aware anti join
 *   x <> ALL (q)        = x NOT IN (q)
 * PL_JOIN(SEMI|ANTI) of the query so far (left) with q's plan (right), output the left
 * columns. q may be correlated through equalities `inner_expr = outer_expr` in its
 * own WHERE conjuncts (a plain SELECT without GROUP BY, aggregates, DISTINCT or
 * LIMIT): each becomes a further key pair, the inner side added to q's output.
 *
 * Anywhere in the WHERE clause or in the select list of a query without GROUP BY:
 * an uncorrelated scalar subquery that is an aggregate without GROUP BY (exactly one
 * row) becomes a LEFT join with nkeys = 0 against its plan; the expression reads the
 * joined column. Other subqueries are "not supported yet". */
#include "sql/bind_internal.h"

#include <string.h>

static bool op_is(const Ast *a, const char *op)
{
    return a->sublink_op && strcmp(a->sublink_op, op) == 0;
}

bool bind_is_semi_conjunct(const Ast *a)
{
    if (a->kind == AST_NOT && a->expr) a = a->expr;
    if (a->kind != AST_SUBLINK) return false;
    if (a->sublink == AST_SUBLINK_EXISTS) return true;
    if (a->sublink == AST_SUBLINK_ANY) return op_is(a, "=");
    if (a->sublink == AST_SUBLINK_ALL) return op_is(a, "<>") || op_is(a, "!=");
    return false;
}

/* ---- correlation ------------------------------------------------------------------------ */

typedef struct RefScan {
    bool inner, outer, other;
} RefScan;

static void ref_kind(int col, void *ud)
{
    RefScan *r = ud;
    if (col >= 0) r->inner = true;
    else if (BIND_IS_OUTER_COL(col)) r->outer = true;
    else r->other = true;
}

static RefScan refs(const Expr *e)
{
    RefScan r = {false, false, false};
    bind_expr_cols(e, ref_kind, &r);
    return r;
}

static int outer_to_real(int col, void *ud)
{
    (void)ud;
    return BIND_IS_OUTER_COL(col) ? BIND_PH_INDEX(col) : col;
}

bool bind_extract_correlation(Binder *b, Expr **v, int *n)
{
    CorrSink *cs = b->corr;
    int kept = 0;
    bool ok = true;
    for (int i = 0; i < *n; i++) {
        Expr *e = v[i];
        RefScan r = refs(e);
        if (!r.outer) {
            v[kept++] = e;
            continue;
        }
        Expr *inner = NULL, *outer = NULL;
        if (e->kind == EX_OP && e->op == OP_EQ && e->nargs == 2) {
            RefScan r0 = refs(e->args[0]), r1 = refs(e->args[1]);
            if (r0.inner && !r0.outer && !r0.other && r1.outer && !r1.inner && !r1.other) {
                inner = e->args[0];
                outer = e->args[1];
            } else if (r1.inner && !r1.outer && !r1.other && r0.outer && !r0.inner && !r0.other) {
                inner = e->args[1];
                outer = e->args[0];
            }
        }
        if (!inner) {
            bind_error(b, e->loc, "unsupported",
                       "correlate with equalities in the subquery's WHERE, e.g. WHERE b.order_id = o.order_id",
                       "a correlated condition other than inner_column = outer_column is not supported yet");
            ok = false;
            continue;
        }
        if (cs->n == cs->cap) {
            int cap = cs->cap ? cs->cap * 2 : 4;
            Expr **vi = ARENA_ARRAY(b->arena, Expr *, cap), **vo = ARENA_ARRAY(b->arena, Expr *, cap);
            if (cs->n) {
                memcpy(vi, cs->inner, sizeof(Expr *) * (size_t)cs->n);
                memcpy(vo, cs->outer, sizeof(Expr *) * (size_t)cs->n);
            }
            cs->inner = vi;
            cs->outer = vo;
            cs->cap = cap;
        }
        cs->inner[cs->n] = inner;
        cs->outer[cs->n] = bind_expr_mapped(b, outer, outer_to_real, NULL);
        cs->n++;
    }
    *n = kept;
    return ok;
}

/* ---- semi / anti joins ------------------------------------------------------------------ */

static int unshift(int col, void *ud)
{
    return col - *(const int *)ud;
}

PlanNode *bind_semi_join(Binder *b, PlanNode *cur, const Scope *scope, const CteEnv *env, Ast *conj)
{
    bool negated = conj->kind == AST_NOT;
    Ast *sl = negated ? conj->expr : conj;
    JoinType jt;
    bool null_aware = false, has_test = sl->sublink != AST_SUBLINK_EXISTS;
    if (sl->sublink == AST_SUBLINK_EXISTS) {
        jt = negated ? JOIN_ANTI : JOIN_SEMI;
    } else if (sl->sublink == AST_SUBLINK_ANY) {
        jt = negated ? JOIN_ANTI : JOIN_SEMI;
        null_aware = negated;
    } else {
        jt = negated ? JOIN_SEMI : JOIN_ANTI;
        null_aware = !negated;
    }
    ExprCtx cx = {b, scope, AGGS_FORBIDDEN, "WHERE", NULL, NULL, 0, false, NULL, NULL, env};
    Expr *x = NULL;
    if (has_test) {
        x = bind_expr(&cx, sl->lexpr);
        if (!x) return NULL;
    }
    Ast *sub = sl->subquery;
    CorrSink sink;
    memset(&sink, 0, sizeof sink);
    sink.sel = sub && sub->kind == AST_SELECT && sub->setop == AST_SETOP_NONE ? sub : NULL;
    const Scope *save_outer = b->outer;
    CorrSink *save_corr = b->corr;
    b->outer = scope;
    b->corr = &sink;
    PlanNode *sp = bind_query(b, sub, env, 0);
    b->outer = save_outer;
    b->corr = save_corr;
    if (!sp) return NULL;
    int visible = sink.n ? sink.ncols : sp->ncols;
    if (has_test && visible != 1) {
        bind_error(b, sl->loc, "invalid-subquery", "select exactly one column in the subquery",
                   visible > 1 ? "subquery has too many columns" : "subquery has too few columns");
        return NULL;
    }
    if (!has_test && sink.n && sp->kind == PL_PROJECT && sp->nexprs == sink.ncols + sink.n) {
        /* EXISTS ignores the select list: the right side keeps its correlation columns only */
        PlanNode *k = bind_project_node(b, sp->inputs[0], sp->exprs + sink.ncols, sp->cols + sink.ncols, sink.n, sp->loc);
        for (int i = 0; i < sink.n; i++) sink.inner[i] = plan_expr_column(b->arena, i, k->cols[i].type);
        sp = k;
    }
    PlanNode *j = bind_join_node(b, jt, cur, sp, sl->loc);
    j->null_aware = null_aware;
    int nkeys = (has_test ? 1 : 0) + sink.n;
    j->left_keys = ARENA_ARRAY(b->arena, Expr *, nkeys + 1);
    j->right_keys = ARENA_ARRAY(b->arena, Expr *, nkeys + 1);
    if (has_test) {
        /* x = q.col with PostgreSQL's operator resolution: the right side is read as
         * column ncols(left) of the concatenation, then re-based */
        Expr *r = plan_expr_column(b->arena, cur->ncols, sp->cols[0].type);
        r->loc = sl->loc;
        Scope both = *scope;
        both.input = bind_join_node(b, JOIN_INNER, cur, sp, sl->loc); /* names both sides in hints */
        ExprCtx bc = cx;
        bc.scope = &both;
        Expr *eq = bind_binary_op(&bc, OP_EQ, x, r, sl->loc);
        if (!eq) return NULL;
        j->left_keys[0] = eq->args[0];
        int shift = cur->ncols;
        j->right_keys[0] = bind_expr_mapped(b, eq->args[1], unshift, &shift);
        j->nkeys = 1;
    }
    for (int i = 0; i < sink.n; i++) {
        j->left_keys[j->nkeys] = sink.outer[i];
        j->right_keys[j->nkeys] = sink.inner[i];
        j->nkeys++;
    }
    return j;
}

/* ---- scalar subqueries ------------------------------------------------------------------ */

static bool one_row_aggregate(const Ast *q)
{
    if (!q || q->kind != AST_SELECT || q->setop != AST_SETOP_NONE) return false;
    if (q->group_by.n || q->having || q->distinct || q->distinct_on.n || q->limit || q->offset || q->windows.n)
        return false;
    if (q->targets.n != 1) return false;
    const Ast *t = q->targets.items[0];
    return bind_ast_has_agg(t->kind == AST_RES_TARGET ? t->expr : t);
}

Expr *bind_sublink_expr(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    if (a->sublink != AST_SUBLINK_EXPR) {
        const char *what = a->sublink == AST_SUBLINK_ANY && !op_is(a, "=")
                               ? arena_printf(b->arena, "%s ANY (subquery)", a->sublink_op ? a->sublink_op : "")
                           : a->sublink == AST_SUBLINK_ALL && !(op_is(a, "<>") || op_is(a, "!="))
                               ? arena_printf(b->arena, "%s ALL (subquery)", a->sublink_op ? a->sublink_op : "")
                               : arena_printf(b->arena, "%s outside a top-level WHERE condition",
                                              a->sublink == AST_SUBLINK_EXISTS ? "EXISTS (subquery)"
                                              : a->sublink == AST_SUBLINK_ANY  ? "IN (subquery)"
                                                                               : "<> ALL (subquery)");
        bind_error(b, a->loc, "unsupported",
                   "use it as a condition of its own in WHERE, combined with AND: WHERE x IN (SELECT ...) AND ...",
                   "%s is not supported yet", what);
        return NULL;
    }
    if (!cx->subs) {
        bind_unsupported(b, a->loc, arena_printf(b->arena, "a scalar subquery in %s",
                                                 cx->agg_mode == AGGS_COLLECT && strcmp(cx->clause, "SELECT") == 0
                                                     ? "the select list of a query with GROUP BY or aggregates"
                                                     : cx->clause ? cx->clause : "this context"));
        return NULL;
    }
    if (!one_row_aggregate(a->subquery)) {
        bind_error(b, a->loc, "unsupported",
                   "a scalar subquery must be an aggregate without GROUP BY, e.g. (SELECT max(amount) FROM source('x'))",
                   "a scalar subquery other than an uncorrelated aggregate without GROUP BY is not supported yet");
        return NULL;
    }
    const Scope *save_outer = b->outer;
    CorrSink *save_corr = b->corr;
    b->outer = cx->scope;
    b->corr = NULL;
    PlanNode *sp = bind_query(b, a->subquery, cx->env, 0);
    b->outer = save_outer;
    b->corr = save_corr;
    if (!sp) return NULL;
    if (sp->ncols != 1) {
        bind_error(b, a->loc, "invalid-subquery", NULL, "subquery must return only one column");
        return NULL;
    }
    SubList *l = cx->subs;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        SubItem *v = ARENA_ARRAY(b->arena, SubItem, cap);
        if (l->n) memcpy(v, l->items, sizeof(SubItem) * (size_t)l->n);
        l->items = v;
        l->cap = cap;
    }
    l->items[l->n].plan = sp;
    l->items[l->n].loc = a->loc;
    Expr *ref = plan_expr_column(b->arena, BIND_SUB_COL(l->n), sp->cols[0].type);
    ref->loc = a->loc;
    l->n++;
    return ref;
}

typedef struct SubMap {
    const int *pos;
    int from, n;
} SubMap;

static int sub_col(int col, void *ud)
{
    const SubMap *m = ud;
    if (!BIND_IS_SUB_COL(col)) return col;
    int k = BIND_PH_INDEX(col);
    return k >= m->from && k < m->n ? m->pos[k - m->from] : col;
}

PlanNode *bind_scalar_joins(Binder *b, PlanNode *cur, SubList *subs, int from, Expr **exprs, int n)
{
    if (from >= subs->n) return cur;
    int *pos = ARENA_ARRAY(b->arena, int, subs->n - from);
    for (int k = from; k < subs->n; k++) {
        pos[k - from] = cur->ncols;
        cur = bind_join_node(b, JOIN_LEFT, cur, subs->items[k].plan, subs->items[k].loc);
    }
    SubMap m = {pos, from, subs->n};
    for (int i = 0; i < n; i++) bind_expr_remap(exprs[i], sub_col, &m);
    return cur;
}
