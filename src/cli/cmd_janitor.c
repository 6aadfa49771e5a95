/* `weir janitor [--retain D]`: remove superseded versions (neither running nor kept for
 * a rollback) whose last checkpoint is older than D (default 7d): their state and their
 * shadow outputs (lifecycle/backend.h, docs/lifecycle.md). */
#include "cli/cli.h"

#include <stdio.h>

int cmd_janitor(const CliOptions *o)
{
    int64_t retain_us = 7LL * 86400 * 1000000;
    if (o->retain && !project_parse_duration(o->retain, &retain_us)) {
        cli_error("--retain: '%s' is not a duration (e.g. 7d, 12h, 0s)", o->retain);
        return EXIT_USAGE;
    }
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    char err[1024] = "";
    int rc = EXIT_OK, code = EXIT_RUNTIME;
    StrBuf out = STRBUF_INIT;
    LcBackend *be = cli_backend_open(&cp, err, sizeof err);
    if (!be || !be->ops->janitor) {
        cli_error("%s", be ? "this target has no staged rollout" : err);
        rc = EXIT_USAGE;
    } else if (!be->ops->janitor(be, retain_us / 1000000, &out, &code, err, sizeof err)) {
        cli_error("%s", err);
        rc = code;
    } else {
        fputs(sb_cstr(&out), stderr);
    }
    if (be) be->ops->close(be);
    sb_free(&out);
    cli_project_free(&cp);
    return rc;
}
