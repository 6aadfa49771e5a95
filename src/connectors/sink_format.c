/* Line formats of the file and stdout sinks: json, changelog-json and debezium-json
 * lines for one change (see sink.h). Key prefixes are rendered once per sink. */
#include "connectors/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sink_formatter_init(SinkFormatter *f, const ConnSinkSpec *spec, DataFormat format)
{
    memset(f, 0, sizeof *f);
    f->format = format;
    f->model = spec->model;
    f->ncols = spec->ncols;
    f->cols = spec->cols;
    f->prefix = xcalloc((size_t)spec->ncols + 1, sizeof(char *));
    f->prefix_len = xcalloc((size_t)spec->ncols + 1, sizeof(size_t));
    for (int c = 0; c < spec->ncols; c++) {
        StrBuf b = STRBUF_INIT;
        if (c) sb_putc(&b, ',');
        const char *n = spec->cols[c].name ? spec->cols[c].name : "";
        sb_json_str(&b, n, strlen(n));
        sb_putc(&b, ':');
        f->prefix_len[c] = b.len;
        f->prefix[c] = sb_take(&b);
    }
}

void sink_formatter_fini(SinkFormatter *f)
{
    for (int c = 0; c < f->ncols; c++) free(f->prefix[c]);
    free(f->prefix);
    free(f->prefix_len);
    memset(f, 0, sizeof *f);
}

static void cells(const SinkFormatter *f, const Value *row, StrBuf *out)
{
    for (int c = 0; c < f->ncols; c++) {
        sb_append(out, f->prefix[c], f->prefix_len[c]);
        value_format_json(f->cols[c].type, &row[c], out);
    }
}

void sink_format_row(const SinkFormatter *f, const Value *row, StrBuf *out)
{
    sb_putc(out, '{');
    cells(f, row, out);
    sb_putc(out, '}');
}

bool sink_format_change(const SinkFormatter *f, const EngChange *c, StrBuf *out, char *err, size_t errsize)
{
    switch (f->format) {
    case FMT_CHANGELOG_JSON: {
        static const char *const ops[] = {"{\"op\":\"insert\"", "{\"op\":\"update\"", "{\"op\":\"delete\""};
        sb_puts(out, ops[c->op]);
        if (f->ncols) sb_putc(out, ',');
        cells(f, c->row, out);
        sb_puts(out, "}\n");
        return true;
    }
    case FMT_DEBEZIUM_JSON: {
        const Value *before = c->op == CHANGE_DELETE ? c->row : c->op == CHANGE_UPDATE ? c->old_row : NULL;
        const Value *after = c->op == CHANGE_DELETE ? NULL : c->row;
        sb_puts(out, "{\"before\":");
        if (before) sink_format_row(f, before, out); else sb_puts(out, "null");
        sb_puts(out, ",\"after\":");
        if (after) sink_format_row(f, after, out); else sb_puts(out, "null");
        sb_puts(out, c->op == CHANGE_INSERT ? ",\"op\":\"c\"}\n" : c->op == CHANGE_UPDATE ? ",\"op\":\"u\"}\n" : ",\"op\":\"d\"}\n");
        return true;
    }
    case FMT_JSON:
        if (c->op != CHANGE_INSERT) {
            snprintf(err, errsize,
                     "model %s: sink format json is append-only, but the model emitted %s; "
                     "use format changelog-json or debezium-json",
                     f->model, c->op == CHANGE_UPDATE ? "an update" : "a delete");
            return false;
        }
        sink_format_row(f, c->row, out);
        sb_putc(out, '\n');
        return true;
    default:
        snprintf(err, errsize, "model %s: format %s is not supported by this sink", f->model, data_format_name(f->format));
        return false;
    }
}
