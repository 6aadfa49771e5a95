/* Unit tests for the worker pool (src/base/workpool.c): every lane of every job runs
 * exactly once, on as many lanes as asked, and everything the lanes wrote is visible
 * when workpool_run returns (many short jobs back to back, as `weir run --workers`
 * makes one per source and step). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/workpool.h"

#include <string.h>

typedef struct Job {
    int runs[8];             /* per lane: how often it ran in this job */
    long sum[8];             /* per lane: its share of the work */
    int n;                   /* items */
    int lanes;
} Job;

static void lane_fn(void *arg, int lane)
{
    Job *j = arg;
    j->runs[lane]++;
    long s = 0;
    for (int i = j->n * lane / j->lanes; i < j->n * (lane + 1) / j->lanes; i++) s += i;
    j->sum[lane] = s;
}

static void test_every_lane_once(void **state)
{
    (void)state;
    WorkPool *p = workpool_new(4);
    assert_int_equal(workpool_lanes(p), 4);
    for (int round = 0; round < 2000; round++) {
        Job j;
        memset(&j, 0, sizeof j);
        j.n = 1000 + round;
        j.lanes = 1 + round % 4;
        workpool_run(p, j.lanes, lane_fn, &j);
        long total = 0;
        for (int l = 0; l < 8; l++) {
            assert_int_equal(j.runs[l], l < j.lanes ? 1 : 0);
            total += j.sum[l];
        }
        assert_int_equal(total, (long)j.n * (j.n - 1) / 2);
    }
    workpool_free(p);
    workpool_free(NULL);
    assert_true(workpool_default_lanes() >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_lane_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
