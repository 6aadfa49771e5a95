/* Open-addressing hash multiset for DISTINCT aggregates (see distset.h). Three
 * layouts: the general one (hash, value, live counters, counters or bits), the
 * compact one for presence bits of integer-like values (value, bits; the hash is
 * recomputed, a zero bit word is an empty slot), and the pooled one for presence bits
 * of text values:
 *
 *   block  = PoolHdr, then records appended in insertion order
 *   record = bits (1 byte when width <= 8, else 8), a tag (the hash's top byte, so a
 *            scan compares bytes only for a likely match), LEB128 length, the bytes
 *
 * A pooled set of up to DSET_SMALL values is scanned; past that, an index of
 * (hash32 << 32 | offset + 1) words, open-addressed at load <= 1/2, finds a record.
 * The block grows by a quarter of its size (a new block from the operator's pool and one
 * copy), never per value. */
#include "engine/distset.h"

#include "base/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct DSetEntry {
    uint64_t hash;
    Value v;                 /* text points to a copy from the set's pool (or malloc) */
    uint32_t nlive;          /* counters != 0; 0: empty slot */
    uint32_t pad_;
    int64_t count[];         /* width multiplicities; presence: one word of bits */
};

typedef struct CompactEntry {
    int64_t v;
    uint64_t bits;           /* 0: empty slot */
} CompactEntry;

typedef struct PoolHdr {
    uint32_t used;           /* bytes of the block in use (header included) */
    uint32_t icap;           /* index slots (0: no index) */
    uint64_t *index;
} PoolHdr;

/* Types value_equal compares through v->i alone. */
static inline bool int_like(Type t)
{
    switch ((TypeId)t.id) {
    case T_FLOAT4: case T_FLOAT8: case T_NUMERIC: case T_TEXT: case T_UNKNOWN: case T_INTERVAL:
    case T_ARRAY: case T_JSON:
        return false;
    default:
        return true;
    }
}

static inline bool owns_text(Type t) { return type_is_varlen(t); }

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
    if (s->compact) return sizeof(CompactEntry);
    return sizeof(DSetEntry) + sizeof(int64_t) * (s->presence ? 1 : s->width);
}

static inline unsigned char *slot(const DSet *s, uint32_t i) { return s->slots + (size_t)i * ent_size(s); }

static inline bool live(const DSet *s, const unsigned char *e)
{
    return s->compact ? ((const CompactEntry *)e)->bits != 0 : ((const DSetEntry *)e)->nlive != 0;
}

static inline uint64_t ent_hash(const DSet *s, const unsigned char *e)
{
    return s->compact ? mix64((uint64_t)((const CompactEntry *)e)->v) : ((const DSetEntry *)e)->hash;
}

static inline bool same(const DSet *s, Type t, const unsigned char *e, uint64_t h, const Value *v)
{
    if (s->compact) return ((const CompactEntry *)e)->v == v->i;
    const DSetEntry *g = (const DSetEntry *)e;
    if (g->hash != h) return false;
    return int_like(t) ? g->v.i == v->i : value_equal(t, &g->v, v);
}

void dset_init(DSet *s, Type t, uint32_t width, bool presence)
{
    memset(s, 0, sizeof *s);
    s->width = width > 0 ? width : 1;
    s->presence = presence && s->width <= 64;
    s->compact = s->presence && int_like(t);
    s->pooled = s->presence && owns_text(t);
}

uint64_t dset_hash(Type t, const Value *v)
{
    return int_like(t) ? mix64((uint64_t)v->i) : value_hash(t, v, 0x5eedd15cu);
}

/* Slot of v, or of the empty slot where it would go (cap > 0). */
static inline uint32_t find_slot(const DSet *s, Type t, const Value *v, uint64_t h)
{
    uint32_t mask = s->cap - 1, i = (uint32_t)h & mask;
    for (;;) {
        const unsigned char *e = slot(s, i);
        if (!live(s, e) || same(s, t, e, h, v)) return i;
        i = (i + 1) & mask;
    }
}

/* Blocks from the operator's pool (or malloc without one). */
static void *mem_alloc(Pool *pool, size_t n) { return pool ? pool_alloc(pool, n) : xmalloc(n); }
static void mem_free(Pool *pool, void *p, size_t n)
{
    if (pool) pool_free(pool, p, n);
    else free(p);
}

/* ---------- the pooled layout ---------- */

static inline uint32_t bits_width(const DSet *s) { return s->width <= 8 ? 1 : 8; }
static inline PoolHdr *pool(const DSet *s) { return (PoolHdr *)(void *)s->slots; }

static inline uint64_t rec_bits(const DSet *s, const unsigned char *r)
{
    if (bits_width(s) == 1) return r[0];
    uint64_t b;
    memcpy(&b, r, 8);
    return b;
}

static inline void rec_set_bits(const DSet *s, unsigned char *r, uint64_t b)
{
    if (bits_width(s) == 1) r[0] = (unsigned char)b;
    else memcpy(r, &b, 8);
}

/* The text of record r: its length in *len; returns its bytes. */
static inline unsigned char hash_tag(uint64_t h) { return (unsigned char)(h >> 56); }

static inline const unsigned char *rec_text(const DSet *s, const unsigned char *r, uint32_t *len)
{
    const unsigned char *p = r + bits_width(s) + 1;
    uint32_t n = 0;
    for (int shift = 0;; shift += 7) {
        unsigned char c = *p++;
        n |= (uint32_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) break;
    }
    *len = n;
    return p;
}

/* The record after r. */
static inline const unsigned char *rec_next(const DSet *s, const unsigned char *r)
{
    uint32_t len;
    const unsigned char *t = rec_text(s, r, &len);
    return t + len;
}

static inline bool rec_is(const DSet *s, const unsigned char *r, const Value *v, unsigned char tag)
{
    if (r[bits_width(s)] != tag) return false;
    uint32_t len;
    const unsigned char *t = rec_text(s, r, &len);
    return len == v->len && (len == 0 || memcmp(t, v->s, len) == 0);
}

/* The record of v, or NULL. */
static const unsigned char *pool_find(const DSet *s, const Value *v, uint64_t h)
{
    const PoolHdr *ph = pool(s);
    if (!ph) return NULL;
    const unsigned char *base = s->slots;
    if (!ph->icap) {
        const unsigned char *end = base + ph->used;
        unsigned char tag = hash_tag(h);
        for (const unsigned char *r = base + sizeof(PoolHdr); r < end; r = rec_next(s, r))
            if (rec_is(s, r, v, tag)) return r;
        return NULL;
    }
    uint32_t mask = ph->icap - 1, h32 = (uint32_t)(h >> 32);
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        uint64_t e = ph->index[i];
        if (!e) return NULL;
        if ((uint32_t)(e >> 32) == h32 && rec_is(s, base + (uint32_t)e - 1, v, hash_tag(h)))
            return base + (uint32_t)e - 1;
    }
}

static void index_put(PoolHdr *ph, uint64_t h, uint32_t off)
{
    uint32_t mask = ph->icap - 1;
    uint32_t i = (uint32_t)h & mask;
    while (ph->index[i]) i = (i + 1) & mask;
    ph->index[i] = ((uint64_t)(uint32_t)(h >> 32) << 32) | (uint64_t)(off + 1);
}

/* (Re)build the index with icap slots over every record (hashes recomputed). */
static void index_build(DSet *s, Type t, uint32_t icap, Pool *mp, int64_t *bytes)
{
    PoolHdr *ph = pool(s);
    if (ph->index) {
        mem_free(mp, ph->index, (size_t)ph->icap * sizeof(uint64_t));
        *bytes -= (int64_t)ph->icap * (int64_t)sizeof(uint64_t);
    }
    ph->icap = icap;
    ph->index = mem_alloc(mp, (size_t)icap * sizeof(uint64_t));
    memset(ph->index, 0, (size_t)icap * sizeof(uint64_t));
    *bytes += (int64_t)icap * (int64_t)sizeof(uint64_t);
    const unsigned char *base = s->slots, *end = base + ph->used;
    for (const unsigned char *r = base + sizeof(PoolHdr); r < end; r = rec_next(s, r)) {
        uint32_t len;
        const unsigned char *txt = rec_text(s, r, &len);
        Value v = {0};
        v.s = (const char *)txt;
        v.len = len;
        index_put(ph, dset_hash(t, &v), (uint32_t)(r - base));
    }
}

static void pool_apply(DSet *s, Type t, const Value *v, uint64_t h, const int64_t *delta, Pool *mp,
                       int64_t *bytes)
{
    uint64_t add = 0;
    for (uint32_t k = 0; k < s->width; k++)
        if (delta[k] > 0) add |= (uint64_t)1 << k;
    if (!add) return;
    unsigned char *r = (unsigned char *)pool_find(s, v, h);
    if (r) {
        rec_set_bits(s, r, rec_bits(s, r) | add);
        return;
    }
    size_t leb = 1;
    for (uint32_t l = v->len; l >= 0x80; l >>= 7) leb++;
    size_t need = bits_width(s) + 1 + leb + (size_t)v->len;
    size_t used = s->slots ? pool(s)->used : sizeof(PoolHdr);
    if (used + need > s->cap) {
        size_t ncap = s->cap ? (size_t)s->cap + s->cap / 4 : sizeof(PoolHdr) + 48;
        if (ncap < used + need) ncap = used + need;
        ncap = (ncap + 15) & ~(size_t)15;
        if (ncap > UINT32_MAX) {
            fprintf(stderr, "weir: a DISTINCT set's values exceed 4 GiB\n");
            abort();
        }
        unsigned char *nb = mem_alloc(mp, ncap);
        if (s->slots) {
            memcpy(nb, s->slots, pool(s)->used);
            mem_free(mp, s->slots, s->cap);
        } else {
            memset(nb, 0, sizeof(PoolHdr));
        }
        s->slots = nb;
        *bytes += (int64_t)(ncap - s->cap);
        s->cap = (uint32_t)ncap;
    }
    PoolHdr *ph = pool(s);
    if (!ph->used) ph->used = sizeof(PoolHdr);
    unsigned char *w = s->slots + ph->used;
    uint32_t off = ph->used;
    rec_set_bits(s, w, add);
    w += bits_width(s);
    *w++ = hash_tag(h);
    uint32_t n = v->len;
    do {
        unsigned char c = n & 0x7f;
        n >>= 7;
        *w++ = c | (n ? 0x80 : 0);
    } while (n);
    if (v->len) memcpy(w, v->s, v->len);
    w += v->len;
    ph->used = (uint32_t)(w - s->slots);
    s->n++;
    if (ph->icap) {
        if ((uint64_t)s->n * 2 > ph->icap) index_build(s, t, ph->icap * 2, mp, bytes);
        else index_put(ph, h, off);
    } else if (s->n > DSET_SMALL) {
        index_build(s, t, 128, mp, bytes);
    }
}

static void pool_clear(DSet *s, Pool *mp, int64_t *bytes)
{
    PoolHdr *ph = pool(s);
    if (ph) {
        if (ph->index) {
            mem_free(mp, ph->index, (size_t)ph->icap * sizeof(uint64_t));
            *bytes -= (int64_t)ph->icap * (int64_t)sizeof(uint64_t);
        }
        mem_free(mp, s->slots, s->cap);
        *bytes -= (int64_t)s->cap;
    }
    s->slots = NULL;
    s->cap = 0;
    s->n = 0;
}

/* Visit every record: fn(ctx, value, bits). */
static void pool_each(const DSet *s, void (*fn)(void *ctx, const Value *v, uint64_t bits), void *ctx)
{
    const PoolHdr *ph = pool(s);
    if (!ph) return;
    const unsigned char *base = s->slots, *end = base + ph->used;
    for (const unsigned char *r = base + sizeof(PoolHdr); r < end; r = rec_next(s, r)) {
        uint32_t len;
        Value v = {0};
        v.s = (const char *)rec_text(s, r, &len);
        v.len = len;
        fn(ctx, &v, rec_bits(s, r));
    }
}

/* ---------- every layout ---------- */

const DSetEntry *dset_find(const DSet *s, Type t, const Value *v, uint64_t h)
{
    if (s->n == 0) return NULL;
    if (s->pooled) return (const DSetEntry *)(const void *)pool_find(s, v, h);
    const unsigned char *e = slot(s, find_slot(s, t, v, h));
    return live(s, e) ? (const DSetEntry *)e : NULL;
}

int64_t dset_ent_count(const DSet *s, const DSetEntry *e, uint32_t k)
{
    if (s->pooled) return (int64_t)((rec_bits(s, (const unsigned char *)(const void *)e) >> k) & 1);
    if (s->compact) return (int64_t)((((const CompactEntry *)(const void *)e)->bits >> k) & 1);
    if (s->presence) return (int64_t)(((uint64_t)e->count[0] >> k) & 1);
    return e->count[k];
}

void dset_prefetch(const DSet *s, Type t, const Value *v)
{
    if (s->pooled) {
        if (!s->slots) return;
        if (s->n <= DSET_SMALL) {
            /* a scanned set (it has an index exactly when it holds more values): its
             * whole block, a few lines, without reading the block (which would wait
             * for the very line being prefetched) */
            uintptr_t p = (uintptr_t)s->slots & ~(uintptr_t)63, end = (uintptr_t)s->slots + s->cap - 1;
            for (int k = 0; p <= end && k < 8; p += 64, k++) __builtin_prefetch((const void *)p);
        } else {
            const PoolHdr *ph = pool(s);
            __builtin_prefetch(&ph->index[(uint32_t)dset_hash(t, v) & (ph->icap - 1)]);
        }
        return;
    }
    if (s->cap) __builtin_prefetch(slot(s, (uint32_t)dset_hash(t, v) & (s->cap - 1)));
}

int64_t dset_count(const DSet *s, Type t, const Value *v, uint32_t k)
{
    const DSetEntry *e = dset_find(s, t, v, dset_hash(t, v));
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
        const unsigned char *e = slot(&old, k);
        if (!live(&old, e)) continue;
        uint32_t i = (uint32_t)ent_hash(&old, e) & mask;
        while (live(s, slot(s, i))) i = (i + 1) & mask;
        memcpy(slot(s, i), e, es);
    }
    if (old.slots) xfree_large(old.slots, (size_t)old.cap * es);
    *bytes += (int64_t)(ncap - old.cap) * (int64_t)es;
}

/* Remove slot i, shifting later members of its probe run back (no tombstones). Only
 * counting sets remove (a presence set only ever gains values). */
static void remove_at(DSet *s, uint32_t i)
{
    uint32_t mask = s->cap - 1, j = i;
    size_t es = ent_size(s);
    for (;;) {
        ((DSetEntry *)slot(s, i))->nlive = 0;
        for (;;) {
            j = (j + 1) & mask;
            if (!live(s, slot(s, j))) return;
            uint32_t home = (uint32_t)ent_hash(s, slot(s, j)) & mask;
            /* j may move to i if its home is not in (i, j] (cyclically) */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) break;
        }
        memcpy(slot(s, i), slot(s, j), es);
        i = j;
    }
}

void dset_apply(DSet *s, Type t, const Value *v, uint64_t h, const int64_t *delta, Pool *pool, int64_t *bytes)
{
    if (s->pooled) {
        pool_apply(s, t, v, h, delta, pool, bytes);
        return;
    }
    bool any = false;
    for (uint32_t k = 0; k < s->width; k++) any |= delta[k] != 0;
    if (!any) return;
    if (s->cap == 0 || (uint64_t)(s->n + 1) * 4 > (uint64_t)s->cap * 3) grow(s, bytes);
    uint32_t i = find_slot(s, t, v, h);
    unsigned char *e = slot(s, i);
    if (s->compact) {
        CompactEntry *c = (CompactEntry *)e;
        uint64_t bits = c->bits;
        for (uint32_t k = 0; k < s->width; k++)
            if (delta[k] > 0) bits |= (uint64_t)1 << k;
        if (!c->bits && bits) {
            c->v = v->i;
            s->n++;
        }
        c->bits = bits;
        return;
    }
    DSetEntry *g = (DSetEntry *)e;
    if (g->nlive == 0) {
        memset(g, 0, ent_size(s));
        g->hash = h;
        g->v = *v;
        if (owns_text(t)) {
            char *tp = NULL;
            if (v->len) {
                tp = mem_alloc(pool, v->len);
                memcpy(tp, v->s, v->len);
                *bytes += (int64_t)v->len;
            }
            g->v.s = tp;
        }
        s->n++;
    }
    uint32_t nlive = 0;
    if (s->presence) {
        uint64_t bits = (uint64_t)g->count[0];
        for (uint32_t k = 0; k < s->width; k++)
            if (delta[k] > 0) bits |= (uint64_t)1 << k;
        g->count[0] = (int64_t)bits;
        nlive = (uint32_t)__builtin_popcountll(bits);
    } else {
        for (uint32_t k = 0; k < s->width; k++) {
            g->count[k] += delta[k];
            nlive += g->count[k] != 0;
        }
    }
    g->nlive = nlive;
    if (nlive == 0) {
        if (owns_text(t) && g->v.len) {
            *bytes -= (int64_t)g->v.len;
            mem_free(pool, (char *)g->v.s, g->v.len);
        }
        s->n--;
        remove_at(s, i);
    }
}

int64_t dset_add(DSet *s, Type t, const Value *v, uint32_t k, int64_t w, Pool *pool, int64_t *bytes)
{
    uint64_t h = dset_hash(t, v);
    const DSetEntry *e = dset_find(s, t, v, h);
    int64_t prev = e ? dset_ent_count(s, e, k) : 0;
    int64_t small[64] = {0};
    int64_t *delta = s->width <= 64 ? small : xcalloc(s->width, sizeof(int64_t));
    delta[k] = w;
    dset_apply(s, t, v, h, delta, pool, bytes);
    if (delta != small) free(delta);
    return prev;
}

typedef struct BitCount {
    uint32_t k, n;
} BitCount;

static void count_bit(void *ctx, const Value *v, uint64_t bits)
{
    (void)v;
    BitCount *c = ctx;
    c->n += (bits >> c->k) & 1;
}

uint32_t dset_size(const DSet *s, uint32_t k)
{
    if (s->pooled) {
        BitCount c = {k, 0};
        pool_each(s, count_bit, &c);
        return c.n;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->cap; i++) {
        const unsigned char *e = slot(s, i);
        n += live(s, e) && dset_ent_count(s, (const DSetEntry *)e, k) != 0;
    }
    return n;
}

void dset_clear(DSet *s, Type t, Pool *pool, int64_t *bytes)
{
    if (s->pooled) {
        pool_clear(s, pool, bytes);
        return;
    }
    for (uint32_t i = 0; i < s->cap && owns_text(t) && !s->compact; i++) {
        const DSetEntry *e = (const DSetEntry *)slot(s, i);
        if (e->nlive != 0 && e->v.len) {
            *bytes -= (int64_t)e->v.len;
            mem_free(pool, (char *)e->v.s, e->v.len);
        }
    }
    *bytes -= (int64_t)s->cap * (int64_t)ent_size(s);
    if (s->slots) xfree_large(s->slots, (size_t)s->cap * ent_size(s));
    s->slots = NULL;
    s->cap = 0;
    s->n = 0;
}

typedef struct SortEnt {
    Value v;
    int64_t count;
} SortEnt;

static int cmp_ents(const void *a, const void *b, void *ctx)
{
    const Type *t = ctx;
    return value_compare(*t, &((const SortEnt *)a)->v, &((const SortEnt *)b)->v);
}

typedef struct SortFill {
    SortEnt *es;
    uint32_t m, k;
} SortFill;

static void fill_sorted(void *ctx, const Value *v, uint64_t bits)
{
    SortFill *f = ctx;
    if (!((bits >> f->k) & 1)) return;
    f->es[f->m].v = *v;
    f->es[f->m].count = 1;
    f->m++;
}

void dset_walk_sorted(const DSet *s, Type t, uint32_t k, void (*fn)(void *ctx, const Value *v, int64_t count),
                      void *ctx)
{
    if (s->n == 0) return;
    SortEnt *es = xmalloc(sizeof(SortEnt) * s->n);
    uint32_t m = 0;
    if (s->pooled) {
        SortFill f = {es, 0, k};
        pool_each(s, fill_sorted, &f);
        m = f.m;
    }
    for (uint32_t i = 0; i < s->cap && !s->pooled; i++) {
        const unsigned char *e = slot(s, i);
        if (!live(s, e)) continue;
        int64_t c = dset_ent_count(s, (const DSetEntry *)e, k);
        if (c == 0) continue;
        es[m].v = s->compact ? value_int(((const CompactEntry *)e)->v) : ((const DSetEntry *)e)->v;
        es[m].count = c;
        m++;
    }
    qsort_r(es, m, sizeof(SortEnt), cmp_ents, &t);
    for (uint32_t i = 0; i < m; i++) fn(ctx, &es[i].v, es[i].count);
    free(es);
}
