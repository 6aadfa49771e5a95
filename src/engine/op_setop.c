/* Set operations UNION / INTERSECT / EXCEPT, DISTINCT or ALL, incremental under
 * retractions on both inputs.
 *
 * State: a keyed table over the whole row (grouping semantics: NULL equals NULL, 1.5
 * equals 1.50) -> (l, r), the row's multiplicity in the left and right input. The
 * output multiplicity of a row is a function of (l, r):
 *   UNION            1 if l + r > 0          UNION ALL      l + r
 *   INTERSECT        1 if l > 0 and r > 0    INTERSECT ALL  min(l, r)
 *   EXCEPT           1 if l > 0 and r = 0    EXCEPT ALL     max(l - r, 0)
 * Every input change recomputes it for its row and emits the difference (text
 * copied, as the entry may go away); an entry is dropped when l = r = 0. The emitted
 * row is the stored representative (the first representation seen), so a later
 * retraction matches the earlier insertion exactly. Within a step the counts may dip
 * below zero (a retraction ahead of its insertion); they count as 0 in the function
 * and the step's net output is exact.
 *
 * With the model's state_ttl (ttl.h) an entry whose last update (the largest
 * watermark its rows were judged by) is older than the watermark minus the TTL is
 * forgotten silently, as a DISTINCT row is: nothing is emitted, and a later row of
 * either input starts a new generation from counts (0, 0) that emits by the function
 * again; a retraction of a row the state no longer has is ignored. So that which entry
 * expired does not depend on how the two inputs' rows share a step, a step applies
 * both inputs' rows merged in the order of the watermarks they are judged by (the left
 * input's first among equals): for inputs of one source that is the source's order, at
 * any batch size. Rows of the two inputs that come from different sources cannot be
 * ordered so (check warns: state-ttl-several-sources). */
#include "engine/keyed_table.h"
#include "engine/op.h"
#include "engine/ttl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETOP_MAGIC 0x57534554u /* "WSET" */
#define SETOP_VERSION 1u
#define SETOP_VERSION_TTL 2u /* version 1 plus every entry's last update time */
#define SETOP_VERSION_CHUNKED 3u /* a base blob and the entries in chunks by hash (setop_save_chunks) */

typedef struct SetEntry {
    int64_t l, r;
    TtlItem tt;              /* state_ttl only (TTL_PAYLOAD): last update */
} SetEntry;

/* A row of one input with the watermark it is judged by (TTL: merge order). */
typedef struct SetRow {
    int64_t jw;
    int side, i;
} SetRow;

typedef struct SetOp {
    Op base;
    KTab tab;
    Ttl ttl;
    SetOpKind kind;
    bool all;
    const char *state_id;
    SetRow *rows;            /* TTL: the step's rows of both inputs, merged (reused) */
    int rows_cap;
    ChunkTrack chunks;       /* incremental checkpoints: which chunks of entries changed */
} SetOp;

static void remove_entry(SetOp *s, SetEntry *e)
{
    if (s->chunks.dirty) chunk_mark(&s->chunks, ktab_hash(&s->tab, ktab_key(&s->tab, e)));
    ttl_forget(&s->ttl, &e->tt);
    ktab_remove(&s->tab, e);
}

static int64_t out_mult(const SetOp *s, int64_t l, int64_t r)
{
    if (l < 0) l = 0;
    if (r < 0) r = 0;
    switch (s->kind) {
    case SETOP_UNION: return s->all ? l + r : (l + r > 0);
    case SETOP_INTERSECT: return s->all ? (l < r ? l : r) : (l > 0 && r > 0);
    case SETOP_EXCEPT: return s->all ? (l > r ? l - r : 0) : (l > 0 && r == 0);
    }
    return 0;
}

/* Applies row i of input `side` (weight w, judged at jw with a TTL). */
static void apply_row(SetOp *s, int side, int i, int64_t jw)
{
    Op *op = &s->base;
    const Batch *in = op->in[side]->out;
    int64_t w = in->weights[i];
    if (w == 0) return;
    const Value *row = batch_row(in, i);
    uint64_t h = ktab_hash(&s->tab, row);
    if (ttl_on(&s->ttl)) {
        SetEntry *e = ktab_find(&s->tab, row, h);
        if (e && ttl_expired(&s->ttl, &e->tt, jw)) {
            ttl_count(&s->ttl);
            remove_entry(s, e);
            e = NULL;
        }
        if (!e && w < 0) return; /* the state no longer has the row */
    }
    bool created;
    SetEntry *e = ktab_upsert(&s->tab, row, h, &created);
    if (created) ttl_entry_init(&s->ttl, &e->tt);
    chunk_mark(&s->chunks, h);
    int64_t before = out_mult(s, e->l, e->r);
    if (side == 0) e->l += w;
    else e->r += w;
    int64_t d = out_mult(s, e->l, e->r) - before;
    if (d != 0) {
        op_append_copy(op->out, ktab_key(&s->tab, e), op->out_types, d);
        op_copy_meta(op->out, in, i);
    }
    if (e->l == 0 && e->r == 0) remove_entry(s, e);
    else ttl_touch(&s->ttl, &e->tt, jw);
}

static bool setop_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    SetOp *s = (SetOp *)op;
    const Batch *a = op->in[0]->out, *b = op->in[1]->out;
    if (!ttl_on(&s->ttl)) {
        for (int side = 0; side < 2; side++)
            for (int i = 0; i < op->in[side]->out->n; i++) apply_row(s, side, i, 0);
        return true;
    }
    /* both inputs' rows in the order of their judging watermarks (each input's rows are
     * in that order already: a merge) */
    int n = a->n + b->n;
    if (n > s->rows_cap) {
        s->rows_cap = n > 2 * s->rows_cap ? n : 2 * s->rows_cap;
        s->rows = xrealloc(s->rows, sizeof(SetRow) * (size_t)s->rows_cap);
    }
    int ia = 0, ib = 0, k = 0;
    int64_t ja = a->n ? op_judge_wm(op->in_wm, a, 0) : 0, jb = b->n ? op_judge_wm(op->in_wm, b, 0) : 0;
    while (ia < a->n || ib < b->n) {
        if (ib >= b->n || (ia < a->n && ja <= jb)) {
            s->rows[k++] = (SetRow){ja, 0, ia++};
            if (ia < a->n) ja = op_judge_wm(op->in_wm, a, ia);
        } else {
            s->rows[k++] = (SetRow){jb, 1, ib++};
            if (ib < b->n) jb = op_judge_wm(op->in_wm, b, ib);
        }
    }
    for (int j = 0; j < k; j++) apply_row(s, s->rows[j].side, s->rows[j].i, s->rows[j].jw);
    return true;
}

/* The watermark passed wm: entries last updated before wm - ttl go, silently. */
static bool setop_on_watermark(Op *op, OpCtx *ctx, int64_t wm)
{
    (void)ctx;
    SetOp *s = (SetOp *)op;
    TtlItem *it;
    while ((it = ttl_pop_expired(&s->ttl, wm))) {
        ttl_count(&s->ttl);
        remove_entry(s, (SetEntry *)((char *)it - offsetof(SetEntry, tt)));
    }
    return true;
}

static int setop_stats(const Op *op, EngStateStats *out, int max)
{
    const SetOp *s = (const SetOp *)op;
    return op_state_stats1_ttl(out, max, s->state_id, s->tab.count, s->tab.bytes + ttl_bytes(&s->ttl), s->ttl.expired);
}

/* magic, version, the column count and types: the start of both formats */
static void put_base(const SetOp *s, StrBuf *b, uint32_t version)
{
    op_put_u32(b, SETOP_MAGIC);
    op_put_u32(b, version);
    op_put_u32(b, (uint32_t)s->base.ncols);
    for (int c = 0; c < s->base.ncols; c++) op_put_u8(b, s->base.out_types[c].id);
}

static bool setop_serialize(const Op *op, StrBuf *sb)
{
    const SetOp *s = (const SetOp *)op;
    bool ttl = ttl_on(&s->ttl);
    put_base(s, sb, ttl ? SETOP_VERSION_TTL : SETOP_VERSION);
    /* entries in row order so the bytes depend only on the content */
    uint32_t n;
    void **es = op_sorted_entries(&s->tab, NULL, &n);
    op_put_u64(sb, n);
    for (uint32_t i = 0; i < n; i++) {
        op_put_row(sb, op->out_types, op->ncols, ktab_key(&s->tab, es[i]));
        const SetEntry *se = es[i];
        op_put_i64(sb, se->l);
        op_put_i64(sb, se->r);
        if (ttl) op_put_i64(sb, se->tt.touch);
    }
    free(es);
    return true;
}

/* Every row with its output multiplicity. */
static bool setop_emit_current(Op *op, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    SetOp *s = (SetOp *)op;
    uint32_t pos = 0;
    const SetEntry *e;
    while ((e = ktab_next(&s->tab, &pos))) {
        int64_t m = out_mult(s, e->l, e->r);
        if (m > 0) batch_append_row_copy(op->out, ktab_key(&s->tab, e), op->out_types, m);
    }
    return true;
}

static void clear_state(SetOp *s)
{
    op_chunks_fini(&s->chunks);
    ttl_reset(&s->ttl);
    ktab_clear(&s->tab);
}

static bool setop_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    SetOp *s = (SetOp *)op;
    OpReader r = {data, data + len, false};
    uint32_t magic = op_get_u32(&r), version = op_get_u32(&r);
    /* with a TTL, version 1 (no update times) restores as updated at the watermark */
    bool with_touch = ttl_on(&s->ttl) && version == SETOP_VERSION_TTL;
    bool ok = magic == SETOP_MAGIC && (version == SETOP_VERSION || with_touch) && op_get_u32(&r) == (uint32_t)op->ncols;
    for (int c = 0; ok && c < op->ncols; c++) ok = op_get_u8(&r) == op->out_types[c].id;
    if (!ok || r.bad) {
        snprintf(err, errsize, "state of %s: not a set-operation state of this shape", s->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(s);  /* a merging restore adds to what it has */
    uint64_t n = op_get_u64(&r);
    Value *row = xmalloc(sizeof(Value) * (size_t)(op->ncols > 0 ? op->ncols : 1));
    for (uint64_t i = 0; i < n && ok && !r.bad; i++) {
        op_get_row(&r, op->out_types, op->ncols, row);
        int64_t l = op_get_i64(&r), rr = op_get_i64(&r);
        int64_t t = with_touch ? op_get_i64(&r) : op->in_wm;
        if (r.bad || (l == 0 && rr == 0)) {
            ok = false;
            break;
        }
        if (!op_route_keeps_row(op, op->out_types, op->route.out_col, row)) continue;  /* another replica's */
        bool created;
        SetEntry *e = ktab_upsert(&s->tab, row, ktab_hash(&s->tab, row), &created);
        if (!created) ok = false;
        else ttl_entry_init(&s->ttl, &e->tt);
        e->l = l;
        e->r = rr;
        if (ok) ttl_touch(&s->ttl, &e->tt, t);
    }
    free(row);
    if (!op_get_finish(&r, ok, s->state_id, err, errsize)) {
        clear_state(s);
        return false;
    }
    return true;
}

/* ---- chunked checkpoints ----
 * Base blob: magic, version SETOP_VERSION_CHUNKED, the column count and types, the TTL
 * flag, the chunk bits and the entry count; the entries are in chunks (op_chunks_save,
 * as the aggregate's groups), each as in the one-blob format. */

static void put_entry(void *ctx, StrBuf *b, const void *payload)
{
    const SetOp *s = ctx;
    const SetEntry *e = payload;
    op_put_row(b, s->base.out_types, s->base.ncols, ktab_key(&s->tab, e));
    op_put_i64(b, e->l);
    op_put_i64(b, e->r);
    if (ttl_on(&s->ttl)) op_put_i64(b, e->tt.touch);
}

static bool setop_save_chunks(Op *op, const char *name, const EngCkptIO *io, char *err, size_t errsize)
{
    SetOp *s = (SetOp *)op;
    /* the chunks first: a full save picks their size, which the base records */
    if (!op_chunks_save(&s->chunks, &s->tab, name, io, put_entry, s, err, errsize)) return false;
    StrBuf b = STRBUF_INIT;
    put_base(s, &b, SETOP_VERSION_CHUNKED);
    op_put_u8(&b, ttl_on(&s->ttl));
    op_put_u8(&b, (uint8_t)s->chunks.bits);
    op_put_u64(&b, s->tab.count);
    bool ok = io->put(io->ctx, name, b.data, b.len, err, errsize);
    sb_free(&b);
    return ok;
}

typedef struct EntryRead {
    SetOp *s;
    Value *row;
    bool with_touch;
} EntryRead;

static bool get_entry(void *ctx, OpReader *r, uint64_t *hash)
{
    EntryRead *er = ctx;
    SetOp *s = er->s;
    op_get_row(r, s->base.out_types, s->base.ncols, er->row);
    int64_t l = op_get_i64(r), rr = op_get_i64(r);
    int64_t t = er->with_touch ? op_get_i64(r) : s->base.in_wm;
    if (r->bad || (l == 0 && rr == 0)) return false;
    *hash = ktab_hash(&s->tab, er->row);
    if (!op_route_keeps_row(&s->base, s->base.out_types, s->base.route.out_col, er->row)) return true;  /* another replica's */
    bool created;
    SetEntry *e = ktab_upsert(&s->tab, er->row, *hash, &created);
    if (!created) return false;
    ttl_entry_init(&s->ttl, &e->tt);
    e->l = l;
    e->r = rr;
    ttl_touch(&s->ttl, &e->tt, t);
    return true;
}

static bool setop_restore_chunks(Op *op, const char *name, const uint8_t *data, size_t len, EngGetFn get,
                                 void *ctx, char *err, size_t errsize)
{
    SetOp *s = (SetOp *)op;
    OpReader r = {data, data + len, false};
    uint32_t magic = op_get_u32(&r), version = op_get_u32(&r);
    if (magic != SETOP_MAGIC || version != SETOP_VERSION_CHUNKED)
        return setop_deserialize(op, data, len, err, errsize);  /* a one-blob state of an older weir */
    bool ok = op_get_u32(&r) == (uint32_t)op->ncols;
    for (int c = 0; ok && c < op->ncols; c++) ok = op_get_u8(&r) == op->out_types[c].id;
    uint8_t with_touch = op_get_u8(&r), bits = op_get_u8(&r);
    uint64_t total = op_get_u64(&r);
    if (!ok || r.bad || with_touch != ttl_on(&s->ttl)) {
        snprintf(err, errsize, "state of %s: not a set-operation state of this shape", s->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(s);  /* a merging restore adds to what it has */
    EntryRead er = {s, xmalloc(sizeof(Value) * (size_t)(op->ncols > 0 ? op->ncols : 1)), with_touch == 1};
    ok = op_chunks_restore(&s->chunks, bits, total, name, get, ctx, get_entry, &er);
    free(er.row);
    if (!op_get_finish(&r, ok, s->state_id, err, errsize)) {
        clear_state(s);
        return false;
    }
    return true;
}

static void setop_free(Op *op)
{
    SetOp *s = (SetOp *)op;
    op_chunks_fini(&s->chunks);
    ttl_reset(&s->ttl);
    ktab_fini(&s->tab);
    free(s->rows);
    op_base_fini(op);
    free(s);
}

static const OpVtbl setop_vt = {
    .kind = "setop",
    .frontier = FR_PASS,
    .step = setop_step,
    .on_watermark = setop_on_watermark,
    .free = setop_free,
    .state_stats = setop_stats,
    .serialize = setop_serialize,
    .deserialize = setop_deserialize,
    .save_chunks = setop_save_chunks,
    .restore_chunks = setop_restore_chunks,
    .emit_current = setop_emit_current,
};

Op *op_setop_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize)
{
    if (n->ninputs != 2 || inputs[0]->ncols != n->plan->ncols || inputs[1]->ncols != n->plan->ncols) {
        snprintf(err, errsize, "%s: a set operation needs two inputs with the output's columns", n->op_id);
        return NULL;
    }
    for (int c = 0; c < n->plan->ncols; c++) {
        if (inputs[0]->out_types[c].id != n->plan->cols[c].type.id ||
            inputs[1]->out_types[c].id != n->plan->cols[c].type.id) {
            snprintf(err, errsize, "%s: column %d of a set operation's inputs differs in type (the binder must cast)",
                     n->op_id, c + 1);
            return NULL;
        }
    }
    SetOp *s = xcalloc(1, sizeof *s);
    op_base_init(&s->base, &setop_vt, p, n, inputs, 2);
    s->kind = n->plan->setop;
    s->all = n->plan->all;
    s->state_id = op_state_id(&s->base, "setop", 0, "");
    s->ttl.ttl_us = ttl_of_state(n, 0);
    ktab_init(&s->tab, s->base.ncols, s->base.out_types, TTL_PAYLOAD(&s->ttl, SetEntry));
    if (ttl_on(&s->ttl)) s->base.frontier = FR_JUDGE;
    return &s->base;
}
