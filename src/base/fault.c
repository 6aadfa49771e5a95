/* Crash points for tests (see fault.h). */
#include "base/fault.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fault_point(const char *point)
{
    const char *list = getenv("WEIR_CRASH_AT");
    if (!list || !*list) return;
    size_t n = strlen(point);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, point, n) == 0) {
            kill(getpid(), SIGKILL);
            pause();
        }
        p += len;
        if (*p == ',') p++;
    }
}
