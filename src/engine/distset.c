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

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static inline uint64_t hash_of(Type t, const Value *v)
{
    return int_like(t) ? mix64((uint64_t)v->i) : value_hash(t, v, 0x5eedd15cu);
}

static inline bool same(Type t, const DSetEnt *e, uint64_t h, const Value *v)
{
    if (e->hash != h) return false;
    return int_like(t) ? e->v.i == v->i : value_equal(t, &e->v, v);
}

/* Slot of v, or of the empty slot where it would go. */
static inline uint32_t find_slot(const DSet *s, Type t, const Value *v, uint64_t h)
{
    uint32_t mask = s->cap - 1, i = (uint32_t)h & mask;
    while (s->slots[i].count != 0 && !same(t, &s->slots[i], h, v)) i = (i + 1) & mask;
    return i;
}

int64_t dset_count(const DSet *s, Type t, const Value *v)
{
    if (s->n == 0) return 0;
    return s->slots[find_slot(s, t, v, hash_of(t, v))].count;
}

static void grow(DSet *s, int64_t *bytes)
{
    uint32_t ncap = s->cap ? s->cap * 2 : 8;
    DSetEnt *old = s->slots;
    uint32_t ocap = s->cap;
    s->slots = xcalloc(ncap, sizeof(DSetEnt));
    s->cap = ncap;
    uint32_t mask = ncap - 1;
    for (uint32_t k = 0; k < ocap; k++) {
        if (old[k].count == 0) continue;
        uint32_t i = (uint32_t)old[k].hash & mask;
        while (s->slots[i].count != 0) i = (i + 1) & mask;
        s->slots[i] = old[k];
    }
    free(old);
    *bytes += (int64_t)(ncap - ocap) * (int64_t)sizeof(DSetEnt);
}

/* Remove slot i, shifting later members of its probe run back (no tombstones). */
static void remove_at(DSet *s, uint32_t i)
{
    uint32_t mask = s->cap - 1, j = i;
    for (;;) {
        s->slots[i].count = 0;
        for (;;) {
            j = (j + 1) & mask;
            if (s->slots[j].count == 0) return;
            uint32_t home = (uint32_t)s->slots[j].hash & mask;
            /* j may move to i if its home is not in (i, j] (cyclically) */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) break;
        }
        s->slots[i] = s->slots[j];
        i = j;
    }
}

int64_t dset_add(DSet *s, Type t, const Value *v, int64_t w, int64_t *bytes)
{
    uint64_t h = hash_of(t, v);
    if (s->cap == 0 || (uint64_t)(s->n + 1) * 4 > (uint64_t)s->cap * 3) {
        if (w == 0) return dset_count(s, t, v);
        grow(s, bytes);
    }
    uint32_t i = find_slot(s, t, v, h);
    DSetEnt *e = &s->slots[i];
    int64_t prev = e->count;
    if (w == 0) return prev;
    if (prev == 0) {
        e->count = w;
        e->hash = h;
        e->v = *v;
        if (t.id == T_TEXT || t.id == T_UNKNOWN) {
            char *tp = NULL;
            if (v->len) {
                tp = xmalloc(v->len);
                memcpy(tp, v->s, v->len);
                *bytes += (int64_t)v->len;
            }
            e->v.s = tp;
        }
        s->n++;
        return 0;
    }
    e->count = prev + w;
    if (e->count == 0) {
        if ((t.id == T_TEXT || t.id == T_UNKNOWN) && e->v.len) {
            *bytes -= (int64_t)e->v.len;
            free((char *)e->v.s);
        }
        s->n--;
        remove_at(s, i);
    }
    return prev;
}

void dset_clear(DSet *s, Type t, int64_t *bytes)
{
    if (t.id == T_TEXT || t.id == T_UNKNOWN) {
        for (uint32_t k = 0; k < s->cap; k++) {
            if (s->slots[k].count != 0 && s->slots[k].v.len) {
                *bytes -= (int64_t)s->slots[k].v.len;
                free((char *)s->slots[k].v.s);
            }
        }
    }
    *bytes -= (int64_t)s->cap * (int64_t)sizeof(DSetEnt);
    free(s->slots);
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

void dset_walk_sorted(const DSet *s, Type t, void (*fn)(void *ctx, const Value *v, int64_t count), void *ctx)
{
    if (s->n == 0) return;
    const DSetEnt **es = xmalloc(sizeof(DSetEnt *) * s->n);
    uint32_t m = 0;
    for (uint32_t k = 0; k < s->cap; k++)
        if (s->slots[k].count != 0) es[m++] = &s->slots[k];
    SortCtx c = {t};
    qsort_r(es, m, sizeof(DSetEnt *), cmp_ents, &c);
    for (uint32_t k = 0; k < m; k++) fn(ctx, &es[k]->v, es[k]->count);
    free(es);
}
