/* Column-level fingerprints (lineage): for every IR node, `rows_fp` says which rows its
 * output holds and `col_fp[c]` what column c holds in each of them, both computed from
 * what the node reads only. A consumer depends on the rows of its input and on the
 * columns it references, so a change that no consumer reads -- a column added to an
 * upstream model, the type of a source column an aggregate does not use -- leaves the
 * consumer's fingerprints as they were (`weir plan`: "a change nobody reads does not
 * propagate"). Column references are hashed by their fingerprint, never by position,
 * so inserting a column in the middle of an upstream model moves nothing either.
 *
 * These fingerprints decide whether state can be reused (StateDesc.logic_fp) and
 * whether a model's output changes (IrModel.output_fp); the structural node.logic_fp
 * stays what explain shows and what the plan walks to name the operators that changed. */
#include "base/hash.h"
#include "ir/ir_internal.h"

#include <string.h>

enum { K_SOURCE = 1, K_FILTER, K_AGG, K_DISTINCT, K_UNION, K_SETOP, K_JOIN, K_WTVF, K_TOPN, K_OVER, K_RANK, K_VALUES };

static uint64_t hash_type(Type t, uint64_t h)
{
    h = hash_u64(t.id, h);
    h = hash_u64((uint64_t)(int64_t)t.precision, h);
    if (t.elem) h = hash_u64(0x656c656dull ^ t.elem, h);   /* arrays only: other types keep their fingerprints */
    return hash_u64((uint64_t)(int64_t)t.scale, h);
}

static uint64_t expr_fp(const Expr *e, const IrNode *in, uint64_t h)
{
    return plan_expr_hash_cols(e, in->col_fp, in->plan->ncols, h);
}

static uint64_t exprs_fp(Expr *const *es, int n, const IrNode *in, uint64_t h)
{
    h = hash_u64((uint64_t)n, h);
    for (int i = 0; i < n; i++) h = expr_fp(es[i], in, h);
    return h;
}

static uint64_t agg_fp(const AggCall *a, const IrNode *in, uint64_t h)
{
    h = hash_u64((uint64_t)a->kind * 2 + a->distinct, h);
    h = a->arg ? expr_fp(a->arg, in, h) : hash_u64(1, h);
    h = a->filter ? expr_fp(a->filter, in, h) : hash_u64(2, h);
    h = hash_type(a->type, h);
    h = hash_u64((uint64_t)a->offset, h);
    return a->dflt ? expr_fp(a->dflt, in, h) : h;
}

/* Every column and the rows of node n: for operators whose result depends on whole rows
 * (DISTINCT, set operations, TopN ties). */
static uint64_t whole_fp(const IrNode *n, uint64_t h)
{
    h = hash_u64(n->rows_fp, h);
    for (int c = 0; c < n->plan->ncols; c++) h = hash_u64(n->col_fp[c], h);
    return h;
}

static uint64_t order_fp(const PlanNode *p, const IrNode *in, uint64_t h)
{
    h = exprs_fp(p->partition, p->npartition, in, h);
    for (int i = 0; i < p->norder; i++) {
        h = expr_fp(p->order[i].expr, in, h);
        h = hash_u64((uint64_t)p->order[i].desc * 2 + p->order[i].nulls_first, h);
    }
    return h;
}

/* The source's identity: what stream it reads and how its records become rows. */
static uint64_t source_fp(const SourceDef *s)
{
    uint64_t h = hash_u64(K_SOURCE, 0x4c494e45ull);
    h = hash_str(s->name, h);
    h = hash_u64(s->connector, h);
    h = hash_str(s->path, h);
    h = hash_str(s->topic, h);
    h = hash_u64(s->format, h);
    for (int i = 0; i < s->npk; i++) h = hash_str(s->columns[s->pk_cols[i]].name, h);
    /* a column's encoding decides its values (only when declared: others keep theirs) */
    for (int i = 0; i < s->ncolumns; i++)
        if (s->columns[i].encoding != COL_ENC_TEXT)
            h = hash_u64((uint64_t)s->columns[i].encoding, hash_str(s->columns[i].name, h));
    return h;
}

void ir_lineage(const IrGraph *g, IrNode *n, Arena *a)
{
    const PlanNode *p = n->plan;
    int nc = p->ncols;
    n->col_fp = ARENA_ARRAY(a, uint64_t, nc > 0 ? nc : 1);
    const IrNode *in = n->ninputs > 0 ? n->inputs[0] : NULL;
    uint64_t h;
    switch (p->kind) {
    case PL_SOURCE: {
        const SourceDef *src = n->source >= 0 ? &g->project->sources[n->source] : NULL;
        n->rows_fp = src ? source_fp(src) : hash_str(p->name, K_SOURCE);
        for (int c = 0; c < nc; c++) n->col_fp[c] = hash_type(p->cols[c].type, hash_str(p->cols[c].name, n->rows_fp));
        break;
    }
    case PL_REF:
        n->rows_fp = in->rows_fp;
        memcpy(n->col_fp, in->col_fp, sizeof(uint64_t) * (size_t)nc);
        break;
    case PL_VALUES:
        /* the rows are the constants: each column holds what its expressions say */
        h = hash_u64((uint64_t)p->nrows, K_VALUES);
        for (int i = 0; i < p->nexprs; i++) h = plan_expr_hash(p->exprs[i], h);
        n->rows_fp = h;
        for (int c = 0; c < nc; c++) {
            uint64_t ch = hash_type(p->cols[c].type, hash_u64((uint64_t)c, h));
            n->col_fp[c] = ch;
        }
        break;
    case PL_FILTER:
        n->rows_fp = expr_fp(p->pred, in, hash_u64(in->rows_fp, K_FILTER));
        memcpy(n->col_fp, in->col_fp, sizeof(uint64_t) * (size_t)nc);
        break;
    case PL_PROJECT:
        n->rows_fp = in->rows_fp;
        /* a plain column reference holds what the input column holds: an identity
         * projection (which the binder may or may not write) changes nothing */
        for (int c = 0; c < nc; c++) {
            const Expr *e = p->exprs[c];
            n->col_fp[c] = e->kind == EX_COLUMN && e->col >= 0 && e->col < in->plan->ncols
                               ? in->col_fp[e->col]
                               : expr_fp(e, in, 0x50524f4aull);
        }
        break;
    case PL_AGGREGATE:
        h = exprs_fp(p->group, p->ngroup, in, hash_u64(in->rows_fp, K_AGG));
        if (p->window_start_key >= 0 || p->window_end_key >= 0) h = hash_u64(n->time_fp, h);
        n->rows_fp = h;
        for (int k = 0; k < p->ngroup && k < nc; k++) n->col_fp[k] = expr_fp(p->group[k], in, 0x4b4559ull);
        for (int i = 0; i < p->naggs && p->ngroup + i < nc; i++) n->col_fp[p->ngroup + i] = agg_fp(&p->aggs[i], in, h);
        break;
    case PL_DISTINCT:
        n->rows_fp = whole_fp(in, K_DISTINCT);
        memcpy(n->col_fp, in->col_fp, sizeof(uint64_t) * (size_t)nc);
        break;
    case PL_UNION_ALL:
    case PL_SETOP:
        h = hash_u64(p->kind == PL_SETOP ? (uint64_t)p->setop * 2 + p->all : 0, K_UNION);
        for (int i = 0; i < n->ninputs; i++) h = whole_fp(n->inputs[i], h);
        n->rows_fp = h;
        for (int c = 0; c < nc; c++) {
            uint64_t x = 0x554e494full;
            for (int i = 0; i < n->ninputs; i++)
                x = hash_u64(c < n->inputs[i]->plan->ncols ? n->inputs[i]->col_fp[c] : 0, x);
            n->col_fp[c] = x;
        }
        break;
    case PL_JOIN: {
        const IrNode *l = n->inputs[0], *r = n->inputs[1];
        int nl = l->plan->ncols, nr = r->plan->ncols;
        /* the residual predicate is over left ++ right */
        uint64_t *both = ARENA_ARRAY(a, uint64_t, nl + nr + 1);
        memcpy(both, l->col_fp, sizeof(uint64_t) * (size_t)nl);
        memcpy(both + nl, r->col_fp, sizeof(uint64_t) * (size_t)nr);
        h = hash_u64((uint64_t)p->join_type * 2 + p->null_aware, K_JOIN);
        h = hash_u64(l->rows_fp, h);
        h = hash_u64(r->rows_fp, h);
        h = exprs_fp(p->left_keys, p->nkeys, l, h);
        h = exprs_fp(p->right_keys, p->nkeys, r, h);
        h = plan_expr_hash_cols(p->pred, both, nl + nr, h);
        if (p->interval_join) {
            h = hash_u64((uint64_t)p->lower_us, h);
            h = hash_u64((uint64_t)p->upper_us, h);
        }
        if (ir_uses_event_time(n)) h = hash_u64(n->time_fp, h);
        n->rows_fp = h;
        for (int c = 0; c < nc; c++) n->col_fp[c] = c < nl + nr ? both[c] : h;
        break;
    }
    case PL_WINDOW_TVF:
        h = hash_u64(p->wtvf, K_WTVF);
        h = hash_u64((uint64_t)p->size_us, h);
        h = hash_u64((uint64_t)p->slide_us, h);
        h = hash_u64((uint64_t)p->gap_us, h);
        h = hash_u64(p->time_col >= 0 && p->time_col < in->plan->ncols ? in->col_fp[p->time_col] : 0, h);
        n->rows_fp = hash_u64(in->rows_fp, h);
        for (int c = 0; c < nc; c++) n->col_fp[c] = c < in->plan->ncols ? in->col_fp[c] : hash_u64((uint64_t)(c - in->plan->ncols), h);
        break;
    case PL_TOPN:
        h = order_fp(p, in, whole_fp(in, K_TOPN));
        h = hash_u64((uint64_t)p->limit, h);
        n->rows_fp = hash_u64((uint64_t)p->rank_kind * 2 + p->emit_rank, h);
        for (int c = 0; c < nc; c++) n->col_fp[c] = c < in->plan->ncols ? in->col_fp[c] : hash_u64(K_RANK, n->rows_fp);
        break;
    case PL_OVER_AGG:
        n->rows_fp = in->rows_fp;
        h = order_fp(p, in, hash_u64(in->rows_fp, K_OVER));
        h = hash_u64((uint64_t)p->frame_rows, h);
        h = hash_u64((uint64_t)p->frame_offset, h);
        h = hash_u64(n->time_fp, h);
        for (int c = 0; c < nc; c++)
            n->col_fp[c] = c < in->plan->ncols ? in->col_fp[c]
                                                : agg_fp(&p->aggs[c - in->plan->ncols < p->naggs ? c - in->plan->ncols : 0],
                                                         in, h);
        break;
    }
}

uint64_t ir_output_fp(const IrNode *n) { return whole_fp(n, 0x4f555450ull); }

uint64_t ir_state_content_fp(const IrNode *n, const StateDesc *s)
{
    /* a join keeps each side's rows by that side's keys: what one side holds does not
     * depend on the other (an outer join's match counts do) */
    bool left = strcmp(s->kind, "join_left") == 0, right = strcmp(s->kind, "join_right") == 0;
    if ((left || right) && n->plan->kind == PL_JOIN) {
        const PlanNode *p = n->plan;
        const IrNode *side = n->inputs[left ? 0 : 1], *other = n->inputs[left ? 1 : 0];
        uint64_t h = whole_fp(side, K_JOIN);
        h = exprs_fp(left ? p->left_keys : p->right_keys, p->nkeys, side, h);
        if (p->join_type != JOIN_INNER) {
            h = hash_u64((uint64_t)p->join_type * 2 + p->null_aware, h);
            h = whole_fp(other, h);
            h = exprs_fp(left ? p->right_keys : p->left_keys, p->nkeys, other, h);
            h = plan_expr_hash(p->pred, h);
        }
        if (ir_uses_event_time(n)) h = hash_u64(n->time_fp, h);
        return h;
    }
    if (strcmp(s->kind, "lookup_table") == 0 && n->plan->kind == PL_JOIN) {
        /* the table side's rows by its keys: the stream side never reaches it */
        uint64_t h = whole_fp(n->inputs[1], K_JOIN ^ 0x4c4f4f4bull);
        return exprs_fp(n->plan->right_keys, n->plan->nkeys, n->inputs[1], h);
    }
    return whole_fp(n, 0x53544154ull);
}
