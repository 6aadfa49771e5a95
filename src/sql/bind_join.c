/* Joins in FROM: `JOIN ... ON`, `USING (...)`, `NATURAL`, `CROSS JOIN` and comma lists,
 * INNER / LEFT / RIGHT / FULL. A join is a PL_JOIN over left and right whose output is
 * left ++ right; its scope resolves qualified names to either side. USING / NATURAL
 * add merged columns in front of the scope (l.x for INNER and LEFT, r.x for RIGHT,
 * COALESCE(l.x, r.x) for FULL — computed in a Project above the join when it is not a
 * plain column) and hide the side columns from unqualified references and `*`.
 *
 * Conditions are split late: ON conditions and the WHERE conjuncts pushed into inner
 * joins (bind_join_push) stay pending until bind_join_finish, which
 *   - pushes conjuncts that reference one side only below the join when that keeps the
 *     result (either side of an inner join, the NULL-padded side of an outer join),
 *   - turns `left_expr = right_expr` conjuncts into equi keys,
 *   - recognises event-time bounds (`l.t BETWEEN r.t - INTERVAL '1' HOUR AND r.t`,
 *     `l.t >= r.t AND l.t < r.t + ...`) and marks an interval join, keeping the
 *     condition itself in the residual predicate,
 *   - keeps everything else as the residual predicate over left ++ right.
 * WHERE conjuncts are never moved into an outer join's condition. */
#include "sql/bind_internal.h"

#include <string.h>

PlanNode *bind_join_node(Binder *b, JoinType jt, PlanNode *l, PlanNode *r, int loc)
{
    PlanNode *n = plan_node_new(b->arena, PL_JOIN, loc);
    n->join_type = jt;
    n->inputs = ARENA_ARRAY(b->arena, PlanNode *, 2);
    n->inputs[0] = l;
    n->inputs[1] = r;
    n->ninputs = 2;
    bool semi = jt == JOIN_SEMI || jt == JOIN_ANTI;
    n->ncols = semi ? l->ncols : l->ncols + r->ncols;
    n->cols = ARENA_ARRAY(b->arena, PlanColumn, n->ncols + 1);
    memcpy(n->cols, l->cols, sizeof(PlanColumn) * (size_t)l->ncols);
    if (!semi) memcpy(n->cols + l->ncols, r->cols, sizeof(PlanColumn) * (size_t)r->ncols);
    return n;
}

/* ---- pending conditions ---------------------------------------------------------------- */

static PendingJoin *pending_add(Binder *b, FromInfo *fi, PlanNode *node)
{
    if (fi->n == fi->cap) {
        int cap = fi->cap ? fi->cap * 2 : 4;
        PendingJoin *v = ARENA_ARRAY(b->arena, PendingJoin, cap);
        if (fi->n) memcpy(v, fi->joins, sizeof(PendingJoin) * (size_t)fi->n);
        fi->joins = v;
        fi->cap = cap;
    }
    PendingJoin *pj = &fi->joins[fi->n++];
    memset(pj, 0, sizeof *pj);
    pj->node = node;
    return pj;
}

static PendingJoin *pending_find(FromInfo *fi, const PlanNode *node)
{
    for (int i = 0; i < fi->n; i++)
        if (fi->joins[i].node == node) return &fi->joins[i];
    return NULL;
}

static void pending_conj(Binder *b, PendingJoin *pj, Expr *e)
{
    bind_conjuncts(b, e, &pj->conj, &pj->nconj, &pj->cap);
}

PlanNode *bind_cross_join(Binder *b, FromInfo *fi, PlanNode *l, PlanNode *r, int loc)
{
    PlanNode *n = bind_join_node(b, JOIN_INNER, l, r, loc);
    pending_add(b, fi, n);
    return n;
}

/* ---- which side a condition reads ------------------------------------------------------- */

enum { SIDE_NONE = 0, SIDE_LEFT = 1, SIDE_RIGHT = 2, SIDE_BOTH = 3, SIDE_OTHER = 4 };

typedef struct SideScan {
    int nl;
    int sides;
} SideScan;

static void side_of(int col, void *ud)
{
    SideScan *s = ud;
    if (col < 0) s->sides |= SIDE_OTHER; /* a placeholder: only valid above the join */
    else s->sides |= col < s->nl ? SIDE_LEFT : SIDE_RIGHT;
}

static int sides(const Expr *e, int nl)
{
    SideScan s = {nl, 0};
    bind_expr_cols(e, side_of, &s);
    return s.sides;
}

static int shift_col(int col, void *ud)
{
    return col - *(const int *)ud;
}

/* Pushes conj (over node's output) down into node's pending inner joins, or wraps it
 * around the node as a Filter when node is not one. */
static PlanNode *push_into(Binder *b, FromInfo *fi, PlanNode *node, Expr *conj)
{
    if (bind_join_push(b, fi, node, conj)) return node;
    if (node->kind == PL_FILTER) {
        Expr *v[2] = {node->pred, conj};
        node->pred = bind_and(b, v, 2, node->pred ? node->pred->loc : conj->loc);
        return node;
    }
    return bind_filter_node(b, node, conj, conj->loc);
}

bool bind_join_push(Binder *b, FromInfo *fi, PlanNode *root, Expr *conj)
{
    PendingJoin *pj = root->kind == PL_JOIN ? pending_find(fi, root) : NULL;
    if (!pj || root->join_type != JOIN_INNER) return false;
    int nl = root->inputs[0]->ncols;
    int s = sides(conj, nl);
    if (s == SIDE_NONE || (s & SIDE_OTHER)) return false;
    if (s == SIDE_BOTH) {
        pending_conj(b, pj, conj);
        return true;
    }
    if (s == SIDE_LEFT) {
        root->inputs[0] = push_into(b, fi, root->inputs[0], conj);
    } else {
        Expr *c = bind_expr_mapped(b, conj, shift_col, &nl);
        root->inputs[1] = push_into(b, fi, root->inputs[1], c);
    }
    return true;
}

/* ---- interval bounds ---------------------------------------------------------------------- */

/* t or t +/- interval constant, t an event-time column of one side. */
typedef struct TimeTerm {
    int col;      /* index into left ++ right */
    int64_t off;
} TimeTerm;

static bool is_time_col(Binder *b, const PlanNode *join, const Expr *e)
{
    if (e->kind != EX_COLUMN || (e->type.id != T_TIMESTAMP && e->type.id != T_TIMESTAMPTZ)) return false;
    int nl = join->inputs[0]->ncols;
    if (e->col < 0 || e->col >= nl + join->inputs[1]->ncols) return false;
    return e->col < nl ? bind_event_time(b, join->inputs[0], e->col)
                       : bind_event_time(b, join->inputs[1], e->col - nl);
}

static bool time_term(Binder *b, const PlanNode *join, const Expr *e, TimeTerm *t)
{
    if (is_time_col(b, join, e)) {
        t->col = e->col;
        t->off = 0;
        return true;
    }
    if (e->kind != EX_OP || e->nargs != 2 || (e->op != OP_ADD && e->op != OP_SUB)) return false;
    int64_t us;
    if (is_time_col(b, join, e->args[0]) && bind_interval_us(e->args[1], &us)) {
        t->col = e->args[0]->col;
        if (e->op == OP_SUB && us == INT64_MIN) return false;
        t->off = e->op == OP_ADD ? us : -us;
        return true;
    }
    if (e->op == OP_ADD && bind_interval_us(e->args[0], &us) && is_time_col(b, join, e->args[1])) {
        t->col = e->args[1]->col;
        t->off = us;
        return true;
    }
    return false;
}

typedef struct Bounds {
    int lcol, rcol;          /* -1 until the first bound is found */
    bool has_lower, has_upper;
    int64_t lower, upper;
} Bounds;

/* Records a bound from `a op b` when it relates an event-time column of each side. */
static void interval_bound(Binder *b, const PlanNode *join, const Expr *e, Bounds *bd)
{
    if (e->kind != EX_OP || e->nargs != 2) return;
    int op = e->op;
    if (op != OP_GE && op != OP_GT && op != OP_LE && op != OP_LT) return;
    TimeTerm x, y;
    if (!time_term(b, join, e->args[0], &x) || !time_term(b, join, e->args[1], &y)) return;
    int nl = join->inputs[0]->ncols;
    bool xl = x.col < nl, yl = y.col < nl;
    if (xl == yl) return;
    /* normalise to: left.t op right.t + c */
    int64_t c;
    int lcol, rcol;
    if (xl) {
        if (__builtin_sub_overflow(y.off, x.off, &c)) return;
        lcol = x.col;
        rcol = y.col - nl;
    } else {
        if (__builtin_sub_overflow(x.off, y.off, &c)) return;
        lcol = y.col;
        rcol = x.col - nl;
        op = op == OP_GE ? OP_LE : op == OP_GT ? OP_LT : op == OP_LE ? OP_GE : OP_GT;
    }
    if (bd->lcol >= 0 && (bd->lcol != lcol || bd->rcol != rcol)) return;
    bd->lcol = lcol;
    bd->rcol = rcol;
    /* a strict bound frees state one microsecond later at most: keep it inclusive */
    if (op == OP_GE || op == OP_GT) {
        if (!bd->has_lower || c > bd->lower) bd->lower = c;
        bd->has_lower = true;
    } else {
        if (!bd->has_upper || c < bd->upper) bd->upper = c;
        bd->has_upper = true;
    }
}

/* ---- finishing ------------------------------------------------------------------------------ */

static void add_key(Binder *b, PlanNode *j, Expr *l, Expr *r, int nl)
{
    Expr **lk = ARENA_ARRAY(b->arena, Expr *, j->nkeys + 1);
    Expr **rk = ARENA_ARRAY(b->arena, Expr *, j->nkeys + 1);
    if (j->nkeys) {
        memcpy(lk, j->left_keys, sizeof(Expr *) * (size_t)j->nkeys);
        memcpy(rk, j->right_keys, sizeof(Expr *) * (size_t)j->nkeys);
    }
    lk[j->nkeys] = l;
    rk[j->nkeys] = bind_expr_mapped(b, r, shift_col, &nl);
    j->left_keys = lk;
    j->right_keys = rk;
    j->nkeys++;
}

/* An equality whose operands each read exactly one (different) side. */
static bool equi_pair(const Expr *e, int nl, Expr **l, Expr **r)
{
    if (e->kind != EX_OP || e->op != OP_EQ || e->nargs != 2) return false;
    int s0 = sides(e->args[0], nl), s1 = sides(e->args[1], nl);
    if (s0 == SIDE_LEFT && s1 == SIDE_RIGHT) {
        *l = e->args[0];
        *r = e->args[1];
        return true;
    }
    if (s0 == SIDE_RIGHT && s1 == SIDE_LEFT) {
        *l = e->args[1];
        *r = e->args[0];
        return true;
    }
    return false;
}

static void finish_one(Binder *b, FromInfo *fi, PendingJoin *pj)
{
    PlanNode *j = pj->node;
    int nl = j->inputs[0]->ncols;
    JoinType jt = j->join_type;
    Expr **rest = NULL;
    int nrest = 0, cap = 0;
    for (int i = 0; i < pj->nconj; i++) {
        Expr *c = pj->conj[i];
        int s = sides(c, nl);
        bool push_left = s == SIDE_LEFT && (jt == JOIN_INNER || jt == JOIN_RIGHT);
        bool push_right = s == SIDE_RIGHT && (jt == JOIN_INNER || jt == JOIN_LEFT);
        if (push_left) {
            j->inputs[0] = push_into(b, fi, j->inputs[0], c);
            continue;
        }
        if (push_right) {
            j->inputs[1] = push_into(b, fi, j->inputs[1], bind_expr_mapped(b, c, shift_col, &nl));
            continue;
        }
        bind_push(b, (void ***)&rest, &nrest, &cap, c);
    }
    Expr **resid = ARENA_ARRAY(b->arena, Expr *, nrest + 1);
    int nresid = 0;
    Bounds bd = {-1, -1, false, false, 0, 0};
    for (int i = 0; i < nrest; i++) {
        Expr *l, *r;
        if (equi_pair(rest[i], nl, &l, &r)) {
            add_key(b, j, l, r, nl);
            continue;
        }
        interval_bound(b, j, rest[i], &bd);
        resid[nresid++] = rest[i];
    }
    j->pred = bind_and(b, resid, nresid, nresid ? resid[0]->loc : j->loc);
    if (bd.has_lower && bd.has_upper && (jt == JOIN_INNER || jt == JOIN_LEFT || jt == JOIN_RIGHT || jt == JOIN_FULL)) {
        j->interval_join = true;
        j->left_time_col = bd.lcol;
        j->right_time_col = bd.rcol;
        j->lower_us = bd.lower;
        j->upper_us = bd.upper;
    }
}

void bind_join_finish(Binder *b, FromInfo *fi)
{
    /* parents were registered after their inputs: finish them first, so the conditions
     * they push down are split by the joins below */
    for (int i = fi->n - 1; i >= 0; i--) finish_one(b, fi, &fi->joins[i]);
    fi->n = 0;
}

/* ---- join trees ------------------------------------------------------------------------------- */

static bool rel_listed(const Scope *s, const char *rel)
{
    for (int i = 0; i < s->nrels; i++)
        if (s->rels[i] && strcmp(s->rels[i], rel) == 0) return true;
    return false;
}

/* The visible (unqualified) entries named `name` of a side scope. */
static int visible_named(const Scope *s, const char *name, const ScopeCol **first)
{
    int n = 0;
    *first = NULL;
    int seen_index = -1;
    for (int i = 0; i < s->ncols; i++) {
        const ScopeCol *c = &s->cols[i];
        if (c->qualified_only || strcmp(c->name, name) != 0) continue;
        if (c->index == seen_index) continue;
        if (!*first) *first = c;
        seen_index = c->index;
        n++;
    }
    return n;
}

typedef struct Merged {
    const char *name;
    const ScopeCol *l, *r;
    Expr *expr;              /* over left ++ right */
    Type type;
    int index;               /* column index of the merged value */
} Merged;

/* USING / NATURAL: the merged columns, their equality conditions (added to pj) and
 * types. Returns the count, or -1 after reporting. */
static int merge_columns(Binder *b, Ast *item, const Scope *ls, const Scope *rs, int nl, PendingJoin *pj,
                         JoinType jt, Merged **out)
{
    const char **names;
    int nnames = 0;
    if (item->natural) {
        names = ARENA_ARRAY(b->arena, const char *, ls->ncols + 1);
        for (int i = 0; i < ls->ncols; i++) {
            const ScopeCol *c = &ls->cols[i], *rc;
            if (c->qualified_only) continue;
            bool dup = false;
            for (int k = 0; k < nnames && !dup; k++) dup = strcmp(names[k], c->name) == 0;
            if (dup || visible_named(rs, c->name, &rc) == 0) continue;
            names[nnames++] = c->name;
        }
    } else {
        names = item->using_cols;
        nnames = item->nusing;
    }
    Merged *m = ARENA_ARRAY(b->arena, Merged, nnames + 1);
    int loc = item->loc;
    bool ok = true;
    for (int i = 0; i < nnames; i++) {
        for (int k = 0; k < i; k++)
            if (strcmp(names[k], names[i]) == 0) {
                bind_error(b, loc, "invalid-join", NULL, "column name \"%s\" appears more than once in USING clause",
                           names[i]);
                return -1;
            }
        m[i].name = names[i];
        int nlm = visible_named(ls, names[i], &m[i].l);
        int nrm = visible_named(rs, names[i], &m[i].r);
        const char *side = nlm != 1 ? "left" : "right";
        int count = nlm != 1 ? nlm : nrm;
        if (count == 0) {
            bind_error(b, loc, "unknown-column", NULL, "column \"%s\" specified in USING clause does not exist in %s table",
                       names[i], side);
            ok = false;
            continue;
        }
        if (count > 1) {
            bind_error(b, loc, "ambiguous-column", NULL, "common column name \"%s\" appears more than once in %s table",
                       names[i], side);
            ok = false;
            continue;
        }
        Expr *le = bind_column_expr(b, m[i].l, loc);
        Expr *re = bind_column_expr(b, m[i].r, loc);
        re->col += nl;
        Expr *pair[2] = {le, re};
        if (!bind_common_type(b, pair, 2, "JOIN/USING", &m[i].type)) {
            ok = false;
            continue;
        }
        le = bind_coerce(b, le, m[i].type);
        re = bind_coerce(b, re, m[i].type);
        Expr *eq = plan_expr_new(b->arena, EX_OP, type_make(T_BOOL), loc);
        eq->op = OP_EQ;
        eq->args = ARENA_ARRAY(b->arena, Expr *, 2);
        eq->args[0] = le;
        eq->args[1] = re;
        eq->nargs = 2;
        pending_conj(b, pj, eq);
        if (jt == JOIN_FULL) {
            Expr *co = plan_expr_new(b->arena, EX_COALESCE, m[i].type, loc);
            co->args = ARENA_ARRAY(b->arena, Expr *, 2);
            co->args[0] = plan_expr_copy(b->arena, le);
            co->args[1] = plan_expr_copy(b->arena, re);
            co->nargs = 2;
            m[i].expr = co;
        } else {
            m[i].expr = plan_expr_copy(b->arena, jt == JOIN_RIGHT ? re : le);
        }
    }
    *out = m;
    return ok ? nnames : -1;
}

static JoinType join_type_of(AstJoinKind k)
{
    switch (k) {
    case AST_JOIN_LEFT: return JOIN_LEFT;
    case AST_JOIN_RIGHT: return JOIN_RIGHT;
    case AST_JOIN_FULL: return JOIN_FULL;
    default: return JOIN_INNER;
    }
}

PlanNode *bind_join_tree(Binder *b, Ast *item, const CteEnv *env, Scope *scope, FromInfo *fi)
{
    memset(scope, 0, sizeof *scope);
    if (item->kind != AST_JOIN) {
        const char *alias = NULL;
        PlanNode *p = bind_from_item(b, item, env, &alias);
        if (!p) return NULL;
        bind_scope_add(b, scope, alias, p, 0);
        scope->input = p;
        return p;
    }
    Scope ls, rs;
    PlanNode *l = bind_join_tree(b, item->larg, env, &ls, fi);
    PlanNode *r = bind_join_tree(b, item->rarg, env, &rs, fi);
    if (!l || !r) return NULL;
    for (int i = 0; i < rs.nrels; i++)
        if (rs.rels[i] && rel_listed(&ls, rs.rels[i])) {
            bind_error(b, item->rarg->kind == AST_JOIN ? item->rarg->loc : bind_ast_start(item->rarg),
                       "duplicate-alias", "give one of them another alias",
                       "table name \"%s\" specified more than once", rs.rels[i]);
            return NULL;
        }
    JoinType jt = join_type_of(item->join_kind);
    PlanNode *j = bind_join_node(b, jt, l, r, item->loc);
    PendingJoin *pj = pending_add(b, fi, j);
    int nl = l->ncols;

    /* the combined scope: left ++ right */
    Scope s;
    memset(&s, 0, sizeof s);
    s.nrels = ls.nrels + rs.nrels;
    s.rels = ARENA_ARRAY(b->arena, const char *, s.nrels + 1);
    memcpy(s.rels, ls.rels, sizeof(const char *) * (size_t)ls.nrels);
    memcpy(s.rels + ls.nrels, rs.rels, sizeof(const char *) * (size_t)rs.nrels);
    ScopeCol *sides_cols = ARENA_ARRAY(b->arena, ScopeCol, ls.ncols + rs.ncols + 1);
    memcpy(sides_cols, ls.cols, sizeof(ScopeCol) * (size_t)ls.ncols);
    for (int i = 0; i < rs.ncols; i++) {
        sides_cols[ls.ncols + i] = rs.cols[i];
        sides_cols[ls.ncols + i].index += nl;
    }
    int nsides = ls.ncols + rs.ncols;
    PlanNode *top = j;

    Merged *m = NULL;
    int nm = 0;
    if (item->natural || item->nusing) {
        nm = merge_columns(b, item, &ls, &rs, nl, pj, jt, &m);
        if (nm < 0) return NULL;
        /* a merged value that is not a plain side column is computed above the join */
        bool need = false;
        for (int i = 0; i < nm; i++) need = need || m[i].expr->kind != EX_COLUMN;
        if (need) {
            int n = j->ncols + nm;
            Expr **exprs = ARENA_ARRAY(b->arena, Expr *, n);
            PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, n);
            for (int i = 0; i < j->ncols; i++) {
                exprs[i] = plan_expr_column(b->arena, i, j->cols[i].type);
                cols[i] = j->cols[i];
            }
            for (int i = 0; i < nm; i++) {
                exprs[j->ncols + i] = m[i].expr;
                cols[j->ncols + i].name = m[i].name;
                cols[j->ncols + i].type = m[i].type;
                m[i].index = j->ncols + i;
            }
            top = bind_project_node(b, j, exprs, cols, n, item->loc);
        } else {
            for (int i = 0; i < nm; i++) m[i].index = m[i].expr->col;
        }
        for (int i = 0; i < nsides; i++) {
            ScopeCol *c = &sides_cols[i];
            for (int k = 0; k < nm; k++)
                if ((i < ls.ncols && c->index == m[k].l->index) || (i >= ls.ncols && c->index == m[k].r->index + nl)) {
                    c->hidden = true;
                    c->qualified_only = true;
                }
        }
    }
    s.ncols = nm + nsides;
    s.cols = ARENA_ARRAY(b->arena, ScopeCol, s.ncols + 1);
    for (int i = 0; i < nm; i++) {
        ScopeCol *c = &s.cols[i];
        memset(c, 0, sizeof *c);
        c->name = m[i].name;
        c->index = m[i].index;
        c->type = m[i].type;
    }
    memcpy(s.cols + nm, sides_cols, sizeof(ScopeCol) * (size_t)nsides);
    s.input = top;

    if (item->quals) {
        ExprCtx cx = {b, &s, AGGS_FORBIDDEN, "JOIN conditions", NULL, NULL, 0, false, NULL, NULL, env, NULL};
        Expr *cond = bind_condition(&cx, item->quals, "JOIN/ON");
        if (!cond) return NULL;
        pending_conj(b, pj, cond);
    }

    if (item->alias) {
        if (item->nalias_cols) {
            bind_unsupported(b, item->loc, "a column alias list on a join");
            return NULL;
        }
        /* (a JOIN b) AS j: only j's columns are visible, as j.x or x */
        Scope a;
        memset(&a, 0, sizeof a);
        a.nrels = 1;
        a.rels = ARENA_ARRAY(b->arena, const char *, 1);
        a.rels[0] = item->alias;
        a.cols = ARENA_ARRAY(b->arena, ScopeCol, s.ncols + 1);
        for (int i = 0; i < s.ncols; i++) {
            if (s.cols[i].qualified_only) continue;
            a.cols[a.ncols] = s.cols[i];
            a.cols[a.ncols].rel = item->alias;
            a.ncols++;
        }
        a.input = top;
        s = a;
    }
    *scope = s;
    return top;
}

/* ---- comma lists: join order ------------------------------------------------------------------- */

typedef struct ItemScan {
    const CommaList *cl;
    int ncols;
    uint64_t mask;
    bool other;              /* reads a placeholder: stays above the FROM clause */
} ItemScan;

static void item_of(int col, void *ud)
{
    ItemScan *s = ud;
    if (col < 0 || col >= s->ncols) {
        s->other = true;
        return;
    }
    int i = s->cl->n - 1;
    while (i > 0 && s->cl->base[i] > col) i--;
    s->mask |= (uint64_t)1 << i;
}

static uint64_t items_of(const CommaList *cl, int ncols, const Expr *e, bool *other)
{
    ItemScan s = {cl, ncols, 0, false};
    bind_expr_cols(e, item_of, &s);
    *other = s.other;
    return s.mask;
}

static int map_col(int col, void *ud)
{
    const CommaList *cl = ud;
    return col >= 0 ? cl->map[col] : col;
}

PlanNode *bind_comma_order(Binder *b, FromInfo *fi, PlanNode *root, Expr *const *conj, int n)
{
    CommaList *cl = &fi->comma;
    if (cl->n < 3 || cl->n > 64 || cl->chain || root != cl->cross[cl->n - 1]) return root;
    int ncols = root->ncols;
    uint64_t *masks = ARENA_ARRAY(b->arena, uint64_t, n + 1);
    bool *equality = ARENA_ARRAY(b->arena, bool, n + 1);
    for (int i = 0; i < n; i++) {
        bool other;
        masks[i] = items_of(cl, ncols, conj[i], &other);
        if (other || __builtin_popcountll(masks[i]) < 2) masks[i] = 0;
        equality[i] = conj[i]->kind == EX_OP && conj[i]->op == OP_EQ && conj[i]->nargs == 2;
    }
    int *order = ARENA_ARRAY(b->arena, int, cl->n);
    uint64_t joined = 0, all = cl->n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << cl->n) - 1);
    for (int k = 0; k < cl->n; k++) {
        int pick = -1;
        /* 0: an equality connects it to the joined items; 1: any condition does;
         * 2: it starts a new connected group (has an equality at all); 3: the next one */
        for (int pass = 0; pass < 4 && pick < 0; pass++) {
            if (k == 0 && pass < 2) continue;
            for (int c = 0; c < cl->n && pick < 0; c++) {
                uint64_t bit = (uint64_t)1 << c;
                if (joined & bit) continue;
                if (pass == 3) {
                    pick = c;
                    break;
                }
                for (int i = 0; i < n && pick < 0; i++) {
                    if (!(masks[i] & bit)) continue;
                    if (pass == 2) {
                        if (equality[i]) pick = c;
                        continue;
                    }
                    if (pass == 0 && !equality[i]) continue;
                    if ((masks[i] & ~(joined | bit)) == 0 && (masks[i] & joined)) pick = c;
                }
            }
        }
        order[k] = pick;
        joined |= (uint64_t)1 << pick;
    }
    (void)all;
    bool same = true;
    for (int k = 0; k < cl->n; k++) same = same && order[k] == k;
    if (same) return root;

    /* drop the FROM-order cross joins from the pending list */
    int kept = 0;
    for (int i = 0; i < fi->n; i++) {
        bool old = false;
        for (int k = 1; k < cl->n && !old; k++) old = fi->joins[i].node == cl->cross[k];
        if (!old) fi->joins[kept++] = fi->joins[i];
    }
    fi->n = kept;
    cl->map = ARENA_ARRAY(b->arena, int, ncols + 1);
    PlanNode *chain = NULL;
    int at = 0;
    for (int k = 0; k < cl->n; k++) {
        int it = order[k];
        PlanNode *p = cl->items[it];
        for (int c = 0; c < p->ncols; c++) cl->map[cl->base[it] + c] = at + c;
        at += p->ncols;
        chain = chain ? bind_cross_join(b, fi, chain, p, cl->cross[it > 0 ? it : 1]->loc) : p;
    }
    Expr **exprs = ARENA_ARRAY(b->arena, Expr *, ncols + 1);
    PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, ncols + 1);
    for (int c = 0; c < ncols; c++) {
        exprs[c] = plan_expr_column(b->arena, cl->map[c], root->cols[c].type);
        cols[c] = root->cols[c];
    }
    cl->chain = chain;
    cl->top = bind_project_node(b, chain, exprs, cols, ncols, root->loc);
    return cl->top;
}

bool bind_where_push(Binder *b, FromInfo *fi, PlanNode *root, Expr *conj)
{
    const CommaList *cl = &fi->comma;
    if (fi->djoin && root == fi->djoin) {
        /* a correlated subquery's FROM clause, cross joined with its domain */
        if (sides(conj, root->inputs[0]->ncols) == SIDE_LEFT && bind_where_push(b, fi, root->inputs[0], conj))
            return true;
        return bind_join_push(b, fi, root, conj);
    }
    if (cl->top && root == cl->top) {
        if (sides(conj, root->ncols) & SIDE_OTHER) return false;
        return bind_join_push(b, fi, cl->chain, bind_expr_mapped(b, conj, map_col, (void *)cl));
    }
    return bind_join_push(b, fi, root, conj);
}
