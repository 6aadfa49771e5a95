/* Unit tests of event-time windows (src/engine/op_window_tvf.c,
 * op_window_aggregate.c) and running OVER aggregates (op_over_agg.c): TUMBLE / HOP /
 * SESSION aggregates emitting when the watermark passes window_end and closing at the
 * end of input, state freed per window, late rows dead-lettered, sessions under
 * retractions, window TVFs read directly, running sums with RANGE peers and ROWS
 * frames, and checkpoint round trips. */
#include "test_engine_util.h"

#define MIN_US 60000000LL

/* events(k, v, t) -> TVF -> GROUP BY window_start, window_end, k: COUNT(*), SUM(v). */
static IrNode *build_window_agg(TB *tb, WindowTvfKind kind, int64_t size, int64_t slide, int64_t gap,
                                ChangelogMode mode, int *s_out)
{
    int s = add_source(tb, "ev", "k:i8,v:i8,t:ts", mode == CL_INSERT_ONLY ? FMT_JSON : FMT_CHANGELOG_JSON, -1);
    int m = add_model(tb, "w");
    IrNode *src = n_source(tb, m, s, mode);
    IrNode *tvf = n_tvf(tb, m, src, kind, 2, size, slide, gap);
    Expr *g[3] = {ecol(tb, 3, T(T_TIMESTAMP)), ecol(tb, 4, T(T_TIMESTAMP)), ecol(tb, 0, T(T_INT8))};
    const char *gn[3] = {"window_start", "window_end", "k"};
    AggDef aggs[2] = {
        {AGG_COUNT_STAR, NULL, false, NULL, T(T_INT8), "n"},
        {AGG_SUM, ecol(tb, 1, T(T_INT8)), false, NULL, type_numeric(-1, -1), "s"},
    };
    IrNode *a = n_wagg(tb, m, tvf, g, gn, 3, aggs, 2, 0, 1);
    set_root(tb, m, a, NULL, -1);
    *s_out = s;
    return a;
}

static void test_tumble(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_window_agg(&tb, WTVF_TUMBLE, 10 * MIN_US, 10 * MIN_US, 0, CL_INSERT_ONLY, &s);
    start(&tb);
    push(&tb, s, 1, "1|10|2024-01-01 10:01:00");
    push(&tb, s, 1, "1|5|2024-01-01 10:09:59.999999");
    push(&tb, s, 1, "2|7|2024-01-01 10:02:00");
    push(&tb, s, 1, "1|1|2024-01-01 10:10:00");
    assert_string_equal(step(&tb), "");
    assert_int_equal(stat_entries(&tb, "w/aggregate0", NULL), 3);
    wm(&tb, s, "2024-01-01 10:09:59");
    assert_string_equal(step(&tb), "");
    /* the watermark reaches window_end: the window's rows, once */
    wm(&tb, s, "2024-01-01 10:10:00");
    assert_string_equal(step(&tb), "I 2024-01-01 10:00:00|2024-01-01 10:10:00|1|2|15; "
                                   "I 2024-01-01 10:00:00|2024-01-01 10:10:00|2|1|7");
    assert_int_equal(stat_entries(&tb, "w/aggregate0", NULL), 1);
    assert_string_equal(step(&tb), "");
    /* a row for the closed window is late; one for an open window counts */
    push(&tb, s, 1, "3|1|2024-01-01 10:05:00");
    push(&tb, s, 1, "3|2|2024-01-01 10:15:00");
    assert_string_equal(step(&tb), "");
    assert_int_equal(tb.ndead, 1);
    assert_string_equal(sb_cstr(&tb.dl), "w: late [3|1|2024-01-01 10:05:00|2024-01-01 10:00:00|2024-01-01 10:10:00]");
    /* the source ends: every window closes */
    wm(&tb, s, "end");
    assert_string_equal(step(&tb), "I 2024-01-01 10:10:00|2024-01-01 10:20:00|1|1|1; "
                                   "I 2024-01-01 10:10:00|2024-01-01 10:20:00|3|1|2");
    assert_int_equal(stat_entries(&tb, "w/aggregate0", NULL), 0);
    int64_t bytes = -1;
    stat_entries(&tb, "w/aggregate0", &bytes);
    assert_true(bytes >= 0);
    tb_fini(&tb);
}

/* Windows before the epoch and rows on a boundary. */
static void test_tumble_boundaries(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_window_agg(&tb, WTVF_TUMBLE, 60 * MIN_US, 60 * MIN_US, 0, CL_INSERT_ONLY, &s);
    start(&tb);
    push(&tb, s, 1, "1|1|1969-12-31 23:30:00");
    push(&tb, s, 1, "1|2|1970-01-01 00:00:00");
    wm(&tb, s, "end");
    assert_string_equal(step(&tb), "I 1969-12-31 23:00:00|1970-01-01 00:00:00|1|1|1; "
                                   "I 1970-01-01 00:00:00|1970-01-01 01:00:00|1|1|2");
    tb_fini(&tb);
}

static void test_hop(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_window_agg(&tb, WTVF_HOP, 10 * MIN_US, 5 * MIN_US, 0, CL_INSERT_ONLY, &s);
    start(&tb);
    push(&tb, s, 1, "1|1|2024-01-01 10:07:00");
    push(&tb, s, 1, "1|2|2024-01-01 10:12:00");
    wm(&tb, s, "2024-01-01 10:10:00");
    assert_string_equal(step(&tb), "I 2024-01-01 10:00:00|2024-01-01 10:10:00|1|1|1");
    /* late for [10:05, 10:15)? no: still open; late for [10:00, 10:10): yes */
    push(&tb, s, 1, "1|4|2024-01-01 10:09:00");
    wm(&tb, s, "2024-01-01 10:15:00");
    assert_string_equal(step(&tb), "I 2024-01-01 10:05:00|2024-01-01 10:15:00|1|3|7");
    assert_int_equal(tb.ndead, 1);
    assert_non_null(strstr(sb_cstr(&tb.dl), "late [1|4|2024-01-01 10:09:00|2024-01-01 10:00:00|2024-01-01 10:10:00]"));
    wm(&tb, s, "end");
    assert_string_equal(step(&tb), "I 2024-01-01 10:10:00|2024-01-01 10:20:00|1|1|2");
    tb_fini(&tb);
}

/* A window aggregate over an updating input: retractions before the window closes. */
static void test_tumble_retractions(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_window_agg(&tb, WTVF_TUMBLE, 10 * MIN_US, 10 * MIN_US, 0, CL_RETRACT, &s);
    start(&tb);
    push(&tb, s, 1, "1|10|2024-01-01 10:01:00");
    push(&tb, s, 1, "2|10|2024-01-01 10:01:00");
    step(&tb);
    push(&tb, s, -1, "1|10|2024-01-01 10:01:00");
    push(&tb, s, 1, "1|11|2024-01-01 10:02:00");
    push(&tb, s, -1, "2|10|2024-01-01 10:01:00");
    step(&tb);
    wm(&tb, s, "2024-01-01 10:10:00");
    assert_string_equal(step(&tb), "I 2024-01-01 10:00:00|2024-01-01 10:10:00|1|1|11");
    /* retracting a row of a closed window is late too */
    push(&tb, s, -1, "1|11|2024-01-01 10:02:00");
    assert_string_equal(step(&tb), "");
    assert_int_equal(tb.ndead, 1);
    tb_fini(&tb);
}

static void test_session(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_window_agg(&tb, WTVF_SESSION, 0, 0, 5 * MIN_US, CL_INSERT_ONLY, &s);
    start(&tb);
    push(&tb, s, 1, "1|1|2024-01-01 10:00:00");
    push(&tb, s, 1, "1|2|2024-01-01 10:03:00");
    push(&tb, s, 1, "2|5|2024-01-01 10:01:00");
    push(&tb, s, 1, "1|4|2024-01-01 10:20:00");
    assert_string_equal(step(&tb), "");
    assert_int_equal(stat_entries(&tb, "w/aggregate0", NULL), 4);
    wm(&tb, s, "2024-01-01 10:07:59");
    assert_string_equal(step(&tb), "I 2024-01-01 10:01:00|2024-01-01 10:06:00|2|1|5");
    /* an event just before the open session's end extends it */
    push(&tb, s, 1, "1|8|2024-01-01 10:07:30");
    wm(&tb, s, "2024-01-01 10:12:00");
    assert_string_equal(step(&tb), "");
    wm(&tb, s, "2024-01-01 10:12:30");
    assert_string_equal(step(&tb), "I 2024-01-01 10:00:00|2024-01-01 10:12:30|1|3|11");
    /* late: before the end of the emitted session of its key; or its own session is
     * closed and it touches no open one */
    push(&tb, s, 1, "1|1|2024-01-01 10:12:00");
    push(&tb, s, 1, "3|1|2024-01-01 10:07:00");
    /* accepted: its own session is closed but it reaches the open 10:20 session */
    wm(&tb, s, "2024-01-01 10:21:00");
    step(&tb);
    push(&tb, s, 1, "1|16|2024-01-01 10:15:30");
    assert_string_equal(step(&tb), "");
    assert_int_equal(tb.ndead, 2);
    assert_string_equal(sb_cstr(&tb.dl), "w: late [1|1|2024-01-01 10:12:00|NULL|NULL]; "
                                         "w: late [3|1|2024-01-01 10:07:00|NULL|NULL]");
    wm(&tb, s, "end");
    assert_string_equal(step(&tb), "I 2024-01-01 10:15:30|2024-01-01 10:25:00|1|2|20");
    assert_int_equal(stat_entries(&tb, "w/aggregate0", NULL), 0);
    step(&tb);
    tb_fini(&tb);
}

/* Retracting the event that bridged two parts of a session splits it. */
static void test_session_retraction_splits(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_window_agg(&tb, WTVF_SESSION, 0, 0, 5 * MIN_US, CL_RETRACT, &s);
    start(&tb);
    push(&tb, s, 1, "1|1|2024-01-01 10:00:00");
    push(&tb, s, 1, "1|2|2024-01-01 10:04:00");
    push(&tb, s, 1, "1|3|2024-01-01 10:08:00");
    step(&tb);
    push(&tb, s, -1, "1|2|2024-01-01 10:04:00");
    wm(&tb, s, "2024-01-01 10:05:00");
    assert_string_equal(step(&tb), "I 2024-01-01 10:00:00|2024-01-01 10:05:00|1|1|1");
    wm(&tb, s, "end");
    assert_string_equal(step(&tb), "I 2024-01-01 10:08:00|2024-01-01 10:13:00|1|1|3");
    tb_fini(&tb);
}

/* Window aggregate checkpoints: TUMBLE groups and SESSION events. */
static void test_window_serialize(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        TB t1, t2;
        TB *tbs[2] = {&t1, &t2};
        int s = 0;
        IrNode *a = NULL;
        for (int i = 0; i < 2; i++) {
            tb_init(tbs[i]);
            a = kind == 0 ? build_window_agg(tbs[i], WTVF_TUMBLE, 10 * MIN_US, 10 * MIN_US, 0, CL_INSERT_ONLY, &s)
                          : build_window_agg(tbs[i], WTVF_SESSION, 0, 0, 5 * MIN_US, CL_INSERT_ONLY, &s);
            start(tbs[i]);
        }
        push(&t1, s, 1, "1|10|2024-01-01 10:01:00");
        push(&t1, s, 1, "1|5|2024-01-01 10:03:00");
        push(&t1, s, 1, "2|7|2024-01-01 10:12:00");
        push(&t1, s, 1, "NULL|NULL|2024-01-01 10:13:00");
        step(&t1);
        wm(&t1, s, "2024-01-01 10:05:00");
        step(&t1);
        roundtrip(&t1, &t2, a->index);
        for (int i = 0; i < 2; i++) {
            push(tbs[i], s, 1, "1|1|2024-01-01 10:14:00");
            wm(tbs[i], s, "end");
        }
        char *r1 = xstrdup(step(&t1));
        assert_string_equal(r1, step(&t2));
        assert_string_equal(r1, kind == 0 ? "I 2024-01-01 10:00:00|2024-01-01 10:10:00|1|2|15; "
                                            "I 2024-01-01 10:10:00|2024-01-01 10:20:00|1|1|1; "
                                            "I 2024-01-01 10:10:00|2024-01-01 10:20:00|2|1|7; "
                                            "I 2024-01-01 10:10:00|2024-01-01 10:20:00|NULL|1|NULL"
                                          : "I 2024-01-01 10:01:00|2024-01-01 10:08:00|1|2|15; "
                                            "I 2024-01-01 10:12:00|2024-01-01 10:17:00|2|1|7; "
                                            "I 2024-01-01 10:13:00|2024-01-01 10:18:00|NULL|1|NULL; "
                                            "I 2024-01-01 10:14:00|2024-01-01 10:19:00|1|1|1");
        free(r1);
        tb_fini(&t1);
        tb_fini(&t2);
    }
}

/* TVFs read directly: TUMBLE through a filter, HOP rows, SESSION rejected. */
static void test_tvf_direct(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "ev", "k:i8,t:ts", FMT_JSON, -1);
    int m = add_model(&tb, "w");
    IrNode *src = n_source(&tb, m, s, CL_INSERT_ONLY);
    IrNode *hop = n_tvf(&tb, m, src, WTVF_HOP, 1, 10 * MIN_US, 5 * MIN_US, 0);
    IrNode *f = n_filter(&tb, m, hop, eop(&tb, OP_GT, T(T_BOOL), ecol(&tb, 0, T(T_INT8)), eint(&tb, 0, T(T_INT8))));
    set_root(&tb, m, f, NULL, -1);
    start(&tb);
    push(&tb, s, 1, "1|2024-01-01 10:07:00");
    push(&tb, s, 1, "0|2024-01-01 10:07:00");
    push(&tb, s, 1, "2|NULL");
    assert_string_equal(step(&tb), "I 1|2024-01-01 10:07:00|2024-01-01 10:00:00|2024-01-01 10:10:00; "
                                   "I 1|2024-01-01 10:07:00|2024-01-01 10:05:00|2024-01-01 10:15:00");
    assert_string_equal(sb_cstr(&tb.dl), "w: event time is NULL [2|NULL]");
    tb_fini(&tb);

    tb_init(&tb);
    s = add_source(&tb, "ev", "k:i8,t:ts", FMT_JSON, -1);
    m = add_model(&tb, "w");
    src = n_source(&tb, m, s, CL_INSERT_ONLY);
    IrNode *sess = n_tvf(&tb, m, src, WTVF_SESSION, 1, 0, 0, MIN_US);
    set_root(&tb, m, sess, NULL, -1);
    char err[256] = "";
    EngOptions o = {0};
    assert_null(eng_pipeline_new(&tb.g, &o, err, sizeof err));
    assert_non_null(strstr(err, "SESSION windows are only supported under a window aggregate"));
    tb_fini(&tb);
}

/* ---------- OVER aggregates ---------- */

static IrNode *build_over(TB *tb, bool rows, int *s_out)
{
    int s = add_source(tb, "ev", "k:i8,v:i8,t:ts", FMT_JSON, -1);
    int m = add_model(tb, "o");
    IrNode *src = n_source(tb, m, s, CL_INSERT_ONLY);
    int part[1] = {0};
    AggDef aggs[2] = {
        {AGG_SUM, ecol(tb, 1, T(T_INT8)), false, NULL, type_numeric(-1, -1), "running"},
        {AGG_COUNT_STAR, NULL, false, NULL, T(T_INT8), "n"},
    };
    IrNode *o = n_over(tb, m, src, part, 1, 2, aggs, 2, rows);
    set_root(tb, m, o, NULL, -1);
    *s_out = s;
    return o;
}

static void test_over_running_sum(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_over(&tb, false, &s);
    start(&tb);
    push(&tb, s, 1, "1|10|2024-01-01 10:00:02");
    push(&tb, s, 1, "1|5|2024-01-01 10:00:01");
    push(&tb, s, 1, "2|7|2024-01-01 10:00:01");
    push(&tb, s, 1, "1|1|2024-01-01 10:00:02");
    assert_string_equal(step(&tb), "");
    /* the watermark passes 10:00:01 only: 10:00:02 rows wait for their peers */
    wm(&tb, s, "2024-01-01 10:00:02");
    assert_string_equal(step(&tb), "I 1|5|2024-01-01 10:00:01|5|1; I 2|7|2024-01-01 10:00:01|7|1");
    push(&tb, s, 1, "1|100|2024-01-01 10:00:02");
    wm(&tb, s, "2024-01-01 10:00:03");
    /* peers (equal time) share the value that includes all of them */
    assert_string_equal(step(&tb), "I 1|1|2024-01-01 10:00:02|116|4; I 1|10|2024-01-01 10:00:02|116|4; "
                                   "I 1|100|2024-01-01 10:00:02|116|4");
    push(&tb, s, 1, "1|3|2024-01-01 10:00:01");
    push(&tb, s, 1, "2|3|2024-01-01 10:00:05");
    assert_string_equal(step(&tb), "");
    assert_string_equal(sb_cstr(&tb.dl), "o: late [1|3|2024-01-01 10:00:01]");
    wm(&tb, s, "end");
    assert_string_equal(step(&tb), "I 2|3|2024-01-01 10:00:05|10|2");
    tb_fini(&tb);
}

/* ROWS BETWEEN 1 PRECEDING AND CURRENT ROW with sum, max, lag(v, 2, -1), first_value
 * and last_value; the state (kept rows, frame start) survives a checkpoint mid-stream:
 * both pipelines emit the same rows afterwards. */
static void test_over_bounded_rows_lag_serialize(void **state)
{
    (void)state;
    TB t1, t2;
    TB *tbs[2] = {&t1, &t2};
    int s = 0;
    IrNode *o = NULL;
    for (int i = 0; i < 2; i++) {
        TB *tb = tbs[i];
        tb_init(tb);
        s = add_source(tb, "ev", "k:i8,v:i8,t:ts", FMT_JSON, -1);
        int m = add_model(tb, "o");
        IrNode *src = n_source(tb, m, s, CL_INSERT_ONLY);
        int part[1] = {0};
        AggDef aggs[5] = {
            {AGG_SUM, ecol(tb, 1, T(T_INT8)), false, NULL, type_numeric(-1, -1), "s"},
            {AGG_MAX, ecol(tb, 1, T(T_INT8)), false, NULL, T(T_INT8), "mx"},
            {AGG_LAG, ecol(tb, 1, T(T_INT8)), false, NULL, T(T_INT8), "prev2"},
            {AGG_FIRST_VALUE, ecol(tb, 1, T(T_INT8)), false, NULL, T(T_INT8), "fv"},
            {AGG_LAST_VALUE, ecol(tb, 1, T(T_INT8)), false, NULL, T(T_INT8), "lv"},
        };
        o = n_over(tb, m, src, part, 1, 2, aggs, 5, true);
        o->plan->frame_offset = 1;
        o->plan->aggs[2].offset = 2;
        o->plan->aggs[2].dflt = eint(tb, -1, T(T_INT8));
        set_root(tb, m, o, NULL, -1);
        start(tb);
    }
    push(&t1, s, 1, "1|10|2024-01-01 10:00:01");
    push(&t1, s, 1, "1|30|2024-01-01 10:00:02");
    push(&t1, s, 1, "2|5|2024-01-01 10:00:02");
    wm(&t1, s, "2024-01-01 10:00:03");
    /* frame of the second row: {10, 30}; lag 2 does not exist yet: the default */
    assert_string_equal(step(&t1), "I 1|10|2024-01-01 10:00:01|10|10|-1|10|10; I 1|30|2024-01-01 10:00:02|40|30|-1|10|30; "
                                   "I 2|5|2024-01-01 10:00:02|5|5|-1|5|5");
    roundtrip(&t1, &t2, o->index);
    for (int i = 0; i < 2; i++) {
        push(tbs[i], s, 1, "1|20|2024-01-01 10:00:04");
        push(tbs[i], s, 1, "1|1|2024-01-01 10:00:05");
        wm(tbs[i], s, "end");
    }
    char *r1 = xstrdup(step(&t1));
    assert_string_equal(r1, step(&t2));
    /* the 10 left the frame: max falls back to 30, then to 20 */
    assert_string_equal(r1, "I 1|1|2024-01-01 10:00:05|21|20|30|20|1; I 1|20|2024-01-01 10:00:04|50|30|10|30|20");
    free(r1);
    tb_fini(&t1);
    tb_fini(&t2);
}

static void test_over_rows_frame_and_serialize(void **state)
{
    (void)state;
    TB t1, t2;
    TB *tbs[2] = {&t1, &t2};
    int s = 0;
    IrNode *o = NULL;
    for (int i = 0; i < 2; i++) {
        tb_init(tbs[i]);
        o = build_over(tbs[i], true, &s);
        start(tbs[i]);
    }
    push(&t1, s, 1, "1|10|2024-01-01 10:00:02");
    push(&t1, s, 1, "1|1|2024-01-01 10:00:02");
    push(&t1, s, 1, "1|1|2024-01-01 10:00:02");
    push(&t1, s, 1, "1|5|2024-01-01 10:00:01");
    wm(&t1, s, "2024-01-01 10:00:02");
    assert_string_equal(step(&t1), "I 1|5|2024-01-01 10:00:01|5|1");
    roundtrip(&t1, &t2, o->index);
    /* ROWS: peers count in arrival order (identical copies one after the other) */
    for (int i = 0; i < 2; i++) wm(tbs[i], s, "end");
    char *r1 = xstrdup(step(&t1));
    assert_string_equal(r1, step(&t2));
    assert_string_equal(r1, "I 1|1|2024-01-01 10:00:02|16|3; I 1|1|2024-01-01 10:00:02|17|4; "
                            "I 1|10|2024-01-01 10:00:02|15|2");
    free(r1);
    tb_fini(&t1);
    tb_fini(&t2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tumble),
        cmocka_unit_test(test_tumble_boundaries),
        cmocka_unit_test(test_hop),
        cmocka_unit_test(test_tumble_retractions),
        cmocka_unit_test(test_session),
        cmocka_unit_test(test_session_retraction_splits),
        cmocka_unit_test(test_window_serialize),
        cmocka_unit_test(test_tvf_direct),
        cmocka_unit_test(test_over_running_sum),
        cmocka_unit_test(test_over_rows_frame_and_serialize),
        cmocka_unit_test(test_over_bounded_rows_lag_serialize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
