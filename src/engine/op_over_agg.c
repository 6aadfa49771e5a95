/* Running aggregates over an event-time order: SUM(x) OVER (PARTITION BY k ORDER BY t)
 * and friends, over an insert-only input. Output = input ++ one column per aggregate,
 * insert-only: every row is emitted once, with the aggregate over its partition's rows
 * up to it.
 *
 * A row's value depends on every row before it, so rows wait in a buffer until the
 * watermark passes their time t (t < watermark: no row at or before t can still
 * arrive); then all released rows are processed in (t, arrival) order: each partition
 * keeps running accumulators (shared with GROUP BY, agg_accum.h) that are never reset.
 * Frames (plan.h frame_rows):
 *   RANGE (the default)  rows with equal t are peers: all of them get the value that
 *                        includes every peer (PostgreSQL's RANGE UNBOUNDED PRECEDING)
 *   ROWS                 each row counts the rows before it in arrival order and itself
 *
 * State: the buffer (a keyed table over the whole row -> {multiplicity, first arrival,
 * t}, in a min-heap by t; a retraction of a buffered row cancels it) and the
 * partitions' accumulators (unbounded: one entry per partition ever seen). A row whose
 * time is below the watermark in force before the step is late: its predecessors have
 * already been emitted, so it goes to the dead letters with reason "late", as does a
 * row whose time is NULL ("event time is NULL"). */
#include "engine/agg_accum.h"
#include "engine/iheap.h"
#include "engine/keyed_table.h"

#include <stddef.h>

#define OVER_MAGIC 0x574f5652u /* "WOVR" */
#define OVER_VERSION 1u

typedef struct BufRow {
    IHeapItem h;             /* key = t */
    int64_t w;
    int64_t seq;             /* arrival order of the first copy */
} BufRow;

typedef struct PState {
    int64_t nrows;
    Acc acc[];
} PState;

typedef struct OverOp {
    Op base;
    const PlanNode *plan;
    const char *state_id;
    int nin, naggs, npart;
    bool rows_frame;
    Type time_type;
    Type *part_types;
    Value *keybuf;
    Value *outrow;
    AggAccs acc;
    KTab buf;                /* whole row -> BufRow */
    KTab parts;              /* partition -> PState */
    IHeap heap;
    int64_t seq;
    BufRow **rel;            /* released rows (scratch) */
    int nrel, caprel;
    int64_t late_rows;
} OverOp;

static inline BufRow *buf_of(IHeapItem *it) { return (BufRow *)((char *)it - offsetof(BufRow, h)); }

static bool eval_time(OverOp *o, const Value *row, EvalCtx *ec, int64_t *t, bool *isnull)
{
    const Expr *e = o->plan->order[0].expr;
    Value v;
    if (e->kind == EX_COLUMN) v = row[e->col];
    else if (!eval_expr(e, row, ec, &v)) return false;
    *isnull = v.isnull;
    if (!v.isnull) *t = op_time_us(o->time_type, &v);
    return true;
}

static bool eval_part(OverOp *o, const Value *row, EvalCtx *ec)
{
    for (int k = 0; k < o->npart; k++) {
        const Expr *e = o->plan->partition[k];
        if (e->kind == EX_COLUMN) o->keybuf[k] = row[e->col];
        else if (!eval_expr(e, row, ec, &o->keybuf[k])) return false;
    }
    return true;
}

static bool over_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    OverOp *o = (OverOp *)op;
    const Batch *in = op->in[0]->out;
    EvalCtx ec = {0};
    ec.arena = &op->out->arena;
    for (int i = 0; i < in->n; i++) {
        int64_t w = in->weights[i];
        if (w == 0) continue;
        const Value *row = batch_row(in, i);
        int64_t t = 0;
        bool tnull = false;
        /* evaluated now so that a row that cannot be computed is reported on arrival */
        if (!eval_time(o, row, &ec, &t, &tnull) || !eval_part(o, row, &ec) || aggacc_eval(&o->acc, row, &ec)) {
            op_dead_letter(op, 0, i, ec.err);
            continue;
        }
        if (tnull) {
            op_dead_letter(op, 0, i, "event time is NULL");
            continue;
        }
        if (t < op->in_wm) {
            o->late_rows++;
            op_dead_letter(op, 0, i, "late");
            continue;
        }
        bool created;
        BufRow *b = ktab_upsert(&o->buf, row, ktab_hash(&o->buf, row), &created);
        if (created) {
            iheap_item_init(&b->h);
            iheap_push(&o->heap, &b->h, t);
            b->seq = o->seq++;
        }
        b->w += w;
        if (b->w == 0) {
            iheap_remove(&o->heap, &b->h);
            ktab_remove(&o->buf, b);
        }
    }
    return true;
}

static int cmp_released(const void *x, const void *y, void *ctx)
{
    const OverOp *o = ctx;
    const BufRow *a = *(BufRow *const *)x, *b = *(BufRow *const *)y;
    if (a->h.key != b->h.key) return a->h.key < b->h.key ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return op_row_order(o->base.out_types, o->nin, ktab_key(&o->buf, a), ktab_key(&o->buf, b));
}

/* The partition state of a released row (evaluated again: deterministic). */
static PState *part_of(OverOp *o, const Value *row, EvalCtx *ec)
{
    if (!eval_part(o, row, ec)) return NULL;
    bool created;
    return ktab_upsert(&o->parts, o->keybuf, ktab_hash(&o->parts, o->keybuf), &created);
}

static void report(OverOp *o, const Value *row, const char *reason)
{
    EngDeadLetter dl = {o->base.model_name, reason, NULL, row, o->base.in[0]->out_types,
                        o->base.in[0]->node ? o->base.in[0]->node->plan->cols : NULL, o->nin};
    eng_emit_dead_letter(o->base.p, &dl);
}

/* Add one copy of row (weight w) to its partition. */
static bool accumulate(OverOp *o, const Value *row, int64_t w, PState **ps, EvalCtx *ec, OpCtx *ctx)
{
    *ps = part_of(o, row, ec);
    const char *fail = *ps ? aggacc_eval(&o->acc, row, ec) : ec->err;
    if (!fail) fail = aggacc_prepare(&o->acc, (*ps)->acc, w);
    if (fail) {
        report(o, row, fail);
        *ps = NULL;
        return true;
    }
    (*ps)->nrows += w;
    return aggacc_commit(&o->acc, (*ps)->acc, w, ctx->err, ctx->errsize);
}

static bool emit(OverOp *o, const Value *row, const PState *ps, int64_t w, OpCtx *ctx)
{
    Batch *out = o->base.out;
    if (!aggacc_row(&o->acc, ps->acc, row, o->nin, o->outrow, &out->arena, ctx->err, ctx->errsize)) return false;
    /* text copied: the buffer row is freed and an extreme may be replaced below */
    op_append_copy(out, o->outrow, o->base.out_types, w);
    return true;
}

static bool over_on_watermark(Op *op, OpCtx *ctx, int64_t wm)
{
    OverOp *o = (OverOp *)op;
    o->nrel = 0;
    IHeapItem *it;
    while ((it = iheap_min(&o->heap)) && it->key < wm) {
        iheap_remove(&o->heap, it);
        if (o->nrel == o->caprel) {
            o->caprel = o->caprel ? o->caprel * 2 : 256;
            o->rel = xrealloc(o->rel, sizeof(BufRow *) * (size_t)o->caprel);
        }
        o->rel[o->nrel++] = buf_of(it);
    }
    if (o->nrel == 0) return true;
    qsort_r(o->rel, (size_t)o->nrel, sizeof(BufRow *), cmp_released, o);
    EvalCtx ec = {0};
    ec.arena = &op->out->arena;
    bool ok = true;
    for (int i = 0; i < o->nrel && ok;) {
        int j = i + 1;
        if (!o->rows_frame)
            while (j < o->nrel && o->rel[j]->h.key == o->rel[i]->h.key) j++;
        /* rows [i, j) are peers (RANGE) or a single row (ROWS) */
        for (int k = i; k < j && ok; k++) {
            BufRow *b = o->rel[k];
            const Value *row = ktab_key(&o->buf, b);
            if (b->w < 0) {
                report(o, row, "late");
                continue;
            }
            PState *ps;
            if (o->rows_frame) {
                for (int64_t c = 0; c < b->w && ok; c++) {
                    ok = accumulate(o, row, 1, &ps, &ec, ctx);
                    if (ok && ps) ok = emit(o, row, ps, 1, ctx);
                }
            } else {
                ok = accumulate(o, row, b->w, &ps, &ec, ctx);
                if (ok && !ps) b->w = 0; /* reported: not applied, not emitted */
            }
        }
        if (!o->rows_frame) {
            for (int k = i; k < j && ok; k++) {
                BufRow *b = o->rel[k];
                const Value *row = ktab_key(&o->buf, b);
                if (b->w <= 0) continue;
                PState *ps = part_of(o, row, &ec);
                if (ps) ok = emit(o, row, ps, b->w, ctx);
            }
        }
        i = j;
    }
    for (int i = 0; i < o->nrel; i++) ktab_remove(&o->buf, o->rel[i]);
    o->nrel = 0;
    return ok;
}

/* ---------- stats and checkpoints ---------- */

static int over_stats(const Op *op, EngStateStats *out, int max)
{
    const OverOp *o = (const OverOp *)op;
    return op_state_stats1(out, max, o->state_id, (int64_t)o->buf.count + o->parts.count,
                           o->buf.bytes + o->parts.bytes + o->acc.extra_bytes + iheap_bytes(&o->heap));
}

static uint64_t shape_hash(const OverOp *o)
{
    uint64_t h = OP_SHAPE_SEED;
    op_shape_mix(&h, (uint64_t)o->nin);
    op_shape_mix(&h, (uint64_t)o->npart);
    op_shape_mix(&h, o->rows_frame);
    for (int c = 0; c < o->nin; c++) op_shape_mix(&h, o->base.out_types[c].id);
    for (int k = 0; k < o->npart; k++) op_shape_mix(&h, o->part_types[k].id);
    return aggacc_shape(&o->acc, h);
}

static bool over_serialize(const Op *op, StrBuf *sb)
{
    const OverOp *o = (const OverOp *)op;
    op_put_header(sb, OVER_MAGIC, OVER_VERSION, shape_hash(o));
    op_put_i64(sb, o->seq);
    uint32_t n;
    void **es = op_sorted_entries(&o->buf, NULL, &n);
    op_put_u64(sb, n);
    for (uint32_t i = 0; i < n; i++) {
        const BufRow *b = es[i];
        op_put_row(sb, o->base.out_types, o->nin, ktab_key(&o->buf, b));
        op_put_i64(sb, b->w);
        op_put_i64(sb, b->seq);
    }
    free(es);
    es = op_sorted_entries(&o->parts, NULL, &n);
    op_put_u64(sb, n);
    for (uint32_t i = 0; i < n; i++) {
        const PState *ps = es[i];
        op_put_row(sb, o->part_types, o->npart, ktab_key(&o->parts, ps));
        op_put_i64(sb, ps->nrows);
        aggacc_put(&o->acc, sb, ps->acc);
    }
    free(es);
    return true;
}

static void clear_state(OverOp *o)
{
    uint32_t pos = 0;
    PState *ps;
    while ((ps = ktab_next(&o->parts, &pos))) aggacc_release(&o->acc, ps->acc);
    ktab_clear(&o->parts);
    ktab_clear(&o->buf);
    iheap_fini(&o->heap);
    o->seq = 0;
}

static bool over_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    OverOp *o = (OverOp *)op;
    OpReader r = {data, data + len, false};
    if (!op_get_header(&r, OVER_MAGIC, OVER_VERSION, shape_hash(o))) {
        snprintf(err, errsize, "state of %s: not an OVER aggregate state of this shape", o->state_id);
        return false;
    }
    clear_state(o);
    EvalCtx ec = {0};
    ec.arena = &op->out->arena;
    o->seq = op_get_i64(&r);
    Value *row = xmalloc(sizeof(Value) * (size_t)(o->nin + o->npart + 1));
    bool ok = true;
    uint64_t n = op_get_u64(&r);
    for (uint64_t i = 0; i < n && ok && !r.bad; i++) {
        op_get_row(&r, o->base.out_types, o->nin, row);
        int64_t w = op_get_i64(&r), seq = op_get_i64(&r);
        int64_t t = 0;
        bool tnull = true;
        if (r.bad || w == 0 || !eval_time(o, row, &ec, &t, &tnull) || tnull) {
            ok = false;
            break;
        }
        bool created;
        BufRow *b = ktab_upsert(&o->buf, row, ktab_hash(&o->buf, row), &created);
        if (!created) ok = false;
        iheap_item_init(&b->h);
        iheap_push(&o->heap, &b->h, t);
        b->w = w;
        b->seq = seq;
    }
    n = ok ? op_get_u64(&r) : 0;
    for (uint64_t i = 0; i < n && ok && !r.bad; i++) {
        op_get_row(&r, o->part_types, o->npart, row);
        bool created;
        PState *ps = ktab_upsert(&o->parts, row, ktab_hash(&o->parts, row), &created);
        if (!created) ok = false;
        ps->nrows = op_get_i64(&r);
        ok = ok && aggacc_get(&o->acc, &r, ps->acc);
    }
    free(row);
    if (!op_get_finish(&r, ok, o->state_id, err, errsize)) {
        clear_state(o);
        return false;
    }
    return true;
}

static void over_free(Op *op)
{
    OverOp *o = (OverOp *)op;
    clear_state(o);
    ktab_fini(&o->parts);
    ktab_fini(&o->buf);
    iheap_fini(&o->heap);
    aggacc_fini(&o->acc);
    free(o->part_types);
    free(o->keybuf);
    free(o->outrow);
    free(o->rel);
    op_base_fini(op);
    free(o);
}

static const OpVtbl over_vt = {
    .kind = "over_aggregate",
    .step = over_step,
    .on_watermark = over_on_watermark,
    .free = over_free,
    .state_stats = over_stats,
    .serialize = over_serialize,
    .deserialize = over_deserialize,
};

Op *op_over_agg_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize)
{
    const PlanNode *pn = n->plan;
    int nin = inputs[0]->ncols;
    if (pn->ncols != nin + pn->naggs || pn->norder < 1 || !type_is_temporal(pn->order[0].expr->type) ||
        pn->order[0].desc) {
        snprintf(err, errsize, "%s: an OVER aggregate needs ORDER BY an event-time column, ascending", n->op_id);
        return NULL;
    }
    if (n->inputs[0]->mode != CL_INSERT_ONLY) {
        snprintf(err, errsize, "%s: running OVER aggregates need an insert-only input "
                 "(a retraction would change every later row's value)", n->op_id);
        return NULL;
    }
    OverOp *o = xcalloc(1, sizeof *o);
    op_base_init(&o->base, &over_vt, p, n, inputs, 1);
    o->plan = pn;
    o->state_id = op_state_id(&o->base, NULL, 0, "");
    o->nin = nin;
    o->naggs = pn->naggs;
    o->npart = pn->npartition;
    o->rows_frame = pn->frame_rows;
    o->time_type = pn->order[0].expr->type;
    o->part_types = xmalloc(sizeof(Type) * (size_t)(o->npart + 1));
    for (int k = 0; k < o->npart; k++) o->part_types[k] = pn->partition[k]->type;
    o->keybuf = xcalloc((size_t)(o->npart + 1), sizeof(Value));
    o->outrow = xcalloc((size_t)(o->base.ncols + 1), sizeof(Value));
    aggacc_init(&o->acc, pn->aggs, pn->naggs, true, o->state_id);
    ktab_init(&o->buf, nin, o->base.out_types, sizeof(BufRow));
    ktab_init(&o->parts, o->npart, o->part_types, sizeof(PState) + aggacc_bytes(&o->acc));
    return &o->base;
}
