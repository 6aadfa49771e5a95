/* Changelog normalize for keyed updating sources (changelog-json, debezium-json,
 * upsert with a primary key): keeps the latest row per primary key and turns each
 * insert/update/delete by key into Z-set changes on the source's batch:
 *   insert/update of a new key      -> +new
 *   insert/update of an existing key -> -old, +new (nothing when the row is identical)
 *   delete of an existing key        -> -old (the stored row, whatever the delete carried)
 *   delete of an unknown key         -> nothing; reported to the caller, never fatal.
 * Changes are applied when the producer calls eng_source_upsert (so two changes of one
 * key in one step see each other); the operator's step does nothing. */
#include "engine/keyed_table.h"
#include "engine/op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NORM_MAGIC 0x574e4f52u /* "WNOR" */
#define NORM_VERSION 1u
#define NORM_VERSION_CHUNKED 2u /* a base (ncols, chunk bits, count) and chunks of rows (op_chunks_save) */

typedef struct NormEntry {
    Value *row;              /* ncols cells + text bytes in one block */
    int64_t size;            /* bytes of that block */
} NormEntry;

typedef struct NormOp {
    Op base;
    const SourceDef *src;
    const char *state_id;
    KTab tab;
    Type *key_types;
    Value *keybuf;           /* npk cells */
    int64_t extra_bytes;     /* row blocks */
    ChunkTrack chunks;       /* incremental checkpoints */
} NormOp;

static NormEntry store_row(NormOp *n, NormEntry *e, const Value *row)
{
    int nc = n->base.ncols;
    size_t text = 0;
    for (int c = 0; c < nc; c++)
        if (type_is_varlen(n->base.out_types[c]) && !row[c].isnull) text += row[c].len;
    size_t size = sizeof(Value) * (size_t)nc + text;
    Value *blk = xmalloc(size ? size : 1);
    memcpy(blk, row, sizeof(Value) * (size_t)nc);
    char *tp = (char *)(blk + nc);
    for (int c = 0; c < nc; c++) {
        if (type_is_varlen(n->base.out_types[c]) && !row[c].isnull) {
            if (row[c].len) memcpy(tp, row[c].s, row[c].len);
            blk[c].s = tp;
            tp += row[c].len;
        }
    }
    NormEntry old = *e;
    e->row = blk;
    e->size = (int64_t)size;
    n->extra_bytes += (int64_t)size;
    return old;
}

static void drop_row(NormOp *n, NormEntry *old)
{
    if (!old->row) return;
    n->extra_bytes -= old->size;
    free(old->row);
    old->row = NULL;
}

static void append(NormOp *n, const Value *row, int64_t w, const RowOrigin *origin, int64_t frontier)
{
    Batch *out = n->base.out;
    batch_append_row_copy(out, row, n->base.out_types, w);
    if (origin) batch_set_origin(out, out->n - 1, origin);
    if (frontier != INT64_MIN) batch_set_frontier(out, out->n - 1, frontier);
}

static void key_text(NormOp *n, const Value *key, char *buf, size_t size)
{
    StrBuf sb = STRBUF_INIT;
    for (int i = 0; i < n->src->npk; i++) {
        if (i) sb_puts(&sb, ", ");
        const ColumnDef *cd = &n->src->columns[n->src->pk_cols[i]];
        sb_printf(&sb, "%s=", cd->name);
        if (key[i].isnull) sb_puts(&sb, "NULL");
        else value_format_text(cd->type, &key[i], &sb);
    }
    snprintf(buf, size, "%s", sb.len ? sb_cstr(&sb) : "");
    sb_free(&sb);
}

bool op_normalize_apply(Op *op, ChangeOp kind, const Value *row, const RowOrigin *origin,
                        int64_t frontier, char *err, size_t errsize)
{
    NormOp *n = (NormOp *)op;
    for (int i = 0; i < n->src->npk; i++) n->keybuf[i] = row[n->src->pk_cols[i]];
    uint64_t h = ktab_hash(&n->tab, n->keybuf);
    if (kind == CHANGE_DELETE) {
        NormEntry *e = ktab_find(&n->tab, n->keybuf, h);
        if (!e) {
            char kt[512];
            key_text(n, n->keybuf, kt, sizeof kt);
            snprintf(err, errsize, "delete of unknown key (%s) in source '%s': ignored", kt, n->src->name);
            return false;
        }
        append(n, e->row, -1, origin, frontier);
        drop_row(n, e);
        ktab_remove(&n->tab, e);
        chunk_mark(&n->chunks, h);
        return true;
    }
    bool created;
    NormEntry *e = ktab_upsert(&n->tab, n->keybuf, h, &created);
    if (!created) {
        if (op_rows_identical(op->out_types, op->ncols, e->row, row)) return true;
        append(n, e->row, -1, origin, frontier);
    }
    NormEntry old = store_row(n, e, row);
    drop_row(n, &old);
    chunk_mark(&n->chunks, h);
    append(n, e->row, 1, origin, frontier);
    return true;
}

static bool norm_step(Op *op, OpCtx *ctx)
{
    (void)op;
    (void)ctx;
    return true;
}

static int norm_stats(const Op *op, EngStateStats *out, int max)
{
    const NormOp *n = (const NormOp *)op;
    return op_state_stats1(out, max, n->state_id, n->tab.count, n->tab.bytes + n->extra_bytes);
}

static bool norm_serialize(const Op *op, StrBuf *sb)
{
    const NormOp *n = (const NormOp *)op;
    op_put_u32(sb, NORM_MAGIC);
    op_put_u32(sb, NORM_VERSION);
    op_put_u32(sb, (uint32_t)op->ncols);
    op_put_u64(sb, n->tab.count);
    uint32_t pos = 0;
    const NormEntry *e;
    while ((e = ktab_next(&n->tab, &pos))) op_put_row(sb, op->out_types, op->ncols, e->row);
    return true;
}

static void clear_state(NormOp *n)
{
    uint32_t pos = 0;
    NormEntry *e;
    while ((e = ktab_next(&n->tab, &pos))) drop_row(n, e);
    ktab_clear(&n->tab);
}

static bool norm_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    NormOp *n = (NormOp *)op;
    OpReader r = {data, data + len, false};
    if (op_get_u32(&r) != NORM_MAGIC || op_get_u32(&r) != NORM_VERSION ||
        op_get_u32(&r) != (uint32_t)op->ncols) {
        snprintf(err, errsize, "state of %s: not a changelog_normalize state of this shape", n->state_id);
        return false;
    }
    clear_state(n);
    uint64_t cnt = op_get_u64(&r);
    Value *row = xmalloc(sizeof(Value) * (size_t)(op->ncols > 0 ? op->ncols : 1));
    for (uint64_t i = 0; i < cnt && !r.bad; i++) {
        op_get_row(&r, op->out_types, op->ncols, row);
        if (r.bad) break;
        for (int k = 0; k < n->src->npk; k++) n->keybuf[k] = row[n->src->pk_cols[k]];
        bool created;
        NormEntry *e = ktab_upsert(&n->tab, n->keybuf, ktab_hash(&n->tab, n->keybuf), &created);
        NormEntry old = store_row(n, e, row);
        drop_row(n, &old);
    }
    free(row);
    if (!op_get_finish(&r, true, n->state_id, err, errsize)) {
        clear_state(n);
        return false;
    }
    return true;
}

static void put_norm_entry(void *ctx, StrBuf *b, const void *payload)
{
    const NormOp *n = ctx;
    op_put_row(b, n->base.out_types, n->base.ncols, ((const NormEntry *)payload)->row);
}

static bool norm_save_chunks(Op *op, const char *name, const EngCkptIO *io, char *err, size_t errsize)
{
    NormOp *n = (NormOp *)op;
    /* the chunks first: a full save picks their size, which the base records */
    if (!op_chunks_save(&n->chunks, &n->tab, name, io, put_norm_entry, n, err, errsize)) return false;
    StrBuf b = STRBUF_INIT;
    op_put_u32(&b, NORM_MAGIC);
    op_put_u32(&b, NORM_VERSION_CHUNKED);
    op_put_u32(&b, (uint32_t)op->ncols);
    op_put_u8(&b, (uint8_t)n->chunks.bits);
    op_put_u64(&b, n->tab.count);
    bool ok = io->put(io->ctx, name, b.data, b.len, err, errsize);
    sb_free(&b);
    return ok;
}

typedef struct NormRead {
    NormOp *n;
    Value *row;
} NormRead;

static bool get_norm_entry(void *ctx, OpReader *r, uint64_t *hash)
{
    NormRead *nr = ctx;
    NormOp *n = nr->n;
    op_get_row(r, n->base.out_types, n->base.ncols, nr->row);
    if (r->bad) return false;
    for (int k = 0; k < n->src->npk; k++) n->keybuf[k] = nr->row[n->src->pk_cols[k]];
    *hash = ktab_hash(&n->tab, n->keybuf);
    bool created;
    NormEntry *e = ktab_upsert(&n->tab, n->keybuf, *hash, &created);
    if (!created) return false;
    NormEntry old = store_row(n, e, nr->row);
    drop_row(n, &old);
    return true;
}

static bool norm_restore_chunks(Op *op, const char *name, const uint8_t *data, size_t len, EngGetFn get, void *ctx,
                                char *err, size_t errsize)
{
    NormOp *n = (NormOp *)op;
    OpReader r = {data, data + len, false};
    if (op_get_u32(&r) != NORM_MAGIC || op_get_u32(&r) != NORM_VERSION_CHUNKED)
        return norm_deserialize(op, data, len, err, errsize);
    if (op_get_u32(&r) != (uint32_t)op->ncols) {
        snprintf(err, errsize, "state of %s: not a changelog_normalize state of this shape", n->state_id);
        return false;
    }
    int bits = op_get_u8(&r);
    uint64_t count = op_get_u64(&r);
    clear_state(n);
    NormRead nr = {n, xmalloc(sizeof(Value) * (size_t)(op->ncols > 0 ? op->ncols : 1))};
    bool ok = !r.bad && op_chunks_restore(&n->chunks, bits, count, name, get, ctx, get_norm_entry, &nr);
    free(nr.row);
    if (!op_get_finish(&r, ok, n->state_id, err, errsize)) {
        clear_state(n);
        op_chunks_fini(&n->chunks);
        return false;
    }
    return true;
}

static void norm_free(Op *op)
{
    NormOp *n = (NormOp *)op;
    op_chunks_fini(&n->chunks);
    clear_state(n);
    ktab_fini(&n->tab);
    free(n->key_types);
    free(n->keybuf);
    op_base_fini(op);
    free(n);
}

/* The source's current rows: the latest row of every key. */
static bool norm_emit_current(Op *op, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    NormOp *n = (NormOp *)op;
    uint32_t pos = 0;
    const NormEntry *e;
    while ((e = ktab_next(&n->tab, &pos))) batch_append_row_copy(op->out, e->row, op->out_types, 1);
    return true;
}

static const OpVtbl norm_vt = {
    .kind = "changelog_normalize",
    .step = norm_step,
    .free = norm_free,
    .state_stats = norm_stats,
    .serialize = norm_serialize,
    .deserialize = norm_deserialize,
    .save_chunks = norm_save_chunks,
    .restore_chunks = norm_restore_chunks,
    .emit_current = norm_emit_current,
};

Op *op_normalize_new(EngPipeline *p, const SourceDef *src, const char *state_id, Batch *out)
{
    NormOp *n = xcalloc(1, sizeof *n);
    op_base_init(&n->base, &norm_vt, p, NULL, NULL, 0);
    /* no IrNode: the schema is the source's */
    free(n->base.out_types);
    n->base.ncols = src->ncolumns;
    n->base.out_types = xmalloc(sizeof(Type) * (size_t)(src->ncolumns > 0 ? src->ncolumns : 1));
    for (int c = 0; c < src->ncolumns; c++) n->base.out_types[c] = src->columns[c].type;
    batch_fini(&n->base.own);
    batch_init(&n->base.own, src->ncolumns);
    n->base.out = out;
    n->base.model_name = src->name;
    n->src = src;
    n->state_id = state_id;
    n->key_types = xmalloc(sizeof(Type) * (size_t)(src->npk > 0 ? src->npk : 1));
    for (int k = 0; k < src->npk; k++) n->key_types[k] = src->columns[src->pk_cols[k]].type;
    n->keybuf = xcalloc((size_t)(src->npk > 0 ? src->npk : 1), sizeof(Value));
    ktab_init(&n->tab, src->npk, n->key_types, sizeof(NormEntry));
    return &n->base;
}
