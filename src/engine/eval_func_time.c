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
 * | interval). */
#include "engine/eval_func_internal.h"

#include "base/timeutil.h"

#include <ctype.h>
#include <math.h>
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

/* ---- dispatch ---- */

bool eval_func_time(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    switch ((FuncKind)e->func) {
    case FN_DATE_TRUNC:
        if (e->nargs < 2) break;
        return fn_date_trunc(e, av[0], av[1], ctx, out);
    case FN_EXTRACT:
        if (e->nargs < 2) break;
        return fn_extract(e, av[0], av[1], ctx, out);
    default: break;
    }
    return eval_fail(ctx, "function %s() called with %d arguments", func_kind_name((FuncKind)e->func), e->nargs);
}
