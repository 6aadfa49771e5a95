/* Indexed binary min-heap (see iheap.h). */
#include "engine/iheap.h"

#include "base/arena.h"

#include <stdlib.h>

static inline void set(IHeap *h, int32_t i, IHeapSlot s)
{
    h->a[i] = s;
    s.it->idx = i;
}

static void sift_up(IHeap *h, int32_t i)
{
    IHeapSlot s = h->a[i];
    while (i > 0) {
        int32_t p = (i - 1) / 2;
        if (h->a[p].key <= s.key) break;
        set(h, i, h->a[p]);
        i = p;
    }
    set(h, i, s);
}

static void sift_down(IHeap *h, int32_t i)
{
    IHeapSlot s = h->a[i];
    for (;;) {
        int32_t l = 2 * i + 1;
        if (l >= h->n) break;
        int32_t c = l + 1 < h->n && h->a[l + 1].key < h->a[l].key ? l + 1 : l;
        if (h->a[c].key >= s.key) break;
        set(h, i, h->a[c]);
        i = c;
    }
    set(h, i, s);
}

void iheap_push(IHeap *h, IHeapItem *it, int64_t key)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->a = xrealloc(h->a, sizeof(IHeapSlot) * (size_t)h->cap);
    }
    it->key = key;
    set(h, h->n, (IHeapSlot){key, it});
    h->n++;
    sift_up(h, h->n - 1);
}

void iheap_remove(IHeap *h, IHeapItem *it)
{
    int32_t i = it->idx;
    if (i < 0) return;
    it->idx = -1;
    h->n--;
    if (i == h->n) return;
    IHeapSlot m = h->a[h->n];
    set(h, i, m);
    sift_down(h, i);
    sift_up(h, m.it->idx);
}

void iheap_update(IHeap *h, IHeapItem *it, int64_t key)
{
    if (it->idx < 0) {
        iheap_push(h, it, key);
        return;
    }
    int64_t old = it->key;
    it->key = key;
    h->a[it->idx].key = key;
    if (key < old) sift_up(h, it->idx);
    else if (key > old) sift_down(h, it->idx);
}

void iheap_fini(IHeap *h)
{
    free(h->a);
    h->a = NULL;
    h->n = h->cap = 0;
}

/* ---------- expiry queue ---------- */

static void ring_grow(IQueue *q)
{
    uint32_t ncap = q->cap ? q->cap * 2 : 64;
    IHeapSlot *nr = xmalloc(sizeof(IHeapSlot) * ncap);
    uint32_t k = 0;
    for (uint32_t i = 0; i < q->n; i++) {
        IHeapSlot sl = q->ring[(q->head + i) % q->cap];
        if (!sl.it) continue; /* marked: drop it now */
        sl.it->idx = -2 - (int32_t)k;
        nr[k++] = sl;
    }
    free(q->ring);
    q->ring = nr;
    q->cap = ncap;
    q->head = 0;
    q->n = k;
}

void iqueue_push(IQueue *q, IHeapItem *it, int64_t key)
{
    if (q->n > 0 && key < q->last_key) {
        iheap_push(&q->heap, it, key);
        return;
    }
    if (q->n == q->cap) ring_grow(q);
    uint32_t pos = (q->head + q->n) % q->cap;
    it->key = key;
    it->idx = -2 - (int32_t)pos;
    q->ring[pos] = (IHeapSlot){key, it};
    q->n++;
    q->last_key = key;
}

void iqueue_remove(IQueue *q, IHeapItem *it)
{
    if (it->idx >= 0) {
        iheap_remove(&q->heap, it);
    } else if (it->idx <= -2) {
        q->ring[-2 - it->idx].it = NULL;
        it->idx = -1;
    }
}

IHeapItem *iqueue_min(IQueue *q)
{
    while (q->n > 0 && !q->ring[q->head].it) {
        q->head = (q->head + 1) % q->cap;
        q->n--;
    }
    IHeapItem *r = q->n > 0 ? q->ring[q->head].it : NULL;
    IHeapItem *h = iheap_min(&q->heap);
    if (!r) return h;
    if (!h) return r;
    return h->key < r->key ? h : r;
}

void iqueue_fini(IQueue *q)
{
    iheap_fini(&q->heap);
    free(q->ring);
    q->ring = NULL;
    q->head = q->n = q->cap = 0;
    q->last_key = 0;
}
