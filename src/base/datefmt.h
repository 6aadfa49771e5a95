/* PostgreSQL's date/time templates: to_char for timestamps, dates and intervals, and
 * to_timestamp / to_date parsing. A template is scanned the way PostgreSQL scans it:
 * at every position the FM / TM prefixes, then the longest keyword from PostgreSQL's
 * list (YYYY, MM, Mon, Day, HH24, MI, SS, MS, US, FF1..FF6, AM, TZ, ... in their
 * upper- and lower-case spellings), then the TH / th suffix; "double-quoted" text and
 * \" are literal; anything else is copied. Names are English (the C locale), the
 * session time zone is UTC.
 *
 * Errors carry PostgreSQL's message in err. Nothing here keeps state. */
#ifndef WEIR_BASE_DATEFMT_H
#define WEIR_BASE_DATEFMT_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* to_char(timestamp, template): ts in microseconds since 1970 (finite; PostgreSQL
 * returns NULL for infinite timestamps and empty templates, the caller's job);
 * with_tz for timestamp with time zone (TZ prints UTC). Appends to out. */
bool datefmt_timestamp_to_char(int64_t ts, bool with_tz, const char *fmt, size_t fmtlen, StrBuf *out,
                               char *err, size_t errsize);
/* to_char(interval, template). Fails for the patterns PostgreSQL rejects for
 * intervals (month and day names, D, ID, AD/BC, time zones). */
bool datefmt_interval_to_char(int32_t months, int32_t days, int64_t micros, const char *fmt, size_t fmtlen,
                              StrBuf *out, char *err, size_t errsize);

/* to_timestamp(text, template) -> timestamptz (microseconds since 1970, UTC) and
 * to_date(text, template) -> days since 1970. */
bool datefmt_to_timestamp(const char *s, size_t len, const char *fmt, size_t fmtlen, int64_t *out, char *err,
                          size_t errsize);
bool datefmt_to_date(const char *s, size_t len, const char *fmt, size_t fmtlen, int64_t *out, char *err,
                     size_t errsize);

#endif
