/* The decoder of a source: picks the format-specific decoder for SourceDef.format and
 * presents every format as one call returning a change (see decode.h). */
#include "connectors/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ConnDecoder {
    DataFormat format;
    int ncols;
    ConnJsonDecoder *json;
    ConnCsvDecoder *csv;
    ConnChangelogDecoder *changelog;
    Value *row;
};

ConnDecoder *conn_decoder_new(const SourceDef *s, char *err, size_t errsize)
{
    if (s->format == FMT_UPSERT) {
        snprintf(err, errsize, "source %s: format upsert cannot be read from a %s source", s->name,
                 s->connector == SRC_KAFKA ? "kafka" : "file");
        return NULL;
    }
    ConnDecoder *d = xcalloc(1, sizeof *d);
    d->format = s->format;
    d->ncols = s->ncolumns;
    d->row = xcalloc((size_t)s->ncolumns + 1, sizeof(Value));
    switch (s->format) {
    case FMT_JSON: d->json = conn_json_new(s->columns, s->ncolumns, NULL); break;
    case FMT_CSV: d->csv = conn_csv_new(s->columns, s->ncolumns, s->csv_delimiter); break;
    default: d->changelog = conn_changelog_new(s); break;
    }
    return d;
}

void conn_decoder_free(ConnDecoder *d)
{
    if (!d) return;
    conn_json_free(d->json);
    conn_csv_free(d->csv);
    conn_changelog_free(d->changelog);
    free(d->row);
    free(d);
}

void conn_decoder_set_copy_text(ConnDecoder *d, bool copy)
{
    if (d->json) conn_json_set_copy_text(d->json, copy);
    if (d->csv) conn_csv_set_copy_text(d->csv, copy);
    if (d->changelog) conn_changelog_set_copy_text(d->changelog, copy);
}

void conn_decoder_new_file(ConnDecoder *d)
{
    if (d->csv) conn_csv_reset_header(d->csv);
}

bool conn_decoder_ready(const ConnDecoder *d) { return !d->csv || conn_csv_has_header(d->csv); }

void conn_decoder_sync(ConnDecoder *dst, const ConnDecoder *src)
{
    if (dst->csv && src->csv) conn_csv_copy_header(dst->csv, src->csv);
}

static bool blank(const char *rec, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (rec[i] != ' ' && rec[i] != '\t' && rec[i] != '\r' && rec[i] != '\n') return false;
    return true;
}

ConnDecodeResult conn_decode(ConnDecoder *d, const char *rec, size_t len, Arena *arena,
                             ConnDecoded *out, char *err, size_t errsize)
{
    if (len == 0 || (rec[0] != '{' && blank(rec, len))) return CONN_DEC_NONE;
    switch (d->format) {
    case FMT_JSON:
        if (!conn_json_decode(d->json, rec, len, d->row, arena, NULL, err, errsize)) return CONN_DEC_BAD;
        out->op = CHANGE_INSERT;
        out->row = d->row;
        out->old_row = NULL;
        return CONN_DEC_ROW;
    case FMT_CSV:
        if (!conn_csv_has_header(d->csv))
            return conn_csv_header(d->csv, rec, len, err, errsize) ? CONN_DEC_NONE : CONN_DEC_FATAL;
        if (!conn_csv_decode(d->csv, rec, len, d->row, arena, err, errsize)) return CONN_DEC_BAD;
        out->op = CHANGE_INSERT;
        out->row = d->row;
        out->old_row = NULL;
        return CONN_DEC_ROW;
    default:
        return conn_changelog_decode(d->changelog, rec, len, arena, out, err, errsize);
    }
}
