/* The JSON record decoder: the hot path of `weir run`. A hand-written scanner over one
 * JSON object (no DOM): each top-level key is looked up in a small open-addressing
 * table of the source's column names and its value is converted straight into the
 * column's type. Strings without escapes are not copied (text cells point into the
 * record, see decode.h); the scanner validates the whole record (syntax, UTF-8,
 * escapes, nesting) so bad input is reported, never half-read. */
#include "connectors/decode.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MAX_DEPTH 256

struct ConnJsonDecoder {
    int ncols;
    const ColumnDef *cols;
    const char *extra_key;
    size_t extra_len;
    bool copy_text;
    uint32_t mask;
    int16_t *slots;          /* -1 empty, -2 the extra key, else a column index */
    size_t *name_len;        /* per column */
    /* the slots of the previous record's keys in order (SLOT_EMPTY: unknown): records
     * written by one producer repeat their key order, so the i-th key is first compared
     * with the name the i-th key had last time, without scanning or hashing it */
    int16_t *expect;         /* MAX_EXPECT */
    const uint8_t *enc;      /* per column, the ColumnEncoding in force (a record's schema
                                may set it, conn_json_set_encodings); NULL: decl_enc */
    uint8_t *decl_enc;       /* per column, the declared encodings; NULL when all are text */
};

#define MAX_EXPECT 64

enum { SLOT_EMPTY = -1, SLOT_EXTRA = -2 };

static inline uint32_t key_hash(const char *k, size_t len)
{
    uint32_t h = (uint32_t)len * 0x9E3779B1u;
    if (len) {
        h ^= (uint32_t)(unsigned char)k[0] * 0x85EBCA77u;
        h ^= (uint32_t)(unsigned char)k[len - 1] * 0xC2B2AE3Du;
        if (len > 2) h ^= (uint32_t)(unsigned char)k[len / 2] * 0x27D4EB2Fu;
    }
    return h ^ (h >> 15);
}

static const char *slot_name(const ConnJsonDecoder *d, int slot, size_t *len)
{
    if (slot == SLOT_EXTRA) { *len = d->extra_len; return d->extra_key; }
    *len = d->name_len[slot];
    return d->cols[slot].name;
}

static void table_put(ConnJsonDecoder *d, const char *name, int slot)
{
    size_t len = strlen(name);
    uint32_t i = key_hash(name, len) & d->mask;
    for (;;) {
        if (d->slots[i] == SLOT_EMPTY) { d->slots[i] = (int16_t)slot; return; }
        size_t l2;
        const char *n2 = slot_name(d, d->slots[i], &l2);
        if (l2 == len && memcmp(n2, name, len) == 0) return;   /* first definition wins */
        i = (i + 1) & d->mask;
    }
}

ConnJsonDecoder *conn_json_new(const ColumnDef *cols, int ncols, const char *extra_key)
{
    ConnJsonDecoder *d = xcalloc(1, sizeof *d);
    d->cols = cols;
    d->ncols = ncols;
    d->extra_key = extra_key;
    d->extra_len = extra_key ? strlen(extra_key) : 0;
    uint32_t size = 16;
    while (size < (uint32_t)(ncols + 1) * 4) size <<= 1;
    d->mask = size - 1;
    d->name_len = xmalloc(sizeof(size_t) * (size_t)(ncols + 1));
    for (int c = 0; c < ncols; c++) d->name_len[c] = strlen(cols[c].name);
    for (int c = 0; c < ncols; c++)
        if (cols[c].encoding != COL_ENC_TEXT) {
            if (!d->decl_enc) d->decl_enc = xcalloc((size_t)ncols, 1);
            d->decl_enc[c] = (uint8_t)cols[c].encoding;
        }
    d->enc = d->decl_enc;
    d->slots = xmalloc(sizeof(int16_t) * size);
    d->expect = xmalloc(sizeof(int16_t) * MAX_EXPECT);
    for (int i = 0; i < MAX_EXPECT; i++) d->expect[i] = SLOT_EMPTY;
    for (uint32_t i = 0; i < size; i++) d->slots[i] = SLOT_EMPTY;
    if (extra_key) table_put(d, extra_key, SLOT_EXTRA);
    for (int c = 0; c < ncols; c++) table_put(d, cols[c].name, c);
    return d;
}

void conn_json_free(ConnJsonDecoder *d)
{
    if (!d) return;
    free(d->slots);
    free(d->name_len);
    free(d->expect);
    free(d->decl_enc);
    free(d);
}

void conn_json_set_copy_text(ConnJsonDecoder *d, bool copy) { d->copy_text = copy; }
void conn_json_set_encodings(ConnJsonDecoder *d, const uint8_t *enc) { d->enc = enc ? enc : d->decl_enc; }

static inline int lookup(const ConnJsonDecoder *d, const char *k, size_t len)
{
    uint32_t i = key_hash(k, len) & d->mask;
    for (;;) {
        int s = d->slots[i];
        if (s == SLOT_EMPTY) return SLOT_EMPTY;
        size_t l2;
        const char *n2 = slot_name(d, s, &l2);
        if (l2 == len && memcmp(n2, k, len) == 0) return s;
        i = (i + 1) & d->mask;
    }
}

/* ---------------------------------------------------------------- scanning */

typedef struct Scan {
    const char *base;        /* start of the record: positions in messages count from here */
    const char *end;
    char *err;
    size_t errsize;
} Scan;

void conn_json_syntax_error(size_t pos, const char *what, char *err, size_t errsize)
{
    if (err && errsize) snprintf(err, errsize, "invalid JSON at byte %zu: %s", pos + 1, what);
}

static const char *fail(Scan *sc, const char *at, const char *what)
{
    conn_json_syntax_error((size_t)(at - sc->base), what, sc->err, sc->errsize);
    return NULL;
}

static void describe_char(const char *p, const char *e, char *buf, size_t n)
{
    if (p >= e) snprintf(buf, n, "unexpected end of data");
    else if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f) snprintf(buf, n, "unexpected character '%c'", *p);
    else snprintf(buf, n, "unexpected byte 0x%02x", (unsigned char)*p);
}

static const char *fail_char(Scan *sc, const char *p, const char *expected)
{
    char what[96], c[48];
    describe_char(p, sc->end, c, sizeof c);
    snprintf(what, sizeof what, "%s, expected %s", c, expected);
    return fail(sc, p, what);
}

static inline const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

size_t conn_json_skip_ws(const char *rec, size_t len, size_t pos)
{
    return (size_t)(skip_ws(rec + pos, rec + len) - rec);
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Bytes that end the fast scan of a string: '"', '\\', control bytes, non-ASCII. The
 * lowest flagged byte is always a real match (borrows only propagate upward). */
static inline uint64_t special_bytes(uint64_t v)
{
    uint64_t q = v ^ (ONES * '"');
    uint64_t b = v ^ (ONES * '\\');
    return (((q - ONES) & ~q) | ((b - ONES) & ~b) | ((v - ONES * 0x20) & ~v) | v) & HIGHS;
}

static inline int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static inline int hex4(const char *p)
{
    int a = hexval(p[0]), b = hexval(p[1]), c = hexval(p[2]), d = hexval(p[3]);
    if ((a | b | c | d) < 0) return -1;
    return (a << 12) | (b << 8) | (c << 4) | d;
}

/* Length of a valid UTF-8 sequence at p (first byte >= 0x80), or 0. */
static inline int utf8_seq(const unsigned char *p, const unsigned char *e)
{
    unsigned c = p[0];
    if (c >= 0xC2 && c <= 0xDF) return (e - p >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (e - p < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;            /* overlong */
        if (c == 0xED && p[1] > 0x9F) return 0;            /* UTF-16 surrogates */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (e - p < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;            /* overlong */
        if (c == 0xF4 && p[1] > 0x8F) return 0;            /* > U+10FFFF */
        return 4;
    }
    return 0;
}

/* Scans the string whose opening quote is at p. On success returns the position of the
 * closing quote and sets *esc when the content holds escapes. Validates escapes,
 * surrogate pairs and UTF-8. */
static const char *scan_string(Scan *sc, const char *p, bool *esc)
{
    const char *e = sc->end;
    const char *s = p + 1;
    bool has_esc = false;
    for (;;) {
#if defined(__SSE2__)
        /* 16 bytes at a time: '"', '\\', control bytes and non-ASCII end the fast scan */
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
        while (e - s >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
            __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                     _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
            unsigned bits = (unsigned)_mm_movemask_epi8(m) | (unsigned)_mm_movemask_epi8(v);
            if (bits) { s += __builtin_ctz(bits); break; }
            s += 16;
        }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        while (e - s >= 8) {
            uint64_t v;
            memcpy(&v, s, 8);
            uint64_t m = special_bytes(v);
            if (m) { s += __builtin_ctzll(m) >> 3; break; }
            s += 8;
        }
#endif
        if (s >= e) return fail(sc, p, "unterminated string");
        unsigned char c = (unsigned char)*s;
        if (c == '"') { *esc = has_esc; return s; }
        if (c == '\\') {
            has_esc = true;
            if (s + 1 >= e) return fail(sc, p, "unterminated string");
            switch (s[1]) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                s += 2;
                break;
            case 'u': {
                if (e - s < 6) return fail(sc, s, "truncated \\u escape");
                int u = hex4(s + 2);
                if (u < 0) return fail(sc, s, "invalid \\u escape");
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (e - s < 12 || s[6] != '\\' || s[7] != 'u') return fail(sc, s, "unpaired Unicode surrogate");
                    int lo = hex4(s + 8);
                    if (lo < 0xDC00 || lo > 0xDFFF) return fail(sc, s, "unpaired Unicode surrogate");
                    s += 12;
                } else if (u >= 0xDC00 && u <= 0xDFFF) {
                    return fail(sc, s, "unpaired Unicode surrogate");
                } else {
                    s += 6;
                }
                break;
            }
            default:
                return fail(sc, s, "invalid escape in string");
            }
            continue;
        }
        if (c < 0x20) return fail(sc, s, "control character in string");
        if (c >= 0x80) {
            int n = utf8_seq((const unsigned char *)s, (const unsigned char *)e);
            if (!n) return fail(sc, s, "invalid UTF-8 in string");
            s += n;
            continue;
        }
        s++;
    }
}

static inline char *put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) *o++ = (char)cp;
    else if (cp < 0x800) { *o++ = (char)(0xC0 | (cp >> 6)); *o++ = (char)(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | (cp >> 12)); *o++ = (char)(0x80 | ((cp >> 6) & 0x3F)); *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (cp >> 18)); *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F)); *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* Unescapes a string already validated by scan_string (content [s, e)) into out, which
 * has room for e - s bytes. Returns the output length; *nul is set when \u0000 occurs. */
static size_t unescape(const char *s, const char *e, char *out, bool *nul)
{
    char *o = out;
    *nul = false;
    while (s < e) {
        const char *bs = memchr(s, '\\', (size_t)(e - s));
        if (!bs) bs = e;
        memcpy(o, s, (size_t)(bs - s));
        o += bs - s;
        s = bs;
        if (s >= e) break;
        char c = s[1];
        s += 2;
        switch (c) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp = (unsigned)hex4(s);
            s += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo = (unsigned)hex4(s + 2);
                s += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (cp == 0) *nul = true;
            o = put_utf8(o, cp);
            break;
        }
        default: *o++ = c; break;   /* " \ / */
        }
    }
    return (size_t)(o - out);
}

typedef struct NumTok {
    bool is_int;             /* no fraction, no exponent */
    bool neg;
    int digits;              /* integer digits */
    uint64_t mag;            /* integer magnitude when is_int && digits <= 19 */
} NumTok;

static const char *scan_number(Scan *sc, const char *p, NumTok *nt)
{
    const char *e = sc->end, *s = p;
    nt->neg = false;
    nt->is_int = true;
    if (*s == '-') { nt->neg = true; s++; }
    if (s >= e || (unsigned)(*s - '0') > 9) return fail(sc, p, "invalid number");
    const char *ds = s;
    uint64_t m = 0;
    if (*s == '0') s++;
    else
        while (s < e && (unsigned)(*s - '0') <= 9) {
            m = m * 10 + (uint64_t)(*s - '0');
            s++;
        }
    nt->digits = (int)(s - ds);
    nt->mag = m;
    if (s < e && *s == '.') {
        nt->is_int = false;
        s++;
        if (s >= e || (unsigned)(*s - '0') > 9) return fail(sc, s, "invalid number: expected a digit after '.'");
        while (s < e && (unsigned)(*s - '0') <= 9) s++;
    }
    if (s < e && (*s == 'e' || *s == 'E')) {
        nt->is_int = false;
        s++;
        if (s < e && (*s == '+' || *s == '-')) s++;
        if (s >= e || (unsigned)(*s - '0') > 9) return fail(sc, s, "invalid number: expected a digit in the exponent");
        while (s < e && (unsigned)(*s - '0') <= 9) s++;
    }
    return s;
}

static const char *skip_value_d(Scan *sc, const char *p, int depth);

static const char *skip_container(Scan *sc, const char *p, int depth)
{
    const char *e = sc->end;
    if (depth >= MAX_DEPTH) return fail(sc, p, "nesting too deep");
    bool obj = *p == '{';
    char close = obj ? '}' : ']';
    p = skip_ws(p + 1, e);
    if (p < e && *p == close) return p + 1;
    for (;;) {
        if (obj) {
            if (p >= e || *p != '"') return fail_char(sc, p, "a string key");
            bool esc;
            p = scan_string(sc, p, &esc);
            if (!p) return NULL;
            p = skip_ws(p + 1, e);
            if (p >= e || *p != ':') return fail_char(sc, p, "':'");
            p = skip_ws(p + 1, e);
        }
        p = skip_value_d(sc, p, depth + 1);
        if (!p) return NULL;
        p = skip_ws(p, e);
        if (p < e && *p == ',') { p = skip_ws(p + 1, e); continue; }
        if (p < e && *p == close) return p + 1;
        return fail_char(sc, p, obj ? "',' or '}'" : "',' or ']'");
    }
}

static const char *literal(Scan *sc, const char *p, const char *word, size_t n)
{
    if ((size_t)(sc->end - p) < n || memcmp(p, word, n) != 0) return fail(sc, p, "invalid literal");
    return p + n;
}

static const char *skip_value_d(Scan *sc, const char *p, int depth)
{
    const char *e = sc->end;
    if (p >= e) return fail(sc, p, "unexpected end of data, expected a value");
    switch (*p) {
    case '"': {
        bool esc;
        p = scan_string(sc, p, &esc);
        return p ? p + 1 : NULL;
    }
    case '{': case '[': return skip_container(sc, p, depth);
    case 't': return literal(sc, p, "true", 4);
    case 'f': return literal(sc, p, "false", 5);
    case 'n': return literal(sc, p, "null", 4);
    default:
        if (*p == '-' || (unsigned)(*p - '0') <= 9) {
            NumTok nt;
            return scan_number(sc, p, &nt);
        }
        return fail_char(sc, p, "a value");
    }
}

bool conn_json_skip_value(const char *rec, size_t len, size_t *pos, char *err, size_t errsize)
{
    Scan sc = {rec, rec + len, err, errsize};
    const char *p = skip_value_d(&sc, rec + *pos, 1);
    if (!p) return false;
    *pos = (size_t)(p - rec);
    return true;
}

bool conn_json_string(const char *rec, size_t len, size_t *pos, char *scratch, size_t scratch_size,
                      const char **s, size_t *slen, char *err, size_t errsize)
{
    Scan sc = {rec, rec + len, err, errsize};
    const char *p = rec + *pos;
    if (p >= sc.end || *p != '"') { fail_char(&sc, p, "a string"); return false; }
    bool esc;
    const char *q = scan_string(&sc, p, &esc);
    if (!q) return false;
    size_t n = (size_t)(q - p - 1);
    if (!esc) {
        *s = p + 1;
        *slen = n;
    } else {
        if (n > scratch_size) { fail(&sc, p, "string too long"); return false; }
        bool nul;
        *slen = unescape(p + 1, q, scratch, &nul);
        *s = scratch;
    }
    *pos = (size_t)(q + 1 - rec);
    return true;
}

/* ---------------------------------------------------------------- values */

static bool type_error(Scan *sc, const ColumnDef *c, const char *found)
{
    if (sc->err && sc->errsize)
        snprintf(sc->err, sc->errsize, "column %s: expected %s, found %s", c->name, conn_type_label(c->type), found);
    return false;
}

static inline bool int_fits(uint8_t id, bool neg, uint64_t m)
{
    switch (id) {
    case T_INT2: return neg ? m <= 32768u : m <= 32767u;
    case T_INT4: return neg ? m <= 2147483648u : m <= 2147483647u;
    default: return neg ? m <= (uint64_t)INT64_MAX + 1 : m <= (uint64_t)INT64_MAX;
    }
}

/* A JSON number token [p, q) into column c: as PostgreSQL's json_populate_record, the
 * number's text through the type's input (so 12.0 is no bigint, a boolean reads 1 and 0,
 * an interval 5 as five seconds, a date 20240101), with a fast path for integers. */
static bool number_value(Scan *sc, const ColumnDef *c, const char *p, const char *q, const NumTok *nt,
                         Arena *arena, bool copy, Value *out)
{
    if ((c->type.id == T_INT2 || c->type.id == T_INT4 || c->type.id == T_INT8) && nt->is_int && nt->digits <= 19 &&
        int_fits(c->type.id, nt->neg, nt->mag)) {
        *out = value_int(nt->neg ? (int64_t)(0 - nt->mag) : (int64_t)nt->mag);
        return true;
    }
    return conn_parse_token(c->type, c->name, p, (size_t)(q - p), true, arena, copy, out, sc->err, sc->errsize);
}

/* The value at p into column c written in encoding enc (a number; null is NULL). */
static const char *encoded_value(Scan *sc, const ColumnDef *c, ColumnEncoding enc, const char *p, int depth,
                                 Value *out)
{
    const char *q;
    switch (*p) {
    case 'n':
        q = literal(sc, p, "null", 4);
        if (q) *out = value_null();
        return q;
    case '"': {
        bool esc;
        q = scan_string(sc, p, &esc);
        if (!q) return NULL;
        /* the message shows the string as written (escapes and all) */
        return conn_parse_encoded(c->type, enc, c->name, p + 1, (size_t)(q - p - 1), CONN_TOK_STRING, out, sc->err,
                                  sc->errsize)
                   ? q + 1 : NULL;
    }
    case 't': case 'f': case '{': case '[': {
        const char *found = *p == 't' ? "boolean true" : *p == 'f' ? "boolean false" : *p == '{' ? "object" : "array";
        q = skip_value_d(sc, p, depth);
        if (!q) return NULL;
        if (sc->err && sc->errsize)
            snprintf(sc->err, sc->errsize, "column %s: expected a number (%s), found %s", c->name,
                     column_encoding_name(enc), found);
        return NULL;
    }
    default: {
        if (*p != '-' && (unsigned)(*p - '0') > 9) return fail_char(sc, p, "a value");
        NumTok nt;
        q = scan_number(sc, p, &nt);
        if (!q) return NULL;
        return conn_parse_encoded(c->type, enc, c->name, p, (size_t)(q - p), CONN_TOK_NUMBER, out, sc->err, sc->errsize)
                   ? q : NULL;
    }
    }
}

static const char *column_value(Scan *sc, const ConnJsonDecoder *d, const ColumnDef *c, const char *p,
                                Arena *arena, Value *out, int depth);

/* A JSON array into an array column: each element as a value of the element type. */
static const char *array_value(Scan *sc, const ConnJsonDecoder *d, const ColumnDef *c, const char *p, Arena *arena,
                               Value *out, int depth)
{
    const char *e = sc->end;
    if (depth >= MAX_DEPTH) return fail(sc, p, "nesting too deep");
    ColumnDef ec = *c;
    ec.type = type_elem(c->type);
    StrBuf b = STRBUF_INIT;
    size_t start;
    array_begin(&b, &start);
    uint32_t n = 0;
    p = skip_ws(p + 1, e);
    if (p < e && *p == ']') {
        p++;
    } else {
        for (;;) {
            Value v;
            /* a nested array is a second dimension; an object is text's raw JSON, else an error */
            if (p < e && (*p == '[' || (*p == '{' && ec.type.id != T_TEXT))) {
                if (sc->err && sc->errsize)
                    snprintf(sc->err, sc->errsize, "column %s: expected an element of %s, found %s", c->name,
                             conn_type_label(ec.type), *p == '[' ? "an array (arrays have one dimension)" : "object");
                p = NULL;
                break;
            }
            p = column_value(sc, d, &ec, p, arena, &v, depth + 1);
            if (!p) break;
            array_push(&b, ec.type, &v);
            n++;
            p = skip_ws(p, e);
            if (p < e && *p == ',') { p = skip_ws(p + 1, e); continue; }
            if (p < e && *p == ']') { p++; break; }
            p = fail_char(sc, p, "',' or ']'");
            break;
        }
    }
    if (p) {
        array_end(&b, start, n);
        *out = value_text(arena_strndup(arena, b.data, b.len), (uint32_t)b.len);
    }
    sb_free(&b);
    return p;
}

/* Parses the value at p into column c (c == NULL: validate and skip). Returns the
 * position after the value. */
static const char *column_value(Scan *sc, const ConnJsonDecoder *d, const ColumnDef *c, const char *p,
                                Arena *arena, Value *out, int depth)
{
    const char *e = sc->end;
    if (p >= e) return fail(sc, p, "unexpected end of data, expected a value");
    switch (*p) {
    case '"': {
        bool esc;
        const char *q = scan_string(sc, p, &esc);
        if (!q) return NULL;
        const char *s = p + 1;
        size_t n = (size_t)(q - s);
        if (c->type.id == T_JSON) {   /* json keeps the JSON text of the value */
            *out = value_text(arena_strndup(arena, p, (size_t)(q + 1 - p)), (uint32_t)(q + 1 - p));
            return q + 1;
        }
        if (!esc) {
            if (c->type.id == T_TEXT && c->type.precision <= 0 && n <= UINT32_MAX) {
                *out = value_text(d->copy_text ? arena_strndup(arena, s, n) : s, (uint32_t)n);
                return q + 1;
            }
            if (!conn_parse_text(c->type, c->name, s, n, arena, d->copy_text, out, sc->err, sc->errsize)) return NULL;
            return q + 1;
        }
        char *buf = arena_alloc_raw(arena, n + 1);
        bool nul;
        size_t m = unescape(s, q, buf, &nul);
        buf[m] = '\0';
        if (nul) {
            if (sc->err && sc->errsize)
                snprintf(sc->err, sc->errsize, "column %s: \\u0000 cannot be stored in a text value", c->name);
            return NULL;
        }
        if (!conn_parse_text(c->type, c->name, buf, m, arena, false, out, sc->err, sc->errsize)) return NULL;
        return q + 1;
    }
    case 'n': {
        const char *q = literal(sc, p, "null", 4);
        if (q) *out = value_null();
        return q;
    }
    case 't': case 'f': {
        bool b = *p == 't';
        const char *q = b ? literal(sc, p, "true", 4) : literal(sc, p, "false", 5);
        if (!q) return NULL;
        if (c->type.id == T_BOOL) { *out = value_bool(b); return q; }
        if (c->type.id == T_TEXT || c->type.id == T_JSON) {
            return conn_parse_text(c->type, c->name, p, (size_t)(q - p), arena, d->copy_text, out, sc->err, sc->errsize)
                       ? q : NULL;
        }
        type_error(sc, c, b ? "boolean true" : "boolean false");
        return NULL;
    }
    case '{': case '[': {
        if (*p == '[' && c->type.id == T_ARRAY) return array_value(sc, d, c, p, arena, out, depth);
        const char *q = skip_container(sc, p, depth);
        if (!q) return NULL;
        if (c->type.id == T_JSON) {
            *out = value_text(arena_strndup(arena, p, (size_t)(q - p)), (uint32_t)(q - p));
            return q;
        }
        if (c->type.id == T_TEXT)
            return conn_parse_text(c->type, c->name, p, (size_t)(q - p), arena, d->copy_text, out, sc->err, sc->errsize)
                       ? q : NULL;
        type_error(sc, c, *p == '{' ? "object" : "array");
        return NULL;
    }
    default: {
        if (*p != '-' && (unsigned)(*p - '0') > 9) return fail_char(sc, p, "a value");
        NumTok nt;
        const char *q = scan_number(sc, p, &nt);
        if (!q) return NULL;
        return number_value(sc, c, p, q, &nt, arena, d->copy_text, out) ? q : NULL;
    }
    }
}

static const char *extra_value(Scan *sc, const ConnJsonDecoder *d, const char *p, Arena *arena, ConnJsonExtra *x)
{
    const char *e = sc->end;
    if (p < e && *p == '"') {
        bool esc;
        const char *q = scan_string(sc, p, &esc);
        if (!q) return NULL;
        x->present = true;
        x->is_null = false;
        if (!esc) {
            x->s = p + 1;
            x->len = (size_t)(q - p - 1);
        } else {
            char *buf = arena_alloc_raw(arena, (size_t)(q - p));
            bool nul;
            x->len = unescape(p + 1, q, buf, &nul);
            x->s = buf;
        }
        return q + 1;
    }
    if (p < e && *p == 'n') {
        const char *q = literal(sc, p, "null", 4);
        if (q) { x->present = true; x->is_null = true; x->s = NULL; x->len = 0; }
        return q;
    }
    const char *q = skip_value_d(sc, p, 1);
    if (!q) return NULL;
    if (sc->err && sc->errsize) snprintf(sc->err, sc->errsize, "\"%s\" must be a string", d->extra_key);
    return NULL;
}

static const char *decode_object(Scan *sc, const ConnJsonDecoder *d, const char *p, Value *row, Arena *arena,
                                 ConnJsonExtra *extra)
{
    const char *e = sc->end;
    const uint8_t *enc = d->enc; /* NULL: every column is text */
    for (int c = 0; c < d->ncols; c++) row[c] = value_null();
    if (extra) memset(extra, 0, sizeof *extra);
    /* p points at '{' */
    p = skip_ws(p + 1, e);
    if (p < e && *p == '}') return p + 1;
    char keybuf[256];
    for (int nkey = 0;; nkey++) {
        if (p >= e || *p != '"') return fail_char(sc, p, "a string key");
        const char *k = p + 1;
        const char *q;
        size_t klen;
        int slot = nkey < MAX_EXPECT ? d->expect[nkey] : SLOT_EMPTY;
        if (slot != SLOT_EMPTY) {
            size_t elen;
            const char *en = slot_name(d, slot, &elen);
            if ((size_t)(e - k) > elen && k[elen] == '"' && memcmp(k, en, elen) == 0) {
                p = k + elen + 1;
                goto have_key;
            }
        }
        /* keys are short: a plain scan, the general scanner for escapes and non-ASCII */
        const char *s = k;
        while (s < e && *s != '"' && *s != '\\' && (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x80) s++;
        if (s < e && *s == '"') {
            q = s;
            klen = (size_t)(q - k);
            slot = lookup(d, k, klen);
        } else {
            bool esc;
            q = scan_string(sc, p, &esc);
            if (!q) return NULL;
            klen = (size_t)(q - k);
            if (esc && klen <= sizeof keybuf) {
                bool nul;
                size_t m = unescape(k, q, keybuf, &nul);
                slot = lookup(d, keybuf, m);
            } else if (esc) {
                slot = SLOT_EMPTY;       /* an escaped key longer than any column name */
            } else {
                slot = lookup(d, k, klen);
            }
        }
        p = q + 1;
        if (nkey < MAX_EXPECT) d->expect[nkey] = (int16_t)slot;
    have_key:
        if (p < e && *p == ':') p++;
        else {
            p = skip_ws(p, e);
            if (p >= e || *p != ':') return fail_char(sc, p, "':' after a key");
            p++;
        }
        p = skip_ws(p, e);
        if (slot >= 0) {
            if (enc && enc[slot] != COL_ENC_TEXT)
                p = p < e ? encoded_value(sc, &d->cols[slot], (ColumnEncoding)enc[slot], p, 2, &row[slot])
                          : fail(sc, p, "unexpected end of data, expected a value");
            else
                p = column_value(sc, d, &d->cols[slot], p, arena, &row[slot], 2);
        }
        else if (slot == SLOT_EXTRA && extra) p = extra_value(sc, d, p, arena, extra);
        else p = skip_value_d(sc, p, 2);
        if (!p) return NULL;
        if (p < e && *p == ',') { p++; }
        else {
            p = skip_ws(p, e);
            if (p < e && *p == '}') return p + 1;
            if (p >= e || *p != ',') return fail_char(sc, p, "',' or '}'");
            p++;
        }
        p = skip_ws(p, e);
    }
}

bool conn_json_decode_at(const ConnJsonDecoder *d, const char *rec, size_t len, size_t *pos,
                         Value *row, Arena *arena, ConnJsonExtra *extra, char *err, size_t errsize)
{
    Scan sc = {rec, rec + len, err, errsize};
    const char *p = skip_ws(rec + *pos, sc.end);
    if (p >= sc.end || *p != '{') {
        /* valid JSON of another kind is "not a JSON object"; anything else a syntax error */
        if (p < sc.end && (strchr("[\"-tfn", *p) || (unsigned)(*p - '0') <= 9)) {
            if (!skip_value_d(&sc, p, 1)) return false;
            if (err && errsize) snprintf(err, errsize, "not a JSON object");
            return false;
        }
        fail_char(&sc, p, "'{'");
        return false;
    }
    p = decode_object(&sc, d, p, row, arena, extra);
    if (!p) return false;
    *pos = (size_t)(p - rec);
    return true;
}

bool conn_json_decode(const ConnJsonDecoder *d, const char *rec, size_t len, Value *row,
                      Arena *arena, ConnJsonExtra *extra, char *err, size_t errsize)
{
    size_t pos = 0;
    if (!conn_json_decode_at(d, rec, len, &pos, row, arena, extra, err, errsize)) return false;
    const char *e = rec + len;
    const char *p = skip_ws(rec + pos, e);
    if (p < e) {
        conn_json_syntax_error((size_t)(p - rec), "unexpected data after the object", err, errsize);
        return false;
    }
    return true;
}
