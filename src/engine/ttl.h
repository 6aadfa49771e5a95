/* Idle-key expiry for a model's state_ttl, shared by the keyed operators whose state
 * would otherwise grow without bound (GROUP BY aggregates, DISTINCT, unbounded join
 * sides). An entry's last update time is the largest watermark its rows were judged
 * against (op_judge_wm: the watermark that held before the row in its source, or the
 * operator's input watermark when that is later). The entry has expired for a
 * watermark wm when last update < wm - ttl. Expiry is silent: the operator drops the
 * entry without emitting anything, and a later row for the key starts from empty state.
 *
 * Two paths give the same result at any batching: a row that finds its entry expired
 * (judged by the row's own watermark) drops it before applying itself, and when the
 * operator's watermark advances, ttl_pop_expired hands out the expired entries so their
 * memory goes. Every entry sits in an expiry queue once, at the time it was queued;
 * touching only moves the entry's own last-update time, and an entry found at the front
 * that was touched since is queued again at that time (no queue work per row). */
#ifndef WEIR_ENGINE_TTL_H
#define WEIR_ENGINE_TTL_H

#include "engine/iheap.h"
#include "engine/op.h"
#include "ir/ir.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Embedded in an entry's payload (which never moves). */
typedef struct TtlItem {
    IHeapItem h;             /* queued at a time <= touch, or not queued */
    int64_t touch;           /* last update time (INT64_MIN: before any watermark) */
} TtlItem;

typedef struct Ttl {
    int64_t ttl_us;          /* 0: the operator has no state_ttl */
    IQueue q;
    int64_t expired;         /* entries expired so far */
} Ttl;

/* ttl_us of state descriptor `index` of n when its bound is `ttl`, else 0. */
static inline int64_t ttl_of_state(const IrNode *n, int index)
{
    return n && index < n->nstate && n->state[index].bound == BOUND_TTL ? n->state[index].ttl_us : 0;
}
static inline bool ttl_on(const Ttl *t) { return t->ttl_us > 0; }
/* A new entry (zeroed payload): not queued, never touched. */
static inline void ttl_item_init(TtlItem *it)
{
    iheap_item_init(&it->h);
    it->touch = INT64_MIN;
}
/* An entry type whose TtlItem is its last member `tt` is stored without it when the
 * operator has no state_ttl (every ttl_* call below reads the item only under a TTL):
 * the payload size to give its table, and the item's initialisation. */
#define TTL_PAYLOAD(t, type) (ttl_on(t) ? sizeof(type) : offsetof(type, tt))
static inline void ttl_entry_init(const Ttl *t, TtlItem *it)
{
    if (t->ttl_us > 0) ttl_item_init(it);
}
/* The entries last updated before this time have expired at watermark wm. */
static inline int64_t ttl_limit(const Ttl *t, int64_t wm) { return wm == INT64_MIN ? INT64_MIN : op_sat_add(wm, -t->ttl_us); }
/* Has the entry expired for a row judged at wm? False without a TTL. */
static inline bool ttl_expired(const Ttl *t, const TtlItem *it, int64_t wm)
{
    return t->ttl_us > 0 && it->touch < ttl_limit(t, wm);
}
/* A row judged at wm updated the entry. */
static inline void ttl_touch(Ttl *t, TtlItem *it, int64_t wm)
{
    if (t->ttl_us <= 0) return;
    if (wm > it->touch) it->touch = wm;
    if (it->h.idx == -1) iqueue_push(&t->q, &it->h, it->touch);
}
/* The entry goes (for any reason): take it out of the queue. */
static inline void ttl_forget(Ttl *t, TtlItem *it)
{
    if (t->ttl_us > 0) iqueue_remove(&t->q, &it->h);
}
/* The next entry expired at watermark wm, taken out of the queue (the caller drops it
 * and counts it with ttl_count), or NULL when none is. */
TtlItem *ttl_pop_expired(Ttl *t, int64_t wm);
static inline void ttl_count(Ttl *t) { t->expired++; }
/* Empty the queue (the entries are the caller's; their items are not reset). */
static inline void ttl_reset(Ttl *t) { iqueue_fini(&t->q); }
static inline int64_t ttl_bytes(const Ttl *t) { return iqueue_bytes(&t->q); }

#endif
