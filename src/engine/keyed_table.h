/* The engine's keyed state table: an open-addressing hash table (linear probing,
 * backward-shift deletion, doubling growth) mapping a key of typed Value cells to a
 * fixed-size per-key state block. Grouping semantics: NULL equals NULL, numerics
 * compare by value (1.50 == 1.5), floats as value_equal. Each entry is one heap block
 * holding the key cells, their text bytes and the caller's zeroed payload, carved
 * from the table's pool (pool.h), so an insert costs no malloc and lookups never
 * allocate. Memory is counted (entries and
 * bytes) for eng_state_stats. Used by aggregate, distinct, changelog normalize and the
 * later join/TopN operators. */
#ifndef WEIR_ENGINE_KEYED_TABLE_H
#define WEIR_ENGINE_KEYED_TABLE_H

#include "base/value.h"
#include "engine/pool.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct KTabSlot {
    uint64_t hash;
    void *entry;             /* entry block, NULL = empty slot */
} KTabSlot;

typedef struct KTab {
    int nkey;
    Type *types;             /* nkey key types (owned copy) */
    uint32_t payload_size;   /* bytes of caller payload per entry */
    uint32_t payload_off;    /* offset of the payload inside an entry block */
    uint32_t mask;           /* slot count - 1 (a power of two), 0 before the first insert */
    uint32_t count;          /* live entries */
    KTabSlot *slots;
    int64_t bytes;           /* entry blocks + slot array */
    Pool pool;               /* the entry blocks */
    bool int_keys;           /* every key cell is compared as an int64 (fast path) */
} KTab;

/* Initialise an empty table for keys of `nkey` cells of `types` (copied) and payloads
 * of payload_size bytes (zeroed on insert, 16-byte aligned). nkey may be 0 (a single
 * entry: the global group). */
void ktab_init(KTab *t, int nkey, const Type *types, size_t payload_size);
/* Free every entry and the table. Payload-owned memory must be released by the caller
 * first (iterate with ktab_next). */
void ktab_fini(KTab *t);
/* Remove every entry and the slot array: the table is empty as after ktab_init, with
 * the same key types and payload size. Payload-owned memory must be released by the
 * caller first. */
void ktab_clear(KTab *t);

/* Hash of a key (nkey cells), consistent with the table's equality. */
uint64_t ktab_hash(const KTab *t, const Value *key);
/* The payload of the entry with this key, or NULL. `hash` = ktab_hash(t, key). */
void *ktab_find(const KTab *t, const Value *key, uint64_t hash);
/* The payload for key, inserting a new zeroed entry (key cells and text copied into
 * the entry) when absent; *created tells which. */
void *ktab_upsert(KTab *t, const Value *key, uint64_t hash, bool *created);
/* Remove the entry owning `payload` and free its block (key text included). */
void ktab_remove(KTab *t, void *payload);
/* The stored key cells of an entry (valid until the entry is removed). */
static inline const Value *ktab_key(const KTab *t, const void *payload)
{
    return (const Value *)((const char *)payload - t->payload_off + 16);
}
/* Iterate: start with *pos = 0; returns the next payload or NULL at the end. The
 * table must not be modified during the iteration, except ktab_remove of the payload
 * just returned, which may move a later entry in front of *pos: callers that remove
 * while iterating collect payloads first. */
void *ktab_next(const KTab *t, uint32_t *pos);

/* Prefetch hints for batch loops that know upcoming hashes (memory-latency hiding;
 * no effect on results). ktab_prefetch_slot: the home slot of `hash`;
 * ktab_prefetch_entry: when the home slot already holds an entry with this hash, the
 * first `bytes` of that entry's block (key and payload). */
static inline void ktab_prefetch_slot(const KTab *t, uint64_t hash)
{
    if (t->slots) __builtin_prefetch(&t->slots[(uint32_t)hash & t->mask]);
}
static inline void ktab_prefetch_entry(const KTab *t, uint64_t hash, size_t bytes)
{
    if (!t->slots) return;
    const KTabSlot *s = &t->slots[(uint32_t)hash & t->mask];
    if (!s->entry || s->hash != hash || !bytes) return;
    /* every cache line the first `bytes` touch (blocks are 16-byte aligned, so they
     * may start anywhere in a line) */
    uintptr_t p = (uintptr_t)s->entry & ~(uintptr_t)63, end = (uintptr_t)s->entry + bytes - 1;
    for (; p <= end; p += 64) __builtin_prefetch((const void *)p);
}

/* When the home slot holds an entry with this hash (its slot and head prefetched
 * earlier), the bytes of its text key cells, which sit at the end of the block. */
static inline void ktab_prefetch_key_text(const KTab *t, uint64_t hash)
{
    if (!t->slots || t->int_keys) return;
    const KTabSlot *s = &t->slots[(uint32_t)hash & t->mask];
    if (!s->entry || s->hash != hash) return;
    const Value *k = (const Value *)((const char *)s->entry + 16);
    for (int i = 0; i < t->nkey; i++)
        if (type_is_varlen(t->types[i]) && !k[i].isnull) __builtin_prefetch(k[i].s);
}

/* A hint, not a lookup: the payload of the entry in the home slot of `hash` when that
 * entry has this hash (almost surely the key's; its key is not compared), else NULL.
 * For prefetching what a payload points to; never for results. */
static inline const void *ktab_peek(const KTab *t, uint64_t hash)
{
    if (!t->slots) return NULL;
    const KTabSlot *s = &t->slots[(uint32_t)hash & t->mask];
    return s->entry && s->hash == hash ? (const char *)s->entry + t->payload_off : NULL;
}

/* The whole entry block (key and payload) of a payload already found. */
static inline void ktab_prefetch_payload(const KTab *t, const void *payload)
{
    const char *blk = (const char *)payload - t->payload_off;
    size_t bytes = t->payload_off + t->payload_size;
    uintptr_t p = (uintptr_t)blk & ~(uintptr_t)63, end = (uintptr_t)blk + bytes - 1;
    for (; p <= end; p += 64) __builtin_prefetch((const void *)p);
}

/* Key cell equality as used by the table (grouping semantics). */
bool ktab_cell_equal(Type t, const Value *a, const Value *b);

#endif
