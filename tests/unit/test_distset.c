/* Unit tests for src/engine/distset.c (the hash multiset behind DISTINCT aggregates):
 * random adds and retractions against a plain reference array, for bigint, text and
 * numeric values (1.50 and 1.5 are one value), with removals that exercise
 * backward-shift deletion; memory accounting returns to zero; the sorted walk is in
 * value_compare order; the pooled layout of text presence sets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/distset.h"

#include <stdio.h>
#include <string.h>

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#define NVAL 300
static int64_t ref[NVAL];

typedef struct WalkCtx { Type t; const Value *prev; int64_t total; uint32_t n; } WalkCtx;
static Value prevcopy;
static char prevbuf[32];
static void walk_fn(void *ctx, const Value *v, int64_t count)
{
    WalkCtx *w = ctx;
    if (w->prev) assert_true(value_compare(w->t, w->prev, v) < 0);
    assert_int_not_equal(count, 0);
    w->total += count;
    w->n++;
    prevcopy = *v;
    if (w->t.id == T_TEXT) {
        memcpy(prevbuf, v->s, v->len);
        prevcopy.s = prevbuf;
    }
    w->prev = &prevcopy;
}

static Value make(TypeId id, int k, char *buf, int variant)
{
    if (id == T_TEXT) {
        int n = snprintf(buf, 32, "v%d", k * 7919 % 1000);
        return value_text(buf, (uint32_t)n);
    }
    if (id == T_NUMERIC) {
        /* k/10 at scale 1 or scale 2 (same value) */
        Value v = {0};
        i128 x = variant ? (i128)k * 10 : (i128)k;
        v.lo = (uint64_t)x;
        v.hi = (int64_t)((unsigned __int128)x >> 64);
        v.scale = variant ? 2 : 1;
        return v;
    }
    return value_int((int64_t)k * 1000003 - 150000000);
}

static void run_type(TypeId id)
{
    Type t = type_make(id);
    DSet s;
    dset_init(&s, t, 1, false);
    int64_t bytes = 0;
    memset(ref, 0, sizeof ref);
    char buf[32];
    for (int step = 0; step < 200000; step++) {
        int k = (int)(next() % NVAL);
        int64_t w;
        if (ref[k] > 0 && next() % 2) w = -ref[k];          /* remove entirely */
        else w = (int64_t)(next() % 3) + 1 - (ref[k] > 0 && next() % 2 ? 2 : 0);
        if (w == 0) w = 1;
        Value v = make(id, k, buf, (int)(next() % 2));
        assert_int_equal(dset_count(&s, t, &v, 0), ref[k]);
        int64_t prev = dset_add(&s, t, &v, 0, w, NULL, &bytes);
        assert_int_equal(prev, ref[k]);
        ref[k] += w;
        if (step % 997 == 0) {
            uint32_t n = 0;
            int64_t total = 0;
            for (int j = 0; j < NVAL; j++) {
                if (ref[j]) n++;
                total += ref[j];
                Value q = make(id, j, buf, 0);
                assert_int_equal(dset_count(&s, t, &q, 0), ref[j]);
            }
            assert_int_equal(s.n, n);
            WalkCtx wc = {t, NULL, 0, 0};
            dset_walk_sorted(&s, t, 0, walk_fn, &wc);
            assert_int_equal(wc.n, n);
            assert_int_equal(wc.total, total);
        }
    }
    assert_true(bytes > 0);
    dset_clear(&s, t, NULL, &bytes);
    assert_int_equal(bytes, 0);
    assert_int_equal(s.n, 0);
}

/* Three counters over one set (DISTINCT calls sharing an argument, with different
 * filters): each counter matches its own reference; a value stays while any counter
 * holds it. */
static void test_shared_counters(void **state)
{
    (void)state;
    enum { W = 3 };
    Type t = type_make(T_TEXT);
    DSet s;
    dset_init(&s, t, W, false);
    int64_t bytes = 0;
    static int64_t refw[NVAL][W];
    memset(refw, 0, sizeof refw);
    char buf[32];
    for (int step = 0; step < 100000; step++) {
        int k = (int)(next() % NVAL);
        int64_t delta[W];
        for (int c = 0; c < W; c++) {
            int64_t d = (int64_t)(next() % 3) - 1;
            if (refw[k][c] + d < 0) d = 0;
            delta[c] = d;
        }
        Value v = make(T_TEXT, k, buf, 0);
        dset_apply(&s, t, &v, dset_hash(t, &v), delta, NULL, &bytes);
        for (int c = 0; c < W; c++) refw[k][c] += delta[c];
        if (step % 991 == 0) {
            uint32_t any = 0, per[W] = {0};
            for (int j = 0; j < NVAL; j++) {
                bool live = false;
                Value q = make(T_TEXT, j, buf, 0);
                for (int c = 0; c < W; c++) {
                    assert_int_equal(dset_count(&s, t, &q, (uint32_t)c), refw[j][c]);
                    if (refw[j][c]) {
                        per[c]++;
                        live = true;
                    }
                }
                any += live;
            }
            assert_int_equal(s.n, any);
            for (int c = 0; c < W; c++) {
                assert_int_equal(dset_size(&s, (uint32_t)c), per[c]);
                WalkCtx wc = {t, NULL, 0, 0};
                dset_walk_sorted(&s, t, (uint32_t)c, walk_fn, &wc);
                assert_int_equal(wc.n, per[c]);
            }
        }
    }
    dset_clear(&s, t, NULL, &bytes);
    assert_int_equal(bytes, 0);
}

/* A presence set (insert-only input): counters read 0 or 1 however often a value is
 * added, and each counter's bits are independent; for bigint the compact layout, for
 * text the general one. The sorted walk sees each value once. */
static void presence_type(TypeId id)
{
    Type t = type_make(id);
    DSet s;
    dset_init(&s, t, 2, true);
    assert_int_equal(s.compact, id == T_INT8);
    int64_t bytes = 0;
    char buf[32];
    for (int rep = 0; rep < 3; rep++)
        for (int k = 0; k < 1000; k++) {
            Value v = id == T_INT8 ? value_int(k * 7919 - 300000) : value_text(buf, (uint32_t)snprintf(buf, sizeof buf, "v%d", k));
            int64_t d[2] = {1, k % 2 ? 2 : 0};
            dset_apply(&s, t, &v, dset_hash(t, &v), d, NULL, &bytes);
        }
    assert_int_equal(s.n, 1000);
    assert_int_equal(dset_size(&s, 0), 1000);
    assert_int_equal(dset_size(&s, 1), 500);
    Value v7 = id == T_INT8 ? value_int(7 * 7919 - 300000) : value_text("v7", 2);
    Value v8 = id == T_INT8 ? value_int(8 * 7919 - 300000) : value_text("v8", 2);
    assert_int_equal(dset_count(&s, t, &v7, 0), 1);
    assert_int_equal(dset_count(&s, t, &v7, 1), 1);
    assert_int_equal(dset_count(&s, t, &v8, 1), 0);
    WalkCtx wc = {t, NULL, 0, 0};
    dset_walk_sorted(&s, t, 1, walk_fn, &wc);
    assert_int_equal(wc.n, 500);
    assert_int_equal(wc.total, 500);
    dset_clear(&s, t, NULL, &bytes);
    assert_int_equal(bytes, 0);
}

static void test_presence(void **state)
{
    (void)state;
    presence_type(T_INT8);
    presence_type(T_TEXT);
}

typedef struct Collect { char vals[64][300]; uint32_t lens[64]; int n; } Collect;
static void collect_fn(void *ctx, const Value *v, int64_t count)
{
    Collect *c = ctx;
    assert_int_equal(count, 1);
    assert_true(c->n < 64 && v->len < 300);
    memcpy(c->vals[c->n], v->s, v->len);
    c->lens[c->n++] = v->len;
}

/* The pooled layout (presence bits of text): sets of 0..40 values cross from the scan
 * (DSET_SMALL) to the index; the empty string and values of 200 bytes (two-byte
 * lengths); width 1 (one byte of bits) and 12 (a word); absent values are absent;
 * the sorted walk gives every value once, in order, and rebuilding a set from it (as a
 * checkpoint's restore does) gives an equal set; memory returns to zero, and ten
 * short values take one small block (no allocation per value). */
static void test_pooled(void **state)
{
    (void)state;
    Type t = type_make(T_TEXT);
    char big[200];
    memset(big, 'x', sizeof big);
    Pool pl = {0};
    for (uint32_t width = 1; width <= 12; width += 11)
        for (int n = 0; n <= 40; n++) {
            Pool *pp = width == 12 ? &pl : NULL;  /* the operator's pool, or malloc */
            DSet s;
            dset_init(&s, t, width, true);
            assert_true(s.pooled);
            int64_t bytes = 0;
            char buf[32];
            for (int rep = 0; rep < 2; rep++)
                for (int k = 0; k < n; k++) {
                    Value v = k == 0 ? value_text("", 0)
                              : k == 1 ? value_text(big, sizeof big)
                                       : value_text(buf, (uint32_t)snprintf(buf, sizeof buf, "m%d", k * 37));
                    int64_t d[12] = {0};
                    d[k % width] = 1;
                    d[width - 1] = 1;
                    dset_apply(&s, t, &v, dset_hash(t, &v), d, pp, &bytes);
                }
            assert_int_equal(s.n, n);
            assert_int_equal(dset_size(&s, width - 1), n);
            for (int k = 0; k < n + 5; k++) {
                Value v = k == 0 ? value_text("", 0)
                          : k == 1 ? value_text(big, sizeof big)
                                   : value_text(buf, (uint32_t)snprintf(buf, sizeof buf, "m%d", k * 37));
                assert_int_equal(dset_count(&s, t, &v, width - 1), k < n);
                Value w = value_text(buf, (uint32_t)snprintf(buf, sizeof buf, "z%d", k));
                assert_int_equal(dset_count(&s, t, &w, 0), 0);
            }
            Collect c = {.n = 0};
            dset_walk_sorted(&s, t, width - 1, collect_fn, &c);
            assert_int_equal(c.n, n);
            for (int i = 1; i < c.n; i++) {
                Value a = value_text(c.vals[i - 1], c.lens[i - 1]), b = value_text(c.vals[i], c.lens[i]);
                assert_true(value_compare(t, &a, &b) < 0);
            }
            DSet r;
            dset_init(&r, t, width, true);
            int64_t rbytes = 0;
            for (int i = 0; i < c.n; i++) {
                Value v = value_text(c.vals[i], c.lens[i]);
                assert_int_equal(dset_count(&r, t, &v, width - 1), 0);
                dset_add(&r, t, &v, width - 1, 1, pp, &rbytes);
            }
            assert_int_equal(r.n, s.n);
            Collect c2 = {.n = 0};
            dset_walk_sorted(&r, t, width - 1, collect_fn, &c2);
            assert_int_equal(c2.n, c.n);
            for (int i = 0; i < c.n; i++) {
                assert_int_equal(c2.lens[i], c.lens[i]);
                assert_memory_equal(c2.vals[i], c.vals[i], c.lens[i]);
            }
            dset_clear(&s, t, pp, &bytes);
            dset_clear(&r, t, pp, &rbytes);
            assert_int_equal(bytes, 0);
            assert_int_equal(rbytes, 0);
        }
    assert_int_equal(pl.used, 0);
    pool_fini(&pl);
    /* ten merchants of five bytes: one block of at most 112 bytes */
    DSet s;
    dset_init(&s, t, 1, true);
    int64_t bytes = 0;
    for (int k = 0; k < 10; k++) {
        char buf[8];
        Value v = value_text(buf, (uint32_t)snprintf(buf, sizeof buf, "m%04d", k * 997));
        int64_t d[1] = {1};
        dset_apply(&s, t, &v, dset_hash(t, &v), d, NULL, &bytes);
    }
    assert_int_equal(s.n, 10);
    assert_true(bytes <= 112);  /* 16 + 10 x (1 + 1 + 1 + 5) = 96 */
    dset_clear(&s, t, NULL, &bytes);
    assert_int_equal(bytes, 0);
}

static void test_bigint(void **state) { (void)state; run_type(T_INT8); }
static void test_text(void **state) { (void)state; run_type(T_TEXT); }
static void test_numeric(void **state) { (void)state; run_type(T_NUMERIC); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bigint),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_numeric),
        cmocka_unit_test(test_shared_counters),
        cmocka_unit_test(test_presence),
        cmocka_unit_test(test_pooled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
