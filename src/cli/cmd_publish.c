/* `weir publish`: switch the readers to the staged version in one step (SQLite views of
 * a database in one transaction); the version that ran is kept for `weir rollback`
 * (lifecycle/backend.h, docs/lifecycle.md). */
#include "cli/cli.h"

#include <stdio.h>

int cmd_publish(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    char err[1024] = "";
    int rc = EXIT_OK, code = EXIT_RUNTIME;
    StrBuf out = STRBUF_INIT;
    LcBackend *be = cli_backend_open(&cp, err, sizeof err);
    if (!be || !be->ops->publish) {
        cli_error("%s", be ? "this target has no staged rollout" : err);
        rc = EXIT_USAGE;
    } else if (!be->ops->publish(be, &out, &code, err, sizeof err)) {
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
