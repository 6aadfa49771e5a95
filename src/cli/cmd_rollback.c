/* `weir rollback`: switch the readers back to the version that ran before the last
 * publish, while it is kept (lifecycle/backend.h, docs/lifecycle.md). */
#include "cli/cli.h"

#include <stdio.h>

int cmd_rollback(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    char err[1024] = "";
    int rc = EXIT_OK, code = EXIT_RUNTIME;
    StrBuf out = STRBUF_INIT;
    LcBackend *be = cli_backend_open(&cp, err, sizeof err);
    if (!be || !be->ops->rollback) {
        cli_error("%s", be ? "this target has no staged rollout" : err);
        rc = EXIT_USAGE;
    } else if (!be->ops->rollback(be, &out, &code, err, sizeof err)) {
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
