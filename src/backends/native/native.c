/* The native backend (see native.h): plan's view of a durable target. */
#include "backends/native/native.h"
#include "backends/native/native_internal.h"

#include "connectors/source.h"
#include "runtime/apply.h"
#include "runtime/checkpoint_info.h"
#include "runtime/deployments.h"
#include "sql/binder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static bool native_deployed(LcBackend *b, LcDeployed *out, int *code, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    CheckpointInfo ci = {0};
    if (!checkpoint_info_read(b->project, false, &ci, err, errsize)) {
        *code = 3;
        return false;
    }
    const char *target = b->project->target ? b->project->target->name : "?";
    char buf[1024];
    if (ci.exists && ci.manifest) {
        char when[64];
        time_t t = (time_t)ci.written_at;
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
        snprintf(buf, sizeof buf, "checkpoint %llu of target %s (written %s)", (unsigned long long)ci.id, target, when);
        out->exists = true;
        out->manifest = ci.manifest;
        out->manifest_len = ci.manifest_len;
        ci.manifest = NULL;
    } else if (ci.exists) {
        snprintf(err, errsize, "checkpoint %llu of target %s was written by a weir that kept no manifest: what it "
                 "runs is unknown; compare with --state, or start over with `weir run --fresh`",
                 (unsigned long long)ci.id, target);
        checkpoint_info_free(&ci);
        *code = 2;
        return false;
    } else {
        snprintf(buf, sizeof buf, "target %s, where nothing runs yet (no checkpoint in %s)", target, ci.state_dir);
    }
    out->description = xstrdup(buf);
    checkpoint_info_free(&ci);
    return true;
}

static const CkptSource *find_source(const CheckpointInfo *ci, const char *name)
{
    for (int i = 0; i < ci->nsources; i++)
        if (strcmp(ci->sources[i].name, name) == 0) return &ci->sources[i];
    return NULL;
}

/* Kafka: [origin, checkpoint) per partition, against what the cluster retains. */
static void kafka_replay(const CkptSource *cs, PlanReplay *r)
{
    int n = cs->pos.npartitions;
    PlanPartition *parts = xcalloc((size_t)n + 1, sizeof *parts);
    bool have_origin = cs->origin.partitioned;
    for (int k = 0; k < n; k++) {
        parts[k].partition = k;
        parts[k].to = cs->pos.offsets[k];
        parts[k].from = have_origin && k < cs->origin.npartitions ? cs->origin.offsets[k] : 0;
        parts[k].earliest = cs->lows && k < cs->nends ? cs->lows[k] : -1;
        if (parts[k].earliest > parts[k].from && parts[k].to > parts[k].from) r->lost = true;
    }
    r->known = true;
    r->parts = parts;
    r->nparts = n;
    if (!have_origin) r->note = "the checkpoint does not record where the deployment began reading: from offset 0";
    if (!cs->lows) r->note = cs->lag_error ? cs->lag_error : "the cluster's retention could not be read";
}

static void native_replay_costs(LcBackend *b, Plan *plan)
{
    if (!plan->nreplay_sources) return;
    CheckpointInfo ci = {0};
    char err[512];
    bool have = checkpoint_info_read(b->project, true, &ci, err, sizeof err) && ci.exists;
    for (int i = 0; i < plan->nreplay_sources; i++) {
        const char *name = plan->replay_sources[i];
        const SourceDef *def = project_find_source(b->project, name);
        PlanReplay r = {.source = name, .bytes = -1};
        r.connector = def ? (def->connector == SRC_KAFKA ? "kafka" : def->connector == SRC_FILE ? "file" : "stdin")
                          : "?";
        const CkptSource *cs = have ? find_source(&ci, name) : NULL;
        if (def && def->connector == SRC_KAFKA && cs && cs->pos.partitioned) {
            kafka_replay(cs, &r);
        } else if (def && def->connector == SRC_FILE) {
            struct stat st;
            const char *path = project_path(b->project, def->path);
            r.known = true;
            int nfiles = 0;
            bool readable;
            if (src_path_is_multi(path)) {
                readable = src_files_total_bytes(path, &r.bytes, &nfiles);
            } else {
                readable = stat(path, &st) == 0;
                if (readable) r.bytes = (int64_t)st.st_size;
            }
            if (!readable) {
                r.lost = true;
                r.note = "the file cannot be read";
            }
        } else if (def && def->connector == SRC_STDIN) {
            r.lost = true;
            r.note = "standard input cannot be read again";
        } else {
            r.note = have ? "the checkpoint has no position for it" : "nothing runs: positions unknown";
        }
        plan_add_replay(plan, &r);
        free(r.parts);
    }
    checkpoint_info_free(&ci);
}

bool native_load_version(LcBackend *b, const Manifest *m, NativeVersion *out, char *err, size_t errsize)
{
    out->p = NULL;
    out->g = NULL;
    diag_init(&out->dl);
    arena_init(&out->arena, 64 * 1024);
    if (m->nfiles == 0) {
        snprintf(err, errsize, "the manifest of the running version keeps no definition (written by an older weir): "
                 "it cannot be loaded again; start over with `weir run --fresh`");
        return false;
    }
    ProjectOptions po = {.dir = b->project->dir, .target = b->project->target ? b->project->target->name : NULL};
    out->p = project_load_files(m->files, m->nfiles, &po, &out->dl);
    /* the definition keeps no connection settings: the target's are the project's now */
    if (out->p) out->p->target = b->project->target;
    if (out->p) {
        BoundProject *bp = sql_bind_project(out->p, &out->arena, &out->dl);
        out->g = ir_build(bp, &out->arena, &out->dl);
    }
    if (!out->p || out->dl.errors) {
        const Diag *d = NULL;
        for (int i = 0; i < out->dl.count && !d; i++)
            if (out->dl.items[i].severity == DIAG_ERROR) d = &out->dl.items[i];
        snprintf(err, errsize, "a deployed version cannot be loaded again from its manifest%s%s", d ? ": " : "",
                 d ? d->message : "");
        return false;
    }
    return true;
}

bool native_load_store(LcBackend *b, const char *store, NativeVersion *out, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    diag_init(&out->dl);
    arena_init(&out->arena, 1024);
    char *text = NULL;
    size_t len = 0;
    if (!deploy_store_manifest(b->project, store, &text, &len, &out->checkpoint, &out->written_at, err, errsize))
        return false;
    bool ok = manifest_parse(text, len, store, &out->mf, err, errsize);
    free(text);
    if (!ok) return false;
    out->have_mf = true;
    diag_fini(&out->dl);
    arena_fini(&out->arena);
    return native_load_version(b, &out->mf, out, err, errsize);
}

void native_version_free(NativeVersion *v)
{
    if (v->p) project_free(v->p);
    if (v->have_mf) manifest_free(&v->mf);
    arena_fini(&v->arena);
    diag_fini(&v->dl);
    memset(v, 0, sizeof *v);
}

static bool native_apply(LcBackend *b, const LcApplyRequest *req, LcApplyResult *out, int *code, char *err,
                         size_t errsize)
{
    memset(out, 0, sizeof *out);
    if (!native_settle(b, code, err, errsize)) return false;
    LcDeployed dep;
    if (!native_deployed(b, &dep, code, err, errsize)) return false;
    if (!dep.exists) {
        snprintf(err, errsize, "%s: `weir run` starts the project; there is nothing to apply", dep.description);
        lc_deployed_free(&dep);
        *code = 2;
        return false;
    }
    Manifest running;
    bool ok = manifest_parse(dep.manifest, dep.manifest_len, dep.description, &running, err, errsize);
    lc_deployed_free(&dep);
    if (!ok) {
        *code = 3;
        return false;
    }
    NativeVersion old = {0};
    ok = native_load_version(b, &running, &old, err, errsize);
    manifest_free(&running);
    if (!ok) {
        native_version_free(&old);
        *code = 3;
        return false;
    }
    StrBuf plan_json = STRBUF_INIT;
    plan_render_json(req->plan, "the deployed version", &plan_json);
    RunApplyRequest q = {
        .p = b->project, .g = b->graph, .old_p = old.p, .old_g = old.g, .plan = req->plan,
        .manifest = req->manifest, .manifest_len = req->manifest_len, .plan_json = sb_cstr(&plan_json),
        .staged = req->staged,
    };
    RunApplyResult r;
    *code = run_apply(&q, &r, err, errsize);
    out->deployment = r.deployment;
    out->replayed_records = r.replayed_records;
    out->restated_rows = r.restated_changes;
    out->resumed = r.settled;
    snprintf(out->store, sizeof out->store, "%s", r.store);
    sb_free(&plan_json);
    native_version_free(&old);
    return *code == 0;
}

static void native_close(LcBackend *b) { free(b); }

static const LcBackendOps native_ops = {
    .name = "native",
    .deployed = native_deployed,
    .replay_costs = native_replay_costs,
    .apply = native_apply,
    .audit = native_audit,
    .publish = native_publish,
    .rollback = native_rollback,
    .janitor = native_janitor,
    .close = native_close,
};

LcBackend *native_backend_open(Project *p, const IrGraph *g)
{
    LcBackend *b = xcalloc(1, sizeof *b);
    b->ops = &native_ops;
    b->project = p;
    b->graph = g;
    return b;
}
