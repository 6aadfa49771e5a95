/* Helpers shared by the engine's operators: the common operator part, dead-letter
 * reporting, row identity/order, and the checkpoint byte codec and framing (see op.h). */
#include "engine/op.h"
#include "engine/partition.h"

#include "engine/keyed_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void op_base_init(Op *op, const OpVtbl *vt, EngPipeline *p, const IrNode *node, Op **inputs, int nin)
{
    op->vt = vt;
    op->frontier = vt->frontier;
    op->node = node;
    op->p = p;
    op->nin = nin;
    op->in = NULL;
    if (nin > 0) {
        op->in = xmalloc(sizeof(Op *) * (size_t)nin);
        memcpy(op->in, inputs, sizeof(Op *) * (size_t)nin);
    }
    op->ncols = node ? node->plan->ncols : 0;
    op->out_types = xmalloc(sizeof(Type) * (size_t)(op->ncols > 0 ? op->ncols : 1));
    for (int i = 0; i < op->ncols; i++) op->out_types[i] = node->plan->cols[i].type;
    batch_init(&op->own, op->ncols);
    op->out = &op->own;
    op->wm = INT64_MIN;
    op->in_wm = INT64_MIN;
    op->model_name = ""; /* set by the pipeline */
}

void op_base_fini(Op *op)
{
    batch_fini(&op->own);
    free(op->in);
    free(op->out_types);
}

const char *op_state_id(Op *op, const char *kind, int index, const char *suffix)
{
    const IrNode *n = op->node;
    for (int i = 0; n && kind && i < n->nstate; i++)
        if (n->state[i].kind && strcmp(n->state[i].kind, kind) == 0) return n->state[i].id;
    if (n && index >= 0 && index < n->nstate) return n->state[index].id;
    return arena_printf(eng_pipeline_arena(op->p), "%s%s", n ? n->op_id : "?", suffix ? suffix : "");
}

bool op_route_keeps(const Op *op, Type t, const Value *v)
{
    return op->route.n <= 1 || !v || eng_partition_replica(t, v, op->route.n) == op->route.replica;
}

int op_route_key_index(Expr *const *keys, int n, int col)
{
    for (int i = 0; i < n && col >= 0; i++)
        if (keys[i] && keys[i]->kind == EX_COLUMN && keys[i]->col == col) return i;
    return -1;
}

bool op_route_keeps_row(const Op *op, const Type *types, int col, const Value *row)
{
    return col < 0 || op_route_keeps(op, types[col], &row[col]);
}

void op_dead_letter(Op *op, int input, int row, const char *reason)
{
    const Op *in = op->in[input];
    const Batch *b = in->out;
    EngDeadLetter dl;
    dl.source = op->model_name;
    dl.reason = reason;
    dl.origin = b->origins ? &b->origins[row] : NULL;
    dl.row = batch_row(b, row);
    dl.types = in->out_types;
    dl.cols = in->node ? in->node->plan->cols : NULL;
    dl.ncols = in->ncols;
    int shown = in->node ? in->node->plan->dl_ncols : 0; /* a subquery's join: the outer row only */
    if (shown < 0) dl.ncols = 0;
    else if (shown > 0 && shown < dl.ncols) dl.ncols = shown;
    eng_emit_dead_letter(op->p, &dl);
}

bool op_cell_identical(Type t, const Value *a, const Value *b)
{
    if (a->isnull || b->isnull) return a->isnull && b->isnull;
    switch (t.id) {
    case T_TEXT:
    case T_ARRAY:
    case T_JSON:
        return a->len == b->len && (a->len == 0 || memcmp(a->s, b->s, a->len) == 0);
    case T_NUMERIC:
        return a->lo == b->lo && a->hi == b->hi && a->scale == b->scale;
    case T_INTERVAL:
        return a->i == b->i && a->iv.months == b->iv.months && a->iv.days == b->iv.days;
    case T_FLOAT4:
    case T_FLOAT8:
        return memcmp(&a->f, &b->f, sizeof(double)) == 0;
    default:
        return a->i == b->i;
    }
}

bool op_rows_identical(const Type *types, int n, const Value *a, const Value *b)
{
    for (int i = 0; i < n; i++)
        if (!op_cell_identical(types[i], &a[i], &b[i])) return false;
    return true;
}

int op_cell_order(Type t, const Value *a, const Value *b)
{
    int c = op_cell_cmp(t, a, b);
    if (c != 0 || a->isnull || b->isnull) return c;
    switch (t.id) {
    case T_ARRAY: {
        /* equal arrays of different representations (1.50 and 1.5): their bytes */
        uint32_t n = a->len < b->len ? a->len : b->len;
        int m = n ? memcmp(a->s, b->s, n) : 0;
        if (m) return m < 0 ? -1 : 1;
        return (a->len > b->len) - (a->len < b->len);
    }
    case T_NUMERIC:
        return (a->scale > b->scale) - (a->scale < b->scale);
    case T_INTERVAL:
        if (a->iv.months != b->iv.months) return a->iv.months < b->iv.months ? -1 : 1;
        if (a->iv.days != b->iv.days) return a->iv.days < b->iv.days ? -1 : 1;
        return (a->i > b->i) - (a->i < b->i);
    case T_FLOAT4:
    case T_FLOAT8: {
        uint64_t x, y;
        memcpy(&x, &a->f, 8);
        memcpy(&y, &b->f, 8);
        return (x > y) - (x < y);
    }
    default:
        return 0;
    }
}

int op_row_order(const Type *types, int n, const Value *a, const Value *b)
{
    return op_row_order_inline(types, n, a, b);
}

/* ---- codec ---- */

void op_put_i128(StrBuf *b, i128 v)
{
    op_put_u64(b, (uint64_t)v);
    op_put_u64(b, (uint64_t)(v >> 64));
}

void op_put_f64(StrBuf *b, double v)
{
    uint64_t x;
    memcpy(&x, &v, 8);
    op_put_u64(b, x);
}

void op_put_value(StrBuf *b, Type t, const Value *v)
{
    op_put_u8(b, v->isnull ? 1 : 0);
    if (v->isnull) return;
    switch (t.id) {
    case T_TEXT:
    case T_ARRAY:
    case T_JSON:
        op_put_u32(b, v->len);
        sb_append(b, v->s, v->len);
        break;
    case T_NUMERIC:
        op_put_u64(b, v->lo);
        op_put_u64(b, (uint64_t)v->hi);
        op_put_u32(b, (uint32_t)(int32_t)v->scale);
        break;
    case T_INTERVAL:
        op_put_u64(b, (uint64_t)v->i);
        op_put_u32(b, (uint32_t)v->iv.months);
        op_put_u32(b, (uint32_t)v->iv.days);
        break;
    case T_FLOAT4:
    case T_FLOAT8:
        op_put_f64(b, v->f);
        break;
    default:
        op_put_u64(b, (uint64_t)v->i);
        break;
    }
}

i128 op_get_i128(OpReader *r)
{
    uint64_t lo = op_get_u64(r);
    uint64_t hi = op_get_u64(r);
    return (i128)(((unsigned __int128)hi << 64) | lo);
}

double op_get_f64(OpReader *r)
{
    uint64_t x = op_get_u64(r);
    double d;
    memcpy(&d, &x, 8);
    return d;
}

void op_get_value(OpReader *r, Type t, Value *v)
{
    memset(v, 0, sizeof *v);
    uint8_t isnull = op_get_u8(r);
    if (isnull > 1) r->bad = true;
    if (isnull || r->bad) {
        v->isnull = 1;
        return;
    }
    switch (t.id) {
    case T_TEXT: {
        uint32_t len = op_get_u32(r);
        const uint8_t *q = bytes_take(r, len);
        v->s = q ? (const char *)q : "";
        v->len = q ? len : 0;
        break;
    }
    case T_ARRAY: {
        uint32_t len = op_get_u32(r);
        const uint8_t *q = bytes_take(r, len);
        if (!q || !array_valid(type_elem(t), (const char *)q, len)) r->bad = true;
        v->s = q ? (const char *)q : "";
        v->len = q ? len : 0;
        break;
    }
    case T_JSON: {
        uint32_t len = op_get_u32(r);
        const uint8_t *q = bytes_take(r, len);
        v->s = q ? (const char *)q : "";
        v->len = q ? len : 0;
        if (!q) r->bad = true;
        break;
    }
    case T_NUMERIC: {
        v->lo = op_get_u64(r);
        v->hi = (int64_t)op_get_u64(r);
        int32_t sc = (int32_t)op_get_u32(r);
        if (sc < 0 || sc > 38) r->bad = true;
        v->scale = (int16_t)sc;
        break;
    }
    case T_INTERVAL:
        v->i = (int64_t)op_get_u64(r);
        v->iv.months = (int32_t)op_get_u32(r);
        v->iv.days = (int32_t)op_get_u32(r);
        break;
    case T_FLOAT4:
    case T_FLOAT8:
        v->f = op_get_f64(r);
        break;
    default:
        v->i = (int64_t)op_get_u64(r);
        break;
    }
    if (r->bad) {
        memset(v, 0, sizeof *v);
        v->isnull = 1;
    }
}

void op_put_row(StrBuf *b, const Type *types, int n, const Value *row)
{
    for (int c = 0; c < n; c++) op_put_value(b, types[c], &row[c]);
}

void op_get_row(OpReader *r, const Type *types, int n, Value *row)
{
    for (int c = 0; c < n; c++) op_get_value(r, types[c], &row[c]);
}

/* ---- checkpoint framing ---- */

void op_put_header(StrBuf *b, uint32_t magic, uint32_t version, uint64_t shape)
{
    op_put_u32(b, magic);
    op_put_u32(b, version);
    op_put_u64(b, shape);
}

bool op_get_header(OpReader *r, uint32_t magic, uint32_t version, uint64_t shape)
{
    return op_get_u32(r) == magic && op_get_u32(r) == version && op_get_u64(r) == shape;
}

bool op_get_finish(const OpReader *r, bool ok, const char *state_id, char *err, size_t errsize)
{
    if (ok && !r->bad && r->p == r->end) return true;
    snprintf(err, errsize, "state of %s: truncated or malformed", state_id);
    return false;
}

typedef struct SortCtx {
    const KTab *t;
} SortCtx;

static int cmp_entries(const void *x, const void *y, void *ctx)
{
    const KTab *t = ((const SortCtx *)ctx)->t;
    return op_row_order(t->types, t->nkey, ktab_key(t, *(void *const *)x), ktab_key(t, *(void *const *)y));
}

void **op_sorted_entries(const KTab *t, bool (*keep)(const void *payload), uint32_t *n)
{
    void **es = xmalloc(sizeof(void *) * (size_t)(t->count > 0 ? t->count : 1));
    uint32_t pos = 0;
    void *e;
    *n = 0;
    while ((e = ktab_next(t, &pos)))
        if (!keep || keep(e)) es[(*n)++] = e;
    SortCtx sc = {t};
    qsort_r(es, *n, sizeof(void *), cmp_entries, &sc);
    return es;
}

/* ---- chunked state (see op.h) ---- */

#define CHUNK_ENTRIES 4
#define CHUNK_BITS_LIMIT 22

int op_chunk_bits(uint64_t n)
{
    int b = 0;
    while (b < CHUNK_BITS_LIMIT && ((uint64_t)CHUNK_ENTRIES << b) < n) b++;
    return b;
}

typedef struct ChunkEntry {
    uint32_t chunk;
    const void *payload;
} ChunkEntry;

static int cmp_chunk_entries(const void *x, const void *y, void *ctx)
{
    const KTab *t = ctx;
    const ChunkEntry *p = x, *q = y;
    if (p->chunk != q->chunk) return p->chunk < q->chunk ? -1 : 1;
    return op_row_order(t->types, t->nkey, ktab_key(t, p->payload), ktab_key(t, q->payload));
}

static bool chunk_is_dirty(const ChunkTrack *ct, uint32_t c) { return !ct->dirty || (ct->dirty[c >> 3] >> (c & 7)) & 1; }

bool op_chunks_save(ChunkTrack *ct, const KTab *t, const char *name, const EngCkptIO *io,
                    void (*put_entry)(void *ctx, StrBuf *b, const void *payload), void *ctx, char *err,
                    size_t errsize)
{
    bool inc = io->incremental && ct->dirty;
    int want = op_chunk_bits(t->count);
    char cn[512];
    if (inc && (want > ct->bits + 4 || want < ct->bits - 4)) {
        for (uint32_t c = 0; c < (1u << ct->bits); c++) {
            snprintf(cn, sizeof cn, "%s@%x", name, c);
            if (!io->del(io->ctx, cn, err, errsize)) return false;
        }
        inc = false;
    }
    if (!inc) {
        free(ct->dirty);
        ct->dirty = NULL;
        ct->bits = want;
    }
    uint32_t nchunks = 1u << ct->bits;
    ChunkEntry *es = xmalloc(sizeof(ChunkEntry) * ((size_t)t->count + 1));
    size_t n = 0;
    for (uint32_t i = 0; t->slots && i <= t->mask; i++) {
        const KTabSlot *sl = &t->slots[i];
        if (!sl->entry) continue;
        uint32_t c = chunk_index(ct->bits, sl->hash);
        if (chunk_is_dirty(ct, c)) es[n++] = (ChunkEntry){c, (const char *)sl->entry + t->payload_off};
    }
    qsort_r(es, n, sizeof *es, cmp_chunk_entries, (void *)t);
    StrBuf b = STRBUF_INIT;
    bool ok = true;
    size_t i = 0;
    for (uint32_t c = 0; c < nchunks && ok; c++) {
        if (!chunk_is_dirty(ct, c)) continue;
        snprintf(cn, sizeof cn, "%s@%x", name, c);
        size_t j = i;
        while (j < n && es[j].chunk == c) j++;
        if (j == i) {
            if (inc) ok = io->del(io->ctx, cn, err, errsize);
            continue;
        }
        sb_clear(&b);
        op_put_u64(&b, j - i);
        for (; i < j; i++) put_entry(ctx, &b, es[i].payload);
        ok = io->put(io->ctx, cn, b.data, b.len, err, errsize);
    }
    sb_free(&b);
    free(es);
    if (!ct->dirty) ct->dirty = xmalloc(nchunks / 8 + 1);
    memset(ct->dirty, 0, nchunks / 8 + 1);
    return ok;
}

bool op_chunks_restore(ChunkTrack *ct, int bits, uint64_t count, const char *name, EngGetFn get, void *gctx,
                       bool (*get_entry)(void *ctx, OpReader *r, uint64_t *hash), void *ctx)
{
    op_chunks_fini(ct);
    if (bits < 0 || bits > CHUNK_BITS_LIMIT) return false;
    uint64_t seen = 0;
    char cn[512];
    bool ok = true;
    for (uint32_t c = 0; ok && c < (1u << bits); c++) {
        snprintf(cn, sizeof cn, "%s@%x", name, c);
        const void *cd;
        size_t cl;
        if (!get(gctx, cn, &cd, &cl)) continue;
        OpReader r = {cd, (const uint8_t *)cd + cl, false};
        uint64_t k = op_get_u64(&r);
        ok = !r.bad && k > 0 && k <= cl;
        for (uint64_t i = 0; i < k && ok; i++) {
            uint64_t h = 0;
            ok = get_entry(ctx, &r, &h) && !r.bad && chunk_index(bits, h) == c;
        }
        ok = ok && !r.bad && r.p == r.end;
        seen += k;
    }
    if (!ok || seen != count) return false;
    ct->bits = bits;
    ct->dirty = xcalloc(((size_t)1 << bits) / 8 + 1, 1);
    return true;
}

void op_chunks_fini(ChunkTrack *ct)
{
    free(ct->dirty);
    ct->dirty = NULL;
    ct->bits = 0;
}
