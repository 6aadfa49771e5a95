/* Exact decimal arithmetic on a 128-bit scaled integer: a value is n / 10^scale with
 * |n| < 10^38 and 0 <= scale <= 38. This is weir's NUMERIC; results follow PostgreSQL's
 * numeric semantics (result scales, half-away-from-zero rounding) within that range.
 *
 * Range rule (where weir differs from PostgreSQL, whose numeric is unbounded): a result
 * keeps PostgreSQL's scale when it fits in 38 digits; when it does not, fraction digits
 * are rounded off (half away from zero) until it fits, and a result scale is never
 * above 38. Only a result whose integer part needs more than 38 digits is an overflow.
 *
 * No function here allocates; none keeps a pointer to its arguments. */
#ifndef WEIR_BASE_DECIMAL_H
#define WEIR_BASE_DECIMAL_H

#include "base/strbuf.h"
#include "base/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEC_MAX_DIGITS 38   /* |n| < 10^38 */
#define DEC_MAX_SCALE 38

/* 10^k for 0 <= k <= 38 (the table the arithmetic uses; exposed for callers that
 * align scales themselves). */
i128 dec_pow10(int k);

/* Exact parse of PostgreSQL numeric input: surrounding whitespace, [+-], digits with an
 * optional '.', an optional exponent e[+-]digits. The scale is PostgreSQL's display
 * scale: fraction digits minus the exponent, at least 0 ("1.50" -> 150/2, "1e3" ->
 * 1000/0, "1.5e-3" -> 15/4), capped by the range rule above. Returns false on a syntax
 * error or when the integer part needs more than 38 digits ("NaN"/"Infinity" are
 * syntax errors here: weir's numeric has no special values). */
bool dec_parse(const char *s, size_t len, i128 *n, int *scale);
/* Like dec_parse but rounds (half away from zero) directly to target_scale (0..38),
 * with a single rounding step from the exact input, and fails when the result does
 * not fit in 38 digits or, as in PostgreSQL, when the input's own scale exceeds 16383.
 * Used for numeric(p,s) input. */
bool dec_parse_scale(const char *s, size_t len, int target_scale, i128 *n);
/* Like dec_parse, and *syntax_ok tells a syntax error (false) from an overflow (true). */
bool dec_parse_ex(const char *s, size_t len, i128 *n, int *scale, bool *syntax_ok);
/* The exact value of numeric input with PostgreSQL's display scale, never rounded:
 * 1 on success, 0 on a syntax error, -1 when the value needs more than 38 digits or
 * more than 38 after the point ("1e-39", a 42-digit fraction), which dec_parse would
 * round to fit. For reading data, where a silently changed value is worse than none. */
int dec_parse_exact(const char *s, size_t len, i128 *n, int *scale);

/* PostgreSQL text output: keeps the scale's trailing zeros ("15.50", "-0.05", "0"). */
void dec_format(i128 n, int scale, StrBuf *out);
/* Same into a caller buffer of at least DEC_FMT_BUFSIZE bytes; returns the length
 * (the buffer is NUL-terminated). */
#define DEC_FMT_BUFSIZE 48
size_t dec_format_buf(i128 n, int scale, char *buf);

/* Changes the scale of n (rounding half away from zero when it shrinks). False when
 * the result needs 38 or more digits or new_scale is outside 0..38. */
bool dec_rescale(i128 n, int scale, int new_scale, i128 *out);

/* a + b and a - b: scale max(sa, sb). */
bool dec_add(i128 a, int sa, i128 b, int sb, i128 *out, int *sout);
bool dec_sub(i128 a, int sa, i128 b, int sb, i128 *out, int *sout);
/* a * b: scale sa + sb (capped at 38 by rounding, see the range rule). */
bool dec_mul(i128 a, int sa, i128 b, int sb, i128 *out, int *sout);
/* a / b rounded half away from zero at PostgreSQL's select_div_scale (at least 16
 * significant digits, at least max(sa, sb)), capped at 38. False when b == 0. */
bool dec_div(i128 a, int sa, i128 b, int sb, i128 *out, int *sout);
/* a % b (PostgreSQL numeric %: a - trunc(a/b)*b, sign of a), scale max(sa, sb).
 * False when b == 0. */
bool dec_mod(i128 a, int sa, i128 b, int sb, i128 *out, int *sout);

/* Compares values (not representations): 1.50 == 1.5. Returns <0, 0, >0. */
int dec_cmp(i128 a, int sa, i128 b, int sb);

/* Nearest double (correctly rounded). */
double dec_to_double(i128 n, int scale);
/* float8 -> numeric the way PostgreSQL casts it: through the 15-significant-digit text
 * form (%.15g, DBL_DIG), then rounded half away from zero to `scale` (0..38). False for
 * NaN/Infinity or when the value does not fit. */
bool dec_from_double(double d, int scale, i128 *out);
/* General form: sig_digits significant digits of text (15 for float8, 6 for float4,
 * as PostgreSQL's casts use); scale < 0 keeps the natural scale of that text. */
bool dec_from_double_ex(double d, int sig_digits, int scale, i128 *out, int *sout);

/* numeric(precision, scale) check for a value already at that scale: |n| < 10^precision.
 * False means PostgreSQL's "numeric field overflow". */
bool dec_fits_precision(i128 n, int scale, int precision);

/* round(x, digits) / trunc(x, digits): digits may be negative (round(1234.5, -2) = 1200).
 * Result scale max(digits, 0) as PostgreSQL (round(1.5, 5) = 1.50000), capped at 38. */
bool dec_round(i128 n, int scale, int digits, i128 *out, int *sout);
bool dec_trunc(i128 n, int scale, int digits, i128 *out, int *sout);
/* floor / ceil: result scale 0. */
bool dec_floor(i128 n, int scale, i128 *out);
bool dec_ceil(i128 n, int scale, i128 *out);
/* |n| (same scale; cannot overflow for a valid value). */
i128 dec_abs(i128 n);

/* Hash that is equal for equal values (1.50 and 1.5): trailing zeros are stripped first. */
uint64_t dec_hash(i128 n, int scale, uint64_t seed);
/* Strip trailing fraction zeros: the canonical (smallest-scale) representation. */
void dec_normalize(i128 *n, int *scale);

#endif
