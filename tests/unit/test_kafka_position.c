/* Unit tests for the Kafka reader's checkpoint positions (src/connectors/kafka.c):
 * `weir inspect` reads the partitions' next offsets from positions written before the
 * reader kept each partition's last message (offsets only) and after (offsets, then
 * offset, timestamp and length of the last message per partition); anything else is
 * not a Kafka position. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/bytes.h"
#include "connectors/source.h"

#include <stdlib.h>

static void put_offsets(StrBuf *b, uint32_t n, int64_t first)
{
    bytes_put_u32(b, n);
    for (uint32_t i = 0; i < n; i++) bytes_put_u64(b, (uint64_t)(first + i));
}

static void check_offsets(const StrBuf *b, int want_n, int64_t first)
{
    int64_t *off = NULL;
    int n = -1;
    assert_true(kafka_position_offsets(b->data, b->len, &off, &n));
    assert_int_equal(n, want_n);
    for (int i = 0; i < n; i++) assert_int_equal(off[i], first + i);
    free(off);
}

static void test_offsets_only(void **state)
{
    (void)state;
    StrBuf b;
    sb_init(&b);
    put_offsets(&b, 3, 100);
    check_offsets(&b, 3, 100);
    sb_free(&b);
}

static void test_with_last_messages(void **state)
{
    (void)state;
    StrBuf b;
    sb_init(&b);
    put_offsets(&b, 2, 7);
    for (int i = 0; i < 2; i++) {
        bytes_put_u64(&b, (uint64_t)(6 + i));      /* last offset */
        bytes_put_u64(&b, 1767225600000ull);       /* its timestamp */
        bytes_put_u32(&b, 42);                     /* its length */
    }
    check_offsets(&b, 2, 7);
    sb_free(&b);
}

static void test_malformed(void **state)
{
    (void)state;
    StrBuf b;
    sb_init(&b);
    put_offsets(&b, 2, 0);
    bytes_put_u32(&b, 1);                          /* neither shape */
    int64_t *off = NULL;
    int n;
    assert_false(kafka_position_offsets(b.data, b.len, &off, &n));
    assert_false(kafka_position_offsets(b.data, 3, &off, &n));
    sb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets_only),
        cmocka_unit_test(test_with_last_messages),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
