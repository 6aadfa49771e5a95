/* Column pruning over a model's bound plan (sql/plan.h), run by ir_build before the
 * IR nodes are made: every operator that copies or keeps rows (join state, window TVF
 * expansion, TopN rows) should carry only the columns the query above it reads. The
 * pass walks the tree top-down with the set of output columns each node's consumer
 * needs, narrows projections to those columns, and inserts a projection under a join
 * input or a window TVF whose input would otherwise bring columns nobody reads (a
 * source, a ref(), an aggregate). Column references are rewritten on the way back up.
 * The model's root keeps all its columns, and every node keeps its identity (inputs
 * and fields are rewritten in place), so the pass is idempotent.
 *
 * Nodes whose meaning depends on every column (DISTINCT, set operations, UNION ALL,
 * aggregates' group keys) keep their outputs whole; their inputs are pruned to what
 * they read. Expressions are copied before they are rewritten, so expressions shared
 * between nodes are never renumbered twice. */
#include "ir/ir_internal.h"

#include <string.h>

typedef struct Pruner {
    Arena *a;
} Pruner;

static bool *need_new(Pruner *pr, int n)
{
    return ARENA_ARRAY(pr->a, bool, n > 0 ? n : 1);
}

static void mark_expr(const Expr *e, bool *need, int off, int n)
{
    if (!e) return;
    if (e->kind == EX_COLUMN && e->col - off >= 0 && e->col - off < n) need[e->col - off] = true;
    for (int i = 0; i < e->nargs; i++) mark_expr(e->args[i], need, off, n);
}

static void remap_in_place(Expr *e, const int *map)
{
    if (!e) return;
    if (e->kind == EX_COLUMN) e->col = map[e->col];
    for (int i = 0; i < e->nargs; i++) remap_in_place(e->args[i], map);
}

static Expr *remapped(Pruner *pr, const Expr *e, const int *map)
{
    if (!e) return NULL;
    Expr *c = plan_expr_copy(pr->a, e);
    remap_in_place(c, map);
    return c;
}

static Expr **remapped_list(Pruner *pr, Expr *const *es, int n, const int *map)
{
    if (n == 0) return NULL;
    Expr **out = ARENA_ARRAY(pr->a, Expr *, n);
    for (int i = 0; i < n; i++) out[i] = remapped(pr, es[i], map);
    return out;
}

static int *identity_map(Pruner *pr, int n)
{
    int *m = ARENA_ARRAY(pr->a, int, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) m[i] = i;
    return m;
}

static PlanNode *prune(Pruner *pr, PlanNode *n, const bool *need, int **map_out);

/* Prune input i of n to the columns in need; the input's old-to-new map goes to *map. */
static void prune_input(Pruner *pr, PlanNode *n, int i, const bool *need, int **map)
{
    n->inputs[i] = prune(pr, n->inputs[i], need, map);
}

/* Prune input i with every column needed (nodes that read whole rows). */
static void prune_input_whole(Pruner *pr, PlanNode *n, int i)
{
    PlanNode *in = n->inputs[i];
    bool *all = need_new(pr, in->ncols);
    for (int c = 0; c < in->ncols; c++) all[c] = true;
    int *m;
    prune_input(pr, n, i, all, &m);
}

/* Input i of a row-copying node, pruned and then narrowed by a projection when it
 * still carries columns outside need (at least one column is kept). *map: the old
 * input column -> its index in the new input, -1 when dropped. */
static void narrow_input(Pruner *pr, PlanNode *n, int i, const bool *need, int **map)
{
    int old_ncols = n->inputs[i]->ncols;
    int *m;
    prune_input(pr, n, i, need, &m);
    PlanNode *in = n->inputs[i];
    bool any = false;
    for (int c = 0; c < old_ncols; c++) any |= need[c];
    int keep = 0;
    bool *kept = need_new(pr, in->ncols);
    for (int c = 0; c < old_ncols; c++)
        if ((need[c] || (!any && c == 0)) && m[c] >= 0) kept[m[c]] = true;
    for (int c = 0; c < in->ncols; c++) keep += kept[c];
    if (keep == in->ncols) {
        *map = m;
        return;
    }
    PlanNode *p = plan_node_new(pr->a, PL_PROJECT, in->loc);
    p->inputs = ARENA_ARRAY(pr->a, PlanNode *, 1);
    p->inputs[0] = in;
    p->ninputs = 1;
    p->cols = ARENA_ARRAY(pr->a, PlanColumn, keep);
    p->exprs = ARENA_ARRAY(pr->a, Expr *, keep);
    int *pos = ARENA_ARRAY(pr->a, int, in->ncols);
    for (int c = 0; c < in->ncols; c++) {
        pos[c] = -1;
        if (!kept[c]) continue;
        pos[c] = p->ncols;
        p->cols[p->ncols] = in->cols[c];
        p->exprs[p->ncols] = plan_expr_column(pr->a, c, in->cols[c].type);
        p->ncols++;
    }
    p->nexprs = p->ncols;
    n->inputs[i] = p;
    int *composed = ARENA_ARRAY(pr->a, int, old_ncols > 0 ? old_ncols : 1);
    for (int c = 0; c < old_ncols; c++) composed[c] = m[c] >= 0 ? pos[m[c]] : -1;
    *map = composed;
}

static PlanNode *prune_project(Pruner *pr, PlanNode *n, const bool *need, int **map_out)
{
    int keep = 0;
    for (int j = 0; j < n->nexprs; j++) keep += need[j];
    bool keep_first = keep == 0;
    if (keep_first) keep = n->nexprs > 0 ? 1 : 0;
    PlanNode *in = n->inputs[0];
    bool *need_in = need_new(pr, in->ncols);
    for (int j = 0; j < n->nexprs; j++)
        if (need[j] || (keep_first && j == 0)) mark_expr(n->exprs[j], need_in, 0, in->ncols);
    int *m;
    prune_input(pr, n, 0, need_in, &m);
    int *map = ARENA_ARRAY(pr->a, int, n->nexprs > 0 ? n->nexprs : 1);
    Expr **exprs = ARENA_ARRAY(pr->a, Expr *, keep > 0 ? keep : 1);
    PlanColumn *cols = ARENA_ARRAY(pr->a, PlanColumn, keep > 0 ? keep : 1);
    int k = 0;
    for (int j = 0; j < n->nexprs; j++) {
        map[j] = -1;
        if (!(need[j] || (keep_first && j == 0))) continue;
        map[j] = k;
        exprs[k] = remapped(pr, n->exprs[j], m);
        cols[k] = n->cols[j];
        k++;
    }
    n->exprs = exprs;
    n->nexprs = k;
    n->cols = cols;
    n->ncols = k;
    *map_out = map;
    return n;
}

static PlanNode *prune_join(Pruner *pr, PlanNode *n, const bool *need, int **map_out)
{
    bool semi_anti = n->join_type == JOIN_SEMI || n->join_type == JOIN_ANTI;
    int nl = n->inputs[0]->ncols, nr = n->inputs[1]->ncols;
    bool *need_l = need_new(pr, nl), *need_r = need_new(pr, nr);
    for (int c = 0; c < nl; c++) need_l[c] = need[c];
    if (!semi_anti)
        for (int c = 0; c < nr; c++) need_r[c] = need[nl + c];
    for (int k = 0; k < n->nkeys; k++) {
        mark_expr(n->left_keys[k], need_l, 0, nl);
        mark_expr(n->right_keys[k], need_r, 0, nr);
    }
    mark_expr(n->pred, need_l, 0, nl);
    mark_expr(n->pred, need_r, nl, nr);
    if (n->left_time_col >= 0) need_l[n->left_time_col] = true;
    if (n->right_time_col >= 0) need_r[n->right_time_col] = true;
    int *ml, *mr;
    narrow_input(pr, n, 0, need_l, &ml);
    narrow_input(pr, n, 1, need_r, &mr);
    int nl2 = n->inputs[0]->ncols, nr2 = n->inputs[1]->ncols;
    int *pair = ARENA_ARRAY(pr->a, int, nl + nr);
    for (int c = 0; c < nl; c++) pair[c] = ml[c];
    for (int c = 0; c < nr; c++) pair[nl + c] = mr[c] >= 0 ? nl2 + mr[c] : -1;
    n->left_keys = remapped_list(pr, n->left_keys, n->nkeys, ml);
    n->right_keys = remapped_list(pr, n->right_keys, n->nkeys, mr);
    n->pred = remapped(pr, n->pred, pair);
    if (n->dl_ncols > 0) { /* the outer row's columns that remain */
        int keep = 0;
        for (int c = 0; c < n->dl_ncols && c < nl; c++) keep += ml[c] >= 0;
        n->dl_ncols = keep > 0 ? keep : -1;
    }
    if (n->left_time_col >= 0) n->left_time_col = ml[n->left_time_col];
    if (n->right_time_col >= 0) n->right_time_col = mr[n->right_time_col];
    int ncols = semi_anti ? nl2 : nl2 + nr2;
    PlanColumn *cols = ARENA_ARRAY(pr->a, PlanColumn, ncols > 0 ? ncols : 1);
    memcpy(cols, n->inputs[0]->cols, sizeof(PlanColumn) * (size_t)nl2);
    if (!semi_anti) memcpy(cols + nl2, n->inputs[1]->cols, sizeof(PlanColumn) * (size_t)nr2);
    n->cols = cols;
    n->ncols = ncols;
    *map_out = semi_anti ? ml : pair;
    return n;
}

/* Nodes whose output is their input's columns followed by `extra` columns of their own
 * (filter, window TVF, TopN, OVER aggregate). `narrow` inserts a projection under the
 * node when its input keeps unread columns. */
static PlanNode *prune_passthrough(Pruner *pr, PlanNode *n, const bool *need, int extra, bool narrow,
                                   int **map_out)
{
    int nin = n->inputs[0]->ncols;
    bool *need_in = need_new(pr, nin);
    for (int c = 0; c < nin; c++) need_in[c] = need[c];
    mark_expr(n->pred, need_in, 0, nin);
    for (int k = 0; k < n->npartition; k++) mark_expr(n->partition[k], need_in, 0, nin);
    for (int k = 0; k < n->norder; k++) mark_expr(n->order[k].expr, need_in, 0, nin);
    for (int k = 0; k < n->naggs; k++) {
        mark_expr(n->aggs[k].arg, need_in, 0, nin);
        mark_expr(n->aggs[k].filter, need_in, 0, nin);
        mark_expr(n->aggs[k].dflt, need_in, 0, nin);
    }
    if (n->kind == PL_WINDOW_TVF && n->time_col >= 0) need_in[n->time_col] = true;
    int *m;
    if (narrow) narrow_input(pr, n, 0, need_in, &m);
    else prune_input(pr, n, 0, need_in, &m);
    PlanNode *in = n->inputs[0];
    n->pred = remapped(pr, n->pred, m);
    n->partition = remapped_list(pr, n->partition, n->npartition, m);
    if (n->norder) {
        SortKey *o = ARENA_ARRAY(pr->a, SortKey, n->norder);
        for (int k = 0; k < n->norder; k++) {
            o[k] = n->order[k];
            o[k].expr = remapped(pr, n->order[k].expr, m);
        }
        n->order = o;
    }
    if (n->naggs) {
        AggCall *ag = ARENA_ARRAY(pr->a, AggCall, n->naggs);
        for (int k = 0; k < n->naggs; k++) {
            ag[k] = n->aggs[k];
            ag[k].arg = remapped(pr, n->aggs[k].arg, m);
            ag[k].filter = remapped(pr, n->aggs[k].filter, m);
            ag[k].dflt = remapped(pr, n->aggs[k].dflt, m);
        }
        n->aggs = ag;
    }
    if (n->kind == PL_WINDOW_TVF && n->time_col >= 0) n->time_col = m[n->time_col];
    int ncols = in->ncols + extra;
    PlanColumn *cols = ARENA_ARRAY(pr->a, PlanColumn, ncols > 0 ? ncols : 1);
    memcpy(cols, in->cols, sizeof(PlanColumn) * (size_t)in->ncols);
    for (int e = 0; e < extra; e++) cols[in->ncols + e] = n->cols[nin + e];
    int *map = ARENA_ARRAY(pr->a, int, n->ncols > 0 ? n->ncols : 1);
    for (int c = 0; c < nin; c++) map[c] = m[c];
    for (int e = 0; e < extra; e++) map[nin + e] = in->ncols + e;
    n->cols = cols;
    n->ncols = ncols;
    *map_out = map;
    return n;
}

static PlanNode *prune_aggregate(Pruner *pr, PlanNode *n, int **map_out)
{
    int nin = n->inputs[0]->ncols;
    bool *need_in = need_new(pr, nin);
    for (int k = 0; k < n->ngroup; k++) mark_expr(n->group[k], need_in, 0, nin);
    for (int k = 0; k < n->naggs; k++) {
        mark_expr(n->aggs[k].arg, need_in, 0, nin);
        mark_expr(n->aggs[k].filter, need_in, 0, nin);
    }
    int *m;
    prune_input(pr, n, 0, need_in, &m);
    n->group = remapped_list(pr, n->group, n->ngroup, m);
    if (n->naggs) {
        AggCall *ag = ARENA_ARRAY(pr->a, AggCall, n->naggs);
        for (int k = 0; k < n->naggs; k++) {
            ag[k] = n->aggs[k];
            ag[k].arg = remapped(pr, n->aggs[k].arg, m);
            ag[k].filter = remapped(pr, n->aggs[k].filter, m);
        }
        n->aggs = ag;
    }
    *map_out = identity_map(pr, n->ncols);
    return n;
}

static PlanNode *prune(Pruner *pr, PlanNode *n, const bool *need, int **map_out)
{
    switch (n->kind) {
    case PL_PROJECT: return prune_project(pr, n, need, map_out);
    case PL_JOIN: return prune_join(pr, n, need, map_out);
    case PL_FILTER: return prune_passthrough(pr, n, need, 0, false, map_out);
    case PL_WINDOW_TVF: return prune_passthrough(pr, n, need, 2, true, map_out);
    case PL_TOPN: return prune_passthrough(pr, n, need, n->emit_rank ? 1 : 0, false, map_out);
    case PL_OVER_AGG: return prune_passthrough(pr, n, need, n->naggs, false, map_out);
    case PL_AGGREGATE: return prune_aggregate(pr, n, map_out);
    case PL_DISTINCT:
    case PL_UNION_ALL:
    case PL_SETOP:
        for (int i = 0; i < n->ninputs; i++) prune_input_whole(pr, n, i);
        break;
    case PL_SOURCE:
    case PL_REF:
    case PL_VALUES:
        break;
    }
    *map_out = identity_map(pr, n->ncols);
    return n;
}

void ir_prune_columns(Arena *a, PlanNode *root)
{
    if (!root) return;
    Pruner pr = {a};
    bool *all = need_new(&pr, root->ncols);
    for (int c = 0; c < root->ncols; c++) all[c] = true;
    int *map;
    prune(&pr, root, all, &map);
}
