/* Unit tests of lookup joins (op_join.c in lookup mode, IrNode.lookup): only the left
 * input (the stream) triggers; the right input (the table) only updates the state. A
 * stream row joins every matching table row present when it arrives (NULL keys never
 * match; LEFT pads with NULLs), a later table change changes no earlier result, a
 * table change and a stream row of the same step meet table first, the state is the
 * table side only (checkpoint round trip), a stream retraction fails the step, and the
 * results are the same at batch sizes 1, 7 and 4096 against a brute-force join. */
#include "test_engine_util.h"

/* stream l(k, a): insert-only; table r(k, b): retracting (a changelog) */
static IrNode *lookup_model(TB *tb, JoinType jt, int *sl, int *sr, Expr *pred)
{
    *sl = add_source(tb, "l", "k:i8,a:txt", FMT_JSON, -1);
    *sr = add_source(tb, "r", "k:i8,b:txt", FMT_CHANGELOG_JSON, -1);
    int m = add_model(tb, "j");
    IrNode *l = n_source(tb, m, *sl, CL_INSERT_ONLY);
    IrNode *r = n_source(tb, m, *sr, CL_RETRACT);
    int k0[1] = {0};
    IrNode *j = n_join(tb, m, l, r, jt, k0, k0, 1, pred);
    j->lookup = true;
    j->mode = CL_INSERT_ONLY;
    set_root(tb, m, j, NULL, -1);
    return j;
}

static void test_lookup_inner(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr;
    lookup_model(&tb, JOIN_INNER, &sl, &sr, NULL);
    start(&tb);
    /* a table change emits nothing, before or after stream rows */
    push(&tb, sr, 1, "1|x");
    assert_string_equal(step(&tb), "");
    push(&tb, sl, 1, "1|a");
    assert_string_equal(step(&tb), "I 1|a|1|x");
    push(&tb, sr, 1, "1|y");
    assert_string_equal(step(&tb), "");
    /* every match of the table as it is now; the earlier row keeps its one pair */
    push(&tb, sl, 1, "1|b");
    assert_string_equal(step(&tb), "I 1|b|1|x; I 1|b|1|y");
    /* a deleted table row is gone for later rows only; nothing is retracted */
    push(&tb, sr, -1, "1|x");
    assert_string_equal(step(&tb), "");
    push(&tb, sl, 1, "1|c");
    assert_string_equal(step(&tb), "I 1|c|1|y");
    /* an update of the table (-old +new) in one step */
    push(&tb, sr, -1, "1|y");
    push(&tb, sr, 1, "1|z");
    assert_string_equal(step(&tb), "");
    push(&tb, sl, 1, "1|d");
    assert_string_equal(step(&tb), "I 1|d|1|z");
    /* NULL keys never match; an unmatched key emits nothing */
    push(&tb, sr, 1, "NULL|n");
    push(&tb, sl, 1, "NULL|m");
    push(&tb, sl, 1, "2|e");
    assert_string_equal(step(&tb), "");
    /* a table change and a stream row in the same step: the table first, in any order */
    push(&tb, sl, 1, "3|f");
    push(&tb, sr, 1, "3|w");
    assert_string_equal(step(&tb), "I 3|f|3|w");
    /* a duplicate table row joins twice, a duplicate stream row twice */
    push(&tb, sr, 1, "3|w");
    push(&tb, sl, 1, "3|g");
    push(&tb, sl, 1, "3|g");
    assert_string_equal(step(&tb), "I 3|g|3|w; I 3|g|3|w; I 3|g|3|w; I 3|g|3|w");
    /* the state is the table side only: 1|z and 3|w (its multiplicity 2) */
    assert_int_equal(stat_entries(&tb, "j/op2/table", NULL), 2);
    assert_int_equal(stat_entries(&tb, "j/op2/left", NULL), -1);
    assert_int_equal(tb.ndead, 0);
    tb_fini(&tb);
}

static void test_lookup_left(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr;
    lookup_model(&tb, JOIN_LEFT, &sl, &sr, NULL);
    start(&tb);
    push(&tb, sl, 1, "1|a");
    assert_string_equal(step(&tb), "I 1|a|NULL|NULL");
    /* the match that arrives later does not retract the padded row */
    push(&tb, sr, 1, "1|x");
    assert_string_equal(step(&tb), "");
    push(&tb, sl, 1, "1|b");
    push(&tb, sl, 1, "NULL|c");
    push(&tb, sl, 1, "2|d");
    assert_string_equal(step(&tb), "I 1|b|1|x; I 2|d|NULL|NULL; I NULL|c|NULL|NULL");
    /* nor does its deletion re-emit anything */
    push(&tb, sr, -1, "1|x");
    assert_string_equal(step(&tb), "");
    push(&tb, sl, 1, "1|e");
    assert_string_equal(step(&tb), "I 1|e|NULL|NULL");
    tb_fini(&tb);
}

/* LEFT lookup with a residual predicate a < b: a row no table row passes is padded */
static void test_lookup_left_residual(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr;
    Expr *pred = eop(&tb, OP_LT, T(T_BOOL), ecol(&tb, 1, T(T_TEXT)), ecol(&tb, 3, T(T_TEXT)));
    lookup_model(&tb, JOIN_LEFT, &sl, &sr, pred);
    start(&tb);
    push(&tb, sr, 1, "1|m");
    push(&tb, sr, 1, "1|q");
    step(&tb);
    push(&tb, sl, 1, "1|a");
    push(&tb, sl, 1, "1|n");
    push(&tb, sl, 1, "1|z");
    assert_string_equal(step(&tb), "I 1|a|1|m; I 1|a|1|q; I 1|n|1|q; I 1|z|NULL|NULL");
    tb_fini(&tb);
}

/* a retraction of a stream row cannot be matched with what it joined: the step fails */
static void test_lookup_stream_retraction_fails(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr;
    lookup_model(&tb, JOIN_INNER, &sl, &sr, NULL);
    start(&tb);
    push(&tb, sl, -1, "1|a");
    char err[256] = "";
    assert_false(eng_step(tb.p, err, sizeof err));
    assert_non_null(strstr(err, "retraction on the stream input of lookup"));
    tb_fini(&tb);
}

static void test_lookup_checkpoint(void **state)
{
    (void)state;
    TB t1, t2;
    TB *tbs[2] = {&t1, &t2};
    int sl = 0, sr = 0, jidx = 0;
    for (int i = 0; i < 2; i++) {
        tb_init(tbs[i]);
        jidx = lookup_model(tbs[i], JOIN_LEFT, &sl, &sr, NULL)->index;
        start(tbs[i]);
    }
    push(&t1, sr, 1, "1|x");
    push(&t1, sr, 1, "1|x");
    push(&t1, sr, 1, "2|y");
    push(&t1, sr, 1, "3|gone");
    push(&t1, sl, 1, "1|a");
    step(&t1);
    push(&t1, sr, -1, "3|gone");
    step(&t1);
    roundtrip(&t1, &t2, jidx);
    assert_int_equal(stat_entries(&t2, "j/op2/table", NULL), 2);
    for (int i = 0; i < 2; i++) {
        push(tbs[i], sl, 1, "1|b");
        push(tbs[i], sl, 1, "2|c");
        push(tbs[i], sl, 1, "3|d");
    }
    char *r1 = xstrdup(step(&t1));
    assert_string_equal(r1, step(&t2));
    assert_string_equal(r1, "I 1|b|1|x; I 1|b|1|x; I 2|c|2|y; I 3|d|NULL|NULL");
    free(r1);
    tb_fini(&t1);
    tb_fini(&t2);
}

/* ---- batch sizes: the same inputs in steps of 1, 7 and 4096 rows ---- */

enum { NT = 60, NS = 400, NKEYS = 12 };

typedef struct TRow { int k, v, w; } TRow;

static void fmt_kv(char *buf, size_t n, int k, const char *tag, int v)
{
    if (k < 0) snprintf(buf, n, "NULL|%s%d", tag, v);
    else snprintf(buf, n, "%d|%s%d", k, tag, v);
}

/* Feed rows [0, n) of one side in steps of `batch` rows. */
static void feed(Rnd *rd, int s, const TRow *rows, int n, const char *tag, int batch)
{
    char buf[64];
    for (int i = 0; i < n;) {
        for (int c = 0; c < batch && i < n; c++, i++) {
            fmt_kv(buf, sizeof buf, rows[i].k, tag, rows[i].v);
            push(&rd->tb, s, rows[i].w, buf);
        }
        char err[256] = "";
        if (!eng_step(rd->tb.p, err, sizeof err)) fail_msg("step: %s", err);
    }
}

/* The brute-force answer of stream rows s against the table `tab` (multiplicities per
 * row), LEFT: every pair, or the padded row. */
static void expect_rows(MS *want, const TRow *s, int ns, const TRow *tab, int nt)
{
    char buf[128];
    for (int i = 0; i < ns; i++) {
        int matched = 0;
        for (int t = 0; t < nt && s[i].k >= 0; t++) {
            if (tab[t].k != s[i].k || tab[t].w <= 0) continue;
            matched += tab[t].w;
            snprintf(buf, sizeof buf, "%d|a%d|%d|b%d", s[i].k, s[i].v, tab[t].k, tab[t].v);
            ms_add(want, buf, tab[t].w);
        }
        if (matched) continue;
        if (s[i].k < 0) snprintf(buf, sizeof buf, "NULL|a%d|NULL|NULL", s[i].v);
        else snprintf(buf, sizeof buf, "%d|a%d|NULL|NULL", s[i].k, s[i].v);
        ms_add(want, buf, 1);
    }
}

static void test_lookup_batch_sizes(void **state)
{
    (void)state;
    /* the table (distinct rows, some keys several times, some NULL), two stream runs,
     * and between them a change of the table: half its rows deleted, new ones added */
    static TRow tab[NT], change[NT], tab2[2 * NT], s1[NS], s2[NS];
    uint64_t seed = 0x6c6f6f6b7570ull;
    for (int i = 0; i < NT; i++) tab[i] = (TRow){(int)(rng_next(&seed) % (NKEYS + 1)) - 1, i, 1};
    int nc = 0, nt2 = 0;
    for (int i = 0; i < NT; i++) {
        if (i % 2) change[nc++] = (TRow){tab[i].k, tab[i].v, -1};
        else tab2[nt2++] = tab[i];
    }
    for (int i = 0; i < NT / 2; i++) {
        TRow r = {(int)(rng_next(&seed) % (NKEYS + 1)) - 1, NT + i, 1};
        change[nc++] = r;
        tab2[nt2++] = r;
    }
    for (int i = 0; i < NS; i++) {
        s1[i] = (TRow){(int)(rng_next(&seed) % (NKEYS + 2)) - 1, i, 1};
        s2[i] = (TRow){(int)(rng_next(&seed) % (NKEYS + 2)) - 1, NS + i, 1};
    }
    MS want = {0};
    expect_rows(&want, s1, NS, tab, NT);
    expect_rows(&want, s2, NS, tab2, nt2);
    const int sizes[3] = {1, 7, 4096};
    for (int b = 0; b < 3; b++) {
        Rnd *rd = calloc(1, sizeof *rd);
        tb_init(&rd->tb);
        int sl, sr;
        lookup_model(&rd->tb, JOIN_LEFT, &sl, &sr, NULL);
        EngOptions o = {0};
        o.listener = rnd_listener;
        o.listener_ctx = rd;
        char err[256] = "";
        rd->tb.p = eng_pipeline_new(&rd->tb.g, &o, err, sizeof err);
        if (!rd->tb.p) fail_msg("pipeline: %s", err);
        feed(rd, sr, tab, NT, "b", sizes[b]);
        feed(rd, sl, s1, NS, "a", sizes[b]);
        feed(rd, sr, change, nc, "b", sizes[b]);
        feed(rd, sl, s2, NS, "a", sizes[b]);
        if (!ms_equal(&rd->view, &want)) fail_msg("batch size %d: the lookup's rows differ from the brute force", sizes[b]);
        for (int i = 0; i < rd->view.n; i++)
            if (rd->view.c[i] < 0) fail_msg("batch size %d: a retraction in the output", sizes[b]);
        ms_free(&rd->view);
        tb_fini(&rd->tb);
        free(rd);
    }
    ms_free(&want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_inner),
        cmocka_unit_test(test_lookup_left),
        cmocka_unit_test(test_lookup_left_residual),
        cmocka_unit_test(test_lookup_stream_retraction_fails),
        cmocka_unit_test(test_lookup_checkpoint),
        cmocka_unit_test(test_lookup_batch_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
