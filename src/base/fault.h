/* Test hooks for crash tests: named points in the runtime where the process kills
 * itself when the environment variable WEIR_CRASH_AT names the point. WEIR_CRASH_AT
 * is a comma-separated list of entries `POINT` (the first time the point is reached),
 * `POINT:N` (the N-th time, counting from 1) or `POINT:N:TERM` (send SIGTERM, a
 * graceful stop requested right then, instead of SIGKILL). Nothing happens when it is
 * unset, which is always the case outside tests; docs/lifecycle.md and docs/run.md
 * list the points. */
#ifndef WEIR_BASE_FAULT_H
#define WEIR_BASE_FAULT_H

/* Kill (or stop) the process here when WEIR_CRASH_AT says this is the time. */
void fault_point(const char *point);

#endif
