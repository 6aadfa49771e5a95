/* Window aggregate: a GROUP BY that includes window_start and/or window_end of a
 * TUMBLE / HOP / SESSION table function (directly below it or through filters). It
 * emits each window's rows once, as insertions, when the operator's input watermark
 * reaches window_end, then frees that window's state (DESIGN.md section 3). When a
 * bounded source ends the watermark becomes INT64_MAX and every window closes.
 *
 * TUMBLE / HOP: the rows below already carry window_start/window_end (one row per
 * window a row belongs to). State: a keyed table of groups (all group keys, window
 * columns included) -> {row count, accumulators}, each group linked into its window
 * (a table window_end -> group list) and the windows in a min-heap by window_end.
 *
 * SESSION: sessions depend on later rows, so the state keeps, per group key (the
 * non-window keys), the events of its open sessions sorted by time: (t, weight,
 * evaluated aggregate arguments). Consecutive events closer than `gap` form one
 * session [first t, last t + gap); a session closes when the watermark reaches its
 * end, and its row is computed then from its events. Keys sit in a min-heap by their
 * earliest possible close. Retractions cancel their events, so sessions stay exact
 * under updating inputs (a retraction can split a session).
 *
 * Lateness: a row is judged against the watermark that held before it in its source
 * (op_judge_wm), whatever else the step holds: it is late when its window is already
 * closed under that watermark: window_end <= watermark (TUMBLE/HOP); for SESSION when
 * it falls before the end of a session of its key that has closed (emitted, or ended
 * by that watermark and emitted at the end of the step), or when its own session
 * [t, t + gap) is closed and it touches no open session of its key (a key remembers
 * the end of its last emitted session until no row could reach it). Late rows
 * (insertions and retractions alike) are counted and sent to the dead letters with
 * reason "late"; nothing is dropped silently. An emitted row's frontier is its window's
 * end - 1: the largest watermark under which it was not emitted yet. */
#include "engine/agg_accum.h"
#include "engine/iheap.h"
#include "engine/keyed_table.h"

#define WAGG_MAGIC 0x5757494eu /* "WWIN" */
#define WAGG_VERSION 1u
#define WAGG_VERSION_CHUNKED 2u /* a base blob and the groups (or session keys) in chunks by hash */

typedef struct WGroup WGroup;
struct WGroup {
    int64_t nrows;
    WGroup *wnext;           /* next group of the same window */
    Acc acc[];
};

typedef struct Win {
    IHeapItem h;             /* key = window_end (microseconds) */
    WGroup *head;
} Win;

/* One buffered session event: time, weight, per aggregate whether it applies and its
 * argument (text copied into the block's tail). */
typedef struct SEvent {
    int64_t t;
    int64_t w;
    uint32_t size;           /* bytes of the block */
    uint32_t pad_;
    Value argv[];            /* naggs arguments, then naggs active flags, then text */
} SEvent;

typedef struct SKey {
    IHeapItem h;             /* key = deadline: earliest possible session close, or when
                                the key may be forgotten */
    int64_t closed_end;      /* end of the last session emitted, INT64_MIN when none */
    int32_t nev, cap;
    SEvent **ev;             /* sorted by t */
} SKey;

typedef struct WAggOp {
    Op base;
    const PlanNode *plan;
    const char *state_id;
    WindowTvfKind kind;
    int ngroup, naggs;
    int ws_k, we_k;          /* group key positions of window_start / window_end, -1 */
    int time_col;            /* SESSION: the time column of the input */
    Type time_type;
    int64_t size, gap;
    AggAccs acc;
    Type *key_types;         /* ngroup */
    int *keycol;
    Value *keybuf;           /* ngroup */
    /* TUMBLE / HOP */
    KTab groups;
    KTab wins;
    /* SESSION */
    KTab skeys;              /* non-window keys -> SKey */
    int nskey;
    int *skey_pos;           /* nskey group positions */
    Type *skey_types;
    Value *skeybuf;
    int64_t ev_bytes;
    int64_t nevents;
    Acc *scratch;            /* naggs accumulators to aggregate a session */
    IHeap heap;
    Value *rowbuf;           /* one output row */
    int64_t late_rows;
    bool col_keys;           /* every group key is a plain column: hash ahead, prefetch */
    uint64_t *hashes;
    int hcap;
    ChunkTrack chunks;       /* incremental checkpoints: which chunks of groups / keys changed */
} WAggOp;

/* The table a checkpoint keeps in chunks: the session keys, or the window groups. */
static inline KTab *state_table(WAggOp *a) { return a->kind == WTVF_SESSION ? &a->skeys : &a->groups; }

/* An entry of the state table goes or changes outside a step's hashing. */
static void mark_entry(WAggOp *a, const void *e)
{
    KTab *t = state_table(a);
    if (a->chunks.dirty) chunk_mark(&a->chunks, ktab_hash(t, ktab_key(t, e)));
}

#define PF_DIST 16

static inline bool *ev_active(const WAggOp *a, SEvent *e) { return (bool *)(e->argv + a->naggs); }

/* ---------- output ---------- */

/* Append keys ++ the accumulators' values as an insertion, text copied (the state it
 * points into is freed right after), for the window that ends at `end`. */
static bool emit_row(WAggOp *a, const Value *keys, const Acc *accs, int64_t end, OpCtx *ctx)
{
    Batch *out = a->base.out;
    if (!aggacc_row(&a->acc, accs, keys, a->ngroup, a->rowbuf, &out->arena, ctx->err, ctx->errsize)) return false;
    op_append_copy(out, a->rowbuf, a->base.out_types, 1);
    if (a->base.need_frontier) batch_set_frontier(out, out->n - 1, op_sat_add(end, -1));
    return true;
}

/* ---------- TUMBLE / HOP ---------- */

static int64_t window_end_us(const WAggOp *a, const Value *keys, bool *ok)
{
    *ok = true;
    if (a->we_k >= 0) {
        const Value *v = &keys[a->we_k];
        if (v->isnull) return *ok = false, 0;
        return op_time_us(a->key_types[a->we_k], v);
    }
    const Value *v = &keys[a->ws_k];
    if (v->isnull) return *ok = false, 0;
    return op_sat_add(op_time_us(a->key_types[a->ws_k], v), a->size);
}

static void link_group(WAggOp *a, WGroup *g, int64_t we)
{
    Value k = value_int(we);
    uint64_t h = ktab_hash(&a->wins, &k);
    bool created;
    Win *w = ktab_upsert(&a->wins, &k, h, &created);
    if (created) {
        iheap_item_init(&w->h);
        iheap_push(&a->heap, &w->h, we);
    }
    g->wnext = w->head;
    w->head = g;
}

static bool close_windows(WAggOp *a, int64_t wm, OpCtx *ctx)
{
    IHeapItem *it;
    while ((it = iheap_min(&a->heap)) && it->key <= wm) {
        Win *w = (Win *)it;
        iheap_remove(&a->heap, it);
        WGroup *g = w->head;
        while (g) {
            WGroup *next = g->wnext;
            if (g->nrows > 0 && !emit_row(a, ktab_key(&a->groups, g), g->acc, it->key, ctx)) return false;
            aggacc_release(&a->acc, g->acc);
            mark_entry(a, g);
            ktab_remove(&a->groups, g);
            g = next;
        }
        ktab_remove(&a->wins, w);
    }
    return true;
}

static void late(WAggOp *a, int i)
{
    a->late_rows++;
    op_dead_letter(&a->base, 0, i, "late");
}

static bool step_windows(WAggOp *a, OpCtx *ctx)
{
    Op *op = &a->base;
    const Batch *in = op->in[0]->out;
    EvalCtx ec = {0};
    ec.arena = &op->out->arena;
    /* the groups table outgrows the caches: hash every row's key first and prefetch
     * the slot a few rows ahead (as the GROUP BY aggregate does) */
    bool pre = a->col_keys && in->n > PF_DIST;
    if (pre) {
        if (in->n > a->hcap) {
            a->hcap = in->n;
            a->hashes = xrealloc(a->hashes, sizeof(uint64_t) * (size_t)a->hcap);
        }
        for (int i = 0; i < in->n; i++) {
            const Value *row = batch_row(in, i);
            for (int k = 0; k < a->ngroup; k++) a->keybuf[k] = row[a->keycol[k]];
            a->hashes[i] = ktab_hash(&a->groups, a->keybuf);
        }
    }
    for (int i = 0; i < in->n; i++) {
        if (pre && i + PF_DIST < in->n) ktab_prefetch_slot(&a->groups, a->hashes[i + PF_DIST]);
        if (pre && i + PF_DIST / 2 < in->n)
            ktab_prefetch_entry(&a->groups, a->hashes[i + PF_DIST / 2], a->groups.payload_off + a->groups.payload_size);
        int64_t w = in->weights[i];
        if (w == 0) continue;
        const Value *row = batch_row(in, i);
        const char *fail = NULL;
        for (int k = 0; k < a->ngroup && !fail; k++) {
            if (a->keycol[k] >= 0) a->keybuf[k] = row[a->keycol[k]];
            else if (!eval_expr(a->plan->group[k], row, &ec, &a->keybuf[k])) fail = ec.err;
        }
        bool ok = true;
        int64_t we = fail ? 0 : window_end_us(a, a->keybuf, &ok);
        if (!fail && !ok) fail = "window bounds are NULL";
        if (!fail && we <= op_judge_wm(op->in_wm, in, i)) {
            late(a, i);
            continue;
        }
        if (!fail) fail = aggacc_eval(&a->acc, row, &ec);
        if (fail) {
            op_dead_letter(op, 0, i, fail);
            continue;
        }
        bool created;
        uint64_t h = pre ? a->hashes[i] : ktab_hash(&a->groups, a->keybuf);
        WGroup *g = ktab_upsert(&a->groups, a->keybuf, h, &created);
        if (created) link_group(a, g, we);
        chunk_mark(&a->chunks, h);
        fail = aggacc_prepare(&a->acc, g->acc, w);
        if (fail) {
            op_dead_letter(op, 0, i, fail);
            continue;
        }
        g->nrows += w;
        if (!aggacc_commit(&a->acc, g->acc, w, ctx->err, ctx->errsize)) return false;
    }
    return true;
}

/* ---------- SESSION ---------- */

static void free_event(WAggOp *a, SEvent *e)
{
    a->ev_bytes -= e->size;
    a->nevents--;
    free(e);
}

/* End of the session of k that starts at event `from` (< k->nev); *last = one past
 * its last event. */
static int64_t session_end(const WAggOp *a, const SKey *k, int from, int *last)
{
    int64_t end = op_sat_add(k->ev[from]->t, a->gap);
    int i = from + 1;
    for (; i < k->nev && k->ev[i]->t < end; i++) {
        int64_t e = op_sat_add(k->ev[i]->t, a->gap);
        if (e > end) end = e;
    }
    *last = i;
    return end;
}

/* End of the first session of k (its events are non-empty). */
static int64_t first_session_end(const WAggOp *a, const SKey *k)
{
    int last;
    return session_end(a, k, 0, &last);
}

static void reschedule(WAggOp *a, SKey *k)
{
    iheap_update(&a->heap, &k->h, k->nev > 0 ? first_session_end(a, k) : op_sat_add(k->closed_end, a->gap));
}

/* First index with ev[i]->t >= t. */
static int lower_bound(const SKey *k, int64_t t)
{
    int lo = 0, hi = k->nev;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (k->ev[mid]->t < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool session_late(const WAggOp *a, const SKey *k, int64_t t, int64_t wm)
{
    if (k && t < k->closed_end) return true;
    /* sessions that ended by wm are closed for this row although they are emitted only
     * at the end of the step: it may neither join them nor fall before their end */
    if (k && k->nev > 0 && k->h.key <= wm) {
        int64_t end = INT64_MIN;
        for (int from = 0, last; from < k->nev; from = last) {
            int64_t e = session_end(a, k, from, &last);
            if (e > wm) break;
            end = e;
        }
        if (t < end) return true;
    }
    if (op_sat_add(t, a->gap) > wm) return false;
    if (!k || k->nev == 0) return true;
    /* an open session absorbs it when some event lies within gap of t */
    int i = lower_bound(k, t);
    if (i < k->nev && k->ev[i]->t - t < a->gap) return false;
    if (i > 0 && t - k->ev[i - 1]->t < a->gap) return false;
    return true;
}

static bool same_event(const WAggOp *a, SEvent *e, const bool *active, const Value *argv)
{
    const bool *ea = ev_active(a, e);
    for (int j = 0; j < a->naggs; j++) {
        if (ea[j] != active[j]) return false;
        if (active[j] && a->acc.specs[j].arg && !op_cell_identical(a->acc.specs[j].argt, &e->argv[j], &argv[j]))
            return false;
    }
    return true;
}

static void add_event(WAggOp *a, SKey *k, int64_t t, int64_t w)
{
    const bool *active = a->acc.active;
    const Value *argv = a->acc.argv;
    int i = lower_bound(k, t);
    for (int m = i; m < k->nev && k->ev[m]->t == t; m++) {
        SEvent *e = k->ev[m];
        if (!same_event(a, e, active, argv)) continue;
        e->w += w;
        if (e->w == 0) {
            free_event(a, e);
            memmove(&k->ev[m], &k->ev[m + 1], sizeof(SEvent *) * (size_t)(k->nev - m - 1));
            k->nev--;
            reschedule(a, k); /* a removal may split a session: recompute */
        }
        return;
    }
    size_t text = 0;
    for (int j = 0; j < a->naggs; j++)
        if (active[j] && a->acc.specs[j].arg && type_is_varlen(a->acc.specs[j].argt)) text += argv[j].len;
    size_t size = sizeof(SEvent) + sizeof(Value) * (size_t)a->naggs + (size_t)a->naggs + text;
    SEvent *e = xmalloc(size);
    e->t = t;
    e->w = w;
    e->size = (uint32_t)size;
    e->pad_ = 0;
    bool *ea = ev_active(a, e);
    char *tp = (char *)(ea + a->naggs);
    for (int j = 0; j < a->naggs; j++) {
        ea[j] = active[j];
        e->argv[j] = active[j] && a->acc.specs[j].arg ? argv[j] : value_null();
        if (active[j] && a->acc.specs[j].arg && type_is_varlen(a->acc.specs[j].argt)) {
            if (argv[j].len) memcpy(tp, argv[j].s, argv[j].len);
            e->argv[j].s = tp;
            tp += argv[j].len;
        }
    }
    if (k->nev == k->cap) {
        int32_t cap = k->cap ? k->cap * 2 : 4;
        a->ev_bytes += (int64_t)sizeof(SEvent *) * (cap - k->cap);
        k->cap = cap;
        k->ev = xrealloc(k->ev, sizeof(SEvent *) * (size_t)k->cap);
    }
    memmove(&k->ev[i + 1], &k->ev[i], sizeof(SEvent *) * (size_t)(k->nev - i));
    k->ev[i] = e;
    k->nev++;
    a->ev_bytes += (int64_t)size;
    a->nevents++;
    /* a new event can only start an earlier session or extend one */
    int64_t end = op_sat_add(t, a->gap);
    if (k->h.idx < 0 || end < k->h.key) iheap_update(&a->heap, &k->h, k->h.idx < 0 ? first_session_end(a, k) : end);
}

static void free_skey(WAggOp *a, SKey *k)
{
    for (int i = 0; i < k->nev; i++) free_event(a, k->ev[i]);
    a->ev_bytes -= (int64_t)sizeof(SEvent *) * k->cap;
    free(k->ev);
    iheap_remove(&a->heap, &k->h);
    ktab_remove(&a->skeys, k);
}

static bool step_sessions(WAggOp *a, OpCtx *ctx)
{
    (void)ctx;
    Op *op = &a->base;
    const Batch *in = op->in[0]->out;
    EvalCtx ec = {0};
    ec.arena = &op->out->arena;
    for (int i = 0; i < in->n; i++) {
        int64_t w = in->weights[i];
        if (w == 0) continue;
        const Value *row = batch_row(in, i);
        const Value *tv = &row[a->time_col];
        if (tv->isnull) {
            op_dead_letter(op, 0, i, "event time is NULL");
            continue;
        }
        int64_t t = op_time_us(a->time_type, tv);
        const char *fail = NULL;
        for (int k = 0; k < a->nskey && !fail; k++) {
            const Expr *g = a->plan->group[a->skey_pos[k]];
            if (g->kind == EX_COLUMN) a->skeybuf[k] = row[g->col];
            else if (!eval_expr(g, row, &ec, &a->skeybuf[k])) fail = ec.err;
        }
        if (!fail) fail = aggacc_eval(&a->acc, row, &ec);
        if (fail) {
            op_dead_letter(op, 0, i, fail);
            continue;
        }
        uint64_t h = ktab_hash(&a->skeys, a->skeybuf);
        SKey *k = ktab_find(&a->skeys, a->skeybuf, h);
        if (session_late(a, k, t, op_judge_wm(op->in_wm, in, i))) {
            late(a, i);
            continue;
        }
        if (!k) {
            bool created;
            k = ktab_upsert(&a->skeys, a->skeybuf, h, &created);
            iheap_item_init(&k->h);
            k->closed_end = INT64_MIN;
        }
        chunk_mark(&a->chunks, h);
        add_event(a, k, t, w);
    }
    return true;
}

/* Emit and drop the sessions of k that end at or before wm. */
static bool close_key_sessions(WAggOp *a, SKey *k, int64_t wm, OpCtx *ctx)
{
    const Value *skey = ktab_key(&a->skeys, k);
    int done = 0;
    while (done < k->nev) {
        int last;
        int64_t end = session_end(a, k, done, &last);
        if (end > wm) break;
        /* aggregate the session's events [done, last) */
        memset(a->scratch, 0, aggacc_bytes(&a->acc));
        int64_t nrows = 0;
        for (int m = done; m < last; m++) {
            SEvent *e = k->ev[m];
            memcpy(a->acc.argv, e->argv, sizeof(Value) * (size_t)a->naggs);
            memcpy(a->acc.active, ev_active(a, e), sizeof(bool) * (size_t)a->naggs);
            const char *fail = aggacc_prepare(&a->acc, a->scratch, e->w);
            if (fail) {
                /* e.g. a sum leaving its type's range: the event cannot count */
                EngDeadLetter dl = {a->base.model_name, fail, NULL, skey, a->skey_types, NULL, a->nskey};
                eng_emit_dead_letter(a->base.p, &dl);
                continue;
            }
            nrows += e->w;
            if (!aggacc_commit(&a->acc, a->scratch, e->w, ctx->err, ctx->errsize)) return false;
        }
        if (nrows > 0) {
            int s = 0;
            for (int g = 0; g < a->ngroup; g++) {
                if (g == a->ws_k) a->keybuf[g] = op_time_value(a->key_types[g], k->ev[done]->t);
                else if (g == a->we_k) a->keybuf[g] = op_time_value(a->key_types[g], end);
                else a->keybuf[g] = skey[s++];
            }
            if (!emit_row(a, a->keybuf, a->scratch, end, ctx)) {
                aggacc_release(&a->acc, a->scratch);
                return false;
            }
        }
        aggacc_release(&a->acc, a->scratch);
        for (int m = done; m < last; m++) free_event(a, k->ev[m]);
        k->closed_end = end;
        done = last;
    }
    if (done > 0) {
        memmove(&k->ev[0], &k->ev[done], sizeof(SEvent *) * (size_t)(k->nev - done));
        k->nev -= done;
    }
    return true;
}

static bool close_sessions(WAggOp *a, int64_t wm, OpCtx *ctx)
{
    IHeapItem *it;
    while ((it = iheap_min(&a->heap)) && it->key <= wm) {
        SKey *k = (SKey *)it;
        mark_entry(a, k);
        if (!close_key_sessions(a, k, wm, ctx)) return false;
        if (k->nev == 0 && op_sat_add(k->closed_end, a->gap) <= wm) {
            free_skey(a, k);
        } else {
            reschedule(a, k);
            if (k->h.key <= wm) break; /* cannot happen: guards against a loop */
        }
    }
    return true;
}

/* ---------- operator ---------- */

static bool wagg_step(Op *op, OpCtx *ctx)
{
    WAggOp *a = (WAggOp *)op;
    return a->kind == WTVF_SESSION ? step_sessions(a, ctx) : step_windows(a, ctx);
}

static bool wagg_on_watermark(Op *op, OpCtx *ctx, int64_t wm)
{
    WAggOp *a = (WAggOp *)op;
    return a->kind == WTVF_SESSION ? close_sessions(a, wm, ctx) : close_windows(a, wm, ctx);
}

static int wagg_stats(const Op *op, EngStateStats *out, int max)
{
    const WAggOp *a = (const WAggOp *)op;
    int64_t common = a->acc.extra_bytes + iheap_bytes(&a->heap);
    if (a->kind == WTVF_SESSION)
        return op_state_stats1(out, max, a->state_id, a->nevents, a->skeys.bytes + a->ev_bytes + common);
    return op_state_stats1(out, max, a->state_id, a->groups.count, a->groups.bytes + a->wins.bytes + common);
}

static void clear_state(WAggOp *a)
{
    void *e;
    uint32_t pos = 0;
    if (a->kind == WTVF_SESSION) {
        while ((e = ktab_next(&a->skeys, &pos))) {
            SKey *k = e;
            for (int i = 0; i < k->nev; i++) free_event(a, k->ev[i]);
            a->ev_bytes -= (int64_t)sizeof(SEvent *) * k->cap;
            free(k->ev);
        }
    } else {
        while ((e = ktab_next(&a->groups, &pos))) aggacc_release(&a->acc, ((WGroup *)e)->acc);
    }
    ktab_clear(&a->groups);
    ktab_clear(&a->wins);
    ktab_clear(&a->skeys);
    iheap_fini(&a->heap);
    op_chunks_fini(&a->chunks);
}

/* ---------- checkpoints ---------- */

static uint64_t shape_hash(const WAggOp *a)
{
    uint64_t h = OP_SHAPE_SEED;
    op_shape_mix(&h, a->kind);
    op_shape_mix(&h, (uint64_t)a->ngroup);
    op_shape_mix(&h, (uint64_t)a->ws_k);
    op_shape_mix(&h, (uint64_t)a->we_k);
    op_shape_mix(&h, (uint64_t)a->size);
    op_shape_mix(&h, (uint64_t)a->gap);
    for (int k = 0; k < a->ngroup; k++) op_shape_mix(&h, a->key_types[k].id);
    return aggacc_shape(&a->acc, h);
}

/* A session key: the key, the end of its last emitted session, its events. */
static void put_skey(const WAggOp *a, StrBuf *sb, const SKey *k)
{
    op_put_row(sb, a->skey_types, a->nskey, ktab_key(&a->skeys, k));
    op_put_i64(sb, k->closed_end);
    op_put_u32(sb, (uint32_t)k->nev);
    for (int m = 0; m < k->nev; m++) {
        SEvent *e = k->ev[m];
        op_put_i64(sb, e->t);
        op_put_i64(sb, e->w);
        const bool *ea = ev_active(a, e);
        for (int j = 0; j < a->naggs; j++) {
            op_put_u8(sb, ea[j]);
            if (ea[j] && a->acc.specs[j].arg) op_put_value(sb, a->acc.specs[j].argt, &e->argv[j]);
        }
    }
}

/* A window group: its keys (the window's among them), row count, accumulators. */
static void put_group(const WAggOp *a, StrBuf *sb, const WGroup *g)
{
    op_put_row(sb, a->key_types, a->ngroup, ktab_key(&a->groups, g));
    op_put_i64(sb, g->nrows);
    aggacc_put(&a->acc, sb, g->acc);
}

static void put_entry(void *ctx, StrBuf *sb, const void *e)
{
    const WAggOp *a = ctx;
    if (a->kind == WTVF_SESSION) put_skey(a, sb, e);
    else put_group(a, sb, e);
}

static bool wagg_serialize(const Op *op, StrBuf *sb)
{
    WAggOp *a = (WAggOp *)op;
    op_put_header(sb, WAGG_MAGIC, WAGG_VERSION, shape_hash(a));
    uint32_t n;
    void **es = op_sorted_entries(state_table(a), NULL, &n);
    op_put_u64(sb, n);
    for (uint32_t i = 0; i < n; i++) put_entry(a, sb, es[i]);
    free(es);
    return true;
}

/* Reads an entry as put_entry wrote it into the state; false when it is malformed or a
 * duplicate. *hash: its key's hash. */
static bool read_entry(WAggOp *a, OpReader *r, uint64_t *hash)
{
    bool created;
    if (a->kind == WTVF_SESSION) {
        op_get_row(r, a->skey_types, a->nskey, a->skeybuf);
        if (r->bad) return false;
        *hash = ktab_hash(&a->skeys, a->skeybuf);
        SKey *k = ktab_upsert(&a->skeys, a->skeybuf, *hash, &created);
        if (!created) return false;
        iheap_item_init(&k->h);
        k->closed_end = op_get_i64(r);
        uint32_t nev = op_get_u32(r);
        int64_t prev = INT64_MIN;
        for (uint32_t m = 0; m < nev && !r->bad; m++) {
            int64_t t = op_get_i64(r), w = op_get_i64(r);
            for (int j = 0; j < a->naggs; j++) {
                uint8_t act = op_get_u8(r);
                if (act > 1) return false;
                a->acc.active[j] = act;
                a->acc.argv[j] = value_null();
                if (act && a->acc.specs[j].arg) op_get_value(r, a->acc.specs[j].argt, &a->acc.argv[j]);
            }
            if (w == 0 || t < prev || r->bad) return false;
            prev = t;
            add_event(a, k, t, w);
        }
        if (r->bad) return false;
        if (k->nev == 0) reschedule(a, k);
        /* a re-partitioning restore: another replica's key is read, then dropped */
        int rk = -1;
        for (int j = 0; j < a->nskey; j++)
            if (a->skey_pos[j] == a->base.route.out_col) rk = j;
        if (!op_route_keeps_row(&a->base, a->skey_types, a->base.route.out_col >= 0 ? rk : -1, ktab_key(&a->skeys, k)))
            free_skey(a, k);
        return true;
    }
    op_get_row(r, a->key_types, a->ngroup, a->keybuf);
    if (r->bad) return false;
    bool wok;
    int64_t we = window_end_us(a, a->keybuf, &wok);
    *hash = ktab_hash(&a->groups, a->keybuf);
    WGroup *g = ktab_upsert(&a->groups, a->keybuf, *hash, &created);
    if (!created || !wok) return false;
    g->nrows = op_get_i64(r);
    if (!aggacc_get(&a->acc, r, g->acc)) return false;
    if (!op_route_keeps_row(&a->base, a->key_types, a->base.route.out_col, ktab_key(&a->groups, g))) {
        /* a re-partitioning restore: another replica's group is read, then dropped */
        aggacc_release(&a->acc, g->acc);
        ktab_remove(&a->groups, g);
        return true;
    }
    link_group(a, g, we);
    return true;
}

static bool wagg_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    WAggOp *a = (WAggOp *)op;
    OpReader r = {data, data + len, false};
    if (!op_get_header(&r, WAGG_MAGIC, WAGG_VERSION, shape_hash(a))) {
        snprintf(err, errsize, "state of %s: not a window aggregate state of this shape", a->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(a);  /* a merging restore adds to what it has */
    uint64_t n = op_get_u64(&r), h;
    bool ok = true;
    for (uint64_t i = 0; i < n && ok && !r.bad; i++) ok = read_entry(a, &r, &h);
    if (!op_get_finish(&r, ok, a->state_id, err, errsize)) {
        clear_state(a);
        return false;
    }
    return true;
}

/* ---- chunked checkpoints ----
 * Base blob: the header (version WAGG_VERSION_CHUNKED), the chunk bits and the entry
 * count; the groups (TUMBLE/HOP) or session keys are in chunks by the hash of their key
 * (op_chunks_save, as the GROUP BY aggregate's groups), each as put_entry writes it. */

static bool wagg_save_chunks(Op *op, const char *name, const EngCkptIO *io, char *err, size_t errsize)
{
    WAggOp *a = (WAggOp *)op;
    /* the chunks first: a full save picks their size, which the base records */
    if (!op_chunks_save(&a->chunks, state_table(a), name, io, put_entry, a, err, errsize)) return false;
    StrBuf b = STRBUF_INIT;
    op_put_header(&b, WAGG_MAGIC, WAGG_VERSION_CHUNKED, shape_hash(a));
    op_put_u8(&b, (uint8_t)a->chunks.bits);
    op_put_u64(&b, state_table(a)->count);
    bool ok = io->put(io->ctx, name, b.data, b.len, err, errsize);
    sb_free(&b);
    return ok;
}

static bool get_entry(void *ctx, OpReader *r, uint64_t *hash) { return read_entry(ctx, r, hash); }

static bool wagg_restore_chunks(Op *op, const char *name, const uint8_t *data, size_t len, EngGetFn get, void *ctx,
                                char *err, size_t errsize)
{
    WAggOp *a = (WAggOp *)op;
    OpReader r = {data, data + len, false};
    if (!op_get_header(&r, WAGG_MAGIC, WAGG_VERSION_CHUNKED, shape_hash(a)))
        return wagg_deserialize(op, data, len, err, errsize);  /* a one-blob state (of an older weir) */
    uint8_t bits = op_get_u8(&r);
    uint64_t total = op_get_u64(&r);
    if (r.bad) {
        snprintf(err, errsize, "state of %s: not a window aggregate state of this shape", a->state_id);
        return false;
    }
    if (!op->route.merge) clear_state(a);  /* a merging restore adds to what it has */
    bool ok = op_chunks_restore(&a->chunks, bits, total, name, get, ctx, get_entry, a);
    if (!op_get_finish(&r, ok, a->state_id, err, errsize)) {
        clear_state(a);
        return false;
    }
    return true;
}

static void wagg_free(Op *op)
{
    WAggOp *a = (WAggOp *)op;
    clear_state(a);
    ktab_fini(&a->groups);
    ktab_fini(&a->wins);
    ktab_fini(&a->skeys);
    iheap_fini(&a->heap);
    aggacc_fini(&a->acc);
    free(a->key_types);
    free(a->keycol);
    free(a->keybuf);
    free(a->skey_pos);
    free(a->skey_types);
    free(a->skeybuf);
    free(a->scratch);
    free(a->rowbuf);
    free(a->hashes);
    op_base_fini(op);
    free(a);
}

static const OpVtbl wagg_vt = {
    .kind = "window_aggregate",
    .frontier = FR_JUDGE,
    .step = wagg_step,
    .on_watermark = wagg_on_watermark,
    .free = wagg_free,
    .state_stats = wagg_stats,
    .serialize = wagg_serialize,
    .deserialize = wagg_deserialize,
    .save_chunks = wagg_save_chunks,
    .restore_chunks = wagg_restore_chunks,
};

/* Does e read a column >= first? */
static bool reads_from(const Expr *e, int first)
{
    if (!e) return false;
    if (e->kind == EX_COLUMN && e->col >= first) return true;
    for (int i = 0; i < e->nargs; i++)
        if (reads_from(e->args[i], first)) return true;
    return false;
}

Op *op_window_aggregate_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize)
{
    const PlanNode *pn = n->plan;
    /* find the window TVF below, through filters */
    const IrNode *tvf = n->inputs[0];
    bool filter_reads_window = false;
    while (tvf->plan->kind == PL_FILTER && tvf->ninputs == 1) {
        filter_reads_window |= reads_from(tvf->plan->pred, tvf->plan->ncols - 2);
        tvf = tvf->inputs[0];
    }
    if (tvf->plan->kind != PL_WINDOW_TVF) {
        snprintf(err, errsize, "%s: a window aggregate must read a TUMBLE/HOP/SESSION table function "
                 "(directly or through filters)", n->op_id);
        return NULL;
    }
    const PlanNode *tp = tvf->plan;
    int nin = tp->ncols - 2;
    int ws_k = pn->window_start_key, we_k = pn->window_end_key;
    if ((ws_k >= 0 && (ws_k >= pn->ngroup || pn->group[ws_k]->kind != EX_COLUMN || pn->group[ws_k]->col != nin)) ||
        (we_k >= 0 && (we_k >= pn->ngroup || pn->group[we_k]->kind != EX_COLUMN || pn->group[we_k]->col != nin + 1))) {
        snprintf(err, errsize, "%s: window_start/window_end keys do not name the window columns", n->op_id);
        return NULL;
    }
    if (tp->wtvf == WTVF_SESSION) {
        bool bad = filter_reads_window;
        for (int k = 0; k < pn->ngroup; k++)
            if (k != ws_k && k != we_k && reads_from(pn->group[k], nin)) bad = true;
        for (int j = 0; j < pn->naggs; j++)
            if (reads_from(pn->aggs[j].arg, nin) || reads_from(pn->aggs[j].filter, nin)) bad = true;
        if (bad) {
            snprintf(err, errsize, "%s: SESSION window bounds are known only when the session closes: they can "
                     "be grouped by, not filtered on or aggregated below the GROUP BY", n->op_id);
            return NULL;
        }
    }
    WAggOp *a = xcalloc(1, sizeof *a);
    op_base_init(&a->base, &wagg_vt, p, n, inputs, 1);
    a->plan = pn;
    a->state_id = op_state_id(&a->base, NULL, 0, "");
    a->kind = tp->wtvf;
    a->ngroup = pn->ngroup;
    a->naggs = pn->naggs;
    a->ws_k = ws_k;
    a->we_k = we_k;
    a->time_col = tp->time_col;
    a->time_type = tp->inputs[0]->cols[tp->time_col].type;
    a->size = tp->wtvf == WTVF_HOP || tp->wtvf == WTVF_TUMBLE ? tp->size_us : 0;
    a->gap = tp->gap_us;
    aggacc_init(&a->acc, pn->aggs, pn->naggs, n->inputs[0]->mode == CL_INSERT_ONLY, a->state_id);
    int ng = a->ngroup > 0 ? a->ngroup : 1;
    a->key_types = xmalloc(sizeof(Type) * (size_t)ng);
    a->keycol = xmalloc(sizeof(int) * (size_t)ng);
    a->keybuf = xcalloc((size_t)ng, sizeof(Value));
    a->skey_pos = xmalloc(sizeof(int) * (size_t)ng);
    a->skey_types = xmalloc(sizeof(Type) * (size_t)ng);
    a->skeybuf = xcalloc((size_t)ng, sizeof(Value));
    a->col_keys = true;
    for (int k = 0; k < a->ngroup; k++) {
        a->key_types[k] = pn->group[k]->type;
        a->keycol[k] = pn->group[k]->kind == EX_COLUMN ? pn->group[k]->col : -1;
        if (a->keycol[k] < 0) a->col_keys = false;
        if (k != ws_k && k != we_k) {
            a->skey_pos[a->nskey] = k;
            a->skey_types[a->nskey] = pn->group[k]->type;
            a->nskey++;
        }
    }
    size_t payload = sizeof(WGroup) + aggacc_bytes(&a->acc);
    ktab_init(&a->groups, a->ngroup, a->key_types, payload);
    Type i8 = type_make(T_INT8);
    ktab_init(&a->wins, 1, &i8, sizeof(Win));
    ktab_init(&a->skeys, a->nskey, a->skey_types, sizeof(SKey));
    a->scratch = xcalloc(1, aggacc_bytes(&a->acc) + sizeof(Acc));
    a->rowbuf = xcalloc((size_t)(a->base.ncols > 0 ? a->base.ncols : 1), sizeof(Value));
    (void)errsize;
    return &a->base;
}
