/* Number templates (numfmt.h). The template is scanned into keyword and literal
 * nodes while a description of it is built (digits before and after the point,
 * where zero padding starts and ends, the sign's form); the value is printed as a
 * digit string the width of the template (or '#'s when it does not fit); then the
 * nodes are walked once, each digit pattern taking the next character of that string
 * and writing a digit, a blank, a zero, the sign or the point, as PostgreSQL's
 * NUM_processor does. */
#include "base/numfmt.h"

#include "base/arena.h"
#include "base/decimal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum NumKey {
    K_COMMA, K_DEC, K_0, K_9, K_B, K_C, K_D, K_E, K_FM, K_G, K_L, K_MI, K_PL, K_PR, K_RN, K_SG, K_SP, K_S,
    K_TH, K_V, K_rn, K_th,
} NumKey;

typedef struct NumKeyword {
    const char *name;
    uint8_t len, id;
} NumKeyword;

static const NumKeyword keywords[] = {
    {",", 1, K_COMMA}, {".", 1, K_DEC}, {"0", 1, K_0}, {"9", 1, K_9}, {"B", 1, K_B}, {"C", 1, K_C},
    {"D", 1, K_D}, {"EEEE", 4, K_E}, {"FM", 2, K_FM}, {"G", 1, K_G}, {"L", 1, K_L}, {"MI", 2, K_MI},
    {"PL", 2, K_PL}, {"PR", 2, K_PR}, {"RN", 2, K_RN}, {"SG", 2, K_SG}, {"SP", 2, K_SP}, {"S", 1, K_S},
    {"TH", 2, K_TH}, {"V", 1, K_V}, {"b", 1, K_B}, {"c", 1, K_C}, {"d", 1, K_D}, {"eeee", 4, K_E},
    {"fm", 2, K_FM}, {"g", 1, K_G}, {"l", 1, K_L}, {"mi", 2, K_MI}, {"pl", 2, K_PL}, {"pr", 2, K_PR},
    {"rn", 2, K_rn}, {"sg", 2, K_SG}, {"sp", 2, K_SP}, {"s", 1, K_S}, {"th", 2, K_th}, {"v", 1, K_V},
};

enum {
    F_DECIMAL = 1 << 1, F_LDECIMAL = 1 << 2, F_ZERO = 1 << 3, F_BLANK = 1 << 4, F_FILLMODE = 1 << 5,
    F_LSIGN = 1 << 6, F_BRACKET = 1 << 7, F_MINUS = 1 << 8, F_PLUS = 1 << 9, F_ROMAN = 1 << 10,
    F_MULTI = 1 << 11, F_PLUS_POST = 1 << 12, F_MINUS_POST = 1 << 13, F_EEEE = 1 << 14,
};
enum { LSIGN_PRE = -1, LSIGN_NONE = 0, LSIGN_POST = 1 };

/* What the template asks for. */
typedef struct Desc {
    int pre, post;           /* digit patterns before / after the decimal point */
    int lsign;               /* S: before or after the digits */
    int flag;
    int pre_lsign_num;       /* digits before S */
    int multi;               /* digits after V */
    int zero_start, zero_end;
} Desc;

typedef struct Node {
    bool action;
    uint8_t id;
    uint8_t clen;
    char ch[4];
} Node;

static bool fail(char *err, size_t errsize, const char *msg)
{
    snprintf(err, errsize, "%s", msg);
    return false;
}

/* Adds one keyword to the description, with PostgreSQL's checks. */
static bool describe(Desc *d, int id, char *err, size_t es)
{
    if ((d->flag & F_EEEE) && id != K_E) return fail(err, es, "\"EEEE\" must be the last pattern used");
    switch (id) {
    case K_9:
        if (d->flag & F_BRACKET) return fail(err, es, "\"9\" must be ahead of \"PR\"");
        if (d->flag & F_MULTI) {
            d->multi++;
            break;
        }
        if (d->flag & F_DECIMAL) d->post++;
        else d->pre++;
        break;
    case K_0:
        if (d->flag & F_BRACKET) return fail(err, es, "\"0\" must be ahead of \"PR\"");
        if (!(d->flag & F_ZERO) && !(d->flag & F_DECIMAL)) {
            d->flag |= F_ZERO;
            d->zero_start = d->pre + 1;
        }
        if (!(d->flag & F_DECIMAL)) d->pre++;
        else d->post++;
        d->zero_end = d->pre + d->post;
        break;
    case K_B:
        if (d->pre == 0 && d->post == 0 && !(d->flag & F_ZERO)) d->flag |= F_BLANK;
        break;
    case K_D:
        d->flag |= F_LDECIMAL;
        __attribute__((fallthrough));
    case K_DEC:
        if (d->flag & F_DECIMAL) return fail(err, es, "multiple decimal points");
        if (d->flag & F_MULTI) return fail(err, es, "cannot use \"V\" and decimal point together");
        d->flag |= F_DECIMAL;
        break;
    case K_FM: d->flag |= F_FILLMODE; break;
    case K_S:
        if (d->flag & F_LSIGN) return fail(err, es, "cannot use \"S\" twice");
        if (d->flag & (F_PLUS | F_MINUS | F_BRACKET))
            return fail(err, es, "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
        if (!(d->flag & F_DECIMAL)) {
            d->lsign = LSIGN_PRE;
            d->pre_lsign_num = d->pre;
            d->flag |= F_LSIGN;
        } else if (d->lsign == LSIGN_NONE) {
            d->lsign = LSIGN_POST;
            d->flag |= F_LSIGN;
        }
        break;
    case K_MI:
        if (d->flag & F_LSIGN) return fail(err, es, "cannot use \"S\" and \"MI\" together");
        d->flag |= F_MINUS;
        if (d->flag & F_DECIMAL) d->flag |= F_MINUS_POST;
        break;
    case K_PL:
        if (d->flag & F_LSIGN) return fail(err, es, "cannot use \"S\" and \"PL\" together");
        d->flag |= F_PLUS;
        if (d->flag & F_DECIMAL) d->flag |= F_PLUS_POST;
        break;
    case K_SG:
        if (d->flag & F_LSIGN) return fail(err, es, "cannot use \"S\" and \"SG\" together");
        d->flag |= F_MINUS | F_PLUS;
        break;
    case K_PR:
        if (d->flag & (F_LSIGN | F_PLUS | F_MINUS))
            return fail(err, es, "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together");
        d->flag |= F_BRACKET;
        break;
    case K_rn:
    case K_RN: d->flag |= F_ROMAN; break;
    case K_V:
        if (d->flag & F_DECIMAL) return fail(err, es, "cannot use \"V\" and decimal point together");
        d->flag |= F_MULTI;
        break;
    case K_E:
        if (d->flag & F_EEEE) return fail(err, es, "cannot use \"EEEE\" twice");
        if (d->flag & (F_BLANK | F_FILLMODE | F_LSIGN | F_BRACKET | F_MINUS | F_PLUS | F_ROMAN | F_MULTI))
            return fail(err, es, "\"EEEE\" is incompatible with other formats");
        d->flag |= F_EEEE;
        break;
    default: break;
    }
    return true;
}

static size_t mblen_utf8(const char *s, size_t left)
{
    unsigned char c = (unsigned char)*s;
    size_t l = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    return l <= left ? l : left;
}

static void literal(Node *n, const char *s, size_t l)
{
    n->action = false;
    n->clen = (uint8_t)l;
    memcpy(n->ch, s, l);
}

/* Scans the template into nodes and the description; false on a template error. */
static bool parse(const char *s, size_t len, Node *nodes, size_t *count, Desc *d, char *err, size_t es)
{
    size_t n = 0, i = 0;
    memset(d, 0, sizeof *d);
    while (i < len) {
        const NumKeyword *k = NULL;
        for (size_t j = 0; j < sizeof keywords / sizeof keywords[0]; j++)
            if (keywords[j].name[0] == s[i] && keywords[j].len <= len - i &&
                memcmp(keywords[j].name, s + i, keywords[j].len) == 0) {
                k = &keywords[j];
                break;
            }
        if (k) {
            nodes[n].action = true;
            nodes[n].id = k->id;
            nodes[n].clen = 0;
            n++;
            if (!describe(d, k->id, err, es)) return false;
            i += k->len;
        } else if (s[i] == '"') {
            for (i++; i < len;) {
                if (s[i] == '"') {
                    i++;
                    break;
                }
                if (s[i] == '\\' && i + 1 < len) i++;
                size_t l = mblen_utf8(s + i, len - i);
                literal(&nodes[n++], s + i, l);
                i += l;
            }
        } else {
            if (s[i] == '\\' && i + 1 < len && s[i + 1] == '"') i++;
            size_t l = mblen_utf8(s + i, len - i);
            literal(&nodes[n++], s + i, l);
            i += l;
        }
    }
    *count = n;
    return true;
}

/* ---- the value as a digit string ---- */

/* Roman numerals of 1..3999; 15 '#' otherwise. */
static void roman(int64_t v, char *out)
{
    static const char *const ones[] = {"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"};
    static const char *const tens[] = {"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"};
    static const char *const hundreds[] = {"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"};
    if (v < 1 || v > 3999) {
        memset(out, '#', 15);
        out[15] = '\0';
        return;
    }
    out[0] = '\0';
    for (int64_t m = v / 1000; m > 0; m--) strcat(out, "M");
    strcat(out, hundreds[v / 100 % 10]);
    strcat(out, tens[v / 10 % 10]);
    strcat(out, ones[v % 10]);
}

/* The decimal digits of |n| (at least one). */
static size_t digits_of(i128 n, char *buf)
{
    unsigned __int128 m = n < 0 ? (unsigned __int128)0 - (unsigned __int128)n : (unsigned __int128)n;
    char t[48];
    size_t k = 0;
    do {
        t[k++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    for (size_t i = 0; i < k; i++) buf[i] = t[k - 1 - i];
    buf[k] = '\0';
    return k;
}

/* |n| / 10^scale * 10^shift rounded (half away from zero) to `post` fraction digits,
 * printed as PostgreSQL's numeric output ("0.50", "12", "123.450"), into sb. */
static void numeric_digits(i128 n, int scale, int shift, int post, StrBuf *sb)
{
    char d[48];
    size_t nd = digits_of(n, d);
    /* the digit string with the point after `ip` digits (ip may be <= 0 or > nd) */
    int64_t ip = (int64_t)nd - scale + shift;
    /* digits kept: ip + post; the first dropped one decides the rounding */
    int64_t keep = ip + post;
    StrBuf digs = STRBUF_INIT;
    for (int64_t i = 0; i < keep; i++) sb_putc(&digs, i < 0 ? '0' : i < (int64_t)nd ? d[i] : '0');
    bool up = keep >= 0 && keep < (int64_t)nd && d[keep] >= '5';
    if (keep < 0) up = false;
    char *p = digs.data;
    size_t len = digs.len;
    if (up) {
        size_t i = len;
        while (i > 0 && p[i - 1] == '9') p[--i] = '0';
        if (i > 0) p[i - 1]++;
        else {   /* carry out of the leading digit */
            sb_putc(&digs, '0');
            p = digs.data;
            memmove(p + 1, p, len);
            p[0] = '1';
            len++;
            ip++;
        }
    }
    int64_t ilen = len - (size_t)post;   /* digits before the point */
    if (ilen <= 0) sb_putc(sb, '0');
    else {
        /* leading zeros of the integer part go away (numeric output has none) */
        int64_t s = 0;
        while (s < ilen - 1 && p[s] == '0') s++;
        sb_append(sb, p + s, (size_t)(ilen - s));
    }
    if (post > 0) {
        sb_putc(sb, '.');
        if (ilen < 0)
            for (int64_t i = ilen; i < 0; i++) sb_putc(sb, '0');
        sb_append(sb, p + (ilen > 0 ? ilen : 0), (size_t)(len - (ilen > 0 ? ilen : 0)));
    }
    sb_free(&digs);
}

/* Scientific notation of a numeric with `post` digits after the point, as
 * PostgreSQL's numeric_out_sci: d.dddde+XX from the value's decimal exponent (the
 * rounded significand may print as 10.00). */
static void numeric_sci(i128 n, int scale, int post, StrBuf *sb)
{
    int exponent = 0;
    if (n != 0) {
        /* PostgreSQL's exponent: from the leading base-10000 digit */
        char d[48];
        int nd = (int)digits_of(n, d);
        exponent = nd - 1 - scale;
    }
    if (n < 0) sb_putc(sb, '-');
    numeric_digits(n, scale, -exponent, post, sb);
    sb_printf(sb, "e%+03d", exponent);
}

/* %.*f of a double as PostgreSQL's printf prints it (NaN and Infinity spelled out). */
static void print_fixed(double v, int prec, StrBuf *sb)
{
    if (isnan(v)) sb_puts(sb, "NaN");
    else if (isinf(v)) sb_puts(sb, v > 0 ? "Infinity" : "-Infinity");
    else sb_printf(sb, "%.*f", prec, v);
}

/* The '#' string of a number too wide for the template: pre + post + 1 '#' with the
 * point after pre of them. */
static void overflow_digits(const Desc *d, StrBuf *sb)
{
    for (int i = 0; i < d->pre + d->post + 1; i++) sb_putc(sb, i == d->pre ? '.' : '#');
}

/* Splits a printed number into sign and digits, computes the blanks before it and
 * replaces it by '#'s when it needs more digits than the template has. */
static void fit_number(const char *org, Desc *d, StrBuf *num, int *sign, int *pre_spaces)
{
    if (*org == '-') {
        *sign = '-';
        org++;
    } else {
        *sign = '+';
    }
    const char *dot = strchr(org, '.');
    int prelen = dot ? (int)(dot - org) : (int)strlen(org);
    *pre_spaces = 0;
    if (prelen < d->pre) {
        *pre_spaces = d->pre - prelen;
        sb_puts(num, org);
    } else if (prelen > d->pre) {
        overflow_digits(d, num);
    } else {
        sb_puts(num, org);
    }
}

/* Builds the digit string for v into num; sign ('+', '-' or 0 for roman numerals) and
 * the leading blanks in *sign / *pre_spaces. */
static bool number_string(const NumFmtValue *v, Desc *d, StrBuf *num, int *sign, int *pre_spaces, char *err,
                          size_t es)
{
    *sign = 0;
    *pre_spaces = 0;
    StrBuf org = STRBUF_INIT;
    bool ok = true;
    char buf[32];
    if (d->flag & F_ROMAN) {
        int64_t iv = INT32_MAX;
        switch (v->kind) {
        case NUMFMT_NUMERIC: {
            /* the value as integer (PostgreSQL 15: an error when it does not fit) */
            i128 r;
            int s;
            if (!dec_round(v->num, v->scale, 0, &r, &s) || r < INT32_MIN || r > INT32_MAX)
                return fail(err, es, "integer out of range");
            iv = (int64_t)r;
            break;
        }
        case NUMFMT_INT4: iv = v->i; break;
        case NUMFMT_INT8:
            if (v->i < INT32_MIN || v->i > INT32_MAX) return fail(err, es, "integer out of range");
            iv = v->i;
            break;
        default: {
            double r = rint(v->f);
            if (!isnan(r) && r >= -2147483648.0 && r < 2147483648.0) iv = (int64_t)r;
            break;
        }
        }
        roman(iv, buf);
        sb_puts(num, buf);
        return true;
    }
    if (d->flag & F_EEEE) {
        switch (v->kind) {
        case NUMFMT_NUMERIC:
        case NUMFMT_INT8:
            numeric_sci(v->kind == NUMFMT_NUMERIC ? v->num : (i128)v->i, v->kind == NUMFMT_NUMERIC ? v->scale : 0,
                        d->post, &org);
            if (org.data[0] != '-') sb_putc(num, ' ');
            sb_append(num, org.data, org.len);
            break;
        case NUMFMT_INT4: {
            sb_printf(&org, "%+.*e", d->post, (double)v->i);
            if (org.data[0] == '+') org.data[0] = ' ';
            sb_append(num, org.data, org.len);
            break;
        }
        default:
            if (isnan(v->f) || isinf(v->f)) {
                int w = d->pre + d->post + 6;
                for (int i = 0; i < w; i++) sb_putc(num, i == 0 ? ' ' : i == d->pre + 1 ? '.' : '#');
            } else {
                sb_printf(&org, "%+.*e", d->post, v->kind == NUMFMT_FLOAT4 ? (double)(float)v->f : v->f);
                if (org.data[0] == '+') org.data[0] = ' ';
                sb_append(num, org.data, org.len);
            }
            break;
        }
        sb_free(&org);
        return true;
    }
    switch (v->kind) {
    case NUMFMT_NUMERIC: {
        if (d->flag & F_MULTI) d->pre += d->multi;
        if (v->num < 0) sb_putc(&org, '-');
        size_t at = org.len;
        numeric_digits(v->num, v->scale, (d->flag & F_MULTI) ? d->multi : 0, d->post, &org);
        /* a value that rounds to zero prints without a sign, as PostgreSQL's numeric */
        bool zero = true;
        for (size_t i = at; i < org.len; i++)
            if (org.data[i] >= '1' && org.data[i] <= '9') zero = false;
        const char *s = sb_cstr(&org);
        if (zero && s[0] == '-') s++;
        fit_number(s, d, num, sign, pre_spaces);
        break;
    }
    case NUMFMT_INT4:
    case NUMFMT_INT8: {
        int64_t x = v->i;
        if (d->flag & F_MULTI) {
            if (v->kind == NUMFMT_INT4) {
                /* value * (int32) 10^multi, wrapping as PostgreSQL's int4 arithmetic */
                double p = pow(10.0, d->multi);
                int32_t m = p >= -2147483648.0 && p < 2147483648.0 ? (int32_t)p : INT32_MIN;
                x = (int32_t)(uint32_t)((uint32_t)(int32_t)x * (uint32_t)m);
            } else {
                double p = pow(10.0, d->multi);
                if (!(p >= -9223372036854775808.0 && p < 9223372036854775808.0)) {
                    ok = fail(err, es, "bigint out of range");
                    break;
                }
                if (__builtin_mul_overflow(x, (int64_t)p, &x)) {
                    ok = fail(err, es, "bigint out of range");
                    break;
                }
            }
            d->pre += d->multi;
        }
        snprintf(buf, sizeof buf, "%lld", (long long)x);
        const char *digits = buf[0] == '-' ? buf + 1 : buf;
        *sign = buf[0] == '-' ? '-' : '+';
        int prelen = (int)strlen(digits);
        if (prelen < d->pre) {
            *pre_spaces = d->pre - prelen;
        } else if (prelen > d->pre) {
            overflow_digits(d, num);
            break;
        }
        sb_puts(num, digits);
        if (d->post) {
            sb_putc(num, '.');
            for (int i = 0; i < d->post; i++) sb_putc(num, '0');
        }
        break;
    }
    default: {
        bool f4 = v->kind == NUMFMT_FLOAT4;
        double val = f4 ? (double)(float)v->f : v->f;
        if (d->flag & F_MULTI) {
            if (f4) {
                float m = (float)pow(10.0, d->multi);
                val = (double)((float)v->f * m);
            } else {
                val = v->f * pow(10.0, d->multi);
            }
            d->pre += d->multi;
        }
        StrBuf t = STRBUF_INIT;
        print_fixed(fabs(val), 0, &t);
        int prelen = (int)t.len;
        sb_free(&t);
        int digs = f4 ? FLT_DIG : DBL_DIG;
        if (prelen >= digs) d->post = 0;
        else if (prelen + d->post > digs) d->post = digs - prelen;
        print_fixed(val, d->post, &org);
        fit_number(sb_cstr(&org), d, num, sign, pre_spaces);
        break;
    }
    }
    sb_free(&org);
    return ok;
}

/* ---- the processor ---- */

typedef struct Proc {
    Desc *d;
    int sign;
    bool sign_wrote;
    int num_count, num_curr, out_pre_spaces;
    bool num_in;
    const char *number;
    size_t numlen, np;     /* the digit string and the position in it */
    long last_relevant;    /* -1: none */
    StrBuf *out;
    bool stopped;          /* PostgreSQL wrote a NUL here: the result ends */
} Proc;

static char cur(const Proc *p) { return p->np < p->numlen ? p->number[p->np] : '\0'; }

static bool predec_space(const Proc *p)
{
    return !(p->d->flag & F_ZERO) && p->np == 0 && p->number[0] == '0' && p->d->post != 0;
}

static bool lr_is_point(const Proc *p) { return p->last_relevant >= 0 && p->number[p->last_relevant] == '.'; }

/* One digit pattern (9, 0, . or D). */
static void digit_pattern(Proc *p, int id)
{
    Desc *d = p->d;
    bool fill = d->flag & F_FILLMODE;
    if (d->flag & F_ROMAN) return;
    p->num_in = false;
    /* the sign, once, just before the first digit written */
    if (!p->sign_wrote &&
        (p->num_curr >= p->out_pre_spaces || ((d->flag & F_ZERO) && d->zero_start == p->num_curr)) &&
        (!predec_space(p) || lr_is_point(p))) {
        if (d->flag & F_LSIGN) {
            if (d->lsign == LSIGN_PRE) {
                sb_putc(p->out, p->sign == '-' ? '-' : '+');
                p->sign_wrote = true;
            }
        } else if (d->flag & F_BRACKET) {
            sb_putc(p->out, p->sign == '+' ? ' ' : '<');
            p->sign_wrote = true;
        } else if (p->sign == '+') {
            if (!fill) sb_putc(p->out, ' ');
            p->sign_wrote = true;
        } else if (p->sign == '-') {
            sb_putc(p->out, '-');
            p->sign_wrote = true;
        }
    }
    if (id == K_9 || id == K_0 || id == K_D || id == K_DEC) {
        if (p->num_curr < p->out_pre_spaces && (d->zero_start > p->num_curr || !(d->flag & F_ZERO))) {
            if (!fill) sb_putc(p->out, ' ');   /* a blank before the number */
        } else if ((d->flag & F_ZERO) && p->num_curr < p->out_pre_spaces && d->zero_start <= p->num_curr) {
            sb_putc(p->out, '0');               /* zero padding */
            p->num_in = true;
        } else {
            if (cur(p) == '.') {
                if (!lr_is_point(p) || fill) sb_putc(p->out, '.');
            } else if (p->last_relevant >= 0 && (long)p->np > p->last_relevant && id != K_0) {
                /* a trailing zero dropped by FM */
            } else if (predec_space(p)) {
                if (!fill) sb_putc(p->out, ' ');
                else if (lr_is_point(p)) sb_putc(p->out, '0');
            } else {
                char c = cur(p);
                if (!c) {
                    /* more digit patterns than digits: PostgreSQL writes a NUL, which
                     * ends its result here */
                    p->stopped = true;
                    return;
                }
                sb_putc(p->out, c);
                p->num_in = true;
            }
            if (cur(p)) p->np++;
        }
        int end = p->num_count + (p->out_pre_spaces ? 1 : 0) + ((d->flag & F_DECIMAL) ? 1 : 0);
        if (p->last_relevant >= 0 && p->last_relevant == (long)p->np) end = p->num_curr;
        if (p->num_curr + 1 == end) {
            if (p->sign_wrote && (d->flag & F_BRACKET)) sb_putc(p->out, p->sign == '+' ? ' ' : '>');
            else if ((d->flag & F_LSIGN) && d->lsign == LSIGN_POST) sb_putc(p->out, p->sign == '-' ? '-' : '+');
        }
    }
    p->num_curr++;
}

static const char *ordinal(const char *num, bool upper)
{
    size_t len = strlen(num);
    char last = len ? num[len - 1] : '0';
    if (len > 1 && num[len - 2] == '1') last = '0';
    switch (last) {
    case '1': return upper ? "ST" : "st";
    case '2': return upper ? "ND" : "nd";
    case '3': return upper ? "RD" : "rd";
    default: return upper ? "TH" : "th";
    }
}

bool numfmt_to_char(const NumFmtValue *v, const char *fmt, size_t fmtlen, StrBuf *out, char *err, size_t errsize)
{
    if (fmtlen == 0) return true;
    Node stack[128];
    Node *nodes = fmtlen <= 128 ? stack : xmalloc(sizeof(Node) * fmtlen);
    size_t count = 0;
    Desc d;
    StrBuf num = STRBUF_INIT;
    bool ok = parse(fmt, fmtlen, nodes, &count, &d, err, errsize);
    int sign = 0, pre_spaces = 0;
    if (ok) ok = number_string(v, &d, &num, &sign, &pre_spaces, err, errsize);
    if (!ok) goto done;
    const char *number = num.len ? sb_cstr(&num) : "";
    if (d.flag & F_EEEE) {   /* the number alone is the result */
        sb_puts(out, number);
        goto done;
    }
    Proc p;
    memset(&p, 0, sizeof p);
    p.d = &d;
    p.number = number;
    p.numlen = strlen(number);
    p.out = out;
    p.last_relevant = -1;
    if (d.zero_start) d.zero_start--;
    if (d.flag & F_ROMAN) {
        d.lsign = d.pre_lsign_num = d.post = d.pre = 0;
        pre_spaces = 0;
        d.flag = (d.flag & F_FILLMODE) | F_ROMAN;
    }
    p.sign = sign;
    if (d.flag & (F_PLUS | F_MINUS)) {
        p.sign_wrote = !((d.flag & F_PLUS) && !(d.flag & F_MINUS));
    } else {
        if (sign != '-' && (d.flag & F_FILLMODE)) d.flag &= ~F_BRACKET;
        p.sign_wrote = sign == '+' && (d.flag & F_FILLMODE) && !(d.flag & F_LSIGN);
        if (d.lsign == LSIGN_PRE && d.pre == d.pre_lsign_num) d.lsign = LSIGN_POST;
    }
    p.num_count = d.post + d.pre - 1;
    p.out_pre_spaces = pre_spaces;
    if ((d.flag & F_FILLMODE) && (d.flag & F_DECIMAL)) {
        /* the last digit after the point that is not a zero (or the point itself) */
        const char *dot = strchr(number, '.');
        if (dot) {
            long lr = (long)(dot - number);
            for (long i = lr + 1; number[i]; i++)
                if (number[i] != '0') lr = i;
            /* digits of 0 patterns are never dropped */
            if (d.zero_end > pre_spaces) {
                long last_zero = (long)p.numlen - 1;
                if (d.zero_end - pre_spaces < last_zero) last_zero = d.zero_end - pre_spaces;
                if (lr < last_zero) lr = last_zero;
            }
            p.last_relevant = lr;
        }
    }
    if (!p.sign_wrote && pre_spaces == 0) p.num_count++;
    for (size_t i = 0; i < count && !p.stopped; i++) {
        const Node *n = &nodes[i];
        bool fill = d.flag & F_FILLMODE;
        if (!n->action) {
            sb_append(out, n->ch, n->clen);
            continue;
        }
        switch (n->id) {
        case K_9: case K_0: case K_DEC: case K_D: digit_pattern(&p, n->id); break;
        case K_COMMA: case K_G:
            if (!p.num_in) {
                if (!fill) sb_putc(out, ' ');
            } else {
                sb_putc(out, ',');
            }
            break;
        case K_L: sb_putc(out, ' '); break;
        case K_RN:
        case K_rn: {
            StrBuf r = STRBUF_INIT;
            if (!fill)
                for (size_t k = p.numlen; k < 15; k++) sb_putc(&r, ' ');
            for (size_t k = 0; k < p.numlen; k++)
                sb_putc(&r, n->id == K_rn && number[k] >= 'A' && number[k] <= 'Z' ? (char)(number[k] + 32) : number[k]);
            sb_append(out, r.data ? r.data : "", r.len);
            sb_free(&r);
            break;
        }
        case K_TH: case K_th:
            if ((d.flag & F_ROMAN) || number[0] == '#' || p.sign == '-' || (d.flag & F_DECIMAL)) break;
            if (!p.numlen || number[p.numlen - 1] < '0' || number[p.numlen - 1] > '9') {
                snprintf(err, errsize, "\"%s\" is not a number", number);
                ok = false;
                goto done;
            }
            sb_puts(out, ordinal(number, n->id == K_TH));
            break;
        case K_MI:
            if (p.sign == '-') sb_putc(out, '-');
            else if (!fill) sb_putc(out, ' ');
            break;
        case K_PL:
            if (p.sign == '+') sb_putc(out, '+');
            else if (!fill) sb_putc(out, ' ');
            break;
        case K_SG:
            if (p.sign) sb_putc(out, (char)p.sign);
            else p.stopped = true;   /* no sign (roman numerals): PostgreSQL writes a NUL */
            break;
        default: break;
        }
    }
done:
    if (nodes != stack) free(nodes);
    sb_free(&num);
    return ok;
}
