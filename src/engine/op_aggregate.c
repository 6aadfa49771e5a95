/* GROUP BY aggregate operator, incremental under retractions.
 *
 * State: a keyed table group key -> Group {weighted row count, one accumulator per
 * aggregate}. A step applies every input change (with its weight) to its group; for
 * each group touched in the step the output row it had before the step is emitted as
 * -old when first touched (text copied), and at the end of the step the new row is
 * emitted as +new unless it is identical to the old one (then the -old is dropped). A
 * group whose row count returns to 0 is deleted (emitting only -old). A global
 * aggregate (no GROUP BY) follows PostgreSQL: it always has exactly one row, emitted
 * in the first step (COUNT 0, SUM NULL ...) and never deleted.
 *
 * The accumulators are shared with the window and OVER aggregates (agg_accum.h).
 *
 * With the model's state_ttl (ttl.h) a group whose last update is older than the
 * watermark minus the TTL is dropped silently; a later row for its key starts a new
 * group, emitted as +new without -old (the consumer keeps the row it had: an upsert
 * overwrites it). A retraction that finds no group (or an expired one) is ignored. A
 * group that expires for a row of the step in which it already changed first emits
 * that generation's net change of the step (-old, +the row it had when it expired), so
 * every generation leaves in the changelog what a one-row-per-step run leaves. A global
 * aggregate's one group expires the same way: its accumulators go back to empty
 * (`gone`: the consumer keeps the row, the state has none), and the next row emits the
 * new single row as +new without -old, as a keyless upsert overwrites it.
 *
 * Runtime errors (evaluating keys, arguments or filters; a sum leaving its type's
 * range) send the input row to the dead letters before any state changes, so a row
 * is either applied completely or not at all.
 *
 * Deferred output (op.h `defer`, engine.h eng_defer_model; keyed aggregates without a
 * state_ttl): a step emits nothing. The first change of a group since the last flush
 * puts it on the pending list with a copy of the row it had then (its before-image, in
 * `pend`); a group whose row count falls to 0 stays, empty, until the flush. A flush
 * emits every pending group's -before/+now (dropped when identical) and frees the
 * empty ones: the net change of the steps since the previous flush, the change those
 * steps made as one step would have emitted it. */
#include "engine/agg_accum.h"
#include "engine/keyed_table.h"
#include "engine/ttl.h"

#define AGG_MAGIC 0x57414747u /* "WAGG" */
#define AGG_VERSION 1u
#define AGG_VERSION_TTL 2u /* version 1 plus every group's last update time */
#define AGG_VERSION_CHUNKED 3u /* a base blob and the groups in chunks by hash (see save_chunks) */
#define PF_SLOT 48
#define PF_ENTRY 24
#define PF_DIST 12
#define PF_TEXT 16

typedef struct Group {
    int64_t nrows;           /* weighted input row count */
    uint64_t touched;        /* step of the last change */
    int32_t old_idx;         /* index of this step's -old row in the output, -1 none */
    bool fresh;              /* TTL: expired during this step, nothing applied since */
    bool pending;            /* deferred: changed since the last flush (on a->dirty) */
    Acc acc[];               /* then, with a state_ttl only, the group's TtlItem (tt_off) */
} Group;

typedef struct AggOp {
    Op base;
    size_t tt_off;               /* where a group's TtlItem is (state_ttl only: 0 without) */
    const PlanNode *plan;
    const char *state_id;
    int ngroup, naggs;
    AggAccs acc;             /* the aggregate calls */
    Type *key_types;
    int *keycol;             /* per group key: input column, or -1 (expression) */
    KTab tab;
    Ttl ttl;
    bool compact;            /* some output row of this step has weight 0 (finish drops it) */
    bool global;             /* ngroup == 0 */
    bool initial_pending;    /* global: the initial row is still to be emitted */
    bool gone;               /* global, TTL: its group expired; no row since */
    Group *gg;               /* the global group */
    /* per-row scratch */
    Value *keybuf;
    bool out_has_text;
    Group **touched;
    int ntouched, touched_cap;
    bool col_keys;           /* every group key is a plain input column */
    uint64_t *hashes;        /* per input row key hashes, for prefetching */
    bool *keyok;             /* per input row: its key evaluated without error */
    Value *keys;             /* per input row keys, when some key is an expression */
    int hashes_cap;
    ChunkTrack chunks;       /* incremental checkpoints: which chunks of groups changed */
    /* deferred output (see the top): the groups changed since the last flush, in the
     * order they first changed, and their rows as of that flush (Group.old_idx: the
     * row's index in pend, -1: the group had none) */
    bool deferred;
    Group **dirty;
    int ndirty, dirty_cap;
    Batch pend;
} AggOp;

/* The group's chunk changed (nothing is tracked before the first save). */
static inline void mark_dirty(AggOp *a, const Group *g)
{
    if (a->chunks.dirty) chunk_mark(&a->chunks, ktab_hash(&a->tab, ktab_key(&a->tab, g)));
}

/* ---------- group memory ---------- */

/* The group's TTL item: only an operator with a state_ttl has one (the others must not
 * touch it: ttl.h's functions do nothing without a TTL, and only their guards read it). */
static inline TtlItem *group_tt(const AggOp *a, const Group *g) { return (TtlItem *)((char *)g + a->tt_off); }

static void free_group(AggOp *a, Group *g)
{
    mark_dirty(a, g);
    ttl_forget(&a->ttl, group_tt(a, g));
    aggacc_release(&a->acc, g->acc);
    ktab_remove(&a->tab, g);
}

static void clear_groups(AggOp *a)
{
    uint32_t pos = 0;
    Group *g;
    while ((g = ktab_next(&a->tab, &pos)))
        aggacc_release(&a->acc, g->acc);
    ktab_clear(&a->tab);
    ttl_reset(&a->ttl);
    a->gg = NULL;
}

static Group *new_group(AggOp *a, const Value *key, uint64_t h)
{
    bool created;
    Group *g = ktab_upsert(&a->tab, key, h, &created);
    if (created) {
        g->old_idx = -1;
        if (ttl_on(&a->ttl)) ttl_item_init(group_tt(a, g));
    }
    return g;
}

static void ensure_global(AggOp *a)
{
    if (a->global && !a->gg) a->gg = new_group(a, NULL, ktab_hash(&a->tab, NULL));
}

/* ---------- results ---------- */

/* The group's output row (keys ++ aggregates) into row. Text points into the state. */
static bool group_row(AggOp *a, const Group *g, Value *row, Arena *arena, char *err, size_t errsize)
{
    return aggacc_row(&a->acc, g->acc, ktab_key(&a->tab, g), a->ngroup, row, arena, err, errsize);
}

static bool had_row(const AggOp *a, const Group *g)
{
    return a->global ? !a->initial_pending && !a->gone : g->nrows > 0;
}

/* Does g have an output row now (a global aggregate always has one)? */
static bool has_row(const AggOp *a, const Group *g)
{
    return a->global || g->nrows > 0;
}

/* Deferred: the first change of g in this step; the first since the last flush puts
 * it on the pending list with a copy of the row it has (what the consumer holds). */
static bool defer_touch(AggOp *a, Group *g, OpCtx *ctx)
{
    mark_dirty(a, g);
    if (g->pending) return true;
    g->pending = true;
    if (a->ndirty == a->dirty_cap) {
        a->dirty_cap = a->dirty_cap ? a->dirty_cap * 2 : 1024;
        a->dirty = xrealloc(a->dirty, sizeof(Group *) * (size_t)a->dirty_cap);
    }
    a->dirty[a->ndirty++] = g;
    g->old_idx = -1;
    if (!had_row(a, g)) return true;
    g->old_idx = a->pend.n;
    Value *dst = batch_append(&a->pend, -1);
    if (!group_row(a, g, dst, &a->pend.arena, ctx->err, ctx->errsize)) return false;
    if (a->out_has_text) batch_copy_text(&a->pend, dst, a->base.out_types, a->base.ncols);
    return true;
}

/* First change of g in this step: remember (and emit as -old) the row it had. */
static bool touch(AggOp *a, Group *g, uint64_t step, OpCtx *ctx)
{
    if (g->touched == step) return true;
    g->touched = step;
    if (a->deferred) return defer_touch(a, g, ctx);
    g->old_idx = -1;
    if (a->ntouched == a->touched_cap) {
        a->touched_cap = a->touched_cap ? a->touched_cap * 2 : 256;
        a->touched = xrealloc(a->touched, sizeof(Group *) * (size_t)a->touched_cap);
    }
    a->touched[a->ntouched++] = g;
    mark_dirty(a, g);
    if (had_row(a, g)) {
        /* the state changes below: the -old row must own copies of its text */
        Batch *out = a->base.out;
        g->old_idx = out->n;
        Value *dst = batch_append(out, -1);
        if (!group_row(a, g, dst, &out->arena, ctx->err, ctx->errsize)) return false;
        if (a->out_has_text) batch_copy_text(out, dst, a->base.out_types, a->base.ncols);
    }
    return true;
}

/* ---------- expiry ---------- */

/* The group's accumulators back to empty (a new group of the same key). */
static void reset_group(AggOp *a, Group *g)
{
    ttl_forget(&a->ttl, group_tt(a, g));
    ttl_item_init(group_tt(a, g));
    aggacc_release(&a->acc, g->acc);
    memset(g->acc, 0, aggacc_bytes(&a->acc));
    g->nrows = 0;
    ttl_count(&a->ttl);
}

/* The end of g's part in this step as finish emits it: +row when g has one (a global
 * aggregate whose group expired has none), dropped with the -old row when identical.
 * Returns false on an error (in ctx). */
static bool emit_final(AggOp *a, Group *g, bool *compact, OpCtx *ctx)
{
    if (!has_row(a, g) || g->fresh || (a->global && a->gone)) return true;
    Batch *out = a->base.out;
    /* text points into the group's state, which stays put until the next step (unless
     * a TTL lets it go within the step or when the watermark advances at its end) */
    Value *dst = batch_append(out, 1);
    if (!group_row(a, g, dst, &out->arena, ctx->err, ctx->errsize)) return false;
    if (a->out_has_text && ttl_on(&a->ttl)) batch_copy_text(out, dst, a->base.out_types, a->base.ncols);
    if (g->old_idx >= 0 && op_rows_identical(a->base.out_types, a->base.ncols, batch_row(out, g->old_idx), dst)) {
        out->n--;
        out->weights[g->old_idx] = 0;
        *compact = true;
    }
    return true;
}

/* A row of this step found g expired: it starts over. When g changed in this step,
 * the generation that ends here first emits its net change of the step, as the end of
 * the step would have (-old when first touched, +its last row now), so that every
 * generation leaves in the changelog what a run of one row per step leaves; the new
 * generation starts without a -old row (expiry is silent). */
static bool expire_in_step(AggOp *a, Group *g, uint64_t step, OpCtx *ctx)
{
    if (g->touched == step) {
        if (!emit_final(a, g, &a->compact, ctx)) return false;
        g->old_idx = -1;
    }
    reset_group(a, g);
    g->fresh = true;
    if (a->global) a->gone = true;
    return true;
}

/* The watermark passed wm: groups last updated before wm - ttl go, silently. */
static bool agg_on_watermark(Op *op, OpCtx *ctx, int64_t wm)
{
    (void)ctx;
    AggOp *a = (AggOp *)op;
    TtlItem *it;
    while ((it = ttl_pop_expired(&a->ttl, wm))) {
        Group *g = (Group *)((char *)it - a->tt_off);
        if (a->global) {
            /* the one group stays, empty: the consumer keeps its row */
            reset_group(a, g);
            mark_dirty(a, g);
            a->gone = true;
            continue;
        }
        ttl_count(&a->ttl);
        free_group(a, g);
    }
    return true;
}

/* ---------- applying changes ---------- */

/* ---------- the step ---------- */

/* Drop the rows of weight 0 from out (keeping the others' order). */
static void compact_out(Batch *out)
{
    int k = 0;
    for (int i = 0; i < out->n; i++) {
        if (out->weights[i] == 0) continue;
        if (k != i) {
            memcpy(batch_row(out, k), batch_row(out, i), sizeof(Value) * (size_t)out->ncols);
            out->weights[k] = out->weights[i];
        }
        k++;
    }
    out->n = k;
}

static bool finish(AggOp *a, OpCtx *ctx)
{
    Batch *out = a->base.out;
    bool compact = a->compact;
    a->compact = false;
    for (int t = 0; t < a->ntouched; t++) {
        if (t + 4 < a->ntouched) ktab_prefetch_payload(&a->tab, a->touched[t + 4]);
        Group *g = a->touched[t];
        if (!emit_final(a, g, &compact, ctx)) return false;
        g->old_idx = -1;
        g->fresh = false;
        if (!a->global && g->nrows == 0) free_group(a, g);
    }
    a->ntouched = 0;
    if (compact) compact_out(out);
    return true;
}

/* Deferred: every pending group's net change since the last flush (see the top). */
static bool agg_flush(Op *op, OpCtx *ctx)
{
    AggOp *a = (AggOp *)op;
    Batch *out = op->out;
    bool compact = false;
    size_t rowbytes = sizeof(Value) * (size_t)a->base.ncols;
    for (int t = 0; t < a->ndirty; t++) {
        if (t + 4 < a->ndirty) ktab_prefetch_payload(&a->tab, a->dirty[t + 4]);
        Group *g = a->dirty[t];
        int before = g->old_idx;
        g->old_idx = -1;
        if (before >= 0) {
            g->old_idx = out->n;
            Value *dst = batch_append(out, -1);
            memcpy(dst, batch_row(&a->pend, before), rowbytes);
            if (a->out_has_text) batch_copy_text(out, dst, a->base.out_types, a->base.ncols);
        }
        if (!emit_final(a, g, &compact, ctx)) return false;
        g->old_idx = -1;
        g->pending = false;
        if (g->nrows == 0) free_group(a, g);
    }
    a->ndirty = 0;
    batch_clear(&a->pend);
    if (compact) compact_out(out);
    return true;
}

static bool agg_can_defer(const Op *op)
{
    const AggOp *a = (const AggOp *)op;
    return !a->global && !ttl_on(&a->ttl);
}

static bool agg_defer(Op *op)
{
    AggOp *a = (AggOp *)op;
    if (!agg_can_defer(op)) return false;
    if (!a->deferred) batch_init(&a->pend, a->base.ncols);
    a->deferred = true;
    return true;
}

static bool agg_pending(const Op *op) { return ((const AggOp *)op)->ndirty > 0; }

/* Prefetch the slots that row i's DISTINCT arguments (plain columns) will probe in its
 * group's sets, when the group exists already (hashes[i] is its key hash). The group
 * is found by ktab_peek, a hint without a key comparison: a prefetch must not wait
 * for the group's key. */
static void prefetch_distinct(const AggOp *a, const Batch *in, int i)
{
    if (!a->keyok[i]) return;
    const Group *g = ktab_peek(&a->tab, a->hashes[i]);
    if (!g) return;
    const Value *row = batch_row(in, i);
    for (int d = 0; d < a->acc.ndg; d++) {
        const AggSpec *sp = &a->acc.specs[a->acc.dg[d].lead];
        const DSet *ds = aggacc_dist(&a->acc, g->acc, d);
        if (ds && sp->argcol >= 0 && !row[sp->argcol].isnull) dset_prefetch(ds, sp->argt, &row[sp->argcol]);
    }
}

static bool agg_step(Op *op, OpCtx *ctx)
{
    AggOp *a = (AggOp *)op;
    const Batch *in = op->in[0]->out;
    Batch *out = op->out;
    const PlanNode *pn = a->plan;
    EvalCtx ec = {0};
    ec.arena = &out->arena;
    ec.err[0] = '\0';
    uint64_t step = ctx->step;

    a->ntouched = 0;
    ensure_global(a);
    if (a->global && a->initial_pending) {
        if (!touch(a, a->gg, step, ctx)) return false;
        a->initial_pending = false;
    }

    /* The state is far bigger than the L1/L2 caches and rows hit groups at random:
     * evaluate and hash every row's key first (keys that are expressions go to a
     * per-batch buffer; a row whose key fails is re-evaluated below for its message),
     * then prefetch the home slot PF_SLOT rows ahead, the group block PF_ENTRY rows
     * ahead and the DISTINCT sets' slots PF_DIST rows ahead, so the memory latency
     * overlaps with useful work (distances measured with bench/engine_bench). */
    uint64_t *hashes = NULL;
    size_t entry_bytes = a->tab.payload_off + a->tab.payload_size;
    if (entry_bytes > 256) entry_bytes = 256; /* the key and the first accumulators */
    if (!a->global && in->n > 0) {
        if (in->n > a->hashes_cap) {
            a->hashes_cap = in->n;
            a->hashes = xrealloc(a->hashes, sizeof(uint64_t) * (size_t)in->n);
            a->keyok = xrealloc(a->keyok, sizeof(bool) * (size_t)in->n);
            if (!a->col_keys) a->keys = xrealloc(a->keys, sizeof(Value) * (size_t)in->n * (size_t)a->ngroup);
        }
        hashes = a->hashes;
        for (int i = 0; i < in->n; i++) {
            const Value *row = batch_row(in, i);
            Value *kb = a->col_keys ? a->keybuf : a->keys + (size_t)i * (size_t)a->ngroup;
            a->keyok[i] = true;
            for (int k = 0; k < a->ngroup && a->keyok[i]; k++) {
                if (a->keycol[k] >= 0) kb[k] = row[a->keycol[k]];
                else if (!eval_expr(pn->group[k], row, &ec, &kb[k])) a->keyok[i] = false;
            }
            hashes[i] = a->keyok[i] ? ktab_hash(&a->tab, kb) : 0;
        }
    }

    for (int i = 0; i < in->n; i++) {
        if (hashes) {
            if (i + PF_SLOT < in->n) ktab_prefetch_slot(&a->tab, hashes[i + PF_SLOT]);
            if (i + PF_ENTRY < in->n) ktab_prefetch_entry(&a->tab, hashes[i + PF_ENTRY], entry_bytes);
            if (i + PF_TEXT < in->n) ktab_prefetch_key_text(&a->tab, hashes[i + PF_TEXT]);
            if (a->acc.ndg && i + PF_DIST < in->n) prefetch_distinct(a, in, i + PF_DIST);
        }
        int64_t w = in->weights[i];
        if (w == 0) continue;
        const Value *row = batch_row(in, i);
        const char *fail = NULL;

        if (hashes && a->keyok[i]) {
            if (!a->col_keys) memcpy(a->keybuf, a->keys + (size_t)i * (size_t)a->ngroup, sizeof(Value) * (size_t)a->ngroup);
            else
                for (int k = 0; k < a->ngroup; k++) a->keybuf[k] = row[a->keycol[k]];
        } else {
            for (int k = 0; k < a->ngroup && !fail; k++) {
                if (a->keycol[k] >= 0) a->keybuf[k] = row[a->keycol[k]];
                else if (!eval_expr(pn->group[k], row, &ec, &a->keybuf[k])) fail = ec.err;
            }
        }
        if (!fail) fail = aggacc_eval(&a->acc, row, &ec);
        if (fail) {
            op_dead_letter(op, 0, i, fail);
            continue;
        }

        Group *g;
        int64_t jw = 0;
        if (!ttl_on(&a->ttl)) {
            g = a->global ? a->gg : new_group(a, a->keybuf, hashes ? hashes[i] : ktab_hash(&a->tab, a->keybuf));
        } else {
            uint64_t h = hashes ? hashes[i] : ktab_hash(&a->tab, a->keybuf);
            jw = op_judge_wm(op->in_wm, in, i);
            g = a->global ? a->gg : ktab_find(&a->tab, a->keybuf, h);
            /* (a global group that no row updated yet has nothing to expire) */
            if (g && group_tt(a, g)->touch != INT64_MIN && ttl_expired(&a->ttl, group_tt(a, g), jw)) {
                if (!expire_in_step(a, g, step, ctx)) return false;
            }
            /* a retraction of a row the state no longer has */
            if (w < 0 && (!g || g->fresh || (a->global && a->gone))) {
                if (g && g->touched != step && !a->global) free_group(a, g);
                continue;
            }
            if (!g) g = new_group(a, a->keybuf, h);
        }
        if (!touch(a, g, step, ctx)) return false;
        fail = aggacc_prepare(&a->acc, g->acc, w);
        if (fail) {
            op_dead_letter(op, 0, i, fail);
            continue;
        }
        g->nrows += w;
        if (!aggacc_commit(&a->acc, g->acc, w, ctx->err, ctx->errsize)) return false;
        if (ttl_on(&a->ttl)) {
            g->fresh = false;
            if (a->global) a->gone = false;
            ttl_touch(&a->ttl, group_tt(a, g), jw);
        }
    }
    if (a->deferred) return true; /* the flush emits */
    return finish(a, ctx);
}

/* ---------- versions ---------- */

/* Every group's row (a global aggregate's one row once it was emitted). */
static bool agg_emit_current(Op *op, char *err, size_t errsize)
{
    AggOp *a = (AggOp *)op;
    uint32_t pos = 0;
    Group *g;
    while ((g = ktab_next(&a->tab, &pos))) {
        if (!had_row(a, g)) continue;
        Value *dst = batch_append(op->out, 1);
        if (!group_row(a, g, dst, &op->out->arena, err, errsize)) return false;
    }
    return true;
}

/* src's groups with the accumulators of the calls this version still has (matched by
 * the call names of the state descriptors). */
static bool agg_adopt(Op *dst, const Op *src, char *err, size_t errsize)
{
    AggOp *a = (AggOp *)dst;
    const AggOp *b = (const AggOp *)src;
    const StateDesc *ds = a->base.node->nstate ? &a->base.node->state[0] : NULL;
    const StateDesc *ss = b->base.node->nstate ? &b->base.node->state[0] : NULL;
    if (!ds || !ss || !ds->calls || !ss->calls || a->ngroup != b->ngroup) {
        snprintf(err, errsize, "state of %s: the aggregates cannot be matched", a->state_id);
        return false;
    }
    int *from = xcalloc((size_t)a->naggs + 1, sizeof(int));
    bool ok = true;
    for (int j = 0; j < a->naggs && ok; j++) {
        from[j] = -1;
        for (int i = 0; i < b->naggs && from[j] < 0; i++)
            if (strcmp(ds->calls[j], ss->calls[i]) == 0) from[j] = i;
        if (from[j] < 0) {
            snprintf(err, errsize, "state of %s: %s was not computed before", a->state_id, ds->calls[j]);
            ok = false;
        }
    }
    clear_groups(a);
    uint32_t pos = 0;
    Group *g;
    while (ok && (g = ktab_next(&b->tab, &pos))) {
        const Value *key = ktab_key(&b->tab, g);
        Group *ng = a->global ? (ensure_global(a), a->gg) : new_group(a, key, ktab_hash(&a->tab, key));
        ng->nrows = g->nrows;
        int64_t t = ttl_on(&b->ttl) ? group_tt(b, g)->touch : a->base.in_wm;
        if (t != INT64_MIN) ttl_touch(&a->ttl, group_tt(a, ng), t);
        for (int j = 0; j < a->naggs && ok; j++)
            if (!aggacc_copy1(&a->acc, j, ng->acc, &b->acc, from[j], g->acc)) {
                snprintf(err, errsize, "state of %s: %s cannot be carried over", a->state_id, ds->calls[j]);
                ok = false;
            }
    }
    a->initial_pending = b->initial_pending;
    a->gone = b->gone && ttl_on(&a->ttl);
    free(from);
    ensure_global(a);
    return ok;
}

/* ---------- stats and checkpoints ---------- */

static int agg_stats(const Op *op, EngStateStats *out, int max)
{
    const AggOp *a = (const AggOp *)op;
    return op_state_stats1_ttl(out, max, a->state_id, a->tab.count, a->tab.bytes + a->acc.extra_bytes + ttl_bytes(&a->ttl),
                               a->ttl.expired);
}

typedef struct KeySortCtx {
    const AggOp *a;
} KeySortCtx;

static int cmp_groups(const void *x, const void *y, void *ctx)
{
    const AggOp *a = ((const KeySortCtx *)ctx)->a;
    const Value *kx = ktab_key(&a->tab, *(Group *const *)x);
    const Value *ky = ktab_key(&a->tab, *(Group *const *)y);
    for (int k = 0; k < a->ngroup; k++) {
        int c = op_cell_order(a->key_types[k], &kx[k], &ky[k]);
        if (c) return c;
    }
    return 0;
}

/* Shape header: agg kinds and argument/result types must match the running plan. */
static uint64_t shape_hash(const AggOp *a)
{
    uint64_t h = OP_SHAPE_SEED;
    op_shape_mix(&h, (uint64_t)a->ngroup);
    for (int k = 0; k < a->ngroup; k++) op_shape_mix(&h, a->key_types[k].id);
    return aggacc_shape(&a->acc, h);
}

static bool agg_serialize(const Op *op, StrBuf *sb)
{
    const AggOp *a = (const AggOp *)op;
    bool ttl = ttl_on(&a->ttl);
    op_put_header(sb, AGG_MAGIC, ttl ? AGG_VERSION_TTL : AGG_VERSION, shape_hash(a));
    /* 2 (TTL only): a global aggregate's group expired, no row since */
    op_put_u8(sb, a->initial_pending ? 1 : a->gone ? 2 : 0);
    /* groups sorted by key so the bytes depend only on the state's content */
    Group **gs = xmalloc(sizeof(Group *) * (size_t)(a->tab.count > 0 ? a->tab.count : 1));
    uint32_t pos = 0, n = 0;
    Group *g;
    while ((g = ktab_next(&a->tab, &pos))) gs[n++] = g;
    KeySortCtx kc = {a};
    qsort_r(gs, n, sizeof(Group *), cmp_groups, &kc);
    op_put_u64(sb, n);
    for (uint32_t i = 0; i < n; i++) {
        op_put_row(sb, a->key_types, a->ngroup, ktab_key(&a->tab, gs[i]));
        op_put_i64(sb, gs[i]->nrows);
        if (ttl) op_put_i64(sb, group_tt(a, gs[i])->touch);
        aggacc_put(&a->acc, sb, gs[i]->acc);
    }
    free(gs);
    return true;
}

static bool agg_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    AggOp *a = (AggOp *)op;
    OpReader r = {data, data + len, false}, r0 = r;
    /* with a TTL, version 1 (no update times) restores as updated at the watermark */
    bool with_touch = ttl_on(&a->ttl) && op_get_header(&r, AGG_MAGIC, AGG_VERSION_TTL, shape_hash(a));
    if (!with_touch) r = r0;
    if (!with_touch && !op_get_header(&r, AGG_MAGIC, AGG_VERSION, shape_hash(a))) {
        snprintf(err, errsize, "state of %s: not an aggregate state of this shape", a->state_id);
        return false;
    }
    bool merge = op->route.merge;  /* a merging restore adds to what it has */
    if (!merge) clear_groups(a);
    uint8_t pending = op_get_u8(&r);
    uint64_t n = op_get_u64(&r);
    bool ok = pending <= (with_touch && a->global ? 2 : 1);
    for (uint64_t i = 0; i < n && ok && !r.bad; i++) {
        op_get_row(&r, a->key_types, a->ngroup, a->keybuf);
        if (r.bad) break;
        uint64_t h = ktab_hash(&a->tab, a->keybuf);
        if (ktab_find(&a->tab, a->keybuf, h)) {
            ok = false;
            break;
        }
        Group *g = new_group(a, a->keybuf, h);
        g->nrows = op_get_i64(&r);
        int64_t t = with_touch ? op_get_i64(&r) : op->in_wm;
        ok = aggacc_get(&a->acc, &r, g->acc);
        if (ok && t != INT64_MIN) ttl_touch(&a->ttl, group_tt(a, g), t);
        if (ok && !op_route_keeps_row(op, a->key_types, op->route.out_col, a->keybuf)) free_group(a, g);
    }
    if (!op_get_finish(&r, ok, a->state_id, err, errsize)) {
        clear_groups(a);
        a->initial_pending = a->global;
        a->gone = false;
        ensure_global(a);
        return false;
    }
    if (!merge) {
        a->initial_pending = pending == 1;
        a->gone = pending == 2;
    }
    ensure_global(a);
    return true;
}


/* ---- chunked checkpoints ----
 * Base blob: header (version AGG_VERSION_CHUNKED), the TTL flag, the pending/gone
 * byte, the chunk bits and the group count; the groups are in chunks
 * (op_chunks_save: about 4 groups each, so a checkpoint after 1% of the groups changed
 * at random rewrites about 1 - 0.99^4 = 4% of them), each group as in the one-blob
 * format. */

static void put_group(void *ctx, StrBuf *b, const void *payload)
{
    const AggOp *a = ctx;
    const Group *g = payload;
    op_put_row(b, a->key_types, a->ngroup, ktab_key(&a->tab, g));
    op_put_i64(b, g->nrows);
    if (ttl_on(&a->ttl)) op_put_i64(b, group_tt(a, g)->touch);
    aggacc_put(&a->acc, b, g->acc);
}

static bool agg_save_chunks(Op *op, const char *name, const EngCkptIO *io, char *err, size_t errsize)
{
    AggOp *a = (AggOp *)op;
    /* the chunks first: a full save picks their size, which the base records */
    if (!op_chunks_save(&a->chunks, &a->tab, name, io, put_group, a, err, errsize)) return false;
    StrBuf b = STRBUF_INIT;
    op_put_header(&b, AGG_MAGIC, AGG_VERSION_CHUNKED, shape_hash(a));
    op_put_u8(&b, ttl_on(&a->ttl));
    op_put_u8(&b, a->initial_pending ? 1 : a->gone ? 2 : 0);
    op_put_u8(&b, (uint8_t)a->chunks.bits);
    op_put_u64(&b, a->tab.count);
    bool ok = io->put(io->ctx, name, b.data, b.len, err, errsize);
    sb_free(&b);
    return ok;
}

typedef struct GroupRead {
    AggOp *a;
    bool with_touch;
} GroupRead;

static bool get_group(void *ctx, OpReader *r, uint64_t *hash)
{
    GroupRead *gr = ctx;
    AggOp *a = gr->a;
    op_get_row(r, a->key_types, a->ngroup, a->keybuf);
    if (r->bad) return false;
    *hash = ktab_hash(&a->tab, a->keybuf);
    if (ktab_find(&a->tab, a->keybuf, *hash)) return false;
    Group *g = new_group(a, a->keybuf, *hash);
    g->nrows = op_get_i64(r);
    int64_t t = gr->with_touch ? op_get_i64(r) : a->base.in_wm;
    if (!aggacc_get(&a->acc, r, g->acc)) return false;
    if (t != INT64_MIN) ttl_touch(&a->ttl, group_tt(a, g), t);
    /* a re-partitioning restore: another replica's group is read, then dropped */
    if (!op_route_keeps_row(&a->base, a->key_types, a->base.route.out_col, a->keybuf)) free_group(a, g);
    return true;
}

static bool agg_restore_chunks(Op *op, const char *name, const uint8_t *data, size_t len, EngGetFn get, void *ctx,
                               char *err, size_t errsize)
{
    AggOp *a = (AggOp *)op;
    OpReader r = {data, data + len, false};
    if (!op_get_header(&r, AGG_MAGIC, AGG_VERSION_CHUNKED, shape_hash(a))) return agg_deserialize(op, data, len, err, errsize);
    uint8_t with_touch = op_get_u8(&r), pending = op_get_u8(&r), bits = op_get_u8(&r);
    uint64_t total = op_get_u64(&r);
    bool merge = op->route.merge;  /* a merging restore adds to what it has */
    if (!merge) clear_groups(a);
    GroupRead gr = {a, with_touch == 1};
    bool ok = !r.bad && with_touch <= 1 && pending <= (with_touch && a->global ? 2 : 1) && (!a->global || bits == 0) &&
              op_chunks_restore(&a->chunks, bits, total, name, get, ctx, get_group, &gr);
    if (!op_get_finish(&r, ok, a->state_id, err, errsize)) {
        op_chunks_fini(&a->chunks);
        clear_groups(a);
        a->initial_pending = a->global;
        a->gone = false;
        ensure_global(a);
        return false;
    }
    if (!merge) {
        a->initial_pending = pending == 1;
        a->gone = pending == 2;
    }
    ensure_global(a);
    return true;
}

static void agg_free(Op *op)
{
    AggOp *a = (AggOp *)op;
    op_chunks_fini(&a->chunks);
    /* accumulators whose memory is all in the pool go with it (aggacc_fini), without a
     * walk over every group (cold memory: a miss per group) */
    if (!aggacc_pool_only(&a->acc)) clear_groups(a);
    ttl_reset(&a->ttl);
    ktab_fini(&a->tab);
    aggacc_fini(&a->acc);
    free(a->key_types);
    free(a->keycol);
    free(a->keybuf);
    free(a->touched);
    free(a->hashes);
    free(a->keyok);
    free(a->keys);
    free(a->dirty);
    if (a->deferred) batch_fini(&a->pend);
    op_base_fini(op);
    free(a);
}

static const OpVtbl agg_vt = {
    .kind = "aggregate",
    .step = agg_step,
    .on_watermark = agg_on_watermark,
    .free = agg_free,
    .state_stats = agg_stats,
    .serialize = agg_serialize,
    .deserialize = agg_deserialize,
    .save_chunks = agg_save_chunks,
    .restore_chunks = agg_restore_chunks,
    .emit_current = agg_emit_current,
    .adopt = agg_adopt,
    .can_defer = agg_can_defer,
    .defer = agg_defer,
    .flush = agg_flush,
    .pending = agg_pending,
};

Op *op_aggregate_new(EngPipeline *p, const IrNode *n, Op **inputs)
{
    AggOp *a = xcalloc(1, sizeof *a);
    op_base_init(&a->base, &agg_vt, p, n, inputs, 1);
    const PlanNode *pn = n->plan;
    a->plan = pn;
    a->state_id = n->nstate > 0 ? n->state[0].id : n->op_id;
    a->ngroup = pn->ngroup;
    a->naggs = pn->naggs;
    a->global = pn->ngroup == 0;
    a->initial_pending = a->global;
    bool insert_only = n->inputs[0]->mode == CL_INSERT_ONLY;
    int ng = a->ngroup > 0 ? a->ngroup : 1;
    a->key_types = xmalloc(sizeof(Type) * (size_t)ng);
    a->keycol = xmalloc(sizeof(int) * (size_t)ng);
    a->col_keys = true;
    for (int k = 0; k < a->ngroup; k++) {
        a->key_types[k] = pn->group[k]->type;
        a->keycol[k] = pn->group[k]->kind == EX_COLUMN ? pn->group[k]->col : -1;
        if (a->keycol[k] < 0) a->col_keys = false;
    }
    aggacc_init(&a->acc, pn->aggs, a->naggs, insert_only, a->state_id);
    for (int c = 0; c < a->base.ncols; c++)
        if (type_is_varlen(a->base.out_types[c])) a->out_has_text = true;
    a->ttl.ttl_us = ttl_of_state(n, 0);
    size_t payload = sizeof(Group) + aggacc_bytes(&a->acc);
    if (ttl_on(&a->ttl)) {
        a->tt_off = (payload + 7) & ~(size_t)7;
        payload = a->tt_off + sizeof(TtlItem);
    }
    ktab_init(&a->tab, a->ngroup, a->key_types, payload);
    a->keybuf = xcalloc((size_t)ng, sizeof(Value));
    ensure_global(a);
    /* TTL: groups are stamped by their rows' watermarks */
    if (ttl_on(&a->ttl)) a->base.frontier = FR_JUDGE;
    return &a->base;
}
