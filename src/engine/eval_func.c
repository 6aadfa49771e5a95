/* The scalar function library behind EX_FUNC: string functions (character-based on
 * UTF-8), math on integers, floats and exact numerics, date_trunc and extract, all
 * with PostgreSQL 15 semantics and error wording. Functions returning a piece of an
 * input text (substring, trim, left/right, split_part, an unchanged lower/upper or
 * replace) point into that input instead of copying; new text goes to ctx->arena.
 *
 * Argument conventions (what the binder produces; PostgreSQL's own argument order):
 *   lower/upper/length(text); substring(text, int start [, int count]);
 *   btrim/ltrim/rtrim(text [, text characters]) (default: spaces);
 *   concat(any...), concat_ws(text sep, any...) (non-text arguments are printed);
 *   split_part(text, text delimiter, int field); replace(text, text from, text to);
 *   position(text string, text substring) = strpos (PostgreSQL parses
 *     `position(sub IN str)` into position(str, sub));
 *   left/right(text, int); abs/sign/sqrt/floor/ceil(x); round/trunc(x [, int digits]);
 *   mod(a, b); power(a, b) with both arguments of one numeric type (an integer or
 *   float exponent of a numeric base is accepted too);
 *   date_trunc(text unit, timestamp | timestamptz | date | interval);
 *   extract(text unit, timestamp | timestamptz | date | interval) -> numeric.
 * The unit argument may be any text expression (usually a constant); it is
 * case-insensitive. The result is produced in the argument's type and converted to
 * e->type when the binder typed the call differently (e.g. round(int) -> float8). */
#include "engine/eval_internal.h"

#include "base/decimal.h"
#include "base/timeutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>

static const char *func_name(int f)
{
    static const char *const names[FN__COUNT] = {
        "lower", "upper", "length", "substring", "btrim", "ltrim", "rtrim",
        "concat", "concat_ws", "split_part", "replace", "position", "left", "right",
        "abs", "round", "trunc", "floor", "ceil", "mod", "sign", "sqrt", "power",
        "date_trunc", "extract", "make_interval",
    };
    return f >= 0 && f < FN__COUNT ? names[f] : "?";
}

static bool overflow_numeric(EvalCtx *ctx) { return eval_fail(ctx, "value overflows numeric format"); }

/* ---- UTF-8 character positions ---- */

/* Byte offset after skipping k characters from the start of s (n bytes). */
static size_t skip_chars(const unsigned char *s, size_t n, int64_t k)
{
    size_t i = 0;
    while (k > 0 && i < n) {
        i += utf8_charlen(s + i, n - i);
        k--;
    }
    return i;
}

static int64_t count_chars(const unsigned char *s, size_t n)
{
    int64_t c = 0;
    for (size_t i = 0; i < n; i++) c += (s[i] & 0xC0) != 0x80;
    return c;
}

static inline Value slice(const Value *v, size_t from, size_t to)
{
    return value_text(v->s + from, (uint32_t)(to - from));
}

/* ---- string functions ---- */

static bool fn_case(const Value *v, bool upper, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len, i = 0, adv;
    /* Find the first character that changes; an unchanged text is returned as is. */
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            if (upper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z')) break;
            i++;
            continue;
        }
        uint32_t cp = utf8_decode(s + i, n - i, &adv);
        if (adv > 1 && (upper ? eval_upper_cp(cp) : eval_lower_cp(cp)) != cp) break;
        i += adv;
    }
    if (i == n) { *out = *v; return true; }
    char *d = arena_alloc_raw(ctx->arena, n);
    memcpy(d, s, i);
    size_t j = i;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            d[j++] = (char)(upper ? ((c >= 'a' && c <= 'z') ? c - 32 : c)
                                  : ((c >= 'A' && c <= 'Z') ? c + 32 : c));
            i++;
            continue;
        }
        uint32_t cp = utf8_decode(s + i, n - i, &adv);
        if (adv == 1) { d[j++] = (char)c; i++; continue; }   /* invalid byte: keep it */
        j += utf8_encode(upper ? eval_upper_cp(cp) : eval_lower_cp(cp), d + j);
        i += adv;
    }
    *out = value_text(d, (uint32_t)j);
    return true;
}

/* substring(s from start [for count]), PostgreSQL's text_substring. */
static bool fn_substring(const Value *v, int64_t start, bool has_count, int64_t count, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len;
    int64_t s1 = start < 1 ? 1 : start;
    size_t from = skip_chars(s, n, s1 - 1), to = n;
    if (has_count) {
        if (count < 0) return eval_fail(ctx, "negative substring length not allowed");
        int64_t end;
        if (!__builtin_add_overflow(start, count, &end)) {   /* overflow: runs to the end */
            if (end < 1 || end <= s1) { *out = value_text(v->s, 0); return true; }
            to = from + skip_chars(s + from, n - from, end - s1);
        }
    }
    *out = slice(v, from, to);
    return true;
}

/* Whether the character s[0..clen) occurs in the trim set. */
static bool in_set(const unsigned char *c, size_t clen, const Value *set)
{
    const unsigned char *p = (const unsigned char *)set->s;
    size_t m = set->len;
    if (clen == 1) return memchr(p, c[0], m) != NULL;
    for (size_t i = 0; i < m;) {
        size_t l = utf8_charlen(p + i, m - i);
        if (l == clen && memcmp(p + i, c, clen) == 0) return true;
        i += l;
    }
    return false;
}

static void fn_trim(const Value *v, const Value *set, bool left, bool right, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t i = 0, j = v->len;
    if (left) {
        while (i < j) {
            size_t l = utf8_charlen(s + i, j - i);
            if (!in_set(s + i, l, set)) break;
            i += l;
        }
    }
    if (right) {
        while (j > i) {
            size_t k = j - 1;
            while (k > i && (s[k] & 0xC0) == 0x80) k--;
            if (!in_set(s + k, j - k, set)) break;
            j = k;
        }
    }
    *out = slice(v, i, j);
}

static const unsigned char *find(const unsigned char *h, size_t hn, const Value *needle)
{
    return memmem(h, hn, needle->s, needle->len);
}

static bool fn_split_part(const Value *v, const Value *delim, int64_t field, EvalCtx *ctx, Value *out)
{
    if (field == 0) return eval_fail(ctx, "field position must not be zero");
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len, dl = delim->len;
    *out = value_text(v->s, 0);
    if (n == 0) return true;
    if (dl == 0) {
        if (field == 1 || field == -1) *out = *v;
        return true;
    }
    if (field < 0) {
        int64_t fields = 1;
        for (const unsigned char *p = s, *h; (h = find(p, n - (size_t)(p - s), delim)); p = h + dl) fields++;
        field = fields + field + 1;
        if (field <= 0) return true;
    }
    size_t start = 0;
    for (int64_t f = 1; f < field; f++) {
        const unsigned char *h = find(s + start, n - start, delim);
        if (!h) return true;
        start = (size_t)(h - s) + dl;
    }
    const unsigned char *h = find(s + start, n - start, delim);
    *out = slice(v, start, h ? (size_t)(h - s) : n);
    return true;
}

static bool fn_replace(const Value *v, const Value *from, const Value *to, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len, fl = from->len;
    *out = *v;
    if (n == 0 || fl == 0) return true;
    size_t hits = 0;
    for (const unsigned char *p = s, *h; (h = find(p, n - (size_t)(p - s), from)); p = h + fl) hits++;
    if (hits == 0) return true;
    size_t total = n - hits * fl + hits * to->len;
    if (total > UINT32_MAX) return eval_fail(ctx, "requested length too large");
    char *d = arena_alloc_raw(ctx->arena, total ? total : 1);
    size_t j = 0;
    const unsigned char *p = s, *h;
    while ((h = find(p, n - (size_t)(p - s), from))) {
        memcpy(d + j, p, (size_t)(h - p));
        j += (size_t)(h - p);
        memcpy(d + j, to->s, to->len);
        j += to->len;
        p = h + fl;
    }
    memcpy(d + j, p, n - (size_t)(p - s));
    *out = value_text(d, (uint32_t)total);
    return true;
}

static void fn_position(const Value *v, const Value *sub, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    const unsigned char *h = find(s, v->len, sub);
    *out = value_int(h ? count_chars(s, (size_t)(h - s)) + 1 : 0);
}

static void fn_left_right(const Value *v, int64_t k, bool left, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len;
    int64_t keep = k;
    if (k < 0 || !left) {
        int64_t total = count_chars(s, n);
        keep = k < 0 ? total + k : (k < total ? k : total);
        if (keep < 0) keep = 0;
        if (!left) {
            *out = slice(v, skip_chars(s, n, total - keep), n);
            return;
        }
    }
    *out = slice(v, 0, skip_chars(s, n, keep));
}

/* concat(...) ignores NULLs; concat_ws(sep, ...) is NULL only for a NULL separator. */
static bool fn_concat(const Expr *e, const Value *row, EvalCtx *ctx, Value *out, bool ws)
{
    Value stack[16], sepbuf, sept;
    Value *parts = e->nargs <= 16 ? stack : arena_alloc_raw(ctx->arena, sizeof(Value) * (size_t)e->nargs);
    const Value *sep = NULL;
    int first = 0, nparts = 0;
    if (ws) {
        if (e->nargs < 1) return eval_fail(ctx, "function concat_ws() needs a separator");
        sep = eval_operand(e->args[0], row, ctx, &sepbuf);
        if (!sep) return false;
        if (sep->isnull) { *out = value_null(); return true; }
        sep = eval_as_text(e->args[0]->type, sep, true, ctx, &sept);
        first = 1;
    }
    size_t total = 0;
    for (int i = first; i < e->nargs; i++) {
        Value t, tt;
        const Value *v = eval_operand(e->args[i], row, ctx, &t);
        if (!v) return false;
        if (v->isnull) continue;
        v = eval_as_text(e->args[i]->type, v, true, ctx, &tt);
        parts[nparts++] = *v;
        total += v->len;
    }
    if (sep && nparts > 1) total += (size_t)(nparts - 1) * sep->len;
    if (total > UINT32_MAX) return eval_fail(ctx, "requested length too large");
    if (nparts <= 1) {   /* no new text needed */
        *out = nparts ? parts[0] : value_text("", 0);
        return true;
    }
    char *d = arena_alloc_raw(ctx->arena, total ? total : 1);
    size_t j = 0;
    for (int i = 0; i < nparts; i++) {
        if (sep && i > 0) { memcpy(d + j, sep->s, sep->len); j += sep->len; }
        memcpy(d + j, parts[i].s, parts[i].len);
        j += parts[i].len;
    }
    *out = value_text(d, (uint32_t)total);
    return true;
}

/* ---- math ---- */

static bool int_range_error(TypeId t, EvalCtx *ctx)
{
    return eval_fail(ctx, t == T_INT2 ? "smallint out of range"
                          : t == T_INT4 ? "integer out of range" : "bigint out of range");
}

static int64_t int_min_of(TypeId t) { return t == T_INT2 ? INT16_MIN : t == T_INT4 ? INT32_MIN : INT64_MIN; }

static double num_to_double(Type t, const Value *v)
{
    if (t.id == T_NUMERIC) return dec_to_double(value_num(v), v->scale);
    if (type_is_float(t)) return v->f;
    return (double)v->i;
}

/* Float results are checked as PostgreSQL's float functions do. */
static bool float_result(double r, Type t, EvalCtx *ctx, Value *out)
{
    if (t.id == T_FLOAT4) r = (float)r;
    *out = value_float(r);
    return true;
}

/* round/trunc of a numeric to `digits`, or floor/ceil (digits ignored). */
static bool numeric_rounding(int f, const Value *v, int64_t digits, const Expr *e, EvalCtx *ctx, Value *out)
{
    i128 n = value_num(v), r;
    int s = 0;
    bool ok;
    if (digits > 1000) digits = 1000;
    if (digits < -1000) digits = -1000;
    switch (f) {
    case FN_ROUND: ok = dec_round(n, v->scale, (int)digits, &r, &s); break;
    case FN_TRUNC: ok = dec_trunc(n, v->scale, (int)digits, &r, &s); break;
    case FN_FLOOR: ok = dec_floor(n, v->scale, &r); break;
    default:       ok = dec_ceil(n, v->scale, &r); break;
    }
    if (!ok) return overflow_numeric(ctx);
    return eval_numeric_result(e, r, s, ctx, out);
}

/* PostgreSQL's weight of a numeric in base-10000 digits (floor(log10(|v|)) / 4,
 * rounded toward -infinity); 0 for zero. */
static int numeric_weight(i128 n, int scale)
{
    if (n == 0) return 0;
    if (n < 0) n = -n;
    int digits = 0;
    for (i128 t = n; t; t /= 10) digits++;
    int e10 = digits - 1 - scale;   /* decimal exponent of the leading digit */
    return e10 >= 0 ? e10 / 4 : -((-e10 + 3) / 4);
}

/* Largest r with r*r <= n (n >= 0). */
static i128 isqrt128(i128 n)
{
    if (n < 2) return n;
    i128 r = (i128)sqrtl((long double)n);
    while (r > 0 && r * r > n) r--;
    while ((r + 1) * (r + 1) <= n) r++;
    return r;
}

/* sqrt(numeric): PostgreSQL's result scale (at least 16 significant digits, at least
 * the argument's scale), computed exactly with an integer square root and rounded
 * half up. When the scaled radicand would not fit 128 bits, fewer fraction digits
 * are kept (the 38-digit range rule of base/decimal). */
static bool numeric_sqrt(const Value *v, const Expr *e, EvalCtx *ctx, Value *out)
{
    i128 n = value_num(v);
    int s = v->scale;
    if (n < 0) return eval_fail(ctx, "cannot take square root of a negative number");
    int sweight = 2 * numeric_weight(n, s) + 1;
    int rscale = 16 - sweight;
    if (rscale < s) rscale = s;
    if (rscale < 0) rscale = 0;
    if (rscale > DEC_MAX_SCALE) rscale = DEC_MAX_SCALE;
    for (; rscale >= 0; rscale--) {
        int shift = 2 * rscale - s;   /* radicand scaled to 10^(2*rscale) */
        i128 radicand;
        if (shift >= 0) {
            if (shift > DEC_MAX_DIGITS || __builtin_mul_overflow(n, dec_pow10(shift), &radicand) ||
                radicand >= dec_pow10(DEC_MAX_DIGITS))   /* keeps (r+1)^2 below 2^127 */
                continue;
        } else {
            /* s > 2*rscale only once rscale was lowered: drop digits (rounded) first */
            if (!dec_rescale(n, s, 2 * rscale, &radicand)) continue;
        }
        i128 r = isqrt128(radicand);
        if (radicand - r * r > r) r++;
        return eval_numeric_result(e, r, rscale, ctx, out);
    }
    return overflow_numeric(ctx);
}

/* Converts a long double to numeric at `scale` (rounded half away from zero),
 * lowering the scale while the scaled value would exceed the 64-bit mantissa. */
static bool numeric_from_ld(long double x, int scale, const Expr *e, EvalCtx *ctx, Value *out)
{
    if (isnan(x) || isinf(x)) return overflow_numeric(ctx);
    while (scale > 0 && fabsl(x) * powl(10.0L, scale) >= 1.8e19L) scale--;
    long double scaled = x * powl(10.0L, scale);
    long double rounded = scaled < 0 ? -floorl(-scaled + 0.5L) : floorl(scaled + 0.5L);
    if (fabsl(rounded) >= 1.7e38L) return overflow_numeric(ctx);
    return eval_numeric_result(e, (i128)rounded, scale, ctx, out);
}

/* A numeric as long double (64-bit mantissa: about 19 significant digits). */
static long double dec_to_ld(i128 n, int scale)
{
    long double v = (long double)n;
    while (scale > 27) { v /= 1e27L; scale -= 27; }   /* 10^k is exact in long double up to k = 27 */
    return v / powl(10.0L, scale);
}

/* power(numeric, numeric) as PostgreSQL 15: integer exponents are exact with result
 * scale max(16, scale of the base); other exponents go through long double powl at
 * PostgreSQL's result scale. That is exact to about 18 significant digits: PostgreSQL
 * computes every digit, so results with more significant digits than that (large
 * magnitudes such as power(2, 100.5)) differ from PostgreSQL in their trailing digits. */
static bool numeric_power(const Value *bv, const Value *ev, const Expr *e, EvalCtx *ctx, Value *out)
{
    i128 b = value_num(bv), x = value_num(ev);
    int bs = bv->scale, xs = ev->scale;
    if (b == 0 && x < 0) return eval_fail(ctx, "zero raised to a negative power is undefined");
    i128 xi;
    bool x_integer = dec_trunc(x, xs, 0, &xi, &(int){0}) && dec_cmp(xi, 0, x, xs) == 0;
    if (b < 0 && !x_integer)
        return eval_fail(ctx, "a negative number raised to a non-integer power yields a complex result");
    if (x_integer && xi >= INT32_MIN && xi <= INT32_MAX) {
        int rscale = bs > 16 ? bs : 16;
        if (rscale > DEC_MAX_SCALE) rscale = DEC_MAX_SCALE;
        int64_t k = (int64_t)xi;
        uint64_t m = k < 0 ? (uint64_t)(-k) : (uint64_t)k;
        /* exact base^|k| by squaring, with the scale growing as bs*|k| */
        i128 acc = 1, sq = b;
        int accs = 0, sqs = bs;
        bool ok = true;
        while (m && ok) {
            if (m & 1) ok = dec_mul(acc, accs, sq, sqs, &acc, &accs);
            m >>= 1;
            if (m && ok) ok = dec_mul(sq, sqs, sq, sqs, &sq, &sqs);
        }
        if (ok) {
            i128 r = acc;
            int rs = accs;
            if (k < 0) {
                if (acc == 0) return overflow_numeric(ctx);   /* |b| < 1 to a large negative power */
                ok = dec_div(1, 0, acc, accs, &r, &rs);
            }
            if (ok) {
                i128 scaled;
                if (dec_rescale(r, rs, rscale, &scaled)) return eval_numeric_result(e, scaled, rscale, ctx, out);
                /* keep as many fraction digits as fit in 38 */
                for (int s2 = rscale - 1; s2 >= 0; s2--)
                    if (dec_rescale(r, rs, s2, &scaled)) return eval_numeric_result(e, scaled, s2, ctx, out);
            }
        }
        if (k > 0 && (b >= dec_pow10(bs) || -b >= dec_pow10(bs))) return overflow_numeric(ctx);
        /* a tiny magnitude or a negative power: fall back to long double below */
    }
    long double r = powl(dec_to_ld(b, bs), dec_to_ld(x, xs));
    if (isinf(r)) return overflow_numeric(ctx);
    double wt = r == 0 ? 0 : (double)log10l(fabsl(r));
    int rscale = 16 - (int)wt;
    if (rscale < bs) rscale = bs;
    if (rscale < xs) rscale = xs;
    if (rscale < 0) rscale = 0;
    if (rscale > DEC_MAX_SCALE) rscale = DEC_MAX_SCALE;
    return numeric_from_ld(r, rscale, e, ctx, out);
}

/* power(float8, float8): PostgreSQL's dpow special cases and range errors. */
static bool float_power(double x, double y, EvalCtx *ctx, double *out)
{
    if (isnan(x)) { *out = (isnan(y) || y != 0.0) ? x : 1.0; return true; }
    if (isnan(y)) { *out = x != 1.0 ? y : 1.0; return true; }
    if (x == 0.0 && y < 0.0) return eval_fail(ctx, "zero raised to a negative power is undefined");
    if (x < 0.0 && floor(y) != y)
        return eval_fail(ctx, "a negative number raised to a non-integer power yields a complex result");
    if (isinf(x) || isinf(y)) { *out = pow(x, y); return true; }
    errno = 0;
    double r = pow(x, y);
    if (isinf(r)) return eval_fail(ctx, "value out of range: overflow");
    if (r == 0.0 && x != 0.0) return eval_fail(ctx, "value out of range: underflow");
    *out = r;
    return true;
}

static bool fn_math(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    Type t = e->args[0]->type;
    TypeId id = t.id;
    const Value *a = av[0];
    int f = e->func;

    if (type_is_integer(t)) {
        switch (f) {
        case FN_ABS:
            if (a->i == int_min_of(id)) return int_range_error(id, ctx);
            *out = value_int(a->i < 0 ? -a->i : a->i);
            break;
        case FN_MOD: {
            int64_t y = av[1]->i;
            if (y == 0) return eval_fail(ctx, "division by zero");
            *out = value_int(y == -1 ? 0 : a->i % y);
            break;
        }
        case FN_SIGN:
            *out = value_int((a->i > 0) - (a->i < 0));
            break;
        case FN_ROUND: case FN_TRUNC: case FN_FLOOR: case FN_CEIL:
            if (e->nargs < 2 || e->type.id != T_NUMERIC) { *out = *a; break; }
            /* round(int, digits) with a numeric result */
            {
                Value nv = value_numeric(a->i, 0);
                return numeric_rounding(f, &nv, av[1]->i, e, ctx, out);
            }
        default: {
            /* sqrt/power on integers: PostgreSQL resolves them to float8 */
            double r, x = (double)a->i;
            if (f == FN_SQRT) {
                if (x < 0) return eval_fail(ctx, "cannot take square root of a negative number");
                r = sqrt(x);
            } else if (!float_power(x, num_to_double(e->args[1]->type, av[1]), ctx, &r)) {
                return false;
            }
            *out = value_float(r);
            return eval_coerce(e, type_make(T_FLOAT8), out, ctx);
        }
        }
        return eval_coerce(e, t, out, ctx);
    }

    if (type_is_float(t)) {
        double x = a->f, r;
        switch (f) {
        case FN_ABS: r = fabs(x); break;
        case FN_ROUND:
            if (e->nargs >= 2) {   /* round(float, n): not in PostgreSQL; go through numeric */
                i128 n;
                if (!dec_from_double(x, 15, &n)) return overflow_numeric(ctx);
                Value nv = value_numeric(n, 15);
                if (!numeric_rounding(f, &nv, av[1]->i, e, ctx, out)) return false;
                return e->type.id == T_NUMERIC ? true : eval_coerce(e, type_make(T_NUMERIC), out, ctx);
            }
            r = rint(x);
            break;
        case FN_TRUNC: r = trunc(x); break;
        case FN_FLOOR: r = floor(x); break;
        case FN_CEIL: r = ceil(x); break;
        case FN_SIGN: r = x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; break;
        case FN_SQRT:
            if (x < 0) return eval_fail(ctx, "cannot take square root of a negative number");
            r = sqrt(x);
            break;
        case FN_POWER:
            if (!float_power(x, num_to_double(e->args[1]->type, av[1]), ctx, &r)) return false;
            break;
        default: {
            char b[64];
            return eval_fail(ctx, "function %s(%s) does not exist", func_name(f), type_name(t, b, sizeof b));
        }
        }
        if (!float_result(r, t, ctx, out)) return false;
        return eval_coerce(e, t, out, ctx);
    }

    if (id == T_NUMERIC) {
        i128 n = value_num(a), r;
        int s;
        switch (f) {
        case FN_ABS:
            return eval_numeric_result(e, dec_abs(n), a->scale, ctx, out);
        case FN_ROUND: case FN_TRUNC:
            return numeric_rounding(f, a, e->nargs >= 2 ? av[1]->i : 0, e, ctx, out);
        case FN_FLOOR: case FN_CEIL:
            return numeric_rounding(f, a, 0, e, ctx, out);
        case FN_SIGN:
            return eval_numeric_result(e, (n > 0) - (n < 0), 0, ctx, out);
        case FN_MOD: {
            const Value *b = av[1];
            if (value_num(b) == 0) return eval_fail(ctx, "division by zero");
            if (!dec_mod(n, a->scale, value_num(b), b->scale, &r, &s)) return overflow_numeric(ctx);
            return eval_numeric_result(e, r, s, ctx, out);
        }
        case FN_SQRT:
            return numeric_sqrt(a, e, ctx, out);
        case FN_POWER:
            if (e->args[1]->type.id != T_NUMERIC) {
                Value nv;
                Type tb = e->args[1]->type;
                if (!value_cast(tb, type_make(T_NUMERIC), av[1], ctx->arena, &nv, ctx->err, sizeof ctx->err))
                    return false;
                return numeric_power(a, &nv, e, ctx, out);
            }
            return numeric_power(a, av[1], e, ctx, out);
        default:
            break;
        }
    }
    char b[64];
    return eval_fail(ctx, "function %s(%s) does not exist", func_name(f), type_name(t, b, sizeof b));
}

/* ---- date_trunc / extract ---- */

/* Unit names PostgreSQL recognises (for the "not recognized" vs "not supported"
 * wording only; the conversions themselves live in base/timeutil). */
static const char *const known_units[] = {
    "microsecond", "microseconds", "us", "usec", "usecs", "useconds",
    "millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds",
    "second", "seconds", "s", "sec", "secs",
    "minute", "minutes", "m", "min", "mins",
    "hour", "hours", "h", "hr", "hrs",
    "day", "days", "d", "week", "weeks", "w",
    "month", "months", "mon", "mons", "quarter", "qtr",
    "year", "years", "y", "yr", "yrs", "decade", "decades", "dec", "decs",
    "century", "centuries", "c", "cent",
    "millennium", "millennia", "mil", "mils", "millenniums",
    "timezone", "timezone_h", "timezone_hour", "timezone_m", "timezone_minute",
    "dow", "isodow", "doy", "epoch", "julian", "j", "isoyear",
};

static bool unit_known(const char *u)
{
    for (size_t i = 0; i < sizeof known_units / sizeof *known_units; i++)
        if (strcmp(u, known_units[i]) == 0) return true;
    return false;
}

static const char *temporal_type_name(TypeId id)
{
    switch (id) {
    case T_TIMESTAMP: return "timestamp without time zone";
    case T_TIMESTAMPTZ: return "timestamp with time zone";
    case T_DATE: return "date";
    default: return "interval";
    }
}

static bool unit_error(const char *u, TypeId id, EvalCtx *ctx)
{
    return eval_fail(ctx, "unit \"%s\" %s for type %s", u,
                     unit_known(u) ? "not supported" : "not recognized", temporal_type_name(id));
}

/* Lower-cased, NUL-terminated copy of the unit argument (PostgreSQL downcases it). */
static void unit_text(const Value *v, char *buf, size_t size)
{
    size_t n = v->len < size - 1 ? v->len : size - 1;
    for (size_t i = 0; i < n; i++) buf[i] = (char)tolower((unsigned char)v->s[i]);
    buf[n] = 0;
}

static bool unit_is(const char *u, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(u, *names) == 0) return true;
    return false;
}

/* date_trunc(unit, interval), PostgreSQL's interval_trunc. */
static bool interval_trunc(const char *u, const Value *v, EvalCtx *ctx, Value *out)
{
    static const char *const mil[] = {"millennium", "millennia", "mil", "mils", "millenniums", NULL};
    static const char *const cent[] = {"century", "centuries", "c", "cent", NULL};
    static const char *const dec[] = {"decade", "decades", "dec", "decs", NULL};
    static const char *const yr[] = {"year", "years", "y", "yr", "yrs", NULL};
    static const char *const qtr[] = {"quarter", "qtr", NULL};
    static const char *const mon[] = {"month", "months", "mon", "mons", NULL};
    static const char *const day[] = {"day", "days", "d", NULL};
    static const char *const hr[] = {"hour", "hours", "h", "hr", "hrs", NULL};
    static const char *const mi[] = {"minute", "minutes", "m", "min", "mins", NULL};
    static const char *const sec[] = {"second", "seconds", "s", "sec", "secs", NULL};
    static const char *const ms[] = {"millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds", NULL};
    static const char *const us[] = {"microsecond", "microseconds", "us", "usec", "usecs", "useconds", NULL};
    int level;   /* how much to clear: 0 millennium .. 11 microsecond */
    if (unit_is(u, mil)) level = 0;
    else if (unit_is(u, cent)) level = 1;
    else if (unit_is(u, dec)) level = 2;
    else if (unit_is(u, yr)) level = 3;
    else if (unit_is(u, qtr)) level = 4;
    else if (unit_is(u, mon)) level = 5;
    else if (unit_is(u, day)) level = 6;
    else if (unit_is(u, hr)) level = 7;
    else if (unit_is(u, mi)) level = 8;
    else if (unit_is(u, sec)) level = 9;
    else if (unit_is(u, ms)) level = 10;
    else if (unit_is(u, us)) level = 11;
    else return unit_error(u, T_INTERVAL, ctx);

    int64_t year = v->iv.months / 12, mon_ = v->iv.months % 12, mday = v->iv.days;
    int64_t time = v->i;
    int64_t hour = time / TM_USECS_PER_HOUR;
    time -= hour * TM_USECS_PER_HOUR;
    int64_t min = time / TM_USECS_PER_MINUTE;
    time -= min * TM_USECS_PER_MINUTE;
    int64_t secs = time / TM_USECS_PER_SEC;
    int64_t usec = time - secs * TM_USECS_PER_SEC;

    if (level == 10) usec = (usec / 1000) * 1000;
    if (level <= 9) usec = 0;
    if (level <= 8) secs = 0;
    if (level <= 7) min = 0;
    if (level <= 6) hour = 0;
    if (level <= 5) mday = 0;
    if (level <= 4) mon_ = 3 * (mon_ / 3);
    if (level <= 3) mon_ = 0;
    if (level <= 2) year = (year / 10) * 10;
    if (level <= 1) year = (year / 100) * 100;
    if (level <= 0) year = (year / 1000) * 1000;
    *out = value_interval((int32_t)(year * 12 + mon_), (int32_t)mday,
                          hour * TM_USECS_PER_HOUR + min * TM_USECS_PER_MINUTE + secs * TM_USECS_PER_SEC + usec);
    return true;
}

/* Fixed-length units of date_trunc in their usual spellings (windows by the hour,
 * minute or day are the common case): truncation is then one floor division instead
 * of a unit lookup and a calendar conversion. 0 for every other unit. */
static int64_t fixed_unit(const char *u)
{
    switch (u[0]) {
    case 'h': return strcmp(u, "hour") == 0 || strcmp(u, "hours") == 0 ? TM_USECS_PER_HOUR : 0;
    case 'm': return strcmp(u, "minute") == 0 || strcmp(u, "minutes") == 0 ? TM_USECS_PER_MINUTE : 0;
    case 's': return strcmp(u, "second") == 0 || strcmp(u, "seconds") == 0 ? TM_USECS_PER_SEC : 0;
    case 'd': return strcmp(u, "day") == 0 || strcmp(u, "days") == 0 ? TM_USECS_PER_DAY : 0;
    default: return 0;
    }
}

static bool fn_date_trunc(const Expr *e, const Value *unit, const Value *v, EvalCtx *ctx, Value *out)
{
    char u[32];
    unit_text(unit, u, sizeof u);
    Type t = e->args[1]->type;
    if (t.id == T_INTERVAL) {
        if (!interval_trunc(u, v, ctx, out)) return false;
        return eval_coerce(e, t, out, ctx);
    }
    int64_t ts = v->i, r;
    Type natural = t;
    if (t.id == T_DATE) {
        /* PostgreSQL resolves date_trunc(text, date) through timestamp with time zone */
        natural = type_make(T_TIMESTAMPTZ);
        if (!tm_date_to_timestamp(v->i, &ts)) return eval_fail(ctx, "date out of range for timestamp");
    } else if (t.id != T_TIMESTAMP && t.id != T_TIMESTAMPTZ) {
        char b[64];
        return eval_fail(ctx, "function date_trunc(text, %s) does not exist", type_name(t, b, sizeof b));
    }
    int64_t step = fixed_unit(u);
    if (step && ts != TM_INFINITY && ts != TM_NEG_INFINITY) {
        r = ts - ts % step;              /* floor to a multiple of the unit */
        if (ts % step < 0) r -= step;
    } else if (!tm_date_trunc(u, ts, &r)) {
        return unit_error(u, natural.id, ctx);
    }
    *out = value_int(r);
    return eval_coerce(e, natural, out, ctx);
}

static bool fn_extract(const Expr *e, const Value *unit, const Value *v, EvalCtx *ctx, Value *out)
{
    char u[32];
    unit_text(unit, u, sizeof u);
    Type t = e->args[1]->type;
    i128 n;
    int s;
    bool ok;
    switch (t.id) {
    case T_TIMESTAMP:   ok = tm_extract(u, v->i, &n, &s); break;
    case T_TIMESTAMPTZ: ok = tm_extract_timestamptz(u, v->i, &n, &s); break;
    case T_DATE:        ok = tm_extract_date(u, v->i, &n, &s); break;
    case T_INTERVAL:    ok = tm_extract_interval(u, v->iv.months, v->iv.days, v->i, &n, &s); break;
    default: {
        char b[64];
        return eval_fail(ctx, "function extract(text, %s) does not exist", type_name(t, b, sizeof b));
    }
    }
    if (!ok) {
        /* infinite timestamps: PostgreSQL 15 returns NULL or +-Infinity (numeric has
         * no infinity here): report NULL for them rather than an error */
        if ((t.id == T_TIMESTAMP || t.id == T_TIMESTAMPTZ || t.id == T_DATE) &&
            (v->i == TM_INFINITY || v->i == TM_NEG_INFINITY) && unit_known(u)) {
            *out = value_null();
            return true;
        }
        return unit_error(u, (TypeId)t.id, ctx);
    }
    if (e->type.id == T_NUMERIC) return eval_numeric_result(e, n, s, ctx, out);
    *out = value_numeric(n, s);
    return eval_coerce(e, type_make(T_NUMERIC), out, ctx);
}

/* ---- dispatch ---- */

bool eval_func(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    if (e->func == FN_CONCAT) return fn_concat(e, row, ctx, out, false);
    if (e->func == FN_CONCAT_WS) return fn_concat(e, row, ctx, out, true);

    /* Every other function is strict: NULL in, NULL out. All arguments are evaluated
     * first (so an error in any of them is reported, as PostgreSQL does). */
    Value tmp[4];
    const Value *av[4];
    if (e->nargs < 1 || e->nargs > 4)
        return eval_fail(ctx, "function %s() called with %d arguments", func_name(e->func), e->nargs);
    for (int i = 0; i < e->nargs; i++) {
        av[i] = eval_operand(e->args[i], row, ctx, &tmp[i]);
        if (!av[i]) return false;
    }
    for (int i = 0; i < e->nargs; i++)
        if (av[i]->isnull) { *out = value_null(); return true; }

    static const Value space = {.s = " ", .len = 1};
    switch (e->func) {
    case FN_LOWER: return fn_case(av[0], false, ctx, out);
    case FN_UPPER: return fn_case(av[0], true, ctx, out);
    case FN_LENGTH:
        *out = value_int(count_chars((const unsigned char *)av[0]->s, av[0]->len));
        return eval_coerce(e, type_make(T_INT4), out, ctx);
    case FN_SUBSTRING:
        if (e->nargs < 2) break;
        return fn_substring(av[0], av[1]->i, e->nargs >= 3, e->nargs >= 3 ? av[2]->i : 0, ctx, out);
    case FN_BTRIM: case FN_LTRIM: case FN_RTRIM:
        fn_trim(av[0], e->nargs >= 2 ? av[1] : &space, e->func != FN_RTRIM, e->func != FN_LTRIM, out);
        return true;
    case FN_SPLIT_PART:
        if (e->nargs < 3) break;
        return fn_split_part(av[0], av[1], av[2]->i, ctx, out);
    case FN_REPLACE:
        if (e->nargs < 3) break;
        return fn_replace(av[0], av[1], av[2], ctx, out);
    case FN_POSITION:
        if (e->nargs < 2) break;
        fn_position(av[0], av[1], out);
        return eval_coerce(e, type_make(T_INT4), out, ctx);
    case FN_LEFT: case FN_RIGHT:
        if (e->nargs < 2) break;
        fn_left_right(av[0], av[1]->i, e->func == FN_LEFT, out);
        return true;
    case FN_ABS: case FN_ROUND: case FN_TRUNC: case FN_FLOOR: case FN_CEIL: case FN_SIGN: case FN_SQRT:
        return fn_math(e, av, ctx, out);
    case FN_MOD: case FN_POWER:
        if (e->nargs < 2) break;
        return fn_math(e, av, ctx, out);
    case FN_DATE_TRUNC:
        if (e->nargs < 2) break;
        return fn_date_trunc(e, av[0], av[1], ctx, out);
    case FN_EXTRACT:
        if (e->nargs < 2) break;
        return fn_extract(e, av[0], av[1], ctx, out);
    default:
        return eval_fail(ctx, "function %s is not supported", func_name(e->func));
    }
    return eval_fail(ctx, "function %s() called with %d arguments", func_name(e->func), e->nargs);
}
