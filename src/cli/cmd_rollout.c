/* The staged rollout's verbs after `weir apply --staged` (lifecycle/backend.h,
 * docs/lifecycle.md "Staged rollout"): `weir audit` (is the staged version ready?
 * exit 1 when not), `weir publish` (switch the readers to it), `weir rollback` (back to
 * the version before), `weir janitor [--retain D]` (remove superseded versions). Each
 * opens the target's backend and calls its verb; the report goes to stdout for audit
 * (it is data), to stderr for the others. */
#include "cli/cli.h"

#include <stdio.h>

typedef enum { VERB_AUDIT, VERB_PUBLISH, VERB_ROLLBACK, VERB_JANITOR } Verb;

static int run_verb(const CliOptions *o, Verb verb)
{
    int64_t retain_us = 7LL * 86400 * 1000000;
    if (verb == VERB_JANITOR && o->retain && !project_parse_duration(o->retain, &retain_us)) {
        cli_error("--retain: '%s' is not a duration (e.g. 7d, 12h, 0s)", o->retain);
        return EXIT_USAGE;
    }
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    char err[1024] = "";
    int rc = EXIT_OK, code = EXIT_RUNTIME;
    bool ok = false, ready = false;
    StrBuf out = STRBUF_INIT;
    LcBackend *be = cli_backend_open(&cp, err, sizeof err);
    const LcBackendOps *ops = be ? be->ops : NULL;
    if (!be || !ops->audit || !ops->publish || !ops->rollback || !ops->janitor) {
        cli_error("%s", be ? "this target has no staged rollout" : err);
        rc = EXIT_USAGE;
        goto out;
    }
    switch (verb) {
    case VERB_AUDIT: ok = ops->audit(be, o->format == OUT_JSON, &out, &ready, &code, err, sizeof err); break;
    case VERB_PUBLISH: ok = ops->publish(be, &out, &code, err, sizeof err); break;
    case VERB_ROLLBACK: ok = ops->rollback(be, &out, &code, err, sizeof err); break;
    case VERB_JANITOR: ok = ops->janitor(be, retain_us / 1000000, &out, &code, err, sizeof err); break;
    }
    if (!ok) {
        cli_error("%s", err);
        rc = code;
    } else if (verb == VERB_AUDIT) {
        cli_write_stdout(out.data, out.len);
        rc = ready ? EXIT_OK : EXIT_FAILURES;
    } else {
        fputs(sb_cstr(&out), stderr);
    }
out:
    if (be) be->ops->close(be);
    sb_free(&out);
    cli_project_free(&cp);
    return rc;
}

int cmd_audit(const CliOptions *o) { return run_verb(o, VERB_AUDIT); }
int cmd_publish(const CliOptions *o) { return run_verb(o, VERB_PUBLISH); }
int cmd_rollback(const CliOptions *o) { return run_verb(o, VERB_ROLLBACK); }
int cmd_janitor(const CliOptions *o) { return run_verb(o, VERB_JANITOR); }
