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

/* ---- to_timestamp / to_date (to be completed) ---- */

bool datefmt_to_timestamp(const char *s, size_t len, const char *fmt, size_t fmtlen, int64_t *out, char *err,
                          size_t errsize)
{
    (void)s; (void)len; (void)fmt; (void)fmtlen; (void)out;
    snprintf(err, errsize, "to_timestamp is not supported yet");
    return false;
}

bool datefmt_to_date(const char *s, size_t len, const char *fmt, size_t fmtlen, int64_t *out, char *err,
                     size_t errsize)
{
    (void)s; (void)len; (void)fmt; (void)fmtlen; (void)out;
    snprintf(err, errsize, "to_date is not supported yet");
    return false;
}
