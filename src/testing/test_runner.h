/* Deterministic model tests (`weir test`): runs each test case of the tests/ YAML files
 * in-process on the engine, one given row per step, and compares the model's exact
 * changelog (`expect`), its final rows (`expect_final`, order-insensitive) and the rows
 * the engine rejected (`expect_dead_letters`, in order) with what was produced. */
#ifndef WEIR_TESTING_TEST_RUNNER_H
#define WEIR_TESTING_TEST_RUNNER_H

#include "base/strbuf.h"
#include "ir/ir.h"

#include <stdbool.h>

typedef enum { TEST_PASS, TEST_FAIL, TEST_ERROR } TestStatus;

typedef struct TestResult {
    const TestCase *test;
    TestStatus status;
    char *report;          /* human-readable failure report (malloc'd) or NULL */
    char *actual_json;     /* actual changelog as a JSON array (malloc'd) */
    char *final_json;      /* actual final rows as a JSON array (malloc'd) */
    char *dead_json;       /* rows the engine rejected, as a JSON array of
                              {"reason","at","row"} (malloc'd) */
    int ndead;
    bool dead_unchecked;   /* there are dead letters and the test has no expect_dead_letters */
    double millis;
} TestResult;

typedef struct TestOptions {
    /* After every step save the pipeline's checkpoint, free the pipeline and continue
     * on a new one restored from it: the results must not change (a check that every
     * operator's state survives a checkpoint). */
    bool checkpoint_each_step;
} TestOptions;

/* Run one test against the graph (o may be NULL). Never aborts on bad test data:
 * problems in the test itself give TEST_ERROR with a message that points at
 * file:line:col. */
void test_run_case(const IrGraph *g, const TestCase *tc, const TestOptions *o, TestResult *out);
void test_result_fini(TestResult *r);

#endif
