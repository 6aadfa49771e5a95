/* `weir compile`: check the project, then write the target/ artifacts. */
#include "cli/cli.h"
#include "lifecycle/manifest.h"

#include <stdio.h>

int cmd_compile(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    if (cli_stop_on_errors(&cp, o, NULL)) return EXIT_FAILURES;
    if (cp.dl.warnings) cli_print_diags(&cp, o);
    char err[512];
    if (!manifest_write_all(cp.graph, o->project_dir, err, sizeof err)) {
        cli_error("%s", err);
        cli_project_free(&cp);
        return EXIT_RUNTIME;
    }
    if (cli_is_clickhouse(&cp) && !cli_compile_clickhouse(&cp, o, err, sizeof err)) {
        cli_error("%s", err);
        cli_project_free(&cp);
        return EXIT_RUNTIME;
    }
    if (o->format != OUT_JSON)
        printf("compiled %d model%s into %s/target/\n", cp.project->nmodels,
               cp.project->nmodels == 1 ? "" : "s", o->project_dir);
    cli_project_free(&cp);
    return EXIT_OK;
}
