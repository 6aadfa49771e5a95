/* Shared command-line plumbing: global options, the load -> bind -> IR pipeline every
 * command starts with, diagnostics printing, and exit codes (DESIGN.md section 1). */
#ifndef WEIR_CLI_CLI_H
#define WEIR_CLI_CLI_H

#include "base/diag.h"
#include "ir/ir.h"
#include "ir/select.h"
#include "lifecycle/backend.h"
#include "project/project.h"
#include "sql/binder.h"

#include <stdbool.h>

enum { EXIT_OK = 0, EXIT_FAILURES = 1, EXIT_USAGE = 2, EXIT_RUNTIME = 3 };

typedef enum { OUT_TEXT, OUT_JSON, OUT_DOT, OUT_JUNIT } OutFormat;

typedef struct CliOptions {
    const char *project_dir;   /* --project-dir, default "." */
    const char *target;        /* --target */
    const char *vars_json;     /* --vars */
    const char *select;        /* --select (repeated: joined by spaces, a union), NULL */
    const char *exclude;       /* --exclude, likewise */
    const char *resource_type; /* ls: model | source | test (comma-separated), NULL = all */
    OutFormat format;          /* --format */
    bool format_set;
    bool until_caught_up;      /* run */
    bool no_progress;          /* run */
    int workers;               /* run: --workers, 0 = the machine's cores */
    int batch_size;            /* run: records per source per step, 0 = default */
    bool fresh;                /* run: discard the checkpoint of a durable run */
    bool checkpoint_each_step; /* test: checkpoint round trip after every step */
    const char *state_path;    /* plan: a manifest (or a target/ directory) to compare with */
    const char *fail_on;       /* plan: exit 1 when a verdict reaches this level */
    bool yes;                  /* apply: do not ask */
    bool allow_rebuild;        /* apply: carry out rebuild verdicts too */
    bool staged;               /* apply: build beside the running version */
    const char *retain;        /* janitor: keep superseded versions this long */
    double checkpoint_interval_s; /* run: 0 = default, < 0 = after every step */
    const char *deployment;    /* audit, publish: a deployment id */
    bool force;                /* publish */
    bool verbose;              /* ClickHouse verbs: every statement on stderr */
    const char *ch_url, *ch_database, *ch_user; /* --clickhouse-url/-database/-user */
    const char **args;         /* positional arguments after the command */
    int nargs;
} CliOptions;

/* Everything a command needs after loading. */
typedef struct CliProject {
    DiagList dl;
    Project *project;          /* NULL when weir.yml is missing */
    Arena arena;               /* plans and IR */
    BoundProject *bound;
    IrGraph *graph;
    const CliOptions *opts;    /* the options it was loaded with */
} CliProject;

/* Load, bind and analyse. Returns false only when there is no project at all
 * (diagnostics say why). Errors in the project leave cp->dl.errors > 0. */
bool cli_load(const CliOptions *o, CliProject *cp);
void cli_project_free(CliProject *cp);
/* Print diagnostics (sorted) as text on stderr, whatever --format says. */
void cli_print_diags(CliProject *cp, const CliOptions *o);
/* The start of the commands that work on a project (compile, explain, run, test).
 * cli_load_project: cli_load; when there is no project at all, prints the diagnostics,
 * frees cp and returns false (the command exits with EXIT_USAGE).
 * cli_stop_on_errors: when the project has errors, prints the diagnostics, then `why`
 * as a line on stderr (unless NULL), frees cp and returns true (the command exits with
 * EXIT_FAILURES); false, printing nothing, when there are none. */
bool cli_load_project(const CliOptions *o, CliProject *cp);
bool cli_stop_on_errors(CliProject *cp, const CliOptions *o, const char *why);
/* Print a one-line error for the user (to stderr). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write all of buf to stdout. */
void cli_write_stdout(const char *s, size_t n);
/* A whole file (malloc'd, NUL-terminated; *len its length), NULL when unreadable. */
char *cli_read_file(const char *path, size_t *len);
/* The lifecycle backend of the selected target's runtime (lifecycle/backend.h); NULL
 * with a message for a runtime this weir cannot deploy to. Close with ops->close. */
LcBackend *cli_backend_open(CliProject *cp, char *err, size_t errsize);
/* --select / --exclude (and `extra`, a command's positional selector, or NULL) resolved
 * over the loaded project with ir/select.h's grammar (cli/selection.c). Returns true
 * with *sel filled; false after printing the error (the command exits with EXIT_USAGE).
 * cli_selecting: whether the command was given any selector at all. */
bool cli_selection(const CliProject *cp, const CliOptions *o, const char *extra, Selection *sel);
bool cli_selecting(const CliOptions *o, const char *extra);

int cmd_init(const CliOptions *o);
int cmd_check(const CliOptions *o);
int cmd_compile(const CliOptions *o);
int cmd_explain(const CliOptions *o);
int cmd_test(const CliOptions *o);
int cmd_run(const CliOptions *o);
int cmd_inspect(const CliOptions *o);
int cmd_ls(const CliOptions *o);
int cmd_plan(const CliOptions *o);
/* The ClickHouse target's own verbs (cmd_clickhouse.c): doctor and repair; build and
 * backfill are StreamBuild's names for apply and apply --staged. */
int cmd_apply(const CliOptions *o);
int cmd_build(const CliOptions *o);
int cmd_backfill(const CliOptions *o);
int cmd_audit(const CliOptions *o);
int cmd_publish(const CliOptions *o);
int cmd_rollback(const CliOptions *o);
int cmd_janitor(const CliOptions *o);
int cmd_doctor(const CliOptions *o);
int cmd_repair(const CliOptions *o);
int cmd_reconcile(const CliOptions *o);
/* plan, explain and compile on a ClickHouse target, and its lifecycle backend */
LcBackend *cli_clickhouse_backend_open(CliProject *cp);
bool cli_is_clickhouse(const CliProject *cp);
/* weir run on a ClickHouse target runs the models marked native (ChModel): each gets a
 * ClickHouse sink into the table of its published deployment, every other model none.
 * native[m], tables[m] (arrays of nmodels): which models and their tables; *nnative:
 * how many. Returns 0, or an exit code after printing the error. */
int cli_clickhouse_native_sinks(const CliOptions *o, CliProject *cp, bool *native, const char **tables, int *nnative);
/* The state directory of the native run that writes `table` (each native table has its
 * own: a new table starts from the start of the sources). */
const char *cli_native_state_dir(Project *p, const char *table);
/* weir run: give every `connector: clickhouse` source the connection the ClickHouse
 * backend resolves (flags, WEIR_CLICKHOUSE_*, the target), so the native runtime can
 * read the table (source_clickhouse.c). Nothing when the project has no such source;
 * when no url resolves the sources keep none (a run that reads one says how to set it). */
void cli_clickhouse_sources(const CliOptions *o, CliProject *cp);
int cmd_plan_clickhouse(const CliOptions *o, CliProject *cp);
void cli_explain_clickhouse(const CliProject *cp, StrBuf *out);
bool cli_compile_clickhouse(const CliProject *cp, const CliOptions *o, char *err, size_t errsize);

#endif
