/* The SQLite sink (the only file that includes sqlite3.h): keeps a table equal to the
 * model's current result, one transaction per flush (run.c: every engine step, or for a
 * keyed model every flush_interval with one change per key), through statements
 * prepared once.
 *
 * Table: created at open; an existing table of that name is dropped first, because a
 * run recomputes the model from the beginning (a durable run that resumes keeps it).
 * Only what weir created is dropped: every table a sink creates (and every view a
 * staged rollout publishes) is recorded in _weir_tables(name, model), and an existing
 * table or view of the sink's name that is not recorded there (the user's own) stops
 * the run, unless the sink sets `replace_existing: true`.
 *
 * Column types: smallint/integer/bigint/boolean -> INTEGER
 * (booleans 0/1), real/double precision -> REAL, text -> TEXT, numeric -> TEXT holding
 * the exact decimal text with the column's scale ("15.50"): SQLite's NUMERIC affinity
 * would turn it into a binary double, losing digits and the scale; compare numerically
 * with CAST(col AS REAL) or the decimal extension. timestamp -> TEXT
 * 'YYYY-MM-DD HH:MM:SS[.ffffff]' (sorts chronologically, works with SQLite's date
 * functions), timestamptz -> TEXT with '+00', date -> TEXT 'YYYY-MM-DD', interval ->
 * TEXT in PostgreSQL's format. A NaN float is stored as NULL (SQLite has no NaN).
 * A keyed model's table has PRIMARY KEY(key columns).
 *
 * Changes: keyed -- insert, and an update that keeps the key = INSERT .. ON
 * CONFLICT(key) DO UPDATE; an update of the key = UPDATE .. WHERE key IS old key
 * (insert when absent), delete = DELETE WHERE key IS key ("IS"
 * so NULL keys match). Keyless -- insert = INSERT, delete = delete one row equal to
 * the old row in every column (an index over all columns is made at the first delete).
 * A delete that finds no row fails the run: the table no longer matches the model.
 * PRAGMA journal_mode=WAL and synchronous=NORMAL: readers see the last committed step
 * while the run writes the next one.
 *
 * Durable runs: the table is kept when the run resumes (created when missing), and
 * each checkpoint's delivery is one transaction that also records the checkpoint in
 * the table _weir_deliveries(sink, checkpoint), so a delivery made again after a crash
 * is recognised and skipped; synchronous=FULL makes each delivery durable. */
#include "connectors/dead_letter.h"
#include "connectors/sink.h"
#include "base/fsutil.h"

#include "base/decimal.h"

#include "base/hash.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sinks writing to the same database file share one connection and one transaction
 * per step: two connections would block each other on SQLite's single writer lock. */
typedef struct SharedDb {
    struct SharedDb *next;
    char *path;
    sqlite3 *db;
    int refs;
    bool in_txn;
} SharedDb;

static SharedDb *shared_dbs; /* the runtime is single-threaded */

typedef struct SqliteSink {
    ConnSink base;
    SharedDb *shared;
    sqlite3 *db;
    char *path;
    char *table;                 /* quoted identifier */
    char *table_raw;
    const PlanColumn *cols;
    int ncols;
    int *key;
    int nkey;
    bool row_index;              /* keyless: the all-column index exists */
    bool durable, resume;        /* ConnSinkSpec */
    bool replace_existing;       /* SinkDef */
    bool unprepared;             /* resumed over a table of other columns (see build) */
    char unprepared_why[256];
    sqlite3_stmt *ins, *upd, *del;
    StrBuf tmp;
} SqliteSink;

static void quote_ident(StrBuf *b, const char *s)
{
    sb_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"') sb_putc(b, '"');
        sb_putc(b, *s);
    }
    sb_putc(b, '"');
}

static void quote_literal(StrBuf *b, const char *s)
{
    sb_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'') sb_putc(b, '\'');
        sb_putc(b, *s);
    }
    sb_putc(b, '\'');
}

static const char *sql_type(Type t)
{
    /* never exactly "INTEGER": a one-column INTEGER PRIMARY KEY would alias the rowid
     * and turn a NULL key into a fresh number */
    switch ((TypeId)t.id) {
    case T_BOOL: return "BOOLEAN";
    case T_INT2: return "SMALLINT";
    case T_INT4: return "INT";
    case T_INT8: return "BIGINT";
    case T_FLOAT4: case T_FLOAT8: return "REAL";
    default: return "TEXT";
    }
}

static bool db_error(SqliteSink *s, const char *what, char *err, size_t errsize)
{
    snprintf(err, errsize, "model %s: sqlite sink %s: %s: %s", s->base.model, s->path, what, sqlite3_errmsg(s->db));
    return false;
}

static bool exec(SqliteSink *s, const char *sql, char *err, size_t errsize)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errsize, "model %s: sqlite sink %s: %s", s->base.model, s->path, msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return false;
    }
    return true;
}

static bool prepare(SqliteSink *s, StrBuf *sql, sqlite3_stmt **st, char *err, size_t errsize)
{
    if (sqlite3_prepare_v2(s->db, sb_cstr(sql), -1, st, NULL) != SQLITE_OK) return db_error(s, "prepare", err, errsize);
    return true;
}

static bool is_key(const SqliteSink *s, int c)
{
    for (int k = 0; k < s->nkey; k++)
        if (s->key[k] == c) return true;
    return false;
}

/* "c1" IS ?n AND "c2" IS ?n+1 ... over the given columns */
static void where_is(SqliteSink *s, StrBuf *b, const int *cols, int n, int first_param)
{
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(b, " AND ");
        quote_ident(b, s->cols[cols ? cols[i] : i].name);
        sb_printf(b, " IS ?%d", first_param + i);
    }
}

/* "CREATE TABLE <t> (<columns>, PRIMARY KEY (...))" of the model's columns. */
static void table_sql(SqliteSink *s, StrBuf *b)
{
    sb_printf(b, "CREATE TABLE %s (", s->table);
    for (int c = 0; c < s->ncols; c++) {
        if (c) sb_puts(b, ", ");
        quote_ident(b, s->cols[c].name);
        sb_printf(b, " %s", sql_type(s->cols[c].type));
    }
    if (s->nkey > 0) {
        sb_puts(b, ", PRIMARY KEY (");
        for (int k = 0; k < s->nkey; k++) {
            if (k) sb_puts(b, ", ");
            quote_ident(b, s->cols[s->key[k]].name);
        }
        sb_putc(b, ')');
    }
    sb_puts(b, ")");
}

static bool prepare_statements(SqliteSink *s, char *err, size_t errsize);

#define WEIR_TABLES_SQL "CREATE TABLE IF NOT EXISTS _weir_tables (name TEXT PRIMARY KEY COLLATE NOCASE, model TEXT); "

/* Appends the statement recording that weir made table or view `name` (for `model`,
 * NULL for a published view). */
static void record_owned(StrBuf *b, const char *name, const char *model)
{
    sb_puts(b, "INSERT INTO _weir_tables (name, model) VALUES (");
    quote_literal(b, name);
    sb_puts(b, ", ");
    if (model) quote_literal(b, model);
    else sb_puts(b, "NULL");
    sb_puts(b, ") ON CONFLICT (name) DO UPDATE SET name = excluded.name, model = excluded.model; ");
}

/* 1 when a query with the table's name as ?1 yields a row, 0 when not, -1 on error. */
static int table_query(SqliteSink *s, const char *sql, char *err, size_t errsize)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        db_error(s, "tables", err, errsize);
        return -1;
    }
    sqlite3_bind_text(st, 1, s->table_raw, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        db_error(s, "tables", err, errsize);
        return -1;
    }
    return rc == SQLITE_ROW;
}

/* Inside build's transaction, before the table is dropped: an existing table or view
 * of the sink's name may be replaced only when weir made it or the sink says so.
 * Appends DROP VIEW for a view (build drops a table itself). */
static bool may_replace(SqliteSink *s, StrBuf *b, char *err, size_t errsize)
{
    int exists = table_query(s, "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1 "
                                "COLLATE NOCASE", err, errsize);
    if (exists <= 0) return exists == 0;
    int ours = s->replace_existing ? 1 : table_query(s, "SELECT 1 FROM _weir_tables WHERE name = ?1", err, errsize);
    if (ours < 0) return false;
    if (!ours) {
        snprintf(err, errsize,
                 "model %s: sqlite sink %s: table %s exists and was not created by weir, which replaces only the "
                 "tables it created; drop or rename it, choose another `table:`, or set `replace_existing: true` "
                 "on the sink to replace it",
                 s->base.model, s->path, s->table_raw);
        return false;
    }
    int view = table_query(s, "SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?1 COLLATE NOCASE", err,
                           errsize);
    if (view < 0) return false;
    if (view) sb_printf(b, "DROP VIEW %s; ", s->table);
    return true;
}

static bool build(SqliteSink *s, char *err, size_t errsize)
{
    StrBuf b = STRBUF_INIT;
    /* IMMEDIATE: the write lock is taken (waiting for another writer of the file, such as
     * a staged deployment's sink) before anything is read; a deferred transaction that
     * reads first fails at once when another writer commits meanwhile (WAL) */
    if (!exec(s, "BEGIN IMMEDIATE; " WEIR_TABLES_SQL, err, errsize) || (!s->resume && !may_replace(s, &b, err, errsize))) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        sb_free(&b);
        return false;
    }
    record_owned(&b, s->table_raw, s->base.model);
    if (s->durable)
        sb_puts(&b, "CREATE TABLE IF NOT EXISTS _weir_deliveries (sink TEXT PRIMARY KEY, checkpoint BIGINT NOT NULL); ");
    if (s->resume) {
        sb_puts(&b, "CREATE TABLE IF NOT EXISTS ");
        StrBuf t = STRBUF_INIT;
        table_sql(s, &t);
        sb_puts(&b, sb_cstr(&t) + strlen("CREATE TABLE "));
        sb_free(&t);
    } else {
        if (s->durable) {
            sb_puts(&b, "DELETE FROM _weir_deliveries WHERE sink = ");
            quote_literal(&b, s->table_raw);
            sb_puts(&b, "; ");
        }
        sb_printf(&b, "DROP TABLE IF EXISTS %s; ", s->table);
        table_sql(s, &b);
    }
    sb_puts(&b, "; COMMIT;");
    bool ok = exec(s, sb_cstr(&b), err, errsize);
    if (!ok) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    sb_free(&b);
    if (!ok) return false;
    /* a resumed table whose columns are another version's is replaced by the pending
     * delivery that restates it (sq_begin_delivery with replace); until then nothing
     * can be written to it */
    if (!prepare_statements(s, err, errsize)) {
        if (!s->resume) return false;
        s->unprepared = true;
        snprintf(s->unprepared_why, sizeof s->unprepared_why, "%s", err);
        err[0] = '\0';
    }
    return true;
}

static bool prepare_statements(SqliteSink *s, char *err, size_t errsize)
{
    StrBuf b = STRBUF_INIT;
    bool ok = false;
    sqlite3_finalize(s->ins);
    sqlite3_finalize(s->upd);
    sqlite3_finalize(s->del);
    s->ins = s->upd = s->del = NULL;
    /* insert */
    sb_printf(&b, "INSERT INTO %s (", s->table);
    for (int c = 0; c < s->ncols; c++) {
        if (c) sb_puts(&b, ", ");
        quote_ident(&b, s->cols[c].name);
    }
    sb_puts(&b, ") VALUES (");
    for (int c = 0; c < s->ncols; c++) sb_printf(&b, c ? ", ?%d" : "?%d", c + 1);
    sb_putc(&b, ')');
    if (s->nkey > 0) {
        sb_puts(&b, " ON CONFLICT (");
        for (int k = 0; k < s->nkey; k++) {
            if (k) sb_puts(&b, ", ");
            quote_ident(&b, s->cols[s->key[k]].name);
        }
        sb_puts(&b, ") DO ");
        bool any = false;
        for (int c = 0; c < s->ncols; c++) {
            if (is_key(s, c)) continue;
            sb_puts(&b, any ? ", " : "UPDATE SET ");
            quote_ident(&b, s->cols[c].name);
            sb_puts(&b, " = excluded.");
            quote_ident(&b, s->cols[c].name);
            any = true;
        }
        if (!any) sb_puts(&b, "NOTHING");
    }
    if (!prepare(s, &b, &s->ins, err, errsize)) goto out;
    /* update (keyed) */
    if (s->nkey > 0) {
        sb_clear(&b);
        sb_printf(&b, "UPDATE %s SET ", s->table);
        for (int c = 0; c < s->ncols; c++) {
            if (c) sb_puts(&b, ", ");
            quote_ident(&b, s->cols[c].name);
            sb_printf(&b, " = ?%d", c + 1);
        }
        sb_puts(&b, " WHERE ");
        where_is(s, &b, s->key, s->nkey, s->ncols + 1);
        if (!prepare(s, &b, &s->upd, err, errsize)) goto out;
    }
    /* delete */
    sb_clear(&b);
    if (s->nkey > 0) {
        sb_printf(&b, "DELETE FROM %s WHERE ", s->table);
        where_is(s, &b, s->key, s->nkey, 1);
    } else {
        sb_printf(&b, "DELETE FROM %s WHERE rowid = (SELECT rowid FROM %s WHERE ", s->table, s->table);
        where_is(s, &b, NULL, s->ncols, 1);
        sb_puts(&b, " LIMIT 1)");
    }
    if (!prepare(s, &b, &s->del, err, errsize)) goto out;
    ok = true;
    s->unprepared = false;
out:
    sb_free(&b);
    return ok;
}

static int bind(SqliteSink *s, sqlite3_stmt *st, int param, int col, const Value *v)
{
    if (v->isnull) return sqlite3_bind_null(st, param);
    Type t = s->cols[col].type;
    switch ((TypeId)t.id) {
    case T_BOOL: case T_INT2: case T_INT4: case T_INT8:
        return sqlite3_bind_int64(st, param, v->i);
    case T_FLOAT4: case T_FLOAT8:
        return sqlite3_bind_double(st, param, v->f);
    case T_TEXT:
        return sqlite3_bind_text(st, param, v->len ? v->s : "", (int)v->len, SQLITE_TRANSIENT);
    case T_NUMERIC: {
        char buf[DEC_FMT_BUFSIZE];
        size_t n = dec_format_buf(value_num(v), v->scale, buf);
        return sqlite3_bind_text(st, param, buf, (int)n, SQLITE_TRANSIENT);
    }
    default:
        sb_clear(&s->tmp);
        value_format_text(t, v, &s->tmp);
        return sqlite3_bind_text(st, param, sb_cstr(&s->tmp), (int)s->tmp.len, SQLITE_TRANSIENT);
    }
}

static bool run_stmt(SqliteSink *s, sqlite3_stmt *st, char *err, size_t errsize)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) return db_error(s, "write", err, errsize);
    return true;
}

static bool bind_row(SqliteSink *s, sqlite3_stmt *st, const Value *row, char *err, size_t errsize)
{
    for (int c = 0; c < s->ncols; c++)
        if (bind(s, st, c + 1, c, &row[c]) != SQLITE_OK) return db_error(s, "bind", err, errsize);
    return true;
}

static bool do_insert(SqliteSink *s, const Value *row, char *err, size_t errsize)
{
    return bind_row(s, s->ins, row, err, errsize) && run_stmt(s, s->ins, err, errsize);
}

static bool not_found(SqliteSink *s, char *err, size_t errsize)
{
    snprintf(err, errsize,
             "model %s: sqlite sink %s: a deleted row is not in table %s (was the table changed by something "
             "else during the run?)",
             s->base.model, s->path, s->table_raw);
    return false;
}

static bool do_delete(SqliteSink *s, const Value *row, char *err, size_t errsize)
{
    if (s->nkey > 0) {
        for (int k = 0; k < s->nkey; k++)
            if (bind(s, s->del, k + 1, s->key[k], &row[s->key[k]]) != SQLITE_OK) return db_error(s, "bind", err, errsize);
    } else {
        if (!s->row_index) {
            StrBuf b = STRBUF_INIT;
            sb_puts(&b, "CREATE INDEX IF NOT EXISTS ");
            char *iname = NULL;
            {
                StrBuf n = STRBUF_INIT;
                sb_printf(&n, "%s__weir_rows", s->table_raw);
                iname = sb_take(&n);
            }
            quote_ident(&b, iname);
            free(iname);
            sb_printf(&b, " ON %s (", s->table);
            for (int c = 0; c < s->ncols; c++) {
                if (c) sb_puts(&b, ", ");
                quote_ident(&b, s->cols[c].name);
            }
            sb_putc(&b, ')');
            bool ok = exec(s, sb_cstr(&b), err, errsize);
            sb_free(&b);
            if (!ok) return false;
            s->row_index = true;
        }
        if (!bind_row(s, s->del, row, err, errsize)) return false;
    }
    if (!run_stmt(s, s->del, err, errsize)) return false;
    if (sqlite3_changes(s->db) == 0) return not_found(s, err, errsize);
    return true;
}

static bool do_update(SqliteSink *s, const EngChange *c, char *err, size_t errsize)
{
    if (s->nkey <= 0) {
        /* keyless updates are presented as delete + insert; accept the pair anyway */
        if (c->old_row && !do_delete(s, c->old_row, err, errsize)) return false;
        return do_insert(s, c->row, err, errsize);
    }
    const Value *old = c->old_row ? c->old_row : c->row;
    bool same_key = true;
    for (int k = 0; k < s->nkey && same_key; k++) {
        int col = s->key[k];
        /* a NULL key cell never conflicts in SQLite (NULLs are distinct): UPDATE .. IS */
        same_key = !old[col].isnull && !c->row[col].isnull &&
                   value_equal(s->cols[col].type, &old[col], &c->row[col]);
    }
    /* the key stays: one upsert (INSERT .. ON CONFLICT DO UPDATE) */
    if (same_key) return do_insert(s, c->row, err, errsize);
    if (!bind_row(s, s->upd, c->row, err, errsize)) return false;
    for (int k = 0; k < s->nkey; k++)
        if (bind(s, s->upd, s->ncols + k + 1, s->key[k], &old[s->key[k]]) != SQLITE_OK)
            return db_error(s, "bind", err, errsize);
    if (!run_stmt(s, s->upd, err, errsize)) return false;
    if (sqlite3_changes(s->db) == 0) return do_insert(s, c->row, err, errsize);
    return true;
}

static bool sq_write(ConnSink *base, const EngChange *changes, int n, char *err, size_t errsize)
{
    SqliteSink *s = (SqliteSink *)base;
    if (s->unprepared) {
        snprintf(err, errsize, "model %s: sqlite sink %s: table %s does not have the model's columns (%s); weir apply "
                 "restates it", s->base.model, s->path, s->table_raw, s->unprepared_why);
        return false;
    }
    if (!s->shared->in_txn) {
        if (!exec(s, "BEGIN IMMEDIATE", err, errsize)) return false;
        s->shared->in_txn = true;
    }
    for (int i = 0; i < n; i++) {
        const EngChange *c = &changes[i];
        bool ok;
        switch (c->op) {
        case CHANGE_INSERT: ok = do_insert(s, c->row, err, errsize); break;
        case CHANGE_UPDATE: ok = do_update(s, c, err, errsize); break;
        default: ok = do_delete(s, c->row, err, errsize); break;
        }
        if (!ok) return false;
    }
    return true;
}

static bool sq_commit(ConnSink *base, char *err, size_t errsize)
{
    SqliteSink *s = (SqliteSink *)base;
    if (!s->shared->in_txn) return true;
    s->shared->in_txn = false;
    if (!exec(s, "COMMIT", err, errsize)) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return false;
    }
    return true;
}

static void destroy(SqliteSink *s)
{
    sqlite3_finalize(s->ins);
    sqlite3_finalize(s->upd);
    sqlite3_finalize(s->del);
    if (s->shared && --s->shared->refs == 0) {
        for (SharedDb **pp = &shared_dbs; *pp; pp = &(*pp)->next)
            if (*pp == s->shared) {
                *pp = s->shared->next;
                break;
            }
        sqlite3_close(s->shared->db);
        free(s->shared->path);
        free(s->shared);
    }
    sb_free(&s->tmp);
    free(s->key);
    free(s->path);
    free(s->table);
    free(s->table_raw);
    free(s);
}

static bool sq_close(ConnSink *base, char *err, size_t errsize)
{
    SqliteSink *s = (SqliteSink *)base;
    if (s->shared->in_txn) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    s->shared->in_txn = false;
    destroy(s);
    (void)err;
    (void)errsize;
    return true;
}

static uint64_t sq_delivery_base(ConnSink *base)
{
    (void)base;
    return 0;
}

static bool sq_begin_delivery(ConnSink *base, uint64_t ckpt, uint64_t at, bool replace, bool *already, char *err,
                              size_t errsize)
{
    (void)at;
    SqliteSink *s = (SqliteSink *)base;
    *already = false;
    if (!s->shared->in_txn) {
        if (!exec(s, "BEGIN IMMEDIATE", err, errsize)) return false;
        s->shared->in_txn = true;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT checkpoint FROM _weir_deliveries WHERE sink = ?1", -1, &st, NULL) != SQLITE_OK)
        return db_error(s, "deliveries", err, errsize);
    sqlite3_bind_text(st, 1, s->table_raw, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && (uint64_t)sqlite3_column_int64(st, 0) >= ckpt) *already = true;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_error(s, "deliveries", err, errsize);
    if (*already) return sq_commit(base, err, errsize);
    if (replace) {
        /* the delivery holds the table's whole content, in the model's columns: the
         * table is made anew in the delivery's transaction */
        StrBuf b = STRBUF_INIT;
        sb_printf(&b, "DROP TABLE IF EXISTS %s; ", s->table);
        table_sql(s, &b);
        bool ok = exec(s, sb_cstr(&b), err, errsize) && prepare_statements(s, err, errsize);
        sb_free(&b);
        return ok;
    }
    return true;
}

static bool sq_end_delivery(ConnSink *base, uint64_t ckpt, char *err, size_t errsize)
{
    SqliteSink *s = (SqliteSink *)base;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO _weir_deliveries (sink, checkpoint) VALUES (?1, ?2) "
                           "ON CONFLICT (sink) DO UPDATE SET checkpoint = excluded.checkpoint", -1, &st, NULL) != SQLITE_OK)
        return db_error(s, "deliveries", err, errsize);
    sqlite3_bind_text(st, 1, s->table_raw, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)ckpt);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_error(s, "deliveries", err, errsize);
    return sq_commit(base, err, errsize);
}

static const SinkOps sqlite_sink_ops = {
    .write = sq_write,
    .commit = sq_commit,
    .close = sq_close,
    .delivery_base = sq_delivery_base,
    .begin_delivery = sq_begin_delivery,
    .end_delivery = sq_end_delivery,
};

ConnSink *sink_sqlite_open(const char *path, const char *table, const ConnSinkSpec *spec, char *err, size_t errsize)
{
    SqliteSink *s = xcalloc(1, sizeof *s);
    s->base.ops = &sqlite_sink_ops;
    s->base.model = spec->model;
    s->path = xstrdup(path);
    s->base.target = s->path;
    s->table_raw = xstrdup(table);
    StrBuf q = STRBUF_INIT;
    quote_ident(&q, table);
    s->table = sb_take(&q);
    s->cols = spec->cols;
    s->ncols = spec->ncols;
    s->durable = spec->durable;
    s->resume = spec->resume;
    s->replace_existing = spec->def && spec->def->replace_existing;
    s->nkey = spec->nkey > 0 ? spec->nkey : 0;
    if (s->nkey) {
        s->key = xmalloc(sizeof(int) * (size_t)s->nkey);
        memcpy(s->key, spec->key, sizeof(int) * (size_t)s->nkey);
    }
    sb_init(&s->tmp);
    if (!fs_mkdirs_for(path)) {
        snprintf(err, errsize, "model %s: sqlite sink %s: cannot create directory", spec->model, path);
        destroy(s);
        return NULL;
    }
    for (SharedDb *d = shared_dbs; d; d = d->next)
        if (strcmp(d->path, path) == 0) s->shared = d;
    if (!s->shared) {
        sqlite3 *db = NULL;
        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK) {
            snprintf(err, errsize, "model %s: sqlite sink %s: cannot open: %s", spec->model, path,
                     db ? sqlite3_errmsg(db) : "out of memory");
            sqlite3_close(db);
            destroy(s);
            return NULL;
        }
        sqlite3_busy_timeout(db, 60000);
        s->shared = xcalloc(1, sizeof *s->shared);
        s->shared->path = xstrdup(path);
        s->shared->db = db;
        s->shared->next = shared_dbs;
        shared_dbs = s->shared;
    }
    s->shared->refs++;
    s->db = s->shared->db;
    /* a flush writes one change per key in one transaction: a page cache that holds the
     * table's working set (64 MiB) keeps it from rereading pages */
    if (!exec(s, s->durable ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-65536;"
                            : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;",
              err, errsize) ||
        !build(s, err, errsize)) {
        destroy(s);
        return NULL;
    }
    return &s->base;
}

/* ---- staged rollout (sink.h) ---- */

static sqlite3 *open_db(const char *path, char *err, size_t errsize)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        snprintf(err, errsize, "sqlite %s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 60000);
    return db;
}

static bool run_sql(sqlite3 *db, const char *path, const char *sql, char *err, size_t errsize)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK) return true;
    snprintf(err, errsize, "sqlite %s: %s", path, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return false;
}

static int object_kind(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    int kind = 0;  /* 0 none, 1 table, 2 view */
    if (sqlite3_prepare_v2(db, "SELECT type FROM sqlite_master WHERE name = ?1", -1, &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        kind = t && strcmp(t, "table") == 0 ? 1 : t && strcmp(t, "view") == 0 ? 2 : 0;
    }
    sqlite3_finalize(st);
    return kind;
}

bool sqlite_is_table(const char *db_path, const char *name)
{
    char err[256];
    sqlite3 *db = open_db(db_path, err, sizeof err);
    if (!db) return false;
    bool t = object_kind(db, name) == 1;
    sqlite3_close(db);
    return t;
}

bool sqlite_switch_views(const char *db_path, const SqliteSwitch *sw, int n, char *err, size_t errsize)
{
    sqlite3 *db = open_db(db_path, err, errsize);
    if (!db) return false;
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "BEGIN IMMEDIATE; " WEIR_TABLES_SQL);
    for (int i = 0; i < n; i++) {
        record_owned(&b, sw[i].name, NULL);
        if (sw[i].keep_as) record_owned(&b, sw[i].keep_as, NULL);
        int kind = object_kind(db, sw[i].name);
        if (kind == 1 && sw[i].keep_as) {
            sb_puts(&b, "ALTER TABLE ");
            quote_ident(&b, sw[i].name);
            sb_puts(&b, " RENAME TO ");
            quote_ident(&b, sw[i].keep_as);
            sb_puts(&b, "; ");
        } else if (kind == 1) {
            sb_puts(&b, "DROP TABLE ");
            quote_ident(&b, sw[i].name);
            sb_puts(&b, "; ");
        } else if (kind == 2) {
            sb_puts(&b, "DROP VIEW ");
            quote_ident(&b, sw[i].name);
            sb_puts(&b, "; ");
        }
        sb_puts(&b, "CREATE VIEW ");
        quote_ident(&b, sw[i].name);
        sb_puts(&b, " AS SELECT * FROM ");
        quote_ident(&b, sw[i].table);
        sb_puts(&b, "; ");
    }
    sb_puts(&b, "COMMIT;");
    bool ok = run_sql(db, db_path, sb_cstr(&b), err, errsize);
    if (!ok) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sb_free(&b);
    sqlite3_close(db);
    return ok;
}

bool sqlite_drop_table(const char *db_path, const char *table, char *err, size_t errsize)
{
    sqlite3 *db = open_db(db_path, err, errsize);
    if (!db) return false;
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "DROP TABLE IF EXISTS ");
    quote_ident(&b, table);
    bool ok = run_sql(db, db_path, sb_cstr(&b), err, errsize);
    sb_free(&b);
    sqlite3_close(db);
    return ok;
}

bool sqlite_table_digest(const char *db_path, const char *table, int64_t *rows, uint64_t *digest, char *err,
                         size_t errsize)
{
    *rows = 0;
    *digest = 0;
    sqlite3 *db = open_db(db_path, err, errsize);
    if (!db) return false;
    StrBuf b = STRBUF_INIT;
    sb_puts(&b, "SELECT * FROM ");
    quote_ident(&b, table);
    sqlite3_stmt *st;
    bool ok = sqlite3_prepare_v2(db, sb_cstr(&b), -1, &st, NULL) == SQLITE_OK;
    if (!ok) snprintf(err, errsize, "sqlite %s: %s", db_path, sqlite3_errmsg(db));
    StrBuf row = STRBUF_INIT;
    int rc = SQLITE_DONE;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        sb_clear(&row);
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            sb_puts(&row, t ? (const char *)t : "\\N");
            sb_putc(&row, '\x1f');
        }
        /* a sum of row hashes: the same multiset of rows in any order */
        *digest += hash_bytes(row.data, row.len, 0x726f7773ull);
        (*rows)++;
    }
    if (ok && rc != SQLITE_DONE) {
        snprintf(err, errsize, "sqlite %s: %s", db_path, sqlite3_errmsg(db));
        ok = false;
    }
    if (st) sqlite3_finalize(st);
    sb_free(&row);
    sb_free(&b);
    sqlite3_close(db);
    return ok;
}
