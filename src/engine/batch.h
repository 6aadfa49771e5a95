/* A batch of changes (a Z-set delta): rows of Values with integer weights (+1 insert,
 * -1 retract; consolidated batches may hold other weights). Rows are stored row-major
 * in `vals` (n * ncols cells). Text cells point into `arena` (owned by the batch) or
 * into memory that outlives the step (upstream batches, keyed state). Batches passed
 * between operators are borrowed: a consumer reads them during the step and never
 * keeps pointers into them after it. */
#ifndef WEIR_ENGINE_BATCH_H
#define WEIR_ENGINE_BATCH_H

#include "base/arena.h"
#include "base/value.h"

#include <stdint.h>

/* Where a source row came from, for dead letters and replay (file:line or
 * topic/partition/offset). Optional per row. */
typedef struct RowOrigin {
    const char *where;       /* file path or topic */
    int64_t line;            /* line number (files) or offset (kafka) */
    int32_t partition;       /* -1 for files */
    int64_t timestamp_us;    /* broker/event timestamp or 0 */
} RowOrigin;

typedef struct Batch {
    int ncols;
    int n, cap;
    Value *vals;
    int64_t *weights;
    RowOrigin *origins;      /* NULL unless the producer records origins */
    int64_t *frontier;       /* NULL unless recorded: per row, the event-time watermark
                                that held before the row in its source (INT64_MIN: none
                                known); what time-dependent operators judge it against */
    Arena arena;             /* text produced for this batch */
} Batch;

void batch_init(Batch *b, int ncols);
void batch_fini(Batch *b);
/* Drop all rows and text; keeps capacity. */
void batch_clear(Batch *b);
/* Append a zeroed row with weight w; returns its cells (valid until the next append). */
Value *batch_append(Batch *b, int64_t weight);
/* Append a copy of row (ncols cells; text is NOT copied: the caller guarantees its lifetime). */
void batch_append_row(Batch *b, const Value *row, int64_t weight);
static inline Value *batch_row(const Batch *b, int i) { return b->vals + (size_t)i * (size_t)b->ncols; }
/* Copy text bytes into the batch arena and return the stored Value. */
Value batch_text(Batch *b, const char *s, uint32_t len);
/* Append a copy of row (ncols cells of the given types) whose text bytes are copied
 * into the batch arena, so the row stays valid however long the caller's copy lives. */
void batch_append_row_copy(Batch *b, const Value *row, const Type *types, int64_t weight);
/* Point the non-NULL text cells among the first n cells of row (of the given types) at
 * copies of their bytes in the batch arena: for a row already in b whose text points
 * into state that may change or go away. */
static inline void batch_copy_text(Batch *b, Value *row, const Type *types, int n)
{
    for (int c = 0; c < n; c++)
        if (type_is_varlen(types[c]) && !row[c].isnull) row[c] = batch_text(b, row[c].s, row[c].len);
}
/* Record where row i came from. The first call allocates `origins` (rows without a
 * recorded origin read as {NULL, 0, -1, 0}); from then on appends keep it in step with
 * the rows. The RowOrigin (and its `where` string) is copied by value: `where` must
 * outlive the step. */
void batch_set_origin(Batch *b, int i, const RowOrigin *o);

/* Record the watermark that held before row i (see Batch.frontier). The first call
 * allocates `frontier` (rows without one read INT64_MIN); from then on appends keep
 * it in step with the rows. */
void batch_alloc_frontier(Batch *b);
static inline void batch_set_frontier(Batch *b, int i, int64_t wm)
{
    if (!b->frontier) batch_alloc_frontier(b);
    b->frontier[i] = wm;
}
/* The watermark recorded for row i, INT64_MIN when none. */
static inline int64_t batch_frontier(const Batch *b, int i) { return b->frontier ? b->frontier[i] : INT64_MIN; }

#endif
