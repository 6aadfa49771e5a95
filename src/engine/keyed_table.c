/* Open-addressing keyed state table (see keyed_table.h). Hot path of every stateful
 * operator: integer-like keys hash and compare inline; other types go through
 * value_hash/value_equal, text through xxHash and memcmp. */
#include "engine/keyed_table.h"

#include "base/arena.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#define KTAB_SEED 0x6b7461625f776569ull
#define NULL_MARK 0x9fb21c651e98df25ull

typedef struct EntryHdr {
    uint64_t hash;
    uint32_t size;           /* bytes of the whole block */
    uint32_t pad_;
} EntryHdr;                  /* 16 bytes: the key cells follow */

static inline uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

void ktab_init(KTab *t, int nkey, const Type *types, size_t payload_size)
{
    memset(t, 0, sizeof *t);
    t->nkey = nkey;
    t->types = xmalloc(sizeof(Type) * (size_t)(nkey > 0 ? nkey : 1));
    if (nkey > 0) memcpy(t->types, types, sizeof(Type) * (size_t)nkey);
    t->payload_size = (uint32_t)payload_size;
    size_t off = sizeof(EntryHdr) + sizeof(Value) * (size_t)nkey;
    t->payload_off = (uint32_t)((off + 15) & ~(size_t)15);
    t->int_keys = true;
    for (int i = 0; i < nkey; i++)
        if (!type_is_int_like(types[i])) t->int_keys = false;
}

void ktab_clear(KTab *t)
{
    if (t->slots) xfree_large(t->slots, ((size_t)t->mask + 1) * sizeof(KTabSlot));
    pool_fini(&t->pool);
    t->slots = NULL;
    t->mask = 0;
    t->count = 0;
    t->bytes = 0;
}

void ktab_fini(KTab *t)
{
    ktab_clear(t);
    free(t->types);
    memset(t, 0, sizeof *t);
}

static inline uint64_t cell_hash(Type ty, const Value *v, uint64_t h)
{
    if (v->isnull) return fmix64(h ^ NULL_MARK);
    if (type_is_int_like(ty)) return fmix64(h ^ ((uint64_t)v->i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull));
    if (ty.id == T_TEXT) return hash_bytes(v->s, v->len, h);
    return value_hash(ty, v, h);
}

uint64_t ktab_hash(const KTab *t, const Value *key)
{
    uint64_t h = KTAB_SEED;
    if (t->int_keys) {
        for (int i = 0; i < t->nkey; i++)
            h = key[i].isnull ? fmix64(h ^ NULL_MARK)
                              : fmix64(h ^ ((uint64_t)key[i].i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull));
        return h;
    }
    for (int i = 0; i < t->nkey; i++) h = cell_hash(t->types[i], &key[i], h);
    return h;
}

bool ktab_cell_equal(Type ty, const Value *a, const Value *b)
{
    if (a->isnull || b->isnull) return a->isnull && b->isnull;
    if (type_is_int_like(ty)) return a->i == b->i;
    if (ty.id == T_TEXT) return a->len == b->len && (a->len == 0 || memcmp(a->s, b->s, a->len) == 0);
    return value_equal(ty, a, b);
}

static inline bool key_equal(const KTab *t, const Value *a, const Value *b)
{
    if (t->int_keys) {
        for (int i = 0; i < t->nkey; i++) {
            if (a[i].isnull != b[i].isnull) return false;
            if (!a[i].isnull && a[i].i != b[i].i) return false;
        }
        return true;
    }
    for (int i = 0; i < t->nkey; i++)
        if (!ktab_cell_equal(t->types[i], &a[i], &b[i])) return false;
    return true;
}

static inline const Value *entry_key(const void *entry)
{
    return (const Value *)((const char *)entry + sizeof(EntryHdr));
}

static inline void *entry_payload(const KTab *t, void *entry)
{
    return (char *)entry + t->payload_off;
}

void *ktab_find(const KTab *t, const Value *key, uint64_t hash)
{
    if (!t->slots) return NULL;
    uint32_t i = (uint32_t)hash & t->mask;
    for (;;) {
        const KTabSlot *s = &t->slots[i];
        if (!s->entry) return NULL;
        if (s->hash == hash && key_equal(t, key, entry_key(s->entry))) return entry_payload(t, s->entry);
        i = (i + 1) & t->mask;
    }
}

static void place(KTabSlot *slots, uint32_t mask, uint64_t hash, void *entry)
{
    uint32_t i = (uint32_t)hash & mask;
    while (slots[i].entry) i = (i + 1) & mask;
    slots[i].hash = hash;
    slots[i].entry = entry;
}

static void resize(KTab *t, uint32_t newcap)
{
    KTabSlot *ns = xcalloc_large((size_t)newcap * sizeof(KTabSlot));
    if (t->slots) {
        for (uint32_t i = 0; i <= t->mask; i++)
            if (t->slots[i].entry) place(ns, newcap - 1, t->slots[i].hash, t->slots[i].entry);
        t->bytes -= (int64_t)(((size_t)t->mask + 1) * sizeof(KTabSlot));
        xfree_large(t->slots, ((size_t)t->mask + 1) * sizeof(KTabSlot));
    }
    t->slots = ns;
    t->mask = newcap - 1;
    t->bytes += (int64_t)((size_t)newcap * sizeof(KTabSlot));
}

static void *new_entry(KTab *t, const Value *key, uint64_t hash)
{
    size_t text = 0;
    for (int i = 0; i < t->nkey; i++)
        if (type_is_varlen(t->types[i]) && !key[i].isnull) text += key[i].len;
    size_t size = t->payload_off + t->payload_size + text;
    char *blk = pool_alloc(&t->pool, size);
    EntryHdr *h = (EntryHdr *)blk;
    h->hash = hash;
    h->size = (uint32_t)size;
    h->pad_ = 0;
    Value *k = (Value *)(blk + sizeof(EntryHdr));
    if (t->nkey > 0) memcpy(k, key, sizeof(Value) * (size_t)t->nkey);
    memset(blk + t->payload_off, 0, t->payload_size);
    char *tp = blk + t->payload_off + t->payload_size;
    for (int i = 0; i < t->nkey; i++) {
        if (type_is_varlen(t->types[i]) && !key[i].isnull) {
            if (key[i].len) memcpy(tp, key[i].s, key[i].len);
            k[i].s = tp;
            tp += key[i].len;
        }
    }
    t->bytes += (int64_t)size;
    return blk;
}

void *ktab_upsert(KTab *t, const Value *key, uint64_t hash, bool *created)
{
    if (!t->slots) resize(t, 16);
    uint32_t i = (uint32_t)hash & t->mask;
    for (;;) {
        KTabSlot *s = &t->slots[i];
        if (!s->entry) break;
        if (s->hash == hash && key_equal(t, key, entry_key(s->entry))) {
            *created = false;
            return entry_payload(t, s->entry);
        }
        i = (i + 1) & t->mask;
    }
    /* load factor <= 3/4 */
    if ((uint64_t)(t->count + 1) * 4 > ((uint64_t)t->mask + 1) * 3) {
        resize(t, (t->mask + 1) * 2);
        i = (uint32_t)hash & t->mask;
        while (t->slots[i].entry) i = (i + 1) & t->mask;
    }
    void *e = new_entry(t, key, hash);
    t->slots[i].hash = hash;
    t->slots[i].entry = e;
    t->count++;
    *created = true;
    return entry_payload(t, e);
}

void ktab_remove(KTab *t, void *payload)
{
    void *entry = (char *)payload - t->payload_off;
    const EntryHdr *h = entry;
    uint32_t i = (uint32_t)h->hash & t->mask;
    while (t->slots[i].entry != entry) i = (i + 1) & t->mask;
    /* backward-shift deletion (Knuth's algorithm R): no tombstones */
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & t->mask;
        if (!t->slots[j].entry) break;
        uint32_t home = (uint32_t)t->slots[j].hash & t->mask;
        /* the entry at j may move to i unless its home lies cyclically in (i, j] */
        if (((j - home) & t->mask) < ((j - i) & t->mask)) continue;
        t->slots[i] = t->slots[j];
        i = j;
    }
    t->slots[i].entry = NULL;
    t->slots[i].hash = 0;
    t->bytes -= (int64_t)h->size;
    t->count--;
    pool_free(&t->pool, entry, h->size);
}

void *ktab_next(const KTab *t, uint32_t *pos)
{
    if (!t->slots) return NULL;
    while (*pos <= t->mask) {
        void *e = t->slots[*pos].entry;
        (*pos)++;
        if (e) return entry_payload(t, e);
    }
    return NULL;
}
