/* The fixed worker pool behind workpool.h: one mutex and two condition variables.
 * A job bumps a generation counter; each thread whose lane is below the job's lane
 * count runs it and counts itself out; the caller runs lane 0 and waits for the count
 * to reach zero. */
#include "base/workpool.h"

#include "base/arena.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct WorkThread {
    WorkPool *pool;
    int lane;
    pthread_t th;
} WorkThread;

struct WorkPool {
    int lanes;
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    unsigned long gen;       /* the current job's number */
    int nlanes;              /* lanes of the current job */
    int pending;             /* lanes of the current job still running (threads only) */
    WorkFn fn;
    void *arg;
    int stop;
    WorkThread *threads;     /* lanes - 1 */
};

static void *thread_main(void *v)
{
    WorkThread *t = v;
    WorkPool *p = t->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->gen == seen) pthread_cond_wait(&p->start, &p->mu);
        if (p->stop) break;
        seen = p->gen;
        if (t->lane >= p->nlanes) continue;
        WorkFn fn = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        fn(arg, t->lane);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

WorkPool *workpool_new(int lanes)
{
    if (lanes < 2) lanes = 2;
    WorkPool *p = xcalloc(1, sizeof *p);
    p->lanes = lanes;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    p->threads = xcalloc((size_t)lanes, sizeof(WorkThread));
    for (int i = 1; i < lanes; i++) {
        WorkThread *t = &p->threads[i - 1];
        t->pool = p;
        t->lane = i;
        int rc = pthread_create(&t->th, NULL, thread_main, t);
        if (rc != 0) {
            fprintf(stderr, "weir: cannot start a worker thread: %s\n", strerror(rc));
            abort();
        }
    }
    return p;
}

void workpool_free(WorkPool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->lanes; i++) pthread_join(p->threads[i - 1].th, NULL);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p);
}

int workpool_lanes(const WorkPool *p) { return p ? p->lanes : 1; }

void workpool_run(WorkPool *p, int nlanes, WorkFn fn, void *arg)
{
    if (nlanes > p->lanes) nlanes = p->lanes;
    if (nlanes <= 1) {
        fn(arg, 0);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->nlanes = nlanes;
    p->pending = nlanes - 1;
    p->gen++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    fn(arg, 0);
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

int workpool_default_lanes(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}
