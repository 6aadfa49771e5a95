/* Reading a durable run's checkpoint for `weir inspect` (see checkpoint_info.h; the
 * blob formats are run_durable.c's). */
#include "runtime/checkpoint_info.h"
#include "runtime/deployments.h"
#include "runtime/run.h"

#include "base/bytes.h"
#include "base/jsonw.h"
#include "runtime/delivery.h"
#include "runtime/run_internal.h"
#include "runtime/state_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LAG_TIMEOUT_MS 3000

static void add_state(void *ctx, const char *name, const void *data, size_t len)
{
    (void)name;
    CheckpointInfo *c = ctx;
    ByteReader r = bytes_reader(data, len);
    uint32_t n = bytes_get_u32(&r);
    if (r.bad || n > len) return;
    c->states = xcalloc((size_t)n + 1, sizeof(CkptState));
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        size_t idlen;
        const char *id = bytes_get_str(&r, &idlen);
        CkptState *s = &c->states[c->nstates++];
        s->id = xstrndup(id, idlen);
        s->entries = (int64_t)bytes_get_u64(&r);
        s->bytes = (int64_t)bytes_get_u64(&r);
    }
    /* since the expired counts were added: a section after the list (absent before) */
    if (!r.bad && bytes_get_u32(&r) == RUN_STATS_EXPIRED_MAGIC && !r.bad)
        for (int i = 0; i < c->nstates && !r.bad; i++) {
            int64_t x = (int64_t)bytes_get_u64(&r);
            if (!r.bad) c->states[i].expired = x;
        }
}

static void add_sink(void *ctx, const char *name, const void *data, size_t len)
{
    CheckpointInfo *c = ctx;
    uint64_t ckpt, n;
    if (!delivery_blob_summary(data, len, &ckpt, &n)) return;
    c->sinks = xrealloc(c->sinks, sizeof(CkptSink) * (size_t)(c->nsinks + 1));
    c->sinks[c->nsinks++] = (CkptSink){xstrdup(name + strlen("sink/")), ckpt, n};
}

static void add_dead(void *ctx, const char *name, const void *data, size_t len)
{
    CheckpointInfo *c = ctx;
    ByteReader r = bytes_reader(data, len);
    int64_t bytes = (int64_t)bytes_get_u64(&r);
    if (!bytes_done(&r)) return;
    c->dead = xrealloc(c->dead, sizeof(CkptDeadLetters) * (size_t)(c->ndead + 1));
    c->dead[c->ndead++] = (CkptDeadLetters){xstrdup(name + strlen("dl/")), bytes};
}

typedef struct SourceCtx {
    CheckpointInfo *c;
    Project *p;
    StateStore *st;
    bool lag;
} SourceCtx;

static void add_source(void *ctx, const char *name, const void *data, size_t len)
{
    SourceCtx *sc = ctx;
    CheckpointInfo *c = sc->c;
    CkptSource s = {0};
    s.name = xstrdup(name + strlen("source/"));
    if (!src_position_info(data, len, &s.pos)) s.lag_error = xstrdup("the position is malformed");
    s.origin.records = -1;
    StrBuf k = STRBUF_INIT;
    sb_printf(&k, "origin/%s", s.name);
    const void *odata;
    size_t olen;
    if (store_get(sc->st, sb_cstr(&k), &odata, &olen) && !src_position_info(odata, olen, &s.origin)) {
        memset(&s.origin, 0, sizeof s.origin);
        s.origin.records = -1;
    }
    sb_free(&k);
    const SourceDef *def = project_find_source(sc->p, s.name);
    if (sc->lag && s.pos.partitioned && !s.lag_error) {
        char err[512];
        if (!def || def->connector != SRC_KAFKA)
            s.lag_error = xstrdup("the source is no longer a Kafka source in the project");
        else if ((s.nends = kafka_end_offsets(sc->p, def, LAG_TIMEOUT_MS, &s.lows, &s.ends, err, sizeof err)) < 0) {
            s.nends = 0;
            s.lag_error = xstrdup(err);
        }
    }
    c->sources = xrealloc(c->sources, sizeof(CkptSource) * (size_t)(c->nsources + 1));
    c->sources[c->nsources++] = s;
}

static void add_deployment(void *ctx, const char *name, const void *data, size_t len)
{
    (void)name;
    CheckpointInfo *c = ctx;
    ByteReader r = bytes_reader(data, len);
    CkptDeployment d = {0};
    uint32_t magic = bytes_get_u32(&r);
    d.id = (int64_t)bytes_get_u64(&r);
    d.at = (int64_t)bytes_get_u64(&r);
    size_t n;
    const char *mode = bytes_get_str(&r, &n);
    size_t nm = n;
    d.checkpoint = bytes_get_u64(&r);
    const char *status = bytes_get_str(&r, &n);
    size_t ns = n;
    const char *plan = bytes_get_str(&r, &n);
    if (r.bad || magic != RUN_DEPLOYMENT_MAGIC) return;
    d.mode = xstrndup(mode, nm);
    d.status = xstrndup(status, ns);
    d.plan = xstrndup(plan, n);
    c->deployments = xrealloc(c->deployments, sizeof(CkptDeployment) * (size_t)(c->ndeployments + 1));
    c->deployments[c->ndeployments++] = d;
}

bool checkpoint_info_read(Project *p, bool lag, CheckpointInfo *out, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    const char *dir = deploy_active_dir(p);
    out->state_dir = xstrdup(dir);
    StateStore *st = store_open(dir, false, false, err, errsize);
    if (!st && err[0]) checkpoint_info_free(out);  /* a failure leaves nothing to free */
    if (!st) return err[0] == '\0';  /* no store: nothing to show */
    bool ok = store_read_begin(st, err, errsize);
    const void *data;
    size_t len;
    if (ok && store_get(st, "meta", &data, &len)) {
        ByteReader r = bytes_reader(data, len);
        uint32_t magic = bytes_get_u32(&r), version = bytes_get_u32(&r);
        out->id = bytes_get_u64(&r);
        out->written_at = (int64_t)bytes_get_u64(&r);
        size_t pl;
        const char *proj = bytes_get_str(&r, &pl);
        if (r.bad || magic != RUN_META_MAGIC || version != RUN_META_VERSION) {
            snprintf(err, errsize, "the checkpoint in %s is of an unknown format", dir);
            ok = false;
        } else {
            out->exists = true;
            out->project = xstrndup(proj, pl);
            out->store_bytes = store_file_bytes(st);
            out->replicas = run_ckpt_replicas(st);
            SourceCtx sc = {out, p, st, lag};
            store_foreach(st, "source/", add_source, &sc);
            store_foreach(st, "stats/state", add_state, out);
            store_foreach(st, "sink/", add_sink, out);
            store_foreach(st, "dl/", add_dead, out);
            store_foreach(st, STORE_JOURNAL_PREFIX "deployment/", add_deployment, out);
            if (store_get(st, "manifest", &data, &len)) {
                out->manifest = xstrndup(data, len);
                out->manifest_len = len;
            }
        }
    }
    store_close(st);
    if (!ok) checkpoint_info_free(out);
    return ok;
}

void checkpoint_info_free(CheckpointInfo *c)
{
    for (int i = 0; i < c->nsources; i++) {
        free(c->sources[i].name);
        free(c->sources[i].pos.offsets);
        free(c->sources[i].ends);
        free(c->sources[i].lows);
        free(c->sources[i].origin.offsets);
        free(c->sources[i].lag_error);
    }
    for (int i = 0; i < c->nstates; i++) free(c->states[i].id);
    for (int i = 0; i < c->nsinks; i++) free(c->sinks[i].model);
    for (int i = 0; i < c->ndead; i++) free(c->dead[i].name);
    free(c->sources);
    free(c->states);
    free(c->sinks);
    free(c->dead);
    free(c->state_dir);
    free(c->project);
    free(c->manifest);
    for (int i = 0; i < c->ndeployments; i++) {
        free(c->deployments[i].mode);
        free(c->deployments[i].status);
        free(c->deployments[i].plan);
    }
    free(c->deployments);
    memset(c, 0, sizeof *c);
}

static void time_text(int64_t t, char *buf, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void checkpoint_info_render_text(const CheckpointInfo *c, StrBuf *out)
{
    if (!c->exists) {
        sb_printf(out, "no checkpoint in %s (only a run that reads Kafka keeps one)\n", c->state_dir);
        return;
    }
    char when[64];
    time_text(c->written_at, when, sizeof when);
    sb_printf(out, "checkpoint %llu of project %s, written %s\n", (unsigned long long)c->id, c->project, when);
    sb_printf(out, "  store %s (%.1f MiB on disk)", c->state_dir, (double)c->store_bytes / (1024.0 * 1024.0));
    if (c->replicas > 1) sb_printf(out, ", the state of %d engine replicas (weir run --workers)", c->replicas);
    sb_putc(out, '\n');
    for (int i = 0; i < c->nsources; i++) {
        const CkptSource *s = &c->sources[i];
        if (!s->pos.partitioned) {
            sb_printf(out, "  source %-28s %lld records read\n", s->name, (long long)s->pos.records);
            continue;
        }
        int64_t lag = 0;
        for (int k = 0; k < s->pos.npartitions && k < s->nends; k++)
            lag += s->ends[k] > s->pos.offsets[k] ? s->ends[k] - s->pos.offsets[k] : 0;
        sb_printf(out, "  source %-28s %d partitions", s->name, s->pos.npartitions);
        if (s->ends) sb_printf(out, ", lag %lld", (long long)lag);
        else if (s->lag_error) sb_printf(out, ", lag unknown (%s)", s->lag_error);
        sb_putc(out, '\n');
        for (int k = 0; k < s->pos.npartitions; k++) {
            sb_printf(out, "    partition %-4d next offset %lld", k, (long long)s->pos.offsets[k]);
            if (k < s->nends) sb_printf(out, ", end %lld, lag %lld", (long long)s->ends[k],
                                        (long long)(s->ends[k] > s->pos.offsets[k] ? s->ends[k] - s->pos.offsets[k] : 0));
            sb_putc(out, '\n');
        }
    }
    for (int i = 0; i < c->nstates; i++) {
        sb_printf(out, "  state  %-28s %12lld entries, %.1f MiB", c->states[i].id, (long long)c->states[i].entries,
                  (double)c->states[i].bytes / (1024.0 * 1024.0));
        if (c->states[i].entries > 0)
            sb_printf(out, ", %lld bytes per entry", (long long)(c->states[i].bytes / c->states[i].entries));
        if (c->states[i].expired) sb_printf(out, ", %lld expired", (long long)c->states[i].expired);
        sb_putc(out, '\n');
    }
    for (int i = 0; i < c->nsinks; i++)
        sb_printf(out, "  sink   %-28s last delivery: %llu changes\n", c->sinks[i].model,
                  (unsigned long long)c->sinks[i].changes);
    for (int i = 0; i < c->ndead; i++)
        if (c->dead[i].bytes > 0)
            sb_printf(out, "  dead letters %-22s %lld bytes\n", c->dead[i].name, (long long)c->dead[i].bytes);
    for (int i = 0; i < c->ndeployments; i++) {
        const CkptDeployment *d = &c->deployments[i];
        time_text(d->at, when, sizeof when);
        sb_printf(out, "  deployment %-4lld %-7s %s from checkpoint %llu, %s%s\n", (long long)d->id, d->mode, d->status,
                  (unsigned long long)d->checkpoint, when, i == c->ndeployments - 1 ? " (running)" : "");
    }
}

void checkpoint_info_render_json(const CheckpointInfo *c, StrBuf *out)
{
    JsonW w;
    jw_init(&w, out, true);
    jw_obj(&w);
    jw_kstr(&w, "state_dir", c->state_dir);
    jw_kbool(&w, "exists", c->exists);
    if (c->exists) {
        jw_kint(&w, "checkpoint", (int64_t)c->id);
        jw_kint(&w, "written_at", c->written_at);
        jw_kstr(&w, "project", c->project);
        jw_kint(&w, "store_bytes", c->store_bytes);
        jw_kint(&w, "replicas", c->replicas > 0 ? c->replicas : 1);
        jw_key(&w, "sources");
        jw_arr(&w);
        for (int i = 0; i < c->nsources; i++) {
            const CkptSource *s = &c->sources[i];
            jw_obj(&w);
            jw_kstr(&w, "name", s->name);
            if (!s->pos.partitioned) {
                jw_kint(&w, "records", s->pos.records);
            } else {
                jw_key(&w, "partitions");
                jw_arr(&w);
                for (int k = 0; k < s->pos.npartitions; k++) {
                    jw_obj(&w);
                    jw_kint(&w, "partition", k);
                    jw_kint(&w, "offset", s->pos.offsets[k]);
                    jw_key(&w, "end");
                    if (k < s->nends) jw_int(&w, s->ends[k]);
                    else jw_null(&w);
                    jw_key(&w, "lag");
                    if (k < s->nends) jw_int(&w, s->ends[k] > s->pos.offsets[k] ? s->ends[k] - s->pos.offsets[k] : 0);
                    else jw_null(&w);
                    jw_end_obj(&w);
                }
                jw_end_arr(&w);
            }
            jw_key(&w, "lag_error");
            if (s->lag_error) jw_str(&w, s->lag_error);
            else jw_null(&w);
            jw_end_obj(&w);
        }
        jw_end_arr(&w);
        jw_key(&w, "state");
        jw_arr(&w);
        for (int i = 0; i < c->nstates; i++) {
            jw_obj(&w);
            jw_kstr(&w, "id", c->states[i].id);
            jw_kint(&w, "entries", c->states[i].entries);
            jw_kint(&w, "bytes", c->states[i].bytes);
            jw_kint(&w, "expired", c->states[i].expired);
            jw_kint(&w, "bytes_per_entry", c->states[i].entries > 0 ? c->states[i].bytes / c->states[i].entries : 0);
            jw_end_obj(&w);
        }
        jw_end_arr(&w);
        jw_key(&w, "sinks");
        jw_arr(&w);
        for (int i = 0; i < c->nsinks; i++) {
            jw_obj(&w);
            jw_kstr(&w, "model", c->sinks[i].model);
            jw_kint(&w, "checkpoint", (int64_t)c->sinks[i].checkpoint);
            jw_kint(&w, "changes", (int64_t)c->sinks[i].changes);
            jw_end_obj(&w);
        }
        jw_end_arr(&w);
        jw_key(&w, "dead_letters");
        jw_arr(&w);
        for (int i = 0; i < c->ndead; i++) {
            jw_obj(&w);
            jw_kstr(&w, "name", c->dead[i].name);
            jw_kint(&w, "bytes", c->dead[i].bytes);
            jw_end_obj(&w);
        }
        jw_end_arr(&w);
        jw_key(&w, "deployments");
        jw_arr(&w);
        for (int i = 0; i < c->ndeployments; i++) {
            const CkptDeployment *d = &c->deployments[i];
            jw_obj(&w);
            jw_kint(&w, "id", d->id);
            jw_kint(&w, "at", d->at);
            jw_kstr(&w, "mode", d->mode);
            jw_kint(&w, "checkpoint", (int64_t)d->checkpoint);
            jw_kstr(&w, "status", d->status);
            jw_kbool(&w, "running", i == c->ndeployments - 1);
            jw_key(&w, "plan");
            if (d->plan[0]) jw_raw(&w, d->plan);
            else jw_null(&w);
            jw_end_obj(&w);
        }
        jw_end_arr(&w);
    }
    jw_end_obj(&w);
    sb_putc(out, '\n');
}
