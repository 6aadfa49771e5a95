/* Date/time templates (datefmt.h): the template scanner shared by to_char and
 * to_timestamp/to_date, the fields of a timestamp or interval as PostgreSQL's
 * formatting code sees them, the output of every keyword, and the parser that reads
 * fields back from text and assembles them as PostgreSQL's do_to_timestamp does. */
#include "base/datefmt.h"

#include "base/arena.h"
#include "base/timeutil.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- keywords ---- */

typedef enum Key {
    K_A_D, K_A_M, K_AD, K_AM, K_B_C, K_BC, K_CC, K_DAY, K_DDD, K_DD, K_DY, K_Day, K_Dy, K_D,
    K_FF1, K_FF2, K_FF3, K_FF4, K_FF5, K_FF6, K_FX, K_HH24, K_HH12, K_HH, K_IDDD, K_ID, K_IW,
    K_IYYY, K_IYY, K_IY, K_I, K_J, K_MI, K_MM, K_MONTH, K_MON, K_MS, K_Month, K_Mon, K_OF, K_P_M,
    K_PM, K_Q, K_RM, K_SSSS, K_SS, K_TZH, K_TZM, K_TZ, K_US, K_WW, K_W, K_Y_YYY, K_YYYY, K_YYY,
    K_YY, K_Y,
    /* lower-case spellings with an output of their own */
    K_a_d, K_a_m, K_ad, K_am, K_b_c, K_bc, K_day, K_dy, K_month, K_mon, K_p_m, K_pm, K_rm, K_tz,
} Key;

enum { MODE_NONE, MODE_GREGORIAN, MODE_ISOWEEK };

typedef struct Keyword {
    const char *name;
    uint8_t len;
    uint8_t id;
    bool digit;      /* reads / writes digits (for the fixed-width rule of parsing) */
    uint8_t mode;    /* date convention it belongs to */
} Keyword;

#define KW(n, id, dg, md) {n, sizeof(n) - 1, id, dg, md}
/* PostgreSQL's list and order: at each first letter the longer spellings first. */
static const Keyword keywords[] = {
    KW("A.D.", K_A_D, false, MODE_NONE), KW("A.M.", K_A_M, false, MODE_NONE), KW("AD", K_AD, false, MODE_NONE),
    KW("AM", K_AM, false, MODE_NONE), KW("B.C.", K_B_C, false, MODE_NONE), KW("BC", K_BC, false, MODE_NONE),
    KW("CC", K_CC, true, MODE_NONE), KW("DAY", K_DAY, false, MODE_NONE), KW("DDD", K_DDD, true, MODE_GREGORIAN),
    KW("DD", K_DD, true, MODE_GREGORIAN), KW("DY", K_DY, false, MODE_NONE), KW("Day", K_Day, false, MODE_NONE),
    KW("Dy", K_Dy, false, MODE_NONE), KW("D", K_D, true, MODE_GREGORIAN), KW("FF1", K_FF1, true, MODE_NONE),
    KW("FF2", K_FF2, true, MODE_NONE), KW("FF3", K_FF3, true, MODE_NONE), KW("FF4", K_FF4, true, MODE_NONE),
    KW("FF5", K_FF5, true, MODE_NONE), KW("FF6", K_FF6, true, MODE_NONE), KW("FX", K_FX, false, MODE_NONE),
    KW("HH24", K_HH24, true, MODE_NONE), KW("HH12", K_HH12, true, MODE_NONE), KW("HH", K_HH, true, MODE_NONE),
    KW("IDDD", K_IDDD, true, MODE_ISOWEEK), KW("ID", K_ID, true, MODE_ISOWEEK), KW("IW", K_IW, true, MODE_ISOWEEK),
    KW("IYYY", K_IYYY, true, MODE_ISOWEEK), KW("IYY", K_IYY, true, MODE_ISOWEEK), KW("IY", K_IY, true, MODE_ISOWEEK),
    KW("I", K_I, true, MODE_ISOWEEK), KW("J", K_J, true, MODE_NONE), KW("MI", K_MI, true, MODE_NONE),
    KW("MM", K_MM, true, MODE_GREGORIAN), KW("MONTH", K_MONTH, false, MODE_GREGORIAN),
    KW("MON", K_MON, false, MODE_GREGORIAN), KW("MS", K_MS, true, MODE_NONE),
    KW("Month", K_Month, false, MODE_GREGORIAN), KW("Mon", K_Mon, false, MODE_GREGORIAN),
    KW("OF", K_OF, false, MODE_NONE), KW("P.M.", K_P_M, false, MODE_NONE), KW("PM", K_PM, false, MODE_NONE),
    KW("Q", K_Q, true, MODE_NONE), KW("RM", K_RM, false, MODE_GREGORIAN), KW("SSSSS", K_SSSS, true, MODE_NONE),
    KW("SSSS", K_SSSS, true, MODE_NONE), KW("SS", K_SS, true, MODE_NONE), KW("TZH", K_TZH, false, MODE_NONE),
    KW("TZM", K_TZM, true, MODE_NONE), KW("TZ", K_TZ, false, MODE_NONE), KW("US", K_US, true, MODE_NONE),
    KW("WW", K_WW, true, MODE_GREGORIAN), KW("W", K_W, true, MODE_GREGORIAN),
    KW("Y,YYY", K_Y_YYY, true, MODE_GREGORIAN), KW("YYYY", K_YYYY, true, MODE_GREGORIAN),
    KW("YYY", K_YYY, true, MODE_GREGORIAN), KW("YY", K_YY, true, MODE_GREGORIAN), KW("Y", K_Y, true, MODE_GREGORIAN),
    KW("a.d.", K_a_d, false, MODE_NONE), KW("a.m.", K_a_m, false, MODE_NONE), KW("ad", K_ad, false, MODE_NONE),
    KW("am", K_am, false, MODE_NONE), KW("b.c.", K_b_c, false, MODE_NONE), KW("bc", K_bc, false, MODE_NONE),
    KW("cc", K_CC, true, MODE_NONE), KW("day", K_day, false, MODE_NONE), KW("ddd", K_DDD, true, MODE_GREGORIAN),
    KW("dd", K_DD, true, MODE_GREGORIAN), KW("dy", K_dy, false, MODE_NONE), KW("d", K_D, true, MODE_GREGORIAN),
    KW("ff1", K_FF1, true, MODE_NONE), KW("ff2", K_FF2, true, MODE_NONE), KW("ff3", K_FF3, true, MODE_NONE),
    KW("ff4", K_FF4, true, MODE_NONE), KW("ff5", K_FF5, true, MODE_NONE), KW("ff6", K_FF6, true, MODE_NONE),
    KW("fx", K_FX, false, MODE_NONE), KW("hh24", K_HH24, true, MODE_NONE), KW("hh12", K_HH12, true, MODE_NONE),
    KW("hh", K_HH, true, MODE_NONE), KW("iddd", K_IDDD, true, MODE_ISOWEEK), KW("id", K_ID, true, MODE_ISOWEEK),
    KW("iw", K_IW, true, MODE_ISOWEEK), KW("iyyy", K_IYYY, true, MODE_ISOWEEK), KW("iyy", K_IYY, true, MODE_ISOWEEK),
    KW("iy", K_IY, true, MODE_ISOWEEK), KW("i", K_I, true, MODE_ISOWEEK), KW("j", K_J, true, MODE_NONE),
    KW("mi", K_MI, true, MODE_NONE), KW("mm", K_MM, true, MODE_GREGORIAN),
    KW("month", K_month, false, MODE_GREGORIAN), KW("mon", K_mon, false, MODE_GREGORIAN),
    KW("ms", K_MS, true, MODE_NONE), KW("of", K_OF, false, MODE_NONE), KW("p.m.", K_p_m, false, MODE_NONE),
    KW("pm", K_pm, false, MODE_NONE), KW("q", K_Q, true, MODE_NONE), KW("rm", K_rm, false, MODE_GREGORIAN),
    KW("sssss", K_SSSS, true, MODE_NONE), KW("ssss", K_SSSS, true, MODE_NONE), KW("ss", K_SS, true, MODE_NONE),
    KW("tzh", K_TZH, false, MODE_NONE), KW("tzm", K_TZM, true, MODE_NONE), KW("tz", K_tz, false, MODE_NONE),
    KW("us", K_US, true, MODE_NONE), KW("ww", K_WW, true, MODE_GREGORIAN), KW("w", K_W, true, MODE_GREGORIAN),
    KW("y,yyy", K_Y_YYY, true, MODE_GREGORIAN), KW("yyyy", K_YYYY, true, MODE_GREGORIAN),
    KW("yyy", K_YYY, true, MODE_GREGORIAN), KW("yy", K_YY, true, MODE_GREGORIAN), KW("y", K_Y, true, MODE_GREGORIAN),
};
#undef KW

enum { S_FM = 1, S_TH = 2, S_th = 4, S_SP = 8, S_TM = 16 };

/* ---- template scanning ---- */

typedef enum NodeType { N_ACTION, N_CHAR, N_SEPARATOR, N_SPACE } NodeType;

typedef struct Node {
    uint8_t type;
    uint8_t suffix;
    uint8_t clen;            /* N_CHAR / N_SEPARATOR / N_SPACE: bytes in ch */
    char ch[4];
    const Keyword *key;      /* N_ACTION */
} Node;

static size_t mblen_utf8(const char *s, size_t left)
{
    unsigned char c = (unsigned char)*s;
    size_t l = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    return l <= left ? l : left;
}

static const Keyword *find_keyword(const char *s, size_t left)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
        const Keyword *k = &keywords[i];
        if (k->name[0] == s[0] && k->len <= left && memcmp(k->name, s, k->len) == 0) return k;
    }
    return NULL;
}

/* ASCII printable, not a letter or digit. */
static bool is_separator_char(char c)
{
    return c > 0x20 && c < 0x7F && !(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9');
}

static void char_node(Node *n, NodeType t, const char *s, size_t l)
{
    n->type = (uint8_t)t;
    n->suffix = 0;
    n->key = NULL;
    n->clen = (uint8_t)l;
    memcpy(n->ch, s, l);
}

/* Scans a template into nodes (at most len nodes); returns the count. */
static size_t parse_template(const char *s, size_t len, Node *nodes)
{
    size_t n = 0, i = 0;
    while (i < len) {
        int suffix = 0;
        if (len - i >= 2 && (memcmp(s + i, "FM", 2) == 0 || memcmp(s + i, "fm", 2) == 0)) {
            suffix |= S_FM;
            i += 2;
        } else if (len - i >= 2 && (memcmp(s + i, "TM", 2) == 0 || memcmp(s + i, "tm", 2) == 0)) {
            suffix |= S_TM;
            i += 2;
        }
        if (i >= len) break;
        const Keyword *k = find_keyword(s + i, len - i);
        if (k) {
            Node *nd = &nodes[n++];
            nd->type = N_ACTION;
            nd->key = k;
            nd->suffix = (uint8_t)suffix;
            nd->clen = 0;
            i += k->len;
            if (len - i >= 2) {
                if (memcmp(s + i, "TH", 2) == 0) nd->suffix |= S_TH, i += 2;
                else if (memcmp(s + i, "th", 2) == 0) nd->suffix |= S_th, i += 2;
                else if (memcmp(s + i, "SP", 2) == 0) nd->suffix |= S_SP, i += 2;
            }
            continue;
        }
        if (s[i] == '"') {
            /* a quoted literal; backslash quotes the next character */
            i++;
            while (i < len) {
                if (s[i] == '"') {
                    i++;
                    break;
                }
                if (s[i] == '\\' && i + 1 < len) i++;
                size_t l = mblen_utf8(s + i, len - i);
                char_node(&nodes[n++], N_CHAR, s + i, l);
                i += l;
            }
            continue;
        }
        /* outside quotes a backslash is special only before a double quote */
        if (s[i] == '\\' && i + 1 < len && s[i + 1] == '"') i++;
        size_t l = mblen_utf8(s + i, len - i);
        NodeType t = is_separator_char(s[i]) ? N_SEPARATOR : isspace((unsigned char)s[i]) ? N_SPACE : N_CHAR;
        char_node(&nodes[n++], t, s + i, l);
        i += l;
    }
    return n;
}

/* ---- PostgreSQL's calendar helpers (Julian days, ISO weeks) ----
 * These take the fields as they are, also the odd ones of an interval (month 0,
 * negative days), and compute what PostgreSQL's date2j & co compute for them,
 * including its 32-bit wraparound. */

static int32_t date2j(int64_t year, int64_t month, int64_t day)
{
    if (month > 2) {
        month += 1;
        year += 4800;
    } else {
        month += 13;
        year += 4799;
    }
    int64_t century = year / 100;
    int64_t julian = year * 365 - 32167;
    julian += year / 4 - century + century / 4;
    julian += 7834 * month / 256 + day;
    return (int32_t)(uint32_t)(uint64_t)julian;
}

static int j2day(int64_t date)
{
    date = (date + 1) % 7;
    if (date < 0) date += 7;
    return (int)date;
}

static int iso_week(int64_t year, int mon, int mday)
{
    int64_t dayn = date2j(year, mon, mday), day4 = date2j(year, 1, 4), day0 = j2day(day4 - 1);
    if (dayn < day4 - day0) {
        day4 = date2j(year - 1, 1, 4);
        day0 = j2day(day4 - 1);
    }
    int64_t r = (dayn - (day4 - day0)) / 7 + 1;
    if (r >= 52) {
        day4 = date2j(year + 1, 1, 4);
        day0 = j2day(day4 - 1);
        if (dayn >= day4 - day0) r = 1;
    }
    return (int)r;
}

static int64_t iso_year(int64_t year, int mon, int mday)
{
    int64_t dayn = date2j(year, mon, mday), day4 = date2j(year, 1, 4), day0 = j2day(day4 - 1);
    if (dayn < day4 - day0) {
        day4 = date2j(year - 1, 1, 4);
        day0 = j2day(day4 - 1);
        year--;
    }
    int64_t r = (dayn - (day4 - day0)) / 7 + 1;
    if (r >= 52) {
        day4 = date2j(year + 1, 1, 4);
        day0 = j2day(day4 - 1);
        if (dayn >= day4 - day0) year++;
    }
    return year;
}

/* Julian day of the Monday of ISO week `week` of ISO year `year`. */
static int64_t isoweek2j(int64_t year, int64_t week)
{
    int64_t day4 = date2j(year, 1, 4), day0 = j2day(day4 - 1);
    return (week - 1) * 7 + (day4 - day0);
}

static int iso_yday(int64_t year, int mon, int mday)
{
    return (int)(date2j(year, mon, mday) - isoweek2j(iso_year(year, mon, mday), 1) + 1);
}

/* ---- to_char ---- */

typedef struct Fields {
    int64_t year;        /* astronomical (timestamps) or interval years */
    int mon, mday;
    int64_t hour;
    int min, sec, usec;
    int wday, yday;
    bool interval;
    const char *tzn;     /* NULL: no zone (timestamp without time zone, interval) */
} Fields;

static const char *const months_full[] = {"January", "February", "March", "April", "May", "June", "July",
                                          "August", "September", "October", "November", "December"};
static const char *const months_abbr[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const days_full[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                        "Saturday"};
static const char *const days_abbr[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const rm_upper[] = {"XII", "XI", "X", "IX", "VIII", "VII", "VI", "V", "IV", "III", "II", "I"};
static const char *const rm_lower[] = {"xii", "xi", "x", "ix", "viii", "vii", "vi", "v", "iv", "iii", "ii", "i"};

/* The ordinal suffix of a printed number: th for teens, else st/nd/rd/th. */
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

/* Appends a printed number, with its ordinal suffix when the node asks for one. */
static void put_num(StrBuf *out, const Node *n, const char *num)
{
    sb_puts(out, num);
    if (n->suffix & (S_TH | S_th)) sb_puts(out, ordinal(num, n->suffix & S_TH));
}

/* %0*lld: zero-padded to `width` unless FM (negative numbers get one more). */
static void put_int(StrBuf *out, const Node *n, int64_t v, int width)
{
    char b[32];
    snprintf(b, sizeof b, "%0*lld", (n->suffix & S_FM) ? 0 : width, (long long)v);
    put_num(out, n, b);
}

static void put_padded(StrBuf *out, const Node *n, const char *s, int width)
{
    sb_puts(out, s);
    if (!(n->suffix & S_FM))
        for (int i = (int)strlen(s); i < width; i++) sb_putc(out, ' ');
}

/* A name in the case its keyword asks for: 0 as given, 1 upper, 2 lower. */
static void put_name(StrBuf *out, const Node *n, const char *name, int cs, int width)
{
    char b[16];
    size_t l = strlen(name);
    for (size_t i = 0; i <= l; i++)
        b[i] = cs == 1 ? (char)toupper((unsigned char)name[i]) : cs == 2 ? (char)tolower((unsigned char)name[i]) : name[i];
    if (n->suffix & S_TM) sb_puts(out, b);   /* localized names are never padded */
    else put_padded(out, n, b, width);
}

static int64_t adjust_year(const Fields *f, int64_t y) { return f->interval ? y : y <= 0 ? -(y - 1) : y; }

static bool invalid_for_interval(char *err, size_t errsize)
{
    snprintf(err, errsize, "invalid format specification for an interval value");
    return false;
}

static bool to_char(const Node *nodes, size_t count, const Fields *f, StrBuf *out, char *err, size_t errsize)
{
    for (size_t i = 0; i < count; i++) {
        const Node *n = &nodes[i];
        if (n->type != N_ACTION) {
            sb_append(out, n->ch, n->clen);
            continue;
        }
        int id = n->key->id;
        switch (id) {
        case K_TZ: case K_tz: case K_TZH: case K_TZM: case K_OF: case K_A_D: case K_B_C: case K_AD: case K_BC:
        case K_a_d: case K_b_c: case K_ad: case K_bc: case K_MONTH: case K_Month: case K_month: case K_MON:
        case K_Mon: case K_mon: case K_DAY: case K_Day: case K_day: case K_DY: case K_Dy: case K_dy: case K_D:
        case K_ID:
            if (f->interval) return invalid_for_interval(err, errsize);
            break;
        default: break;
        }
        bool pm = f->hour % 24 >= 12;
        int64_t year = adjust_year(f, f->year);
        char b[48];
        switch (id) {
        case K_A_M: case K_P_M: sb_puts(out, pm ? "P.M." : "A.M."); break;
        case K_AM: case K_PM: sb_puts(out, pm ? "PM" : "AM"); break;
        case K_a_m: case K_p_m: sb_puts(out, pm ? "p.m." : "a.m."); break;
        case K_am: case K_pm: sb_puts(out, pm ? "pm" : "am"); break;
        case K_HH: case K_HH12:
            put_int(out, n, f->hour % 12 == 0 ? 12 : f->hour % 12, f->hour >= 0 ? 2 : 3);
            break;
        case K_HH24: put_int(out, n, f->hour, f->hour >= 0 ? 2 : 3); break;
        case K_MI: put_int(out, n, f->min, f->min >= 0 ? 2 : 3); break;
        case K_SS: put_int(out, n, f->sec, f->sec >= 0 ? 2 : 3); break;
        case K_FF1: case K_FF2: case K_FF3: case K_FF4: case K_FF5: case K_FF6: case K_MS: case K_US: {
            int digits = id == K_MS ? 3 : id == K_US ? 6 : id - K_FF1 + 1;
            int v = f->usec;
            for (int k = digits; k < 6; k++) v /= 10;
            snprintf(b, sizeof b, "%0*d", digits, v);
            put_num(out, n, b);
            break;
        }
        case K_SSSS:
            snprintf(b, sizeof b, "%lld", (long long)(f->hour * 3600 + f->min * 60 + f->sec));
            put_num(out, n, b);
            break;
        case K_tz: case K_TZ:
            if (f->tzn) {
                for (const char *p = f->tzn; *p; p++) sb_putc(out, id == K_tz ? (char)tolower((unsigned char)*p) : *p);
            }
            break;
        case K_TZH: sb_puts(out, "+00"); break;
        case K_TZM: sb_puts(out, "00"); break;
        case K_OF: sb_puts(out, (n->suffix & S_FM) ? "+0" : "+00"); break;
        case K_A_D: case K_B_C: sb_puts(out, f->year <= 0 ? "B.C." : "A.D."); break;
        case K_AD: case K_BC: sb_puts(out, f->year <= 0 ? "BC" : "AD"); break;
        case K_a_d: case K_b_c: sb_puts(out, f->year <= 0 ? "b.c." : "a.d."); break;
        case K_ad: case K_bc: sb_puts(out, f->year <= 0 ? "bc" : "ad"); break;
        case K_MONTH: case K_Month: case K_month:
            if (f->mon) put_name(out, n, months_full[f->mon - 1], id == K_MONTH ? 1 : id == K_month ? 2 : 0, 9);
            break;
        case K_MON: case K_Mon: case K_mon:
            if (f->mon) put_name(out, n, months_abbr[f->mon - 1], id == K_MON ? 1 : id == K_mon ? 2 : 0, 0);
            break;
        case K_MM: put_int(out, n, f->mon, f->mon >= 0 ? 2 : 3); break;
        case K_DAY: case K_Day: case K_day:
            put_name(out, n, days_full[f->wday], id == K_DAY ? 1 : id == K_day ? 2 : 0, 9);
            break;
        case K_DY: case K_Dy: case K_dy:
            put_name(out, n, days_abbr[f->wday], id == K_DY ? 1 : id == K_dy ? 2 : 0, 0);
            break;
        case K_DDD: put_int(out, n, f->yday, 3); break;
        case K_IDDD: put_int(out, n, iso_yday(f->year, f->mon, f->mday), 3); break;
        case K_DD: put_int(out, n, f->mday, 2); break;
        case K_D:
            snprintf(b, sizeof b, "%d", f->wday + 1);
            put_num(out, n, b);
            break;
        case K_ID:
            snprintf(b, sizeof b, "%d", f->wday == 0 ? 7 : f->wday);
            put_num(out, n, b);
            break;
        case K_WW: put_int(out, n, (f->yday - 1) / 7 + 1, 2); break;
        case K_IW: put_int(out, n, iso_week(f->year, f->mon, f->mday), 2); break;
        case K_Q:
            if (!f->mon) break;
            snprintf(b, sizeof b, "%d", (f->mon - 1) / 3 + 1);
            put_num(out, n, b);
            break;
        case K_CC: {
            int64_t c = f->interval ? f->year / 100 : f->year > 0 ? (f->year - 1) / 100 + 1 : f->year / 100 - 1;
            if (c <= 99 && c >= -99) put_int(out, n, c, c >= 0 ? 2 : 3);
            else {
                snprintf(b, sizeof b, "%lld", (long long)c);
                put_num(out, n, b);
            }
            break;
        }
        case K_Y_YYY: {
            int64_t k = year / 1000;
            snprintf(b, sizeof b, "%lld,%03lld", (long long)k, (long long)(year - k * 1000));
            put_num(out, n, b);
            break;
        }
        case K_YYYY: case K_IYYY: {
            int64_t y = id == K_YYYY ? year : adjust_year(f, iso_year(f->year, f->mon, f->mday));
            put_int(out, n, y, year >= 0 ? 4 : 5);
            break;
        }
        case K_YYY: case K_IYY: {
            int64_t y = id == K_YYY ? year : adjust_year(f, iso_year(f->year, f->mon, f->mday));
            put_int(out, n, y % 1000, year >= 0 ? 3 : 4);
            break;
        }
        case K_YY: case K_IY: {
            int64_t y = id == K_YY ? year : adjust_year(f, iso_year(f->year, f->mon, f->mday));
            put_int(out, n, y % 100, year >= 0 ? 2 : 3);
            break;
        }
        case K_Y: case K_I: {
            int64_t y = id == K_Y ? year : adjust_year(f, iso_year(f->year, f->mon, f->mday));
            snprintf(b, sizeof b, "%1lld", (long long)(y % 10));
            put_num(out, n, b);
            break;
        }
        case K_RM: case K_rm: {
            if (!f->mon && !f->year) break;
            int idx = f->mon == 0 ? (f->year >= 0 ? 0 : 11) : f->mon < 0 ? -(f->mon + 1) : 12 - f->mon;
            put_padded(out, n, (id == K_RM ? rm_upper : rm_lower)[idx], 4);
            break;
        }
        case K_W:
            snprintf(b, sizeof b, "%d", (f->mday - 1) / 7 + 1);
            put_num(out, n, b);
            break;
        case K_J:
            snprintf(b, sizeof b, "%d", date2j(f->year, f->mon, f->mday));
            put_num(out, n, b);
            break;
        default: break;   /* FX */
        }
    }
    return true;
}

/* Runs to_char over a template (nodes on the stack for the usual short ones). */
static bool format_fields(const Fields *f, const char *fmt, size_t len, StrBuf *out, char *err, size_t errsize)
{
    Node stack[128];
    Node *nodes = len <= 128 ? stack : xmalloc(sizeof(Node) * len);
    size_t count = parse_template(fmt, len, nodes);
    bool ok = to_char(nodes, count, f, out, err, errsize);
    if (nodes != stack) free(nodes);
    return ok;
}

bool datefmt_timestamp_to_char(int64_t ts, bool with_tz, const char *fmt, size_t fmtlen, StrBuf *out,
                               char *err, size_t errsize)
{
    Fields f;
    memset(&f, 0, sizeof f);
    int64_t days = ts / TM_USECS_PER_DAY, time = ts % TM_USECS_PER_DAY;
    if (time < 0) {
        time += TM_USECS_PER_DAY;
        days--;
    }
    int m, d;
    tm_civil_from_days(days, &f.year, &m, &d);
    f.mon = m;
    f.mday = d;
    f.hour = time / TM_USECS_PER_HOUR;
    f.min = (int)(time / TM_USECS_PER_MINUTE % 60);
    f.sec = (int)(time / TM_USECS_PER_SEC % 60);
    f.usec = (int)(time % TM_USECS_PER_SEC);
    int64_t j = date2j(f.year, f.mon, f.mday);
    f.wday = (int)((j + 1) % 7);
    f.yday = (int)(j - date2j(f.year, 1, 1) + 1);
    f.tzn = with_tz ? "UTC" : NULL;
    return format_fields(&f, fmt, fmtlen, out, err, errsize);
}

bool datefmt_interval_to_char(int32_t months, int32_t days, int64_t micros, const char *fmt, size_t fmtlen,
                              StrBuf *out, char *err, size_t errsize)
{
    Fields f;
    memset(&f, 0, sizeof f);
    f.interval = true;
    f.year = months / 12;
    f.mon = months % 12;
    f.mday = days;
    f.hour = micros / TM_USECS_PER_HOUR;
    int64_t rest = micros % TM_USECS_PER_HOUR;
    f.min = (int)(rest / TM_USECS_PER_MINUTE);
    rest %= TM_USECS_PER_MINUTE;
    f.sec = (int)(rest / TM_USECS_PER_SEC);
    f.usec = (int)(rest % TM_USECS_PER_SEC);
    f.yday = (int)((f.year * 12 + f.mon) * 30 + f.mday);
    return format_fields(&f, fmt, fmtlen, out, err, errsize);
}

/* ---- to_timestamp / to_date ---- */

/* The fields read from the text (0: not given), as PostgreSQL's TmFromChar. */
typedef struct FromChar {
    int mode;
    int hh, pm, mi, ss, ssss, d, dd, ddd, mm, ms, year, bc, ww, w, cc, j, us, yysz, clock12, tzsign, tzh, tzm, ff;
} FromChar;

typedef struct Parse {
    const Node *nodes;
    size_t count;
    char *err;
    size_t errsize;
} Parse;

static bool perr(Parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool perr(Parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, p->errsize, fmt, ap);
    va_end(ap);
    return false;
}

/* Whether what follows node i cannot be a digit (so a number may take all digits). */
static bool next_is_separator(const Parse *p, size_t i)
{
    const Node *n = &p->nodes[i];
    if (n->type == N_ACTION && (n->suffix & (S_TH | S_th))) return true;
    if (i + 1 >= p->count) return true;
    n = &p->nodes[i + 1];
    if (n->type == N_ACTION) return !n->key->digit;
    return !(n->clen == 1 && isdigit((unsigned char)n->ch[0]));
}

static bool set_int(Parse *p, int *dest, int value, const Node *n)
{
    if (*dest != 0 && *dest != value)
        return perr(p, "conflicting values for \"%s\" field in formatting string", n->key->name);
    *dest = value;
    return true;
}

/* Reads an integer field of `len` characters (all available digits with FM or before
 * a separator), as PostgreSQL's from_char_parse_int_len. Returns the characters
 * consumed (leading blanks included), -1 on an error. dest may be NULL. */
static int parse_int(Parse *p, int *dest, const char **src, int len, size_t i)
{
    const Node *n = &p->nodes[i];
    const char *init = *src;
    while (**src && isspace((unsigned char)**src)) (*src)++;
    char copy[16];
    size_t avail = strlen(*src);
    size_t cl = avail < (size_t)len ? avail : (size_t)len;
    memcpy(copy, *src, cl);
    copy[cl] = '\0';
    long result;
    errno = 0;
    if ((n->suffix & S_FM) || next_is_separator(p, i)) {
        char *end;
        result = strtol(init, &end, 10);
        *src = end;
    } else {
        if (avail < (size_t)len) {
            perr(p, "source string too short for \"%s\" formatting field", n->key->name);
            return -1;
        }
        char *last;
        result = strtol(copy, &last, 10);
        int used = (int)(last - copy);
        if (used > 0 && used < len) {
            perr(p, "invalid value \"%s\" for \"%s\"", copy, n->key->name);
            return -1;
        }
        *src += used;
    }
    if (*src == init) {
        perr(p, "invalid value \"%s\" for \"%s\"", copy, n->key->name);
        return -1;
    }
    if (errno == ERANGE || result < INT_MIN || result > INT_MAX) {
        perr(p, "value for \"%s\" in source string is out of range", n->key->name);
        return -1;
    }
    if (dest && !set_int(p, dest, (int)result, n)) return -1;
    return (int)(*src - init);
}

/* Case-insensitive match of an entry of `words` at the start of *src: its index, or -1
 * with PostgreSQL's message (the text up to the next blank). */
static int match_word(Parse *p, const char **src, const char *const *words, size_t nwords, const Node *n)
{
    const char *s = *src;
    for (size_t k = 0; k < nwords && *s; k++) {
        size_t l = strlen(words[k]), m = 0;
        while (m < l && s[m] && tolower((unsigned char)s[m]) == tolower((unsigned char)words[k][m])) m++;
        if (m == l) {
            *src += l;
            return (int)k;
        }
    }
    size_t e = 0;
    while (s[e] && !(s[e] == ' ' || s[e] == '\t' || s[e] == '\n' || s[e] == '\r' || s[e] == '\f')) e++;
    perr(p, "invalid value \"%.*s\" for \"%s\"", (int)e, s, n->key->name);
    return -1;
}

static const char *const ampm_short[] = {"am", "pm", "AM", "PM"};
static const char *const ampm_long[] = {"a.m.", "p.m.", "A.M.", "P.M."};
static const char *const adbc_short[] = {"ad", "bc", "AD", "BC"};
static const char *const adbc_long[] = {"a.d.", "b.c.", "A.D.", "B.C."};

static void skip_th(const char **s, const Node *n)
{
    if (!(n->suffix & (S_TH | S_th))) return;
    for (int k = 0; k < 2 && **s; k++) *s += mblen_utf8(*s, strlen(*s));
}

/* Reads the fields of `in` along the template, as PostgreSQL's DCH_from_char. */
static bool from_char(Parse *p, const char *in, FromChar *out)
{
    const char *s = in;
    bool fx = false;
    int extra_skip = 0;
    for (size_t i = 0; i < p->count && *s; i++) {
        const Node *n = &p->nodes[i];
        /* blanks before fields (and at the start) are skipped outside FX mode */
        if (!fx && (n->type != N_ACTION || n->key->id != K_FX) && (n->type == N_ACTION || i == 0)) {
            while (*s && isspace((unsigned char)*s)) {
                s++;
                extra_skip++;
            }
        }
        if (n->type == N_SPACE || n->type == N_SEPARATOR) {
            if (!fx) {
                /* one blank or separator of the template takes one (or none) of the text */
                extra_skip--;
                if (isspace((unsigned char)*s) || is_separator_char(*s)) {
                    s++;
                    extra_skip++;
                }
            } else {
                s += mblen_utf8(s, strlen(s));
            }
            continue;
        }
        if (n->type != N_ACTION) {
            /* a literal takes one character of the text, whatever it is */
            if (!fx && extra_skip > 0) extra_skip--;
            else s += mblen_utf8(s, strlen(s));
            continue;
        }
        const Keyword *k = n->key;
        if (k->mode != MODE_NONE) {
            if (out->mode == MODE_NONE) out->mode = k->mode;
            else if (out->mode != k->mode) return perr(p, "invalid combination of date conventions");
        }
        int v, len;
        switch (k->id) {
        case K_FX: fx = true; break;
        case K_A_M: case K_P_M: case K_a_m: case K_p_m:
        case K_AM: case K_PM: case K_am: case K_pm: {
            bool lng = k->id == K_A_M || k->id == K_P_M || k->id == K_a_m || k->id == K_p_m;
            if ((v = match_word(p, &s, lng ? ampm_long : ampm_short, 4, n)) < 0) return false;
            if (!set_int(p, &out->pm, v % 2, n)) return false;
            out->clock12 = 1;
            break;
        }
        case K_HH: case K_HH12: case K_HH24:
            if (parse_int(p, &out->hh, &s, 2, i) < 0) return false;
            if (k->id != K_HH24) out->clock12 = 1;
            skip_th(&s, n);
            break;
        case K_MI:
            if (parse_int(p, &out->mi, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_SS:
            if (parse_int(p, &out->ss, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_MS:
            if ((len = parse_int(p, &out->ms, &s, 3, i)) < 0) return false;
            out->ms *= len == 1 ? 100 : len == 2 ? 10 : 1;   /* 25 is 0.25, 025 is 0.025 */
            skip_th(&s, n);
            break;
        case K_FF1: case K_FF2: case K_FF3: case K_FF4: case K_FF5: case K_FF6: case K_US: {
            if (k->id != K_US) out->ff = k->id - K_FF1 + 1;
            if ((len = parse_int(p, &out->us, &s, k->id == K_US ? 6 : out->ff, i)) < 0) return false;
            static const int scale[] = {1, 100000, 10000, 1000, 100, 10};
            out->us *= len >= 1 && len <= 5 ? scale[len] : 1;
            skip_th(&s, n);
            break;
        }
        case K_SSSS:
            if (parse_int(p, &out->ssss, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_tz: case K_TZ: case K_OF:
            return perr(p, "formatting field \"%s\" is only supported in to_char", k->name);
        case K_TZH:
            /* a minus taken as a separator before TZH is its sign */
            if (*s == '+' || *s == '-' || *s == ' ') {
                out->tzsign = *s == '-' ? -1 : 1;
                s++;
            } else {
                out->tzsign = extra_skip > 0 && s > in && s[-1] == '-' ? -1 : 1;
            }
            if (parse_int(p, &out->tzh, &s, 2, i) < 0) return false;
            break;
        case K_TZM:
            if (!out->tzsign) out->tzsign = 1;
            if (parse_int(p, &out->tzm, &s, 2, i) < 0) return false;
            break;
        case K_A_D: case K_B_C: case K_a_d: case K_b_c:
        case K_AD: case K_BC: case K_ad: case K_bc: {
            bool lng = k->id == K_A_D || k->id == K_B_C || k->id == K_a_d || k->id == K_b_c;
            if ((v = match_word(p, &s, lng ? adbc_long : adbc_short, 4, n)) < 0) return false;
            if (!set_int(p, &out->bc, v % 2, n)) return false;
            break;
        }
        case K_MONTH: case K_Month: case K_month:
            if ((v = match_word(p, &s, months_full, 12, n)) < 0 || !set_int(p, &out->mm, v + 1, n)) return false;
            break;
        case K_MON: case K_Mon: case K_mon:
            if ((v = match_word(p, &s, months_abbr, 12, n)) < 0 || !set_int(p, &out->mm, v + 1, n)) return false;
            break;
        case K_MM:
            if (parse_int(p, &out->mm, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_DAY: case K_Day: case K_day:
        case K_DY: case K_Dy: case K_dy: {
            bool full = k->id == K_DAY || k->id == K_Day || k->id == K_day;
            if ((v = match_word(p, &s, full ? days_full : days_abbr, 7, n)) < 0 || !set_int(p, &out->d, v, n))
                return false;
            out->d++;
            break;
        }
        case K_DDD:
            if (parse_int(p, &out->ddd, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_IDDD:
            if (parse_int(p, &out->ddd, &s, 3, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_DD:
            if (parse_int(p, &out->dd, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_D:
            if (parse_int(p, &out->d, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_ID:
            if (parse_int(p, &out->d, &s, 1, i) < 0) return false;
            if (++out->d > 7) out->d = 1;   /* Sunday = 1, as the Gregorian D */
            skip_th(&s, n);
            break;
        case K_WW: case K_IW:
            if (parse_int(p, &out->ww, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_Q:   /* read and ignored, as PostgreSQL does */
            if (parse_int(p, NULL, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_CC:
            if (parse_int(p, &out->cc, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_Y_YYY: {
            int mil, yrs, nch = 0;
            if (sscanf(s, "%d,%03d%n", &mil, &yrs, &nch) < 2) return perr(p, "invalid input string for \"Y,YYY\"");
            int64_t y = (int64_t)mil * 1000 + yrs;
            if (y < INT_MIN || y > INT_MAX) return perr(p, "value for \"Y,YYY\" in source string is out of range");
            if (!set_int(p, &out->year, (int)y, n)) return false;
            out->yysz = 4;
            s += nch;
            skip_th(&s, n);
            break;
        }
        case K_YYYY: case K_IYYY:
            if (parse_int(p, &out->year, &s, k->len, i) < 0) return false;
            out->yysz = 4;
            skip_th(&s, n);
            break;
        case K_YYY: case K_IYY: case K_YY: case K_IY: case K_Y: case K_I:
            if ((len = parse_int(p, &out->year, &s, k->len, i)) < 0) return false;
            if (len < 4) {
                /* toward 2020: 70 is 1970, 69 is 2069 */
                int y = out->year;
                out->year = y < 70 ? y + 2000 : y < 100 ? y + 1900 : y < 520 ? y + 2000 : y < 1000 ? y + 1000 : y;
            }
            out->yysz = k->len;
            skip_th(&s, n);
            break;
        case K_RM: case K_rm:
            if ((v = match_word(p, &s, rm_lower, 12, n)) < 0 || !set_int(p, &out->mm, 12 - v, n)) return false;
            break;
        case K_W:
            if (parse_int(p, &out->w, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        case K_J:
            if (parse_int(p, &out->j, &s, k->len, i) < 0) return false;
            skip_th(&s, n);
            break;
        default: break;
        }
        /* blanks after fields are skipped outside FX mode */
        if (!fx) {
            extra_skip = 0;
            while (*s && isspace((unsigned char)*s)) {
                s++;
                extra_skip++;
            }
        }
    }
    return true;
}

typedef struct Tm {
    int64_t year;
    int64_t mon, mday, hour, min, sec, fsec;
} Tm;

/* Year, month, day of a Julian day number. */
static void j2date(int64_t jd, Tm *tm)
{
    int m, d;
    tm_civil_from_days(jd - 2440588, &tm->year, &m, &d);
    tm->mon = m;
    tm->mday = d;
}

static bool field_overflow(Parse *p, const char *text)
{
    return perr(p, "date/time field value out of range: \"%s\"", text);
}

/* The fields of the text as date and time (PostgreSQL's do_to_timestamp); the zone
 * offset east of UTC in seconds in *tzoff when TZH/TZM were given, the fraction
 * digits of FFn in *fprec. */
static bool assemble(Parse *p, const char *text, const char *fmt, size_t fmtlen, Tm *tm, bool *has_tz,
                     int64_t *tzoff, int *fprec)
{
    Node stack[128];
    Node *nodes = fmtlen <= 128 ? stack : xmalloc(sizeof(Node) * (fmtlen ? fmtlen : 1));
    p->nodes = nodes;
    p->count = parse_template(fmt, fmtlen, nodes);
    FromChar fc;
    memset(&fc, 0, sizeof fc);
    bool ok = from_char(p, text, &fc);
    if (nodes != stack) free(nodes);
    if (!ok) return false;
    memset(tm, 0, sizeof *tm);
    tm->mon = tm->mday = 1;
    enum { M_YEAR = 1, M_MONTH = 2, M_DAY = 4 };
    int fmask = 0;
    if (fc.ssss) {
        tm->hour = fc.ssss / 3600;
        tm->min = fc.ssss % 3600 / 60;
        tm->sec = fc.ssss % 60;
    }
    if (fc.ss) tm->sec = fc.ss;
    if (fc.mi) tm->min = fc.mi;
    if (fc.hh) tm->hour = fc.hh;
    if (fc.clock12) {
        if (tm->hour < 1 || tm->hour > 12)
            return perr(p, "hour \"%d\" is invalid for the 12-hour clock", (int)tm->hour);
        if (fc.pm && tm->hour < 12) tm->hour += 12;
        else if (!fc.pm && tm->hour == 12) tm->hour = 0;
    }
    if (fc.year) {
        if (fc.cc && fc.yysz <= 2) {
            /* YY within century CC (the 21st runs 2001-2100; the 6th BC 600-501 BC) */
            int64_t cc = fc.bc ? -(int64_t)fc.cc : fc.cc;
            tm->year = fc.year % 100;
            if (tm->year) tm->year = cc >= 0 ? tm->year + (cc - 1) * 100 : (cc + 1) * 100 - tm->year + 1;
            else tm->year = cc * 100 + (cc >= 0 ? 0 : 1);
        } else {
            tm->year = fc.year;
            if (fc.bc) tm->year = -tm->year;
            if (tm->year < 0) tm->year++;   /* 1 BC is year 0 */
        }
        fmask |= M_YEAR;
    } else if (fc.cc) {
        int64_t cc = fc.bc ? -(int64_t)fc.cc : fc.cc;
        tm->year = cc >= 0 ? (cc - 1) * 100 + 1 : cc * 100 + 1;
        fmask |= M_YEAR;
    }
    if (fc.j) {
        j2date(fc.j, tm);
        fmask |= M_YEAR | M_MONTH | M_DAY;
    }
    if (fc.ww) {
        if (fc.mode == MODE_ISOWEEK) {
            int64_t jd = isoweek2j(tm->year, fc.ww);
            if (fc.d) jd += fc.d > 1 ? fc.d - 2 : 6;   /* from Sunday = 1 to Monday-based */
            j2date(jd, tm);
            fmask |= M_YEAR | M_MONTH | M_DAY;
        } else {
            fc.ddd = (fc.ww - 1) * 7 + 1;
        }
    }
    if (fc.w) fc.dd = (fc.w - 1) * 7 + 1;
    if (fc.dd) {
        tm->mday = fc.dd;
        fmask |= M_DAY;
    }
    if (fc.mm) {
        tm->mon = fc.mm;
        fmask |= M_MONTH;
    }
    if (fc.ddd && (tm->mon <= 1 || tm->mday <= 1)) {
        if (!tm->year && !fc.bc) return perr(p, "cannot calculate day of year without year information");
        if (fc.mode == MODE_ISOWEEK) {
            j2date(isoweek2j(tm->year, 1) - 1 + fc.ddd, tm);
            fmask |= M_YEAR | M_MONTH | M_DAY;
        } else {
            static const int ysum[2][13] = {{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365},
                                            {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}};
            const int *y = ysum[tm_is_leap_year(tm->year)];
            int m = 1;
            while (m <= 12 && fc.ddd > y[m]) m++;
            if (tm->mon <= 1) tm->mon = m;
            if (tm->mday <= 1) tm->mday = fc.ddd - y[m - 1];
            fmask |= M_MONTH | M_DAY;
        }
    }
    tm->fsec = (int64_t)fc.ms * 1000 + fc.us;
    *fprec = fc.ff;
    /* ValidateDate: the month and day of what was given */
    if (fmask) {
        if ((fmask & M_MONTH) && (tm->mon < 1 || tm->mon > 12)) return field_overflow(p, text);
        if ((fmask & M_DAY) && (tm->mday < 1 || tm->mday > 31)) return field_overflow(p, text);
        if ((fmask & (M_YEAR | M_MONTH | M_DAY)) == (M_YEAR | M_MONTH | M_DAY) &&
            tm->mday > tm_days_in_month(tm->year, (int)tm->mon))
            return field_overflow(p, text);
    }
    if (tm->hour < 0 || tm->hour >= 24 || tm->min < 0 || tm->min >= 60 || tm->sec < 0 || tm->sec >= 60 ||
        tm->fsec < 0 || tm->fsec >= TM_USECS_PER_SEC)
        return field_overflow(p, text);
    *has_tz = fc.tzsign != 0;
    if (fc.tzsign) {
        if (fc.tzh < 0 || fc.tzh > 15 || fc.tzm < 0 || fc.tzm >= 60)
            return perr(p, "time zone displacement out of range: \"%s\"", text);
        *tzoff = (int64_t)fc.tzsign * (fc.tzh * 3600 + fc.tzm * 60);
    }
    return true;
}

/* PostgreSQL's IS_VALID_JULIAN. */
static bool valid_julian(int64_t y, int64_t m)
{
    return (y > -4713 || (y == -4713 && m >= 11)) && (y < 5874898 || (y == 5874898 && m < 6));
}

/* NUL-terminated copies of the text and template for the scanner. */
static char *cstr(const char *s, size_t len)
{
    char *c = xmalloc(len + 1);
    if (len) memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

#define PG_EPOCH_USECS (INT64_C(10957) * TM_USECS_PER_DAY)

bool datefmt_to_timestamp(const char *s, size_t len, const char *fmt, size_t fmtlen, int64_t *out, char *err,
                          size_t errsize)
{
    Parse p = {NULL, 0, err, errsize};
    char *text = cstr(s, len);
    Tm tm;
    bool has_tz = false;
    int64_t tzoff = 0;
    int fprec = 0;
    bool ok = assemble(&p, text, fmt, fmtlen, &tm, &has_tz, &tzoff, &fprec);
    free(text);
    if (!ok) return false;
    int64_t days = tm_days_from_civil(tm.year, (int)tm.mon, 1) + tm.mday - 1, ts;
    int64_t time = ((tm.hour * 60 + tm.min) * 60 + tm.sec) * TM_USECS_PER_SEC + tm.fsec;
    if (!valid_julian(tm.year, tm.mon) || __builtin_mul_overflow(days, TM_USECS_PER_DAY, &ts) ||
        __builtin_add_overflow(ts, time, &ts) || __builtin_sub_overflow(ts, tzoff * TM_USECS_PER_SEC, &ts) ||
        ts < INT64_C(-2440588) * TM_USECS_PER_DAY || ts == INT64_MAX) {
        snprintf(err, errsize, "timestamp out of range");
        return false;
    }
    if (fprec) {
        /* round to the FFn digits, half away from PostgreSQL's epoch (2000-01-01) */
        int64_t scale = 1;
        for (int k = fprec; k < 6; k++) scale *= 10;
        int64_t pg = ts - PG_EPOCH_USECS;
        pg = pg >= 0 ? (pg + scale / 2) / scale * scale : -((-pg + scale / 2) / scale * scale);
        ts = pg + PG_EPOCH_USECS;
    }
    *out = ts;
    return true;
}

bool datefmt_to_date(const char *s, size_t len, const char *fmt, size_t fmtlen, int64_t *out, char *err,
                     size_t errsize)
{
    Parse p = {NULL, 0, err, errsize};
    char *text = cstr(s, len);
    Tm tm;
    bool has_tz = false;
    int64_t tzoff = 0;
    int fprec = 0;
    bool ok = assemble(&p, text, fmt, fmtlen, &tm, &has_tz, &tzoff, &fprec);
    if (ok) {
        int64_t days = tm_days_from_civil(tm.year, (int)tm.mon, 1) + tm.mday - 1;
        if (!valid_julian(tm.year, tm.mon) || days < INT64_C(-2440588) || days >= INT64_C(2147483494) - INT64_C(2440588)) {
            snprintf(err, errsize, "date out of range: \"%s\"", text);
            ok = false;
        } else {
            *out = days;
        }
    }
    free(text);
    return ok;
}
