/* `weir apply`: shows the plan of the project against what the target runs, asks (a
 * terminal; --yes without one), and carries it out through the target's backend
 * (lifecycle/backend.h; the native runtime: runtime/apply.h). Refuses, with the
 * reason and exit 1, what cannot be done: history no longer retained, a rebuild
 * without --allow-rebuild. */
#include "cli/cli.h"
#include "lifecycle/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool confirm(const char *target)
{
    fprintf(stderr, "apply this plan to target %s? [y/N] ", target);
    fflush(stderr);
    char line[32];
    if (!fgets(line, sizeof line, stdin)) return false;
    return line[0] == 'y' || line[0] == 'Y';
}

int cmd_apply(const CliOptions *o)
{
    if (cli_selecting(o, NULL)) {
        cli_error("weir apply deploys the whole project; --select and --exclude do not apply to it");
        return EXIT_USAGE;
    }
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    if (cli_stop_on_errors(&cp, o, "weir apply: the project has errors (see above); nothing was applied"))
        return EXIT_FAILURES;
    char err[1024] = "";
    int rc = EXIT_OK, code = EXIT_RUNTIME;
    const char *target = cp.project->target ? cp.project->target->name : "?";
    Manifest next, running;
    bool have_running = false, have_next = false, have_plan = false;
    LcDeployed dep = {0};
    Plan plan;
    StrBuf manifest = STRBUF_INIT, text = STRBUF_INIT;
    LcBackend *be = cli_backend_open(&cp, err, sizeof err);
    if (!be) {
        cli_error("%s", err);
        rc = EXIT_USAGE;
        goto out;
    }
    if (!be->ops->apply) {
        cli_error("target %s: the %s backend cannot apply yet", target, be->ops->name);
        rc = EXIT_USAGE;
        goto out;
    }
    manifest_render(cp.graph, &manifest);
    if (!manifest_parse(manifest.data, manifest.len, "the project's manifest", &next, err, sizeof err)) {
        cli_error("%s", err);
        rc = EXIT_RUNTIME;
        goto out;
    }
    have_next = true;
    if (!be->ops->deployed(be, &dep, &code, err, sizeof err)) {
        cli_error("%s", err);
        rc = code;
        goto out;
    }
    if (!dep.exists && !be->ops->deploys_first) {
        fprintf(stderr, "%s: `weir run` starts the project; there is nothing to apply\n", dep.description);
        goto out;
    }
    if (dep.exists && !manifest_parse(dep.manifest, dep.manifest_len, dep.description, &running, err, sizeof err)) {
        cli_error("%s", err);
        rc = EXIT_RUNTIME;
        goto out;
    }
    have_running = dep.exists;
    plan_compute(have_running ? &running : NULL, &next, &plan);
    have_plan = true;
    if (be->ops->replay_costs) be->ops->replay_costs(be, &plan);
    plan_render_text(&plan, dep.description, &text);
    fputs(sb_cstr(&text), stderr);
    if (!plan_reaches(&plan, VERDICT_SAFE)) {
        fprintf(stderr, "nothing to apply: target %s runs this version\n", target);
        goto out;
    }
    if (plan.nblockers) {
        cli_error("the plan cannot be carried out (see above); nothing was applied");
        rc = EXIT_FAILURES;
        goto out;
    }
    if (plan_reaches(&plan, VERDICT_REBUILD) && !o->allow_rebuild && !o->staged) {
        cli_error("the plan rebuilds state from scratch (REBUILD above); pass --allow-rebuild to carry it out");
        rc = EXIT_FAILURES;
        goto out;
    }
    if (!o->yes) {
        if (!isatty(0)) {
            cli_error("weir apply asks before it changes a target; without a terminal pass --yes");
            rc = EXIT_USAGE;
            goto out;
        }
        if (!confirm(target)) {
            fprintf(stderr, "nothing was applied\n");
            goto out;
        }
    }
    LcApplyRequest req = {.plan = &plan, .manifest = manifest.data, .manifest_len = manifest.len,
                          .allow_rebuild = o->allow_rebuild, .staged = o->staged};
    LcApplyResult res = {0};
    if (!be->ops->apply(be, &req, &res, &code, err, sizeof err)) {
        if (res.summary) fputs(res.summary, stdout);  /* what was done before it stopped */
        free(res.summary);
        cli_error("%s", err);
        rc = code;
        goto out;
    }
    if (res.summary) {
        fputs(res.summary, stdout);
        free(res.summary);
    } else {
        if (res.resumed) fprintf(stderr, "first made the deliveries an interrupted run or apply had left\n");
        if (o->staged)
            fprintf(stderr, "staged: deployment %lld built in %s beside the running version (%lld records replayed, %lld "
                    "rows written to its shadow outputs); weir audit checks it, weir publish switches to it\n",
                    (long long)res.deployment, res.store, (long long)res.replayed_records, (long long)res.restated_rows);
        else
            fprintf(stderr, "applied: deployment %lld runs on target %s (%lld records replayed, %lld changes restated)\n",
                    (long long)res.deployment, target, (long long)res.replayed_records, (long long)res.restated_rows);
    }
out:
    if (have_plan) plan_free(&plan);
    if (have_running) manifest_free(&running);
    if (have_next) manifest_free(&next);
    lc_deployed_free(&dep);
    if (be) be->ops->close(be);
    sb_free(&manifest);
    sb_free(&text);
    cli_project_free(&cp);
    return rc;
}
