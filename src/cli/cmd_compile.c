/* `weir compile`: check the project, then write the target/ artifacts. */
#include "cli/cli.h"
#include "lifecycle/manifest.h"

#include <stdio.h>

int cmd_compile(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load(o, &cp)) {
        cli_print_diags(&cp, o);
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    if (cp.dl.errors || cp.dl.warnings) cli_print_diags(&cp, o);
    if (cp.dl.errors) {
        cli_project_free(&cp);
        return EXIT_FAILURES;
    }
    char err[512];
    if (!manifest_write_all(cp.graph, o->project_dir, err, sizeof err)) {
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
