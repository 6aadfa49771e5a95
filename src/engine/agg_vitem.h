/* One input of array_agg / json_agg / json_object_agg: the binder wraps the
 * aggregated values and the ORDER BY keys of the call in an FN_AGG_ITEM call, which
 * the evaluator packs into one non-NULL bytes value (so that NULL values are
 * aggregated too), and the aggregate keeps the packed values in its ordered multiset
 * (ordset.h, oset_vitem_type), ordered by the keys (each with its direction and NULL
 * placement), then by the values (ascending, NULL last) for the ties PostgreSQL leaves
 * unspecified.
 *
 * FN_AGG_ITEM's arguments: args[0] an int constant nv (1 or 2), args[1..nv] the values,
 * then per key an int constant of flags (AGG_VITEM_DESC | AGG_VITEM_NULLS_FIRST) and
 * the key.
 *
 * Packed layout: u8 number of keys, u8 number of values; per key its flags byte and
 * its field; then each value's field. A field: u8 TypeId (0: NULL, and nothing else
 * follows), u8 element TypeId (arrays), then a varlen type's u32 length and bytes, or
 * any other type's 18 bytes (the Value's two words and its scale). Host order: packed
 * values travel only inside one engine's state and its checkpoints. Not for use
 * outside src/engine. */
#ifndef WEIR_ENGINE_AGG_VITEM_H
#define WEIR_ENGINE_AGG_VITEM_H

#include "base/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define AGG_VITEM_DESC 1
#define AGG_VITEM_NULLS_FIRST 2
#define AGG_VITEM_MAX 16   /* keys + values of one item */

typedef struct AggVItem {
    int nkeys, nvals;
    uint8_t kflags[AGG_VITEM_MAX];
    Type ktype[AGG_VITEM_MAX], vtype[AGG_VITEM_MAX];
    Value key[AGG_VITEM_MAX], val[AGG_VITEM_MAX];
} AggVItem;

static inline size_t agg_vitem_field_size(Type t, const Value *v)
{
    if (v->isnull) return 1;
    return 2 + (type_is_varlen(t) ? 4 + (size_t)v->len : 18);
}

static inline char *agg_vitem_put_field(char *p, Type t, const Value *v)
{
    if (v->isnull) {
        *p++ = 0;
        return p;
    }
    *p++ = (char)t.id;
    *p++ = (char)t.elem;
    if (type_is_varlen(t)) {
        uint32_t l = v->len;
        memcpy(p, &l, 4);
        p += 4;
        if (l) memcpy(p, v->s, l);
        return p + l;
    }
    uint64_t w1 = v->lo, w2 = (uint64_t)v->hi;
    if (type_is_int_like(t) || type_is_float(t)) w2 = 0;   /* unused words: equal values, equal bytes */
    memcpy(p, &w1, 8);
    memcpy(p + 8, &w2, 8);
    int16_t sc = t.id == T_NUMERIC ? v->scale : 0;
    memcpy(p + 16, &sc, 2);
    return p + 18;
}

static inline const char *agg_vitem_get_field(const char *p, const char *end, Type *t, Value *v)
{
    memset(v, 0, sizeof *v);
    *t = type_make(T_UNKNOWN);
    if (p >= end) return NULL;
    uint8_t id = (uint8_t)*p++;
    if (id == 0) {
        v->isnull = 1;
        return p;
    }
    if (id >= T__COUNT || end - p < 1) return NULL;
    t->id = id;
    t->elem = (uint8_t)*p++;
    if (t->id == T_ARRAY && (t->elem == 0 || t->elem >= T__COUNT)) return NULL;
    if (type_is_varlen(*t)) {
        uint32_t l;
        if (end - p < 4) return NULL;
        memcpy(&l, p, 4);
        p += 4;
        if ((size_t)(end - p) < l) return NULL;
        v->s = p;
        v->len = l;
        return p + l;
    }
    if (end - p < 18) return NULL;
    uint64_t w1, w2;
    memcpy(&w1, p, 8);
    memcpy(&w2, p + 8, 8);
    v->lo = w1;
    v->hi = (int64_t)w2;
    memcpy(&v->scale, p + 16, 2);
    return p + 18;
}

/* Unpacks a packed item (values point into it); false if the bytes are not one (a
 * corrupt checkpoint). */
static inline bool agg_vitem_unpack(const char *p, size_t n, AggVItem *it)
{
    const char *end = p + n;
    if (n < 2) return false;
    it->nkeys = (uint8_t)p[0];
    it->nvals = (uint8_t)p[1];
    p += 2;
    if (it->nkeys + it->nvals > AGG_VITEM_MAX) return false;
    for (int k = 0; k < it->nkeys; k++) {
        if (p >= end) return false;
        it->kflags[k] = (uint8_t)*p++;
        if (!(p = agg_vitem_get_field(p, end, &it->ktype[k], &it->key[k]))) return false;
    }
    for (int k = 0; k < it->nvals; k++)
        if (!(p = agg_vitem_get_field(p, end, &it->vtype[k], &it->val[k]))) return false;
    return p == end;
}

static inline int agg_vitem_bytes_cmp(const Value *a, const Value *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->s, b->s, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return (a->len > b->len) - (a->len < b->len);
}

/* The multiset's order over packed items a and b (bytes Values). */
static inline int agg_vitem_cmp(const Value *a, const Value *b)
{
    AggVItem x, y;
    if (!agg_vitem_unpack(a->s, a->len, &x) || !agg_vitem_unpack(b->s, b->len, &y) || x.nkeys != y.nkeys ||
        x.nvals != y.nvals)
        return agg_vitem_bytes_cmp(a, b);
    for (int k = 0; k < x.nkeys; k++) {
        const Value *u = &x.key[k], *v = &y.key[k];
        bool nf = (x.kflags[k] & AGG_VITEM_NULLS_FIRST) != 0;
        if (u->isnull != v->isnull) return (u->isnull ? 1 : -1) * (nf ? -1 : 1);
        if (u->isnull) continue;
        int c = value_compare(x.ktype[k], u, v);
        if (c) return (c < 0 ? -1 : 1) * ((x.kflags[k] & AGG_VITEM_DESC) ? -1 : 1);
    }
    for (int k = 0; k < x.nvals; k++) {
        const Value *u = &x.val[k], *v = &y.val[k];
        if (u->isnull != v->isnull) return u->isnull ? 1 : -1;
        if (u->isnull) continue;
        int c = value_compare(x.vtype[k], u, v);
        if (c) return c < 0 ? -1 : 1;
    }
    /* equal by value (1.5 and 1.50): by representation, so that neither is lost */
    return agg_vitem_bytes_cmp(a, b);
}

#endif
