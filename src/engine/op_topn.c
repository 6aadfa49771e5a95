/* Top-N per partition: ROW_NUMBER / RANK / DENSE_RANK () OVER (PARTITION BY ... ORDER
 * BY ...) filtered to rank <= limit, incremental and exact under insertions and
 * retractions. With limit 1 and ROW_NUMBER it is deduplication (keep first / keep last
 * by the order).
 *
 * State: a keyed table partition key -> an AVL tree of the partition's distinct rows
 * (row -> multiplicity) ordered by the ORDER BY keys (desc / nulls first as given) and
 * then by the whole row (value order, then representation: op_row_order). The
 * whole-row tie-break makes ROW_NUMBER deterministic where PostgreSQL leaves the order
 * of peers unspecified; RANK and DENSE_RANK give peers (equal ORDER BY values) one
 * rank, so they need no tie-break.
 *
 * A step applies every change to its partition's tree; the first change to a
 * partition in the step snapshots the partition's top region as it was (rows with
 * their ranks). At the end of the step the new top region is computed and compared
 * with the snapshot in tree order: rows whose (row, rank) is unchanged emit nothing;
 * the others are retracted (-old, text copied) and inserted (+new). A row whose rank
 * changes is thus retracted and re-inserted; without the rank column (emit_rank false)
 * only membership changes are emitted. Copies of one row are separate ROW_NUMBER
 * positions and share one RANK.
 *
 * Over an insert-only input, rows below the top region can never enter it again, so
 * they are dropped at the end of the step: the state per partition stays at about
 * `limit` rows (one for deduplication). A retraction of such an input is an IR
 * contract violation (fatal).
 *
 * With the model's state_ttl (ttl.h) a partition whose last update is older than the
 * watermark minus the TTL is dropped silently: the rows it emitted stay with the
 * consumer, and a later row of the partition starts it over from empty (its top rows
 * are emitted as +row; for deduplication, upsert by the partition, an overwrite). Every
 * row of the partition updates it, also one that cannot rank. A partition that expires
 * for a row of the step in which it already changed first emits what changed up to
 * then, as one row per step would have. A retraction of a row the state no longer has
 * is ignored. Emitted rows own their text (the watermark can free the partition at
 * the end of the step). */
#include "engine/avl.h"
#include "engine/keyed_table.h"
#include "engine/op.h"
#include "engine/pool.h"
#include "engine/row_codec.h"
#include "engine/ttl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOPN_MAGIC 0x57544f50u /* "WTOP" */
#define TOPN_VERSION 1u
#define TOPN_VERSION_TTL 2u /* version 1 plus every partition's last update time */
#define TOPN_VERSION_CHUNKED 3u /* a base blob and the partitions in chunks by hash (topn_save_chunks) */

typedef struct TNode TNode;
struct TNode {
    AvlNode avl;             /* first member: the tree links (avl.h); avl.aux = bytes of
                                the block */
    int64_t count;
    Value keys[];            /* norder sort keys; then the row in the compact encoding
                                (row_codec.h); then the keys' text */
};

typedef struct Part {
    AvlNode *root;           /* of the TNodes */
    int64_t nodes;
    uint64_t touched;
    int32_t old_start, old_n;  /* snapshot in TopNOp.old */
    TtlItem tt;              /* TTL: last update */
} Part;

typedef struct TEnt {
    TNode *node;
    int64_t rank;
    int64_t count;
} TEnt;

typedef struct TopNOp {
    Op base;
    const PlanNode *plan;
    const char *state_id;
    int nin;                 /* input columns */
    int norder;
    int npart;
    int rank_kind;
    int64_t limit;
    bool emit_rank;
    bool insert_only;
    Type *order_types;
    Type *part_types;
    Value *keybuf;           /* npart */
    Value *cellbuf;          /* norder + nin: the probing row's sort keys and row */
    Value *rowbuf[2];        /* nin each: stored rows decoded for tie-breaks */
    RowCodec codec;          /* of the input rows */
    KTab parts;
    Pool pool;               /* the TNodes */
    int64_t node_bytes;
    int64_t nnodes;
    Part **touched;
    int ntouched, cap_touched;
    TEnt *old, *cur;
    int nold, cap_old, ncur, cap_cur;
    TNode **grave;
    int ngrave, cap_grave;
    Ttl ttl;
    ChunkTrack chunks;       /* incremental checkpoints: which chunks of partitions changed */
} TopNOp;

/* ---------- order ---------- */

static int cmp_sort_keys(const TopNOp *t, const Value *a, const Value *b)
{
    for (int k = 0; k < t->norder; k++) {
        const SortKey *sk = &t->plan->order[k];
        const Value *x = &a[k], *y = &b[k];
        if (x->isnull || y->isnull) {
            if (x->isnull && y->isnull) continue;
            return x->isnull == sk->nulls_first ? -1 : 1;
        }
        int c = value_compare(t->order_types[k], x, y);
        if (c) return sk->desc ? -c : c;
    }
    return 0;
}

static inline const uint8_t *node_row(const TopNOp *t, const TNode *n)
{
    return (const uint8_t *)(n->keys + t->norder);
}

/* Stored row of n decoded into rowbuf[i] (text points into the node). */
static inline const Value *node_decode(TopNOp *t, const TNode *n, int i)
{
    rowc_decode(&t->codec, node_row(t, n), t->rowbuf[i]);
    return t->rowbuf[i];
}

/* Total order of tree entries: sort keys, then the whole row. cells: a probing row's
 * sort keys ++ row. */
static int cmp_probe(TopNOp *t, const Value *cells, const TNode *n)
{
    int c = cmp_sort_keys(t, cells, n->keys);
    if (c) return c;
    return op_row_order(t->base.out_types, t->nin, cells + t->norder, node_decode(t, n, 0));
}

static int cmp_nodes(TopNOp *t, const TNode *a, const TNode *b)
{
    int c = cmp_sort_keys(t, a->keys, b->keys);
    if (c) return c;
    return op_row_order(t->base.out_types, t->nin, node_decode(t, a, 0), node_decode(t, b, 1));
}

/* ---------- AVL tree (balancing in avl.h) ---------- */

/* The node of a tree link (AvlNode is its first member); NULL stays NULL. */
static inline TNode *node_of(const AvlNode *a) { return (TNode *)a; }

static TNode *new_node(TopNOp *t, const Value *cells, int64_t count)
{
    size_t text = 0;
    for (int k = 0; k < t->norder; k++)
        if (type_is_varlen(t->order_types[k]) && !cells[k].isnull) text += cells[k].len;
    size_t rlen = rowc_size(&t->codec, cells + t->norder);
    size_t size = sizeof(TNode) + sizeof(Value) * (size_t)t->norder + rlen + text;
    TNode *n = pool_alloc(&t->pool, size);
    avl_init_leaf(&n->avl);
    n->avl.aux = (uint32_t)size;
    n->count = count;
    memcpy(n->keys, cells, sizeof(Value) * (size_t)t->norder);
    uint8_t *rp = (uint8_t *)(n->keys + t->norder);
    rowc_encode(&t->codec, cells + t->norder, rp);
    char *tp = (char *)rp + rlen;
    for (int k = 0; k < t->norder; k++) {
        if (type_is_varlen(t->order_types[k]) && !cells[k].isnull) {
            if (cells[k].len) memcpy(tp, cells[k].s, cells[k].len);
            n->keys[k].s = tp;
            tp += cells[k].len;
        }
    }
    t->node_bytes += (int64_t)size;
    t->nnodes++;
    return n;
}

typedef struct AddCtx {
    TopNOp *t;
    const Value *cells;
    int64_t w;
    TNode *removed;          /* node unlinked because its count reached 0 */
    bool created;
    bool no_create;          /* TTL: a retraction of a row not held changes nothing */
} AddCtx;

static AvlNode *add_rec(AvlNode *a, AddCtx *c)
{
    if (!a) {
        if (c->no_create) return NULL;
        c->created = true;
        return &new_node(c->t, c->cells, c->w)->avl;
    }
    TNode *n = node_of(a);
    int cmp = cmp_probe(c->t, c->cells, n);
    if (cmp < 0) {
        a->l = add_rec(a->l, c);
    } else if (cmp > 0) {
        a->r = add_rec(a->r, c);
    } else {
        n->count += c->w;
        if (n->count != 0) return a;
        c->removed = n;
        return avl_join(a->l, a->r);
    }
    return avl_balance(a);
}

static void to_grave(TopNOp *t, TNode *n)
{
    if (t->ngrave == t->cap_grave) {
        t->cap_grave = t->cap_grave ? t->cap_grave * 2 : 64;
        t->grave = xrealloc(t->grave, sizeof(TNode *) * (size_t)t->cap_grave);
    }
    t->grave[t->ngrave++] = n;
}

static void free_node(TopNOp *t, TNode *n)
{
    t->node_bytes -= n->avl.aux;
    t->nnodes--;
    pool_free(&t->pool, n, n->avl.aux);
}

/* ---------- top region ---------- */

/* Next node in tree order, or NULL. */
static inline TNode *walk_next(AvlIter *it) { return node_of(avl_iter_next(it)); }

static void push_ent(TEnt **arr, int *n, int *cap, TNode *node, int64_t rank, int64_t count)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *arr = xrealloc(*arr, sizeof(TEnt) * (size_t)*cap);
    }
    TEnt *e = &(*arr)[(*n)++];
    e->node = node;
    e->rank = rank;
    e->count = count;
}

/* Append the partition's top region (tree order, ranks ascending) to arr. Returns the
 * last node inside it (NULL when empty). */
static TNode *top_region(TopNOp *t, AvlNode *root, TEnt **arr, int *n, int *cap)
{
    AvlIter w;
    avl_iter_init(&w, root);
    int64_t seen = 0, rank = 0;
    TNode *prev = NULL, *last = NULL, *node;
    while ((node = walk_next(&w))) {
        if (node->count <= 0) continue; /* transient negative: not a row */
        if (t->rank_kind == 0) {
            if (seen >= t->limit) break;
            int64_t take = node->count < t->limit - seen ? node->count : t->limit - seen;
            for (int64_t k = 0; k < take; k++) push_ent(arr, n, cap, node, seen + k + 1, 1);
        } else {
            bool peer = prev && cmp_sort_keys(t, prev->keys, node->keys) == 0;
            if (!peer) rank = t->rank_kind == 1 ? seen + 1 : rank + 1;
            if (rank > t->limit) break;
            push_ent(arr, n, cap, node, rank, node->count);
        }
        seen += node->count;
        prev = node;
        last = node;
    }
    return last;
}

/* ---------- the step ---------- */

static void touch(TopNOp *t, Part *pt, uint64_t step)
{
    if (pt->touched == step) return;
    pt->touched = step;
    if (t->ntouched == t->cap_touched) {
        t->cap_touched = t->cap_touched ? t->cap_touched * 2 : 64;
        t->touched = xrealloc(t->touched, sizeof(Part *) * (size_t)t->cap_touched);
    }
    t->touched[t->ntouched++] = pt;
    pt->old_start = t->nold;
    top_region(t, pt->root, &t->old, &t->nold, &t->cap_old);
    pt->old_n = t->nold - pt->old_start;
}

static void emit(TopNOp *t, const TEnt *e, int64_t w, bool copy)
{
    Batch *out = t->base.out;
    Value *o = batch_append(out, w);
    rowc_decode(&t->codec, node_row(t, e->node), o);
    if (t->emit_rank) o[t->nin] = value_int(e->rank);
    if (copy || ttl_on(&t->ttl)) batch_copy_text(out, o, t->base.out_types, t->nin);
}

/* Order of snapshot entries: tree order of the rows, then rank. */
static int cmp_ent(TopNOp *t, const TEnt *a, const TEnt *b)
{
    int c = a->node == b->node ? 0 : cmp_nodes(t, a->node, b->node);
    if (c) return c;
    if (!t->emit_rank) return 0;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* Emit what turns the old top region into the new one (both in tree order). */
static void diff(TopNOp *t, const TEnt *old, int nold, const TEnt *cur, int ncur)
{
    int i = 0, k = 0;
    while (i < nold || k < ncur) {
        int c = i >= nold ? 1 : k >= ncur ? -1 : cmp_ent(t, &old[i], &cur[k]);
        if (c < 0) {
            emit(t, &old[i], -old[i].count, true);
            i++;
        } else if (c > 0) {
            emit(t, &cur[k], cur[k].count, false);
            k++;
        } else {
            int64_t d = cur[k].count - old[i].count;
            if (d < 0) emit(t, &old[i], d, true);
            else if (d > 0) emit(t, &cur[k], d, false);
            i++;
            k++;
        }
    }
}

/* Drop the nodes after `last` (insert-only inputs: they can never rank again). */
static void trim(TopNOp *t, Part *pt, TNode *last)
{
    for (;;) {
        AvlIter w;
        avl_iter_init(&w, pt->root);
        TNode *node, *victim = NULL;
        bool past = last == NULL;
        while ((node = walk_next(&w))) {
            if (past) {
                victim = node;
                break;
            }
            if (node == last) past = true;
        }
        if (!victim) return;
        memcpy(t->cellbuf, victim->keys, sizeof(Value) * (size_t)t->norder);
        rowc_decode(&t->codec, node_row(t, victim), t->cellbuf + t->norder);
        AddCtx c = {t, t->cellbuf, -victim->count, NULL, false, false};
        pt->root = add_rec(pt->root, &c);
        pt->nodes--;
        free_node(t, c.removed);
    }
}

/* ---------- expiry ---------- */

static void remove_part(TopNOp *t, Part *pt)
{
    if (t->chunks.dirty) chunk_mark(&t->chunks, ktab_hash(&t->parts, ktab_key(&t->parts, pt)));
    ttl_forget(&t->ttl, &pt->tt);
    ktab_remove(&t->parts, pt);
}

/* Every node of the partition to the grave (freed at the end of the step). */
static void bury_tree(TopNOp *t, AvlNode *a)
{
    if (!a) return;
    bury_tree(t, a->l);
    bury_tree(t, a->r);
    to_grave(t, node_of(a));
}

/* A row of this step found pt expired: when pt already changed in this step, what
 * changed up to now is emitted (as one row per step would have), then it starts over
 * from empty, and the end of the step compares its new rows with nothing: the consumer
 * keeps the rows the partition had (a keyed sink overwrites them by key, see
 * eng_present). */
static void expire_in_step(TopNOp *t, Part *pt, uint64_t step)
{
    if (pt->touched == step) {
        t->ncur = 0;
        top_region(t, pt->root, &t->cur, &t->ncur, &t->cap_cur);
        diff(t, t->old + pt->old_start, pt->old_n, t->cur, t->ncur);
        pt->old_n = 0;
        t->ncur = 0;
    }
    bury_tree(t, pt->root);
    pt->root = NULL;
    pt->nodes = 0;
    ttl_forget(&t->ttl, &pt->tt);
    ttl_item_init(&pt->tt);
    ttl_count(&t->ttl);
}

/* The watermark passed wm: partitions last updated before wm - ttl go, silently. */
static bool topn_on_watermark(Op *op, OpCtx *ctx, int64_t wm)
{
    (void)ctx;
    TopNOp *t = (TopNOp *)op;
    TtlItem *it;
    while ((it = ttl_pop_expired(&t->ttl, wm))) {
        Part *pt = (Part *)((char *)it - offsetof(Part, tt));
        ttl_count(&t->ttl);
        bury_tree(t, pt->root);
        remove_part(t, pt);
    }
    for (int g = 0; g < t->ngrave; g++) free_node(t, t->grave[g]);
    t->ngrave = 0;
    return true;
}

static void finish(TopNOp *t)
{
    for (int p = 0; p < t->ntouched; p++) {
        Part *pt = t->touched[p];
        t->ncur = 0;
        TNode *last = top_region(t, pt->root, &t->cur, &t->ncur, &t->cap_cur);
        diff(t, t->old + pt->old_start, pt->old_n, t->cur, t->ncur);
        if (t->insert_only && pt->root) trim(t, pt, last);
    }
    for (int g = 0; g < t->ngrave; g++) free_node(t, t->grave[g]);
    t->ngrave = 0;
    for (int p = 0; p < t->ntouched; p++) {
        Part *pt = t->touched[p];
        if (!pt->root) remove_part(t, pt);
    }
    t->ntouched = 0;
    t->nold = 0;
}

static bool eval_cells(TopNOp *t, const Value *row, EvalCtx *ec)
{
    for (int k = 0; k < t->npart; k++) {
        const Expr *e = t->plan->partition[k];
        if (e->kind == EX_COLUMN) t->keybuf[k] = row[e->col];
        else if (!eval_expr(e, row, ec, &t->keybuf[k])) return false;
    }
    for (int k = 0; k < t->norder; k++) {
        const Expr *e = t->plan->order[k].expr;
        if (e->kind == EX_COLUMN) t->cellbuf[k] = row[e->col];
        else if (!eval_expr(e, row, ec, &t->cellbuf[k])) return false;
    }
    memcpy(t->cellbuf + t->norder, row, sizeof(Value) * (size_t)t->nin);
    return true;
}

/* Over an insert-only input, a row that already has `limit` rows ahead of it in its
 * partition can never rank: ranks only grow. True when t->cellbuf is such a row
 * (ROW_NUMBER: after the last node in tree order; RANK: with sort keys after the last
 * node's; DENSE_RANK is not decided here). Such rows are not stored at all. */
static bool beyond_limit(TopNOp *t, const Part *pt)
{
    if (!pt->root || pt->nodes < t->limit || t->rank_kind == 2) return false;
    const AvlNode *a = pt->root;
    while (a->r) a = a->r;
    const TNode *last = node_of(a);
    if (t->rank_kind == 0) return cmp_probe(t, t->cellbuf, last) >= 0;
    return cmp_sort_keys(t, t->cellbuf, last->keys) > 0;
}

static bool topn_step(Op *op, OpCtx *ctx)
{
    TopNOp *t = (TopNOp *)op;
    const Batch *in = op->in[0]->out;
    EvalCtx ec = {0};
    ec.arena = &op->out->arena;
    for (int i = 0; i < in->n; i++) {
        int64_t w = in->weights[i];
        if (w == 0) continue;
        if (!eval_cells(t, batch_row(in, i), &ec)) {
            op_dead_letter(op, 0, i, ec.err);
            continue;
        }
        if (t->insert_only && w < 0) {
            snprintf(ctx->err, ctx->errsize, "internal error: retraction on the insert-only input of %s", t->state_id);
            return false;
        }
        bool created;
        uint64_t h = ktab_hash(&t->parts, t->keybuf);
        int64_t jw = 0;
        if (ttl_on(&t->ttl)) {
            jw = op_judge_wm(op->in_wm, in, i);
            Part *pt = ktab_find(&t->parts, t->keybuf, h);
            if (pt && ttl_expired(&t->ttl, &pt->tt, jw)) expire_in_step(t, pt, ctx->step);
            if (w < 0 && (!pt || !pt->root)) {
                /* a retraction of a row the state no longer has */
                if (pt && pt->touched != ctx->step) remove_part(t, pt);
                continue;
            }
        }
        Part *pt = ktab_upsert(&t->parts, t->keybuf, h, &created);
        if (created) ttl_item_init(&pt->tt);
        chunk_mark(&t->chunks, h);
        ttl_touch(&t->ttl, &pt->tt, jw);
        if (t->insert_only && beyond_limit(t, pt)) continue;
        touch(t, pt, ctx->step);
        AddCtx c = {t, t->cellbuf, w, NULL, false, ttl_on(&t->ttl) && w < 0};
        pt->root = add_rec(pt->root, &c);
        if (c.created) pt->nodes++;
        if (c.removed) {
            pt->nodes--;
            to_grave(t, c.removed);
        }
    }
    finish(t);
    return true;
}

/* The top region of every partition, as the last step left it. */
static bool topn_emit_current(Op *op, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    TopNOp *t = (TopNOp *)op;
    uint32_t pos = 0;
    Part *pt;
    while ((pt = ktab_next(&t->parts, &pos))) {
        t->ncur = 0;
        top_region(t, pt->root, &t->cur, &t->ncur, &t->cap_cur);
        for (int k = 0; k < t->ncur; k++) emit(t, &t->cur[k], t->cur[k].count, false);
    }
    t->ncur = 0;
    return true;
}

/* ---------- stats and checkpoints ---------- */

static int topn_stats(const Op *op, EngStateStats *out, int max)
{
    const TopNOp *t = (const TopNOp *)op;
    return op_state_stats1_ttl(out, max, t->state_id, t->nnodes, t->parts.bytes + t->node_bytes + ttl_bytes(&t->ttl),
                               t->ttl.expired);
}

static uint64_t shape_hash(const TopNOp *t)
{
    uint64_t h = OP_SHAPE_SEED;
    op_shape_mix(&h, (uint64_t)t->nin);
    op_shape_mix(&h, (uint64_t)t->npart);
    op_shape_mix(&h, (uint64_t)t->norder);
    op_shape_mix(&h, (uint64_t)t->rank_kind);
    for (int c = 0; c < t->nin; c++) op_shape_mix(&h, t->base.out_types[c].id);
    for (int k = 0; k < t->npart; k++) op_shape_mix(&h, t->part_types[k].id);
    return h;
}

/* A partition: its key, node count, update time (TTL) and rows with their counts. */
static void put_part(TopNOp *t, StrBuf *sb, const Part *pt)
{
    op_put_row(sb, t->part_types, t->npart, ktab_key(&t->parts, pt));
    op_put_u64(sb, (uint64_t)pt->nodes);
    if (ttl_on(&t->ttl)) op_put_i64(sb, pt->tt.touch);
    AvlIter w;
    avl_iter_init(&w, pt->root);
    TNode *node;
    while ((node = walk_next(&w))) {
        op_put_row(sb, t->base.out_types, t->nin, node_decode(t, node, 0));
        op_put_i64(sb, node->count);
    }
}

static bool topn_serialize(const Op *op, StrBuf *sb)
{
    TopNOp *t = (TopNOp *)op;
    op_put_header(sb, TOPN_MAGIC, ttl_on(&t->ttl) ? TOPN_VERSION_TTL : TOPN_VERSION, shape_hash(t));
    uint32_t n;
    void **ps = op_sorted_entries(&t->parts, NULL, &n);
    op_put_u64(sb, n);
    for (uint32_t i = 0; i < n; i++) put_part(t, sb, ps[i]);
    free(ps);
    return true;
}

/* Drop every partition and node (pending graves included: they are pool blocks). */
static void clear_state(TopNOp *t)
{
    op_chunks_fini(&t->chunks);
    ktab_clear(&t->parts);
    ttl_reset(&t->ttl);
    pool_fini(&t->pool);
    t->node_bytes = 0;
    t->nnodes = 0;
    t->ngrave = 0;
}

/* Reads a partition as put_part wrote it into the state (row: room for a partition key
 * or a row); false when it is malformed or a duplicate. *hash: its key's hash. */
static bool read_part(TopNOp *t, OpReader *r, Value *row, bool with_touch, EvalCtx *ec, uint64_t *hash)
{
    op_get_row(r, t->part_types, t->npart, row);
    if (r->bad) return false;
    *hash = ktab_hash(&t->parts, row);
    /* a re-partitioning restore: another replica's partition is read past */
    int rk = op_route_key_index(t->plan->partition, t->npart, t->base.route.in_col[0]);
    Part *pt = NULL;
    if (op_route_keeps_row(&t->base, t->part_types, rk, row)) {
        bool created;
        pt = ktab_upsert(&t->parts, row, *hash, &created);
        if (!created) return false;
        ttl_item_init(&pt->tt);
    }
    uint64_t nn = op_get_u64(r);
    int64_t touch_t = with_touch ? op_get_i64(r) : t->base.in_wm;
    if (r->bad) return false;
    if (pt && touch_t != INT64_MIN) ttl_touch(&t->ttl, &pt->tt, touch_t);
    for (uint64_t k = 0; k < nn; k++) {
        op_get_row(r, t->base.out_types, t->nin, row);
        int64_t count = op_get_i64(r);
        if (r->bad || count == 0) return false;
        if (!pt) continue;
        if (!eval_cells(t, row, ec)) return false;
        AddCtx c = {t, t->cellbuf, count, NULL, false, false};
        pt->root = add_rec(pt->root, &c);
        if (!c.created) return false;
        pt->nodes++;
    }
    return true;
}

static Value *row_buffer(const TopNOp *t)
{
    int cells = t->nin > t->npart ? t->nin : t->npart; /* holds a partition key or a row */
    return xmalloc(sizeof(Value) * (size_t)(cells + 1));
}

static bool topn_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    TopNOp *t = (TopNOp *)op;
    OpReader r = {data, data + len, false}, r0 = r;
    /* with a TTL, version 1 (no update times) restores as updated at the watermark */
    bool with_touch = ttl_on(&t->ttl) && op_get_header(&r, TOPN_MAGIC, TOPN_VERSION_TTL, shape_hash(t));
    if (!with_touch) r = r0;
    if (!with_touch && !op_get_header(&r, TOPN_MAGIC, TOPN_VERSION, shape_hash(t))) {
        snprintf(err, errsize, "state of %s: not a top-N state of this shape", t->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(t);  /* a merging restore adds to what it has */
    EvalCtx ec = {0};
    ec.arena = &op->out->arena;
    Value *row = row_buffer(t);
    uint64_t n = op_get_u64(&r), h;
    bool ok = true;
    for (uint64_t i = 0; i < n && ok && !r.bad; i++) ok = read_part(t, &r, row, with_touch, &ec, &h);
    free(row);
    if (!op_get_finish(&r, ok, t->state_id, err, errsize)) {
        clear_state(t);
        return false;
    }
    return true;
}

/* ---- chunked checkpoints ----
 * Base blob: the header (version TOPN_VERSION_CHUNKED), the TTL flag, the chunk bits and
 * the partition count; the partitions are in chunks by the hash of their key
 * (op_chunks_save, as the aggregate's groups), each as put_part writes it. */

static void put_chunk_part(void *ctx, StrBuf *b, const void *payload) { put_part(ctx, b, payload); }

static bool topn_save_chunks(Op *op, const char *name, const EngCkptIO *io, char *err, size_t errsize)
{
    TopNOp *t = (TopNOp *)op;
    /* the chunks first: a full save picks their size, which the base records */
    if (!op_chunks_save(&t->chunks, &t->parts, name, io, put_chunk_part, t, err, errsize)) return false;
    StrBuf b = STRBUF_INIT;
    op_put_header(&b, TOPN_MAGIC, TOPN_VERSION_CHUNKED, shape_hash(t));
    op_put_u8(&b, ttl_on(&t->ttl));
    op_put_u8(&b, (uint8_t)t->chunks.bits);
    op_put_u64(&b, t->parts.count);
    bool ok = io->put(io->ctx, name, b.data, b.len, err, errsize);
    sb_free(&b);
    return ok;
}

typedef struct PartRead {
    TopNOp *t;
    Value *row;
    EvalCtx ec;
} PartRead;

static bool get_chunk_part(void *ctx, OpReader *r, uint64_t *hash)
{
    PartRead *pr = ctx;
    return read_part(pr->t, r, pr->row, ttl_on(&pr->t->ttl), &pr->ec, hash);
}

static bool topn_restore_chunks(Op *op, const char *name, const uint8_t *data, size_t len, EngGetFn get, void *ctx,
                                char *err, size_t errsize)
{
    TopNOp *t = (TopNOp *)op;
    OpReader r = {data, data + len, false};
    if (!op_get_header(&r, TOPN_MAGIC, TOPN_VERSION_CHUNKED, shape_hash(t)))
        return topn_deserialize(op, data, len, err, errsize);  /* a one-blob state (of an older weir) */
    uint8_t with_touch = op_get_u8(&r), bits = op_get_u8(&r);
    uint64_t total = op_get_u64(&r);
    if (r.bad || with_touch != ttl_on(&t->ttl)) {
        snprintf(err, errsize, "state of %s: not a top-N state of this shape", t->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(t);  /* a merging restore adds to what it has */
    PartRead pr = {t, row_buffer(t), {0}};
    pr.ec.arena = &op->out->arena;
    bool ok = op_chunks_restore(&t->chunks, bits, total, name, get, ctx, get_chunk_part, &pr);
    free(pr.row);
    if (!op_get_finish(&r, ok, t->state_id, err, errsize)) {
        clear_state(t);
        return false;
    }
    return true;
}

static void topn_free(Op *op)
{
    TopNOp *t = (TopNOp *)op;
    clear_state(t);
    ktab_fini(&t->parts);
    free(t->grave);
    free(t->touched);
    free(t->old);
    free(t->cur);
    free(t->order_types);
    free(t->part_types);
    free(t->keybuf);
    free(t->cellbuf);
    free(t->rowbuf[0]);
    free(t->rowbuf[1]);
    rowc_fini(&t->codec);
    op_base_fini(op);
    free(t);
}

static const OpVtbl topn_vt = {
    .kind = "topn",
    .step = topn_step,
    .on_watermark = topn_on_watermark,
    .free = topn_free,
    .state_stats = topn_stats,
    .serialize = topn_serialize,
    .deserialize = topn_deserialize,
    .save_chunks = topn_save_chunks,
    .restore_chunks = topn_restore_chunks,
    .emit_current = topn_emit_current,
};

Op *op_topn_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize)
{
    const PlanNode *pn = n->plan;
    int nin = inputs[0]->ncols;
    if (pn->ncols != nin + (pn->emit_rank ? 1 : 0) || pn->limit < 0 || pn->rank_kind < 0 || pn->rank_kind > 2) {
        snprintf(err, errsize, "%s: malformed top-N (columns, limit or rank kind)", n->op_id);
        return NULL;
    }
    TopNOp *t = xcalloc(1, sizeof *t);
    op_base_init(&t->base, &topn_vt, p, n, inputs, 1);
    t->plan = pn;
    t->state_id = op_state_id(&t->base, NULL, 0, "");
    t->nin = nin;
    t->norder = pn->norder;
    t->npart = pn->npartition;
    t->rank_kind = pn->rank_kind;
    t->limit = pn->limit;
    t->emit_rank = pn->emit_rank;
    t->insert_only = n->inputs[0]->mode == CL_INSERT_ONLY;
    t->order_types = xmalloc(sizeof(Type) * (size_t)(t->norder + 1));
    for (int k = 0; k < t->norder; k++) t->order_types[k] = pn->order[k].expr->type;
    t->part_types = xmalloc(sizeof(Type) * (size_t)(t->npart + 1));
    for (int k = 0; k < t->npart; k++) t->part_types[k] = pn->partition[k]->type;
    t->keybuf = xcalloc((size_t)(t->npart + 1), sizeof(Value));
    t->cellbuf = xcalloc((size_t)(t->norder + nin + 1), sizeof(Value));
    for (int i = 0; i < 2; i++) t->rowbuf[i] = xcalloc((size_t)(nin + 1), sizeof(Value));
    rowc_init(&t->codec, t->base.out_types, nin);
    ktab_init(&t->parts, t->npart, t->part_types, sizeof(Part));
    t->ttl.ttl_us = ttl_of_state(n, 0);
    /* TTL: partitions are stamped by their rows' watermarks */
    if (ttl_on(&t->ttl)) t->base.frontier = FR_JUDGE;
    return &t->base;
}
