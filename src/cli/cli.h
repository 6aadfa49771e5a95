/* Shared command-line plumbing: global options, the load -> bind -> IR pipeline every
 * command starts with, diagnostics printing, and exit codes (DESIGN.md section 1). */
#ifndef WEIR_CLI_CLI_H
#define WEIR_CLI_CLI_H

#include "base/diag.h"
#include "ir/ir.h"
#include "project/project.h"
#include "sql/binder.h"

#include <stdbool.h>

enum { EXIT_OK = 0, EXIT_FAILURES = 1, EXIT_USAGE = 2, EXIT_RUNTIME = 3 };

typedef enum { OUT_TEXT, OUT_JSON, OUT_DOT } OutFormat;

typedef struct CliOptions {
    const char *project_dir;   /* --project-dir, default "." */
    const char *target;        /* --target */
    const char *vars_json;     /* --vars */
    const char *select;        /* --select */
    OutFormat format;          /* --format */
    bool format_set;
    bool until_caught_up;      /* run */
    bool no_progress;          /* run */
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
} CliProject;

/* Load, bind and analyse. Returns false only when there is no project at all
 * (diagnostics say why). Errors in the project leave cp->dl.errors > 0. */
bool cli_load(const CliOptions *o, CliProject *cp);
void cli_project_free(CliProject *cp);
/* Print diagnostics (sorted) to stderr as text, or as JSON to stdout when --format json. */
void cli_print_diags(CliProject *cp, const CliOptions *o);
/* Print a one-line error for the user (to stderr). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write all of buf to stdout. */
void cli_write_stdout(const char *s, size_t n);

int cmd_init(const CliOptions *o);
int cmd_check(const CliOptions *o);
int cmd_compile(const CliOptions *o);
int cmd_explain(const CliOptions *o);
int cmd_test(const CliOptions *o);
int cmd_run(const CliOptions *o);

#endif
