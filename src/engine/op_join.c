/* Join operator: INNER / LEFT / RIGHT / FULL / SEMI / ANTI equi-joins with a residual
 * predicate, incremental and exact under insertions and retractions on both inputs;
 * interval joins and window joins free their state by watermark.
 *
 * Matching (plan.h): a left row L matches a right row R when every key pair is equal
 * (SQL `=`: a NULL key never matches) and the residual pred over L ++ R is true (an
 * error evaluating it counts as no match and sends the probing row to the dead
 * letters, deterministically in both directions). nkeys = 0 is a filtered cross
 * product. null_aware (ANTI from NOT IN): pair 0 matches when equal OR either side is
 * NULL; pairs 1.. are plain equalities.
 *
 * State, per side: a keyed table join key -> bucket (the chain of the side's stored
 * rows with that key), and the rows themselves as pool blocks (JRow) holding the row
 * in the compact encoding of row_codec.h with its multiplicity. A side whose input
 * can retract also indexes its rows by their encoded bytes, so that a retraction
 * finds the row it cancels; an insert-only side stores every insertion as it comes
 * and needs no index (a retraction there is an IR contract violation). Rows whose key
 * can never match (a NULL key) are not stored: their output (a NULL-padded row, an
 * ANTI row) is emitted directly with their weight. The match count of a row (the
 * weighted number of matching rows on the other side) is kept for the sides that need
 * it: the outer sides, and the left side of SEMI/ANTI. Fields a side does not need
 * (match count, back links, expiry) take no room in its rows (JSide.off_*).
 *
 * A step first applies the left changes against the right state, then the right
 * changes against the updated left state (dL x R + L' x dR). A change of weight w to
 * row P probes the other side's bucket: every matching row C yields the pair with
 * weight w * mult(C), and C's match count moves by w. Outputs that depend on a match
 * count are kept equal to mult * f(count) after every single change:
 *   outer side, padded row (P, NULLs):  f = (count <= 0)
 *   SEMI left row:                       f = (count > 0)
 *   ANTI left row:                       f = (count <= 0)
 * so a NULL-padded row is emitted when its row has no matches, retracted when the first
 * match arrives and re-emitted when the last one goes (the presentation consolidates
 * what cancels within a step). Multiplicities may dip below zero within a step (a
 * retraction ahead of its insertion); the algebra stays exact.
 *
 * Interval joins (interval_join: R.t + lower <= L.t <= R.t + upper) and window joins
 * (a key pair that is window_end, or window_start, of window TVFs on both sides) are
 * bounded: each side's watermark (as of the end of the previous step) says which rows
 * of the other side can no longer match:
 *   interval  L dead when wm(R) > L.t - lower;  R dead when wm(L) > R.t + upper
 *   window    a row dead when the other side's wm >= its window_end
 * and a row is late when its own side's watermark has passed it (interval: t < wm;
 * window: window_end <= wm; the watermark that held before the row in its source, or
 * the side's when that is later: op_judge_wm): the rows it could match may already be
 * gone, so it is counted and dead-lettered with reason "late" instead of producing a
 * partial result.
 * Dead rows are freed at the end of the step. In bounded joins the NULL-padded row of an
 * outer side is emitted when its row dies unmatched (not before), so the output of
 * insert-only inputs stays insert-only. An interval join holds its output watermark
 * back to min(wm(L), wm(R), wm(R) + lower, wm(L) - upper): NULL-padded rows emitted at
 * expiry are then not late for the operators below.
 *
 * Frontiers (op.h), when an operator below judges event time by them: each stored row
 * keeps its own, and an output row carries the largest watermark the join's output
 * can have had before it, whichever of its rows came first: for a pair the later of
 * f(L) and f(R), where f shifts a row's frontier as the output watermark is held back
 * (interval joins: f(L) = frontier - upper, f(R) = frontier + lower; else f is the
 * frontier); for a match-count output the probing row's f, or the later of both when a
 * probe changed a stored row's count; for a NULL-padded row emitted at expiry its time
 * (interval) or its window_end - 1 (window).
 *
 * State TTL (the model's state_ttl on an unbounded join, ttl.h): every stored row keeps
 * its last update (the watermark its latest change was judged against). A row that a
 * probing row's watermark finds expired does not match it (nor count it), nor does a
 * stored row updated more than the TTL after the probing row's watermark (a pair
 * matches when its rows' update times are within the TTL of each other, in either
 * order of arrival), and when the
 * operator's watermark advances the expired rows go; silently both times: pairs and
 * NULL-padded rows already emitted stay, and match counts of the other side keep the
 * matches the row gave them. A retraction of a row the side no longer holds (expired,
 * or never there) is ignored.
 *
 * Lookup joins (IrNode.lookup: a model with `clickhouse: {lookup: true}`; INNER or
 * LEFT equi-joins over an insert-only left input, ir/analyze_stream.c checks it): only
 * the left input (the stream) triggers. The right input (the table) only updates its
 * side's state, as any right side does, and emits nothing; the left side stores
 * nothing. A stream row probes the table as it is then: every matching row C yields
 * the pair with weight w * mult(C) (a NULL key never matches), and a LEFT lookup emits
 * (row, NULLs) with weight w when nothing matched. A later change of the table changes
 * no earlier result, so the output of an insert-only stream is insert-only, LEFT
 * included. Order within a step: the table's changes of the step first, then the
 * stream's rows, each in its input order: a stream row sees the table as of the end of
 * the step it arrives in. (weir test has one row per step, so a row sees exactly the
 * table changes given before it; weir run reads a lookup's table source to its end
 * before any stream row, so at every batch size the first rows see the whole table.)
 * A retraction on the stream side is refused (the IR refuses updating streams: with no
 * state for the stream, it could not take back exactly what its row joined). The
 * checkpoint is the ordinary join state, whose left side is empty.
 *
 * Text lifetime: output rows point into the input batches and into stored rows. A row
 * whose multiplicity reaches zero or that expires is unlinked at once and freed at the
 * start of the next step, after every consumer has read this step's output. */
#include "base/hash.h"
#include "engine/iheap.h"
#include "engine/keyed_table.h"
#include "engine/op.h"
#include "engine/pool.h"
#include "engine/row_codec.h"
#include "engine/ttl.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOIN_MAGIC 0x574a4f49u /* "WJOI" */
#define JOIN_VERSION 1u
#define JOIN_VERSION_TTL 2u /* version 1 plus every stored row's last update time */
#define ROW_SEED 0x6a6f696e5f726f77ull

typedef struct JBucket JBucket;
typedef struct JRow JRow;

/* The fixed head of a stored row; the side's optional fields and the encoded row
 * follow at the offsets in JSide. */
struct JRow {
    JRow *next;              /* bucket chain */
    int64_t mult;
    uint32_t len;            /* bytes of the encoded row */
    uint8_t side;            /* 0 left, 1 right */
    uint8_t flags;           /* JR_* */
    uint16_t pad_;
};

enum { JR_LINKED = 1, JR_PENDING = 2, JR_EXPIRED = 4 };

/* Back links of a row that can leave its bucket before the end (retracting or bounded
 * sides). */
typedef struct JLinks {
    JRow *prev;
    JBucket *bucket;
} JLinks;

struct JBucket {
    JRow *head;
    bool nullk;              /* null-aware: the table of rows with a NULL pair-0 key */
};

/* Index of a retracting side's rows by their encoded bytes (open addressing, linear
 * probing, backward-shift deletion). */
typedef struct RowSlot {
    uint64_t hash;
    JRow *row;               /* NULL = empty */
} RowSlot;

typedef struct RowIndex {
    RowSlot *slots;
    uint32_t mask, count;
} RowIndex;

typedef enum Bound { B_NONE, B_INTERVAL, B_WINDOW } Bound;

typedef struct JSide {
    int ncols;
    const Type *types;
    RowCodec codec;
    Pool pool;               /* the side's JRow blocks */
    KTab keys;               /* join key -> JBucket (null-aware: non-NULL pair-0 rows) */
    KTab nullk;              /* null-aware: pairs 1.. -> JBucket of rows with NULL pair 0 */
    RowIndex index;          /* retracting sides: encoded row -> JRow */
    bool indexed;
    bool unlinkable;         /* rows may leave their bucket (retractions, expiry) */
    int64_t nrows;           /* linked rows */
    uint16_t off_nmatch, off_links, off_heap, off_front, off_ttl, off_data;  /* 0: the row has no such field */
    Ttl ttl;                 /* state_ttl of an unbounded join */
    Value *cbuf;             /* a decoded stored row (ncols) */
    Type *key_types;
    Expr **keyx;
    Value *kbuf;             /* nkeys */
    bool outer;              /* NULL-padded rows for unmatched rows */
    bool counts;             /* keep match counts */
    /* bounded joins */
    int tcol;                /* time (interval) or window column */
    Type ttype;
    int64_t tadd, exp_off, late_off;
    int64_t front_off;       /* f(row) = the row's frontier + front_off (see above) */
    int64_t wm;              /* this side's watermark as of the end of the previous step */
    IQueue expiry;           /* bounded joins: rows by the last watermark they survive */
    const char *state_id;
} JSide;

typedef struct JoinOp {
    Op base;
    JoinType type;
    int nkeys;
    bool null_aware;
    bool semi_anti;
    bool lookup;             /* only the left input triggers (see above) */
    Bound bound;
    int64_t lower, upper;
    const Expr *pred;
    JSide side[2];
    int nl, nr;
    Value *pair;             /* nl + nr cells: pred input */
    uint8_t *enc;            /* the probing row, encoded */
    size_t enc_cap;
    JRow **freelist;
    int nfree, capfree;
    EvalCtx ec;
    int64_t late_rows;
    /* per-batch key hashes (plain-column keys), computed ahead so that the tables'
     * memory can be prefetched: the state is far bigger than the caches */
    bool col_keys[2];
    uint64_t *hkey;
    int hcap;
    uint64_t cur_hkey;       /* key hash of the row being applied, when have_hkey */
    bool have_hkey;
} JoinOp;

#define PF_DIST 16

/* ---------- stored rows ---------- */

static inline int64_t *jr_nmatch(const JSide *sd, JRow *r) { return (int64_t *)((char *)r + sd->off_nmatch); }
static inline JLinks *jr_links(const JSide *sd, JRow *r) { return (JLinks *)((char *)r + sd->off_links); }
static inline IHeapItem *jr_heap(const JSide *sd, JRow *r) { return (IHeapItem *)((char *)r + sd->off_heap); }
static inline TtlItem *jr_ttl(const JSide *sd, JRow *r) { return (TtlItem *)((char *)r + sd->off_ttl); }
static inline JRow *jr_of_ttl(const JSide *sd, TtlItem *it) { return (JRow *)((char *)it - sd->off_ttl); }
static inline int64_t jr_touch(const JSide *sd, JRow *r) { return sd->off_ttl ? jr_ttl(sd, r)->touch : INT64_MIN; }
static inline const uint8_t *jr_data(const JSide *sd, const JRow *r) { return (const uint8_t *)r + sd->off_data; }
static inline JRow *jr_of_heap(const JSide *sd, IHeapItem *it) { return (JRow *)((char *)it - sd->off_heap); }
static inline size_t jr_size(const JSide *sd, const JRow *r) { return (size_t)sd->off_data + r->len; }
static inline int64_t jr_count(const JSide *sd, JRow *r) { return sd->counts ? *jr_nmatch(sd, r) : 0; }
/* The frontier of a stored row: INT64_MIN when the side keeps none. */
static inline int64_t jr_front(const JSide *sd, const JRow *r)
{
    return sd->off_front ? *(const int64_t *)((const char *)r + sd->off_front) : INT64_MIN;
}
static inline void jr_set_front(const JSide *sd, JRow *r, int64_t f)
{
    if (sd->off_front) *(int64_t *)((char *)r + sd->off_front) = f;
}
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
/* f of a frontier of side sd (INT64_MIN: none). */
static inline int64_t side_front(const JSide *sd, int64_t front)
{
    return front == INT64_MIN ? INT64_MIN : op_sat_add(front, sd->front_off);
}

/* Decode stored row r of side sd into sd->cbuf. */
static inline const Value *jr_decode(JSide *sd, const JRow *r)
{
    rowc_decode(&sd->codec, jr_data(sd, r), sd->cbuf);
    return sd->cbuf;
}

/* Lay out the optional fields of the side's rows after the fixed head. */
static void layout(JSide *sd, bool bounded, bool fronts)
{
    size_t off = sizeof(JRow);
    sd->off_nmatch = sd->off_links = sd->off_heap = sd->off_front = sd->off_ttl = 0;
    if (sd->counts) {
        sd->off_nmatch = (uint16_t)off;
        off += sizeof(int64_t);
    }
    if (sd->unlinkable) {
        sd->off_links = (uint16_t)off;
        off += sizeof(JLinks);
    }
    if (bounded) {
        sd->off_heap = (uint16_t)off;
        off += sizeof(IHeapItem);
    }
    if (fronts) {
        sd->off_front = (uint16_t)off;
        off += sizeof(int64_t);
    }
    if (ttl_on(&sd->ttl)) {
        sd->off_ttl = (uint16_t)off;
        off += sizeof(TtlItem);
    }
    sd->off_data = (uint16_t)off;
}

static JRow *row_new(JSide *sd, int s, const uint8_t *enc, size_t len)
{
    JRow *r = pool_alloc(&sd->pool, (size_t)sd->off_data + len);
    memset(r, 0, sd->off_data);
    r->len = (uint32_t)len;
    r->side = (uint8_t)s;
    if (sd->off_heap) iheap_item_init(jr_heap(sd, r));
    if (sd->off_ttl) ttl_item_init(jr_ttl(sd, r));
    memcpy((uint8_t *)r + sd->off_data, enc, len);
    return r;
}

/* ---------- the row index of retracting sides ---------- */

static JRow *index_find(const JSide *sd, const uint8_t *enc, size_t len, uint64_t h)
{
    const RowIndex *x = &sd->index;
    if (!x->slots) return NULL;
    for (uint32_t i = (uint32_t)h & x->mask;; i = (i + 1) & x->mask) {
        const RowSlot *s = &x->slots[i];
        if (!s->row) return NULL;
        if (s->hash == h && s->row->len == len && memcmp(jr_data(sd, s->row), enc, len) == 0) return s->row;
    }
}

static void index_place(RowSlot *slots, uint32_t mask, uint64_t h, JRow *r)
{
    uint32_t i = (uint32_t)h & mask;
    while (slots[i].row) i = (i + 1) & mask;
    slots[i].hash = h;
    slots[i].row = r;
}

static void index_add(RowIndex *x, uint64_t h, JRow *r)
{
    if (!x->slots || (uint64_t)(x->count + 1) * 4 > ((uint64_t)x->mask + 1) * 3) {
        uint32_t cap = x->slots ? (x->mask + 1) * 2 : 64;
        RowSlot *ns = xcalloc_large((size_t)cap * sizeof(RowSlot));
        for (uint32_t i = 0; x->slots && i <= x->mask; i++)
            if (x->slots[i].row) index_place(ns, cap - 1, x->slots[i].hash, x->slots[i].row);
        if (x->slots) xfree_large(x->slots, ((size_t)x->mask + 1) * sizeof(RowSlot));
        x->slots = ns;
        x->mask = cap - 1;
    }
    index_place(x->slots, x->mask, h, r);
    x->count++;
}

static void index_remove(RowIndex *x, uint64_t h, const JRow *r)
{
    uint32_t i = (uint32_t)h & x->mask;
    while (x->slots[i].row != r) i = (i + 1) & x->mask;
    for (uint32_t j = i;;) {
        j = (j + 1) & x->mask;
        if (!x->slots[j].row) break;
        uint32_t home = (uint32_t)x->slots[j].hash & x->mask;
        if (((j - home) & x->mask) < ((j - i) & x->mask)) continue;
        x->slots[i] = x->slots[j];
        i = j;
    }
    x->slots[i].row = NULL;
    x->count--;
}

static void index_clear(RowIndex *x)
{
    if (x->slots) xfree_large(x->slots, ((size_t)x->mask + 1) * sizeof(RowSlot));
    memset(x, 0, sizeof *x);
}

static inline uint64_t row_hash(const uint8_t *enc, size_t len) { return hash_bytes(enc, len, ROW_SEED); }

/* ---------- output ---------- */

/* Append (l ++ r) with weight w; a NULL side is NULL-padded. SEMI/ANTI output l only.
 * The origin is that of row i of `in` (when given); the frontier `front` is recorded
 * when an operator below reads frontiers. */
static void emit(JoinOp *j, const Value *l, const Value *r, int64_t w, const Batch *in, int i, int64_t front)
{
    if (w == 0) return;
    Batch *out = j->base.out;
    Value *o = batch_append(out, w);
    if (l) memcpy(o, l, sizeof(Value) * (size_t)j->nl);
    else for (int c = 0; c < j->nl; c++) o[c] = value_null();
    if (!j->semi_anti) {
        if (r) memcpy(o + j->nl, r, sizeof(Value) * (size_t)j->nr);
        else for (int c = 0; c < j->nr; c++) o[j->nl + c] = value_null();
    }
    if (in && in->origins) batch_set_origin(out, out->n - 1, &in->origins[i]);
    if (j->base.need_frontier) batch_set_frontier(out, out->n - 1, front);
}

/* The output of a stored or probing row of side s that depends on its match count:
 * the padded row (outer sides), the SEMI/ANTI left row. Weight per unit of mult. */
static inline int64_t count_output(const JoinOp *j, int s, int64_t nmatch)
{
    if (j->type == JOIN_SEMI) return s == 0 && nmatch > 0;
    if (j->type == JOIN_ANTI) return s == 0 && nmatch <= 0;
    return j->side[s].outer && nmatch <= 0;
}

/* Padding is deferred to expiry for the outer sides of bounded joins. */
static inline bool immediate(const JoinOp *j, int s)
{
    return j->semi_anti || j->bound == B_NONE || !j->side[s].outer;
}

static void emit_count_output(JoinOp *j, int s, const Value *row, int64_t w, const Batch *in, int i, int64_t front)
{
    emit(j, s == 0 ? row : NULL, s == 1 ? row : NULL, w, in, i, front);
}

/* ---------- state helpers ---------- */

static void unlink_row(JoinOp *j, int s, JRow *r)
{
    JSide *sd = &j->side[s];
    if (r->flags & JR_LINKED) {
        JLinks *lk = jr_links(sd, r);
        JBucket *b = lk->bucket;
        if (lk->prev) lk->prev->next = r->next;
        else b->head = r->next;
        if (r->next) jr_links(sd, r->next)->prev = lk->prev;
        r->next = NULL;
        lk->prev = NULL;
        lk->bucket = NULL;
        r->flags &= (uint8_t)~JR_LINKED;
        sd->nrows--;
        if (!b->head) ktab_remove(b->nullk ? &sd->nullk : &sd->keys, b);
    }
    if (sd->off_heap) iqueue_remove(&sd->expiry, jr_heap(sd, r));
    if (sd->off_ttl) ttl_forget(&sd->ttl, jr_ttl(sd, r));
}

static void to_freelist(JoinOp *j, JRow *r)
{
    if (r->flags & JR_PENDING) return;
    r->flags |= JR_PENDING;
    if (j->nfree == j->capfree) {
        j->capfree = j->capfree ? j->capfree * 2 : 64;
        j->freelist = xrealloc(j->freelist, sizeof(JRow *) * (size_t)j->capfree);
    }
    j->freelist[j->nfree++] = r;
}

/* Free the rows that died in the previous step (their text is no longer referenced). */
static void purge(JoinOp *j)
{
    for (int k = 0; k < j->nfree; k++) {
        JRow *r = j->freelist[k];
        JSide *sd = &j->side[r->side];
        r->flags &= (uint8_t)~JR_PENDING;
        if (r->mult != 0 && !(r->flags & JR_EXPIRED)) continue; /* revived */
        if (sd->indexed) index_remove(&sd->index, row_hash(jr_data(sd, r), r->len), r);
        pool_free(&sd->pool, r, jr_size(sd, r));
    }
    j->nfree = 0;
}

static bool has_null(const Value *k, int n)
{
    for (int i = 0; i < n; i++)
        if (k[i].isnull) return true;
    return false;
}

/* Evaluate the join keys of row (side s) into sd->kbuf. */
static bool eval_keys(JoinOp *j, int s, const Value *row)
{
    JSide *sd = &j->side[s];
    for (int k = 0; k < j->nkeys; k++) {
        const Expr *e = sd->keyx[k];
        if (e->kind == EX_COLUMN) sd->kbuf[k] = row[e->col];
        else if (!eval_expr(e, row, &j->ec, &sd->kbuf[k])) return false;
    }
    return true;
}

/* Link a stored row into its bucket (keys in sd->kbuf). */
static void link_row(JoinOp *j, int s, JRow *r)
{
    JSide *sd = &j->side[s];
    JBucket *b;
    bool created;
    if (j->null_aware && sd->kbuf[0].isnull) {
        const Value *corr = sd->kbuf + 1;
        b = ktab_upsert(&sd->nullk, corr, ktab_hash(&sd->nullk, corr), &created);
        b->nullk = true;
    } else {
        uint64_t h = j->have_hkey ? j->cur_hkey : ktab_hash(&sd->keys, sd->kbuf);
        b = ktab_upsert(&sd->keys, sd->kbuf, h, &created);
    }
    if (sd->unlinkable) {
        JLinks *lk = jr_links(sd, r);
        lk->bucket = b;
        lk->prev = NULL;
        if (b->head) jr_links(sd, b->head)->prev = r;
    }
    r->next = b->head;
    b->head = r;
    r->flags |= JR_LINKED;
    sd->nrows++;
}

/* ---------- probing ---------- */

typedef struct Probe {
    int s;                   /* side of the probing row */
    const Value *row;
    int64_t w;
    const Batch *in;
    int i;
    int64_t matched;         /* sum of the matching rows' multiplicities */
    bool pred_failed;
    int64_t jw;              /* state TTL: the watermark the probing row is judged by */
} Probe;

/* P (side pr->s) against stored row C (the other side): pred check, pair output, C's
 * match count. crow is C decoded. */
static void visit(JoinOp *j, Probe *pr, JRow *c, const Value *crow)
{
    int o = 1 - pr->s;
    JSide *os = &j->side[o];
    const Value *l = pr->s == 0 ? pr->row : crow;
    const Value *r = pr->s == 0 ? crow : pr->row;
    if (os->off_ttl) {
        /* a pair matches only when its rows' update times are within the TTL of each
         * other, whichever came first (so the interleaving of the inputs decides nothing) */
        const TtlItem *t = jr_ttl(os, c);
        if (ttl_expired(&os->ttl, t, pr->jw) || pr->jw < ttl_limit(&os->ttl, t->touch)) return;
    }
    if (j->pred) {
        memcpy(j->pair, l, sizeof(Value) * (size_t)j->nl);
        memcpy(j->pair + j->nl, r, sizeof(Value) * (size_t)j->nr);
        int ok = eval_pred(j->pred, j->pair, &j->ec);
        if (ok < 0) pr->pred_failed = true;
        if (ok <= 0) return;
    }
    pr->matched += c->mult;
    int64_t front = max64(side_front(&j->side[pr->s], batch_frontier(pr->in, pr->i)), side_front(os, jr_front(os, c)));
    if (!j->semi_anti) emit(j, l, r, pr->w * c->mult, pr->in, pr->i, front);
    if (os->counts) {
        int64_t *nm = jr_nmatch(os, c);
        int64_t before = *nm;
        *nm += pr->w;
        if (immediate(j, o)) {
            int64_t d = count_output(j, o, *nm) - count_output(j, o, before);
            if (d) emit_count_output(j, o, crow, d * c->mult, NULL, 0, front);
        }
    }
}

static void visit_list(JoinOp *j, Probe *pr, JBucket *b)
{
    JSide *os = &j->side[1 - pr->s];
    for (JRow *c = b ? b->head : NULL; c; c = c->next) visit(j, pr, c, jr_decode(os, c));
}

/* Correlation keys (null-aware pairs 1..) of stored row crow equal pr's (SQL `=`). */
static bool corr_equal(JoinOp *j, int s, const Value *k, int o, const Value *crow)
{
    JSide *os = &j->side[o];
    for (int p = 1; p < j->nkeys; p++) {
        Value ck;
        const Expr *e = os->keyx[p];
        if (e->kind == EX_COLUMN) ck = crow[e->col];
        else if (!eval_expr(e, crow, &j->ec, &ck)) return false;
        if (ck.isnull || k[p].isnull || !ktab_cell_equal(j->side[s].key_types[p], &k[p], &ck)) return false;
    }
    return true;
}

static void scan_table(JoinOp *j, Probe *pr, const KTab *t)
{
    int s = pr->s, o = 1 - s;
    JSide *os = &j->side[o];
    uint32_t pos = 0;
    JBucket *b;
    while ((b = ktab_next(t, &pos)))
        for (JRow *c = b->head; c; c = c->next) {
            const Value *crow = jr_decode(os, c);
            if (corr_equal(j, s, j->side[s].kbuf, o, crow)) visit(j, pr, c, crow);
        }
}

/* Visit every row of the other side that can match P (keys in side[s].kbuf). */
static void probe(JoinOp *j, Probe *pr)
{
    int s = pr->s, o = 1 - s;
    JSide *sd = &j->side[s], *os = &j->side[o];
    const Value *k = sd->kbuf;
    if (!j->null_aware) {
        /* both sides hash keys with the same types, so one hash serves both tables */
        visit_list(j, pr, ktab_find(&os->keys, k, j->have_hkey ? j->cur_hkey : ktab_hash(&os->keys, k)));
        return;
    }
    if (!k[0].isnull) {
        visit_list(j, pr, ktab_find(&os->keys, k, ktab_hash(&os->keys, k)));
        visit_list(j, pr, ktab_find(&os->nullk, k + 1, ktab_hash(&os->nullk, k + 1)));
        return;
    }
    /* a NULL pair-0 key may match every row of its correlation group: scan */
    scan_table(j, pr, &os->keys);
    scan_table(j, pr, &os->nullk);
}

/* ---------- bounded joins ---------- */

static int64_t row_time(const JSide *sd, const Value *row, bool *isnull)
{
    const Value *v = &row[sd->tcol];
    *isnull = v->isnull;
    if (v->isnull) return 0;
    return op_sat_add(op_time_us(sd->ttype, v), sd->tadd);
}

/* Free the rows of side s that the other side's watermark has closed. */
static void expire(JoinOp *j, int s)
{
    JSide *sd = &j->side[s];
    int64_t owm = j->side[1 - s].wm;
    IHeapItem *it;
    while ((it = iqueue_min(&sd->expiry)) && it->key < owm) {
        JRow *r = jr_of_heap(sd, it);
        if (!immediate(j, s) && r->mult != 0 && count_output(j, s, jr_count(sd, r))) {
            /* the join's output watermark was at most this before the row expired */
            int64_t front = j->bound == B_INTERVAL ? op_sat_add(it->key, -sd->exp_off) : it->key;
            emit_count_output(j, s, jr_decode(sd, r), r->mult, NULL, 0, front);
        }
        unlink_row(j, s, r);
        r->flags |= JR_EXPIRED;
        to_freelist(j, r);
    }
}

/* ---------- the step ---------- */

static const uint8_t *encode(JoinOp *j, const JSide *sd, const Value *row, size_t *len)
{
    size_t n = rowc_size(&sd->codec, row);
    if (n > j->enc_cap) {
        j->enc_cap = n * 2;
        j->enc = xrealloc(j->enc, j->enc_cap);
    }
    *len = rowc_encode(&sd->codec, row, j->enc);
    return j->enc;
}

static bool apply(JoinOp *j, int s, const Batch *in, int i, OpCtx *ctx)
{
    JSide *sd = &j->side[s];
    int64_t w = in->weights[i];
    const Value *row = batch_row(in, i);
    bool matchable = true;
    int64_t texp = 0;
    if (j->bound != B_NONE) {
        bool tnull;
        int64_t t = row_time(sd, row, &tnull);
        if (tnull) {
            matchable = false;
        } else {
            if (op_sat_add(t, sd->late_off) < op_judge_wm(sd->wm, in, i)) {
                j->late_rows++;
                op_dead_letter(&j->base, s, i, "late");
                return true;
            }
            texp = op_sat_add(t, sd->exp_off);
        }
    }
    if (!eval_keys(j, s, row)) {
        op_dead_letter(&j->base, s, i, j->ec.err);
        return true;
    }
    if (matchable) {
        if (j->null_aware) matchable = !has_null(sd->kbuf + 1, j->nkeys - 1);
        else matchable = !has_null(sd->kbuf, j->nkeys);
    }
    if (!matchable) {
        /* never matches anything: only the count-dependent output, with count 0 */
        if (count_output(j, s, 0)) emit_count_output(j, s, row, w, in, i, side_front(sd, batch_frontier(in, i)));
        return true;
    }
    size_t len;
    const uint8_t *enc = encode(j, sd, row, &len);
    JRow *r = NULL;
    int64_t jw = sd->off_ttl ? op_judge_wm(j->base.in_wm, in, i) : 0;
    if (sd->indexed) {
        uint64_t h = row_hash(enc, len);
        r = index_find(sd, enc, len, h);
        if (sd->off_ttl) {
            if (r && (r->flags & JR_LINKED) && ttl_expired(&sd->ttl, jr_ttl(sd, r), jw)) {
                /* expired: the row starts over, silently */
                unlink_row(j, s, r);
                r->mult = 0;
                ttl_count(&sd->ttl);
                to_freelist(j, r);
            }
            if (w < 0 && (!r || !(r->flags & JR_LINKED))) return true; /* no longer held */
        }
        if (!r) {
            r = row_new(sd, s, enc, len);
            index_add(&sd->index, h, r);
        }
    } else if (w < 0) {
        snprintf(ctx->err, ctx->errsize, "internal error: retraction on the insert-only input of %s", sd->state_id);
        return false;
    } else {
        r = row_new(sd, s, enc, len);
    }
    bool fresh = !(r->flags & JR_LINKED); /* new, or revived after its multiplicity reached 0 */
    /* a lookup's table side only updates the state */
    bool need_probe = !(j->semi_anti && s == 0 && !fresh) && !j->lookup;
    Probe pr = {s, row, w, in, i, 0, false, jw};
    if (need_probe) probe(j, &pr);
    if (pr.pred_failed) op_dead_letter(&j->base, s, i, j->ec.err);
    if (fresh) {
        if (sd->counts) *jr_nmatch(sd, r) = pr.matched;
        r->flags &= (uint8_t)~JR_EXPIRED;
        link_row(j, s, r);
        if (j->bound != B_NONE) iqueue_push(&sd->expiry, jr_heap(sd, r), texp);
        jr_set_front(sd, r, batch_frontier(in, i));
    } else {
        jr_set_front(sd, r, max64(jr_front(sd, r), batch_frontier(in, i)));
    }
    r->mult += w;
    if (immediate(j, s) && count_output(j, s, jr_count(sd, r)))
        emit_count_output(j, s, row, w, in, i, side_front(sd, batch_frontier(in, i)));
    if (r->mult == 0) {
        unlink_row(j, s, r);
        to_freelist(j, r);
    } else if (sd->off_ttl) {
        ttl_touch(&sd->ttl, jr_ttl(sd, r), jw);
    }
    return true;
}

/* A stream row of a lookup join: the pairs with the table's matching rows as it is
 * now, or (LEFT) the NULL-padded row when none matches. Nothing is stored. */
static bool lookup_probe(JoinOp *j, const Batch *in, int i, OpCtx *ctx)
{
    JSide *sd = &j->side[0];
    int64_t w = in->weights[i];
    const Value *row = batch_row(in, i);
    if (w < 0) {
        snprintf(ctx->err, ctx->errsize, "internal error: a retraction on the stream input of lookup %s",
                 j->base.node ? j->base.node->op_id : "?");
        return false;
    }
    if (!eval_keys(j, 0, row)) {
        op_dead_letter(&j->base, 0, i, j->ec.err);
        return true;
    }
    Probe pr = {0, row, w, in, i, 0, false, 0};
    if (!has_null(sd->kbuf, j->nkeys)) probe(j, &pr);
    if (pr.pred_failed) op_dead_letter(&j->base, 0, i, j->ec.err);
    if (sd->outer && pr.matched <= 0) emit(j, row, NULL, w, in, i, side_front(sd, batch_frontier(in, i)));
    return true;
}

/* State TTL: the watermark passed wm; stored rows last updated before wm - ttl go. */
static bool join_on_watermark(Op *op, OpCtx *ctx, int64_t wm)
{
    (void)ctx;
    JoinOp *j = (JoinOp *)op;
    for (int s = 0; s < 2; s++) {
        JSide *sd = &j->side[s];
        TtlItem *it;
        while ((it = ttl_pop_expired(&sd->ttl, wm))) {
            JRow *r = jr_of_ttl(sd, it);
            unlink_row(j, s, r);
            r->flags |= JR_EXPIRED;
            to_freelist(j, r);
            ttl_count(&sd->ttl);
        }
    }
    return true;
}

static bool join_step(Op *op, OpCtx *ctx)
{
    JoinOp *j = (JoinOp *)op;
    purge(j);
    j->ec.arena = &op->out->arena;
    for (int o = 0; o < 2; o++) {
        /* a lookup applies the table's changes first, then probes with the stream's rows */
        int s = j->lookup ? 1 - o : o;
        const Batch *in = op->in[s]->out;
        JSide *sd = &j->side[s], *os = &j->side[1 - s];
        bool pre = j->col_keys[s] && !j->null_aware && in->n > PF_DIST;
        if (pre) {
            if (in->n > j->hcap) {
                j->hcap = in->n;
                j->hkey = xrealloc(j->hkey, sizeof(uint64_t) * (size_t)j->hcap);
            }
            for (int i = 0; i < in->n; i++) {
                const Value *row = batch_row(in, i);
                for (int k = 0; k < j->nkeys; k++) sd->kbuf[k] = row[sd->keyx[k]->col];
                j->hkey[i] = ktab_hash(&sd->keys, sd->kbuf);
            }
        }
        for (int i = 0; i < in->n; i++) {
            if (pre && i + PF_DIST < in->n) {
                ktab_prefetch_slot(&os->keys, j->hkey[i + PF_DIST]);
                ktab_prefetch_slot(&sd->keys, j->hkey[i + PF_DIST]);
            }
            if (pre && i + PF_DIST / 2 < in->n) ktab_prefetch_entry(&os->keys, j->hkey[i + PF_DIST / 2], 64);
            if (in->weights[i] == 0) continue;
            j->have_hkey = pre;
            if (pre) j->cur_hkey = j->hkey[i];
            bool ok = j->lookup && s == 0 ? lookup_probe(j, in, i, ctx) : apply(j, s, in, i, ctx);
            j->have_hkey = false;
            if (!ok) return false;
        }
    }
    if (j->bound != B_NONE) {
        for (int s = 0; s < 2; s++)
            if (op->in[s]->wm > j->side[s].wm) j->side[s].wm = op->in[s]->wm;
        expire(j, 0);
        expire(j, 1);
    }
    return true;
}

static int64_t join_out_watermark(const Op *op, int64_t in_wm)
{
    const JoinOp *j = (const JoinOp *)op;
    if (j->bound != B_INTERVAL) return in_wm;
    int64_t wl = j->side[0].wm, wr = j->side[1].wm, w = in_wm;
    int64_t a = op_sat_add(wr, j->lower), b = op_sat_add(wl, -j->upper);
    if (wr == INT64_MAX) a = INT64_MAX;
    if (wl == INT64_MAX) b = INT64_MAX;
    if (a < w) w = a;
    if (b < w) w = b;
    return w;
}

/* ---------- stats and checkpoints ---------- */

static int join_stats(const Op *op, EngStateStats *out, int max)
{
    const JoinOp *j = (const JoinOp *)op;
    if (j->lookup) {
        /* a lookup's only state: the table side's rows */
        const JSide *sd = &j->side[1];
        if (max > 0) {
            out[0].id = sd->state_id;
            out[0].entries = sd->nrows;
            out[0].expired = 0;
            out[0].bytes = sd->pool.used + sd->keys.bytes + sd->nullk.bytes +
                           (sd->index.slots ? (int64_t)(sd->index.mask + 1) * (int64_t)sizeof(RowSlot) : 0);
        }
        return 1;
    }
    for (int s = 0; s < 2 && s < max; s++) {
        const JSide *sd = &j->side[s];
        out[s].id = sd->state_id;
        out[s].entries = sd->nrows;
        out[s].expired = sd->ttl.expired;
        out[s].bytes = sd->pool.used + sd->keys.bytes + sd->nullk.bytes + iqueue_bytes(&sd->expiry) + ttl_bytes(&sd->ttl) +
                       (sd->index.slots ? (int64_t)(sd->index.mask + 1) * (int64_t)sizeof(RowSlot) : 0);
    }
    return 2;
}

static uint64_t shape_hash(const JoinOp *j)
{
    uint64_t h = OP_SHAPE_SEED;
    op_shape_mix(&h, j->type);
    op_shape_mix(&h, (uint64_t)j->nkeys);
    op_shape_mix(&h, j->null_aware);
    if (j->lookup) op_shape_mix(&h, 0x6c6f6f6b7570ull); /* the state is the table side's alone */
    op_shape_mix(&h, j->bound);
    op_shape_mix(&h, (uint64_t)j->lower);
    op_shape_mix(&h, (uint64_t)j->upper);
    for (int s = 0; s < 2; s++) {
        op_shape_mix(&h, (uint64_t)j->side[s].ncols);
        for (int c = 0; c < j->side[s].ncols; c++) op_shape_mix(&h, j->side[s].types[c].id);
    }
    if (j->side[0].off_front) op_shape_mix(&h, 0x66726f6e74ull); /* rows keep their frontier */
    return h;
}

typedef struct SortRow {
    const Value *cells;
    int64_t mult, nmatch, front, touch;
} SortRow;

static int cmp_sort_rows(const void *a, const void *b, void *ctx)
{
    const JSide *sd = ctx;
    const SortRow *x = a, *y = b;
    int c = op_row_order(sd->types, sd->ncols, x->cells, y->cells);
    if (c) return c;
    /* copies of one row (an insert-only side stores each insertion): their counts
     * decide, so the bytes depend only on the content */
    if (x->mult != y->mult) return x->mult < y->mult ? -1 : 1;
    if (x->nmatch != y->nmatch) return x->nmatch < y->nmatch ? -1 : 1;
    if (x->front != y->front) return x->front < y->front ? -1 : 1;
    return (x->touch > y->touch) - (x->touch < y->touch);
}

/* The side's linked rows decoded, in op_row_order (checkpoints write state in an order
 * that depends only on its content). *cells is a malloc'd array of n * ncols cells. */
static SortRow *sorted_rows(JSide *sd, int64_t *n, Value **cells)
{
    SortRow *rows = xmalloc(sizeof(SortRow) * (size_t)(sd->nrows + 1));
    *cells = xmalloc(sizeof(Value) * (size_t)(sd->nrows * sd->ncols + 1));
    int64_t k = 0;
    const KTab *tabs[2] = {&sd->keys, &sd->nullk};
    for (int t = 0; t < 2; t++) {
        uint32_t pos = 0;
        JBucket *b;
        while ((b = ktab_next(tabs[t], &pos)))
            for (JRow *r = b->head; r; r = r->next) {
                Value *c = *cells + k * sd->ncols;
                rowc_decode(&sd->codec, jr_data(sd, r), c);
                rows[k].cells = c;
                rows[k].mult = r->mult;
                rows[k].nmatch = jr_count(sd, r);
                rows[k].front = jr_front(sd, r);
                rows[k].touch = jr_touch(sd, r);
                k++;
            }
    }
    qsort_r(rows, (size_t)k, sizeof(SortRow), cmp_sort_rows, sd);
    *n = k;
    return rows;
}

static bool join_serialize(const Op *op, StrBuf *sb)
{
    JoinOp *j = (JoinOp *)op;
    bool ttl = j->side[0].off_ttl || j->side[1].off_ttl;
    op_put_header(sb, JOIN_MAGIC, ttl ? JOIN_VERSION_TTL : JOIN_VERSION, shape_hash(j));
    for (int s = 0; s < 2; s++) {
        JSide *sd = &j->side[s];
        op_put_i64(sb, sd->wm);
        int64_t n;
        Value *cells;
        SortRow *rows = sorted_rows(sd, &n, &cells);
        op_put_u64(sb, (uint64_t)n);
        for (int64_t k = 0; k < n; k++) {
            op_put_row(sb, sd->types, sd->ncols, rows[k].cells);
            op_put_i64(sb, rows[k].mult);
            op_put_i64(sb, rows[k].nmatch);
            if (sd->off_front) op_put_i64(sb, rows[k].front);
            if (sd->off_ttl) op_put_i64(sb, rows[k].touch);
        }
        free(rows);
        free(cells);
    }
    return true;
}

static void clear_side(JSide *sd)
{
    ktab_clear(&sd->keys);
    ktab_clear(&sd->nullk);
    index_clear(&sd->index);
    pool_fini(&sd->pool);
    iqueue_fini(&sd->expiry);
    ttl_reset(&sd->ttl);
    sd->nrows = 0;
    sd->wm = INT64_MIN;
}

static void clear_state(JoinOp *j)
{
    j->nfree = 0;
    clear_side(&j->side[0]);
    clear_side(&j->side[1]);
}

static bool join_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    JoinOp *j = (JoinOp *)op;
    OpReader r = {data, data + len, false}, r0 = r;
    /* with a TTL, version 1 (no update times) restores as updated at the watermark */
    bool ttl = j->side[0].off_ttl || j->side[1].off_ttl;
    bool with_touch = ttl && op_get_header(&r, JOIN_MAGIC, JOIN_VERSION_TTL, shape_hash(j));
    if (!with_touch) r = r0;
    if (!with_touch && !op_get_header(&r, JOIN_MAGIC, JOIN_VERSION, shape_hash(j))) {
        snprintf(err, errsize, "state of %s: not a join state of this shape", j->side[0].state_id);
        return false;
    }
    bool merge = op->route.merge;  /* a merging restore adds to what it has */
    if (!merge) clear_state(j);
    j->ec.arena = &op->out->arena;
    bool ok = true;
    Value *row = xmalloc(sizeof(Value) * (size_t)(j->nl + j->nr + 1));
    for (int s = 0; s < 2 && ok && !r.bad; s++) {
        JSide *sd = &j->side[s];
        int64_t wm = op_get_i64(&r);
        if (!merge || wm < sd->wm) sd->wm = wm;  /* merged: the lowest, which every replica passed */
        uint64_t n = op_get_u64(&r);
        for (uint64_t k = 0; k < n && ok && !r.bad; k++) {
            op_get_row(&r, sd->types, sd->ncols, row);
            int64_t mult = op_get_i64(&r), nmatch = op_get_i64(&r);
            int64_t front = sd->off_front ? op_get_i64(&r) : INT64_MIN;
            int64_t touch = sd->off_ttl && with_touch ? op_get_i64(&r) : op->in_wm;
            if (r.bad) break;
            if (!op_route_keeps_row(op, sd->types, op->route.in_col[s], row)) continue;  /* another replica's */
            int64_t texp = 0;
            if (mult == 0 || !eval_keys(j, s, row) || (!sd->indexed && mult < 0)) {
                ok = false;
                break;
            }
            bool matchable = !has_null(j->null_aware ? sd->kbuf + 1 : sd->kbuf, j->null_aware ? j->nkeys - 1 : j->nkeys);
            if (j->bound != B_NONE) {
                bool tnull;
                int64_t t = row_time(sd, row, &tnull);
                matchable = matchable && !tnull;
                texp = op_sat_add(t, sd->exp_off);
            }
            if (!matchable) {
                ok = false;
                break;
            }
            size_t elen;
            const uint8_t *enc = encode(j, sd, row, &elen);
            JRow *e;
            if (sd->indexed) {
                uint64_t h = row_hash(enc, elen);
                if (index_find(sd, enc, elen, h)) {
                    ok = false;
                    break;
                }
                e = row_new(sd, s, enc, elen);
                index_add(&sd->index, h, e);
            } else {
                e = row_new(sd, s, enc, elen);
            }
            e->mult = mult;
            if (sd->counts) *jr_nmatch(sd, e) = nmatch;
            jr_set_front(sd, e, front);
            link_row(j, s, e);
            if (j->bound != B_NONE) iqueue_push(&sd->expiry, jr_heap(sd, e), texp);
            if (sd->off_ttl) ttl_touch(&sd->ttl, jr_ttl(sd, e), touch);
        }
    }
    free(row);
    if (!op_get_finish(&r, ok, j->side[0].state_id, err, errsize)) {
        clear_state(j);
        return false;
    }
    return true;
}

static void join_free(Op *op)
{
    JoinOp *j = (JoinOp *)op;
    for (int s = 0; s < 2; s++) {
        JSide *sd = &j->side[s];
        clear_side(sd);
        ktab_fini(&sd->keys);
        ktab_fini(&sd->nullk);
        rowc_fini(&sd->codec);
        free(sd->cbuf);
        free(sd->key_types);
        free(sd->keyx);
        free(sd->kbuf);
    }
    free(j->freelist);
    free(j->pair);
    free(j->enc);
    free(j->hkey);
    op_base_fini(op);
    free(j);
}

/* Once the pipeline knows whether an operator below reads the pairs' frontiers: then
 * every stored row keeps its own (no row is stored yet). */
static void join_prepare(Op *op)
{
    JoinOp *j = (JoinOp *)op;
    for (int s = 0; s < 2; s++) layout(&j->side[s], j->bound != B_NONE, op->need_frontier);
}

/* ---------- versions ---------- */

/* The current result of an unbounded INNER or SEMI join: every matching pair of stored
 * rows (SEMI: every left row with a match), with the product of their multiplicities.
 * Rows with a NULL key are not stored, and they contribute nothing to these two kinds. */
static bool join_emit_current(Op *op, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    JoinOp *j = (JoinOp *)op;
    JSide *ls = &j->side[0], *rs = &j->side[1];
    uint32_t pos = 0;
    JBucket *lb;
    Value *lrow = xcalloc((size_t)ls->ncols + 1, sizeof(Value));
    while ((lb = ktab_next(&ls->keys, &pos))) {
        const Value *key = ktab_key(&ls->keys, lb);
        JBucket *rb = j->type == JOIN_SEMI ? NULL : ktab_find(&rs->keys, key, ktab_hash(&rs->keys, key));
        for (JRow *l = lb->head; l; l = l->next) {
            memcpy(lrow, jr_decode(ls, l), sizeof(Value) * (size_t)ls->ncols);
            if (j->type == JOIN_SEMI) {
                if (jr_count(ls, l) > 0) emit(j, lrow, NULL, l->mult, NULL, 0, side_front(ls, jr_front(ls, l)));
                continue;
            }
            for (JRow *r = rb ? rb->head : NULL; r; r = r->next) {
                const Value *rrow = jr_decode(rs, r);
                if (j->pred) {
                    memcpy(j->pair, lrow, sizeof(Value) * (size_t)j->nl);
                    memcpy(j->pair + j->nl, rrow, sizeof(Value) * (size_t)j->nr);
                    if (eval_pred(j->pred, j->pair, &j->ec) <= 0) continue;
                }
                emit(j, lrow, rrow, l->mult * r->mult, NULL, 0,
                     max64(side_front(ls, jr_front(ls, l)), side_front(rs, jr_front(rs, r))));
            }
        }
    }
    free(lrow);
    return true;
}

static const OpVtbl join_vt = {
    .kind = "join",
    .frontier = FR_PASS,
    .prepare = join_prepare,
    .step = join_step,
    .on_watermark = join_on_watermark,
    .free = join_free,
    .state_stats = join_stats,
    .serialize = join_serialize,
    .deserialize = join_deserialize,
    .out_watermark = join_out_watermark,
};

/* The same for the joins whose state holds their result (unbounded INNER and SEMI). */
static const OpVtbl join_derivable_vt = {
    .kind = "join",
    .frontier = FR_PASS,
    .prepare = join_prepare,
    .step = join_step,
    .on_watermark = join_on_watermark,
    .free = join_free,
    .state_stats = join_stats,
    .serialize = join_serialize,
    .deserialize = join_deserialize,
    .out_watermark = join_out_watermark,
    .emit_current = join_emit_current,
};

/* ---------- construction ---------- */

Op *op_join_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize)
{
    const PlanNode *pn = n->plan;
    if (n->ninputs != 2) {
        snprintf(err, errsize, "%s: a join needs two inputs", n->op_id);
        return NULL;
    }
    int nl = inputs[0]->ncols, nr = inputs[1]->ncols;
    bool semi_anti = pn->join_type == JOIN_SEMI || pn->join_type == JOIN_ANTI;
    if (pn->ncols != (semi_anti ? nl : nl + nr)) {
        snprintf(err, errsize, "%s: join output has %d columns, inputs %d and %d", n->op_id, pn->ncols, nl, nr);
        return NULL;
    }
    for (int k = 0; k < pn->nkeys; k++) {
        Type lt = pn->left_keys[k]->type, rt = pn->right_keys[k]->type;
        if (lt.id != rt.id && !(type_is_int_like(lt) && type_is_int_like(rt) && lt.id != T_BOOL && rt.id != T_BOOL)) {
            snprintf(err, errsize, "%s: join key %d compares different types (the binder must cast)", n->op_id, k + 1);
            return NULL;
        }
    }
    if (pn->null_aware && (pn->join_type != JOIN_ANTI || pn->nkeys < 1)) {
        snprintf(err, errsize, "%s: a null-aware join must be an anti join with a key", n->op_id);
        return NULL;
    }
    if (n->lookup && (pn->join_type != JOIN_INNER && pn->join_type != JOIN_LEFT)) {
        snprintf(err, errsize, "%s: a lookup join is an inner join or a LEFT JOIN", n->op_id);
        return NULL;
    }
    JoinOp *j = xcalloc(1, sizeof *j);
    op_base_init(&j->base, &join_vt, p, n, inputs, 2);
    j->type = pn->join_type;
    j->nkeys = pn->nkeys;
    j->null_aware = pn->null_aware;
    j->semi_anti = semi_anti;
    j->lookup = n->lookup;
    j->pred = pn->pred;
    j->nl = nl;
    j->nr = nr;
    j->pair = xcalloc((size_t)(nl + nr + 1), sizeof(Value));
    j->lower = pn->lower_us;
    j->upper = pn->upper_us;
    int nk = j->nkeys > 0 ? j->nkeys : 1;
    for (int s = 0; s < 2; s++) {
        JSide *sd = &j->side[s];
        sd->ncols = inputs[s]->ncols;
        sd->types = inputs[s]->out_types;
        sd->key_types = xmalloc(sizeof(Type) * (size_t)nk);
        sd->keyx = xmalloc(sizeof(Expr *) * (size_t)nk);
        sd->kbuf = xcalloc((size_t)nk, sizeof(Value));
        for (int k = 0; k < j->nkeys; k++) {
            sd->keyx[k] = s == 0 ? pn->left_keys[k] : pn->right_keys[k];
            /* both sides hash keys alike: the left key types */
            sd->key_types[k] = pn->left_keys[k]->type;
        }
        rowc_init(&sd->codec, sd->types, sd->ncols);
        sd->cbuf = xcalloc((size_t)(sd->ncols + 1), sizeof(Value));
        ktab_init(&sd->keys, j->nkeys, sd->key_types, sizeof(JBucket));
        ktab_init(&sd->nullk, j->nkeys > 0 ? j->nkeys - 1 : 0, sd->key_types + 1, sizeof(JBucket));
        sd->wm = INT64_MIN;
        j->col_keys[s] = true;
        for (int k = 0; k < j->nkeys; k++)
            if (sd->keyx[k]->kind != EX_COLUMN) j->col_keys[s] = false;
    }
    j->side[0].outer = j->type == JOIN_LEFT || j->type == JOIN_FULL;
    j->side[1].outer = j->type == JOIN_RIGHT || j->type == JOIN_FULL;
    j->side[0].counts = j->side[0].outer || semi_anti;
    j->side[1].counts = j->side[1].outer;
    j->side[0].state_id = op_state_id(&j->base, "join_left", 0, "/left");
    j->side[1].state_id = op_state_id(&j->base, "join_right", 1, "/right");
    if (j->lookup) {
        /* one state, the table's rows: its id names both sides in messages */
        j->side[1].state_id = op_state_id(&j->base, "lookup_table", 0, "/table");
        j->side[0].state_id = j->side[1].state_id;
        j->side[1].counts = false;
    }

    if (pn->interval_join && !j->lookup) {
        int cols[2] = {pn->left_time_col, pn->right_time_col};
        for (int s = 0; s < 2; s++) {
            if (cols[s] < 0 || cols[s] >= j->side[s].ncols || !type_is_temporal(j->side[s].types[cols[s]])) {
                snprintf(err, errsize, "%s: interval join time column is not a timestamp", n->op_id);
                join_free(&j->base);
                return NULL;
            }
            j->side[s].tcol = cols[s];
            j->side[s].ttype = j->side[s].types[cols[s]];
        }
        if (pn->lower_us > pn->upper_us) {
            snprintf(err, errsize, "%s: interval join bounds are reversed", n->op_id);
            join_free(&j->base);
            return NULL;
        }
        j->bound = B_INTERVAL;
        j->side[0].exp_off = -pn->lower_us == INT64_MIN ? INT64_MAX : -pn->lower_us;
        j->side[1].exp_off = pn->upper_us;
        j->side[0].front_off = pn->upper_us == INT64_MIN ? INT64_MAX : -pn->upper_us;
        j->side[1].front_off = pn->lower_us;
    } else if (!j->lookup) {
        /* a window join: a key pair that is the same window bound on both sides */
        int best_kind;
        int64_t sz[2] = {0, 0};
        int best = ir_window_join_key(n, &best_kind, sz);
        if (best >= 0 && !j->null_aware) {
            j->bound = B_WINDOW;
            for (int s = 0; s < 2; s++) {
                JSide *sd = &j->side[s];
                sd->tcol = sd->keyx[best]->col;
                sd->ttype = sd->types[sd->tcol];
                sd->tadd = best_kind == 1 ? sz[s] : 0;
                sd->exp_off = -1;
                sd->late_off = -1;
            }
        }
    }
    for (int s = 0; s < 2; s++) {
        JSide *sd = &j->side[s];
        sd->indexed = n->inputs[s]->mode != CL_INSERT_ONLY;
        if (j->bound == B_NONE && !j->lookup) sd->ttl.ttl_us = ttl_of_state(n, s);
        sd->unlinkable = sd->indexed || j->bound != B_NONE || ttl_on(&sd->ttl);
        layout(sd, j->bound != B_NONE, false);
    }
    if (j->bound != B_NONE || ttl_on(&j->side[0].ttl) || ttl_on(&j->side[1].ttl)) j->base.frontier = FR_JUDGE;
    if (j->bound == B_NONE && !j->null_aware && !j->lookup && (j->type == JOIN_INNER || j->type == JOIN_SEMI))
        j->base.vt = &join_derivable_vt;
    return &j->base;
}
