/* weir's entry point: parses global options and dispatches to one command file. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: weir [global options] <command> [args]\n"
    "\n"
    "commands:\n"
    "  init DIR         scaffold a working project in DIR\n"
    "  check            load, bind and analyse the project; report every problem\n"
    "  compile          write target/ artifacts (manifest.json, dag.json, per-model IR)\n"
    "  explain [MODEL]  operator tree, changelog modes and state (--format text|json|dot)\n"
    "  test             run tests/*.yml in-process and diff the exact changelogs\n"
    "  run              run the pipeline on the native runtime\n"
    "  plan             what the project now does to the running state: a verdict per model\n"
    "  apply            deploy the project: carry its plan out on the target\n"
    "  audit            is the staged version ready? (compared with the running one, audits)\n"
    "  publish          switch the readers to the staged version\n"
    "  rollback         switch them back to the version that ran before\n"
    "  janitor          remove superseded versions (--retain D, default 7d)\n"
    "  inspect          the durable state of a run: checkpoint, offsets and lag, state sizes\n"
    "  doctor, repair   find / fix drift between the metadata and the live objects (ClickHouse)\n"
    "  reconcile        adopt running ClickHouse objects as the project's SQL (--yes records it)\n"
    "  build, backfill  StreamBuild's names for apply and apply --staged\n"
    "\n"
    "global options:\n"
    "  --project-dir DIR   project directory (default .)\n"
    "  --target NAME       target from weir.yml (default: default_target)\n"
    "  --vars JSON         override vars, e.g. '{\"min_amount\": 1}'\n"
    "  --select SELECTOR   models or tests by name (comma-separated)\n"
    "  --format FORMAT     text | json (| dot for explain)\n"
    "\n"
    "plan options:\n"
    "  --state PATH        compare with a manifest (or the target/ directory of an earlier\n"
    "                      `weir compile`) instead of what the target runs\n"
    "  --fail-on LEVEL     exit 1 when a verdict reaches LEVEL (safe, new, backfill, rebuild)\n"
    "\n"
    "apply options:\n"
    "  --yes               do not ask (needed without a terminal)\n"
    "  --allow-rebuild     carry out rebuild verdicts (state built anew from history)\n"
    "  --staged            build the new version beside the running one\n"
    "\n"
    "test options:\n"
    "  --checkpoint-each-step  checkpoint, free and restore the pipeline after every step\n"
    "\n"
    "apply / lifecycle options (ClickHouse targets, docs/clickhouse.md):\n"
    "  --staged            apply: build beside the running version; publish later\n"
    "  --deployment ID     audit, publish: the deployment (default: the latest staged)\n"
    "  --clickhouse-url URL, --clickhouse-database DB, --clickhouse-user USER\n"
    "  --verbose           print every statement sent to ClickHouse on stderr\n"
    "\n"
    "run options:\n"
    "  --no-progress       no progress line on the terminal\n"
    "  --batch-size N      records per source per step (default 4096)\n"
    "  --until-caught-up   stop once Kafka sources delivered what they held at start\n"
    "  --fresh             a run that reads Kafka: discard its checkpoint, start over\n"
    "  --checkpoint-interval D  a run that reads Kafka: time between checkpoints (10s)\n"
    "\n"
    "exit codes: 0 success, 1 failures found, 2 usage or configuration error,\n"
    "            3 runtime or infrastructure failure\n";

typedef struct Command {
    const char *name;
    int (*fn)(const CliOptions *);
} Command;

static const Command COMMANDS[] = {
    {"init", cmd_init},       {"check", cmd_check}, {"compile", cmd_compile},
    {"explain", cmd_explain}, {"test", cmd_test},   {"run", cmd_run},
    {"inspect", cmd_inspect}, {"plan", cmd_plan},       {"apply", cmd_apply},
    {"build", cmd_build},     {"backfill", cmd_backfill}, {"audit", cmd_audit},
    {"publish", cmd_publish}, {"rollback", cmd_rollback}, {"doctor", cmd_doctor},
    {"repair", cmd_repair},   {"janitor", cmd_janitor}, {"reconcile", cmd_reconcile},
};

static bool take_value(int argc, char **argv, int *i, const char *flag, const char **out)
{
    size_t n = strlen(flag);
    if (strncmp(argv[*i], flag, n) == 0 && argv[*i][n] == '=') {
        *out = argv[*i] + n + 1;
        return true;
    }
    if (strcmp(argv[*i], flag) != 0) return false;
    if (*i + 1 >= argc) {
        cli_error("option %s needs a value", flag);
        *out = NULL;
        return true;
    }
    *out = argv[++*i];
    return true;
}

int main(int argc, char **argv)
{
    CliOptions o = {0};
    o.project_dir = ".";
    const char *command = NULL;
    const char *positional[64];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(USAGE, stdout);
            return EXIT_OK;
        } else if (take_value(argc, argv, &i, "--project-dir", &v)) {
            if (!v) return EXIT_USAGE;
            o.project_dir = v;
        } else if (take_value(argc, argv, &i, "--target", &v)) {
            if (!v) return EXIT_USAGE;
            o.target = v;
        } else if (take_value(argc, argv, &i, "--vars", &v)) {
            if (!v) return EXIT_USAGE;
            o.vars_json = v;
        } else if (take_value(argc, argv, &i, "--select", &v) || take_value(argc, argv, &i, "-s", &v)) {
            if (!v) return EXIT_USAGE;
            o.select = v;
        } else if (take_value(argc, argv, &i, "--format", &v)) {
            if (!v) return EXIT_USAGE;
            if (strcmp(v, "text") == 0) o.format = OUT_TEXT;
            else if (strcmp(v, "json") == 0) o.format = OUT_JSON;
            else if (strcmp(v, "dot") == 0) o.format = OUT_DOT;
            else {
                cli_error("unknown format '%s' (expected text, json or dot)", v);
                return EXIT_USAGE;
            }
            o.format_set = true;
        } else if (strcmp(a, "--until-caught-up") == 0) {
            o.until_caught_up = true;
        } else if (strcmp(a, "--no-progress") == 0) {
            o.no_progress = true;
        } else if (strcmp(a, "--fresh") == 0) {
            o.fresh = true;
        } else if (take_value(argc, argv, &i, "--state", &v)) {
            if (!v) return EXIT_USAGE;
            o.state_path = v;
        } else if (take_value(argc, argv, &i, "--fail-on", &v)) {
            if (!v) return EXIT_USAGE;
            o.fail_on = v;
        } else if (take_value(argc, argv, &i, "--retain", &v)) {
            if (!v) return EXIT_USAGE;
            o.retain = v;
        } else if (strcmp(a, "--yes") == 0) {
            o.yes = true;
        } else if (strcmp(a, "--allow-rebuild") == 0) {
            o.allow_rebuild = true;
        } else if (strcmp(a, "--staged") == 0) {
            o.staged = true;
        } else if (strcmp(a, "--force") == 0) {
            o.force = true;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            o.verbose = true;
        } else if (take_value(argc, argv, &i, "--deployment", &v)) {
            if (!v) return EXIT_USAGE;
            o.deployment = v;
        } else if (take_value(argc, argv, &i, "--clickhouse-url", &v)) {
            if (!v) return EXIT_USAGE;
            o.ch_url = v;
        } else if (take_value(argc, argv, &i, "--clickhouse-database", &v)) {
            if (!v) return EXIT_USAGE;
            o.ch_database = v;
        } else if (take_value(argc, argv, &i, "--clickhouse-user", &v)) {
            if (!v) return EXIT_USAGE;
            o.ch_user = v;
        } else if (strcmp(a, "--checkpoint-each-step") == 0) {
            o.checkpoint_each_step = true;
        } else if (take_value(argc, argv, &i, "--checkpoint-interval", &v)) {
            if (!v) return EXIT_USAGE;
            int64_t us;
            if (!project_parse_duration(v, &us) || us <= 0) {
                cli_error("--checkpoint-interval must be a positive duration such as 500ms, 10s or 1m, not '%s'", v);
                return EXIT_USAGE;
            }
            o.checkpoint_interval_s = (double)us / 1e6;
        } else if (take_value(argc, argv, &i, "--batch-size", &v)) {
            if (!v) return EXIT_USAGE;
            char *end;
            long n = strtol(v, &end, 10);
            if (*v == '\0' || *end || n < 1 || n > 1000000) {
                cli_error("--batch-size must be an integer between 1 and 1000000, not '%s'", v);
                return EXIT_USAGE;
            }
            o.batch_size = (int)n;
        } else if (a[0] == '-' && a[1]) {
            cli_error("unknown option '%s' (see weir --help)", a);
            return EXIT_USAGE;
        } else if (!command) {
            command = a;
        } else if (npos < 64) {
            positional[npos++] = a;
        }
    }
    if (!command) {
        fputs(USAGE, stderr);
        return EXIT_USAGE;
    }
    o.args = positional;
    o.nargs = npos;
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(COMMANDS[i].name, command) == 0) return COMMANDS[i].fn(&o);
    const char *names[sizeof COMMANDS / sizeof COMMANDS[0]];
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++) names[i] = COMMANDS[i].name;
    const char *close = diag_closest(command, names, (int)(sizeof names / sizeof names[0]));
    if (close) cli_error("unknown command '%s'; did you mean '%s'?", command, close);
    else cli_error("unknown command '%s' (see weir --help)", command);
    return EXIT_USAGE;
}
