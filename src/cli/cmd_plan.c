/* `weir plan`: what the project as it is now would do to the state of the version
 * that runs on the target -- a verdict per model and per stateful operator with the
 * reasons (lifecycle/plan.h). What runs is the manifest a durable run keeps with its
 * checkpoint, or, with --against FILE, any manifest (e.g. the target/manifest.json of
 * the version deployed elsewhere). Exit 1 when the plan is blocked (some state needs a
 * backfill or a rebuild). */
#include "cli/cli.h"
#include "runtime/checkpoint_info.h"
#include "lifecycle/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf b = STRBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_append(&b, buf, n);
    bool err = ferror(f);
    fclose(f);
    if (err) {
        sb_free(&b);
        return NULL;
    }
    *len = b.len;
    return b.data ? sb_take(&b) : xstrdup("");
}

int cmd_plan(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    if (cli_stop_on_errors(&cp, o, "weir plan: the project has errors (see above); fix them first"))
        return EXIT_FAILURES;
    if (!o->against && cli_is_clickhouse(&cp)) {
        int r = cmd_plan_clickhouse(o, &cp);
        cli_project_free(&cp);
        return r;
    }
    char err[1024] = "";
    int rc = EXIT_OK;
    Manifest next, running;
    bool have_running = false;
    char *text = NULL;
    size_t len = 0;
    StrBuf against = STRBUF_INIT;
    CheckpointInfo ci = {0};
    if (!manifest_of_graph(cp.graph, &next, err, sizeof err)) {
        cli_error("%s", err);
        cli_project_free(&cp);
        return EXIT_RUNTIME;
    }
    const char *target = cp.project->target ? cp.project->target->name : "?";
    if (o->against) {
        text = read_file(o->against, &len);
        if (!text) {
            cli_error("--against: cannot read %s", o->against);
            rc = EXIT_USAGE;
            goto out;
        }
        if (!manifest_parse(text, len, o->against, &running, err, sizeof err)) {
            cli_error("%s", err);
            rc = EXIT_USAGE;
            goto out;
        }
        have_running = true;
        sb_printf(&against, "%s", o->against);
    } else {
        if (!checkpoint_info_read(cp.project, false, &ci, err, sizeof err)) {
            cli_error("%s", err);
            rc = EXIT_RUNTIME;
            goto out;
        }
        if (ci.exists && ci.manifest) {
            char what[512];
            snprintf(what, sizeof what, "the manifest of checkpoint %llu in %s", (unsigned long long)ci.id,
                     ci.state_dir);
            if (!manifest_parse(ci.manifest, ci.manifest_len, what, &running, err, sizeof err)) {
                cli_error("%s", err);
                rc = EXIT_RUNTIME;
                goto out;
            }
            have_running = true;
            char when[64];
            time_t t = (time_t)ci.written_at;
            struct tm tm;
            gmtime_r(&t, &tm);
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
            sb_printf(&against, "checkpoint %llu of target %s (written %s)", (unsigned long long)ci.id, target, when);
        } else {
            sb_printf(&against, "target %s, where nothing runs yet (no checkpoint in %s)", target, ci.state_dir);
        }
    }
    Plan plan;
    plan_compute(have_running ? &running : NULL, &next, &plan);
    StrBuf sb = STRBUF_INIT;
    if (o->format == OUT_JSON) plan_render_json(&plan, sb_cstr(&against), &sb);
    else plan_render_text(&plan, sb_cstr(&against), &sb);
    cli_write_stdout(sb.data, sb.len);
    sb_free(&sb);
    if (plan.blocked) rc = EXIT_FAILURES;
    plan_free(&plan);
out:
    if (have_running) manifest_free(&running);
    manifest_free(&next);
    checkpoint_info_free(&ci);
    free(text);
    sb_free(&against);
    cli_project_free(&cp);
    return rc;
}
