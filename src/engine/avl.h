/* The balancing core shared by the engine's AVL trees (ordset.c: value multisets;
 * op_topn.c: a partition's rows in ORDER BY order). A tree node embeds AvlNode as its
 * first member and casts between the two; search, insertion and what a node holds stay
 * with the tree (each has its own order), this file only keeps the links balanced.
 * Everything is inline: the trees sit on per-row paths (MIN/MAX, DISTINCT, TopN). */
#ifndef WEIR_ENGINE_AVL_H
#define WEIR_ENGINE_AVL_H

#include <stddef.h>
#include <stdint.h>

/* Links of one node: 24 bytes, of which `aux` (what would otherwise be padding) is left
 * to the embedding node. */
typedef struct AvlNode AvlNode;
struct AvlNode {
    AvlNode *l, *r;
    int32_t height;          /* of the subtree rooted here; 1 for a leaf */
    uint32_t aux;            /* not used by the tree: free for the embedding node */
};

/* Deepest tree an AvlIter walks: an AVL tree of n nodes is at most ~1.44 log2(n) high. */
#define AVL_MAX_HEIGHT 96

static inline int32_t avl_height(const AvlNode *n) { return n ? n->height : 0; }

/* A detached node of height 1 (aux 0; the caller fills its own fields). */
static inline void avl_init_leaf(AvlNode *n)
{
    n->l = n->r = NULL;
    n->height = 1;
    n->aux = 0;
}

static inline void avl_fix_height(AvlNode *n)
{
    int32_t hl = avl_height(n->l), hr = avl_height(n->r);
    n->height = (hl > hr ? hl : hr) + 1;
}

static inline AvlNode *avl_rotate_right(AvlNode *n)
{
    AvlNode *l = n->l;
    n->l = l->r;
    l->r = n;
    avl_fix_height(n);
    avl_fix_height(l);
    return l;
}

static inline AvlNode *avl_rotate_left(AvlNode *n)
{
    AvlNode *r = n->r;
    n->r = r->l;
    r->l = n;
    avl_fix_height(n);
    avl_fix_height(r);
    return r;
}

/* Restore the AVL invariant at n after one of its subtrees changed height by at most
 * one; returns the subtree's new root. */
static inline AvlNode *avl_balance(AvlNode *n)
{
    avl_fix_height(n);
    int32_t bf = avl_height(n->l) - avl_height(n->r);
    if (bf > 1) {
        if (avl_height(n->l->l) < avl_height(n->l->r)) n->l = avl_rotate_left(n->l);
        return avl_rotate_right(n);
    }
    if (bf < -1) {
        if (avl_height(n->r->r) < avl_height(n->r->l)) n->r = avl_rotate_right(n->r);
        return avl_rotate_left(n);
    }
    return n;
}

/* Detach the minimum of the non-empty subtree n into *min; returns the rebalanced rest. */
static inline AvlNode *avl_take_min(AvlNode *n, AvlNode **min)
{
    if (!n->l) {
        *min = n;
        return n->r;
    }
    n->l = avl_take_min(n->l, min);
    return avl_balance(n);
}

/* The subtree that replaces a node being unlinked, given its subtrees l and r (every
 * node of l orders before every node of r): r's minimum becomes the new root. */
static inline AvlNode *avl_join(AvlNode *l, AvlNode *r)
{
    if (!l) return r;
    if (!r) return l;
    AvlNode *m;
    AvlNode *rest = avl_take_min(r, &m);
    m->l = l;
    m->r = rest;
    return avl_balance(m);
}

/* In-order iteration without recursion: avl_iter_init, then avl_iter_next until NULL.
 * The tree must not change during the walk. */
typedef struct AvlIter {
    AvlNode *stack[AVL_MAX_HEIGHT];
    int sp;
    AvlNode *cur;
} AvlIter;

static inline void avl_iter_init(AvlIter *it, AvlNode *root)
{
    it->sp = 0;
    it->cur = root;
}

static inline AvlNode *avl_iter_next(AvlIter *it)
{
    while (it->cur) {
        it->stack[it->sp++] = it->cur;
        it->cur = it->cur->l;
    }
    if (it->sp == 0) return NULL;
    AvlNode *n = it->stack[--it->sp];
    it->cur = n->r;
    return n;
}

#endif
