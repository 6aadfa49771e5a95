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
    return eval_overflow_numeric(ctx);
}

/* Converts a long double to numeric at `scale` (rounded half away from zero),
 * lowering the scale while the scaled value would exceed the 64-bit mantissa. */
static bool numeric_from_ld(long double x, int scale, const Expr *e, EvalCtx *ctx, Value *out)
{
    if (isnan(x) || isinf(x)) return eval_overflow_numeric(ctx);
    while (scale > 0 && fabsl(x) * powl(10.0L, scale) >= 1.8e19L) scale--;
    long double scaled = x * powl(10.0L, scale);
    long double rounded = scaled < 0 ? -floorl(-scaled + 0.5L) : floorl(scaled + 0.5L);
    if (fabsl(rounded) >= 1.7e38L) return eval_overflow_numeric(ctx);
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
    long double r = powl(dec_to_ld(b, bs), dec_to_ld(x, xs));
    if (isinf(r)) return eval_overflow_numeric(ctx);
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
    default: break;
    }
    return eval_fail(ctx, "function %s() called with %d arguments", func_kind_name((FuncKind)e->func), e->nargs);
}
