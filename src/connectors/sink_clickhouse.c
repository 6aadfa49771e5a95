/* The ClickHouse sink: weir run writes a model ClickHouse cannot maintain (a model
 * marked `native` on a `runtime: clickhouse` target with native_fallback) into the
 * table `weir apply` made for it (docs/clickhouse.md "Native models"). Every change is
 * one row: the model's columns, then `_weir_version` (the delivery sequence << 32 plus
 * the change's position in it: a later change of a key has a larger version),
 * `_weir_delivery` (the sequence) and `_weir_deleted` (1 for a delete). A keyed model's
 * table is a ReplacingMergeTree on the key with that version, read through a FINAL
 * view without deleted rows: an upsert. A keyless model's table is appended to; a
 * retraction of a keyless model fails the run.
 *
 * Exactly once: the changes of one delivery travel in one INSERT (one block: ClickHouse
 * writes it whole or not at all) that records the delivery's sequence in every row. A
 * durable run's delivery first asks whether rows of its sequence are in the table: a
 * delivery made before a crash, whose checkpoint was not marked delivered, is not made
 * again. A run that does not resume (a first run, --fresh) empties the table. HTTP goes
 * through http.c; the password travels only in a header and is never printed. */
#include "connectors/http.h"
#include "connectors/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ChSink {
    ConnSink base;
    HttpClient *http;
    char *url;                   /* http://host:port */
    char *qtable;                /* `db`.`table` */
    char *target;
    char *user, *password;
    const PlanColumn *cols;
    int ncols;
    const int *key;
    int nkey;
    StrBuf rows;                 /* TabSeparated rows of the delivery being made */
    uint64_t nrows;
    uint64_t seq;                /* the delivery's sequence (durable: the checkpoint id;
                                    otherwise the step) */
    StrBuf insert;               /* INSERT INTO ... FORMAT TabSeparated\n */
} ChSink;

static void ident(StrBuf *b, const char *s)
{
    sb_putc(b, '`');
    for (; *s; s++) {
        if (*s == '`' || *s == '\\') sb_putc(b, '\\');
        sb_putc(b, *s);
    }
    sb_putc(b, '`');
}

/* One request: body is a statement (and, for an insert, the rows after it). */
static bool post(ChSink *s, const char *body, size_t len, StrBuf *resp, char *err, size_t errsize)
{
    StrBuf url = STRBUF_INIT, r = STRBUF_INIT;
    /* one block per insert (written whole or not at all); times as weir prints them */
    sb_printf(&url, "%s/?max_insert_block_size=4294967295&min_insert_block_size_rows=0"
                    "&min_insert_block_size_bytes=0&date_time_input_format=best_effort",
              s->url);
    char hu[512], hk[512];
    snprintf(hu, sizeof hu, "X-ClickHouse-User: %s", s->user);
    snprintf(hk, sizeof hk, "X-ClickHouse-Key: %s", s->password);
    const char *headers[3] = {hu, hk, "Content-Type: text/plain; charset=utf-8"};
    long status = 0;
    bool ok = http_post(s->http, sb_cstr(&url), headers, 3, body, len, 600, &r, &status, err, errsize);
    memset(hk, 0, sizeof hk);
    if (ok && status != 200) {
        const char *t = sb_cstr(&r);
        size_t n = strlen(t);
        while (n > 0 && (t[n - 1] == '\n' || t[n - 1] == ' ')) n--;
        char msg[1024];
        snprintf(msg, sizeof msg, "%.*s", (int)(n > 900 ? 900 : n), t);
        /* never a password in a message */
        if (*s->password)
            for (char *p; (p = strstr(msg, s->password));) memset(p, '*', strlen(s->password));
        snprintf(err, errsize, "model %s: ClickHouse sink %s (HTTP %ld): %s", s->base.model, s->target, status, msg);
        ok = false;
    } else if (!ok) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s", err);
        snprintf(err, errsize, "model %s: ClickHouse sink %s: %s", s->base.model, s->target, tmp);
    }
    if (ok && resp) sb_append(resp, r.data ? r.data : "", r.len);
    sb_free(&url);
    sb_free(&r);
    return ok;
}

static bool statement(ChSink *s, const char *sql, StrBuf *resp, char *err, size_t errsize)
{
    return post(s, sql, strlen(sql), resp, err, errsize);
}

static void tsv_text(StrBuf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        switch (c) {
        case '\\': sb_puts(b, "\\\\"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\0': sb_puts(b, "\\0"); break;
        default: sb_putc(b, c);
        }
    }
}

static void put_row(ChSink *s, const Value *row, bool deleted)
{
    StrBuf *b = &s->rows;
    for (int c = 0; c < s->ncols; c++) {
        const Value *v = &row[c];
        Type t = s->cols[c].type;
        if (v->isnull) sb_puts(b, "\\N");
        else if (t.id == T_BOOL) sb_putc(b, v->i ? '1' : '0');
        else if (t.id == T_TEXT) tsv_text(b, v->s, v->len);
        else {
            StrBuf tmp = STRBUF_INIT;
            value_format_text(t, v, &tmp);
            tsv_text(b, tmp.data ? tmp.data : "", tmp.len);
            sb_free(&tmp);
        }
        sb_putc(b, '\t');
    }
    sb_printf(b, "%llu\t%llu\t%d\n", (unsigned long long)((s->seq << 32) + s->nrows), (unsigned long long)s->seq,
              deleted ? 1 : 0);
    s->nrows++;
}

static bool same_key(const ChSink *s, const Value *a, const Value *b)
{
    for (int k = 0; k < s->nkey; k++) {
        int c = s->key[k];
        if (!value_equal(s->cols[c].type, &a[c], &b[c])) return false;
    }
    return true;
}

static bool ch_write(ConnSink *base, const EngChange *changes, int n, char *err, size_t errsize)
{
    ChSink *s = (ChSink *)base;
    for (int i = 0; i < n; i++) {
        const EngChange *c = &changes[i];
        if (s->nkey <= 0 && c->op != CHANGE_INSERT) {
            snprintf(err, errsize, "model %s: ClickHouse sink %s: the model has no key, so its %s cannot be written "
                                   "(give the model a `key`)",
                     base->model, s->target, c->op == CHANGE_DELETE ? "deletes" : "updates");
            return false;
        }
        if (c->op == CHANGE_UPDATE && c->old_row && !same_key(s, c->old_row, c->row)) put_row(s, c->old_row, true);
        put_row(s, c->row, c->op == CHANGE_DELETE);
    }
    return true;
}

/* Send the delivery's rows in one INSERT. */
static bool flush_rows(ChSink *s, char *err, size_t errsize)
{
    if (s->nrows == 0) return true;
    StrBuf body = STRBUF_INIT;
    sb_append(&body, s->insert.data, s->insert.len);
    sb_append(&body, s->rows.data, s->rows.len);
    bool ok = post(s, body.data, body.len, NULL, err, errsize);
    sb_free(&body);
    sb_clear(&s->rows);
    s->nrows = 0;
    return ok;
}

static bool ch_commit(ConnSink *base, char *err, size_t errsize)
{
    ChSink *s = (ChSink *)base;
    bool ok = flush_rows(s, err, errsize);
    s->seq++;
    return ok;
}

static bool truncate_table(ChSink *s, char *err, size_t errsize)
{
    StrBuf q = STRBUF_INIT;
    sb_printf(&q, "TRUNCATE TABLE %s", s->qtable);
    bool ok = statement(s, sb_cstr(&q), NULL, err, errsize);
    sb_free(&q);
    return ok;
}

static uint64_t ch_delivery_base(ConnSink *base)
{
    (void)base;
    return 0;
}

static bool ch_begin_delivery(ConnSink *base, uint64_t ckpt, uint64_t dbase, bool replace, bool *already, char *err,
                              size_t errsize)
{
    (void)dbase;
    ChSink *s = (ChSink *)base;
    sb_clear(&s->rows);
    s->nrows = 0;
    s->seq = ckpt;
    if (replace) return truncate_table(s, err, errsize);
    /* made before a crash? its rows carry its sequence */
    StrBuf q = STRBUF_INIT, r = STRBUF_INIT;
    sb_printf(&q, "SELECT count() FROM %s WHERE `_weir_delivery` = %llu", s->qtable, (unsigned long long)ckpt);
    bool ok = statement(s, sb_cstr(&q), &r, err, errsize);
    if (ok) *already = atoll(sb_cstr(&r)) > 0;
    sb_free(&q);
    sb_free(&r);
    return ok;
}

static bool ch_end_delivery(ConnSink *base, uint64_t ckpt, char *err, size_t errsize)
{
    (void)ckpt;
    return flush_rows((ChSink *)base, err, errsize);
}

static bool ch_close(ConnSink *base, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    ChSink *s = (ChSink *)base;
    http_client_free(s->http);
    sb_free(&s->rows);
    sb_free(&s->insert);
    free(s->url);
    free(s->qtable);
    free(s->target);
    free(s->user);
    if (s->password) memset(s->password, 0, strlen(s->password));
    free(s->password);
    free(s);
    return true;
}

static const SinkOps ch_ops = {
    .write = ch_write,
    .commit = ch_commit,
    .close = ch_close,
    .delivery_base = ch_delivery_base,
    .begin_delivery = ch_begin_delivery,
    .end_delivery = ch_end_delivery,
};

ConnSink *sink_clickhouse_open(const ConnSinkSpec *spec, const char *url, const char *database, const char *table,
                               const char *user, const char *password, char *err, size_t errsize)
{
    if (!url || !*url) {
        snprintf(err, errsize, "model %s: ClickHouse sink without a url", spec->model);
        return NULL;
    }
    ChSink *s = xcalloc(1, sizeof *s);
    s->base.ops = &ch_ops;
    s->base.model = spec->model;
    size_t ul = strlen(url);
    while (ul > 0 && url[ul - 1] == '/') ul--;
    s->url = xstrndup(url, ul);
    StrBuf q = STRBUF_INIT;
    ident(&q, database && *database ? database : "default");
    sb_putc(&q, '.');
    ident(&q, table);
    s->qtable = xstrdup(sb_cstr(&q));
    sb_free(&q);
    s->target = xstrdup(s->qtable);
    s->base.target = s->target;
    s->user = xstrdup(user && *user ? user : "default");
    s->password = xstrdup(password ? password : "");
    s->cols = spec->cols;
    s->ncols = spec->ncols;
    s->key = spec->key;
    s->nkey = spec->nkey;
    s->seq = 1;
    s->http = http_client_new();
    sb_printf(&s->insert, "INSERT INTO %s (", s->qtable);
    for (int c = 0; c < s->ncols; c++) {
        ident(&s->insert, s->cols[c].name);
        sb_puts(&s->insert, ", ");
    }
    sb_puts(&s->insert, "`_weir_version`, `_weir_delivery`, `_weir_deleted`) FORMAT TabSeparated\n");
    StrBuf r = STRBUF_INIT, e = STRBUF_INIT;
    sb_printf(&e, "EXISTS TABLE %s", s->qtable);
    bool ok = statement(s, sb_cstr(&e), &r, err, errsize);
    if (ok && atoi(sb_cstr(&r)) != 1) {
        snprintf(err, errsize, "model %s: ClickHouse sink: the table %s does not exist (`weir apply` on the target "
                               "creates it)",
                 spec->model, s->qtable);
        ok = false;
    }
    /* a run that does not continue recomputes the model from the beginning */
    if (ok && !spec->resume) ok = truncate_table(s, err, errsize);
    sb_free(&r);
    sb_free(&e);
    if (!ok) {
        ch_close(&s->base, NULL, 0);
        return NULL;
    }
    return &s->base;
}
