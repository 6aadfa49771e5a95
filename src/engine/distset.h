/* Hash multiset of Values for DISTINCT aggregates: value -> one multiplicity per
 * counter. The DISTINCT calls of one operator that share an argument (count(DISTINCT
 * bidder), count(DISTINCT bidder) FILTER (WHERE ...), ...) share one set, one counter
 * each, so a row costs one lookup however many of them there are. An accumulator only
 * needs each value's multiplicity (to see 0 -> 1 and 1 -> 0 transitions), not an
 * order, so an open-addressing table (linear probing, backward-shift deletion) serves.
 * Over an insert-only input only 0 -> 1 matters: counters are presence bits, and for
 * integer-like values an entry is just the value and its bits (16 bytes), so large
 * sets stay cache-friendly; text values over an insert-only input are packed into one
 * block per set ({bits, length, bytes} records, no allocation per value; a hash index
 * over the records once the set outgrows a scan). Equality follows value_equal (1.50 and 1.5 are one entry,
 * keeping the first representation). Text bytes are copied; memory is counted into a
 * caller counter. Checkpoints visit the values in value_compare order, so their bytes
 * do not depend on the table layout. */
#ifndef WEIR_ENGINE_DISTSET_H
#define WEIR_ENGINE_DISTSET_H

#include "base/value.h"
#include "engine/pool.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct DSet {
    unsigned char *slots;    /* cap entries, NULL while cap == 0 */
    uint32_t cap;
    uint32_t n;              /* values held (with any counter != 0) */
    uint32_t width;          /* counters per value, >= 1 */
    bool presence;           /* counters are presence bits (0 or 1) */
    bool compact;            /* presence bits of integer-like values: {value, bits} entries */
    bool pooled;             /* presence bits of text: the values packed in one block (cap:
                                its bytes), scanned while few, indexed past DSET_SMALL */
} DSet;

/* A pooled set holds up to this many values without an index (a scan of one or two
 * cache lines beats hashing). */
#define DSET_SMALL 32

/* An entry of a set (opaque: read it with dset_ent_count). */
typedef struct DSetEntry DSetEntry;

/* An empty set of values of type t with `width` counters per value (a zeroed DSet has
 * width 0: call this). presence (width <= 64): counters are bits; a positive delta sets
 * one, a negative delta is not allowed, and counts read back as 0 or 1. */
void dset_init(DSet *s, Type t, uint32_t width, bool presence);
/* The hash dset_find and dset_apply take for v (non-NULL, of type t). */
uint64_t dset_hash(Type t, const Value *v);
/* The entry of v (h = dset_hash(t, v)), or NULL when no counter holds it. */
const DSetEntry *dset_find(const DSet *s, Type t, const Value *v, uint64_t h);
/* Counter k of an entry. */
int64_t dset_ent_count(const DSet *s, const DSetEntry *e, uint32_t k);
/* Prefetch hint: the home slot of v (no effect on results). */
void dset_prefetch(const DSet *s, Type t, const Value *v);
/* Multiplicity of v in counter k; 0 when absent. */
int64_t dset_count(const DSet *s, Type t, const Value *v, uint32_t k);
/* Add delta[k] to every counter k of v (h = dset_hash(t, v)); a value whose counters
 * all become 0 is removed. In a presence set a positive delta sets the bit. Text
 * copies and pooled blocks come from `pool` (the operator's, so a value costs no
 * malloc; NULL: malloc), which must be the same for every call on one set. */
void dset_apply(DSet *s, Type t, const Value *v, uint64_t h, const int64_t *delta, Pool *pool, int64_t *bytes);
/* Add w to counter k of v; returns the counter before the call. */
int64_t dset_add(DSet *s, Type t, const Value *v, uint32_t k, int64_t w, Pool *pool, int64_t *bytes);
/* Values whose counter k is not 0. */
uint32_t dset_size(const DSet *s, uint32_t k);
/* Free every entry (adjusting *bytes) and leave the set empty (same width). */
void dset_clear(DSet *s, Type t, Pool *pool, int64_t *bytes);
/* Visit the values whose counter k is not 0, in ascending value_compare order. */
void dset_walk_sorted(const DSet *s, Type t, uint32_t k, void (*fn)(void *ctx, const Value *v, int64_t count),
                      void *ctx);

#endif
