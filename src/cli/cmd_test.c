/* `weir test`: runs the tests/ YAML files in-process, one line per test, a changelog diff for
 * each failure, and a closing line "N passed, N failed". Exit 1 on any failure. */
#include "cli/cli.h"
#include "base/jsonw.h"
#include "testing/test_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --select: comma-separated test or model names. */
static bool selected(const char *select, const TestCase *tc)
{
    if (!select) return true;
    const char *pos = select, *s;
    size_t n;
    while (cli_select_next(&pos, &s, &n))
        if (cli_select_is(s, n, tc->name) || cli_select_is(s, n, tc->model)) return true;
    return false;
}

static const char *status_word(TestStatus s)
{
    return s == TEST_PASS ? "pass" : s == TEST_FAIL ? "fail" : "error";
}

int cmd_test(const CliOptions *o)
{
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    if (cli_stop_on_errors(&cp, o, "weir test: the project has errors (see above); fix them first"))
        return EXIT_FAILURES;
    int passed = 0, failed = 0, matched = 0;
    StrBuf js = STRBUF_INIT;
    JsonW w;
    jw_init(&w, &js, true);
    if (o->format == OUT_JSON) {
        jw_obj(&w);
        jw_key(&w, "tests");
        jw_arr(&w);
    }
    for (int i = 0; i < cp.project->ntests; i++) {
        const TestCase *tc = &cp.project->tests[i];
        if (!selected(o->select, tc)) continue;
        matched++;
        TestResult r;
        TestOptions to = {.checkpoint_each_step = o->checkpoint_each_step};
        test_run_case(cp.graph, tc, &to, &r);
        if (r.status == TEST_PASS) passed++;
        else failed++;
        if (o->format == OUT_JSON) {
            jw_obj(&w);
            jw_kstr(&w, "name", tc->name);
            jw_kstr(&w, "model", tc->model);
            jw_kstr(&w, "file", tc->file);
            jw_kint(&w, "line", tc->pos.line);
            jw_kstr(&w, "status", status_word(r.status));
            jw_kstr(&w, "report", r.report);
            jw_key(&w, "actual");
            if (r.actual_json) jw_raw(&w, r.actual_json);
            else jw_null(&w);
            jw_key(&w, "actual_final");
            if (r.final_json) jw_raw(&w, r.final_json);
            else jw_null(&w);
            jw_key(&w, "dead_letters");
            if (r.dead_json) jw_raw(&w, r.dead_json);
            else jw_null(&w);
            jw_end_obj(&w);
        } else {
            printf("%s  %s (%s)", r.status == TEST_PASS ? "PASS " : r.status == TEST_FAIL ? "FAIL " : "ERROR",
                   tc->name, tc->model);
            if (r.status != TEST_PASS) printf("  %s:%d:%d", tc->file, tc->pos.line, tc->pos.col);
            printf("  %.2f ms", r.millis);
            if (r.status == TEST_PASS && r.dead_unchecked)
                printf("  (%d dead letter%s, not checked)", r.ndead, r.ndead == 1 ? "" : "s");
            printf("\n");
            if (r.report) fputs(r.report, stdout);
        }
        test_result_fini(&r);
    }
    if (o->format == OUT_JSON) {
        jw_end_arr(&w);
        jw_kint(&w, "passed", passed);
        jw_kint(&w, "failed", failed);
        jw_end_obj(&w);
        cli_write_stdout(js.data, js.len);
    } else {
        if (o->select && matched == 0) fprintf(stderr, "weir test: no test or model matches '%s'\n", o->select);
        printf("%d passed, %d failed\n", passed, failed);
    }
    sb_free(&js);
    cli_project_free(&cp);
    if (o->select && matched == 0) return EXIT_USAGE;
    return failed ? EXIT_FAILURES : EXIT_OK;
}
