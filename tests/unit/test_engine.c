/* Unit tests of the incremental engine core (src/engine): operators, keyed state,
 * consolidation and presentation order, dead letters, checkpoints of aggregate state
 * and state statistics. Plans and IR graphs are built by hand with the constructors
 * of test_engine_util.h, so these tests depend on neither the binder nor ir_build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/decimal.h"
#include "engine/agg_accum.h"
#include "engine/engine.h"
#include "engine/keyed_table.h"
#include "engine/op.h"
#include "engine/ordset.h"
#include "test_engine_util.h"

/* ---------- tests ---------- */

static void test_filter_project(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "a:i8,b:i8", FMT_JSON, -1);
    int m = add_model(&tb, "m");
    IrNode *src = n_source(&tb, m, s, CL_INSERT_ONLY);
    IrNode *f = n_filter(&tb, m, src, eop(&tb, OP_GT, T(T_BOOL), ecol(&tb, 1, T(T_INT8)), eint(&tb, 0, T(T_INT8))));
    Expr *ps[2] = {ecol(&tb, 0, T(T_INT8)), eop(&tb, OP_MUL, T(T_INT8), ecol(&tb, 0, T(T_INT8)), ecol(&tb, 1, T(T_INT8)))};
    const char *names[2] = {"a", "p"};
    IrNode *pr = n_project(&tb, m, f, ps, names, 2);
    set_root(&tb, m, pr, NULL, -1);
    start(&tb);
    push(&tb, s, 1, "3|3");
    push(&tb, s, 1, "1|2");
    push(&tb, s, 1, "2|-1");
    push(&tb, s, 1, "2|NULL");
    assert_string_equal(step(&tb), "I 1|2; I 3|9");
    push(&tb, s, -1, "1|2");
    assert_string_equal(step(&tb), "D 1|2");
    assert_string_equal(step(&tb), "");
    assert_int_equal(tb.ndead, 0);
    tb_fini(&tb);
}

/* GROUP BY k: COUNT(*), SUM(v), AVG(v), MIN(v), MAX(v) over a retracting input. */
static void build_agg(TB *tb, int *s_out, ChangelogMode mode)
{
    int s = add_source(tb, "src", "k:i8,v:i4", FMT_JSON, -1);
    int m = add_model(tb, "agg");
    IrNode *src = n_source(tb, m, s, mode);
    Expr *g[1] = {ecol(tb, 0, T(T_INT8))};
    const char *gn[1] = {"k"};
    Expr *v = ecol(tb, 1, T(T_INT4));
    AggDef aggs[5] = {
        {AGG_COUNT_STAR, NULL, false, NULL, T(T_INT8), "n"},
        {AGG_SUM, v, false, NULL, T(T_INT8), "s"},
        {AGG_AVG, v, false, NULL, type_numeric(-1, -1), "a"},
        {AGG_MIN, v, false, NULL, T(T_INT4), "lo"},
        {AGG_MAX, v, false, NULL, T(T_INT4), "hi"},
    };
    IrNode *a = n_agg(tb, m, src, g, gn, 1, aggs, 5);
    int key[1] = {0};
    set_root(tb, m, a, key, 1);
    *s_out = s;
}

static void test_aggregate_basic(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_agg(&tb, &s, CL_RETRACT);
    start(&tb);
    assert_string_equal(step(&tb), "");
    push(&tb, s, 1, "2|5");
    push(&tb, s, 1, "1|10");
    push(&tb, s, 1, "1|20");
    assert_string_equal(step(&tb), "I 1|2|30|15.0000000000000000|10|20; I 2|1|5|5.0000000000000000|5|5");
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", NULL), 2);
    push(&tb, s, -1, "1|20");
    assert_string_equal(step(&tb), "U 1|1|10|10.0000000000000000|10|10 <- 1|2|30|15.0000000000000000|10|20");
    push(&tb, s, -1, "1|10");
    assert_string_equal(step(&tb), "D 1|1|10|10.0000000000000000|10|10");
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", NULL), 1);

    /* MIN/MAX: retracting the current extreme falls back to the next value */
    push(&tb, s, 1, "3|5");
    push(&tb, s, 1, "3|1");
    push(&tb, s, 1, "3|9");
    push(&tb, s, 1, "3|9");
    assert_string_equal(step(&tb), "I 3|4|24|6.0000000000000000|1|9");
    push(&tb, s, -1, "3|9");
    assert_string_equal(step(&tb), "U 3|3|15|5.0000000000000000|1|9 <- 3|4|24|6.0000000000000000|1|9");
    push(&tb, s, -1, "3|9");
    assert_string_equal(step(&tb), "U 3|2|6|3.0000000000000000|1|5 <- 3|3|15|5.0000000000000000|1|9");
    push(&tb, s, -1, "3|1");
    assert_string_equal(step(&tb), "U 3|1|5|5.0000000000000000|5|5 <- 3|2|6|3.0000000000000000|1|5");

    /* NULL keys group together and sort last; NULL values are ignored (COUNT(*) counts them) */
    push(&tb, s, 1, "NULL|NULL");
    push(&tb, s, 1, "NULL|4");
    push(&tb, s, 1, "4|NULL");
    assert_string_equal(step(&tb), "I 4|1|NULL|NULL|NULL|NULL; I NULL|2|4|4.0000000000000000|4|4");
    push(&tb, s, -1, "NULL|4");
    assert_string_equal(step(&tb), "U NULL|1|NULL|NULL|NULL|NULL <- NULL|2|4|4.0000000000000000|4|4");

    /* a step whose net effect is zero emits nothing (and calls nobody) */
    int calls = tb.ncalls;
    push(&tb, s, 1, "7|70");
    push(&tb, s, -1, "7|70");
    push(&tb, s, 1, "2|6");
    push(&tb, s, -1, "2|6");
    assert_string_equal(step(&tb), "");
    assert_int_equal(tb.ncalls, calls);
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", NULL), 4); /* 2, 3, 4, NULL; 7 deleted */

    /* the group row count drops to 0: the group is deleted */
    push(&tb, s, -1, "NULL|NULL");
    push(&tb, s, -1, "4|NULL");
    assert_string_equal(step(&tb), "D 4|1|NULL|NULL|NULL|NULL; D NULL|1|NULL|NULL|NULL|NULL");
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", NULL), 2);
    tb_fini(&tb);
}

static bool ignore_put(void *ctx, const char *name, const void *data, size_t len, char *err, size_t errsize)
{
    (void)ctx, (void)name, (void)data, (void)len, (void)err, (void)errsize;
    return true;
}

static const char *flush(TB *tb)
{
    sb_clear(&tb->out);
    char err[256] = "";
    if (!eng_flush(tb->p, 0, err, sizeof err)) fail_msg("flush: %s", err);
    return tb->out.len ? sb_cstr(&tb->out) : "";
}

/* Deferred output (eng_defer_model): steps present nothing; a flush presents each
 * group's net change since the previous flush: from the row presented then to the row
 * now (an emptied group is a delete, one that came and went or came back to its row
 * is nothing). A checkpoint with changes pending is refused. */
static void test_aggregate_deferred(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_agg(&tb, &s, CL_RETRACT);
    start(&tb);
    assert_true(eng_defer_model(tb.p, 0));
    assert_true(eng_model_deferred(tb.p, 0));
    push(&tb, s, 1, "2|5");
    push(&tb, s, 1, "1|10");
    assert_string_equal(step(&tb), "");
    push(&tb, s, 1, "1|20");
    push(&tb, s, 1, "3|7");
    assert_string_equal(step(&tb), "");
    char err[256] = "";
    assert_false(eng_checkpoint_save(tb.p, ignore_put, NULL, err, sizeof err));
    assert_non_null(strstr(err, "deferred"));
    assert_string_equal(flush(&tb), "I 1|2|30|15.0000000000000000|10|20; I 2|1|5|5.0000000000000000|5|5; "
                                    "I 3|1|7|7.0000000000000000|7|7");
    assert_string_equal(flush(&tb), "");
    assert_true(eng_checkpoint_save(tb.p, ignore_put, NULL, err, sizeof err));
    /* 1 changes and changes back, 2 empties and comes back, 3 empties, 4 comes and goes */
    push(&tb, s, -1, "1|20");
    push(&tb, s, -1, "2|5");
    push(&tb, s, 1, "4|1");
    assert_string_equal(step(&tb), "");
    push(&tb, s, 1, "1|20");
    push(&tb, s, 1, "2|6");
    push(&tb, s, -1, "3|7");
    push(&tb, s, -1, "4|1");
    assert_string_equal(step(&tb), "");
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", NULL), 4); /* emptied groups wait for the flush */
    assert_string_equal(flush(&tb), "U 2|1|6|6.0000000000000000|6|6 <- 2|1|5|5.0000000000000000|5|5; "
                                    "D 3|1|7|7.0000000000000000|7|7");
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", NULL), 2);
    tb_fini(&tb);
}

static void test_aggregate_insert_only_minmax(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_agg(&tb, &s, CL_INSERT_ONLY);
    start(&tb);
    push(&tb, s, 1, "1|10");
    push(&tb, s, 1, "1|3");
    assert_string_equal(step(&tb), "I 1|2|13|6.5000000000000000|3|10");
    push(&tb, s, 1, "1|30");
    push(&tb, s, 1, "1|NULL");
    assert_string_equal(step(&tb), "U 1|4|43|14.3333333333333333|3|30 <- 1|2|13|6.5000000000000000|3|10");
    /* a retraction on an insert-only edge violates the IR's contract: fatal */
    push(&tb, s, -1, "1|3");
    char err[256] = "";
    assert_false(eng_step(tb.p, err, sizeof err));
    assert_non_null(strstr(err, "insert-only"));
    tb_fini(&tb);
}

static void test_aggregate_distinct_bool(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "k:i8,v:i4,b:bool", FMT_JSON, -1);
    int m = add_model(&tb, "agg");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    Expr *g[1] = {ecol(&tb, 0, T(T_INT8))};
    const char *gn[1] = {"k"};
    Expr *v = ecol(&tb, 1, T(T_INT4));
    Expr *b = ecol(&tb, 2, T(T_BOOL));
    AggDef aggs[5] = {
        {AGG_COUNT, v, true, NULL, T(T_INT8), "nd"},
        {AGG_SUM, v, true, NULL, T(T_INT8), "sd"},
        {AGG_BOOL_AND, b, false, NULL, T(T_BOOL), "all"},
        {AGG_BOOL_OR, b, false, NULL, T(T_BOOL), "any"},
        {AGG_COUNT_STAR, NULL, false, eop(&tb, OP_GT, T(T_BOOL), v, eint(&tb, 5, T(T_INT4))), T(T_INT8), "big"},
    };
    IrNode *a = n_agg(&tb, m, src, g, gn, 1, aggs, 5);
    int key[1] = {0};
    set_root(&tb, m, a, key, 1);
    start(&tb);
    push(&tb, s, 1, "1|5|t");
    push(&tb, s, 1, "1|5|t");
    assert_string_equal(step(&tb), "I 1|1|5|true|true|0");
    push(&tb, s, 1, "1|6|f");
    assert_string_equal(step(&tb), "U 1|2|11|false|true|1 <- 1|1|5|true|true|0");
    push(&tb, s, -1, "1|5|t");
    assert_string_equal(step(&tb), "");      /* one 5 is left: nothing changes */
    push(&tb, s, -1, "1|6|f");
    assert_string_equal(step(&tb), "U 1|1|5|true|true|0 <- 1|2|11|false|true|1");
    push(&tb, s, -1, "1|5|t");
    assert_string_equal(step(&tb), "D 1|1|5|true|true|0");
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", NULL), 0);
    tb_fini(&tb);
}

static void test_aggregate_numeric_float(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "k:i8,x:num,f:f8,big:i8", FMT_JSON, -1);
    int m = add_model(&tb, "agg");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    Expr *g[1] = {ecol(&tb, 0, T(T_INT8))};
    const char *gn[1] = {"k"};
    AggDef aggs[5] = {
        {AGG_SUM, ecol(&tb, 1, type_numeric(-1, -1)), false, NULL, type_numeric(-1, -1), "sx"},
        {AGG_AVG, ecol(&tb, 1, type_numeric(-1, -1)), false, NULL, type_numeric(-1, -1), "ax"},
        {AGG_SUM, ecol(&tb, 2, T(T_FLOAT8)), false, NULL, T(T_FLOAT8), "sf"},
        {AGG_AVG, ecol(&tb, 2, T(T_FLOAT8)), false, NULL, T(T_FLOAT8), "af"},
        {AGG_SUM, ecol(&tb, 3, T(T_INT8)), false, NULL, type_numeric(-1, -1), "sb"},
    };
    IrNode *a = n_agg(&tb, m, src, g, gn, 1, aggs, 5);
    int key[1] = {0};
    set_root(&tb, m, a, key, 1);
    start(&tb);
    push(&tb, s, 1, "1|1.5|1.5|9223372036854775807");
    push(&tb, s, 1, "1|2.25|NaN|9223372036854775807");
    assert_string_equal(step(&tb), "I 1|3.75|1.8750000000000000|NaN|NaN|18446744073709551614");
    /* the sum's scale is the largest among the remaining rows (PostgreSQL: 1.5) */
    push(&tb, s, -1, "1|2.25|NaN|9223372036854775807");
    assert_string_equal(step(&tb), "U 1|1.5|1.50000000000000000000|1.5|1.5|9223372036854775807 <- 1|3.75|1.8750000000000000|NaN|NaN|18446744073709551614");
    tb_fini(&tb);
}

/* Over an updating input SUM/AVG depend only on the rows that remain: a numeric sum's
 * scale shrinks back, a float sum keeps no rounding residue of retracted values. */
static void test_aggregate_retraction_exactness(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "k:i8,x:num,f:f8", FMT_JSON, -1);
    int m = add_model(&tb, "agg");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    Expr *g[1] = {ecol(&tb, 0, T(T_INT8))};
    const char *gn[1] = {"k"};
    AggDef aggs[4] = {
        {AGG_SUM, ecol(&tb, 1, type_numeric(-1, -1)), false, NULL, type_numeric(-1, -1), "sx"},
        {AGG_AVG, ecol(&tb, 1, type_numeric(-1, -1)), false, NULL, type_numeric(-1, -1), "ax"},
        {AGG_SUM, ecol(&tb, 2, T(T_FLOAT8)), false, NULL, T(T_FLOAT8), "sf"},
        {AGG_AVG, ecol(&tb, 2, T(T_FLOAT8)), false, NULL, T(T_FLOAT8), "af"},
    };
    IrNode *a = n_agg(&tb, m, src, g, gn, 1, aggs, 4);
    int key[1] = {0};
    set_root(&tb, m, a, key, 1);
    start(&tb);
    push(&tb, s, 1, "1|1.0|3000000000");
    push(&tb, s, 1, "1|2.0|12.0000001");
    push(&tb, s, 1, "1|0.00000000000000000001|0.1");
    step(&tb);
    push(&tb, s, -1, "1|0.00000000000000000001|0.1");
    push(&tb, s, -1, "1|1.0|3000000000");
    assert_string_equal(step(&tb), "U 1|2.0|2.0000000000000000|12.0000001|12.0000001 <- "
                                   "1|3.00000000000000000001|1.00000000000000000000|3000000012.1|1000000004.0333333");
    /* 0.1 + 0.2 as PostgreSQL adds them, then back to exactly 0.2 */
    push(&tb, s, 1, "2|1|0.1");
    push(&tb, s, 1, "2|1|0.2");
    step(&tb);
    push(&tb, s, -1, "2|1|0.1");
    assert_string_equal(step(&tb), "U 2|1|1.00000000000000000000|0.2|0.2 <- 2|2|1.00000000000000000000|0.30000000000000004|0.15000000000000002");
    /* extremes: subnormals and values near the top of the range cancel exactly */
    push(&tb, s, 1, "3|0|4.9406564584124654e-324");
    push(&tb, s, 1, "3|0|-1.7976931348623157e308");
    push(&tb, s, 1, "3|0|1.7976931348623157e308");
    step(&tb);
    push(&tb, s, -1, "3|0|4.9406564584124654e-324");
    push(&tb, s, 1, "3|0|1e-300");
    assert_string_equal(step(&tb), "U 3|0|0.00000000000000000000|1e-300|3.3333333333333334e-301 <- "
                                   "3|0|0.00000000000000000000|5e-324|0");
    /* checkpoints carry the per-scale counts and the exact sums */
    Op *op = eng_pipeline_op(tb.p, a->index);
    StrBuf b1 = STRBUF_INIT, b2 = STRBUF_INIT;
    assert_true(op->vt->serialize(op, &b1));
    char err[256] = "";
    assert_true(op->vt->deserialize(op, (const uint8_t *)b1.data, b1.len, err, sizeof err));
    assert_true(op->vt->serialize(op, &b2));
    assert_int_equal(b1.len, b2.len);
    assert_memory_equal(b1.data, b2.data, b1.len);
    sb_free(&b1);
    sb_free(&b2);
    push(&tb, s, -1, "1|2.0|12.0000001");
    push(&tb, s, 1, "1|2.50|1");
    assert_string_equal(step(&tb), "U 1|2.50|2.5000000000000000|1|1 <- 1|2.0|2.0000000000000000|12.0000001|12.0000001");
    tb_fini(&tb);
}

/* The exact float accumulator rounds like a correctly rounded sum: checked against
 * int128 arithmetic on multiples of 2^-20. */
static void test_exact_float_sum(void **state)
{
    (void)state;
    uint64_t x[AGGACC_XLIMBS];
    uint64_t rng = 99;
    for (int round = 0; round < 200; round++) {
        memset(x, 0, sizeof x);
        __int128 exact = 0;
        for (int i = 0; i < 50; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            int64_t k = (int64_t)(rng >> 11) - (int64_t)(1ll << 52); /* |k| < 2^53: exact double */
            int64_t w = (int64_t)((rng >> 3) % 5) - 2;
            double v = ldexp((double)k, -20);
            aggacc_xadd(x, v, w);
            exact += (__int128)k * w;
            double want = ldexp((double)exact, -20); /* int128 -> double rounds to nearest even */
            double got = aggacc_xvalue(x);
            if (memcmp(&want, &got, sizeof want) != 0 && !(want == 0 && got == 0))
                fail_msg("round %d step %d: %.17g != %.17g", round, i, got, want);
        }
    }
}

static void test_aggregate_interval(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "d:iv", FMT_JSON, -1);
    int m = add_model(&tb, "g");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    AggDef aggs[3] = {
        {AGG_SUM, ecol(&tb, 0, T(T_INTERVAL)), false, NULL, T(T_INTERVAL), "s"},
        {AGG_AVG, ecol(&tb, 0, T(T_INTERVAL)), false, NULL, T(T_INTERVAL), "a"},
        {AGG_MAX, ecol(&tb, 0, T(T_INTERVAL)), false, NULL, T(T_INTERVAL), "hi"},
    };
    IrNode *a = n_agg(&tb, m, src, NULL, NULL, 0, aggs, 3);
    set_root(&tb, m, a, NULL, 0);
    start(&tb);
    push(&tb, s, 1, "1 day");
    push(&tb, s, 1, "2 days");
    push(&tb, s, 1, "1 mon");
    assert_string_equal(step(&tb), "I 1 mon 3 days|11 days|1 mon");
    push(&tb, s, -1, "1 mon");
    assert_string_equal(step(&tb), "U 3 days|1 day 12:00:00|2 days <- 1 mon 3 days|11 days|1 mon");
    tb_fini(&tb);
}

static void test_global_aggregate(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "v:i4", FMT_JSON, -1);
    int m = add_model(&tb, "g");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    AggDef aggs[3] = {
        {AGG_COUNT_STAR, NULL, false, NULL, T(T_INT8), "n"},
        {AGG_SUM, ecol(&tb, 0, T(T_INT4)), false, NULL, T(T_INT8), "s"},
        {AGG_MAX, ecol(&tb, 0, T(T_INT4)), false, NULL, T(T_INT4), "hi"},
    };
    IrNode *a = n_agg(&tb, m, src, NULL, NULL, 0, aggs, 3);
    set_root(&tb, m, a, NULL, 0);
    start(&tb);
    assert_string_equal(step(&tb), "I 0|NULL|NULL");
    assert_string_equal(step(&tb), "");
    push(&tb, s, 1, "5");
    assert_string_equal(step(&tb), "U 1|5|5 <- 0|NULL|NULL");
    push(&tb, s, -1, "5");
    assert_string_equal(step(&tb), "U 0|NULL|NULL <- 1|5|5");
    assert_int_equal(stat_entries(&tb, "g/aggregate0", NULL), 1);
    tb_fini(&tb);
}

static void test_distinct(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "a:i8,t:txt", FMT_JSON, -1);
    int m = add_model(&tb, "d");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    IrNode *d = n_same_cols(&tb, PL_DISTINCT, m, &src, 1, CL_RETRACT);
    d->nstate = 1;
    d->state = ARENA_NEW(&tb.a, StateDesc);
    d->state->id = "d/distinct0";
    d->state->kind = "distinct";
    set_root(&tb, m, d, NULL, -1);
    start(&tb);
    push(&tb, s, 1, "1|x");
    push(&tb, s, 1, "1|x");
    push(&tb, s, 1, "2|y");
    assert_string_equal(step(&tb), "I 1|x; I 2|y");
    assert_int_equal(stat_entries(&tb, "d/distinct0", NULL), 2);
    push(&tb, s, -1, "1|x");
    assert_string_equal(step(&tb), "");
    push(&tb, s, -1, "1|x");
    assert_string_equal(step(&tb), "D 1|x");
    assert_int_equal(stat_entries(&tb, "d/distinct0", NULL), 1);
    tb_fini(&tb);
}

static void test_union_all_keyless_order(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s1 = add_source(&tb, "s1", "a:i8,t:txt", FMT_JSON, -1);
    int s2 = add_source(&tb, "s2", "a:i8,t:txt", FMT_JSON, -1);
    int m = add_model(&tb, "u");
    IrNode *ins[2] = {n_source(&tb, m, s1, CL_RETRACT), n_source(&tb, m, s2, CL_RETRACT)};
    IrNode *u = n_same_cols(&tb, PL_UNION_ALL, m, ins, 2, CL_RETRACT);
    set_root(&tb, m, u, NULL, -1);
    start(&tb);
    push(&tb, s1, 1, "2|b");
    push(&tb, s2, 1, "1|a");
    push(&tb, s2, 2, "3|c");
    assert_string_equal(step(&tb), "I 1|a; I 2|b; I 3|c; I 3|c");
    /* an update of a keyless output: delete of the old row first, then inserts in row order */
    push(&tb, s1, -1, "2|b");
    push(&tb, s2, 1, "2|bb");
    push(&tb, s1, 1, "0|z");
    push(&tb, s2, -1, "3|c");
    assert_string_equal(step(&tb), "D 2|b; D 3|c; I 0|z; I 2|bb");
    /* the same row from both inputs with opposite weights: nothing */
    push(&tb, s1, 1, "9|q");
    push(&tb, s2, -1, "9|q");
    assert_string_equal(step(&tb), "");
    tb_fini(&tb);
}

static void test_keyed_presentation(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "id:i8,t:txt", FMT_JSON, -1);
    int m = add_model(&tb, "k");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    Expr *ps[2] = {ecol(&tb, 0, T(T_INT8)), ecol(&tb, 1, T(T_TEXT))};
    const char *names[2] = {"id", "t"};
    IrNode *pr = n_project(&tb, m, src, ps, names, 2);
    int key[1] = {0};
    set_root(&tb, m, pr, key, 1);
    start(&tb);
    push(&tb, s, 1, "2|b");
    push(&tb, s, 1, "1|a");
    push(&tb, s, 1, "NULL|n");
    assert_string_equal(step(&tb), "I 1|a; I 2|b; I NULL|n");
    push(&tb, s, 1, "1|a2");
    push(&tb, s, -1, "1|a");
    push(&tb, s, -1, "2|b");
    push(&tb, s, 1, "3|c");
    assert_string_equal(step(&tb), "U 1|a2 <- 1|a; D 2|b; I 3|c");
    push(&tb, s, 1, "4|x");
    push(&tb, s, -1, "4|x");
    assert_string_equal(step(&tb), "");
    /* a failing listener fails the step with its message */
    tb.fail_listener = true;
    push(&tb, s, 1, "5|e");
    char err[256] = "";
    assert_false(eng_step(tb.p, err, sizeof err));
    assert_string_equal(err, "sink is down");
    tb_fini(&tb);
}

static void test_changelog_normalize(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "cdc", "id:i8,name:txt", FMT_CHANGELOG_JSON, 0);
    int m = add_model(&tb, "latest");
    IrNode *src = n_source(&tb, m, s, CL_UPSERT);
    src->nstate = 1;
    src->state = ARENA_NEW(&tb.a, StateDesc);
    src->state->id = "source:cdc/changelog_normalize";
    src->state->kind = "changelog_normalize";
    Expr *ps[2] = {ecol(&tb, 0, T(T_INT8)), ecol(&tb, 1, T(T_TEXT))};
    const char *names[2] = {"id", "name"};
    IrNode *pr = n_project(&tb, m, src, ps, names, 2);
    int key[1] = {0};
    set_root(&tb, m, pr, key, 1);
    /* a second model counting rows per name sees the normalized changes */
    int m2 = add_model(&tb, "per_name");
    IrNode *src2 = n_source(&tb, m2, s, CL_UPSERT);
    Expr *g[1] = {ecol(&tb, 1, T(T_TEXT))};
    const char *gn[1] = {"name"};
    AggDef aggs[1] = {{AGG_COUNT_STAR, NULL, false, NULL, T(T_INT8), "n"}};
    IrNode *a = n_agg(&tb, m2, src2, g, gn, 1, aggs, 1);
    set_root(&tb, m2, a, key, 1);
    start(&tb);

    char err[256];
    Value row[2];
    parse_row(&tb, s, "1|a", row);
    assert_true(eng_source_upsert(tb.p, s, CHANGE_INSERT, row, NULL, INT64_MIN, err, sizeof err));
    parse_row(&tb, s, "2|a", row);
    assert_true(eng_source_upsert(tb.p, s, CHANGE_INSERT, row, NULL, INT64_MIN, err, sizeof err));
    assert_string_equal(step(&tb), "latest:I 1|a; latest:I 2|a; per_name:I a|2");
    parse_row(&tb, s, "1|b", row);
    assert_true(eng_source_upsert(tb.p, s, CHANGE_UPDATE, row, NULL, INT64_MIN, err, sizeof err));
    assert_string_equal(step(&tb), "latest:U 1|b <- 1|a; per_name:U a|1 <- a|2; per_name:I b|1");
    /* an insert of an existing key acts as an update */
    parse_row(&tb, s, "1|c", row);
    assert_true(eng_source_upsert(tb.p, s, CHANGE_INSERT, row, NULL, INT64_MIN, err, sizeof err));
    assert_string_equal(step(&tb), "latest:U 1|c <- 1|b; per_name:D b|1; per_name:I c|1");
    /* an identical update changes nothing */
    assert_true(eng_source_upsert(tb.p, s, CHANGE_UPDATE, row, NULL, INT64_MIN, err, sizeof err));
    assert_string_equal(step(&tb), "");
    assert_int_equal(stat_entries(&tb, "source:cdc/changelog_normalize", NULL), 2);
    /* a delete carries (at least) the key; the stored row is retracted */
    parse_row(&tb, s, "1|NULL", row);
    assert_true(eng_source_upsert(tb.p, s, CHANGE_DELETE, row, NULL, INT64_MIN, err, sizeof err));
    assert_string_equal(step(&tb), "latest:D 1|c; per_name:D c|1");
    /* a delete of an unknown key is reported and ignored */
    parse_row(&tb, s, "7|zz", row);
    assert_false(eng_source_upsert(tb.p, s, CHANGE_DELETE, row, NULL, INT64_MIN, err, sizeof err));
    assert_non_null(strstr(err, "unknown key"));
    assert_non_null(strstr(err, "id=7"));
    assert_string_equal(step(&tb), "");
    /* update then delete of one key in the same step: net zero */
    parse_row(&tb, s, "3|q", row);
    assert_true(eng_source_upsert(tb.p, s, CHANGE_INSERT, row, NULL, INT64_MIN, err, sizeof err));
    assert_true(eng_source_upsert(tb.p, s, CHANGE_DELETE, row, NULL, INT64_MIN, err, sizeof err));
    assert_string_equal(step(&tb), "");
    assert_int_equal(stat_entries(&tb, "source:cdc/changelog_normalize", NULL), 1);
    tb_fini(&tb);
}

static void test_keyless_updating_source(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "cl", "id:i8,name:txt", FMT_CHANGELOG_JSON, -1);
    int m = add_model(&tb, "all");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    set_root(&tb, m, src, NULL, -1);
    start(&tb);
    char err[256];
    Value row[2];
    parse_row(&tb, s, "1|a", row);
    assert_true(eng_source_upsert(tb.p, s, CHANGE_INSERT, row, NULL, INT64_MIN, err, sizeof err));
    assert_true(eng_source_upsert(tb.p, s, CHANGE_INSERT, row, NULL, INT64_MIN, err, sizeof err));
    assert_string_equal(step(&tb), "I 1|a; I 1|a");
    assert_true(eng_source_upsert(tb.p, s, CHANGE_DELETE, row, NULL, INT64_MIN, err, sizeof err));
    assert_string_equal(step(&tb), "D 1|a");
    assert_false(eng_source_upsert(tb.p, s, CHANGE_UPDATE, row, NULL, INT64_MIN, err, sizeof err));
    assert_non_null(strstr(err, "no primary_key"));
    assert_string_equal(step(&tb), "");
    tb_fini(&tb);
}

/* Many rows of types with and without sort prefixes: the presentation order must be
 * value_compare order (keyless: deletes first, each part by whole row; keyed: by key). */
static bool check_order(void *ctx, int model, const EngChange *ch, int n, char *err, size_t errsize)
{
    TB *tb = ctx;
    const PlanNode *p = tb->ims[model].root->plan;
    const IrModel *im = &tb->ims[model];
    tb->ncalls++;
    for (int i = 1; i < n; i++) {
        const Value *x = ch[i - 1].row, *y = ch[i].row;
        int c = 0;
        if (im->nout_key >= 0) {
            for (int k = 0; k < im->nout_key && !c; k++)
                c = value_compare(p->cols[im->out_key[k]].type, &x[im->out_key[k]], &y[im->out_key[k]]);
            if (c >= 0) fail_msg("keyed output not strictly ordered at %d", i);
        } else {
            if (ch[i - 1].op == CHANGE_INSERT && ch[i].op == CHANGE_DELETE) fail_msg("insert before delete");
            if (ch[i - 1].op != ch[i].op) continue;
            for (int k = 0; k < p->ncols && !c; k++) c = value_compare(p->cols[k].type, &x[k], &y[k]);
            if (c > 0) fail_msg("keyless output not ordered at %d", i);
        }
    }
    (void)err;
    (void)errsize;
    return true;
}

static void test_presentation_order_many(void **state)
{
    (void)state;
    const char *specs[] = {"f:f8,t:txt", "t:txt,f:f8", "x:num,i:i8", "i:i8,t:txt"};
    for (int sp = 0; sp < 4; sp++) {
        for (int keyed = 0; keyed < 2; keyed++) {
            TB tb;
            tb_init(&tb);
            int s = add_source(&tb, "src", specs[sp], FMT_JSON, -1);
            int m = add_model(&tb, "m");
            IrNode *src = n_source(&tb, m, s, CL_RETRACT);
            IrNode *d = n_same_cols(&tb, PL_DISTINCT, m, &src, 1, CL_RETRACT);
            int key[1] = {0};
            set_root(&tb, m, keyed ? d : src, key, keyed ? 1 : -1);
            EngOptions o = {0};
            o.listener = check_order;
            o.listener_ctx = &tb;
            char err[256];
            tb.p = eng_pipeline_new(&tb.g, &o, err, sizeof err);
            assert_non_null(tb.p);
            uint64_t rng = 7 + (uint64_t)sp;
            char buf[64];
            for (int stepn = 0; stepn < 3; stepn++) {
                for (int i = 0; i < 300; i++) {
                    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                    int v = (int)((rng >> 33) % 50) - 25;
                    const char *words[] = {"", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\x01", "zz", "NULL"};
                    const char *w = words[(rng >> 20) % 8];
                    const char *num = sp == 2 ? ((rng >> 40) & 1 ? "1.50" : "1.5") : "";
                    if (sp == 0) snprintf(buf, sizeof buf, "%d.25|%s", v, w);
                    else if (sp == 1) snprintf(buf, sizeof buf, "%s|%s", w, v == 0 ? "NaN" : v == 1 ? "-0" : "3.5");
                    else if (sp == 2) snprintf(buf, sizeof buf, "%s|%d", v % 3 == 0 ? "NULL" : num, v);
                    else snprintf(buf, sizeof buf, "%d|%s", v, w);
                    /* a keyed DISTINCT output is unique per whole row, not per first column: only
                     * test keyed order where column 0 determines the row */
                    push(&tb, s, keyed || ((rng >> 50) & 3) ? 1 : -1, buf);
                }
                char e2[256];
                if (keyed) {
                    /* keep the distinct output unique by its first column */
                    Batch *b = eng_source_batch(tb.p, s);
                    for (int r = 0; r < b->n; r++) batch_row(b, r)[1] = batch_row(b, 0)[1];
                }
                assert_true(eng_step(tb.p, e2, sizeof e2));
            }
            assert_true(tb.ncalls > 0);
            tb_fini(&tb);
        }
    }
}

static void test_dead_letters(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "a:i8,b:i8", FMT_JSON, -1);
    int m = add_model(&tb, "q");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    Expr *ps[2] = {ecol(&tb, 0, T(T_INT8)), eop(&tb, OP_DIV, T(T_INT8), ecol(&tb, 0, T(T_INT8)), ecol(&tb, 1, T(T_INT8)))};
    const char *names[2] = {"a", "r"};
    IrNode *pr = n_project(&tb, m, src, ps, names, 2);
    set_root(&tb, m, pr, NULL, -1);
    int m2 = add_model(&tb, "qa");
    IrNode *src2 = n_source(&tb, m2, s, CL_RETRACT);
    Expr *g[1] = {ecol(&tb, 0, T(T_INT8))};
    const char *gn[1] = {"a"};
    AggDef aggs[1] = {{AGG_SUM, eop(&tb, OP_DIV, T(T_INT8), ecol(&tb, 0, T(T_INT8)), ecol(&tb, 1, T(T_INT8))), false, NULL, type_numeric(-1, -1), "s"}};
    IrNode *a = n_agg(&tb, m2, src2, g, gn, 1, aggs, 1);
    int key[1] = {0};
    set_root(&tb, m2, a, key, 1);
    start(&tb);
    push(&tb, s, 1, "4|2");
    push(&tb, s, 1, "1|0");
    assert_string_equal(step(&tb), "q:I 4|2; qa:I 4|2");
    assert_int_equal(tb.ndead, 2);
    assert_string_equal(sb_cstr(&tb.dl), "q: division by zero [1|0]; qa: division by zero [1|0]");
    /* its retraction fails alike and is dropped too: the Z-set stays consistent */
    push(&tb, s, -1, "1|0");
    assert_string_equal(step(&tb), "");
    assert_int_equal(tb.ndead, 4);
    assert_int_equal(stat_entries(&tb, "qa/aggregate0", NULL), 1);
    tb_fini(&tb);
}

static void test_sum_overflow_dead_letter(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "k:i8,v:i4", FMT_JSON, -1);
    int m = add_model(&tb, "o");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    Expr *g[1] = {ecol(&tb, 0, T(T_INT8))};
    const char *gn[1] = {"k"};
    AggDef aggs[2] = {
        {AGG_COUNT_STAR, NULL, false, NULL, T(T_INT8), "n"},
        {AGG_SUM, ecol(&tb, 1, T(T_INT4)), false, NULL, T(T_INT8), "s"},
    };
    IrNode *a = n_agg(&tb, m, src, g, gn, 1, aggs, 2);
    int key[1] = {0};
    set_root(&tb, m, a, key, 1);
    start(&tb);
    push(&tb, s, 1, "1|2147483647");
    push(&tb, s, (int64_t)1 << 40, "1|2147483647"); /* a consolidated batch: weight 2^40 */
    assert_string_equal(step(&tb), "I 1|1|2147483647");
    assert_int_equal(tb.ndead, 1);
    assert_non_null(strstr(sb_cstr(&tb.dl), "bigint out of range"));
    tb_fini(&tb);
}

/* Property test: after every step, the table materialized from the listener's changes
 * equals the aggregate recomputed from scratch over the multiset of live rows. */
#define PK 12
#define PV 16
typedef struct Mat {
    char rows[PK + 1][128];  /* per key (PK = the NULL key): formatted row or "" */
    const PlanNode *plan;
} Mat;

static int key_slot(const Value *row) { return row[0].isnull ? PK : (int)row[0].i; }

static bool mat_listener(void *ctx, int model, const EngChange *ch, int n, char *err, size_t errsize)
{
    Mat *mt = ctx;
    (void)model;
    for (int i = 0; i < n; i++) {
        StrBuf a = STRBUF_INIT;
        fmt_row(mt->plan->cols, mt->plan->ncols, ch[i].row, &a);
        char *slot = mt->rows[key_slot(ch[i].row)];
        if (ch[i].op == CHANGE_INSERT) {
            if (slot[0]) fail_msg("insert of a present key: %s", sb_cstr(&a));
            snprintf(slot, 128, "%s", sb_cstr(&a));
        } else if (ch[i].op == CHANGE_DELETE) {
            if (strcmp(slot, sb_cstr(&a)) != 0) fail_msg("delete of %s, table has %s", sb_cstr(&a), slot);
            slot[0] = '\0';
        } else {
            StrBuf o = STRBUF_INIT;
            fmt_row(mt->plan->cols, mt->plan->ncols, ch[i].old_row, &o);
            if (strcmp(slot, sb_cstr(&o)) != 0) fail_msg("update of %s, table has %s", sb_cstr(&o), slot);
            if (strcmp(sb_cstr(&o), sb_cstr(&a)) == 0) fail_msg("update without a change: %s", slot);
            snprintf(slot, 128, "%s", sb_cstr(&a));
            sb_free(&o);
        }
        sb_free(&a);
    }
    (void)err;
    (void)errsize;
    return true;
}

static void test_aggregate_matches_recompute(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "k:i8,v:i4", FMT_JSON, -1);
    int m = add_model(&tb, "agg");
    IrNode *src = n_source(&tb, m, s, CL_RETRACT);
    Expr *g[1] = {ecol(&tb, 0, T(T_INT8))};
    const char *gn[1] = {"k"};
    Expr *v = ecol(&tb, 1, T(T_INT4));
    AggDef aggs[6] = {
        {AGG_COUNT_STAR, NULL, false, NULL, T(T_INT8), "n"},
        {AGG_SUM, v, false, NULL, T(T_INT8), "s"},
        {AGG_MIN, v, false, NULL, T(T_INT4), "lo"},
        {AGG_MAX, v, false, NULL, T(T_INT4), "hi"},
        {AGG_COUNT, v, true, NULL, T(T_INT8), "nd"},
        {AGG_SUM, v, true, NULL, T(T_INT8), "sd"},
    };
    IrNode *a = n_agg(&tb, m, src, g, gn, 1, aggs, 6);
    int key[1] = {0};
    set_root(&tb, m, a, key, 1);
    Mat mt;
    memset(&mt, 0, sizeof mt);
    mt.plan = a->plan;
    EngOptions o = {0};
    o.listener = mat_listener;
    o.listener_ctx = &mt;
    char err[256];
    tb.p = eng_pipeline_new(&tb.g, &o, err, sizeof err);
    assert_non_null(tb.p);

    static int64_t cnt[PK + 1][PV + 1]; /* [key][value], value PV = NULL */
    memset(cnt, 0, sizeof cnt);
    uint64_t rng = 4242;
    for (int stepn = 0; stepn < 400; stepn++) {
        int nrows = 1 + (int)(rng % 7);
        for (int r = 0; r < nrows; r++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            int k = (int)((rng >> 33) % (PK + 1)), val = (int)((rng >> 40) % (PV + 1));
            int64_t w = cnt[k][val] > 0 && ((rng >> 50) % 5) < 2 ? -1 : 1;
            cnt[k][val] += w;
            char buf[64];
            char ks[16], vs[16];
            if (k == PK) snprintf(ks, sizeof ks, "NULL"); else snprintf(ks, sizeof ks, "%d", k);
            if (val == PV) snprintf(vs, sizeof vs, "NULL"); else snprintf(vs, sizeof vs, "%d", val * 3 - 20);
            snprintf(buf, sizeof buf, "%s|%s", ks, vs);
            push(&tb, s, w, buf);
        }
        assert_true(eng_step(tb.p, err, sizeof err));
        for (int k = 0; k <= PK; k++) {
            int64_t n = 0, nn = 0, sum = 0, nd = 0, sd = 0;
            int lo = 0, hi = 0;
            for (int val = 0; val <= PV; val++) {
                n += cnt[k][val];
                if (val == PV || cnt[k][val] == 0) continue;
                int x = val * 3 - 20;
                if (nn == 0 || x < lo) lo = x;
                if (nn == 0 || x > hi) hi = x;
                nn += cnt[k][val];
                sum += cnt[k][val] * x;
                nd++;
                sd += x;
            }
            char exp[128] = "";
            char ks[16];
            if (k == PK) snprintf(ks, sizeof ks, "NULL"); else snprintf(ks, sizeof ks, "%d", k);
            if (n > 0 && nn > 0)
                snprintf(exp, sizeof exp, "%s|%lld|%lld|%d|%d|%lld|%lld", ks, (long long)n, (long long)sum, lo, hi,
                         (long long)nd, (long long)sd);
            else if (n > 0)
                snprintf(exp, sizeof exp, "%s|%lld|NULL|NULL|NULL|0|NULL", ks, (long long)n);
            if (strcmp(exp, mt.rows[k]) != 0) fail_msg("step %d key %d: expected '%s', table '%s'", stepn, k, exp, mt.rows[k]);
        }
    }
    tb_fini(&tb);
}

static void test_serialize_roundtrip(void **state)
{
    (void)state;
    TB t1, t2;
    TB *tbs[2] = {&t1, &t2};
    int s = 0;
    for (int i = 0; i < 2; i++) {
        TB *tb = tbs[i];
        tb_init(tb);
        s = add_source(tb, "src", "k:txt,x:num,t:txt,f:f8,b:bool", FMT_JSON, -1);
        int m = add_model(tb, "agg");
        IrNode *src = n_source(tb, m, s, CL_RETRACT);
        Expr *g[1] = {ecol(tb, 0, T(T_TEXT))};
        const char *gn[1] = {"k"};
        AggDef aggs[7] = {
            {AGG_COUNT_STAR, NULL, false, NULL, T(T_INT8), "n"},
            {AGG_SUM, ecol(tb, 1, type_numeric(-1, -1)), false, NULL, type_numeric(-1, -1), "sx"},
            {AGG_MIN, ecol(tb, 2, T(T_TEXT)), false, NULL, T(T_TEXT), "lo"},
            {AGG_MAX, ecol(tb, 2, T(T_TEXT)), false, NULL, T(T_TEXT), "hi"},
            {AGG_COUNT, ecol(tb, 2, T(T_TEXT)), true, NULL, T(T_INT8), "nd"},
            {AGG_AVG, ecol(tb, 3, T(T_FLOAT8)), false, NULL, T(T_FLOAT8), "af"},
            {AGG_BOOL_OR, ecol(tb, 4, T(T_BOOL)), false, NULL, T(T_BOOL), "any"},
        };
        IrNode *a = n_agg(tb, m, src, g, gn, 1, aggs, 7);
        int key[1] = {0};
        set_root(tb, m, a, key, 1);
        start(tb);
    }
    push(&t1, s, 1, "a|1.5|pear|1|f");
    push(&t1, s, 1, "a|2|apple|2|t");
    push(&t1, s, 1, "a|2|apple|Infinity|t");
    push(&t1, s, 1, "b|NULL|NULL|NULL|NULL");
    push(&t1, s, 1, "NULL|0.001|zz|0|f");
    step(&t1);
    push(&t1, s, -1, "a|2|apple|2|t");
    step(&t1);

    Op *o1 = eng_pipeline_op(t1.p, 1);
    Op *o2 = eng_pipeline_op(t2.p, 1);
    assert_non_null(o1);
    assert_string_equal(o1->vt->kind, "aggregate");
    StrBuf b1 = STRBUF_INIT, b2 = STRBUF_INIT;
    assert_true(o1->vt->serialize(o1, &b1));
    char err[256] = "";
    /* bad input is rejected and leaves an empty state */
    assert_false(o2->vt->deserialize(o2, (const uint8_t *)b1.data, b1.len - 3, err, sizeof err));
    assert_non_null(strstr(err, "agg/aggregate0"));
    assert_false(o2->vt->deserialize(o2, (const uint8_t *)"junk", 4, err, sizeof err));
    assert_true(o2->vt->deserialize(o2, (const uint8_t *)b1.data, b1.len, err, sizeof err));
    assert_true(o2->vt->serialize(o2, &b2));
    assert_int_equal(b1.len, b2.len);
    assert_memory_equal(b1.data, b2.data, b1.len);

    int64_t by1 = 0, by2 = 0;
    assert_int_equal(stat_entries(&t1, "agg/aggregate0", &by1), 3);
    assert_int_equal(stat_entries(&t2, "agg/aggregate0", &by2), 3);

    /* both pipelines continue identically */
    const char *more[] = {"a|2|apple|Infinity|t", "a|1.5|pear|1|f", "c|3|kiwi|1|t", "NULL|0.001|zz|0|f"};
    for (int i = 0; i < 4; i++) {
        push(&t1, s, -1 + 2 * (i >= 2 && i != 3), more[i]);
        push(&t2, s, -1 + 2 * (i >= 2 && i != 3), more[i]);
    }
    char *r1 = xstrdup(step(&t1));
    const char *r2 = step(&t2);
    assert_string_equal(r1, r2);
    assert_string_equal(r1, "D a|2|3.5|apple|pear|2|Infinity|true; I c|1|3|kiwi|kiwi|1|1|true; D NULL|1|0.001|zz|zz|1|0|false");
    free(r1);
    assert_int_equal(stat_entries(&t2, "agg/aggregate0", NULL), 2);
    sb_free(&b1);
    sb_free(&b2);
    tb_fini(&t1);
    tb_fini(&t2);
}

/* Distinct and changelog-normalize state survive a serialize/deserialize round trip. */
static void test_serialize_distinct_normalize(void **state)
{
    (void)state;
    TB t1, t2;
    TB *tbs[2] = {&t1, &t2};
    int s = 0;
    IrNode *dn = NULL;
    for (int i = 0; i < 2; i++) {
        TB *tb = tbs[i];
        tb_init(tb);
        s = add_source(tb, "cdc", "id:i8,name:txt", FMT_CHANGELOG_JSON, 0);
        int m = add_model(tb, "names");
        IrNode *src = n_source(tb, m, s, CL_UPSERT);
        Expr *ps[1] = {ecol(tb, 1, T(T_TEXT))};
        const char *names[1] = {"name"};
        IrNode *pr = n_project(tb, m, src, ps, names, 1);
        dn = n_same_cols(tb, PL_DISTINCT, m, &pr, 1, CL_RETRACT);
        set_root(tb, m, dn, NULL, -1);
        start(tb);
    }
    char err[256];
    Value row[2];
    const char *ins[] = {"1|a", "2|a", "3|b", "4|NULL"};
    for (int i = 0; i < 4; i++) {
        parse_row(&t1, s, ins[i], row);
        assert_true(eng_source_upsert(t1.p, s, CHANGE_INSERT, row, NULL, INT64_MIN, err, sizeof err));
    }
    assert_string_equal(step(&t1), "I a; I b; I NULL");
    Op *ops1[2] = {eng_pipeline_normalize_op(t1.p, s), eng_pipeline_op(t1.p, dn->index)};
    Op *ops2[2] = {eng_pipeline_normalize_op(t2.p, s), eng_pipeline_op(t2.p, dn->index)};
    for (int k = 0; k < 2; k++) {
        StrBuf b1 = STRBUF_INIT;
        assert_true(ops1[k]->vt->serialize(ops1[k], &b1));
        assert_false(ops2[k]->vt->deserialize(ops2[k], (const uint8_t *)b1.data, b1.len - 1, err, sizeof err));
        assert_true(ops2[k]->vt->deserialize(ops2[k], (const uint8_t *)b1.data, b1.len, err, sizeof err));
        sb_free(&b1);
    }
    /* the restored pipeline knows the rows: deleting by key retracts them */
    for (int i = 0; i < 2; i++) {
        TB *tb = tbs[i];
        parse_row(tb, s, "1|NULL", row);
        assert_true(eng_source_upsert(tb->p, s, CHANGE_DELETE, row, NULL, INT64_MIN, err, sizeof err));
        parse_row(tb, s, "3|NULL", row);
        assert_true(eng_source_upsert(tb->p, s, CHANGE_DELETE, row, NULL, INT64_MIN, err, sizeof err));
        assert_string_equal(step(tb), "D b");
        assert_int_equal(stat_entries(tb, "source:cdc/changelog_normalize", NULL), 2);
    }
    tb_fini(&t1);
    tb_fini(&t2);
}

static void test_state_stats(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build_agg(&tb, &s, CL_RETRACT);
    start(&tb);
    int64_t b0 = 0, b1 = 0, b2 = 0;
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", &b0), 0);
    char buf[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(buf, sizeof buf, "%d|%d", i % 100, i);
        push(&tb, s, 1, buf);
    }
    step(&tb);
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", &b1), 100);
    assert_true(b1 > b0 + 100 * 64);
    for (int i = 0; i < 1000; i++) {
        snprintf(buf, sizeof buf, "%d|%d", i % 100, i);
        push(&tb, s, -1, buf);
    }
    step(&tb);
    assert_int_equal(stat_entries(&tb, "agg/aggregate0", &b2), 0);
    assert_true(b2 < b1);
    /* the count of states is returned even when max is smaller */
    EngStateStats st[1];
    assert_int_equal(eng_state_stats(tb.p, st, 0), 1);
    tb_fini(&tb);
}

static void test_unsupported_and_refs(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s = add_source(&tb, "src", "a:i8", FMT_JSON, -1);
    int m = add_model(&tb, "up");
    IrNode *src = n_source(&tb, m, s, CL_INSERT_ONLY);
    set_root(&tb, m, src, NULL, -1);
    int m2 = add_model(&tb, "down");
    IrNode *ref = n_same_cols(&tb, PL_REF, m2, &src, 1, CL_INSERT_ONLY);
    ref->plan->name = "up";
    IrNode *f = n_filter(&tb, m2, ref, eop(&tb, OP_GT, T(T_BOOL), ecol(&tb, 0, T(T_INT8)), eint(&tb, 1, T(T_INT8))));
    set_root(&tb, m2, f, NULL, -1);
    int m3 = add_model(&tb, "j");
    IrNode *ins[2] = {src, src};
    IrNode *j = n_same_cols(&tb, PL_JOIN, m3, ins, 2, CL_INSERT_ONLY); /* malformed: 1 output column */
    set_root(&tb, m3, j, NULL, -1);

    char err[256] = "";
    EngOptions o = {0};
    assert_null(eng_pipeline_new(&tb.g, &o, err, sizeof err));
    assert_non_null(strstr(err, "model 'j'"));
    assert_non_null(strstr(err, "join output has 1 columns"));

    /* only the wanted model (and what it reads) runs */
    bool wanted[3] = {false, true, false};
    o.models_wanted = wanted;
    o.listener = listener;
    o.listener_ctx = &tb;
    tb.p = eng_pipeline_new(&tb.g, &o, err, sizeof err);
    assert_non_null(tb.p);
    assert_null(eng_pipeline_op(tb.p, j->index));
    push(&tb, s, 1, "1");
    push(&tb, s, 1, "5");
    assert_string_equal(step(&tb), "up:I 1; up:I 5; down:I 5");

    /* watermarks are monotonic per source and reach the operators */
    eng_source_watermark(tb.p, s, 100);
    eng_source_watermark(tb.p, s, 50);
    step(&tb);
    assert_int_equal(eng_pipeline_op(tb.p, f->index)->wm, 100);
    eng_source_watermark(tb.p, s, INT64_MAX);
    step(&tb);
    assert_true(eng_pipeline_op(tb.p, f->index)->wm == INT64_MAX);
    tb_fini(&tb);
}

/* ---------- data structures ---------- */

static void test_keyed_table(void **state)
{
    (void)state;
    Type ty[2] = {T(T_INT8), T(T_TEXT)};
    KTab t;
    ktab_init(&t, 2, ty, sizeof(int64_t));
    enum { N = 5000 };
    static bool present[N];
    memset(present, 0, sizeof present);
    char txt[32];
    uint64_t rng = 12345;
    for (int round = 0; round < 40000; round++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        int k = (int)((rng >> 33) % N);
        Value key[2];
        key[0] = (k % 97 == 0) ? value_null() : value_int(k);
        snprintf(txt, sizeof txt, "key-%d", k);
        key[1] = (k % 89 == 0) ? value_null() : value_text(txt, (uint32_t)strlen(txt));
        uint64_t h = ktab_hash(&t, key);
        int64_t *pl = ktab_find(&t, key, h);
        assert_true((pl != NULL) == present[k]);
        if (pl) {
            assert_int_equal(*pl, k);
            if ((rng >> 20) & 1) {
                ktab_remove(&t, pl);
                present[k] = false;
            }
        } else {
            bool created;
            pl = ktab_upsert(&t, key, h, &created);
            assert_true(created);
            *pl = k;
            present[k] = true;
            const Value *sk = ktab_key(&t, pl);
            assert_true(ktab_cell_equal(ty[1], &sk[1], &key[1]));
        }
    }
    uint32_t count = 0, pos = 0;
    while (ktab_next(&t, &pos)) count++;
    assert_int_equal(count, t.count);
    ktab_fini(&t);
}

static void test_ordset(void **state)
{
    (void)state;
    OSet s = {0};
    int64_t bytes = 0;
    enum { N = 300 };
    int64_t mult[N] = {0};
    uint64_t rng = 99;
    Type t = T(T_INT8);
    for (int round = 0; round < 20000; round++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        int v = (int)((rng >> 33) % N);
        int64_t w = ((rng >> 13) & 3) == 0 && mult[v] > 0 ? -1 : 1;
        Value x = value_int(v);
        assert_int_equal(oset_add(&s, t, &x, w, &bytes), mult[v]);
        mult[v] += w;
        int lo = -1, hi = -1, distinct = 0;
        for (int i = 0; i < N; i++)
            if (mult[i]) {
                if (lo < 0) lo = i;
                hi = i;
                distinct++;
            }
        assert_int_equal(s.n, distinct);
        if (lo >= 0) {
            assert_int_equal(oset_min(&s)->i, lo);
            assert_int_equal(oset_max(&s)->i, hi);
        }
    }
    oset_clear(&s, t, &bytes);
    assert_int_equal(bytes, 0);
    assert_null(oset_min(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_project),
        cmocka_unit_test(test_aggregate_basic),
        cmocka_unit_test(test_aggregate_deferred),
        cmocka_unit_test(test_aggregate_insert_only_minmax),
        cmocka_unit_test(test_aggregate_distinct_bool),
        cmocka_unit_test(test_aggregate_numeric_float),
        cmocka_unit_test(test_aggregate_retraction_exactness),
        cmocka_unit_test(test_exact_float_sum),
        cmocka_unit_test(test_aggregate_interval),
        cmocka_unit_test(test_global_aggregate),
        cmocka_unit_test(test_distinct),
        cmocka_unit_test(test_union_all_keyless_order),
        cmocka_unit_test(test_keyed_presentation),
        cmocka_unit_test(test_changelog_normalize),
        cmocka_unit_test(test_keyless_updating_source),
        cmocka_unit_test(test_presentation_order_many),
        cmocka_unit_test(test_dead_letters),
        cmocka_unit_test(test_sum_overflow_dead_letter),
        cmocka_unit_test(test_aggregate_matches_recompute),
        cmocka_unit_test(test_serialize_roundtrip),
        cmocka_unit_test(test_serialize_distinct_normalize),
        cmocka_unit_test(test_state_stats),
        cmocka_unit_test(test_unsupported_and_refs),
        cmocka_unit_test(test_keyed_table),
        cmocka_unit_test(test_ordset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
