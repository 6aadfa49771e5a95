/* Decoders of updating formats. changelog-json: the row object plus a reserved "op"
 * key (insert | update | delete; absent or null = insert). debezium-json: an envelope
 * {"before": {...}|null, "after": {...}|null, "op": "c"|"u"|"d"|"r"}, optionally wrapped
 * in {"schema": ..., "payload": {...}} as Kafka Connect writes it; other envelope keys
 * (source, ts_ms, transaction) are ignored. A null payload is a tombstone: no change.
 * In changelog-json the key "op" is reserved: a source column named op cannot be read
 * from such records. */
#include "connectors/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ConnChangelogDecoder {
    DataFormat format;
    int ncols;
    ConnJsonDecoder *json;
    Value *row, *old_row;
};

ConnChangelogDecoder *conn_changelog_new(const SourceDef *s)
{
    ConnChangelogDecoder *d = xcalloc(1, sizeof *d);
    d->format = s->format;
    d->ncols = s->ncolumns;
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
    free(d);
}

void conn_changelog_set_copy_text(ConnChangelogDecoder *d, bool copy) { conn_json_set_copy_text(d->json, copy); }

static bool streq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

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
    char op;
} Envelope;

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
        } else if (top && streq(k, klen, "payload")) {
            if (is_null) {
                p += 4;
                env->payload_null = true;
            } else {
                if (!envelope(d, rec, len, &p, false, arena, env, err, errsize)) return false;
            }
        } else {
            if (!conn_json_skip_value(rec, len, &p, err, errsize)) return false;
        }
        p = conn_json_skip_ws(rec, len, p);
        if (p < len && rec[p] == ',') { p = conn_json_skip_ws(rec, len, p + 1); continue; }
        if (p < len && rec[p] == '}') { *pos = p + 1; return true; }
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
