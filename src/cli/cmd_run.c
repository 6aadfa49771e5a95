/* `weir run`: checks the project, then runs the selected models (default: all) on the
 * native runtime; bounded sources run to the end (Kafka sources until SIGTERM, or until
 * caught up with --until-caught-up), then a summary is printed. */
#include "cli/cli.h"
#include "runtime/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

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

/* One run of the pipeline with its summary printed; returns its exit code. */
static int run_once(const CliOptions *o, CliProject *cp, const RunOptions *ro)
{
    RunSummary sum;
    char err[1024] = "";
    int rc = run_pipeline(cp->project, cp->graph, ro, &sum, err, sizeof err);
    StrBuf sb = STRBUF_INIT;
    if (!sum.started) {
        /* it failed before reading anything: the error alone */
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
    return rc;
}

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

/* The native models of a ClickHouse target: each in a run of its own, with the state
 * directory of its table (a table a deployment made new starts from the start of the
 * sources; the table it replaced keeps its state for a rollback). One model runs in
 * this process; several in a child process each, which SIGINT and SIGTERM reach. */
static int run_native(const CliOptions *o, CliProject *cp, const RunOptions *base, bool *native, const char **tables)
{
    Project *p = cp->project;
    int n = 0, first = -1;
    for (int m = 0; m < p->nmodels; m++)
        if (native[m]) {
            n++;
            if (first < 0) first = m;
        }
    bool *one = xcalloc((size_t)p->nmodels + 1, sizeof(bool));
    RunOptions ro = *base;
    ro.models_wanted = one;
    if (n == 1) {
        one[first] = true;
        p->targets[p->target - p->targets].state_dir = cli_native_state_dir(p, tables[first]);
        int rc = run_once(o, cp, &ro);
        free(one);
        return rc;
    }
    pid_t *pids = xcalloc((size_t)p->nmodels + 1, sizeof(pid_t));
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    fflush(stdout);
    fflush(stderr);
    int rc = 0;
    for (int m = 0; m < p->nmodels; m++) {
        if (!native[m]) continue;
        pid_t pid = fork();
        if (pid < 0) {
            cli_error("fork: %s", strerror(errno));
            rc = 3;
            stop_signal = SIGTERM;  /* the runs already started stop too */
            break;
        }
        if (pid == 0) {
            sigaction(SIGINT, &old_int, NULL);
            sigaction(SIGTERM, &old_term, NULL);
            one[m] = true;
            for (int k = 0; k < p->nmodels; k++)
                if (k != m) p->models[k].sink = NULL;
            p->targets[p->target - p->targets].state_dir = cli_native_state_dir(p, tables[m]);
            _exit(run_once(o, cp, &ro));
        }
        pids[m] = pid;
    }
    int left = 0;
    for (int m = 0; m < p->nmodels; m++) left += pids[m] > 0;
    bool forwarded = false;
    while (left > 0) {
        if (stop_signal && !forwarded) {
            for (int m = 0; m < p->nmodels; m++)
                if (pids[m] > 0) kill(pids[m], stop_signal);
            forwarded = true;
        }
        /* polled, so a signal that lands between the check above and the wait is
         * forwarded on the next round */
        int st;
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w == 0) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        if (w < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int m = 0; m < p->nmodels; m++)
            if (pids[m] == w) {
                pids[m] = 0;
                left--;
                int crc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                if (crc > rc) rc = crc;
            }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(pids);
    free(one);
    return rc;
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
    const char **tables = NULL;
    int nnative = 0;
    if (cli_is_clickhouse(&cp)) {
        /* the models ClickHouse cannot maintain run here, written into ClickHouse */
        if (wanted) {
            cli_error("--select: weir run on a ClickHouse target runs its native models, all of them");
            free(wanted);
            cli_project_free(&cp);
            return EXIT_USAGE;
        }
        native = xcalloc((size_t)cp.project->nmodels + 1, sizeof(bool));
        tables = xcalloc((size_t)cp.project->nmodels + 1, sizeof *tables);
        int crc = cli_clickhouse_native_sinks(o, &cp, native, tables, &nnative);
        if (crc || nnative == 0) {
            if (!crc)
                fprintf(stderr, "weir run: every model of target %s is maintained by ClickHouse; nothing runs "
                                "natively (models ClickHouse cannot maintain run here with native_fallback: true)\n",
                        cp.project->target->name);
            free(wanted);
            free(native);
            free(tables);
            cli_project_free(&cp);
            return crc;
        }
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
    int rc;
    if (native) {
        /* each native table has a run (and a state directory) of its own */
        rc = run_native(o, &cp, &ro, native, tables);
        free(native);
        free(tables);
        free(wanted);
        cli_project_free(&cp);
        return rc;
    }
    /* the JSON summary is data (stdout); the text summary is for the person watching
     * (stderr), so it never mixes with rows written by a stdout sink */
    rc = run_once(o, &cp, &ro);
    free(wanted);
    cli_project_free(&cp);
    return rc;
}
