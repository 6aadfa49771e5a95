/* SQL types and runtime values (see value.h): type names, the total order / equality /
 * hash used by sorting and grouping, PostgreSQL text and JSON output, PostgreSQL input
 * parsing, and casts. Compare, equal, hash and format never allocate: they are on the
 * engine's per-row path. */
#include "base/value.h"
#include "base/decimal.h"
#include "base/timeutil.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/hash.h"
#include "base/value_internal.h"

/* ---- types ---- */

bool type_equal(Type a, Type b)
{
    return a.id == b.id && a.precision == b.precision && a.scale == b.scale && a.elem == b.elem;
}

const char *const type_known_names[] = {
    "boolean", "bool", "smallint", "int2", "integer", "int", "int4", "bigint", "int8",
    "real", "float4", "double precision", "float8", "float", "numeric", "decimal", "text",
    "varchar", "character varying", "char", "character", "bpchar", "timestamp",
    "timestamp without time zone", "timestamptz", "timestamp with time zone", "date",
    "interval", "json",
};
const int type_known_names_count = (int)(sizeof type_known_names / sizeof type_known_names[0]);

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }

static void trim(const char **s, size_t *len)
{
    const char *p = *s;
    size_t n = *len;
    while (n && is_space(*p)) { p++; n--; }
    while (n && is_space(p[n - 1])) n--;
    *s = p;
    *len = n;
}

/* Lower-cases name into buf with single spaces between words, taking out one
 * parenthesised list of up to two integers (wherever it appears). */
static bool normalize_type_name(const char *name, char *buf, size_t bufsize, int *args, int *nargs)
{
    size_t o = 0;
    bool seen_paren = false;
    *nargs = 0;
    for (size_t i = 0; name[i];) {
        char c = name[i];
        if (is_space(c)) {
            while (is_space(name[i])) i++;
            if (o > 0 && buf[o - 1] != ' ') {
                if (o + 1 >= bufsize) return false;
                buf[o++] = ' ';
            }
            continue;
        }
        if (c == '(') {
            if (seen_paren) return false;
            seen_paren = true;
            i++;
            for (;;) {
                while (is_space(name[i])) i++;
                if (!is_digit(name[i]) || *nargs == 2) return false;
                long v = 0;
                while (is_digit(name[i])) {
                    if (v < 100000000L) v = v * 10 + (name[i] - '0');
                    i++;
                }
                args[(*nargs)++] = (int)v;
                while (is_space(name[i])) i++;
                if (name[i] == ',') { i++; continue; }
                if (name[i] == ')') { i++; break; }
                return false;
            }
            continue;
        }
        if (o + 1 >= bufsize) return false;
        buf[o++] = lower(c);
        i++;
    }
    while (o > 0 && buf[o - 1] == ' ') o--;
    buf[o] = '\0';
    return o > 0;
}

static bool type_parse_scalar(const char *name, Type *out);

bool type_parse(const char *name, Type *out)
{
    if (!name) return false;
    size_t len = strlen(name);
    while (len && is_space(name[len - 1])) len--;
    if (len >= 2 && name[len - 2] == ']' && name[len - 1] == ']') return false;
    if (len >= 2 && name[len - 1] == ']' && name[len - 2] == '[') {
        /* elem[] (one dimension) */
        char buf[96];
        if (len - 2 >= sizeof buf) return false;
        memcpy(buf, name, len - 2);
        buf[len - 2] = '\0';
        Type e;
        if (!type_parse_scalar(buf, &e) || e.id == T_JSON) return false;
        *out = type_array(e);
        return true;
    }
    return type_parse_scalar(name, out);
}

static bool type_parse_scalar(const char *name, Type *out)
{
    char buf[64];
    int args[2], nargs;
    if (!name || strchr(name, '[') || !normalize_type_name(name, buf, sizeof buf, args, &nargs)) return false;
    const char *n = buf;
    if (strncmp(n, "pg_catalog.", 11) == 0) n += 11;
    Type t = type_make(T_UNKNOWN);
    bool allow_args = false;
    if (!strcmp(n, "boolean") || !strcmp(n, "bool")) t.id = T_BOOL;
    else if (!strcmp(n, "smallint") || !strcmp(n, "int2")) t.id = T_INT2;
    else if (!strcmp(n, "integer") || !strcmp(n, "int") || !strcmp(n, "int4")) t.id = T_INT4;
    else if (!strcmp(n, "bigint") || !strcmp(n, "int8")) t.id = T_INT8;
    else if (!strcmp(n, "real") || !strcmp(n, "float4")) t.id = T_FLOAT4;
    else if (!strcmp(n, "double precision") || !strcmp(n, "float8")) t.id = T_FLOAT8;
    else if (!strcmp(n, "float")) {
        /* float(p): 1..24 is real, 25..53 double precision (PostgreSQL) */
        t.id = T_FLOAT8;
        if (nargs == 1) {
            if (args[0] < 1 || args[0] > 53) return false;
            if (args[0] <= 24) t.id = T_FLOAT4;
        } else if (nargs) {
            return false;
        }
        allow_args = true;
    } else if (!strcmp(n, "numeric") || !strcmp(n, "decimal")) {
        if (nargs >= 1) {
            /* weir's numeric holds 38 digits; negative scales are not supported */
            int p = args[0], s = nargs == 2 ? args[1] : 0;
            if (p < 1 || p > DEC_MAX_DIGITS || s > DEC_MAX_SCALE) return false;
            t = type_numeric(p, s);
        } else {
            t = type_numeric(-1, -1);
        }
        allow_args = true;
    } else if (!strcmp(n, "text")) t.id = T_TEXT;
    else if (!strcmp(n, "varchar") || !strcmp(n, "character varying") || !strcmp(n, "char") ||
             !strcmp(n, "character") || !strcmp(n, "bpchar")) {
        /* char(n) maps to varchar(n): weir does not blank-pad */
        t.id = T_TEXT;
        if (nargs == 1) {
            if (args[0] < 1 || args[0] > INT16_MAX) return false;
            t.precision = (int16_t)args[0];
        } else if (nargs) {
            return false;
        } else if (!strcmp(n, "char") || !strcmp(n, "character")) {
            t.precision = 1;   /* PostgreSQL: char without length is char(1) */
        }
        allow_args = true;
    } else if (!strcmp(n, "timestamp") || !strcmp(n, "timestamp without time zone") ||
               !strcmp(n, "timestamptz") || !strcmp(n, "timestamp with time zone") ||
               !strcmp(n, "interval")) {
        /* fractional-second precision (p) is accepted and ignored: weir keeps microseconds */
        t.id = !strcmp(n, "interval") ? T_INTERVAL
             : (!strcmp(n, "timestamptz") || !strcmp(n, "timestamp with time zone")) ? T_TIMESTAMPTZ
             : T_TIMESTAMP;
        if (nargs > 1 || (nargs == 1 && args[0] > 6)) return false;
        allow_args = true;
    } else if (!strcmp(n, "date")) t.id = T_DATE;
    else if (!strcmp(n, "json")) t.id = T_JSON;
    else return false;
    if (nargs && !allow_args) return false;
    *out = t;
    return true;
}

const char *type_name(Type t, char *buf, size_t bufsize)
{
    const char *s;
    switch ((TypeId)t.id) {
    case T_ARRAY: {
        char eb[80];
        snprintf(buf, bufsize, "%s[]", type_name(type_elem(t), eb, sizeof eb));
        return buf;
    }
    case T_JSON: s = "json"; break;
    case T_BOOL: s = "boolean"; break;
    case T_INT2: s = "smallint"; break;
    case T_INT4: s = "integer"; break;
    case T_INT8: s = "bigint"; break;
    case T_FLOAT4: s = "real"; break;
    case T_FLOAT8: s = "double precision"; break;
    case T_NUMERIC:
        if (t.precision >= 0) {
            snprintf(buf, bufsize, "numeric(%d,%d)", t.precision, t.scale < 0 ? 0 : t.scale);
            return buf;
        }
        s = "numeric";
        break;
    case T_TEXT:
        if (t.precision >= 0) {
            snprintf(buf, bufsize, "character varying(%d)", t.precision);
            return buf;
        }
        s = "text";
        break;
    case T_TIMESTAMP: s = "timestamp without time zone"; break;
    case T_TIMESTAMPTZ: s = "timestamp with time zone"; break;
    case T_DATE: s = "date"; break;
    case T_INTERVAL: s = "interval"; break;
    default: s = "unknown"; break;
    }
    snprintf(buf, bufsize, "%s", s);
    return buf;
}

const char *type_id_name(TypeId id)
{
    static const char *const names[T__COUNT] = {
        "unknown", "bool", "int2", "int4", "int8", "float4", "float8", "numeric", "text",
        "timestamp", "timestamptz", "date", "interval", "array", "json",
    };
    return (unsigned)id < T__COUNT ? names[id] : "unknown";
}

/* ---- compare / equal / hash ---- */

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int cmp_float(double a, double b)
{
    if (isnan(a)) return isnan(b) ? 0 : 1;
    if (isnan(b)) return -1;
    return (a > b) - (a < b);
}

static int cmp_text(const Value *a, const Value *b)
{
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->s, b->s, n) : 0;
    if (c) return c < 0 ? -1 : 1;
    return (a->len > b->len) - (a->len < b->len);
}

int value_compare(Type t, const Value *a, const Value *b)
{
    if (a->isnull || b->isnull) return (int)a->isnull - (int)b->isnull;
    switch ((TypeId)t.id) {
    case T_FLOAT4:
    case T_FLOAT8: return cmp_float(a->f, b->f);
    case T_NUMERIC: return dec_cmp(value_num(a), a->scale, value_num(b), b->scale);
    case T_TEXT:
    case T_JSON:
    case T_UNKNOWN: return cmp_text(a, b);
    case T_ARRAY: return array_compare(t, a, b);
    case T_INTERVAL: return tm_interval_cmp(a->iv.months, a->iv.days, a->i, b->iv.months, b->iv.days, b->i);
    default: return cmp_i64(a->i, b->i);
    }
}

bool value_equal(Type t, const Value *a, const Value *b)
{
    if (a->isnull || b->isnull) return a->isnull && b->isnull;
    switch ((TypeId)t.id) {
    case T_FLOAT4:
    case T_FLOAT8: return a->f == b->f || (isnan(a->f) && isnan(b->f));
    case T_NUMERIC:
        if (a->scale == b->scale) return a->lo == b->lo && a->hi == b->hi;
        return dec_cmp(value_num(a), a->scale, value_num(b), b->scale) == 0;
    case T_TEXT:
    case T_JSON:
    case T_UNKNOWN: return a->len == b->len && (a->len == 0 || memcmp(a->s, b->s, a->len) == 0);
    case T_ARRAY: return array_equal(t, a, b);
    case T_INTERVAL:
        if (a->iv.months == b->iv.months && a->iv.days == b->iv.days) return a->i == b->i;
        return tm_interval_cmp(a->iv.months, a->iv.days, a->i, b->iv.months, b->iv.days, b->i) == 0;
    default: return a->i == b->i;
    }
}

uint64_t value_hash(Type t, const Value *v, uint64_t seed)
{
    if (v->isnull) return hash_bytes("\0null", 5, seed);
    switch ((TypeId)t.id) {
    case T_FLOAT4:
    case T_FLOAT8: {
        double f = v->f;
        if (f == 0) f = 0;            /* -0 == 0 */
        if (isnan(f)) f = NAN;        /* one NaN */
        uint64_t bits;
        memcpy(&bits, &f, sizeof bits);
        return hash_bytes(&bits, sizeof bits, seed);
    }
    case T_NUMERIC: return dec_hash(value_num(v), v->scale, seed);
    case T_TEXT:
    case T_JSON:
    case T_UNKNOWN: return hash_bytes(v->len ? v->s : "", v->len, seed);
    case T_ARRAY: return array_hash(t, v, seed);
    case T_INTERVAL: {
        /* hash the comparison key so that '1 mon' and '30 days' hash alike */
        i128 span = (i128)v->i + ((i128)v->iv.days + (i128)v->iv.months * 30) * TM_USECS_PER_DAY;
        uint64_t words[2] = {(uint64_t)span, (uint64_t)((unsigned __int128)span >> 64)};
        return hash_bytes(words, sizeof words, seed);
    }
    default: return hash_bytes(&v->i, sizeof v->i, seed);
    }
}

/* ---- output ---- */

/* Decimal text of v at the start of buf (room for 20 bytes); returns its length. */
static size_t i64_text(int64_t v, char *buf)
{
    char tmp[24];
    int n = 0;
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do { tmp[sizeof tmp - 1 - n++] = (char)('0' + m % 10); m /= 10; } while (m);
    if (v < 0) tmp[sizeof tmp - 1 - n++] = '-';
    memcpy(buf, tmp + sizeof tmp - n, (size_t)n);
    return (size_t)n;
}

static void put_i64(StrBuf *out, int64_t v)
{
    char buf[24];
    sb_append(out, buf, i64_text(v, buf));
}

/* Digits (without the point) and decimal exponent of a "%.Ne" / "%.NLe" string,
 * trailing zeros dropped. Returns the number of digits. */
static int sci_digits(const char *e, char *digits, int cap, int *exp10)
{
    int nd = 0;
    const char *p = e;
    if (*p == '-') p++;
    for (; *p && *p != 'e'; p++)
        if (is_digit(*p) && nd < cap) digits[nd++] = *p;
    *exp10 = *p ? atoi(p + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    return nd;
}

/* Is the decimal text c exactly the midpoint m? (Exact: glibc prints exact digits.) */
static bool is_exact_midpoint(const char *c, long double m)
{
    char me[128], d1[100], d2[100];
    int e1, e2;
    snprintf(me, sizeof me, "%.90Le", fabsl(m));
    int n1 = sci_digits(c, d1, (int)sizeof d1, &e1), n2 = sci_digits(me, d2, (int)sizeof d2, &e2);
    return n1 == n2 && e1 == e2 && memcmp(d1, d2, (size_t)n1) == 0;
}

/* Does candidate c (read back as r) lie strictly inside v's rounding interval?
 * PostgreSQL's Ryu runs without accepting interval bounds, so a decimal exactly
 * halfway to a neighbour does not count even though strtod rounds it to v. */
static bool strictly_inside(const char *c, double v, bool f4)
{
    long double lo, hi, cl = strtold(c, NULL);
    if (f4) {
        float fv = (float)v;
        lo = ((long double)fv + nextafterf(fv, -INFINITY)) / 2;
        hi = ((long double)fv + nextafterf(fv, INFINITY)) / 2;
    } else {
        lo = ((long double)v + nextafter(v, -INFINITY)) / 2;
        hi = ((long double)v + nextafter(v, INFINITY)) / 2;
    }
    if (cl == lo && is_exact_midpoint(c, lo)) return false;
    if (cl == hi && is_exact_midpoint(c, hi)) return false;
    return true;
}

/* Shortest round-trip text of a float8 (or of a float4 when f4), as PostgreSQL 12+
 * prints it (Ryu): fixed notation for decimal exponents -4..14 (float4: -4..5), else
 * d.ddde+XX. Returns the length; buf needs 32 bytes. */
static size_t format_float(double v, bool f4, char *buf)
{
    if (isnan(v)) return (size_t)sprintf(buf, "NaN");
    if (isinf(v)) return (size_t)sprintf(buf, v > 0 ? "Infinity" : "-Infinity");
    if (v == 0) return (size_t)sprintf(buf, signbit(v) ? "-0" : "0");
    char e[40];
    /* For normal numbers the correctly rounded 15-digit (float4: 6) form is the only
     * candidate of that length or shorter, so shortest = first of 15, 16, 17 digits
     * whose correctly rounded form lies strictly inside the rounding interval (if the
     * closest p-digit decimal does not, no p-digit decimal does). Subnormals have
     * fewer bits: search from 1 digit. */
    float fv = (float)v;
    bool subnormal = f4 ? fabsf(fv) < FLT_MIN : fabs(v) < DBL_MIN;
    int lo = subnormal ? 1 : f4 ? 6 : 15, hi = f4 ? 9 : 17;
    for (int prec = lo; prec <= hi; prec++) {
        if (f4) snprintf(e, sizeof e, "%.*e", prec - 1, (double)fv);
        else snprintf(e, sizeof e, "%.*e", prec - 1, v);
        if (prec == hi) break;
        if ((f4 ? strtof(e, NULL) == fv : strtod(e, NULL) == v) && strictly_inside(e, v, f4)) break;
    }
    char digits[24];
    int exp10;
    bool neg = e[0] == '-';
    int nd = sci_digits(e, digits, (int)sizeof digits, &exp10);
    size_t o = 0;
    if (neg) buf[o++] = '-';
    if (exp10 < -4 || exp10 >= (f4 ? 6 : 15)) {
        buf[o++] = digits[0];
        if (nd > 1) {
            buf[o++] = '.';
            memcpy(buf + o, digits + 1, (size_t)nd - 1);
            o += (size_t)nd - 1;
        }
        o += (size_t)sprintf(buf + o, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    } else if (exp10 < 0) {
        buf[o++] = '0';
        buf[o++] = '.';
        for (int k = 0; k < -exp10 - 1; k++) buf[o++] = '0';
        memcpy(buf + o, digits, (size_t)nd);
        o += (size_t)nd;
    } else {
        for (int k = 0; k <= exp10; k++) buf[o++] = k < nd ? digits[k] : '0';
        if (nd > exp10 + 1) {
            buf[o++] = '.';
            memcpy(buf + o, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
            o += (size_t)(nd - exp10 - 1);
        }
    }
    buf[o] = '\0';
    return o;
}

static char *put_2d(char *p, int v)
{
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

/* Hand-written timestamp / date text, byte for byte tm_format_timestamp(tz) /
 * tm_format_date ("YYYY-MM-DD[ HH:MM:SS[.ffffff without trailing zeros]][+00][ BC]")
 * without printf. Years beyond 4 digits and infinities take timeutil's path. */
static int datetime_text(int64_t v, bool is_date, bool tz, char *buf)
{
    if (v == TM_INFINITY || v == TM_NEG_INFINITY) return -1;
    int64_t days = v, tod = 0;
    if (!is_date) {
        days = v / TM_USECS_PER_DAY;
        tod = v % TM_USECS_PER_DAY;
        if (tod < 0) { tod += TM_USECS_PER_DAY; days--; }
    }
    int64_t y;
    int m, d;
    tm_civil_from_days(days, &y, &m, &d);
    bool bc = y <= 0;
    if (bc) y = 1 - y;
    if (y > 9999) return -1;
    char *p = buf;
    p = put_2d(p, (int)(y / 100));
    p = put_2d(p, (int)(y % 100));
    *p++ = '-';
    p = put_2d(p, m);
    *p++ = '-';
    p = put_2d(p, d);
    if (!is_date) {
        int64_t secs = tod / TM_USECS_PER_SEC, usec = tod % TM_USECS_PER_SEC;
        *p++ = ' ';
        p = put_2d(p, (int)(secs / 3600));
        *p++ = ':';
        p = put_2d(p, (int)(secs / 60 % 60));
        *p++ = ':';
        p = put_2d(p, (int)(secs % 60));
        if (usec) {
            char f[6];
            for (int k = 5; k >= 0; k--) { f[k] = (char)('0' + usec % 10); usec /= 10; }
            int n = 6;
            while (n > 0 && f[n - 1] == '0') n--;
            *p++ = '.';
            memcpy(p, f, (size_t)n);
            p += n;
        }
        if (tz) { memcpy(p, "+00", 3); p += 3; }
    }
    if (bc) { memcpy(p, " BC", 3); p += 3; }
    return (int)(p - buf);
}

/* The same text appended to out (timeutil's path for what datetime_text leaves). */
static void put_datetime(int64_t v, bool is_date, bool tz, StrBuf *out)
{
    char buf[40];
    int n = datetime_text(v, is_date, tz, buf);
    if (n >= 0) sb_append(out, buf, (size_t)n);
    else if (is_date) tm_format_date(v, out);
    else if (tz) tm_format_timestamptz(v, out);
    else tm_format_timestamp(v, out);
}

/* PostgreSQL text of a non-NULL value of a type with a short text form into buf (room
 * for 64 bytes), without a StrBuf; returns its length, or -1 (use value_format_text). */
static int short_text(Type t, const Value *v, char *buf)
{
    switch ((TypeId)t.id) {
    case T_BOOL: memcpy(buf, v->i ? "true" : "false", v->i ? 4 : 5); return v->i ? 4 : 5;
    case T_INT2:
    case T_INT4:
    case T_INT8: return (int)i64_text(v->i, buf);
    case T_NUMERIC: return (int)dec_format_buf(value_num(v), v->scale, buf);
    case T_TIMESTAMP: return datetime_text(v->i, false, false, buf);
    case T_TIMESTAMPTZ: return datetime_text(v->i, false, true, buf);
    case T_DATE: return datetime_text(v->i, true, false, buf);
    default: return -1;
    }
}

void value_format_text(Type t, const Value *v, StrBuf *out)
{
    if (v->isnull) return;
    char buf[48];
    switch ((TypeId)t.id) {
    case T_BOOL: sb_puts(out, v->i ? "true" : "false"); break;
    case T_INT2:
    case T_INT4:
    case T_INT8: put_i64(out, v->i); break;
    case T_FLOAT4:
    case T_FLOAT8: sb_append(out, buf, format_float(v->f, t.id == T_FLOAT4, buf)); break;
    case T_NUMERIC: sb_append(out, buf, dec_format_buf(value_num(v), v->scale, buf)); break;
    case T_TIMESTAMP: put_datetime(v->i, false, false, out); break;
    case T_TIMESTAMPTZ: put_datetime(v->i, false, true, out); break;
    case T_DATE: put_datetime(v->i, true, false, out); break;
    case T_INTERVAL: tm_format_interval(v->iv.months, v->iv.days, v->i, out); break;
    case T_ARRAY: array_format_text(t, v, out); break;
    case T_TEXT:
    case T_UNKNOWN:
    default:
        if (v->len) sb_append(out, v->s, v->len);
        break;
    }
}

void value_format_json(Type t, const Value *v, StrBuf *out)
{
    if (v->isnull) { sb_puts(out, "null"); return; }
    switch ((TypeId)t.id) {
    case T_BOOL: sb_puts(out, v->i ? "true" : "false"); break;
    case T_INT2:
    case T_INT4:
    case T_INT8:
    case T_NUMERIC: value_format_text(t, v, out); break;
    case T_FLOAT4:
    case T_FLOAT8:
        if (isfinite(v->f)) {
            value_format_text(t, v, out);
        } else {
            sb_putc(out, '"');
            value_format_text(t, v, out);
            sb_putc(out, '"');
        }
        break;
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ:
    case T_DATE:
    case T_INTERVAL:
        /* their text never needs JSON escaping */
        sb_putc(out, '"');
        value_format_text(t, v, out);
        sb_putc(out, '"');
        break;
    case T_ARRAY: array_format_json(t, v, out); break;
    case T_JSON: if (v->len) sb_append(out, v->s, v->len); else sb_puts(out, "null"); break;
    default: sb_json_str(out, v->len ? v->s : "", v->len); break;
    }
}

/* ---- input ---- */

static bool fail(char *err, size_t errsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t errsize, const char *fmt, ...)
{
    if (err && errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsize, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Shown input in messages, cut so a huge input does not flood the message. */
#define SHOWN(len) ((int)((len) > 200 ? 200 : (len)))

static const char *int_type_word(TypeId id)
{
    return id == T_INT2 ? "smallint" : id == T_INT4 ? "integer" : "bigint";
}

static void int_limits(TypeId id, int64_t *lo, int64_t *hi)
{
    if (id == T_INT2) { *lo = INT16_MIN; *hi = INT16_MAX; }
    else if (id == T_INT4) { *lo = INT32_MIN; *hi = INT32_MAX; }
    else { *lo = INT64_MIN; *hi = INT64_MAX; }
}

/* 0 ok, 1 syntax, 2 out of range (PostgreSQL's pg_strtoint: spaces, sign, digits). */
static int parse_int(const char *s, size_t len, TypeId id, int64_t *out)
{
    trim(&s, &len);
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (i >= len) return 1;
    uint64_t acc = 0;
    bool over = false;
    for (; i < len; i++) {
        if (!is_digit(s[i])) return 1;
        if (acc > (UINT64_MAX - 9) / 10) over = true;
        else acc = acc * 10 + (uint64_t)(s[i] - '0');
    }
    int64_t lo, hi;
    int_limits(id, &lo, &hi);
    if (over) return 2;
    if (neg) {
        if (acc > (uint64_t)INT64_MAX + 1) return 2;
        int64_t v = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
        if (v < lo) return 2;
        *out = v;
    } else {
        if (acc > (uint64_t)hi) return 2;
        *out = (int64_t)acc;
    }
    return 0;
}

/* PostgreSQL's parse_bool_with_len: whole words or unique prefixes. */
static bool parse_bool(const char *s, size_t len, bool *out)
{
    trim(&s, &len);
    if (len == 0) return false;
    static const struct { const char *w; bool v; size_t minlen; } words[] = {
        {"true", true, 1}, {"false", false, 1}, {"yes", true, 1}, {"no", false, 1},
        {"on", true, 2}, {"off", false, 2}, {"1", true, 1}, {"0", false, 1},
    };
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        size_t wl = strlen(words[k].w);
        if (len < words[k].minlen || len > wl) continue;
        size_t j = 0;
        while (j < len && lower(s[j]) == words[k].w[j]) j++;
        if (j == len) { *out = words[k].v; return true; }
    }
    return false;
}

int value_parse_float(const char *s, size_t len, bool f4, double *out)
{
    char stack[128];
    trim(&s, &len);
    if (len == 0) return 1;
    char *buf = len < sizeof stack ? stack : malloc(len + 1);
    if (!buf) return 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v;
    if (f4) v = strtof(buf, &end);
    else v = strtod(buf, &end);
    int rc = 0;
    if (end == buf || (size_t)(end - buf) != len) rc = 1;
    else if (errno == ERANGE && (v == 0 || isinf(v))) rc = 2;
    if (buf != stack) free(buf);
    *out = v;
    return rc;
}

static bool is_special_float_word(const char *s, size_t len)
{
    static const char *const words[] = {"nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"};
    trim(&s, &len);
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        size_t wl = strlen(words[k]), j = 0;
        if (wl != len) continue;
        while (j < len && lower(s[j]) == words[k][j]) j++;
        if (j == len) return true;
    }
    return false;
}

/* Bytes of the first nchars UTF-8 characters of s; *chars_total counts all of them. */
static size_t utf8_prefix_bytes(const char *s, size_t len, size_t nchars, size_t *chars_total)
{
    size_t chars = 0, cut = len;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (chars == nchars) cut = i;
            chars++;
        }
    }
    *chars_total = chars;
    return chars > nchars ? cut : len;
}

static Value text_value(Arena *arena, const char *s, size_t len)
{
    if (arena) s = arena_strndup(arena, s, len);
    return value_text(s, (uint32_t)len);
}

static const char *tm_type_word(TypeId id)
{
    switch (id) {
    case T_TIMESTAMP: return "timestamp";
    case T_TIMESTAMPTZ: return "timestamp with time zone";
    case T_DATE: return "date";
    default: return "interval";
    }
}

static bool temporal_error(TypeId id, TmStatus st, const char *text, size_t len, char *err, size_t errsize)
{
    int n = SHOWN(len);
    switch (st) {
    case TM_ERR_FIELD_RANGE:
        if (id == T_INTERVAL) return fail(err, errsize, "interval field value out of range: \"%.*s\"", n, text);
        return fail(err, errsize, "date/time field value out of range: \"%.*s\"", n, text);
    case TM_ERR_TZ_RANGE:
        return fail(err, errsize, "time zone displacement out of range: \"%.*s\"", n, text);
    case TM_ERR_OUT_OF_RANGE:
        if (id == T_INTERVAL) return fail(err, errsize, "interval out of range");
        return fail(err, errsize, "%s out of range: \"%.*s\"", id == T_DATE ? "date" : "timestamp", n, text);
    default:
        return fail(err, errsize, "invalid input syntax for type %s: \"%.*s\"", tm_type_word(id), n, text);
    }
}

/* Rounds a numeric to the type's scale and checks its precision. */
static bool apply_numeric_typmod(Type t, i128 *n, int *scale, char *err, size_t errsize)
{
    if (t.precision < 0 || t.scale < 0) return true;
    i128 r;
    if (!dec_rescale(*n, *scale, t.scale, &r) || !dec_fits_precision(r, t.scale, t.precision))
        return fail(err, errsize, "numeric field overflow");
    *n = r;
    *scale = t.scale;
    return true;
}

bool value_parse(Type t, const char *text, size_t len, Arena *arena, Value *out,
                 char *err, size_t errsize)
{
    int n = SHOWN(len);
    switch ((TypeId)t.id) {
    case T_BOOL: {
        bool b;
        if (!parse_bool(text, len, &b))
            return fail(err, errsize, "invalid input syntax for type boolean: \"%.*s\"", n, text);
        *out = value_bool(b);
        return true;
    }
    case T_INT2:
    case T_INT4:
    case T_INT8: {
        int64_t v = 0;
        int rc = parse_int(text, len, (TypeId)t.id, &v);
        if (rc == 1)
            return fail(err, errsize, "invalid input syntax for type %s: \"%.*s\"", int_type_word((TypeId)t.id), n, text);
        if (rc == 2)
            return fail(err, errsize, "value \"%.*s\" is out of range for type %s", n, text, int_type_word((TypeId)t.id));
        *out = value_int(v);
        return true;
    }
    case T_FLOAT4:
    case T_FLOAT8: {
        double v = 0;
        bool f4 = t.id == T_FLOAT4;
        int rc = value_parse_float(text, len, f4, &v);
        const char *tw = f4 ? "real" : "double precision";
        if (rc == 1) return fail(err, errsize, "invalid input syntax for type %s: \"%.*s\"", tw, n, text);
        if (rc == 2) return fail(err, errsize, "\"%.*s\" is out of range for type %s", n, text, tw);
        *out = value_float(v);
        return true;
    }
    case T_NUMERIC: {
        i128 v;
        int scale;
        bool syntax_ok;
        bool ok = dec_parse_ex(text, len, &v, &scale, &syntax_ok);
        if (!syntax_ok) {
            if (is_special_float_word(text, len))
                return fail(err, errsize, "invalid input syntax for type numeric: \"%.*s\" "
                            "(weir's numeric has no NaN or Infinity)", n, text);
            return fail(err, errsize, "invalid input syntax for type numeric: \"%.*s\"", n, text);
        }
        if (t.precision >= 0 && t.scale >= 0) {
            /* one rounding step from the exact input to the type's scale */
            if (!dec_parse_scale(text, len, t.scale, &v) || !dec_fits_precision(v, t.scale, t.precision))
                return fail(err, errsize, "numeric field overflow");
            scale = t.scale;
        } else if (!ok) {
            return fail(err, errsize, "value overflows numeric format");
        }
        *out = value_numeric(v, scale);
        return true;
    }
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ: {
        int64_t ts;
        TmStatus st = tm_parse_timestamp_status(text, len, t.id == T_TIMESTAMPTZ, &ts);
        if (st != TM_OK) return temporal_error((TypeId)t.id, st, text, len, err, errsize);
        *out = value_int(ts);
        return true;
    }
    case T_DATE: {
        int64_t d;
        TmStatus st = tm_parse_date_status(text, len, &d);
        if (st != TM_OK) return temporal_error(T_DATE, st, text, len, err, errsize);
        *out = value_int(d);
        return true;
    }
    case T_INTERVAL: {
        int32_t months, days;
        int64_t micros;
        TmStatus st = tm_parse_interval_status(text, len, &months, &days, &micros);
        if (st != TM_OK) return temporal_error(T_INTERVAL, st, text, len, err, errsize);
        *out = value_interval(months, days, micros);
        return true;
    }
    case T_ARRAY: return array_parse(t, text, len, arena, out, err, errsize);
    case T_JSON: return json_parse(text, len, arena, out, err, errsize);
    case T_TEXT:
    case T_UNKNOWN:
    default: {
        if (len > UINT32_MAX) return fail(err, errsize, "text value too long");
        size_t keep = len;
        if (t.id == T_TEXT && t.precision >= 0) {
            size_t chars;
            keep = utf8_prefix_bytes(text, len, (size_t)t.precision, &chars);
            for (size_t i = keep; i < len; i++)
                if (text[i] != ' ')
                    return fail(err, errsize, "value too long for type character varying(%d)", t.precision);
        }
        *out = text_value(arena, text, keep);
        return true;
    }
    }
}

/* ---- casts ---- */

/* Type name without its modifier, as PostgreSQL words cast errors. */
static const char *base_type_name(Type t, char *buf, size_t bufsize)
{
    if (t.id == T_TEXT && t.precision >= 0) return "character varying";
    if (t.id == T_ARRAY) {
        char eb[48];
        snprintf(buf, bufsize, "%s[]", base_type_name(type_elem(t), eb, sizeof eb));
        return buf;
    }
    return type_name(type_make((TypeId)t.id), buf, bufsize);
}

static bool cannot_cast(Type from, Type to, char *err, size_t errsize)
{
    char a[48], b[48];
    return fail(err, errsize, "cannot cast type %s to %s", base_type_name(from, a, sizeof a),
                base_type_name(to, b, sizeof b));
}

static bool to_text(Type from, Type to, const Value *in, Arena *arena, Value *out)
{
    const char *s;
    size_t len;
    StrBuf sb = STRBUF_INIT;
    char buf[64];
    int n;
    if (from.id == T_TEXT || from.id == T_UNKNOWN) {
        s = in->len ? in->s : "";
        len = in->len;
    } else if ((n = short_text(from, in, buf)) >= 0) {
        s = buf;
        len = (size_t)n;
    } else {
        value_format_text(from, in, &sb);
        s = sb.len ? sb.data : "";
        len = sb.len;
    }
    if (to.precision >= 0) {   /* explicit cast to varchar(n) truncates */
        size_t chars;
        len = utf8_prefix_bytes(s, len, (size_t)to.precision, &chars);
    }
    if (sb.data || s == buf || arena) *out = text_value(arena, s, len);   /* formatted text must be copied */
    else *out = value_text(s, (uint32_t)len);
    sb_free(&sb);
    return true;
}

static bool int_in_range(TypeId id, int64_t v)
{
    int64_t lo, hi;
    int_limits(id, &lo, &hi);
    return v >= lo && v <= hi;
}

bool value_cast(Type from, Type to, const Value *in, Arena *arena, Value *out,
                char *err, size_t errsize)
{
    if (in->isnull) { *out = value_null(); return true; }
    TypeId f = (TypeId)from.id, t = (TypeId)to.id;
    bool from_text = f == T_TEXT || f == T_UNKNOWN;
    if (t == T_TEXT || t == T_UNKNOWN) return to_text(from, to, in, arena, out);
    if (from_text) return value_parse(to, in->len ? in->s : "", in->len, arena, out, err, errsize);
    if (t == T_ARRAY) {
        if (f != T_ARRAY) return cannot_cast(from, to, err, errsize);
        return array_cast(from, to, in, arena, out, err, errsize);
    }

    switch (t) {
    case T_BOOL:
        if (f == T_BOOL) { *out = *in; return true; }
        if (f == T_INT4) { *out = value_bool(in->i != 0); return true; }
        return cannot_cast(from, to, err, errsize);
    case T_INT2:
    case T_INT4:
    case T_INT8: {
        int64_t v;
        if (f == T_BOOL) {
            if (t != T_INT4) return cannot_cast(from, to, err, errsize);
            v = in->i ? 1 : 0;
        } else if (type_is_integer(from)) {
            v = in->i;
        } else if (f == T_FLOAT4 || f == T_FLOAT8) {
            double r = rint(in->f);   /* round half to even, as PostgreSQL */
            if (isnan(r) || !(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
                return fail(err, errsize, "%s out of range", int_type_word(t));
            v = (int64_t)r;
        } else if (f == T_NUMERIC) {
            i128 r;
            if (!dec_rescale(value_num(in), in->scale, 0, &r) || r > INT64_MAX || r < INT64_MIN)
                return fail(err, errsize, "%s out of range", int_type_word(t));
            v = (int64_t)r;
        } else {
            return cannot_cast(from, to, err, errsize);
        }
        if (!int_in_range(t, v)) return fail(err, errsize, "%s out of range", int_type_word(t));
        *out = value_int(v);
        return true;
    }
    case T_FLOAT4:
    case T_FLOAT8: {
        double v;
        if (type_is_integer(from)) v = (double)in->i;
        else if (f == T_FLOAT4 || f == T_FLOAT8) v = in->f;
        else if (f == T_NUMERIC) {
            if (t == T_FLOAT4) {
                char buf[DEC_FMT_BUFSIZE];
                dec_format_buf(value_num(in), in->scale, buf);
                v = strtof(buf, NULL);   /* one correct rounding, as numeric_float4 */
            } else {
                v = dec_to_double(value_num(in), in->scale);
            }
        } else return cannot_cast(from, to, err, errsize);
        if (t == T_FLOAT4) {
            if (type_is_integer(from)) {
                v = (float)in->i;
            } else if (f == T_FLOAT8) {
                float r = (float)v;
                if (isinf(r) && !isinf(v)) return fail(err, errsize, "value out of range: overflow");
                if (r == 0.0f && v != 0.0) return fail(err, errsize, "value out of range: underflow");
                v = r;
            }
        }
        *out = value_float(v);
        return true;
    }
    case T_NUMERIC: {
        i128 n;
        int scale;
        if (type_is_integer(from)) {
            n = in->i;
            scale = 0;
        } else if (f == T_NUMERIC) {
            n = value_num(in);
            scale = in->scale;
        } else if (f == T_FLOAT4 || f == T_FLOAT8) {
            if (isnan(in->f)) return fail(err, errsize, "cannot convert NaN to numeric");
            if (isinf(in->f))
                return fail(err, errsize, to.precision >= 0 ? "numeric field overflow"
                                                            : "cannot convert infinity to numeric");
            /* PostgreSQL goes through %.15g (float4: %.6g) text, rounding once to the scale */
            int digits = f == T_FLOAT4 ? 6 : 15;
            int target = to.precision >= 0 && to.scale >= 0 ? to.scale : -1;
            if (!dec_from_double_ex(in->f, digits, target, &n, &scale))
                return fail(err, errsize, target >= 0 ? "numeric field overflow" : "value overflows numeric format");
        } else {
            return cannot_cast(from, to, err, errsize);
        }
        if (!apply_numeric_typmod(to, &n, &scale, err, errsize)) return false;
        *out = value_numeric(n, scale);
        return true;
    }
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ:
        if (f == T_TIMESTAMP || f == T_TIMESTAMPTZ) { *out = value_int(in->i); return true; }
        if (f == T_DATE) {
            int64_t ts;
            if (!tm_date_to_timestamp(in->i, &ts)) return fail(err, errsize, "date out of range for timestamp");
            *out = value_int(ts);
            return true;
        }
        return cannot_cast(from, to, err, errsize);
    case T_DATE:
        if (f == T_DATE) { *out = value_int(in->i); return true; }
        if (f == T_TIMESTAMP || f == T_TIMESTAMPTZ) { *out = value_int(tm_timestamp_to_date(in->i)); return true; }
        return cannot_cast(from, to, err, errsize);
    case T_INTERVAL:
        if (f == T_INTERVAL) { *out = *in; return true; }
        return cannot_cast(from, to, err, errsize);
    default:
        return cannot_cast(from, to, err, errsize);
    }
}
