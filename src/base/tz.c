/* Time zones (tz.h): PostgreSQL 15's default abbreviation set, a reader of compiled
 * TZif files (RFC 8536, versions 1 to 4) with their POSIX TZ footer, a POSIX TZ string
 * parser, and PostgreSQL's rules for the offset of an instant (pg_localtime) and of a
 * wall-clock time (DetermineTimeZoneOffset). The limits and validity checks follow the
 * tzcode PostgreSQL embeds (src/timezone/localtime.c), so a file PostgreSQL refuses
 * is refused here too. */
#include "base/tz.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* tzcode's limits (PostgreSQL's tzfile.h) */
#define TZ_MAX_TIMES 2000
#define TZ_MAX_TYPES 256
#define TZ_MAX_CHARS 50
#define TZ_FILE_MAX (1 << 20)
#define SECS_PER_DAY 86400

/* A transition rule of a POSIX TZ string: Jn (day 1..365, February 29 never counted),
 * n (day 0..365 counting February 29), Mm.w.d (day d of week w of month m; week 5: the
 * last), at `time` seconds local time (may be negative or beyond 24 hours). */
typedef struct TzRule {
    char kind;          /* 'J', 'D' or 'M' */
    int day, week, mon;
    int32_t time;
} TzRule;

struct TzZone {
    int32_t ntrans;     /* transitions, ascending; trans[i] starts type tidx[i] */
    int64_t *trans;
    uint8_t *tidx;
    int32_t ntypes;     /* >= 1 */
    int32_t *utoff;
    uint8_t *isdst;
    /* From the last transition on (everywhere when ntrans is 0), a daylight-saving
     * footer rule decides the offset: std_off, or dst_off between start and end. */
    bool rule;
    int32_t std_off, dst_off;
    TzRule start, end;
    /* A TZif zone's designations: type i is called chars + desig[i] ("CET", "MSK"). */
    uint8_t *desig;
    char *chars;
    int32_t nchars;
    /* An abbreviation PostgreSQL defines by a zone ('MSK' by Europe/Moscow): `base` is
     * that zone, and the abbreviation's meanings are its transitions into a type of that
     * name, use_at[i] starting offset use_off[i] (nuse may be 0: the zone never uses the
     * name, every time takes the zone's own offset). */
    const TzZone *base;
    int32_t nuse;
    int64_t *use_at;
    int32_t *use_off;
};

/* ---- calendar --------------------------------------------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* days since 1970-01-01 of y-m-d (proleptic Gregorian) */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int64_t year_of_days(int64_t z)
{
    z += 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    return yoe + era * 400 + (m <= 2);
}

static const int month_days[2][12] = {{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
                                      {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}};

/* Seconds from y-01-01 00:00:00 local time to the rule's moment in year y (tzcode's
 * transtime without the offset). */
static int64_t rule_secs(int64_t y, const TzRule *r)
{
    int leap = is_leap(y);
    int64_t day;
    if (r->kind == 'J') {
        day = r->day - 1 + (leap && r->day >= 60);
    } else if (r->kind == 'D') {
        day = r->day;
    } else {
        int64_t first = days_from_civil(y, r->mon, 1);
        int dow = (int)((first % 7 + 7 + 4) % 7);   /* 1970-01-01 was a Thursday (4) */
        int d = r->day - dow;
        if (d < 0) d += 7;
        for (int i = 1; i < r->week; i++) {
            if (d + 7 >= month_days[leap][r->mon - 1]) break;
            d += 7;
        }
        day = d;
        for (int i = 0; i < r->mon - 1; i++) day += month_days[leap][i];
    }
    return day * SECS_PER_DAY + r->time;
}

/* The rule's transitions of the years y-1 .. y+1 in UTC, ascending: at[k] starts
 * daylight time when dst[k], standard time otherwise. */
static void rule_transitions(const TzZone *z, int64_t y, int64_t at[6], bool dst[6])
{
    int n = 0;
    for (int64_t yy = y - 1; yy <= y + 1; yy++) {
        int64_t jan1 = days_from_civil(yy, 1, 1) * SECS_PER_DAY;
        at[n] = jan1 + rule_secs(yy, &z->start) - z->std_off;
        dst[n++] = true;
        at[n] = jan1 + rule_secs(yy, &z->end) - z->dst_off;
        dst[n++] = false;
    }
    for (int i = 1; i < 6; i++)   /* insertion sort of six */
        for (int j = i; j > 0 && at[j - 1] > at[j]; j--) {
            int64_t t = at[j];
            at[j] = at[j - 1];
            at[j - 1] = t;
            bool b = dst[j];
            dst[j] = dst[j - 1];
            dst[j - 1] = b;
        }
}

/* Years far outside the timestamp range are clamped: the rule repeats every 400
 * years, and weir's timestamps stay within about +-300,000 years. */
static int64_t clamp_secs(int64_t t)
{
    const int64_t lim = INT64_C(1) << 50;
    return t < -lim ? -lim : t > lim ? lim : t;
}

static int32_t rule_offset(const TzZone *z, int64_t t)
{
    t = clamp_secs(t);
    int64_t at[6];
    bool dst[6];
    rule_transitions(z, year_of_days(floor_div(t, SECS_PER_DAY)), at, dst);
    int32_t off = dst[0] ? z->std_off : z->dst_off;   /* before all six: the opposite of the first */
    for (int k = 0; k < 6 && at[k] <= t; k++) off = dst[k] ? z->dst_off : z->std_off;
    return off;
}

/* ---- offsets ---------------------------------------------------------------------------- */

/* Index of the last transition <= t; -1 when t is before the first. */
static int32_t trans_before(const TzZone *z, int64_t t)
{
    int32_t lo = 0, hi = z->ntrans;   /* first index with trans > t */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (z->trans[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

/* PostgreSQL's pg_interpret_timezone_abbrev: a zone-defined abbreviation means, at t,
 * the offset of the zone's latest transition into it at or before t, else of its first
 * one after t; false if the zone never uses it. */
static bool abbrev_meaning(const TzZone *z, int64_t t, int32_t *off)
{
    if (z->nuse == 0) return false;
    int32_t lo = 0, hi = z->nuse;
    while (lo < hi) {
        int32_t mid = (lo + hi) / 2;
        if (t < z->use_at[mid]) hi = mid;
        else lo = mid + 1;
    }
    *off = z->use_off[lo > 0 ? lo - 1 : 0];
    return true;
}

int32_t tz_offset_at(const TzZone *z, int64_t utc)
{
    if (z->base) {
        /* DetermineTimeZoneAbbrevOffsetTS: else the zone's offset for the wall-clock
         * time of that instant */
        int32_t off;
        if (abbrev_meaning(z, utc, &off)) return off;
        return tz_offset_for_local(z->base, utc + tz_offset_at(z->base, utc));
    }
    if (z->ntrans == 0) return z->rule ? rule_offset(z, utc) : z->utoff[0];
    int32_t i = trans_before(z, utc);
    if (i < 0) return z->utoff[0];
    if (i == z->ntrans - 1 && z->rule) return rule_offset(z, utc);
    return z->utoff[z->tidx[i]];
}

static int32_t lowest_standard_offset(const TzZone *z)
{
    for (int32_t i = 0; i < z->ntypes; i++)
        if (!z->isdst[i]) return z->utoff[i];
    return z->utoff[0];
}

/* PostgreSQL's pg_next_dst_boundary: the first transition after t, with the offsets
 * before and after it; false when there is none (*before is then the offset). */
static bool next_boundary(const TzZone *z, int64_t t, int32_t *before, int64_t *boundary, int32_t *after)
{
    if (z->ntrans > 0 && (!z->rule || t < z->trans[z->ntrans - 1])) {
        if (t < z->trans[0]) {
            *before = lowest_standard_offset(z);
            *boundary = z->trans[0];
            *after = z->utoff[z->tidx[0]];
            return true;
        }
        int32_t i = trans_before(z, t) + 1;
        if (i >= z->ntrans) {
            *before = z->utoff[z->tidx[z->ntrans - 1]];
            return false;
        }
        *before = z->utoff[z->tidx[i - 1]];
        *boundary = z->trans[i];
        *after = z->utoff[z->tidx[i]];
        return true;
    }
    if (!z->rule) {
        *before = lowest_standard_offset(z);
        return false;
    }
    int64_t c = clamp_secs(t);
    int64_t at[6];
    bool dst[6];
    rule_transitions(z, year_of_days(floor_div(c, SECS_PER_DAY)), at, dst);
    for (int k = 0; k < 6; k++)
        if (at[k] > c) {
            *before = dst[k] ? z->std_off : z->dst_off;
            *boundary = at[k];
            *after = dst[k] ? z->dst_off : z->std_off;
            return true;
        }
    *before = rule_offset(z, c);
    return false;
}

int32_t tz_offset_for_local(const TzZone *z, int64_t local)
{
    if (z->base) {
        /* DetermineTimeZoneAbbrevOffset: the abbreviation's meaning at the instant the
         * zone gives that wall-clock time, else the zone's offset */
        int32_t zone_off = tz_offset_for_local(z->base, local), off;
        return abbrev_meaning(z, local - zone_off, &off) ? off : zone_off;
    }
    int32_t before, after;
    int64_t boundary;
    if (!next_boundary(z, local - SECS_PER_DAY, &before, &boundary, &after)) return before;
    int64_t beforetime = local - before, aftertime = local - after;
    if (beforetime < boundary && aftertime < boundary) return before;
    if (beforetime > boundary && aftertime >= boundary) return after;
    /* in a gap (spring forward) the earlier reading, in an overlap (fall back) the later */
    return beforetime > aftertime ? before : after;
}

/* ---- POSIX TZ strings ------------------------------------------------------------------- */

typedef struct Cursor {
    const char *p, *end;
} Cursor;

static int peek(const Cursor *c) { return c->p < c->end ? (unsigned char)*c->p : 0; }

static bool is_digit(int ch) { return ch >= '0' && ch <= '9'; }

static bool get_num(Cursor *c, int min, int max, int *out)
{
    if (!is_digit(peek(c))) return false;
    int v = 0;
    while (is_digit(peek(c))) {
        v = v * 10 + (*c->p++ - '0');
        if (v > max) return false;
    }
    if (v < min) return false;
    *out = v;
    return true;
}

/* hh[:mm[:ss]] with hh up to 167 (tzcode's getsecs) */
static bool get_secs(Cursor *c, int32_t *out)
{
    int h, m = 0, s = 0;
    if (!get_num(c, 0, 24 * 7 - 1, &h)) return false;
    if (peek(c) == ':') {
        c->p++;
        if (!get_num(c, 0, 59, &m)) return false;
        if (peek(c) == ':') {
            c->p++;
            if (!get_num(c, 0, 60, &s)) return false;
        }
    }
    *out = h * 3600 + m * 60 + s;
    return true;
}

static bool get_offset(Cursor *c, int32_t *out)
{
    bool neg = false;
    if (peek(c) == '-') {
        neg = true;
        c->p++;
    } else if (peek(c) == '+') {
        c->p++;
    }
    if (!get_secs(c, out)) return false;
    if (neg) *out = -*out;
    return true;
}

/* A zone name: <...> quoted, or up to a digit, ',', '-', '+' or the end. */
static bool get_name(Cursor *c, size_t *len)
{
    const char *s = c->p;
    if (peek(c) == '<') {
        c->p++;
        s = c->p;
        while (c->p < c->end && *c->p != '>') c->p++;
        if (peek(c) != '>') return false;
        *len = (size_t)(c->p - s);
        c->p++;
        return true;
    }
    int ch;
    while ((ch = peek(c)) != 0 && !is_digit(ch) && ch != ',' && ch != '-' && ch != '+') c->p++;
    *len = (size_t)(c->p - s);
    return true;
}

static bool get_rule(Cursor *c, TzRule *r)
{
    memset(r, 0, sizeof *r);
    if (peek(c) == 'J') {
        c->p++;
        r->kind = 'J';
        if (!get_num(c, 1, 365, &r->day)) return false;
    } else if (peek(c) == 'M') {
        c->p++;
        r->kind = 'M';
        if (!get_num(c, 1, 12, &r->mon) || peek(c) != '.') return false;
        c->p++;
        if (!get_num(c, 1, 5, &r->week) || peek(c) != '.') return false;
        c->p++;
        if (!get_num(c, 0, 6, &r->day)) return false;
    } else if (is_digit(peek(c))) {
        r->kind = 'D';
        if (!get_num(c, 0, 365, &r->day)) return false;
    } else {
        return false;
    }
    r->time = 2 * 3600;
    if (peek(c) == '/') {
        c->p++;
        if (!get_offset(c, &r->time)) return false;
    }
    return true;
}

static TzZone *zone_alloc(int32_t ntrans, int32_t ntypes, int32_t nchars)
{
    size_t sz = sizeof(TzZone) + (size_t)ntrans * sizeof(int64_t) + (size_t)ntypes * sizeof(int32_t) +
                (size_t)ntrans + (size_t)ntypes * 2 + (size_t)nchars + 1;
    TzZone *z = calloc(1, sz);
    if (!z) return NULL;
    char *p = (char *)(z + 1);
    z->trans = (int64_t *)p;
    p += (size_t)ntrans * sizeof(int64_t);
    z->utoff = (int32_t *)p;
    p += (size_t)ntypes * sizeof(int32_t);
    z->tidx = (uint8_t *)p;
    p += ntrans;
    z->isdst = (uint8_t *)p;
    p += ntypes;
    z->desig = (uint8_t *)p;
    p += ntypes;
    z->chars = p;   /* NUL-terminated by calloc */
    z->nchars = nchars;
    z->ntrans = ntrans;
    z->ntypes = ntypes;
    return z;
}

/* Parses the string into the rule fields of a zone (std_off, dst_off, rule, start,
 * end); false if it is not a POSIX TZ string. */
static bool parse_posix(const char *s, size_t n, TzZone *z)
{
    Cursor c = {s, s + n};
    size_t len;
    int32_t stdoff, dstoff;
    if (!get_name(&c, &len) || peek(&c) == 0) return false;   /* an empty name is allowed, an offset is not optional */
    if (!get_offset(&c, &stdoff)) return false;
    z->std_off = -stdoff;
    z->rule = false;
    if (c.p == c.end) return true;
    if (!get_name(&c, &len) || len == 0) return false;
    if (peek(&c) != 0 && peek(&c) != ',' && peek(&c) != ';') {
        if (!get_offset(&c, &dstoff)) return false;
    } else {
        dstoff = stdoff - 3600;
    }
    z->dst_off = -dstoff;
    static const char us_rules[] = ",M3.2.0,M11.1.0";
    if (c.p == c.end) c = (Cursor){us_rules, us_rules + sizeof us_rules - 1};
    if (peek(&c) != ',' && peek(&c) != ';') return false;
    c.p++;
    if (!get_rule(&c, &z->start) || peek(&c) != ',') return false;
    c.p++;
    if (!get_rule(&c, &z->end) || c.p != c.end) return false;
    z->rule = true;
    return true;
}

TzZone *tz_parse_posix(const char *s, size_t n)
{
    TzZone tmp;
    memset(&tmp, 0, sizeof tmp);
    if (!parse_posix(s, n, &tmp)) return NULL;
    TzZone *z = zone_alloc(0, tmp.rule ? 2 : 1, 0);
    if (!z) return NULL;
    z->rule = tmp.rule;
    z->std_off = tmp.std_off;
    z->dst_off = tmp.dst_off;
    z->start = tmp.start;
    z->end = tmp.end;
    z->utoff[0] = tmp.std_off;
    if (tmp.rule) {
        z->utoff[1] = tmp.dst_off;
        z->isdst[1] = 1;
    }
    return z;
}

void tz_free(TzZone *z) { free(z); }

/* ---- TZif files ------------------------------------------------------------------------- */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

typedef struct TzifHeader {
    uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
} TzifHeader;

/* Reads the header at data[0..n); false if absent or beyond tzcode's limits. *size:
 * the bytes of the data block after the header with `tsize`-byte times. */
static bool read_header(const unsigned char *data, size_t n, size_t tsize, TzifHeader *h, size_t *size)
{
    if (n < 44 || memcmp(data, "TZif", 4) != 0) return false;
    h->isutcnt = be32(data + 20);
    h->isstdcnt = be32(data + 24);
    h->leapcnt = be32(data + 28);
    h->timecnt = be32(data + 32);
    h->typecnt = be32(data + 36);
    h->charcnt = be32(data + 40);
    if (h->typecnt == 0 || h->typecnt >= TZ_MAX_TYPES || h->timecnt >= TZ_MAX_TIMES ||
        h->charcnt >= TZ_MAX_CHARS || h->leapcnt >= 50 || (h->isstdcnt != h->typecnt && h->isstdcnt != 0) ||
        (h->isutcnt != h->typecnt && h->isutcnt != 0))
        return false;
    *size = (size_t)h->timecnt * (tsize + 1) + (size_t)h->typecnt * 6 + h->charcnt +
            (size_t)h->leapcnt * (tsize + 4) + h->isstdcnt + h->isutcnt;
    return 44 + *size <= n;
}

TzZone *tz_parse_tzif(const unsigned char *data, size_t n)
{
    TzifHeader h;
    size_t size;
    if (!read_header(data, n, 4, &h, &size)) return NULL;
    size_t tsize = 4;
    const unsigned char *p = data + 44;
    const unsigned char *after = p + size;
    if (data[4] >= '2') {   /* the 64-bit block follows the 32-bit one */
        const unsigned char *d2 = p + size;
        if (!read_header(d2, (size_t)(data + n - d2), 8, &h, &size)) return NULL;
        tsize = 8;
        p = d2 + 44;
        after = p + size;
    }
    if (h.leapcnt > 0) return NULL;   /* leap-second ("right/") zones are not supported */
    TzZone *z = zone_alloc((int32_t)h.timecnt, (int32_t)h.typecnt, (int32_t)h.charcnt);
    if (!z) return NULL;
    const unsigned char *times = p, *idx = p + (size_t)h.timecnt * tsize,
                        *types = idx + h.timecnt;
    int32_t cnt = 0;
    for (uint32_t i = 0; i < h.timecnt; i++) {
        int64_t at = tsize == 4 ? (int64_t)(int32_t)be32(times + 4 * i) : be64(times + 8 * i);
        uint8_t ti = idx[i];
        if (ti >= h.typecnt) goto bad;
        if (cnt > 0 && at <= z->trans[cnt - 1]) {
            if (at < z->trans[cnt - 1]) goto bad;
            cnt--;   /* the same moment twice: the later entry counts */
        }
        z->trans[cnt] = at;
        z->tidx[cnt++] = ti;
    }
    z->ntrans = cnt;
    for (uint32_t i = 0; i < h.typecnt; i++) {
        const unsigned char *t = types + 6 * i;
        int32_t off = (int32_t)be32(t);
        if (off == INT32_MIN || t[4] > 1 || t[5] >= h.charcnt) goto bad;
        z->utoff[i] = off;
        z->isdst[i] = t[4];
        z->desig[i] = t[5];
    }
    memcpy(z->chars, types + 6 * (size_t)h.typecnt, h.charcnt);
    /* the footer: "\n" TZ string "\n" at the end of a version 2+ file */
    if (tsize == 8 && after < data + n && *after == '\n' && data[n - 1] == '\n' && data + n - after >= 2) {
        const char *fs = (const char *)after + 1;
        size_t fl = (size_t)((const char *)data + n - 1 - fs);
        TzZone rule;
        memset(&rule, 0, sizeof rule);
        if (memchr(fs, '\n', fl) == NULL && parse_posix(fs, fl, &rule) && rule.rule) {
            z->rule = true;
            z->std_off = rule.std_off;
            z->dst_off = rule.dst_off;
            z->start = rule.start;
            z->end = rule.end;
            /* tzcode ignores trailing transitions that keep the type */
            while (z->ntrans > 1 && z->tidx[z->ntrans - 1] == z->tidx[z->ntrans - 2]) z->ntrans--;
        }
    }
    return z;
bad:
    free(z);
    return NULL;
}

/* ---- abbreviations ---------------------------------------------------------------------- */

/* PostgreSQL 15's timezone_abbreviations 'Default' (share/timezonesets/Default), sorted:
 * the offset east in seconds, or the zone the abbreviation is defined by. */
typedef struct Abbrev {
    const char *name;
    int32_t off;
    const char *zone;
} Abbrev;

static const Abbrev abbrevs[] = {
#include "base/tz_abbrevs.inc"
};
#define N_ABBREVS ((int)(sizeof abbrevs / sizeof abbrevs[0]))

static TzZone abbrev_zones[N_ABBREVS];
static int32_t abbrev_offs[N_ABBREVS];
static uint8_t abbrev_dst[N_ABBREVS];

static const Abbrev *find_abbrev(const char *name, size_t len, int *at)
{
    char low[16];
    if (len == 0 || len >= sizeof low) return NULL;
    for (size_t i = 0; i < len; i++) {
        char ch = name[i];
        low[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
    }
    low[len] = 0;
    int lo = 0, hi = N_ABBREVS - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(low, abbrevs[mid].name);
        if (c == 0) {
            *at = mid;
            return &abbrevs[mid];
        }
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

/* ---- the zone cache --------------------------------------------------------------------- */

typedef struct CacheEntry {
    char *key;          /* upper-cased name */
    TzZone *zone;       /* NULL: not recognized */
} CacheEntry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static CacheEntry *cache;
static size_t cache_cap, cache_len, cache_unknown;
#define CACHE_UNKNOWN_MAX 4096

static uint64_t hash_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static CacheEntry *cache_slot(const char *key)
{
    size_t i = (size_t)hash_key(key) & (cache_cap - 1);
    while (cache[i].key && strcmp(cache[i].key, key) != 0) i = (i + 1) & (cache_cap - 1);
    return &cache[i];
}

static bool cache_grow(void)
{
    size_t cap = cache_cap ? cache_cap * 2 : 64;
    CacheEntry *old = cache;
    size_t oldcap = cache_cap;
    cache = calloc(cap, sizeof *cache);
    if (!cache) {
        cache = old;
        return false;
    }
    cache_cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key) *cache_slot(old[i].key) = old[i];
    free(old);
    return true;
}

/* Finds one path component case-insensitively in dir (PostgreSQL's scan_directory_ci:
 * entries starting with '.' never match). Appends "/<entry>" to path. */
static bool scan_dir_ci(char *path, size_t cap, const char *comp, size_t clen)
{
    DIR *d = opendir(path);
    if (!d) return false;
    struct dirent *e;
    bool found = false;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (strlen(e->d_name) == clen && strncasecmp(e->d_name, comp, clen) == 0) {
            size_t pl = strlen(path);
            if (pl + 1 + clen + 1 <= cap) {
                path[pl] = '/';
                memcpy(path + pl + 1, e->d_name, clen + 1);
                found = true;
            }
            break;
        }
    }
    closedir(d);
    return found;
}

static TzZone *load_file(const char *name)
{
    const char *dir = getenv("TZDIR");
    if (!dir || !*dir) dir = "/usr/share/zoneinfo";
    char path[4096];
    size_t dl = strlen(dir);
    if (dl + 2 + strlen(name) >= sizeof path) return NULL;
    memcpy(path, dir, dl + 1);
    for (const char *s = name;;) {
        const char *slash = strchr(s, '/');
        size_t cl = slash ? (size_t)(slash - s) : strlen(s);
        if (!scan_dir_ci(path, sizeof path, s, cl)) return NULL;
        if (!slash) break;
        s = slash + 1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    TzZone *z = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= TZ_FILE_MAX) {
        unsigned char *buf = malloc((size_t)st.st_size);
        size_t got = 0;
        while (buf && got < (size_t)st.st_size) {
            ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
            if (k <= 0) break;
            got += (size_t)k;
        }
        if (buf) z = tz_parse_tzif(buf, got);
        free(buf);
    }
    close(fd);
    return z;
}

static void init_abbrevs(void)
{
    for (int i = 0; i < N_ABBREVS; i++) {
        abbrev_offs[i] = abbrevs[i].off;
        abbrev_zones[i].ntypes = 1;
        abbrev_zones[i].utoff = &abbrev_offs[i];
        abbrev_zones[i].isdst = &abbrev_dst[i];
    }
}

/* The zone named by the upper-cased `key` (len bytes), from the cache or read and
 * remembered; NULL if not recognized. Called with cache_lock held. */
static TzZone *zone_by_key_locked(const char *key, size_t len)
{
    CacheEntry *slot = cache_cap ? cache_slot(key) : NULL;
    if (slot && slot->key) return slot->zone;
    TzZone *z = NULL;
    const char *fname = key[0] == ':' ? key + 1 : key;
    if (*fname) z = load_file(fname);
    if (!z && key[0] != ':') z = tz_parse_posix(key, len);
    /* remembered (a zone that cannot be remembered is still returned and kept) */
    if ((z || cache_unknown < CACHE_UNKNOWN_MAX) && ((cache_len + 1) * 2 <= cache_cap || cache_grow())) {
        char *k = strdup(key);
        if (k) {
            slot = cache_slot(key);
            slot->key = k;
            slot->zone = z;
            cache_len++;
            if (!z) cache_unknown++;
        }
    }
    return z;
}

static void upper_key(const char *name, size_t len, char *key)
{
    for (size_t i = 0; i < len; i++) {
        char ch = name[i];
        key[i] = ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
    }
    key[len] = 0;
}

/* The zone of abbreviation `at`, defined by the zone a->zone: its meanings are the
 * transitions of that zone into a type designated by the abbreviation (upper case, as
 * PostgreSQL compares it). NULL if the zone is not found. Called with cache_lock held. */
static TzZone *dynamic_zone_locked(int at, const Abbrev *a)
{
    static TzZone *made[N_ABBREVS];
    if (made[at]) return made[at];
    char key[TZ_NAME_MAX + 1];
    upper_key(a->zone, strlen(a->zone), key);
    const TzZone *base = zone_by_key_locked(key, strlen(key));
    if (!base) return NULL;
    char name[16];
    upper_key(a->name, strlen(a->name), name);
    int32_t nuse = 0;
    for (int32_t i = 0; i < base->ntrans; i++)
        if (strcmp(base->chars + base->desig[base->tidx[i]], name) == 0) nuse++;
    TzZone *z = calloc(1, sizeof *z + (size_t)nuse * (sizeof(int64_t) + sizeof(int32_t)));
    if (!z) return NULL;
    z->base = base;
    z->use_at = (int64_t *)(z + 1);
    z->use_off = (int32_t *)(z->use_at + nuse);
    for (int32_t i = 0; i < base->ntrans; i++)
        if (strcmp(base->chars + base->desig[base->tidx[i]], name) == 0) {
            z->use_at[z->nuse] = base->trans[i];
            z->use_off[z->nuse++] = base->utoff[base->tidx[i]];
        }
    made[at] = z;
    return z;
}

TzStatus tz_find(const char *name, size_t len, const TzZone **zone)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_abbrevs);
    if (len > TZ_NAME_MAX) len = TZ_NAME_MAX;
    for (size_t i = 0; i < len; i++)
        if (name[i] == 0) return TZ_UNKNOWN;
    int at;
    const Abbrev *a = find_abbrev(name, len, &at);
    if (a && !a->zone) {
        *zone = &abbrev_zones[at];
        return TZ_FOUND;
    }
    char key[TZ_NAME_MAX + 1];
    upper_key(name, len, key);
    pthread_mutex_lock(&cache_lock);
    TzZone *z = a ? dynamic_zone_locked(at, a) : zone_by_key_locked(key, len);
    pthread_mutex_unlock(&cache_lock);
    if (!z) return TZ_UNKNOWN;
    *zone = z;
    return TZ_FOUND;
}
