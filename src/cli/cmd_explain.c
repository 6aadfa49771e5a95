/* `weir explain [MODEL]`: the operator tree of a model (or all models) with the
 * changelog mode of every edge and the state of every operator. */
#include "cli/cli.h"
#include "ir/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_explain(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    const char *want = o->nargs > 0 ? o->args[0] : o->select;
    int model = -1;
    if (want) {
        const ModelDef *m = project_find_model(cp.project, want);
        if (!m) {
            const char **names = xcalloc((size_t)cp.project->nmodels + 1, sizeof *names);
            for (int i = 0; i < cp.project->nmodels; i++) names[i] = cp.project->models[i].name;
            const char *close = diag_closest(want, names, cp.project->nmodels);
            free(names);
            if (close) cli_error("no model named '%s'; did you mean '%s'?", want, close);
            else cli_error("no model named '%s'", want);
            cli_project_free(&cp);
            return EXIT_USAGE;
        }
        model = (int)(m - cp.project->models);
    }
    if (cp.dl.errors) {
        cli_print_diags(&cp, o);
        cli_project_free(&cp);
        return EXIT_FAILURES;
    }
    StrBuf sb = STRBUF_INIT;
    if (o->format == OUT_JSON) ir_explain_json(cp.graph, model, &sb);
    else if (o->format == OUT_DOT) ir_explain_dot(cp.graph, model, &sb);
    else ir_explain_text(cp.graph, model, &sb);
    if (o->format == OUT_TEXT && model < 0 && cli_is_clickhouse(&cp)) cli_explain_clickhouse(&cp, &sb);
    cli_write_stdout(sb.data, sb.len);
    sb_free(&sb);
    cli_project_free(&cp);
    return EXIT_OK;
}
