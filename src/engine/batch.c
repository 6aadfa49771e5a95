/* Batches of (row, weight) changes: growable row-major cell arrays with a per-batch
 * text arena (see batch.h). */
#include "engine/batch.h"

#include <stdlib.h>
#include <string.h>

void batch_init(Batch *b, int ncols)
{
    memset(b, 0, sizeof *b);
    b->ncols = ncols;
    arena_init(&b->arena, 64 * 1024);
}

void batch_fini(Batch *b)
{
    free(b->vals);
    free(b->weights);
    free(b->origins);
    free(b->frontier);
    arena_fini(&b->arena);
    memset(b, 0, sizeof *b);
}

void batch_clear(Batch *b)
{
    b->n = 0;
    arena_reset(&b->arena);
}

static void grow(Batch *b)
{
    int cap = b->cap ? b->cap * 2 : 64;
    size_t cells = (size_t)cap * (size_t)(b->ncols > 0 ? b->ncols : 1);
    b->vals = xrealloc(b->vals, cells * sizeof(Value));
    b->weights = xrealloc(b->weights, (size_t)cap * sizeof(int64_t));
    if (b->origins) b->origins = xrealloc(b->origins, (size_t)cap * sizeof(RowOrigin));
    if (b->frontier) b->frontier = xrealloc(b->frontier, (size_t)cap * sizeof(int64_t));
    b->cap = cap;
}

static const RowOrigin no_origin = {NULL, 0, -1, 0};

/* The optional per-row fields of a new row i: no origin, no frontier. */
static inline void clear_meta(Batch *b, int i)
{
    if (__builtin_expect(b->origins != NULL || b->frontier != NULL, 0)) {
        if (b->origins) b->origins[i] = no_origin;
        if (b->frontier) b->frontier[i] = INT64_MIN;
    }
}

Value *batch_append(Batch *b, int64_t weight)
{
    if (b->n == b->cap) grow(b);
    Value *row = batch_row(b, b->n);
    memset(row, 0, sizeof(Value) * (size_t)b->ncols);
    b->weights[b->n] = weight;
    clear_meta(b, b->n);
    b->n++;
    return row;
}

void batch_append_row(Batch *b, const Value *row, int64_t weight)
{
    if (b->n == b->cap) grow(b);
    memcpy(batch_row(b, b->n), row, sizeof(Value) * (size_t)b->ncols);
    b->weights[b->n] = weight;
    clear_meta(b, b->n);
    b->n++;
}

Value batch_text(Batch *b, const char *s, uint32_t len)
{
    char *p = arena_alloc_raw(&b->arena, (size_t)len + 1);
    if (len) memcpy(p, s, len);
    p[len] = '\0';
    return value_text(p, len);
}

void batch_append_row_copy(Batch *b, const Value *row, const Type *types, int64_t weight)
{
    batch_append_row(b, row, weight);
    batch_copy_text(b, batch_row(b, b->n - 1), types, b->ncols);
}

void batch_set_origin(Batch *b, int i, const RowOrigin *o)
{
    if (!b->origins) {
        b->origins = xmalloc((size_t)(b->cap > 0 ? b->cap : 1) * sizeof(RowOrigin));
        for (int k = 0; k < b->n; k++) b->origins[k] = no_origin;
    }
    b->origins[i] = *o;
}

void batch_alloc_frontier(Batch *b)
{
    b->frontier = xmalloc((size_t)(b->cap > 0 ? b->cap : 1) * sizeof(int64_t));
    for (int k = 0; k < b->n; k++) b->frontier[k] = INT64_MIN;
}
