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
 * Everywhere else (and for those conjuncts when their correlation is not inner =
 * outer), a subquery is decorrelated over its outer values (its domain, CorrSink):
 *   an aggregate without GROUP BY   its one row per outer value; an outer row no inner
 *                                   row matches gets the aggregates of no rows
 *   any other scalar subquery       its rows counted per outer value: NULL, the value,
 *                                   or the "more than one row" error (scalar_rows)
 *   EXISTS                          a count > 0 (over grouped bodies: of their rows)
 *   x op ANY / ALL (q)              rows counted by whether x op y is TRUE / NULL
 * LEFT joined to the outer row on the domain columns (bind_scalar_joins); uncorrelated,
 * joined without keys. The body is bound as written (DISTINCT, GROUP BY, a TopN
 * partitioned by the outer values), after bind_sublink_body drops what cannot change
 * its reading (ORDER BY without LIMIT; for EXISTS a LIMIT >= 1). */
#include "sql/bind_internal.h"

#include <stdlib.h>
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
        if (!inner && cs->soft) {
            cs->retry = true; /* bound again over a domain (bind_where) */
            ok = false;
            continue;
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

PlanNode *bind_semi_join(Binder *b, PlanNode *cur, const Scope *scope, const CteEnv *env, Ast *conj, bool *retry)
{
    *retry = false;
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
    ExprCtx cx = {b, scope, AGGS_FORBIDDEN, "WHERE", NULL, NULL, 0, false, NULL, NULL, env, NULL};
    Expr *x = NULL;
    if (has_test) {
        x = bind_expr(&cx, sl->lexpr);
        if (!x) return NULL;
    }
    Ast *sub = bind_sublink_body(b, sl->subquery, !has_test);
    CorrSink sink;
    memset(&sink, 0, sizeof sink);
    sink.sel = sub && sub->kind == AST_SELECT && sub->setop == AST_SETOP_NONE ? sub : NULL;
    const Scope *save_outer = b->outer;
    CorrSink *save_corr = b->corr;
    b->outer = scope;
    b->corr = &sink;
    sink.soft = true;
    PlanNode *sp = bind_query(b, sub, env, 0);
    b->outer = save_outer;
    b->corr = save_corr;
    if (sink.retry) {
        *retry = true;
        return NULL;
    }
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

/* ---- correlated subqueries over a domain ------------------------------------------------ */

int bind_domain_col(Binder *b, CorrSink *cs, int index)
{
    int j = 0;
    while (j < cs->nd && cs->dcols[j] != index) j++;
    if (j == cs->nd) {
        if (!cs->discover) return BIND_OUTER_COL(index); /* not seen the first time: cannot happen */
        if (cs->nd == cs->dcap) {
            int cap = cs->dcap ? cs->dcap * 2 : 4;
            int *v = ARENA_ARRAY(b->arena, int, cap);
            if (cs->nd) memcpy(v, cs->dcols, sizeof(int) * (size_t)cs->nd);
            cs->dcols = v;
            cs->dcap = cap;
        }
        cs->dcols[cs->nd++] = index;
    }
    return cs->discover ? BIND_OUTER_COL(index) : cs->dbase + j;
}

static Type outer_type(const Scope *outer, int index)
{
    for (int i = 0; i < outer->ncols; i++)
        if (outer->cols[i].index == index) return outer->cols[i].type;
    return outer->input && index < outer->input->ncols ? outer->input->cols[index].type : type_make(T_TEXT);
}

/* Binds subquery q in domain mode (CorrSink): a first pass finds the outer columns it
 * reads (plus pre[0..npre)), a second binds it cross joined with their domain. The
 * plan's output is q's columns ++ the domain columns; sink->nd == 0: q is uncorrelated
 * and its plan the first pass's. */
static void collect_branches(Binder *b, const Ast *q, CorrSink *sink, int *cap)
{
    if (q->setop != AST_SETOP_NONE) {
        collect_branches(b, q->larg, sink, cap);
        collect_branches(b, q->rarg, sink, cap);
        return;
    }
    if (q->nvalues) { /* VALUES: no domain of its own (refused when correlated) */
        if (!sink->values_branch) sink->values_loc = q->loc;
        sink->values_branch = true;
        return;
    }
    if (sink->nbranches == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        const Ast **v = ARENA_ARRAY(b->arena, const Ast *, *cap);
        if (sink->nbranches) memcpy(v, sink->branches, sizeof(const Ast *) * (size_t)sink->nbranches);
        sink->branches = v;
    }
    sink->branches[sink->nbranches++] = q;
}

static PlanNode *bind_domain_query(Binder *b, const Scope *outer, const CteEnv *env, Ast *q, CorrSink *sink,
                                   const int *pre, int npre)
{
    memset(sink, 0, sizeof *sink);
    sink->sel = q && q->kind == AST_SELECT && q->setop == AST_SETOP_NONE ? q : NULL;
    if (q && q->kind == AST_SELECT && q->setop != AST_SETOP_NONE) {
        /* a set operation: every SELECT branch is correlated over the domain */
        int cap = 0;
        collect_branches(b, q, sink, &cap);
        sink->setop = q;
    }
    sink->domain = true;
    sink->discover = true;
    for (int i = 0; i < npre; i++) bind_domain_col(b, sink, pre[i]);
    const Scope *save_outer = b->outer;
    CorrSink *save_corr = b->corr;
    b->outer = outer;
    b->corr = sink;
    PlanNode *p = bind_query(b, q, env, 0);
    b->outer = save_outer;
    b->corr = save_corr;
    if (!p || sink->nd == 0) return p;
    if (sink->values_branch) {
        bind_error(b, sink->values_loc, "unsupported", "write the branch as a SELECT, e.g. SELECT 1 in place of VALUES (1)",
                   "a VALUES branch of a set operation in a correlated subquery is not supported yet");
        return NULL;
    }
    PlanNode *d = plan_node_new(b->arena, PL_SETOP, q->loc); /* placeholder: see bind_scalar_joins */
    d->ncols = sink->nd;
    d->cols = ARENA_ARRAY(b->arena, PlanColumn, sink->nd + 1);
    for (int j = 0; j < sink->nd; j++) {
        d->cols[j].name = arena_printf(b->arena, "__outer%d", j + 1);
        d->cols[j].type = outer_type(outer, sink->dcols[j]);
    }
    sink->discover = false;
    sink->dnode = d;
    sink->dnode_used = false;
    sink->nmore = 0;
    sink->n = 0;
    sink->inner = NULL;
    b->outer = outer;
    b->corr = sink;
    /* the same text again: its warnings were reported the first time */
    int ndiag = b->dl->count, nerr = b->dl->errors;
    p = bind_query(b, q, env, 0);
    if (b->dl->count > ndiag && b->dl->errors == nerr) {
        b->dl->warnings -= b->dl->count - ndiag;
        b->dl->count = ndiag;
    }
    b->outer = save_outer;
    b->corr = save_corr;
    return p;
}

typedef struct EmptyMap {
    const PlanNode *agg;     /* the subquery's Aggregate */
    const CorrSink *sink;
    Arena *arena;
} EmptyMap;

/* e (over the Aggregate's output) as it reads for an outer row no inner row matches:
 * the aggregates of no rows (count 0, others NULL), the domain columns the outer row's. */
static Expr *empty_value(const EmptyMap *m, const Expr *e)
{
    if (e->kind == EX_COLUMN && e->col >= 0) {
        const PlanNode *agg = m->agg;
        if (e->col < agg->ngroup) {
            const Expr *k = agg->group[e->col];
            int j = k->kind == EX_COLUMN ? k->col - m->sink->dbase : -1;
            if (j < 0 || j >= m->sink->nd) return NULL;
            Expr *c = plan_expr_column(m->arena, m->sink->dcols[j], e->type);
            c->loc = e->loc;
            return c;
        }
        const AggCall *ac = &agg->aggs[e->col - agg->ngroup];
        bool count = ac->kind == AGG_COUNT || ac->kind == AGG_COUNT_STAR;
        return plan_expr_const(m->arena, e->type, count ? value_int(0) : value_null());
    }
    Expr *c = ARENA_NEW(m->arena, Expr);
    *c = *e;
    if (e->nargs) {
        c->args = ARENA_ARRAY(m->arena, Expr *, e->nargs);
        for (int i = 0; i < e->nargs; i++) {
            c->args[i] = empty_value(m, e->args[i]);
            if (!c->args[i]) return NULL;
        }
    }
    return c;
}

static SubItem *sub_add(Binder *b, SubList *l)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        SubItem *v = ARENA_ARRAY(b->arena, SubItem, cap);
        if (l->n) memcpy(v, l->items, sizeof(SubItem) * (size_t)l->n);
        l->items = v;
        l->cap = cap;
    }
    SubItem *it = &l->items[l->n++];
    memset(it, 0, sizeof *it);
    return it;
}

static int through_project(int col, void *ud)
{
    const PlanNode *p = ud;
    return col >= 0 && col < p->nexprs ? p->exprs[col]->col : col;
}

/* Registers a decorrelated subquery: value (over sp's output, which ends with the
 * domain columns) and the value for unmatched outer rows (over the outer row). Returns
 * CASE WHEN <no match> THEN empty ELSE value END with placeholders. merge: sp is a Project
 * of columns the new Project may read through. */
static Expr *add_correlated(ExprCtx *cx, PlanNode *sp, Expr *value, Expr *empty, const CorrSink *sink, int loc,
                            bool merge)
{
    Binder *b = cx->b;
    int nd = sink->nd, first = sp->ncols - nd;
    int n = 2 + nd;
    Expr **ex = ARENA_ARRAY(b->arena, Expr *, n);
    PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, n);
    ex[0] = value;
    cols[0].name = "__value";
    cols[0].type = value->type;
    ex[1] = plan_expr_const(b->arena, type_make(T_BOOL), value_bool(true));
    cols[1].name = "__matched";
    cols[1].type = type_make(T_BOOL);
    for (int j = 0; j < nd; j++) {
        ex[2 + j] = plan_expr_column(b->arena, first + j, sp->cols[first + j].type);
        cols[2 + j] = sp->cols[first + j];
    }
    PlanNode *r = bind_project_node(b, sp, ex, cols, n, loc);
    bool columns_only = merge && sp->kind == PL_PROJECT;
    for (int i = 0; columns_only && i < sp->nexprs; i++) columns_only = sp->exprs[i]->kind == EX_COLUMN;
    if (columns_only) {
        /* a Project of columns below: one Project over its input */
        for (int i = 0; i < n; i++) ex[i] = bind_expr_mapped(b, ex[i], through_project, sp);
        r->inputs[0] = sp->inputs[0];
    }
    SubList *l = cx->subs;
    int k = l->n;
    SubItem *it = sub_add(b, l);
    it->plan = r;
    it->loc = loc;
    it->domain = sink->dnode;
    it->more = sink->more;
    it->nmore = sink->nmore;
    it->dcols = sink->dcols;
    it->nd = nd;
    sub_add(b, l)->loc = loc; /* the marker column */
    Expr *val = plan_expr_column(b->arena, BIND_SUB_COL(k), value->type);
    Expr *mark = plan_expr_column(b->arena, BIND_SUB_COL(k + 1), type_make(T_BOOL));
    Expr *isnull = plan_expr_new(b->arena, EX_IS_NULL, type_make(T_BOOL), loc);
    isnull->args = ARENA_ARRAY(b->arena, Expr *, 1);
    isnull->args[0] = mark;
    isnull->nargs = 1;
    Expr *c = plan_expr_new(b->arena, EX_CASE, value->type, loc);
    c->args = ARENA_ARRAY(b->arena, Expr *, 3);
    c->args[0] = isnull;
    c->args[1] = empty;
    c->args[2] = val;
    c->nargs = 3;
    c->has_else = true;
    return c;
}

static bool plain_select(const Ast *q)
{
    return q && q->kind == AST_SELECT && q->setop == AST_SETOP_NONE && !q->group_by.n && !q->having &&
           !q->distinct && !q->distinct_on.n && !q->limit && !q->offset && !q->windows.n;
}

/* A scalar subquery that is an aggregate without GROUP BY (one row), correlated or not. */
static Expr *scalar_aggregate(ExprCtx *cx, Ast *q, int loc)
{
    Binder *b = cx->b;
    CorrSink sink;
    PlanNode *sp = bind_domain_query(b, cx->scope, cx->env, q, &sink, NULL, 0);
    if (!sp) return NULL;
    int visible = sink.nd ? sp->ncols - sink.nd : sp->ncols;
    if (visible != 1) {
        bind_error(b, loc, "invalid-subquery", NULL, "subquery must return only one column");
        return NULL;
    }
    SubList *l = cx->subs;
    if (sink.nd == 0) {
        int k = l->n;
        SubItem *it = sub_add(b, l);
        it->plan = sp;
        it->loc = loc;
        Expr *ref = plan_expr_column(b->arena, BIND_SUB_COL(k), sp->cols[0].type);
        ref->loc = loc;
        return ref;
    }
    if (sp->kind != PL_PROJECT || sp->inputs[0]->kind != PL_AGGREGATE) {
        bind_unsupported(b, loc, "this correlated scalar subquery");
        return NULL;
    }
    EmptyMap m = {sp->inputs[0], &sink, b->arena};
    Expr *empty = empty_value(&m, sp->exprs[0]);
    if (!empty) {
        bind_unsupported(b, loc, "this correlated scalar subquery");
        return NULL;
    }
    Expr *value = plan_expr_column(b->arena, 0, sp->cols[0].type);
    return add_correlated(cx, sp, value, empty, &sink, loc, false);
}

/* Over sp (q's columns ++ nd domain columns, see bind_domain_query): per domain value
 * the number of q's rows and (with_value) the value of its single column when there is
 * one (min, or bool_and for a boolean: equal to the value over one row).
 * Project [value, count, domain...] (with_value) or [count, domain...] over an
 * Aggregate grouped by the domain columns (no keys: one row). */
static PlanNode *rows_aggregate(Binder *b, PlanNode *sp, int nd, bool with_value, int loc)
{
    int first = sp->ncols - nd;
    PlanNode *agg = bind_unary_node(b, PL_AGGREGATE, sp, loc);
    agg->ngroup = nd;
    agg->group = ARENA_ARRAY(b->arena, Expr *, nd + 1);
    for (int j = 0; j < nd; j++) agg->group[j] = plan_expr_column(b->arena, first + j, sp->cols[first + j].type);
    int na = with_value ? 2 : 1;
    agg->naggs = na;
    agg->aggs = ARENA_ARRAY(b->arena, AggCall, na);
    memset(agg->aggs, 0, sizeof(AggCall) * (size_t)na);
    if (with_value) {
        Type vt = sp->cols[0].type;
        agg->aggs[0].kind = vt.id == T_BOOL ? AGG_BOOL_AND : AGG_MIN;
        agg->aggs[0].arg = plan_expr_column(b->arena, 0, vt);
        agg->aggs[0].type = vt;
        agg->aggs[0].loc = loc;
    }
    agg->aggs[na - 1].kind = AGG_COUNT_STAR;
    agg->aggs[na - 1].type = type_make(T_INT8);
    agg->aggs[na - 1].loc = loc;
    agg->window_start_key = agg->window_end_key = -1;
    agg->ncols = nd + na;
    agg->cols = ARENA_ARRAY(b->arena, PlanColumn, nd + na + 1);
    for (int j = 0; j < nd; j++) agg->cols[j] = sp->cols[first + j];
    if (with_value) {
        agg->cols[nd].name = "__value";
        agg->cols[nd].type = sp->cols[0].type;
    }
    agg->cols[nd + na - 1].name = "__rows";
    agg->cols[nd + na - 1].type = type_make(T_INT8);
    int n = na + nd;
    Expr **ex = ARENA_ARRAY(b->arena, Expr *, n);
    PlanColumn *pc = ARENA_ARRAY(b->arena, PlanColumn, n);
    for (int i = 0; i < na; i++) {
        ex[i] = plan_expr_column(b->arena, nd + i, agg->cols[nd + i].type);
        pc[i] = agg->cols[nd + i];
    }
    for (int j = 0; j < nd; j++) {
        ex[na + j] = plan_expr_column(b->arena, j, agg->cols[j].type);
        pc[na + j] = agg->cols[j];
    }
    return bind_project_node(b, agg, ex, pc, n, loc);
}

/* A scalar subquery that is not an aggregate without GROUP BY (a plain SELECT, or one
 * with GROUP BY, DISTINCT, ORDER BY ... LIMIT, a set operation): per outer row q's
 * rows, none: NULL, one: its value, several: PostgreSQL's runtime error. q is bound as
 * it is over the outer values (a correlated TopN is partitioned by them) and its rows
 * aggregated per outer value (rows_aggregate); the count reaches the outer row in place
 * of the match marker: CASE WHEN no group THEN NULL WHEN count > 1 THEN error ELSE
 * value END, evaluated per outer row (so the error is that row's dead letter),
 * incremental on both sides like every decorrelated subquery. Uncorrelated, the
 * Aggregate has no keys and is joined to every row. */
static Expr *scalar_rows(ExprCtx *cx, Ast *q, int loc)
{
    Binder *b = cx->b;
    CorrSink sink;
    PlanNode *sp = bind_domain_query(b, cx->scope, cx->env, q, &sink, NULL, 0);
    if (!sp) return NULL;
    if (sp->ncols - sink.nd != 1) {
        bind_error(b, loc, "invalid-subquery", NULL, "subquery must return only one column");
        return NULL;
    }
    if (sp->cols[0].type.id == T_UNKNOWN) {
        /* (SELECT 'x' ...): text, as PostgreSQL resolves an unknown output column */
        Expr **ex = ARENA_ARRAY(b->arena, Expr *, sp->ncols);
        PlanColumn *pc = ARENA_ARRAY(b->arena, PlanColumn, sp->ncols);
        for (int i = 0; i < sp->ncols; i++) {
            ex[i] = plan_expr_column(b->arena, i, sp->cols[i].type);
            pc[i] = sp->cols[i];
        }
        ex[0] = bind_default_unknown(b, ex[0]);
        pc[0].type = ex[0]->type;
        sp = bind_project_node(b, sp, ex, pc, sp->ncols, loc);
    }
    Type vt = sp->cols[0].type;
    PlanNode *rows = rows_aggregate(b, sp, sink.nd, true, loc);
    SubList *l = cx->subs;
    Expr *value, *count, *nomatch = NULL;
    if (sink.nd == 0) {
        int k = l->n;
        SubItem *it = sub_add(b, l);
        it->plan = rows;
        it->loc = loc;
        sub_add(b, l)->loc = loc; /* the count */
        value = plan_expr_column(b->arena, BIND_SUB_COL(k), vt);
        count = plan_expr_column(b->arena, BIND_SUB_COL(k + 1), type_make(T_INT8));
    } else {
        /* the value column and the count in place of add_correlated's constant marker */
        Expr *c = add_correlated(cx, rows, plan_expr_column(b->arena, 0, vt), plan_expr_const(b->arena, vt, value_null()),
                                 &sink, loc, true);
        if (!c) return NULL;
        PlanNode *r = l->items[l->n - 2].plan;
        r->exprs[1] = plan_expr_column(b->arena, r->inputs[0] == rows ? 1 : rows->exprs[1]->col, type_make(T_INT8));
        r->cols[1].name = "__rows";
        r->cols[1].type = type_make(T_INT8);
        nomatch = c->args[0];          /* __rows IS NULL: no group */
        count = nomatch->args[0];
        count->type = type_make(T_INT8);
        value = c->args[2];
    }
    Expr *many = plan_expr_new(b->arena, EX_OP, type_make(T_BOOL), loc);
    many->op = OP_GT;
    many->args = ARENA_ARRAY(b->arena, Expr *, 2);
    many->args[0] = plan_expr_copy(b->arena, count);
    many->args[1] = plan_expr_const(b->arena, type_make(T_INT8), value_int(1));
    many->nargs = 2;
    Expr *err = plan_expr_new(b->arena, EX_FUNC, vt, loc);
    err->func = FN_SUBQUERY_ROWS;
    err->args = ARENA_ARRAY(b->arena, Expr *, 1);
    err->nargs = 0;
    Expr *out = plan_expr_new(b->arena, EX_CASE, vt, loc);
    out->args = ARENA_ARRAY(b->arena, Expr *, 5);
    int n = 0;
    if (nomatch) {
        out->args[n++] = nomatch;
        out->args[n++] = plan_expr_const(b->arena, vt, value_null());
    }
    out->args[n++] = many;
    out->args[n++] = err;
    out->args[n++] = value;
    out->nargs = n;
    out->has_else = true;
    return out;
}

/* EXISTS (q) for a q with GROUP BY, HAVING, DISTINCT or a set operation: whether q
 * has a row per outer value, its rows counted by rows_aggregate (no group: FALSE). */
static Expr *exists_rows(ExprCtx *cx, Ast *q, int loc)
{
    Binder *b = cx->b;
    CorrSink sink;
    PlanNode *sp = bind_domain_query(b, cx->scope, cx->env, q, &sink, NULL, 0);
    if (!sp) return NULL;
    PlanNode *rows = rows_aggregate(b, sp, sink.nd, false, loc);
    Expr *gt = plan_expr_new(b->arena, EX_OP, type_make(T_BOOL), loc);
    gt->op = OP_GT;
    gt->args = ARENA_ARRAY(b->arena, Expr *, 2);
    gt->args[1] = plan_expr_const(b->arena, type_make(T_INT8), value_int(0));
    gt->nargs = 2;
    if (sink.nd == 0) {
        SubList *l = cx->subs;
        int k = l->n;
        SubItem *it = sub_add(b, l);
        it->plan = rows;
        it->loc = loc;
        /* no keys: the one row of the Aggregate (its count may be 0) */
        Expr *co = plan_expr_new(b->arena, EX_COALESCE, type_make(T_INT8), loc);
        co->args = ARENA_ARRAY(b->arena, Expr *, 2);
        co->args[0] = plan_expr_column(b->arena, BIND_SUB_COL(k), type_make(T_INT8));
        co->args[1] = plan_expr_const(b->arena, type_make(T_INT8), value_int(0));
        co->nargs = 2;
        gt->args[0] = co;
        return gt;
    }
    gt->args[0] = plan_expr_column(b->arena, 0, type_make(T_INT8));
    return add_correlated(cx, rows, gt, plan_expr_const(b->arena, type_make(T_BOOL), value_bool(false)), &sink, loc, true);
}

static Expr *const_bool(Binder *b, bool v)
{
    return plan_expr_const(b->arena, type_make(T_BOOL), value_bool(v));
}

static Expr *bool_test(Binder *b, Expr *x, int bt)
{
    Expr *e = plan_expr_new(b->arena, EX_BOOL_TEST, type_make(T_BOOL), x->loc);
    e->op = bt;
    e->args = ARENA_ARRAY(b->arena, Expr *, 1);
    e->args[0] = x;
    e->nargs = 1;
    return e;
}

static Expr *gt_zero(Binder *b, Expr *x)
{
    Expr *e = plan_expr_new(b->arena, EX_OP, type_make(T_BOOL), x->loc);
    e->op = OP_GT;
    e->args = ARENA_ARRAY(b->arena, Expr *, 2);
    e->args[0] = x;
    e->args[1] = plan_expr_const(b->arena, x->type, value_int(0));
    e->nargs = 2;
    return e;
}

static void collect_col(int col, void *ud)
{
    int **v = ud;
    int *n = &(*v)[0];
    if (col < 0) {
        *n = -1000000;
        return;
    }
    if (*n < 0) return;
    for (int i = 1; i <= *n; i++)
        if ((*v)[i] == col) return;
    (*v)[++*n] = col;
}

typedef struct DomMap {
    const int *dcols;
    int nd, first;
} DomMap;

static int to_domain(int col, void *ud)
{
    const DomMap *m = ud;
    for (int j = 0; j < m->nd; j++)
        if (m->dcols[j] == col) return m->first + j;
    return col;
}

static int op_kind_of(const char *op)
{
    if (!op) return -1;
    if (strcmp(op, "=") == 0) return OP_EQ;
    if (strcmp(op, "<>") == 0 || strcmp(op, "!=") == 0) return OP_NE;
    if (strcmp(op, "<") == 0) return OP_LT;
    if (strcmp(op, "<=") == 0) return OP_LE;
    if (strcmp(op, ">") == 0) return OP_GT;
    if (strcmp(op, ">=") == 0) return OP_GE;
    return -1;
}

/* x op ANY (q) / x op ALL (q) inside an expression, with PostgreSQL's three-valued
 * result: per outer value (the domain, including x's columns) the subquery's rows are
 * counted by whether x op y is TRUE (ANY; FALSE for ALL) or NULL:
 *   ANY: CASE WHEN t > 0 THEN TRUE WHEN u > 0 THEN NULL ELSE FALSE END (no rows: FALSE)
 *   ALL: CASE WHEN f > 0 THEN FALSE WHEN u > 0 THEN NULL ELSE TRUE END (no rows: TRUE) */
static Expr *quantified(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    bool all = a->sublink == AST_SUBLINK_ALL;
    int op = op_kind_of(a->sublink_op);
    if (op < 0) {
        bind_unsupported(b, a->loc, arena_printf(b->arena, "%s %s (subquery)", a->sublink_op ? a->sublink_op : "",
                                                 all ? "ALL" : "ANY"));
        return NULL;
    }
    ExprCtx xc = *cx;
    xc.subs = NULL;
    Expr *x = bind_expr(&xc, a->lexpr);
    if (!x) return NULL;
    int *cols = ARENA_ARRAY(b->arena, int, cx->scope->ncols + 2);
    bind_expr_cols(x, collect_col, &cols);
    if (cols[0] < 0) {
        bind_unsupported(b, a->loc, "a subquery on the left of IN / ANY / ALL");
        return NULL;
    }
    CorrSink sink;
    PlanNode *sp = bind_domain_query(b, cx->scope, cx->env, a->subquery, &sink, cols + 1, cols[0]);
    if (!sp) return NULL;
    int nd = sink.nd;
    int visible = sp->ncols - nd;
    if (visible != 1) {
        bind_error(b, a->loc, "invalid-subquery", "select exactly one column in the subquery",
                   visible > 1 ? "subquery has too many columns" : "subquery has too few columns");
        return NULL;
    }
    /* x op y over sp's output: x reads the domain columns */
    DomMap dm = {sink.dcols, nd, 1};
    Expr *xd = bind_expr_mapped(b, x, to_domain, &dm);
    Expr *y = plan_expr_column(b->arena, 0, sp->cols[0].type);
    y->loc = a->loc;
    Scope sps;
    memset(&sps, 0, sizeof sps);
    sps.input = sp;
    ExprCtx oc = xc;
    oc.scope = &sps;
    Expr *cmp = bind_binary_op(&oc, op, xd, y, a->loc);
    if (!cmp) return NULL;
    PlanNode *agg = bind_unary_node(b, PL_AGGREGATE, sp, a->loc);
    agg->ngroup = nd;
    agg->group = ARENA_ARRAY(b->arena, Expr *, nd + 1);
    for (int j = 0; j < nd; j++) agg->group[j] = plan_expr_column(b->arena, 1 + j, sp->cols[1 + j].type);
    agg->naggs = 2;
    agg->aggs = ARENA_ARRAY(b->arena, AggCall, 2);
    memset(agg->aggs, 0, sizeof(AggCall) * 2);
    for (int i = 0; i < 2; i++) {
        agg->aggs[i].kind = AGG_COUNT_STAR;
        agg->aggs[i].type = type_make(T_INT8);
        agg->aggs[i].loc = a->loc;
    }
    agg->aggs[0].filter = bool_test(b, cmp, all ? BT_IS_FALSE : BT_IS_TRUE);
    agg->aggs[1].filter = bool_test(b, plan_expr_copy(b->arena, cmp), BT_IS_UNKNOWN);
    agg->window_start_key = agg->window_end_key = -1;
    agg->ncols = nd + 2;
    agg->cols = ARENA_ARRAY(b->arena, PlanColumn, nd + 3);
    for (int j = 0; j < nd; j++) agg->cols[j] = sp->cols[1 + j];
    agg->cols[nd].name = "__decisive";
    agg->cols[nd + 1].name = "__unknown";
    agg->cols[nd].type = agg->cols[nd + 1].type = type_make(T_INT8);
    /* over agg: [value, domain...] for add_correlated */
    Expr *cs = plan_expr_new(b->arena, EX_CASE, type_make(T_BOOL), a->loc);
    cs->args = ARENA_ARRAY(b->arena, Expr *, 5);
    cs->args[0] = gt_zero(b, plan_expr_column(b->arena, nd, type_make(T_INT8)));
    cs->args[1] = const_bool(b, !all);
    cs->args[2] = gt_zero(b, plan_expr_column(b->arena, nd + 1, type_make(T_INT8)));
    cs->args[3] = plan_expr_const(b->arena, type_make(T_BOOL), value_null());
    cs->args[4] = const_bool(b, all);
    cs->nargs = 5;
    cs->has_else = true;
    int n = nd + 1;
    Expr **ex = ARENA_ARRAY(b->arena, Expr *, n);
    PlanColumn *pc = ARENA_ARRAY(b->arena, PlanColumn, n);
    ex[0] = cs;
    pc[0].name = "__value";
    pc[0].type = type_make(T_BOOL);
    for (int j = 0; j < nd; j++) {
        ex[1 + j] = plan_expr_column(b->arena, j, agg->cols[j].type);
        pc[1 + j] = agg->cols[j];
    }
    PlanNode *top = bind_project_node(b, agg, ex, pc, n, a->loc);
    Expr *value = plan_expr_column(b->arena, 0, type_make(T_BOOL));
    return add_correlated(cx, top, value, const_bool(b, all), &sink, a->loc, false);
}

/* An aggregate without GROUP BY (exactly one row before HAVING). */
static bool one_row_select(const Ast *q)
{
    if (!q || q->kind != AST_SELECT || q->setop != AST_SETOP_NONE || q->nvalues) return false;
    if (q->group_by.n || q->windows.n || q->distinct_on.n) return false;
    if (q->having) return true;
    for (int i = 0; i < q->targets.n; i++) {
        const Ast *t = q->targets.items[i];
        if (bind_ast_has_agg(t->kind == AST_RES_TARGET ? t->expr : t)) return true;
    }
    return false;
}

static bool limit_at_least_one(const Ast *limit)
{
    return limit && limit->kind == AST_CONST && limit->const_kind == AST_CONST_INT && strtoll(limit->text, NULL, 10) >= 1;
}

Ast *bind_sublink_body(Binder *b, Ast *q, bool exists)
{
    if (!q || q->kind != AST_SELECT || q->offset) return q;
    bool drop_limit = q->limit && limit_at_least_one(q->limit) && (exists || one_row_select(q));
    bool drop_order = q->order_by.n && !q->distinct_on.n && (!q->limit || drop_limit);
    bool drop_distinct = q->distinct && one_row_select(q);
    if (!drop_limit && !drop_order && !drop_distinct) return q;
    Ast *c = ARENA_NEW(b->arena, Ast);
    *c = *q;
    if (drop_limit) c->limit = NULL;
    if (drop_order) c->order_by.n = 0;
    if (drop_distinct) c->distinct = false;
    return c;
}

Expr *bind_sublink_expr(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    if (!cx->subs) {
        const char *what = a->sublink == AST_SUBLINK_EXPR ? "a scalar subquery" : "a subquery expression";
        if (cx->agg_mode == AGGS_INSIDE) {
            bind_unsupported(b, a->loc, arena_printf(b->arena, "%s in an aggregate's argument", what));
            return NULL;
        }
        bind_unsupported(b, a->loc, arena_printf(b->arena, "%s in %s", what,
                                                 cx->agg_mode == AGGS_COLLECT && strcmp(cx->clause, "SELECT") == 0
                                                     ? "the select list of a query with GROUP BY or aggregates"
                                                     : cx->clause ? cx->clause : "this context"));
        return NULL;
    }
    Ast *q = bind_sublink_body(b, a->subquery, a->sublink == AST_SUBLINK_EXISTS);
    if (a->sublink == AST_SUBLINK_EXISTS) {
        if (one_row_select(q)) {
            if (!q->having) {
                /* an aggregate without GROUP BY or HAVING has its one row */
                CorrSink sink;
                if (!bind_domain_query(b, cx->scope, cx->env, q, &sink, NULL, 0)) return NULL;
                return const_bool(b, true);
            }
            /* EXISTS (SELECT ... HAVING h) is (SELECT h IS TRUE ...): h over no rows for
             * an outer row no inner row matches */
            Ast *q2 = ARENA_NEW(b->arena, Ast);
            *q2 = *q;
            Ast *bt = ARENA_NEW(b->arena, Ast);
            memset(bt, 0, sizeof *bt);
            bt->kind = AST_BOOL_TEST;
            bt->expr = q->having;
            bt->booltest = BT_IS_TRUE;
            bt->loc = bind_ast_start(q->having);
            q2->targets.items = ARENA_ARRAY(b->arena, Ast *, 1);
            q2->targets.items[0] = bt;
            q2->targets.n = 1;
            q2->having = NULL;
            return scalar_aggregate(cx, q2, a->loc);
        }
        if (!plain_select(q)) return exists_rows(cx, q, a->loc);
        /* EXISTS (SELECT ... FROM f WHERE w) is (SELECT count(*) FROM f WHERE w) > 0 */
        Ast *q2 = ARENA_NEW(b->arena, Ast);
        *q2 = *q;
        Ast *fc = ARENA_NEW(b->arena, Ast);
        memset(fc, 0, sizeof *fc);
        fc->kind = AST_FUNC_CALL;
        fc->name = "count";
        fc->names = ARENA_ARRAY(b->arena, const char *, 1);
        fc->names[0] = "count";
        fc->nnames = 1;
        fc->agg_star = true;
        fc->loc = a->loc;
        q2->targets.items = ARENA_ARRAY(b->arena, Ast *, 1);
        q2->targets.items[0] = fc;
        q2->targets.n = 1;
        Expr *cnt = scalar_aggregate(cx, q2, a->loc);
        return cnt ? gt_zero(b, cnt) : NULL;
    }
    if (a->sublink == AST_SUBLINK_ANY || a->sublink == AST_SUBLINK_ALL) {
        Ast *a2 = ARENA_NEW(b->arena, Ast);
        *a2 = *a;
        a2->subquery = q;
        return quantified(cx, a2);
    }
    if (a->sublink != AST_SUBLINK_EXPR) {
        bind_unsupported(b, a->loc, "this kind of subquery");
        return NULL;
    }
    if (one_row_select(q) && q->having) {
        /* (SELECT e ... HAVING h) without GROUP BY: one row or none, read as
         * (SELECT CASE WHEN h THEN e END ...) */
        if (q->targets.n != 1) {
            bind_error(b, a->loc, "invalid-subquery", NULL, "subquery must return only one column");
            return NULL;
        }
        Ast *q2 = ARENA_NEW(b->arena, Ast);
        *q2 = *q;
        Ast *t = q->targets.items[0];
        Ast *w = ARENA_NEW(b->arena, Ast);
        memset(w, 0, sizeof *w);
        w->kind = AST_CASE_WHEN;
        w->lexpr = q->having;
        w->rexpr = t->kind == AST_RES_TARGET ? t->expr : t;
        w->loc = bind_ast_start(q->having);
        Ast *c = ARENA_NEW(b->arena, Ast);
        memset(c, 0, sizeof *c);
        c->kind = AST_CASE;
        c->whens.items = ARENA_ARRAY(b->arena, Ast *, 1);
        c->whens.items[0] = w;
        c->whens.n = 1;
        c->loc = bind_ast_start(w->rexpr);
        q2->targets.items = ARENA_ARRAY(b->arena, Ast *, 1);
        q2->targets.items[0] = c;
        q2->targets.n = 1;
        q2->having = NULL;
        q = q2;
    }
    if (one_row_aggregate(q)) return scalar_aggregate(cx, q, a->loc);
    return scalar_rows(cx, q, a->loc);
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

PlanNode *bind_scalar_joins(Binder *b, PlanNode *cur, const PlanNode *from_plan, SubList *subs, int from,
                            Expr **exprs, int n)
{
    if (from >= subs->n) return cur;
    int *pos = ARENA_ARRAY(b->arena, int, subs->n - from);
    for (int k = from; k < subs->n; k++) {
        SubItem *it = &subs->items[k];
        if (!it->plan) { /* the marker: the column after the value */
            pos[k - from] = pos[k - from - 1] + 1;
            continue;
        }
        pos[k - from] = cur->ncols;
        PlanNode *j = bind_join_node(b, JOIN_LEFT, cur, it->plan, it->loc);
        j->dl_ncols = cur->dl_ncols > 0 ? cur->dl_ncols : cur->ncols;
        if (it->domain) {
            /* the domain: the distinct outer values, from a copy of the FROM clause */
            Expr **ex = ARENA_ARRAY(b->arena, Expr *, it->nd);
            for (int d = 0; d < it->nd; d++) ex[d] = plan_expr_column(b->arena, it->dcols[d], it->domain->cols[d].type);
            PlanNode *proj = bind_project_node(b, plan_node_copy(b->arena, from_plan), ex, it->domain->cols, it->nd, it->loc);
            PlanNode *dist = bind_unary_node(b, PL_DISTINCT, proj, it->loc);
            for (int m = 0; m < it->nmore; m++) *it->more[m] = *plan_node_copy(b->arena, dist);
            *it->domain = *dist;
            /* outer columns = domain columns, a NULL matching a NULL: (x IS NULL, COALESCE(x, zero)) */
            j->nkeys = 2 * it->nd;
            j->left_keys = ARENA_ARRAY(b->arena, Expr *, j->nkeys);
            j->right_keys = ARENA_ARRAY(b->arena, Expr *, j->nkeys);
            for (int d = 0; d < it->nd; d++) {
                Type t = it->domain->cols[d].type;
                for (int side = 0; side < 2; side++) {
                    Expr *c = plan_expr_column(b->arena, side ? 2 + d : it->lcols ? it->lcols[d] : it->dcols[d], t);
                    Expr *isn = plan_expr_new(b->arena, EX_IS_NULL, type_make(T_BOOL), -1);
                    isn->args = ARENA_ARRAY(b->arena, Expr *, 1);
                    isn->args[0] = c;
                    isn->nargs = 1;
                    Value zero = t.id == T_TEXT ? value_text("", 0) : value_int(0);
                    Expr *co = plan_expr_new(b->arena, EX_COALESCE, t, -1);
                    co->args = ARENA_ARRAY(b->arena, Expr *, 2);
                    co->args[0] = plan_expr_copy(b->arena, c);
                    co->args[1] = plan_expr_const(b->arena, t, zero);
                    co->nargs = 2;
                    Expr **keys = side ? j->right_keys : j->left_keys;
                    keys[2 * d] = isn;
                    keys[2 * d + 1] = co;
                }
            }
        }
        cur = j;
    }
    SubMap m = {pos, from, subs->n};
    for (int i = 0; i < n; i++) bind_expr_remap(exprs[i], sub_col, &m);
    return cur;
}
