/* Dates, timestamps and intervals with PostgreSQL semantics (see timeutil.h). The
 * parsing rules and the odd corners (fraction spill-over in interval input, BC year
 * arithmetic in date_trunc/extract, justify_hours on subtraction) follow PostgreSQL
 * 15's datetime.c / timestamp.c so that results match it byte for byte. */
#include "base/timeutil.h"
#include "base/decimal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 4714-11-24 BC (Julian day 0) .. 5874898-01-01 exclusive, PostgreSQL's date range. */
#define DATE_MIN_DAYS INT64_C(-2440588)
#define DATE_END_DAYS INT64_C(2145042906)
#define UNIX_EPOCH_JDATE INT64_C(2440588)
#define TS_MIN (DATE_MIN_DAYS * TM_USECS_PER_DAY)

static bool ts_finite(int64_t ts) { return ts != TM_INFINITY && ts != TM_NEG_INFINITY; }
static bool ts_valid(int64_t ts) { return ts >= TS_MIN && ts < TM_INFINITY; }

/* ---- civil calendar (H. Hinnant's algorithms) ---- */

void tm_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int mm = (int)(mp < 10 ? mp + 3 : mp - 9);
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = mm;
    *y = yoe + era * 400 + (mm <= 2);
}

bool tm_is_leap_year(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int tm_days_in_month(int64_t y, int m)
{
    static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12) return 0;
    return dim[m - 1] + (m == 2 && tm_is_leap_year(y));
}

int tm_day_of_week(int64_t days)
{
    int64_t r = (days + 4) % 7;   /* 1970-01-01 was a Thursday */
    return (int)(r < 0 ? r + 7 : r);
}

static void split_ts(int64_t ts, int64_t *days, int64_t *tod)
{
    int64_t d = ts / TM_USECS_PER_DAY, t = ts % TM_USECS_PER_DAY;
    if (t < 0) { t += TM_USECS_PER_DAY; d--; }
    *days = d;
    *tod = t;
}

/* ---- small lexing helpers ---- */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }

static bool word_eq(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    if (n != wl) return false;
    for (size_t i = 0; i < n; i++)
        if (lower(s[i]) != w[i]) return false;
    return true;
}

static void trim(const char **s, size_t *len)
{
    const char *p = *s;
    size_t n = *len;
    while (n && is_space(*p)) { p++; n--; }
    while (n && is_space(p[n - 1])) n--;
    *s = p;
    *len = n;
}

/* Reads a run of digits; returns how many, the value saturating at about 10^15. */
static int read_digits(const char *s, size_t len, size_t *i, int64_t *v)
{
    int n = 0;
    int64_t acc = 0;
    while (*i < len && is_digit(s[*i])) {
        if (acc < INT64_C(100000000000000)) acc = acc * 10 + (s[*i] - '0');
        (*i)++;
        n++;
    }
    *v = acc;
    return n;
}

/* Fraction digits after a '.' (the '.' at s[*i]) as PostgreSQL does: strtod of the
 * fraction, times 10^6, rint. May return 1000000. */
static int64_t read_fraction_usec(const char *s, size_t len, size_t *i)
{
    char buf[48];
    size_t k = 0;
    buf[k++] = '0';
    buf[k++] = '.';
    (*i)++;   /* '.' */
    while (*i < len && is_digit(s[*i])) {
        if (k < sizeof buf - 1) buf[k++] = s[*i];
        (*i)++;
    }
    buf[k] = '\0';
    return (int64_t)rint(strtod(buf, NULL) * 1000000.0);
}

/* ---- date/time parsing ---- */

typedef struct DtParts {
    int64_t year;         /* as written (BC not yet applied) */
    int month, day;
    bool has_time;
    int64_t hour, minute, second, usec;
    bool has_tz;
    int64_t tz_secs;      /* east of UTC */
    bool bc;
} DtParts;

static TmStatus parse_zone(const char *s, size_t len, size_t *i, DtParts *p)
{
    char c = s[*i];
    if (c == 'z' || c == 'Z') {
        (*i)++;
        if (*i < len && is_alpha(s[*i])) return TM_ERR_SYNTAX;
        p->has_tz = true;
        p->tz_secs = 0;
        return TM_OK;
    }
    if (is_alpha(c)) {
        size_t st = *i;
        while (*i < len && is_alpha(s[*i])) (*i)++;
        if (word_eq(s + st, *i - st, "utc") || word_eq(s + st, *i - st, "gmt")) {
            p->has_tz = true;
            p->tz_secs = 0;
            return TM_OK;
        }
        *i = st;
        return TM_ERR_SYNTAX;
    }
    if (c != '+' && c != '-') return TM_ERR_SYNTAX;
    bool neg = c == '-';
    (*i)++;
    size_t st = *i;
    int64_t v, hh = 0, mm = 0, ss = 0;
    int nd = read_digits(s, len, i, &v);
    if (nd == 0) return TM_ERR_SYNTAX;
    if (nd <= 2) {
        hh = v;
        if (*i < len && s[*i] == ':') {
            (*i)++;
            if (read_digits(s, len, i, &mm) != 2) return TM_ERR_SYNTAX;
            if (*i < len && s[*i] == ':') {
                (*i)++;
                if (read_digits(s, len, i, &ss) != 2) return TM_ERR_SYNTAX;
            }
        }
    } else if (nd <= 4) {
        hh = v / 100;
        mm = v % 100;
    } else if (nd <= 6) {
        hh = v / 10000;
        mm = v / 100 % 100;
        ss = v % 100;
    } else {
        (void)st;
        return TM_ERR_SYNTAX;
    }
    if (hh > 15 || mm >= 60 || ss >= 60) return TM_ERR_TZ_RANGE;
    p->has_tz = true;
    p->tz_secs = (neg ? -1 : 1) * (hh * 3600 + mm * 60 + ss);
    return TM_OK;
}

/* "BC" or "AD" as a whole word at i. */
static bool is_era_at(const char *s, size_t len, size_t i)
{
    if (i + 2 > len || (i + 2 < len && is_alpha(s[i + 2]))) return false;
    return word_eq(s + i, 2, "bc") || word_eq(s + i, 2, "ad");
}

/* Parses the date and optional time/zone/era of a trimmed, non-special string. */
static TmStatus parse_dt(const char *s, size_t len, DtParts *p)
{
    size_t i = 0;
    int64_t v;
    memset(p, 0, sizeof *p);
    int nd = read_digits(s, len, &i, &v);
    if (nd == 0) return TM_ERR_SYNTAX;
    if (i < len && s[i] == '-') {
        int64_t mo, dd;
        if (nd < 4) return TM_ERR_SYNTAX;
        p->year = nd > 9 ? INT64_C(1000000000) : v;
        i++;
        int nm = read_digits(s, len, &i, &mo);
        if (nm < 1 || nm > 2 || i >= len || s[i] != '-') return TM_ERR_SYNTAX;
        i++;
        if (read_digits(s, len, &i, &dd) < 1) return TM_ERR_SYNTAX;
        p->month = (int)mo;
        p->day = (int)dd;
    } else if (nd == 8) {
        p->year = v / 10000;
        p->month = (int)(v / 100 % 100);
        p->day = (int)(v % 100);
    } else {
        return TM_ERR_SYNTAX;
    }
    /* time */
    bool sep_t = i < len && (s[i] == 'T' || s[i] == 't');
    size_t ws = i;
    if (sep_t) i++;
    else while (i < len && is_space(s[i])) i++;
    if (i < len && is_digit(s[i]) && (sep_t || i > ws)) {
        int64_t hh, mi, ss = 0;
        if (read_digits(s, len, &i, &hh) < 1 || i >= len || s[i] != ':') return TM_ERR_SYNTAX;
        i++;
        if (read_digits(s, len, &i, &mi) < 1) return TM_ERR_SYNTAX;
        if (i < len && s[i] == ':') {
            i++;
            if (read_digits(s, len, &i, &ss) < 1) return TM_ERR_SYNTAX;
            if (i < len && s[i] == '.') p->usec = read_fraction_usec(s, len, &i);
        }
        p->has_time = true;
        p->hour = hh;
        p->minute = mi;
        p->second = ss;
        /* zone, directly attached or after spaces; an era word is left for below */
        size_t before = i;
        while (i < len && is_space(s[i])) i++;
        if (i < len && !is_era_at(s, len, i) &&
            (s[i] == '+' || s[i] == '-' || is_alpha(s[i]))) {
            TmStatus st = parse_zone(s, len, &i, p);
            if (st != TM_OK) return st;
        } else {
            i = before;
        }
    } else if (sep_t) {
        return TM_ERR_SYNTAX;
    } else {
        i = ws;
    }
    /* era */
    size_t before = i;
    while (i < len && is_space(s[i])) i++;
    if ((i > before || p->has_time) && is_era_at(s, len, i)) {
        p->bc = lower(s[i]) == 'b';
        i += 2;
    } else if (i > before && !p->has_time && i < len && is_alpha(s[i])) {
        TmStatus st = parse_zone(s, len, &i, p);   /* '2024-01-01 UTC' */
        if (st != TM_OK) return st;
    } else {
        i = before;
    }
    return i == len ? TM_OK : TM_ERR_SYNTAX;
}

/* Validates the fields and yields the astronomical year. */
static TmStatus check_date(const DtParts *p, int64_t *year)
{
    int64_t y = p->year;
    if (y == 0) return TM_ERR_FIELD_RANGE;
    if (p->bc) y = 1 - y;
    if (p->month < 1 || p->month > 12) return TM_ERR_FIELD_RANGE;
    if (p->day < 1 || p->day > tm_days_in_month(y, p->month)) return TM_ERR_FIELD_RANGE;
    *year = y;
    return TM_OK;
}

static TmStatus check_time(const DtParts *p)
{
    if (!p->has_time) return TM_OK;
    if (p->hour > 24 || p->minute > 59 || p->second > 60 || p->usec < 0 || p->usec > TM_USECS_PER_SEC)
        return TM_ERR_FIELD_RANGE;
    if (p->hour == 24 && (p->minute || p->second || p->usec)) return TM_ERR_FIELD_RANGE;
    return TM_OK;
}

/* 'epoch', 'infinity', '+infinity', '-infinity'; rejects the clock-dependent words. */
static int special_word(const char *s, size_t len, int64_t *v)
{
    if (word_eq(s, len, "epoch")) { *v = 0; return 1; }
    if (word_eq(s, len, "infinity") || word_eq(s, len, "+infinity")) { *v = TM_INFINITY; return 1; }
    if (word_eq(s, len, "-infinity")) { *v = TM_NEG_INFINITY; return 1; }
    return 0;
}

TmStatus tm_parse_timestamp_status(const char *s, size_t len, bool with_tz, int64_t *out)
{
    DtParts p;
    int64_t y, v;
    trim(&s, &len);
    if (special_word(s, len, &v)) { *out = v; return TM_OK; }
    TmStatus st = parse_dt(s, len, &p);
    if (st == TM_OK) st = check_date(&p, &y);
    if (st == TM_OK) st = check_time(&p);
    if (st != TM_OK) return st;
    if (y > 300000 || y < -5000) return TM_ERR_OUT_OF_RANGE;
    int64_t days = tm_days_from_civil(y, p.month, p.day);
    if (days < DATE_MIN_DAYS) return TM_ERR_OUT_OF_RANGE;
    int64_t tod = p.hour * TM_USECS_PER_HOUR + p.minute * TM_USECS_PER_MINUTE +
                  p.second * TM_USECS_PER_SEC + p.usec;
    if (with_tz && p.has_tz) tod -= p.tz_secs * TM_USECS_PER_SEC;
    int64_t ts;
    if (__builtin_mul_overflow(days, TM_USECS_PER_DAY, &ts) || __builtin_add_overflow(ts, tod, &ts) ||
        !ts_valid(ts))
        return TM_ERR_OUT_OF_RANGE;
    *out = ts;
    return TM_OK;
}

bool tm_parse_timestamp(const char *s, size_t len, bool with_tz, int64_t *out)
{
    return tm_parse_timestamp_status(s, len, with_tz, out) == TM_OK;
}

TmStatus tm_parse_date_status(const char *s, size_t len, int64_t *days)
{
    DtParts p;
    int64_t y, v;
    trim(&s, &len);
    if (special_word(s, len, &v)) {
        *days = v;
        return TM_OK;
    }
    TmStatus st = parse_dt(s, len, &p);
    if (st == TM_OK) st = check_date(&p, &y);
    if (st == TM_OK) st = check_time(&p);
    if (st != TM_OK) return st;
    if (y > 6000000 || y < -5000) return TM_ERR_OUT_OF_RANGE;
    int64_t d = tm_days_from_civil(y, p.month, p.day);
    if (d < DATE_MIN_DAYS || d >= DATE_END_DAYS) return TM_ERR_OUT_OF_RANGE;
    *days = d;
    return TM_OK;
}

bool tm_parse_date(const char *s, size_t len, int64_t *days)
{
    return tm_parse_date_status(s, len, days) == TM_OK;
}

/* ---- units (interval input, date_trunc, extract) ---- */

typedef enum Unit {
    U_BAD = 0, U_USEC, U_MSEC, U_SEC, U_MIN, U_HOUR, U_DAY, U_WEEK, U_MONTH, U_QUARTER,
    U_YEAR, U_DECADE, U_CENTURY, U_MILLENNIUM, U_DOW, U_ISODOW, U_DOY, U_EPOCH, U_ISOYEAR,
    U_JULIAN, U_TZ, U_TZ_HOUR, U_TZ_MINUTE, U_AGO
} Unit;

static const struct UnitName { const char *name; Unit unit; } UNIT_NAMES[] = {
    {"microsecond", U_USEC}, {"microseconds", U_USEC}, {"usec", U_USEC}, {"usecs", U_USEC},
    {"us", U_USEC}, {"usecond", U_USEC}, {"useconds", U_USEC},
    {"millisecond", U_MSEC}, {"milliseconds", U_MSEC}, {"msec", U_MSEC}, {"msecs", U_MSEC},
    {"ms", U_MSEC}, {"msecond", U_MSEC}, {"mseconds", U_MSEC},
    {"second", U_SEC}, {"seconds", U_SEC}, {"sec", U_SEC}, {"secs", U_SEC}, {"s", U_SEC},
    {"minute", U_MIN}, {"minutes", U_MIN}, {"min", U_MIN}, {"mins", U_MIN}, {"m", U_MIN},
    {"hour", U_HOUR}, {"hours", U_HOUR}, {"hr", U_HOUR}, {"hrs", U_HOUR}, {"h", U_HOUR},
    {"day", U_DAY}, {"days", U_DAY}, {"d", U_DAY},
    {"week", U_WEEK}, {"weeks", U_WEEK}, {"w", U_WEEK},
    {"month", U_MONTH}, {"months", U_MONTH}, {"mon", U_MONTH}, {"mons", U_MONTH},
    {"quarter", U_QUARTER}, {"qtr", U_QUARTER},
    {"year", U_YEAR}, {"years", U_YEAR}, {"yr", U_YEAR}, {"yrs", U_YEAR}, {"y", U_YEAR},
    {"decade", U_DECADE}, {"decades", U_DECADE}, {"dec", U_DECADE}, {"decs", U_DECADE},
    {"century", U_CENTURY}, {"centuries", U_CENTURY}, {"c", U_CENTURY}, {"cent", U_CENTURY},
    {"millennium", U_MILLENNIUM}, {"millennia", U_MILLENNIUM}, {"mil", U_MILLENNIUM},
    {"mils", U_MILLENNIUM},
    {"dow", U_DOW}, {"isodow", U_ISODOW}, {"doy", U_DOY}, {"epoch", U_EPOCH},
    {"isoyear", U_ISOYEAR}, {"julian", U_JULIAN}, {"timezone", U_TZ},
    {"timezone_hour", U_TZ_HOUR}, {"timezone_minute", U_TZ_MINUTE}, {"ago", U_AGO},
};

static Unit lookup_unit(const char *s, size_t len)
{
    for (size_t k = 0; k < sizeof UNIT_NAMES / sizeof UNIT_NAMES[0]; k++)
        if (word_eq(s, len, UNIT_NAMES[k].name)) return UNIT_NAMES[k].unit;
    return U_BAD;
}

static Unit field_unit(const char *field)
{
    if (!field) return U_BAD;
    size_t len = strlen(field);
    trim(&field, &len);
    Unit u = lookup_unit(field, len);
    return u == U_AGO ? U_BAD : u;
}

/* ---- interval parsing ---- */

/* PostgreSQL keeps years, months and days as separate int32 fields while parsing
 * (overflow of one is "interval field value out of range") and folds years into
 * months only at the end (overflow there is "interval out of range"). */
typedef struct IvAcc {
    int64_t years, months, days, micros;
    unsigned mask;
} IvAcc;

#define M_(u) (1u << (u))
#define ALL_SECS (M_(U_SEC) | M_(U_MSEC) | M_(U_USEC))

static bool add_i64(int64_t *acc, int64_t v) { return !__builtin_add_overflow(*acc, v, acc); }

static bool add_scaled(int64_t *acc, int64_t val, int64_t scale)
{
    int64_t t;
    return !__builtin_mul_overflow(val, scale, &t) && add_i64(acc, t);
}

/* The same for the int32 fields (years, months, days). */
static bool add_scaled32(int64_t *acc, int64_t val, int64_t scale)
{
    return add_scaled(acc, val, scale) && *acc >= INT32_MIN && *acc <= INT32_MAX;
}

/* PostgreSQL's AdjustFractMicroseconds. */
static bool fract_usec(double frac, int64_t scale, IvAcc *a)
{
    if (frac == 0) return true;
    frac *= (double)scale;
    if (!(fabs(frac) < 9.2e18)) return false;
    int64_t usec = (int64_t)frac;
    frac -= (double)usec;
    usec += (int64_t)rint(frac);
    return add_i64(&a->micros, usec);
}

/* PostgreSQL's AdjustFractDays. */
static bool fract_days(double frac, int scale, IvAcc *a)
{
    if (frac == 0) return true;
    frac *= scale;
    if (!(fabs(frac) < 2e9)) return false;
    int64_t extra = (int64_t)frac;
    if (!add_scaled32(&a->days, extra, 1)) return false;
    frac -= (double)extra;
    return fract_usec(frac, TM_USECS_PER_DAY, a);
}

/* PostgreSQL's AdjustFractYears. */
static bool fract_years(double frac, int scale, IvAcc *a)
{
    if (frac == 0) return true;
    double m = rint(frac * scale * 12);
    if (!(fabs(m) < 2e9)) return false;
    return add_scaled32(&a->months, (int64_t)m, 1);
}

/* Applies val (+ fraction fval, same sign) of unit u. */
static TmStatus apply_unit(Unit u, int64_t val, double fval, IvAcc *a)
{
    unsigned bit = M_(u);
    bool ok = true;
    switch (u) {
    case U_USEC: ok = add_i64(&a->micros, val) && fract_usec(fval, 1, a); break;
    case U_MSEC: ok = add_scaled(&a->micros, val, 1000) && fract_usec(fval, 1000, a); break;
    case U_SEC:
        ok = add_scaled(&a->micros, val, TM_USECS_PER_SEC) && fract_usec(fval, TM_USECS_PER_SEC, a);
        if (fval != 0) bit = ALL_SECS;
        break;
    case U_MIN: ok = add_scaled(&a->micros, val, TM_USECS_PER_MINUTE) && fract_usec(fval, TM_USECS_PER_MINUTE, a); break;
    case U_HOUR: ok = add_scaled(&a->micros, val, TM_USECS_PER_HOUR) && fract_usec(fval, TM_USECS_PER_HOUR, a); break;
    case U_DAY: ok = add_scaled32(&a->days, val, 1) && fract_usec(fval, TM_USECS_PER_DAY, a); break;
    case U_WEEK: ok = add_scaled32(&a->days, val, 7) && fract_days(fval, 7, a); break;
    case U_MONTH: ok = add_scaled32(&a->months, val, 1) && fract_days(fval, 30, a); break;
    case U_YEAR: ok = add_scaled32(&a->years, val, 1) && fract_years(fval, 1, a); break;
    case U_DECADE: ok = add_scaled32(&a->years, val, 10) && fract_years(fval, 10, a); break;
    case U_CENTURY: ok = add_scaled32(&a->years, val, 100) && fract_years(fval, 100, a); break;
    case U_MILLENNIUM: ok = add_scaled32(&a->years, val, 1000) && fract_years(fval, 1000, a); break;
    default: return TM_ERR_SYNTAX;
    }
    if (a->mask & bit) return TM_ERR_SYNTAX;
    a->mask |= bit;
    return ok ? TM_OK : TM_ERR_FIELD_RANGE;
}

/* [+-]digits[.digits] or [+-].digits: integer part and same-signed fraction. */
static bool read_number(const char *s, size_t len, size_t *i, int64_t *val, double *fval, bool *overflow)
{
    bool neg = false;
    size_t st = *i;
    *overflow = false;
    if (*i < len && (s[*i] == '+' || s[*i] == '-')) neg = s[(*i)++] == '-';
    int64_t v = 0;
    int nd = 0;
    while (*i < len && is_digit(s[*i])) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[*i] - '0', &v)) *overflow = true;
        (*i)++;
        nd++;
    }
    double f = 0;
    int nf = 0;
    if (*i < len && s[*i] == '.') {
        char buf[48];
        size_t k = 0;
        buf[k++] = '0';
        buf[k++] = '.';
        (*i)++;
        while (*i < len && is_digit(s[*i])) {
            if (k < sizeof buf - 1) buf[k++] = s[*i];
            (*i)++;
            nf++;
        }
        buf[k] = '\0';
        f = strtod(buf, NULL);
    }
    if (nd + nf == 0) { *i = st; return false; }
    *val = neg ? -v : v;
    *fval = neg ? -f : f;
    return true;
}

/* Time token [+-]h:m[:s[.f]] or [+-]m:s.f starting at *i. */
static TmStatus read_time_token(const char *s, size_t len, size_t *i, IvAcc *a)
{
    bool neg = false;
    if (*i < len && (s[*i] == '+' || s[*i] == '-')) neg = s[(*i)++] == '-';
    int64_t f1, f2, f3 = 0, usec = 0;
    bool three = false;
    if (read_digits(s, len, i, &f1) == 0 || *i >= len || s[*i] != ':') return TM_ERR_SYNTAX;
    (*i)++;
    if (read_digits(s, len, i, &f2) == 0) return TM_ERR_SYNTAX;
    int64_t hh, mi, ss;
    if (*i < len && s[*i] == ':') {
        (*i)++;
        if (read_digits(s, len, i, &f3) == 0) return TM_ERR_SYNTAX;
        three = true;
        if (*i < len && s[*i] == '.') usec = read_fraction_usec(s, len, i);
        hh = f1; mi = f2; ss = f3;
    } else if (*i < len && s[*i] == '.') {
        usec = read_fraction_usec(s, len, i);
        hh = 0; mi = f1; ss = f2;
    } else {
        hh = f1; mi = f2; ss = 0;
    }
    (void)three;
    if (*i < len && !is_space(s[*i])) return TM_ERR_SYNTAX;
    if (mi > 59 || ss > 60) return TM_ERR_FIELD_RANGE;
    unsigned bits = M_(U_HOUR) | M_(U_MIN) | ALL_SECS;
    if (a->mask & bits) return TM_ERR_SYNTAX;
    a->mask |= bits;
    int64_t t;
    if (__builtin_mul_overflow(hh, TM_USECS_PER_HOUR, &t) ||
        __builtin_add_overflow(t, mi * TM_USECS_PER_MINUTE + ss * TM_USECS_PER_SEC + usec, &t))
        return TM_ERR_FIELD_RANGE;
    return add_i64(&a->micros, neg ? -t : t) ? TM_OK : TM_ERR_FIELD_RANGE;
}

/* Is there a time token ([+-]digits':') at i? */
static bool time_token_at(const char *s, size_t len, size_t i)
{
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    size_t st = i;
    while (i < len && is_digit(s[i])) i++;
    return i > st && i < len && s[i] == ':';
}

static TmStatus parse_iso_interval(const char *s, size_t len, size_t i, IvAcc *a)
{
    bool in_time = false, any = false;
    while (i < len) {
        if (s[i] == 'T') {
            if (in_time) return TM_ERR_SYNTAX;
            in_time = true;
            any = true;
            i++;
            continue;
        }
        int64_t val;
        double fval;
        bool ovf;
        if (!read_number(s, len, &i, &val, &fval, &ovf)) return TM_ERR_SYNTAX;
        if (ovf) return TM_ERR_FIELD_RANGE;
        if (i >= len) return TM_ERR_SYNTAX;
        char u = s[i++];
        Unit unit;
        if (!in_time) {
            if (u == 'Y') unit = U_YEAR;
            else if (u == 'M') unit = U_MONTH;
            else if (u == 'W') unit = U_WEEK;
            else if (u == 'D') unit = U_DAY;
            else return TM_ERR_SYNTAX;
        } else {
            if (u == 'H') unit = U_HOUR;
            else if (u == 'M') unit = U_MIN;
            else if (u == 'S') unit = U_SEC;
            else return TM_ERR_SYNTAX;
        }
        TmStatus st = apply_unit(unit, val, fval, a);
        if (st != TM_OK) return st;
        any = true;
    }
    return any ? TM_OK : TM_ERR_SYNTAX;
}

TmStatus tm_parse_interval_status(const char *s, size_t len, int32_t *months, int32_t *days,
                                  int64_t *micros)
{
    IvAcc a = {0, 0, 0, 0, 0};
    bool ago = false;
    TmStatus st;
    trim(&s, &len);
    size_t i = 0;
    if (i < len && s[i] == '@') {
        i++;
        while (i < len && is_space(s[i])) i++;
    }
    if (i >= len) return TM_ERR_SYNTAX;
    if (s[i] == 'P') {
        st = parse_iso_interval(s, len, i + 1, &a);
        if (st != TM_OK) return st;
    } else {
        bool pending = false;      /* a bare number waiting to learn its unit */
        int64_t pval = 0;
        double pfval = 0;
        while (i < len) {
            while (i < len && is_space(s[i])) i++;
            if (i >= len) break;
            if (ago) return TM_ERR_SYNTAX;
            if (is_alpha(s[i])) {
                size_t ws = i;
                while (i < len && is_alpha(s[i])) i++;
                if (lookup_unit(s + ws, i - ws) != U_AGO) return TM_ERR_SYNTAX;
                ago = true;
                continue;
            }
            if (time_token_at(s, len, i)) {
                if (pending) {
                    st = apply_unit(U_DAY, pval, pfval, &a);
                    if (st != TM_OK) return st;
                    pending = false;
                }
                st = read_time_token(s, len, &i, &a);
                if (st != TM_OK) return st;
                continue;
            }
            if (pending) return TM_ERR_SYNTAX;
            int64_t val;
            double fval;
            bool ovf;
            if (!read_number(s, len, &i, &val, &fval, &ovf)) return TM_ERR_SYNTAX;
            if (ovf) return TM_ERR_FIELD_RANGE;
            size_t j = i;
            while (j < len && is_space(s[j])) j++;
            size_t ws = j;
            while (j < len && is_alpha(s[j])) j++;
            Unit u = j > ws ? lookup_unit(s + ws, j - ws) : U_BAD;
            if (j > ws && u != U_AGO) {
                if (j < len && !is_space(s[j])) return TM_ERR_SYNTAX;
                st = apply_unit(u, val, fval, &a);
                if (st != TM_OK) return st;
                i = j;
            } else {
                if (i < len && !is_space(s[i])) return TM_ERR_SYNTAX;
                pending = true;
                pval = val;
                pfval = fval;
            }
        }
        if (pending) {
            st = apply_unit(U_SEC, pval, pfval, &a);
            if (st != TM_OK) return st;
        }
        if (a.mask == 0) return TM_ERR_SYNTAX;
    }
    if (ago) {
        if (a.micros == INT64_MIN || a.years == INT32_MIN || a.months == INT32_MIN || a.days == INT32_MIN)
            return TM_ERR_FIELD_RANGE;
        a.years = -a.years;
        a.months = -a.months;
        a.days = -a.days;
        a.micros = -a.micros;
    }
    a.months += a.years * 12;   /* both int32: no int64 overflow */
    if (a.months > INT32_MAX || a.months < INT32_MIN) return TM_ERR_OUT_OF_RANGE;
    *months = (int32_t)a.months;
    *days = (int32_t)a.days;
    *micros = a.micros;
    return TM_OK;
}

bool tm_parse_interval(const char *s, size_t len, int32_t *months, int32_t *days, int64_t *micros)
{
    return tm_parse_interval_status(s, len, months, days, micros) == TM_OK;
}

/* ---- formatting ---- */

/* ".ffffff" without trailing zeros; nothing when usec == 0. */
static void put_fraction(StrBuf *out, int64_t usec)
{
    if (usec == 0) return;
    char buf[8];
    int n = 6;
    snprintf(buf, sizeof buf, "%06lld", (long long)usec);
    while (n > 0 && buf[n - 1] == '0') n--;
    sb_putc(out, '.');
    sb_append(out, buf, (size_t)n);
}

static void put_date(StrBuf *out, int64_t days, bool *bc)
{
    int64_t y;
    int m, d;
    tm_civil_from_days(days, &y, &m, &d);
    *bc = y <= 0;
    if (*bc) y = 1 - y;
    sb_printf(out, "%04lld-%02d-%02d", (long long)y, m, d);
}

static void format_ts(int64_t ts, bool tz, StrBuf *out)
{
    if (ts == TM_INFINITY) { sb_puts(out, "infinity"); return; }
    if (ts == TM_NEG_INFINITY) { sb_puts(out, "-infinity"); return; }
    int64_t days, tod;
    bool bc;
    split_ts(ts, &days, &tod);
    put_date(out, days, &bc);
    sb_printf(out, " %02d:%02d:%02d", (int)(tod / TM_USECS_PER_HOUR),
              (int)(tod / TM_USECS_PER_MINUTE % 60), (int)(tod / TM_USECS_PER_SEC % 60));
    put_fraction(out, tod % TM_USECS_PER_SEC);
    if (tz) sb_puts(out, "+00");
    if (bc) sb_puts(out, " BC");
}

void tm_format_timestamp(int64_t ts, StrBuf *out) { format_ts(ts, false, out); }
void tm_format_timestamptz(int64_t ts, StrBuf *out) { format_ts(ts, true, out); }

void tm_format_date(int64_t days, StrBuf *out)
{
    if (days == TM_INFINITY) { sb_puts(out, "infinity"); return; }
    if (days == TM_NEG_INFINITY) { sb_puts(out, "-infinity"); return; }
    bool bc;
    put_date(out, days, &bc);
    if (bc) sb_puts(out, " BC");
}

/* PostgreSQL's AddPostgresIntPart. */
static void add_int_part(StrBuf *out, int64_t value, const char *unit, bool *is_zero, bool *is_before)
{
    if (value == 0) return;
    sb_printf(out, "%s%s%lld %s%s", *is_zero ? "" : " ", (*is_before && value > 0) ? "+" : "",
              (long long)value, unit, value != 1 ? "s" : "");
    *is_before = value < 0;
    *is_zero = false;
}

void tm_format_interval(int32_t months, int32_t days, int64_t micros, StrBuf *out)
{
    bool is_zero = true, is_before = false;
    add_int_part(out, months / 12, "year", &is_zero, &is_before);
    add_int_part(out, months % 12, "mon", &is_zero, &is_before);
    add_int_part(out, days, "day", &is_zero, &is_before);
    int64_t hour = micros / TM_USECS_PER_HOUR;
    int64_t rest = micros - hour * TM_USECS_PER_HOUR;
    int64_t min = rest / TM_USECS_PER_MINUTE;
    rest -= min * TM_USECS_PER_MINUTE;
    int64_t sec = rest / TM_USECS_PER_SEC;
    int64_t fsec = rest % TM_USECS_PER_SEC;
    if (is_zero || micros != 0) {
        bool minus = hour < 0 || min < 0 || sec < 0 || fsec < 0;
        /* |hour| fits: |micros| / 3.6e9 is far below INT64_MAX */
        sb_printf(out, "%s%s%02lld:%02lld:%02lld", is_zero ? "" : " ",
                  minus ? "-" : (is_before ? "+" : ""), (long long)llabs(hour), (long long)llabs(min),
                  (long long)llabs(sec));
        put_fraction(out, fsec < 0 ? -fsec : fsec);
    }
}

/* ---- arithmetic ---- */

bool tm_add_interval(int64_t ts, int32_t months, int32_t days, int64_t micros, int64_t *out)
{
    if (!ts_finite(ts)) { *out = ts; return true; }
    int64_t t = ts;
    if (months != 0) {
        int64_t d0, tod, y;
        int m, d;
        split_ts(t, &d0, &tod);
        tm_civil_from_days(d0, &y, &m, &d);
        int64_t mm = y * 12 + (m - 1) + months;
        int64_t ny = mm >= 0 ? mm / 12 : -((-mm + 11) / 12);
        int nm = (int)(mm - ny * 12) + 1;
        int dim = tm_days_in_month(ny, nm);
        if (d > dim) d = dim;
        int64_t nd = tm_days_from_civil(ny, nm, d);
        if (nd < DATE_MIN_DAYS || nd >= DATE_END_DAYS) return false;
        if (__builtin_mul_overflow(nd, TM_USECS_PER_DAY, &t) || __builtin_add_overflow(t, tod, &t)) return false;
    }
    int64_t dd;
    if (__builtin_mul_overflow((int64_t)days, TM_USECS_PER_DAY, &dd) || __builtin_add_overflow(t, dd, &t) ||
        __builtin_add_overflow(t, micros, &t) || !ts_valid(t))
        return false;
    *out = t;
    return true;
}

bool tm_sub_timestamps(int64_t a, int64_t b, int32_t *months, int32_t *days, int64_t *micros)
{
    int64_t diff;
    if (!ts_finite(a) || !ts_finite(b) || __builtin_sub_overflow(a, b, &diff)) return false;
    int64_t d = diff / TM_USECS_PER_DAY;   /* same signs: justify_hours needs no fix-up */
    *months = 0;
    *days = (int32_t)d;
    *micros = diff - d * TM_USECS_PER_DAY;
    return true;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

bool tm_date_trunc(const char *field, int64_t ts, int64_t *out)
{
    Unit u = field_unit(field);
    if (u < U_USEC || u > U_MILLENNIUM) return false;
    if (!ts_finite(ts)) { *out = ts; return true; }
    int64_t days, tod, y;
    int m, d;
    split_ts(ts, &days, &tod);
    switch (u) {
    case U_USEC: break;
    case U_MSEC: tod -= tod % 1000; break;
    case U_SEC: tod -= tod % TM_USECS_PER_SEC; break;
    case U_MIN: tod -= tod % TM_USECS_PER_MINUTE; break;
    case U_HOUR: tod -= tod % TM_USECS_PER_HOUR; break;
    case U_DAY: tod = 0; break;
    case U_WEEK: days -= (tm_day_of_week(days) + 6) % 7; tod = 0; break;
    default:
        tm_civil_from_days(days, &y, &m, &d);
        if (u == U_MILLENNIUM) y = y > 0 ? ((y + 999) / 1000) * 1000 - 999 : -((999 - (y - 1)) / 1000) * 1000 + 1;
        if (u == U_CENTURY) y = y > 0 ? ((y + 99) / 100) * 100 - 99 : -((99 - (y - 1)) / 100) * 100 + 1;
        if (u == U_DECADE) y = y > 0 ? (y / 10) * 10 : -((8 - (y - 1)) / 10) * 10;
        if (u == U_QUARTER) m = 3 * ((m - 1) / 3) + 1;
        else if (u != U_MONTH) m = 1;
        days = tm_days_from_civil(y, m, 1);
        tod = 0;
        break;
    }
    int64_t t;
    if (__builtin_mul_overflow(days, TM_USECS_PER_DAY, &t) || __builtin_add_overflow(t, tod, &t) || !ts_valid(t))
        return false;
    *out = t;
    return true;
}

/* ISO 8601 week-numbering year and week of a day number. */
static void iso_week(int64_t days, int64_t *isoyear, int *week)
{
    int isodow = tm_day_of_week(days);
    if (isodow == 0) isodow = 7;
    int64_t thursday = days - isodow + 4;
    int64_t y;
    int m, d;
    tm_civil_from_days(thursday, &y, &m, &d);
    *isoyear = y;
    *week = (int)((thursday - tm_days_from_civil(y, 1, 1)) / 7 + 1);
}

/* Date-level fields shared by timestamps and dates; false if u is not one. */
static bool date_field(Unit u, int64_t days, i128 *num)
{
    int64_t y, iy;
    int m, d, wk;
    tm_civil_from_days(days, &y, &m, &d);
    switch (u) {
    case U_DAY: *num = d; return true;
    case U_MONTH: *num = m; return true;
    case U_QUARTER: *num = (m - 1) / 3 + 1; return true;
    case U_WEEK: iso_week(days, &iy, &wk); *num = wk; return true;
    case U_YEAR: *num = y > 0 ? y : y - 1; return true;
    case U_DECADE: *num = y >= 0 ? y / 10 : -((8 - (y - 1)) / 10); return true;
    case U_CENTURY: *num = y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100); return true;
    case U_MILLENNIUM: *num = y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000); return true;
    case U_ISOYEAR: iso_week(days, &iy, &wk); *num = iy > 0 ? iy : iy - 1; return true;
    case U_DOW: *num = tm_day_of_week(days); return true;
    case U_ISODOW: { int w = tm_day_of_week(days); *num = w == 0 ? 7 : w; return true; }
    case U_DOY: *num = days - tm_days_from_civil(y, 1, 1) + 1; return true;
    default: return false;
    }
}

static bool extract_ts(Unit u, int64_t ts, bool tz, i128 *num, int *scale)
{
    if (u == U_BAD || u == U_AGO || !ts_finite(ts)) return false;
    int64_t days, tod;
    split_ts(ts, &days, &tod);
    *scale = 0;
    switch (u) {
    case U_USEC: *num = tod % TM_USECS_PER_MINUTE; return true;
    case U_MSEC: *num = tod % TM_USECS_PER_MINUTE; *scale = 3; return true;
    case U_SEC: *num = tod % TM_USECS_PER_MINUTE; *scale = 6; return true;
    case U_MIN: *num = tod / TM_USECS_PER_MINUTE % 60; return true;
    case U_HOUR: *num = tod / TM_USECS_PER_HOUR; return true;
    case U_EPOCH: *num = ts; *scale = 6; return true;
    case U_JULIAN: {
        i128 frac;
        int fs;
        if (!dec_div(tod, 0, TM_USECS_PER_DAY, 0, &frac, &fs)) return false;
        return dec_add(days + UNIX_EPOCH_JDATE, 0, frac, fs, num, scale);
    }
    case U_TZ: case U_TZ_HOUR: case U_TZ_MINUTE:
        if (!tz) return false;
        *num = 0;
        return true;
    default:
        return date_field(u, days, num);
    }
}

bool tm_extract(const char *field, int64_t ts, i128 *num, int *scale)
{
    return extract_ts(field_unit(field), ts, false, num, scale);
}

bool tm_extract_timestamptz(const char *field, int64_t ts, i128 *num, int *scale)
{
    return extract_ts(field_unit(field), ts, true, num, scale);
}

bool tm_extract_date(const char *field, int64_t days, i128 *num, int *scale)
{
    Unit u = field_unit(field);
    if (!ts_finite(days)) return false;
    *scale = 0;
    if (u == U_EPOCH) { *num = (i128)days * 86400; return true; }
    if (u == U_JULIAN) { *num = days + UNIX_EPOCH_JDATE; return true; }
    return date_field(u, days, num);
}

bool tm_extract_interval(const char *field, int32_t months, int32_t days, int64_t micros,
                         i128 *num, int *scale)
{
    Unit u = field_unit(field);
    int64_t year = months / 12, mon = months % 12;
    int64_t hour = micros / TM_USECS_PER_HOUR;
    int64_t rest = micros - hour * TM_USECS_PER_HOUR;
    int64_t min = rest / TM_USECS_PER_MINUTE;
    int64_t usec = rest - min * TM_USECS_PER_MINUTE;
    *scale = 0;
    switch (u) {
    case U_USEC: *num = usec; return true;
    case U_MSEC: *num = usec; *scale = 3; return true;
    case U_SEC: *num = usec; *scale = 6; return true;
    case U_MIN: *num = min; return true;
    case U_HOUR: *num = hour; return true;
    case U_DAY: *num = days; return true;
    case U_MONTH: *num = mon; return true;
    case U_QUARTER: *num = mon / 3 + 1; return true;
    case U_YEAR: *num = year; return true;
    case U_DECADE: *num = year / 10; return true;
    case U_CENTURY: *num = year / 100; return true;
    case U_MILLENNIUM: *num = year / 1000; return true;
    case U_EPOCH: {
        /* 365.25-day years and 30-day months, in quarter days to stay integral */
        int64_t secs = (1461 * year + 120 * mon + (int64_t)4 * days) * (86400 / 4);
        *num = (i128)secs * 1000000 + micros;
        *scale = 6;
        return true;
    }
    default: return false;
    }
}

static i128 interval_span(int32_t months, int32_t days, int64_t micros)
{
    return (i128)micros + ((i128)days + (i128)months * 30) * TM_USECS_PER_DAY;
}

int64_t tm_interval_to_micros_approx(int32_t months, int32_t days, int64_t micros)
{
    i128 v = interval_span(months, days, micros);
    if (v > INT64_MAX) return INT64_MAX;
    if (v < INT64_MIN) return INT64_MIN;
    return (int64_t)v;
}

int tm_interval_cmp(int32_t m1, int32_t d1, int64_t u1, int32_t m2, int32_t d2, int64_t u2)
{
    i128 a = interval_span(m1, d1, u1), b = interval_span(m2, d2, u2);
    return (a > b) - (a < b);
}

int64_t tm_timestamp_to_date(int64_t ts)
{
    if (!ts_finite(ts)) return ts;
    return floor_div(ts, TM_USECS_PER_DAY);
}

bool tm_timestamp_valid(int64_t ts) { return ts_valid(ts); }
bool tm_date_valid(int64_t days) { return days >= DATE_MIN_DAYS && days < DATE_END_DAYS; }

bool tm_date_to_timestamp(int64_t days, int64_t *ts)
{
    if (!ts_finite(days)) { *ts = days; return true; }
    int64_t t;
    if (days < DATE_MIN_DAYS || __builtin_mul_overflow(days, TM_USECS_PER_DAY, &t) || !ts_valid(t)) return false;
    *ts = t;
    return true;
}
