/* `weir run`: checks the project, then runs the selected models (default: all) on the
 * native runtime; bounded sources run to the end (Kafka sources until SIGTERM, or until
 * caught up with --until-caught-up), then a summary is printed. */
#include "cli/cli.h"
#include "runtime/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A durable target runs the version it was deployed with: a project that differs from
 * it (other than in ways that change nothing, such as reformatted SQL) goes through
 * weir apply. Returns false with a message when the run must not start. */
static bool runs_deployed_version(CliProject *cp, char *err, size_t errsize)
{
    LcBackend *be = cli_backend_open(cp, err, errsize);
    if (!be) return true;  /* another runtime: run reports it */
    LcDeployed dep;
    int code;
    bool ok = true;
    if (be->ops->deployed(be, &dep, &code, err, errsize) && dep.exists) {
        Manifest running, next;
        if (manifest_parse(dep.manifest, dep.manifest_len, dep.description, &running, err, errsize)) {
            if (manifest_of_graph(cp->graph, &next, err, errsize)) {
                Plan plan;
                plan_compute(&running, &next, &plan);
                if (plan_reaches(&plan, VERDICT_SAFE)) {
                    snprintf(err, errsize, "the project differs from the version that runs on target %s (%s): "
                             "`weir plan` shows how, `weir apply` deploys it, --fresh starts over",
                             cp->project->target ? cp->project->target->name : "?", dep.description);
                    ok = false;
                }
                plan_free(&plan);
                manifest_free(&next);
            }
            manifest_free(&running);
        }
    }
    err[0] = ok ? '\0' : err[0];
    lc_deployed_free(&dep);
    be->ops->close(be);
    return ok;
}

int cmd_run(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    Selection sel;
    if (!cli_selection(&cp, o, NULL, &sel)) {
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    /* the selected models (their upstream models run too); NULL: all */
    bool *wanted = NULL;
    if (cli_selecting(o, NULL)) {
        wanted = sel.models;
        sel.models = NULL;
    }
    selection_free(&sel);
    if (cli_stop_on_errors(&cp, o, "weir run: the project has errors (see above); nothing was run")) {
        free(wanted);
        return EXIT_FAILURES;
    }
    if (cp.dl.warnings) cli_print_diags(&cp, o);
    char derr[1024] = "";
    if (!o->fresh && !runs_deployed_version(&cp, derr, sizeof derr)) {
        cli_error("%s", derr);
        free(wanted);
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    bool *native = NULL;
    if (cli_is_clickhouse(&cp)) {
        /* the models ClickHouse cannot maintain run here, written into ClickHouse */
        if (wanted) {
            cli_error("--select: weir run on a ClickHouse target runs its native models, all of them");
            free(wanted);
            cli_project_free(&cp);
            return EXIT_USAGE;
        }
        int nnative = 0, crc = cli_clickhouse_native_sinks(o, &cp, &nnative);
        if (crc || nnative == 0) {
            if (!crc)
                fprintf(stderr, "weir run: every model of target %s is maintained by ClickHouse; nothing runs "
                                "natively (models ClickHouse cannot maintain run here with native_fallback: true)\n",
                        cp.project->target->name);
            free(wanted);
            cli_project_free(&cp);
            return crc;
        }
        native = xcalloc((size_t)cp.project->nmodels + 1, sizeof(bool));
        for (int m = 0; m < cp.project->nmodels; m++) native[m] = cp.project->models[m].sink != NULL;
    }
    cli_clickhouse_sources(o, &cp);
    RunOptions ro = {0};
    ro.models_wanted = native ? native : wanted;
    ro.fixed_selection = native != NULL;
    ro.progress = !o->no_progress && isatty(2);
    ro.batch_size = o->batch_size;
    ro.workers = o->workers;
    ro.until_caught_up = o->until_caught_up;
    ro.fresh = o->fresh;
    ro.checkpoint_interval_s = o->checkpoint_interval_s;
    RunSummary sum;
    char err[1024] = "";
    int rc = run_pipeline(cp.project, cp.graph, &ro, &sum, err, sizeof err);
    /* the JSON summary is data (stdout); the text summary is for the person watching
     * (stderr), so it never mixes with rows written by a stdout sink */
    StrBuf sb = STRBUF_INIT;
    if (!sum.started) {
        /* it failed before reading anything: the error alone, no summary of nothing */
    } else if (o->format == OUT_JSON) {
        run_summary_render_json(&sum, &sb);
        cli_write_stdout(sb.data, sb.len);
    } else {
        run_summary_render_text(&sum, &sb);
        fputs(sb_cstr(&sb), stderr);
    }
    sb_free(&sb);
    if (rc != 0) cli_error("%s", err[0] ? err : "run failed");
    run_summary_free(&sum);
    free(wanted);
    free(native);
    cli_project_free(&cp);
    return rc;
}
