/* The net change per key of a keyed (upsert or table) model between two flushes of
 * its sink: however many steps touched a key, the sink receives one change for it,
 * from the row the sink holds (as of the last flush) to the row the model has now:
 *
 *   before   now      emitted
 *   absent   row      insert row
 *   row      absent   delete row (as it was)
 *   old      row      update row (old row: old), nothing when old and row are equal
 *   absent   absent   nothing
 *
 * Rows and keys are kept encoded (engine/row_codec.h) in one growing buffer, the
 * entries in one array with an open-addressing index over the key bytes: no
 * allocation per change once the buffers have grown. Keys compare as their encoded
 * bytes (the representation the model emits; a group keeps its key's representation).
 * Changes are emitted in the order their keys were first touched since the last
 * flush, so the result does not depend on how steps were cut, only on the rows. */
#ifndef WEIR_RUNTIME_COALESCE_H
#define WEIR_RUNTIME_COALESCE_H

#include "base/strbuf.h"
#include "engine/engine.h"
#include "engine/row_codec.h"
#include "sql/plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct CoalEntry CoalEntry;

typedef struct Coalescer {
    RowCodec row;                /* the model's output columns */
    RowCodec key;                /* its key columns */
    int ncols, nkey;
    int *key_cols;
    Type *key_types;
    Value *key_scratch;          /* nkey cells */
    CoalEntry *e;                /* keys touched since the last flush, in that order */
    uint32_t n, cap;
    uint32_t *index;             /* entry + 1, 0 = empty; a power of two long */
    uint32_t nindex;
    StrBuf bytes;                /* encoded keys (past the entry's room) and rows */
    StrBuf kbuf;                 /* the keys of the changes being folded */
    uint8_t *scratch;            /* one encoded row */
    size_t scratch_cap;
} Coalescer;

/* A coalescer for a model with output columns cols[ncols] and key columns key[nkey]
 * (nkey > 0). */
void coalesce_init(Coalescer *c, const PlanColumn *cols, int ncols, const int *key, int nkey);
void coalesce_fini(Coalescer *c);
/* Fold a step's changes in (copied). An update whose key changed counts as a delete
 * of the old key and an insert of the new one. */
void coalesce_add(Coalescer *c, const EngChange *changes, int n);
/* Keys touched since the last clear (an upper bound on the changes emit yields). */
static inline uint32_t coalesce_keys(const Coalescer *c) { return c->n; }
/* Bytes held. */
static inline size_t coalesce_bytes(const Coalescer *c) { return c->bytes.len; }

typedef bool (*CoalEmitFn)(void *ctx, const EngChange *changes, int n, char *err, size_t errsize);
/* Call fn with the net changes (see above), in chunks; rows are valid during the call.
 * Stops at the first false. Leaves the coalescer as it was (coalesce_clear empties it). */
bool coalesce_emit(const Coalescer *c, CoalEmitFn fn, void *ctx, char *err, size_t errsize);
/* Forget every key (after a flush). Keeps the buffers. */
void coalesce_clear(Coalescer *c);

#endif
