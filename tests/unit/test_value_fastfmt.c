/* Unit tests for the hand-written timestamp / date text in src/base/value.c
 * (value_format_text / value_format_json): byte for byte timeutil's printf-based
 * tm_format_timestamp / tm_format_timestamptz / tm_format_date over a sweep of values,
 * including BC years, years beyond 9999, fractions and the infinities. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/strbuf.h"
#include "base/timeutil.h"
#include "base/value.h"

#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void check_one(TypeId id, int64_t x)
{
    Type t = {0};
    t.id = id;
    Value v = value_int(x);
    StrBuf a = STRBUF_INIT, b = STRBUF_INIT, ja = STRBUF_INIT;
    value_format_text(t, &v, &a);
    if (id == T_DATE) tm_format_date(x, &b);
    else if (id == T_TIMESTAMPTZ) tm_format_timestamptz(x, &b);
    else tm_format_timestamp(x, &b);
    if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
        fail_msg("type %d value %lld: got '%s', want '%s'", (int)id, (long long)x, sb_cstr(&a), sb_cstr(&b));
    value_format_json(t, &v, &ja);
    assert_int_equal(ja.len, b.len + 2);
    assert_memory_equal(ja.data + 1, b.data, b.len);
    sb_free(&a);
    sb_free(&b);
    sb_free(&ja);
}

static void test_datetime_text(void **state)
{
    (void)state;
    static const int64_t fixed[] = {
        0, 1, -1, 999999, 1000000, -1000000, 86399999999, 86400000000, -86400000000,
        1436918400000000, 1436918399999999, 1436918400000001, 1436918400100000,
        253402300799999999, 253402300800000000, /* 9999-12-31 23:59:59.999999, 10000-01-01 */
        -62135596800000000, -62135596800000001, /* 0001-01-01 and just before (BC) */
        -210866803200000000, /* 4714-11-24 BC */
        TM_INFINITY, TM_NEG_INFINITY,
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        check_one(T_TIMESTAMP, fixed[i]);
        check_one(T_TIMESTAMPTZ, fixed[i]);
    }
    for (int i = 0; i < 200000; i++) {
        uint64_t r = next();
        /* up to about +-285,000 years of 1970 (microseconds), then +-9,500 and +-285 */
        int64_t x = (int64_t)(r % 9000000000000000000ull);
        if (r >> 63) x = -x;
        if (i % 3 == 1) x /= 30;
        else if (i % 3 == 2) x /= 1000;
        if (i & 1) x -= x % 1000000; /* whole seconds too */
        check_one(T_TIMESTAMP, x);
        check_one(T_TIMESTAMPTZ, x);
        int64_t d = (int64_t)(next() % 8000000) - 4000000;
        check_one(T_DATE, d);
    }
    static const int64_t days[] = {0, -1, 1, 2932896, 2932897, -719162, -719163, -2440588,
                                   TM_INFINITY, TM_NEG_INFINITY};
    for (size_t i = 0; i < sizeof days / sizeof days[0]; i++) check_one(T_DATE, days[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datetime_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
