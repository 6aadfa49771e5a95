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

/* A heap slot: the item's key is copied next to its pointer, so sifting compares
 * keys within the array instead of following pointers into the items' memory. */
typedef struct IHeapSlot {
    int64_t key;
    IHeapItem *it;
} IHeapSlot;

typedef struct IHeap {
    IHeapSlot *a;
    int32_t n, cap;
} IHeap;

/* A zeroed IHeap is empty. An item must have idx -1 (iheap_item_init) before push. */
static inline void iheap_item_init(IHeapItem *it) { it->idx = -1; }
void iheap_push(IHeap *h, IHeapItem *it, int64_t key);
void iheap_remove(IHeap *h, IHeapItem *it);
/* Change the key of an item in the heap (or push it if it is not in it). */
void iheap_update(IHeap *h, IHeapItem *it, int64_t key);
static inline IHeapItem *iheap_min(const IHeap *h) { return h->n > 0 ? h->a[0].it : NULL; }
/* Release the array (the items are the caller's). */
void iheap_fini(IHeap *h);
/* Bytes of the heap's array (state accounting). */
static inline int64_t iheap_bytes(const IHeap *h) { return (int64_t)h->cap * (int64_t)sizeof(IHeapSlot); }

/* An expiry queue: the same interface over a FIFO ring and a heap. An item pushed with
 * a key not below the last one queued (event time arriving in order, the usual case)
 * is appended to the ring in O(1); others go to the heap. The minimum is the smaller
 * of the ring's front and the heap's top. Removing an item from the ring only marks
 * its slot; marked slots are dropped when they reach the front. Item idx: >= 0 heap
 * position, -1 not queued, <= -2 ring slot (-2 - idx). */
typedef struct IQueue {
    IHeap heap;
    IHeapSlot *ring;         /* cap slots; live ones have it != NULL */
    uint32_t head, n, cap;   /* front slot, slots in use (live or marked) */
    int64_t last_key;        /* key of the last slot appended */
} IQueue;

/* A zeroed IQueue is empty. */
void iqueue_push(IQueue *q, IHeapItem *it, int64_t key);
void iqueue_remove(IQueue *q, IHeapItem *it);
IHeapItem *iqueue_min(IQueue *q);
void iqueue_fini(IQueue *q);
static inline int64_t iqueue_bytes(const IQueue *q)
{
    return iheap_bytes(&q->heap) + (int64_t)q->cap * (int64_t)sizeof(IHeapSlot);
}

#endif
