/* Dates, timestamps and intervals with PostgreSQL semantics.
 *
 * Representation: a timestamp is int64 microseconds since 1970-01-01 00:00:00 (UTC for
 * timestamptz; weir's session time zone is always UTC); a date is int64 days since
 * 1970-01-01; an interval is PostgreSQL's three fields (int32 months, int32 days,
 * int64 microseconds). The proleptic Gregorian calendar is used throughout; years
 * are astronomical internally (0 = 1 BC) and printed with " BC" like PostgreSQL.
 * 'infinity' / '-infinity' are INT64_MAX / INT64_MIN for timestamps and dates.
 *
 * Range: dates from 4714-11-24 BC to 5874897-12-31 (PostgreSQL's); timestamps from
 * 4714-11-24 BC up to what int64 microseconds since 1970 hold (about 294247-01-10),
 * slightly less than PostgreSQL's 294276-12-31.
 *
 * Nothing here allocates (formatting appends to a caller's StrBuf) or keeps state. */
#ifndef WEIR_BASE_TIMEUTIL_H
#define WEIR_BASE_TIMEUTIL_H

#include "base/strbuf.h"
#include "base/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TM_USECS_PER_SEC    INT64_C(1000000)
#define TM_USECS_PER_MINUTE INT64_C(60000000)
#define TM_USECS_PER_HOUR   INT64_C(3600000000)
#define TM_USECS_PER_DAY    INT64_C(86400000000)
#define TM_INFINITY     INT64_MAX   /* 'infinity' timestamp or date */
#define TM_NEG_INFINITY INT64_MIN   /* '-infinity' */

/* Why a parse failed, so callers can word the error as PostgreSQL does. */
typedef enum TmStatus {
    TM_OK = 0,
    TM_ERR_SYNTAX,        /* invalid input syntax for type X: "..." */
    TM_ERR_FIELD_RANGE,   /* date/time field value out of range: "..."
                             (intervals: interval field value out of range: "...") */
    TM_ERR_TZ_RANGE,      /* time zone displacement out of range: "..." */
    TM_ERR_OUT_OF_RANGE,  /* timestamp out of range / date out of range / interval out of range */
} TmStatus;

/* ---- civil calendar ---- */

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d (astronomical year,
 * m 1..12, d 1..31; no validation). H. Hinnant's algorithm; inline because the
 * decoders' timestamp fast path runs it per row. */
static inline int64_t tm_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}
/* Inverse of tm_days_from_civil. */
void tm_civil_from_days(int64_t days, int64_t *y, int *m, int *d);
bool tm_is_leap_year(int64_t y);
/* Days in month m (1..12) of year y. */
int tm_days_in_month(int64_t y, int m);
/* Day of week of a day number: 0 = Sunday .. 6 = Saturday (PostgreSQL's dow). */
int tm_day_of_week(int64_t days);

/* ---- parsing (PostgreSQL input semantics, ISO 8601 forms) ---- */

/* 'YYYY-MM-DD', 'YYYYMMDD', optionally followed by ' ' or 'T' and 'HH:MM[:SS[.f]]',
 * optionally a zone ('Z', 'UTC', 'GMT', '+hh', '+hh:mm', '+hhmm', '+hh:mm:ss', '-...')
 * and ' BC'/' AD'; also 'epoch', 'infinity', '-infinity'. Surrounding whitespace is
 * allowed. with_tz=false ignores the zone (PostgreSQL `timestamp`); with_tz=true
 * converts to UTC (no zone = UTC, the session zone). Fraction digits beyond 6 round
 * (as PostgreSQL: rint of the parsed fraction); 24:00:00 and second 60 roll over.
 * 'now', 'today', 'tomorrow', 'yesterday' are rejected (weir is deterministic). */
bool tm_parse_timestamp(const char *s, size_t len, bool with_tz, int64_t *out);
TmStatus tm_parse_timestamp_status(const char *s, size_t len, bool with_tz, int64_t *out);
/* Date input: the same forms as tm_parse_timestamp; a time and zone, if present, are
 * validated and dropped (PostgreSQL's date_in). Result in days since 1970-01-01. */
bool tm_parse_date(const char *s, size_t len, int64_t *days);
TmStatus tm_parse_date_status(const char *s, size_t len, int64_t *days);
/* Interval input. Accepted forms (all PostgreSQL-compatible):
 *   '<number> <unit>' sequences, the unit separated by spaces or not ('10 seconds',
 *     '1.5 hours', '2 hours 30 minutes', '-1 day', '5s', '500ms', '10m', '2h', '30d',
 *     '1w'), optional leading '@' and trailing 'ago' (negates everything);
 *   a time '[+-]hh:mm[:ss[.f]]' or 'mm:ss.f', optionally after '<n> day(s)' or a bare
 *     number of days ('1 02:00:00');
 *   a bare number alone or last means seconds ('10', '1 day 2');
 *   ISO 8601 'P[nY][nM][nW][nD][T[nH][nM][nS]]' with optional signs and fractions
 *     (upper-case designators only, as PostgreSQL).
 * Units: microsecond(s)/usec(s)/us, millisecond(s)/msec(s)/ms, second(s)/sec(s)/s,
 * minute(s)/min(s)/m, hour(s)/hr(s)/h, day(s)/d, week(s)/w, month(s)/mon(s),
 * year(s)/yr(s)/y, decade(s)/dec(s), century/centuries/c, millennium/millennia/mil(s);
 * case-insensitive. Fractions spill into smaller fields as PostgreSQL does
 * ('1.5 months' = 1 mon 15 days, '1.5 years' = 1 year 6 mons). A unit given twice is an
 * error. Note 'm' is minutes (as PostgreSQL), months are 'mon'. */
bool tm_parse_interval(const char *s, size_t len, int32_t *months, int32_t *days, int64_t *micros);
TmStatus tm_parse_interval_status(const char *s, size_t len, int32_t *months, int32_t *days,
                                  int64_t *micros);

/* ---- formatting (PostgreSQL DateStyle ISO, IntervalStyle postgres) ---- */

/* '2024-01-01 00:00:01.25' (fraction without trailing zeros, none when zero),
 * ' BC' suffix for years <= 0, 'infinity' / '-infinity'. */
void tm_format_timestamp(int64_t ts, StrBuf *out);
/* As tm_format_timestamp with the UTC offset: '2024-01-01 00:00:01.25+00'. */
void tm_format_timestamptz(int64_t ts, StrBuf *out);
/* '2024-01-01'. */
void tm_format_date(int64_t days, StrBuf *out);
/* '1 year 2 mons 3 days 04:05:06.5', '-1 days +02:00:00', '00:00:00', '-00:00:01'. */
void tm_format_interval(int32_t months, int32_t days, int64_t micros, StrBuf *out);

/* ---- arithmetic ---- */

/* ts + interval: months first (the day clamped to the end of the resulting month),
 * then days, then microseconds; infinite ts stays infinite. False when the result is
 * outside the timestamp range. Works for timestamp and timestamptz (UTC). */
bool tm_add_interval(int64_t ts, int32_t months, int32_t days, int64_t micros, int64_t *out);
/* a - b as an interval with no months, whole days split off the microseconds
 * (PostgreSQL's timestamp_mi + justify_hours: '1 day 02:00:00', '-1 days -02:00:00').
 * False for infinite inputs or overflow. */
bool tm_sub_timestamps(int64_t a, int64_t b, int32_t *months, int32_t *days, int64_t *micros);
/* date_trunc(field, ts): microseconds, milliseconds, second, minute, hour, day,
 * week (Monday), month, quarter, year, decade, century, millennium (PostgreSQL unit
 * spellings and plurals accepted, case-insensitive). Infinite ts stays infinite.
 * False for an unknown or unsupported field. */
bool tm_date_trunc(const char *field, int64_t ts, int64_t *out);
/* EXTRACT(field FROM timestamp) as PostgreSQL 14+ numeric: year, month, day, hour,
 * minute, second (scale 6), millisecond (scale 3), microsecond, dow, isodow, doy, week,
 * quarter, epoch (scale 6), decade, century, millennium, isoyear, julian. False for an
 * unknown field, a zone field (timezone*: only for timestamptz) or an infinite ts. */
bool tm_extract(const char *field, int64_t ts, i128 *num, int *scale);
/* As tm_extract for timestamptz; also timezone, timezone_hour, timezone_minute (0: UTC). */
bool tm_extract_timestamptz(const char *field, int64_t ts, i128 *num, int *scale);
/* EXTRACT from a date: day, month, quarter, week, year, decade, century, millennium,
 * isoyear, dow, isodow, doy, julian, epoch (scale 0). Time fields are not supported
 * for dates (false), as in PostgreSQL. */
bool tm_extract_date(const char *field, int64_t days, i128 *num, int *scale);
/* EXTRACT from an interval: microsecond, millisecond, second, minute, hour, day, month,
 * quarter, year, decade, century, millennium, epoch (365.25-day years, 30-day months). */
bool tm_extract_interval(const char *field, int32_t months, int32_t days, int64_t micros,
                         i128 *num, int *scale);

/* Interval as microseconds with 30-day months and 24-hour days (PostgreSQL's interval
 * comparison rule), saturated to the int64 range. */
int64_t tm_interval_to_micros_approx(int32_t months, int32_t days, int64_t micros);
/* Exact comparison of intervals by that rule ('1 mon' == '30 days'). <0, 0, >0. */
int tm_interval_cmp(int32_t m1, int32_t d1, int64_t u1, int32_t m2, int32_t d2, int64_t u2);

/* timestamp -> date (floor to the day; infinities map to infinities). */
int64_t tm_timestamp_to_date(int64_t ts);
/* Is ts a finite timestamp of the range (4714-11-24 00:00:00 BC up to the largest
 * finite value; TM_INFINITY and TM_NEG_INFINITY are not)? Likewise for days as a date
 * (4714-11-24 BC to 5874897-12-31). */
bool tm_timestamp_valid(int64_t ts);
bool tm_date_valid(int64_t days);
/* date -> timestamp at midnight; false ("date out of range for timestamp") when the
 * date does not fit the timestamp range. */
bool tm_date_to_timestamp(int64_t days, int64_t *ts);

#endif
