/* Math functions of the scalar function library, on integers, floats and exact
 * numerics with PostgreSQL 15's semantics (result types as the binder resolved them,
 * PostgreSQL's special cases and range errors): abs, round, trunc, floor, ceil, mod,
 * sign, sqrt, power, exp, ln, log, log10, cbrt, pi, degrees, radians, the
 * trigonometric functions, width_bucket, div, gcd, lcm. The transcendental functions
 * of numerics are computed by base/decmath at PostgreSQL's result scales.
 *
 * Argument conventions: abs/sign/sqrt/floor/ceil/exp/ln/log10/log(x);
 * round/trunc(x [, int digits]); mod/power/div/gcd/lcm/atan2(a, b) and log(base, x)
 * with both arguments of one numeric type (an integer or float exponent of a numeric
 * base is accepted too); width_bucket(x, low, high, int count). The result is produced
 * in the argument's type and converted to e->type when the binder typed the call
 * differently (e.g. round(int) -> float8). */
#include "engine/eval_func_internal.h"

#include "base/decimal.h"
#include "base/decmath.h"

#include <errno.h>
#include <math.h>
#include <string.h>

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
    if (!ok) return eval_overflow_numeric(ctx);
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

/* floor(sqrt(n * 10^k)) for n >= 0, k >= 0, by the long-hand method over the decimal
 * digits (two at a time), so the radicand may exceed 128 bits; *rem_gt_root tells
 * whether the remainder exceeds the root (round half up). False when the root would
 * not fit 38 digits. */
static bool isqrt_scaled(i128 n, int k, i128 *root, bool *rem_gt_root)
{
    char digits[40 + 2 * DEC_MAX_DIGITS + 4];
    int nd = 0;
    char tmp[48];
    int nt = 0;
    for (i128 v = n; v > 0; v /= 10) tmp[nt++] = (char)(v % 10);
    if ((nt + k) % 2) digits[nd++] = 0;
    if ((size_t)(nt + k + 1) >= sizeof digits) return false;
    while (nt > 0) digits[nd++] = tmp[--nt];
    for (int i = 0; i < k; i++) digits[nd++] = 0;
    unsigned __int128 p = 0, rem = 0;
    const unsigned __int128 lim = (unsigned __int128)dec_pow10(DEC_MAX_DIGITS);
    for (int i = 0; i < nd; i += 2) {
        if (rem > (~(unsigned __int128)0 - 99) / 100 || p >= lim / 10) return false;
        unsigned __int128 c = rem * 100 + (unsigned)(digits[i] * 10 + digits[i + 1]);
        unsigned x = 0;
        while (x < 9 && 20 * p + x + 1 <= c / (x + 1)) x++; /* (20p + x + 1)(x + 1) <= c */
        rem = c - (20 * p + x) * x;
        p = p * 10 + x;
    }
    *root = (i128)p;
    *rem_gt_root = rem > p;
    return true;
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
    if (e->nargs == 2) rscale = s; /* the binder's stddev: at the variance's own scale, as PostgreSQL */
    if (rscale < 0) rscale = 0;
    if (rscale > DEC_MAX_SCALE) rscale = DEC_MAX_SCALE;
    if (e->nargs == 2 && 2 * rscale - s >= 0) {
        i128 r;
        bool up;
        if (isqrt_scaled(n, 2 * rscale - s, &r, &up)) return eval_numeric_result(e, up ? r + 1 : r, rscale, ctx, out);
    }
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
    return eval_overflow_numeric(ctx);
}

/* power(numeric, numeric) as PostgreSQL 15: integer exponents (of int32 range) at the
 * result scale max(16, scale of the base), exactly by repeated squaring while that
 * fits 38 digits; other exponents as exp(x * ln(base)) (base/decmath) at PostgreSQL's
 * result scale for them. */
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
                if (acc == 0) return eval_overflow_numeric(ctx);   /* |b| < 1 to a large negative power */
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
        if (k > 0 && (b >= dec_pow10(bs) || -b >= dec_pow10(bs))) return eval_overflow_numeric(ctx);
        /* a tiny magnitude or a negative power: fall back to long double below */
    }
    if (!x_integer || xi < INT32_MIN || xi > INT32_MAX) {
        /* PostgreSQL's power_var: exp(x * ln(|base|)) at its result scale (a negative
         * base only with an integer exponent; zero to a positive power is zero at
         * scale 16) */
        if (b == 0) return eval_numeric_result(e, 0, 16, ctx, out);
        i128 r;
        int rs;
        DecMathStatus st = decm_power(b < 0 ? -b : b, bs, x, xs, &r, &rs);
        if (st != DECM_OK) return eval_fail(ctx, "%s", decm_message(st));
        if (b < 0 && (xi & 1)) r = -r;
        return eval_numeric_result(e, r, rs, ctx, out);
    }
    /* an integer power too large or too small for the exact path: PostgreSQL's scale
     * for integer powers, max(16, scale of the base) */
    int rscale = bs > 16 ? bs : 16;
    i128 r;
    int rs;
    DecMathStatus st = decm_power_scaled(b, bs, (int64_t)xi, rscale, &r, &rs);
    if (st != DECM_OK) return eval_fail(ctx, "%s", decm_message(st));
    return eval_numeric_result(e, r, rs, ctx, out);
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
                if (!dec_from_double(x, 15, &n)) return eval_overflow_numeric(ctx);
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
            return eval_fail(ctx, "function %s(%s) does not exist", func_kind_name((FuncKind)f), type_name(t, b, sizeof b));
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
            if (!dec_mod(n, a->scale, value_num(b), b->scale, &r, &s)) return eval_overflow_numeric(ctx);
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
    return eval_fail(ctx, "function %s(%s) does not exist", func_kind_name((FuncKind)f), type_name(t, b, sizeof b));
}

/* ---- exp, logarithms, roots, trigonometry ---- */

static bool float_overflow(EvalCtx *ctx) { return eval_fail(ctx, "value out of range: overflow"); }
static bool float_underflow(EvalCtx *ctx) { return eval_fail(ctx, "value out of range: underflow"); }
static bool out_of_range_input(EvalCtx *ctx) { return eval_fail(ctx, "input is out of range"); }

#define RADIANS_PER_DEGREE 0.0174532925199432957692

/* The float8 functions (PostgreSQL's float.c: dexp, dlog1, dlog10, dcbrt, ddegrees,
 * dradians, dsin ... datan2), their special cases and range checks included. */
static bool float_func(int f, double x, double y, EvalCtx *ctx, double *out)
{
    double r = 0;
    switch (f) {
    case FN_EXP:
        if (isnan(x)) r = x;
        else if (isinf(x)) r = x > 0 ? x : 0;
        else {
            errno = 0;
            r = exp(x);
            if (errno == ERANGE) return r != 0.0 ? float_overflow(ctx) : float_underflow(ctx);
            if (isinf(r)) return float_overflow(ctx);
            if (r == 0.0) return float_underflow(ctx);
        }
        break;
    case FN_LN:
    case FN_LOG:
    case FN_LOG10:
        if (x == 0.0) return eval_fail(ctx, "cannot take logarithm of zero");
        if (x < 0) return eval_fail(ctx, "cannot take logarithm of a negative number");
        r = f == FN_LN ? log(x) : log10(x);
        if (isinf(r) && !isinf(x)) return float_overflow(ctx);
        if (r == 0.0 && x != 1.0) return float_underflow(ctx);
        break;
    case FN_CBRT:
        r = cbrt(x);
        if (isinf(r) && !isinf(x)) return float_overflow(ctx);
        if (r == 0.0 && x != 0.0) return float_underflow(ctx);
        break;
    case FN_DEGREES:
        r = x / RADIANS_PER_DEGREE;
        if (isinf(r) && !isinf(x)) return float_overflow(ctx);
        if (r == 0.0 && x != 0.0) return float_underflow(ctx);
        break;
    case FN_RADIANS:
        r = x * RADIANS_PER_DEGREE;
        if (isinf(r) && !isinf(x)) return float_overflow(ctx);
        if (r == 0.0 && x != 0.0) return float_underflow(ctx);
        break;
    case FN_SIN:
    case FN_COS:
    case FN_TAN:
        if (isnan(x)) { r = x; break; }
        errno = 0;
        r = f == FN_SIN ? sin(x) : f == FN_COS ? cos(x) : tan(x);
        if (errno != 0 || isinf(x)) return out_of_range_input(ctx);
        if (f != FN_TAN && isinf(r)) return float_overflow(ctx);   /* tan may produce Inf */
        break;
    case FN_ASIN:
    case FN_ACOS:
        if (isnan(x)) { r = x; break; }
        if (x < -1.0 || x > 1.0) return out_of_range_input(ctx);
        r = f == FN_ASIN ? asin(x) : acos(x);
        if (isinf(r)) return float_overflow(ctx);
        break;
    case FN_ATAN:
        if (isnan(x)) { r = x; break; }
        r = atan(x);
        if (isinf(r)) return float_overflow(ctx);
        break;
    case FN_ATAN2:
        if (isnan(x) || isnan(y)) { r = NAN; break; }
        r = atan2(x, y);
        if (isinf(r)) return float_overflow(ctx);
        break;
    case FN_PI: r = M_PI; break;
    default: return eval_fail(ctx, "function %s(double precision) does not exist", func_kind_name((FuncKind)f));
    }
    *out = r;
    return true;
}

static bool decmath_result(DecMathStatus st, const Expr *e, i128 n, int scale, EvalCtx *ctx, Value *out)
{
    if (st != DECM_OK) return eval_fail(ctx, "%s", decm_message(st));
    return eval_numeric_result(e, n, scale, ctx, out);
}

/* exp, ln, log10 and log of numerics (log(x) is log(10, x), as in PostgreSQL). */
static bool numeric_transcendental(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    i128 n = value_num(av[0]), r = 0;
    int s = av[0]->scale, rs = 0;
    DecMathStatus st;
    switch (e->func) {
    case FN_EXP: st = decm_exp(n, s, &r, &rs); break;
    case FN_LN: st = decm_ln(n, s, &r, &rs); break;
    case FN_LOG:
        if (e->nargs == 2) {
            st = decm_log(n, s, value_num(av[1]), av[1]->scale, &r, &rs);
            break;
        }
        __attribute__((fallthrough));
    default: st = decm_log(10, 0, n, s, &r, &rs); break;
    }
    return decmath_result(st, e, r, rs, ctx, out);
}

/* ---- width_bucket, div, gcd, lcm ---- */

/* width_bucket(float8, float8, float8, int) as PostgreSQL 15 computes it: count
 * times the distance from the lower bound, divided by the range, plus one, in double
 * precision, converted to integer the way the x86 conversion does (a NaN or
 * out-of-range value, from bounds whose distance overflows, becomes the smallest
 * integer). */
static bool float_width_bucket(double x, double lo, double hi, int64_t count, EvalCtx *ctx, Value *out)
{
    if (count <= 0) return eval_fail(ctx, "count must be greater than zero");
    if (isnan(x) || isnan(lo) || isnan(hi))
        return eval_fail(ctx, "operand, lower bound, and upper bound cannot be NaN");
    if (isinf(lo) || isinf(hi)) return eval_fail(ctx, "lower and upper bounds must be finite");
    double r;
    if (lo < hi) {
        if (x < lo) r = 0;
        else if (x >= hi) r = (double)count + 1;
        else r = (double)count * (x - lo) / (hi - lo) + 1;
    } else if (lo > hi) {
        if (x > lo) r = 0;
        else if (x <= hi) r = (double)count + 1;
        else r = (double)count * (lo - x) / (lo - hi) + 1;
    } else {
        return eval_fail(ctx, "lower bound cannot equal upper bound");
    }
    if (r == (double)count + 1 && count == INT32_MAX) return eval_fail(ctx, "integer out of range");
    *out = value_int(r >= -2147483648.0 && r < 2147483648.0 ? (int64_t)r : INT32_MIN);
    return true;
}

static bool numeric_width_bucket(const Value *const *av, EvalCtx *ctx, Value *out)
{
    int64_t count = av[3]->i;
    if (count <= 0) return eval_fail(ctx, "count must be greater than zero");
    i128 x = value_num(av[0]), lo = value_num(av[1]), hi = value_num(av[2]), r;
    int sx = av[0]->scale, sl = av[1]->scale, sh = av[2]->scale;
    int c = dec_cmp(lo, sl, hi, sh);
    if (c == 0) return eval_fail(ctx, "lower bound cannot equal upper bound");
    if (c < 0 ? dec_cmp(x, sx, lo, sl) < 0 : dec_cmp(x, sx, lo, sl) > 0) {
        r = 0;
    } else if (c < 0 ? dec_cmp(x, sx, hi, sh) >= 0 : dec_cmp(x, sx, hi, sh) <= 0) {
        r = (i128)count + 1;
    } else {
        DecMathStatus st = decm_width_bucket_compute(x, sx, lo, sl, hi, sh, (int32_t)count, &r);
        if (st != DECM_OK) return eval_fail(ctx, "%s", decm_message(st));
    }
    if (r > INT32_MAX) return eval_fail(ctx, "integer out of range");
    *out = value_int((int64_t)r);
    return true;
}

/* gcd / lcm of integers (PostgreSQL's int4gcd / int8gcd and the lcm built on them). */
static bool int_gcd_lcm(int f, TypeId t, int64_t a, int64_t b, EvalCtx *ctx, Value *out)
{
    int64_t min = int_min_of(t), max = t == T_INT8 ? INT64_MAX : INT32_MAX;
    if (f == FN_LCM && (a == 0 || b == 0)) {
        *out = value_int(0);
        return true;
    }
    /* the greater magnitude first, compared in negative space (min has no positive) */
    int64_t na = a < 0 ? a : -a, nb = b < 0 ? b : -b, x = a, y = b;
    if (na > nb) {
        x = b;
        y = a;
    }
    int64_t g;
    if (x == min && (y == 0 || y == min)) return int_range_error(t, ctx);
    if (x == min && y == -1) {
        g = 1;
    } else {
        while (y != 0) {
            int64_t r = x % y;
            x = y;
            y = r;
        }
        g = x < 0 ? -x : x;
    }
    if (f == FN_GCD) {
        *out = value_int(g);
        return true;
    }
    int64_t r;
    if (__builtin_mul_overflow(a / g, b, &r) || r < min || r > max || r == min) return int_range_error(t, ctx);
    *out = value_int(r < 0 ? -r : r);
    return true;
}

/* ---- dispatch ---- */

bool eval_func_math(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    switch ((FuncKind)e->func) {
    case FN_ABS: case FN_ROUND: case FN_TRUNC: case FN_FLOOR: case FN_CEIL: case FN_SIGN: case FN_SQRT:
        if (e->nargs < 1) break;
        return fn_math(e, av, ctx, out);
    case FN_MOD: case FN_POWER:
        if (e->nargs < 2) break;
        return fn_math(e, av, ctx, out);
    case FN_EXP: case FN_LN: case FN_LOG: case FN_LOG10: case FN_CBRT: case FN_DEGREES: case FN_RADIANS:
    case FN_SIN: case FN_COS: case FN_TAN: case FN_ASIN: case FN_ACOS: case FN_ATAN: case FN_ATAN2:
    case FN_PI: {
        Type t = e->nargs ? e->args[0]->type : type_make(T_FLOAT8);
        if (t.id == T_NUMERIC) return numeric_transcendental(e, av, ctx, out);
        double r = 0;
        double x = e->nargs ? num_to_double(t, av[0]) : 0;
        double y = e->nargs > 1 ? num_to_double(e->args[1]->type, av[1]) : 0;
        if (!float_func(e->func, x, y, ctx, &r)) return false;
        *out = value_float(r);
        return eval_coerce(e, type_make(T_FLOAT8), out, ctx);
    }
    case FN_WIDTH_BUCKET:
        if (e->nargs < 4) break;
        if (e->args[0]->type.id == T_NUMERIC) return numeric_width_bucket(av, ctx, out);
        if (!float_width_bucket(num_to_double(e->args[0]->type, av[0]), num_to_double(e->args[1]->type, av[1]),
                                num_to_double(e->args[2]->type, av[2]), av[3]->i, ctx, out))
            return false;
        return eval_coerce(e, type_make(T_INT4), out, ctx);
    case FN_DIV: {
        if (e->nargs < 2) break;
        i128 r;
        DecMathStatus st = decm_div_trunc(value_num(av[0]), av[0]->scale, value_num(av[1]), av[1]->scale, &r);
        return decmath_result(st, e, r, 0, ctx, out);
    }
    case FN_GCD: case FN_LCM: {
        if (e->nargs < 2) break;
        Type t = e->args[0]->type;
        if (type_is_integer(t)) {
            if (!int_gcd_lcm(e->func, (TypeId)t.id, av[0]->i, av[1]->i, ctx, out)) return false;
            return eval_coerce(e, t, out, ctx);
        }
        i128 r;
        int rs;
        DecMathStatus st = decm_gcd(value_num(av[0]), av[0]->scale, value_num(av[1]), av[1]->scale,
                                    e->func == FN_LCM, &r, &rs);
        return decmath_result(st, e, r, rs, ctx, out);
    }
    default: break;
    }
    return eval_fail(ctx, "function %s() called with %d arguments", func_kind_name((FuncKind)e->func), e->nargs);
}
