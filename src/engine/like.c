/* SQL LIKE / ILIKE matching and the simple Unicode case mapping (and alphanumeric
 * test) shared with lower()/upper()/initcap(). The matcher runs once per row with (usually) a constant pattern,
 * so it compiles nothing: it walks text and pattern once, keeping a single backtrack
 * point at the last '%' (sufficient for LIKE's wildcards, which cannot nest), and never
 * allocates or recurses. */
#include "engine/eval_internal.h"

#include <locale.h>
#include <pthread.h>
#include <string.h>
#include <wctype.h>

/* ---- case mapping ----
 * PostgreSQL (libc provider) maps case with towlower/towupper in the database's
 * LC_CTYPE; weir's reference is a UTF-8 database in the C.UTF-8 locale, so beyond
 * ASCII weir asks glibc's C.UTF-8 tables directly. The tables below are the fallback
 * for a system without that locale (Latin-1, Latin Extended-A, Greek, Cyrillic). */

/* made once for every thread that evaluates (weir run --workers N) */
static locale_t c_utf8_loc;
static pthread_once_t c_utf8_once = PTHREAD_ONCE_INIT;
static void c_utf8_init(void) { c_utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0); }

static locale_t c_utf8(void)
{
    pthread_once(&c_utf8_once, c_utf8_init);
    return c_utf8_loc;
}

static uint32_t table_lower_cp(uint32_t c);
static uint32_t table_upper_cp(uint32_t c);

uint32_t eval_lower_cp(uint32_t c)
{
    if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    locale_t loc = c_utf8();
    return loc ? (uint32_t)towlower_l((wint_t)c, loc) : table_lower_cp(c);
}

uint32_t eval_upper_cp(uint32_t c)
{
    if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
    locale_t loc = c_utf8();
    return loc ? (uint32_t)towupper_l((wint_t)c, loc) : table_upper_cp(c);
}

bool eval_isalnum_cp(uint32_t c)
{
    if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    locale_t loc = c_utf8();
    if (loc) return iswalnum_l((wint_t)c, loc) != 0;
    /* without the locale: letters of the blocks the tables below know */
    return (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) || (c >= 0x386 && c <= 0x3CE) ||
           (c >= 0x400 && c <= 0x52F) || table_lower_cp(c) != c || table_upper_cp(c) != c;
}

static uint32_t table_lower_cp(uint32_t c)
{
    if (c < 0xC0) return c;
    if (c <= 0xDE) return c == 0xD7 ? c : c + 32;
    if (c < 0x100) return c;
    if (c < 0x180) {
        if (c == 0x130) return 'i';
        if (c < 0x138) return (c & 1) ? c : c + 1;
        if (c >= 0x139 && c <= 0x148) return (c & 1) ? c + 1 : c;
        if (c >= 0x14A && c <= 0x177) return (c & 1) ? c : c + 1;
        if (c == 0x178) return 0xFF;
        if (c >= 0x179 && c <= 0x17E) return (c & 1) ? c + 1 : c;
        return c;
    }
    if (c >= 0x386 && c <= 0x3AB) {
        if (c == 0x386) return 0x3AC;
        if (c >= 0x388 && c <= 0x38A) return c + 37;
        if (c == 0x38C) return 0x3CC;
        if (c == 0x38E || c == 0x38F) return c + 63;
        if (c >= 0x391 && c != 0x3A2) return c + 32;
        return c;
    }
    if (c >= 0x400 && c < 0x530) {
        if (c < 0x410) return c + 80;
        if (c < 0x430) return c + 32;
        if (c < 0x460) return c;
        if (c <= 0x481 || (c >= 0x48A && c <= 0x4BF) || c >= 0x4D0) return (c & 1) ? c : c + 1;
        if (c == 0x4C0) return 0x4CF;
        if (c >= 0x4C1 && c <= 0x4CE) return (c & 1) ? c + 1 : c;
        return c;
    }
    return c;
}

static uint32_t table_upper_cp(uint32_t c)
{
    if (c == 0xB5) return 0x39C;
    if (c < 0xE0) return c;
    if (c <= 0xFE) return c == 0xF7 ? c : c - 32;
    if (c == 0xFF) return 0x178;
    if (c < 0x180) {
        if (c == 0x131) return 'I';
        if (c < 0x138) return (c & 1) ? c - 1 : c;
        if (c >= 0x13A && c <= 0x148) return (c & 1) ? c : c - 1;
        if (c >= 0x14B && c <= 0x177) return (c & 1) ? c - 1 : c;
        if (c >= 0x17A && c <= 0x17E) return (c & 1) ? c : c - 1;
        if (c == 0x17F) return 'S';
        return c;
    }
    if (c >= 0x3AC && c <= 0x3CE) {
        if (c == 0x3AC) return 0x386;
        if (c <= 0x3AF) return c - 37;
        if (c == 0x3B0) return c;
        if (c == 0x3C2) return 0x3A3;
        if (c <= 0x3CB) return c - 32;
        if (c == 0x3CC) return 0x38C;
        return c - 63;
    }
    if (c >= 0x430 && c < 0x530) {
        if (c < 0x450) return c - 32;
        if (c < 0x460) return c - 80;
        if (c <= 0x481 || (c >= 0x48A && c <= 0x4BF) || c >= 0x4D0) return (c & 1) ? c - 1 : c;
        if (c == 0x4CF) return 0x4C0;
        if (c >= 0x4C1 && c <= 0x4CE) return (c & 1) ? c : c - 1;
        return c;
    }
    return c;
}

/* ---- LIKE ---- */

#define NO_STAR ((size_t)-1)

static int trailing_escape(EvalCtx *ctx)
{
    eval_fail(ctx, "LIKE pattern must not end with escape character");
    return -1;
}

static inline unsigned ascii_lower(unsigned c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* The matcher behind LIKE (fold false) and ILIKE (fold true); inlined into one copy
 * of each. '%' keeps a backtrack point, '_' takes one character, '\' escapes the next
 * pattern character. Literals compare:
 *   LIKE   byte by byte. Text positions only ever stop on character boundaries: '_'
 *          and backtracking advance by whole UTF-8 characters, and a literal run
 *          consumes whole characters because the pattern is valid UTF-8 too.
 *   ILIKE  as code points folded with eval_lower_cp (PostgreSQL lowers both strings
 *          and then runs LIKE); ASCII pairs without decoding. */
static inline __attribute__((always_inline)) int like_match(const unsigned char *t, size_t tlen,
                                                            const unsigned char *p, size_t plen, bool fold,
                                                            EvalCtx *ctx)
{
    size_t ti = 0, pi = 0, star_p = NO_STAR, star_t = 0;

    while (ti < tlen) {
        if (pi < plen) {
            unsigned c = p[pi];
            if (c == '%') {
                while (pi < plen && p[pi] == '%') pi++;
                if (pi == plen) return 1; /* trailing '%' matches the rest */
                star_p = pi;
                star_t = ti;
                continue;
            }
            if (c == '_') {
                ti += utf8_charlen(t + ti, tlen - ti);
                pi++;
                continue;
            }
            size_t esc = 0;
            if (c == '\\') {
                if (pi + 1 >= plen) return trailing_escape(ctx);
                esc = 1;
                c = p[pi + 1];
            }
            unsigned tb = t[ti];
            if (!fold || (c | tb) < 0x80) {   /* bytes; ILIKE: both ASCII, no decoding */
                if (fold ? ascii_lower(c) == ascii_lower(tb) : c == tb) {
                    ti++;
                    pi += esc + 1;
                    continue;
                }
            } else {
                size_t padv, tadv;
                uint32_t pc = eval_lower_cp(utf8_decode(p + pi + esc, plen - pi - esc, &padv));
                uint32_t tc = eval_lower_cp(utf8_decode(t + ti, tlen - ti, &tadv));
                if (pc == tc) {
                    ti += tadv;
                    pi += esc + padv;
                    continue;
                }
            }
        }
        if (star_p == NO_STAR) return 0;
        /* Retry the pattern after the last '%' one character further on, skipping
         * straight to the next candidate for its first character when that is a literal. */
        star_t += utf8_charlen(t + star_t, tlen - star_t);
        if (!fold) {
            unsigned first = p[star_p];
            if (first == '\\' && star_p + 1 < plen) first = p[star_p + 1];
            else if (first == '_') first = 0x100;
            if (first < 0x100 && star_t < tlen) {
                const unsigned char *hit = memchr(t + star_t, (int)first, tlen - star_t);
                if (!hit) return 0;
                star_t = (size_t)(hit - t);
            }
        } else if (p[star_p] < 0x80 && p[star_p] != '_' && p[star_p] != '\\') {
            /* the pattern's first (ASCII) character in either case */
            unsigned lo = ascii_lower(p[star_p]), up = lo >= 'a' && lo <= 'z' ? lo - 32 : lo;
            while (star_t < tlen && t[star_t] != lo && t[star_t] != up && t[star_t] < 0x80) star_t++;
        }
        if (star_t >= tlen) {
            ti = tlen;
            pi = star_p;
            break;
        }
        ti = star_t;
        pi = star_p;
    }
    while (pi < plen && p[pi] == '%') pi++;
    return pi == plen;
}

int eval_like_match(const char *t, size_t tlen, const char *p, size_t plen, bool icase, EvalCtx *ctx)
{
    if (plen == 1 && p[0] == '%') return 1;
    if (icase) return like_match((const unsigned char *)t, tlen, (const unsigned char *)p, plen, true, ctx);
    return like_match((const unsigned char *)t, tlen, (const unsigned char *)p, plen, false, ctx);
}
