/* Ordered multiset of Values (value -> multiplicity) as an AVL tree: O(log n) add,
 * remove and min/max. Used by retractable MIN/MAX (retracting the current extreme
 * falls back to the next value) and by DISTINCT aggregates (value -> count, so the
 * accumulator sees 0 -> 1 and 1 -> 0 transitions only). Order and equality follow
 * value_compare (1.50 and 1.5 are one entry, keeping the first representation).
 * Text bytes are copied into the node; memory is counted into a caller counter. */
#ifndef WEIR_ENGINE_ORDSET_H
#define WEIR_ENGINE_ORDSET_H

#include "base/value.h"
#include "engine/avl.h"

#include <stdint.h>

/* The type of a set of packed string_agg items (agg_item.h) whose order key has type
 * key: text values ordered by agg_item_cmp rather than by their bytes. */
#define OSET_ITEM_MARK (-2)
static inline Type oset_item_type(TypeId key)
{
    Type t = {T_TEXT, OSET_ITEM_MARK, (int16_t)key, 0};
    return t;
}

/* The type of a set of packed array_agg / json_agg items (agg_vitem.h): bytes values
 * ordered by agg_vitem_cmp. */
#define OSET_VITEM_MARK (-3)
static inline Type oset_vitem_type(void)
{
    Type t = {T_TEXT, OSET_VITEM_MARK, -1, 0};
    return t;
}

typedef struct OSetNode OSetNode;
struct OSetNode {
    AvlNode avl;             /* first member: the tree links (avl.h) */
    int64_t count;           /* multiplicity (never 0: such nodes are removed) */
    Value v;                 /* text points into the node's trailing bytes */
};

typedef struct OSet {
    AvlNode *root;           /* of the OSetNodes */
    int64_t n;               /* distinct values held */
    OSetNode *min, *max;     /* cached extremes (nodes never move between values) */
} OSet;

/* Add w (may be negative) to the multiplicity of v (non-NULL, of type t); a value
 * whose multiplicity becomes 0 is removed. Returns the multiplicity before the call.
 * *bytes is adjusted by the memory allocated or freed. */
int64_t oset_add(OSet *s, Type t, const Value *v, int64_t w, int64_t *bytes);
/* Smallest / largest value, or NULL when empty. O(1). */
const Value *oset_min(const OSet *s);
const Value *oset_max(const OSet *s);
/* Free every node (adjusting *bytes) and leave the set empty. */
void oset_clear(OSet *s, Type t, int64_t *bytes);
/* Visit the values in ascending order. */
void oset_walk(const OSet *s, void (*fn)(void *ctx, const Value *v, int64_t count), void *ctx);

#endif
