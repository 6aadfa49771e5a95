/* `weir compile`: check the project, then write the target/ artifacts (with --select,
 * the per-model files of the selected models only). */
#include "cli/cli.h"
#include "lifecycle/manifest.h"

#include <stdio.h>
#include <stdlib.h>

int cmd_compile(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    Selection sel;
    if (!cli_selection(&cp, o, NULL, &sel)) {
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    bool selecting = cli_selecting(o, NULL);
    int ncompiled = selecting ? sel.nmodels : cp.project->nmodels;
    if (cli_stop_on_errors(&cp, o, NULL)) {
        selection_free(&sel);
        return EXIT_FAILURES;
    }
    if (cp.dl.warnings) cli_print_diags(&cp, o);
    char err[512];
    bool ok = manifest_write_all(cp.graph, o->project_dir, selecting ? sel.models : NULL, err, sizeof err);
    selection_free(&sel);
    if (!ok) {
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
        printf("compiled %d model%s into %s/target/\n", ncompiled, ncompiled == 1 ? "" : "s", o->project_dir);
    cli_project_free(&cp);
    return EXIT_OK;
}
