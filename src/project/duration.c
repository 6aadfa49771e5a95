/* Durations in project files (watermark_delay, state_ttl): "5s", "500ms", "1.5h",
 * "2 days", "1h 30m". Exact integer arithmetic in microseconds, overflow-checked. */
#include "project/project.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

typedef struct Unit {
    const char *name;
    int64_t us;
} Unit;

static const Unit units[] = {
    {"us", 1}, {"µs", 1}, {"micro", 1}, {"micros", 1}, {"microsecond", 1}, {"microseconds", 1},
    {"ms", 1000}, {"milli", 1000}, {"millis", 1000}, {"millisecond", 1000}, {"milliseconds", 1000},
    {"s", 1000000}, {"sec", 1000000}, {"secs", 1000000}, {"second", 1000000}, {"seconds", 1000000},
    {"m", 60000000LL}, {"min", 60000000LL}, {"mins", 60000000LL}, {"minute", 60000000LL},
    {"minutes", 60000000LL},
    {"h", 3600000000LL}, {"hr", 3600000000LL}, {"hrs", 3600000000LL}, {"hour", 3600000000LL},
    {"hours", 3600000000LL},
    {"d", 86400000000LL}, {"day", 86400000000LL}, {"days", 86400000000LL},
    {"w", 604800000000LL}, {"week", 604800000000LL}, {"weeks", 604800000000LL},
};

static int64_t unit_us(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && strncasecmp(units[i].name, s, n) == 0) return units[i].us;
    return 0;
}

/* Contract: s is NUL-terminated; on success *us is the total in microseconds (>= 0).
 * A bare "0" is accepted; any other number needs a unit. Fractions are allowed
 * ("1.5h") and must resolve to whole microseconds. */
bool project_parse_duration(const char *s, int64_t *us)
{
    if (!s || !us) return false;
    const char *p = s;
    while (isspace((unsigned char)*p)) p++;
    if (strcmp(p, "0") == 0) {
        *us = 0;
        return true;
    }
    int64_t total = 0;
    int terms = 0;
    while (*p) {
        if (!isdigit((unsigned char)*p)) return false;
        int64_t ip = 0;
        while (isdigit((unsigned char)*p)) {
            if (ip > (INT64_MAX - 9) / 10) return false;
            ip = ip * 10 + (*p++ - '0');
        }
        int64_t frac = 0, fscale = 1;
        if (*p == '.') {
            p++;
            if (!isdigit((unsigned char)*p)) return false;
            while (isdigit((unsigned char)*p)) {
                if (fscale > 100000000000000LL) return false; /* more digits than exact */
                frac = frac * 10 + (*p++ - '0');
                fscale *= 10;
            }
        }
        while (*p == ' ') p++;
        const char *u = p;
        while (*p && !isspace((unsigned char)*p) && !isdigit((unsigned char)*p)) p++;
        int64_t mul = unit_us(u, (size_t)(p - u));
        if (!mul) return false;
        if (ip > INT64_MAX / mul) return false;
        int64_t v = ip * mul;
        if (frac) {
            /* frac/fscale * mul must be whole: mul <= 6.048e11, frac < fscale <= 1e15 */
            __int128 f = (__int128)frac * mul;
            if (f % fscale) return false;
            int64_t fv = (int64_t)(f / fscale);
            if (v > INT64_MAX - fv) return false;
            v += fv;
        }
        if (total > INT64_MAX - v) return false;
        total += v;
        terms++;
        while (isspace((unsigned char)*p)) p++;
    }
    if (!terms) return false;
    *us = total;
    return true;
}
