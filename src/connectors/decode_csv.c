/* The CSV record decoder (RFC 4180): a header record maps field positions to source
 * columns by name; each data record is split into fields (quoted fields may hold the
 * delimiter, doubled quotes and newlines) and every field is converted to its column's
 * type. An empty unquoted field is NULL; a quoted empty field is the empty string. */
#include "connectors/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ConnCsvDecoder {
    const ColumnDef *cols;
    int ncols;
    char delim;
    bool copy_text;
    bool have_header;
    int nfields;             /* fields in the header */
    int *field_col;          /* per header field: column index or -1 (ignored) */
};

ConnCsvDecoder *conn_csv_new(const ColumnDef *cols, int ncols, char delimiter)
{
    ConnCsvDecoder *d = xcalloc(1, sizeof *d);
    d->cols = cols;
    d->ncols = ncols;
    d->delim = delimiter ? delimiter : ',';
    return d;
}

void conn_csv_free(ConnCsvDecoder *d)
{
    if (!d) return;
    free(d->field_col);
    free(d);
}

void conn_csv_set_copy_text(ConnCsvDecoder *d, bool copy) { d->copy_text = copy; }
bool conn_csv_has_header(const ConnCsvDecoder *d) { return d->have_header; }
void conn_csv_reset_header(ConnCsvDecoder *d) { d->have_header = false; }

void conn_csv_copy_header(ConnCsvDecoder *dst, const ConnCsvDecoder *src)
{
    dst->have_header = src->have_header;
    if (dst->nfields != src->nfields || !dst->field_col) {
        free(dst->field_col);
        dst->field_col = xmalloc(sizeof(int) * ((size_t)src->nfields + 1));
    }
    dst->nfields = src->nfields;
    if (src->nfields > 0) memcpy(dst->field_col, src->field_col, sizeof(int) * (size_t)src->nfields);
}

typedef struct Field {
    const char *s;
    size_t len;
    bool quoted;
    bool dq;                 /* holds doubled quotes: needs unescaping */
} Field;

/* Splits off the field starting at rec[*i]. Returns false with a message on a
 * malformed quoted field. *i ends on the delimiter or at len. */
static bool next_field(const char *rec, size_t len, size_t *i, char delim, Field *f, char *err, size_t errsize)
{
    size_t p = *i;
    f->quoted = false;
    f->dq = false;
    if (p < len && rec[p] == '"') {
        f->quoted = true;
        size_t j = p + 1;
        for (;;) {
            const char *q = j < len ? memchr(rec + j, '"', len - j) : NULL;
            if (!q) {
                snprintf(err, errsize, "unterminated quoted field starting at byte %zu", p + 1);
                return false;
            }
            size_t k = (size_t)(q - rec);
            if (k + 1 < len && rec[k + 1] == '"') {
                f->dq = true;
                j = k + 2;
                continue;
            }
            f->s = rec + p + 1;
            f->len = k - p - 1;
            *i = k + 1;
            if (*i < len && rec[*i] != delim) {
                snprintf(err, errsize, "unexpected character after a closing quote at byte %zu", *i + 1);
                return false;
            }
            return true;
        }
    }
    const char *dp = p < len ? memchr(rec + p, delim, len - p) : NULL;
    size_t end = dp ? (size_t)(dp - rec) : len;
    f->s = rec + p;
    f->len = end - p;
    *i = end;
    return true;
}

/* Replaces "" by " (in place into out, which has room for f->len bytes). */
static size_t undouble(const Field *f, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < f->len; i++) {
        out[o++] = f->s[i];
        if (f->s[i] == '"') i++;
    }
    return o;
}

static bool valid_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    while (p < e) {
        unsigned c = *p;
        if (c < 0x80) {
            if (c == 0) return false;
            p++;
            continue;
        }
        int k;
        if (c >= 0xC2 && c <= 0xDF) k = 1;
        else if (c >= 0xE0 && c <= 0xEF) k = 2;
        else if (c >= 0xF0 && c <= 0xF4) k = 3;
        else return false;
        if (e - p <= k) return false;
        for (int j = 1; j <= k; j++)
            if ((p[j] & 0xC0) != 0x80) return false;
        if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) || (c == 0xF0 && p[1] < 0x90) ||
            (c == 0xF4 && p[1] > 0x8F))
            return false;
        p += k + 1;
    }
    return true;
}

static size_t strip_cr(const char *rec, size_t len)
{
    return len && rec[len - 1] == '\r' ? len - 1 : len;
}

bool conn_csv_header(ConnCsvDecoder *d, const char *rec, size_t len, char *err, size_t errsize)
{
    len = strip_cr(rec, len);
    if (len >= 3 && memcmp(rec, "\xEF\xBB\xBF", 3) == 0) rec += 3, len -= 3;   /* BOM */
    int cap = 16, n = 0;
    int *map = xmalloc(sizeof(int) * (size_t)cap);
    bool *seen = xcalloc((size_t)d->ncols + 1, sizeof(bool));
    int matched = 0;
    size_t i = 0;
    char first[64] = "";
    for (;;) {
        Field f;
        if (!next_field(rec, len, &i, d->delim, &f, err, errsize)) goto bad;
        char namebuf[256];
        const char *name = f.s;
        size_t nlen = f.len;
        if (f.dq) {
            if (f.len > sizeof namebuf) nlen = 0;
            else nlen = undouble(&f, namebuf), name = namebuf;
        }
        while (nlen && (*name == ' ' || *name == '\t')) name++, nlen--;
        while (nlen && (name[nlen - 1] == ' ' || name[nlen - 1] == '\t')) nlen--;
        if (n == 0) snprintf(first, sizeof first, "%.*s", (int)(nlen < 40 ? nlen : 40), name);
        int col = -1;
        for (int c = 0; c < d->ncols && col < 0; c++)
            if (strlen(d->cols[c].name) == nlen && memcmp(d->cols[c].name, name, nlen) == 0) col = c;
        for (int c = 0; c < d->ncols && col < 0; c++)
            if (strlen(d->cols[c].name) == nlen && strncasecmp(d->cols[c].name, name, nlen) == 0) col = c;
        if (col >= 0) {
            if (seen[col]) {
                snprintf(err, errsize, "CSV header names column %s twice", d->cols[col].name);
                goto bad;
            }
            seen[col] = true;
            matched++;
        }
        if (n == cap) cap *= 2, map = xrealloc(map, sizeof(int) * (size_t)cap);
        map[n++] = col;
        if (i >= len) break;
        i++;   /* the delimiter */
    }
    if (matched == 0) {
        snprintf(err, errsize, "the CSV header names none of the source's columns (first header field \"%s\")", first);
        goto bad;
    }
    free(seen);
    free(d->field_col);
    d->field_col = map;
    d->nfields = n;
    d->have_header = true;
    return true;
bad:
    free(seen);
    free(map);
    return false;
}

bool conn_csv_decode(const ConnCsvDecoder *d, const char *rec, size_t len, Value *row,
                     Arena *arena, char *err, size_t errsize)
{
    len = strip_cr(rec, len);
    for (int c = 0; c < d->ncols; c++) row[c] = value_null();
    size_t i = 0;
    int nf = 0;
    for (;;) {
        Field f;
        if (!next_field(rec, len, &i, d->delim, &f, err, errsize)) return false;
        if (nf >= d->nfields) {
            snprintf(err, errsize, "record has more fields than the header (%d)", d->nfields);
            return false;
        }
        int col = d->field_col[nf++];
        if (col >= 0 && (f.len > 0 || f.quoted)) {
            const ColumnDef *c = &d->cols[col];
            const char *s = f.s;
            size_t n = f.len;
            bool copy = d->copy_text;
            if (f.dq) {
                char *buf = arena_alloc_raw(arena, f.len + 1);
                n = undouble(&f, buf);
                buf[n] = '\0';
                s = buf;
                copy = false;
            }
            if (c->type.id == T_TEXT && !valid_utf8(s, n)) {
                snprintf(err, errsize, "column %s: invalid UTF-8 or NUL byte in text", c->name);
                return false;
            }
            if (c->encoding != COL_ENC_TEXT) {
                if (!conn_parse_encoded(c->type, c->encoding, c->name, s, n, CONN_TOK_FIELD, &row[col], err, errsize))
                    return false;
            } else if (!conn_parse_text(c->type, c->name, s, n, arena, copy, &row[col], err, errsize)) {
                return false;
            }
        }
        if (i >= len) break;
        i++;   /* the delimiter */
    }
    if (nf < d->nfields) {
        snprintf(err, errsize, "record has %d field%s, the header has %d", nf, nf == 1 ? "" : "s", d->nfields);
        return false;
    }
    return true;
}
