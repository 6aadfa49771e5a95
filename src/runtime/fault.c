/* Fault-injection points for tests (see fault.h). */
#include "runtime/fault.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void run_fault_point(const char *point)
{
    static long reached;
    const char *spec = getenv("WEIR_FAULT");
    size_t n = strlen(point);
    if (!spec || strncmp(spec, point, n) != 0 || (spec[n] != ':' && spec[n] != '\0')) return;
    char *end = NULL;
    long at = spec[n] ? strtol(spec + n + 1, &end, 10) : 1;
    if (++reached != at) return;
    bool term = end && strcmp(end, ":TERM") == 0;
    fprintf(stderr, "weir: WEIR_FAULT %s: %s\n", spec, term ? "SIGTERM" : "SIGKILL");
    fflush(stderr);
    kill(getpid(), term ? SIGTERM : SIGKILL);
}
