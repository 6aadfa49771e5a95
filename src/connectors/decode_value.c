/* Scalar conversion shared by the record decoders: text (a JSON string's content or
 * a CSV field) into a typed Value, with hand-written fast paths for the hot types
 * (integers, plain decimals, canonical timestamps and dates) and value_parse for every
 * other spelling. Also the type labels and value descriptions used in messages. */
#include "connectors/decode.h"

#include "base/decimal.h"
#include "base/timeutil.h"

#include <float.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *conn_type_label(Type t)
{
    switch ((TypeId)t.id) {
    case T_BOOL: return "boolean";
    case T_INT2: return "smallint";
    case T_INT4: return "integer";
    case T_INT8: return "bigint";
    case T_FLOAT4: return "real";
    case T_FLOAT8: return "double precision";
    case T_NUMERIC: return "numeric";
    case T_TEXT: return t.precision > 0 ? "character varying" : "text";
    case T_TIMESTAMP: return "timestamp";
    case T_TIMESTAMPTZ: return "timestamp with time zone";
    case T_DATE: return "date";
    case T_INTERVAL: return "interval";
    case T_JSON: return "json";
    case T_ARRAY: {
        /* an array of a scalar type: its element's label with [] (static strings) */
        static const char *const arr[T__COUNT] = {
            [T_BOOL] = "boolean[]", [T_INT2] = "smallint[]", [T_INT4] = "integer[]", [T_INT8] = "bigint[]",
            [T_FLOAT4] = "real[]", [T_FLOAT8] = "double precision[]", [T_NUMERIC] = "numeric[]", [T_TEXT] = "text[]",
            [T_TIMESTAMP] = "timestamp[]", [T_TIMESTAMPTZ] = "timestamp with time zone[]", [T_DATE] = "date[]",
            [T_INTERVAL] = "interval[]",
        };
        return t.elem < T__COUNT && arr[t.elem] ? arr[t.elem] : "array";
    }
    default: return "unknown";
    }
}

const char *conn_type_text(Type t, char *buf, size_t bufsize)
{
    if (t.id == T_NUMERIC && t.precision > 0) {
        if (t.scale >= 0) snprintf(buf, bufsize, "numeric(%d,%d)", t.precision, t.scale);
        else snprintf(buf, bufsize, "numeric(%d)", t.precision);
    } else if (t.id == T_TEXT && t.precision > 0) {
        snprintf(buf, bufsize, "character varying(%d)", t.precision);
    } else {
        snprintf(buf, bufsize, "%s", conn_type_label(t));
    }
    return buf;
}

static void col_err(char *err, size_t errsize, const char *col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void col_err(char *err, size_t errsize, const char *col, const char *fmt, ...)
{
    if (!err || errsize == 0) return;
    int n = snprintf(err, errsize, "column %s: ", col ? col : "?");
    if (n < 0 || (size_t)n >= errsize) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errsize - (size_t)n, fmt, ap);
    va_end(ap);
}

void conn_describe_string(const char *s, size_t len, char *buf, size_t bufsize)
{
    static const char hex[] = "0123456789abcdef";
    const size_t limit = 40;
    size_t o = 0;
    if (bufsize < 16) { if (bufsize) buf[0] = '\0'; return; }
    const char *prefix = "string \"";
    size_t pl = strlen(prefix);
    memcpy(buf, prefix, pl);
    o = pl;
    size_t i = 0;
    for (; i < len && i < limit; i++) {
        unsigned char c = (unsigned char)s[i];
        if (o + 8 >= bufsize) break;
        if (c == '"' || c == '\\') { buf[o++] = '\\'; buf[o++] = (char)c; }
        else if (c < 0x20 || c == 0x7f) {
            buf[o++] = '\\'; buf[o++] = 'u'; buf[o++] = '0'; buf[o++] = '0';
            buf[o++] = hex[c >> 4]; buf[o++] = hex[c & 15];
        } else buf[o++] = (char)c;
    }
    bool cut = i < len;
    if (cut) {
        /* do not leave half of a UTF-8 sequence behind */
        while (o > pl && ((unsigned char)buf[o - 1] & 0xC0) == 0x80) o--;
        if (o > pl && ((unsigned char)buf[o - 1] & 0xC0) == 0xC0) o--;
    }
    const char *tail = cut ? "...\"" : "\"";
    size_t tl = strlen(tail);
    if (o + tl + 1 > bufsize) o = bufsize - tl - 1;
    memcpy(buf + o, tail, tl + 1);
}

static inline bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **s, size_t *len)
{
    const char *p = *s;
    size_t n = *len;
    while (n && is_space(*p)) p++, n--;
    while (n && is_space(p[n - 1])) n--;
    *s = p;
    *len = n;
}

static bool int_in_range(TypeId id, i128 v)
{
    switch (id) {
    case T_INT2: return v >= INT16_MIN && v <= INT16_MAX;
    case T_INT4: return v >= INT32_MIN && v <= INT32_MAX;
    default: return v >= INT64_MIN && v <= INT64_MAX;
    }
}

int conn_parse_integer(Type t, const char *s, size_t len, int64_t *out)
{
    /* PostgreSQL's int2/int4/int8 input: [spaces][+-]digits[spaces], nothing else (not
     * "12.0", not "1e3": those are numerics) */
    trim(&s, &len);
    size_t i = 0;
    bool neg = false;
    if (len && (s[0] == '-' || s[0] == '+')) neg = s[0] == '-', i = 1;
    size_t start = i;
    while (i < len && s[i] == '0') i++; /* leading zeros do not count towards the range */
    size_t sig = i;
    uint64_t u = 0; /* 19 digits fit */
    for (; i < len; i++) {
        if ((unsigned)(s[i] - '0') >= 10) return 0;
        if (i - sig < 19) u = u * 10 + (uint64_t)(s[i] - '0');
    }
    if (len == start) return 0;
    if (len - sig > 19) return -1;
    i128 v = neg ? -(i128)u : (i128)u;
    if (!int_in_range((TypeId)t.id, v)) return -1;
    *out = (int64_t)v;
    return 1;
}

int conn_parse_numeric(Type t, const char *s, size_t len, Value *out)
{
    trim(&s, &len);
    if (len == 0) return 0;
    /* fast path: [-]digits[.digits] with at most 18 digits and no rounding needed */
    {
        size_t i = 0;
        bool neg = false;
        if (s[0] == '-' || s[0] == '+') neg = s[0] == '-', i = 1;
        uint64_t m = 0;
        int digits = 0, frac = 0;
        size_t int_start = i;
        while (i < len && (unsigned)(s[i] - '0') < 10 && digits < 19) m = m * 10 + (uint64_t)(s[i++] - '0'), digits++;
        bool ok = i > int_start && digits < 19;
        if (ok && i < len && s[i] == '.') {
            size_t fs = ++i;
            while (i < len && (unsigned)(s[i] - '0') < 10 && digits < 19) m = m * 10 + (uint64_t)(s[i++] - '0'), digits++;
            frac = (int)(i - fs);
            ok = frac > 0 && digits < 19;
        }
        if (ok && i == len) {
            int scale = t.scale < 0 ? frac : t.scale;
            if (frac <= scale && scale <= DEC_MAX_SCALE && digits - frac + scale <= DEC_MAX_DIGITS) {
                i128 n = (i128)m * dec_pow10(scale - frac);
                if (neg) n = -n;
                if (t.precision > 0 && !dec_fits_precision(n, scale, t.precision)) return -1;
                *out = value_numeric(n, scale);
                return 1;
            }
        }
    }
    i128 n;
    int scale;
    bool syntax_ok;
    if (t.scale < 0) {
        /* unconstrained: the exact value or nothing (PostgreSQL keeps up to 1000 digits;
         * rounding to weir's 38 would change the value silently) */
        int r = dec_parse_exact(s, len, &n, &scale);
        if (r <= 0) return r;
    } else {
        scale = t.scale;
        if (!dec_parse_scale(s, len, scale, &n)) {
            i128 n2;
            int s2;
            dec_parse_ex(s, len, &n2, &s2, &syntax_ok);
            return syntax_ok ? -1 : 0;
        }
    }
    if (t.precision > 0 && !dec_fits_precision(n, scale, t.precision)) return -1;
    *out = value_numeric(n, scale);
    return 1;
}

static inline int dig2(const char *p) { return (p[0] - '0') * 10 + (p[1] - '0'); }
static inline bool isdig(char c) { return (unsigned)(c - '0') < 10; }

static bool parse_ymd(const char *s, int *y, int *m, int *d)
{
    if (!isdig(s[0]) || !isdig(s[1]) || !isdig(s[2]) || !isdig(s[3]) || s[4] != '-' ||
        !isdig(s[5]) || !isdig(s[6]) || s[7] != '-' || !isdig(s[8]) || !isdig(s[9]))
        return false;
    *y = dig2(s) * 100 + dig2(s + 2);
    *m = dig2(s + 5);
    *d = dig2(s + 8);
    if (*y < 1 || *m < 1 || *m > 12 || *d < 1) return false;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int md = mdays[*m - 1];
    if (*m == 2 && ((*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0)) md = 29;
    return *d <= md;
}

bool conn_fast_date(const char *s, size_t len, int32_t *days)
{
    int y, m, d;
    if (len != 10 || !parse_ymd(s, &y, &m, &d)) return false;
    *days = (int32_t)tm_days_from_civil(y, m, d);
    return true;
}

bool conn_fast_timestamp(const char *s, size_t len, int64_t *us)
{
    if (len < 19 || len > 26 || len == 20) return false;
    int y, mo, d;
    if (!parse_ymd(s, &y, &mo, &d)) return false;
    if ((s[10] != ' ' && s[10] != 'T') || !isdig(s[11]) || !isdig(s[12]) || s[13] != ':' ||
        !isdig(s[14]) || !isdig(s[15]) || s[16] != ':' || !isdig(s[17]) || !isdig(s[18]))
        return false;
    int h = dig2(s + 11), mi = dig2(s + 14), sec = dig2(s + 17);
    if (h > 23 || mi > 59 || sec > 59) return false;
    int64_t frac = 0;
    if (len > 19) {
        if (s[19] != '.') return false;
        int nd = 0;
        for (size_t i = 20; i < len; i++) {
            if (!isdig(s[i])) return false;
            frac = frac * 10 + (s[i] - '0');
            nd++;
        }
        for (; nd < 6; nd++) frac *= 10;
    }
    int64_t days = tm_days_from_civil(y, mo, d);
    *us = ((days * 86400 + h * 3600 + mi * 60 + sec) * 1000000) + frac;
    return true;
}

/* PostgreSQL's documented float input: [spaces][+-](digits[.digits]|.digits)
 * [e[+-]digits][spaces], or NaN, Infinity, inf (any case, signed). The C
 * library's strtod, which converts the value, also reads hexadecimal floats ("0x10")
 * and "nan(...)", which PostgreSQL on glibc therefore takes too; weir does not. */
static bool float_syntax(const char *s, size_t len)
{
    trim(&s, &len);
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    size_t rest = len - i;
    static const char *const words[] = {"nan", "infinity", "inf"};
    for (size_t w = 0; w < 3; w++)
        if (rest == strlen(words[w]) && strncasecmp(s + i, words[w], rest) == 0) return true;
    size_t digits = 0;
    while (i < len && isdig(s[i])) i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && isdig(s[i])) i++, digits++;
    }
    if (digits == 0) return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= len || !isdig(s[i])) return false;
        while (i < len && isdig(s[i])) i++;
    }
    return i == len;
}

/* PostgreSQL's parse_bool: unique prefixes of true/false/yes/no, on/off, 1/0. */
static int parse_bool(const char *s, size_t len)
{
    trim(&s, &len);
    if (len == 0) return -1;
    char low[8];
    if (len >= sizeof low) return -1;
    for (size_t i = 0; i < len; i++) low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    low[len] = '\0';
    switch (low[0]) {
    case 't': return strncmp(low, "true", len) == 0 && len <= 4 ? 1 : -1;
    case 'f': return strncmp(low, "false", len) == 0 && len <= 5 ? 0 : -1;
    case 'y': return strncmp(low, "yes", len) == 0 && len <= 3 ? 1 : -1;
    case 'n': return strncmp(low, "no", len) == 0 && len <= 2 ? 0 : -1;
    case 'o':
        if (len >= 2 && len <= 2 && strncmp(low, "on", len) == 0) return 1;
        if (len >= 2 && len <= 3 && strncmp(low, "off", len) == 0) return 0;
        return -1;
    case '1': return len == 1 ? 1 : -1;
    case '0': return len == 1 ? 0 : -1;
    default: return -1;
    }
}

/* varchar(n): at most n characters; excess trailing spaces are cut as PostgreSQL does.
 * Returns the accepted byte length or -1. */
static long varchar_fit(const char *s, size_t len, int n)
{
    if (len <= (size_t)n) return (long)len;
    size_t chars = 0, i = 0;
    for (; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (chars == (size_t)n) break;
            chars++;
        }
    }
    for (size_t j = i; j < len; j++)
        if (s[j] != ' ') return -1;
    return (long)i;
}

/* What was found, for messages: string "abc", or number 12.5 for a JSON number. */
static void describe(bool number, const char *s, size_t len, char *buf, size_t bufsize)
{
    if (!number) conn_describe_string(s, len, buf, bufsize);
    else if (len > 40) snprintf(buf, bufsize, "number %.40s...", s);
    else snprintf(buf, bufsize, "number %.*s", (int)len, s);
}

bool conn_parse_text(Type t, const char *col, const char *s, size_t len, Arena *arena,
                     bool copy, Value *out, char *err, size_t errsize)
{
    return conn_parse_token(t, col, s, len, false, arena, copy, out, err, errsize);
}

bool conn_parse_token(Type t, const char *col, const char *s, size_t len, bool number, Arena *arena,
                      bool copy, Value *out, char *err, size_t errsize)
{
    char tbuf[64], dbuf[96];
    switch ((TypeId)t.id) {
    case T_TEXT: {
        if (t.precision > 0) {
            long fit = varchar_fit(s, len, t.precision);
            if (fit < 0) {
                col_err(err, errsize, col, "value too long for type %s", conn_type_text(t, tbuf, sizeof tbuf));
                return false;
            }
            len = (size_t)fit;
        }
        if (len > UINT32_MAX) {
            col_err(err, errsize, col, "value too long (%zu bytes)", len);
            return false;
        }
        *out = value_text(copy ? arena_strndup(arena, s, len) : s, (uint32_t)len);
        return true;
    }
    case T_BOOL: {
        int b = parse_bool(s, len);
        if (b < 0) {
            describe(number, s, len, dbuf, sizeof dbuf);
            col_err(err, errsize, col, "expected boolean, found %s", dbuf);
            return false;
        }
        *out = value_bool(b == 1);
        return true;
    }
    case T_INT2: case T_INT4: case T_INT8: {
        int64_t v;
        int r = conn_parse_integer(t, s, len, &v);
        if (r == 1) { *out = value_int(v); return true; }
        if (r < 0) col_err(err, errsize, col, "value out of range for %s", conn_type_label(t));
        else {
            describe(number, s, len, dbuf, sizeof dbuf);
            col_err(err, errsize, col, "expected %s, found %s", conn_type_label(t), dbuf);
        }
        return false;
    }
    case T_NUMERIC: {
        int r = conn_parse_numeric(t, s, len, out);
        if (r == 1) return true;
        if (r < 0 && t.scale < 0)
            col_err(err, errsize, col, "value out of range for numeric: weir's numeric holds 38 digits, at most 38 "
                                       "of them after the point");
        else if (r < 0)
            col_err(err, errsize, col, "value out of range for %s", conn_type_text(t, tbuf, sizeof tbuf));
        else {
            describe(number, s, len, dbuf, sizeof dbuf);
            col_err(err, errsize, col, "expected numeric, found %s", dbuf);
        }
        return false;
    }
    case T_FLOAT4: case T_FLOAT8: {
        double d;
        int r = float_syntax(s, len) ? value_parse_float(s, len, t.id == T_FLOAT4, &d) : 1;
        if (r == 0) { *out = value_float(d); return true; }
        if (r == 2) col_err(err, errsize, col, "value out of range for %s", conn_type_label(t));
        else {
            describe(number, s, len, dbuf, sizeof dbuf);
            col_err(err, errsize, col, "expected %s, found %s", conn_type_label(t), dbuf);
        }
        return false;
    }
    case T_TIMESTAMP: {
        int64_t us;
        if (conn_fast_timestamp(s, len, &us)) { *out = value_int(us); return true; }
        break;
    }
    case T_DATE: {
        int32_t days;
        if (conn_fast_date(s, len, &days)) { *out = value_int(days); return true; }
        break;
    }
    default:
        break;
    }
    char msg[200];
    msg[0] = '\0';
    if (value_parse(t, s, len, arena, out, msg, sizeof msg)) return true;
    if (msg[0]) col_err(err, errsize, col, "%s", msg);
    else {
        describe(number, s, len, dbuf, sizeof dbuf);
        col_err(err, errsize, col, "expected %s, found %s", conn_type_label(t), dbuf);
    }
    return false;
}

/* What an encoded integer counts, for messages. */
static const char *encoding_unit(ColumnEncoding e)
{
    switch (e) {
    case COL_ENC_EPOCH_S: return "seconds since 1970-01-01 00:00:00 UTC";
    case COL_ENC_EPOCH_MS: return "milliseconds since 1970-01-01 00:00:00 UTC";
    case COL_ENC_EPOCH_US: return "microseconds since 1970-01-01 00:00:00 UTC";
    case COL_ENC_EPOCH_NS: return "nanoseconds since 1970-01-01 00:00:00 UTC";
    case COL_ENC_EPOCH_DAYS: return "days since 1970-01-01";
    case COL_ENC_TIME_MS: return "milliseconds since midnight";
    case COL_ENC_TIME_US: return "microseconds since midnight";
    case COL_ENC_TIME_NS: return "nanoseconds since midnight";
    default: return "text";
    }
}

/* floor(v / d) for d > 0 */
static int64_t floor_div(int64_t v, int64_t d) { return v / d - (v % d != 0 && v < 0); }

bool conn_parse_encoded(Type t, ColumnEncoding enc, const char *col, const char *s, size_t len, ConnTokKind kind,
                        Value *out, char *err, size_t errsize)
{
    char dbuf[96];
    const char *ename = column_encoding_name(enc);
    if (kind == CONN_TOK_STRING) {
        conn_describe_string(s, len, dbuf, sizeof dbuf);
        col_err(err, errsize, col, "expected a number (%s: %s), found %s", ename, encoding_unit(enc), dbuf);
        return false;
    }
    int64_t v;
    int r = conn_parse_integer(type_make(T_INT8), s, len, &v);
    if (r == 0) {
        describe(kind == CONN_TOK_NUMBER, s, len, dbuf, sizeof dbuf);
        col_err(err, errsize, col, "expected an integer (%s: %s), found %s", ename, encoding_unit(enc), dbuf);
        return false;
    }
    const char *what = t.id == T_DATE ? "date" : t.id == T_INTERVAL ? "time of day" : "timestamp";
    if (r < 0) goto range;
    int64_t us;
    switch (enc) {
    case COL_ENC_EPOCH_S:
        if (__builtin_mul_overflow(v, TM_USECS_PER_SEC, &us)) goto range;
        break;
    case COL_ENC_EPOCH_MS:
    case COL_ENC_TIME_MS:
        if (__builtin_mul_overflow(v, INT64_C(1000), &us)) goto range;
        break;
    case COL_ENC_EPOCH_US:
    case COL_ENC_TIME_US: us = v; break;
    case COL_ENC_EPOCH_NS:
    case COL_ENC_TIME_NS: us = floor_div(v, 1000); break;
    case COL_ENC_EPOCH_DAYS:
        if (t.id == T_DATE) {
            if (!tm_date_valid(v)) goto range;
            *out = value_int(v);
            return true;
        }
        if (!tm_date_valid(v) || !tm_date_to_timestamp(v, &us)) goto range;
        break;
    default:
        col_err(err, errsize, col, "encoding %s cannot be read", ename);
        return false;
    }
    if (t.id == T_INTERVAL) {
        /* a time of day: 00:00:00 to 24:00:00, as PostgreSQL's time */
        if (us < 0 || us > TM_USECS_PER_DAY || (enc == COL_ENC_TIME_NS && v > TM_USECS_PER_DAY * 1000)) goto range;
        *out = value_interval(0, 0, us);
        return true;
    }
    if (!tm_timestamp_valid(us)) goto range;
    *out = value_int(us);
    return true;
range:
    if (len > 40) col_err(err, errsize, col, "%s out of range: %s %.40s...", what, ename, s);
    else col_err(err, errsize, col, "%s out of range: %s %.*s", what, ename, (int)len, s);
    return false;
}
