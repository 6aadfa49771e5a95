/* `weir audit`: is the staged version (weir apply --staged) ready to take over? It is
 * brought up to the running version's input first, then compared with it and checked
 * with the models' audits (lifecycle/backend.h, docs/lifecycle.md). Exit 0 ready, 1 not
 * ready. */
#include "cli/cli.h"

#include <stdio.h>

int cmd_audit(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    char err[1024] = "";
    int rc = EXIT_OK, code = EXIT_RUNTIME;
    bool ready = false;
    StrBuf out = STRBUF_INIT;
    LcBackend *be = cli_backend_open(&cp, err, sizeof err);
    if (!be || !be->ops->audit) {
        cli_error("%s", be ? "this target has no staged rollout" : err);
        rc = EXIT_USAGE;
    } else if (!be->ops->audit(be, o->format == OUT_JSON, &out, &ready, &code, err, sizeof err)) {
        cli_error("%s", err);
        rc = code;
    } else {
        cli_write_stdout(out.data, out.len);
        rc = ready ? EXIT_OK : EXIT_FAILURES;
    }
    if (be) be->ops->close(be);
    sb_free(&out);
    cli_project_free(&cp);
    return rc;
}
