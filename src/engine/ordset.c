/* AVL-tree ordered multiset (see ordset.h). */
#include "engine/ordset.h"

#include "engine/agg_item.h"
#include "engine/agg_vitem.h"

#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

/* The node of a tree link (AvlNode is its first member); NULL stays NULL. */
static inline OSetNode *node_of(const AvlNode *a) { return (OSetNode *)a; }

static size_t node_size(Type t, const Value *v)
{
    return sizeof(OSetNode) + (type_is_varlen(t) ? v->len : 0);
}

static OSetNode *new_node(Type t, const Value *v, int64_t w, int64_t *bytes)
{
    size_t size = node_size(t, v);
    OSetNode *n = xmalloc(size);
    avl_init_leaf(&n->avl);
    n->count = w;
    n->v = *v;
    if (type_is_varlen(t)) {
        char *tp = (char *)(n + 1);
        if (v->len) memcpy(tp, v->s, v->len);
        n->v.s = tp;
    }
    *bytes += (int64_t)size;
    return n;
}

static void free_node(Type t, OSetNode *n, int64_t *bytes)
{
    *bytes -= (int64_t)node_size(t, &n->v);
    free(n);
}

/* value_compare, with the integer-like types compared inline (the hot case); packed
 * string_agg items by their own order (oset_item_type). */
static inline int cmp_fn(Type t, const Value *a, const Value *b)
{
    if (type_is_int_like(t)) return (a->i > b->i) - (a->i < b->i);
    if (t.id == T_TEXT && t.precision == OSET_ITEM_MARK) return agg_item_cmp(type_make((TypeId)t.scale), a, b);
    if (t.id == T_TEXT && t.precision == OSET_VITEM_MARK) return agg_vitem_cmp(a, b);
    return value_compare(t, a, b);
}

typedef struct AddCtx {
    Type t;
    const Value *v;
    int64_t w;
    int64_t prev;
    int64_t *bytes;
    int64_t dn;              /* change in distinct values */
    OSetNode *created;       /* the node inserted, if any */
    const OSet *set;
    bool removed_min, removed_max; /* the node freed was the cached min / max */
} AddCtx;

static AvlNode *add_rec(AvlNode *a, AddCtx *c)
{
    if (!a) {
        c->prev = 0;
        c->dn = 1;
        c->created = new_node(c->t, c->v, c->w, c->bytes);
        return &c->created->avl;
    }
    OSetNode *n = node_of(a);
    int cmp = cmp_fn(c->t, c->v, &n->v);
    if (cmp < 0) {
        a->l = add_rec(a->l, c);
    } else if (cmp > 0) {
        a->r = add_rec(a->r, c);
    } else {
        c->prev = n->count;
        n->count += c->w;
        if (n->count != 0) return a;
        c->dn = -1;
        c->removed_min = n == c->set->min;
        c->removed_max = n == c->set->max;
        AvlNode *l = a->l, *r = a->r;
        free_node(c->t, n, c->bytes);
        return avl_join(l, r);
    }
    return avl_balance(a);
}

int64_t oset_add(OSet *s, Type t, const Value *v, int64_t w, int64_t *bytes)
{
    if (w == 0) {
        /* a lookup: report the current multiplicity */
        const OSetNode *n = node_of(s->root);
        while (n) {
            int cmp = cmp_fn(t, v, &n->v);
            if (cmp == 0) return n->count;
            n = node_of(cmp < 0 ? n->avl.l : n->avl.r);
        }
        return 0;
    }
    AddCtx c = {t, v, w, 0, bytes, 0, NULL, s, false, false};
    s->root = add_rec(s->root, &c);
    s->n += c.dn;
    if (c.created) {
        if (!s->min || cmp_fn(t, &c.created->v, &s->min->v) < 0) s->min = c.created;
        if (!s->max || cmp_fn(t, &c.created->v, &s->max->v) > 0) s->max = c.created;
    } else {
        if (c.removed_min) {
            AvlNode *n = s->root;
            while (n && n->l) n = n->l;
            s->min = node_of(n);
        }
        if (c.removed_max) {
            AvlNode *n = s->root;
            while (n && n->r) n = n->r;
            s->max = node_of(n);
        }
    }
    return c.prev;
}

const Value *oset_min(const OSet *s) { return s->min ? &s->min->v : NULL; }

const Value *oset_max(const OSet *s) { return s->max ? &s->max->v : NULL; }

static void clear_rec(Type t, AvlNode *n, int64_t *bytes)
{
    /* recursion depth is the tree height: at most ~1.44 log2(n) */
    if (!n) return;
    clear_rec(t, n->l, bytes);
    clear_rec(t, n->r, bytes);
    free_node(t, node_of(n), bytes);
}

void oset_clear(OSet *s, Type t, int64_t *bytes)
{
    clear_rec(t, s->root, bytes);
    s->root = NULL;
    s->min = s->max = NULL;
    s->n = 0;
}

void oset_walk(const OSet *s, void (*fn)(void *ctx, const Value *v, int64_t count), void *ctx)
{
    AvlIter it;
    avl_iter_init(&it, s->root);
    AvlNode *a;
    while ((a = avl_iter_next(&it))) fn(ctx, &node_of(a)->v, node_of(a)->count);
}
