/* `weir test`: runs the tests/ YAML files in-process, one line per test, a changelog diff for
 * each failure, and a closing line "N passed, N failed" (or --format json / junit). A test
 * whose definition the loader rejected is an ERROR of its own, with its diagnostics; the
 * other tests still run. Exit 1 on any failure. */
#include "cli/cli.h"
#include "base/jsonw.h"
#include "testing/test_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *status_word(TestStatus s)
{
    return s == TEST_PASS ? "pass" : s == TEST_FAIL ? "fail" : "error";
}

static bool is_tests_file(const char *f)
{
    size_t n = f ? strlen(f) : 0;
    return n > 10 && strncmp(f, "tests/", 6) == 0 && strcmp(f + n - 4, ".yml") == 0 && !strchr(f + 6, '/');
}

static bool pos_before(SrcPos a, SrcPos b)
{
    return a.line < b.line || (a.line == b.line && a.col < b.col);
}

/* The test whose definition holds diagnostic d, or -1. */
static int test_of_diag(const Project *p, const Diag *d)
{
    for (int i = 0; i < p->ntests; i++) {
        const TestCase *t = &p->tests[i];
        if (!t->file || strcmp(t->file, d->pos.file) != 0) continue;
        if (pos_before(d->pos, t->pos)) continue;
        if (t->end.line && !pos_before(d->pos, t->end)) continue;
        return i;
    }
    return -1;
}

/* The diagnostics of `owner` (a test index, or -1: those of tests files outside any
 * test) rendered as text, malloc'd; NULL when there are none. */
static char *render_test_diags(const CliProject *cp, int owner, const char *file)
{
    DiagList sub;
    diag_init(&sub);
    for (int i = 0; i < cp->dl.count; i++) {
        const Diag *d = &cp->dl.items[i];
        if (d->severity != DIAG_ERROR || !is_tests_file(d->pos.file)) continue;
        if (test_of_diag(cp->project, d) != owner) continue;
        if (owner < 0 && strcmp(d->pos.file, file) != 0) continue;
        for (int s = 0; s < cp->dl.nsources; s++)
            if (strcmp(cp->dl.sources[s].file, d->pos.file) == 0) {
                diag_add_source(&sub, cp->dl.sources[s].file, cp->dl.sources[s].text);
                break;
            }
        diag_add(&sub, d->severity, d->pos, d->code, d->hint, "%s", d->message);
    }
    char *out = NULL;
    if (sub.count) {
        StrBuf sb = STRBUF_INIT;
        diag_sort(&sub);
        diag_render_text(&sub, &sb, false);
        StrBuf ind = STRBUF_INIT; /* indented like every report */
        for (const char *line = sb_cstr(&sb); *line;) {
            size_t n = strcspn(line, "\n");
            sb_puts(&ind, "  ");
            sb_append(&ind, line, n);
            sb_putc(&ind, '\n');
            line += n + (line[n] == '\n');
        }
        out = strdup(sb_cstr(&ind));
        sb_free(&ind);
        sb_free(&sb);
    }
    diag_fini(&sub);
    return out;
}

/* XML text or attribute value: escaped, control characters and invalid UTF-8 replaced. */
static void xml_escape(StrBuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned char c = *p;
        if (c == '&') sb_puts(sb, "&amp;");
        else if (c == '<') sb_puts(sb, "&lt;");
        else if (c == '>') sb_puts(sb, "&gt;");
        else if (c == '"') sb_puts(sb, "&quot;");
        else if (c == '\n' || c == '\t') sb_putc(sb, (char)c);
        else if (c < 0x20 || c == 0x7f) sb_putc(sb, '?');
        else if (c < 0x80) sb_putc(sb, (char)c);
        else {
            int n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
            if (c >= 0xf5) n = -1;
            bool ok = n > 0;
            for (int k = 1; ok && k <= n; k++) ok = (p[k] & 0xc0) == 0x80;
            if (!ok) {
                sb_putc(sb, '?');
                p++;
                continue;
            }
            for (int k = 0; k <= n; k++) sb_putc(sb, (char)p[k]);
            p += n + 1;
            continue;
        }
        p++;
    }
}

/* The first line of a report, for a failure's message attribute. */
static void first_line(StrBuf *sb, const char *report)
{
    const char *s = report ? report : "";
    while (*s == ' ') s++;
    size_t n = strcspn(s, "\n");
    char *line = strndup(s, n);
    if (!line) abort();
    xml_escape(sb, line);
    free(line);
}

typedef struct Outcome {
    const char *name, *model, *file;
    int line, col;
    TestStatus status;
    char *report;
    double millis;
} Outcome;

static void junit_render(const Outcome *oc, int n, StrBuf *sb)
{
    int failures = 0, errors = 0;
    double total = 0;
    for (int i = 0; i < n; i++) {
        failures += oc[i].status == TEST_FAIL;
        errors += oc[i].status == TEST_ERROR;
        total += oc[i].millis;
    }
    sb_puts(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb_printf(sb, "<testsuites name=\"weir test\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.6f\">\n", n,
              failures, errors, total / 1000);
    sb_printf(sb, "  <testsuite name=\"weir\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%.6f\">\n",
              n, failures, errors, total / 1000);
    for (int i = 0; i < n; i++) {
        const Outcome *o = &oc[i];
        sb_puts(sb, "    <testcase name=\"");
        xml_escape(sb, o->name);
        sb_puts(sb, "\" classname=\"");
        xml_escape(sb, o->model ? o->model : o->file);
        sb_puts(sb, "\" file=\"");
        xml_escape(sb, o->file);
        sb_printf(sb, "\" line=\"%d\" time=\"%.6f\"", o->line, o->millis / 1000);
        if (o->status == TEST_PASS) {
            sb_puts(sb, "/>\n");
            continue;
        }
        const char *tag = o->status == TEST_FAIL ? "failure" : "error";
        sb_printf(sb, ">\n      <%s message=\"", tag);
        first_line(sb, o->report);
        sb_printf(sb, "\" type=\"%s\">", o->status == TEST_FAIL ? "mismatch" : "test-definition");
        sb_printf(sb, "%s:%d:%d\n", o->file, o->line, o->col);
        xml_escape(sb, o->report);
        sb_printf(sb, "</%s>\n    </testcase>\n", tag);
    }
    sb_puts(sb, "  </testsuite>\n</testsuites>\n");
}

int cmd_test(const CliOptions *o)
{
    if (o->format == OUT_DOT) {
        cli_error("test writes text, json or junit, not dot");
        return EXIT_USAGE;
    }
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    Selection sel;
    if (!cli_selection(&cp, o, NULL, &sel)) {
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    const Project *p = cp.project;
    /* errors in the tests files belong to their tests (which then fail alone); any other
     * error stops everything */
    int test_file_errors = 0;
    for (int i = 0; i < cp.dl.count; i++)
        if (cp.dl.items[i].severity == DIAG_ERROR && is_tests_file(cp.dl.items[i].pos.file)) test_file_errors++;
    if (cp.dl.errors > test_file_errors) {
        selection_free(&sel);
        cli_stop_on_errors(&cp, o, "weir test: the project has errors (see above); fix them first");
        return EXIT_FAILURES;
    }
    Outcome *oc = xcalloc((size_t)p->ntests + (size_t)test_file_errors + 1, sizeof *oc);
    int noc = 0, passed = 0, failed = 0;
    /* errors of a tests file outside any test (a duplicate name, a YAML syntax error):
     * one ERROR per file, which a selection cannot leave out */
    for (int i = 0; i < cp.dl.count; i++) {
        const Diag *d = &cp.dl.items[i];
        if (d->severity != DIAG_ERROR || !is_tests_file(d->pos.file) || test_of_diag(p, d) >= 0) continue;
        bool seen = false;
        for (int k = 0; k < noc && !seen; k++) seen = oc[k].file == d->pos.file || strcmp(oc[k].file, d->pos.file) == 0;
        if (seen) continue;
        oc[noc++] = (Outcome){d->pos.file, NULL, d->pos.file, d->pos.line, d->pos.col, TEST_ERROR,
                              render_test_diags(&cp, -1, d->pos.file), 0};
    }
    StrBuf js = STRBUF_INIT;
    JsonW w;
    jw_init(&w, &js, true);
    if (o->format == OUT_JSON) {
        jw_obj(&w);
        jw_key(&w, "tests");
        jw_arr(&w);
    }
    if (o->format == OUT_TEXT)
        for (int k = 0; k < noc; k++) {
            printf("ERROR  %s  %s:%d:%d\n", oc[k].file, oc[k].file, oc[k].line, oc[k].col);
            fputs(oc[k].report, stdout);
        }
    failed = noc;
    for (int i = 0; i < p->ntests; i++) {
        const TestCase *tc = &p->tests[i];
        if (!sel.tests[i]) continue;
        TestResult r;
        if (tc->load_errors) {
            memset(&r, 0, sizeof r);
            r.test = tc;
            r.status = TEST_ERROR;
            r.report = render_test_diags(&cp, i, NULL);
        } else {
            TestOptions to = {.checkpoint_each_step = o->checkpoint_each_step};
            test_run_case(cp.graph, tc, &to, &r);
        }
        if (r.status == TEST_PASS) passed++;
        else failed++;
        const char *name = tc->name ? tc->name : "(unnamed)";
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
        } else if (o->format == OUT_TEXT) {
            printf("%s  %s (%s)", r.status == TEST_PASS ? "PASS " : r.status == TEST_FAIL ? "FAIL " : "ERROR", name,
                   tc->model ? tc->model : "?");
            if (r.status != TEST_PASS) printf("  %s:%d:%d", tc->file, tc->pos.line, tc->pos.col);
            printf("  %.2f ms", r.millis);
            if (r.status == TEST_PASS && r.dead_unchecked)
                printf("  (%d dead letter%s, not checked)", r.ndead, r.ndead == 1 ? "" : "s");
            printf("\n");
            if (r.report) fputs(r.report, stdout);
        }
        oc[noc++] = (Outcome){name, tc->model, tc->file, tc->pos.line, tc->pos.col, r.status,
                              r.report ? strdup(r.report) : NULL, r.millis};
        test_result_fini(&r);
    }
    int ntests_selected = sel.ntests;
    if (o->format == OUT_JSON) {
        jw_end_arr(&w);
        jw_kint(&w, "passed", passed);
        jw_kint(&w, "failed", failed);
        jw_end_obj(&w);
        cli_write_stdout(js.data, js.len);
    } else if (o->format == OUT_JUNIT) {
        StrBuf x = STRBUF_INIT;
        junit_render(oc, noc, &x);
        cli_write_stdout(x.data, x.len);
        sb_free(&x);
    } else {
        if (cli_selecting(o, NULL) && ntests_selected == 0) fprintf(stderr, "weir test: the selection matches no test\n");
        printf("%d passed, %d failed\n", passed, failed);
    }
    for (int k = 0; k < noc; k++) free(oc[k].report);
    free(oc);
    sb_free(&js);
    selection_free(&sel);
    cli_project_free(&cp);
    return failed ? EXIT_FAILURES : EXIT_OK;
}
