/* `weir explain [MODEL...]`: the operator tree of the models named (or all models) with
 * the changelog mode of every edge and the state of every operator. */
#include "cli/cli.h"
#include "ir/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Marks the model named (name, len) in wanted; false with a message when none is. */
static bool want_model(const Project *p, const char *name, size_t len, bool *wanted)
{
    for (int i = 0; i < p->nmodels; i++)
        if (cli_select_is(name, len, p->models[i].name)) {
            wanted[i] = true;
            return true;
        }
    char *want = xstrndup(name, len);
    const char **names = xcalloc((size_t)p->nmodels + 1, sizeof *names);
    for (int i = 0; i < p->nmodels; i++) names[i] = p->models[i].name;
    const char *close = diag_closest(want, names, p->nmodels);
    if (close) cli_error("no model named '%s'; did you mean '%s'?", want, close);
    else cli_error("no model named '%s'", want);
    free(names);
    free(want);
    return false;
}

int cmd_explain(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    bool *wanted = NULL;
    if (o->nargs > 0 || o->select) {
        wanted = xcalloc((size_t)cp.project->nmodels + 1, sizeof *wanted);
        bool ok = true;
        for (int i = 0; i < o->nargs && ok; i++) ok = want_model(cp.project, o->args[i], strlen(o->args[i]), wanted);
        const char *pos = o->select, *s;
        size_t n;
        while (ok && cli_select_next(&pos, &s, &n))
            if (n) ok = want_model(cp.project, s, n, wanted);
        if (!ok) {
            free(wanted);
            cli_project_free(&cp);
            return EXIT_USAGE;
        }
    }
    if (cp.dl.errors) {
        cli_print_diags(&cp, o);
        free(wanted);
        cli_project_free(&cp);
        return EXIT_FAILURES;
    }
    StrBuf sb = STRBUF_INIT;
    if (o->format == OUT_JSON) ir_explain_json(cp.graph, wanted, &sb);
    else if (o->format == OUT_DOT) ir_explain_dot(cp.graph, wanted, &sb);
    else ir_explain_text(cp.graph, wanted, &sb);
    if (o->format == OUT_TEXT && !wanted && cli_is_clickhouse(&cp)) cli_explain_clickhouse(&cp, &sb);
    cli_write_stdout(sb.data, sb.len);
    sb_free(&sb);
    free(wanted);
    cli_project_free(&cp);
    return EXIT_OK;
}
