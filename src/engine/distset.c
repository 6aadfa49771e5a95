/* Open-addressing hash multiset for DISTINCT aggregates (see distset.h). */
#include "engine/distset.h"

#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

/* Types value_equal compares through v->i alone. */
static inline bool int_like(Type t)
{
    switch ((TypeId)t.id) {
    case T_FLOAT4: case T_FLOAT8: case T_NUMERIC: case T_TEXT: case T_UNKNOWN: case T_INTERVAL:
        return false;
    default:
        return true;
    }
}

static inline bool owns_text(Type t) { return t.id == T_TEXT || t.id == T_UNKNOWN; }

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static inline size_t ent_size(const DSet *s)
{
    return sizeof(DSetEnt) + sizeof(int64_t) * (s->presence ? 1 : s->width);
}

static inline DSetEnt *ent(const DSet *s, uint32_t i)
{
    return (DSetEnt *)(s->slots + (size_t)i * ent_size(s));
}

void dset_init(DSet *s, uint32_t width, bool presence)
{
    memset(s, 0, sizeof *s);
    s->width = width > 0 ? width : 1;
    s->presence = presence && s->width <= 64;
}

uint64_t dset_hash(Type t, const Value *v)
{
    return int_like(t) ? mix64((uint64_t)v->i) : value_hash(t, v, 0x5eedd15cu);
}

static inline bool same(Type t, const DSetEnt *e, uint64_t h, const Value *v)
{
    if (e->hash != h) return false;
    return int_like(t) ? e->v.i == v->i : value_equal(t, &e->v, v);
}

/* Slot of v, or of the empty slot where it would go (cap > 0). */
static inline uint32_t find_slot(const DSet *s, Type t, const Value *v, uint64_t h)
{
    uint32_t mask = s->cap - 1, i = (uint32_t)h & mask;
    for (;;) {
        const DSetEnt *e = ent(s, i);
        if (e->nlive == 0 || same(t, e, h, v)) return i;
        i = (i + 1) & mask;
    }
}

const DSetEnt *dset_find(const DSet *s, Type t, const Value *v, uint64_t h)
{
    if (s->n == 0) return NULL;
    const DSetEnt *e = ent(s, find_slot(s, t, v, h));
    return e->nlive ? e : NULL;
}

void dset_prefetch(const DSet *s, Type t, const Value *v)
{
    if (s->cap) __builtin_prefetch(ent(s, (uint32_t)dset_hash(t, v) & (s->cap - 1)));
}

int64_t dset_count(const DSet *s, Type t, const Value *v, uint32_t k)
{
    const DSetEnt *e = dset_find(s, t, v, dset_hash(t, v));
    return e ? dset_ent_count(s, e, k) : 0;
}

static void grow(DSet *s, int64_t *bytes)
{
    uint32_t ncap = s->cap ? s->cap * 2 : 8;
    size_t es = ent_size(s);
    DSet old = *s;
    s->slots = xcalloc_large((size_t)ncap * es);
    s->cap = ncap;
    uint32_t mask = ncap - 1;
    for (uint32_t k = 0; k < old.cap; k++) {
        const DSetEnt *e = ent(&old, k);
        if (e->nlive == 0) continue;
        uint32_t i = (uint32_t)e->hash & mask;
        while (ent(s, i)->nlive != 0) i = (i + 1) & mask;
        memcpy(ent(s, i), e, es);
    }
    if (old.slots) xfree_large(old.slots, (size_t)old.cap * es);
    *bytes += (int64_t)(ncap - old.cap) * (int64_t)es;
}

/* Remove slot i, shifting later members of its probe run back (no tombstones). */
static void remove_at(DSet *s, uint32_t i)
{
    uint32_t mask = s->cap - 1, j = i;
    size_t es = ent_size(s);
    for (;;) {
        ent(s, i)->nlive = 0;
        for (;;) {
            j = (j + 1) & mask;
            if (ent(s, j)->nlive == 0) return;
            uint32_t home = (uint32_t)ent(s, j)->hash & mask;
            /* j may move to i if its home is not in (i, j] (cyclically) */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) break;
        }
        memcpy(ent(s, i), ent(s, j), es);
        i = j;
    }
}

void dset_apply(DSet *s, Type t, const Value *v, uint64_t h, const int64_t *delta, int64_t *bytes)
{
    bool any = false;
    for (uint32_t k = 0; k < s->width; k++) any |= delta[k] != 0;
    if (!any) return;
    if (s->cap == 0 || (uint64_t)(s->n + 1) * 4 > (uint64_t)s->cap * 3) grow(s, bytes);
    uint32_t i = find_slot(s, t, v, h);
    DSetEnt *e = ent(s, i);
    if (e->nlive == 0) {
        memset(e, 0, ent_size(s));
        e->hash = h;
        e->v = *v;
        if (owns_text(t)) {
            char *tp = NULL;
            if (v->len) {
                tp = xmalloc(v->len);
                memcpy(tp, v->s, v->len);
                *bytes += (int64_t)v->len;
            }
            e->v.s = tp;
        }
        s->n++;
    }
    uint32_t live = 0;
    if (s->presence) {
        uint64_t bits = (uint64_t)e->count[0];
        for (uint32_t k = 0; k < s->width; k++)
            if (delta[k] > 0) bits |= (uint64_t)1 << k;
        e->count[0] = (int64_t)bits;
        live = (uint32_t)__builtin_popcountll(bits);
    } else {
        for (uint32_t k = 0; k < s->width; k++) {
            e->count[k] += delta[k];
            live += e->count[k] != 0;
        }
    }
    e->nlive = live;
    if (live == 0) {
        if (owns_text(t) && e->v.len) {
            *bytes -= (int64_t)e->v.len;
            free((char *)e->v.s);
        }
        s->n--;
        remove_at(s, i);
    }
}

int64_t dset_add(DSet *s, Type t, const Value *v, uint32_t k, int64_t w, int64_t *bytes)
{
    uint64_t h = dset_hash(t, v);
    const DSetEnt *e = dset_find(s, t, v, h);
    int64_t prev = e ? dset_ent_count(s, e, k) : 0;
    int64_t *delta = xcalloc(s->width, sizeof(int64_t));
    delta[k] = w;
    dset_apply(s, t, v, h, delta, bytes);
    free(delta);
    return prev;
}

uint32_t dset_size(const DSet *s, uint32_t k)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->cap; i++) {
        const DSetEnt *e = ent(s, i);
        n += e->nlive != 0 && dset_ent_count(s, e, k) != 0;
    }
    return n;
}

void dset_clear(DSet *s, Type t, int64_t *bytes)
{
    for (uint32_t i = 0; i < s->cap && owns_text(t); i++) {
        const DSetEnt *e = ent(s, i);
        if (e->nlive != 0 && e->v.len) {
            *bytes -= (int64_t)e->v.len;
            free((char *)e->v.s);
        }
    }
    *bytes -= (int64_t)s->cap * (int64_t)ent_size(s);
    if (s->slots) xfree_large(s->slots, (size_t)s->cap * ent_size(s));
    s->slots = NULL;
    s->cap = 0;
    s->n = 0;
}

typedef struct SortCtx {
    Type t;
} SortCtx;

static int cmp_ents(const void *a, const void *b, void *ctx)
{
    const SortCtx *c = ctx;
    return value_compare(c->t, &(*(const DSetEnt *const *)a)->v, &(*(const DSetEnt *const *)b)->v);
}

void dset_walk_sorted(const DSet *s, Type t, uint32_t k, void (*fn)(void *ctx, const Value *v, int64_t count),
                      void *ctx)
{
    if (s->n == 0) return;
    const DSetEnt **es = xmalloc(sizeof(DSetEnt *) * s->n);
    uint32_t m = 0;
    for (uint32_t i = 0; i < s->cap; i++) {
        const DSetEnt *e = ent(s, i);
        if (e->nlive != 0 && dset_ent_count(s, e, k) != 0) es[m++] = e;
    }
    SortCtx c = {t};
    qsort_r(es, m, sizeof(DSetEnt *), cmp_ents, &c);
    for (uint32_t i = 0; i < m; i++) fn(ctx, &es[i]->v, dset_ent_count(s, es[i], k));
    free(es);
}
