/* The lifecycle verbs on a ClickHouse target (backends/clickhouse/ch_deploy.h):
 * the lifecycle backend behind `weir apply [--staged]`, audit, publish, rollback and
 * janitor (cmd_apply.c, cmd_rollout.c), `build` / `backfill` (StreamBuild's names for
 * apply and apply --staged), the ClickHouse-only doctor and repair, and plan, explain
 * and compile when the target's runtime is clickhouse. */
#include "backends/clickhouse/ch_backend.h"
#include "backends/clickhouse/ch_model.h"
#include "cli/cli.h"
#include "runtime/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cli_is_clickhouse(const CliProject *cp)
{
    return cp->project && cp->project->target && cp->project->target->runtime &&
           strcmp(cp->project->target->runtime, "clickhouse") == 0;
}

static int native_replay(void *ctx, Project *p, const IrGraph *g, int model, const char *table, char *err,
                         size_t errsize);

static void options(const CliOptions *o, ChOptions *co)
{
    memset(co, 0, sizeof *co);
    co->flags.url = o->ch_url;
    co->flags.database = o->ch_database;
    co->flags.user = o->ch_user;
    co->json = o->format == OUT_JSON;
    co->staged = o->staged;
    co->deployment = o->deployment;
    co->force = o->force;
    co->yes = o->yes;
    co->retention_s = -1;
    co->log = o->verbose ? stderr : NULL;
    co->native_replay = native_replay;
    co->native_ctx = (void *)o;
    Verdict v;
    co->fail_on = o->fail_on && verdict_parse(o->fail_on, &v) ? (int)v : -1;
}

LcBackend *cli_clickhouse_backend_open(CliProject *cp)
{
    ChOptions co;
    options(cp->opts, &co);
    return ch_backend_open(cp->project, cp->graph, &co);
}

typedef int (*Verb)(Project *, const IrGraph *, const ChOptions *, StrBuf *, char *, size_t);

static int run_verb(const CliOptions *o, CliProject *cp, Verb verb, const char *name, bool staged)
{
    ChOptions co;
    options(o, &co);
    if (staged) co.staged = true;
    StrBuf out = STRBUF_INIT;
    char err[2048] = "";
    fflush(stdout);
    int rc = verb(cp->project, cp->graph, &co, &out, err, sizeof err);
    cli_write_stdout(out.data, out.len);
    if (rc && err[0]) cli_error("weir %s: %s", name, err);
    sb_free(&out);
    return rc;
}

static int cmd_lifecycle(const CliOptions *o, const char *name)
{
    static const struct {
        const char *name;
        Verb verb;
        bool staged;
    } verbs[] = {
        {"doctor", ch_verb_doctor, false},
        {"repair", ch_verb_repair, false},
        {"reconcile", ch_verb_reconcile, false},
    };
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    if (cli_stop_on_errors(&cp, o, NULL)) return EXIT_FAILURES;
    int rc = EXIT_USAGE;
    if (!cli_is_clickhouse(&cp)) {
        cli_error("weir %s: target %s runs on the native runtime; %s needs a `runtime: clickhouse` target (the native "
                  "runtime continues from its checkpoint with `weir run`)",
                  name, cp.project->target ? cp.project->target->name : "?", name);
    } else {
        for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
            if (strcmp(verbs[i].name, name) == 0) rc = run_verb(o, &cp, verbs[i].verb, name, verbs[i].staged);
    }
    cli_project_free(&cp);
    return rc;
}

/* Give native model m a ClickHouse sink into `table` and every other model none (they
 * are ClickHouse's, or nothing's). False with err. */
static bool native_sinks(const CliOptions *o, Project *p, const IrGraph *g, const bool *native, const char **tables,
                         char *err, size_t errsize)
{
    ChFlags flags = {o->ch_url, o->ch_database, o->ch_user};
    ChConfig cfg;
    if (!ch_config_resolve(p, &flags, &cfg, err, errsize)) return false;
    (void)g;
    for (int m = 0; m < p->nmodels; m++) {
        ModelDef *md = &p->models[m];
        if (!native[m]) {
            md->sink = NULL;
            continue;
        }
        SinkDef *sd = ARENA_NEW(&p->arena, SinkDef);
        memset(sd, 0, sizeof *sd);
        sd->connector = SINK_CLICKHOUSE;
        sd->url = arena_strdup(&p->arena, cfg.url);
        sd->database = arena_strdup(&p->arena, cfg.database);
        sd->table = arena_strdup(&p->arena, tables[m]);
        sd->user = arena_strdup(&p->arena, cfg.user);
        sd->password = arena_strdup(&p->arena, cfg.password);
        sd->native_table = true;
        md->sink = sd;
    }
    ch_config_free(&cfg);
    return true;
}

const char *cli_native_state_dir(Project *p, const char *table)
{
    return arena_printf(&p->arena, "%s/native/%s", run_state_dir(p), table);
}

int cli_clickhouse_native_sinks(const CliOptions *o, CliProject *cp, bool *native, const char **tables, int *nnative)
{
    Project *p = cp->project;
    *nnative = 0;
    ChOptions co;
    options(o, &co);
    char err[1024] = "";
    int rc = ch_native_tables(p, cp->graph, &co, tables, err, sizeof err);
    if (rc) {
        cli_error("%s", err);
        return rc;
    }
    for (int m = 0; m < p->nmodels; m++) {
        native[m] = tables[m] != NULL;
        if (native[m]) (*nnative)++;
    }
    if (!native_sinks(o, p, cp->graph, native, tables, err, sizeof err)) {
        cli_error("%s", err);
        return EXIT_USAGE;
    }
    return 0;
}

void cli_clickhouse_sources(const CliOptions *o, CliProject *cp)
{
    Project *p = cp->project;
    bool any = false;
    for (int s = 0; s < p->nsources; s++) any = any || p->sources[s].connector == SRC_CLICKHOUSE;
    if (!any) return;
    ChFlags flags = {o->ch_url, o->ch_database, o->ch_user};
    ChConfig cfg;
    char err[1024];
    if (!ch_config_resolve(p, &flags, &cfg, err, sizeof err)) return;
    for (int s = 0; s < p->nsources; s++) {
        SourceDef *d = &p->sources[s];
        if (d->connector != SRC_CLICKHOUSE) continue;
        d->url = arena_strdup(&p->arena, cfg.url);
        d->database = arena_strdup(&p->arena, cfg.database);
        d->user = arena_strdup(&p->arena, cfg.user);
        d->password = arena_strdup(&p->arena, cfg.password);
    }
    ch_config_free(&cfg);
}

/* ChOptions.native_replay: native model `model` run from the start of its sources into
 * `table`, with a state directory of that table's own, until it has caught up. The
 * project's sinks and state directory are restored afterwards. */
static int native_replay(void *ctx, Project *p, const IrGraph *g, int model, const char *table, char *err,
                         size_t errsize)
{
    const CliOptions *o = ctx;
    SinkDef **saved = xcalloc((size_t)p->nmodels + 1, sizeof *saved);
    bool *native = xcalloc((size_t)p->nmodels + 1, sizeof *native);
    const char **tables = xcalloc((size_t)p->nmodels + 1, sizeof *tables);
    for (int m = 0; m < p->nmodels; m++) saved[m] = p->models[m].sink;
    native[model] = true;
    tables[model] = table;
    const char *saved_dir = p->target->state_dir;
    int rc = 0;
    if (!native_sinks(o, p, g, native, tables, err, errsize)) rc = 2;
    if (!rc) {
        p->targets[p->target - p->targets].state_dir = cli_native_state_dir(p, table);
        RunOptions ro = {0};
        ro.models_wanted = native;
        ro.fixed_selection = true;
        ro.until_caught_up = true;
        ro.fresh = true;
        ro.workers = 1;
        RunSummary sum;
        char rerr[1024] = "";
        int r = run_pipeline(p, g, &ro, &sum, rerr, sizeof rerr);
        if (r) {
            snprintf(err, errsize, "native model %s: the native runtime failed filling %s: %s", p->models[model].name,
                     table, rerr[0] ? rerr : "run failed");
            rc = 3;
        }
        run_summary_free(&sum);
    }
    p->targets[p->target - p->targets].state_dir = saved_dir;
    for (int m = 0; m < p->nmodels; m++) p->models[m].sink = saved[m];
    free(saved);
    free(native);
    free(tables);
    return rc;
}

int cmd_build(const CliOptions *o) { return cmd_apply(o); }
int cmd_backfill(const CliOptions *o)
{
    CliOptions staged = *o;
    staged.staged = true;
    return cmd_apply(&staged);
}
int cmd_doctor(const CliOptions *o) { return cmd_lifecycle(o, "doctor"); }
int cmd_repair(const CliOptions *o) { return cmd_lifecycle(o, "repair"); }
int cmd_reconcile(const CliOptions *o) { return cmd_lifecycle(o, "reconcile"); }

int cmd_plan_clickhouse(const CliOptions *o, CliProject *cp) { return run_verb(o, cp, ch_verb_plan, "plan", false); }

void cli_explain_clickhouse(const CliProject *cp, StrBuf *out)
{
    sb_putc(out, '\n');
    ch_verb_explain(cp->graph, out);
}

bool cli_compile_clickhouse(const CliProject *cp, const CliOptions *o, char *err, size_t errsize)
{
    return ch_verb_compile(cp->graph, o->project_dir, err, errsize);
}
