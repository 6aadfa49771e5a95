/* A ClickHouse table as a source of weir run (`connector: clickhouse`, an adopted
 * table): one query when the run starts, `SELECT <the declared columns> FROM
 * <database>.<table> FORMAT JSONEachRow`, every identifier quoted, over the libcurl
 * adapter (http.c). Each line of the answer is one record for the source's JSON decoder,
 * which decodes the values with the source's declared column types, as it does for a
 * file (64-bit integers come unquoted; NULLs as null; booleans as 0/1). 18.16 writes the
 * day 1970-01-01 (a Date's or DateTime's zero, also its default) as 0000-00-00: the
 * reader gives it back as 1970-01-01 in the values of the date and timestamp columns
 * (found by their key: an unescaped quote only delimits strings in JSON, so `"<name>":"`
 * begins exactly that column's value). The table is read whole, once:
 * it is a snapshot of the table as the run starts, bounded (its end is the end of
 * time for its watermark). A run that continues from a checkpoint does not read it
 * again: its state already holds what the first read gave (the position says "read");
 * `--fresh` reads the table anew. The connection is the one the ClickHouse backend
 * resolves (flags, WEIR_CLICKHOUSE_*, the target), set on the SourceDef by the CLI;
 * the password travels only in a header and is masked in every message. */
#include "connectors/http.h"
#include "connectors/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CH_POS_READ "clickhouse-snapshot-read"

typedef struct ChReader {
    ConnReader base;
    const SourceDef *def;
    char *url, *user, *password;
    StrBuf query;
    StrBuf body;                 /* the whole answer */
    size_t off;                  /* next unread byte of body */
    int64_t line;                /* records returned */
    bool fetched;
    char **zero_keys;            /* `"<name>":"0000-00-00` of each date/timestamp column */
    size_t *zero_lens;
    int nzero;
} ChReader;

static void ident(StrBuf *b, const char *s, size_t n)
{
    sb_putc(b, '`');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '`' || s[i] == '\\') sb_putc(b, '\\');
        sb_putc(b, s[i]);
    }
    sb_putc(b, '`');
}

static void mask(char *msg, const char *secret)
{
    if (secret && *secret)
        for (char *p; (p = strstr(msg, secret));) memset(p, '*', strlen(secret));
}

static bool fetch(ChReader *r, char *err, size_t errsize)
{
    StrBuf url = STRBUF_INIT;
    /* numbers as numbers (not quoted strings) for the JSON decoder */
    sb_printf(&url, "%s/?output_format_json_quote_64bit_integers=0", r->url);
    char hu[512], hk[512];
    snprintf(hu, sizeof hu, "X-ClickHouse-User: %s", r->user);
    snprintf(hk, sizeof hk, "X-ClickHouse-Key: %s", r->password);
    const char *headers[3] = {hu, hk, "Content-Type: text/plain; charset=utf-8"};
    long status = 0;
    char e2[768] = "";
    HttpClient *http = http_client_new();
    bool ok = http_post(http, sb_cstr(&url), headers, 3, r->query.data, r->query.len, 600, &r->body, &status, e2,
                        sizeof e2);
    memset(hk, 0, sizeof hk);
    http_client_free(http);
    sb_free(&url);
    if (!ok) {
        mask(e2, r->password);
        snprintf(err, errsize, "source %s: ClickHouse: %s", r->def->name, e2);
        return false;
    }
    if (status != 200) {
        const char *t = sb_cstr(&r->body);
        size_t n = strlen(t);
        while (n > 0 && (t[n - 1] == '\n' || t[n - 1] == ' ')) n--;
        char msg[1024];
        snprintf(msg, sizeof msg, "%.*s", (int)(n > 900 ? 900 : n), t);
        mask(msg, r->password);
        snprintf(err, errsize, "source %s: reading ClickHouse table %s (HTTP %ld): %s", r->def->name, r->def->table,
                 status, msg);
        return false;
    }
    r->fetched = true;
    return true;
}

static int ch_read(ConnReader *base, ConnRecord *recs, int max, char *err, size_t errsize)
{
    ChReader *r = (ChReader *)base;
    if (base->eof) return 0;
    if (!r->fetched && !fetch(r, err, errsize)) return -1;
    int n = 0;
    const char *data = r->body.data ? r->body.data : "";
    while (n < max && r->off < r->body.len) {
        const char *s = data + r->off;
        const char *nl = memchr(s, '\n', r->body.len - r->off);
        size_t len = nl ? (size_t)(nl - s) : r->body.len - r->off;
        r->off += len + (nl ? 1 : 0);
        if (len == 0) continue;
        for (int z = 0; z < r->nzero; z++) {
            char *at = memmem(s, len, r->zero_keys[z], r->zero_lens[z]);
            if (at) memcpy(at + r->zero_lens[z] - 10, "1970-01-01", 10);
        }
        recs[n].data = s;
        recs[n].len = len;
        recs[n].pos = ++r->line;
        recs[n].partition = -1;
        recs[n].timestamp_us = 0;
        n++;
    }
    if (r->off >= r->body.len) base->eof = true;
    return n;
}

static void ch_progress(ConnReader *base, int64_t *done, int64_t *total)
{
    ChReader *r = (ChReader *)base;
    *done = (int64_t)r->off;
    *total = (int64_t)r->body.len;
}

/* Every position says the table was read: a continuing run does not read it again. */
static void ch_position(ConnReader *base, StrBuf *out)
{
    (void)base;
    sb_puts(out, CH_POS_READ);
}

static void ch_close(ConnReader *base)
{
    ChReader *r = (ChReader *)base;
    if (r->password) memset(r->password, 0, strlen(r->password));
    free(r->password);
    free(r->user);
    free(r->url);
    for (int z = 0; z < r->nzero; z++) free(r->zero_keys[z]);
    free(r->zero_keys);
    free(r->zero_lens);
    free((char *)base->where);
    sb_free(&r->query);
    sb_free(&r->body);
    free(r);
}

static const ConnReaderOps ch_ops = {
    .read = ch_read,
    .progress = ch_progress,
    .close = ch_close,
    .position = ch_position,
};

ConnReader *src_clickhouse_reader_open(const SourceDef *def, const void *resume, size_t resume_len, bool *config_error,
                                       char *err, size_t errsize)
{
    *config_error = false;
    if (!def->url || !*def->url) {
        snprintf(err, errsize, "source %s: no ClickHouse server to read table %s from: set WEIR_CLICKHOUSE_URL or "
                               "--clickhouse-url (or run a target with runtime: clickhouse)",
                 def->name, def->table ? def->table : "?");
        *config_error = true;
        return NULL;
    }
    if (def->format != FMT_JSON) {
        snprintf(err, errsize, "source %s: a ClickHouse table is read as rows (JSONEachRow): it takes no `format`",
                 def->name);
        *config_error = true;
        return NULL;
    }
    if (resume && !(resume_len == strlen(CH_POS_READ) && memcmp(resume, CH_POS_READ, resume_len) == 0)) {
        snprintf(err, errsize, "source %s: the checkpoint's position is not one of a ClickHouse table", def->name);
        return NULL;
    }
    ChReader *r = xcalloc(1, sizeof *r);
    r->def = def;
    r->url = xstrdup(def->url);
    r->user = xstrdup(def->user ? def->user : "default");
    r->password = xstrdup(def->password ? def->password : "");
    const char *t = def->table ? def->table : "";
    const char *dot = strchr(t, '.');
    sb_init(&r->query);
    sb_puts(&r->query, "SELECT ");
    for (int c = 0; c < def->ncolumns; c++) {
        if (c) sb_puts(&r->query, ", ");
        ident(&r->query, def->columns[c].name, strlen(def->columns[c].name));
    }
    sb_puts(&r->query, " FROM ");
    r->zero_keys = xcalloc((size_t)def->ncolumns + 1, sizeof(char *));
    r->zero_lens = xcalloc((size_t)def->ncolumns + 1, sizeof(size_t));
    for (int c = 0; c < def->ncolumns; c++) {
        const char *nm = def->columns[c].name;
        if (!type_is_temporal(def->columns[c].type) || strpbrk(nm, "\\\"") ||
            def->columns[c].encoding != COL_ENC_TEXT)
            continue;
        StrBuf k = STRBUF_INIT;
        sb_printf(&k, "\"%s\":\"0000-00-00", nm);
        r->zero_lens[r->nzero] = k.len;
        r->zero_keys[r->nzero++] = xstrdup(sb_cstr(&k));
        sb_free(&k);
    }
    StrBuf where = STRBUF_INIT;
    if (dot) {
        ident(&where, t, (size_t)(dot - t));
        sb_putc(&where, '.');
        ident(&where, dot + 1, strlen(dot + 1));
    } else {
        /* in the target's database, as the backend reads it */
        const char *db = def->database && *def->database ? def->database : "default";
        ident(&where, db, strlen(db));
        sb_putc(&where, '.');
        ident(&where, t, strlen(t));
    }
    sb_append(&r->query, where.data, where.len);
    sb_puts(&r->query, " FORMAT JSONEachRow");
    r->base.ops = &ch_ops;
    r->base.where = xstrdup(sb_cstr(&where));
    sb_free(&where);
    r->base.bounded = true;
    /* a continuing run: its state holds the table as the first read gave it */
    r->base.eof = resume != NULL;
    return &r->base;
}
