/* Fault-injection points for tests (see fault.h). */
#include "runtime/fault.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void run_fault_point(const char *point)
{
    static long reached;
    const char *spec = getenv("WEIR_FAULT");
    if (!spec) return;
    const char *colon = strrchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (n != strlen(point) || strncmp(spec, point, n) != 0) return;
    long at = colon ? strtol(colon + 1, NULL, 10) : 1;
    if (++reached < at) return;
    fprintf(stderr, "weir: WEIR_FAULT %s: killing the process\n", spec);
    fflush(stderr);
    kill(getpid(), SIGKILL);
}
