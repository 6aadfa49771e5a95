/* AVL-tree ordered multiset (see ordset.h). */
#include "engine/ordset.h"

#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

static inline int32_t height(const OSetNode *n) { return n ? n->height : 0; }

static inline void fix_height(OSetNode *n)
{
    int32_t hl = height(n->l), hr = height(n->r);
    n->height = (hl > hr ? hl : hr) + 1;
}

static OSetNode *rotate_right(OSetNode *n)
{
    OSetNode *l = n->l;
    n->l = l->r;
    l->r = n;
    fix_height(n);
    fix_height(l);
    return l;
}

static OSetNode *rotate_left(OSetNode *n)
{
    OSetNode *r = n->r;
    n->r = r->l;
    r->l = n;
    fix_height(n);
    fix_height(r);
    return r;
}

static OSetNode *balance(OSetNode *n)
{
    fix_height(n);
    int32_t bf = height(n->l) - height(n->r);
    if (bf > 1) {
        if (height(n->l->l) < height(n->l->r)) n->l = rotate_left(n->l);
        return rotate_right(n);
    }
    if (bf < -1) {
        if (height(n->r->r) < height(n->r->l)) n->r = rotate_right(n->r);
        return rotate_left(n);
    }
    return n;
}

static size_t node_size(Type t, const Value *v)
{
    return sizeof(OSetNode) + (t.id == T_TEXT ? v->len : 0);
}

static OSetNode *new_node(Type t, const Value *v, int64_t w, int64_t *bytes)
{
    size_t size = node_size(t, v);
    OSetNode *n = xmalloc(size);
    n->l = n->r = NULL;
    n->count = w;
    n->height = 1;
    n->v = *v;
    if (t.id == T_TEXT) {
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

/* Detach the minimum of subtree n into *min; returns the rebalanced rest. */
static OSetNode *take_min(OSetNode *n, OSetNode **min)
{
    if (!n->l) {
        *min = n;
        return n->r;
    }
    n->l = take_min(n->l, min);
    return balance(n);
}

/* value_compare, with the integer-like types compared inline (the hot case). */
static inline int cmp_fn(Type t, const Value *a, const Value *b)
{
    switch (t.id) {
    case T_BOOL: case T_INT2: case T_INT4: case T_INT8:
    case T_TIMESTAMP: case T_TIMESTAMPTZ: case T_DATE:
        return (a->i > b->i) - (a->i < b->i);
    default:
        return value_compare(t, a, b);
    }
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

static OSetNode *add_rec(OSetNode *n, AddCtx *c)
{
    if (!n) {
        c->prev = 0;
        c->dn = 1;
        c->created = new_node(c->t, c->v, c->w, c->bytes);
        return c->created;
    }
    int cmp = cmp_fn(c->t, c->v, &n->v);
    if (cmp < 0) {
        n->l = add_rec(n->l, c);
    } else if (cmp > 0) {
        n->r = add_rec(n->r, c);
    } else {
        c->prev = n->count;
        n->count += c->w;
        if (n->count != 0) return n;
        c->dn = -1;
        c->removed_min = n == c->set->min;
        c->removed_max = n == c->set->max;
        OSetNode *l = n->l, *r = n->r;
        free_node(c->t, n, c->bytes);
        if (!l) return r;
        if (!r) return l;
        OSetNode *m;
        OSetNode *rest = take_min(r, &m);
        m->l = l;
        m->r = rest;
        return balance(m);
    }
    return balance(n);
}

int64_t oset_add(OSet *s, Type t, const Value *v, int64_t w, int64_t *bytes)
{
    if (w == 0) {
        /* a lookup: report the current multiplicity */
        const OSetNode *n = s->root;
        while (n) {
            int cmp = cmp_fn(t, v, &n->v);
            if (cmp == 0) return n->count;
            n = cmp < 0 ? n->l : n->r;
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
            OSetNode *n = s->root;
            while (n && n->l) n = n->l;
            s->min = n;
        }
        if (c.removed_max) {
            OSetNode *n = s->root;
            while (n && n->r) n = n->r;
            s->max = n;
        }
    }
    return c.prev;
}

const Value *oset_min(const OSet *s) { return s->min ? &s->min->v : NULL; }

const Value *oset_max(const OSet *s) { return s->max ? &s->max->v : NULL; }

static void clear_rec(Type t, OSetNode *n, int64_t *bytes)
{
    /* recursion depth is the tree height: at most ~1.44 log2(n) */
    if (!n) return;
    clear_rec(t, n->l, bytes);
    clear_rec(t, n->r, bytes);
    free_node(t, n, bytes);
}

void oset_clear(OSet *s, Type t, int64_t *bytes)
{
    clear_rec(t, s->root, bytes);
    s->root = NULL;
    s->min = s->max = NULL;
    s->n = 0;
}

static void walk_rec(const OSetNode *n, void (*fn)(void *, const Value *, int64_t), void *ctx)
{
    while (n) {
        walk_rec(n->l, fn, ctx);
        fn(ctx, &n->v, n->count);
        n = n->r;
    }
}

void oset_walk(const OSet *s, void (*fn)(void *ctx, const Value *v, int64_t count), void *ctx)
{
    walk_rec(s->root, fn, ctx);
}
