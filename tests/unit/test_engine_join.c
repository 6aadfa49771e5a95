/* Unit tests of the join operator (src/engine/op_join.c): inner/outer/semi/anti joins
 * under insertions, updates and deletions on both sides (NULL-padded rows emitted and
 * retracted at the right moments, NULL keys, residual predicates, duplicates),
 * null-aware NOT IN, cross joins, interval and window joins freeing state by
 * watermark and dead-lettering late rows, checkpoints, and a randomized comparison of
 * every join type against a brute-force recomputation. Also the set operations
 * (op_setop.c) under retractions, checked the same way. */
#include "test_engine_util.h"

static Expr *einterval(TB *tb, int64_t us)
{
    Expr *e = ex(tb, EX_CONST, T(T_INTERVAL));
    e->cval = value_interval(0, 0, us);
    return e;
}

/* Two keyless retracting sources l(k, a) and r(k, b) with the given column types. */
static void two_sources(TB *tb, const char *lspec, const char *rspec, int *sl, int *sr, IrNode **l, IrNode **r, int *m)
{
    *sl = add_source(tb, "l", lspec, FMT_CHANGELOG_JSON, -1);
    *sr = add_source(tb, "r", rspec, FMT_CHANGELOG_JSON, -1);
    *m = add_model(tb, "j");
    *l = n_source(tb, *m, *sl, CL_RETRACT);
    *r = n_source(tb, *m, *sr, CL_RETRACT);
}

static void test_inner_join(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr, m;
    IrNode *l, *r;
    two_sources(&tb, "k:i8,a:txt", "k:i8,b:txt", &sl, &sr, &l, &r, &m);
    int k0[1] = {0};
    IrNode *j = n_join(&tb, m, l, r, JOIN_INNER, k0, k0, 1, NULL);
    set_root(&tb, m, j, NULL, -1);
    start(&tb);
    push(&tb, sl, 1, "1|a");
    assert_string_equal(step(&tb), "");
    push(&tb, sr, 1, "1|x");
    assert_string_equal(step(&tb), "I 1|a|1|x");
    push(&tb, sr, 1, "1|y");
    assert_string_equal(step(&tb), "I 1|a|1|y");
    push(&tb, sl, 1, "1|b");
    assert_string_equal(step(&tb), "I 1|b|1|x; I 1|b|1|y");
    push(&tb, sl, -1, "1|a");
    assert_string_equal(step(&tb), "D 1|a|1|x; D 1|a|1|y");
    /* an update on the right: -old +new */
    push(&tb, sr, -1, "1|x");
    push(&tb, sr, 1, "1|z");
    assert_string_equal(step(&tb), "D 1|b|1|x; I 1|b|1|z");
    /* NULL keys never match */
    push(&tb, sl, 1, "NULL|n");
    push(&tb, sr, 1, "NULL|m");
    assert_string_equal(step(&tb), "");
    /* both sides in one step; a duplicate left row joins twice */
    push(&tb, sl, 1, "2|c");
    push(&tb, sr, 1, "2|w");
    assert_string_equal(step(&tb), "I 2|c|2|w");
    push(&tb, sl, 1, "2|c");
    assert_string_equal(step(&tb), "I 2|c|2|w");
    push(&tb, sr, -1, "2|w");
    assert_string_equal(step(&tb), "D 2|c|2|w; D 2|c|2|w");
    /* insert and delete within one step: nothing */
    push(&tb, sl, 1, "1|q");
    push(&tb, sl, -1, "1|q");
    assert_string_equal(step(&tb), "");
    /* a retraction ahead of its insertion within a step is still exact */
    push(&tb, sr, -1, "1|v");
    push(&tb, sr, 1, "1|v");
    assert_string_equal(step(&tb), "");
    assert_int_equal(stat_entries(&tb, "j/op2/left", NULL), 2);  /* 1|b, 2|c (x2) */
    assert_int_equal(stat_entries(&tb, "j/op2/right", NULL), 2); /* 1|y, 1|z */
    assert_int_equal(tb.ndead, 0);
    tb_fini(&tb);
}

static void test_left_join(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr, m;
    IrNode *l, *r;
    two_sources(&tb, "k:i8,a:txt", "k:i8,b:txt", &sl, &sr, &l, &r, &m);
    int k0[1] = {0};
    IrNode *j = n_join(&tb, m, l, r, JOIN_LEFT, k0, k0, 1, NULL);
    set_root(&tb, m, j, NULL, -1);
    start(&tb);
    push(&tb, sl, 1, "1|a");
    assert_string_equal(step(&tb), "I 1|a|NULL|NULL");
    push(&tb, sr, 1, "1|x");
    assert_string_equal(step(&tb), "D 1|a|NULL|NULL; I 1|a|1|x");
    push(&tb, sr, 1, "1|y");
    assert_string_equal(step(&tb), "I 1|a|1|y");
    push(&tb, sr, -1, "1|x");
    assert_string_equal(step(&tb), "D 1|a|1|x");
    push(&tb, sr, -1, "1|y");
    assert_string_equal(step(&tb), "D 1|a|1|y; I 1|a|NULL|NULL");
    push(&tb, sl, -1, "1|a");
    assert_string_equal(step(&tb), "D 1|a|NULL|NULL");
    /* NULL keys are padded and never stored */
    push(&tb, sl, 1, "NULL|n");
    push(&tb, sr, 1, "NULL|m");
    assert_string_equal(step(&tb), "I NULL|n|NULL|NULL");
    push(&tb, sl, -1, "NULL|n");
    assert_string_equal(step(&tb), "D NULL|n|NULL|NULL");
    /* a match in the same step: the padded row never shows */
    push(&tb, sl, 1, "3|c");
    push(&tb, sr, 1, "3|z");
    assert_string_equal(step(&tb), "I 3|c|3|z");
    /* duplicates: two copies padded, then both matched */
    push(&tb, sl, 1, "4|d");
    push(&tb, sl, 1, "4|d");
    assert_string_equal(step(&tb), "I 4|d|NULL|NULL; I 4|d|NULL|NULL");
    push(&tb, sr, 1, "4|q");
    assert_string_equal(step(&tb), "D 4|d|NULL|NULL; D 4|d|NULL|NULL; I 4|d|4|q; I 4|d|4|q");
    /* the right row's key changes: the left row loses its match */
    push(&tb, sr, -1, "4|q");
    push(&tb, sr, 1, "5|q");
    assert_string_equal(step(&tb), "D 4|d|4|q; D 4|d|4|q; I 4|d|NULL|NULL; I 4|d|NULL|NULL");
    assert_int_equal(stat_entries(&tb, "j/op2/left", NULL), 2);
    assert_int_equal(stat_entries(&tb, "j/op2/right", NULL), 2);
    tb_fini(&tb);
}

/* LEFT join with a residual predicate a < b: unmatched by the predicate = padded. */
static void test_left_join_residual(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr, m;
    IrNode *l, *r;
    two_sources(&tb, "k:i8,a:i8", "k:i8,b:i8", &sl, &sr, &l, &r, &m);
    int k0[1] = {0};
    Expr *pred = eop(&tb, OP_LT, T(T_BOOL), ecol(&tb, 1, T(T_INT8)), ecol(&tb, 3, T(T_INT8)));
    IrNode *j = n_join(&tb, m, l, r, JOIN_LEFT, k0, k0, 1, pred);
    set_root(&tb, m, j, NULL, -1);
    start(&tb);
    push(&tb, sl, 1, "1|5");
    push(&tb, sr, 1, "1|3");
    assert_string_equal(step(&tb), "I 1|5|NULL|NULL");
    push(&tb, sr, 1, "1|7");
    assert_string_equal(step(&tb), "D 1|5|NULL|NULL; I 1|5|1|7");
    push(&tb, sl, 1, "1|9");
    assert_string_equal(step(&tb), "I 1|9|NULL|NULL");
    push(&tb, sr, -1, "1|7");
    push(&tb, sr, 1, "1|10");
    assert_string_equal(step(&tb), "D 1|5|1|7; D 1|9|NULL|NULL; I 1|5|1|10; I 1|9|1|10");
    tb_fini(&tb);

    /* a predicate that fails at runtime counts as no match, in both directions, and
     * reports the probing row */
    tb_init(&tb);
    two_sources(&tb, "k:i8,a:i8", "k:i8,b:i8", &sl, &sr, &l, &r, &m);
    Expr *bad = eop(&tb, OP_LT, T(T_BOOL), eop(&tb, OP_DIV, T(T_INT8), ecol(&tb, 1, T(T_INT8)), ecol(&tb, 3, T(T_INT8))),
                    eint(&tb, 100, T(T_INT8)));
    j = n_join(&tb, m, l, r, JOIN_LEFT, k0, k0, 1, bad);
    set_root(&tb, m, j, NULL, -1);
    start(&tb);
    push(&tb, sl, 1, "1|5");
    push(&tb, sr, 1, "1|0");
    assert_string_equal(step(&tb), "I 1|5|NULL|NULL");
    assert_int_equal(tb.ndead, 1);
    assert_string_equal(sb_cstr(&tb.dl), "j: division by zero [1|0]");
    push(&tb, sr, -1, "1|0");
    push(&tb, sr, 1, "1|1");
    assert_string_equal(step(&tb), "D 1|5|NULL|NULL; I 1|5|1|1");
    assert_int_equal(tb.ndead, 2);
    tb_fini(&tb);
}

static void test_right_full_join(void **state)
{
    (void)state;
    for (int full = 0; full < 2; full++) {
        TB tb;
        tb_init(&tb);
        int sl, sr, m;
        IrNode *l, *r;
        two_sources(&tb, "k:i8,a:txt", "k:i8,b:txt", &sl, &sr, &l, &r, &m);
        int k0[1] = {0};
        IrNode *j = n_join(&tb, m, l, r, full ? JOIN_FULL : JOIN_RIGHT, k0, k0, 1, NULL);
        set_root(&tb, m, j, NULL, -1);
        start(&tb);
        push(&tb, sl, 1, "1|a");
        assert_string_equal(step(&tb), full ? "I 1|a|NULL|NULL" : "");
        push(&tb, sr, 1, "1|x");
        assert_string_equal(step(&tb), full ? "D 1|a|NULL|NULL; I 1|a|1|x" : "I 1|a|1|x");
        push(&tb, sr, 1, "2|y");
        assert_string_equal(step(&tb), "I NULL|NULL|2|y");
        push(&tb, sl, 1, "2|b");
        assert_string_equal(step(&tb), "D NULL|NULL|2|y; I 2|b|2|y");
        push(&tb, sl, -1, "1|a");
        assert_string_equal(step(&tb), "D 1|a|1|x; I NULL|NULL|1|x");
        push(&tb, sr, -1, "1|x");
        assert_string_equal(step(&tb), "D NULL|NULL|1|x");
        /* FULL: a row on each side whose key changes from a match to none */
        push(&tb, sl, -1, "2|b");
        push(&tb, sl, 1, "3|b");
        assert_string_equal(step(&tb), full ? "D 2|b|2|y; I 3|b|NULL|NULL; I NULL|NULL|2|y"
                                            : "D 2|b|2|y; I NULL|NULL|2|y");
        push(&tb, sr, 1, "NULL|z");
        assert_string_equal(step(&tb), "I NULL|NULL|NULL|z");
        tb_fini(&tb);
    }
}

static void test_semi_anti(void **state)
{
    (void)state;
    for (int anti = 0; anti < 2; anti++) {
        TB tb;
        tb_init(&tb);
        int sl, sr, m;
        IrNode *l, *r;
        two_sources(&tb, "k:i8,a:txt", "k:i8", &sl, &sr, &l, &r, &m);
        int k0[1] = {0};
        IrNode *j = n_join(&tb, m, l, r, anti ? JOIN_ANTI : JOIN_SEMI, k0, k0, 1, NULL);
        set_root(&tb, m, j, NULL, -1);
        start(&tb);
        push(&tb, sl, 1, "1|a");
        push(&tb, sl, 1, "2|b");
        push(&tb, sl, 1, "NULL|c");
        assert_string_equal(step(&tb), anti ? "I 1|a; I 2|b; I NULL|c" : "");
        push(&tb, sr, 1, "1");
        assert_string_equal(step(&tb), anti ? "D 1|a" : "I 1|a");
        /* a second matching right row changes nothing (EXISTS, not a count) */
        push(&tb, sr, 1, "1");
        assert_string_equal(step(&tb), "");
        push(&tb, sr, -1, "1");
        assert_string_equal(step(&tb), "");
        push(&tb, sr, -1, "1");
        assert_string_equal(step(&tb), anti ? "I 1|a" : "D 1|a");
        push(&tb, sr, 1, "NULL");
        assert_string_equal(step(&tb), "");
        /* duplicates on the left are kept */
        push(&tb, sl, 1, "2|b");
        push(&tb, sr, 1, "2");
        assert_string_equal(step(&tb), anti ? "D 2|b" : "I 2|b; I 2|b");
        push(&tb, sl, -1, "2|b");
        assert_string_equal(step(&tb), anti ? "" : "D 2|b");
        push(&tb, sl, -1, "NULL|c");
        assert_string_equal(step(&tb), anti ? "D NULL|c" : "");
        tb_fini(&tb);
    }
}

/* NOT IN (PostgreSQL): x NOT IN (SELECT y ...) */
static void test_null_aware_anti(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr, m;
    IrNode *l, *r;
    two_sources(&tb, "x:i8", "y:i8", &sl, &sr, &l, &r, &m);
    int k0[1] = {0};
    IrNode *j = n_join(&tb, m, l, r, JOIN_ANTI, k0, k0, 1, NULL);
    j->plan->null_aware = true;
    set_root(&tb, m, j, NULL, -1);
    start(&tb);
    push(&tb, sl, 1, "1");
    push(&tb, sl, 1, "NULL");
    assert_string_equal(step(&tb), "I 1; I NULL"); /* the subquery is empty */
    push(&tb, sr, 1, "2");
    assert_string_equal(step(&tb), "D NULL"); /* NULL NOT IN (2) is NULL */
    push(&tb, sr, 1, "1");
    assert_string_equal(step(&tb), "D 1");
    push(&tb, sl, 1, "3");
    assert_string_equal(step(&tb), "I 3");
    push(&tb, sr, 1, "NULL");
    assert_string_equal(step(&tb), "D 3"); /* 3 NOT IN (2, 1, NULL) is NULL */
    push(&tb, sl, 1, "4");
    push(&tb, sl, 1, "NULL");
    assert_string_equal(step(&tb), "");
    push(&tb, sr, -1, "NULL");
    assert_string_equal(step(&tb), "I 3; I 4");
    push(&tb, sr, -1, "1");
    push(&tb, sr, -1, "2");
    assert_string_equal(step(&tb), "I 1; I NULL; I NULL");
    tb_fini(&tb);

    /* correlated: pair 1 is a plain equality on g */
    tb_init(&tb);
    two_sources(&tb, "x:i8,g:i8", "y:i8,g:i8", &sl, &sr, &l, &r, &m);
    int k2[2] = {0, 1};
    j = n_join(&tb, m, l, r, JOIN_ANTI, k2, k2, 2, NULL);
    j->plan->null_aware = true;
    set_root(&tb, m, j, NULL, -1);
    start(&tb);
    push(&tb, sl, 1, "1|1");
    push(&tb, sl, 1, "1|2");
    push(&tb, sl, 1, "NULL|2");
    push(&tb, sl, 1, "5|NULL");
    assert_string_equal(step(&tb), "I 1|1; I 1|2; I 5|NULL; I NULL|2");
    push(&tb, sr, 1, "NULL|1"); /* group 1 holds a NULL: every row of group 1 drops */
    assert_string_equal(step(&tb), "D 1|1");
    push(&tb, sr, 1, "7|2");   /* group 2 non-empty: its NULL x drops */
    assert_string_equal(step(&tb), "D NULL|2");
    push(&tb, sr, 1, "1|NULL"); /* g NULL matches no group */
    assert_string_equal(step(&tb), "");
    push(&tb, sr, -1, "NULL|1");
    push(&tb, sr, -1, "7|2");
    assert_string_equal(step(&tb), "I 1|1; I NULL|2");
    tb_fini(&tb);
}

/* A cross join (no keys) LEFT against a one-row input, as for a scalar subquery. */
static void test_cross_join(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr, m;
    IrNode *l, *r;
    two_sources(&tb, "a:i8", "total:i8", &sl, &sr, &l, &r, &m);
    IrNode *j = n_join(&tb, m, l, r, JOIN_LEFT, NULL, NULL, 0, NULL);
    set_root(&tb, m, j, NULL, -1);
    start(&tb);
    push(&tb, sl, 1, "1");
    push(&tb, sl, 1, "2");
    assert_string_equal(step(&tb), "I 1|NULL; I 2|NULL");
    push(&tb, sr, 1, "10");
    assert_string_equal(step(&tb), "D 1|NULL; D 2|NULL; I 1|10; I 2|10");
    push(&tb, sr, -1, "10");
    push(&tb, sr, 1, "20");
    assert_string_equal(step(&tb), "D 1|10; D 2|10; I 1|20; I 2|20");
    push(&tb, sl, 1, "3");
    assert_string_equal(step(&tb), "I 3|20");
    tb_fini(&tb);
}

/* Interval join: l.t BETWEEN r.t - 1h AND r.t (lower -1h, upper 0). */
static void build_interval(TB *tb, JoinType jt, int *sl, int *sr, IrNode **j)
{
    *sl = add_source(tb, "l", "id:i8,t:ts", FMT_JSON, -1);
    *sr = add_source(tb, "r", "id:i8,t:ts", FMT_JSON, -1);
    int m = add_model(tb, "j");
    IrNode *l = n_source(tb, m, *sl, CL_INSERT_ONLY);
    IrNode *r = n_source(tb, m, *sr, CL_INSERT_ONLY);
    int k0[1] = {0};
    const int64_t hour = 3600000000LL;
    Expr *lt = ecol(tb, 1, T(T_TIMESTAMP)), *rt = ecol(tb, 3, T(T_TIMESTAMP));
    Expr *pred = ebool_and(tb, eop(tb, OP_GE, T(T_BOOL), lt, eop(tb, OP_SUB, T(T_TIMESTAMP), rt, einterval(tb, hour))),
                           eop(tb, OP_LE, T(T_BOOL), lt, rt));
    *j = n_join(tb, m, l, r, jt, k0, k0, 1, pred);
    (*j)->plan->interval_join = true;
    (*j)->plan->left_time_col = 1;
    (*j)->plan->right_time_col = 1;
    (*j)->plan->lower_us = -hour;
    (*j)->plan->upper_us = 0;
    (*j)->mode = jt == JOIN_INNER ? CL_INSERT_ONLY : CL_RETRACT;
    set_root(tb, m, *j, NULL, -1);
}

static void test_interval_join(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr;
    IrNode *j;
    build_interval(&tb, JOIN_INNER, &sl, &sr, &j);
    start(&tb);
    push(&tb, sl, 1, "1|2024-01-01 10:00:00");
    push(&tb, sl, 1, "2|2024-01-01 10:20:00");
    push(&tb, sr, 1, "1|2024-01-01 10:30:00");
    push(&tb, sr, 1, "2|2024-01-01 12:00:00");
    assert_string_equal(step(&tb), "I 1|2024-01-01 10:00:00|1|2024-01-01 10:30:00");
    assert_int_equal(stat_entries(&tb, "j/op2/left", NULL), 2);
    assert_int_equal(stat_entries(&tb, "j/op2/right", NULL), 2);
    /* the right watermark passes 11:00: left rows before 10:00 + 1h can no longer match */
    wm(&tb, sr, "2024-01-01 11:10:00");
    step(&tb);
    assert_int_equal(stat_entries(&tb, "j/op2/left", NULL), 1); /* 10:00 freed, 10:20 kept */
    /* the left watermark passes 10:30: right rows at or before it are freed */
    wm(&tb, sl, "2024-01-01 10:40:00");
    step(&tb);
    assert_int_equal(stat_entries(&tb, "j/op2/right", NULL), 1); /* 12:00 kept */
    /* the output watermark is held back by the interval */
    assert_true(eng_pipeline_op(tb.p, j->index)->wm == ts("2024-01-01 10:10:00"));
    /* late: a left row below the left watermark, a right row below the right one */
    push(&tb, sl, 1, "2|2024-01-01 10:35:00");
    push(&tb, sr, 1, "2|2024-01-01 11:00:00");
    assert_string_equal(step(&tb), "");
    assert_int_equal(tb.ndead, 2);
    assert_string_equal(sb_cstr(&tb.dl), "j: late [2|2024-01-01 10:35:00]; j: late [2|2024-01-01 11:00:00]");
    /* a row in time still matches the stored right row */
    push(&tb, sl, 1, "2|2024-01-01 11:30:00");
    assert_string_equal(step(&tb), "I 2|2024-01-01 11:30:00|2|2024-01-01 12:00:00");
    /* end of both inputs: everything is freed */
    wm(&tb, sl, "end");
    wm(&tb, sr, "end");
    step(&tb);
    assert_int_equal(stat_entries(&tb, "j/op2/left", NULL), 0);
    assert_int_equal(stat_entries(&tb, "j/op2/right", NULL), 0);
    int64_t bytes = 0;
    stat_entries(&tb, "j/op2/left", &bytes);
    step(&tb);
    tb_fini(&tb);
}

/* LEFT interval join: the padded row is emitted when the left row dies unmatched. */
static void test_interval_left_join(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl, sr;
    IrNode *j;
    build_interval(&tb, JOIN_LEFT, &sl, &sr, &j);
    start(&tb);
    push(&tb, sl, 1, "1|2024-01-01 10:00:00");
    push(&tb, sl, 1, "2|2024-01-01 10:05:00");
    assert_string_equal(step(&tb), "");
    push(&tb, sr, 1, "2|2024-01-01 10:30:00");
    assert_string_equal(step(&tb), "I 2|2024-01-01 10:05:00|2|2024-01-01 10:30:00");
    wm(&tb, sl, "2024-01-01 10:10:00");
    wm(&tb, sr, "2024-01-01 11:02:00");
    assert_string_equal(step(&tb), "I 1|2024-01-01 10:00:00|NULL|NULL");
    wm(&tb, sr, "end");
    wm(&tb, sl, "end");
    assert_string_equal(step(&tb), "");
    assert_int_equal(stat_entries(&tb, "j/op2/left", NULL), 0);
    tb_fini(&tb);
}

/* Window join: TUMBLE(10 min) on both sides, joined on id and window_end. */
static void test_window_join(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int sl = add_source(&tb, "l", "id:i8,t:ts", FMT_JSON, -1);
    int sr = add_source(&tb, "r", "id:i8,t:ts", FMT_JSON, -1);
    int m = add_model(&tb, "j");
    const int64_t min10 = 600000000LL;
    IrNode *l = n_tvf(&tb, m, n_source(&tb, m, sl, CL_INSERT_ONLY), WTVF_TUMBLE, 1, min10, min10, 0);
    IrNode *r = n_tvf(&tb, m, n_source(&tb, m, sr, CL_INSERT_ONLY), WTVF_TUMBLE, 1, min10, min10, 0);
    int keys[2] = {0, 3};
    IrNode *j = n_join(&tb, m, l, r, JOIN_LEFT, keys, keys, 2, NULL);
    set_root(&tb, m, j, NULL, -1);
    start(&tb);
    push(&tb, sl, 1, "1|2024-01-01 10:01:00");
    push(&tb, sr, 1, "1|2024-01-01 10:09:00");
    push(&tb, sr, 1, "1|2024-01-01 10:11:00");
    assert_string_equal(step(&tb), "I 1|2024-01-01 10:01:00|2024-01-01 10:00:00|2024-01-01 10:10:00|"
                                   "1|2024-01-01 10:09:00|2024-01-01 10:00:00|2024-01-01 10:10:00");
    push(&tb, sl, 1, "2|2024-01-01 10:02:00");
    assert_string_equal(step(&tb), "");
    /* the right side passes 10:10: the left rows of that window die (2 unmatched) */
    wm(&tb, sr, "2024-01-01 10:10:00");
    assert_string_equal(step(&tb), "I 2|2024-01-01 10:02:00|2024-01-01 10:00:00|2024-01-01 10:10:00|NULL|NULL|NULL|NULL");
    assert_int_equal(stat_entries(&tb, "j/op4/left", NULL), 0);
    assert_int_equal(stat_entries(&tb, "j/op4/right", NULL), 2);
    wm(&tb, sl, "2024-01-01 10:10:00");
    step(&tb);
    assert_int_equal(stat_entries(&tb, "j/op4/right", NULL), 1);
    /* a right row for the closed window is late */
    push(&tb, sr, 1, "1|2024-01-01 10:05:00");
    assert_string_equal(step(&tb), "");
    assert_int_equal(tb.ndead, 1);
    assert_non_null(strstr(sb_cstr(&tb.dl), "j: late [1|2024-01-01 10:05:00|"));
    tb_fini(&tb);
}

/* Checkpoint round trip of a FULL join with state on both sides. */
static void test_join_serialize(void **state)
{
    (void)state;
    TB t1, t2;
    TB *tbs[2] = {&t1, &t2};
    int sl = 0, sr = 0, jidx = 0;
    for (int i = 0; i < 2; i++) {
        TB *tb = tbs[i];
        tb_init(tb);
        int m;
        IrNode *l, *r;
        two_sources(tb, "k:i8,a:txt", "k:i8,b:num", &sl, &sr, &l, &r, &m);
        int k0[1] = {0};
        IrNode *j = n_join(tb, m, l, r, JOIN_FULL, k0, k0, 1, NULL);
        jidx = j->index;
        set_root(tb, m, j, NULL, -1);
        start(tb);
    }
    push(&t1, sl, 1, "1|apple");
    push(&t1, sl, 1, "1|apple");
    push(&t1, sl, 1, "2|pear");
    push(&t1, sr, 1, "1|1.50");
    push(&t1, sr, 1, "3|2");
    step(&t1);
    push(&t1, sl, -1, "2|pear");
    step(&t1);
    roundtrip(&t1, &t2, jidx);
    assert_int_equal(stat_entries(&t2, "j/op2/left", NULL), 1);
    assert_int_equal(stat_entries(&t2, "j/op2/right", NULL), 2);
    for (int i = 0; i < 2; i++) {
        push(tbs[i], sr, -1, "1|1.50");
        push(tbs[i], sl, 1, "3|kiwi");
    }
    char *r1 = xstrdup(step(&t1));
    assert_string_equal(r1, step(&t2));
    assert_string_equal(r1, "D 1|apple|1|1.50; D 1|apple|1|1.50; D NULL|NULL|3|2; "
                            "I 1|apple|NULL|NULL; I 1|apple|NULL|NULL; I 3|kiwi|3|2");
    free(r1);
    tb_fini(&t1);
    tb_fini(&t2);
}

/* ---------- randomized comparison with a brute-force join ---------- */

static void fmt_kv(char *buf, size_t n, int k, int v)
{
    if (k < 0) snprintf(buf, n, "NULL|%d", v);
    else snprintf(buf, n, "%d|%d", k, v);
}

static void run_random(JoinType jt, bool with_pred, bool null_aware, uint64_t seed)
{
    Rnd *rd = calloc(1, sizeof *rd);
    TB *tb = &rd->tb;
    tb_init(tb);
    int sl, sr, m;
    IrNode *l, *r;
    two_sources(tb, "k:i8,a:i8", "k:i8,b:i8", &sl, &sr, &l, &r, &m);
    int k0[1] = {0};
    Expr *pred = with_pred ? eop(tb, OP_LE, T(T_BOOL), ecol(tb, 1, T(T_INT8)), ecol(tb, 3, T(T_INT8))) : NULL;
    IrNode *j = n_join(tb, m, l, r, jt, k0, k0, 1, pred);
    j->plan->null_aware = null_aware;
    set_root(tb, m, j, NULL, -1);
    EngOptions o = {0};
    o.listener = rnd_listener;
    o.listener_ctx = rd;
    char err[256] = "";
    tb->p = eng_pipeline_new(&tb->g, &o, err, sizeof err);
    if (!tb->p) fail_msg("pipeline: %s", err);

    enum { NV = 4, MAXROWS = 64 };
    int lrows[MAXROWS][2], rrows[MAXROWS][2], nlr = 0, nrr = 0;
    uint64_t s = seed;
    char buf[64];
    for (int stepn = 0; stepn < 400; stepn++) {
        int nch = 1 + (int)(rng_next(&s) % 3);
        for (int c = 0; c < nch; c++) {
            int side = (int)(rng_next(&s) % 2);
            int (*rows)[2] = side ? rrows : lrows;
            int *nrows = side ? &nrr : &nlr;
            bool del = *nrows > 0 && (rng_next(&s) % 100) < (*nrows > 12 ? 60 : 35);
            if (del) {
                int idx = (int)(rng_next(&s) % (uint64_t)*nrows);
                fmt_kv(buf, sizeof buf, rows[idx][0], rows[idx][1]);
                push(tb, side ? sr : sl, -1, buf);
                rows[idx][0] = rows[*nrows - 1][0];
                rows[idx][1] = rows[*nrows - 1][1];
                (*nrows)--;
            } else if (*nrows < MAXROWS) {
                int k = (int)(rng_next(&s) % (NV + 1)) - 1; /* -1 = NULL */
                int v = (int)(rng_next(&s) % NV);
                rows[*nrows][0] = k;
                rows[*nrows][1] = v;
                (*nrows)++;
                fmt_kv(buf, sizeof buf, k, v);
                push(tb, side ? sr : sl, 1, buf);
            }
        }
        if (!eng_step(tb->p, err, sizeof err)) fail_msg("step: %s", err);

        /* expected: the join recomputed from scratch */
        MS exp = {0};
        char row[128];
        for (int a = 0; a < nlr; a++) {
            int matches = 0;
            for (int b = 0; b < nrr; b++) {
                int lk = lrows[a][0], rk = rrows[b][0];
                bool keq = null_aware ? (lk < 0 || rk < 0 || lk == rk) : (lk >= 0 && rk >= 0 && lk == rk);
                bool ok = keq && (!with_pred || lrows[a][1] <= rrows[b][1]);
                if (!ok) continue;
                matches++;
                if (jt == JOIN_SEMI || jt == JOIN_ANTI) continue;
                char lb[32], rb[32];
                fmt_kv(lb, sizeof lb, lk, lrows[a][1]);
                fmt_kv(rb, sizeof rb, rk, rrows[b][1]);
                snprintf(row, sizeof row, "%s|%s", lb, rb);
                ms_add(&exp, row, 1);
            }
            fmt_kv(row, sizeof row, lrows[a][0], lrows[a][1]);
            if (jt == JOIN_SEMI && matches > 0) ms_add(&exp, row, 1);
            if (jt == JOIN_ANTI && matches == 0) ms_add(&exp, row, 1);
            if ((jt == JOIN_LEFT || jt == JOIN_FULL) && matches == 0) {
                strcat(row, "|NULL|NULL");
                ms_add(&exp, row, 1);
            }
        }
        if (jt == JOIN_RIGHT || jt == JOIN_FULL) {
            for (int b = 0; b < nrr; b++) {
                int matches = 0;
                for (int a = 0; a < nlr; a++) {
                    int lk = lrows[a][0], rk = rrows[b][0];
                    if (lk >= 0 && rk >= 0 && lk == rk && (!with_pred || lrows[a][1] <= rrows[b][1])) matches++;
                }
                if (matches == 0) {
                    char rb[32];
                    fmt_kv(rb, sizeof rb, rrows[b][0], rrows[b][1]);
                    snprintf(row, sizeof row, "NULL|NULL|%s", rb);
                    ms_add(&exp, row, 1);
                }
            }
        }
        if (!ms_equal(&exp, &rd->view))
            fail_msg("join type %d pred %d null_aware %d seed %llu: step %d differs from recomputation", (int)jt,
                     with_pred, null_aware, (unsigned long long)seed, stepn);
        ms_free(&exp);
    }
    /* everything deleted: no state is left */
    for (int a = 0; a < nlr; a++) {
        fmt_kv(buf, sizeof buf, lrows[a][0], lrows[a][1]);
        push(tb, sl, -1, buf);
    }
    for (int b = 0; b < nrr; b++) {
        fmt_kv(buf, sizeof buf, rrows[b][0], rrows[b][1]);
        push(tb, sr, -1, buf);
    }
    if (!eng_step(tb->p, err, sizeof err)) fail_msg("step: %s", err);
    if (!eng_step(tb->p, err, sizeof err)) fail_msg("step: %s", err);
    for (int i = 0; i < rd->view.n; i++) assert_int_equal(rd->view.c[i], 0);
    assert_int_equal(stat_entries(tb, "j/op2/left", NULL), 0);
    assert_int_equal(stat_entries(tb, "j/op2/right", NULL), 0);
    ms_free(&rd->view);
    tb_fini(tb);
    free(rd);
}

static void test_join_random(void **state)
{
    (void)state;
    JoinType types[6] = {JOIN_INNER, JOIN_LEFT, JOIN_RIGHT, JOIN_FULL, JOIN_SEMI, JOIN_ANTI};
    for (int t = 0; t < 6; t++)
        for (int p = 0; p < 2; p++)
            for (uint64_t seed = 1; seed <= 3; seed++) run_random(types[t], p, false, seed * 7919 + (uint64_t)t);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        run_random(JOIN_ANTI, false, true, seed);
        run_random(JOIN_ANTI, true, true, seed + 100);
    }
}

/* ---------- randomized interval joins with lateness ---------- */

typedef struct IRnd {
    Rnd r;
    MS late;                 /* tags of the dead-lettered rows */
    int64_t prev_wm;         /* the join's output watermark after the previous step */
    int64_t held_violations; /* output rows older than that watermark */
} IRnd;

/* Also checks the output watermark: no emitted row is older than the watermark the
 * join promised before the step (its times must not look late downstream). */
static bool irnd_listener(void *ctx, int model, const EngChange *ch, int n, char *err, size_t errsize)
{
    IRnd *ir = ctx;
    for (int i = 0; i < n; i++) {
        const Value *row = ch[i].row;
        if ((!row[1].isnull && row[1].i < ir->prev_wm) || (!row[4].isnull && row[4].i < ir->prev_wm))
            ir->held_violations++;
    }
    return rnd_listener(&ir->r, model, ch, n, err, errsize);
}

static void irnd_dead(void *ctx, const EngDeadLetter *d)
{
    IRnd *ir = ctx;
    assert_string_equal(d->reason, "late");
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)d->row[2].i); /* the row's unique tag */
    ms_add(&ir->late, buf, 1);
}

/* l(k, t, tag) JOIN r(k, t, tag) ON k AND r.t - 3s <= l.t <= r.t + 2s, insert-only, random
 * arrival around independently advancing watermarks: the final output must be the
 * join of the rows that were not dead-lettered as late, and nothing may be retracted
 * (deferred NULL padding keeps outer joins insert-only). */
static void run_interval_random(JoinType jt, uint64_t seed)
{
    IRnd *ir = calloc(1, sizeof *ir);
    TB *tb = &ir->r.tb;
    tb_init(tb);
    int sl = add_source(tb, "l", "k:i8,t:ts,tag:i8", FMT_JSON, -1);
    int sr = add_source(tb, "r", "k:i8,t:ts,tag:i8", FMT_JSON, -1);
    int m = add_model(tb, "j");
    IrNode *l = n_source(tb, m, sl, CL_INSERT_ONLY), *r = n_source(tb, m, sr, CL_INSERT_ONLY);
    const int64_t sec = 1000000;
    int k0[1] = {0};
    Expr *lt = ecol(tb, 1, T(T_TIMESTAMP)), *rt = ecol(tb, 4, T(T_TIMESTAMP));
    Expr *pred = ebool_and(tb, eop(tb, OP_GE, T(T_BOOL), lt, eop(tb, OP_SUB, T(T_TIMESTAMP), rt, einterval(tb, 3 * sec))),
                           eop(tb, OP_LE, T(T_BOOL), lt, eop(tb, OP_ADD, T(T_TIMESTAMP), rt, einterval(tb, 2 * sec))));
    IrNode *j = n_join(tb, m, l, r, jt, k0, k0, 1, pred);
    j->plan->interval_join = true;
    j->plan->left_time_col = 1;
    j->plan->right_time_col = 1;
    j->plan->lower_us = -3 * sec;
    j->plan->upper_us = 2 * sec;
    set_root(tb, m, j, NULL, -1);
    EngOptions o = {0};
    o.listener = irnd_listener;
    o.listener_ctx = ir;
    ir->prev_wm = INT64_MIN;
    o.dead_letter = irnd_dead;
    o.dead_letter_ctx = ir;
    char err[256] = "";
    tb->p = eng_pipeline_new(&tb->g, &o, err, sizeof err);
    if (!tb->p) fail_msg("pipeline: %s", err);

    enum { MAXR = 600 };
    static int64_t lrows[MAXR][3], rrows[MAXR][3];
    int nl = 0, nr = 0;
    int64_t wml = 0, wmr = 0;
    uint64_t st = seed;
    char buf[96];
    for (int stepn = 0; stepn < 250; stepn++) {
        int nch = (int)(rng_next(&st) % 4);
        for (int c = 0; c < nch; c++) {
            int side = (int)(rng_next(&st) % 2);
            int64_t base = side ? wmr : wml;
            int64_t t = base + ((int64_t)(rng_next(&st) % 10000) - 2000) * 1000; /* -2s .. +8s */
            int k = (int)(rng_next(&st) % 3);
            Value tv = value_int(t);
            StrBuf tsb = STRBUF_INIT;
            value_format_text(T(T_TIMESTAMP), &tv, &tsb);
            if (side == 0 && nl < MAXR) {
                lrows[nl][0] = k;
                lrows[nl][1] = t;
                lrows[nl][2] = nl;
                snprintf(buf, sizeof buf, "%d|%s|%d", k, sb_cstr(&tsb), nl);
                nl++;
                push(tb, sl, 1, buf);
            } else if (side == 1 && nr < MAXR) {
                rrows[nr][0] = k;
                rrows[nr][1] = t;
                rrows[nr][2] = 1000 + nr;
                snprintf(buf, sizeof buf, "%d|%s|%d", k, sb_cstr(&tsb), 1000 + nr);
                nr++;
                push(tb, sr, 1, buf);
            }
            sb_free(&tsb);
        }
        if (rng_next(&st) % 3 == 0) {
            wml += (int64_t)(rng_next(&st) % 3000) * 1000;
            eng_source_watermark(tb->p, sl, wml);
        }
        if (rng_next(&st) % 3 == 0) {
            wmr += (int64_t)(rng_next(&st) % 3000) * 1000;
            eng_source_watermark(tb->p, sr, wmr);
        }
        if (!eng_step(tb->p, err, sizeof err)) fail_msg("step: %s", err);
        ir->prev_wm = eng_pipeline_op(tb->p, j->index)->wm;
        for (int i = 0; i < ir->r.view.n; i++)
            if (ir->r.view.c[i] < 0) fail_msg("interval join %d seed %llu: a retraction at step %d", (int)jt,
                                              (unsigned long long)seed, stepn);
    }
    eng_source_watermark(tb->p, sl, INT64_MAX);
    eng_source_watermark(tb->p, sr, INT64_MAX);
    if (!eng_step(tb->p, err, sizeof err)) fail_msg("step: %s", err);
    assert_int_equal(stat_entries(tb, "j/op2/left", NULL), 0);
    assert_int_equal(stat_entries(tb, "j/op2/right", NULL), 0);

    /* expected: the join over the rows that were accepted */
    MS exp = {0};
    char row[256], key[96];
    bool lok[MAXR], rok[MAXR];
    for (int a = 0; a < nl; a++) {
        snprintf(key, sizeof key, "%lld", (long long)lrows[a][2]);
        lok[a] = ms_get(&ir->late, key) == 0;
    }
    for (int b = 0; b < nr; b++) {
        snprintf(key, sizeof key, "%lld", (long long)rrows[b][2]);
        rok[b] = ms_get(&ir->late, key) == 0;
    }
    int rmatched[MAXR] = {0};
    for (int a = 0; a < nl; a++) {
        if (!lok[a]) continue;
        Value lv = value_int(lrows[a][1]);
        StrBuf ls = STRBUF_INIT;
        value_format_text(T(T_TIMESTAMP), &lv, &ls);
        int matches = 0;
        for (int b = 0; b < nr; b++) {
            if (!rok[b] || lrows[a][0] != rrows[b][0]) continue;
            if (!(rrows[b][1] - 3 * sec <= lrows[a][1] && lrows[a][1] <= rrows[b][1] + 2 * sec)) continue;
            matches++;
            rmatched[b]++;
            Value rv = value_int(rrows[b][1]);
            StrBuf rs = STRBUF_INIT;
            value_format_text(T(T_TIMESTAMP), &rv, &rs);
            snprintf(row, sizeof row, "%lld|%s|%lld|%lld|%s|%lld", (long long)lrows[a][0], sb_cstr(&ls),
                     (long long)lrows[a][2], (long long)rrows[b][0], sb_cstr(&rs), (long long)rrows[b][2]);
            ms_add(&exp, row, 1);
            sb_free(&rs);
        }
        if (matches == 0 && (jt == JOIN_LEFT || jt == JOIN_FULL)) {
            snprintf(row, sizeof row, "%lld|%s|%lld|NULL|NULL|NULL", (long long)lrows[a][0], sb_cstr(&ls),
                     (long long)lrows[a][2]);
            ms_add(&exp, row, 1);
        }
        sb_free(&ls);
    }
    if (jt == JOIN_RIGHT || jt == JOIN_FULL)
        for (int b = 0; b < nr; b++) {
            if (!rok[b] || rmatched[b]) continue;
            Value rv = value_int(rrows[b][1]);
            StrBuf rs = STRBUF_INIT;
            value_format_text(T(T_TIMESTAMP), &rv, &rs);
            snprintf(row, sizeof row, "NULL|NULL|NULL|%lld|%s|%lld", (long long)rrows[b][0], sb_cstr(&rs),
                     (long long)rrows[b][2]);
            ms_add(&exp, row, 1);
            sb_free(&rs);
        }
    if (!ms_equal(&exp, &ir->r.view)) {
        for (int i = 0; i < exp.n; i++)
            if (exp.c[i] != ms_get(&ir->r.view, exp.s[i]))
                print_message("expected %lld got %lld: %s\n", (long long)exp.c[i], (long long)ms_get(&ir->r.view, exp.s[i]), exp.s[i]);
        for (int i = 0; i < ir->r.view.n; i++)
            if (ir->r.view.c[i] != ms_get(&exp, ir->r.view.s[i]))
                print_message("got %lld expected %lld: %s\n", (long long)ir->r.view.c[i], (long long)ms_get(&exp, ir->r.view.s[i]), ir->r.view.s[i]);
    }
    if (!ms_equal(&exp, &ir->r.view))
        fail_msg("interval join %d seed %llu: final output differs from the join of the accepted rows", (int)jt,
                 (unsigned long long)seed);
    assert_true(ir->late.n > 0); /* the inputs do exercise lateness */
    assert_int_equal(ir->held_violations, 0);
    ms_free(&exp);
    ms_free(&ir->late);
    ms_free(&ir->r.view);
    tb_fini(tb);
    free(ir);
}

static void test_interval_join_random(void **state)
{
    (void)state;
    JoinType types[4] = {JOIN_INNER, JOIN_LEFT, JOIN_RIGHT, JOIN_FULL};
    for (int t = 0; t < 4; t++)
        for (uint64_t seed = 1; seed <= 4; seed++) run_interval_random(types[t], seed * 101 + (uint64_t)t);
}

/* ---------- set operations ---------- */

static void test_setops(void **state)
{
    (void)state;
    struct {
        SetOpKind kind;
        bool all;
    } cases[6] = {{SETOP_UNION, false}, {SETOP_UNION, true}, {SETOP_INTERSECT, false},
                  {SETOP_INTERSECT, true}, {SETOP_EXCEPT, false}, {SETOP_EXCEPT, true}};
    for (int c = 0; c < 6; c++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            Rnd *rd = calloc(1, sizeof *rd);
            TB *tb = &rd->tb;
            tb_init(tb);
            int sl = add_source(tb, "l", "v:i8", FMT_CHANGELOG_JSON, -1);
            int sr = add_source(tb, "r", "v:i8", FMT_CHANGELOG_JSON, -1);
            int m = add_model(tb, "s");
            IrNode *l = n_source(tb, m, sl, CL_RETRACT), *r = n_source(tb, m, sr, CL_RETRACT);
            IrNode *so = n_setop(tb, m, l, r, cases[c].kind, cases[c].all);
            set_root(tb, m, so, NULL, -1);
            EngOptions o = {0};
            o.listener = rnd_listener;
            o.listener_ctx = rd;
            char err[256] = "";
            tb->p = eng_pipeline_new(&tb->g, &o, err, sizeof err);
            if (!tb->p) fail_msg("pipeline: %s", err);
            int cnt[2][5] = {{0}};
            uint64_t s = seed * 31 + (uint64_t)c;
            char buf[16];
            for (int stepn = 0; stepn < 300; stepn++) {
                for (int k = 0; k < 3; k++) {
                    int side = (int)(rng_next(&s) % 2);
                    int v = (int)(rng_next(&s) % 5);
                    bool del = cnt[side][v] > 0 && rng_next(&s) % 2;
                    if (v == 4) snprintf(buf, sizeof buf, "NULL");
                    else snprintf(buf, sizeof buf, "%d", v);
                    push(tb, side ? sr : sl, del ? -1 : 1, buf);
                    cnt[side][v] += del ? -1 : 1;
                }
                if (!eng_step(tb->p, err, sizeof err)) fail_msg("step: %s", err);
                for (int v = 0; v < 5; v++) {
                    int64_t l0 = cnt[0][v], r0 = cnt[1][v], e = 0;
                    switch (cases[c].kind) {
                    case SETOP_UNION: e = cases[c].all ? l0 + r0 : (l0 + r0 > 0); break;
                    case SETOP_INTERSECT: e = cases[c].all ? (l0 < r0 ? l0 : r0) : (l0 > 0 && r0 > 0); break;
                    case SETOP_EXCEPT: e = cases[c].all ? (l0 > r0 ? l0 - r0 : 0) : (l0 > 0 && r0 == 0); break;
                    }
                    if (v == 4) snprintf(buf, sizeof buf, "NULL");
                    else snprintf(buf, sizeof buf, "%d", v);
                    if (ms_get(&rd->view, buf) != e)
                        fail_msg("setop %d all %d seed %llu step %d value %s: %lld, expected %lld", (int)cases[c].kind,
                                 cases[c].all, (unsigned long long)seed, stepn, buf, (long long)ms_get(&rd->view, buf),
                                 (long long)e);
                }
            }
            /* checkpoint round trip */
            TB t2;
            tb_init(&t2);
            int s2l = add_source(&t2, "l", "v:i8", FMT_CHANGELOG_JSON, -1);
            int s2r = add_source(&t2, "r", "v:i8", FMT_CHANGELOG_JSON, -1);
            (void)s2l;
            (void)s2r;
            int m2 = add_model(&t2, "s");
            IrNode *l2 = n_source(&t2, m2, 0, CL_RETRACT), *r2 = n_source(&t2, m2, 1, CL_RETRACT);
            IrNode *so2 = n_setop(&t2, m2, l2, r2, cases[c].kind, cases[c].all);
            set_root(&t2, m2, so2, NULL, -1);
            start(&t2);
            roundtrip(tb, &t2, so->index);
            ms_free(&rd->view);
            tb_fini(&t2);
            tb_fini(tb);
            free(rd);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inner_join),
        cmocka_unit_test(test_left_join),
        cmocka_unit_test(test_left_join_residual),
        cmocka_unit_test(test_right_full_join),
        cmocka_unit_test(test_semi_anti),
        cmocka_unit_test(test_null_aware_anti),
        cmocka_unit_test(test_cross_join),
        cmocka_unit_test(test_interval_join),
        cmocka_unit_test(test_interval_left_join),
        cmocka_unit_test(test_window_join),
        cmocka_unit_test(test_join_serialize),
        cmocka_unit_test(test_join_random),
        cmocka_unit_test(test_interval_join_random),
        cmocka_unit_test(test_setops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
