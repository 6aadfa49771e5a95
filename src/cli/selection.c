/* --select / --exclude for every command that takes models: one call into the selector
 * module (ir/select.h), one error format, exit 2 on a bad selector. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cli_selecting(const CliOptions *o, const char *extra)
{
    return (o->select && *o->select) || (o->exclude && *o->exclude) || (extra && *extra);
}

bool cli_selection(const CliProject *cp, const CliOptions *o, const char *extra, Selection *sel)
{
    char err[1024];
    char *joined = NULL;
    const char *select = o->select;
    if (extra && *extra) {
        if (select && *select) {
            size_t n = strlen(select) + strlen(extra) + 2;
            joined = xmalloc(n);
            snprintf(joined, n, "%s %s", extra, select);
            select = joined;
        } else {
            select = extra;
        }
    }
    bool ok = select_nodes(cp->bound, select, o->exclude, sel, err, sizeof err);
    if (!ok) cli_error("%s", err);
    free(joined);
    return ok;
}
