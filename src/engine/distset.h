/* Hash multiset of Values (value -> multiplicity) for DISTINCT aggregates: the
 * accumulator only needs each value's multiplicity (to see 0 -> 1 and 1 -> 0
 * transitions), not an order, so an open-addressing table (linear probing,
 * backward-shift deletion) replaces the ordered set there. Equality follows
 * value_equal (1.50 and 1.5 are one entry, keeping the first representation). Text
 * bytes are copied; memory is counted into a caller counter. Checkpoints visit the
 * values in value_compare order, so their bytes do not depend on the table layout. */
#ifndef WEIR_ENGINE_DISTSET_H
#define WEIR_ENGINE_DISTSET_H

#include "base/value.h"

#include <stdint.h>

typedef struct DSetEnt {
    int64_t count;           /* 0: empty slot */
    uint64_t hash;
    Value v;                 /* text points to a malloc'd copy */
} DSetEnt;

typedef struct DSet {
    DSetEnt *slots;          /* cap entries (power of two), NULL while cap == 0 */
    uint32_t cap;
    uint32_t n;              /* distinct values held */
} DSet;

/* Multiplicity of v (non-NULL, of type t); 0 when absent. */
int64_t dset_count(const DSet *s, Type t, const Value *v);
/* Add w (may be negative) to the multiplicity of v; a value whose multiplicity becomes
 * 0 is removed. Returns the multiplicity before the call. */
int64_t dset_add(DSet *s, Type t, const Value *v, int64_t w, int64_t *bytes);
/* Free every entry (adjusting *bytes) and leave the set empty. */
void dset_clear(DSet *s, Type t, int64_t *bytes);
/* Visit the values in ascending value_compare order. */
void dset_walk_sorted(const DSet *s, Type t, void (*fn)(void *ctx, const Value *v, int64_t count), void *ctx);

#endif
