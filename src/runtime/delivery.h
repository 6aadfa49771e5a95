/* A sink's pending changes in a durable run: the changes a model emitted since the
 * last checkpoint, encoded compactly (one byte of op, the row, for an update also the
 * old row, with engine/row_codec.h) into one buffer that is stored in the checkpoint
 * as it is and decoded again for delivery, both right after the checkpoint and after a
 * crash. The blob layout: magic, checkpoint id, delivery base, flags (replace), change
 * count, changes. */
#ifndef WEIR_RUNTIME_DELIVERY_H
#define WEIR_RUNTIME_DELIVERY_H

#include "base/strbuf.h"
#include "connectors/sink.h"
#include "engine/row_codec.h"
#include "runtime/coalesce.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct Delivery {
    bool live;                   /* initialised */
    RowCodec codec;              /* the model's output columns */
    Type *types;                 /* their types */
    int ncols;
    StrBuf changes;              /* encoded changes since the last checkpoint */
    uint64_t n;                  /* how many */
    bool replace;                /* the changes are the sink's whole content (weir apply's
                                    restatement): the sink is emptied first */
    Coalescer *coal;             /* a keyed model's sink: changes coalesced per key until
                                    delivery_seal moves them into `changes` */
    uint64_t delivered;          /* changes delivered by delivery_apply_pending */
    int64_t deliveries;          /* deliveries made */
} Delivery;

void delivery_init(Delivery *d, const PlanColumn *cols, int ncols);
void delivery_fini(Delivery *d);
/* Coalesce the changes per key (columns key[nkey] of the row): a checkpoint's delivery
 * then holds one change per key touched since the previous one (runtime/coalesce.h). */
void delivery_coalesce(Delivery *d, const int *key, int nkey);
/* Before the checkpoint is written: the coalesced changes become the pending changes
 * (nothing to do for a delivery that does not coalesce). */
void delivery_seal(Delivery *d);
/* Append changes (copied). */
void delivery_add(Delivery *d, const EngChange *changes, int n);
/* Bytes pending. */
static inline size_t delivery_bytes(const Delivery *d)
{
    return d->changes.len + (d->coal ? coalesce_bytes(d->coal) : 0);
}
/* The blob of checkpoint `ckpt` whose delivery starts at `base` is this header
 * followed by d->changes. */
void delivery_header(const Delivery *d, uint64_t ckpt, uint64_t base, StrBuf *out);
void delivery_clear(Delivery *d);
/* Deliver the pending changes as checkpoint `ckpt` from `base` (after the checkpoint
 * that holds them is durable). */
bool delivery_apply_pending(Delivery *d, ConnSink *sink, uint64_t ckpt, uint64_t base, char *err,
                            size_t errsize);
/* The checkpoint id and change count of a stored blob (false: not a delivery). */
bool delivery_blob_summary(const void *blob, size_t len, uint64_t *ckpt, uint64_t *n);
/* Decode a stored blob and deliver it (a resumed run). Fails with a message on a
 * malformed blob or a sink error. */
bool delivery_apply_blob(const Delivery *d, ConnSink *sink, const void *blob, size_t len, char *err, size_t errsize);

#endif
