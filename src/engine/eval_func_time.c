/* Date/time functions of the scalar function library with PostgreSQL 15 semantics:
 * date_trunc, extract/date_part, date_bin, make_date, make_timestamp, make_interval,
 * age, justify_days/hours/interval, isfinite. Calendar arithmetic lives in
 * base/timeutil.
 *
 * Argument conventions: date_trunc(text unit, timestamp | timestamptz | date |
 * interval); extract(text unit, timestamp | timestamptz | date | interval) -> numeric
 * (the unit may be any text expression, usually a constant, case-insensitive);
 * date_bin(interval stride, timestamp[tz] source, timestamp[tz] origin);
 * make_date(int y, int m, int d); make_timestamp(int y, m, d, h, min, float8 sec);
 * make_interval(int years, months, weeks, days, hours, mins, float8 secs);
 * age(timestamp[tz], timestamp[tz]); justify_*(interval); isfinite(date | timestamp[tz]
 * | interval); timezone(text zone, timestamp | timestamptz) for x AT TIME ZONE zone,
 * the zone resolved by the binder when constant (Expr.tzone, base/tz.h). */
#include "engine/eval_func_internal.h"

#include "base/timeutil.h"
#include "base/tz.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- date_trunc / extract ---- */

/* Unit names PostgreSQL recognises (for the "not recognized" vs "not supported"
 * wording only; the conversions themselves live in base/timeutil). */
static const char *const known_units[] = {
    "microsecond", "microseconds", "us", "usec", "usecs", "useconds",
    "millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds",
    "second", "seconds", "s", "sec", "secs",
    "minute", "minutes", "m", "min", "mins",
    "hour", "hours", "h", "hr", "hrs",
    "day", "days", "d", "week", "weeks", "w",
    "month", "months", "mon", "mons", "quarter", "qtr",
    "year", "years", "y", "yr", "yrs", "decade", "decades", "dec", "decs",
    "century", "centuries", "c", "cent",
    "millennium", "millennia", "mil", "mils", "millenniums",
    "timezone", "timezone_h", "timezone_hour", "timezone_m", "timezone_minute",
    "dow", "isodow", "doy", "epoch", "julian", "j", "isoyear",
};

static bool unit_known(const char *u)
{
    for (size_t i = 0; i < sizeof known_units / sizeof *known_units; i++)
        if (strcmp(u, known_units[i]) == 0) return true;
    return false;
}

static const char *temporal_type_name(TypeId id)
{
    switch (id) {
    case T_TIMESTAMP: return "timestamp without time zone";
    case T_TIMESTAMPTZ: return "timestamp with time zone";
    case T_DATE: return "date";
    default: return "interval";
    }
}

static bool unit_error(const char *u, TypeId id, EvalCtx *ctx)
{
    return eval_fail(ctx, "unit \"%s\" %s for type %s", u,
                     unit_known(u) ? "not supported" : "not recognized", temporal_type_name(id));
}

/* Lower-cased, NUL-terminated copy of the unit argument (PostgreSQL downcases it). */
static void unit_text(const Value *v, char *buf, size_t size)
{
    size_t n = v->len < size - 1 ? v->len : size - 1;
    for (size_t i = 0; i < n; i++) buf[i] = (char)tolower((unsigned char)v->s[i]);
    buf[n] = 0;
}

static bool unit_is(const char *u, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(u, *names) == 0) return true;
    return false;
}

/* date_trunc(unit, interval), PostgreSQL's interval_trunc. */
static bool interval_trunc(const char *u, const Value *v, EvalCtx *ctx, Value *out)
{
    static const char *const mil[] = {"millennium", "millennia", "mil", "mils", "millenniums", NULL};
    static const char *const cent[] = {"century", "centuries", "c", "cent", NULL};
    static const char *const dec[] = {"decade", "decades", "dec", "decs", NULL};
    static const char *const yr[] = {"year", "years", "y", "yr", "yrs", NULL};
    static const char *const qtr[] = {"quarter", "qtr", NULL};
    static const char *const mon[] = {"month", "months", "mon", "mons", NULL};
    static const char *const day[] = {"day", "days", "d", NULL};
    static const char *const hr[] = {"hour", "hours", "h", "hr", "hrs", NULL};
    static const char *const mi[] = {"minute", "minutes", "m", "min", "mins", NULL};
    static const char *const sec[] = {"second", "seconds", "s", "sec", "secs", NULL};
    static const char *const ms[] = {"millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds", NULL};
    static const char *const us[] = {"microsecond", "microseconds", "us", "usec", "usecs", "useconds", NULL};
    int level;   /* how much to clear: 0 millennium .. 11 microsecond */
    if (unit_is(u, mil)) level = 0;
    else if (unit_is(u, cent)) level = 1;
    else if (unit_is(u, dec)) level = 2;
    else if (unit_is(u, yr)) level = 3;
    else if (unit_is(u, qtr)) level = 4;
    else if (unit_is(u, mon)) level = 5;
    else if (unit_is(u, day)) level = 6;
    else if (unit_is(u, hr)) level = 7;
    else if (unit_is(u, mi)) level = 8;
    else if (unit_is(u, sec)) level = 9;
    else if (unit_is(u, ms)) level = 10;
    else if (unit_is(u, us)) level = 11;
    else return unit_error(u, T_INTERVAL, ctx);

    int64_t year = v->iv.months / 12, mon_ = v->iv.months % 12, mday = v->iv.days;
    int64_t time = v->i;
    int64_t hour = time / TM_USECS_PER_HOUR;
    time -= hour * TM_USECS_PER_HOUR;
    int64_t min = time / TM_USECS_PER_MINUTE;
    time -= min * TM_USECS_PER_MINUTE;
    int64_t secs = time / TM_USECS_PER_SEC;
    int64_t usec = time - secs * TM_USECS_PER_SEC;

    if (level == 10) usec = (usec / 1000) * 1000;
    if (level <= 9) usec = 0;
    if (level <= 8) secs = 0;
    if (level <= 7) min = 0;
    if (level <= 6) hour = 0;
    if (level <= 5) mday = 0;
    if (level <= 4) mon_ = 3 * (mon_ / 3);
    if (level <= 3) mon_ = 0;
    if (level <= 2) year = (year / 10) * 10;
    if (level <= 1) year = (year / 100) * 100;
    if (level <= 0) year = (year / 1000) * 1000;
    *out = value_interval((int32_t)(year * 12 + mon_), (int32_t)mday,
                          hour * TM_USECS_PER_HOUR + min * TM_USECS_PER_MINUTE + secs * TM_USECS_PER_SEC + usec);
    return true;
}

/* Fixed-length units of date_trunc in their usual spellings (windows by the hour,
 * minute or day are the common case): truncation is then one floor division instead
 * of a unit lookup and a calendar conversion. 0 for every other unit. */
static int64_t fixed_unit(const char *u)
{
    switch (u[0]) {
    case 'h': return strcmp(u, "hour") == 0 || strcmp(u, "hours") == 0 ? TM_USECS_PER_HOUR : 0;
    case 'm': return strcmp(u, "minute") == 0 || strcmp(u, "minutes") == 0 ? TM_USECS_PER_MINUTE : 0;
    case 's': return strcmp(u, "second") == 0 || strcmp(u, "seconds") == 0 ? TM_USECS_PER_SEC : 0;
    case 'd': return strcmp(u, "day") == 0 || strcmp(u, "days") == 0 ? TM_USECS_PER_DAY : 0;
    default: return 0;
    }
}

static bool fn_date_trunc(const Expr *e, const Value *unit, const Value *v, EvalCtx *ctx, Value *out)
{
    char u[32];
    unit_text(unit, u, sizeof u);
    Type t = e->args[1]->type;
    if (t.id == T_INTERVAL) {
        if (!interval_trunc(u, v, ctx, out)) return false;
        return eval_coerce(e, t, out, ctx);
    }
    int64_t ts = v->i, r;
    Type natural = t;
    if (t.id == T_DATE) {
        /* PostgreSQL resolves date_trunc(text, date) through timestamp with time zone */
        natural = type_make(T_TIMESTAMPTZ);
        if (!tm_date_to_timestamp(v->i, &ts)) return eval_fail(ctx, "date out of range for timestamp");
    } else if (t.id != T_TIMESTAMP && t.id != T_TIMESTAMPTZ) {
        char b[64];
        return eval_fail(ctx, "function date_trunc(text, %s) does not exist", type_name(t, b, sizeof b));
    }
    int64_t step = fixed_unit(u);
    if (step && ts != TM_INFINITY && ts != TM_NEG_INFINITY) {
        r = ts - ts % step;              /* floor to a multiple of the unit */
        if (ts % step < 0) r -= step;
    } else if (!tm_date_trunc(u, ts, &r)) {
        return unit_error(u, natural.id, ctx);
    }
    *out = value_int(r);
    return eval_coerce(e, natural, out, ctx);
}

static bool fn_extract(const Expr *e, const Value *unit, const Value *v, EvalCtx *ctx, Value *out)
{
    char u[32];
    unit_text(unit, u, sizeof u);
    Type t = e->args[1]->type;
    i128 n;
    int s;
    bool ok;
    switch (t.id) {
    case T_TIMESTAMP:   ok = tm_extract(u, v->i, &n, &s); break;
    case T_TIMESTAMPTZ: ok = tm_extract_timestamptz(u, v->i, &n, &s); break;
    case T_DATE:        ok = tm_extract_date(u, v->i, &n, &s); break;
    case T_INTERVAL:    ok = tm_extract_interval(u, v->iv.months, v->iv.days, v->i, &n, &s); break;
    default: {
        char b[64];
        return eval_fail(ctx, "function extract(text, %s) does not exist", type_name(t, b, sizeof b));
    }
    }
    if (!ok) {
        /* infinite timestamps: PostgreSQL 15 returns NULL or +-Infinity (numeric has
         * no infinity here): report NULL for them rather than an error */
        if ((t.id == T_TIMESTAMP || t.id == T_TIMESTAMPTZ || t.id == T_DATE) &&
            (v->i == TM_INFINITY || v->i == TM_NEG_INFINITY) && unit_known(u)) {
            *out = value_null();
            return true;
        }
        return unit_error(u, (TypeId)t.id, ctx);
    }
    if (e->type.id == T_NUMERIC) return eval_numeric_result(e, n, s, ctx, out);
    *out = value_numeric(n, s);
    return eval_coerce(e, type_make(T_NUMERIC), out, ctx);
}

/* ---- constructors ---- */

#define PG_EPOCH_DAYS INT64_C(10957)   /* 2000-01-01 - 1970-01-01: PostgreSQL's epoch */
#define PG_EPOCH_USECS (PG_EPOCH_DAYS * TM_USECS_PER_DAY)
/* Valid dates (days since 1970): PostgreSQL's 4714-11-24 BC .. 5874897-12-31. */
#define DATE_MIN_DAYS INT64_C(-2440588)
#define DATE_END_DAYS (INT64_C(2147483494) - INT64_C(2440588))
#define TS_MIN_USECS (DATE_MIN_DAYS * TM_USECS_PER_DAY)

/* PostgreSQL's IS_VALID_JULIAN (astronomical year). */
static bool valid_julian(int64_t y, int m)
{
    return (y > -4713 || (y == -4713 && m >= 11)) && (y < 5874898 || (y == 5874898 && m < 6));
}

/* PostgreSQL's ValidateDate for year, month, day (bc: the year counts BC and becomes
 * astronomical). False: "field value out of range". */
static bool validate_date(int64_t *year, int64_t month, int64_t day, bool bc)
{
    if (*year <= 0) return false;
    if (bc) *year = -(*year - 1);
    if (month < 1 || month > 12 || day < 1 || day > 31) return false;
    return day <= tm_days_in_month(*year, (int)month);
}

/* int32 negation with wraparound (INT32_MIN stays itself, as in PostgreSQL). */
static int32_t neg32(int32_t v) { return (int32_t)(0u - (uint32_t)v); }

static bool fn_make_date(const Value *const *av, EvalCtx *ctx, Value *out)
{
    int32_t y0 = (int32_t)av[0]->i, m = (int32_t)av[1]->i, d = (int32_t)av[2]->i;
    bool bc = y0 < 0;
    int64_t y = bc ? neg32(y0) : y0;
    if (!validate_date(&y, m, d, bc))
        return eval_fail(ctx, "date field value out of range: %lld-%02d-%02d", (long long)y, m, d);
    if (!valid_julian(y, m)) return eval_fail(ctx, "date out of range: %lld-%02d-%02d", (long long)y, m, d);
    int64_t days = tm_days_from_civil(y, m, d);
    if (days < DATE_MIN_DAYS || days >= DATE_END_DAYS)
        return eval_fail(ctx, "date out of range: %lld-%02d-%02d", (long long)y, m, d);
    *out = value_int(days);
    return true;
}

/* %g as PostgreSQL's own printf prints it (NaN and Infinity spelled out). */
static const char *fmt_g(double v, const char *fmt, char *buf, size_t size)
{
    if (isnan(v)) return "NaN";
    if (isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    snprintf(buf, size, fmt, v);
    return buf;
}

static bool fn_make_timestamp(const Value *const *av, EvalCtx *ctx, Value *out)
{
    int32_t y0 = (int32_t)av[0]->i, m = (int32_t)av[1]->i, d = (int32_t)av[2]->i;
    int32_t hour = (int32_t)av[3]->i, min = (int32_t)av[4]->i;
    double sec = av[5]->f;
    char sb[64];
    bool bc = y0 < 0;
    int64_t y = bc ? neg32(y0) : y0;
    if (!validate_date(&y, m, d, bc)) return eval_fail(ctx, "date field value out of range: %d-%02d-%02d", y0, m, d);
    if (!valid_julian(y, m)) return eval_fail(ctx, "date out of range: %d-%02d-%02d", y0, m, d);
    int64_t days = tm_days_from_civil(y, m, d);
    /* float_time_overflows: 24:00:00 and second 60 are allowed, nothing beyond */
    double usec = isnan(sec) ? sec : rint(sec * 1e6);
    if (hour < 0 || hour > 24 || min < 0 || min >= 60 || isnan(usec) || usec < 0 || usec > 60e6 ||
        ((int64_t)hour * 60 + min) * 60 * TM_USECS_PER_SEC + (int64_t)usec > TM_USECS_PER_DAY)
        return eval_fail(ctx, "time field value out of range: %d:%02d:%s", hour, min, fmt_g(sec, "%02g", sb, sizeof sb));
    int64_t time = ((int64_t)hour * 60 + min) * 60 * TM_USECS_PER_SEC + (int64_t)usec, ts;
    if (__builtin_mul_overflow(days, TM_USECS_PER_DAY, &ts) || __builtin_add_overflow(ts, time, &ts) ||
        ts < TS_MIN_USECS || ts == INT64_MAX)
        return eval_fail(ctx, "timestamp out of range: %d-%02d-%02d %d:%02d:%s", y0, m, d, hour, min,
                         fmt_g(sec, "%02g", sb, sizeof sb));
    *out = value_int(ts);
    return true;
}

/* make_interval(years, months, weeks, days, hours, mins, secs), missing trailing
 * arguments 0. The integer fields wrap around on overflow as PostgreSQL 15's do. */
static bool fn_make_interval(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    int64_t f[6] = {0, 0, 0, 0, 0, 0};
    double secs = 0;
    for (int i = 0; i < e->nargs && i < 6; i++) f[i] = av[i]->i;
    if (e->nargs == 7) secs = av[6]->f;
    if (isinf(secs) || isnan(secs)) return eval_fail(ctx, "interval out of range");
    int32_t months = (int32_t)((uint32_t)f[0] * 12u + (uint32_t)f[1]);
    int32_t days = (int32_t)((uint32_t)f[2] * 7u + (uint32_t)f[3]);
    double us = rint(secs * 1e6);
    /* an out-of-range conversion gives the smallest int64, as the x86 conversion does */
    int64_t usi = us >= -9223372036854775808.0 && us < 9223372036854775808.0 ? (int64_t)us : INT64_MIN;
    uint64_t time = (uint64_t)(f[4] * TM_USECS_PER_HOUR) + (uint64_t)(f[5] * TM_USECS_PER_MINUTE) + (uint64_t)usi;
    *out = value_interval(months, days, (int64_t)time);
    return true;
}

/* to_timestamp(float8): seconds since 1970 as timestamptz, converted through
 * PostgreSQL's epoch (2000) as PostgreSQL does, so the microsecond rounding agrees. */
static bool fn_to_timestamp_epoch(double sec, EvalCtx *ctx, Value *out)
{
    char b[64];
    if (isnan(sec)) return eval_fail(ctx, "timestamp cannot be NaN");
    if (isinf(sec)) {
        *out = value_int(sec > 0 ? TM_INFINITY : TM_NEG_INFINITY);
        return true;
    }
    /* PostgreSQL's range: Julian day 0 .. 294277-01-01 */
    if (sec < 86400.0 * (0 - 2440588) || sec >= 86400.0 * (109203528 - 2440588))
        return eval_fail(ctx, "timestamp out of range: \"%s\"", fmt_g(sec, "%g", b, sizeof b));
    double us = rint((sec - 946684800.0) * 1e6);
    int64_t ts;
    if (__builtin_add_overflow((int64_t)us, PG_EPOCH_USECS, &ts) || ts == INT64_MAX || ts < TS_MIN_USECS)
        return eval_fail(ctx, "timestamp out of range: \"%s\"", fmt_g(sec, "%g", b, sizeof b));
    *out = value_int(ts);
    return true;
}

/* ---- date_bin, age ---- */

static bool fn_date_bin(const Value *stride, int64_t ts, int64_t origin, EvalCtx *ctx, Value *out)
{
    if (ts == TM_INFINITY || ts == TM_NEG_INFINITY) {
        *out = value_int(ts);
        return true;
    }
    if (origin == TM_INFINITY || origin == TM_NEG_INFINITY) return eval_fail(ctx, "origin out of range");
    if (stride->iv.months != 0)
        return eval_fail(ctx, "timestamps cannot be binned into intervals containing months or years");
    int64_t step, diff;
    if (__builtin_mul_overflow((int64_t)stride->iv.days, TM_USECS_PER_DAY, &step) ||
        __builtin_add_overflow(step, stride->i, &step))
        return eval_fail(ctx, "interval out of range");
    if (step <= 0) return eval_fail(ctx, "stride must be greater than zero");
    if (__builtin_sub_overflow(ts, origin, &diff)) return eval_fail(ctx, "interval out of range");
    int64_t mod = diff % step, r = origin + (diff - mod);
    /* toward -infinity for an origin after the timestamp */
    if (mod < 0 && (__builtin_sub_overflow(r, step, &r) || r < TS_MIN_USECS))
        return eval_fail(ctx, "timestamp out of range");
    *out = value_int(r);
    return true;
}

/* A timestamp's fields as PostgreSQL's timestamp2tm has them; 'infinity' splits as
 * PostgreSQL's largest timestamp (294277-01-09 04:00:54.775807), '-infinity' not at
 * all (false). */
typedef struct Fields {
    int64_t year;
    int mon, mday, hour, min, sec, usec;
} Fields;

static bool split_ts(int64_t ts, Fields *f)
{
    int64_t days, time;
    if (ts == TM_NEG_INFINITY) return false;
    if (ts == TM_INFINITY) {
        days = INT64_MAX / TM_USECS_PER_DAY + PG_EPOCH_DAYS;
        time = INT64_MAX % TM_USECS_PER_DAY;
    } else {
        days = ts / TM_USECS_PER_DAY;
        time = ts % TM_USECS_PER_DAY;
        if (time < 0) {
            time += TM_USECS_PER_DAY;
            days--;
        }
    }
    int m, d;
    tm_civil_from_days(days, &f->year, &m, &d);
    f->mon = m;
    f->mday = d;
    f->hour = (int)(time / TM_USECS_PER_HOUR);
    time %= TM_USECS_PER_HOUR;
    f->min = (int)(time / TM_USECS_PER_MINUTE);
    time %= TM_USECS_PER_MINUTE;
    f->sec = (int)(time / TM_USECS_PER_SEC);
    f->usec = (int)(time % TM_USECS_PER_SEC);
    return true;
}

/* age(a, b): PostgreSQL's field-by-field difference (timestamp_age): the fields
 * subtracted, negative ones borrowed from the next larger field (a day borrows the
 * length of the month of the earlier timestamp), signs restored. */
static bool fn_age(int64_t a, int64_t b, EvalCtx *ctx, Value *out)
{
    Fields x, y;
    if (!split_ts(a, &x) || !split_ts(b, &y)) return eval_fail(ctx, "timestamp out of range");
    bool flip = a < b;
    int64_t usec = x.usec - y.usec, sec = x.sec - y.sec, min = x.min - y.min, hour = x.hour - y.hour;
    int64_t mday = x.mday - y.mday, mon = x.mon - y.mon, year = x.year - y.year;
    if (flip) {
        usec = -usec, sec = -sec, min = -min, hour = -hour, mday = -mday, mon = -mon, year = -year;
    }
    while (usec < 0) usec += TM_USECS_PER_SEC, sec--;
    while (sec < 0) sec += 60, min--;
    while (min < 0) min += 60, hour--;
    while (hour < 0) hour += 24, mday--;
    const Fields *base = flip ? &x : &y;
    while (mday < 0) mday += tm_days_in_month(base->year, base->mon), mon--;
    while (mon < 0) mon += 12, year--;
    if (flip) {
        usec = -usec, sec = -sec, min = -min, hour = -hour, mday = -mday, mon = -mon, year = -year;
    }
    int64_t months = year * 12 + mon, time;
    if (months < INT32_MIN || months > INT32_MAX || mday < INT32_MIN || mday > INT32_MAX ||
        __builtin_mul_overflow(hour, TM_USECS_PER_HOUR, &time) ||
        __builtin_add_overflow(time, min * TM_USECS_PER_MINUTE + sec * TM_USECS_PER_SEC + usec, &time))
        return eval_fail(ctx, "interval out of range");
    *out = value_interval((int32_t)months, (int32_t)mday, time);
    return true;
}

/* ---- justify_* ---- */

static bool fn_justify(int f, const Value *v, EvalCtx *ctx, Value *out)
{
    int32_t month = v->iv.months, day = v->iv.days;
    int64_t time = v->i;
    bool hours = f == FN_JUSTIFY_HOURS || f == FN_JUSTIFY_INTERVAL, days = f == FN_JUSTIFY_DAYS || f == FN_JUSTIFY_INTERVAL;
    if (f == FN_JUSTIFY_INTERVAL && ((day > 0 && time > 0) || (day < 0 && time < 0))) {
        /* pre-justify the days so that adding the whole days of time cannot overflow */
        int32_t wm = day / 30;
        day -= wm * 30;
        if (__builtin_add_overflow(month, wm, &month)) return eval_fail(ctx, "interval out of range");
    }
    if (hours) {
        int64_t wd = time / TM_USECS_PER_DAY;
        time -= wd * TM_USECS_PER_DAY;
        if (__builtin_add_overflow(day, wd, &day)) return eval_fail(ctx, "interval out of range");
    }
    if (days) {
        int32_t wm = day / 30;
        day -= wm * 30;
        if (__builtin_add_overflow(month, wm, &month)) return eval_fail(ctx, "interval out of range");
        bool t_neg = f == FN_JUSTIFY_INTERVAL && day == 0 && time < 0;
        bool t_pos = f == FN_JUSTIFY_INTERVAL && day == 0 && time > 0;
        if (month > 0 && (day < 0 || t_neg)) {
            day += 30;
            month--;
        } else if (month < 0 && (day > 0 || t_pos)) {
            day -= 30;
            month++;
        }
    }
    if (hours) {
        if (day > 0 && time < 0) {
            time += TM_USECS_PER_DAY;
            day--;
        } else if (day < 0 && time > 0) {
            time -= TM_USECS_PER_DAY;
            day++;
        }
    }
    *out = value_interval(month, day, time);
    return true;
}

/* ---- dispatch ---- */

/* x AT TIME ZONE zone with a named zone (PostgreSQL's timestamp_zone and
 * timestamptz_zone): a timestamp is read as wall-clock time in the zone (a time in a
 * gap or an overlap resolved as tz_offset_for_local says) and becomes the instant; a
 * timestamptz becomes the wall-clock time of the zone at that instant. Infinities pass
 * unchanged. */
static bool fn_timezone(const Expr *e, const Value *zone, int64_t x, EvalCtx *ctx, Value *out)
{
    const TzZone *z = e->tzone;
    if (!z) {
        size_t len = zone->len > TZ_NAME_MAX ? TZ_NAME_MAX : zone->len;
        if (tz_find(zone->s, zone->len, &z) != TZ_FOUND) return eval_fail(ctx, "time zone \"%.*s\" not recognized", (int)len, zone->s);
    }
    bool to_tz = e->type.id == T_TIMESTAMPTZ;
    if (x == TM_INFINITY || x == TM_NEG_INFINITY) {
        *out = value_int(x);
        return true;
    }
    int64_t secs = x / TM_USECS_PER_SEC - (x % TM_USECS_PER_SEC < 0);
    int64_t off = to_tz ? tz_offset_for_local(z, secs) : tz_offset_at(z, secs);
    int64_t r;
    if (__builtin_mul_overflow(off, TM_USECS_PER_SEC, &off) ||
        (to_tz ? __builtin_sub_overflow(x, off, &r) : __builtin_add_overflow(x, off, &r)) || !tm_timestamp_valid(r))
        return eval_fail(ctx, "timestamp out of range");
    *out = value_int(r);
    return true;
}

bool eval_func_time(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    switch ((FuncKind)e->func) {
    case FN_DATE_TRUNC:
        if (e->nargs < 2) break;
        return fn_date_trunc(e, av[0], av[1], ctx, out);
    case FN_EXTRACT:
        if (e->nargs < 2) break;
        return fn_extract(e, av[0], av[1], ctx, out);
    case FN_DATE_BIN:
        if (e->nargs < 3) break;
        return fn_date_bin(av[0], av[1]->i, av[2]->i, ctx, out) && eval_coerce(e, e->args[1]->type, out, ctx);
    case FN_MAKE_DATE:
        if (e->nargs < 3) break;
        return fn_make_date(av, ctx, out) && eval_coerce(e, type_make(T_DATE), out, ctx);
    case FN_MAKE_TIMESTAMP:
        if (e->nargs < 6) break;
        return fn_make_timestamp(av, ctx, out) && eval_coerce(e, type_make(T_TIMESTAMP), out, ctx);
    case FN_MAKE_INTERVAL:
        return fn_make_interval(e, av, ctx, out);
    case FN_AGE:
        if (e->nargs < 2) break;
        return fn_age(av[0]->i, av[1]->i, ctx, out);
    case FN_JUSTIFY_DAYS: case FN_JUSTIFY_HOURS: case FN_JUSTIFY_INTERVAL:
        return fn_justify(e->func, av[0], ctx, out);
    case FN_TO_TIMESTAMP:
        return fn_to_timestamp_epoch(av[0]->f, ctx, out) && eval_coerce(e, type_make(T_TIMESTAMPTZ), out, ctx);
    case FN_TIMEZONE:
        if (e->nargs != 2) break;
        return fn_timezone(e, av[0], av[1]->i, ctx, out);
    case FN_ISFINITE:
        *out = value_bool(e->args[0]->type.id == T_INTERVAL || (av[0]->i != TM_INFINITY && av[0]->i != TM_NEG_INFINITY));
        return true;
    default: break;
    }
    return eval_fail(ctx, "function %s() called with %d arguments", func_kind_name((FuncKind)e->func), e->nargs);
}
