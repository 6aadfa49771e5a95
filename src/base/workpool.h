/* A fixed pool of worker threads that runs one job at a time over lanes: the caller
 * hands a function and a lane count, lane 0 runs on the calling thread and lanes 1..n-1
 * on the pool's threads, and the call returns once every lane is done (a barrier).
 * Threads are created once with the pool and wait on a condition variable between
 * jobs, so a job costs no thread creation and no allocation. Used by `weir run
 * --workers N` to decode each step's records in parallel (connectors/source.c). */
#ifndef WEIR_BASE_WORKPOOL_H
#define WEIR_BASE_WORKPOOL_H

typedef struct WorkPool WorkPool;

/* One lane of a job: fn(arg, lane) for lane in [0, nlanes). */
typedef void (*WorkFn)(void *arg, int lane);

/* A pool for up to `lanes` lanes (lanes - 1 threads; lanes >= 2). Aborts with a
 * message when a thread cannot be created. */
WorkPool *workpool_new(int lanes);
/* Stops and joins the threads. NULL is allowed. */
void workpool_free(WorkPool *p);
/* The lanes the pool runs (what workpool_new was given). */
int workpool_lanes(const WorkPool *p);
/* Runs fn over nlanes lanes (1 <= nlanes <= workpool_lanes) and waits for all of
 * them. Not reentrant: one job at a time, from one thread. Everything lane 0..n-1
 * wrote is visible to the caller when this returns. */
void workpool_run(WorkPool *p, int nlanes, WorkFn fn, void *arg);

/* The machine's online processors (at least 1): the default of --workers. */
int workpool_default_lanes(void);

#endif
