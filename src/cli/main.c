/* weir's entry point: parses global options and dispatches to one command file. */
#include "cli/cli.h"
#include "connectors/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef WEIR_VERSION
#define WEIR_VERSION "unknown"
#endif

static const char USAGE[] =
    "usage: weir [global options] <command> [args]\n"
    "\n"
    "commands:\n"
    "  init DIR         scaffold a working project in DIR\n"
    "  check            load, bind and analyse the project; report every problem\n"
    "  compile          write target/ artifacts (manifest.json, dag.json, per-model IR)\n"
    "  explain [MODEL...] operator tree, changelog modes and state (--format text|json|dot)\n"
    "  test             run tests/*.yml in-process and diff the exact changelogs\n"
    "  ls               list models, sources and tests (materialization, key, sink, tags)\n"
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
    "  --select SELECTOR   models and tests, dbt's grammar: name, +name, name+, tag:, path:,\n"
    "                      source:; space = union, comma = intersection (docs/cli.md)\n"
    "  --exclude SELECTOR  leave these out (same grammar)\n"
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
    "  --workers N         threads decoding the sources (default: the cores; same results)\n"
    "  --until-caught-up   stop once Kafka and directory sources delivered what they held at start\n"
    "  --fresh             a durable run (Kafka, directory sources): discard its checkpoint\n"
    "  --checkpoint-interval D  a durable run: time between checkpoints (10s; 0: every step)\n"
    "\n"
    "  help [COMMAND]   this text, or a command's own (also weir COMMAND --help)\n"
    "\n"
    "exit codes: 0 success, 1 failures found, 2 usage or configuration error,\n"
    "            3 runtime or infrastructure failure\n";

/* A command: its function, how many positional arguments it takes, and its own help
 * (`weir help NAME`, `weir NAME --help`). */
typedef struct Command {
    const char *name;
    int (*fn)(const CliOptions *);
    int min_args, max_args;      /* positional arguments after the command; -1: any number */
    const char *help;
} Command;

#define GLOBAL_HELP "\nglobal options: --project-dir DIR, --target NAME, --vars JSON, --select SELECTOR,\n" \
                    "--exclude SELECTOR, --format F\n" \
                    "(weir --help lists them; docs/cli.md has every command)\n"

static const Command COMMANDS[] = {
    {"init", cmd_init, 1, 1,
     "usage: weir init DIR\n\nScaffold a project in DIR (a source with sample data, a model, its config and a\n"
     "test) that passes check and test. Never overwrites a file.\n"},
    {"check", cmd_check, 0, 0,
     "usage: weir check [--format text|json]\n\nLoad, bind and analyse the project; print every diagnostic with\n"
     "file:line:col, the source line, a caret and a hint. Data files need not exist yet (a\n"
     "missing one is a note). Exit 1 when there are errors.\n" GLOBAL_HELP},
    {"compile", cmd_compile, 0, 0,
     "usage: weir compile [--select SELECTOR]\n\nCheck, then write target/manifest.json, target/dag.json, target/ir/<model>.json and\n"
     "target/sql/<model>.sql. Needs no data files.\n" GLOBAL_HELP},
    {"explain", cmd_explain, 0, -1,
     "usage: weir explain [SELECTOR...] [--format text|json|dot]\n\n"
     "The operator tree of each model named (all models, in dependency order, when none\n"
     "is), with the changelog mode of every edge and the key, values and bound of every\n"
     "piece of state. Needs no data files.\n" GLOBAL_HELP},
    {"test", cmd_test, 0, 0,
     "usage: weir test [--select SELECTOR] [--checkpoint-each-step] [--format text|json]\n\n"
     "Run tests/*.yml in-process and diff the exact changelogs. Needs no data files.\n"
     "  --checkpoint-each-step  checkpoint, free and restore the pipeline after every step\n" GLOBAL_HELP},
    {"run", cmd_run, 0, 0,
     "usage: weir run [options]\n\nRun the models on the native runtime: bounded sources to their end, Kafka\n"
     "sources and directory sources until SIGTERM; then a summary. A missing input is exit 3.\n"
     "  --select SELECTOR       run only these models (and what they read)\n"
     "  --no-progress           no progress line on the terminal\n"
     "  --batch-size N          records per source per step (1 to 1000000, default 4096)\n"
     "  --workers N             threads decoding the sources (1 to 256, default: the cores; same results)\n"
     "  --until-caught-up       stop once Kafka and directory sources delivered what they held at start\n"
     "  --fresh                 a durable run: discard its checkpoint, start over\n"
     "  --checkpoint-interval D a durable run: time between checkpoints (default 10s)\n"
     "  --format json           the summary as JSON on stdout\n" GLOBAL_HELP},
    {"inspect", cmd_inspect, 0, 0,
     "usage: weir inspect [--format text|json]\n\nThe durable state of the target: the last checkpoint, every\n"
     "source's position, the size of every piece of state, the sinks' deliveries.\n" GLOBAL_HELP},
    {"plan", cmd_plan, 0, 0,
     "usage: weir plan [--state PATH] [--fail-on LEVEL] [--format text|json]\n\nWhat the project as it is now does\n"
     "to the version the target runs: a verdict per model and per piece of state.\n"
     "  --state PATH    compare with a manifest (or a target/ directory) instead\n"
     "  --fail-on LEVEL exit 1 when a verdict reaches LEVEL (safe, new, backfill, rebuild)\n" GLOBAL_HELP},
    {"ls", cmd_ls, 0, 0,
     "usage: weir ls [--select SELECTOR] [--exclude SELECTOR] [--resource-type model|source|test]\n"
     "               [--format text|json]\n\nList models, sources and tests with their materialization, key,\n"
     "sink and tags. Needs no data files.\n" GLOBAL_HELP},
    {"apply", cmd_apply, 0, 0,
     "usage: weir apply [--yes] [--allow-rebuild] [--staged]\n\nShow the plan, ask, and deploy the project on the\n"
     "target.\n  --yes            do not ask (needed without a terminal)\n"
     "  --allow-rebuild  carry out rebuild verdicts\n  --staged         build beside the running version\n"
     GLOBAL_HELP},
    {"build", cmd_build, 0, 0, "usage: weir build\n\nStreamBuild's name for weir apply.\n" GLOBAL_HELP},
    {"backfill", cmd_backfill, 0, 0, "usage: weir backfill\n\nStreamBuild's name for weir apply --staged.\n" GLOBAL_HELP},
    {"audit", cmd_audit, 0, 0,
     "usage: weir audit [--deployment ID] [--format text|json]\n\nIs the staged version ready? Exit 1 when not.\n"
     GLOBAL_HELP},
    {"publish", cmd_publish, 0, 0,
     "usage: weir publish [--deployment ID] [--force]\n\nSwitch the readers to the staged version.\n" GLOBAL_HELP},
    {"rollback", cmd_rollback, 0, 0,
     "usage: weir rollback\n\nSwitch the readers back to the version that ran before.\n" GLOBAL_HELP},
    {"doctor", cmd_doctor, 0, 0,
     "usage: weir doctor\n\nFind drift between the metadata and the live objects (ClickHouse).\n" GLOBAL_HELP},
    {"repair", cmd_repair, 0, 0,
     "usage: weir repair\n\nFix drift between the metadata and the live objects (ClickHouse).\n" GLOBAL_HELP},
    {"janitor", cmd_janitor, 0, 0,
     "usage: weir janitor [--retain D]\n\nRemove superseded versions (kept 7d by default).\n" GLOBAL_HELP},
    {"reconcile", cmd_reconcile, 0, 0,
     "usage: weir reconcile [--yes]\n\nAdopt the objects already live in ClickHouse that match the project into\n"
     "weir's metadata (plan says unchanged afterwards). Without --yes, only shows what it would adopt.\n" GLOBAL_HELP},
};
#define NCOMMANDS ((int)(sizeof COMMANDS / sizeof COMMANDS[0]))

static const Command *find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(COMMANDS[i].name, name) == 0) return &COMMANDS[i];
    return NULL;
}

/* "unknown command" with a did-you-mean; EXIT_USAGE. */
static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS + 1];
    for (int i = 0; i < NCOMMANDS; i++) names[i] = COMMANDS[i].name;
    names[NCOMMANDS] = "help";
    const char *close = diag_closest(name, names, NCOMMANDS + 1);
    if (close) cli_error("unknown command '%s'; did you mean '%s'?", name, close);
    else cli_error("unknown command '%s' (see weir --help)", name);
    return EXIT_USAGE;
}

/* --vars must be a JSON object of scalars: checked here, before any project is read, so
 * a typo is a usage error that says where the JSON goes wrong. */
static bool vars_json_ok(const char *v)
{
    size_t len = strlen(v), pos = conn_json_skip_ws(v, len, 0);
    char err[256] = "", scratch[256];
    const char *k;
    size_t kl;
    if (pos >= len || v[pos] != '{') {
        bool value = pos < len && conn_json_skip_value(v, len, &pos, err, sizeof err);
        if (value && conn_json_skip_ws(v, len, pos) == len)
            cli_error("--vars must be a JSON object such as '{\"min_amount\": 1}', not a %s",
                      v[conn_json_skip_ws(v, len, 0)] == '[' ? "list" : "single value");
        else
            cli_error("--vars is not valid JSON (%s); example: --vars '{\"min_amount\": 1}'",
                      err[0] ? err : "expected an object");
        return false;
    }
    pos = conn_json_skip_ws(v, len, pos + 1);
    bool first = true;
    while (pos < len && v[pos] != '}') {
        if (!first) {
            if (v[pos] != ',') goto bad;
            pos = conn_json_skip_ws(v, len, pos + 1);
        }
        first = false;
        if (pos >= len || v[pos] != '"') goto bad;
        if (!conn_json_string(v, len, &pos, scratch, sizeof scratch, &k, &kl, err, sizeof err)) goto bad;
        pos = conn_json_skip_ws(v, len, pos);
        if (pos >= len || v[pos] != ':') goto bad;
        pos = conn_json_skip_ws(v, len, pos + 1);
        size_t at = pos;
        if (!conn_json_skip_value(v, len, &pos, err, sizeof err)) goto bad;
        if (v[at] == '{' || v[at] == '[' || v[at] == 'n') {
            cli_error("--vars: var '%.*s' must be a string, number or boolean, not %s", (int)kl, k,
                      v[at] == 'n' ? "null" : v[at] == '[' ? "a list" : "an object");
            return false;
        }
        pos = conn_json_skip_ws(v, len, pos);
    }
    if (pos < len && v[pos] == '}' && conn_json_skip_ws(v, len, pos + 1) == len) return true;
bad:
    if (!err[0]) conn_json_syntax_error(pos, pos >= len ? "unexpected end" : "expected a \"name\": value pair",
                                        err, sizeof err);
    cli_error("--vars is not valid JSON (%s); example: --vars '{\"min_amount\": 1}'", err);
    return false;
}

/* A repeated --select or --exclude adds to the union: the values joined by a space.
 * The joined strings stay reachable from here until exit. */
static char *joined_values[2];

static const char *join_value(int slot, const char *prev, const char *v)
{
    if (!prev) return v;
    size_t n = strlen(prev) + strlen(v) + 2;
    char *s = xmalloc(n);
    snprintf(s, n, "%s %s", prev, v);
    free(joined_values[slot]);
    joined_values[slot] = s;
    return s;
}

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
    bool help = false;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help = true;
        } else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
            printf("weir %s\n", WEIR_VERSION);
            return EXIT_OK;
        } else if (take_value(argc, argv, &i, "--project-dir", &v)) {
            if (!v) return EXIT_USAGE;
            o.project_dir = v;
        } else if (take_value(argc, argv, &i, "--target", &v)) {
            if (!v) return EXIT_USAGE;
            o.target = v;
        } else if (take_value(argc, argv, &i, "--vars", &v)) {
            if (!v) return EXIT_USAGE;
            if (!vars_json_ok(v)) return EXIT_USAGE;
            o.vars_json = v;
        } else if (take_value(argc, argv, &i, "--select", &v) || take_value(argc, argv, &i, "-s", &v)) {
            if (!v) return EXIT_USAGE;
            o.select = join_value(0, o.select, v);
        } else if (take_value(argc, argv, &i, "--exclude", &v)) {
            if (!v) return EXIT_USAGE;
            o.exclude = join_value(1, o.exclude, v);
        } else if (take_value(argc, argv, &i, "--resource-type", &v)) {
            if (!v) return EXIT_USAGE;
            o.resource_type = v;
        } else if (take_value(argc, argv, &i, "--format", &v)) {
            if (!v) return EXIT_USAGE;
            if (strcmp(v, "text") == 0) o.format = OUT_TEXT;
            else if (strcmp(v, "json") == 0) o.format = OUT_JSON;
            else if (strcmp(v, "dot") == 0) o.format = OUT_DOT;
            else if (strcmp(v, "junit") == 0) o.format = OUT_JUNIT;
            else {
                cli_error("unknown format '%s' (expected text, json, dot or junit)", v);
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
            if (!project_parse_duration(v, &us) || us < 0) {
                cli_error("--checkpoint-interval must be a duration such as 500ms, 10s or 1m (0: after every step), "
                          "not '%s'", v);
                return EXIT_USAGE;
            }
            o.checkpoint_interval_s = us == 0 ? -1 : (double)us / 1e6;
        } else if (take_value(argc, argv, &i, "--batch-size", &v)) {
            if (!v) return EXIT_USAGE;
            char *end;
            long n = strtol(v, &end, 10);
            if (*v == '\0' || *end || n < 1 || n > 1000000) {
                cli_error("--batch-size must be an integer between 1 and 1000000, not '%s'", v);
                return EXIT_USAGE;
            }
            o.batch_size = (int)n;
        } else if (take_value(argc, argv, &i, "--workers", &v)) {
            if (!v) return EXIT_USAGE;
            char *end;
            long n = strtol(v, &end, 10);
            if (*v == '\0' || *end || n < 1 || n > 256) {
                cli_error("--workers must be an integer between 1 and 256, not '%s'", v);
                return EXIT_USAGE;
            }
            o.workers = (int)n;
        } else if (a[0] == '-' && a[1]) {
            cli_error("unknown option '%s' (see weir --help)", a);
            return EXIT_USAGE;
        } else if (!command) {
            command = a;
        } else if (npos < 64) {
            positional[npos++] = a;
        } else {
            cli_error("too many arguments");
            return EXIT_USAGE;
        }
    }
    if (command && strcmp(command, "help") == 0) {
        /* weir help [COMMAND] */
        if (npos == 0) {
            fputs(USAGE, stdout);
            return EXIT_OK;
        }
        if (npos > 1) {
            cli_error("usage: weir help [COMMAND]");
            return EXIT_USAGE;
        }
        command = positional[0];
        help = true;
        npos = 0;
    }
    if (!command) {
        if (help) {
            fputs(USAGE, stdout);
            return EXIT_OK;
        }
        fputs(USAGE, stderr);
        return EXIT_USAGE;
    }
    const Command *c = find_command(command);
    if (!c) return unknown_command(command);
    if (help) {
        fputs(c->help, stdout);
        return EXIT_OK;
    }
    if (npos > c->max_args && c->max_args >= 0) {
        if (c->max_args == 0) cli_error("weir %s takes no arguments, got '%s' (see weir %s --help)", c->name,
                                        positional[0], c->name);
        else cli_error("weir %s: unexpected argument '%s' (see weir %s --help)", c->name, positional[c->max_args],
                       c->name);
        return EXIT_USAGE;
    }
    if (npos < c->min_args) {
        cli_error("weir %s: missing argument (see weir %s --help)", c->name, c->name);
        return EXIT_USAGE;
    }
    o.args = positional;
    o.nargs = npos;
    return c->fn(&o);
}
