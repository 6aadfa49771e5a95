/* Decoders of updating formats. changelog-json: the row object plus a reserved "op"
 * key (insert | update | delete; absent or null = insert). debezium-json: an envelope
 * {"before": {...}|null, "after": {...}|null, "op": "c"|"u"|"d"|"r"}, optionally wrapped
 * in {"schema": ..., "payload": {...}} as Kafka Connect writes it; other envelope keys
 * (source, ts_ms, transaction) are ignored. A null payload is a tombstone: no change.
 * The schema, when present, says how temporal fields are encoded: the logical type
 * `name` of each field of the before/after structs (io.debezium.time.MicroTimestamp:
 * microseconds since 1970, ...; schema_encoding) sets the column's encoding for that
 * record; it must agree with an `encoding:` the column declares. A producer repeats one
 * schema on every record: it is parsed when its bytes change, not per record.
 * In changelog-json the key "op" is reserved: a source column named op cannot be read
 * from such records. */
#include "connectors/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool streq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

struct ConnChangelogDecoder {
    DataFormat format;
    int ncols;
    const ColumnDef *cols;
    ConnJsonDecoder *json;
    Value *row, *old_row;
    /* the last schema seen (debezium-json) and what it gives */
    char *schema;
    size_t schema_len;
    uint8_t *schema_enc;         /* per column: the encoding in force under that schema */
    char *schema_conflict;       /* the schema contradicts a column: the message; NULL */
};

ConnChangelogDecoder *conn_changelog_new(const SourceDef *s)
{
    ConnChangelogDecoder *d = xcalloc(1, sizeof *d);
    d->format = s->format;
    d->ncols = s->ncolumns;
    d->cols = s->columns;
    d->schema_enc = xcalloc((size_t)s->ncolumns + 1, 1);
    d->json = conn_json_new(s->columns, s->ncolumns, s->format == FMT_CHANGELOG_JSON ? "op" : NULL);
    d->row = xcalloc((size_t)s->ncolumns + 1, sizeof(Value));
    d->old_row = xcalloc((size_t)s->ncolumns + 1, sizeof(Value));
    return d;
}

void conn_changelog_free(ConnChangelogDecoder *d)
{
    if (!d) return;
    conn_json_free(d->json);
    free(d->row);
    free(d->old_row);
    free(d->schema);
    free(d->schema_enc);
    free(d->schema_conflict);
    free(d);
}

void conn_changelog_set_copy_text(ConnChangelogDecoder *d, bool copy) { conn_json_set_copy_text(d->json, copy); }


static ConnDecodeResult changelog_json(ConnChangelogDecoder *d, const char *rec, size_t len, Arena *arena,
                                       ConnDecoded *out, char *err, size_t errsize)
{
    ConnJsonExtra op;
    if (!conn_json_decode(d->json, rec, len, d->row, arena, &op, err, errsize)) return CONN_DEC_BAD;
    out->row = d->row;
    out->old_row = NULL;
    if (!op.present || op.is_null || streq(op.s, op.len, "insert")) out->op = CHANGE_INSERT;
    else if (streq(op.s, op.len, "update")) out->op = CHANGE_UPDATE;
    else if (streq(op.s, op.len, "delete")) out->op = CHANGE_DELETE;
    else {
        char buf[80];
        conn_describe_string(op.s, op.len, buf, sizeof buf);
        snprintf(err, errsize, "\"op\" must be insert, update or delete, found %s", buf);
        return CONN_DEC_BAD;
    }
    return CONN_DEC_ROW;
}

typedef struct Envelope {
    bool has_before, has_after, has_op;
    bool payload_null;
    bool schema_seen;
    size_t payload_at;           /* a payload before the schema: decoded after it (0: none) */
    char op;
} Envelope;

/* ---- the Kafka Connect schema of a debezium-json record ---- */

/* The encoding a logical type name of Debezium or Kafka Connect stands for; false for a
 * name that says nothing about the encoding (or none). ZonedTimestamp is ISO-8601 text. */
bool conn_schema_encoding(const char *name, size_t len, ColumnEncoding *out)
{
    static const struct { const char *name; ColumnEncoding enc; } names[] = {
        {"io.debezium.time.Date", COL_ENC_EPOCH_DAYS},
        {"io.debezium.time.Timestamp", COL_ENC_EPOCH_MS},
        {"io.debezium.time.MicroTimestamp", COL_ENC_EPOCH_US},
        {"io.debezium.time.NanoTimestamp", COL_ENC_EPOCH_NS},
        {"io.debezium.time.ZonedTimestamp", COL_ENC_TEXT},
        {"io.debezium.time.Time", COL_ENC_TIME_MS},
        {"io.debezium.time.MicroTime", COL_ENC_TIME_US},
        {"io.debezium.time.NanoTime", COL_ENC_TIME_NS},
        {"org.apache.kafka.connect.data.Date", COL_ENC_EPOCH_DAYS},
        {"org.apache.kafka.connect.data.Timestamp", COL_ENC_EPOCH_MS},
        {"org.apache.kafka.connect.data.Time", COL_ENC_TIME_MS},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (streq(name, len, names[i].name)) {
            *out = names[i].enc;
            return true;
        }
    return false;
}

typedef struct SchemaScan {
    ConnChangelogDecoder *d;
    const char *rec;
    size_t len;
    int8_t *named;               /* per column: the schema names its logical type */
    const char **lname;          /* ... that name (into rec) */
    size_t *lname_len;
    char err[160];
} SchemaScan;

/* Reads one string value at *p (NULL when the value is not a string: skipped). */
static bool schema_string(SchemaScan *sc, size_t *p, char *scratch, size_t n, const char **s, size_t *slen)
{
    *s = NULL;
    if (*p < sc->len && sc->rec[*p] == '"') {
        if (conn_json_string(sc->rec, sc->len, p, scratch, n, s, slen, sc->err, sizeof sc->err)) return true;
        *s = NULL;
        return conn_json_skip_value(sc->rec, sc->len, p, sc->err, sizeof sc->err);
    }
    return conn_json_skip_value(sc->rec, sc->len, p, sc->err, sizeof sc->err);
}

/* The array of fields of a struct at *p: {"field": f, "name": logical, "fields": [...]}.
 * level 0 (the envelope): recurses into the before/after structs; level 1: their
 * fields name columns. Anything unexpected is passed over. */
static bool schema_fields(SchemaScan *sc, size_t *pos, int level)
{
    const char *rec = sc->rec;
    size_t len = sc->len, p = conn_json_skip_ws(rec, len, *pos);
    if (p >= len || rec[p] != '[') {
        *pos = p;
        return conn_json_skip_value(rec, len, pos, sc->err, sizeof sc->err);
    }
    p = conn_json_skip_ws(rec, len, p + 1);
    if (p < len && rec[p] == ']') { *pos = p + 1; return true; }
    for (;;) {
        const char *field = NULL, *lname = NULL;
        size_t flen = 0, llen = 0, sub = 0;
        char fscratch[256], lscratch[128];
        if (p < len && rec[p] == '{') {
            p = conn_json_skip_ws(rec, len, p + 1);
            while (p < len && rec[p] != '}') {
                const char *k;
                size_t klen;
                char kscratch[64];
                if (!conn_json_string(rec, len, &p, kscratch, sizeof kscratch, &k, &klen, sc->err, sizeof sc->err))
                    return false;
                p = conn_json_skip_ws(rec, len, p);
                if (p >= len || rec[p] != ':') return false;
                p = conn_json_skip_ws(rec, len, p + 1);
                if (streq(k, klen, "field")) {
                    if (!schema_string(sc, &p, fscratch, sizeof fscratch, &field, &flen)) return false;
                } else if (streq(k, klen, "name")) {
                    if (!schema_string(sc, &p, lscratch, sizeof lscratch, &lname, &llen)) return false;
                } else if (streq(k, klen, "fields") && level == 0) {
                    sub = p;
                    if (!conn_json_skip_value(rec, len, &p, sc->err, sizeof sc->err)) return false;
                } else if (!conn_json_skip_value(rec, len, &p, sc->err, sizeof sc->err)) {
                    return false;
                }
                p = conn_json_skip_ws(rec, len, p);
                if (p < len && rec[p] == ',') p = conn_json_skip_ws(rec, len, p + 1);
            }
            if (p >= len) return false;
            p++;
        } else if (!conn_json_skip_value(rec, len, &p, sc->err, sizeof sc->err)) {
            return false;
        }
        if (level == 0 && sub && field && (streq(field, flen, "before") || streq(field, flen, "after"))) {
            if (!schema_fields(sc, &sub, 1)) return false;
        } else if (level == 1 && field) {
            for (int c = 0; c < sc->d->ncols; c++) {
                if (!streq(field, flen, sc->d->cols[c].name)) continue;
                ColumnEncoding e;
                if (lname && conn_schema_encoding(lname, llen, &e)) {
                    sc->named[c] = 1;
                    sc->d->schema_enc[c] = (uint8_t)e;
                    /* lname may live in lscratch: keep the known name's text instead */
                    sc->lname[c] = lname >= rec && lname < rec + len ? lname : NULL;
                    sc->lname_len[c] = llen;
                }
                break;
            }
        }
        p = conn_json_skip_ws(rec, len, p);
        if (p < len && rec[p] == ',') { p = conn_json_skip_ws(rec, len, p + 1); continue; }
        if (p < len && rec[p] == ']') { *pos = p + 1; return true; }
        return false;
    }
}

/* The schema of a record (its bytes, valid JSON): the encoding of every column under it,
 * into d->schema_enc, or a conflict with a column's declaration. Cached by its bytes. */
static void read_schema(ConnChangelogDecoder *d, const char *sch, size_t n)
{
    if (d->schema && d->schema_len == n && memcmp(d->schema, sch, n) == 0) return;
    free(d->schema);
    free(d->schema_conflict);
    d->schema_conflict = NULL;
    d->schema = xmalloc(n + 1);
    memcpy(d->schema, sch, n);
    d->schema[n] = '\0';
    d->schema_len = n;
    int nc = d->ncols;
    SchemaScan sc = {d, d->schema, n, xcalloc((size_t)nc + 1, 1), xcalloc((size_t)nc + 1, sizeof(char *)),
                     xcalloc((size_t)nc + 1, sizeof(size_t)), {0}};
    for (int c = 0; c < nc; c++) d->schema_enc[c] = (uint8_t)d->cols[c].encoding;
    size_t p = conn_json_skip_ws(sc.rec, n, 0);
    bool ok = p < n && sc.rec[p] == '{';
    if (ok) {
        p = conn_json_skip_ws(sc.rec, n, p + 1);
        while (ok && p < n && sc.rec[p] != '}') {
            const char *k;
            size_t klen;
            char ks[64];
            ok = conn_json_string(sc.rec, n, &p, ks, sizeof ks, &k, &klen, sc.err, sizeof sc.err);
            if (!ok) break;
            p = conn_json_skip_ws(sc.rec, n, p);
            if (p >= n || sc.rec[p] != ':') { ok = false; break; }
            p = conn_json_skip_ws(sc.rec, n, p + 1);
            ok = streq(k, klen, "fields") ? schema_fields(&sc, &p, 0)
                                          : conn_json_skip_value(sc.rec, n, &p, sc.err, sizeof sc.err);
            p = conn_json_skip_ws(sc.rec, n, p);
            if (p < n && sc.rec[p] == ',') p = conn_json_skip_ws(sc.rec, n, p + 1);
        }
    }
    if (!ok) /* a schema of another shape says nothing weir reads: the declarations hold */
        for (int c = 0; c < nc; c++) d->schema_enc[c] = (uint8_t)d->cols[c].encoding;
    for (int c = 0; ok && c < nc && !d->schema_conflict; c++) {
        if (!sc.named[c]) continue;
        const ColumnDef *col = &d->cols[c];
        ColumnEncoding e = (ColumnEncoding)d->schema_enc[c];
        char lbuf[160], tb[64];
        if (sc.lname[c]) snprintf(lbuf, sizeof lbuf, "%.*s", (int)sc.lname_len[c], sc.lname[c]);
        else snprintf(lbuf, sizeof lbuf, "a logical type");
        const char *what = e == COL_ENC_TEXT ? "ISO-8601 text" : column_encoding_name(e);
        char msg[512];
        if (col->encoding != COL_ENC_TEXT && col->encoding != e)
            snprintf(msg, sizeof msg, "column %s: the record's schema gives %s (%s), but the column declares encoding %s",
                     col->name, lbuf, what, column_encoding_name(col->encoding));
        else if (col->type.id != T_UNKNOWN && !column_encoding_fits(e, col->type))
            snprintf(msg, sizeof msg, "column %s: the record's schema gives %s (%s), which a %s column cannot hold",
                     col->name, lbuf, what, type_name(col->type, tb, sizeof tb));
        else
            continue;
        d->schema_conflict = xstrdup(msg);
    }
    free(sc.named);
    free(sc.lname);
    free(sc.lname_len);
}

/* Reads the envelope object at rec[*pos]; `top` allows a "payload" wrapper. */
static bool envelope(ConnChangelogDecoder *d, const char *rec, size_t len, size_t *pos, bool top,
                     Arena *arena, Envelope *env, char *err, size_t errsize)
{
    size_t p = conn_json_skip_ws(rec, len, *pos);
    if (p >= len || rec[p] != '{') {
        /* the JSON decoder words it: "not a JSON object" or the syntax error */
        return conn_json_decode_at(d->json, rec, len, &p, d->row, arena, NULL, err, errsize);
    }
    p = conn_json_skip_ws(rec, len, p + 1);
    if (p < len && rec[p] == '}') { *pos = p + 1; return true; }
    char scratch[64];
    for (;;) {
        const char *k;
        size_t klen;
        char kerr[160];
        if (!conn_json_string(rec, len, &p, scratch, sizeof scratch, &k, &klen, kerr, sizeof kerr)) {
            /* an escaped key longer than scratch cannot be one of ours: skip it */
            if (p < len && rec[p] == '"' && strstr(kerr, "too long")) {
                if (!conn_json_skip_value(rec, len, &p, err, errsize)) return false;
                k = "";
                klen = 0;
            } else {
                snprintf(err, errsize, "%s", kerr);
                return false;
            }
        }
        p = conn_json_skip_ws(rec, len, p);
        if (p >= len || rec[p] != ':') {
            conn_json_syntax_error(p, "expected ':' after a key", err, errsize);
            return false;
        }
        p = conn_json_skip_ws(rec, len, p + 1);
        bool is_null = len - p >= 4 && memcmp(rec + p, "null", 4) == 0;
        if (streq(k, klen, "before") || streq(k, klen, "after")) {
            bool before = k[0] == 'b';
            if (is_null) {
                p += 4;
                if (before) env->has_before = false; else env->has_after = false;
            } else {
                if (!conn_json_decode_at(d->json, rec, len, &p, before ? d->old_row : d->row, arena, NULL, err, errsize)) {
                    if (strcmp(err, "not a JSON object") == 0)
                        snprintf(err, errsize, "\"%s\" must be an object or null", before ? "before" : "after");
                    return false;
                }
                if (before) env->has_before = true; else env->has_after = true;
            }
        } else if (streq(k, klen, "op")) {
            const char *s;
            size_t slen;
            if (p >= len || rec[p] != '"') {
                snprintf(err, errsize, "\"op\" must be a string");
                return false;
            }
            if (!conn_json_string(rec, len, &p, scratch, sizeof scratch, &s, &slen, err, errsize)) return false;
            if (slen != 1 || !strchr("cudr", s[0])) {
                char buf[80];
                conn_describe_string(s, slen, buf, sizeof buf);
                snprintf(err, errsize, "\"op\" must be c, u, d or r, found %s", buf);
                return false;
            }
            env->has_op = true;
            env->op = s[0];
        } else if (top && streq(k, klen, "schema")) {
            size_t start = p;
            if (!conn_json_skip_value(rec, len, &p, err, errsize)) return false;
            if (!is_null) {
                read_schema(d, rec + start, p - start);
                if (d->schema_conflict) {
                    snprintf(err, errsize, "%s", d->schema_conflict);
                    return false;
                }
                conn_json_set_encodings(d->json, d->schema_enc);
            }
            env->schema_seen = true;
        } else if (top && streq(k, klen, "payload")) {
            if (is_null) {
                p += 4;
                env->payload_null = true;
            } else if (!env->schema_seen) {
                /* a schema may follow: the payload is decoded under it */
                env->payload_at = p;
                if (!conn_json_skip_value(rec, len, &p, err, errsize)) return false;
            } else {
                if (!envelope(d, rec, len, &p, false, arena, env, err, errsize)) return false;
            }
        } else {
            if (!conn_json_skip_value(rec, len, &p, err, errsize)) return false;
        }
        p = conn_json_skip_ws(rec, len, p);
        if (p < len && rec[p] == ',') { p = conn_json_skip_ws(rec, len, p + 1); continue; }
        if (p < len && rec[p] == '}') {
            *pos = p + 1;
            if (top && env->payload_at) {
                size_t at = env->payload_at;
                env->payload_at = 0;
                return envelope(d, rec, len, &at, false, arena, env, err, errsize);
            }
            return true;
        }
        conn_json_syntax_error(p, p >= len ? "unexpected end of data, expected ',' or '}'" : "expected ',' or '}'",
                               err, errsize);
        return false;
    }
}

static ConnDecodeResult debezium_json(ConnChangelogDecoder *d, const char *rec, size_t len, Arena *arena,
                                      ConnDecoded *out, char *err, size_t errsize)
{
    Envelope env = {0};
    size_t pos = 0;
    conn_json_set_encodings(d->json, NULL); /* a record without a schema: as declared */
    if (!envelope(d, rec, len, &pos, true, arena, &env, err, errsize)) return CONN_DEC_BAD;
    pos = conn_json_skip_ws(rec, len, pos);
    if (pos < len) {
        conn_json_syntax_error(pos, "unexpected data after the object", err, errsize);
        return CONN_DEC_BAD;
    }
    if (!env.has_op) {
        if (env.payload_null) return CONN_DEC_NONE;   /* tombstone */
        snprintf(err, errsize, "debezium record without \"op\"");
        return CONN_DEC_BAD;
    }
    switch (env.op) {
    case 'c': case 'r':
        if (!env.has_after) { snprintf(err, errsize, "debezium op \"%c\" without \"after\"", env.op); return CONN_DEC_BAD; }
        out->op = CHANGE_INSERT;
        out->row = d->row;
        out->old_row = NULL;
        break;
    case 'u':
        if (!env.has_after) { snprintf(err, errsize, "debezium op \"u\" without \"after\""); return CONN_DEC_BAD; }
        out->op = CHANGE_UPDATE;
        out->row = d->row;
        out->old_row = env.has_before ? d->old_row : NULL;
        break;
    default: /* 'd' */
        if (!env.has_before) { snprintf(err, errsize, "debezium op \"d\" without \"before\""); return CONN_DEC_BAD; }
        out->op = CHANGE_DELETE;
        out->row = d->old_row;
        out->old_row = NULL;
        break;
    }
    return CONN_DEC_ROW;
}

ConnDecodeResult conn_changelog_decode(ConnChangelogDecoder *d, const char *rec, size_t len,
                                       Arena *arena, ConnDecoded *out, char *err, size_t errsize)
{
    if (d->format == FMT_CHANGELOG_JSON) return changelog_json(d, rec, len, arena, out, err, errsize);
    return debezium_json(d, rec, len, arena, out, err, errsize);
}
