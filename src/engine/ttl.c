/* Idle-key expiry (ttl.h): the expiry queue's lazy re-queueing. */
#include "engine/ttl.h"

#include <stddef.h>

TtlItem *ttl_pop_expired(Ttl *t, int64_t wm)
{
    if (t->ttl_us <= 0) return NULL;
    int64_t limit = ttl_limit(t, wm);
    IHeapItem *h;
    while ((h = iqueue_min(&t->q)) && h->key < limit) {
        TtlItem *it = (TtlItem *)((char *)h - offsetof(TtlItem, h));
        iqueue_remove(&t->q, h);
        if (it->touch < limit) return it;
        iqueue_push(&t->q, h, it->touch); /* touched since it was queued */
    }
    return NULL;
}
