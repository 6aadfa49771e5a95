/* Arrays and json as values (see value.h): the encoded form of one-dimensional arrays,
 * their order, equality and hashing (PostgreSQL's array_cmp / array_eq: element by
 * element, NULL elements equal to each other and after every value, then the shorter
 * array first), PostgreSQL's text output (array_out) and input (array_in) for
 * one-dimensional arrays, element-wise casts, and PostgreSQL's to_json text of any
 * value (json_agg's elements). Called from value.c for T_ARRAY / T_JSON. */
#include "base/value.h"
#include "base/value_internal.h"
#include "base/hash.h"
#include "base/timeutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- encoding ---- */

static void put_u32(StrBuf *out, uint32_t v) { sb_append(out, (const char *)&v, 4); }

/* The 18 bytes of a fixed-size element: the Value's words with the bits its type does
 * not use zeroed, so equal values have equal bytes. */
static void fixed_words(Type elem, const Value *v, char out[18])
{
    uint64_t w1 = 0, w2 = 0;
    int16_t scale = 0;
    switch ((TypeId)elem.id) {
    case T_NUMERIC: w1 = v->lo; w2 = (uint64_t)v->hi; scale = v->scale; break;
    case T_INTERVAL: w1 = (uint64_t)v->i; memcpy(&w2, &v->iv, 8); break;
    case T_FLOAT4: case T_FLOAT8: memcpy(&w1, &v->f, 8); break;
    default: w1 = (uint64_t)v->i; break;
    }
    memcpy(out, &w1, 8);
    memcpy(out + 8, &w2, 8);
    memcpy(out + 16, &scale, 2);
}

void array_begin(StrBuf *out, size_t *start)
{
    *start = out->len;
    put_u32(out, 0);
}

void array_push(StrBuf *out, Type elem, const Value *v)
{
    if (v->isnull) {
        sb_putc(out, 0);
        return;
    }
    sb_putc(out, 1);
    if (type_is_varlen(elem)) {
        put_u32(out, v->len);
        if (v->len) sb_append(out, v->s, v->len);
    } else {
        char w[18];
        fixed_words(elem, v, w);
        sb_append(out, w, 18);
    }
}

void array_end(StrBuf *out, size_t start, uint32_t n)
{
    memcpy(out->data + start, &n, 4);
}

size_t array_elem_size(Type elem, const Value *v)
{
    if (v->isnull) return 1;
    return 1 + (type_is_varlen(elem) ? 4 + (size_t)v->len : 18);
}

char *array_put_elem(char *p, Type elem, const Value *v)
{
    if (v->isnull) {
        *p++ = 0;
        return p;
    }
    *p++ = 1;
    if (type_is_varlen(elem)) {
        uint32_t l = v->len;
        memcpy(p, &l, 4);
        if (l) memcpy(p + 4, v->s, l);
        return p + 4 + l;
    }
    fixed_words(elem, v, p);
    return p + 18;
}

void array_put_count(char *start, uint32_t n)
{
    memcpy(start, &n, 4);
}

uint32_t array_count(const Value *a)
{
    if (a->isnull || a->len < 4) return 0;
    uint32_t n;
    memcpy(&n, a->s, 4);
    return n;
}

void array_iter(ArrayIter *it, const Value *a)
{
    it->p = a->len >= 4 ? a->s + 4 : a->s;
    it->end = a->s + a->len;
    it->left = array_count(a);
}

bool array_next(ArrayIter *it, Type elem, Value *out)
{
    if (it->left == 0 || it->p >= it->end) return false;
    it->left--;
    memset(out, 0, sizeof *out);
    if (*it->p++ == 0) {
        out->isnull = 1;
        return true;
    }
    if (type_is_varlen(elem)) {
        uint32_t l;
        if (it->end - it->p < 4) return false;
        memcpy(&l, it->p, 4);
        it->p += 4;
        if ((size_t)(it->end - it->p) < l) return false;
        out->s = it->p;
        out->len = l;
        it->p += l;
        return true;
    }
    if (it->end - it->p < 18) return false;
    uint64_t w1, w2;
    memcpy(&w1, it->p, 8);
    memcpy(&w2, it->p + 8, 8);
    out->lo = w1;
    out->hi = (int64_t)w2;
    memcpy(&out->scale, it->p + 16, 2);
    it->p += 18;
    return true;
}

Value array_get(Type elem, const Value *a, int64_t i)
{
    if (a->isnull || i < 1 || i > (int64_t)array_count(a)) return value_null();
    ArrayIter it;
    array_iter(&it, a);
    Value v = value_null();
    for (int64_t k = 1; k <= i; k++)
        if (!array_next(&it, elem, &v)) return value_null();
    return v;
}

bool array_valid(Type elem, const char *s, size_t len)
{
    if (len < 4) return false;
    Value a = value_text(s, (uint32_t)len);
    ArrayIter it;
    array_iter(&it, &a);
    uint32_t n = it.left;
    Value v;
    for (uint32_t k = 0; k < n; k++)
        if (!array_next(&it, elem, &v)) return false;
    return it.p == it.end;
}

/* ---- order, equality, hash ---- */

int array_compare(Type t, const Value *a, const Value *b)
{
    Type e = type_elem(t);
    ArrayIter x, y;
    array_iter(&x, a);
    array_iter(&y, b);
    uint32_t na = x.left, nb = y.left;
    Value u, v;
    while (array_next(&x, e, &u) && array_next(&y, e, &v)) {
        int c = value_compare(e, &u, &v);
        if (c) return c < 0 ? -1 : 1;
    }
    return (na > nb) - (na < nb);
}

bool array_equal(Type t, const Value *a, const Value *b)
{
    if (a->len == b->len && (a->len == 0 || memcmp(a->s, b->s, a->len) == 0)) return true;
    if (array_count(a) != array_count(b)) return false;
    return array_compare(t, a, b) == 0;
}

uint64_t array_hash(Type t, const Value *a, uint64_t seed)
{
    Type e = type_elem(t);
    ArrayIter it;
    array_iter(&it, a);
    uint64_t h = hash_u64(it.left, seed ^ 0x6172726179ull);
    Value v;
    while (array_next(&it, e, &v)) h = value_hash(e, &v, h);
    return h;
}

/* ---- text output (array_out) ---- */

static bool array_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* One element's text, quoted when PostgreSQL quotes it: empty, "NULL" in any case, or
 * holding a brace, a quote, a backslash, the delimiter or white space. */
static void put_element_text(const char *s, size_t n, StrBuf *out)
{
    bool quote = n == 0 || (n == 4 && strncasecmp(s, "null", 4) == 0);
    for (size_t i = 0; i < n && !quote; i++) {
        char c = s[i];
        if (c == '{' || c == '}' || c == '"' || c == '\\' || c == ',' || array_space(c)) quote = true;
    }
    if (!quote) {
        sb_append(out, s, n);
        return;
    }
    sb_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\') sb_putc(out, '\\');
        sb_putc(out, s[i]);
    }
    sb_putc(out, '"');
}

void array_format_text(Type t, const Value *a, StrBuf *out)
{
    Type e = type_elem(t);
    ArrayIter it;
    array_iter(&it, a);
    sb_putc(out, '{');
    Value v;
    bool first = true;
    StrBuf tmp = STRBUF_INIT;
    while (array_next(&it, e, &v)) {
        if (!first) sb_putc(out, ',');
        first = false;
        if (v.isnull) {
            sb_puts(out, "NULL");
        } else if (e.id == T_BOOL) {
            sb_putc(out, v.i ? 't' : 'f');   /* boolout, not the cast to text */
        } else if (type_is_varlen(e)) {
            put_element_text(v.len ? v.s : "", v.len, out);
        } else {
            sb_clear(&tmp);
            value_format_text(e, &v, &tmp);
            put_element_text(tmp.len ? tmp.data : "", tmp.len, out);
        }
    }
    sb_free(&tmp);
    sb_putc(out, '}');
}

void array_format_json(Type t, const Value *a, StrBuf *out)
{
    Type e = type_elem(t);
    ArrayIter it;
    array_iter(&it, a);
    sb_putc(out, '[');
    Value v;
    bool first = true;
    while (array_next(&it, e, &v)) {
        if (!first) sb_putc(out, ',');
        first = false;
        value_format_json(e, &v, out);
    }
    sb_putc(out, ']');
}

/* ---- text input (array_in, one dimension) ---- */

static bool afail(char *err, size_t errsize, const char *text, size_t len, const char *detail)
{
    if (err && errsize)
        snprintf(err, errsize, "malformed array literal: \"%.*s\" (%s)", (int)(len > 200 ? 200 : len), text, detail);
    return false;
}

bool array_parse(Type t, const char *text, size_t len, Arena *arena, Value *out, char *err, size_t errsize)
{
    Type e = type_elem(t);
    const char *p = text, *end = text + len;
    while (p < end && array_space(*p)) p++;
    if (p < end && *p == '[') return afail(err, errsize, text, len, "explicit dimensions are not supported");
    if (p >= end || *p != '{') return afail(err, errsize, text, len, "Array value must start with \"{\" or dimension information.");
    p++;
    StrBuf buf = STRBUF_INIT, elem = STRBUF_INIT;
    size_t start;
    array_begin(&buf, &start);
    uint32_t n = 0;
    bool ok = true, closed = false;
    while (p < end && array_space(*p)) p++;
    if (p < end && *p == '}') {
        p++;
        closed = true;
    }
    while (ok && !closed) {
        while (p < end && array_space(*p)) p++;
        if (p >= end) { ok = afail(err, errsize, text, len, "Unexpected end of input."); break; }
        if (*p == '{') { ok = afail(err, errsize, text, len, "multidimensional arrays are not supported"); break; }
        sb_clear(&elem);
        bool quoted = false, any = false;
        size_t trail = 0;   /* unquoted trailing white space, dropped */
        while (p < end) {
            char c = *p;
            if (c == '"') {
                if (any && !quoted) { ok = afail(err, errsize, text, len, "Unexpected array element."); break; }
                quoted = true;
                any = true;
                p++;
                while (p < end && *p != '"') {
                    if (*p == '\\' && p + 1 < end) p++;
                    sb_putc(&elem, *p++);
                }
                if (p >= end) { ok = afail(err, errsize, text, len, "Unexpected end of input."); break; }
                p++;
                trail = 0;
                while (p < end && array_space(*p)) p++;
                if (p < end && *p != ',' && *p != '}') { ok = afail(err, errsize, text, len, "Incorrectly quoted array element."); break; }
                continue;
            }
            if (c == ',' || c == '}') break;
            if (c == '{') { ok = afail(err, errsize, text, len, "Unexpected \"{\" character."); break; }
            if (quoted) { ok = afail(err, errsize, text, len, "Incorrectly quoted array element."); break; }
            if (c == '\\') {
                if (p + 1 >= end) { ok = afail(err, errsize, text, len, "Unexpected end of input."); break; }
                p++;
                sb_putc(&elem, *p++);
                any = true;
                trail = 0;
                continue;
            }
            if (array_space(c)) trail++;
            else trail = 0;
            sb_putc(&elem, c);
            any = true;
            p++;
        }
        if (!ok) break;
        if (p >= end) { ok = afail(err, errsize, text, len, "Unexpected end of input."); break; }
        if (!any) { ok = afail(err, errsize, text, len, "Unexpected \",\" character."); break; }
        size_t el = elem.len - (quoted ? 0 : trail);
        const char *es = elem.len ? elem.data : "";
        Value v;
        if (!quoted && el == 4 && strncasecmp(es, "null", 4) == 0) {
            v = value_null();
        } else if (!value_parse(e, es, el, NULL, &v, err, errsize)) {
            ok = false;
            break;
        }
        array_push(&buf, e, &v);
        n++;
        if (*p++ == '}') closed = true;
    }
    if (ok) {
        while (p < end && array_space(*p)) p++;
        if (p != end) ok = afail(err, errsize, text, len, "Junk after closing right brace.");
    }
    if (ok) {
        array_end(&buf, start, n);
        const char *s = arena ? arena_strndup(arena, buf.data, buf.len) : NULL;
        if (!arena) ok = afail(err, errsize, text, len, "no memory to hold it");
        else *out = value_text(s, (uint32_t)buf.len);
    }
    sb_free(&buf);
    sb_free(&elem);
    return ok;
}

/* ---- casts ---- */

bool array_cast(Type from, Type to, const Value *in, Arena *arena, Value *out, char *err, size_t errsize)
{
    Type fe = type_elem(from), te = type_elem(to);
    if (!arena) {
        snprintf(err, errsize, "cannot cast an array without memory to hold it");
        return false;
    }
    StrBuf buf = STRBUF_INIT;
    size_t start;
    array_begin(&buf, &start);
    ArrayIter it;
    array_iter(&it, in);
    uint32_t n = 0;
    Value v, c;
    while (array_next(&it, fe, &v)) {
        if (!value_cast(fe, te, &v, arena, &c, err, errsize)) {
            sb_free(&buf);
            return false;
        }
        array_push(&buf, te, &c);
        n++;
    }
    array_end(&buf, start, n);
    *out = value_text(arena_strndup(arena, buf.data, buf.len), (uint32_t)buf.len);
    sb_free(&buf);
    return true;
}

/* ---- to_json ---- */

/* ISO 8601 with 'T' (PostgreSQL's USE_XSD_DATES), from the text output. */
static void put_xsd_datetime(Type t, const Value *v, StrBuf *out)
{
    StrBuf tmp = STRBUF_INIT;
    value_format_text(t, v, &tmp);
    const char *s = tmp.len ? tmp.data : "";
    size_t n = tmp.len;
    sb_putc(out, '"');
    if (t.id == T_DATE || v->i == TM_INFINITY || v->i == TM_NEG_INFINITY) {
        sb_append(out, s, n);
    } else {
        /* "YYYY-MM-DD HH:MM:SS[.f][+00][ BC]" -> "YYYY-MM-DDTHH:MM:SS[.f][+00:00][ BC]" */
        const char *sp = memchr(s, ' ', n);
        size_t k = sp ? (size_t)(sp - s) : n;
        sb_append(out, s, k);
        if (k < n) {
            sb_putc(out, 'T');
            const char *rest = s + k + 1;
            size_t rn = n - k - 1;
            const char *bc = rn >= 3 && memcmp(rest + rn - 3, " BC", 3) == 0 ? rest + rn - 3 : NULL;
            if (bc) rn -= 3;
            if (t.id == T_TIMESTAMPTZ && rn >= 3 && memcmp(rest + rn - 3, "+00", 3) == 0) {
                sb_append(out, rest, rn);
                sb_puts(out, ":00");
            } else {
                sb_append(out, rest, rn);
            }
            if (bc) sb_puts(out, " BC");
        }
    }
    sb_putc(out, '"');
    sb_free(&tmp);
}

void value_format_pgjson(Type t, const Value *v, StrBuf *out)
{
    if (v->isnull) {
        sb_puts(out, "null");
        return;
    }
    switch ((TypeId)t.id) {
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ:
    case T_DATE:
        put_xsd_datetime(t, v, out);
        return;
    case T_ARRAY: {
        Type e = type_elem(t);
        ArrayIter it;
        array_iter(&it, v);
        sb_putc(out, '[');
        Value x;
        bool first = true;
        while (array_next(&it, e, &x)) {
            if (!first) sb_putc(out, ',');
            first = false;
            value_format_pgjson(e, &x, out);
        }
        sb_putc(out, ']');
        return;
    }
    case T_JSON:
        if (v->len) sb_append(out, v->s, v->len);
        return;
    default:
        value_format_json(t, v, out);   /* numbers, booleans, text, intervals agree */
        return;
    }
}

/* ---- json input (json_in: validated, kept as written) ---- */

typedef struct JsonScan {
    const char *p, *end;
    int depth;
} JsonScan;

static void json_ws(JsonScan *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static bool json_value(JsonScan *j);

static bool json_string(JsonScan *j)
{
    j->p++;   /* the opening quote */
    while (j->p < j->end) {
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"') return true;
        if (c < 0x20) return false;
        if (c == '\\') {
            if (j->p >= j->end) return false;
            char e = *j->p++;
            if (e == 'u') {
                for (int k = 0; k < 4; k++, j->p++)
                    if (j->p >= j->end || !((*j->p >= '0' && *j->p <= '9') || (*j->p >= 'a' && *j->p <= 'f') ||
                                            (*j->p >= 'A' && *j->p <= 'F')))
                        return false;
            } else if (!strchr("\"\\/bfnrt", e) || e == 0) {
                return false;
            }
        }
    }
    return false;
}

static bool json_digits(JsonScan *j)
{
    const char *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    return j->p > s;
}

static bool json_number(JsonScan *j)
{
    if (*j->p == '-') j->p++;
    if (j->p < j->end && *j->p == '0') j->p++;
    else if (!json_digits(j)) return false;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!json_digits(j)) return false;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (!json_digits(j)) return false;
    }
    return true;
}

static bool json_word(JsonScan *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0) return false;
    j->p += n;
    return true;
}

static bool json_value(JsonScan *j)
{
    json_ws(j);
    if (j->p >= j->end) return false;
    char c = *j->p;
    if (c == '"') return json_string(j);
    if (c == '-' || (c >= '0' && c <= '9')) return json_number(j);
    if (c == 't') return json_word(j, "true");
    if (c == 'f') return json_word(j, "false");
    if (c == 'n') return json_word(j, "null");
    if (c != '[' && c != '{') return false;
    if (++j->depth > 1000) return false;
    char close = c == '[' ? ']' : '}';
    j->p++;
    json_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return true;
    }
    for (;;) {
        if (close == '}') {
            json_ws(j);
            if (j->p >= j->end || *j->p != '"' || !json_string(j)) return false;
            json_ws(j);
            if (j->p >= j->end || *j->p++ != ':') return false;
        }
        if (!json_value(j)) return false;
        json_ws(j);
        if (j->p >= j->end) return false;
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p++ != close) return false;
        j->depth--;
        return true;
    }
}

bool json_parse(const char *text, size_t len, Arena *arena, Value *out, char *err, size_t errsize)
{
    JsonScan j = {text, text + len, 0};
    bool ok = json_value(&j);
    if (ok) {
        json_ws(&j);
        ok = j.p == j.end;
    }
    if (!ok) {
        if (err && errsize)
            snprintf(err, errsize, "invalid input syntax for type json: \"%.*s\"", (int)(len > 200 ? 200 : len), text);
        return false;
    }
    *out = value_text(arena ? arena_strndup(arena, text, len) : text, (uint32_t)len);
    return true;
}

void value_format_pgjson_key(Type t, const Value *v, StrBuf *out)
{
    if (type_is_varlen(t)) {
        sb_json_str(out, v->len ? v->s : "", v->len);
        return;
    }
    size_t at = out->len;
    value_format_pgjson(t, v, out);
    if (out->len > at && out->data[at] == '"') return;
    char k[64];
    size_t n = out->len - at < sizeof k ? out->len - at : sizeof k;
    memcpy(k, out->data + at, n);
    out->len = at;
    sb_json_str(out, k, n);
}
