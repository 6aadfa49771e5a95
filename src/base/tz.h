/* Time zones for AT TIME ZONE, resolved as PostgreSQL 15 resolves a zone given as text.
 *
 * A name is looked up, in PostgreSQL's order, as
 *   1. a time zone abbreviation of PostgreSQL's default set (timezone_abbreviations
 *      'Default': 'CET' is always +01:00, 'PST' -08:00, 'UTC' 0, case-insensitive);
 *      an abbreviation the set defines by a zone ('MSK' by Europe/Moscow, 'ART', ...)
 *      means, at a given time, what the zone's data says it meant then (its latest use
 *      at or before that time, else its first use after; a zone that never uses it gives
 *      its own offset), as PostgreSQL's DetermineTimeZoneAbbrevOffset;
 *   2. a compiled zone of the system's time zone database: a TZif file (versions 1 to
 *      4) under $TZDIR, else /usr/share/zoneinfo, matched case-insensitively one path
 *      component at a time, never through a component starting with '.' (as
 *      PostgreSQL's scan_directory_ci); times after the file's last transition follow
 *      its POSIX TZ footer;
 *   3. a POSIX TZ string ('UTC+3', '+03', 'EST5EDT,M3.2.0,M11.1.0'; west of Greenwich is
 *      positive, as POSIX writes it; a daylight name without rules takes the US rules
 *      M3.2.0,M11.1.0, as PostgreSQL since version 13).
 * Zones are read once and kept for the life of the process (a mutex guards the cache;
 * a found zone is immutable, so using it needs no lock and allocates nothing). Leap
 * second files ("right/...") are refused as unknown. The environment variable TZ and
 * the C library's localtime are never used.
 *
 * Times are seconds since 1970-01-01 00:00:00 UTC (int64); offsets are seconds east of
 * Greenwich (Europe/Berlin in summer: +7200). */
#ifndef WEIR_BASE_TZ_H
#define WEIR_BASE_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct TzZone TzZone;

typedef enum TzStatus {
    TZ_FOUND,           /* *zone set */
    TZ_UNKNOWN,         /* PostgreSQL: time zone "..." not recognized */
} TzStatus;

/* The longest zone name PostgreSQL reads (TZ_STRLEN_MAX); longer text is cut there. */
#define TZ_NAME_MAX 255

/* Resolves `name` (len bytes, not NUL-terminated) as above. TZ_FOUND sets *zone to a
 * zone valid until the process ends. Thread-safe; reads the file system only the
 * first time a name is seen (unknown names are remembered too, up to a bound). */
TzStatus tz_find(const char *name, size_t len, const TzZone **zone);

/* The zone's offset at the instant `utc` (PostgreSQL's pg_localtime): before the first
 * transition the zone's first type, after the last the footer rule, if any. */
int32_t tz_offset_at(const TzZone *z, int64_t utc);

/* The offset PostgreSQL applies to the wall-clock time `local` (seconds since
 * 1970-01-01 00:00:00 local time) to find its instant, utc = local - offset
 * (DetermineTimeZoneOffset): in a gap of a forward transition the offset before it
 * (02:30 on a spring-forward night in New York is read as EST, 07:30 UTC); in an
 * overlap of a backward transition the offset after it (01:30 on the autumn night is
 * EST, 06:30 UTC). */
int32_t tz_offset_for_local(const TzZone *z, int64_t local);

/* Parses a TZif file image (n bytes) into a new zone, or NULL if it is not a valid
 * TZif file (or has leap seconds). Never reads beyond data[n). Free with tz_free. */
TzZone *tz_parse_tzif(const unsigned char *data, size_t n);

/* Parses a POSIX TZ string (n bytes) into a new zone, or NULL if it is not one. The
 * standard-time name may be empty ('+03'), as PostgreSQL allows. Free with tz_free. */
TzZone *tz_parse_posix(const char *s, size_t n);

void tz_free(TzZone *z);

#endif
