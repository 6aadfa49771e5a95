/* `weir run`: checks the project, then runs the selected models (default: all) on the
 * native runtime; bounded sources run to the end (Kafka sources until SIGTERM, or until
 * caught up with --until-caught-up), then a summary is printed. */
#include "cli/cli.h"
#include "runtime/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --select: comma-separated model names; unknown names are a usage error. */
static bool select_models(const CliOptions *o, const Project *p, bool *wanted)
{
    const char *pos = o->select, *s;
    size_t n;
    while (cli_select_next(&pos, &s, &n)) {
        bool found = false;
        for (int i = 0; i < p->nmodels; i++)
            if (cli_select_is(s, n, p->models[i].name)) {
                wanted[i] = true;
                found = true;
            }
        if (!found) {
            cli_error("--select: no model named '%.*s'", (int)n, s);
            return false;
        }
    }
    return true;
}

int cmd_run(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    if (cli_stop_on_errors(&cp, o, "weir run: the project has errors (see above); nothing was run"))
        return EXIT_FAILURES;
    if (cp.dl.warnings) cli_print_diags(&cp, o);
    bool *wanted = o->select ? xcalloc((size_t)cp.project->nmodels + 1, sizeof(bool)) : NULL;
    if (wanted && !select_models(o, cp.project, wanted)) {
        free(wanted);
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    RunOptions ro = {0};
    ro.models_wanted = wanted;
    ro.progress = !o->no_progress && isatty(2);
    ro.batch_size = o->batch_size;
    ro.until_caught_up = o->until_caught_up;
    ro.fresh = o->fresh;
    ro.checkpoint_interval_s = o->checkpoint_interval_s;
    RunSummary sum;
    char err[1024] = "";
    int rc = run_pipeline(cp.project, cp.graph, &ro, &sum, err, sizeof err);
    /* the JSON summary is data (stdout); the text summary is for the person watching
     * (stderr), so it never mixes with rows written by a stdout sink */
    StrBuf sb = STRBUF_INIT;
    if (o->format == OUT_JSON) {
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
    cli_project_free(&cp);
    return rc;
}
