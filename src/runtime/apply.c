/* weir apply on the native runtime (see apply.h): the old version's pipeline restored
 * from the checkpoint, a replay pipeline of the new version over retained history for
 * what must be rebuilt, the new version's pipeline assembled from both, the sinks'
 * restatements, and one new checkpoint that replaces the old. */
#include "runtime/apply.h"

#include "base/bytes.h"
#include "base/fault.h"
#include "runtime/deployments.h"
#include "runtime/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A blob of the old checkpoint copied out of the store (the store's pages go away when
 * the new checkpoint is written). */
typedef struct Blob {
    char *name;
    void *data;
    size_t len;
} Blob;

typedef struct Apply {
    const RunApplyRequest *q;
    StateStore *st;              /* the store written: the running one, or a staged one */
    StateStore *live;            /* the store read (the running version's) */
    char **outputs;              /* per new model: the physical name its sink writes, NULL:
                                    the configured one */
    int64_t staged_id;
    uint64_t ckpt;               /* the old checkpoint */
    EngPipeline *old, *next, *replay;
    ConnSink **sinks;            /* per new model */
    Delivery *deliv;             /* per new model */
    bool *collect;               /* per new model: take its rows from the replay */
    Blob *carried;               /* source/, origin/, dl/ blobs of the old checkpoint */
    int ncarried;
    RunApplyResult *res;
} Apply;

static int model_index(const IrGraph *g, const char *name)
{
    for (int m = 0; m < g->nmodels; m++)
        if (strcmp(g->project->models[m].name, name) == 0) return m;
    return -1;
}

static bool no_output(void *ctx, int model, const EngChange *changes, int n, char *err, size_t errsize)
{
    (void)ctx; (void)model; (void)changes; (void)n; (void)err; (void)errsize;
    return true;
}

/* ---- the old checkpoint ---- */

static void carry(void *ctx, const char *name, const void *data, size_t len)
{
    Apply *a = ctx;
    a->carried = xrealloc(a->carried, sizeof(Blob) * (size_t)(a->ncarried + 1));
    Blob *b = &a->carried[a->ncarried++];
    b->name = xstrdup(name);
    b->data = xmalloc(len ? len : 1);
    if (len) memcpy(b->data, data, len);
    b->len = len;
}

static const Blob *carried(const Apply *a, const char *name)
{
    for (int i = 0; i < a->ncarried; i++)
        if (strcmp(a->carried[i].name, name) == 0) return &a->carried[i];
    return NULL;
}

/* Make the deliveries of the old checkpoint that an interrupted run or apply left (with
 * the old version's sinks), so the sinks hold exactly what that checkpoint says. */
static bool settle(Apply *a, char *err, size_t errsize)
{
    const void *data;
    size_t len;
    if (store_get(a->st, "delivered", &data, &len)) {
        ByteReader br = bytes_reader(data, len);
        if (bytes_get_u64(&br) == a->ckpt && bytes_done(&br)) return true;
    }
    Project *p = a->q->old_p;
    const IrGraph *g = a->q->old_g;
    bool ok = true;
    for (int m = 0; m < p->nmodels && ok; m++) {
        const SinkDef *sd = p->models[m].sink;
        StrBuf k = STRBUF_INIT;
        sb_printf(&k, "sink/%s", p->models[m].name);
        if (sd && sd->connector != SINK_NONE && g->models[m].root && store_get(a->st, sb_cstr(&k), &data, &len)) {
            const IrModel *im = &g->models[m];
            ConnSinkSpec spec = {.durable = true, .resume = true, .model = p->models[m].name, .def = sd,
                                 .cols = im->root->plan->cols, .ncols = im->root->plan->ncols,
                                 .key = im->out_key, .nkey = im->nout_key};
            ConnSink *sink = sink_open(p, &spec, err, errsize);
            Delivery d;
            delivery_init(&d, spec.cols, spec.ncols);
            ok = sink && delivery_apply_blob(&d, sink, data, len, err, errsize);
            delivery_fini(&d);
            char e2[256];
            if (sink && !sink_close(sink, e2, sizeof e2) && ok) {
                snprintf(err, errsize, "%s", e2);
                ok = false;
            }
        }
        sb_free(&k);
    }
    a->res->settled = true;
    store_read_end(a->st);
    if (ok) ok = run_mark_delivered(a->st, a->ckpt, err, errsize);
    return ok && store_read_begin(a->st, err, errsize);
}

/* ---- the replay ---- */

static bool replay_listener(void *ctx, int model, const EngChange *changes, int n, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    Apply *a = ctx;
    if (model >= 0 && model < a->q->g->nmodels && a->collect[model]) delivery_add(&a->deliv[model], changes, n);
    return true;
}

static bool upsert(void *ctx, int source, ChangeOp op, const Value *row, const RowOrigin *origin, int64_t frontier,
                   char *err, size_t errsize)
{
    return eng_source_upsert(ctx, source, op, row, origin, frontier, err, errsize);
}

/* Run the replay pipeline over every source it reads, from where the deployment began
 * (origin/<name>) to the old checkpoint's position (source/<name>), then bring its
 * watermarks to the old pipeline's, as the original run left them. */
static bool run_replay(Apply *a, const bool *wanted, char *err, size_t errsize)
{
    const RunApplyRequest *q = a->q;
    EngOptions eo = {0};
    eo.models_wanted = wanted;
    eo.listener = replay_listener;
    eo.listener_ctx = a;
    int batch = q->batch_size > 0 ? q->batch_size : 4096;
    eo.max_batch_rows = batch;
    a->replay = eng_pipeline_new(q->g, &eo, err, errsize);
    if (!a->replay) return false;
    ConnSource **srcs = xcalloc((size_t)q->p->nsources + 1, sizeof(ConnSource *));
    int nsrc = 0;
    bool ok = true;
    for (int s = 0; s < q->p->nsources && ok; s++) {
        if (!eng_source_batch(a->replay, s)) continue;
        const char *name = q->p->sources[s].name;
        char key[512];
        snprintf(key, sizeof key, "source/%s", name);
        const Blob *until = carried(a, key);
        if (!until) continue;  /* the old version did not read it: nothing to read again */
        snprintf(key, sizeof key, "origin/%s", name);
        const Blob *origin = carried(a, key);
        SrcOptions so = {.discard_dead_letters = true, .until = until->data, .until_len = until->len,
                         .record_frontier = eng_source_needs_frontier(a->replay, s)};
        if (origin) {
            so.resume = origin->data;
            so.resume_len = origin->len;
        }
        bool config_error = false;
        char e2[768];
        ConnSource *src = src_open(q->p, s, &so, &config_error, e2, sizeof e2);
        if (!src) {
            snprintf(err, errsize, "replaying source %s: %s", name, e2);
            ok = false;
            break;
        }
        srcs[nsrc++] = src;
    }
    bool finished = nsrc == 0;
    while (ok && !finished) {
        for (int i = 0; i < nsrc && ok; i++) {
            if (src_done(srcs[i])) continue;
            int got = src_read_batch(srcs[i], eng_source_batch(a->replay, src_index(srcs[i])), upsert, a->replay, batch,
                                     err, errsize);
            if (got < 0) ok = false;
            else a->res->replayed_records += got;
        }
        /* as in a run: the watermarks after the rows read, before the step */
        finished = true;
        for (int i = 0; i < nsrc && ok; i++) {
            int64_t wm = src_watermark(srcs[i]);
            if (wm != INT64_MIN && wm != INT64_MAX) eng_source_watermark(a->replay, src_index(srcs[i]), wm);
            if (!src_done(srcs[i])) finished = false;
        }
        if (ok) ok = eng_step(a->replay, err, errsize);
    }
    if (ok) {
        /* the watermarks the original run reached (a bounded input's end, idle partitions) */
        eng_adopt_progress(a->replay, a->old);
        ok = eng_step(a->replay, err, errsize);
    }
    for (int i = 0; i < nsrc; i++) {
        char e2[256];
        src_close(srcs[i], e2, sizeof e2);
    }
    free(srcs);
    return ok;
}

/* ---- restating the sinks ---- */

static bool same_sink(const SinkDef *a, const SinkDef *b, const char *ma, const char *mb)
{
    if (!a || !b || a->connector != b->connector || a->format != b->format) return false;
    if ((a->path || b->path) && (!a->path || !b->path || strcmp(a->path, b->path) != 0)) return false;
    if ((a->topic || b->topic) && (!a->topic || !b->topic || strcmp(a->topic, b->topic) != 0)) return false;
    const char *ta = a->table ? a->table : ma, *tb = b->table ? b->table : mb;
    return strcmp(ta, tb) == 0;
}

/* Are model om's rows (old version) comparable with model m's: the same columns, key
 * and sink? Then the sink receives only what changes. */
static bool comparable(const Apply *a, int m, int om)
{
    const IrModel *n = &a->q->g->models[m], *o = &a->q->old_g->models[om];
    if (!o->root || !n->root) return false;
    const PlanNode *np = n->root->plan, *op = o->root->plan;
    if (np->ncols != op->ncols || n->nout_key != o->nout_key) return false;
    for (int c = 0; c < np->ncols; c++)
        if (strcmp(np->cols[c].name, op->cols[c].name) != 0 || !type_equal(np->cols[c].type, op->cols[c].type))
            return false;
    for (int k = 0; k < n->nout_key; k++)
        if (n->out_key[k] != o->out_key[k]) return false;
    return same_sink(a->q->p->models[m].sink, a->q->old_p->models[om].sink, a->q->p->models[m].name,
                     a->q->old_p->models[om].name);
}


static bool to_delivery(void *ctx, int model, const EngChange *changes, int n, char *err, size_t errsize)
{
    (void)model; (void)err; (void)errsize;
    delivery_add(ctx, changes, n);
    return true;
}

static bool restate(Apply *a, int m, char *err, size_t errsize)
{
    const RunApplyRequest *q = a->q;
    const PlanModel *pm = plan_find_model(q->plan, q->p->models[m].name);
    Delivery *d = &a->deliv[m];
    if (q->staged) {
        /* a shadow output starts empty: it receives its whole content (a new versioned
         * topic is empty already: nothing to replace) */
        d->replace = q->p->models[m].sink->connector != SINK_KAFKA;
        return a->collect[m] || eng_model_rows(a->next, m, NULL, to_delivery, d, err, errsize);
    }
    if (!pm || pm->output == OUTPUT_KEEP || pm->output == OUTPUT_LEFT) return true;
    if (pm->output == OUTPUT_REPLAY) {
        d->replace = true;  /* collected from the replay */
        return true;
    }
    int om = model_index(q->old_g, q->p->models[m].name);
    if (om < 0 || !comparable(a, m, om)) {
        d->replace = true;
        return eng_model_rows(a->next, m, NULL, to_delivery, d, err, errsize);
    }
    Batch old;
    batch_init(&old, q->old_g->models[om].root->plan->ncols);
    bool ok = eng_model_rows_batch(a->old, om, &old, err, errsize) &&
              eng_model_rows(a->next, m, &old, to_delivery, d, err, errsize);
    batch_fini(&old);
    return ok;
}

/* ---- the deployment's record ---- */

static void count_one(void *ctx, const char *name, const void *data, size_t len)
{
    (void)name; (void)data; (void)len;
    (*(int64_t *)ctx)++;
}

static int64_t journal_count(StateStore *st)
{
    int64_t n = 0;
    store_foreach(st, STORE_JOURNAL_PREFIX "deployment/", count_one, &n);
    return n;
}

/* journal/deployment/<id, 12 digits>: u32 magic, u64 id, u64 unix time, str mode, u64
 * checkpoint, str status, str the plan's JSON (checkpoint_info.c reads it back). */
static bool put_record(Apply *a, int64_t id, const char *mode, uint64_t ckpt, const char *plan_json, char *err,
                       size_t errsize)
{
    StrBuf v = STRBUF_INIT;
    bytes_put_u32(&v, RUN_DEPLOYMENT_MAGIC);
    bytes_put_u64(&v, (uint64_t)id);
    bytes_put_u64(&v, (uint64_t)time(NULL));
    bytes_put_str(&v, mode, strlen(mode));
    bytes_put_u64(&v, ckpt);
    const char *status = strcmp(mode, "staged") == 0 ? "staged" : "applied";
    bytes_put_str(&v, status, strlen(status));
    bytes_put_str(&v, plan_json ? plan_json : "", plan_json ? strlen(plan_json) : 0);
    char key[128];
    snprintf(key, sizeof key, STORE_JOURNAL_PREFIX "deployment/%012lld", (long long)id);
    bool ok = store_put(a->st, key, v.data, v.len, err, errsize);
    sb_free(&v);
    return ok;
}

/* ---- the new checkpoint ---- */

static bool put_blob(void *ctx, const char *name, const void *data, size_t len, char *err, size_t errsize)
{
    return store_put(ctx, name, data, len, err, errsize);
}

/* The expired-entry counts of the states the new version keeps count on. */
static void carry_expired(EngPipeline *next, EngPipeline *old, const Plan *plan)
{
    int n = eng_state_stats(old, NULL, 0);
    EngStateStats *st = xcalloc((size_t)n + 1, sizeof(EngStateStats));
    n = eng_state_stats(old, st, n);
    for (int i = 0; i < n; i++) {
        const PlanState *ps = plan_find_state(plan, st[i].id);
        if (ps && ps->action != STATE_REPLAY) eng_seed_expired(next, st[i].id, st[i].expired);
    }
    free(st);
}

static bool write_checkpoint(Apply *a, uint64_t id, uint64_t *bases, char *err, size_t errsize)
{
    const RunApplyRequest *q = a->q;
    if (!store_write_begin(a->st, true, err, errsize)) return false;
    int64_t before = journal_count(a->st);
    StrBuf v = STRBUF_INIT;
    run_meta_blob(&v, id, q->p->name);
    bool ok = store_put(a->st, "meta", v.data, v.len, err, errsize) &&
              eng_checkpoint_save(a->next, put_blob, a->st, err, errsize);
    for (int i = 0; i < a->ncarried && ok; i++)
        if (strncmp(a->carried[i].name, "outputs/", 8) != 0)  /* written from a->outputs */
            ok = store_put(a->st, a->carried[i].name, a->carried[i].data, a->carried[i].len, err, errsize);
    for (int m = 0; m < q->p->nmodels && ok; m++) {
        if (!a->sinks[m]) continue;
        bases[m] = sink_delivery_base(a->sinks[m]);
        sb_clear(&v);
        delivery_header(&a->deliv[m], id, bases[m], &v);
        char key[512];
        snprintf(key, sizeof key, "sink/%s", q->p->models[m].name);
        ok = store_put2(a->st, key, v.data, v.len, a->deliv[m].changes.data, a->deliv[m].changes.len, err, errsize);
        a->res->restated_changes += (int64_t)a->deliv[m].n;
    }
    if (ok) ok = run_put_stats(a->st, a->next, err, errsize);
    if (ok) ok = store_put(a->st, "manifest", q->manifest, q->manifest_len, err, errsize);
    if (ok) ok = run_put_outputs(a->st, q->p, a->outputs, err, errsize);
    /* the journal: the version that ran (deployed by weir run) and this one; a staged
     * deployment's record opens the journal of its own store */
    int64_t dep = before + 1;
    if (q->staged) {
        dep = a->staged_id;
    } else if (ok && before == 0) {
        ok = put_record(a, 1, "run", a->ckpt, NULL, err, errsize);
        dep = 2;
    }
    if (ok) ok = put_record(a, dep, q->staged ? "staged" : "direct", id, q->plan_json, err, errsize);
    a->res->deployment = dep;
    sb_free(&v);
    if (ok) ok = store_write_commit(a->st, err, errsize);
    else store_write_abort(a->st);
    return ok;
}

/* ---- the whole ---- */

/* The sink model m writes: a staged deployment's shadow output; the physical name the
 * running store recorded for it when the sink is the same as before; else the config. */
static const SinkDef *physical_sink(Apply *a, int m, int om, const SinkDef *sd)
{
    const RunApplyRequest *q = a->q;
    const char *name = NULL;
    if (q->staged) {
        const char *base = sd->connector == SINK_SQLITE ? (sd->table ? sd->table : q->p->models[m].name)
                           : sd->connector == SINK_KAFKA ? sd->topic
                                                        : sd->path;
        name = deploy_shadow_name(q->p, base, a->staged_id);
    } else if (om >= 0 && same_sink(sd, q->old_p->models[om].sink, q->p->models[m].name, q->old_p->models[om].name)) {
        char key[512];
        snprintf(key, sizeof key, "outputs/%s", q->p->models[m].name);
        const Blob *b = carried(a, key);
        if (b) name = arena_strndup(&q->p->arena, b->data, b->len);
    }
    if (!name) return sd;
    a->outputs[m] = xstrdup(name);
    SinkDef *c = ARENA_NEW(&q->p->arena, SinkDef);
    *c = *sd;
    if (sd->connector == SINK_SQLITE) c->table = a->outputs[m];
    else if (sd->connector == SINK_KAFKA) c->topic = a->outputs[m];
    else c->path = a->outputs[m];
    return c;
}

static bool open_sinks(Apply *a, char *err, size_t errsize)
{
    const RunApplyRequest *q = a->q;
    for (int m = 0; m < q->p->nmodels; m++) {
        const SinkDef *sd = q->p->models[m].sink;
        const IrModel *im = &q->g->models[m];
        if (!sd || sd->connector == SINK_NONE || !im->root) continue;
        const PlanModel *pm = plan_find_model(q->plan, q->p->models[m].name);
        int om = model_index(q->old_g, q->p->models[m].name);
        bool replace = !q->staged && pm &&
                       (pm->output == OUTPUT_REPLAY || (pm->output == OUTPUT_FROM_STATE && (om < 0 || !comparable(a, m, om))));
        sd = physical_sink(a, m, om, sd);
        if (replace && sd->connector == SINK_KAFKA) {
            snprintf(err, errsize, "model %s: its Kafka topic would have to be rewritten (%s); weir apply --staged "
                     "writes a versioned topic", q->p->models[m].name,
                     pm->output == OUTPUT_REPLAY ? "its rows are not kept in state" : "its columns or sink changed");
            return false;
        }
        ConnSinkSpec spec = {.durable = true, .resume = true, .model = q->p->models[m].name, .def = sd,
                             .cols = im->root->plan->cols, .ncols = im->root->plan->ncols,
                             .key = im->out_key, .nkey = im->nout_key};
        a->sinks[m] = sink_open(q->p, &spec, err, errsize);
        if (!a->sinks[m]) return false;
        delivery_init(&a->deliv[m], spec.cols, spec.ncols);
    }
    return true;
}

int run_apply(const RunApplyRequest *q, RunApplyResult *res, char *err, size_t errsize)
{
    memset(res, 0, sizeof *res);
    err[0] = '\0';
    const char *dir = deploy_active_dir(q->p);
    StateStore *probe = store_open(dir, false, false, err, errsize);
    if (!probe) {
        if (!err[0]) snprintf(err, errsize, "nothing runs on this target yet (no checkpoint in %s): weir run starts it", dir);
        return err[0] && strstr(err, "nothing runs") ? 2 : 3;
    }
    Apply a = {0};
    a.q = q;
    a.res = res;
    int code = 3;
    int nm = q->p->nmodels;
    a.sinks = xcalloc((size_t)nm + 1, sizeof(ConnSink *));
    a.deliv = xcalloc((size_t)nm + 1, sizeof(Delivery));
    a.collect = xcalloc((size_t)nm + 1, sizeof(bool));
    a.outputs = xcalloc((size_t)nm + 1, sizeof(char *));
    bool *wanted = xcalloc((size_t)nm + 1, sizeof(bool));
    uint64_t *bases = xcalloc((size_t)nm + 1, sizeof(uint64_t));
    const char **ids = NULL;
    bool ok = true;

    if (q->staged) {
        /* the running version is only read (it may go on running); the new one gets a
         * store of its own, numbered after every deployment of the running store */
        a.live = probe;
        probe = NULL;
        if (!store_read_begin(a.live, err, errsize)) goto done;
        int64_t n = journal_count(a.live);
        const char *name = deploy_new_name(q->p, n > 0 ? n + 1 : 2, &a.staged_id);
        snprintf(res->store, sizeof res->store, "%s", name);
        a.st = store_open(deploy_dir(q->p, name), true, true, err, errsize);
        if (!a.st) goto done;
    } else {
        store_close(probe);
        probe = NULL;
        a.st = a.live = store_open(dir, true, true, err, errsize);
        if (!a.st) {
            code = strstr(err, "in use") ? 2 : 3;
            if (code == 2) {
                size_t n = strlen(err);
                snprintf(err + n, errsize - n, ": stop that run first (SIGTERM), or deploy beside it with --staged");
            }
            goto done;
        }
    }
    const void *data;
    size_t len;
    if (!store_read_begin(a.live, err, errsize)) goto done;
    if (!store_get(a.live, "meta", &data, &len)) {
        snprintf(err, errsize, "nothing runs on this target yet (no checkpoint in %s): weir run starts it", dir);
        code = 2;
        goto done;
    }
    ByteReader br = bytes_reader(data, len);
    bytes_get_u32(&br);
    bytes_get_u32(&br);
    a.ckpt = bytes_get_u64(&br);
    if (!q->staged && !settle(&a, err, errsize)) goto done;

    /* the old version, as it stopped */
    EngOptions eo = {0};
    eo.listener = no_output;
    a.old = eng_pipeline_new(q->old_g, &eo, err, errsize);
    char e2[768];
    /* a checkpoint of several engine replicas (a durable run with --workers) is merged
     * into the one pipeline apply works on; the version it writes is one pipeline's,
     * which the next run re-partitions */
    if (!a.old || !run_ckpt_restore(a.live, a.old, true, NULL, 0, 1, true, e2, sizeof e2)) {
        if (a.old) snprintf(err, errsize, "the running version cannot be restored from its checkpoint: %s", e2);
        goto done;
    }
    store_foreach(a.live, "source/", carry, &a);
    store_foreach(a.live, "origin/", carry, &a);
    store_foreach(a.live, "outputs/", carry, &a);
    if (!q->staged) store_foreach(a.live, "dl/", carry, &a);  /* a staged run writes dead letters of its own */

    /* the new version */
    a.next = eng_pipeline_new(q->g, &eo, err, errsize);
    if (!a.next) goto done;
    if (!open_sinks(&a, err, errsize)) {
        code = strstr(err, "rewritten") ? 2 : 3;
        goto done;
    }
    int nids = eng_op_ids(a.next, NULL, 0);
    ids = xcalloc((size_t)nids + 1, sizeof(char *));
    eng_op_ids(a.next, ids, nids);
    bool any_replay = false;
    for (int i = 0; i < nids; i++)
        if (plan_op_action(q->plan, ids[i]) == STATE_REPLAY) {
            any_replay = true;
            /* the model the operator belongs to runs in the replay (with what it reads) */
            for (int m = 0; m < nm; m++)
                if (strncmp(ids[i], q->p->models[m].name, strlen(q->p->models[m].name)) == 0 &&
                    ids[i][strlen(q->p->models[m].name)] == '/')
                    wanted[m] = true;
            if (strncmp(ids[i], "source:", 7) == 0)
                for (int m = 0; m < nm; m++) wanted[m] = true;  /* a source's state: every reader */
        }
    for (int m = 0; m < nm; m++) {
        const PlanModel *pm = plan_find_model(q->plan, q->p->models[m].name);
        /* outputs no state holds: recomputed by the replay (a staged deployment's shadow
         * outputs need all of them, changed or not) */
        bool from_replay = q->staged ? !eng_model_derivable(a.next, m) : pm && pm->output == OUTPUT_REPLAY;
        if (from_replay && a.sinks[m]) {
            wanted[m] = a.collect[m] = true;
            any_replay = true;
        }
    }
    if (any_replay && !run_replay(&a, wanted, err, errsize)) goto done;

    /* assemble: every operator from the old pipeline or from the replay */
    for (int i = 0; i < nids && ok; i++) {
        StateAction act = plan_op_action(q->plan, ids[i]);
        EngPipeline *from = act == STATE_REPLAY ? a.replay : a.old;
        if (act != STATE_REPLAY && !eng_has_op(a.old, ids[i])) from = a.replay && eng_has_op(a.replay, ids[i]) ? a.replay : NULL;
        if (!from) continue;  /* a new stateless operator: it follows its inputs */
        ok = eng_adopt_state(a.next, from, ids[i], act == STATE_MAP, err, errsize);
        if (act == STATE_REPLAY) res->nreplayed++;
        else res->nkept++;
    }
    if (!ok) goto done;
    eng_adopt_progress(a.next, a.old);
    carry_expired(a.next, a.old, q->plan);
    for (int m = 0; m < nm && ok; m++)
        if (a.sinks[m]) ok = restate(&a, m, err, errsize);
    if (!ok) goto done;

    store_read_end(a.live);
    fault_point("apply-before-commit");
    uint64_t id = a.ckpt + 1;
    if (!write_checkpoint(&a, id, bases, err, errsize)) goto done;
    res->checkpoint = id;
    fault_point("apply-after-commit");
    /* the new version runs: its deliveries are made now, and again after a crash */
    for (int m = 0; m < nm && ok; m++) {
        if (!a.sinks[m]) continue;
        ok = delivery_apply_pending(&a.deliv[m], a.sinks[m], id, bases[m], err, errsize);
        fault_point("apply-delivering");
    }
    if (ok) ok = run_mark_delivered(a.st, id, err, errsize);
    if (ok) code = 0;
done:
    for (int m = 0; m < nm; m++) {
        char e3[256];
        if (a.sinks[m] && !sink_close(a.sinks[m], e3, sizeof e3) && code == 0) {
            snprintf(err, errsize, "%s", e3);
            code = 3;
        }
        delivery_fini(&a.deliv[m]);
    }
    for (int i = 0; i < a.ncarried; i++) {
        free(a.carried[i].name);
        free(a.carried[i].data);
    }
    free(a.carried);
    eng_pipeline_free(a.old);
    eng_pipeline_free(a.next);
    eng_pipeline_free(a.replay);
    if (a.live != a.st) store_close(a.live);
    store_close(a.st);
    store_close(probe);
    for (int m = 0; m < nm; m++) free(a.outputs[m]);
    free(a.outputs);
    free(ids);
    free(bases);
    free(wanted);
    free(a.collect);
    free(a.deliv);
    free(a.sinks);
    return code;
}
