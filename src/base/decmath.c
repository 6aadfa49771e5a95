/* ln, log, exp and power of exact decimals (decmath.h), computed in a fixed-point
 * decimal with 72 fraction digits: 14 limbs of base 10^9, 8 of them after the point.
 * ln reduces x to m * 2^j * 10^k with m in [0.75, 1.5) and sums the atanh series of
 * (m - 1) / (m + 1); exp reduces x to r + k ln 2, sums the Taylor series of
 * r / 1024 and squares ten times. Result scales follow PostgreSQL's numeric.c
 * (estimate_ln_dweight, numeric_ln, log_var, numeric_exp, power_var). */
#include "base/decmath.h"

#include "base/decimal.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define NL 14                 /* limbs of a value */
#define FR 8                  /* limbs after the decimal point */
#define FRAC_DIGITS (9 * FR)  /* 72 */
#define BASE 1000000000u

typedef struct Fix {
    bool neg;
    uint32_t d[NL];           /* little-endian base-10^9 limbs of |value| * 10^72 */
} Fix;

static const uint32_t pow10_small[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                         1000000000};

/* ---- magnitudes ---- */

static bool is_zero(const Fix *a)
{
    for (int i = 0; i < NL; i++)
        if (a->d[i]) return false;
    return true;
}

static int mag_cmp(const uint32_t *a, const uint32_t *b)
{
    for (int i = NL - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* r = a + b (magnitudes); false on overflow. */
static bool mag_add(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t c = 0;
    for (int i = 0; i < NL; i++) {
        uint32_t t = a[i] + b[i] + c;
        c = t >= BASE;
        r[i] = c ? t - BASE : t;
    }
    return c == 0;
}

/* r = a - b with a >= b. */
static void mag_sub(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    int64_t borrow = 0;
    for (int i = 0; i < NL; i++) {
        int64_t t = (int64_t)a[i] - b[i] - borrow;
        borrow = t < 0;
        r[i] = (uint32_t)(borrow ? t + BASE : t);
    }
}

/* ---- signed fixed-point arithmetic (false on overflow) ---- */

static bool fix_add(Fix *r, const Fix *a, const Fix *b)
{
    Fix t;
    if (a->neg == b->neg) {
        t.neg = a->neg;
        if (!mag_add(t.d, a->d, b->d)) return false;
    } else if (mag_cmp(a->d, b->d) >= 0) {
        t.neg = a->neg;
        mag_sub(t.d, a->d, b->d);
    } else {
        t.neg = b->neg;
        mag_sub(t.d, b->d, a->d);
    }
    if (is_zero(&t)) t.neg = false;
    *r = t;
    return true;
}

static bool fix_sub(Fix *r, const Fix *a, const Fix *b)
{
    Fix nb = *b;
    nb.neg = !nb.neg;
    return fix_add(r, a, &nb);
}

static int used(const uint32_t *d, int n);

/* r = a * b, rounded to the last fraction digit of the representation. Partial
 * products below the second-to-last dropped limb are not formed: they change the
 * result by less than a unit of its 70th fraction digit. */
static bool fix_mul(Fix *r, const Fix *a, const Fix *b)
{
    uint64_t p[2 * NL + 1];
    memset(p, 0, sizeof p);
    int na = used(a->d, NL), nb = used(b->d, NL);
    for (int i = 0; i < na; i++) {
        if (!a->d[i]) continue;
        uint64_t carry = 0;
        int j0 = FR - 2 - i > 0 ? FR - 2 - i : 0;
        for (int j = j0; j < nb; j++) {
            uint64_t t = p[i + j] + (uint64_t)a->d[i] * b->d[j] + carry;
            p[i + j] = t % BASE;
            carry = t / BASE;
        }
        for (int k = i + nb; carry; k++) {
            uint64_t t = p[k] + carry;
            p[k] = t % BASE;
            carry = t / BASE;
        }
    }
    /* round at the dropped limbs */
    uint64_t carry = p[FR - 1] >= BASE / 2;
    for (int k = FR; k <= 2 * NL && carry; k++) {
        p[k] += carry;
        carry = p[k] >= BASE;
        if (carry) p[k] -= BASE;
    }
    for (int k = FR + NL; k <= 2 * NL; k++)
        if (p[k]) return false;
    for (int i = 0; i < NL; i++) r->d[i] = (uint32_t)p[FR + i];
    r->neg = a->neg != b->neg;
    if (is_zero(r)) r->neg = false;
    return true;
}

static bool fix_mul_small(Fix *r, const Fix *a, uint32_t m)
{
    uint64_t carry = 0;
    Fix t = *a;
    for (int i = 0; i < NL; i++) {
        uint64_t v = (uint64_t)a->d[i] * m + carry;
        t.d[i] = (uint32_t)(v % BASE);
        carry = v / BASE;
    }
    if (carry) return false;
    if (is_zero(&t)) t.neg = false;
    *r = t;
    return true;
}

/* r = a / m rounded half up at the last digit. */
static void fix_div_small(Fix *r, const Fix *a, uint32_t m)
{
    uint64_t rem = 0;
    Fix t = *a;
    for (int i = NL - 1; i >= 0; i--) {
        uint64_t v = rem * BASE + a->d[i];
        t.d[i] = (uint32_t)(v / m);
        rem = v % m;
    }
    if (rem * 2 >= m) {
        for (int i = 0; i < NL; i++) {
            if (++t.d[i] < BASE) break;
            t.d[i] = 0;
        }
    }
    if (is_zero(&t)) t.neg = false;
    *r = t;
}

/* Number of limbs up to the highest non-zero one. */
static int used(const uint32_t *d, int n)
{
    while (n > 0 && d[n - 1] == 0) n--;
    return n;
}

/* r = a / b (b != 0), truncated at the last digit: the long division of
 * |a| * 10^72 by |b| (Knuth's algorithm D in base 10^9). */
static bool fix_div(Fix *r, const Fix *a, const Fix *b)
{
    int n = used(b->d, NL);
    if (n == 0) return false;
    /* dividend: a's limbs shifted up by FR limbs */
    uint32_t u[NL + FR + 1];
    memset(u, 0, sizeof u);
    for (int i = 0; i < NL; i++) u[FR + i] = a->d[i];
    int m = NL + FR - n;
    uint32_t q[NL + FR + 1];
    memset(q, 0, sizeof q);
    if (n == 1) {
        uint64_t rem = 0, v = b->d[0];
        for (int i = NL + FR - 1; i >= 0; i--) {
            uint64_t t = rem * BASE + u[i];
            q[i] = (uint32_t)(t / v);
            rem = t % v;
        }
    } else {
        /* normalise so that the divisor's top limb is at least BASE / 2 */
        uint32_t dnorm = BASE / (b->d[n - 1] + 1);
        uint32_t v[NL];
        uint64_t carry = 0;
        for (int i = 0; i < n; i++) {
            uint64_t t = (uint64_t)b->d[i] * dnorm + carry;
            v[i] = (uint32_t)(t % BASE);
            carry = t / BASE;
        }
        carry = 0;
        for (int i = 0; i < NL + FR; i++) {
            uint64_t t = (uint64_t)u[i] * dnorm + carry;
            u[i] = (uint32_t)(t % BASE);
            carry = t / BASE;
        }
        u[NL + FR] = (uint32_t)carry;
        for (int j = m; j >= 0; j--) {
            uint64_t num = (uint64_t)u[j + n] * BASE + u[j + n - 1];
            uint64_t qhat = num / v[n - 1], rhat = num % v[n - 1];
            while (qhat >= BASE || qhat * v[n - 2] > rhat * BASE + u[j + n - 2]) {
                qhat--;
                rhat += v[n - 1];
                if (rhat >= BASE) break;
            }
            int64_t borrow = 0;
            uint64_t mc = 0;
            for (int i = 0; i < n; i++) {
                uint64_t p = qhat * v[i] + mc;
                mc = p / BASE;
                int64_t t = (int64_t)u[i + j] - (int64_t)(p % BASE) - borrow;
                borrow = t < 0;
                u[i + j] = (uint32_t)(borrow ? t + BASE : t);
            }
            int64_t t = (int64_t)u[j + n] - (int64_t)mc - borrow;
            if (t < 0) {
                /* qhat was one too large: add the divisor back */
                u[j + n] = (uint32_t)(t + BASE);
                qhat--;
                uint32_t c = 0;
                for (int i = 0; i < n; i++) {
                    uint32_t s = u[i + j] + v[i] + c;
                    c = s >= BASE;
                    u[i + j] = c ? s - BASE : s;
                }
                u[j + n] = (u[j + n] + c) % BASE;
            } else {
                u[j + n] = (uint32_t)t;
            }
            q[j] = (uint32_t)qhat;
        }
    }
    for (int i = NL; i < NL + FR + 1; i++)
        if (q[i]) return false;
    for (int i = 0; i < NL; i++) r->d[i] = q[i];
    r->neg = a->neg != b->neg;
    if (is_zero(r)) r->neg = false;
    return true;
}

/* ---- conversions ---- */

static void fix_from_int(Fix *r, int64_t v)
{
    memset(r, 0, sizeof *r);
    r->neg = v < 0;
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    for (int i = FR; m; i++) {
        r->d[i] = (uint32_t)(m % BASE);
        m /= BASE;
    }
}

/* n / 10^scale, exactly (|n| < 10^38, 0 <= scale <= 72). */
static void fix_from_dec(Fix *r, i128 n, int scale)
{
    memset(r, 0, sizeof *r);
    r->neg = n < 0;
    unsigned __int128 m = n < 0 ? (unsigned __int128)0 - (unsigned __int128)n : (unsigned __int128)n;
    int k = FRAC_DIGITS - scale;   /* decimal digits to shift up */
    int limb = k / 9;
    uint32_t mul = pow10_small[k % 9];
    uint64_t carry = 0;
    for (int i = limb; i < NL && (m || carry); i++) {
        uint64_t v = (uint64_t)(m % BASE) * mul + carry;
        m /= BASE;
        r->d[i] = (uint32_t)(v % BASE);
        carry = v / BASE;
    }
}

/* Parses a non-negative constant "d.ddd..." (at most 72 fraction digits used). */
static void fix_from_text(Fix *r, const char *s)
{
    memset(r, 0, sizeof *r);
    const char *dot = strchr(s, '.');
    int64_t ip = 0;
    for (const char *p = s; p < dot; p++) ip = ip * 10 + (*p - '0');
    fix_from_int(r, ip);
    int pos = 0;
    for (const char *p = dot + 1; *p && pos < FRAC_DIGITS; p++, pos++) {
        int limb = FR - 1 - pos / 9, within = 8 - pos % 9;
        r->d[limb] += (uint32_t)(*p - '0') * pow10_small[within];
    }
}

/* Rounds to `scale` fraction digits (half away from zero) into n; false when the
 * result needs 38 or more digits. */
static bool fix_to_dec(const Fix *a, int scale, i128 *n)
{
    int k = FRAC_DIGITS - scale;   /* digits to drop */
    int limb = k / 9, j = k % 9;
    uint32_t h[NL];
    memset(h, 0, sizeof h);
    for (int i = limb; i < NL; i++) h[i - limb] = a->d[i];
    bool up;
    if (j == 0) {
        up = limb > 0 && a->d[limb - 1] >= BASE / 2;
    } else {
        uint64_t rem = 0;
        for (int i = NL - 1; i >= 0; i--) {
            uint64_t v = rem * BASE + h[i];
            h[i] = (uint32_t)(v / pow10_small[j]);
            rem = v % pow10_small[j];
        }
        up = rem >= pow10_small[j] / 2;
    }
    if (up) {
        for (int i = 0; i < NL; i++) {
            if (++h[i] < BASE) break;
            h[i] = 0;
        }
    }
    unsigned __int128 v = 0;
    for (int i = NL - 1; i >= 0; i--) {
        if (v > (~(unsigned __int128)0) / BASE - 1) return false;
        v = v * BASE + h[i];
    }
    if (v >= (unsigned __int128)dec_pow10(DEC_MAX_DIGITS)) return false;
    *n = a->neg ? -(i128)v : (i128)v;
    return true;
}

static double fix_to_double(const Fix *a)
{
    double v = 0;
    for (int i = NL - 1; i >= 0; i--) v = v * BASE + a->d[i];
    v /= 1e72;
    return a->neg ? -v : v;
}

/* ---- constants ---- */

/* Made once for every thread that evaluates (weir run --workers N). */
static Fix ln2_c, ln10_c;
static pthread_once_t consts_once = PTHREAD_ONCE_INIT;

static void consts_init(void)
{
    fix_from_text(&ln2_c, "0.693147180559945309417232121458176568075500134360255254120680009493393621969694715605863327");
    fix_from_text(&ln10_c, "2.302585092994045684017991454684364207601101488628772976033327900967572609677352480235997205");
}

static const Fix *ln2(void)
{
    pthread_once(&consts_once, consts_init);
    return &ln2_c;
}

static const Fix *ln10(void)
{
    pthread_once(&consts_once, consts_init);
    return &ln10_c;
}

/* ---- ln and exp ---- */

static int ndigits(unsigned __int128 m)
{
    int d = 1;
    while (m >= 10) {
        m /= 10;
        d++;
    }
    return d;
}

/* ln(m) for m near 1 (|m - 1| <= 0.5): 2 atanh((m - 1) / (m + 1)) by its series. */
static void fix_ln_near1(Fix *r, const Fix *mv)
{
    Fix m = *mv, one, num, den, z, z2, pw, term, sum;
    fix_from_int(&one, 1);
    fix_sub(&num, &m, &one);
    fix_add(&den, &m, &one);
    fix_div(&z, &num, &den);
    fix_mul(&z2, &z, &z);
    sum = z;
    pw = z;
    for (uint32_t t = 3; t < 400; t += 2) {
        fix_mul(&pw, &pw, &z2);
        fix_div_small(&term, &pw, t);
        if (is_zero(&term)) break;
        fix_add(&sum, &sum, &term);
    }
    fix_mul_small(r, &sum, 2);
}

/* ln(k / 64) for k = 48 .. 96, computed once: the table that brings the argument of
 * the series within 1/128 of 1. */
static Fix ln_table[49];
static pthread_once_t ln_table_once = PTHREAD_ONCE_INIT;

static void ln_table_init(void)
{
    for (int k = 48; k <= 96; k++) {
        Fix c;
        fix_from_int(&c, k);
        fix_div_small(&c, &c, 64);
        fix_ln_near1(&ln_table[k - 48], &c);
    }
}

static const Fix *ln_k64(int k)
{
    pthread_once(&ln_table_once, ln_table_init);
    return &ln_table[k - 48];
}

/* ln(n / 10^scale) for n > 0: x = m * 2^j * 10^k with m in [0.75, 1.5), then
 * ln(m) = ln(c) + ln(m / c) for the nearest c = k/64. */
static void fix_ln(Fix *r, i128 n, int scale)
{
    int digits = ndigits((unsigned __int128)n);
    int k = digits - 1 - scale;                /* x = m * 10^k, 1 <= m < 10 */
    Fix m, limit, sum;
    fix_from_dec(&m, n, digits - 1);
    fix_from_text(&limit, "1.5");
    int j = 0;
    while (mag_cmp(m.d, limit.d) >= 0) {
        fix_div_small(&m, &m, 2);
        j++;
    }
    /* c = round(64 m) / 64 */
    int c = (int)(fix_to_double(&m) * 64 + 0.5);
    if (c < 48) c = 48;
    if (c > 96) c = 96;
    Fix y;
    fix_mul_small(&y, &m, 64);
    fix_div_small(&y, &y, (uint32_t)c);
    fix_ln_near1(&sum, &y);
    fix_add(&sum, &sum, ln_k64(c));
    Fix part;
    fix_mul_small(&part, ln2(), (uint32_t)j);
    fix_add(&sum, &sum, &part);
    fix_mul_small(&part, ln10(), (uint32_t)(k < 0 ? -k : k));
    if (k < 0) part.neg = !is_zero(&part);
    fix_add(r, &sum, &part);
}

/* exp(x); false when the result does not fit the representation. */
static bool fix_exp(Fix *r, const Fix *x)
{
    double xd = fix_to_double(x);
    if (xd > 120) return false;
    if (xd < -170) {   /* far below the smallest representable digit */
        memset(r, 0, sizeof *r);
        return true;
    }
    long k = lround(xd / 0.6931471805599453);
    Fix kl, rr, s, term;
    fix_mul_small(&kl, ln2(), (uint32_t)(k < 0 ? -k : k));
    if (k < 0) kl.neg = !is_zero(&kl);
    fix_sub(&rr, x, &kl);
    fix_div_small(&rr, &rr, 1024);
    fix_from_int(&s, 1);
    fix_from_int(&term, 1);
    for (uint32_t i = 1; i < 100; i++) {
        fix_mul(&term, &term, &rr);
        fix_div_small(&term, &term, i);
        if (is_zero(&term)) break;
        fix_add(&s, &s, &term);
    }
    for (int i = 0; i < 10; i++)
        if (!fix_mul(&s, &s, &s)) return false;
    for (long e = k; e > 0; e -= 29)
        if (!fix_mul_small(&s, &s, (uint32_t)1 << (e < 29 ? e : 29))) return false;
    for (long e = -k; e > 0; e -= 29) fix_div_small(&s, &s, (uint32_t)1 << (e < 29 ? e : 29));
    *r = s;
    return true;
}

/* ---- PostgreSQL's scales ---- */

/* The base-10000 digits of n / 10^scale the way PostgreSQL's NumericVar holds them:
 * the first one or two digits (two when a non-zero one follows the first), and the
 * decimal weight of the last one taken. n != 0. */
static void nbase_lead(i128 n, int scale, int *digits, int *dweight)
{
    unsigned __int128 m = n < 0 ? (unsigned __int128)0 - (unsigned __int128)n : (unsigned __int128)n;
    /* align the point to a group of four digits */
    int pad = (4 - scale % 4) % 4;
    int s4 = scale + pad;
    unsigned __int128 groups[16];
    int ng = 0;
    for (int i = 0; i < pad; i++) m *= 10;   /* m < 10^41: fits */
    while (m) {
        groups[ng++] = m % 10000;
        m /= 10000;
    }
    int weight = ng - 1 - s4 / 4;           /* of the leading group */
    int lead = (int)groups[ng - 1];
    bool more = false;
    for (int i = ng - 2; i >= 0; i--)
        if (groups[i]) more = true;
    if (more) {
        *digits = lead * 10000 + (int)groups[ng - 2];
        *dweight = weight * 4 - 4;
    } else {
        *digits = lead;
        *dweight = weight * 4;
    }
}

/* PostgreSQL's estimate_ln_dweight: the decimal weight of ln(x) (x > 0). */
static int estimate_ln_dweight(i128 n, int scale)
{
    /* 0.9 <= x <= 1.1: the weight of x - 1 */
    if (dec_cmp(n, scale, 9, 1) >= 0 && dec_cmp(n, scale, 11, 1) <= 0) {
        i128 lo = n - dec_pow10(scale);
        if (lo == 0) return 0;
        int d, w;
        nbase_lead(lo, scale, &d, &w);
        /* the first base-10000 digit of x - 1 and its weight */
        int first = d >= 10000 ? d / 10000 : d;
        int fw = d >= 10000 ? w + 4 : w;
        return fw + (int)log10((double)first);
    }
    int digits, dweight;
    nbase_lead(n, scale, &digits, &dweight);
    double ln_var = log((double)digits) + dweight * 2.302585092994046;
    return (int)log10(fabs(ln_var));
}

/* Rounds r to rscale (lowered while the result would need more than 38 digits). */
static DecMathStatus finish(const Fix *r, int rscale, i128 *out, int *sout)
{
    if (rscale > DEC_MAX_SCALE) rscale = DEC_MAX_SCALE;
    if (rscale < 0) rscale = 0;
    for (int s = rscale; s >= 0; s--)
        if (fix_to_dec(r, s, out)) {
            *sout = s;
            return DECM_OK;
        }
    return DECM_OVERFLOW;
}

static int clamp_scale(int rscale, int dscale)
{
    if (rscale < dscale) rscale = dscale;
    if (rscale < 0) rscale = 0;
    if (rscale > 1000) rscale = 1000;
    return rscale;
}

const char *decm_message(DecMathStatus st)
{
    switch (st) {
    case DECM_LOG_ZERO: return "cannot take logarithm of zero";
    case DECM_LOG_NEGATIVE: return "cannot take logarithm of a negative number";
    case DECM_DIV_ZERO: return "division by zero";
    case DECM_OVERFLOW: return "value overflows numeric format";
    case DECM_OK: break;
    }
    return "";
}

static DecMathStatus log_arg(i128 n)
{
    return n == 0 ? DECM_LOG_ZERO : n < 0 ? DECM_LOG_NEGATIVE : DECM_OK;
}

DecMathStatus decm_ln(i128 n, int scale, i128 *out, int *sout)
{
    DecMathStatus st = log_arg(n);
    if (st) return st;
    int rscale = clamp_scale(16 - estimate_ln_dweight(n, scale), scale);
    Fix r;
    fix_ln(&r, n, scale);
    return finish(&r, rscale, out, sout);
}

DecMathStatus decm_log(i128 bn, int bscale, i128 n, int scale, i128 *out, int *sout)
{
    DecMathStatus st = log_arg(bn);
    if (st) return st;
    if ((st = log_arg(n))) return st;
    int result_dweight = estimate_ln_dweight(n, scale) - estimate_ln_dweight(bn, bscale);
    int rscale = clamp_scale(clamp_scale(16 - result_dweight, bscale), scale);
    Fix lb, lx, r;
    fix_ln(&lb, bn, bscale);
    fix_ln(&lx, n, scale);
    if (is_zero(&lb)) return DECM_DIV_ZERO;
    if (!fix_div(&r, &lx, &lb)) return DECM_OVERFLOW;
    return finish(&r, rscale, out, sout);
}

DecMathStatus decm_exp(i128 n, int scale, i128 *out, int *sout)
{
    double val = dec_to_double(n, scale) * 0.434294481903252;
    if (val < -2000) val = -2000;
    if (val > 2000) val = 2000;
    int rscale = clamp_scale(16 - (int)val, scale);
    Fix x, r;
    fix_from_dec(&x, n, scale);
    if (!fix_exp(&r, &x)) return DECM_OVERFLOW;
    return finish(&r, rscale, out, sout);
}

/* v rounded to `scale` fraction digits, as a double (PostgreSQL's low-precision pass). */
static double rounded_double(const Fix *v, int scale)
{
    if (scale > FRAC_DIGITS) return fix_to_double(v);
    i128 n;
    if (scale > DEC_MAX_SCALE || !fix_to_dec(v, scale, &n)) return fix_to_double(v);
    return dec_to_double(n, scale);
}

DecMathStatus decm_power(i128 bn, int bscale, i128 xn, int xscale, i128 *out, int *sout)
{
    /* the result's decimal weight from a low-precision exp * ln(base), as PostgreSQL */
    int ln_dweight = estimate_ln_dweight(bn, bscale);
    int local = 8 - ln_dweight;
    if (local < 0) local = 0;
    Fix lb, x, prod;
    fix_ln(&lb, bn, bscale);
    fix_from_dec(&x, xn, xscale);
    Fix lbr;
    i128 t;
    if (local <= DEC_MAX_SCALE && fix_to_dec(&lb, local, &t)) fix_from_dec(&lbr, t, local);
    else lbr = lb;
    if (!fix_mul(&prod, &lbr, &x)) return DECM_OVERFLOW;
    double val = rounded_double(&prod, local);
    if (fabs(val) > 2000 * 3.01) {
        if (val > 0) return DECM_OVERFLOW;
        *out = 0;
        *sout = DEC_MAX_SCALE;
        return DECM_OK;
    }
    val *= 0.434294481903252;
    int rscale = clamp_scale(clamp_scale(16 - (int)val, bscale), xscale);
    /* the full-precision exp(x * ln(base)) */
    Fix r;
    if (!fix_mul(&prod, &lb, &x) || !fix_exp(&r, &prod)) return DECM_OVERFLOW;
    return finish(&r, rscale, out, sout);
}

DecMathStatus decm_power_scaled(i128 bn, int bscale, int64_t k, int rscale, i128 *out, int *sout)
{
    bool neg = bn < 0 && (k & 1);
    Fix lb, x, prod, r;
    fix_ln(&lb, bn < 0 ? -bn : bn, bscale);
    fix_from_int(&x, k);
    if (!fix_mul(&prod, &lb, &x) || !fix_exp(&r, &prod)) return DECM_OVERFLOW;
    r.neg = neg && !is_zero(&r);
    return finish(&r, rscale, out, sout);
}

/* ---- exact helpers: div, gcd, lcm, width_bucket ---- */

/* Drops the fraction limbs (truncation toward zero). */
static void fix_trunc(Fix *r, const Fix *a)
{
    *r = *a;
    memset(r->d, 0, sizeof(uint32_t) * FR);
    if (is_zero(r)) r->neg = false;
}

DecMathStatus decm_div_trunc(i128 a, int sa, i128 b, int sb, i128 *out)
{
    if (b == 0) return DECM_DIV_ZERO;
    Fix x, y, q;
    fix_from_dec(&x, a, sa);
    fix_from_dec(&y, b, sb);
    if (!fix_div(&q, &x, &y)) return DECM_OVERFLOW;
    fix_trunc(&q, &q);
    return fix_to_dec(&q, 0, out) ? DECM_OK : DECM_OVERFLOW;
}

/* a mod b = a - trunc(a / b) * b, exactly (b != 0). */
static bool fix_mod(Fix *r, const Fix *a, const Fix *b)
{
    Fix q, p;
    if (!fix_div(&q, a, b)) return false;
    fix_trunc(&q, &q);
    if (!fix_mul(&p, &q, b)) return false;
    return fix_sub(r, a, &p);
}

static bool fix_gcd(Fix *r, const Fix *a, const Fix *b)
{
    Fix x = *a, y = *b, t;
    x.neg = y.neg = false;
    while (!is_zero(&y)) {
        if (!fix_mod(&t, &x, &y)) return false;
        x = y;
        y = t;
        y.neg = false;
    }
    *r = x;
    return true;
}

DecMathStatus decm_gcd(i128 a, int sa, i128 b, int sb, bool lcm, i128 *out, int *sout)
{
    int s = sa > sb ? sa : sb;
    *sout = s;
    if (lcm && (a == 0 || b == 0)) {
        *out = 0;
        return DECM_OK;
    }
    Fix x, y, g, r;
    fix_from_dec(&x, a, sa);
    fix_from_dec(&y, b, sb);
    if (!fix_gcd(&g, &x, &y)) return DECM_OVERFLOW;
    if (!lcm) {
        r = g;
    } else {
        Fix q;
        if (!fix_div(&q, &x, &g)) return DECM_OVERFLOW;
        fix_trunc(&q, &q);
        if (!fix_mul(&r, &q, &y)) return DECM_OVERFLOW;
        r.neg = false;
    }
    return fix_to_dec(&r, s, out) ? DECM_OK : DECM_OVERFLOW;
}

/* The first non-zero base-10000 digit of |a| and its weight, as PostgreSQL's
 * NumericVar has them (groups of four digits aligned at the decimal point); 0 and 0
 * for zero. */
static void fix_nbase_first(const Fix *a, int *first, int *weight)
{
    char dig[9 * NL + 1];   /* all digits, most significant first; the point after 9 * (NL - FR) */
    for (int i = NL - 1, k = 0; i >= 0; i--, k += 9)
        for (int j = 8, v = (int)a->d[i]; j >= 0; j--, v /= 10) dig[k + j] = (char)('0' + v % 10);
    int ipart = 9 * (NL - FR);
    *first = 0;
    *weight = 0;
    /* group g covers the digits of 10^(4g) .. 10^(4g+3); from the highest group down */
    for (int g = (ipart + 3) / 4 - 1; g >= -(FRAC_DIGITS + 3) / 4; g--) {
        int v = 0;
        for (int e = 4 * g + 3; e >= 4 * g; e--) {
            int pos = ipart - 1 - e;   /* index of the digit of 10^e */
            v = v * 10 + (pos >= 0 && pos < 9 * NL ? dig[pos] - '0' : 0);
        }
        if (v) {
            *first = v;
            *weight = g;
            return;
        }
    }
}

/* Rounds |a| half up at `scale` fraction digits (0 <= scale <= 72). */
static void fix_round_at(Fix *a, int scale)
{
    int k = FRAC_DIGITS - scale;   /* digits to clear */
    if (k <= 0) return;
    int limb = (k - 1) / 9, j = (k - 1) % 9;   /* position of the first cleared digit */
    bool up = (a->d[limb] / pow10_small[j]) % 10 >= 5;
    for (int i = 0; i < limb; i++) a->d[i] = 0;
    a->d[limb] -= a->d[limb] % (j == 8 ? BASE : pow10_small[j + 1]);
    if (up) {
        uint32_t add = j == 8 ? 0 : pow10_small[j + 1];
        int i = limb;
        if (j == 8) {
            i = limb + 1;
            add = 1;
        }
        for (; i < NL && add; i++) {
            uint32_t t = a->d[i] + add;
            add = t >= BASE;
            a->d[i] = add ? t - BASE : t;
        }
    }
}

DecMathStatus decm_width_bucket_compute(i128 op, int sop, i128 b1, int s1, i128 b2, int s2, int32_t count, i128 *out)
{
    /* PostgreSQL 15's compute_bucket: (|op - b1| * count) / |b2 - b1| rounded at
     * select_div_scale, plus one, floored */
    Fix x, lo, hi, num, den, q, one;
    fix_from_dec(&x, op, sop);
    fix_from_dec(&lo, b1, s1);
    fix_from_dec(&hi, b2, s2);
    bool reversed = dec_cmp(b1, s1, b2, s2) > 0;
    if (!reversed) {
        fix_sub(&num, &x, &lo);
        fix_sub(&den, &hi, &lo);
    } else {
        fix_sub(&num, &lo, &x);
        fix_sub(&den, &lo, &hi);
    }
    if (!fix_mul_small(&num, &num, (uint32_t)count) || !fix_div(&q, &num, &den)) return DECM_OVERFLOW;
    int f1, w1, f2, w2;
    fix_nbase_first(&num, &f1, &w1);
    fix_nbase_first(&den, &f2, &w2);
    int qweight = w1 - w2 - (f1 <= f2);
    int dnum = sop > s1 ? sop : s1, dden = s1 > s2 ? s1 : s2;
    int rscale = clamp_scale(clamp_scale(16 - qweight * 4, dnum), dden);
    if (rscale > FRAC_DIGITS) rscale = FRAC_DIGITS;
    fix_round_at(&q, rscale);
    fix_trunc(&q, &q);
    fix_from_int(&one, 1);
    fix_add(&q, &q, &one);
    return fix_to_dec(&q, 0, out) ? DECM_OK : DECM_OVERFLOW;
}
