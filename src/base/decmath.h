/* Transcendental functions of exact decimals (base/decimal's 38-digit numeric): ln,
 * log(base, x), exp and power with a non-integer exponent, with PostgreSQL 15's result
 * scales (numeric_ln, log_var, numeric_exp, power_var). Values are computed with 72
 * fraction digits in a fixed-point decimal and rounded (half away from zero) to the
 * result scale, so every printed digit is correct; PostgreSQL computes with a few
 * guard digits of its own, so the two can only disagree when the exact value lies
 * within about 1e-8 of a unit in the last place of a rounding boundary.
 *
 * The range rule of base/decimal applies to results: a scale above 38, or a result
 * that would need more than 38 digits at its scale, keeps as many fraction digits as
 * fit; a result whose integer part needs more than 38 digits is an overflow. Nothing
 * here allocates. */
#ifndef WEIR_BASE_DECMATH_H
#define WEIR_BASE_DECMATH_H

#include "base/value.h"

#include <stdbool.h>

typedef enum DecMathStatus {
    DECM_OK = 0,
    DECM_LOG_ZERO,       /* cannot take logarithm of zero */
    DECM_LOG_NEGATIVE,   /* cannot take logarithm of a negative number */
    DECM_DIV_ZERO,       /* division by zero (log with base 1) */
    DECM_OVERFLOW,       /* value overflows numeric format */
} DecMathStatus;

/* PostgreSQL's message for a status other than DECM_OK. */
const char *decm_message(DecMathStatus st);

/* ln(x) of x = n / 10^scale. */
DecMathStatus decm_ln(i128 n, int scale, i128 *out, int *sout);
/* log(base, x), PostgreSQL's log(numeric, numeric) (log(x) and log10(x) are
 * log(10, x)). */
DecMathStatus decm_log(i128 bn, int bscale, i128 n, int scale, i128 *out, int *sout);
/* exp(x). */
DecMathStatus decm_exp(i128 n, int scale, i128 *out, int *sout);
/* base ^ x for a positive base and an exponent that is not an integer (PostgreSQL's
 * power_var for that case: exp(x * ln(base)) at its result scale). */
DecMathStatus decm_power(i128 bn, int bscale, i128 xn, int xscale, i128 *out, int *sout);
/* base ^ k for an integer k and a non-zero base, rounded to rscale (PostgreSQL 15
 * computes integer powers at the scale max(16, scale of the base)). */
DecMathStatus decm_power_scaled(i128 bn, int bscale, int64_t k, int rscale, i128 *out, int *sout);

/* div(a, b): a / b truncated toward zero, scale 0 (DECM_DIV_ZERO for b == 0). */
DecMathStatus decm_div_trunc(i128 a, int sa, i128 b, int sb, i128 *out);
/* gcd(a, b) or (lcm) lcm(a, b) of decimals, at scale max(sa, sb); non-negative. */
DecMathStatus decm_gcd(i128 a, int sa, i128 b, int sb, bool lcm, i128 *out, int *sout);
/* The bucket of op strictly between the bounds b1 and b2 (either order), as
 * PostgreSQL 15's width_bucket(numeric, ...) computes it: |op - b1| * count / |b2 - b1|
 * rounded at the scale of a numeric division, plus one, floored (count > 0). */
DecMathStatus decm_width_bucket_compute(i128 op, int sop, i128 b1, int s1, i128 b2, int s2, int32_t count, i128 *out);

#endif
