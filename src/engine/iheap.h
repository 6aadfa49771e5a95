/* Indexed binary min-heap of intrusive items keyed by an int64 (event times,
 * deadlines). Items live in the caller's memory (e.g. keyed-table payloads, which
 * never move) and remember their position, so an arbitrary item can be removed or
 * re-keyed in O(log n). Used by the event-time operators to find what the watermark
 * closes: window ends, session deadlines, join rows' expiry times, buffered rows. */
#ifndef WEIR_ENGINE_IHEAP_H
#define WEIR_ENGINE_IHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct IHeapItem {
    int64_t key;
    int32_t idx;             /* position in the heap, -1 when not in one */
    int32_t pad_;
} IHeapItem;

typedef struct IHeap {
    IHeapItem **a;
    int32_t n, cap;
} IHeap;

/* A zeroed IHeap is empty. An item must have idx -1 (iheap_item_init) before push. */
static inline void iheap_item_init(IHeapItem *it) { it->idx = -1; }
void iheap_push(IHeap *h, IHeapItem *it, int64_t key);
void iheap_remove(IHeap *h, IHeapItem *it);
/* Change the key of an item in the heap (or push it if it is not in it). */
void iheap_update(IHeap *h, IHeapItem *it, int64_t key);
static inline IHeapItem *iheap_min(const IHeap *h) { return h->n > 0 ? h->a[0] : NULL; }
/* Release the array (the items are the caller's). */
void iheap_fini(IHeap *h);
/* Bytes of the heap's array (state accounting). */
static inline int64_t iheap_bytes(const IHeap *h) { return (int64_t)h->cap * (int64_t)sizeof(IHeapItem *); }

#endif
