/* The lifecycle verbs on a ClickHouse target (see ch_deploy.h): metadata tables, the
 * lock, deployments as append-only state transitions, the exact cut-over, replay,
 * publish by one RENAME, rollback, doctor, repair, janitor, compile. */
#include "backends/clickhouse/ch_deploy.h"

#include "backends/clickhouse/ch_model.h"
#include "base/fsutil.h"
#include "base/hash.h"
#include "lifecycle/manifest.h"
#include "lifecycle/manifest_read.h"
#include "lifecycle/plan.h"
#include "connectors/source.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { META_VERSION = 1 };

typedef struct Dep {
    Project *p;
    const IrGraph *g;
    const ChOptions *o;
    ChConn *c;
    ChProject cp;
    bool cp_init;
    const char *db;
    Arena a;
    char *err;
    size_t errsize;
    bool locked;
    StrBuf *out;
    long long last_at_ms;        /* the latest at_ms recorded: stamps only move forward */
} Dep;

/* What a deployment does with one model or source. */
typedef struct Obj {
    const char *name;          /* model or source name */
    bool is_source;
    bool native;               /* a native model: its table is written by weir run's
                                  ClickHouse sink (no materialized view) */
    int index;
    const char *physical;      /* model: physical table; source: raw landing table */
    const char *mv;            /* model: its materialized view; source: the landing view */
    const char *kafka;         /* the Kafka engine table of the view (NULL: adopted source) */
    const char *group;         /* its consumer group */
    const char *input;         /* model: the qualified table its view reads */
    const char *replay_from;   /* model: the qualified table its history is replayed from */
    const char *signature;     /* what must match for the objects to be reused */
    const char *view_sql;      /* model: the stable view's SELECT */
    bool create;               /* this deployment creates the objects */
    bool replay;               /* created and fed with history */
    const char *action;        /* unchanged | view | new | rebuild | native | refused */
    const char *reason;
} Obj;

typedef struct Active {
    const char *deployment, *physical, *input, *signature, *view_sql, *mv, *kafka, *group;
} Active;

/* ---- small helpers ---- */

static bool exec(Dep *d, const char *sql) { return ch_exec(d->c, sql, NULL, NULL, d->err, d->errsize); }

static bool execf(Dep *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool execf(Dep *d, const char *fmt, ...)
{
    StrBuf b = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    bool ok = exec(d, sb_cstr(&b));
    sb_free(&b);
    return ok;
}

/* exec, accepting the given server error codes as success (idempotent steps) */
static bool exec_ok(Dep *d, const char *sql, int ok1, int ok2)
{
    int code = 0;
    if (ch_exec(d->c, sql, NULL, &code, d->err, d->errsize)) return true;
    if (code == ok1 || code == ok2) {
        d->err[0] = '\0';
        return true;
    }
    return false;
}

static const char *qn(Dep *d, const char *name)
{
    StrBuf b = STRBUF_INIT;
    ch_qual(&b, d->db, name);
    char *s = arena_strdup(&d->a, sb_cstr(&b));
    sb_free(&b);
    return s;
}

static const char *lit(Dep *d, const char *s)
{
    StrBuf b = STRBUF_INIT;
    ch_strz(&b, s ? s : "");
    char *r = arena_strdup(&d->a, sb_cstr(&b));
    sb_free(&b);
    return r;
}

/* The at_ms of the next metadata row: this machine's clock in milliseconds, but always
 * after every stamp recorded before (ensure_meta reads the latest under the lock), so
 * "the latest row" is never a tie between two commands of the same second. */
static const char *stamp(Dep *d)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    d->last_at_ms = now > d->last_at_ms ? now : d->last_at_ms + 1;
    return arena_printf(&d->a, "%lld", d->last_at_ms);
}

/* Test hook: WEIR_CLICKHOUSE_CRASH_AFTER=<step> ends the process right after that
 * step is recorded, as a crash would (the suite reruns the command). */
static void crash_point(const char *step)
{
    const char *c = getenv("WEIR_CLICKHOUSE_CRASH_AFTER");
    if (c && strcmp(c, step) == 0) {
        fprintf(stderr, "weir: stopping after step %s (WEIR_CLICKHOUSE_CRASH_AFTER)\n", step);
        _exit(9);
    }
}

static bool rows(Dep *d, ChRows *r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool rows(Dep *d, ChRows *r, const char *fmt, ...)
{
    StrBuf b = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    bool ok = ch_query(d->c, sb_cstr(&b), r, d->err, d->errsize);
    sb_free(&b);
    return ok;
}

static long long count_of(Dep *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static long long count_of(Dep *d, const char *fmt, ...)
{
    StrBuf b = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    long long v = -1;
    if (!ch_query_i64(d->c, sb_cstr(&b), &v, d->err, d->errsize)) v = -1;
    sb_free(&b);
    return v;
}

static bool table_exists(Dep *d, const char *name)
{
    return count_of(d, "SELECT count() FROM system.tables WHERE database = %s AND name = %s", lit(d, d->db),
                    lit(d, name)) > 0;
}

/* ---- connect, metadata, lock ---- */

static int open_dep(Dep *d, Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err,
                    size_t errsize)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    d->g = g;
    d->o = o;
    d->err = err;
    d->errsize = errsize;
    d->out = out;
    arena_init(&d->a, 1 << 16);
    ChConfig cfg;
    if (!ch_config_resolve(p, &o->flags, &cfg, err, errsize)) return 2;
    d->c = ch_connect(&cfg, err, errsize);
    ch_config_free(&cfg);
    if (!d->c) return 3;
    if (o->log) ch_set_log(d->c, o->log);
    d->db = arena_strdup(&d->a, ch_database(d->c));
    ch_project_init_in(&d->cp, g, ch_caps(d->c), d->db);
    d->cp_init = true;
    return 0;
}

static void unlock(Dep *d);

static void close_dep(Dep *d)
{
    if (d->locked) unlock(d);
    if (d->cp_init) ch_project_fini(&d->cp);
    ch_close(d->c);
    arena_fini(&d->a);
}

static bool ensure_meta(Dep *d)
{
    StrBuf b = STRBUF_INIT;
    ch_ident(&b, d->db);
    bool ok = execf(d, "CREATE DATABASE IF NOT EXISTS %s", sb_cstr(&b));
    sb_free(&b);
    static const char *const tables[][2] = {
        {"_weir_meta_version", "`version` UInt32, `at_ms` UInt64"},
        {"_weir_deployments", "`deployment_id` String, `state` String, `detail` String, `at_ms` UInt64"},
        {"_weir_objects", "`deployment_id` String, `kind` String, `name` String, `physical` String, `mv` String, "
                          "`kafka` String, `grp` String, `input` String, `replay_from` String, `signature` String, "
                          "`view_sql` String, `created` UInt8, `replay` UInt8, `action` String, `at_ms` UInt64"},
        {"_weir_manifests", "`deployment_id` String, `manifest` String, `at_ms` UInt64"},
        {"_weir_replays", "`deployment_id` String, `model` String, `rows` UInt64, `at_ms` UInt64"},
        {"_weir_boundaries", "`deployment_id` String, `source` String, `cut` String, `partition` Int32, "
                             "`offset` Int64, `at_ms` UInt64"},
        {"_weir_publications", "`publication_id` String, `deployment_id` String, `operation` String, "
                               "`phase` String, `logical` String, `physical` String, `view_sql` String, "
                               "`previous_physical` String, `previous_sql` String, `at_ms` UInt64"},
    };
    for (size_t i = 0; ok && i < sizeof tables / sizeof tables[0]; i++) {
        ok = execf(d, "CREATE TABLE IF NOT EXISTS %s (%s) ENGINE = MergeTree() ORDER BY tuple()", qn(d, tables[i][0]),
                   tables[i][1]);
        long long latest = ok ? count_of(d, "SELECT max(at_ms) FROM %s", qn(d, tables[i][0])) : -1;
        if (latest < 0) ok = false;
        else if (latest > d->last_at_ms) d->last_at_ms = latest;
    }
    if (ok && count_of(d, "SELECT count() FROM %s", qn(d, "_weir_meta_version")) == 0)
        ok = execf(d, "INSERT INTO %s SELECT %d, %s", qn(d, "_weir_meta_version"), META_VERSION, stamp(d));
    return ok;
}

static bool meta_exists(Dep *d) { return table_exists(d, "_weir_deployments"); }

static const char *hostname_str(Dep *d)
{
    char h[256] = "";
    gethostname(h, sizeof h - 1);
    return arena_strdup(&d->a, h);
}

/* One mutating command at a time: the lock is the table `_weir_lock` (CREATE TABLE
 * succeeds for exactly one caller) holding who took it. A lock whose holder is a
 * process of this host that no longer exists is stale and taken over. */
static int lock(Dep *d, const char *command)
{
    StrBuf b = STRBUF_INIT;
    ch_ident(&b, d->db);
    if (!execf(d, "CREATE DATABASE IF NOT EXISTS %s", sb_cstr(&b))) {
        sb_free(&b);
        return 3;
    }
    sb_free(&b);
    const char *host = hostname_str(d);
    for (int attempt = 0; attempt < 3; attempt++) {
        int code = 0;
        StrBuf s = STRBUF_INIT;
        sb_printf(&s, "CREATE TABLE %s (`host` String, `pid` UInt32, `command` String, `at_ms` UInt64) ENGINE = Log",
                  qn(d, "_weir_lock"));
        bool ok = ch_exec(d->c, sb_cstr(&s), NULL, &code, d->err, d->errsize);
        sb_free(&s);
        if (ok) {
            d->locked = true;
            if (!execf(d, "INSERT INTO %s SELECT %s, %d, %s, %s", qn(d, "_weir_lock"), lit(d, host), (int)getpid(),
                       lit(d, command), stamp(d)))
                return 3;
            return 0;
        }
        if (code != 57) return 3;
        ChRows r;
        if (!rows(d, &r, "SELECT host, pid, command, at_ms FROM %s", qn(d, "_weir_lock"))) return 3;
        bool stale = false;
        char who[512] = "another weir command";
        if (r.nrows > 0) {
            const char *h = ch_cell(&r, 0, 0), *pid = ch_cell(&r, 0, 1), *cmd = ch_cell(&r, 0, 2);
            snprintf(who, sizeof who, "weir %s (pid %s on %s)", cmd ? cmd : "?", pid ? pid : "?", h ? h : "?");
            if (h && pid && strcmp(h, host) == 0 && kill((pid_t)atoi(pid), 0) != 0 && errno == ESRCH) stale = true;
        }
        ch_rows_free(&r);
        if (!stale) {
            snprintf(d->err, d->errsize,
                     "the target is locked by %s; mutating commands never overlap (if that process is gone, "
                     "DROP TABLE %s)",
                     who, qn(d, "_weir_lock"));
            return 1;
        }
        if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, "_weir_lock"))) return 3;
    }
    snprintf(d->err, d->errsize, "could not take the lock %s", qn(d, "_weir_lock"));
    return 1;
}

static void unlock(Dep *d)
{
    char e[512];
    StrBuf b = STRBUF_INIT;
    sb_printf(&b, "DROP TABLE IF EXISTS %s", qn(d, "_weir_lock"));
    ch_exec(d->c, sb_cstr(&b), NULL, NULL, e, sizeof e);
    sb_free(&b);
    d->locked = false;
}

/* open_dep, the lock and the metadata tables: the start of every mutating verb. On
 * failure the Dep is closed. */
static int open_locked(Dep *d, Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err,
                       size_t errsize, const char *command)
{
    int rc = open_dep(d, p, g, o, out, err, errsize);
    if (!rc) rc = lock(d, command);
    if (!rc && !ensure_meta(d)) rc = 3;
    if (rc) close_dep(d);
    return rc;
}

static bool record_state(Dep *d, const char *dep, const char *state, const char *detail)
{
    return execf(d, "INSERT INTO %s SELECT %s, %s, %s, %s", qn(d, "_weir_deployments"), lit(d, dep), lit(d, state),
                 lit(d, detail ? detail : ""), stamp(d));
}

/* The latest state of a deployment ("" when unknown). */
static const char *dep_state(Dep *d, const char *dep)
{
    ChRows r;
    if (!rows(d, &r, "SELECT state FROM %s WHERE deployment_id = %s ORDER BY at_ms DESC, state DESC LIMIT 1",
              qn(d, "_weir_deployments"), lit(d, dep)))
        return NULL;
    const char *s = arena_strdup(&d->a, ch_cell(&r, 0, 0) ? ch_cell(&r, 0, 0) : "");
    ch_rows_free(&r);
    return s;
}

static bool dep_reached(Dep *d, const char *dep, const char *state)
{
    return count_of(d, "SELECT count() FROM %s WHERE deployment_id = %s AND state = %s", qn(d, "_weir_deployments"),
                    lit(d, dep), lit(d, state)) > 0;
}

/* ---- the active state: the latest completed publication of every stable view ---- */

typedef struct Binding {
    const char *logical, *deployment, *physical, *view_sql, *publication;
} Binding;

static int load_bindings(Dep *d, Binding **out)
{
    *out = NULL;
    if (!meta_exists(d)) return 0;
    ChRows r;
    /* a publication counts once its `done` row exists */
    if (!rows(d, &r,
              "SELECT logical, argMax(deployment_id, at_ms), argMax(physical, at_ms), argMax(view_sql, at_ms), "
              "argMax(publication_id, at_ms) FROM %s WHERE phase = 'done' GROUP BY logical ORDER BY logical",
              qn(d, "_weir_publications")))
        return -1;
    Binding *b = ARENA_ARRAY(&d->a, Binding, r.nrows ? r.nrows : 1);
    int n = 0;
    for (int i = 0; i < r.nrows; i++) {
        const char *phys = ch_cell(&r, i, 2);
        if (!phys || !*phys) continue;  /* removed by a rollback */
        b[n].logical = arena_strdup(&d->a, ch_cell(&r, i, 0));
        b[n].deployment = arena_strdup(&d->a, ch_cell(&r, i, 1));
        b[n].physical = arena_strdup(&d->a, phys);
        b[n].view_sql = arena_strdup(&d->a, ch_cell(&r, i, 3) ? ch_cell(&r, i, 3) : "");
        b[n].publication = arena_strdup(&d->a, ch_cell(&r, i, 4));
        n++;
    }
    ch_rows_free(&r);
    *out = b;
    return n;
}

/* The object row of `name` in deployment dep. */
static bool load_active(Dep *d, const char *dep, const char *kind, const char *name, Active *a)
{
    memset(a, 0, sizeof *a);
    ChRows r;
    if (!rows(d, &r,
              "SELECT physical, input, signature, view_sql, mv, kafka, grp FROM %s WHERE deployment_id = %s AND kind = %s "
              "AND name = %s LIMIT 1",
              qn(d, "_weir_objects"), lit(d, dep), lit(d, kind), lit(d, name)))
        return false;
    if (r.nrows) {
        a->deployment = dep;
        a->physical = arena_strdup(&d->a, ch_cell(&r, 0, 0));
        a->input = arena_strdup(&d->a, ch_cell(&r, 0, 1));
        a->signature = arena_strdup(&d->a, ch_cell(&r, 0, 2));
        a->view_sql = arena_strdup(&d->a, ch_cell(&r, 0, 3));
        a->mv = arena_strdup(&d->a, ch_cell(&r, 0, 4));
        a->kafka = arena_strdup(&d->a, ch_cell(&r, 0, 5));
        a->group = arena_strdup(&d->a, ch_cell(&r, 0, 6));
    }
    ch_rows_free(&r);
    return true;
}

/* The deployment that is "current" for planning: the newest deployment any stable view
 * is bound to (its manifest and landings describe what runs). */
static const char *current_deployment(Dep *d, const Binding *b, int nb)
{
    const char *best = NULL;
    for (int i = 0; i < nb; i++)
        if (!best || strcmp(b[i].deployment, best) > 0) best = b[i].deployment;
    return best;
}

/* ---- desired state ---- */

static const char *new_deployment_id(Dep *d)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char ts[32];
    strftime(ts, sizeof ts, "%Y%m%dT%H%M%SZ", &tm);
    uint64_t h = hash_u64((uint64_t)getpid() ^ ((uint64_t)t << 20), 0x77656972);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    h = hash_u64(h ^ (uint64_t)now.tv_nsec, 1);
    return arena_printf(&d->a, "%s_%06llx", ts, (unsigned long long)(h & 0xffffff));
}

static const char *kafka_brokers(Dep *d, const SourceDef *s)
{
    const char *raw = s->bootstrap_servers ? s->bootstrap_servers : d->p->target ? d->p->target->kafka_bootstrap : NULL;
    if (!raw) return NULL;
    char e[256];
    const char *v = project_resolve_env(d->p, raw, e, sizeof e);
    return v;
}

static const char *group_name(Dep *d, const char *object, const char *dep)
{
    /* scoped per project, target and database; a new view gets a new group, which
     * starts at the earliest offset or where weir commits it */
    return arena_printf(&d->a, "weir_%s_%s_%s_%s_%s", d->p->name ? d->p->name : "project",
                        d->p->target ? d->p->target->name : "target", d->db, object, dep);
}

/* What a native model's columns are on the live table `physical` against the model's
 * (for plan's reason): NULL when they are the same. */
static const char *native_column_diff(Dep *d, const ChModel *m, const char *physical)
{
    ChRows r;
    if (!rows(d, &r,
              "SELECT name, type FROM system.columns WHERE database = %s AND table = %s AND NOT startsWith(name, "
              "'_weir_')",
              lit(d, d->db), lit(d, physical)))
        return NULL;
    StrBuf b = STRBUF_INIT;
    for (int i = 0; i < m->native_ncols; i++) {
        int k = -1;
        for (int j = 0; j < r.nrows && k < 0; j++)
            if (strcmp(ch_cell(&r, j, 0), m->native_col_names[i]) == 0) k = j;
        if (k < 0) sb_printf(&b, "%s+ %s %s", b.len ? ", " : "", m->native_col_names[i], m->native_col_types[i]);
        else if (strcmp(ch_cell(&r, k, 1), m->native_col_types[i]) != 0)
            sb_printf(&b, "%s~ %s %s -> %s", b.len ? ", " : "", m->native_col_names[i], ch_cell(&r, k, 1),
                      m->native_col_types[i]);
    }
    for (int j = 0; j < r.nrows; j++) {
        bool kept = false;
        for (int i = 0; i < m->native_ncols && !kept; i++)
            kept = strcmp(ch_cell(&r, j, 0), m->native_col_names[i]) == 0;
        if (!kept) sb_printf(&b, "%s- %s %s", b.len ? ", " : "", ch_cell(&r, j, 0), ch_cell(&r, j, 1));
    }
    ch_rows_free(&r);
    const char *out = b.len ? arena_strdup(&d->a, sb_cstr(&b)) : NULL;
    sb_free(&b);
    return out;
}

/* A native model in deployment `dep`: its table is kept while the model's columns and
 * everything its rows depend on (the model's fingerprint: its query, its upstream
 * models', its sources') are the same; otherwise the deployment makes a new table,
 * which apply fills with the native runtime from the start of the sources (a fresh
 * state of its own) before the stable view is switched to it at publish. */
static int desired_native(Dep *d, const char *dep, const ChModel *m, const Binding *bs, int nb, Obj *o)
{
    const IrModel *im = &d->g->models[m->index];
    o->native = true;
    o->replay_from = "";
    o->signature = arena_printf(&d->a, "native\n%s\nfingerprint=%s", m->native_ddl_tail, im->fingerprint_hex);
    Active a = {0};
    bool bound = false, have = false;
    for (int j = 0; j < nb; j++)
        if (strcmp(bs[j].logical, m->name) == 0) {
            bound = true;
            if (!load_active(d, bs[j].deployment, "native", m->name, &a)) return 3;
            have = a.physical != NULL;
        }
    const char *run = arena_printf(&d->a, "computed by weir's native runtime (%s); `weir run --target %s` keeps "
                                          "it current",
                                   m->why, d->p->target ? d->p->target->name : "?");
    if (have && strcmp(a.signature, o->signature) == 0 && table_exists(d, a.physical)) {
        o->physical = a.physical;
        o->action = "unchanged";
        o->reason = arena_printf(&d->a, "native: %s, rows in %s", run, qn(d, a.physical));
    } else {
        o->physical = arena_printf(&d->a, "%s__%s", m->name, dep);
        o->create = o->replay = true;
        o->action = bound ? "rebuild" : "new";
        const char *diff = have && table_exists(d, a.physical) ? native_column_diff(d, m, a.physical) : NULL;
        const char *why = !bound  ? "a new table"
                          : diff  ? arena_printf(&d->a, "its columns changed (%s): a new table", diff)
                          : have  ? "its query or its inputs changed: a new table"
                                  : "it was not native before: a new table";
        o->reason = arena_printf(&d->a, "native: %s with a fresh state of its own, before the stable view "
                                        "switches to it; %s",
                                 why, run);
    }
    o->view_sql = ch_fill(&d->a, m->native_view_select, NULL, qn(d, o->physical), NULL);
    if (!o->create && have && strcmp(a.view_sql, o->view_sql) != 0) o->action = "view";
    return 0;
}

/* Plan the objects of deployment `dep` against the active state. objs: sources first
 * (project order), then models (topological order). Every view fed by Kafka has a
 * Kafka engine table and a consumer group of its own: the only consumer of each, it
 * starts exactly where its group's offsets say (18.16 pushes a Kafka block to the views
 * of the Kafka table only, not on to the views of their target tables, and a Kafka
 * table with several views could feed one before the next exists). */
static int desired(Dep *d, const char *dep, const char *base, Obj **out, int *nout)
{
    const Project *p = d->p;
    ChProject *cp = &d->cp;
    int n = 0;
    Obj *objs = ARENA_ARRAY(&d->a, Obj, p->nsources + p->nmodels + 1);
    const char **src_raw = ARENA_ARRAY(&d->a, const char *, p->nsources + 1);
    bool *src_new = ARENA_ARRAY(&d->a, bool, p->nsources + 1);
    for (int i = 0; i < p->nsources; i++) {
        const ChSource *s = &cp->sources[i];
        if (!s->managed && !s->adopted) continue;
        Obj *o = &objs[n++];
        o->name = s->name;
        o->is_source = true;
        o->index = i;
        if (s->adopted) {
            /* read in place, never created */
            StrBuf b = STRBUF_INIT;
            if (strchr(p->sources[i].table, '.')) sb_puts(&b, s->table);
            else ch_qual(&b, d->db, p->sources[i].table);
            o->physical = arena_strdup(&d->a, sb_cstr(&b));
            sb_free(&b);
            o->signature = arena_printf(&d->a, "adopted %s", o->physical);
            o->action = "adopted";
            src_raw[i] = o->physical;
            continue;
        }
        const char *brokers = kafka_brokers(d, &p->sources[i]);
        o->signature = arena_printf(&d->a, "topic=%s;brokers=%s;columns=%s;select=%s", s->topic ? s->topic : "",
                                    brokers ? brokers : "", s->raw_columns, s->landing_select);
        Active a = {0};
        if (base && !load_active(d, base, "landing", s->name, &a)) return 3;
        if (a.physical && a.signature && strcmp(a.signature, o->signature) == 0 && table_exists(d, a.physical)) {
            o->physical = a.physical;
            o->mv = a.mv;
            o->kafka = a.kafka;
            o->group = a.group;
            o->action = "unchanged";
        } else {
            o->physical = arena_printf(&d->a, "raw__%s__%s", s->object, dep);
            o->mv = arena_printf(&d->a, "mv__%s__%s", s->object, dep);
            o->kafka = arena_printf(&d->a, "kafka__%s__%s", s->object, dep);
            o->group = group_name(d, s->object, dep);
            o->create = true;
            o->action = a.physical ? "rebuild" : "new";
            o->reason = a.physical ? "the source's definition changed: a new landing reads the topic from its earliest "
                                     "offset"
                                   : "a new landing reads the topic from its earliest offset";
            if (!brokers) {
                snprintf(d->err, d->errsize, "source %s: no Kafka bootstrap servers (set the target's "
                                             "kafka.bootstrap_servers)", s->name);
                return 2;
            }
            src_new[i] = true;
        }
        src_raw[i] = qn(d, o->physical);
    }
    Binding *bs = NULL;
    int nb = base ? load_bindings(d, &bs) : 0;
    if (nb < 0) return 3;
    const BoundProject *bp = d->g->bound;
    for (int t = 0; t < bp->ntopo; t++) {
        int mi = bp->topo[t];
        const ChModel *m = &cp->models[mi];
        if (m->kind == CHK_EPHEMERAL) continue;
        Obj *o = &objs[n++];
        o->name = m->name;
        o->index = mi;
        if (m->kind == CHK_REFUSED) {
            o->action = "refused";
            o->reason = m->why;
            continue;
        }
        if (m->kind == CHK_NATIVE) {
            int rc = desired_native(d, dep, m, bs, nb, o);
            if (rc) return rc;
            continue;
        }
        const ChSource *s = &cp->sources[m->in_source];
        o->replay_from = src_raw[m->in_source];
        /* the table's signature: everything but the physical names */
        o->signature = arena_printf(&d->a, "%s\n%s\nlanding=%s", ch_table_ddl(cp, m, "D", "T"), m->mv_select,
                                    o->replay_from);
        Active a = {0};
        bool have = false;
        for (int j = 0; j < nb; j++)
            if (strcmp(bs[j].logical, m->name) == 0) {
                if (!load_active(d, bs[j].deployment, "model", m->name, &a)) return 3;
                have = a.physical != NULL;
            }
        if (have && strcmp(a.signature, o->signature) == 0 && table_exists(d, a.physical)) {
            o->physical = a.physical;
            o->mv = a.mv;
            o->kafka = a.kafka;
            o->group = a.group;
            o->input = a.input;
            o->action = "unchanged";
        } else {
            o->physical = arena_printf(&d->a, "%s__%s", m->name, dep);
            o->mv = arena_printf(&d->a, "%s__%s__mv", m->name, dep);
            if (s->managed) {
                o->kafka = arena_printf(&d->a, "%s__%s__kafka", m->name, dep);
                o->group = group_name(d, m->name, dep);
                o->input = qn(d, o->kafka);
            } else {
                o->input = o->replay_from;
            }
            o->create = true;
            o->replay = !src_new[m->in_source];
            o->action = have ? "rebuild" : "new";
            if (have)
                o->reason = src_new[m->in_source] ? "its source has a new landing"
                                                  : "its table or materialized view changed";
        }
        o->view_sql = ch_view_select(cp, m, qn(d, o->physical), o->input);
        if (!o->create && have && strcmp(a.view_sql, o->view_sql) != 0) o->action = "view";
    }
    *out = objs;
    *nout = n;
    return 0;
}

static bool insert_objects(Dep *d, const char *dep, const Obj *objs, int n)
{
    for (int i = 0; i < n; i++) {
        const Obj *o = &objs[i];
        if (!o->physical) continue;
        StrBuf b = STRBUF_INIT;
        sb_printf(&b, "INSERT INTO %s SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %d, %s, %s",
                  qn(d, "_weir_objects"), lit(d, dep), o->is_source ? "'landing'" : o->native ? "'native'" : "'model'",
                  lit(d, o->name),
                  lit(d, o->physical), lit(d, o->mv), lit(d, o->kafka), lit(d, o->group), lit(d, o->input),
                  lit(d, o->replay_from), lit(d, o->signature), lit(d, o->view_sql), o->create ? 1 : 0,
                  o->replay ? 1 : 0, lit(d, o->action), stamp(d));
        bool ok = exec(d, sb_cstr(&b));
        sb_free(&b);
        if (!ok) return false;
    }
    return true;
}

static int load_objects(Dep *d, const char *dep, Obj **out)
{
    ChRows r;
    if (!rows(d, &r,
              "SELECT kind, name, physical, mv, kafka, grp, input, replay_from, signature, view_sql, created, replay, "
              "action FROM %s "
              "WHERE deployment_id = %s ORDER BY at_ms, kind, name",
              qn(d, "_weir_objects"), lit(d, dep)))
        return -1;
    Obj *objs = ARENA_ARRAY(&d->a, Obj, r.nrows ? r.nrows : 1);
    for (int i = 0; i < r.nrows; i++) {
        Obj *o = &objs[i];
#define C(k) arena_strdup(&d->a, ch_cell(&r, i, k) ? ch_cell(&r, i, k) : "")
        o->is_source = strcmp(C(0), "landing") == 0;
        o->native = strcmp(C(0), "native") == 0;
        o->name = C(1);
        o->physical = C(2);
        o->mv = C(3);
        o->kafka = C(4);
        o->group = C(5);
        o->input = C(6);
        o->replay_from = C(7);
        o->signature = C(8);
        o->view_sql = C(9);
        o->create = atoi(C(10)) != 0;
        o->replay = atoi(C(11)) != 0;
        o->action = C(12);
#undef C
        o->index = -1;
        if (o->is_source) {
            const SourceDef *s = project_find_source(d->p, o->name);
            if (s) o->index = (int)(s - d->p->sources);
        } else {
            const ModelDef *m = project_find_model(d->p, o->name);
            if (m) o->index = (int)(m - d->p->models);
        }
    }
    int n = r.nrows;
    ch_rows_free(&r);
    *out = objs;
    return n;
}

static const char *manifest_text(Dep *d)
{
    StrBuf b = STRBUF_INIT;
    manifest_render(d->g, &b);
    char *s = arena_strdup(&d->a, sb_cstr(&b));
    sb_free(&b);
    return s;
}

/* ---- plan ---- */

static void render_objects(Dep *d, const Obj *objs, int n, StrBuf *out)
{
    for (int i = 0; i < n; i++) {
        const Obj *o = &objs[i];
        sb_printf(out, "  %-6s %-28s %s", o->is_source ? "source" : "model", o->name, o->action);
        if (o->create) sb_printf(out, " -> %s", o->physical);
        if (o->replay)
            sb_puts(out, o->native ? " (filled by the native runtime from the start of its sources)"
                                   : " (history replayed at an exact cut-over)");
        if (strcmp(o->action, "view") == 0) sb_puts(out, " (only the stable view changes; the table is kept)");
        if (o->reason) sb_printf(out, "\n         %s", o->reason);
        sb_putc(out, '\n');
    }
}

static void render_objects_json(const Obj *objs, int n, StrBuf *out)
{
    sb_puts(out, "[");
    for (int i = 0; i < n; i++) {
        const Obj *o = &objs[i];
        sb_printf(out, "%s{\"kind\":\"%s\",\"name\":", i ? "," : "", o->is_source ? "source" : "model");
        sb_json_str(out, o->name, strlen(o->name));
        sb_printf(out, ",\"action\":\"%s\",\"creates\":%s,\"replay\":%s", o->action, o->create ? "true" : "false",
                  o->replay ? "true" : "false");
        if (o->physical) {
            sb_puts(out, ",\"physical\":");
            sb_json_str(out, o->physical, strlen(o->physical));
        }
        if (o->reason) {
            sb_puts(out, ",\"reason\":");
            sb_json_str(out, o->reason, strlen(o->reason));
        }
        sb_putc(out, '}');
    }
    sb_puts(out, "]");
}

int ch_verb_deployed(Project *p, const IrGraph *g, const ChOptions *o, char **manifest, size_t *len, StrBuf *desc,
                     char *err, size_t errsize)
{
    *manifest = NULL;
    *len = 0;
    Dep d;
    int rc = open_dep(&d, p, g, o, NULL, err, errsize);
    Binding *bs = NULL;
    int nb = rc ? 0 : load_bindings(&d, &bs);
    if (!rc && nb < 0) rc = 3;
    const char *base = rc ? NULL : current_deployment(&d, bs, nb);
    if (!rc && base) {
        ChRows r;
        if (!rows(&d, &r, "SELECT manifest FROM %s WHERE deployment_id = %s LIMIT 1", qn(&d, "_weir_manifests"),
                  lit(&d, base))) {
            rc = 3;
        } else {
            const char *mt = ch_cell(&r, 0, 0);
            if (mt) {
                *manifest = xstrdup(mt);
                *len = strlen(mt);
            }
            ch_rows_free(&r);
        }
    }
    if (!rc) {
        if (base) sb_printf(desc, "deployment %s on ClickHouse %s, database %s", base, ch_caps(d.c)->version, d.db);
        else sb_printf(desc, "ClickHouse %s, database %s, where nothing is deployed yet", ch_caps(d.c)->version, d.db);
    }
    close_dep(&d);
    return rc;
}

int ch_verb_plan(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_dep(&d, p, g, o, out, err, errsize);
    if (rc) {
        close_dep(&d);
        return rc;
    }
    Binding *bs = NULL;
    int nb = load_bindings(&d, &bs);
    if (nb < 0) {
        close_dep(&d);
        return 3;
    }
    const char *base = current_deployment(&d, bs, nb);
    Manifest running, next;
    bool have_running = false;
    if (base) {
        ChRows r;
        if (!rows(&d, &r, "SELECT manifest FROM %s WHERE deployment_id = %s LIMIT 1", qn(&d, "_weir_manifests"),
                  lit(&d, base))) {
            close_dep(&d);
            return 3;
        }
        const char *mt = ch_cell(&r, 0, 0);
        if (mt && manifest_parse(mt, strlen(mt), "the deployed manifest", &running, err, errsize)) have_running = true;
        ch_rows_free(&r);
    }
    if (!manifest_of_graph(g, &next, err, errsize)) {
        if (have_running) manifest_free(&running);
        close_dep(&d);
        return 3;
    }
    Plan plan;
    plan_compute(have_running ? &running : NULL, &next, &plan);
    Obj *objs = NULL;
    int n = 0;
    rc = desired(&d, "<new>", base, &objs, &n);
    const char *against = base ? arena_printf(&d.a, "deployment %s on ClickHouse %s, database %s", base,
                                              ch_caps(d.c)->version, d.db)
                               : arena_printf(&d.a, "ClickHouse %s, database %s, where nothing is deployed yet",
                                              ch_caps(d.c)->version, d.db);
    if (!rc) {
        if (o->json) {
            StrBuf pj = STRBUF_INIT;
            plan_render_json(&plan, against, &pj);
            /* the lifecycle plan, then what ClickHouse does */
            while (pj.len && (pj.data[pj.len - 1] == '\n' || pj.data[pj.len - 1] == '}')) {
                if (pj.data[pj.len - 1] == '}') {
                    pj.len--;
                    break;
                }
                pj.len--;
            }
            sb_append(out, pj.data, pj.len);
            sb_puts(out, ",\"clickhouse\":{\"database\":");
            sb_json_str(out, d.db, strlen(d.db));
            sb_printf(out, ",\"server\":\"%s\",\"deployed\":", ch_caps(d.c)->version);
            if (base) sb_json_str(out, base, strlen(base));
            else sb_puts(out, "null");
            sb_puts(out, ",\"objects\":");
            render_objects_json(objs, n, out);
            sb_puts(out, "}}\n");
            sb_free(&pj);
        } else {
            plan_render_text(&plan, against, out);
            sb_puts(out, "\nClickHouse:\n");
            render_objects(&d, objs, n, out);
        }
        for (int i = 0; i < n; i++)
            if (strcmp(objs[i].action, "refused") == 0) rc = 1;
        if (o->fail_on >= 0 && plan_reaches(&plan, (Verdict)o->fail_on)) rc = 1;
    }
    plan_free(&plan);
    manifest_free(&next);
    if (have_running) manifest_free(&running);
    close_dep(&d);
    return rc;
}

/* ---- apply: stage ---- */

/* Copy every active partition of `from` into `to` (created AS `from`): instant, by hard
 * links. */
static bool snapshot(Dep *d, const char *from_q, const char *to)
{
    const char *fdb, *fname;
    const char *dot = strstr(from_q, "`.`");
    fdb = arena_strndup(&d->a, from_q + 1, (size_t)(dot - from_q - 1));
    fname = arena_strndup(&d->a, dot + 3, strlen(dot + 3) - 1);
    if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, to)) || !execf(d, "CREATE TABLE %s AS %s", qn(d, to), from_q))
        return false;
    ChRows r;
    if (!rows(d, &r, "SELECT DISTINCT partition_id FROM system.parts WHERE database = %s AND table = %s AND active",
              lit(d, fdb), lit(d, fname)))
        return false;
    bool ok = true;
    for (int i = 0; ok && i < r.nrows; i++)
        ok = execf(d, "ALTER TABLE %s REPLACE PARTITION ID %s FROM %s", qn(d, to), lit(d, ch_cell(&r, i, 0)), from_q);
    ch_rows_free(&r);
    return ok;
}

static const char *snap_name(Dep *d, const char *dep, const char *source_object)
{
    return arena_printf(&d->a, "_weir_snap__%s__%s", dep, source_object);
}

/* Wait until a paused landing is still: its group's committed offsets and the raw
 * table's row count read the same twice in a row (a detached view finishes the block
 * it is writing). Returns the offsets. */
static int settle(Dep *d, const SourceDef *sd, const Obj *src, int64_t **offsets)
{
    int64_t *prev = NULL;
    long long prev_rows = -2;
    int n = -1;
    for (int attempt = 0; attempt < 600; attempt++) {
        int64_t *cur = NULL;
        n = kafka_group_offsets(d->p, sd, src->group, &cur, d->err, d->errsize);
        if (n < 0) {
            free(prev);
            return -1;
        }
        long long rows_now = count_of(d, "SELECT count() FROM %s", qn(d, src->physical));
        if (rows_now < 0) {
            free(cur);
            free(prev);
            return -1;
        }
        if (prev && rows_now == prev_rows && memcmp(prev, cur, sizeof(int64_t) * (size_t)n) == 0) {
            free(prev);
            *offsets = cur;
            return n;
        }
        free(prev);
        prev = cur;
        prev_rows = rows_now;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    free(prev);
    snprintf(d->err, d->errsize, "the landing of source %s did not come to rest after its view was detached",
             src->name);
    return -1;
}

/* An adopted table's cut (docs/clickhouse.md): a fence F on its replay boundary.
 * `timestamp` / `landed_at` (a time the server stamps as rows arrive): F is the server's
 * time plus 2 s, and weir waits until it has passed before the replay; `cursor`: F is
 * the largest value at the capture; `offsets`: the largest offset per partition. The new
 * views take the rows above F, the replay the rows at or below it. */
static int check_adopted(Dep *d, const ChSource *s, const char *table_q)
{
    const char *cols[2] = {s->boundary_cols[0], s->boundary_cols[1]};
    bool offsets = strcmp(s->boundary_mode, "offsets") == 0;
    if (strcmp(s->boundary_mode, "none") == 0 || !cols[0] || (offsets && !cols[1])) {
        snprintf(d->err, d->errsize,
                 "source %s: an adopted table needs `replay_boundary: {mode: offsets, columns: {partition: P, "
                 "offset: O}}` or `{mode: timestamp|landed_at|cursor, column: C}`",
                 s->name);
        return 2;
    }
    const char *db, *name;
    const char *dot = strstr(table_q, "`.`");
    db = arena_strndup(&d->a, table_q + 1, (size_t)(dot - table_q - 1));
    name = arena_strndup(&d->a, dot + 3, strlen(dot + 3) - 1);
    for (int k = 0; k < (offsets ? 2 : 1); k++) {
        long long c = count_of(d, "SELECT count() FROM system.columns WHERE database = %s AND table = %s AND name = %s",
                               lit(d, db), lit(d, name), lit(d, cols[k]));
        if (c < 0) return 3;
        if (c == 0) {
            snprintf(d->err, d->errsize, "source %s: the table %s has no column %s (its replay boundary); nothing was "
                                         "changed", s->name, table_q, cols[k]);
            return 2;
        }
    }
    return 0;
}

static const char *fence_sql(Dep *d, const ChSource *s, ChRows *b, bool above)
{
    StrBuf w = STRBUF_INIT;
    const char *op = above ? ">" : "<=";
    if (strcmp(s->boundary_mode, "offsets") == 0) {
        sb_puts(&w, "multiIf(");
        for (int k = 0; k < b->nrows; k++) {
            if (atoi(ch_cell(b, k, 1)) < 0) continue;
            ch_ident(&w, s->boundary_cols[0]);
            sb_printf(&w, " = %s, ", ch_cell(b, k, 1));
            ch_ident(&w, s->boundary_cols[1]);
            sb_printf(&w, " %s %s, ", op, ch_cell(b, k, 2));
        }
        sb_puts(&w, above ? "1)" : "0)");
    } else {
        const char *f = "0";
        for (int k = 0; k < b->nrows; k++)
            if (atoi(ch_cell(b, k, 1)) < 0) f = ch_cell(b, k, 2);
        bool time = strcmp(s->boundary_mode, "cursor") != 0;
        if (time) sb_puts(&w, "toUnixTimestamp(");
        ch_ident(&w, s->boundary_cols[0]);
        sb_printf(&w, "%s %s %s", time ? ")" : "", op, f);
    }
    const char *r = arena_strdup(&d->a, sb_cstr(&w));
    sb_free(&w);
    return r;
}

static int capture_adopted(Dep *d, const char *dep, const Obj *src, const ChSource *s)
{
    if (count_of(d, "SELECT count() FROM %s WHERE deployment_id = %s AND source = %s", qn(d, "_weir_boundaries"),
                 lit(d, dep), lit(d, src->name)) > 0)
        return 0;  /* captured before a crash */
    StrBuf b = STRBUF_INIT;
    sb_printf(&b, "INSERT INTO %s (deployment_id, source, cut, partition, offset, at_ms) ", qn(d, "_weir_boundaries"));
    if (strcmp(s->boundary_mode, "offsets") == 0) {
        sb_printf(&b, "SELECT %s, %s, 'fence', toInt32(", lit(d, dep), lit(d, src->name));
        ch_ident(&b, s->boundary_cols[0]);
        sb_puts(&b, "), toInt64(max(");
        ch_ident(&b, s->boundary_cols[1]);
        sb_printf(&b, ")), 0 FROM %s GROUP BY ", src->physical);
        ch_ident(&b, s->boundary_cols[0]);
        sb_printf(&b, " UNION ALL SELECT %s, %s, 'fence', -1, -1, 0", lit(d, dep), lit(d, src->name));
    } else if (strcmp(s->boundary_mode, "cursor") == 0) {
        sb_printf(&b, "SELECT %s, %s, 'fence', -1, toInt64(ifNull(max(", lit(d, dep), lit(d, src->name));
        ch_ident(&b, s->boundary_cols[0]);
        sb_printf(&b, "), 0)), 0 FROM %s", src->physical);
    } else {
        sb_printf(&b, "SELECT %s, %s, 'fence', -1, toInt64(toUnixTimestamp(now())) + 2, 0", lit(d, dep),
                  lit(d, src->name));
    }
    bool ok = exec(d, sb_cstr(&b));
    sb_free(&b);
    return ok ? 0 : 3;
}

static bool load_fence(Dep *d, const char *dep, const char *source, ChRows *b)
{
    return rows(d, b, "SELECT cut, partition, offset FROM %s WHERE deployment_id = %s AND source = %s ORDER BY partition",
                qn(d, "_weir_boundaries"), lit(d, dep), lit(d, source));
}

/* A bounded replay (`replay_on_change: bounded-<n>`, docs/clickhouse.md): the window is
 * the rows of the replay source whose replay time is at least lower = the server's
 * time - n; *from becomes that part of the source. Seeded (the model projects its
 * source's replay time and the active table has that column and the same types for the
 * columns both tables have): *seed copies the active table's rows below lower into the
 * scratch table (as replayed rows). Unseeded (a type changed, or the fallback
 * bounded_without_history): only the window. Otherwise (the active table keeps no
 * replay time, the source has none) the whole history, as `full`; a new model (no
 * active table) too. The mode is reported in the deployment's output. */
static int bounded_replay(Dep *d, const Obj *o, const ChModel *m, const char **from, const char **seed,
                          const char *scratch)
{
    if (!m->replay_time) {
        sb_printf(d->out, "  model %s: bounded replay: its source has no replay time to bound; full replay\n",
                  o->name);
        return 0;
    }
    ChRows r;
    if (!rows(d, &r, "SELECT toString(now() - %lld)", (long long)(m->bounded_us / 1000000))) return 3;
    const char *lower = arena_strdup(&d->a, ch_cell(&r, 0, 0));
    ch_rows_free(&r);
    /* the active table of the model (the stable view's), if any */
    const char *active = NULL;
    Binding *bs = NULL;
    int nb = load_bindings(d, &bs);
    if (nb < 0) return 3;
    for (int j = 0; j < nb; j++)
        if (strcmp(bs[j].logical, o->name) == 0) {
            Active a = {0};
            if (!load_active(d, bs[j].deployment, "model", o->name, &a)) return 3;
            active = a.physical;
        }
    if (!active) return 0;  /* a new model: the whole history */
    const char *mode = "unseeded";
    StrBuf cols = STRBUF_INIT;
    if (m->seed_col) {
        ChRows nc, ac;
        if (!rows(d, &nc, "SELECT name, type FROM system.columns WHERE database = %s AND table = %s",
                  lit(d, d->db), lit(d, o->physical)))
            return 3;
        if (!rows(d, &ac, "SELECT name, type FROM system.columns WHERE database = %s AND table = %s", lit(d, d->db),
                  lit(d, active))) {
            ch_rows_free(&nc);
            return 3;
        }
        bool has_seed = false, type_changed = false;
        for (int i = 0; i < nc.nrows; i++) {
            const char *name = ch_cell(&nc, i, 0);
            for (int k = 0; k < ac.nrows; k++) {
                if (strcmp(name, ch_cell(&ac, k, 0)) != 0) continue;
                if (strcmp(ch_cell(&nc, i, 1), ch_cell(&ac, k, 1)) != 0) type_changed = true;
                if (strcmp(name, "_weir_replay") == 0) break;
                if (cols.len) sb_puts(&cols, ", ");
                ch_ident(&cols, name);
                if (strcmp(name, m->seed_col) == 0) has_seed = true;
            }
        }
        ch_rows_free(&nc);
        ch_rows_free(&ac);
        if (!has_seed) mode = m->bounded_without_history ? "unseeded" : "full";
        else mode = type_changed ? "unseeded" : "seeded";
    } else {
        mode = m->bounded_without_history ? "unseeded" : "full";
    }
    sb_printf(d->out, "  model %s: %s replay (%s): %s\n", o->name, m->replay_policy, mode,
              strcmp(mode, "seeded") == 0 ? "the active table's rows below the window kept, the window replayed"
              : strcmp(mode, "unseeded") == 0 ? "only the window replayed, older history dropped"
                                              : "the active table keeps no replay time: the whole history replayed");
    if (strcmp(mode, "full") != 0)
        *from = arena_printf(&d->a, "(SELECT * FROM %s WHERE %s >= toDateTime(%s, 'UTC'))", *from, m->replay_time,
                             lit(d, lower));
    if (strcmp(mode, "seeded") == 0) {
        StrBuf sq = STRBUF_INIT;
        ch_ident(&sq, m->seed_col);
        const char *seed_col_q = arena_strdup(&d->a, sb_cstr(&sq));
        sb_free(&sq);
        *seed = arena_printf(&d->a, "INSERT INTO %s (%s, `_weir_replay`) SELECT %s, toUInt8(1) FROM %s WHERE %s < "
                                    "toDateTime(%s, 'UTC')",
                             qn(d, scratch), sb_cstr(&cols), sb_cstr(&cols), qn(d, active), seed_col_q, lit(d, lower));
    }
    sb_free(&cols);
    return 0;
}

static int stage(Dep *d, const char *dep, Obj *objs, int n)
{
    ChProject *cp = &d->cp;
    /* an adopted table's boundary columns are checked before anything is changed */
    for (int i = 0; i < n; i++)
        if (objs[i].is_source && objs[i].index >= 0 && cp->sources[objs[i].index].adopted) {
            /* a table only lookups read is never replayed from: it needs no boundary */
            bool streamed = false;
            for (int m = 0; m < cp->nmodels; m++)
                if (cp->models[m].in_source == objs[i].index) streamed = true;
            if (!streamed && strcmp(cp->sources[objs[i].index].boundary_mode, "none") == 0) continue;
            int rc = check_adopted(d, &cp->sources[objs[i].index], objs[i].physical);
            if (rc) return rc;
        }
    /* preparing: new landings' raw tables and every new table */
    if (!dep_reached(d, dep, "prepared")) {
        for (int i = 0; i < n; i++) {
            const Obj *o = &objs[i];
            if (!o->create) continue;
            const char *ddl = o->is_source ? ch_raw_ddl(cp, &cp->sources[o->index], d->db, o->physical)
                              : o->native  ? ch_native_table_ddl(cp, &cp->models[o->index], d->db, o->physical)
                                           : ch_table_ddl(cp, &cp->models[o->index], d->db, o->physical);
            if (!exec(d, ddl)) return 3;
        }
        if (!record_state(d, dep, "prepared", NULL)) return 3;
        crash_point("prepared");
    }
    /* the landings whose history is replayed: not new, and read by a replayed model */
    bool *paused = ARENA_ARRAY(&d->a, bool, n + 1);
    for (int i = 0; i < n; i++) {
        const Obj *o = &objs[i];
        if (!o->is_source || o->create || !o->mv || !*o->mv) continue;
        for (int j = 0; j < n; j++)
            if (objs[j].replay && strcmp(objs[j].replay_from, qn(d, o->physical)) == 0) paused[i] = true;
    }
    /* capturing: the cut between history and live rows, per landing (docs/clickhouse.md):
     *   offsets  (servers with Kafka virtual columns) the landing's consumer group's
     *            committed offsets O are handed to the new views' groups; their history
     *            is the raw rows below O. Nothing pauses.
     *   history  (18.16, the topic still holds every offset from 0) the new views'
     *            groups read the topic from its earliest offset: Kafka replays it.
     *   pause    (18.16, the topic lost offsets to retention) the landing view is
     *            detached, the raw table snapshotted, the landing's offsets handed on,
     *            the view attached again. */
    if (!dep_reached(d, dep, "captured")) {
        for (int i = 0; i < n; i++) {
            if (!paused[i]) continue;
            const Obj *src = &objs[i];
            const SourceDef *sd = &d->p->sources[src->index];
            if (count_of(d, "SELECT count() FROM %s WHERE deployment_id = %s AND source = %s", qn(d, "_weir_boundaries"),
                         lit(d, dep), lit(d, src->name)) > 0)
                continue;  /* captured before a crash */
            const char *cut = "offsets";
            if (!cp->caps.kafka_virtual) {
                int64_t *lows = NULL, *highs = NULL;
                int np = kafka_end_offsets(d->p, sd, 10000, &lows, &highs, d->err, d->errsize);
                if (np < 0) return 3;
                cut = "history";
                for (int k = 0; k < np; k++)
                    if (lows[k] > 0) cut = "pause";
                /* a bounded replay reads the landed rows of its window: Kafka would
                 * hand the new view the whole topic */
                for (int j = 0; j < n; j++)
                    if (objs[j].replay && strcmp(objs[j].replay_from, qn(d, src->physical)) == 0 &&
                        cp->models[objs[j].index].bounded_us > 0)
                        cut = "pause";
                free(lows);
                free(highs);
            }
            int64_t *offsets = NULL;
            int np = 0;
            if (strcmp(cut, "pause") == 0) {
                if (!exec_ok(d, arena_printf(&d->a, "DETACH TABLE %s", qn(d, src->mv)), 60, 0)) return 3;
                crash_point("paused");
                np = settle(d, sd, src, &offsets);
                if (np < 0) return 3;
                if (!snapshot(d, qn(d, src->physical), snap_name(d, dep, d->cp.sources[src->index].object))) {
                    free(offsets);
                    return 3;
                }
            } else if (strcmp(cut, "offsets") == 0) {
                np = kafka_group_offsets(d->p, sd, src->group, &offsets, d->err, d->errsize);
                if (np < 0) return 3;
            }
            bool ok = true;
            for (int j = 0; ok && j < n; j++)
                if (offsets && objs[j].replay && objs[j].kafka && *objs[j].kafka &&
                    strcmp(objs[j].replay_from, qn(d, src->physical)) == 0)
                    ok = kafka_group_commit(d->p, sd, objs[j].group, offsets, np, d->err, d->errsize);
            StrBuf b = STRBUF_INIT;
            sb_printf(&b, "INSERT INTO %s (deployment_id, source, cut, partition, offset, at_ms) VALUES ",
                      qn(d, "_weir_boundaries"));
            sb_printf(&b, "(%s, %s, %s, -1, -1, 0)", lit(d, dep), lit(d, src->name), lit(d, cut));
            for (int k = 0; k < np; k++)
                sb_printf(&b, ", (%s, %s, %s, %d, %lld, 0)", lit(d, dep), lit(d, src->name), lit(d, cut), k,
                          (long long)offsets[k]);
            free(offsets);
            if (ok) ok = exec(d, sb_cstr(&b));
            sb_free(&b);
            if (!ok) return 3;
        }
        for (int i = 0; i < n; i++) {
            const Obj *src = &objs[i];
            if (!src->is_source || src->index < 0 || !cp->sources[src->index].adopted) continue;
            bool read = false;
            for (int j = 0; j < n; j++)
                if (objs[j].replay && strcmp(objs[j].replay_from, src->physical) == 0) read = true;
            if (read && capture_adopted(d, dep, src, &cp->sources[src->index])) return 3;
        }
        if (!record_state(d, dep, "captured", NULL)) return 3;
        crash_point("captured");
    }
    /* live: the new views (each its own Kafka table), the paused landings again, new
     * landings (a fresh group reads from the earliest offset) */
    for (int i = 0; i < n; i++) {
        const Obj *o = &objs[i];
        if (!o->create || o->is_source || o->native) continue;
        const ChModel *m = &cp->models[o->index];
        if (o->kafka && *o->kafka) {
            const ChSource *s = &cp->sources[m->in_source];
            const char *brokers = kafka_brokers(d, &d->p->sources[m->in_source]);
            if (!exec(d, ch_kafka_ddl(cp, s, d->db, o->kafka, brokers ? brokers : "", o->group))) return 3;
        }
        const char *fence = "1";
        if (cp->sources[m->in_source].adopted && o->replay) {
            ChRows b;
            if (!load_fence(d, dep, cp->sources[m->in_source].name, &b)) return 3;
            fence = fence_sql(d, &cp->sources[m->in_source], &b, true);
            ch_rows_free(&b);
        }
        if (!exec(d, ch_mv_ddl_fenced(cp, m, d->db, o->mv, o->physical, o->input, fence))) return 3;
    }
    /* a time fence is replayed once the server's clock has passed it */
    for (int i = 0; i < n; i++) {
        const Obj *src = &objs[i];
        if (!src->is_source || src->index < 0 || !cp->sources[src->index].adopted ||
            strcmp(cp->sources[src->index].boundary_mode, "cursor") == 0 ||
            strcmp(cp->sources[src->index].boundary_mode, "offsets") == 0)
            continue;
        ChRows b;
        if (!load_fence(d, dep, src->name, &b)) return 3;
        const char *f = b.nrows ? arena_strdup(&d->a, ch_cell(&b, 0, 2)) : NULL;
        ch_rows_free(&b);
        for (int k = 0; f && k < 300; k++) {
            long long past = count_of(d, "SELECT toInt64(toUnixTimestamp(now())) > %s + 1", f);
            if (past < 0) return 3;
            if (past) break;
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    /* a landing detached by the pause cut (attaching an attached view is harmless) */
    for (int i = 0; i < n; i++)
        if (paused[i] && !table_exists(d, objs[i].mv) &&
            !exec_ok(d, arena_printf(&d->a, "ATTACH TABLE %s", qn(d, objs[i].mv)), 57, 0))
            return 3;
    for (int i = 0; i < n; i++) {
        const Obj *o = &objs[i];
        if (!o->is_source || !o->create) continue;
        const ChSource *s = &cp->sources[o->index];
        const char *brokers = kafka_brokers(d, &d->p->sources[o->index]);
        if (!exec(d, ch_kafka_ddl(cp, s, d->db, o->kafka, brokers ? brokers : "", o->group)) ||
            !exec(d, ch_landing_mv_ddl(cp, s, d->db, o->mv, o->physical, o->kafka)))
            return 3;
    }
    if (!dep_reached(d, dep, "live")) {
        if (!record_state(d, dep, "live", NULL)) return 3;
        crash_point("live");
    }
    /* replaying: per model, the snapshot through the model's SELECT into a scratch
     * table, then partition `_weir_replay = 1` of the new table replaced by it whole */
    if (!dep_reached(d, dep, "replayed")) {
        for (int i = 0; i < n; i++) {
            const Obj *o = &objs[i];
            if (!o->replay) continue;
            if (count_of(d, "SELECT count() FROM %s WHERE deployment_id = %s AND model = %s", qn(d, "_weir_replays"),
                         lit(d, dep), lit(d, o->name)) > 0)
                continue;
            if (o->native) {
                /* the native runtime from the start of the sources into the new table (a
                 * rerun starts it fresh again: the sink empties the table first) */
                if (!d->o->native_replay || o->index < 0) {
                    snprintf(d->err, d->errsize, "native model %s: this command cannot run the native runtime",
                             o->name);
                    return 2;
                }
                int nrc = d->o->native_replay(d->o->native_ctx, d->p, d->g, o->index, o->physical, d->err,
                                              d->errsize);
                if (nrc) return nrc;
                long long nrows = count_of(d, "SELECT count() FROM %s", qn(d, o->physical));
                if (!execf(d, "INSERT INTO %s SELECT %s, %s, %lld, %s", qn(d, "_weir_replays"), lit(d, dep),
                           lit(d, o->name), nrows < 0 ? 0 : nrows, stamp(d)))
                    return 3;
                crash_point("replay");
                continue;
            }
            const ChModel *m = &cp->models[o->index];
            const char *scratch = arena_printf(&d->a, "_weir_replay__%s__%s", dep, o->name);
            const char *srcname = cp->sources[m->in_source].name;
            ChRows br;
            if (!rows(d, &br, "SELECT cut, partition, offset FROM %s WHERE deployment_id = %s AND source = %s ORDER BY "
                              "partition",
                      qn(d, "_weir_boundaries"), lit(d, dep), lit(d, srcname)))
                return 3;
            const char *cut = br.nrows ? arena_strdup(&d->a, ch_cell(&br, 0, 0)) : "history";
            const char *from = o->replay_from;
            if (strcmp(cut, "fence") == 0) {
                /* an adopted table: its rows at or below the fence */
                from = arena_printf(&d->a, "(SELECT * FROM %s WHERE %s)", o->replay_from,
                                    fence_sql(d, &cp->sources[m->in_source], &br, false));
            } else if (strcmp(cut, "pause") == 0) {
                from = qn(d, snap_name(d, dep, cp->sources[m->in_source].object));
            } else if (strcmp(cut, "offsets") == 0) {
                /* the raw rows below the offsets the new view started at */
                StrBuf w = STRBUF_INIT;
                sb_printf(&w, "(SELECT * FROM %s WHERE multiIf(", o->replay_from);
                for (int k = 1; k < br.nrows; k++)
                    sb_printf(&w, "`_replay_partition` = %s, `_replay_offset` < %s, ", ch_cell(&br, k, 1),
                              ch_cell(&br, k, 2));
                sb_puts(&w, "0))");
                from = arena_strdup(&d->a, sb_cstr(&w));
                sb_free(&w);
            }
            ch_rows_free(&br);
            const char *seed = NULL;
            if (m->bounded_us > 0 && strcmp(cut, "history") != 0) {
                int brc = bounded_replay(d, o, m, &from, &seed, scratch);
                if (brc) return brc;
            }
            if (strcmp(cut, "history") == 0) {
                /* Kafka delivers the history to the new view */
                if (!execf(d, "INSERT INTO %s SELECT %s, %s, 0, %s", qn(d, "_weir_replays"), lit(d, dep),
                           lit(d, o->name), stamp(d)))
                    return 3;
                continue;
            }
            if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, scratch)) ||
                !execf(d, "CREATE TABLE %s AS %s", qn(d, scratch), qn(d, o->physical)) ||
                (seed && !exec(d, seed)) ||
                !execf(d, "INSERT INTO %s %s", qn(d, scratch), ch_fill(&d->a, m->mv_select, from, NULL, "1")))
                return 3;
            ChRows r;
            if (!rows(d, &r,
                      "SELECT DISTINCT partition_id FROM system.parts WHERE database = %s AND table = %s AND active",
                      lit(d, d->db), lit(d, scratch)))
                return 3;
            bool ok = true;
            for (int k = 0; ok && k < r.nrows; k++)
                ok = execf(d, "ALTER TABLE %s REPLACE PARTITION ID %s FROM %s", qn(d, o->physical),
                           lit(d, ch_cell(&r, k, 0)), qn(d, scratch));
            ch_rows_free(&r);
            if (!ok) return 3;
            long long nrows = count_of(d, "SELECT count() FROM %s", qn(d, scratch));
            if (!execf(d, "INSERT INTO %s SELECT %s, %s, %lld, %s", qn(d, "_weir_replays"), lit(d, dep),
                       lit(d, o->name), nrows < 0 ? 0 : nrows, stamp(d)))
                return 3;
            crash_point("replay");
        }
        if (!record_state(d, dep, "replayed", NULL)) return 3;
        crash_point("replayed");
    }
    /* scratch tables and snapshots are no longer needed */
    ChRows r;
    if (!rows(d, &r, "SELECT name FROM system.tables WHERE database = %s AND (startsWith(name, %s) OR "
                     "startsWith(name, %s))",
              lit(d, d->db), lit(d, arena_printf(&d->a, "_weir_snap__%s__", dep)),
              lit(d, arena_printf(&d->a, "_weir_replay__%s__", dep))))
        return 3;
    for (int i = 0; i < r.nrows; i++)
        if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, ch_cell(&r, i, 0)))) {
            ch_rows_free(&r);
            return 3;
        }
    ch_rows_free(&r);
    if (!dep_reached(d, dep, "staged")) {
        if (!record_state(d, dep, "staged", NULL)) return 3;
        crash_point("staged");
    }
    return 0;
}

/* Whether the new views of a deployment have caught up with their landings: each
 * view's consumer group must reach the offsets the landing's group had committed when
 * the check began (under continuous ingestion both keep moving). Waits up to wait_s
 * seconds; returns the messages still missing (0: caught up), -1 on an error. Appends
 * one line per view to report (when not NULL). */
static long long lag_of(Dep *d, const Obj *objs, int n, StrBuf *report, int wait_s)
{
    long long total = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        const Obj *o = &objs[i];
        if (o->is_source || !o->create || !o->kafka || !*o->kafka || o->index < 0) continue;
        int si = d->cp.models[o->index].in_source;
        const Obj *src = NULL;
        for (int j = 0; j < n; j++)
            if (objs[j].is_source && objs[j].index == si) src = &objs[j];
        if (!src || !src->group || !*src->group) continue;
        const SourceDef *sd = &d->p->sources[si];
        int64_t *lo = NULL;
        int nl = kafka_group_offsets(d->p, sd, src->group, &lo, d->err, d->errsize);
        if (nl < 0) return -1;
        long long lag;
        for (;;) {
            int64_t *mo = NULL;
            int nm = kafka_group_offsets(d->p, sd, o->group, &mo, d->err, d->errsize);
            if (nm < 0) {
                free(lo);
                return -1;
            }
            lag = 0;
            for (int k = 0; k < nl && k < nm; k++)
                if (lo[k] > 0 && mo[k] < lo[k]) lag += lo[k] - (mo[k] < 0 ? 0 : mo[k]);
            free(mo);
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (lag == 0 || now.tv_sec - t0.tv_sec >= wait_s) break;
            struct timespec ts = {0, 200 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        free(lo);
        if (report)
            sb_printf(report, "  %-24s %s\n", o->name,
                      lag ? arena_printf(&d->a, "%lld messages behind its landing", lag) : "caught up with its landing");
        total += lag;
    }
    return total;
}

/* An unfinished deployment of this very project (same manifest), to resume. */
static const char *resumable(Dep *d, const char *manifest)
{
    ChRows r;
    if (!rows(d, &r,
              "SELECT m.deployment_id FROM %s AS m WHERE m.manifest = %s AND m.deployment_id NOT IN (SELECT "
              "deployment_id FROM %s WHERE state IN ('active', 'superseded', 'rolled_back', 'retired', 'abandoned', "
              "'failed')) ORDER BY m.deployment_id DESC LIMIT 1",
              qn(d, "_weir_manifests"), lit(d, manifest), qn(d, "_weir_deployments")))
        return NULL;
    const char *s = r.nrows ? arena_strdup(&d->a, ch_cell(&r, 0, 0)) : NULL;
    ch_rows_free(&r);
    return s;
}

/* Unfinished deployments of another version: attach any landing view they paused and
 * mark them abandoned (their objects are left for the janitor). */
static bool abandon_others(Dep *d, const char *keep)
{
    ChRows r;
    if (!rows(d, &r,
              "SELECT deployment_id FROM %s WHERE deployment_id NOT IN (SELECT deployment_id FROM %s WHERE state IN "
              "('staged', 'active', 'superseded', 'rolled_back', 'retired', 'abandoned', 'failed'))",
              qn(d, "_weir_manifests"), qn(d, "_weir_deployments")))
        return false;
    bool ok = true;
    for (int i = 0; ok && i < r.nrows; i++) {
        const char *dep = arena_strdup(&d->a, ch_cell(&r, i, 0));
        if (keep && strcmp(dep, keep) == 0) continue;
        Obj *objs;
        int n = load_objects(d, dep, &objs);
        if (n < 0) ok = false;
        for (int j = 0; ok && j < n; j++)
            if (objs[j].is_source && !objs[j].create && objs[j].mv && *objs[j].mv)
                ok = exec_ok(d, arena_printf(&d->a, "ATTACH TABLE %s", qn(d, objs[j].mv)), 57, 0);
        if (ok) ok = record_state(d, dep, "abandoned", "a newer version was applied before it finished");
    }
    ch_rows_free(&r);
    return ok;
}

static int do_publish(Dep *d, const char *dep, const char *operation, StrBuf *out);

/* How the native models of deployment objs are kept current. */
static void native_note(Dep *d, const Obj *objs, int n, StrBuf *out)
{
    for (int i = 0; i < n; i++)
        if (objs[i].native)
            sb_printf(out, "native model %s: %s, read through the view %s; `weir run --target %s` keeps it current\n",
                      objs[i].name, qn(d, objs[i].physical), qn(d, objs[i].name),
                      d->p->target ? d->p->target->name : "?");
}

int ch_verb_apply(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_locked(&d, p, g, o, out, err, errsize, o->staged ? "apply --staged" : "apply");
    if (rc) return rc;
    for (int i = 0; i < d.cp.nmodels; i++)
        if (d.cp.models[i].kind == CHK_REFUSED) {
            snprintf(err, errsize, "model %s cannot be deployed to ClickHouse: %s", d.cp.models[i].name,
                     d.cp.models[i].why);
            close_dep(&d);
            return 1;
        }
    const char *manifest = manifest_text(&d);
    const char *dep = resumable(&d, manifest);
    Obj *objs = NULL;
    int n = 0;
    if (dep) {
        const char *st = dep_state(&d, dep);
        if (o->staged && strcmp(st, "staged") == 0) {
            sb_printf(out, "deployment %s of this version is staged already\n", dep);
            close_dep(&d);
            return 0;
        }
        sb_printf(out, "resuming deployment %s (last step: %s)\n", dep, st);
        n = load_objects(&d, dep, &objs);
        if (n < 0) rc = 3;
    } else {
        if (!abandon_others(&d, NULL)) {
            close_dep(&d);
            return 3;
        }
        Binding *bs;
        int nb = load_bindings(&d, &bs);
        if (nb < 0) {
            close_dep(&d);
            return 3;
        }
        const char *base = current_deployment(&d, bs, nb);
        dep = new_deployment_id(&d);
        rc = desired(&d, dep, base, &objs, &n);
        bool changes = false;
        for (int i = 0; i < n; i++)
            if (strcmp(objs[i].action, "unchanged") != 0 && strcmp(objs[i].action, "adopted") != 0 &&
                strcmp(objs[i].action, "native") != 0)
                changes = true;
        if (!rc && !changes) {
            sb_printf(out, "nothing to deploy: deployment %s matches the project\n", base ? base : "-");
            native_note(&d, objs, n, out);
            close_dep(&d);
            return rc;
        }
        if (!rc) {
            /* the plan is recorded before anything is created: a rerun resumes it */
            if (!insert_objects(&d, dep, objs, n) ||
                !execf(&d, "INSERT INTO %s SELECT %s, %s, %s", qn(&d, "_weir_manifests"), lit(&d, dep),
                       lit(&d, manifest), stamp(&d)) ||
                !record_state(&d, dep, "planned", base ? arena_printf(&d.a, "base %s", base) : "greenfield"))
                rc = 3;
            else crash_point("planned");
        }
        if (!rc) {
            sb_printf(out, "deployment %s\n", dep);
            render_objects(&d, objs, n, out);
        }
    }
    if (!rc) rc = stage(&d, dep, objs, n);
    if (!rc) sb_printf(out, "staged: every new table is live and holds its replayed history\n");
    if (!rc && !o->staged) {
        long long lag = lag_of(&d, objs, n, NULL, 600);
        if (lag != 0) {
            if (lag > 0)
                snprintf(err, errsize, "the new views are still %lld messages behind their landings after 600 s", lag);
            rc = 3;
        }
        if (!rc) rc = do_publish(&d, dep, "publish", out);
    }
    if (!rc) native_note(&d, objs, n, out);
    if (!rc && o->staged)
        sb_printf(out, "next: weir audit --deployment %s, then weir publish --deployment %s\n", dep, dep);
    if (rc == 3 && dep) {
        char e2[512];
        snprintf(e2, sizeof e2, "%s", err);
        snprintf(err, errsize, "deployment %s stopped: %s (rerun the command to resume)", dep, e2);
    }
    close_dep(&d);
    return rc;
}

/* ---- reconcile ---- */

/* How the live table `live` differs from the model's desired table: *diff NULL when its
 * columns (names and types), engine, sorting and partition keys are the project's,
 * otherwise what differs ("+ c T": the project has it, the table not; "- c T": the
 * table has it, the project not; "~ c T -> U"; "engine …"). A scratch table made from
 * the project's DDL is compared in system.columns and system.tables, then dropped.
 * Returns false when the server failed. */
static bool table_diff(Dep *d, const ChModel *m, const char *live, const char **diff)
{
    *diff = NULL;
    const char *scratch = arena_printf(&d->a, "_weir_reconcile__%s", m->name);
    if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, scratch)) || !exec(d, ch_table_ddl(&d->cp, m, d->db, scratch)))
        return false;
    ChRows r, t;
    bool ok = rows(d, &r,
                   "SELECT name, anyIf(type, table = %s), anyIf(type, table = %s), countIf(table = %s), countIf(table = "
                   "%s) FROM system.columns WHERE database = %s AND table IN (%s, %s) GROUP BY name ORDER BY name",
                   lit(d, scratch), lit(d, live), lit(d, scratch), lit(d, live), lit(d, d->db), lit(d, live),
                   lit(d, scratch));
    if (ok && !rows(d, &t,
                    "SELECT name = %s, engine, sorting_key, partition_key FROM system.tables WHERE database = %s AND name "
                    "IN (%s, %s) ORDER BY name = %s",
                    lit(d, live), lit(d, d->db), lit(d, live), lit(d, scratch), lit(d, live))) {
        ch_rows_free(&r);
        ok = false;
    }
    if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, scratch))) ok = false;
    if (!ok) return false;
    StrBuf b = STRBUF_INIT;
    for (int i = 0; i < r.nrows; i++) {
        const char *name = ch_cell(&r, i, 0), *want = ch_cell(&r, i, 1), *have = ch_cell(&r, i, 2);
        bool in_p = atoi(ch_cell(&r, i, 3)) > 0, in_l = atoi(ch_cell(&r, i, 4)) > 0;
        if (in_p && !in_l) sb_printf(&b, "%s+ %s %s", b.len ? ", " : "", name, want);
        else if (!in_p && in_l) sb_printf(&b, "%s- %s %s", b.len ? ", " : "", name, have);
        else if (strcmp(want, have) != 0) sb_printf(&b, "%s~ %s %s -> %s", b.len ? ", " : "", name, have, want);
    }
    if (t.nrows == 2) {
        static const char *what[] = {NULL, "engine", "sorting key", "partition key"};
        for (int k = 1; k < 4; k++)
            if (strcmp(ch_cell(&t, 0, k) ? ch_cell(&t, 0, k) : "", ch_cell(&t, 1, k) ? ch_cell(&t, 1, k) : "") != 0)
                sb_printf(&b, "%s%s %s, the project's %s", b.len ? ", " : "", what[k], ch_cell(&t, 1, k),
                          ch_cell(&t, 0, k));
    }
    ch_rows_free(&r);
    ch_rows_free(&t);
    if (b.len) *diff = arena_strdup(&d->a, sb_cstr(&b));
    sb_free(&b);
    return true;
}

/* A model nothing of weir's realizes yet whose objects were made outside weir: the view
 * `<model>` readers query, over a table whose columns and storage are what the project
 * builds, fed by a materialized view that reads the model's source. Sets ob to the
 * running objects and returns 0; 1 with *why when they do not qualify (why NULL:
 * nothing of that name exists); -1 when the server failed. Only models over adopted
 * tables qualify (a managed landing's Kafka consumers are weir's own). */
static int outside_objects(Dep *d, const ChModel *m, Obj *ob, const char **why)
{
    *why = NULL;
    ChRows r;
    if (!rows(d, &r, "SELECT engine, replaceAll(create_table_query, '`', '') FROM system.tables WHERE database = %s AND "
                     "name = %s",
              lit(d, d->db), lit(d, m->name)))
        return -1;
    if (!r.nrows) {
        ch_rows_free(&r);
        return 1;
    }
    const char *engine = arena_strdup(&d->a, ch_cell(&r, 0, 0));
    const char *vq = arena_printf(&d->a, "%s ", ch_cell(&r, 0, 1));
    ch_rows_free(&r);
    if (strcmp(engine, "View") != 0) {
        *why = arena_printf(&d->a, "%s is a %s, where weir's stable view goes (a view over the model's table)",
                            qn(d, m->name), engine);
        return 1;
    }
    if (m->in_source < 0 || !d->cp.sources[m->in_source].adopted) {
        *why = "it reads a managed Kafka landing, whose consumers only weir creates";
        return 1;
    }
    /* the table the view reads */
    if (!rows(d, &r,
              "SELECT name FROM system.tables WHERE database = %s AND engine LIKE '%%MergeTree' AND position(%s, "
              "concat('FROM ', database, '.', name, ' ')) > 0 ORDER BY name",
              lit(d, d->db), lit(d, vq)))
        return -1;
    const char *table = r.nrows == 1 ? arena_strdup(&d->a, ch_cell(&r, 0, 0)) : NULL;
    int nt = r.nrows;
    ch_rows_free(&r);
    if (!table) {
        *why = nt ? arena_printf(&d->a, "the view %s reads %d tables of the database", qn(d, m->name), nt)
                  : arena_printf(&d->a, "the view %s reads no MergeTree table of the database", qn(d, m->name));
        return 1;
    }
    const char *diff = NULL;
    if (!table_diff(d, m, table, &diff)) return -1;
    if (diff) {
        *why = arena_printf(&d->a, "its live table differs from the project's: %s: %s", qn(d, table), diff);
        return 1;
    }
    /* a materialized view of the source that writes into the table */
    const char *src = ob->replay_from;  /* `db`.`t` */
    const char *sdb = arena_strndup(&d->a, src + 1, (size_t)(strstr(src, "`.`") - src - 1));
    const char *sname = arena_strndup(&d->a, strstr(src, "`.`") + 3, strlen(strstr(src, "`.`") + 3) - 1);
    if (!rows(d, &r,
              "SELECT name FROM system.tables WHERE database = %s AND engine = 'MaterializedView' AND has((SELECT "
              "any(dependencies_table) FROM system.tables WHERE database = %s AND name = %s), name) AND "
              "position(replaceAll(create_table_query, '`', ''), concat(' TO ', %s, '.', %s, ' ')) > 0 ORDER BY name",
              lit(d, d->db), lit(d, sdb), lit(d, sname), lit(d, d->db), lit(d, table)))
        return -1;
    const char *mv = r.nrows == 1 ? arena_strdup(&d->a, ch_cell(&r, 0, 0)) : NULL;
    int nmv = r.nrows;
    ch_rows_free(&r);
    if (!mv) {
        *why = nmv ? arena_printf(&d->a, "%d materialized views of %s write into %s", nmv, src, qn(d, table))
                   : arena_printf(&d->a, "no materialized view of %s writes into %s", src, qn(d, table));
        return 1;
    }
    /* readers see the project's columns: the view's against weir's view over the table */
    const char *view_sql = ch_view_select(&d->cp, m, qn(d, table), ob->input);
    const char *scratch = arena_printf(&d->a, "_weir_reconcile_view__%s", m->name);
    if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, scratch)) ||
        !execf(d, "CREATE VIEW %s AS %s", qn(d, scratch), view_sql))
        return -1;
    if (!rows(d, &r,
              "SELECT name, anyIf(type, table = %s), anyIf(type, table = %s), count() FROM system.columns WHERE database "
              "= %s AND table IN (%s, %s) GROUP BY name HAVING count() = 1 OR anyIf(type, table = %s) != anyIf(type, "
              "table = %s) ORDER BY name",
              lit(d, m->name), lit(d, scratch), lit(d, d->db), lit(d, m->name), lit(d, scratch), lit(d, m->name),
              lit(d, scratch)))
        return -1;
    if (r.nrows) {
        StrBuf b = STRBUF_INIT;
        for (int i = 0; i < r.nrows; i++) {
            const char *have = ch_cell(&r, i, 1), *want = ch_cell(&r, i, 2);
            if (!*want) sb_printf(&b, "%s- %s %s", b.len ? ", " : "", ch_cell(&r, i, 0), have);
            else if (!*have) sb_printf(&b, "%s+ %s %s", b.len ? ", " : "", ch_cell(&r, i, 0), want);
            else sb_printf(&b, "%s~ %s %s -> %s", b.len ? ", " : "", ch_cell(&r, i, 0), have, want);
        }
        *why = arena_printf(&d->a, "the view %s shows other columns than the project's: %s", qn(d, m->name),
                            sb_cstr(&b));
        sb_free(&b);
    }
    ch_rows_free(&r);
    if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, scratch))) return -1;
    if (*why) return 1;
    ob->physical = table;
    ob->mv = mv;
    ob->kafka = ob->group = NULL;
    ob->view_sql = view_sql;
    return 0;
}

int ch_verb_reconcile(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_locked(&d, p, g, o, out, err, errsize, "reconcile");
    if (rc) return rc;
    Binding *bs = NULL;
    int nb = load_bindings(&d, &bs);
    const char *base = nb > 0 ? current_deployment(&d, bs, nb) : NULL;
    if (nb < 0) {
        close_dep(&d);
        return 3;
    }
    const char *dep = new_deployment_id(&d);
    Obj *objs = NULL;
    int n = 0;
    rc = desired(&d, dep, base, &objs, &n);
    int adopted = 0, left = 0;
    bool *outside = ARENA_ARRAY(&d.a, bool, n + 1);
    for (int i = 0; !rc && i < n; i++) {
        Obj *ob = &objs[i];
        if (!ob->is_source && !ob->native && strcmp(ob->action, "new") == 0) {
            /* objects made outside weir, under the names the project uses */
            const char *why = NULL;
            int orc = outside_objects(&d, &d.cp.models[ob->index], ob, &why);
            if (orc < 0) {
                rc = 3;
                break;
            }
            if (orc == 0) {
                ob->create = ob->replay = false;
                ob->action = "adopted";
                ob->reason = "reconciled: objects made outside weir taken as the project's";
                outside[i] = true;
                sb_printf(out, "  model %-28s adopted: %s (fed by %s, read through %s) was made outside weir and is "
                               "what the project builds\n",
                          ob->name, qn(&d, ob->physical), qn(&d, ob->mv), qn(&d, ob->name));
                adopted++;
            } else if (why) {
                sb_printf(out, "  model %-28s not adopted: %s (weir apply would build it anew)\n", ob->name, why);
                left++;
            }
            continue;
        }
        if (ob->is_source || strcmp(ob->action, "rebuild") != 0) continue;
        if (ob->native) {
            sb_printf(out, "  model %-28s not adopted: a native model's table holds what the native runtime "
                           "computed with its old definition (weir apply rebuilds it)\n",
                      ob->name);
            left++;
            continue;
        }
        const ChModel *m = &d.cp.models[ob->index];
        Active a = {0};
        const Binding *b = NULL;
        for (int j = 0; j < nb; j++)
            if (strcmp(bs[j].logical, m->name) == 0) b = &bs[j];
        if (!b || !load_active(&d, b->deployment, "model", m->name, &a) || !a.physical) {
            rc = b ? 3 : 0;
            continue;
        }
        const char *why = NULL;
        if (strcmp(ob->reason ? ob->reason : "", "its source has a new landing") == 0) why = "its source has a new landing";
        else if (!table_exists(&d, a.mv)) why = "its materialized view does not exist";
        else if (!table_diff(&d, m, a.physical, &why)) rc = 3;
        else if (why) why = arena_printf(&d.a, "its live table differs from the project's: %s", why);
        else if (strcmp(ch_view_select(&d.cp, m, qn(&d, a.physical), a.input), b->view_sql) != 0)
            why = "its stable view would change";
        if (rc) break;
        if (why) {
            sb_printf(out, "  model %-28s not adopted: %s (weir apply rebuilds it)\n", m->name, why);
            left++;
            continue;
        }
        /* the running objects, under the project's signature */
        ob->physical = a.physical;
        ob->mv = a.mv;
        ob->kafka = a.kafka;
        ob->group = a.group;
        ob->input = a.input;
        ob->create = ob->replay = false;
        ob->action = "adopted";
        ob->reason = "reconciled: the running objects are taken as the project's SQL";
        ob->view_sql = b->view_sql;
        sb_printf(out, "  model %-28s adopted: %s keeps running, recorded as the project's SQL\n", m->name,
                  qn(&d, a.physical));
        adopted++;
    }
    if (!rc && left == 0 && adopted == 0)
        sb_puts(out, base ? "nothing to reconcile: plan rebuilds no model\n"
                          : "nothing to reconcile: nothing is published on this target and no model's objects exist\n");
    if (!rc && adopted > 0 && left > 0)
        sb_printf(out, "not reconciled: %d model(s) above would still be built or rebuilt; reconcile adopts all or none\n", left);
    if (!rc && adopted > 0 && left == 0 && !o->yes)
        sb_printf(out, "preview: rerun with --yes to record deployment %s\n", dep);
    if (!rc && adopted > 0 && left == 0 && o->yes) {
        for (int i = 0; i < n; i++)
            if (strcmp(objs[i].action, "unchanged") != 0 && strcmp(objs[i].action, "adopted") != 0 &&
                strcmp(objs[i].action, "native") != 0 && strcmp(objs[i].action, "refused") != 0) {
                snprintf(err, errsize, "%s %s would change (%s): reconcile records only what runs as it is",
                         objs[i].is_source ? "source" : "model", objs[i].name, objs[i].action);
                rc = 1;
            }
        if (!rc) {
            const char *pub = arena_printf(&d.a, "reconcile_%s", dep);
            bool ok = insert_objects(&d, dep, objs, n) &&
                      execf(&d, "INSERT INTO %s SELECT %s, %s, %s", qn(&d, "_weir_manifests"), lit(&d, dep),
                            lit(&d, manifest_text(&d)), stamp(&d)) &&
                      record_state(&d, dep, "planned",
                                   base ? arena_printf(&d.a, "reconcile of %s", base) : "reconcile of objects made outside weir") &&
                      record_state(&d, dep, "staged", "nothing created: the running objects adopted");
            /* every stable view stays as it is; the publication says this deployment owns it */
            for (int j = 0; ok && j < nb; j++)
                ok = execf(&d, "INSERT INTO %s SELECT %s, %s, 'reconcile', 'done', %s, %s, %s, %s, %s, %s",
                           qn(&d, "_weir_publications"), lit(&d, pub), lit(&d, dep), lit(&d, bs[j].logical),
                           lit(&d, bs[j].physical), lit(&d, bs[j].view_sql), lit(&d, bs[j].physical),
                           lit(&d, bs[j].view_sql), stamp(&d));
            /* the views made outside weir: bound to this deployment from now on */
            for (int i = 0; ok && i < n; i++)
                if (outside[i])
                    ok = execf(&d, "INSERT INTO %s SELECT %s, %s, 'reconcile', 'done', %s, %s, %s, '', '', %s",
                               qn(&d, "_weir_publications"), lit(&d, pub), lit(&d, dep), lit(&d, objs[i].name),
                               lit(&d, objs[i].physical), lit(&d, objs[i].view_sql), stamp(&d));
            ok = ok && record_state(&d, dep, "active", "reconciled");
            if (!ok) rc = 3;
            else sb_printf(out, "reconciled: deployment %s records the running objects\n", dep);
        }
    }
    close_dep(&d);
    return rc;
}

/* ---- publish / rollback ---- */

static const char *latest_staged(Dep *d)
{
    ChRows r;
    if (!rows(d, &r,
              "SELECT deployment_id FROM %s WHERE state = 'staged' AND deployment_id NOT IN (SELECT deployment_id FROM "
              "%s WHERE state IN ('active', 'superseded', 'rolled_back', 'retired')) ORDER BY deployment_id DESC LIMIT 1",
              qn(d, "_weir_deployments"), qn(d, "_weir_deployments")))
        return NULL;
    const char *s = r.nrows ? arena_strdup(&d->a, ch_cell(&r, 0, 0)) : NULL;
    ch_rows_free(&r);
    return s;
}

/* Switch stable views in one RENAME. items: logical, physical, view_sql (NULL
 * view_sql: drop the view). Recorded as an intent row per view first and a done row
 * per view last, so an interrupted switch can be finished (doctor). */
typedef struct Switch {
    const char *logical, *physical, *view_sql, *prev_physical, *prev_sql;
    const char *owner;         /* the deployment whose table the view reads afterwards
                                  (its done row says so; NULL: the switching one) */
} Switch;

static int switch_views(Dep *d, const char *pub, const char *dep, const char *operation, const Switch *sw, int n,
                        bool have_intent)
{
    if (!have_intent) {
        for (int i = 0; i < n; i++)
            if (!execf(d, "INSERT INTO %s SELECT %s, %s, %s, 'intent', %s, %s, %s, %s, %s, %s",
                       qn(d, "_weir_publications"), lit(d, pub), lit(d, dep), lit(d, operation), lit(d, sw[i].logical),
                       lit(d, sw[i].physical), lit(d, sw[i].view_sql), lit(d, sw[i].prev_physical),
                       lit(d, sw[i].prev_sql), stamp(d)))
                return 3;
        crash_point("publish-intent");
    }
    const char *tag = arena_printf(&d->a, "%llx", (unsigned long long)(hash_str(pub, 7) & 0xffffffffu));
    StrBuf ren = STRBUF_INIT;
    int nren = 0;
    for (int i = 0; i < n; i++) {
        const char *next = arena_printf(&d->a, "%s__next_%s", sw[i].logical, tag);
        const char *old = arena_printf(&d->a, "%s__old_%s", sw[i].logical, tag);
        bool live = table_exists(d, sw[i].logical), has_next = table_exists(d, next);
        if (!sw[i].view_sql || !*sw[i].view_sql) {
            /* removed by this switch */
            if (live && !execf(d, "RENAME TABLE %s TO %s", qn(d, sw[i].logical), qn(d, old))) return 3;
            continue;
        }
        if (!has_next) {
            /* already switched by an earlier, interrupted run: the old view is still
             * there, or the live one reads the new table */
            if (table_exists(d, old) ||
                (live && strcmp(sw[i].physical, sw[i].prev_physical) != 0 &&
                 count_of(d, "SELECT count() FROM system.tables WHERE database = %s AND name = %s AND "
                             "position(create_table_query, %s) > 0",
                          lit(d, d->db), lit(d, sw[i].logical), lit(d, sw[i].physical)) > 0))
                continue;
            if (!execf(d, "CREATE VIEW %s AS %s", qn(d, next), sw[i].view_sql)) return 3;
        }
        if (nren++) sb_puts(&ren, ", ");
        if (live) sb_printf(&ren, "%s TO %s, ", qn(d, sw[i].logical), qn(d, old));
        sb_printf(&ren, "%s TO %s", qn(d, next), qn(d, sw[i].logical));
    }
    if (nren) {
        /* the whole graph in one statement */
        bool ok = execf(d, "RENAME TABLE %s", sb_cstr(&ren));
        sb_free(&ren);
        if (!ok) return 3;
        crash_point("publish-renamed");
    } else {
        sb_free(&ren);
    }
    for (int i = 0; i < n; i++)
        if (!execf(d, "DROP TABLE IF EXISTS %s",
                   qn(d, arena_printf(&d->a, "%s__old_%s", sw[i].logical, tag))))
            return 3;
    for (int i = 0; i < n; i++)
        if (!execf(d, "INSERT INTO %s SELECT %s, %s, %s, 'done', %s, %s, %s, %s, %s, %s", qn(d, "_weir_publications"),
                   lit(d, pub), lit(d, sw[i].owner && *sw[i].owner ? sw[i].owner : dep), lit(d, operation),
                   lit(d, sw[i].logical), lit(d, sw[i].view_sql && *sw[i].view_sql ? sw[i].physical : ""),
                   lit(d, sw[i].view_sql),
                   lit(d, sw[i].prev_physical), lit(d, sw[i].prev_sql), stamp(d)))
            return 3;
    return 0;
}

static int do_publish(Dep *d, const char *dep, const char *operation, StrBuf *out)
{
    if (!dep_reached(d, dep, "staged")) {
        snprintf(d->err, d->errsize, "deployment %s is not staged (last step: %s); rerun weir apply --staged", dep,
                 dep_state(d, dep));
        return 1;
    }
    Obj *objs;
    int n = load_objects(d, dep, &objs);
    if (n < 0) return 3;
    Binding *bs;
    int nb = load_bindings(d, &bs);
    if (nb < 0) return 3;
    Switch *sw = ARENA_ARRAY(&d->a, Switch, n + 1);
    int ns = 0;
    for (int i = 0; i < n; i++) {
        const Obj *o = &objs[i];
        if (o->is_source || !o->view_sql || !*o->view_sql) continue;
        const Binding *cur = NULL;
        for (int j = 0; j < nb; j++)
            if (strcmp(bs[j].logical, o->name) == 0) cur = &bs[j];
        if (cur && strcmp(cur->view_sql, o->view_sql) == 0 && table_exists(d, o->name)) continue;
        sw[ns++] = (Switch){o->name, o->physical, o->view_sql, cur ? cur->physical : "", cur ? cur->view_sql : "", NULL};
    }
    const char *pub = arena_printf(&d->a, "%s_%s", dep, operation);
    int rc = switch_views(d, pub, dep, operation, sw, ns, false);
    if (rc) return rc;
    /* deployments whose tables no stable view reads any more are superseded */
    int nb2 = load_bindings(d, &bs);
    if (nb2 < 0) return 3;
    ChRows r;
    if (!rows(d, &r, "SELECT DISTINCT deployment_id FROM %s WHERE state = 'active'", qn(d, "_weir_deployments")))
        return 3;
    for (int i = 0; i < r.nrows; i++) {
        const char *od = ch_cell(&r, i, 0);
        bool used = false;
        for (int j = 0; j < nb2; j++)
            if (strstr(bs[j].physical, od)) used = true;
        if (!used && strcmp(od, dep) != 0 && strcmp(dep_state(d, od), "active") == 0 &&
            !record_state(d, od, "superseded", arena_printf(&d->a, "by %s", dep))) {
            ch_rows_free(&r);
            return 3;
        }
    }
    ch_rows_free(&r);
    if (!record_state(d, dep, "active", operation)) return 3;
    sb_printf(out, "published deployment %s: %d stable view%s switched in one statement\n", dep, ns, ns == 1 ? "" : "s");
    return 0;
}

int ch_verb_publish(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_locked(&d, p, g, o, out, err, errsize, "publish");
    if (rc) return rc;
    const char *dep = o->deployment ? o->deployment : latest_staged(&d);
    if (!dep) {
        snprintf(err, errsize, "no staged deployment to publish (run weir apply --staged)");
        rc = 1;
    }
    if (!rc && !o->force) {
        /* readers switch only to views that have caught up with their landings */
        Obj *objs;
        int n = load_objects(&d, dep, &objs);
        long long lag = n < 0 ? -1 : lag_of(&d, objs, n, NULL, 60);
        if (lag < 0) rc = 3;
        else if (lag > 0) {
            snprintf(err, errsize, "deployment %s is %lld messages behind its landings; wait for weir audit to say "
                                   "ready, or publish with --force",
                     dep, lag);
            rc = 1;
        }
    }
    if (!rc) rc = do_publish(&d, dep, "publish", out);
    close_dep(&d);
    return rc;
}

int ch_verb_rollback(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_locked(&d, p, g, o, out, err, errsize, "rollback");
    if (rc) return rc;
    /* the last completed publication, reverted view by view: it names the view each
     * relation had before it, so a deployment of a subtree rolls back alone */
    ChRows r;
    if (!rows(&d, &r,
              "SELECT publication_id, deployment_id FROM %s WHERE phase = 'done' AND operation = 'publish' AND "
              "deployment_id NOT IN (SELECT deployment_id FROM %s WHERE state = 'rolled_back') ORDER BY at_ms DESC, "
              "publication_id DESC LIMIT 1",
              qn(&d, "_weir_publications"), qn(&d, "_weir_deployments"))) {
        close_dep(&d);
        return 3;
    }
    if (!r.nrows) {
        ch_rows_free(&r);
        snprintf(err, errsize, "nothing to roll back: no publication on record");
        close_dep(&d);
        return 1;
    }
    const char *pub = arena_strdup(&d.a, ch_cell(&r, 0, 0)), *dep = arena_strdup(&d.a, ch_cell(&r, 0, 1));
    ch_rows_free(&r);
    if (!rows(&d, &r,
              "SELECT logical, previous_physical, previous_sql, physical, view_sql FROM %s WHERE publication_id = %s AND "
              "phase = 'done'",
              qn(&d, "_weir_publications"), lit(&d, pub))) {
        close_dep(&d);
        return 3;
    }
    Switch *sw = ARENA_ARRAY(&d.a, Switch, r.nrows + 1);
    int ns = r.nrows;
    for (int i = 0; i < ns; i++) {
#define C(k) arena_strdup(&d.a, ch_cell(&r, i, k) ? ch_cell(&r, i, k) : "")
        sw[i] = (Switch){C(0), C(1), C(2), C(3), C(4), NULL};
#undef C
        /* the view reads the table of the deployment it was bound to before: that one
         * owns the binding again (what plan and weir run compare with) */
        ChRows pr;
        if (!rows(&d, &pr,
                  "SELECT deployment_id FROM %s WHERE phase = 'done' AND logical = %s AND at_ms < (SELECT min(at_ms) "
                  "FROM %s WHERE publication_id = %s) ORDER BY at_ms DESC LIMIT 1",
                  qn(&d, "_weir_publications"), lit(&d, sw[i].logical), qn(&d, "_weir_publications"), lit(&d, pub))) {
            ch_rows_free(&r);
            close_dep(&d);
            return 3;
        }
        if (pr.nrows && ch_cell(&pr, 0, 0)) sw[i].owner = arena_strdup(&d.a, ch_cell(&pr, 0, 0));
        ch_rows_free(&pr);
        if (*sw[i].physical && !table_exists(&d, sw[i].physical)) {
            snprintf(err, errsize, "cannot roll back %s: the previous table %s no longer exists (removed by the janitor)",
                     sw[i].logical, sw[i].physical);
            ch_rows_free(&r);
            close_dep(&d);
            return 1;
        }
    }
    ch_rows_free(&r);
    rc = switch_views(&d, arena_printf(&d.a, "%s_rollback", pub), dep, "rollback", sw, ns, false);
    if (!rc && !record_state(&d, dep, "rolled_back", NULL)) rc = 3;
    if (!rc) {
        /* the deployments the views point at again are active */
        Binding *bs;
        int nb = load_bindings(&d, &bs);
        for (int i = 0; i < nb; i++)
            if (strcmp(dep_state(&d, bs[i].deployment), "active") != 0 &&
                !record_state(&d, bs[i].deployment, "active", "rollback"))
                rc = 3;
        sb_printf(out, "rolled back deployment %s: %d stable view%s restored\n", dep, ns, ns == 1 ? "" : "s");
    }
    close_dep(&d);
    return rc;
}

/* ---- audit ---- */

int ch_verb_audit(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_dep(&d, p, g, o, out, err, errsize);
    if (rc || !meta_exists(&d)) {
        if (!rc) {
            snprintf(err, errsize, "nothing deployed in database %s", d.db);
            rc = 1;
        }
        close_dep(&d);
        return rc;
    }
    const char *dep = o->deployment ? o->deployment : latest_staged(&d);
    if (!dep) {
        snprintf(err, errsize, "no staged deployment to audit");
        close_dep(&d);
        return 1;
    }
    Obj *objs;
    int n = load_objects(&d, dep, &objs);
    Binding *bs;
    int nb = load_bindings(&d, &bs);
    if (n < 0 || nb < 0) {
        close_dep(&d);
        return 3;
    }
    bool ready = dep_reached(&d, dep, "staged");
    sb_printf(out, "audit of deployment %s: ", dep);
    StrBuf body = STRBUF_INIT;
    if (!ready) sb_printf(&body, "  not staged yet (last step: %s)\n", dep_state(&d, dep));
    long long lag = lag_of(&d, objs, n, &body, 60);
    if (lag < 0) {
        sb_free(&body);
        close_dep(&d);
        return 3;
    }
    if (lag > 0) ready = false;
    for (int i = 0; i < n; i++) {
        const Obj *ob = &objs[i];
        if (ob->is_source || !ob->view_sql || !*ob->view_sql) continue;
        if (ob->replay && count_of(&d, "SELECT count() FROM %s WHERE deployment_id = %s AND model = %s",
                                   qn(&d, "_weir_replays"), lit(&d, dep), lit(&d, ob->name)) <= 0) {
            sb_printf(&body, "  %-24s not ready: its history is not replayed yet\n", ob->name);
            ready = false;
            continue;
        }
        if (!table_exists(&d, ob->physical)) {
            sb_printf(&body, "  %-24s not ready: the table %s is missing\n", ob->name, ob->physical);
            ready = false;
            continue;
        }
        long long staged = count_of(&d, "SELECT count() FROM (%s)", ob->view_sql);
        const Binding *cur = NULL;
        for (int j = 0; j < nb; j++)
            if (strcmp(bs[j].logical, ob->name) == 0) cur = &bs[j];
        if (staged < 0) {
            rc = 3;
            break;
        }
        if (!cur) {
            sb_printf(&body, "  %-24s ready: %lld rows (new)\n", ob->name, staged);
            continue;
        }
        /* rows that differ between the staged and the active result, as a bag: a hash of
         * every row's text, +1 staged and -1 active (18.16 crashes grouping by a
         * Decimal128 column, so rows are grouped by their hash) */
        long long active = count_of(&d, "SELECT count() FROM (%s)", cur->view_sql);
        const PlanNode *root = ob->index >= 0 && d.g->models[ob->index].root ? d.g->models[ob->index].root->plan : NULL;
        StrBuf h = STRBUF_INIT;
        sb_puts(&h, "cityHash64(concat(''");
        for (int c = 0; root && c < root->ncols; c++) {
            sb_puts(&h, ", '|', ifNull(toString(");
            ch_ident(&h, root->cols[c].name);
            sb_puts(&h, "), '\\N')");
        }
        sb_puts(&h, "))");
        long long diff = count_of(&d,
                                  "SELECT count() FROM (SELECT h, sum(s) AS n FROM (SELECT %s AS h, toInt64(1) AS s "
                                  "FROM (%s) UNION ALL SELECT %s AS h, toInt64(-1) AS s FROM (%s)) GROUP BY h HAVING "
                                  "n != 0)",
                                  sb_cstr(&h), ob->view_sql, sb_cstr(&h), cur->view_sql);
        sb_free(&h);
        if (diff < 0) {
            rc = 3;
            break;
        }
        sb_printf(&body, "  %-24s ready: %lld rows (active %lld, %lld rows differ)\n", ob->name, staged, active, diff);
    }
    if (!rc) {
        sb_puts(out, ready ? "ready\n" : "not ready\n");
        sb_append(out, body.data ? body.data : "", body.len);
        if (!ready) rc = 1;
        if (o->json) {
            /* {"deployment", "ready", "report": [lines]} */
            StrBuf j = STRBUF_INIT;
            sb_puts(&j, "{\"deployment\":");
            sb_json_str(&j, dep, strlen(dep));
            sb_printf(&j, ",\"ready\":%s,\"report\":[", ready ? "true" : "false");
            const char *t = body.data ? sb_cstr(&body) : "";
            for (int first = 1; *t; first = 0) {
                const char *e = strchr(t, '\n');
                size_t len = e ? (size_t)(e - t) : strlen(t);
                while (len && *t == ' ') t++, len--;
                if (!first) sb_putc(&j, ',');
                sb_json_str(&j, t, len);
                t += len + (e ? 1 : 0);
            }
            sb_puts(&j, "]}\n");
            sb_clear(out);
            sb_append(out, j.data, j.len);
            sb_free(&j);
        }
    }
    sb_free(&body);
    close_dep(&d);
    return rc;
}

/* ---- doctor / repair ---- */

static int check(Dep *d, bool fix, StrBuf *out, int *problems)
{
    *problems = 0;
    if (!meta_exists(d)) {
        sb_printf(out, "nothing deployed in database %s\n", d->db);
        return 0;
    }
    /* an interrupted publication: intent rows without done rows */
    ChRows r;
    if (!rows(d, &r,
              "SELECT publication_id, any(deployment_id), any(operation) FROM %s GROUP BY publication_id HAVING "
              "countIf(phase = 'done') = 0",
              qn(d, "_weir_publications")))
        return 3;
    for (int i = 0; i < r.nrows; i++) {
        const char *pub = arena_strdup(&d->a, ch_cell(&r, i, 0)), *dep = arena_strdup(&d->a, ch_cell(&r, i, 1)),
                   *op = arena_strdup(&d->a, ch_cell(&r, i, 2));
        (*problems)++;
        sb_printf(out, "  publication %s of deployment %s was interrupted", pub, dep);
        ChRows s;
        if (!rows(d, &s,
                  "SELECT logical, physical, view_sql, previous_physical, previous_sql FROM %s WHERE publication_id = "
                  "%s AND phase = 'intent'",
                  qn(d, "_weir_publications"), lit(d, pub))) {
            ch_rows_free(&r);
            return 3;
        }
        Switch *sw = ARENA_ARRAY(&d->a, Switch, s.nrows + 1);
        for (int k = 0; k < s.nrows; k++) {
#define C(j) arena_strdup(&d->a, ch_cell(&s, k, j) ? ch_cell(&s, k, j) : "")
            sw[k] = (Switch){C(0), C(1), C(2), C(3), C(4), NULL};
#undef C
        }
        int ns = s.nrows;
        ch_rows_free(&s);
        if (fix) {
            int rc = switch_views(d, pub, dep, op, sw, ns, true);
            if (rc) {
                ch_rows_free(&r);
                return rc;
            }
            if (strcmp(op, "publish") == 0 && !record_state(d, dep, "active", "finished by doctor")) return 3;
            if (strcmp(op, "rollback") == 0 && !record_state(d, dep, "rolled_back", "finished by doctor")) return 3;
            sb_puts(out, ": finished\n");
        } else {
            sb_puts(out, "\n");
        }
    }
    ch_rows_free(&r);
    /* stable views: missing, or reading another table than recorded */
    Binding *bs;
    int nb = load_bindings(d, &bs);
    if (nb < 0) return 3;
    for (int i = 0; i < nb; i++) {
        bool exists = table_exists(d, bs[i].logical);
        bool right = exists && count_of(d, "SELECT count() FROM system.tables WHERE database = %s AND name = %s AND "
                                           "position(create_table_query, %s) > 0",
                                        lit(d, d->db), lit(d, bs[i].logical), lit(d, bs[i].physical)) > 0;
        if (exists && right) continue;
        (*problems)++;
        sb_printf(out, "  stable view %s %s (deployment %s)", bs[i].logical,
                  exists ? "reads another table than its publication" : "is missing", bs[i].deployment);
        if (fix) {
            const char *tmp = arena_printf(&d->a, "%s__repair", bs[i].logical);
            if (!execf(d, "DROP TABLE IF EXISTS %s", qn(d, tmp)) ||
                !execf(d, "CREATE VIEW %s AS %s", qn(d, tmp), bs[i].view_sql))
                return 3;
            if (exists) {
                if (!execf(d, "RENAME TABLE %s TO %s, %s TO %s", qn(d, bs[i].logical),
                           qn(d, arena_printf(&d->a, "%s__broken", bs[i].logical)), qn(d, tmp),
                           qn(d, bs[i].logical)) ||
                    !execf(d, "DROP TABLE IF EXISTS %s", qn(d, arena_printf(&d->a, "%s__broken", bs[i].logical))))
                    return 3;
            } else if (!execf(d, "RENAME TABLE %s TO %s", qn(d, tmp), qn(d, bs[i].logical))) {
                return 3;
            }
            sb_puts(out, ": repaired\n");
        } else {
            sb_puts(out, "\n");
        }
    }
    /* the landings of the current deployment: paused (detached) or missing views */
    const char *base = current_deployment(d, bs, nb);
    if (base) {
        Obj *objs;
        int n = load_objects(d, base, &objs);
        for (int i = 0; i < n; i++) {
            if (!objs[i].is_source || !objs[i].mv || !*objs[i].mv || table_exists(d, objs[i].mv)) continue;
            (*problems)++;
            sb_printf(out, "  landing view %s of source %s is detached or missing: the source does not land",
                      objs[i].mv, objs[i].name);
            if (fix && exec_ok(d, arena_printf(&d->a, "ATTACH TABLE %s", qn(d, objs[i].mv)), 57, 0))
                sb_puts(out, ": attached\n");
            else sb_puts(out, "\n");
        }
    }
    /* orphans: objects with a deployment suffix no deployment knows */
    if (!rows(d, &r,
              "SELECT name FROM system.tables WHERE database = %s AND match(name, '__[0-9]{8}T[0-9]{6}Z_[0-9a-f]{6}') "
              "AND extract(name, '([0-9]{8}T[0-9]{6}Z_[0-9a-f]{6})') NOT IN (SELECT deployment_id FROM %s) ORDER BY "
              "name",
              lit(d, d->db), qn(d, "_weir_manifests")))
        return 3;
    for (int i = 0; i < r.nrows; i++) {
        (*problems)++;
        sb_printf(out, "  orphan object %s: no deployment on record created it\n", ch_cell(&r, i, 0));
    }
    ch_rows_free(&r);
    /* consumers of superseded deployments keep writing until the janitor removes them */
    if (!rows(d, &r,
              "SELECT deployment_id FROM %s GROUP BY deployment_id HAVING argMax(state, at_ms) IN ('superseded', "
              "'rolled_back', 'abandoned') ORDER BY deployment_id",
              qn(d, "_weir_deployments")))
        return 3;
    for (int i = 0; i < r.nrows; i++)
        sb_printf(out, "  note: deployment %s is no longer read; its views still consume (weir janitor removes it)\n",
                  ch_cell(&r, i, 0));
    ch_rows_free(&r);
    return 0;
}

int ch_verb_doctor(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_dep(&d, p, g, o, out, err, errsize);
    if (rc) {
        close_dep(&d);
        return rc;
    }
    /* finishing an interrupted publication mutates: only under the lock */
    int problems = 0;
    StrBuf body = STRBUF_INIT;
    bool pending = meta_exists(&d) &&
                   count_of(&d, "SELECT count() FROM (SELECT publication_id FROM %s GROUP BY publication_id HAVING "
                                "countIf(phase = 'done') = 0)",
                            qn(&d, "_weir_publications")) > 0;
    if (pending) rc = lock(&d, "doctor");
    if (!rc) rc = check(&d, pending, &body, &problems);
    if (!rc) {
        sb_printf(out, "doctor: database %s on ClickHouse %s: %s\n", d.db, ch_caps(d.c)->version,
                  problems ? "problems found" : "healthy");
        sb_append(out, body.data ? body.data : "", body.len);
        if (problems && !pending) rc = 1;
    }
    sb_free(&body);
    close_dep(&d);
    return rc;
}

int ch_verb_repair(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_locked(&d, p, g, o, out, err, errsize, "repair");
    if (rc) return rc;
    int problems = 0;
    StrBuf body = STRBUF_INIT;
    if (!rc) rc = check(&d, true, &body, &problems);
    if (!rc) {
        sb_printf(out, "repair: %d problem%s fixed\n", problems, problems == 1 ? "" : "s");
        sb_append(out, body.data ? body.data : "", body.len);
    }
    sb_free(&body);
    close_dep(&d);
    return rc;
}

/* ---- janitor ---- */

int ch_native_tables(Project *p, const IrGraph *g, const ChOptions *o, const char **tables, char *err,
                     size_t errsize)
{
    Dep d;
    int rc = open_dep(&d, p, g, o, NULL, err, errsize);
    Binding *bs = NULL;
    int nb = rc ? 0 : load_bindings(&d, &bs);
    if (!rc && nb < 0) rc = 3;
    for (int i = 0; !rc && i < d.cp.nmodels; i++) {
        const ChModel *m = &d.cp.models[i];
        tables[i] = NULL;
        if (m->kind != CHK_NATIVE) continue;
        Active a = {0};
        for (int j = 0; j < nb; j++)
            if (strcmp(bs[j].logical, m->name) == 0 && !load_active(&d, bs[j].deployment, "native", m->name, &a))
                rc = 3;
        if (rc) break;
        if (!a.physical) {
            snprintf(err, errsize, "native model %s has no published table on target %s yet: weir apply (or weir "
                                   "publish) first",
                     m->name, p->target ? p->target->name : "?");
            rc = 1;
            break;
        }
        tables[i] = arena_strdup(&p->arena, a.physical);
    }
    close_dep(&d);
    return rc;
}

int ch_verb_janitor(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize)
{
    Dep d;
    int rc = open_locked(&d, p, g, o, out, err, errsize, "janitor");
    if (rc) return rc;
    int64_t keep_ms = (o->retention_s >= 0 ? o->retention_s : 7 * 86400) * 1000;
    ChRows r;
    if (!rows(&d, &r,
              "SELECT deployment_id, argMax(state, at_ms), max(at_ms) FROM %s GROUP BY deployment_id HAVING "
              "argMax(state, at_ms) IN ('superseded', 'rolled_back', 'abandoned', 'failed') AND max(at_ms) <= %s - %lld "
              "ORDER BY deployment_id",
              qn(&d, "_weir_deployments"), stamp(&d), (long long)keep_ms)) {
        close_dep(&d);
        return 3;
    }
    Binding *bs;
    int nb = load_bindings(&d, &bs);
    int dropped = 0;
    for (int i = 0; !rc && i < r.nrows; i++) {
        const char *dep = arena_strdup(&d.a, ch_cell(&r, i, 0));
        bool used = false;
        for (int j = 0; j < nb; j++)
            if (strstr(bs[j].physical, dep)) used = true;
        if (used) continue;
        Obj *objs;
        int n = load_objects(&d, dep, &objs);
        /* views first, so nothing writes into a table being dropped; a landing is
         * dropped only when no current deployment reads it */
        for (int pass = 0; !rc && pass < 2; pass++)
            for (int k = 0; !rc && k < n; k++) {
                const Obj *ob = &objs[k];
                if (!ob->create) continue;
                bool in_use = false;
                if (ob->is_source)
                    for (int j = 0; j < nb && !in_use; j++) {
                        Active a;
                        if (load_active(&d, bs[j].deployment, "model", bs[j].logical, &a) && a.input &&
                            (strstr(a.input, ob->physical) || strstr(a.signature, ob->physical)))
                            in_use = true;
                    }
                if (in_use) continue;
                const char *names[3] = {pass == 0 ? ob->mv : ob->physical, pass == 0 ? ob->kafka : NULL, NULL};
                for (int x = 0; x < 2; x++)
                    if (names[x] && *names[x]) {
                        if (!execf(&d, "DROP TABLE IF EXISTS %s", qn(&d, names[x]))) rc = 3;
                        else dropped++;
                    }
            }
        if (!rc && !record_state(&d, dep, "retired", NULL)) rc = 3;
        if (!rc) sb_printf(out, "  retired deployment %s\n", dep);
    }
    ch_rows_free(&r);
    if (!rc) sb_printf(out, "janitor: %d object%s dropped\n", dropped, dropped == 1 ? "" : "s");
    close_dep(&d);
    return rc;
}

/* ---- explain / compile (offline) ---- */

void ch_verb_explain(const IrGraph *g, StrBuf *out)
{
    for (int v = 0; v < 2; v++) {
        ChCaps caps;
        ch_caps_profile(v == 1, &caps);
        ChProject cp;
        ch_project_init(&cp, g, &caps);
        if (v) sb_putc(out, '\n');
        ch_explain(&cp, out);
        ch_project_fini(&cp);
    }
}

static bool write_file(const char *path, const char *text, char *err, size_t errsize)
{
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
        if (f) fclose(f);
        return false;
    }
    return true;
}

bool ch_verb_compile(const IrGraph *g, const char *project_dir, char *err, size_t errsize)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/target/clickhouse", project_dir);
    mkdir(path, 0777);
    for (int v = 0; v < 2; v++) {
        ChCaps caps;
        ch_caps_profile(v == 1, &caps);
        ChProject cp;
        ch_project_init_in(&cp, g, &caps, "weir");
        Arena *a = &cp.arena;
        const char *dir = arena_printf(a, "%s/%s", path, v ? "current" : "18.16");
        mkdir(dir, 0777);
        /* remove the files of an earlier compile: the set of objects may have changed */
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "%s/deployment.sql", dir);
        const char *db = "weir", *dep = "00000000T000000Z_000000";
        StrBuf b = STRBUF_INIT;
        sb_printf(&b, "-- weir compile: the DDL of a deployment of the whole project to ClickHouse %s\n"
                      "-- (database `%s`, deployment id %s; `weir apply` fills in the real ones)\n\n",
                  v ? "23+" : "18.16", db, dep);
        const char **src_raw = ARENA_ARRAY(a, const char *, cp.nsources + 1);
        const char **mod_phys = ARENA_ARRAY(a, const char *, cp.nmodels + 1);
        for (int i = 0; i < cp.nsources; i++) {
            const ChSource *s = &cp.sources[i];
            StrBuf q = STRBUF_INIT;
            if (s->adopted) {
                if (strchr(g->project->sources[i].table, '.')) sb_puts(&q, s->table);
                else ch_qual(&q, db, g->project->sources[i].table);
                src_raw[i] = arena_strdup(a, sb_cstr(&q));
            } else if (s->managed) {
                const char *raw = arena_printf(a, "raw__%s__%s", s->object, dep);
                ch_qual(&q, db, raw);
                src_raw[i] = arena_strdup(a, sb_cstr(&q));
                sb_printf(&b, "-- source %s\n%s;\n\n", s->name, ch_raw_ddl(&cp, s, db, raw));
            } else {
                sb_printf(&b, "-- source %s: %s\n\n", s->name, s->why);
            }
            sb_free(&q);
        }
        const BoundProject *bp = g->bound;
        StrBuf views = STRBUF_INIT, landing = STRBUF_INIT, replays = STRBUF_INIT;
        sb_printf(&replays, "-- weir compile: the history replay of every model (ClickHouse %s): its SELECT over the "
                            "raw landing\n-- (or the adopted table) into partition `_weir_replay` = 1; weir apply runs "
                            "it into a scratch table, bounded to\n-- the rows below the cut, and moves the partition "
                            "over\n\n",
                  v ? "23+" : "18.16");
        for (int t = 0; t < bp->ntopo; t++) {
            const ChModel *m = &cp.models[bp->topo[t]];
            if (m->kind == CHK_EPHEMERAL) continue;
            if (m->kind == CHK_NATIVE) {
                /* written by weir run's ClickHouse sink */
                const char *nt = arena_printf(a, "%s__%s", m->name, dep);
                sb_printf(&b, "-- model %s: native (%s)\n%s;\n%s;\n\n", m->name, m->why,
                          ch_native_table_ddl(&cp, m, db, nt), ch_native_view_ddl(&cp, m, db, nt));
                continue;
            }
            if (m->kind == CHK_REFUSED) {
                sb_printf(&b, "-- model %s: %s (%s)\n\n", m->name, ch_kind_name(m->kind), m->why);
                continue;
            }
            if (m->in_source < 0 || !src_raw[m->in_source]) continue;
            const ChSource *s = &cp.sources[m->in_source];
            const char *phys = arena_printf(a, "%s__%s", m->name, dep);
            StrBuf q = STRBUF_INIT;
            ch_qual(&q, db, phys);
            mod_phys[m->index] = arena_strdup(a, sb_cstr(&q));
            sb_clear(&q);
            const char *in = src_raw[m->in_source];
            sb_printf(&b, "-- model %s: %s\n%s;\n", m->name, ch_kind_name(m->kind), ch_table_ddl(&cp, m, db, phys));
            if (s->managed) {
                /* its own Kafka table and consumer group */
                const char *k = arena_printf(a, "%s__kafka", phys);
                ch_qual(&q, db, k);
                in = arena_strdup(a, sb_cstr(&q));
                sb_printf(&b, "%s;\n", ch_kafka_ddl(&cp, s, db, k, "${KAFKA_BOOTSTRAP}",
                                                     arena_printf(a, "weir_<project>_<target>_%s_%s", db, m->name)));
            }
            sb_free(&q);
            sb_printf(&b, "%s;\n\n", ch_mv_ddl(&cp, m, db, arena_printf(a, "%s__mv", phys), phys, in));
            StrBuf v2 = STRBUF_INIT;
            ch_qual(&v2, db, m->name);
            sb_printf(&views, "CREATE VIEW %s AS %s;\n", sb_cstr(&v2), ch_view_select(&cp, m, mod_phys[m->index], in));
            sb_free(&v2);
            /* the history replay: the model's SELECT over the landed (or adopted) rows */
            sb_printf(&replays, "-- model %s\nINSERT INTO %s %s;\n\n", m->name, mod_phys[m->index],
                      ch_fill(a, m->mv_select, src_raw[m->in_source], NULL, "1"));
        }
        for (int i = 0; i < cp.nsources; i++) {
            const ChSource *s = &cp.sources[i];
            if (!s->managed) continue;
            const char *k = arena_printf(a, "kafka__%s__%s", s->object, dep);
            sb_printf(&landing, "%s;\n%s;\n", ch_kafka_ddl(&cp, s, db, k, "${KAFKA_BOOTSTRAP}", "weir_<project>_<target>"),
                      ch_landing_mv_ddl(&cp, s, db, arena_printf(a, "mv__%s__%s", s->object, dep),
                                        arena_printf(a, "raw__%s__%s", s->object, dep), k));
        }
        if (landing.len) sb_printf(&b, "-- landing (created last: consumption starts once every view exists)\n%s\n",
                                   sb_cstr(&landing));
        if (views.len) sb_printf(&b, "-- stable views (weir publish switches them in one RENAME)\n%s", sb_cstr(&views));
        bool ok = write_file(cmd, b.data ? sb_cstr(&b) : "", err, errsize);
        snprintf(cmd, sizeof cmd, "%s/replay.sql", dir);
        ok = ok && write_file(cmd, sb_cstr(&replays), err, errsize);
        sb_free(&replays);
        sb_free(&b);
        sb_free(&views);
        sb_free(&landing);
        ch_project_fini(&cp);
        if (!ok) return false;
    }
    return true;
}
