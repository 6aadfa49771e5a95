/* One value of string_agg(x, delimiter ORDER BY key) when the order key is another
 * expression or the delimiter is computed per row: the binder wraps the three in an
 * FN_STRING_AGG_ITEM call, which the evaluator packs into one text value (x, its
 * delimiter, its order key), and the aggregate keeps the packed values in its ordered
 * multiset, ordered by key (NULL last), then x, then the delimiter (NULL first).
 *
 * Layout: u32 x length, x bytes; u8 delimiter NULL; u32 delimiter length, its bytes;
 * u8 key NULL; the key: text as u32 length and bytes, any other type as its two
 * 8-byte words and its 2-byte scale (value.h's Value). Lengths in host order (the
 * packed bytes only travel inside one engine's state and its checkpoints). Not for use
 * outside src/engine. */
#ifndef WEIR_ENGINE_AGG_ITEM_H
#define WEIR_ENGINE_AGG_ITEM_H

#include "base/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct AggItem {
    Value x, delim, key;   /* delim, key may be NULL */
} AggItem;

/* Bytes agg_item_pack writes. */
static inline size_t agg_item_size(Type kt, const Value *x, const Value *d, const Value *k)
{
    size_t n = 4 + x->len + 1 + 4 + (d->isnull ? 0 : d->len) + 1;
    if (!k->isnull) n += kt.id == T_TEXT ? 4 + (size_t)k->len : 18;
    return n;
}

static inline void agg_item_pack(char *out, Type kt, const Value *x, const Value *d, const Value *k)
{
    uint32_t l = x->len;
    memcpy(out, &l, 4), out += 4;
    if (l) memcpy(out, x->s, l), out += l;
    *out++ = (char)(d->isnull ? 1 : 0);
    l = d->isnull ? 0 : d->len;
    memcpy(out, &l, 4), out += 4;
    if (l) memcpy(out, d->s, l), out += l;
    *out++ = (char)(k->isnull ? 1 : 0);
    if (k->isnull) return;
    if (kt.id == T_TEXT) {
        l = k->len;
        memcpy(out, &l, 4), out += 4;
        if (l) memcpy(out, k->s, l);
        return;
    }
    uint64_t w1 = k->lo, w2 = (uint64_t)k->hi;
    memcpy(out, &w1, 8);
    memcpy(out + 8, &w2, 8);
    memcpy(out + 16, &k->scale, 2);
}

/* Unpacks a value agg_item_pack wrote (the result points into it); false if the bytes
 * are not such a value (a corrupt checkpoint). */
static inline bool agg_item_unpack(Type kt, const char *p, size_t n, AggItem *it)
{
    const char *end = p + n;
    uint32_t l;
    memset(it, 0, sizeof *it);
    if (end - p < 4) return false;
    memcpy(&l, p, 4), p += 4;
    if ((size_t)(end - p) < (size_t)l + 5) return false;
    it->x = value_text(p, l), p += l;
    bool dnull = *p++ != 0;
    memcpy(&l, p, 4), p += 4;
    if ((size_t)(end - p) < (size_t)l + 1) return false;
    it->delim = dnull ? value_null() : value_text(p, l);
    p += l;
    bool knull = *p++ != 0;
    if (knull) {
        it->key = value_null();
        return p == end;
    }
    if (kt.id == T_TEXT) {
        if (end - p < 4) return false;
        memcpy(&l, p, 4), p += 4;
        if ((size_t)(end - p) != l) return false;
        it->key = value_text(p, l);
        return true;
    }
    if (end - p != 18) return false;
    uint64_t w1, w2;
    memcpy(&w1, p, 8);
    memcpy(&w2, p + 8, 8);
    it->key.lo = w1;
    it->key.hi = (int64_t)w2;
    memcpy(&it->key.scale, p + 16, 2);
    return true;
}

static inline int agg_item_text_cmp(const Value *a, const Value *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->s, b->s, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return (a->len > b->len) - (a->len < b->len);
}

/* The multiset's order over packed values a and b (text Values). */
static inline int agg_item_cmp(Type kt, const Value *a, const Value *b)
{
    AggItem x, y;
    bool okx = agg_item_unpack(kt, a->s, a->len, &x), oky = agg_item_unpack(kt, b->s, b->len, &y);
    if (!okx || !oky) return agg_item_text_cmp(a, b);
    if (x.key.isnull != y.key.isnull) return x.key.isnull ? 1 : -1;
    if (!x.key.isnull) {
        int c = value_compare(kt, &x.key, &y.key);
        if (c) return c < 0 ? -1 : 1;
    }
    int c = agg_item_text_cmp(&x.x, &y.x);
    if (c) return c;
    if (x.delim.isnull != y.delim.isnull) return x.delim.isnull ? -1 : 1;
    return x.delim.isnull ? 0 : agg_item_text_cmp(&x.delim, &y.delim);
}

#endif
