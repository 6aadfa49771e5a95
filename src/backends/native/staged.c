/* The staged rollout on the native runtime (docs/lifecycle.md, "Staged rollout"):
 * weir audit, publish, rollback and janitor over the deployment stores of
 * runtime/deployments.h. A staged version (weir apply --staged) runs in a store of its
 * own and writes shadow outputs: a SQLite table <t>__v<id>, a file <name>__v<id>.<ext>,
 * a topic <topic>__v<id>. Readers of SQLite read views: publish makes each reader-facing
 * name a view over the staged table, all views of one database in one transaction;
 * files are renamed into place; topics stay versioned (consumers move to them). Before
 * it switches anything, publish brings the staged version up to exactly the running
 * version's input, so the readers move from one consistent result to the next. */
#include "backends/native/native_internal.h"

#include "base/fault.h"
#include "base/hash.h"
#include "base/jsonw.h"
#include "connectors/sink.h"
#include "engine/engine.h"
#include "runtime/deployments.h"
#include "runtime/run.h"
#include "runtime/state_store.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The staged store: the newest one that neither runs nor is kept for a rollback. */
static const char *staged_store(Project *p)
{
    const char *active = deploy_active_name(p), *prev = deploy_previous_name(p);
    int n;
    char **names = deploy_list(p, &n);
    const char *found = NULL;
    for (int i = n - 1; i >= 0 && !found; i--)
        if (strcmp(names[i], active) != 0 && (!prev || strcmp(names[i], prev) != 0))
            found = arena_strdup(&p->arena, names[i]);
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    return found;
}

static int64_t store_id(Project *p, const char *name)
{
    return strcmp(name, ".") == 0 ? deploy_last_id(p, ".") : atoll(name + strlen("deployments/"));
}

/* Bring store `name` (version v) up to the positions of store `to`'s checkpoint. */
static bool catch_up(NativeVersion *v, const char *name, const char *to, int *code, char *err, size_t errsize)
{
    RunOptions ro = {0};
    ro.store = name;
    ro.until_store = to;
    RunSummary sum;
    int rc = run_pipeline(v->p, v->g, &ro, &sum, err, errsize);
    run_summary_free(&sum);
    if (rc != 0) {
        char e2[1024];
        snprintf(e2, sizeof e2, "bringing %s up to the running version: %s", name, err);
        snprintf(err, errsize, "%s", e2);
        *code = rc;
        return false;
    }
    return true;
}

/* ---- audit ---- */

typedef struct Digest {
    int64_t rows;
    uint64_t sum;                /* a sum of row hashes: order does not matter */
    const Type *types;
    int ncols;
} Digest;

static bool digest_rows(void *ctx, int model, const EngChange *ch, int n, char *err, size_t errsize)
{
    (void)model; (void)err; (void)errsize;
    Digest *d = ctx;
    StrBuf b = STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        sb_clear(&b);
        for (int c = 0; c < d->ncols; c++) {
            value_format_json(d->types[c], &ch[i].row[c], &b);
            sb_putc(&b, '\x1f');
        }
        d->sum += hash_bytes(b.data, b.len, 0x646967ull);
        d->rows++;
    }
    sb_free(&b);
    return true;
}

static Type *model_types(const IrGraph *g, int m, int *n)
{
    const PlanNode *r = g->models[m].root->plan;
    Type *t = xcalloc((size_t)r->ncols + 1, sizeof(Type));
    for (int c = 0; c < r->ncols; c++) t[c] = r->cols[c].type;
    *n = r->ncols;
    return t;
}

static int model_index(const IrGraph *g, const char *name)
{
    for (int m = 0; m < g->nmodels; m++)
        if (strcmp(g->project->models[m].name, name) == 0 && g->models[m].root) return m;
    return -1;
}

/* The model's rows from state, as a digest; false when state does not hold them. */
static bool state_digest(EngPipeline *pipe, const IrGraph *g, int m, Digest *d, char *err, size_t errsize)
{
    memset(d, 0, sizeof *d);
    if (!eng_model_derivable(pipe, m)) return false;
    Type *t = model_types(g, m, &d->ncols);
    d->types = t;
    bool ok = eng_model_rows(pipe, m, NULL, digest_rows, d, err, errsize);
    free(t);
    d->types = NULL;
    return ok;
}

/* The physical table or file store `store` writes for model m (its outputs record, or
 * the configured name). */
static const char *physical(Project *p, const char *store, const ModelDef *md)
{
    char *o = deploy_output(p, store, md->name);
    const char *r = o ? arena_strdup(&p->arena, o) : NULL;
    free(o);
    if (r) return r;
    if (md->sink->connector == SINK_SQLITE) return md->sink->table ? md->sink->table : md->name;
    return md->sink->connector == SINK_KAFKA ? md->sink->topic : md->sink->path;
}

/* An append file's lines as a digest (the multiset of its lines). */
static bool file_digest(const char *path, Digest *d)
{
    memset(d, 0, sizeof *d);
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        d->sum += hash_bytes(line, (size_t)n, 0x646967ull);
        d->rows++;
    }
    free(line);
    fclose(f);
    return true;
}

/* Evaluate the model's audits over its rows (from the staged version's state). */
typedef struct AuditCtx {
    const ModelDef *md;
    const PlanNode *root;
    const YNode *audit;
    int cols[16];
    int ncols;
    int64_t failures;
    char example[256];
    Arena *arena;
    /* unique: the keys seen */
    uint64_t *seen;
    int64_t nseen, capseen;
} AuditCtx;

static bool audit_rows(void *ctx, int model, const EngChange *ch, int n, char *err, size_t errsize)
{
    (void)model; (void)err; (void)errsize;
    AuditCtx *a = ctx;
    const char *kind = a->audit->pairs[0].key->str;
    const YNode *arg = a->audit->pairs[0].value;
    StrBuf b = STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        const Value *row = ch[i].row;
        bool bad = false;
        if (strcmp(kind, "not_null") == 0) {
            for (int k = 0; k < a->ncols; k++) bad |= row[a->cols[k]].isnull;
        } else if (strcmp(kind, "unique") == 0) {
            sb_clear(&b);
            for (int k = 0; k < a->ncols; k++) {
                value_format_json(a->root->cols[a->cols[k]].type, &row[a->cols[k]], &b);
                sb_putc(&b, '\x1f');
            }
            uint64_t h = hash_bytes(b.data, b.len, 0x756e71ull);
            for (int64_t s = 0; s < a->nseen && !bad; s++) bad = a->seen[s] == h;
            if (!bad) {
                if (a->nseen == a->capseen) {
                    a->capseen = a->capseen ? a->capseen * 2 : 64;
                    a->seen = xrealloc(a->seen, sizeof(uint64_t) * (size_t)a->capseen);
                }
                a->seen[a->nseen++] = h;
            }
        } else {
            const YNode *vals = yaml_get(arg, "values");
            sb_clear(&b);
            const Value *v = &row[a->cols[0]];
            value_format_text(a->root->cols[a->cols[0]].type, v, &b);
            bool ok = v->isnull;
            for (int k = 0; k < vals->nitems && !ok; k++) ok = strcmp(vals->items[k]->str, sb_cstr(&b)) == 0;
            bad = !ok;
        }
        if (bad && a->failures++ == 0) {
            sb_clear(&b);
            for (int k = 0; k < a->ncols; k++) {
                if (k) sb_puts(&b, ", ");
                sb_printf(&b, "%s = ", a->root->cols[a->cols[k]].name);
                value_format_json(a->root->cols[a->cols[k]].type, &row[a->cols[k]], &b);
            }
            snprintf(a->example, sizeof a->example, "%s", sb_cstr(&b));
        }
    }
    sb_free(&b);
    return true;
}

static int column_of(const PlanNode *root, const char *name)
{
    for (int c = 0; c < root->ncols; c++)
        if (strcmp(root->cols[c].name, name) == 0) return c;
    return -1;
}

typedef struct Report {
    StrBuf *text;
    JsonW *w;
    bool ready;
} Report;

static void report_line(Report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report_line(Report *r, const char *fmt, ...)
{
    if (!r->text) return;
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sb_printf(r->text, "  %s\n", buf);
}

/* The audits of every model of the staged version (v) over its rows. */
static bool run_audits(NativeVersion *v, EngPipeline *pipe, Report *rep, char *err, size_t errsize)
{
    if (rep->w) {
        jw_key(rep->w, "audits");
        jw_arr(rep->w);
    }
    for (int m = 0; m < v->p->nmodels; m++) {
        const ModelDef *md = &v->p->models[m];
        if (!md->audits || !v->g->models[m].root) continue;
        const PlanNode *root = v->g->models[m].root->plan;
        bool kept = eng_model_derivable(pipe, m);
        for (int i = 0; i < md->audits->nitems; i++) {
            const YNode *au = md->audits->items[i];
            const char *kind = au->pairs[0].key->str;
            const YNode *arg = au->pairs[0].value;
            AuditCtx a = {.md = md, .root = root, .audit = au};
            bool known = true;
            const char *bad_col = NULL;
            if (strcmp(kind, "accepted_values") == 0) {
                const YNode *c = yaml_get(arg, "column");
                a.cols[a.ncols++] = column_of(root, c->str);
                if (a.cols[0] < 0) bad_col = c->str;
            } else {
                for (int k = 0; k < arg->nitems && a.ncols < 16; k++) {
                    a.cols[a.ncols] = column_of(root, arg->items[k]->str);
                    if (a.cols[a.ncols] < 0) bad_col = arg->items[k]->str;
                    a.ncols++;
                }
            }
            const char *status;
            if (bad_col) {
                status = "error";
                known = false;
                rep->ready = false;
                report_line(rep, "audit %s %s: model %s has no column %s (%s:%d:%d)", md->name, kind, md->name, bad_col,
                            au->pos.file ? au->pos.file : "?", au->pos.line, au->pos.col);
            } else if (!kept) {
                status = "not_checked";
                known = false;
                report_line(rep, "audit %s %s: not checked (its rows are not kept in state)", md->name, kind);
            } else {
                if (!eng_model_rows(pipe, m, NULL, audit_rows, &a, err, errsize)) {
                    free(a.seen);
                    return false;
                }
                status = a.failures ? "fail" : "pass";
                if (a.failures) rep->ready = false;
                if (a.failures)
                    report_line(rep, "audit %s %s: FAILED for %lld row%s (e.g. %s)", md->name, kind, (long long)a.failures,
                                a.failures == 1 ? "" : "s", a.example);
                else
                    report_line(rep, "audit %s %s: ok", md->name, kind);
            }
            if (rep->w) {
                jw_obj(rep->w);
                jw_kstr(rep->w, "model", md->name);
                jw_kstr(rep->w, "audit", kind);
                jw_kstr(rep->w, "status", status);
                jw_kint(rep->w, "failures", known ? a.failures : 0);
                jw_end_obj(rep->w);
            }
            free(a.seen);
        }
    }
    if (rep->w) jw_end_arr(rep->w);
    return true;
}

bool native_audit(LcBackend *b, bool json, StrBuf *out, bool *ready, int *code, char *err, size_t errsize)
{
    *ready = false;
    if (!native_settle(b, code, err, errsize)) return false;
    Project *p = b->project;
    const char *staged = staged_store(p), *active = deploy_active_name(p);
    if (!staged) {
        snprintf(err, errsize, "no staged deployment: weir apply --staged builds one");
        *code = 2;
        return false;
    }
    NativeVersion sv = {0}, lv = {0};
    EngPipeline *sp = NULL, *lp = NULL;
    bool ok = native_load_store(b, staged, &sv, err, errsize) && catch_up(&sv, staged, active, code, err, errsize) &&
              native_load_store(b, active, &lv, err, errsize);
    if (ok) ok = (sp = deploy_restore(p, sv.g, staged, err, errsize)) && (lp = deploy_restore(p, lv.g, active, err, errsize));
    if (!ok) {
        if (*code == 0) *code = 3;
        goto out;
    }
    JsonW w;
    Report rep = {json ? NULL : out, json ? &w : NULL, true};
    if (json) {
        jw_init(&w, out, true);
        jw_obj(&w);
        jw_kstr(&w, "staged", staged);
        jw_kstr(&w, "running", active);
    } else {
        sb_printf(out, "audit of deployment %lld (%s) against deployment %lld (%s)\n", (long long)store_id(p, staged),
                  staged, (long long)store_id(p, active), active);
    }
    bool same_pos = deploy_same_positions(p, staged, active, err, errsize);
    if (!same_pos) rep.ready = false;
    report_line(&rep, same_pos ? "caught up: both have read the same records of every source"
                               : "NOT caught up: the running version has read other records (is it still running?)");
    if (json) jw_kbool(&w, "caught_up", same_pos);
    /* the models that should agree: those the plan leaves unchanged */
    Plan plan;
    plan_compute(&lv.mf, &sv.mf, &plan);
    if (json) {
        jw_key(&w, "models");
        jw_arr(&w);
    }
    for (int i = 0; i < plan.nmodels; i++) {
        const PlanModel *pm = &plan.models[i];
        int sm = model_index(sv.g, pm->name), lm = model_index(lv.g, pm->name);
        if (sm < 0 || lm < 0) continue;
        const char *how = "rows";
        Digest ds, dl;
        bool have = state_digest(sp, sv.g, sm, &ds, err, errsize) && state_digest(lp, lv.g, lm, &dl, err, errsize);
        const ModelDef *smd = &sv.p->models[sm], *lmd = &lv.p->models[lm];
        if (!have && smd->sink && lmd->sink && smd->sink->connector == SINK_SQLITE && lmd->sink->connector == SINK_SQLITE) {
            char e2[256];
            have = sqlite_table_digest(project_path(p, smd->sink->path), physical(p, staged, smd), &ds.rows, &ds.sum, e2,
                                       sizeof e2) &&
                   sqlite_table_digest(project_path(p, lmd->sink->path), physical(p, active, lmd), &dl.rows, &dl.sum, e2,
                                       sizeof e2);
            how = "table rows";
        } else if (!have && smd->sink && lmd->sink && smd->sink->connector == SINK_FILE && lmd->sink->connector == SINK_FILE &&
                   smd->sink->format == FMT_JSON) {
            have = file_digest(project_path(p, physical(p, staged, smd)), &ds) &&
                   file_digest(project_path(p, physical(p, active, lmd)), &dl);
            how = "file lines";
        }
        bool should = pm->verdict == VERDICT_UNCHANGED;
        bool same = have && ds.rows == dl.rows && ds.sum == dl.sum;
        if (should && have && !same) rep.ready = false;
        if (!have && !smd->sink) continue;  /* a view nobody stores: nothing to compare */
        if (!have)
            report_line(&rep, "%-24s %-9s not compared (its rows are neither in state nor in a table or json file)",
                        pm->name, verdict_name(pm->verdict));
        else if (should)
            report_line(&rep, "%-24s %-9s %s: %s (%lld staged, %lld running)", pm->name, verdict_name(pm->verdict), how,
                        same ? "the same" : "DIFFERENT", (long long)ds.rows, (long long)dl.rows);
        else
            report_line(&rep, "%-24s %-9s %s: %lld staged, %lld running (the versions differ here by design)", pm->name,
                        verdict_name(pm->verdict), how, (long long)ds.rows, (long long)dl.rows);
        if (json) {
            jw_obj(&w);
            jw_kstr(&w, "name", pm->name);
            jw_kstr(&w, "verdict", verdict_name(pm->verdict));
            jw_kbool(&w, "compared", have);
            jw_kbool(&w, "should_agree", should);
            if (have) {
                jw_kbool(&w, "same", same);
                jw_kint(&w, "staged_rows", ds.rows);
                jw_kint(&w, "running_rows", dl.rows);
            }
            jw_end_obj(&w);
        }
    }
    plan_free(&plan);
    if (json) jw_end_arr(&w);
    ok = run_audits(&sv, sp, &rep, err, errsize);
    *ready = rep.ready;
    if (json) {
        jw_kbool(&w, "ready", rep.ready);
        jw_end_obj(&w);
        sb_putc(out, '\n');
    } else {
        sb_puts(out, rep.ready ? "ready: weir publish switches the readers to it\n" : "not ready\n");
    }
    if (!ok) *code = 3;
out:
    eng_pipeline_free(sp);
    eng_pipeline_free(lp);
    native_version_free(&sv);
    native_version_free(&lv);
    return ok;
}

/* ---- publish and rollback ---- */

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Move the readers of every output of version v from store `from` to store `to`:
 * SQLite views (one transaction per database file), files renamed into place. Each step
 * can be made again after a crash. */
static bool switch_outputs(LcBackend *b, NativeVersion *v, const char *from, const char *to, char *err, size_t errsize)
{
    Project *p = b->project;
    int64_t from_id = store_id(p, from);
    for (int m = 0; m < v->p->nmodels; m++) {
        const ModelDef *md = &v->p->models[m];
        if (!md->sink) continue;
        const char *to_phys = physical(p, to, md), *from_phys = physical(p, from, md);
        if (md->sink->connector == SINK_SQLITE) {
            const char *name = md->sink->table ? md->sink->table : md->name;
            const char *db = project_path(p, md->sink->path);
            if (strcmp(to_phys, name) == 0) continue;  /* it writes the readers' table itself */
            SqliteSwitch sw = {name, to_phys, NULL};
            if (strcmp(from_phys, name) == 0 && sqlite_is_table(db, name)) {
                /* the running version wrote the readers' table: it keeps it under its own name */
                sw.keep_as = deploy_shadow_name(p, name, from_id);
                if (!deploy_set_output(p, from, md->name, sw.keep_as, err, errsize)) return false;
            }
            if (!sqlite_switch_views(db, &sw, 1, err, errsize)) return false;
        } else if (md->sink->connector == SINK_FILE) {
            const char *name = md->sink->path;
            if (strcmp(to_phys, name) == 0) continue;
            const char *path = project_path(p, name), *to_path = project_path(p, to_phys);
            if (strcmp(from_phys, name) == 0 && exists(path)) {
                const char *keep = deploy_shadow_name(p, name, from_id);
                if (!deploy_set_output(p, from, md->name, keep, err, errsize)) return false;
                if (rename(path, project_path(p, keep)) != 0) {
                    snprintf(err, errsize, "cannot rename %s: %s", path, strerror(errno));
                    return false;
                }
            }
            if (exists(to_path) && rename(to_path, path) != 0) {
                snprintf(err, errsize, "cannot rename %s to %s: %s", to_path, path, strerror(errno));
                return false;
            }
            if (!deploy_set_output(p, to, md->name, name, err, errsize)) return false;
        }
    }
    return true;
}

/* Carry an intent out: the outputs switched, the pointer moved. */
static bool finish(LcBackend *b, const DeployIntent *in, int *code, char *err, size_t errsize)
{
    NativeVersion v = {0};
    Project *p = b->project;
    bool ok = native_load_store(b, in->to, &v, err, errsize) && switch_outputs(b, &v, in->from, in->to, err, errsize) &&
              deploy_set_previous(p, in->from, err, errsize) && deploy_set_active(p, in->to, err, errsize) &&
              deploy_set_status(p, in->to, deploy_last_id(p, in->to), in->rollback ? "rolled back to" : "published", err,
                                errsize) &&
              deploy_set_status(p, in->from, deploy_last_id(p, in->from), in->rollback ? "rolled back" : "superseded", err,
                                errsize);
    native_version_free(&v);
    if (ok) deploy_intent_clear(b->project);
    else *code = 3;
    return ok;
}

bool native_settle(LcBackend *b, int *code, char *err, size_t errsize)
{
    DeployIntent in;
    if (!deploy_intent_read(b->project, &in)) return true;
    return finish(b, &in, code, err, errsize);
}

/* The running store's lock, held while readers move: no run may go on meanwhile. */
static StateStore *lock_running(Project *p, const char *what, int *code, char *err, size_t errsize)
{
    StateStore *st = store_open(deploy_active_dir(p), false, true, err, errsize);
    if (!st) {
        *code = err[0] && strstr(err, "in use") ? 2 : 3;
        if (*code == 2) {
            size_t n = strlen(err);
            snprintf(err + n, errsize - n, ": stop the running version (SIGTERM) before %s", what);
        } else if (!err[0]) {
            snprintf(err, errsize, "nothing runs on this target");
            *code = 2;
        }
    }
    return st;
}

/* Move the readers from the running store to store `to` (publish: the staged one,
 * brought up to the running one's input first; rollback: the previous one), holding
 * the running store's lock, through an intent the next command finishes after a crash. */
static bool move_readers(LcBackend *b, const char *to, bool rollback, int *code, char *err, size_t errsize)
{
    Project *p = b->project;
    const char *active = deploy_active_name(p);
    StateStore *lock = lock_running(p, rollback ? "rolling back" : "publishing", code, err, errsize);
    if (!lock) return false;
    bool ok = true;
    if (!rollback) {
        NativeVersion sv = {0};
        ok = native_load_store(b, to, &sv, err, errsize) && catch_up(&sv, to, active, code, err, errsize);
        native_version_free(&sv);
    }
    DeployIntent in = {.id = store_id(p, to), .rollback = rollback};
    snprintf(in.from, sizeof in.from, "%s", active);
    snprintf(in.to, sizeof in.to, "%s", to);
    if (ok) ok = deploy_intent_write(p, &in, err, errsize);
    fault_point(rollback ? "rollback-intent" : "publish-intent");
    if (ok) ok = finish(b, &in, code, err, errsize);
    store_close(lock);
    if (!ok && *code == 0) *code = 3;
    return ok;
}

bool native_publish(LcBackend *b, StrBuf *out, int *code, char *err, size_t errsize)
{
    if (!native_settle(b, code, err, errsize)) return false;
    Project *p = b->project;
    const char *staged = staged_store(p), *active = deploy_active_name(p);
    if (!staged) {
        snprintf(err, errsize, "no staged deployment: weir apply --staged builds one");
        *code = 2;
        return false;
    }
    if (!move_readers(b, staged, false, code, err, errsize)) return false;
    sb_printf(out, "published: deployment %lld (%s) runs on target %s; deployment %lld (%s) is kept for weir rollback\n",
              (long long)store_id(p, staged), staged, p->target ? p->target->name : "?", (long long)store_id(p, active),
              active);
    return true;
}

bool native_rollback(LcBackend *b, StrBuf *out, int *code, char *err, size_t errsize)
{
    if (!native_settle(b, code, err, errsize)) return false;
    Project *p = b->project;
    const char *prev = deploy_previous_name(p);
    if (!prev) {
        snprintf(err, errsize, "nothing to roll back to: no version ran before the last publish (or it was removed)");
        *code = 2;
        return false;
    }
    if (!move_readers(b, prev, true, code, err, errsize)) return false;
    sb_printf(out, "rolled back: deployment %lld (%s) runs on target %s again; it continues from its own checkpoint "
              "(check out its version of the project to run it)\n", (long long)store_id(p, prev), prev,
              p->target ? p->target->name : "?");
    return true;
}

/* ---- janitor ---- */

static bool remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT;
    struct dirent *e;
    bool ok = true;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) ok = remove_tree(path) && ok;
        else ok = unlink(path) == 0 && ok;
    }
    closedir(d);
    return rmdir(dir) == 0 && ok;
}

bool native_janitor(LcBackend *b, int64_t retain_s, StrBuf *out, int *code, char *err, size_t errsize)
{
    if (!native_settle(b, code, err, errsize)) return false;
    Project *p = b->project;
    const char *active = deploy_active_name(p), *prev = deploy_previous_name(p);
    int n;
    char **names = deploy_list(p, &n);
    /* the first store (in the state directory itself) is a candidate too */
    names = xrealloc(names, sizeof(char *) * (size_t)(n + 1));
    names[n++] = xstrdup(".");
    int removed = 0;
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        if (strcmp(names[i], active) == 0 || (prev && strcmp(names[i], prev) == 0)) continue;
        NativeVersion v = {0};
        char e2[512];
        if (!native_load_store(b, names[i], &v, e2, sizeof e2)) {
            sb_printf(out, "kept %s: %s\n", names[i], e2);
            native_version_free(&v);
            continue;
        }
        if ((int64_t)time(NULL) - v.written_at < retain_s) {
            native_version_free(&v);
            continue;
        }
        /* its shadow outputs, then its state */
        for (int m = 0; m < v.p->nmodels && ok; m++) {
            const ModelDef *md = &v.p->models[m];
            char *phys = md->sink ? deploy_output(p, names[i], md->name) : NULL;
            if (phys && md->sink->connector == SINK_SQLITE) {
                ok = sqlite_drop_table(project_path(p, md->sink->path), phys, err, errsize);
                sb_printf(out, "  dropped table %s\n", phys);
            } else if (phys && md->sink->connector == SINK_FILE && strcmp(phys, md->sink->path) != 0) {
                unlink(project_path(p, phys));
                sb_printf(out, "  removed %s\n", phys);
            } else if (phys && md->sink->connector == SINK_KAFKA) {
                sb_printf(out, "  topic %s is no longer written (delete it with the cluster's tools)\n", phys);
            }
            free(phys);
        }
        native_version_free(&v);
        const char *dir = strcmp(names[i], ".") == 0 ? arena_printf(&p->arena, "%s/checkpoint", deploy_dir(p, "."))
                                                     : deploy_dir(p, names[i]);
        if (ok && !remove_tree(dir)) {
            snprintf(err, errsize, "cannot remove %s: %s", dir, strerror(errno));
            ok = false;
        }
        if (ok) {
            sb_printf(out, "removed deployment %s\n", names[i]);
            removed++;
        }
    }
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    if (ok) sb_printf(out, "%d superseded deployment%s removed\n", removed, removed == 1 ? "" : "s");
    else *code = 3;
    return ok;
}
