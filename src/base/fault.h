/* Test hooks for crash tests: named points in the runtime where the process kills
 * itself with SIGKILL when the environment variable WEIR_CRASH_AT names the point
 * (a comma-separated list is allowed). Nothing happens when it is unset, which is
 * always the case outside tests; docs/lifecycle.md lists the points. */
#ifndef WEIR_BASE_FAULT_H
#define WEIR_BASE_FAULT_H

/* Kill the process here when WEIR_CRASH_AT names `point`. */
void fault_point(const char *point);

#endif
