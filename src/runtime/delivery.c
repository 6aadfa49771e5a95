/* Pending changes of a durable run's sink (see delivery.h). */
#include "runtime/delivery.h"

#include "base/bytes.h"
#include "base/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DELIVERY_MAGIC 0x32445357u   /* "WSD2" */
#define CHUNK 1024                   /* changes decoded per sink_write call */

void delivery_init(Delivery *d, const PlanColumn *cols, int ncols)
{
    memset(d, 0, sizeof *d);
    d->live = true;
    Type *types = xcalloc((size_t)ncols + 1, sizeof(Type));
    for (int c = 0; c < ncols; c++) types[c] = cols[c].type;
    rowc_init(&d->codec, types, ncols);
    d->types = types;
    d->ncols = ncols;
    sb_init(&d->changes);
}

void delivery_fini(Delivery *d)
{
    if (!d->live) return;
    if (d->coal) {
        coalesce_fini(d->coal);
        free(d->coal);
        d->coal = NULL;
    }
    rowc_fini(&d->codec);
    free(d->types);
    sb_free(&d->changes);
    d->live = false;
}

static void add_row(Delivery *d, const Value *row)
{
    size_t n = rowc_size(&d->codec, row);
    bytes_put_u32(&d->changes, (uint32_t)n);
    sb_reserve(&d->changes, n);
    rowc_encode(&d->codec, row, (uint8_t *)d->changes.data + d->changes.len);
    d->changes.len += n;
}

static void log_changes(Delivery *d, const EngChange *changes, int n)
{
    for (int i = 0; i < n; i++) {
        const EngChange *c = &changes[i];
        bytes_put_u8(&d->changes, (uint8_t)c->op);
        add_row(d, c->row);
        if (c->op == CHANGE_UPDATE) add_row(d, c->old_row);
    }
    d->n += (uint64_t)n;
}

void delivery_add(Delivery *d, const EngChange *changes, int n)
{
    if (d->coal) coalesce_add(d->coal, changes, n);
    else log_changes(d, changes, n);
}

void delivery_coalesce(Delivery *d, const int *key, int nkey)
{
    if (nkey <= 0 || d->coal) return;
    d->coal = xcalloc(1, sizeof *d->coal);
    /* the codec's columns are the model's; coalesce.c needs their types only */
    PlanColumn *cols = xcalloc((size_t)d->ncols + 1, sizeof(PlanColumn));
    for (int c = 0; c < d->ncols; c++) cols[c].type = d->types[c];
    coalesce_init(d->coal, cols, d->ncols, key, nkey);
    free(cols);
}

static bool log_chunk(void *ctx, const EngChange *changes, int n, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    log_changes(ctx, changes, n);
    return true;
}

void delivery_seal(Delivery *d)
{
    if (!d->coal) return;
    coalesce_emit(d->coal, log_chunk, d, NULL, 0);
    coalesce_clear(d->coal);
}

void delivery_header(const Delivery *d, uint64_t ckpt, uint64_t base, StrBuf *out)
{
    bytes_put_u32(out, DELIVERY_MAGIC);
    bytes_put_u64(out, ckpt);
    bytes_put_u64(out, base);
    bytes_put_u8(out, d->replace ? 1 : 0);
    bytes_put_u64(out, d->n);
}

void delivery_clear(Delivery *d)
{
    sb_clear(&d->changes);
    d->n = 0;
    d->replace = false;
}

static bool get_row(const Delivery *d, ByteReader *r, Value *out)
{
    uint32_t len = bytes_get_u32(r);
    const uint8_t *p = bytes_take(r, len);
    if (!p) return false;
    /* blobs come from weir's own store; the size check catches a blob of another
     * schema (the codec itself trusts its input) */
    rowc_decode(&d->codec, p, out);
    return rowc_size(&d->codec, out) == len;
}

static bool malformed(ConnSink *sink, char *err, size_t errsize)
{
    snprintf(err, errsize, "model %s: the checkpoint's delivery is malformed", sink->model);
    return false;
}

static bool apply(const Delivery *d, ConnSink *sink, uint64_t ckpt, uint64_t base, bool replace, uint64_t n,
                  ByteReader r, char *err, size_t errsize)
{
    bool already;
    if (!sink_begin_delivery(sink, ckpt, base, replace, &already, err, errsize)) return false;
    if (already) return true;
    size_t nc = (size_t)(d->ncols > 0 ? d->ncols : 1);
    Value *rows = xmalloc(sizeof(Value) * nc * 2 * CHUNK);
    EngChange *ch = xmalloc(sizeof(EngChange) * CHUNK);
    bool ok = true;
    for (uint64_t done = 0; done < n && ok;) {
        int k = 0;
        for (; k < CHUNK && done < n; k++, done++) {
            Value *row = rows + (size_t)k * 2 * nc, *old = row + nc;
            uint8_t op = bytes_get_u8(&r);
            ok = op <= CHANGE_DELETE && get_row(d, &r, row) && (op != CHANGE_UPDATE || get_row(d, &r, old));
            if (!ok) break;
            ch[k] = (EngChange){(ChangeOp)op, row, op == CHANGE_UPDATE ? old : NULL};
        }
        ok = ok ? sink_write(sink, ch, k, err, errsize) : malformed(sink, err, errsize);
        if (ok) fault_point("delivery");
    }
    if (ok && !bytes_done(&r)) ok = malformed(sink, err, errsize);
    free(rows);
    free(ch);
    ok = ok && sink_end_delivery(sink, ckpt, err, errsize);
    if (ok) fault_point("delivered");
    return ok;
}

bool delivery_apply_pending(Delivery *d, ConnSink *sink, uint64_t ckpt, uint64_t base, char *err,
                            size_t errsize)
{
    d->delivered += d->n;
    d->deliveries++;
    return apply(d, sink, ckpt, base, d->replace, d->n, bytes_reader(d->changes.data, d->changes.len), err, errsize);
}

bool delivery_apply_blob(const Delivery *d, ConnSink *sink, const void *blob, size_t len, char *err, size_t errsize)
{
    ByteReader r = bytes_reader(blob, len);
    uint32_t magic = bytes_get_u32(&r);
    uint64_t ckpt = bytes_get_u64(&r);
    uint64_t base = bytes_get_u64(&r);
    uint8_t flags = bytes_get_u8(&r);
    uint64_t n = bytes_get_u64(&r);
    if (r.bad || magic != DELIVERY_MAGIC || flags > 1 || n > len) return malformed(sink, err, errsize);
    return apply(d, sink, ckpt, base, flags == 1, n, r, err, errsize);
}

bool delivery_blob_summary(const void *blob, size_t len, uint64_t *ckpt, uint64_t *n)
{
    ByteReader r = bytes_reader(blob, len);
    uint32_t magic = bytes_get_u32(&r);
    *ckpt = bytes_get_u64(&r);
    bytes_get_u64(&r);
    bytes_get_u8(&r);
    *n = bytes_get_u64(&r);
    return !r.bad && magic == DELIVERY_MAGIC;
}
