/* OVER windows over an event-time order: SUM/COUNT/AVG/MIN/MAX(x), lag(x, k, d),
 * first_value(x) and last_value(x) OVER (PARTITION BY k ORDER BY t [frame]), over an
 * insert-only input. Output = input ++ one column per call, insert-only: every row is
 * emitted once, with the values over its partition's rows up to it.
 *
 * A row's values depend on the rows before it, so rows wait in a buffer until the
 * watermark passes their time t (t < watermark: no row at or before t can still
 * arrive); then all released rows are processed in (t, arrival) order, partition by
 * partition through running accumulators (shared with GROUP BY, agg_accum.h).
 * Frames (plan.h frame_rows, frame_offset) end at the current row:
 *   RANGE (the default)  rows with equal t are peers: all of them get the values that
 *                        include every peer; with an offset x the frame holds the rows
 *                        with t >= current t - x
 *   ROWS                 each row counts the rows before it in arrival order and itself;
 *                        with an offset n the frame holds the last n + 1 rows
 * A frame with an offset keeps its rows (compact encoding, row_codec.h) and retracts a
 * row from the accumulators when it leaves the frame. lag(x, k) reads the row k rows
 * back in processing order (whatever the frame), so the last k + 1 rows are kept too;
 * first_value reads the frame's first row (for an unbounded frame the partition's
 * first row, kept once), last_value the frame's last row (ROWS: the current row;
 * RANGE: the last peer).
 *
 * State: the buffer (a keyed table over the whole row -> {multiplicity, first arrival,
 * t}, in a min-heap by t; a retraction of a buffered row cancels it) and per partition
 * the accumulators and the kept rows. A row whose time is below the watermark that held
 * before it in its source (op_judge_wm) is late: rows after it may already have been
 * emitted, so it goes to the dead letters with reason "late", as does a row whose
 * time is NULL ("event time is NULL").
 *
 * With the model's state_ttl (ttl.h) a partition expires silently when the time of
 * its last processed row is older than the next row's time (or the watermark) minus
 * the TTL: rows are processed in time order once the watermark passes them, so a
 * partition's update time is its rows' own event time (not the watermark before
 * them). A row that finds its partition expired starts it over: its running values
 * count from it, lag() finds no earlier row. */
#include "engine/agg_accum.h"
#include "engine/iheap.h"
#include "engine/keyed_table.h"
#include "engine/pool.h"
#include "engine/row_codec.h"
#include "engine/ttl.h"

#include <stddef.h>

#define OVER_MAGIC 0x574f5652u /* "WOVR" */
#define OVER_VERSION 2u
#define OVER_VERSION_TTL 3u /* version 2 plus every partition's last update time */
#define OVER_VERSION_CHUNKED 4u /* the buffer in a base blob, the partitions in chunks by hash */

typedef struct BufRow {
    IHeapItem h;             /* key = t */
    int64_t w;
    int64_t seq;             /* arrival order of the first copy */
} BufRow;

/* A kept row of a partition: its time and the row, encoded. */
typedef struct KRow {
    int64_t t;
    uint32_t len;
    uint32_t pad_;
    uint8_t data[];
} KRow;

/* The kept rows of a partition, oldest first, by logical index: rows [base, base + n)
 * of the partition's processing order. */
typedef struct Kept {
    KRow **ring;
    uint32_t head, n, cap;
    int64_t base;
} Kept;

typedef struct PState {
    int64_t nrows;           /* rows in the frame (all rows for an unbounded frame) */
    int64_t nadded;          /* rows processed: the next row's logical index */
    int64_t frame_start;     /* logical index of the frame's first row (bounded frames) */
    Kept kept;
    KRow *first;             /* first_value over an unbounded frame: the partition's first row */
    const Value *peer_last;  /* RANGE: the partition's last row among the peers being processed */
    TtlItem tt;              /* TTL: the time of its last row */
    Acc acc[];
} PState;

typedef struct OverOp {
    Op base;
    const PlanNode *plan;
    const char *state_id;
    int nin, naggs, npart;
    bool rows_frame;
    int64_t frame_offset;    /* -1 unbounded */
    bool keep;               /* partitions keep rows (bounded frame or lag) */
    int64_t max_lag;         /* the largest lag offset, -1 without lag */
    bool first_row;          /* first_value over an unbounded frame */
    Type time_type;
    Type *part_types;
    Value *keybuf;
    Value *outrow;
    Value *krow;             /* a kept row decoded */
    AggAccs acc;
    RowCodec codec;          /* of the input rows */
    Pool pool;               /* KRows */
    KTab buf;                /* whole row -> BufRow */
    KTab parts;              /* partition -> PState */
    IHeap heap;
    int64_t seq;
    BufRow **rel;            /* released rows (scratch) */
    int nrel, caprel;
    int64_t late_rows;
    int64_t kept_rows;
    Ttl ttl;
    ChunkTrack chunks;       /* incremental checkpoints: which chunks of partitions changed */
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

/* ---------- kept rows ---------- */

static KRow *krow_new(OverOp *o, const Value *row, int64_t t)
{
    size_t len = rowc_size(&o->codec, row);
    KRow *k = pool_alloc(&o->pool, sizeof(KRow) + len);
    k->t = t;
    k->len = (uint32_t)len;
    k->pad_ = 0;
    rowc_encode(&o->codec, row, k->data);
    o->kept_rows++;
    return k;
}

static void krow_free(OverOp *o, KRow *k)
{
    o->kept_rows--;
    pool_free(&o->pool, k, sizeof(KRow) + k->len);
}

/* The kept row of logical index i, or NULL when it is not kept. */
static KRow *kept_at(const Kept *kp, int64_t i)
{
    if (i < kp->base || i >= kp->base + kp->n) return NULL;
    return kp->ring[(kp->head + (uint32_t)(i - kp->base)) % kp->cap];
}

static void kept_push(Kept *kp, KRow *k)
{
    if (kp->n == kp->cap) {
        uint32_t ncap = kp->cap ? kp->cap * 2 : 8;
        KRow **nr = xmalloc(sizeof(KRow *) * ncap);
        for (uint32_t i = 0; i < kp->n; i++) nr[i] = kp->ring[(kp->head + i) % kp->cap];
        free(kp->ring);
        kp->ring = nr;
        kp->cap = ncap;
        kp->head = 0;
    }
    kp->ring[(kp->head + kp->n) % kp->cap] = k;
    kp->n++;
}

static KRow *kept_pop(Kept *kp)
{
    KRow *k = kp->ring[kp->head];
    kp->head = (kp->head + 1) % kp->cap;
    kp->n--;
    kp->base++;
    return k;
}

static void release_part(OverOp *o, PState *ps)
{
    aggacc_release(&o->acc, ps->acc);
    while (ps->kept.n) krow_free(o, kept_pop(&ps->kept));
    free(ps->kept.ring);
    memset(&ps->kept, 0, sizeof ps->kept);
    if (ps->first) krow_free(o, ps->first);
    ps->first = NULL;
}

/* ---------- the step: buffering ---------- */

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
        if (t < op_judge_wm(op->in_wm, in, i)) {
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

/* ---------- released rows ---------- */

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
    uint64_t h = ktab_hash(&o->parts, o->keybuf);
    PState *ps = ktab_upsert(&o->parts, o->keybuf, h, &created);
    if (created) ttl_item_init(&ps->tt);
    chunk_mark(&o->chunks, h);
    return ps;
}

/* TTL: the partition of a released row of time t, started over when its last row is
 * older than t - ttl; the row updates it. */
static PState *part_at(OverOp *o, const Value *row, int64_t t, EvalCtx *ec)
{
    PState *ps = part_of(o, row, ec);
    if (!ps || !ttl_on(&o->ttl)) return ps;
    if (ps->tt.touch != INT64_MIN && ttl_expired(&o->ttl, &ps->tt, t)) {
        release_part(o, ps);
        ttl_forget(&o->ttl, &ps->tt);
        ttl_item_init(&ps->tt);
        ps->nrows = ps->nadded = ps->frame_start = 0;
        ps->peer_last = NULL;
        memset(ps->acc, 0, aggacc_bytes(&o->acc));
        ttl_count(&o->ttl);
    }
    ttl_touch(&o->ttl, &ps->tt, t);
    return ps;
}

static void report(OverOp *o, const Value *row, const char *reason)
{
    EngDeadLetter dl = {o->base.model_name, reason, NULL, row, o->base.in[0]->out_types,
                        o->base.in[0]->node ? o->base.in[0]->node->plan->cols : NULL, o->nin};
    eng_emit_dead_letter(o->base.p, &dl);
}

/* Apply w copies of row to the accumulators of ps. False = fatal error; a row whose
 * arguments fail is reported and *applied stays false. */
static bool apply(OverOp *o, PState *ps, const Value *row, int64_t w, bool *applied, EvalCtx *ec, OpCtx *ctx)
{
    *applied = false;
    const char *fail = aggacc_eval(&o->acc, row, ec);
    if (!fail) fail = aggacc_prepare(&o->acc, ps->acc, w);
    if (fail) {
        if (w < 0) {
            snprintf(ctx->err, ctx->errsize, "internal error: %s: a row leaving the frame cannot be retracted: %s",
                     o->state_id, fail);
            return false;
        }
        report(o, row, fail);
        return true;
    }
    ps->nrows += w;
    *applied = true;
    return aggacc_commit(&o->acc, ps->acc, w, ctx->err, ctx->errsize);
}

/* Add w copies of row (time t) to its partition: accumulators, kept rows, first row. */
static bool add_row(OverOp *o, PState *ps, const Value *row, int64_t t, int64_t w, bool *applied, EvalCtx *ec,
                    OpCtx *ctx)
{
    if (!apply(o, ps, row, w, applied, ec, ctx)) return false;
    if (!*applied) return true;
    if (o->first_row && !ps->first) ps->first = krow_new(o, row, t);
    for (int64_t c = 0; c < w; c++) {
        if (o->keep) kept_push(&ps->kept, krow_new(o, row, t));
        ps->nadded++;
    }
    return true;
}

/* Move a bounded frame's start forward to the current row at time t, retracting the
 * rows that leave it. */
static bool slide(OverOp *o, PState *ps, int64_t t, EvalCtx *ec, OpCtx *ctx)
{
    int64_t last = ps->nadded - 1;
    if (o->frame_offset >= 0) {
        for (;;) {
            bool out;
            if (ps->frame_start > last) break;
            if (o->rows_frame) {
                out = last - ps->frame_start + 1 > o->frame_offset + 1;
            } else {
                KRow *k = kept_at(&ps->kept, ps->frame_start);
                out = k && k->t < op_sat_add(t, -o->frame_offset);
            }
            if (!out) break;
            KRow *k = kept_at(&ps->kept, ps->frame_start);
            rowc_decode(&o->codec, k->data, o->krow);
            bool applied;
            if (!apply(o, ps, o->krow, -1, &applied, ec, ctx)) return false;
            ps->frame_start++;
        }
    }
    return true;
}

/* After the row of logical index idx was emitted: drop the kept rows that neither the
 * frame nor a lag of a later row can read (rows are emitted in index order). */
static void trim(OverOp *o, PState *ps, int64_t idx)
{
    int64_t need = o->frame_offset >= 0 ? ps->frame_start : idx + 1;
    if (o->max_lag >= 0 && idx + 1 - o->max_lag < need) need = idx + 1 - o->max_lag;
    while (ps->kept.n && ps->kept.base < need) krow_free(o, kept_pop(&ps->kept));
}

/* The value of call j's argument at a kept row (NULL when the row is not there). */
static bool value_at(OverOp *o, int j, const KRow *k, Value *out, EvalCtx *ec, OpCtx *ctx)
{
    if (!k) {
        *out = value_null();
        return true;
    }
    rowc_decode(&o->codec, k->data, o->krow);
    const Expr *e = o->plan->aggs[j].arg;
    if (e->kind == EX_COLUMN) *out = o->krow[e->col];
    else if (!eval_expr(e, o->krow, ec, out)) {
        snprintf(ctx->err, ctx->errsize, "internal error: %s: a kept row's argument failed: %s", o->state_id, ec->err);
        return false;
    }
    return true;
}

/* Emit row (the partition's row of logical index idx and time t; last: the frame's
 * last row) with the values of every call. Its frontier is t: the watermark passed t
 * when it was released. */
static bool emit(OverOp *o, PState *ps, const Value *row, int64_t t, int64_t idx, const Value *last, int64_t w,
                 EvalCtx *ec, OpCtx *ctx)
{
    Batch *out = o->base.out;
    if (!aggacc_row(&o->acc, ps->acc, row, o->nin, o->outrow, &out->arena, ctx->err, ctx->errsize)) return false;
    for (int j = 0; j < o->naggs; j++) {
        const AggCall *ag = &o->plan->aggs[j];
        Value *dst = &o->outrow[o->nin + j];
        bool ok = true;
        switch (ag->kind) {
        case AGG_LAG:
            if (idx - ag->offset >= 0) {
                const KRow *k = kept_at(&ps->kept, idx - ag->offset);
                if (!k) {
                    snprintf(ctx->err, ctx->errsize, "internal error: %s: row %lld for lag is not kept", o->state_id,
                             (long long)(idx - ag->offset));
                    return false;
                }
                ok = value_at(o, j, k, dst, ec, ctx);
            } else if (ag->dflt) {
                if (!eval_expr(ag->dflt, row, ec, dst)) {
                    report(o, row, ec->err);
                    return true;
                }
            } else {
                *dst = value_null();
            }
            break;
        case AGG_FIRST_VALUE:
            ok = value_at(o, j, o->frame_offset >= 0 ? kept_at(&ps->kept, ps->frame_start) : ps->first, dst, ec, ctx);
            break;
        case AGG_LAST_VALUE:
            if (ag->arg->kind == EX_COLUMN) *dst = last[ag->arg->col];
            else if (!eval_expr(ag->arg, last, ec, dst)) {
                report(o, row, ec->err);
                return true;
            }
            break;
        default: break;
        }
        if (!ok) return false;
    }
    /* text copied: kept rows and buffer rows are freed, extremes replaced */
    op_append_copy(out, o->outrow, o->base.out_types, w);
    if (o->base.need_frontier) batch_set_frontier(out, out->n - 1, t);
    trim(o, ps, idx);
    return true;
}

/* TTL, after the rows released at wm: every later row has a time >= wm, so a partition
 * last updated before wm - ttl would start over for it; it goes now, silently. */
static bool expire_parts(OverOp *o, int64_t wm)
{
    TtlItem *tt;
    while ((tt = ttl_pop_expired(&o->ttl, wm))) {
        PState *ps = (PState *)((char *)tt - offsetof(PState, tt));
        ttl_count(&o->ttl);
        release_part(o, ps);
        if (o->chunks.dirty) chunk_mark(&o->chunks, ktab_hash(&o->parts, ktab_key(&o->parts, ps)));
        ktab_remove(&o->parts, ps);
    }
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
    if (o->nrel == 0) return expire_parts(o, wm);
    qsort_r(o->rel, (size_t)o->nrel, sizeof(BufRow *), cmp_released, o);
    EvalCtx ec = {0};
    ec.arena = &op->out->arena;
    bool ok = true;
    for (int i = 0; i < o->nrel && ok;) {
        int j = i + 1;
        if (!o->rows_frame)
            while (j < o->nrel && o->rel[j]->h.key == o->rel[i]->h.key) j++;
        int64_t t = o->rel[i]->h.key;
        /* rows [i, j) are peers (RANGE) or a single row (ROWS) */
        if (o->rows_frame) {
            BufRow *b = o->rel[i];
            const Value *row = ktab_key(&o->buf, b);
            PState *ps = b->w > 0 ? part_at(o, row, t, &ec) : NULL;
            if (b->w < 0) report(o, row, "late");
            for (int64_t c = 0; ps && c < b->w && ok; c++) {
                bool applied;
                ok = add_row(o, ps, row, t, 1, &applied, &ec, ctx);
                if (!ok || !applied) break;
                ok = slide(o, ps, t, &ec, ctx) && emit(o, ps, row, t, ps->nadded - 1, row, 1, &ec, ctx);
            }
        } else {
            /* every peer is added before any is emitted; each remembers its first index */
            for (int k = i; k < j && ok; k++) {
                BufRow *b = o->rel[k];
                const Value *row = ktab_key(&o->buf, b);
                if (b->w < 0) {
                    report(o, row, "late");
                    b->w = 0;
                    continue;
                }
                PState *ps = part_at(o, row, t, &ec);
                bool applied = false;
                int64_t first = ps ? ps->nadded : 0;
                if (ps) ok = add_row(o, ps, row, t, b->w, &applied, &ec, ctx);
                if (!applied) b->w = 0; /* reported: not applied, not emitted */
                else ps->peer_last = row;
                b->seq = first;         /* from here on: the row's first logical index */
            }
            for (int k = i; k < j && ok; k++) {
                BufRow *b = o->rel[k];
                if (b->w <= 0) continue;
                const Value *row = ktab_key(&o->buf, b);
                PState *ps = part_of(o, row, &ec);
                if (!ps) continue;
                ok = slide(o, ps, t, &ec, ctx);
                /* the frame's last row: the last peer of this partition */
                for (int64_t c = 0; c < b->w && ok; c++) ok = emit(o, ps, row, t, b->seq + c, ps->peer_last, 1, &ec, ctx);
            }
        }
        i = j;
    }
    for (int i = 0; i < o->nrel; i++) ktab_remove(&o->buf, o->rel[i]);
    o->nrel = 0;
    return ok && expire_parts(o, wm);
}

/* ---------- stats and checkpoints ---------- */

static int over_stats(const Op *op, EngStateStats *out, int max)
{
    const OverOp *o = (const OverOp *)op;
    return op_state_stats1_ttl(out, max, o->state_id, (int64_t)o->buf.count + o->parts.count + o->kept_rows,
                               o->buf.bytes + o->parts.bytes + o->acc.extra_bytes + iheap_bytes(&o->heap) + o->pool.used +
                                   ttl_bytes(&o->ttl),
                               o->ttl.expired);
}

static uint64_t shape_hash(const OverOp *o)
{
    uint64_t h = OP_SHAPE_SEED;
    op_shape_mix(&h, (uint64_t)o->nin);
    op_shape_mix(&h, (uint64_t)o->npart);
    op_shape_mix(&h, o->rows_frame);
    op_shape_mix(&h, (uint64_t)o->frame_offset);
    op_shape_mix(&h, (uint64_t)o->max_lag);
    op_shape_mix(&h, o->first_row);
    for (int c = 0; c < o->nin; c++) op_shape_mix(&h, o->base.out_types[c].id);
    for (int k = 0; k < o->npart; k++) op_shape_mix(&h, o->part_types[k].id);
    return aggacc_shape(&o->acc, h);
}

static void put_krow(OverOp *o, StrBuf *sb, const KRow *k)
{
    op_put_i64(sb, k->t);
    rowc_decode(&o->codec, k->data, o->krow);
    op_put_row(sb, o->base.out_types, o->nin, o->krow);
}

/* The rows waiting for the watermark: the arrival counter, then each row with its
 * multiplicity and arrival. */
static void put_buffer(OverOp *o, StrBuf *sb)
{
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
}

/* A partition: its key, counters, kept rows, first row, update time (TTL), accumulators. */
static void put_part(OverOp *o, StrBuf *sb, const PState *ps)
{
    op_put_row(sb, o->part_types, o->npart, ktab_key(&o->parts, ps));
    op_put_i64(sb, ps->nrows);
    op_put_i64(sb, ps->nadded);
    op_put_i64(sb, ps->frame_start);
    op_put_i64(sb, ps->kept.base);
    op_put_u64(sb, ps->kept.n);
    for (uint32_t k = 0; k < ps->kept.n; k++) put_krow(o, sb, kept_at(&ps->kept, ps->kept.base + k));
    op_put_u8(sb, ps->first ? 1 : 0);
    if (ps->first) put_krow(o, sb, ps->first);
    if (ttl_on(&o->ttl)) op_put_i64(sb, ps->tt.touch);
    aggacc_put(&o->acc, sb, ps->acc);
}

static bool over_serialize(const Op *op, StrBuf *sb)
{
    OverOp *o = (OverOp *)op;
    op_put_header(sb, OVER_MAGIC, ttl_on(&o->ttl) ? OVER_VERSION_TTL : OVER_VERSION, shape_hash(o));
    put_buffer(o, sb);
    uint32_t n;
    void **es = op_sorted_entries(&o->parts, NULL, &n);
    op_put_u64(sb, n);
    for (uint32_t i = 0; i < n; i++) put_part(o, sb, es[i]);
    free(es);
    return true;
}

static void clear_state(OverOp *o)
{
    op_chunks_fini(&o->chunks);
    uint32_t pos = 0;
    PState *ps;
    while ((ps = ktab_next(&o->parts, &pos))) release_part(o, ps);
    ktab_clear(&o->parts);
    ttl_reset(&o->ttl);
    ktab_clear(&o->buf);
    iheap_fini(&o->heap);
    pool_fini(&o->pool);
    o->kept_rows = 0;
    o->seq = 0;
}

static KRow *get_krow(OverOp *o, OpReader *r, Value *row)
{
    int64_t t = op_get_i64(r);
    op_get_row(r, o->base.out_types, o->nin, row);
    if (r->bad) return NULL;
    return krow_new(o, row, t);
}

/* Reads what put_buffer wrote into the state (row: room for a row). */
static bool read_buffer(OverOp *o, OpReader *r, Value *row)
{
    EvalCtx ec = {0};
    ec.arena = &o->base.out->arena;
    int64_t seq = op_get_i64(r);
    if (!o->base.route.merge || seq > o->seq) o->seq = seq;  /* merged: the latest arrival counter */
    uint64_t n = op_get_u64(r);
    for (uint64_t i = 0; i < n && !r->bad; i++) {
        op_get_row(r, o->base.out_types, o->nin, row);
        int64_t w = op_get_i64(r), seq = op_get_i64(r);
        int64_t t = 0;
        bool tnull = true;
        if (r->bad || w == 0 || !eval_time(o, row, &ec, &t, &tnull) || tnull) return false;
        if (!op_route_keeps_row(&o->base, o->base.out_types, o->base.route.in_col[0], row)) continue;
        bool created;
        BufRow *b = ktab_upsert(&o->buf, row, ktab_hash(&o->buf, row), &created);
        if (!created) return false;
        iheap_item_init(&b->h);
        iheap_push(&o->heap, &b->h, t);
        b->w = w;
        b->seq = seq;
    }
    return !r->bad;
}

/* Reads a partition as put_part wrote it into the state (row: room for a partition key
 * or a row); false when it is malformed or a duplicate. *hash: its key's hash. */
static bool read_part(OverOp *o, OpReader *r, Value *row, bool with_touch, uint64_t *hash)
{
    op_get_row(r, o->part_types, o->npart, row);
    if (r->bad) return false;
    bool created;
    *hash = ktab_hash(&o->parts, row);
    PState *ps = ktab_upsert(&o->parts, row, *hash, &created);
    if (!created) return false;
    ttl_item_init(&ps->tt);
    ps->nrows = op_get_i64(r);
    ps->nadded = op_get_i64(r);
    ps->frame_start = op_get_i64(r);
    ps->kept.base = op_get_i64(r);
    uint64_t nk = op_get_u64(r);
    if (r->bad || nk > (uint64_t)(ps->nadded - ps->kept.base) || ps->kept.base < 0) return false;
    for (uint64_t k = 0; k < nk; k++) {
        KRow *kr = get_krow(o, r, row);
        if (!kr) return false;
        kept_push(&ps->kept, kr);
    }
    uint8_t has_first = op_get_u8(r);
    if (has_first > 1) return false;
    if (has_first && !(ps->first = get_krow(o, r, row))) return false;
    int64_t touch_t = with_touch ? op_get_i64(r) : o->base.in_wm;
    if (r->bad) return false;
    if (touch_t != INT64_MIN) ttl_touch(&o->ttl, &ps->tt, touch_t);
    if (!aggacc_get(&o->acc, r, ps->acc)) return false;
    /* a re-partitioning restore: another replica's partition is read, then dropped */
    int rk = op_route_key_index(o->plan->partition, o->npart, o->base.route.in_col[0]);
    if (!op_route_keeps_row(&o->base, o->part_types, rk, ktab_key(&o->parts, ps))) {
        release_part(o, ps);
        ttl_forget(&o->ttl, &ps->tt);
        ktab_remove(&o->parts, ps);
    }
    return true;
}

static Value *row_buffer(const OverOp *o) { return xmalloc(sizeof(Value) * (size_t)(o->nin + o->npart + 1)); }

static bool over_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    OverOp *o = (OverOp *)op;
    OpReader r = {data, data + len, false}, r0 = r;
    /* with a TTL, version 2 (no update times) restores as updated at the watermark */
    bool with_touch = ttl_on(&o->ttl) && op_get_header(&r, OVER_MAGIC, OVER_VERSION_TTL, shape_hash(o));
    if (!with_touch) r = r0;
    if (!with_touch && !op_get_header(&r, OVER_MAGIC, OVER_VERSION, shape_hash(o))) {
        snprintf(err, errsize, "state of %s: not an OVER aggregate state of this shape", o->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(o);  /* a merging restore adds to what it has */
    Value *row = row_buffer(o);
    bool ok = read_buffer(o, &r, row);
    uint64_t n = ok ? op_get_u64(&r) : 0, h;
    for (uint64_t i = 0; i < n && ok && !r.bad; i++) ok = read_part(o, &r, row, with_touch, &h);
    free(row);
    if (!op_get_finish(&r, ok, o->state_id, err, errsize)) {
        clear_state(o);
        return false;
    }
    return true;
}

/* ---- chunked checkpoints ----
 * Base blob: the header (version OVER_VERSION_CHUNKED), the TTL flag, the chunk bits,
 * the partition count and the buffer (rows waiting for the watermark: a small part of
 * the state, rewritten at every checkpoint); the partitions are in chunks by the hash of
 * their key (op_chunks_save, as the aggregate's groups), each as put_part writes it. */

static void put_chunk_part(void *ctx, StrBuf *b, const void *payload) { put_part(ctx, b, payload); }

static bool over_save_chunks(Op *op, const char *name, const EngCkptIO *io, char *err, size_t errsize)
{
    OverOp *o = (OverOp *)op;
    /* the chunks first: a full save picks their size, which the base records */
    if (!op_chunks_save(&o->chunks, &o->parts, name, io, put_chunk_part, o, err, errsize)) return false;
    StrBuf b = STRBUF_INIT;
    op_put_header(&b, OVER_MAGIC, OVER_VERSION_CHUNKED, shape_hash(o));
    op_put_u8(&b, ttl_on(&o->ttl));
    op_put_u8(&b, (uint8_t)o->chunks.bits);
    op_put_u64(&b, o->parts.count);
    put_buffer(o, &b);
    bool ok = io->put(io->ctx, name, b.data, b.len, err, errsize);
    sb_free(&b);
    return ok;
}

typedef struct PartRead {
    OverOp *o;
    Value *row;
} PartRead;

static bool get_chunk_part(void *ctx, OpReader *r, uint64_t *hash)
{
    PartRead *pr = ctx;
    return read_part(pr->o, r, pr->row, ttl_on(&pr->o->ttl), hash);
}

static bool over_restore_chunks(Op *op, const char *name, const uint8_t *data, size_t len, EngGetFn get, void *ctx,
                                char *err, size_t errsize)
{
    OverOp *o = (OverOp *)op;
    OpReader r = {data, data + len, false};
    if (!op_get_header(&r, OVER_MAGIC, OVER_VERSION_CHUNKED, shape_hash(o)))
        return over_deserialize(op, data, len, err, errsize);  /* a one-blob state (of an older weir) */
    uint8_t with_touch = op_get_u8(&r), bits = op_get_u8(&r);
    uint64_t total = op_get_u64(&r);
    if (r.bad || with_touch != ttl_on(&o->ttl)) {
        snprintf(err, errsize, "state of %s: not an OVER aggregate state of this shape", o->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(o);  /* a merging restore adds to what it has */
    PartRead pr = {o, row_buffer(o)};
    bool ok = read_buffer(o, &r, pr.row) && op_chunks_restore(&o->chunks, bits, total, name, get, ctx, get_chunk_part, &pr);
    free(pr.row);
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
    rowc_fini(&o->codec);
    free(o->part_types);
    free(o->keybuf);
    free(o->outrow);
    free(o->krow);
    free(o->rel);
    op_base_fini(op);
    free(o);
}

static const OpVtbl over_vt = {
    .kind = "over_aggregate",
    .frontier = FR_JUDGE,
    .step = over_step,
    .on_watermark = over_on_watermark,
    .free = over_free,
    .state_stats = over_stats,
    .serialize = over_serialize,
    .deserialize = over_deserialize,
    .save_chunks = over_save_chunks,
    .restore_chunks = over_restore_chunks,
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
    o->frame_offset = pn->frame_offset;
    o->max_lag = -1;
    for (int j = 0; j < pn->naggs; j++) {
        if (pn->aggs[j].kind == AGG_LAG && pn->aggs[j].offset > o->max_lag) o->max_lag = pn->aggs[j].offset;
        if (pn->aggs[j].kind == AGG_FIRST_VALUE && o->frame_offset < 0) o->first_row = true;
    }
    o->keep = o->frame_offset >= 0 || o->max_lag >= 0;
    o->time_type = pn->order[0].expr->type;
    o->part_types = xmalloc(sizeof(Type) * (size_t)(o->npart + 1));
    for (int k = 0; k < o->npart; k++) o->part_types[k] = pn->partition[k]->type;
    o->keybuf = xcalloc((size_t)(o->npart + 1), sizeof(Value));
    o->outrow = xcalloc((size_t)(o->base.ncols + 1), sizeof(Value));
    o->krow = xcalloc((size_t)(nin + 1), sizeof(Value));
    rowc_init(&o->codec, o->base.out_types, nin);
    /* a bounded frame retracts rows that leave it: MIN/MAX then keep their multisets */
    aggacc_init(&o->acc, pn->aggs, pn->naggs, o->frame_offset < 0, o->state_id);
    ktab_init(&o->buf, nin, o->base.out_types, sizeof(BufRow));
    ktab_init(&o->parts, o->npart, o->part_types, sizeof(PState) + aggacc_bytes(&o->acc));
    o->ttl.ttl_us = ttl_of_state(n, 0);
    return &o->base;
}
