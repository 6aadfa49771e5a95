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
 * State, per side: a keyed table over the whole row -> JRow {multiplicity, match
 * count, bucket links, expiry}, and a keyed table join key -> bucket (the list of the
 * side's rows with that key). Rows whose key can never match (a NULL key) are not
 * stored: their output (a NULL-padded row, an ANTI row) is emitted directly with
 * their weight. The match count of a row (the weighted number of matching rows on
 * the other side) is kept for the sides that need it: the outer sides, and the left
 * side of SEMI/ANTI.
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
 * window: window_end <= wm): the rows it could match may already be gone, so it is
 * counted and dead-lettered with reason "late" instead of producing a partial result.
 * Dead rows are freed at the end of the step. In bounded joins the NULL-padded row of an
 * outer side is emitted when its row dies unmatched (not before), so the output of
 * insert-only inputs stays insert-only. An interval join holds its output watermark
 * back to min(wm(L), wm(R), wm(R) + lower, wm(L) - upper): NULL-padded rows emitted at
 * expiry are then not late for the operators below.
 *
 * Text lifetime: output rows point into the input batches and into stored rows. A row
 * whose multiplicity reaches zero or that expires is unlinked at once and freed at the
 * start of the next step, after every consumer has read this step's output. */
#include "engine/iheap.h"
#include "engine/keyed_table.h"
#include "engine/op.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOIN_MAGIC 0x574a4f49u /* "WJOI" */
#define JOIN_VERSION 1u

typedef struct JBucket JBucket;
typedef struct JRow JRow;

struct JRow {
    int64_t mult;
    int64_t nmatch;
    JRow *next, *prev;       /* bucket list */
    JBucket *bucket;         /* NULL when not linked */
    IHeapItem h;             /* expiry (bounded joins): key = last watermark of the other
                                side it survives */
    bool pending;            /* on the free list */
    bool expired;
    uint8_t side;            /* 0 left, 1 right: the table the block belongs to */
};

struct JBucket {
    JRow *head;
    bool nullk;              /* null-aware: the table of rows with a NULL pair-0 key */
};

typedef enum Bound { B_NONE, B_INTERVAL, B_WINDOW } Bound;

typedef struct JSide {
    int ncols;
    const Type *types;
    KTab rows;               /* whole row -> JRow */
    KTab keys;               /* join key -> JBucket (null-aware: non-NULL pair-0 rows) */
    KTab nullk;              /* null-aware: pairs 1.. -> JBucket of rows with NULL pair 0 */
    Type *key_types;
    Expr **keyx;
    Value *kbuf;             /* nkeys */
    bool outer;              /* NULL-padded rows for unmatched rows */
    bool counts;             /* keep match counts */
    /* bounded joins */
    int tcol;                /* time (interval) or window column */
    Type ttype;
    int64_t tadd, exp_off, late_off;
    int64_t wm;              /* this side's watermark as of the end of the previous step */
    IHeap heap;
    const char *state_id;
} JSide;

typedef struct JoinOp {
    Op base;
    JoinType type;
    int nkeys;
    bool null_aware;
    bool semi_anti;
    Bound bound;
    int64_t lower, upper;
    const Expr *pred;
    JSide side[2];
    int nl, nr;
    Value *pair;             /* nl + nr cells: pred input / output row */
    JRow **freelist;
    int nfree, capfree;
    EvalCtx ec;
    int64_t late_rows;
    /* per-batch hashes (plain-column keys), computed ahead so that the tables' memory
     * can be prefetched: the state is far bigger than the caches */
    bool col_keys[2];
    uint64_t *hrow, *hkey;
    int hcap;
    uint64_t cur_hkey;       /* key hash of the row being applied, when have_hkey */
    bool have_hkey;
} JoinOp;

#define PF_DIST 16

static inline JRow *row_of(IHeapItem *it) { return (JRow *)((char *)it - offsetof(JRow, h)); }

/* ---------- output ---------- */

/* Append (l ++ r) with weight w; a NULL side is NULL-padded. SEMI/ANTI output l only. */
static void emit(JoinOp *j, const Value *l, const Value *r, int64_t w, const Batch *in, int i)
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
    if (in) op_copy_origin(out, in, i);
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

static void emit_count_output(JoinOp *j, int s, const Value *row, int64_t w, const Batch *in, int i)
{
    emit(j, s == 0 ? row : NULL, s == 1 ? row : NULL, w, in, i);
}

/* ---------- state helpers ---------- */

static void unlink_row(JoinOp *j, int s, JRow *r)
{
    JSide *sd = &j->side[s];
    JBucket *b = r->bucket;
    if (b) {
        if (r->prev) r->prev->next = r->next;
        else b->head = r->next;
        if (r->next) r->next->prev = r->prev;
        r->next = r->prev = NULL;
        r->bucket = NULL;
        if (!b->head) ktab_remove(b->nullk ? &sd->nullk : &sd->keys, b);
    }
    iheap_remove(&sd->heap, &r->h);
}

static void to_freelist(JoinOp *j, JRow *r)
{
    if (r->pending) return;
    r->pending = true;
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
        r->pending = false;
        if (r->mult != 0 && !r->expired) continue; /* revived */
        ktab_remove(&j->side[r->side].rows, r);
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
    r->bucket = b;
    r->prev = NULL;
    r->next = b->head;
    if (b->head) b->head->prev = r;
    b->head = r;
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
} Probe;

/* P (side pr->s) against stored row C (the other side): pred check, pair output, C's
 * match count. */
static void visit(JoinOp *j, Probe *pr, JRow *c)
{
    int o = 1 - pr->s;
    JSide *os = &j->side[o];
    const Value *crow = ktab_key(&os->rows, c);
    const Value *l = pr->s == 0 ? pr->row : crow;
    const Value *r = pr->s == 0 ? crow : pr->row;
    if (j->pred) {
        memcpy(j->pair, l, sizeof(Value) * (size_t)j->nl);
        memcpy(j->pair + j->nl, r, sizeof(Value) * (size_t)j->nr);
        int ok = eval_pred(j->pred, j->pair, &j->ec);
        if (ok < 0) pr->pred_failed = true;
        if (ok <= 0) return;
    }
    pr->matched += c->mult;
    if (!j->semi_anti) emit(j, l, r, pr->w * c->mult, pr->in, pr->i);
    if (os->counts) {
        int64_t before = c->nmatch;
        c->nmatch += pr->w;
        if (immediate(j, o)) {
            int64_t d = count_output(j, o, c->nmatch) - count_output(j, o, before);
            if (d) emit_count_output(j, o, crow, d * c->mult, NULL, 0);
        }
    }
}

static void visit_list(JoinOp *j, Probe *pr, JBucket *b)
{
    for (JRow *c = b ? b->head : NULL; c; c = c->next) visit(j, pr, c);
}

/* Correlation keys (null-aware pairs 1..) of stored row c equal pr's (SQL `=`). */
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
    uint32_t pos = 0;
    JRow *c;
    while ((c = ktab_next(&os->rows, &pos))) {
        if (!c->bucket) continue; /* dead, or waiting to be freed */
        if (corr_equal(j, s, k, o, ktab_key(&os->rows, c))) visit(j, pr, c);
    }
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
    while ((it = iheap_min(&sd->heap)) && it->key < owm) {
        JRow *r = row_of(it);
        if (!immediate(j, s) && r->mult != 0 && count_output(j, s, r->nmatch))
            emit_count_output(j, s, ktab_key(&sd->rows, r), r->mult, NULL, 0);
        unlink_row(j, s, r);
        r->expired = true;
        to_freelist(j, r);
    }
}

/* ---------- the step ---------- */

static bool apply(JoinOp *j, int s, const Batch *in, int i, const uint64_t *hrow)
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
            if (op_sat_add(t, sd->late_off) < sd->wm) {
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
        if (count_output(j, s, 0)) emit_count_output(j, s, row, w, in, i);
        return true;
    }
    bool created;
    JRow *r = ktab_upsert(&sd->rows, row, hrow ? *hrow : ktab_hash(&sd->rows, row), &created);
    if (created) {
        iheap_item_init(&r->h);
        r->side = (uint8_t)s;
    }
    bool fresh = !r->bucket; /* new, or revived after its multiplicity reached 0 */
    bool need_probe = !(j->semi_anti && s == 0 && !fresh);
    Probe pr = {s, row, w, in, i, 0, false};
    if (need_probe) probe(j, &pr);
    if (pr.pred_failed) op_dead_letter(&j->base, s, i, j->ec.err);
    if (fresh) {
        r->nmatch = pr.matched;
        r->expired = false;
        link_row(j, s, r);
        if (j->bound != B_NONE) iheap_push(&sd->heap, &r->h, texp);
    }
    r->mult += w;
    if (immediate(j, s) && count_output(j, s, r->nmatch)) emit_count_output(j, s, row, w, in, i);
    if (r->mult == 0) {
        unlink_row(j, s, r);
        to_freelist(j, r);
    }
    return true;
}

static bool join_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    JoinOp *j = (JoinOp *)op;
    purge(j);
    j->ec.arena = &op->out->arena;
    for (int s = 0; s < 2; s++) {
        const Batch *in = op->in[s]->out;
        JSide *sd = &j->side[s], *os = &j->side[1 - s];
        bool pre = j->col_keys[s] && !j->null_aware && in->n > PF_DIST;
        if (pre) {
            if (in->n > j->hcap) {
                j->hcap = in->n;
                j->hrow = xrealloc(j->hrow, sizeof(uint64_t) * (size_t)j->hcap);
                j->hkey = xrealloc(j->hkey, sizeof(uint64_t) * (size_t)j->hcap);
            }
            for (int i = 0; i < in->n; i++) {
                const Value *row = batch_row(in, i);
                j->hrow[i] = ktab_hash(&sd->rows, row);
                for (int k = 0; k < j->nkeys; k++) sd->kbuf[k] = row[sd->keyx[k]->col];
                j->hkey[i] = ktab_hash(&sd->keys, sd->kbuf);
            }
        }
        for (int i = 0; i < in->n; i++) {
            if (pre && i + PF_DIST < in->n) {
                ktab_prefetch_slot(&sd->rows, j->hrow[i + PF_DIST]);
                ktab_prefetch_slot(&os->keys, j->hkey[i + PF_DIST]);
                ktab_prefetch_slot(&sd->keys, j->hkey[i + PF_DIST]);
            }
            if (pre && i + PF_DIST / 2 < in->n) {
                ktab_prefetch_entry(&sd->rows, j->hrow[i + PF_DIST / 2], 64);
                ktab_prefetch_entry(&os->keys, j->hkey[i + PF_DIST / 2], 64);
            }
            if (in->weights[i] == 0) continue;
            j->have_hkey = pre;
            if (pre) j->cur_hkey = j->hkey[i];
            bool ok = apply(j, s, in, i, pre ? &j->hrow[i] : NULL);
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
    int64_t pending[2] = {0, 0};
    for (int k = 0; k < j->nfree; k++) pending[j->freelist[k]->side]++;
    for (int s = 0; s < 2 && s < max; s++) {
        const JSide *sd = &j->side[s];
        out[s].id = sd->state_id;
        out[s].entries = (int64_t)sd->rows.count - pending[s];
        out[s].bytes = sd->rows.bytes + sd->keys.bytes + sd->nullk.bytes + iheap_bytes(&sd->heap);
    }
    return 2;
}

static uint64_t shape_hash(const JoinOp *j)
{
    uint64_t h = OP_SHAPE_SEED;
    op_shape_mix(&h, j->type);
    op_shape_mix(&h, (uint64_t)j->nkeys);
    op_shape_mix(&h, j->null_aware);
    op_shape_mix(&h, j->bound);
    op_shape_mix(&h, (uint64_t)j->lower);
    op_shape_mix(&h, (uint64_t)j->upper);
    for (int s = 0; s < 2; s++) {
        op_shape_mix(&h, (uint64_t)j->side[s].ncols);
        for (int c = 0; c < j->side[s].ncols; c++) op_shape_mix(&h, j->side[s].types[c].id);
    }
    return h;
}

static bool live_row(const void *payload) { return ((const JRow *)payload)->bucket != NULL; }

static bool join_serialize(const Op *op, StrBuf *sb)
{
    const JoinOp *j = (const JoinOp *)op;
    op_put_header(sb, JOIN_MAGIC, JOIN_VERSION, shape_hash(j));
    for (int s = 0; s < 2; s++) {
        const JSide *sd = &j->side[s];
        op_put_i64(sb, sd->wm);
        uint32_t n;
        void **es = op_sorted_entries(&sd->rows, live_row, &n);
        op_put_u64(sb, n);
        for (uint32_t k = 0; k < n; k++) {
            const JRow *e = es[k];
            op_put_row(sb, sd->types, sd->ncols, ktab_key(&sd->rows, e));
            op_put_i64(sb, e->mult);
            op_put_i64(sb, e->nmatch);
        }
        free(es);
    }
    return true;
}

static void clear_side(JSide *sd)
{
    ktab_clear(&sd->rows);
    ktab_clear(&sd->keys);
    ktab_clear(&sd->nullk);
    iheap_fini(&sd->heap);
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
    OpReader r = {data, data + len, false};
    if (!op_get_header(&r, JOIN_MAGIC, JOIN_VERSION, shape_hash(j))) {
        snprintf(err, errsize, "state of %s: not a join state of this shape", j->side[0].state_id);
        return false;
    }
    clear_state(j);
    j->ec.arena = &op->out->arena;
    bool ok = true;
    Value *row = xmalloc(sizeof(Value) * (size_t)(j->nl + j->nr + 1));
    for (int s = 0; s < 2 && ok && !r.bad; s++) {
        JSide *sd = &j->side[s];
        sd->wm = op_get_i64(&r);
        uint64_t n = op_get_u64(&r);
        for (uint64_t k = 0; k < n && ok && !r.bad; k++) {
            op_get_row(&r, sd->types, sd->ncols, row);
            int64_t mult = op_get_i64(&r), nmatch = op_get_i64(&r);
            if (r.bad) break;
            int64_t texp = 0;
            if (mult == 0 || !eval_keys(j, s, row)) {
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
            bool created;
            JRow *e = ktab_upsert(&sd->rows, row, ktab_hash(&sd->rows, row), &created);
            if (!created || !matchable) {
                ok = false;
                break;
            }
            iheap_item_init(&e->h);
            e->side = (uint8_t)s;
            e->mult = mult;
            e->nmatch = nmatch;
            link_row(j, s, e);
            if (j->bound != B_NONE) iheap_push(&sd->heap, &e->h, texp);
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
        ktab_fini(&sd->rows);
        ktab_fini(&sd->keys);
        ktab_fini(&sd->nullk);
        iheap_fini(&sd->heap);
        free(sd->key_types);
        free(sd->keyx);
        free(sd->kbuf);
    }
    free(j->freelist);
    free(j->pair);
    free(j->hrow);
    free(j->hkey);
    op_base_fini(op);
    free(j);
}

static const OpVtbl join_vt = {
    .kind = "join",
    .step = join_step,
    .free = join_free,
    .state_stats = join_stats,
    .serialize = join_serialize,
    .deserialize = join_deserialize,
    .out_watermark = join_out_watermark,
};

/* ---------- construction ---------- */

/* Does column col of n's output carry a window bound? Returns 2 for window_end, 1 for
 * window_start (then *size is the window size), 0 otherwise. */
static int window_col(const IrNode *n, int col, int64_t *size)
{
    const PlanNode *p = n->plan;
    switch (p->kind) {
    case PL_WINDOW_TVF:
        if (col == p->ncols - 1) return 2;
        if (col == p->ncols - 2 && p->wtvf != WTVF_SESSION) {
            *size = p->size_us;
            return 1;
        }
        return 0;
    case PL_FILTER:
    case PL_REF:
        return n->ninputs == 1 ? window_col(n->inputs[0], col, size) : 0;
    case PL_PROJECT:
        if (col < p->nexprs && p->exprs[col]->kind == EX_COLUMN) return window_col(n->inputs[0], p->exprs[col]->col, size);
        return 0;
    case PL_AGGREGATE:
        if (col < p->ngroup && p->group[col]->kind == EX_COLUMN) {
            int r = window_col(n->inputs[0], p->group[col]->col, size);
            /* a session's start is only known with its end */
            return r;
        }
        return 0;
    case PL_JOIN: {
        int nl = n->inputs[0]->plan->ncols;
        if (col < nl) return window_col(n->inputs[0], col, size);
        if (p->join_type == JOIN_SEMI || p->join_type == JOIN_ANTI) return 0;
        return window_col(n->inputs[1], col - nl, size);
    }
    default:
        return 0;
    }
}

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
    JoinOp *j = xcalloc(1, sizeof *j);
    op_base_init(&j->base, &join_vt, p, n, inputs, 2);
    j->type = pn->join_type;
    j->nkeys = pn->nkeys;
    j->null_aware = pn->null_aware;
    j->semi_anti = semi_anti;
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
        ktab_init(&sd->rows, sd->ncols, sd->types, sizeof(JRow));
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

    if (pn->interval_join) {
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
    } else {
        /* a window join: a key pair that is the same window bound on both sides */
        int best = -1, best_kind = 0;
        int64_t sz[2] = {0, 0};
        for (int k = 0; k < j->nkeys && best_kind < 2; k++) {
            const Expr *le = pn->left_keys[k], *re = pn->right_keys[k];
            if (le->kind != EX_COLUMN || re->kind != EX_COLUMN) continue;
            int64_t s0 = 0, s1 = 0;
            int a = window_col(n->inputs[0], le->col, &s0), b = window_col(n->inputs[1], re->col, &s1);
            if (a == 0 || a != b || a <= best_kind) continue;
            best = k;
            best_kind = a;
            sz[0] = s0;
            sz[1] = s1;
        }
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
    return &j->base;
}
