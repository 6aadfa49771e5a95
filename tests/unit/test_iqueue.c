/* Unit tests for src/engine/iheap.c: the indexed heap and the expiry queue (a FIFO ring
 * for keys that arrive in order, the heap for the others). Random pushes, mostly in key
 * order with some out of order, random removals and pops are checked against a plain
 * array; ring slots marked by removal never come back; growth keeps the order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/iheap.h"

#include <stdlib.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#define N 5000

typedef struct Item {
    IHeapItem h;
    int64_t key;
    int queued;
} Item;

static Item items[N];

/* The smallest key among the queued items (reference), or INT64_MAX. */
static int64_t ref_min(void)
{
    int64_t m = INT64_MAX;
    for (int i = 0; i < N; i++)
        if (items[i].queued && items[i].key < m) m = items[i].key;
    return m;
}

static void run(int in_order_percent)
{
    IQueue q = {0};
    for (int i = 0; i < N; i++) {
        iheap_item_init(&items[i].h);
        items[i].queued = 0;
    }
    int64_t clock = 0;
    int used = 0;
    for (int step = 0; step < 40000; step++) {
        int op = (int)(next() % 10);
        if (op < 5 && used < N) {
            Item *it = &items[used++];
            clock += (int64_t)(next() % 3);
            it->key = (int)(next() % 100) < in_order_percent ? clock : clock - (int64_t)(next() % 50);
            it->queued = 1;
            iqueue_push(&q, &it->h, it->key);
        } else if (op < 7 && used > 0) {
            Item *it = &items[next() % (uint64_t)used];
            iqueue_remove(&q, &it->h);
            iqueue_remove(&q, &it->h); /* twice: a no-op */
            it->queued = 0;
            assert_int_equal(it->h.idx, -1);
        } else {
            IHeapItem *m = iqueue_min(&q);
            int64_t want = ref_min();
            if (want == INT64_MAX) {
                assert_null(m);
                continue;
            }
            assert_non_null(m);
            assert_int_equal(m->key, want);
            Item *it = (Item *)m;
            assert_true(it->queued);
            iqueue_remove(&q, m);
            it->queued = 0;
        }
    }
    /* drain: keys come out in order */
    int64_t prev = INT64_MIN;
    IHeapItem *m;
    while ((m = iqueue_min(&q))) {
        assert_true(m->key >= prev);
        assert_int_equal(m->key, ref_min());
        prev = m->key;
        ((Item *)m)->queued = 0;
        iqueue_remove(&q, m);
    }
    assert_int_equal(ref_min(), INT64_MAX);
    assert_true(iqueue_bytes(&q) > 0);
    iqueue_fini(&q);
}

static void in_order(void **state) { (void)state; run(100); }
static void mostly_in_order(void **state) { (void)state; run(90); }
static void shuffled(void **state) { (void)state; run(0); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_order),
        cmocka_unit_test(mostly_in_order),
        cmocka_unit_test(shuffled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
