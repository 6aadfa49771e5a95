/* `weir run --workers N` over engine replicas (docs/run.md, "Workers"): when the
 * running models are partitionable by a source column (engine/partition.h), N
 * pipelines of the same graph each own a hash range of it. Per step the sources fill
 * the run's own pipeline (r->pipe, which runs no operator) as before; then on the
 * worker pool lane i copies the rows replica i owns into its source batches (a shallow
 * copy: text stays in the source's memory, which lives until the next read) and runs
 * the replica's operators and presentation; back on the calling thread the replicas'
 * dead letters are written in the order one pipeline emits them in, the models'
 * changes are merged into presentation order and handed to the sinks, and the batches
 * are emptied. Every replica sees the same watermarks (set before the step), so
 * lateness, window closes and expiry are decided as with one pipeline. */
#include "runtime/run_internal.h"

#include "base/workpool.h"
#include "engine/partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A dead letter of a replica, kept until the step's end. */
typedef struct HeldDead {
    int pos;                 /* eng_step_position when it was emitted */
    int source;              /* the row is source `source`'s row `index` of the step; -1: */
    int64_t index;           /* a row of the operator's (copied into `row`) */
    int64_t seq;             /* emission order within the replica */
    const char *source_name, *reason;
    RowOrigin origin;
    bool has_origin;
    Value *row;
    const Type *types;
    const PlanColumn *cols;
    int ncols;
    int lane;
} HeldDead;

typedef struct Lane {
    Run *r;
    EngPipeline *p;
    int index;               /* replica index; the rest pipeline's is n */
    bool rest;               /* the pipeline of the models that are not partitioned */
    int **src_index;         /* per source: the step-batch index of each routed row */
    int *src_index_cap;
    HeldDead *dead;
    int ndead, deadcap;
    Arena dead_arena;        /* the held dead letters' text and rows; reset per step */
    bool ok;
    char err[512];
} Lane;

typedef struct RunReplicas {
    int n;
    EngPipeline **reps;
    Lane *lanes;
    EngPartition part;
    bool *in_reps;           /* per model: the replicas run it (and present it) */
    EngPipeline *rest;       /* the wanted models the replicas do not run, or NULL; it
                                recomputes what it reads of theirs and presents only its own */
    Lane rest_lane;
    bool *from_rest;         /* per model: the rest pipeline presents it */
    EngListener listener;
    EngDeadLetterFn dead_letter;
    HeldDead *merged;
    int mergedcap;
    char **prefixes;         /* per replica, then the rest pipeline: its checkpoint blobs'
                                name prefix ("replica/<i>/", "rest/") */
    bool *one_model;         /* run_flush: only the model being flushed */
    int flush_model;
} RunReplicas;

static void hold_dead(void *ctx, const EngDeadLetter *d)
{
    Lane *l = ctx;
    if (l->rest && d->source) {
        /* a model of the replicas that the rest pipeline recomputes: theirs is written */
        const ModelDef *md = project_find_model(l->r->p, d->source);
        if (md && l->r->par->in_reps[md - l->r->p->models]) return;
    }
    if (l->ndead == l->deadcap) {
        l->deadcap = l->deadcap ? l->deadcap * 2 : 64;
        l->dead = xrealloc(l->dead, sizeof(HeldDead) * (size_t)l->deadcap);
    }
    HeldDead *h = &l->dead[l->ndead];
    memset(h, 0, sizeof *h);
    h->pos = eng_step_position(l->p);
    h->seq = l->ndead++;
    h->source = -1;
    h->index = -1;
    h->lane = l->index;
    h->source_name = d->source ? arena_strdup(&l->dead_arena, d->source) : NULL;
    h->reason = d->reason ? arena_strdup(&l->dead_arena, d->reason) : NULL;
    if (d->origin) {
        h->origin = *d->origin;
        h->has_origin = true;
    }
    h->types = d->types;
    h->cols = d->cols;
    h->ncols = d->ncols;
    /* a row of a source batch: remembered by its index in the step's batch, whose row
     * (the same cells) also tells the run's source its origin */
    const Project *proj = l->r->p;
    for (int s = 0; s < proj->nsources && d->row; s++) {
        const Batch *b = eng_source_batch(l->p, s);
        if (!b || b->n == 0 || b->ncols == 0) continue;
        if (d->row < b->vals || d->row >= b->vals + (size_t)b->n * (size_t)b->ncols) continue;
        h->source = s;
        h->index = l->src_index[s][(d->row - b->vals) / b->ncols];
        return;
    }
    if (d->row && d->ncols > 0) {
        h->row = arena_alloc(&l->dead_arena, sizeof(Value) * (size_t)d->ncols);
        for (int c = 0; c < d->ncols; c++) {
            h->row[c] = d->row[c];
            if (type_is_varlen(d->types[c]) && !d->row[c].isnull) {
                char *t = arena_alloc(&l->dead_arena, d->row[c].len + 1);
                memcpy(t, d->row[c].s, d->row[c].len);
                h->row[c].s = t;
            }
        }
    }
}

static int held_cmp(const void *a, const void *b)
{
    const HeldDead *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    /* rows of a source in input order; an operator's own rows after them, by replica */
    bool xs = x->source >= 0, ys = y->source >= 0;
    if (xs != ys) return xs ? -1 : 1;
    if (xs) {
        if (x->source != y->source) return x->source < y->source ? -1 : 1;
        if (x->index != y->index) return x->index < y->index ? -1 : 1;
    }
    /* then rows with an origin by their position in the input (file and line, topic,
     * partition and offset); an operator fed by one source sees them in that order */
    bool xo = x->has_origin && x->origin.where, yo = y->has_origin && y->origin.where;
    if (!xs && !ys && xo != yo) return xo ? -1 : 1;
    if (!xs && !ys && xo) {
        int c = x->origin.where == y->origin.where ? 0 : strcmp(x->origin.where, y->origin.where);
        if (c) return c;
        if (x->origin.partition != y->origin.partition) return x->origin.partition < y->origin.partition ? -1 : 1;
        if (x->origin.line != y->origin.line) return x->origin.line < y->origin.line ? -1 : 1;
    }
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static void lane_init(Lane *l, Run *r, int index, bool rest)
{
    l->r = r;
    l->index = index;
    l->rest = rest;
    arena_init(&l->dead_arena, 4096);
    l->src_index = xcalloc((size_t)r->p->nsources + 1, sizeof(int *));
    l->src_index_cap = xcalloc((size_t)r->p->nsources + 1, sizeof(int));
}

static void lane_fini(Lane *l, int nsources)
{
    if (!l->src_index) return;
    for (int s = 0; s < nsources; s++) free(l->src_index[s]);
    free(l->src_index);
    free(l->src_index_cap);
    free(l->dead);
    arena_fini(&l->dead_arena);
}

/* The wanted models that partition together: the whole selection when it does, else
 * greedily, in project order, each model that still fits with those taken before
 * (twice: a model without keyed state fits once another is in). Returns how many. */
static int choose_partitioned(const IrGraph *g, const bool *wanted, bool *take, char *why, size_t whysize)
{
    int nm = g->nmodels, n = 0;
    EngPartition t;
    bool all = eng_partition_plan(g, wanted, &t);
    snprintf(why, whysize, "%s", t.reason);
    eng_partition_free(&t);
    for (int m = 0; m < nm; m++) {
        take[m] = (!wanted || wanted[m]) && g->models[m].root;
        n += take[m];
    }
    if (all) return n;
    memset(take, 0, sizeof(bool) * (size_t)nm);
    n = 0;
    bool first_reason = true;
    for (int pass = 0; pass < 2; pass++)
        for (int m = 0; m < nm; m++) {
            if (take[m] || (wanted && !wanted[m]) || !g->models[m].root) continue;
            take[m] = true;
            bool ok = eng_partition_plan(g, take, &t);
            if (ok) n++;
            else take[m] = false;
            if (!ok && pass == 1 && first_reason) {
                snprintf(why, whysize, "%s", t.reason);
                first_reason = false;
            }
            eng_partition_free(&t);
        }
    return n;
}

bool run_par_open(Run *r, const EngOptions *eo, int workers, RunSummary *out, char *err, size_t errsize)
{
    out->replicas = 1;
    if (workers <= 1) return true;
    int nm = r->g->nmodels;
    bool *take = xcalloc((size_t)nm + 1, sizeof(bool));
    int ntake = choose_partitioned(r->g, eo->models_wanted, take, out->one_thread_reason,
                                   sizeof out->one_thread_reason);
    if (ntake == 0) {
        free(take);
        return true;
    }
    RunReplicas *par = xcalloc(1, sizeof *par);
    r->par = par;
    eng_partition_plan(r->g, take, &par->part);
    par->n = workers;
    par->listener = eo->listener;
    par->dead_letter = eo->dead_letter;
    par->reps = xcalloc((size_t)workers, sizeof(EngPipeline *));
    par->lanes = xcalloc((size_t)workers, sizeof(Lane));
    par->in_reps = xcalloc((size_t)nm + 1, sizeof(bool));
    par->from_rest = xcalloc((size_t)nm + 1, sizeof(bool));
    for (int i = 0; i < workers; i++) {
        Lane *l = &par->lanes[i];
        lane_init(l, r, i, false);
        EngOptions o = *eo;
        o.models_wanted = take;
        o.listener = NULL;
        o.dead_letter = hold_dead;
        o.dead_letter_ctx = l;
        l->p = par->reps[i] = eng_pipeline_new(r->g, &o, err, errsize);
        if (!l->p) {
            free(take);
            return false;
        }
    }
    int npart = 0, nrest = 0;
    for (int m = 0; m < nm; m++) {
        par->in_reps[m] = eng_model_running(par->reps[0], m);
        bool wanted = !eo->models_wanted || eo->models_wanted[m];
        take[m] = wanted && r->g->models[m].root && !par->in_reps[m]; /* now: the rest */
        npart += wanted && par->in_reps[m];
        nrest += take[m];
    }
    if (nrest > 0) {
        lane_init(&par->rest_lane, r, workers, true);
        EngOptions o = *eo;
        o.models_wanted = take;
        o.listener = NULL;
        o.dead_letter = hold_dead;
        o.dead_letter_ctx = &par->rest_lane;
        par->rest = par->rest_lane.p = eng_pipeline_new(r->g, &o, err, errsize);
        if (!par->rest) {
            free(take);
            return false;
        }
        for (int m = 0; m < nm; m++) par->from_rest[m] = eng_model_running(par->rest, m) && !par->in_reps[m];
    } else {
        out->one_thread_reason[0] = '\0';
    }
    free(take);
    par->prefixes = xcalloc((size_t)workers + 1, sizeof(char *));
    for (int i = 0; i <= workers; i++) {
        StrBuf b = STRBUF_INIT;
        if (i < workers) sb_printf(&b, "replica/%d/", i);
        else sb_printf(&b, "rest/");
        par->prefixes[i] = xstrdup(sb_cstr(&b));
        sb_free(&b);
    }
    out->replicas = workers;
    out->partitioned_models = npart;
    out->one_thread_models = nrest;
    snprintf(out->partition_by, sizeof out->partition_by, "%s", par->part.by);
    return true;
}

const char *run_par_partition_by(const Run *r) { return r->par ? r->par->part.by : NULL; }

bool run_par_restore(Run *r, char *err, size_t errsize)
{
    if (!r->resumed) return true;
    RunReplicas *par = r->par;
    int k = r->ckpt_replicas;
    if (!par) {
        /* one pipeline: the checkpoint's, or its replicas merged */
        if (k == 1) return run_durable_restore_replica(r, r->pipe, "", true, err, errsize);
        r->repartitioned_from = k;
        return run_durable_restore_pipe(r, r->pipe, true, NULL, 0, 1, true, true, "its replicas merged into one pipeline",
                                        err, errsize);
    }
    /* the expired counts go to replica 0 and the rest pipeline (run_state_stats sums
     * them) and to the run's own pipeline (for its normalize states) */
    if (k == par->n && strcmp(r->ckpt_partition_by, par->part.by) == 0) {
        /* the same layout: every pipeline exactly as it was (the next checkpoint can be
         * incremental) */
        bool ok = run_durable_restore_replica(r, r->pipe, "", true, err, errsize);
        for (int i = 0; i < par->n && ok; i++)
            ok = run_durable_restore_replica(r, par->reps[i], par->prefixes[i], i == 0, err, errsize);
        if (ok && par->rest) ok = run_durable_restore_replica(r, par->rest, par->prefixes[par->n], true, err, errsize);
        return ok;
    }
    /* another replica count or routing: each replica takes the entries it owns from all
     * of the checkpoint's state; the run's own pipeline runs no operator */
    r->repartitioned_from = k;
    bool ok = run_durable_restore_pipe(r, r->pipe, false, NULL, 0, 1, true, true, "the run's pipeline", err, errsize);
    for (int i = 0; i < par->n && ok; i++) {
        char what[64];
        snprintf(what, sizeof what, "replica %d of %d", i, par->n);
        ok = run_durable_restore_pipe(r, par->reps[i], true, &par->part, i, par->n, false, i == 0, what, err, errsize);
    }
    if (ok && par->rest)
        ok = run_durable_restore_pipe(r, par->rest, true, NULL, 0, 1, false, true, "the models on one thread", err,
                                      errsize);
    return ok;
}

int run_par_replicas(const Run *r) { return r->par ? r->par->n : 1; }

int run_par_pipelines(Run *r, EngPipeline **pipes, const char **prefixes, int max)
{
    RunReplicas *par = r->par;
    if (!par) return 0;
    int n = 0;
    for (int i = 0; i <= par->n; i++) {
        EngPipeline *p = i < par->n ? par->reps[i] : par->rest;
        if (!p) continue;
        if (n < max) {
            pipes[n] = p;
            prefixes[n] = par->prefixes[i];
        }
        n++;
    }
    return n;
}

void run_set_watermark(Run *r, int source, int64_t wm)
{
    eng_source_watermark(r->pipe, source, wm);
    if (!r->par) return;
    for (int i = 0; i < r->par->n; i++) eng_source_watermark(r->par->reps[i], source, wm);
    if (r->par->rest) eng_source_watermark(r->par->rest, source, wm);
}

static void lane_step(void *arg, int lane)
{
    Run *r = arg;
    RunReplicas *par = r->par;
    Lane *l = &par->lanes[lane];
    const Project *proj = r->p;
    for (int s = 0; s < proj->nsources; s++) {
        const Batch *src = eng_source_batch(r->pipe, s);
        Batch *dst = eng_source_batch(l->p, s);
        int col = par->part.source_col[s];
        if (!src || !dst || src->n == 0 || col < 0) continue;
        eng_partition_route(src, proj->sources[s].columns[col].type, col, lane, par->n, dst, &l->src_index[s],
                            &l->src_index_cap[s]);
    }
    l->ok = eng_step_collect(l->p, l->err, sizeof l->err);
    if (lane != par->n - 1 || !par->rest) return;
    /* the last lane also runs the models that are not partitioned, over every row */
    Lane *rl = &par->rest_lane;
    for (int s = 0; s < proj->nsources; s++) {
        const Batch *src = eng_source_batch(r->pipe, s);
        Batch *dst = eng_source_batch(rl->p, s);
        if (!src || !dst || src->n == 0) continue;
        eng_partition_route(src, type_make(T_INT8), -1, 0, 1, dst, &rl->src_index[s], &rl->src_index_cap[s]);
    }
    rl->ok = eng_step_collect(rl->p, rl->err, sizeof rl->err);
}

bool run_step(Run *r, char *err, size_t errsize)
{
    RunReplicas *par = r->par;
    if (!par) return eng_step(r->pipe, err, errsize);
    workpool_run(r->decode_pool, par->n, lane_step, r);
    bool ok = true;
    for (int i = 0; i <= par->n && ok; i++) {
        const Lane *l = i < par->n ? &par->lanes[i] : par->rest ? &par->rest_lane : NULL;
        if (l && !l->ok) {
            snprintf(err, errsize, "%s", l->err);
            ok = false;
        }
    }
    if (ok) {
        /* dead letters in the order one pipeline writes them */
        int total = par->rest ? par->rest_lane.ndead : 0;
        for (int i = 0; i < par->n; i++) total += par->lanes[i].ndead;
        if (total > 0) {
            if (total > par->mergedcap) {
                par->mergedcap = total;
                par->merged = xrealloc(par->merged, sizeof(HeldDead) * (size_t)total);
            }
            int k = 0;
            for (int i = 0; i < par->n; i++)
                for (int j = 0; j < par->lanes[i].ndead; j++) par->merged[k++] = par->lanes[i].dead[j];
            for (int j = 0; par->rest && j < par->rest_lane.ndead; j++) par->merged[k++] = par->rest_lane.dead[j];
            qsort(par->merged, (size_t)total, sizeof(HeldDead), held_cmp);
            for (int j = 0; j < total; j++) {
                const HeldDead *h = &par->merged[j];
                EngDeadLetter d = {h->source_name, h->reason, h->has_origin ? &h->origin : NULL, h->row, h->types,
                                   h->cols, h->ncols};
                if (h->source >= 0) d.row = batch_row(eng_source_batch(r->pipe, h->source), (int)h->index);
                par->dead_letter(r, &d);
            }
        }
        ok = eng_present_merged(par->reps, par->n, par->in_reps, par->listener, r, err, errsize);
        if (ok && par->rest) ok = eng_present_merged(&par->rest, 1, par->from_rest, par->listener, r, err, errsize);
    }
    if (par->rest) {
        eng_step_end(par->rest);
        par->rest_lane.ndead = 0;
        arena_reset(&par->rest_lane.dead_arena);
    }
    for (int i = 0; i < par->n; i++) {
        eng_step_end(par->reps[i]);
        par->lanes[i].ndead = 0;
        arena_reset(&par->lanes[i].dead_arena);
    }
    eng_step_end(r->pipe);
    return ok;
}

bool run_defer(Run *r, int m)
{
    RunReplicas *par = r->par;
    bool on;
    if (par && !eng_model_deferrable(r->pipe, m)) {
        /* decided on the whole selection (r->pipe has every running model's operators),
         * as one pipeline decides: a replica may lack the model that reads m */
        on = false;
    } else if (!par) {
        on = eng_defer_model(r->pipe, m);
    } else if (par->in_reps[m]) {
        on = true;
        for (int i = 0; i < par->n; i++) on = eng_defer_model(par->reps[i], m) && on;
    } else if (par->rest && par->from_rest[m]) {
        on = eng_defer_model(par->rest, m);
    } else {
        on = false;
    }
    r->deferred[m] = on;
    return on;
}

static void lane_flush(void *arg, int lane)
{
    Run *r = arg;
    Lane *l = &r->par->lanes[lane];
    l->ok = eng_flush_collect(l->p, r->par->flush_model, l->err, sizeof l->err);
}

bool run_flush(Run *r, int m, char *err, size_t errsize)
{
    if (!r->deferred || !r->deferred[m]) return true;
    RunReplicas *par = r->par;
    if (!par) return eng_flush(r->pipe, m, err, errsize);
    if (!par->one_model) par->one_model = xcalloc((size_t)r->g->nmodels + 1, sizeof(bool));
    memset(par->one_model, 0, sizeof(bool) * (size_t)r->g->nmodels);
    par->one_model[m] = true;
    bool ok = true;
    if (par->in_reps[m]) {
        /* each replica's groups on its lane, then merged into key order */
        par->flush_model = m;
        workpool_run(r->decode_pool, par->n, lane_flush, r);
        for (int i = 0; i < par->n && ok; i++)
            if (!par->lanes[i].ok) {
                snprintf(err, errsize, "%s", par->lanes[i].err);
                ok = false;
            }
        if (ok) ok = eng_present_merged(par->reps, par->n, par->one_model, par->listener, r, err, errsize);
        for (int i = 0; i < par->n; i++) eng_step_end(par->reps[i]);
    } else if (par->rest && par->from_rest[m]) {
        ok = eng_flush_collect(par->rest, m, err, errsize) &&
             eng_present_merged(&par->rest, 1, par->one_model, par->listener, r, err, errsize);
        eng_step_end(par->rest);
    }
    return ok;
}

/* The state of a keyed updating source (eng_state_stats lists it as
 * "source:<name>/changelog_normalize"): it lives in the run's own pipeline. */
static bool is_normalize_state(const char *id) { return strncmp(id, "source:", 7) == 0; }

/* Add the stats of pipeline p to out (n entries, by id); with only_new, only of ids
 * no replica has. */
static void add_stats(EngPipeline *p, EngStateStats *out, int n, bool only_new, EngPipeline *rep0)
{
    int m = eng_state_stats(p, NULL, 0);
    EngStateStats *st = xcalloc((size_t)m + 1, sizeof(EngStateStats));
    m = eng_state_stats(p, st, m);
    int m0 = only_new ? eng_state_stats(rep0, NULL, 0) : 0;
    EngStateStats *st0 = xcalloc((size_t)m0 + 1, sizeof(EngStateStats));
    m0 = only_new ? eng_state_stats(rep0, st0, m0) : 0;
    for (int i = 0; i < m; i++) {
        bool theirs = false;
        for (int k = 0; k < m0 && !theirs; k++) theirs = strcmp(st0[k].id, st[i].id) == 0;
        if (is_normalize_state(st[i].id) || theirs) continue;
        for (int k = 0; k < n; k++)
            if (strcmp(out[k].id, st[i].id) == 0) {
                out[k].entries += st[i].entries;
                out[k].bytes += st[i].bytes;
                out[k].expired += st[i].expired;
                break;
            }
    }
    free(st);
    free(st0);
}

int run_state_stats(Run *r, EngStateStats *out, int max)
{
    /* the run's own pipeline has every state, in order: empty, but for the normalize
     * state of keyed updating sources (kept there, before rows are routed) */
    int n = eng_state_stats(r->pipe, out, max);
    if (!r->par || max <= 0) return n;
    if (n > max) n = max;
    for (int k = 0; k < n; k++)
        if (!is_normalize_state(out[k].id)) out[k].entries = out[k].bytes = out[k].expired = 0;
    for (int i = 0; i < r->par->n; i++) add_stats(r->par->reps[i], out, n, false, NULL);
    if (r->par->rest) add_stats(r->par->rest, out, n, true, r->par->reps[0]);
    return eng_state_stats(r->pipe, NULL, 0);
}

void run_par_close(Run *r)
{
    RunReplicas *par = r->par;
    if (!par) return;
    for (int i = 0; i < par->n; i++) {
        eng_pipeline_free(par->reps[i]);
        lane_fini(&par->lanes[i], r->p->nsources);
    }
    eng_pipeline_free(par->rest);
    lane_fini(&par->rest_lane, r->p->nsources);
    free(par->in_reps);
    free(par->from_rest);
    free(par->reps);
    free(par->lanes);
    free(par->merged);
    for (int i = 0; par->prefixes && i <= par->n; i++) free(par->prefixes[i]);
    free(par->prefixes);
    free(par->one_model);
    eng_partition_free(&par->part);
    free(par);
    r->par = NULL;
}
