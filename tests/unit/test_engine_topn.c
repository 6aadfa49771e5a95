/* Unit tests of the top-N operator (src/engine/op_topn.c): ROW_NUMBER / RANK /
 * DENSE_RANK with rank changes under insertions and retractions, membership-only
 * output, deduplication keep-first / keep-last over insert-only input (state stays one
 * row per key), checkpoints, and a randomized comparison with a brute-force ranking. */
#include "test_engine_util.h"

/* scores(p, name, score) -> top-N per p by score (desc unless asc), name breaks no ties
 * (the whole row does). */
static IrNode *build(TB *tb, ChangelogMode mode, int64_t limit, int rank_kind, bool emit_rank, bool desc, int *s_out)
{
    int s = add_source(tb, "sc", "p:i8,name:txt,score:i8", mode == CL_INSERT_ONLY ? FMT_JSON : FMT_CHANGELOG_JSON, -1);
    int m = add_model(tb, "t");
    IrNode *src = n_source(tb, m, s, mode);
    int part[1] = {0}, ord[1] = {2};
    bool d[1] = {desc}, nf[1] = {desc};
    IrNode *t = n_topn(tb, m, src, part, 1, ord, d, nf, 1, limit, rank_kind, emit_rank);
    set_root(tb, m, t, NULL, -1);
    *s_out = s;
    return t;
}

static void test_row_number(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build(&tb, CL_RETRACT, 2, 0, true, true, &s);
    start(&tb);
    push(&tb, s, 1, "1|a|10");
    assert_string_equal(step(&tb), "I 1|a|10|1");
    push(&tb, s, 1, "1|b|20");
    assert_string_equal(step(&tb), "D 1|a|10|1; I 1|a|10|2; I 1|b|20|1");
    push(&tb, s, 1, "1|c|15");
    assert_string_equal(step(&tb), "D 1|a|10|2; I 1|c|15|2");
    push(&tb, s, -1, "1|b|20");
    assert_string_equal(step(&tb), "D 1|b|20|1; D 1|c|15|2; I 1|a|10|2; I 1|c|15|1");
    /* a tie on score: the whole row decides (c before d) */
    push(&tb, s, 1, "1|d|15");
    assert_string_equal(step(&tb), "D 1|a|10|2; I 1|d|15|2");
    /* below the cut: nothing */
    push(&tb, s, 1, "1|e|1");
    push(&tb, s, 1, "2|x|5");
    assert_string_equal(step(&tb), "I 2|x|5|1");
    /* NULL scores sort first in DESC (PostgreSQL: NULLS FIRST for DESC) */
    push(&tb, s, 1, "2|y|NULL");
    assert_string_equal(step(&tb), "D 2|x|5|1; I 2|x|5|2; I 2|y|NULL|1");
    /* duplicates take two row numbers */
    push(&tb, s, 1, "1|z|99");
    push(&tb, s, 1, "1|z|99");
    assert_string_equal(step(&tb), "D 1|c|15|1; D 1|d|15|2; I 1|z|99|1; I 1|z|99|2");
    push(&tb, s, -1, "1|z|99");
    assert_string_equal(step(&tb), "D 1|z|99|2; I 1|c|15|2");
    assert_int_equal(stat_entries(&tb, "t/topn0", NULL), 7);
    /* a partition emptied is freed */
    push(&tb, s, -1, "2|x|5");
    push(&tb, s, -1, "2|y|NULL");
    assert_string_equal(step(&tb), "D 2|x|5|2; D 2|y|NULL|1");
    assert_int_equal(stat_entries(&tb, "t/topn0", NULL), 5);
    tb_fini(&tb);
}

static void test_rank_dense_rank(void **state)
{
    (void)state;
    for (int kind = 1; kind <= 2; kind++) {
        TB tb;
        tb_init(&tb);
        int s;
        build(&tb, CL_RETRACT, 2, kind, true, true, &s);
        start(&tb);
        push(&tb, s, 1, "1|a|30");
        push(&tb, s, 1, "1|b|20");
        push(&tb, s, 1, "1|c|20");
        push(&tb, s, 1, "1|d|10");
        assert_string_equal(step(&tb), "I 1|a|30|1; I 1|b|20|2; I 1|c|20|2");
        push(&tb, s, 1, "1|e|25");
        assert_string_equal(step(&tb), "D 1|b|20|2; D 1|c|20|2; I 1|e|25|2");
        push(&tb, s, -1, "1|a|30");
        /* RANK: e 1, b and c 2; DENSE_RANK the same */
        assert_string_equal(step(&tb), "D 1|a|30|1; D 1|e|25|2; I 1|b|20|2; I 1|c|20|2; I 1|e|25|1");
        push(&tb, s, 1, "1|f|25");
        /* RANK: e, f 1; b, c 3 (out). DENSE_RANK: e, f 1; b, c 2 */
        assert_string_equal(step(&tb), kind == 1 ? "D 1|b|20|2; D 1|c|20|2; I 1|f|25|1" : "I 1|f|25|1");
        tb_fini(&tb);
    }
}

/* Without the rank column only membership changes are emitted. */
static void test_membership_only(void **state)
{
    (void)state;
    TB tb;
    tb_init(&tb);
    int s;
    build(&tb, CL_RETRACT, 2, 0, false, true, &s);
    start(&tb);
    push(&tb, s, 1, "1|a|10");
    push(&tb, s, 1, "1|b|20");
    assert_string_equal(step(&tb), "I 1|a|10; I 1|b|20");
    push(&tb, s, 1, "1|c|30");
    assert_string_equal(step(&tb), "D 1|a|10; I 1|c|30");
    push(&tb, s, -1, "1|b|20");
    push(&tb, s, 1, "1|b|25");
    assert_string_equal(step(&tb), "D 1|b|20; I 1|b|25");
    tb_fini(&tb);
}

/* Deduplication: ROW_NUMBER() ... = 1 over insert-only input. */
static void test_dedup(void **state)
{
    (void)state;
    for (int last = 0; last < 2; last++) {
        TB tb;
        tb_init(&tb);
        int s;
        build(&tb, CL_INSERT_ONLY, 1, 0, false, last, &s);
        start(&tb);
        push(&tb, s, 1, "1|a|100");
        push(&tb, s, 1, "1|b|101");
        push(&tb, s, 1, "2|c|100");
        assert_string_equal(step(&tb), last ? "I 1|b|101; I 2|c|100" : "I 1|a|100; I 2|c|100");
        push(&tb, s, 1, "1|d|102");
        assert_string_equal(step(&tb), last ? "D 1|b|101; I 1|d|102" : "");
        char buf[32];
        for (int i = 0; i < 100; i++) {
            snprintf(buf, sizeof buf, "%d|x|%d", i % 3, 200 + i);
            push(&tb, s, 1, buf);
        }
        step(&tb);
        /* one row per key is kept: the others can never rank again */
        assert_int_equal(stat_entries(&tb, "t/topn0", NULL), 3);
        push(&tb, s, -1, "1|a|100");
        char err[256] = "";
        assert_false(eng_step(tb.p, err, sizeof err));
        assert_non_null(strstr(err, "insert-only"));
        tb_fini(&tb);
    }
}

static void test_topn_serialize(void **state)
{
    (void)state;
    TB t1, t2;
    TB *tbs[2] = {&t1, &t2};
    int s = 0;
    IrNode *t = NULL;
    for (int i = 0; i < 2; i++) {
        tb_init(tbs[i]);
        t = build(tbs[i], CL_RETRACT, 2, 0, true, true, &s);
        start(tbs[i]);
    }
    const char *rows[] = {"1|a|10", "1|b|20", "1|b|20", "2|c|5", "NULL|d|NULL", "1|e|1"};
    for (int k = 0; k < 6; k++) push(&t1, s, 1, rows[k]);
    step(&t1);
    roundtrip(&t1, &t2, t->index);
    for (int i = 0; i < 2; i++) {
        push(tbs[i], s, -1, "1|b|20");
        push(tbs[i], s, 1, "2|f|7");
    }
    char *r1 = xstrdup(step(&t1));
    assert_string_equal(r1, step(&t2));
    assert_string_equal(r1, "D 1|b|20|2; D 2|c|5|1; I 1|a|10|2; I 2|c|5|2; I 2|f|7|1");
    free(r1);
    tb_fini(&t1);
    tb_fini(&t2);
}

/* ---------- randomized comparison ---------- */

typedef struct RRow {
    int p, score; /* score -1 = NULL */
    char name;
} RRow;

static int cmp_rrow(const RRow *a, const RRow *b, bool desc)
{
    /* score (NULLs first in DESC, last in ASC), then the whole row */
    if (a->score != b->score) {
        if (a->score < 0) return desc ? -1 : 1;
        if (b->score < 0) return desc ? 1 : -1;
        int c = a->score < b->score ? -1 : 1;
        return desc ? -c : c;
    }
    if (a->p != b->p) return a->p < b->p ? -1 : 1;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    return 0;
}

static void fmt_rrow(char *buf, size_t n, const RRow *r)
{
    if (r->score < 0) snprintf(buf, n, "%d|%c|NULL", r->p, r->name);
    else snprintf(buf, n, "%d|%c|%d", r->p, r->name, r->score);
}

static void run_random(int kind, bool emit_rank, int64_t limit, bool desc, uint64_t seed)
{
    Rnd *rd = calloc(1, sizeof *rd);
    TB *tb = &rd->tb;
    tb_init(tb);
    int s;
    build(tb, CL_RETRACT, limit, kind, emit_rank, desc, &s);
    EngOptions o = {0};
    o.listener = rnd_listener;
    o.listener_ctx = rd;
    char err[256] = "";
    tb->p = eng_pipeline_new(&tb->g, &o, err, sizeof err);
    if (!tb->p) fail_msg("pipeline: %s", err);
    enum { MAXR = 48 };
    RRow rows[MAXR];
    int nrows = 0;
    uint64_t st = seed;
    char buf[64], row[96];
    for (int stepn = 0; stepn < 300; stepn++) {
        int nch = 1 + (int)(rng_next(&st) % 3);
        for (int c = 0; c < nch; c++) {
            bool del = nrows > 0 && rng_next(&st) % 100 < (nrows > 20 ? 60 : 35);
            if (del) {
                int i = (int)(rng_next(&st) % (uint64_t)nrows);
                fmt_rrow(buf, sizeof buf, &rows[i]);
                push(tb, s, -1, buf);
                rows[i] = rows[--nrows];
            } else if (nrows < MAXR) {
                RRow r = {(int)(rng_next(&st) % 2), (int)(rng_next(&st) % 5) - 1, (char)('a' + rng_next(&st) % 3)};
                rows[nrows++] = r;
                fmt_rrow(buf, sizeof buf, &r);
                push(tb, s, 1, buf);
            }
        }
        if (!eng_step(tb->p, err, sizeof err)) fail_msg("step: %s", err);
        /* expected: sort each partition and rank */
        MS exp = {0};
        for (int p = 0; p < 2; p++) {
            RRow part[MAXR];
            int n = 0;
            for (int i = 0; i < nrows; i++)
                if (rows[i].p == p) part[n++] = rows[i];
            for (int i = 1; i < n; i++)
                for (int k = i; k > 0 && cmp_rrow(&part[k - 1], &part[k], desc) > 0; k--) {
                    RRow x = part[k];
                    part[k] = part[k - 1];
                    part[k - 1] = x;
                }
            int64_t rank = 0, dense = 0;
            for (int i = 0; i < n; i++) {
                bool peer = i > 0 && part[i].score == part[i - 1].score;
                int64_t rk = kind == 0 ? i + 1 : kind == 1 ? (peer ? rank : i + 1) : (peer ? dense : dense + 1);
                rank = kind == 1 ? rk : rank;
                dense = kind == 2 ? rk : dense;
                if (rk > limit) continue;
                fmt_rrow(row, sizeof row, &part[i]);
                if (emit_rank) snprintf(row + strlen(row), sizeof row - strlen(row), "|%lld", (long long)rk);
                ms_add(&exp, row, 1);
            }
        }
        if (!ms_equal(&exp, &rd->view))
            fail_msg("top-N kind %d rank %d limit %lld desc %d seed %llu: step %d differs from recomputation", kind,
                     emit_rank, (long long)limit, desc, (unsigned long long)seed, stepn);
        ms_free(&exp);
    }
    ms_free(&rd->view);
    tb_fini(tb);
    free(rd);
}

static void test_topn_random(void **state)
{
    (void)state;
    for (int kind = 0; kind < 3; kind++)
        for (int er = 0; er < 2; er++)
            for (int64_t limit = 1; limit <= 3; limit++)
                for (int desc = 0; desc < 2; desc++) run_random(kind, er, limit, desc, 17 * (uint64_t)limit + (uint64_t)kind);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_number),
        cmocka_unit_test(test_rank_dense_rank),
        cmocka_unit_test(test_membership_only),
        cmocka_unit_test(test_dedup),
        cmocka_unit_test(test_topn_serialize),
        cmocka_unit_test(test_topn_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
