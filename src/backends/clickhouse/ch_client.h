/* The ClickHouse connection of a `runtime: clickhouse` target: where to connect (CLI
 * flags, then WEIR_CLICKHOUSE_* variables, then the target in weir.yml), one statement
 * per HTTP request, results as TabSeparated rows, the server's capabilities probed at
 * connect time, and quoting of identifiers and values. The password travels only in a
 * request header and is masked in every message this module produces. */
#ifndef WEIR_BACKENDS_CLICKHOUSE_CH_CLIENT_H
#define WEIR_BACKENDS_CLICKHOUSE_CH_CLIENT_H

#include "base/strbuf.h"
#include "project/project.h"

#include <stdbool.h>
#include <stddef.h>

/* What the server can do; decides which SQL weir sends (docs/clickhouse.md). */
typedef struct ChCaps {
    char version[32];
    int major, minor;
    bool or_replace_view;  /* CREATE OR REPLACE VIEW (probed) */
    bool ttl;              /* TTL clauses on MergeTree tables (probed) */
    bool datetime64;       /* DateTime64 and now64 (system.functions) */
    bool json_as_string;   /* the JSONAsString format (system.formats) */
    bool kafka_virtual;    /* _topic/_partition/_offset/_timestamp on Kafka engine tables:
                              servers that have JSONAsString have them */
} ChCaps;

/* The capabilities of Debian 12's 18.16 and of a current (23+) server, for `weir
 * compile` and `explain`, which do not connect. */
void ch_caps_profile(bool current, ChCaps *out);

/* Connection settings given on the command line (NULL when absent). */
typedef struct ChFlags {
    const char *url, *database, *user;
} ChFlags;

typedef struct ChConfig {
    char *url;             /* http://host:port, no trailing slash */
    char *database;
    char *user;
    char *password;        /* "" when none; never printed */
    const char *url_from;  /* "--clickhouse-url", "WEIR_CLICKHOUSE_URL", "target dev" */
} ChConfig;

/* Resolve the connection: each setting from the first of flags, WEIR_CLICKHOUSE_URL /
 * _DATABASE / _USER / _PASSWORD, the target's url / database / user / password (with
 * ${ENV:..} resolved). Defaults: database `default`, user `default`, no password.
 * Returns false with a message (exit 2) when no url is given or an ${ENV:..} is unset. */
bool ch_config_resolve(Project *p, const ChFlags *flags, ChConfig *out, char *err, size_t errsize);
void ch_config_free(ChConfig *c);

typedef struct ChConn ChConn;

/* Connect: `SELECT version()` and the capability probes (none has a side effect).
 * Returns NULL with a message when the server cannot be reached or refuses the
 * credentials. The connection copies cfg. */
ChConn *ch_connect(const ChConfig *cfg, char *err, size_t errsize);
void ch_close(ChConn *c);
const ChCaps *ch_caps(const ChConn *c);
const char *ch_database(const ChConn *c);

/* Run one statement. The response body (e.g. TabSeparated rows) is appended to out
 * when out is not NULL. On a server error returns false with its code in *code (when
 * not NULL) and the server's message in err, the password masked. Every statement
 * sent is also appended to the statement log when one is set (ch_set_log). */
bool ch_exec(ChConn *c, const char *sql, StrBuf *out, int *code, char *err, size_t errsize);
/* Log every statement (one per line block, `;` terminated) to f, e.g. for --verbose. */
void ch_set_log(ChConn *c, void *file);

/* A TabSeparated result: rows of unescaped fields (\N is NULL, i.e. a NULL pointer). */
typedef struct ChRows {
    int nrows, ncols;
    char **cells;          /* nrows * ncols */
    char *buf;
} ChRows;

bool ch_query(ChConn *c, const char *sql, ChRows *rows, char *err, size_t errsize);
const char *ch_cell(const ChRows *r, int row, int col);
void ch_rows_free(ChRows *r);
/* The first cell of the first row as a number (0 when absent). */
bool ch_query_i64(ChConn *c, const char *sql, long long *v, char *err, size_t errsize);

/* Quoting: an identifier in backquotes (`a``b` style escapes: \` and \\), a string
 * literal in single quotes with backslash escapes (\\, \', \n, \t, \0, \r and other
 * control bytes as \xNN). Both are safe for any byte string. */
void ch_ident(StrBuf *b, const char *name);
void ch_qual(StrBuf *b, const char *db, const char *name);   /* `db`.`name` */
void ch_str(StrBuf *b, const char *s, size_t n);
void ch_strz(StrBuf *b, const char *s);

/* Replace every occurrence of secret (when non-empty) in s by "***". */
void ch_mask(char *s, const char *secret);

#endif
