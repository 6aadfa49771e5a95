/* Durable runs: a run that reads Kafka keeps its state in the target's state
 * directory and continues where the last run stopped, with every output exactly once.
 *
 * A checkpoint (one transaction of the state store) holds:
 *   meta                 checkpoint id, time, project, step count
 *   pipeline, state/...  the engine's state (eng_checkpoint_save)
 *   replicas             a partitioned run (--workers N): how many engine replicas the
 *                        checkpoint holds; then pipeline and state/... hold the run's own
 *                        pipeline (what the sources fill: watermarks, keyed updating
 *                        sources' state) and replica/<i>/pipeline, replica/<i>/state/...
 *                        (and rest/... for the models run on one thread) each replica's
 *                        share, all taken between the same two steps
 *   source/<name>        every source's position after the records of the checkpoint
 *   dl/<name>            the length of every dead-letter file the run and the runs
 *                        before it wrote (a file this run has not written keeps the
 *                        length the previous checkpoint recorded)
 *   sink/<model>         the model's changes since the previous checkpoint (a delivery)
 *   stats/state          entries and bytes per state id (for weir inspect), then
 *                        RUN_STATS_EXPIRED_MAGIC and every state's expired-entry count
 *                        (what a resumed run counts on from)
 *   manifest             the running project's manifest (what weir plan compares with)
 *   origin/<name>        where the deployment began reading the source (the start of the
 *                        history weir apply replays)
 *   delivered            written after the checkpoint's deliveries are all made: its id
 * Sinks receive their changes only as deliveries, made right after the checkpoint that
 * holds them. After a crash the next run restores the last checkpoint, cuts dead-letter
 * files back to its lengths and, unless `delivered` says they were all made, makes its
 * deliveries again (a delivery made twice has the effect of one for files and SQLite,
 * see SinkOps); records read after that checkpoint are read again.
 * So a crash at any point leaves sinks and dead letters as if the run had stopped
 * right after the checkpoint. */
#include "runtime/run_internal.h"

#include "base/bytes.h"
#include "base/fault.h"
#include "lifecycle/manifest.h"
#include "runtime/deployments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PENDING_LIMIT ((size_t)64 << 20)  /* pending changes beyond this force a checkpoint */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *run_state_dir(Project *p)
{
    return project_path(p, p->target && p->target->state_dir ? p->target->state_dir : ".weir");
}

bool run_source_is_multi_file(Project *p, const SourceDef *def)
{
    if (def->connector != SRC_FILE || !def->path) return false;
    const char *path = project_resolve_env(p, def->path, NULL, 0);
    return path && src_path_is_multi(project_path(p, path));
}

bool run_is_durable(const Project *p, EngPipeline *pipe)
{
    for (int s = 0; s < p->nsources; s++) {
        if (!eng_source_batch(pipe, s)) continue;
        if (p->sources[s].connector == SRC_KAFKA) return true;
        if (run_source_is_multi_file((Project *)p, &p->sources[s])) return true;
    }
    return false;
}

static bool get_blob(void *ctx, const char *name, const void **data, size_t *len)
{
    return store_get(ctx, name, data, len);
}

/* The blobs of one pipeline of a partitioned run, read back: every name under a prefix. */
typedef struct PrefixIO {
    StateStore *store;
    const char *prefix;
    StrBuf name;
} PrefixIO;

static const char *prefixed(PrefixIO *io, const char *name)
{
    sb_clear(&io->name);
    sb_printf(&io->name, "%s%s", io->prefix, name);
    return sb_cstr(&io->name);
}

static bool get_prefixed(void *ctx, const char *name, const void **data, size_t *len)
{
    PrefixIO *io = ctx;
    return store_get(io->store, prefixed(io, name), data, len);
}

#define RUN_MAX_PIPES 1024  /* replicas of a partitioned run, and its rest pipeline */

/* ---- the pipelines' state, serialized in parallel ----
 * With --workers N each pipeline's save (eng_checkpoint_save_inc) runs on a lane of
 * the decode pool into its own buffer: the names and blobs it puts, and the names it
 * deletes. The buffers then go to the store on the calling thread in pipeline order,
 * so the store receives exactly what one save after the other would write. */
typedef struct SavedBlob {
    size_t name, data, len;   /* offsets into PipeSave.buf; len of the blob */
    bool del;
} SavedBlob;

typedef struct PipeSave {
    EngPipeline *pipe;
    const char *prefix;
    StrBuf buf;
    SavedBlob *blobs;
    int nblobs, cap;
    bool ok;
    char err[256];
} PipeSave;

static void save_push(PipeSave *ps, const char *name, const void *data, size_t len, bool del)
{
    if (ps->nblobs == ps->cap) {
        ps->cap = ps->cap ? ps->cap * 2 : 64;
        ps->blobs = xrealloc(ps->blobs, sizeof *ps->blobs * (size_t)ps->cap);
    }
    SavedBlob *b = &ps->blobs[ps->nblobs++];
    b->name = ps->buf.len;
    sb_append(&ps->buf, name, strlen(name) + 1);
    b->data = ps->buf.len;
    if (len) sb_append(&ps->buf, data, len);
    b->len = len;
    b->del = del;
}

static bool save_put(void *ctx, const char *name, const void *data, size_t len, char *err, size_t errsize)
{
    (void)err, (void)errsize;
    save_push(ctx, name, data, len, false);
    return true;
}

static bool save_del(void *ctx, const char *name, char *err, size_t errsize)
{
    (void)err, (void)errsize;
    save_push(ctx, name, NULL, 0, true);
    return true;
}

typedef struct SaveJob {
    PipeSave *saves;
    int n, lanes;
} SaveJob;

static void save_lane(void *arg, int lane)
{
    SaveJob *job = arg;
    for (int i = lane; i < job->n; i += job->lanes) {
        PipeSave *ps = &job->saves[i];
        ps->ok = eng_checkpoint_save_inc(ps->pipe, save_put, save_del, ps, ps->err, sizeof ps->err);
    }
}

/* Saves the np pipelines (pipes[i] under prefixes[i]) into the store: serialized on the
 * decode pool's lanes when the run has one, written in order. */
static bool save_pipelines(Run *r, EngPipeline **pipes, const char **prefixes, int np, char *err, size_t errsize)
{
    PipeSave *saves = xcalloc((size_t)np, sizeof *saves);
    for (int i = 0; i < np; i++) {
        saves[i].pipe = pipes[i];
        saves[i].prefix = prefixes[i];
    }
    SaveJob job = {saves, np, 1};
    if (r->decode_pool && np > 1) {
        job.lanes = workpool_lanes(r->decode_pool) < np ? workpool_lanes(r->decode_pool) : np;
        workpool_run(r->decode_pool, job.lanes, save_lane, &job);
    } else {
        save_lane(&job, 0);
    }
    bool ok = true;
    StrBuf name = STRBUF_INIT;
    for (int i = 0; i < np && ok; i++) {
        PipeSave *ps = &saves[i];
        if (!ps->ok) {
            snprintf(err, errsize, "%s", ps->err);
            ok = false;
            break;
        }
        for (int k = 0; k < ps->nblobs && ok; k++) {
            const SavedBlob *b = &ps->blobs[k];
            sb_clear(&name);
            sb_printf(&name, "%s%s", ps->prefix, ps->buf.data + b->name);
            if (b->del) {
                ok = store_del(r->store, sb_cstr(&name), err, errsize);
            } else {
                r->ckpt_bytes += (int64_t)b->len;
                ok = store_put(r->store, sb_cstr(&name), ps->buf.data + b->data, b->len, err, errsize);
            }
        }
    }
    sb_free(&name);
    for (int i = 0; i < np; i++) {
        sb_free(&saves[i].buf);
        free(saves[i].blobs);
    }
    free(saves);
    return ok;
}

/* Every pipeline whose state a checkpoint holds: r->pipe (prefix "") and, in a
 * partitioned run, each replica. Returns how many (arrays of RUN_MAX_PIPES + 1). */
static int all_pipes(Run *r, EngPipeline **pipes, const char **prefixes)
{
    pipes[0] = r->pipe;
    prefixes[0] = "";
    int n = run_par_pipelines(r, pipes + 1, prefixes + 1, RUN_MAX_PIPES);
    return 1 + (n < RUN_MAX_PIPES ? n : RUN_MAX_PIPES);
}

int run_ckpt_replicas(StateStore *store)
{
    const void *data;
    size_t len;
    if (!store_get(store, "replicas", &data, &len)) return 1;
    ByteReader br = bytes_reader(data, len);
    uint32_t n = bytes_get_u32(&br);
    return br.bad || n < 1 || n > RUN_MAX_PIPES ? 1 : (int)n;
}

/* Begins the write of a checkpoint: an incremental one (the chunks of large state
 * that did not change since the last checkpoint stay; everything else is written
 * again) when the store holds every pipeline's last save, else a full one. */
static bool begin_checkpoint(Run *r, char *err, size_t errsize)
{
    EngPipeline *pipes[RUN_MAX_PIPES + 1];
    const char *prefixes[RUN_MAX_PIPES + 1];
    int np = all_pipes(r, pipes, prefixes), n = 0;
    for (int i = 0; i < np; i++) {
        if (!eng_checkpoint_incremental_ok(pipes[i])) return store_write_begin(r->store, true, err, errsize);
        n += eng_checkpoint_chunk_prefixes(pipes[i], NULL, 0);
    }
    const char **keep = xcalloc((size_t)n + 1, sizeof(char *));
    char **owned = xcalloc((size_t)n + 1, sizeof(char *));
    int k = 0;
    for (int i = 0; i < np; i++) {
        int m = eng_checkpoint_chunk_prefixes(pipes[i], keep + k, n - k);
        for (int j = k; j < k + m; j++) {
            StrBuf b = STRBUF_INIT;
            sb_printf(&b, "%s%s", prefixes[i], keep[j]);
            keep[j] = owned[j] = xstrdup(sb_cstr(&b));
            sb_free(&b);
        }
        k += m;
    }
    bool ok = store_write_begin_keeping(r->store, keep, k, err, errsize);
    for (int j = 0; j < k; j++) free(owned[j]);
    free(owned);
    free(keep);
    return ok;
}

/* The expired-entry counts of the checkpoint's "stats/state" blob: the resumed run
 * counts on from them (a blob written before they were kept has none). */
static void seed_expired(EngPipeline *pipe, const void *data, size_t len)
{
    ByteReader r = bytes_reader(data, len);
    uint32_t n = bytes_get_u32(&r);
    if (r.bad || n > len) return;
    const char **ids = xcalloc((size_t)n + 1, sizeof(char *));
    size_t *lens = xcalloc((size_t)n + 1, sizeof(size_t));
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        ids[i] = bytes_get_str(&r, &lens[i]);
        bytes_get_u64(&r);
        bytes_get_u64(&r);
    }
    if (!r.bad && bytes_get_u32(&r) == RUN_STATS_EXPIRED_MAGIC && !r.bad)
        for (uint32_t i = 0; i < n; i++) {
            int64_t x = (int64_t)bytes_get_u64(&r);
            if (r.bad) break;
            char *id = xstrndup(ids[i], lens[i]);
            eng_seed_expired(pipe, id, x);
            free(id);
        }
    free(ids);
    free(lens);
}

bool run_durable_open(Run *r, bool fresh, int *code, char *err, size_t errsize)
{
    const char *dir = r->store_dir ? r->store_dir : deploy_active_dir(r->p);
    r->store = fresh ? store_open_fresh(dir, err, errsize) : store_open(dir, true, true, err, errsize);
    if (!r->store) {
        *code = 3;
        return false;
    }
    r->durable = true;
    r->last_ckpt_s = mono_s();
    sb_init(&r->manifest);
    manifest_render(r->g, &r->manifest);
    r->deliv = xcalloc((size_t)r->p->nmodels + 1, sizeof(Delivery));
    /* a run that starts over drops the old checkpoint now: if it stopped before its
     * first checkpoint, the next run must not continue the old one on sinks that were
     * cut back to nothing */
    if (fresh) {
        if (store_write_begin(r->store, true, err, errsize) && store_write_commit(r->store, err, errsize)) return true;
        store_write_abort(r->store);
        *code = 3;
        return false;
    }
    double t0 = mono_s();  /* restoring includes verifying the store */
    if (!store_read_begin(r->store, err, errsize)) {
        *code = 3;
        return false;
    }
    const void *data;
    size_t len;
    if (!store_get(r->store, "meta", &data, &len)) return true;  /* no checkpoint yet */
    ByteReader br = bytes_reader(data, len);
    uint32_t magic = bytes_get_u32(&br), version = bytes_get_u32(&br);
    uint64_t id = bytes_get_u64(&br);
    if (br.bad || magic != RUN_META_MAGIC || version != RUN_META_VERSION) {
        snprintf(err, errsize, "the checkpoint in %s is of an unknown format; start over with --fresh", dir);
        *code = 2;
        return false;
    }
    r->restore_seconds = mono_s() - t0;  /* the pipelines are restored once they are built (run_par_restore) */
    r->resumed = true;
    r->ckpt = r->resumed_from = id;
    r->ckpt_replicas = run_ckpt_replicas(r->store);
    if (r->ckpt_replicas > 1 && store_get(r->store, "replicas", &data, &len)) {
        ByteReader rb = bytes_reader(data, len);
        bytes_get_u32(&rb);
        size_t n;
        const char *by = bytes_get_str(&rb, &n);
        if (!rb.bad) snprintf(r->ckpt_partition_by, sizeof r->ckpt_partition_by, "%.*s", (int)n, by);
    }
    r->outputs = xcalloc((size_t)r->p->nmodels + 1, sizeof(char *));
    for (int m = 0; m < r->p->nmodels; m++) {
        StrBuf k = STRBUF_INIT;
        sb_printf(&k, "outputs/%s", r->p->models[m].name);
        if (store_get(r->store, sb_cstr(&k), &data, &len)) r->outputs[m] = xstrndup(data, len);
        sb_free(&k);
    }
    return true;
}

bool run_ckpt_restore(StateStore *st, EngPipeline *p, bool state, const EngPartition *part, int replica, int n,
                      bool norms, char *err, size_t errsize)
{
    int k = run_ckpt_replicas(st);
    if (k == 1 && state && !part && norms) return eng_checkpoint_restore(p, get_blob, st, err, errsize);
    /* the sources of operator state: the one pipeline, or every replica and the rest */
    PrefixIO *ios = xcalloc((size_t)k + 2, sizeof(PrefixIO));
    EngCkptSource *src = xcalloc((size_t)k + 2, sizeof(EngCkptSource));
    char **prefixes = xcalloc((size_t)k + 2, sizeof(char *));
    int ns = 0;
    for (int i = 0; state && i <= k; i++) {
        StrBuf b = STRBUF_INIT;
        if (k == 1) sb_puts(&b, "");
        else if (i < k) sb_printf(&b, "replica/%d/", i);
        else sb_puts(&b, "rest/");
        prefixes[ns] = sb_take(&b);
        ios[ns] = (PrefixIO){st, prefixes[ns], STRBUF_INIT};
        const void *d;
        size_t dl;
        if (!get_prefixed(&ios[ns], "pipeline", &d, &dl)) {  /* no rest pipeline */
            sb_free(&ios[ns].name);
            free(prefixes[ns]);
            continue;
        }
        src[ns] = (EngCkptSource){get_prefixed, &ios[ns]};
        ns++;
        if (k == 1) break;
    }
    EngRestorePlan rp = {{get_blob, st}, src, ns, part, replica, n, norms};
    bool ok = eng_checkpoint_restore_plan(p, &rp, err, errsize);
    for (int i = 0; i < ns; i++) {
        sb_free(&ios[i].name);
        free(prefixes[i]);
    }
    free(prefixes);
    free(src);
    free(ios);
    return ok;
}

/* After a restore of pipe: the time spent, its expired-entry counts (seed; the run's
 * totals sum the replicas', so only one replica of a partitioned run takes them); or
 * the message. */
static bool restored(Run *r, EngPipeline *pipe, bool ok, bool seed, const char *what, const char *e2, double t0,
                     char *err, size_t errsize)
{
    r->restore_seconds += mono_s() - t0;
    if (!ok) {
        snprintf(err, errsize, "cannot continue from the checkpoint in %s (%s): %s; `weir plan` shows what changed, "
                 "--fresh starts over", r->store_dir ? r->store_dir : deploy_active_dir(r->p), what, e2);
        return false;
    }
    const void *data;
    size_t len;
    if (seed && store_get(r->store, "stats/state", &data, &len)) seed_expired(pipe, data, len);
    return true;
}

bool run_durable_restore_replica(Run *r, EngPipeline *pipe, const char *prefix, bool seed, char *err, size_t errsize)
{
    PrefixIO io = {r->store, prefix, STRBUF_INIT};
    char e2[512];
    double t0 = mono_s();
    bool ok = eng_checkpoint_restore(pipe, get_prefixed, &io, e2, sizeof e2);
    sb_free(&io.name);
    return restored(r, pipe, ok, seed, prefix[0] ? prefix : "the run's pipeline", e2, t0, err, errsize);
}

bool run_durable_restore_pipe(Run *r, EngPipeline *pipe, bool state, const EngPartition *part, int replica, int n,
                              bool norms, bool seed, const char *what, char *err, size_t errsize)
{
    char e2[512];
    double t0 = mono_s();
    bool ok = run_ckpt_restore(r->store, pipe, state, part, replica, n, norms, e2, sizeof e2);
    return restored(r, pipe, ok, seed, what, e2, t0, err, errsize);
}

const SinkDef *run_durable_sink(Run *r, int m)
{
    const SinkDef *sd = r->p->models[m].sink;
    if (!sd || !r->outputs || !r->outputs[m]) return sd;
    SinkDef *c = ARENA_NEW(&r->p->arena, SinkDef);
    *c = *sd;
    const char *name = arena_strdup(&r->p->arena, r->outputs[m]);
    if (sd->connector == SINK_SQLITE || sd->connector == SINK_POSTGRES || sd->connector == SINK_CLICKHOUSE) c->table = name;
    else if (sd->connector == SINK_KAFKA) c->topic = name;
    else c->path = name;
    return c;
}

bool run_put_outputs(StateStore *store, const Project *p, char *const *names, char *err, size_t errsize)
{
    for (int m = 0; names && m < p->nmodels; m++) {
        if (!names[m]) continue;
        StrBuf k = STRBUF_INIT;
        sb_printf(&k, "outputs/%s", p->models[m].name);
        bool ok = store_put(store, sb_cstr(&k), names[m], strlen(names[m]), err, errsize);
        sb_free(&k);
        if (!ok) return false;
    }
    return true;
}

const void *run_durable_source_position(Run *r, const char *name, size_t *len)
{
    if (!r->resumed) return NULL;
    StrBuf k = STRBUF_INIT;
    sb_printf(&k, "source/%s", name);
    const void *data = NULL;
    if (!store_get(r->store, sb_cstr(&k), &data, len)) data = NULL;
    sb_free(&k);
    return data;
}

static void collect_dl(void *ctx, const char *name, const void *data, size_t len)
{
    Run *r = ctx;
    ByteReader br = bytes_reader(data, len);
    int64_t length = (int64_t)bytes_get_u64(&br);
    if (!bytes_done(&br)) return;
    r->dl_lengths = xrealloc(r->dl_lengths, sizeof(DlLength) * (size_t)(r->ndl_lengths + 1));
    r->dl_lengths[r->ndl_lengths].name = xstrdup(name + 3);  /* after "dl/" */
    r->dl_lengths[r->ndl_lengths].length = length;
    r->ndl_lengths++;
}

void run_durable_origin(Run *r, int i)
{
    if (!r->origins) r->origins = xcalloc((size_t)r->p->nsources + 1, sizeof(StrBuf));
    StrBuf *o = &r->origins[i];
    sb_clear(o);
    const char *name = src_def(r->sources[i])->name;
    StrBuf k = STRBUF_INIT;
    sb_printf(&k, "origin/%s", name);
    const void *data;
    size_t len;
    if (r->resumed && store_get(r->store, sb_cstr(&k), &data, &len)) sb_append(o, data, len);
    else if (!r->resumed) src_position(r->sources[i], o);
    sb_free(&k);
}

bool run_durable_adopt_dl(Run *r, DlWriter *w, char *err, size_t errsize)
{
    /* checkpoints name a file by its writer's name (a deployment's suffix included) */
    int64_t length = 0;
    for (int i = 0; i < r->ndl_lengths; i++)
        if (strcmp(r->dl_lengths[i].name, dl_name(w)) == 0) length = r->dl_lengths[i].length;
    /* fresh: truncated at the first write, as in any run; resumed: keep what the
     * checkpoint had written */
    if (!r->resumed) return true;
    return dl_resume(w, length, err, errsize);
}

bool run_durable_resume_outputs(Run *r, char *err, size_t errsize)
{
    if (!r->resumed) {
        store_read_end(r->store);
        return true;
    }
    store_foreach(r->store, "dl/", collect_dl, r);
    for (int i = 0; i < r->nsources; i++)
        if (!run_durable_adopt_dl(r, src_dead_letter_writer(r->sources[i]), err, errsize)) return false;
    /* a model's dead-letter file is cut back now, not at its first dead letter: this
     * run may write none, and its checkpoints go on recording the file's length */
    for (int m = 0; m < r->p->nmodels; m++) {
        if (r->model_dl[m]) continue;
        const char *name = r->dl_suffix ? arena_printf(&r->p->arena, "%s%s", r->p->models[m].name, r->dl_suffix)
                                        : r->p->models[m].name;
        for (int i = 0; i < r->ndl_lengths && !r->model_dl[m]; i++) {
            if (strcmp(r->dl_lengths[i].name, name) != 0) continue;
            r->model_dl[m] = dl_open_project(r->p, name, true);
            if (!dl_resume(r->model_dl[m], r->dl_lengths[i].length, err, errsize)) return false;
        }
    }
    bool ok = true;
    const void *data;
    size_t len;
    if (store_get(r->store, "delivered", &data, &len)) {
        ByteReader br = bytes_reader(data, len);
        if (bytes_get_u64(&br) == r->ckpt && bytes_done(&br)) {
            store_read_end(r->store);  /* every delivery of the checkpoint was made */
            return true;
        }
    }
    for (int m = 0; m < r->p->nmodels && ok; m++) {
        if (!r->sinks[m]) continue;
        StrBuf k = STRBUF_INIT;
        sb_printf(&k, "sink/%s", r->p->models[m].name);
        if (store_get(r->store, sb_cstr(&k), &data, &len))
            ok = delivery_apply_blob(&r->deliv[m], r->sinks[m], data, len, err, errsize);
        sb_free(&k);
    }
    store_read_end(r->store);
    return ok;
}

bool run_durable_due(const Run *r, double interval_s)
{
    size_t pending = 0;
    for (int m = 0; m < r->p->nmodels; m++)
        if (r->sinks[m]) pending += delivery_bytes(&r->deliv[m]);
    return pending >= PENDING_LIMIT || mono_s() - r->last_ckpt_s >= interval_s;
}

static bool put_length(Run *r, const char *name, int64_t length, char *err, size_t errsize)
{
    StrBuf k = STRBUF_INIT, v = STRBUF_INIT;
    sb_printf(&k, "dl/%s", name);
    bytes_put_u64(&v, (uint64_t)length);
    bool ok = store_put(r->store, sb_cstr(&k), v.data, v.len, err, errsize);
    sb_free(&k);
    sb_free(&v);
    return ok;
}

static bool put_dl_length(Run *r, DlWriter *w, char *err, size_t errsize)
{
    if (!w || !dl_name(w)) return true;
    if (!dl_sync(w, err, errsize)) return false;
    return put_length(r, dl_name(w), dl_length(w), err, errsize);
}

/* Was the length of dead-letter file `name` written by one of this run's writers? */
static bool has_writer(const Run *r, const char *name)
{
    for (int i = 0; i < r->nsources; i++)
        if (strcmp(dl_name(src_dead_letter_writer(r->sources[i])), name) == 0) return true;
    for (int m = 0; m <= r->p->nmodels; m++)
        if (r->model_dl[m] && strcmp(dl_name(r->model_dl[m]), name) == 0) return true;
    return false;
}

static bool put_stats(StateStore *store, const EngStateStats *st, int n, char *err, size_t errsize)
{
    StrBuf v = STRBUF_INIT;
    bytes_put_u32(&v, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        bytes_put_str(&v, st[i].id, strlen(st[i].id));
        bytes_put_u64(&v, (uint64_t)st[i].entries);
        bytes_put_u64(&v, (uint64_t)st[i].bytes);
    }
    bytes_put_u32(&v, RUN_STATS_EXPIRED_MAGIC);
    for (int i = 0; i < n; i++) bytes_put_u64(&v, (uint64_t)st[i].expired);
    bool ok = store_put(store, "stats/state", v.data, v.len, err, errsize);
    sb_free(&v);
    return ok;
}

bool run_put_stats(StateStore *store, EngPipeline *pipe, char *err, size_t errsize)
{
    int n = eng_state_stats(pipe, NULL, 0);
    EngStateStats *st = xcalloc((size_t)n + 1, sizeof(EngStateStats));
    n = eng_state_stats(pipe, st, n);
    bool ok = put_stats(store, st, n, err, errsize);
    free(st);
    return ok;
}

/* The run's "stats/state": a partitioned run's replicas summed per state id. */
static bool put_run_stats(Run *r, char *err, size_t errsize)
{
    int n = run_state_stats(r, NULL, 0);
    EngStateStats *st = xcalloc((size_t)n + 1, sizeof(EngStateStats));
    n = run_state_stats(r, st, n);
    bool ok = put_stats(r->store, st, n, err, errsize);
    free(st);
    return ok;
}

void run_meta_blob(StrBuf *v, uint64_t id, const char *project)
{
    bytes_put_u32(v, RUN_META_MAGIC);
    bytes_put_u32(v, RUN_META_VERSION);
    bytes_put_u64(v, id);
    bytes_put_u64(v, (uint64_t)time(NULL));
    bytes_put_str(v, project ? project : "", project ? strlen(project) : 0);
}

static bool write_checkpoint(Run *r, uint64_t id, uint64_t *bases, char *err, size_t errsize)
{
    StrBuf v = STRBUF_INIT;
    run_meta_blob(&v, id, r->p->name);
    bool ok = store_put(r->store, "meta", v.data, v.len, err, errsize);
    EngPipeline *pipes[RUN_MAX_PIPES + 1];
    const char *prefixes[RUN_MAX_PIPES + 1];
    int np = all_pipes(r, pipes, prefixes);
    if (ok) ok = save_pipelines(r, pipes, prefixes, np, err, errsize);
    if (ok && np > 1) {
        sb_clear(&v);
        const char *by = run_par_partition_by(r);
        bytes_put_u32(&v, (uint32_t)run_par_replicas(r));
        bytes_put_str(&v, by, strlen(by));
        ok = store_put(r->store, "replicas", v.data, v.len, err, errsize);
    }
    for (int i = 0; i < r->nsources && ok; i++) {
        sb_clear(&v);
        src_position(r->sources[i], &v);
        StrBuf k = STRBUF_INIT;
        sb_printf(&k, "source/%s", src_def(r->sources[i])->name);
        ok = store_put(r->store, sb_cstr(&k), v.data, v.len, err, errsize);
        if (ok && r->origins && r->origins[i].len) {
            sb_clear(&k);
            sb_printf(&k, "origin/%s", src_def(r->sources[i])->name);
            ok = store_put(r->store, sb_cstr(&k), r->origins[i].data, r->origins[i].len, err, errsize);
        }
        sb_free(&k);
        if (ok) ok = put_dl_length(r, src_dead_letter_writer(r->sources[i]), err, errsize);
    }
    for (int m = 0; m <= r->p->nmodels && ok; m++) ok = put_dl_length(r, r->model_dl[m], err, errsize);
    /* files of earlier runs that no writer of this run has (a name no longer run) */
    for (int i = 0; i < r->ndl_lengths && ok; i++)
        if (!has_writer(r, r->dl_lengths[i].name))
            ok = put_length(r, r->dl_lengths[i].name, r->dl_lengths[i].length, err, errsize);
    for (int m = 0; m < r->p->nmodels && ok; m++) {
        if (!r->sinks[m]) continue;
        bases[m] = sink_delivery_base(r->sinks[m]);
        sb_clear(&v);
        Delivery *d = &r->deliv[m];
        delivery_seal(d);  /* a keyed model's sink: one change per key since the last checkpoint */
        delivery_header(d, id, bases[m], &v);
        StrBuf k = STRBUF_INIT;
        sb_printf(&k, "sink/%s", r->p->models[m].name);
        ok = store_put2(r->store, sb_cstr(&k), v.data, v.len, d->changes.data, d->changes.len, err, errsize);
        r->ckpt_bytes += (int64_t)(v.len + d->changes.len);
        sb_free(&k);
    }
    if (ok) ok = put_run_stats(r, err, errsize);
    if (ok) ok = store_put(r->store, "manifest", r->manifest.data, r->manifest.len, err, errsize);
    if (ok) ok = run_put_outputs(r->store, r->p, r->outputs, err, errsize);
    sb_free(&v);
    return ok;
}

bool run_mark_delivered(StateStore *store, uint64_t id, char *err, size_t errsize)
{
    StrBuf v = STRBUF_INIT;
    bytes_put_u64(&v, id);
    bool ok = store_write_begin(store, false, err, errsize) && store_put(store, "delivered", v.data, v.len, err, errsize) &&
              store_write_commit(store, err, errsize);
    if (!ok) store_write_abort(store);
    sb_free(&v);
    return ok;
}

bool run_durable_checkpoint(Run *r, char *err, size_t errsize)
{
    double t0 = mono_s();
    /* a checkpoint is a flush point: the deferred changes join the deliveries it holds */
    for (int m = 0; m < r->p->nmodels; m++)
        if (!run_flush(r, m, err, errsize)) return false;
    uint64_t id = r->ckpt + 1;
    r->ckpt_bytes = 0;
    uint64_t *bases = xcalloc((size_t)r->p->nmodels + 1, sizeof(uint64_t));
    bool ok = begin_checkpoint(r, err, errsize) && write_checkpoint(r, id, bases, err, errsize);
    if (ok) fault_point("checkpoint-commit");
    ok = ok && store_write_commit(r->store, err, errsize);
    if (!ok) {
        store_write_abort(r->store);
        EngPipeline *pipes[RUN_MAX_PIPES + 1];
        const char *prefixes[RUN_MAX_PIPES + 1];
        int np = all_pipes(r, pipes, prefixes);
        for (int i = 0; i < np; i++) eng_checkpoint_forget(pipes[i]);  /* the store holds the previous checkpoint */
    }
    if (ok) fault_point("checkpoint-committed");
    if (ok) {
        r->ckpt_bytes = store_last_commit_bytes(r->store);  /* what the commit wrote: names, checksums, seal too */
        r->ckpt = id;
        r->checkpoints++;
        r->last_ckpt_s = mono_s();
    }
    /* the checkpoint is durable: deliver it (made again after a crash) */
    for (int m = 0; m < r->p->nmodels && ok; m++) {
        if (!r->sinks[m]) continue;
        ok = delivery_apply_pending(&r->deliv[m], r->sinks[m], id, bases[m], err, errsize);
        delivery_clear(&r->deliv[m]);
    }
    /* all made: a restart need not make them again (it matters for Kafka, where a
     * delivery made twice would be produced twice) */
    if (ok) ok = run_mark_delivered(r->store, id, err, errsize);
    free(bases);
    r->ckpt_seconds += mono_s() - t0;
    return ok;
}

void run_durable_close(Run *r)
{
    if (r->deliv)
        for (int m = 0; m < r->p->nmodels; m++) delivery_fini(&r->deliv[m]);
    free(r->deliv);
    for (int i = 0; i < r->ndl_lengths; i++) free(r->dl_lengths[i].name);
    free(r->dl_lengths);
    sb_free(&r->manifest);
    for (int i = 0; r->origins && i < r->p->nsources; i++) sb_free(&r->origins[i]);
    free(r->origins);
    for (int m = 0; r->outputs && m < r->p->nmodels; m++) free(r->outputs[m]);
    free(r->outputs);
    store_close(r->store);
}
