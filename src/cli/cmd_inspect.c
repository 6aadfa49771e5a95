/* `weir inspect`: what the durable state of the target holds: the last checkpoint,
 * every source's position and (--format text|json) the lag of Kafka sources behind
 * their topics, the size of every piece of operator state, the sinks' last
 * deliveries and the dead-letter files. Works while a run is going. */
#include "cli/cli.h"
#include "runtime/checkpoint_info.h"

#include <stdio.h>

int cmd_inspect(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    if (cli_stop_on_errors(&cp, o, "weir inspect: the project has errors (see above)")) return EXIT_FAILURES;
    CheckpointInfo ci;
    char err[1024] = "";
    bool ok = checkpoint_info_read(cp.project, true, &ci, err, sizeof err);
    int rc = EXIT_OK;
    if (!ok) {
        cli_error("%s", err);
        rc = EXIT_RUNTIME;
    } else {
        StrBuf sb = STRBUF_INIT;
        if (o->format == OUT_JSON) checkpoint_info_render_json(&ci, &sb);
        else checkpoint_info_render_text(&ci, &sb);
        cli_write_stdout(sb.data, sb.len);
        sb_free(&sb);
    }
    checkpoint_info_free(&ci);
    cli_project_free(&cp);
    return rc;
}
