/* Crash points for tests (see fault.h). */
#include "base/fault.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ENTRIES 16

void fault_point(const char *point)
{
    const char *list = getenv("WEIR_CRASH_AT");
    if (!list || !*list) return;
    static long reached[MAX_ENTRIES];    /* per entry of the list: times its point was reached */
    size_t n = strlen(point);
    int entry = 0;
    for (const char *p = list; *p && entry < MAX_ENTRIES; entry++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len >= n && strncmp(p, point, n) == 0 && (len == n || p[n] == ':')) {
            char *end = NULL;
            long at = len > n ? strtol(p + n + 1, &end, 10) : 1;
            bool term = end && (size_t)(end - p) + 5 == len && strncmp(end, ":TERM", 5) == 0;
            if (++reached[entry] == at) {
                kill(getpid(), term ? SIGTERM : SIGKILL);
                if (!term) pause();
            }
        }
        p += len;
        if (*p == ',') p++;
    }
}
