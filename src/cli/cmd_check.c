/* `weir check`: load, bind and analyse everything; print every diagnostic sorted by
 * file and position; exit 1 when there are errors. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int cmd_check(const CliOptions *o)
{
    CliProject cp;
    bool have = cli_load(o, &cp);
    if (!have && cp.dl.count == 0) { /* a usage error, already reported */
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    if (have && cli_selecting(o, NULL)) {
        /* check always checks everything; a selector is still validated */
        Selection sel;
        bool ok = cli_selection(&cp, o, NULL, &sel);
        selection_free(&sel);
        if (!ok) {
            cli_project_free(&cp);
            return EXIT_USAGE;
        }
    }
    diag_sort(&cp.dl);
    StrBuf sb = STRBUF_INIT;
    if (o->format == OUT_JSON) {
        sb_printf(&sb, "{\"ok\": %s, \"errors\": %d, \"warnings\": %d, \"diagnostics\": ",
                  cp.dl.errors ? "false" : "true", cp.dl.errors, cp.dl.warnings);
        diag_render_json(&cp.dl, &sb);
        while (sb.len && sb.data[sb.len - 1] == '\n') sb.len--;
        sb_puts(&sb, "}\n");
        cli_write_stdout(sb.data, sb.len);
    } else {
        diag_render_text(&cp.dl, &sb, isatty(2) && !getenv("NO_COLOR"));
        fputs(sb_cstr(&sb), stderr);
        sb_clear(&sb);
        if (have) {
            sb_printf(&sb, "checked %d source%s, %d model%s, %d test%s: ", cp.project->nsources,
                      cp.project->nsources == 1 ? "" : "s", cp.project->nmodels,
                      cp.project->nmodels == 1 ? "" : "s", cp.project->ntests, cp.project->ntests == 1 ? "" : "s");
            if (cp.dl.errors) sb_printf(&sb, "%d error%s", cp.dl.errors, cp.dl.errors == 1 ? "" : "s");
            else sb_puts(&sb, "ok");
            if (cp.dl.warnings) sb_printf(&sb, ", %d warning%s", cp.dl.warnings, cp.dl.warnings == 1 ? "" : "s");
            sb_putc(&sb, '\n');
            cli_write_stdout(sb.data, sb.len);
        }
    }
    sb_free(&sb);
    int rc = !have ? EXIT_USAGE : cp.dl.errors ? EXIT_FAILURES : EXIT_OK;
    cli_project_free(&cp);
    return rc;
}
