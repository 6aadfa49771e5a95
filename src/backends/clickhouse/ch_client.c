/* The ClickHouse connection (see ch_client.h): settings, HTTP requests, capability
 * probes, TabSeparated results and quoting. */
#include "backends/clickhouse/ch_client.h"

#include "connectors/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ChConn {
    ChConfig cfg;
    HttpClient *http;
    ChCaps caps;
    FILE *log;
};

void ch_caps_profile(bool current, ChCaps *out)
{
    memset(out, 0, sizeof *out);
    if (current) {
        snprintf(out->version, sizeof out->version, "23.8 (profile)");
        out->major = 23;
        out->minor = 8;
        out->or_replace_view = out->ttl = out->datetime64 = out->json_as_string = out->kafka_virtual = true;
    } else {
        snprintf(out->version, sizeof out->version, "18.16.1 (profile)");
        out->major = 18;
        out->minor = 16;
    }
}

/* ---- settings ---- */

static const char *target_str(const TargetDef *t, const char *key)
{
    if (!t || !t->node) return NULL;
    YNode *n = yaml_get(t->node, key);
    return n && n->kind == YNODE_SCALAR ? n->str : NULL;
}

static bool pick(Project *p, const char *flag, const char *flagname, const char *env, const char *key,
                 const char *dflt, char **out, const char **from, char *err, size_t errsize)
{
    const char *v = NULL, *src = NULL;
    if (flag && *flag) {
        v = flag;
        src = flagname;
    } else if (getenv(env) && *getenv(env)) {
        v = getenv(env);
        src = env;
    } else if ((v = target_str(p->target, key))) {
        v = project_resolve_env(p, v, err, errsize);
        if (!v) return false;
        src = "the target";
    } else {
        v = dflt;
        src = "the default";
    }
    *out = xstrdup(v ? v : "");
    if (from) *from = src;
    return true;
}

bool ch_config_resolve(Project *p, const ChFlags *flags, ChConfig *out, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    ChFlags none = {0};
    if (!flags) flags = &none;
    if (!pick(p, flags->url, "--clickhouse-url", "WEIR_CLICKHOUSE_URL", "url", NULL, &out->url, &out->url_from,
              err, errsize) ||
        !pick(p, flags->database, "--clickhouse-database", "WEIR_CLICKHOUSE_DATABASE", "database", "default",
              &out->database, NULL, err, errsize) ||
        !pick(p, flags->user, "--clickhouse-user", "WEIR_CLICKHOUSE_USER", "user", "default", &out->user, NULL, err,
              errsize) ||
        !pick(p, NULL, NULL, "WEIR_CLICKHOUSE_PASSWORD", "password", "", &out->password, NULL, err, errsize)) {
        ch_config_free(out);
        return false;
    }
    if (!*out->url) {
        snprintf(err, errsize, "target %s: no ClickHouse url; set `url:` in the target, WEIR_CLICKHOUSE_URL or "
                               "--clickhouse-url", p->target ? p->target->name : "?");
        ch_config_free(out);
        return false;
    }
    size_t n = strlen(out->url);
    while (n > 0 && out->url[n - 1] == '/') out->url[--n] = '\0';
    if (strncmp(out->url, "http://", 7) != 0 && strncmp(out->url, "https://", 8) != 0) {
        snprintf(err, errsize, "ClickHouse url from %s must start with http:// or https://", out->url_from);
        ch_config_free(out);
        return false;
    }
    if (!*out->database) {
        snprintf(err, errsize, "the ClickHouse database name is empty");
        ch_config_free(out);
        return false;
    }
    return true;
}

void ch_config_free(ChConfig *c)
{
    free(c->url);
    free(c->database);
    free(c->user);
    if (c->password) memset(c->password, 0, strlen(c->password));
    free(c->password);
    memset(c, 0, sizeof *c);
}

/* ---- quoting ---- */

void ch_ident(StrBuf *b, const char *name)
{
    sb_putc(b, '`');
    for (const char *s = name; *s; s++) {
        if (*s == '`' || *s == '\\') sb_putc(b, '\\');
        sb_putc(b, *s);
    }
    sb_putc(b, '`');
}

void ch_qual(StrBuf *b, const char *db, const char *name)
{
    ch_ident(b, db);
    sb_putc(b, '.');
    ch_ident(b, name);
}

void ch_str(StrBuf *b, const char *s, size_t n)
{
    sb_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\\': sb_puts(b, "\\\\"); break;
        case '\'': sb_puts(b, "\\'"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\0': sb_puts(b, "\\0"); break;
        default:
            if (c < 0x20 || c == 0x7f) sb_printf(b, "\\x%02x", c);
            else sb_putc(b, (char)c);
        }
    }
    sb_putc(b, '\'');
}

void ch_strz(StrBuf *b, const char *s) { ch_str(b, s, strlen(s)); }

void ch_mask(char *s, const char *secret)
{
    if (!s || !secret || !*secret) return;
    size_t n = strlen(secret);
    char *p;
    while ((p = strstr(s, secret))) {
        size_t rest = strlen(p + n);
        memcpy(p, "***", 3);
        memmove(p + 3, p + n, rest + 1);
    }
}

/* ---- requests ---- */

static bool request(ChConn *c, const char *sql, StrBuf *out, int *code, char *err, size_t errsize)
{
    if (code) *code = 0;
    StrBuf url = STRBUF_INIT, resp = STRBUF_INIT;
    /* every name weir sends is qualified with its database, so the request names none
     * (the database may not exist yet) */
    sb_printf(&url, "%s/", c->cfg.url);
    char hu[512], hk[512];
    snprintf(hu, sizeof hu, "X-ClickHouse-User: %s", c->cfg.user);
    snprintf(hk, sizeof hk, "X-ClickHouse-Key: %s", c->cfg.password);
    const char *headers[3] = {hu, hk, "Content-Type: text/plain; charset=utf-8"};
    long status = 0;
    bool ok = http_post(c->http, sb_cstr(&url), headers, 3, sql, strlen(sql), 600, &resp, &status, err, errsize);
    memset(hk, 0, sizeof hk);
    if (c->log) fprintf(c->log, "%s;\n", sql);
    if (ok && status != 200) {
        const char *body = sb_cstr(&resp);
        const char *p = strstr(body, "Code: ");
        int cd = p ? atoi(p + 6) : 0;
        if (code) *code = cd ? cd : -(int)status;
        size_t n = strlen(body);
        while (n > 0 && (body[n - 1] == '\n' || body[n - 1] == ' ')) n--;
        snprintf(err, errsize, "ClickHouse (HTTP %ld): %.*s", status, (int)(n > 900 ? 900 : n), body);
        ok = false;
    } else if (!ok) {
        if (code) *code = -1;
    }
    if (ok && out) sb_append(out, resp.data ? resp.data : "", resp.len);
    ch_mask(err, c->cfg.password);
    sb_free(&url);
    sb_free(&resp);
    return ok;
}

bool ch_exec(ChConn *c, const char *sql, StrBuf *out, int *code, char *err, size_t errsize)
{
    return request(c, sql, out, code, err, errsize);
}

void ch_set_log(ChConn *c, void *file) { c->log = (FILE *)file; }

static void unescape_into(char *dst, const char *s, size_t n, size_t *outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            char e = s[++i];
            switch (e) {
            case 'n': dst[o++] = '\n'; break;
            case 't': dst[o++] = '\t'; break;
            case 'r': dst[o++] = '\r'; break;
            case '0': dst[o++] = '\0'; break;
            case 'b': dst[o++] = '\b'; break;
            case 'f': dst[o++] = '\f'; break;
            default: dst[o++] = e; break;
            }
        } else {
            dst[o++] = s[i];
        }
    }
    dst[o] = '\0';
    *outlen = o;
}

bool ch_query(ChConn *c, const char *sql, ChRows *rows, char *err, size_t errsize)
{
    memset(rows, 0, sizeof *rows);
    StrBuf b = STRBUF_INIT;
    if (!request(c, sql, &b, NULL, err, errsize)) {
        sb_free(&b);
        return false;
    }
    size_t n = b.len;
    const char *t = b.data ? b.data : "";
    /* count rows and columns (from the first row) */
    int nrows = 0, ncols = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '\n') nrows++;
    if (n > 0 && t[n - 1] != '\n') nrows++;
    if (nrows > 0) {
        ncols = 1;
        for (size_t i = 0; i < n && t[i] != '\n'; i++)
            if (t[i] == '\t') ncols++;
    }
    rows->nrows = nrows;
    rows->ncols = ncols;
    rows->buf = xmalloc(n + 1 + (size_t)nrows * (size_t)ncols);
    rows->cells = xcalloc((size_t)(nrows * ncols > 0 ? nrows * ncols : 1), sizeof(char *));
    char *dst = rows->buf;
    size_t i = 0;
    for (int r = 0; r < nrows; r++) {
        for (int col = 0; col < ncols; col++) {
            size_t start = i;
            while (i < n && t[i] != '\t' && t[i] != '\n') i++;
            size_t len = i - start;
            if (len == 2 && t[start] == '\\' && t[start + 1] == 'N') {
                rows->cells[r * ncols + col] = NULL;
            } else {
                size_t ol;
                unescape_into(dst, t + start, len, &ol);
                rows->cells[r * ncols + col] = dst;
                dst += ol + 1;
            }
            if (i < n && t[i] == '\t') i++;
        }
        while (i < n && t[i] != '\n') i++;  /* a ragged row: ignore extra fields */
        if (i < n) i++;
    }
    sb_free(&b);
    return true;
}

const char *ch_cell(const ChRows *r, int row, int col)
{
    if (row < 0 || row >= r->nrows || col < 0 || col >= r->ncols) return NULL;
    return r->cells[row * r->ncols + col];
}

void ch_rows_free(ChRows *r)
{
    free(r->cells);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

bool ch_query_i64(ChConn *c, const char *sql, long long *v, char *err, size_t errsize)
{
    ChRows r;
    if (!ch_query(c, sql, &r, err, errsize)) return false;
    const char *s = ch_cell(&r, 0, 0);
    *v = s ? strtoll(s, NULL, 10) : 0;
    ch_rows_free(&r);
    return true;
}

/* ---- connect ---- */

/* A statement probed against a database that cannot exist: a server that parses it
 * answers "unknown database" (81); one that does not, a syntax error (62). Nothing is
 * created either way. */
static bool parses(ChConn *c, const char *sql)
{
    char err[1024];
    int code = 0;
    if (ch_exec(c, sql, NULL, &code, err, sizeof err)) return true;
    return code != 62;
}

ChConn *ch_connect(const ChConfig *cfg, char *err, size_t errsize)
{
    ChConn *c = xcalloc(1, sizeof *c);
    c->cfg.url = xstrdup(cfg->url);
    c->cfg.database = xstrdup(cfg->database);
    c->cfg.user = xstrdup(cfg->user);
    c->cfg.password = xstrdup(cfg->password ? cfg->password : "");
    c->cfg.url_from = cfg->url_from;
    c->http = http_client_new();
    ChRows r;
    char e2[1024];
    if (!ch_query(c, "SELECT version(), (SELECT count() FROM system.functions WHERE name = 'now64'), "
                     "(SELECT count() FROM system.formats WHERE name = 'JSONAsString')",
                  &r, e2, sizeof e2)) {
        snprintf(err, errsize, "cannot connect to ClickHouse at %s (from %s): %s", c->cfg.url, cfg->url_from, e2);
        ch_mask(err, c->cfg.password);
        ch_close(c);
        return NULL;
    }
    const char *v = ch_cell(&r, 0, 0);
    snprintf(c->caps.version, sizeof c->caps.version, "%s", v ? v : "?");
    sscanf(c->caps.version, "%d.%d", &c->caps.major, &c->caps.minor);
    const char *f = ch_cell(&r, 0, 1), *j = ch_cell(&r, 0, 2);
    c->caps.datetime64 = f && atoi(f) > 0;
    c->caps.json_as_string = j && atoi(j) > 0;
    c->caps.kafka_virtual = c->caps.json_as_string;
    ch_rows_free(&r);
    c->caps.or_replace_view =
        parses(c, "CREATE OR REPLACE VIEW `_weir_probe_no_such_database`.`v` AS SELECT 1");
    c->caps.ttl = parses(c, "CREATE TABLE `_weir_probe_no_such_database`.`t` (d DateTime) ENGINE = MergeTree() "
                            "ORDER BY d TTL d + INTERVAL 1 DAY");
    return c;
}

void ch_close(ChConn *c)
{
    if (!c) return;
    http_client_free(c->http);
    ch_config_free(&c->cfg);
    free(c);
}

const ChCaps *ch_caps(const ChConn *c) { return &c->caps; }
const char *ch_database(const ChConn *c) { return c->cfg.database; }
