/* The `weir run` driver: wires sources, the engine pipeline, sinks and dead letters
 * together and loops read -> step -> commit (see run.h). Kept thin: decoding lives in
 * the sources, formatting in the sinks, execution in the engine. */
#include "runtime/run_internal.h"

#include "base/jsonw.h"
#include "runtime/deployments.h"

#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool listener(void *ctx, int model, const EngChange *changes, int n, char *err, size_t errsize)
{
    Run *r = ctx;
    if (model < 0 || model >= r->p->nmodels) return true;
    for (int i = 0; i < n; i++) {
        switch (changes[i].op) {
        case CHANGE_INSERT: r->ins[model]++; break;
        case CHANGE_UPDATE: r->upd[model]++; break;
        default: r->del[model]++; break;
        }
    }
    if (!r->sinks[model]) return true;
    if (r->durable) {
        delivery_add(&r->deliv[model], changes, n);  /* delivered with the next checkpoint */
        return true;
    }
    if (r->coal[model] && !r->deferred[model]) {
        coalesce_add(r->coal[model], changes, n);    /* written at the next flush */
        return true;
    }
    /* (a deferred model's changes come at its flush, already one per key since the
     * last one: what the coalescer would emit, in the same order) */
    r->sink_changes[model] += n;
    return sink_write(r->sinks[model], changes, n, err, errsize);
}

typedef struct SinkTarget {
    ConnSink *sink;
    int64_t *count;
} SinkTarget;

static bool to_sink(void *ctx, const EngChange *changes, int n, char *err, size_t errsize)
{
    SinkTarget *t = ctx;
    *t->count += n;
    return sink_write(t->sink, changes, n, err, errsize);
}

/* A coalesced sink's flush: the net change of every key touched since the last one,
 * then the sink's commit (one transaction, one write of the file). */
static bool flush_coalesced(Run *r, int m, double now, char *err, size_t errsize)
{
    Coalescer *c = r->coal[m];
    SinkTarget t = {r->sinks[m], &r->sink_changes[m]};
    if (!coalesce_emit(c, to_sink, &t, err, errsize)) return false;
    coalesce_clear(c);
    r->last_flush[m] = now;
    r->sink_flushes[m]++;
    return sink_commit(r->sinks[m], err, errsize);
}

/* The dead-letter writer of a model (or of a name that is neither a source nor a
 * model: slot nmodels), opened at its first dead letter. */
static DlWriter *model_writer(Run *r, int slot, const char *name)
{
    if (!r->model_dl[slot]) {
        r->model_dl[slot] = dl_open_project(r->p, r->dl_suffix ? arena_printf(&r->p->arena, "%s%s", name, r->dl_suffix) : name,
                                            r->resumed);
        char e2[512];
        if (r->durable && !run_durable_adopt_dl(r, r->model_dl[slot], e2, sizeof e2) && !r->dl_err[0])
            snprintf(r->dl_err, sizeof r->dl_err, "%s", e2);
    }
    return r->model_dl[slot];
}

/* Where source `name` ends when the run follows another store (RunOptions.until_store):
 * that store's position of it; a source it does not read ends where it is now. */
static bool until_position(StateStore *st, const char *name, SrcOptions *so)
{
    StrBuf k = STRBUF_INIT;
    sb_printf(&k, "source/%s", name);
    if (!store_get(st, sb_cstr(&k), &so->until, &so->until_len)) so->until_caught_up = true;
    sb_free(&k);
    return true;
}

static bool upsert(void *ctx, int source, ChangeOp op, const Value *row, const RowOrigin *origin, int64_t frontier,
                   char *err, size_t errsize)
{
    return eng_source_upsert(ctx, source, op, row, origin, frontier, err, errsize);
}

static void dead_letter(void *ctx, const EngDeadLetter *d)
{
    Run *r = ctx;
    DlWriter *w = NULL;
    RowOrigin o;
    const RowOrigin *origin = d->origin;
    const char *name = d->source ? d->source : "unknown";
    for (int i = 0; i < r->nsources && !w; i++) {
        if (strcmp(src_def(r->sources[i])->name, name) != 0) continue;
        w = src_dead_letter_writer(r->sources[i]);
        r->src_engine_dead[i]++;
        if (!origin && src_row_origin(r->sources[i], d->row, &o)) origin = &o;
    }
    if (!w) {
        /* a model's rejection of a row that came straight from a source batch still
         * gets that source's file:line */
        for (int i = 0; i < r->nsources && !origin; i++)
            if (src_row_origin(r->sources[i], d->row, &o)) origin = &o;
        const ModelDef *m = project_find_model(r->p, name);
        int mi = m ? (int)(m - r->p->models) : -1;
        if (mi >= 0) {
            w = model_writer(r, mi, name);
            r->model_dead[mi]++;
        } else {
            /* a name that is neither a source nor a model: still never dropped */
            w = model_writer(r, r->p->nmodels, name);
        }
    }
    char err[512];
    if (!dl_write_row(w, d->reason, origin, d->cols, d->types, d->row, d->ncols, err, sizeof err) && !r->dl_err[0])
        snprintf(r->dl_err, sizeof r->dl_err, "%s", err);
}

/* A run that starts from the beginning rewrites the dead letters of everything it
 * runs: the files of its sources and models go now, so a run that writes none leaves
 * none (files are created again at the first dead letter). */
static bool remove_stale_dead_letters(Run *r, char *err, size_t errsize)
{
    for (int i = 0; i < r->nsources; i++)
        if (!dl_remove_project(r->p, src_def(r->sources[i])->name, err, errsize)) return false;
    for (int m = 0; m < r->p->nmodels; m++)
        if (eng_model_running(r->pipe, m) && !dl_remove_project(r->p, r->p->models[m].name, err, errsize))
            return false;
    return true;
}

static void fmt_count(int64_t v, char *buf, size_t n)
{
    if (v >= 1000000) snprintf(buf, n, "%.2fM", (double)v / 1e6);
    else if (v >= 10000) snprintf(buf, n, "%.1fk", (double)v / 1e3);
    else snprintf(buf, n, "%lld", (long long)v);
}

static void progress_line(Run *r, double t0)
{
    int64_t events = 0, done = 0, total = 0, dead = 0;
    bool all_known = true;
    for (int i = 0; i < r->nsources; i++) {
        const SrcStats *st = src_stats(r->sources[i]);
        events += st->records;
        dead += st->bad;
        int64_t d, t;
        src_progress(r->sources[i], &d, &t);
        if (t <= 0) all_known = false;
        done += d;
        total += t;
    }
    double el = now_s() - t0;
    char ev[32], rate[32], pct[32] = "";
    fmt_count(events, ev, sizeof ev);
    fmt_count(el > 0 ? (int64_t)((double)events / el) : 0, rate, sizeof rate);
    if (all_known && total > 0) snprintf(pct, sizeof pct, "  %3d%%", (int)(100.0 * (double)done / (double)total));
    fprintf(stderr, "\r\033[Kweir run: %s events  %s/s%s  %.1fs%s", ev, rate, pct, el,
            dead ? "  (bad records: see summary)" : "");
    fflush(stderr);
}

/* The end of a step: sinks commit it (durable runs: they wait for the checkpoint;
 * coalesced sinks: their flush interval, or the end of the run with `last`), dead
 * letters are flushed. */
static bool commit_all(Run *r, bool last, char *err, size_t errsize)
{
    double now = now_s();
    for (int m = 0; m < r->p->nmodels && !r->durable; m++) {
        if (!r->sinks[m]) continue;
        if (r->coal[m]) {
            if ((last || now - r->last_flush[m] >= r->flush_every[m]) &&
                (!run_flush(r, m, err, errsize) || !flush_coalesced(r, m, now, err, errsize)))
                return false;
            continue;
        }
        if (!sink_commit(r->sinks[m], err, errsize)) return false;
        r->sink_flushes[m]++;
    }
    for (int i = 0; i < r->nsources; i++) {
        if (!src_flush(r->sources[i], err, errsize)) return false;
        if (!src_commit(r->sources[i], err, errsize)) return false;
    }
    for (int m = 0; m <= r->p->nmodels; m++)
        if (r->model_dl[m] && !dl_flush(r->model_dl[m], err, errsize)) return false;
    if (r->dl_err[0]) {
        snprintf(err, errsize, "%s", r->dl_err);
        return false;
    }
    return true;
}

static void fill_summary(Run *r, RunSummary *out, double t0)
{
    out->nsources = r->nsources;
    out->sources = xcalloc((size_t)r->nsources + 1, sizeof(RunSourceSummary));
    for (int i = 0; i < r->nsources; i++) {
        const SrcStats *st = src_stats(r->sources[i]);
        RunSourceSummary *s = &out->sources[i];
        s->name = xstrdup(src_def(r->sources[i])->name);
        s->events = st->records;
        s->rows = st->rows;
        s->dead_letters = st->dead_letters + r->src_engine_dead[i];
        s->skipped = st->skipped;
        const char *f = dl_path(src_dead_letter_writer(r->sources[i]));
        s->dead_letter_file = f ? xstrdup(f) : NULL;
        out->events_in += s->events;
        out->dead_letters += s->dead_letters;
        out->skipped += s->skipped;
    }
    int nm = 0;
    for (int m = 0; m < r->p->nmodels; m++) nm += r->wanted[m];
    out->models = xcalloc((size_t)nm + 1, sizeof(RunModelSummary));
    for (int m = 0; m < r->p->nmodels; m++) {
        if (!r->wanted[m]) {
            out->dead_letters += r->model_dead[m];
            continue;
        }
        RunModelSummary *ms = &out->models[out->nmodels++];
        ms->name = xstrdup(r->p->models[m].name);
        ms->inserts = r->ins[m];
        ms->updates = r->upd[m];
        ms->deletes = r->del[m];
        ms->dead_letters = r->model_dead[m];
        ms->sink = r->sinks[m] && r->sinks[m]->target ? xstrdup(r->sinks[m]->target) : NULL;
        if (r->durable && r->deliv && r->deliv[m].live) {
            ms->sink_changes = (int64_t)r->deliv[m].delivered;
            ms->sink_flushes = r->deliv[m].deliveries;
            ms->coalesced = r->deliv[m].coal != NULL || r->deferred[m];
        } else if (r->sink_changes) {
            ms->sink_changes = r->sink_changes[m];
            ms->sink_flushes = r->sink_flushes[m];
            ms->coalesced = r->coal[m] != NULL;
        }
        ms->deferred = r->deferred && r->deferred[m];
        const char *f = dl_path(r->model_dl[m]);
        ms->dead_letter_file = f ? xstrdup(f) : NULL;
        out->changes_out += ms->inserts + ms->updates + ms->deletes;
        out->dead_letters += ms->dead_letters;
    }
    if (r->model_dl[r->p->nmodels]) out->dead_letters += dl_count(r->model_dl[r->p->nmodels]);
    if (r->pipe) {
        int n = run_state_stats(r, NULL, 0);
        EngStateStats *st = xcalloc((size_t)n + 1, sizeof(EngStateStats));
        n = run_state_stats(r, st, n);
        out->state = xcalloc((size_t)n + 1, sizeof(RunStateSummary));
        for (int i = 0; i < n; i++) {
            out->state[i].id = xstrdup(st[i].id);
            out->state[i].entries = st[i].entries;
            out->state[i].bytes = st[i].bytes;
            out->state[i].expired = st[i].expired;
        }
        out->nstate = n;
        free(st);
    }
    out->durable = r->durable;
    out->resumed_from = r->resumed ? (int64_t)r->resumed_from : 0;
    out->checkpoint = r->durable ? (int64_t)r->ckpt : 0;
    out->checkpoints = r->checkpoints;
    out->checkpoint_bytes = r->ckpt_bytes;
    out->checkpoint_s = r->ckpt_seconds;
    out->restore_s = r->restore_seconds;
    out->elapsed_s = now_s() - t0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        out->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                     (double)ru.ru_stime.tv_usec / 1e6;
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        out->cpu_main_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                          (double)ru.ru_stime.tv_usec / 1e6;
    out->events_per_s = out->elapsed_s > 0 ? (double)out->events_in / out->elapsed_s : 0;
}

/* Closes everything; returns false (message in err unless one is there) on a close failure. */
static bool teardown(Run *r, bool ok, char *err, size_t errsize)
{
    char e2[512];
    for (int m = 0; m < r->p->nmodels; m++) {
        if (r->sinks[m] && !sink_close(r->sinks[m], e2, sizeof e2) && ok) {
            snprintf(err, errsize, "%s", e2);
            ok = false;
        }
        r->sinks[m] = NULL;
    }
    for (int i = 0; i < r->nsources; i++) {
        if (!src_close(r->sources[i], e2, sizeof e2) && ok) {
            snprintf(err, errsize, "%s", e2);
            ok = false;
        }
    }
    for (int m = 0; m <= r->p->nmodels; m++) {
        if (r->model_dl[m] && !dl_close(r->model_dl[m], e2, sizeof e2) && ok) {
            snprintf(err, errsize, "%s", e2);
            ok = false;
        }
    }
    run_par_close(r);
    if (r->pipe) eng_pipeline_free(r->pipe);
    workpool_free(r->decode_pool);
    r->decode_pool = NULL;
    run_durable_close(r);
    for (int m = 0; r->coal && m < r->p->nmodels; m++)
        if (r->coal[m]) {
            coalesce_fini(r->coal[m]);
            free(r->coal[m]);
        }
    free(r->coal);
    free(r->flush_every);
    free(r->last_flush);
    free(r->sink_changes);
    free(r->sink_flushes);
    free(r->deferred);
    free(r->sources);
    free(r->sinks);
    free(r->model_dl);
    free(r->ins);
    free(r->upd);
    free(r->del);
    free(r->model_dead);
    free(r->wanted);
    free(r->src_engine_dead);
    return ok;
}

int run_pipeline(Project *p, const IrGraph *g, const RunOptions *opts, RunSummary *out,
                 char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    RunOptions defaults = {0};
    if (!opts) opts = &defaults;
    int batch = opts->batch_size > 0 ? opts->batch_size : 4096;
    double t0 = now_s();
    int code = 0;
    bool ok = true;
    err[0] = '\0';

    /* a signal stops the run gracefully from the start, also while a resumed run
     * makes its checkpoint's deliveries again */
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    stop_requested = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    Run r = {0};
    StateStore *until = NULL;    /* RunOptions.until_store, while the sources open */
    r.p = p;
    r.g = g;
    int nm = p->nmodels;
    r.sinks = xcalloc((size_t)nm + 1, sizeof(ConnSink *));
    r.model_dl = xcalloc((size_t)nm + 1, sizeof(DlWriter *));
    r.ins = xcalloc((size_t)nm + 1, sizeof(int64_t));
    r.upd = xcalloc((size_t)nm + 1, sizeof(int64_t));
    r.del = xcalloc((size_t)nm + 1, sizeof(int64_t));
    r.model_dead = xcalloc((size_t)nm + 1, sizeof(int64_t));
    r.wanted = xcalloc((size_t)nm + 1, sizeof(bool));
    r.sources = xcalloc((size_t)p->nsources + 1, sizeof(ConnSource *));
    r.src_engine_dead = xcalloc((size_t)p->nsources + 1, sizeof(int64_t));
    r.coal = xcalloc((size_t)nm + 1, sizeof(Coalescer *));
    r.flush_every = xcalloc((size_t)nm + 1, sizeof(double));
    r.last_flush = xcalloc((size_t)nm + 1, sizeof(double));
    r.sink_changes = xcalloc((size_t)nm + 1, sizeof(int64_t));
    r.sink_flushes = xcalloc((size_t)nm + 1, sizeof(int64_t));
    r.deferred = xcalloc((size_t)nm + 1, sizeof(bool));
    for (int m = 0; m < nm; m++)
        r.wanted[m] = (!opts->models_wanted || opts->models_wanted[m]) && m < g->nmodels && g->models[m].root;

    /* sinks are checked before anything is opened: a configuration error writes nothing */
    for (int m = 0; m < nm; m++) {
        const SinkDef *sd = p->models[m].sink;
        const char *why;
        if (r.wanted[m] && sd && sd->connector != SINK_NONE && !sink_supported(sd->connector, &why)) {
            snprintf(err, errsize, "model %s: sink connector %s %s", p->models[m].name,
                     sink_connector_name(sd->connector), why);
            code = 2;
            goto done;
        }
    }

    EngOptions eo = {0};
    eo.models_wanted = r.wanted;
    eo.listener = listener;
    eo.listener_ctx = &r;
    eo.dead_letter = dead_letter;
    eo.dead_letter_ctx = &r;
    eo.max_batch_rows = batch;
    r.pipe = eng_pipeline_new(g, &eo, err, errsize);
    if (!r.pipe) {
        code = 2;
        goto done;
    }
    if (run_is_durable(p, r.pipe)) {
        if (opts->models_wanted && !opts->fixed_selection) {
            snprintf(err, errsize, "--select: a run that reads Kafka keeps the state of every model of the project "
                     "and continues it; run it without --select");
            code = 2;
            goto done;
        }
        const char *store = opts->store ? opts->store : deploy_active_name(p);
        r.store_dir = deploy_dir(p, store);
        if (strcmp(store, ".") != 0) r.dl_suffix = arena_printf(&p->arena, "__v%s", store + strlen("deployments/"));
        if (!run_durable_open(&r, opts->fresh, &code, err, errsize)) goto done;
    }

    /* a staged deployment catching up: its sources end where the running one's are */
    if (opts->until_store) {
        until = store_open(deploy_dir(p, opts->until_store), false, false, err, errsize);
        if (!until || !store_read_begin(until, err, errsize)) {
            if (!err[0]) snprintf(err, errsize, "store %s has no checkpoint", opts->until_store);
            code = 3;
            goto done;
        }
    }
    /* --workers: one pool for the run, created before the sources that decode over it */
    int workers = opts->workers > 0 ? opts->workers : workpool_default_lanes();
    out->workers = workers;
    if (workers > 1) r.decode_pool = workpool_new(workers);
    if (!run_par_open(&r, &eo, workers, out, err, errsize) || !run_par_restore(&r, err, errsize)) {
        code = 2;
        goto done;
    }
    out->repartitioned_from = r.repartitioned_from;
    bool stdin_taken = false;
    for (int s = 0; s < p->nsources; s++) {
        if (!eng_source_batch(r.pipe, s)) continue;
        if (p->sources[s].connector == SRC_STDIN) {
            if (stdin_taken) {
                snprintf(err, errsize, "source %s: only one source can read standard input", p->sources[s].name);
                code = 2;
                goto done;
            }
            stdin_taken = true;
        }
        SrcOptions so = {.copy_text = opts->copy_text, .keep_dead_letters = r.resumed, .dead_letter_suffix = r.dl_suffix,
                         .record_origins = !opts->no_origins, .record_frontier = eng_source_needs_frontier(r.pipe, s),
                         .until_caught_up = opts->until_caught_up, .watch_files = r.durable,
                         .decode_pool = r.decode_pool};
        if (r.resumed) so.resume = run_durable_source_position(&r, p->sources[s].name, &so.resume_len);
        if (until && !until_position(until, p->sources[s].name, &so)) {
            snprintf(err, errsize, "source %s: the store %s has no position for it", p->sources[s].name, opts->until_store);
            code = 2;
            goto done;
        }
        bool config_error = false;
        ConnSource *src = src_open(p, s, &so, &config_error, err, errsize);
        if (!src) {
            code = config_error ? 2 : 3;
            goto done;
        }
        r.sources[r.nsources++] = src;
        if (r.durable) run_durable_origin(&r, r.nsources - 1);
    }
    store_close(until);
    until = NULL;

    for (int m = 0; m < nm; m++) {
        const SinkDef *sd = r.durable ? run_durable_sink(&r, m) : p->models[m].sink;
        if (!r.wanted[m] || !sd || sd->connector == SINK_NONE) continue;
        const IrModel *im = &g->models[m];
        ConnSinkSpec spec = {
            .durable = r.durable,
            .resume = r.resumed,
            .model = p->models[m].name,
            .def = sd,
            .cols = im->root->plan->cols,
            .ncols = im->root->plan->ncols,
            .key = im->out_key,
            .nkey = im->nout_key,
        };
        r.sinks[m] = sink_open(p, &spec, err, errsize);
        if (!r.sinks[m]) {
            code = 3;
            goto done;
        }
        bool keyed = run_sink_coalesces(&p->models[m], spec.nkey);
        /* its sink keeps one row per key between flushes: the model need not present
         * every step (engine.h, "deferred output") */
        bool deferred = keyed && run_defer(&r, m);
        if (r.durable) {
            delivery_init(&r.deliv[m], spec.cols, spec.ncols);
            /* (a deferred model's changes come at each checkpoint, already one per key) */
            if (keyed && !deferred) delivery_coalesce(&r.deliv[m], spec.key, spec.nkey);
        } else if (keyed) {
            r.coal[m] = xcalloc(1, sizeof(Coalescer));
            coalesce_init(r.coal[m], spec.cols, spec.ncols, spec.key, spec.nkey);
            /* a run reading standard input waits for lines that may be long in coming:
             * unless the sink says otherwise, what a step computed is written at once */
            r.flush_every[m] = sd->flush_interval_us >= 0 ? (double)sd->flush_interval_us / 1e6
                               : stdin_taken ? 0 : RUN_FLUSH_INTERVAL_S;
            r.last_flush[m] = now_s();
        }
    }
    if (r.durable && !run_durable_resume_outputs(&r, err, errsize)) {
        code = 3;
        goto done;
    }
    if (!r.resumed && !remove_stale_dead_letters(&r, err, errsize)) {
        code = 3;
        goto done;
    }
    /* < 0: a checkpoint after every step */
    double ckpt_interval = opts->checkpoint_interval_s > 0 ? opts->checkpoint_interval_s
                         : opts->checkpoint_interval_s < 0 ? 0 : 10.0;

    out->started = true;
    bool show = opts->progress && isatty(2);
    double last_progress = t0;
    bool finished = r.nsources == 0;
    bool read_failed = false;    /* a source failed between steps (on_error: fail, bad input) */
    /* the tables of lookup joins that end by themselves (a ClickHouse table's snapshot, a
     * file) are read to their end before any other source: the first stream rows see
     * the whole table, whatever the batch size (op_join.c). A table that never ends (a
     * Kafka changelog, a watched directory) is read alongside the stream. */
    bool *table_first = xcalloc((size_t)r.nsources + 1, sizeof(bool));
    for (int i = 0; i < r.nsources; i++)
        table_first[i] = src_bounded(r.sources[i]) && ir_source_is_lookup_table(g, src_index(r.sources[i]));
    while (!finished && !stop_requested) {
        bool tables_pending = false;
        for (int i = 0; i < r.nsources; i++) tables_pending = tables_pending || (table_first[i] && !src_done(r.sources[i]));
        for (int i = 0; i < r.nsources; i++) {
            ConnSource *src = r.sources[i];
            if (src_done(src) || (tables_pending && !table_first[i])) continue;
            Batch *b = eng_source_batch(r.pipe, src_index(src));
            if (src_read_batch(src, b, upsert, r.pipe, batch, err, errsize) < 0) {
                ok = false;
                read_failed = true;
                break;
            }
        }
        if (!ok) break;
        /* the watermarks after the rows just read: the step judges each row by the
         * watermark before it (its frontier) and closes windows once the rows are in */
        finished = true;
        for (int i = 0; i < r.nsources; i++) {
            int64_t wm = src_watermark(r.sources[i]);
            if (wm != INT64_MIN) run_set_watermark(&r, src_index(r.sources[i]), wm);
            if (!src_done(r.sources[i])) finished = false;
        }
        if (!run_step(&r, err, errsize) || !commit_all(&r, false, err, errsize)) {
            ok = false;
            break;
        }
        out->steps++;
        if (r.durable && run_durable_due(&r, ckpt_interval) && !run_durable_checkpoint(&r, err, errsize)) {
            ok = false;
            break;
        }
        if (show && now_s() - last_progress >= 0.5) {
            last_progress = now_s();
            progress_line(&r, t0);
        }
    }
    free(table_first);
    if (ok && finished) {
        /* the end of every bounded input: close its windows */
        for (int i = 0; i < r.nsources; i++)
            if (src_bounded(r.sources[i])) run_set_watermark(&r, src_index(r.sources[i]), INT64_MAX);
        if (!run_step(&r, err, errsize) || !commit_all(&r, true, err, errsize)) ok = false;
        else out->steps++;
    } else if (ok && !r.durable && !commit_all(&r, true, err, errsize)) {
        ok = false;  /* stopped by a signal: what the steps computed is written */
    }
    /* a source that failed between steps: the coalesced sinks still get the steps made
     * before it, as every other sink has them (the failing step is not written) */
    if (!ok && read_failed && !r.durable) {
        char e2[512];
        for (int m = 0; m < nm; m++)
            if (r.coal[m] && (!run_flush(&r, m, e2, sizeof e2) || !flush_coalesced(&r, m, now_s(), e2, sizeof e2)))
                break;
    }
    /* a durable run ends with a checkpoint (also when stopped by a signal) */
    if (ok && r.durable && !run_durable_checkpoint(&r, err, errsize)) ok = false;
    if (show) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    out->interrupted = ok && !finished && stop_requested;
    if (!ok) code = 3;

done:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    store_close(until);
    fill_summary(&r, out, t0);
    if (!teardown(&r, code == 0, err, errsize) && code == 0) code = 3;
    return code;
}

void run_summary_free(RunSummary *s)
{
    if (!s) return;
    for (int i = 0; i < s->nsources; i++) {
        free(s->sources[i].name);
        free(s->sources[i].dead_letter_file);
    }
    for (int i = 0; i < s->nmodels; i++) {
        free(s->models[i].name);
        free(s->models[i].sink);
        free(s->models[i].dead_letter_file);
    }
    for (int i = 0; i < s->nstate; i++) free(s->state[i].id);
    free(s->sources);
    free(s->models);
    free(s->state);
    memset(s, 0, sizeof *s);
}

void run_summary_render_text(const RunSummary *s, StrBuf *out)
{
    sb_printf(out, "%s %lld events in %.2fs (%.0f events/s), %lld changes out",
              s->interrupted ? "stopped:" : "done:", (long long)s->events_in, s->elapsed_s, s->events_per_s,
              (long long)s->changes_out);
    if (s->dead_letters || s->skipped)
        sb_printf(out, ", %lld dead letters, %lld skipped", (long long)s->dead_letters, (long long)s->skipped);
    sb_putc(out, '\n');
    if (s->durable) {
        sb_printf(out, "  checkpoint %lld", (long long)s->checkpoint);
        if (s->resumed_from) sb_printf(out, " (continued from checkpoint %lld)", (long long)s->resumed_from);
        if (s->repartitioned_from)
            sb_printf(out, " (its state of %d replica%s re-partitioned over %d)", s->repartitioned_from,
                      s->repartitioned_from == 1 ? "" : "s", s->replicas > 0 ? s->replicas : 1);
        sb_printf(out, ", %lld written by this run (last %.1f MiB; %.2fs writing, %.2fs restoring)\n",
                  (long long)s->checkpoints, (double)s->checkpoint_bytes / (1024.0 * 1024.0), s->checkpoint_s,
                  s->restore_s);
    }
    if (s->workers > 1 && s->replicas > 1) {
        sb_printf(out, "  workers %d: %d model%s partitioned by %s over %d replicas", s->workers, s->partitioned_models,
                  s->partitioned_models == 1 ? "" : "s", s->partition_by, s->replicas);
        if (s->one_thread_models)
            sb_printf(out, ", %d on one thread (%s)", s->one_thread_models, s->one_thread_reason);
        sb_printf(out, "; sources decoded in parallel");
        sb_putc(out, '\n');
    }
    else if (s->workers > 1)
        sb_printf(out, "  workers %d: sources decoded in parallel; operators run on one thread (%s)\n", s->workers,
                  s->one_thread_reason[0] ? s->one_thread_reason : "not partitioned");
    for (int i = 0; i < s->nsources; i++) {
        const RunSourceSummary *x = &s->sources[i];
        sb_printf(out, "  source %-28s %12lld events", x->name, (long long)x->events);
        if (x->dead_letters) sb_printf(out, ", %lld dead letters -> %s", (long long)x->dead_letters,
                                       x->dead_letter_file ? x->dead_letter_file : "?");
        if (x->skipped) sb_printf(out, ", %lld skipped", (long long)x->skipped);
        sb_putc(out, '\n');
    }
    for (int i = 0; i < s->nmodels; i++) {
        const RunModelSummary *x = &s->models[i];
        sb_printf(out, "  model  %-28s %12lld changes (%lld insert, %lld update, %lld delete)", x->name,
                  (long long)(x->inserts + x->updates + x->deletes), (long long)x->inserts, (long long)x->updates,
                  (long long)x->deletes);
        if (x->sink) sb_printf(out, " -> %s", x->sink);
        if (x->sink && x->coalesced)
            sb_printf(out, " (coalesced per key%s: %lld changes in %lld flush%s)", x->deferred ? ", deferred" : "",
                      (long long)x->sink_changes, (long long)x->sink_flushes, x->sink_flushes == 1 ? "" : "es");
        if (x->dead_letters) sb_printf(out, ", %lld dead letters -> %s", (long long)x->dead_letters,
                                       x->dead_letter_file ? x->dead_letter_file : "?");
        sb_putc(out, '\n');
    }
    for (int i = 0; i < s->nstate; i++) {
        const RunStateSummary *x = &s->state[i];
        sb_printf(out, "  state  %-28s %12lld entries, %.1f MiB", x->id, (long long)x->entries,
                  (double)x->bytes / (1024.0 * 1024.0));
        if (x->entries > 0) sb_printf(out, ", %lld bytes per entry", (long long)(x->bytes / x->entries));
        if (x->expired) sb_printf(out, ", %lld expired", (long long)x->expired);
        sb_putc(out, '\n');
    }
}

static void kstr_or_null(JsonW *w, const char *k, const char *v)
{
    jw_key(w, k);
    if (v) jw_str(w, v);
    else jw_null(w);
}

void run_summary_render_json(const RunSummary *s, StrBuf *out)
{
    JsonW w;
    jw_init(&w, out, true);
    jw_obj(&w);
    jw_kint(&w, "events_in", s->events_in);
    jw_kint(&w, "changes_out", s->changes_out);
    jw_kint(&w, "dead_letters", s->dead_letters);
    jw_kint(&w, "skipped", s->skipped);
    jw_kint(&w, "steps", s->steps);
    jw_kint(&w, "workers", s->workers > 0 ? s->workers : 1);
    jw_kint(&w, "replicas", s->replicas > 0 ? s->replicas : 1);
    if (s->repartitioned_from) jw_kint(&w, "repartitioned_from", s->repartitioned_from);
    if (s->replicas > 1) {
        jw_kint(&w, "partitioned_models", s->partitioned_models);
        jw_kstr(&w, "partitioned_by", s->partition_by);
        jw_kint(&w, "one_thread_models", s->one_thread_models);
        if (s->one_thread_models) jw_kstr(&w, "one_thread_reason", s->one_thread_reason);
    } else if (s->workers > 1) {
        jw_kstr(&w, "one_thread_reason", s->one_thread_reason);
    }
    char num[64];
    snprintf(num, sizeof num, "%.3f", s->elapsed_s);
    jw_key(&w, "elapsed_s");
    jw_raw(&w, num);
    snprintf(num, sizeof num, "%.0f", s->events_per_s);
    jw_key(&w, "events_per_s");
    jw_raw(&w, num);
    snprintf(num, sizeof num, "%.3f", s->cpu_s);
    jw_key(&w, "cpu_s");
    jw_raw(&w, num);
    snprintf(num, sizeof num, "%.3f", s->cpu_main_s);
    jw_key(&w, "cpu_main_s");
    jw_raw(&w, num);
    jw_kbool(&w, "interrupted", s->interrupted);
    jw_kbool(&w, "durable", s->durable);
    jw_kint(&w, "checkpoint", s->checkpoint);
    jw_kint(&w, "resumed_from", s->resumed_from);
    jw_kint(&w, "checkpoints", s->checkpoints);
    jw_kint(&w, "checkpoint_bytes", s->checkpoint_bytes);
    snprintf(num, sizeof num, "%.3f", s->checkpoint_s);
    jw_key(&w, "checkpoint_s");
    jw_raw(&w, num);
    snprintf(num, sizeof num, "%.3f", s->restore_s);
    jw_key(&w, "restore_s");
    jw_raw(&w, num);
    jw_key(&w, "sources");
    jw_arr(&w);
    for (int i = 0; i < s->nsources; i++) {
        const RunSourceSummary *x = &s->sources[i];
        jw_obj(&w);
        jw_kstr(&w, "name", x->name);
        jw_kint(&w, "events", x->events);
        jw_kint(&w, "rows", x->rows);
        jw_kint(&w, "dead_letters", x->dead_letters);
        jw_kint(&w, "skipped", x->skipped);
        kstr_or_null(&w, "dead_letter_file", x->dead_letter_file);
        jw_end_obj(&w);
    }
    jw_end_arr(&w);
    jw_key(&w, "models");
    jw_arr(&w);
    for (int i = 0; i < s->nmodels; i++) {
        const RunModelSummary *x = &s->models[i];
        jw_obj(&w);
        jw_kstr(&w, "name", x->name);
        jw_kint(&w, "inserts", x->inserts);
        jw_kint(&w, "updates", x->updates);
        jw_kint(&w, "deletes", x->deletes);
        jw_kint(&w, "dead_letters", x->dead_letters);
        kstr_or_null(&w, "sink", x->sink);
        jw_kint(&w, "sink_changes", x->sink_changes);
        jw_kint(&w, "sink_flushes", x->sink_flushes);
        jw_kbool(&w, "sink_coalesced", x->coalesced);
        jw_kbool(&w, "sink_deferred", x->deferred);
        kstr_or_null(&w, "dead_letter_file", x->dead_letter_file);
        jw_end_obj(&w);
    }
    jw_end_arr(&w);
    jw_key(&w, "state");
    jw_arr(&w);
    for (int i = 0; i < s->nstate; i++) {
        jw_obj(&w);
        jw_kstr(&w, "id", s->state[i].id);
        jw_kint(&w, "entries", s->state[i].entries);
        jw_kint(&w, "bytes", s->state[i].bytes);
        jw_kint(&w, "bytes_per_entry", s->state[i].entries > 0 ? s->state[i].bytes / s->state[i].entries : 0);
        jw_kint(&w, "expired", s->state[i].expired);
        jw_end_obj(&w);
    }
    jw_end_arr(&w);
    jw_end_obj(&w);
    sb_putc(out, '\n');
}
