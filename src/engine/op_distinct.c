/* SELECT DISTINCT operator: state is row -> net multiplicity (a keyed table over all
 * columns). It emits +row when a row's count becomes positive and -row when it
 * returns to zero, so the output is the set of rows currently present. The emitted
 * row is always the stored representative (the first representation seen), so a
 * later -row matches the earlier +row exactly even for equal-valued numerics.
 *
 * With the model's state_ttl (ttl.h) a row whose last update is older than the
 * watermark minus the TTL is forgotten silently (nothing is emitted; the consumer
 * keeps it); the row arriving again is emitted again as +row. A retraction of a row
 * the state no longer has is ignored. */
#include "engine/keyed_table.h"
#include "engine/op.h"
#include "engine/ttl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISTINCT_MAGIC 0x57444953u /* "WDIS" */
#define DISTINCT_VERSION 1u
#define DISTINCT_VERSION_TTL 2u /* version 1 plus every row's last update time */
#define DISTINCT_VERSION_CHUNKED 3u /* a base blob and the rows in chunks by hash (see save_chunks) */

typedef struct DistinctEntry {
    int64_t count;
    TtlItem tt;              /* state_ttl only (TTL_PAYLOAD): last update */
} DistinctEntry;

typedef struct DistinctOp {
    Op base;
    KTab tab;
    Ttl ttl;
    ChunkTrack chunks;       /* incremental checkpoints: which chunks of rows changed */
    const char *state_id;
} DistinctOp;

static void remove_entry(DistinctOp *d, DistinctEntry *e)
{
    if (d->chunks.dirty) chunk_mark(&d->chunks, ktab_hash(&d->tab, ktab_key(&d->tab, e)));
    ttl_forget(&d->ttl, &e->tt);
    ktab_remove(&d->tab, e);
}

static bool distinct_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    DistinctOp *d = (DistinctOp *)op;
    const Batch *in = op->in[0]->out;
    Batch *out = op->out;
    for (int i = 0; i < in->n; i++) {
        const Value *row = batch_row(in, i);
        int64_t w = in->weights[i];
        if (w == 0) continue;
        uint64_t h = ktab_hash(&d->tab, row);
        bool created;
        int64_t jw = 0;
        if (ttl_on(&d->ttl)) {
            jw = op_judge_wm(op->in_wm, in, i);
            DistinctEntry *e = ktab_find(&d->tab, row, h);
            if (e && ttl_expired(&d->ttl, &e->tt, jw)) {
                ttl_count(&d->ttl);
                remove_entry(d, e);
                e = NULL;
            }
            if (!e && w < 0) continue; /* the state no longer has the row */
        }
        DistinctEntry *e = ktab_upsert(&d->tab, row, h, &created);
        if (created) ttl_entry_init(&d->ttl, &e->tt);
        chunk_mark(&d->chunks, h);
        int64_t c = e->count, nc = c + w;
        e->count = nc;
        if (c <= 0 && nc > 0) {
            batch_append_row_copy(out, ktab_key(&d->tab, e), op->out_types, 1);
            op_copy_meta(out, in, i);
        } else if (c > 0 && nc <= 0) {
            batch_append_row_copy(out, ktab_key(&d->tab, e), op->out_types, -1);
            op_copy_meta(out, in, i);
        }
        if (nc == 0) remove_entry(d, e);
        else ttl_touch(&d->ttl, &e->tt, jw);
    }
    return true;
}

/* The watermark passed wm: rows last updated before wm - ttl go, silently. */
static bool distinct_on_watermark(Op *op, OpCtx *ctx, int64_t wm)
{
    (void)ctx;
    DistinctOp *d = (DistinctOp *)op;
    TtlItem *it;
    while ((it = ttl_pop_expired(&d->ttl, wm))) {
        ttl_count(&d->ttl);
        remove_entry(d, (DistinctEntry *)((char *)it - offsetof(DistinctEntry, tt)));
    }
    return true;
}

static int distinct_stats(const Op *op, EngStateStats *out, int max)
{
    const DistinctOp *d = (const DistinctOp *)op;
    return op_state_stats1_ttl(out, max, d->state_id, d->tab.count, d->tab.bytes + ttl_bytes(&d->ttl), d->ttl.expired);
}

static bool distinct_serialize(const Op *op, StrBuf *sb)
{
    const DistinctOp *d = (const DistinctOp *)op;
    bool ttl = ttl_on(&d->ttl);
    op_put_u32(sb, DISTINCT_MAGIC);
    op_put_u32(sb, ttl ? DISTINCT_VERSION_TTL : DISTINCT_VERSION);
    op_put_u32(sb, (uint32_t)op->ncols);
    op_put_u64(sb, d->tab.count);
    uint32_t pos = 0;
    const DistinctEntry *e;
    while ((e = ktab_next(&d->tab, &pos))) {
        op_put_row(sb, op->out_types, op->ncols, ktab_key(&d->tab, e));
        op_put_i64(sb, e->count);
        if (ttl) op_put_i64(sb, e->tt.touch);
    }
    return true;
}

static void clear_state(DistinctOp *d)
{
    op_chunks_fini(&d->chunks);
    ktab_clear(&d->tab);
    ttl_reset(&d->ttl);
}

static bool distinct_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    DistinctOp *d = (DistinctOp *)op;
    OpReader r = {data, data + len, false};
    uint32_t magic = op_get_u32(&r), version = op_get_u32(&r);
    /* with a TTL, version 1 (no update times) restores as updated at the watermark */
    bool with_touch = ttl_on(&d->ttl) && version == DISTINCT_VERSION_TTL;
    if (magic != DISTINCT_MAGIC || (version != DISTINCT_VERSION && !with_touch) || op_get_u32(&r) != (uint32_t)op->ncols) {
        snprintf(err, errsize, "state of %s: not a distinct state of this shape", d->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(d);  /* a merging restore adds to what it has */
    uint64_t n = op_get_u64(&r);
    Value *row = xmalloc(sizeof(Value) * (size_t)(op->ncols > 0 ? op->ncols : 1));
    for (uint64_t i = 0; i < n && !r.bad; i++) {
        op_get_row(&r, op->out_types, op->ncols, row);
        int64_t count = op_get_i64(&r);
        int64_t t = with_touch ? op_get_i64(&r) : op->in_wm;
        if (r.bad || count == 0) break;
        if (!op_route_keeps_row(op, op->out_types, op->route.out_col, row)) continue;  /* another replica's */
        bool created;
        DistinctEntry *e = ktab_upsert(&d->tab, row, ktab_hash(&d->tab, row), &created);
        if (created) ttl_entry_init(&d->ttl, &e->tt);
        e->count += count;
        ttl_touch(&d->ttl, &e->tt, t);
    }
    free(row);
    if (!op_get_finish(&r, true, d->state_id, err, errsize)) {
        clear_state(d);
        return false;
    }
    return true;
}

/* ---- chunked checkpoints ----
 * Base blob: magic, version DISTINCT_VERSION_CHUNKED, the column count, the TTL flag,
 * the chunk bits and the row count; the rows are in chunks (op_chunks_save, as the
 * aggregate's groups), each as in the one-blob format. */

static void put_row(void *ctx, StrBuf *b, const void *payload)
{
    const DistinctOp *d = ctx;
    const DistinctEntry *e = payload;
    op_put_row(b, d->base.out_types, d->base.ncols, ktab_key(&d->tab, e));
    op_put_i64(b, e->count);
    if (ttl_on(&d->ttl)) op_put_i64(b, e->tt.touch);
}

static bool distinct_save_chunks(Op *op, const char *name, const EngCkptIO *io, char *err, size_t errsize)
{
    DistinctOp *d = (DistinctOp *)op;
    /* the chunks first: a full save picks their size, which the base records */
    if (!op_chunks_save(&d->chunks, &d->tab, name, io, put_row, d, err, errsize)) return false;
    StrBuf b = STRBUF_INIT;
    op_put_u32(&b, DISTINCT_MAGIC);
    op_put_u32(&b, DISTINCT_VERSION_CHUNKED);
    op_put_u32(&b, (uint32_t)op->ncols);
    op_put_u8(&b, ttl_on(&d->ttl));
    op_put_u8(&b, (uint8_t)d->chunks.bits);
    op_put_u64(&b, d->tab.count);
    bool ok = io->put(io->ctx, name, b.data, b.len, err, errsize);
    sb_free(&b);
    return ok;
}

typedef struct RowRead {
    DistinctOp *d;
    Value *row;
    bool with_touch;
} RowRead;

static bool get_row(void *ctx, OpReader *r, uint64_t *hash)
{
    RowRead *rr = ctx;
    DistinctOp *d = rr->d;
    op_get_row(r, d->base.out_types, d->base.ncols, rr->row);
    int64_t count = op_get_i64(r);
    int64_t t = rr->with_touch ? op_get_i64(r) : d->base.in_wm;
    if (r->bad || count == 0) return false;
    *hash = ktab_hash(&d->tab, rr->row);
    if (!op_route_keeps_row(&d->base, d->base.out_types, d->base.route.out_col, rr->row)) return true;  /* another replica's */
    bool created;
    DistinctEntry *e = ktab_upsert(&d->tab, rr->row, *hash, &created);
    if (!created) return false;
    ttl_entry_init(&d->ttl, &e->tt);
    e->count = count;
    ttl_touch(&d->ttl, &e->tt, t);
    return true;
}

static bool distinct_restore_chunks(Op *op, const char *name, const uint8_t *data, size_t len, EngGetFn get,
                                    void *ctx, char *err, size_t errsize)
{
    DistinctOp *d = (DistinctOp *)op;
    OpReader r = {data, data + len, false};
    uint32_t magic = op_get_u32(&r), version = op_get_u32(&r);
    if (magic != DISTINCT_MAGIC || version != DISTINCT_VERSION_CHUNKED)
        return distinct_deserialize(op, data, len, err, errsize);  /* a one-blob state of an older weir */
    bool ok = op_get_u32(&r) == (uint32_t)op->ncols;
    uint8_t with_touch = op_get_u8(&r), bits = op_get_u8(&r);
    uint64_t total = op_get_u64(&r);
    if (!ok || r.bad || with_touch != ttl_on(&d->ttl)) {
        snprintf(err, errsize, "state of %s: not a distinct state of this shape", d->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(d);  /* a merging restore adds to what it has */
    RowRead rr = {d, xmalloc(sizeof(Value) * (size_t)(op->ncols > 0 ? op->ncols : 1)), with_touch == 1};
    ok = op_chunks_restore(&d->chunks, bits, total, name, get, ctx, get_row, &rr);
    free(rr.row);
    if (!op_get_finish(&r, ok, d->state_id, err, errsize)) {
        clear_state(d);
        return false;
    }
    return true;
}

static void distinct_free(Op *op)
{
    DistinctOp *d = (DistinctOp *)op;
    op_chunks_fini(&d->chunks);
    ttl_reset(&d->ttl);
    ktab_fini(&d->tab);
    op_base_fini(op);
    free(d);
}

/* The rows present: each distinct row once. */
static bool distinct_emit_current(Op *op, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    DistinctOp *d = (DistinctOp *)op;
    uint32_t pos = 0;
    const DistinctEntry *e;
    while ((e = ktab_next(&d->tab, &pos)))
        if (e->count > 0) batch_append_row_copy(op->out, ktab_key(&d->tab, e), op->out_types, 1);
    return true;
}

static const OpVtbl distinct_vt = {
    .kind = "distinct",
    .frontier = FR_PASS,
    .step = distinct_step,
    .on_watermark = distinct_on_watermark,
    .free = distinct_free,
    .state_stats = distinct_stats,
    .serialize = distinct_serialize,
    .deserialize = distinct_deserialize,
    .save_chunks = distinct_save_chunks,
    .restore_chunks = distinct_restore_chunks,
    .emit_current = distinct_emit_current,
};

Op *op_distinct_new(EngPipeline *p, const IrNode *n, Op **inputs)
{
    DistinctOp *d = xcalloc(1, sizeof *d);
    op_base_init(&d->base, &distinct_vt, p, n, inputs, 1);
    d->ttl.ttl_us = ttl_of_state(n, 0);
    ktab_init(&d->tab, d->base.ncols, d->base.out_types, TTL_PAYLOAD(&d->ttl, DistinctEntry));
    d->state_id = n->nstate > 0 ? n->state[0].id : n->op_id;
    if (ttl_on(&d->ttl)) d->base.frontier = FR_JUDGE;
    return &d->base;
}
