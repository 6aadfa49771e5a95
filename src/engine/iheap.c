/* Indexed binary min-heap (see iheap.h). */
#include "engine/iheap.h"

#include "base/arena.h"

#include <stdlib.h>

static inline void set(IHeap *h, int32_t i, IHeapItem *it)
{
    h->a[i] = it;
    it->idx = i;
}

static void sift_up(IHeap *h, int32_t i)
{
    IHeapItem *it = h->a[i];
    while (i > 0) {
        int32_t p = (i - 1) / 2;
        if (h->a[p]->key <= it->key) break;
        set(h, i, h->a[p]);
        i = p;
    }
    set(h, i, it);
}

static void sift_down(IHeap *h, int32_t i)
{
    IHeapItem *it = h->a[i];
    for (;;) {
        int32_t l = 2 * i + 1;
        if (l >= h->n) break;
        int32_t c = l + 1 < h->n && h->a[l + 1]->key < h->a[l]->key ? l + 1 : l;
        if (h->a[c]->key >= it->key) break;
        set(h, i, h->a[c]);
        i = c;
    }
    set(h, i, it);
}

void iheap_push(IHeap *h, IHeapItem *it, int64_t key)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->a = xrealloc(h->a, sizeof(IHeapItem *) * (size_t)h->cap);
    }
    it->key = key;
    set(h, h->n, it);
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
    IHeapItem *m = h->a[h->n];
    set(h, i, m);
    sift_down(h, i);
    sift_up(h, m->idx);
}

void iheap_update(IHeap *h, IHeapItem *it, int64_t key)
{
    if (it->idx < 0) {
        iheap_push(h, it, key);
        return;
    }
    int64_t old = it->key;
    it->key = key;
    if (key < old) sift_up(h, it->idx);
    else if (key > old) sift_down(h, it->idx);
}

void iheap_fini(IHeap *h)
{
    free(h->a);
    h->a = NULL;
    h->n = h->cap = 0;
}
