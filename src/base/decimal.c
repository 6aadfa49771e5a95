/* Exact decimal arithmetic on 128-bit scaled integers (see decimal.h). The common
 * cases (same scale, products and quotients that fit in 128 bits) stay on native
 * __int128 operations; the rest go through a small 256-bit unsigned helper so that
 * every result is computed exactly and rounded once. */
#include "base/decimal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/hash.h"

typedef unsigned __int128 u128;

#define E19 ((u128)10000000000000000000ULL)

static const u128 P10[39] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
    100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
    10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
    100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
    E19 * 10ULL, E19 * 100ULL, E19 * 1000ULL, E19 * 10000ULL, E19 * 100000ULL,
    E19 * 1000000ULL, E19 * 10000000ULL, E19 * 100000000ULL, E19 * 1000000000ULL,
    E19 * 10000000000ULL, E19 * 100000000000ULL, E19 * 1000000000000ULL,
    E19 * 10000000000000ULL, E19 * 100000000000000ULL, E19 * 1000000000000000ULL,
    E19 * 10000000000000000ULL, E19 * 100000000000000000ULL, E19 * 1000000000000000000ULL,
    E19 * 10000000000000000000ULL,
};
#define P38 ((i128)P10[38])

i128 dec_pow10(int k) { return (k >= 0 && k <= 38) ? (i128)P10[k] : 0; }

static inline u128 uabs(i128 v) { return v < 0 ? (u128)0 - (u128)v : (u128)v; }
static inline bool in_range(i128 v) { return v < P38 && v > -P38; }

static int clz128(u128 v)
{
    uint64_t hi = (uint64_t)(v >> 64);
    if (hi) return __builtin_clzll(hi);
    uint64_t lo = (uint64_t)v;
    return lo ? 64 + __builtin_clzll(lo) : 128;
}

/* Number of decimal digits of v (1 for 0). */
static int digits128(u128 v)
{
    int bits = 128 - clz128(v);
    int d = (bits * 1233) >> 12;          /* floor(bits * log10(2)) */
    if (v >= P10[d]) d++;   /* d <= 38 since bits <= 128 */
    return d ? d : 1;
}

/* ---- 256-bit unsigned helper (slow paths only) ---- */

typedef struct U256 { u128 hi, lo; } U256;

static inline U256 w(u128 v) { U256 r = {0, v}; return r; }
static inline bool fits128(U256 a) { return a.hi == 0; }

static int wcmp(U256 a, U256 b)
{
    if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
    return 0;
}

static U256 wadd(U256 a, U256 b)
{
    U256 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

static U256 wsub(U256 a, U256 b)
{
    U256 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    return r;
}

static U256 mul128(u128 a, u128 b)
{
    uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64);
    uint64_t b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
    u128 p00 = (u128)a0 * b0, p01 = (u128)a0 * b1, p10 = (u128)a1 * b0, p11 = (u128)a1 * b1;
    u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
    U256 r;
    r.lo = (u128)(uint64_t)p00 | (mid << 64);
    r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    return r;
}

/* a * m, assuming the product fits in 256 bits. */
static U256 wmul64(U256 a, uint64_t m)
{
    U256 r = mul128(a.lo, m);
    r.hi += a.hi * m;
    return r;
}

/* a * 10^k (k <= 76), assuming the product fits. */
static U256 wmul_pow10(U256 a, int k)
{
    while (k > 19) {
        a = wmul64(a, (uint64_t)P10[19]);
        k -= 19;
    }
    return wmul64(a, (uint64_t)P10[k]);
}

static U256 wpow10(int k) { return k <= 38 ? w(P10[k]) : wmul_pow10(w(P10[38]), k - 38); }

static int wclz(U256 a) { return a.hi ? clz128(a.hi) : 128 + clz128(a.lo); }

static U256 wshl(U256 a, int s)
{
    if (s == 0) return a;
    U256 r;
    if (s >= 128) { r.hi = a.lo << (s - 128); r.lo = 0; }
    else { r.hi = (a.hi << s) | (a.lo >> (128 - s)); r.lo = a.lo << s; }
    return r;
}

static U256 wshr1(U256 a)
{
    U256 r;
    r.lo = (a.lo >> 1) | (a.hi << 127);
    r.hi = a.hi >> 1;
    return r;
}

/* n = q*d + r, d != 0. */
static void wdivmod(U256 n, U256 d, U256 *q, U256 *r)
{
    if (fits128(n) && fits128(d)) {
        *q = w(n.lo / d.lo);
        *r = w(n.lo % d.lo);
        return;
    }
    U256 quo = {0, 0};
    if (wcmp(n, d) < 0) { *q = quo; *r = n; return; }
    int shift = wclz(d) - wclz(n);
    U256 ds = wshl(d, shift);
    for (int i = shift; i >= 0; i--) {
        quo = wshl(quo, 1);
        if (wcmp(n, ds) >= 0) {
            n = wsub(n, ds);
            quo.lo |= 1;
        }
        ds = wshr1(ds);
    }
    *q = quo;
    *r = n;
}

static int wdigits(U256 a)
{
    if (fits128(a)) return digits128(a.lo);
    int d = 39;
    while (d < 77 && wcmp(a, wpow10(d)) >= 0) d++;
    return d;
}

/* a / 10^k rounded half away from zero (k <= 76). */
static U256 wround_pow10(U256 a, int k)
{
    if (k == 0) return a;
    U256 d = wpow10(k), q, r;
    wdivmod(a, d, &q, &r);
    if (wcmp(r, wsub(d, r)) >= 0) q = wadd(q, w(1));
    return q;
}

/* Brings magnitude mag at scale s into range: caps the scale at 38 and rounds fraction
 * digits off until |n| < 10^38, in one rounding step. */
static bool fit(U256 mag, bool neg, int s, i128 *out, int *sout)
{
    if (s > DEC_MAX_SCALE || !fits128(mag) || mag.lo >= P10[38]) {
        int drop = wdigits(mag) - DEC_MAX_DIGITS;
        if (s - DEC_MAX_SCALE > drop) drop = s - DEC_MAX_SCALE;
        if (drop > s) return false;
        if (drop > 0) {
            mag = wround_pow10(mag, drop);
            s -= drop;
        }
        if (!fits128(mag) || mag.lo >= P10[38]) {   /* rounding carried to exactly 10^38 */
            if (s == 0) return false;
            mag = wround_pow10(mag, 1);
            s -= 1;
        }
    }
    *out = neg ? -(i128)mag.lo : (i128)mag.lo;
    *sout = s;
    return true;
}

/* ---- parsing ---- */

typedef struct NumText {
    bool neg;
    const char *ip, *fp;   /* integer and fraction digit runs */
    size_t ni, nf;
    long exp;
} NumText;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool scan(const char *s, size_t len, NumText *t)
{
    size_t i = 0;
    memset(t, 0, sizeof *t);
    while (i < len && is_space(s[i])) i++;
    if (i < len && (s[i] == '+' || s[i] == '-')) t->neg = s[i++] == '-';
    t->ip = s + i;
    while (i < len && is_digit(s[i])) { i++; t->ni++; }
    if (i < len && s[i] == '.') {
        i++;
        t->fp = s + i;
        while (i < len && is_digit(s[i])) { i++; t->nf++; }
    }
    if (t->ni + t->nf == 0) return false;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        if (i >= len || !is_digit(s[i])) return false;
        long e = 0;
        while (i < len && is_digit(s[i])) {
            if (e < 100000000L) e = e * 10 + (s[i] - '0');
            i++;
        }
        t->exp = eneg ? -e : e;
    }
    while (i < len && is_space(s[i])) i++;
    return i == len;
}

static int digit_at(const NumText *t, size_t i)
{
    return (i < t->ni ? t->ip[i] : t->fp[i - t->ni]) - '0';
}

static size_t first_nonzero(const NumText *t)
{
    size_t n = t->ni + t->nf, i = 0;
    while (i < n && digit_at(t, i) == 0) i++;
    return i;
}

/* Value of t at scale T, rounded half away from zero; false if |n| >= 10^38. */
static bool build(const NumText *t, long T, i128 *out)
{
    size_t total = t->ni + t->nf, f = first_nonzero(t);
    long sig = (long)(total - f);
    long k = t->exp - (long)t->nf + T;
    u128 acc = 0;
    if (sig == 0) { *out = 0; return true; }
    if (k >= 0) {
        if (sig + k > DEC_MAX_DIGITS) return false;
        for (size_t i = f; i < total; i++) acc = acc * 10 + (u128)digit_at(t, i);
        acc *= P10[k];
    } else {
        long keep = sig + k;
        if (keep > DEC_MAX_DIGITS) return false;
        if (keep >= 0) {
            for (long i = 0; i < keep; i++) acc = acc * 10 + (u128)digit_at(t, f + (size_t)i);
            if (digit_at(t, f + (size_t)keep) >= 5) acc++;
        }
        if (acc >= P10[38]) return false;
    }
    *out = t->neg ? -(i128)acc : (i128)acc;
    return true;
}

bool dec_parse_ex(const char *s, size_t len, i128 *n, int *scale, bool *syntax_ok)
{
    NumText t;
    *syntax_ok = scan(s, len, &t);
    if (!*syntax_ok) return false;
    long nat = (long)t.nf - t.exp;
    if (nat < 0) nat = 0;
    long T = nat < DEC_MAX_SCALE ? nat : DEC_MAX_SCALE;
    long sig = (long)(t.ni + t.nf - first_nonzero(&t));
    if (sig > 0) {
        long intd = sig + t.exp - (long)t.nf;   /* digits left of the point */
        if (intd > DEC_MAX_DIGITS) return false;
        if (T > DEC_MAX_DIGITS - intd) T = DEC_MAX_DIGITS - intd;
    }
    for (;;) {
        if (build(&t, T, n)) { *scale = (int)T; return true; }
        if (T == 0) return false;
        T--;
    }
}

int dec_parse_exact(const char *s, size_t len, i128 *n, int *scale)
{
    NumText t;
    if (!scan(s, len, &t)) return 0;
    long nat = (long)t.nf - t.exp;
    if (nat < 0) nat = 0;
    /* at the natural scale build keeps every digit (it never rounds) or fails */
    if (nat > DEC_MAX_SCALE || !build(&t, nat, n)) return -1;
    *scale = (int)nat;
    return 1;
}

bool dec_parse(const char *s, size_t len, i128 *n, int *scale)
{
    bool ok;
    return dec_parse_ex(s, len, n, scale, &ok);
}

bool dec_parse_scale(const char *s, size_t len, int target_scale, i128 *n)
{
    NumText t;
    if (target_scale < 0 || target_scale > DEC_MAX_SCALE) return false;
    if (!scan(s, len, &t)) return false;
    /* PostgreSQL refuses input whose own scale exceeds its 16383 digits before any
     * rounding to the type ("1e-20000"::numeric(12,2) overflows, "1e-16383" is 0.00) */
    if ((long)t.nf - t.exp > 16383) return false;
    return build(&t, target_scale, n);
}

/* ---- formatting ---- */

size_t dec_format_buf(i128 n, int scale, char *buf)
{
    char tmp[DEC_FMT_BUFSIZE];
    int nd = 0;
    u128 m = uabs(n);
    while (m >= E19) {
        uint64_t chunk = (uint64_t)(m % E19);
        m /= E19;
        for (int i = 0; i < 19; i++) { tmp[nd++] = (char)('0' + chunk % 10); chunk /= 10; }
    }
    uint64_t lo = (uint64_t)m;
    do { tmp[nd++] = (char)('0' + lo % 10); lo /= 10; } while (lo);
    if (scale > DEC_MAX_SCALE) scale = DEC_MAX_SCALE;
    while (nd <= scale) tmp[nd++] = '0';
    size_t pos = 0;
    if (n < 0) buf[pos++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        buf[pos++] = tmp[i];
        if (i == scale && scale > 0) buf[pos++] = '.';
    }
    buf[pos] = '\0';
    return pos;
}

void dec_format(i128 n, int scale, StrBuf *out)
{
    char buf[DEC_FMT_BUFSIZE];
    size_t len = dec_format_buf(n, scale, buf);
    sb_append(out, buf, len);
}

/* ---- arithmetic ---- */

bool dec_rescale(i128 n, int scale, int new_scale, i128 *out)
{
    if (new_scale < 0 || new_scale > DEC_MAX_SCALE) return false;
    if (new_scale >= scale) {
        i128 r;
        if (__builtin_mul_overflow(n, (i128)P10[new_scale - scale], &r) || !in_range(r)) return false;
        *out = r;
        return true;
    }
    i128 d = (i128)P10[scale - new_scale];
    i128 q = n / d, r = n % d;
    if (r < 0) r = -r;
    if (r >= d - r) q += n < 0 ? -1 : 1;
    *out = q;
    return true;
}

static bool addsub(i128 a, int sa, i128 b, int sb, i128 *out, int *sout)
{
    int s = sa > sb ? sa : sb;
    i128 aa = a, bb = b, r;
    if (sa < s && __builtin_mul_overflow(a, (i128)P10[s - sa], &aa)) goto slow;
    if (sb < s && __builtin_mul_overflow(b, (i128)P10[s - sb], &bb)) goto slow;
    if (!__builtin_add_overflow(aa, bb, &r) && in_range(r)) {
        *out = r;
        *sout = s;
        return true;
    }
slow:;
    U256 A = mul128(uabs(a), P10[s - sa]), B = mul128(uabs(b), P10[s - sb]), M;
    bool neg;
    if ((a < 0) == (b < 0)) { M = wadd(A, B); neg = a < 0; }
    else if (wcmp(A, B) >= 0) { M = wsub(A, B); neg = a < 0; }
    else { M = wsub(B, A); neg = b < 0; }
    return fit(M, neg, s, out, sout);
}

bool dec_add(i128 a, int sa, i128 b, int sb, i128 *out, int *sout)
{
    return addsub(a, sa, b, sb, out, sout);
}

bool dec_sub(i128 a, int sa, i128 b, int sb, i128 *out, int *sout)
{
    return addsub(a, sa, -b, sb, out, sout);
}

bool dec_mul(i128 a, int sa, i128 b, int sb, i128 *out, int *sout)
{
    int s = sa + sb;
    i128 r;
    if (s <= DEC_MAX_SCALE && !__builtin_mul_overflow(a, b, &r) && in_range(r)) {
        *out = r;
        *sout = s;
        return true;
    }
    U256 M = mul128(uabs(a), uabs(b));
    return fit(M, (a < 0) != (b < 0), s, out, sout);
}

/* Weight and first digit of |v| in PostgreSQL's base-10000 representation. */
static void nbase_lead(u128 mag, int scale, int *weight, int *first)
{
    if (mag == 0) { *weight = 0; *first = 0; return; }
    int p = digits128(mag) - 1 - scale;          /* power of ten of the leading digit */
    int wt = p >= 0 ? p / 4 : -((-p + 3) / 4);   /* floor(p / 4) */
    int e = 4 * wt + scale;
    *first = e >= 0 ? (int)(mag / P10[e]) : (int)(mag * P10[-e]);
    *weight = wt;
}

/* PostgreSQL's select_div_scale, capped at 38. */
static int div_scale(u128 a, int sa, u128 b, int sb)
{
    int w1, f1, w2, f2;
    nbase_lead(a, sa, &w1, &f1);
    nbase_lead(b, sb, &w2, &f2);
    int qweight = w1 - w2;
    if (f1 <= f2) qweight--;
    int rscale = 16 - qweight * 4;
    if (rscale < sa) rscale = sa;
    if (rscale < sb) rscale = sb;
    if (rscale < 0) rscale = 0;
    if (rscale > DEC_MAX_SCALE) rscale = DEC_MAX_SCALE;
    return rscale;
}

bool dec_div(i128 a, int sa, i128 b, int sb, i128 *out, int *sout)
{
    if (b == 0) return false;
    u128 A = uabs(a), B = uabs(b);
    bool neg = (a < 0) != (b < 0);
    int rscale = div_scale(A, sa, B, sb);
    int E = sb + rscale - sa;                    /* >= 0 because rscale >= sa */
    u128 N;
    if (E <= 38 && !__builtin_mul_overflow(A, P10[E], &N)) {
        u128 q = N / B, r = N % B;
        if (r >= B - r) q++;
        if (q < P10[38]) {
            *out = neg ? -(i128)q : (i128)q;
            *sout = rscale;
            return true;
        }
    }
    /* Wide path. A numerator beyond 77 digits means the quotient needs more than 38
     * digits at rscale anyway: compute at a smaller scale, fit() rounds further. */
    int na = digits128(A);
    if (na + E > 77) {
        int cut = na + E - 77;
        E -= cut;
        rscale -= cut;
    }
    U256 Q, R, Bw = w(B);
    wdivmod(wmul_pow10(w(A), E), Bw, &Q, &R);
    if (fits128(Q) && Q.lo < P10[38]) {
        if (wcmp(R, wsub(Bw, R)) >= 0) Q = wadd(Q, w(1));
    }
    /* else: Q is truncated; fit() rounds on its first dropped digit, which is exact. */
    return fit(Q, neg, rscale, out, sout);
}

bool dec_mod(i128 a, int sa, i128 b, int sb, i128 *out, int *sout)
{
    if (b == 0) return false;
    int s = sa > sb ? sa : sb;
    u128 A, B;
    if (!__builtin_mul_overflow(uabs(a), P10[s - sa], &A) &&
        !__builtin_mul_overflow(uabs(b), P10[s - sb], &B)) {
        u128 r = A % B;
        if (r < P10[38]) {
            *out = a < 0 ? -(i128)r : (i128)r;
            *sout = s;
            return true;
        }
        return fit(w(r), a < 0, s, out, sout);
    }
    U256 Q, R;
    wdivmod(mul128(uabs(a), P10[s - sa]), mul128(uabs(b), P10[s - sb]), &Q, &R);
    return fit(R, a < 0, s, out, sout);
}

int dec_cmp(i128 a, int sa, i128 b, int sb)
{
    /* Align by multiplication; an aligned value that overflows is beyond 10^38 in
     * magnitude, so it is larger than any valid value at the other scale. */
    i128 x = a, y = b;
    if (sa < sb) {
        if (__builtin_mul_overflow(a, (i128)P10[sb - sa], &x)) return a < 0 ? -1 : 1;
    } else if (sb < sa) {
        if (__builtin_mul_overflow(b, (i128)P10[sa - sb], &y)) return b < 0 ? 1 : -1;
    }
    return (x > y) - (x < y);
}

double dec_to_double(i128 n, int scale)
{
    static const double pw[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const i128 lim = (i128)1 << 53;
    if (scale >= 0 && scale <= 22 && n < lim && n > -lim) return (double)(int64_t)n / pw[scale];
    char buf[DEC_FMT_BUFSIZE];
    dec_format_buf(n, scale, buf);
    return strtod(buf, NULL);
}

bool dec_from_double_ex(double d, int sig_digits, int scale, i128 *out, int *sout)
{
    if (!isfinite(d)) return false;
    char buf[64];
    int len = snprintf(buf, sizeof buf, "%.*g", sig_digits, d);
    if (len <= 0 || (size_t)len >= sizeof buf) return false;
    if (scale < 0) return dec_parse(buf, (size_t)len, out, sout);
    if (!dec_parse_scale(buf, (size_t)len, scale, out)) return false;
    *sout = scale;
    return true;
}

bool dec_from_double(double d, int scale, i128 *out)
{
    int s;
    return dec_from_double_ex(d, 15, scale, out, &s);
}

bool dec_fits_precision(i128 n, int scale, int precision)
{
    (void)scale;
    if (precision >= DEC_MAX_DIGITS) return in_range(n);
    if (precision < 0) return false;
    return uabs(n) < P10[precision];
}

/* Shared by round and trunc: `away` selects half-away-from-zero rounding. */
static bool round_common(i128 n, int scale, int digits, bool away, i128 *out, int *sout)
{
    if (digits >= scale) {
        int ts = digits > DEC_MAX_SCALE ? DEC_MAX_SCALE : digits;
        if (ts < scale) ts = scale;
        *sout = ts;
        return dec_rescale(n, scale, ts, out);
    }
    int drop = scale - digits;                   /* > 0 */
    if (drop > DEC_MAX_DIGITS) {                 /* |x| < 10^38 <= half a unit */
        *out = 0;
        *sout = digits > 0 ? digits : 0;
        return true;
    }
    i128 d = (i128)P10[drop];
    i128 q = n / d, r = n % d;
    if (away) {
        if (r < 0) r = -r;
        if (r >= d - r) q += n < 0 ? -1 : 1;
    }
    if (digits >= 0) {
        *out = q;
        *sout = digits;
        return true;
    }
    i128 res;
    if (-digits > DEC_MAX_DIGITS) {
        if (q != 0) return false;
        res = 0;
    } else if (__builtin_mul_overflow(q, (i128)P10[-digits], &res) || !in_range(res)) {
        return false;
    }
    *out = res;
    *sout = 0;
    return true;
}

bool dec_round(i128 n, int scale, int digits, i128 *out, int *sout)
{
    return round_common(n, scale, digits, true, out, sout);
}

bool dec_trunc(i128 n, int scale, int digits, i128 *out, int *sout)
{
    return round_common(n, scale, digits, false, out, sout);
}

bool dec_floor(i128 n, int scale, i128 *out)
{
    if (scale <= 0) { *out = n; return true; }
    i128 d = (i128)P10[scale], q = n / d, r = n % d;
    if (r < 0) q--;
    *out = q;
    return true;
}

bool dec_ceil(i128 n, int scale, i128 *out)
{
    if (scale <= 0) { *out = n; return true; }
    i128 d = (i128)P10[scale], q = n / d, r = n % d;
    if (r > 0) q++;
    *out = q;
    return true;
}

i128 dec_abs(i128 n) { return n < 0 ? -n : n; }

void dec_normalize(i128 *n, int *scale)
{
    i128 v = *n;
    int s = *scale;
    if (v == 0) { *scale = 0; return; }
    if (v <= INT64_MAX && v >= -INT64_MAX) {
        int64_t x = (int64_t)v;
        while (s > 0 && x % 10 == 0) { x /= 10; s--; }
        v = x;
    } else {
        while (s > 0 && v % 10 == 0) { v /= 10; s--; }
    }
    *n = v;
    *scale = s;
}

uint64_t dec_hash(i128 n, int scale, uint64_t seed)
{
    dec_normalize(&n, &scale);
    uint64_t words[3] = {(uint64_t)n, (uint64_t)((u128)n >> 64), (uint64_t)scale};
    return hash_bytes(words, sizeof words, seed);
}
