/* `weir explain [MODEL]`: the operator tree of a model (or all models) with the
 * changelog mode of every edge and the state of every operator. */
#include "cli/cli.h"
#include "ir/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The positional arguments as one selector (a union), or NULL; malloc'd. */
static char *positional_selector(const CliOptions *o)
{
    if (o->nargs == 0) return NULL;
    size_t n = 1;
    for (int i = 0; i < o->nargs; i++) n += strlen(o->args[i]) + 1;
    char *s = xmalloc(n);
    s[0] = '\0';
    for (int i = 0; i < o->nargs; i++) {
        if (i) strcat(s, " ");
        strcat(s, o->args[i]);
    }
    return s;
}

int cmd_explain(const CliOptions *o)
{
    if (o->format == OUT_JUNIT) {
        cli_error("explain writes text, json or dot, not junit");
        return EXIT_USAGE;
    }
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    char *positional = positional_selector(o);
    bool selecting = cli_selecting(o, positional);
    Selection sel;
    bool ok = cli_selection(&cp, o, positional, &sel);
    free(positional);
    if (!ok) {
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    if (cp.dl.errors) {
        cli_print_diags(&cp, o);
        selection_free(&sel);
        cli_project_free(&cp);
        return EXIT_FAILURES;
    }
    const bool *models = selecting ? sel.models : NULL;
    StrBuf sb = STRBUF_INIT;
    if (o->format == OUT_JSON) ir_explain_json(cp.graph, models, &sb);
    else if (o->format == OUT_DOT) ir_explain_dot(cp.graph, models, &sb);
    else ir_explain_text(cp.graph, models, &sb);
    if (o->format == OUT_TEXT && !selecting && cli_is_clickhouse(&cp)) cli_explain_clickhouse(&cp, &sb);
    if (selecting && sel.nmodels == 0) fprintf(stderr, "weir explain: the selection matches no model\n");
    cli_write_stdout(sb.data, sb.len);
    sb_free(&sb);
    selection_free(&sel);
    cli_project_free(&cp);
    return EXIT_OK;
}
