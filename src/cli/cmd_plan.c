/* `weir plan`: what the project as it is now would do to the version the target runs
 * -- a verdict per model and per stateful operator with the reasons and what replaying
 * history costs (lifecycle/plan.h, docs/lifecycle.md). What runs comes from the target's
 * backend (native: the manifest kept with the last checkpoint), or with --state PATH
 * from any manifest (a target/ directory or a manifest.json of an earlier `weir
 * compile`), so a change can be reviewed without access to the running state. Read-only.
 * Exit 1 when --fail-on LEVEL is reached or the plan cannot be carried out. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The manifest at --state: a file, or a directory holding manifest.json. */
static char *read_state_manifest(const char *path, size_t *len, char *shown, size_t shownsize)
{
    struct stat st;
    snprintf(shown, shownsize, "%s", path);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) snprintf(shown, shownsize, "%s/manifest.json", path);
    return cli_read_file(shown, len);
}

int cmd_plan(const CliOptions *o)
{
    Verdict fail_on = VERDICT_REMOVED;
    if (o->fail_on && (!verdict_parse(o->fail_on, &fail_on) || fail_on == VERDICT_UNCHANGED ||
                       fail_on == VERDICT_REMOVED)) {
        cli_error("--fail-on: expected safe, new, backfill or rebuild, not '%s'", o->fail_on);
        return EXIT_USAGE;
    }
    if (cli_selecting(o, NULL)) {
        cli_error("weir plan compares the whole project with what runs; --select and --exclude do not apply to it");
        return EXIT_USAGE;
    }
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    if (cli_stop_on_errors(&cp, o, "weir plan: the project has errors (see above); fix them first"))
        return EXIT_FAILURES;
    if (!o->state_path && cli_is_clickhouse(&cp)) {
        int r = cmd_plan_clickhouse(o, &cp);
        cli_project_free(&cp);
        return r;
    }
    char err[1024] = "";
    int rc = EXIT_OK;
    Manifest next, running;
    bool have_running = false;
    LcDeployed dep = {0};
    char *text = NULL;
    size_t len = 0;
    StrBuf against = STRBUF_INIT;
    LcBackend *be = NULL;
    if (!manifest_of_graph(cp.graph, &next, err, sizeof err)) {
        cli_error("%s", err);
        cli_project_free(&cp);
        return EXIT_RUNTIME;
    }
    be = cli_backend_open(&cp, err, sizeof err);
    if (!be) {
        cli_error("%s", err);
        rc = EXIT_USAGE;
        goto out;
    }
    if (o->state_path) {
        char shown[4200];
        text = read_state_manifest(o->state_path, &len, shown, sizeof shown);
        if (!text) {
            cli_error("--state: cannot read %s", shown);
            rc = EXIT_USAGE;
            goto out;
        }
        if (!manifest_parse(text, len, shown, &running, err, sizeof err)) {
            cli_error("%s", err);
            rc = EXIT_USAGE;
            goto out;
        }
        have_running = true;
        sb_puts(&against, shown);
    } else {
        int code = EXIT_RUNTIME;
        if (!be->ops->deployed(be, &dep, &code, err, sizeof err)) {
            cli_error("%s", err);
            rc = code;
            goto out;
        }
        if (dep.exists) {
            if (!manifest_parse(dep.manifest, dep.manifest_len, dep.description, &running, err, sizeof err)) {
                cli_error("%s", err);
                rc = EXIT_RUNTIME;
                goto out;
            }
            have_running = true;
        }
        sb_puts(&against, dep.description);
    }
    Plan plan;
    plan_compute(have_running ? &running : NULL, &next, &plan);
    if (have_running && be->ops->replay_costs) be->ops->replay_costs(be, &plan);
    StrBuf sb = STRBUF_INIT;
    if (o->format == OUT_JSON) plan_render_json(&plan, sb_cstr(&against), &sb);
    else plan_render_text(&plan, sb_cstr(&against), &sb);
    cli_write_stdout(sb.data, sb.len);
    sb_free(&sb);
    if (plan.nblockers || (o->fail_on && plan_reaches(&plan, fail_on))) rc = EXIT_FAILURES;
    plan_free(&plan);
out:
    if (have_running) manifest_free(&running);
    manifest_free(&next);
    lc_deployed_free(&dep);
    if (be) be->ops->close(be);
    free(text);
    sb_free(&against);
    cli_project_free(&cp);
    return rc;
}
