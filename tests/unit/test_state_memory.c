/* Unit tests for the memory of operator state: src/engine/row_codec.c (compact row
 * encoding: every type, NULLs, numerics that need both words, texts longer than one
 * LEB128 byte, identical cells after a round trip, equal bytes for identical rows) and
 * src/engine/pool.c (size classes recycle freed blocks, large blocks, accounting
 * returns to zero, blocks never overlap). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/op.h"
#include "engine/pool.h"
#include "engine/row_codec.h"

#include <stdlib.h>
#include <string.h>

static const TypeId kinds[] = {T_BOOL, T_INT2, T_INT4, T_INT8, T_FLOAT4, T_FLOAT8, T_NUMERIC,
                               T_TEXT, T_TIMESTAMP, T_TIMESTAMPTZ, T_DATE, T_INTERVAL};
#define NK ((int)(sizeof kinds / sizeof kinds[0]))

static Value sample(TypeId id, int variant, char *buf)
{
    switch (id) {
    case T_BOOL: return value_bool(variant & 1);
    case T_INT2: return value_int(variant ? -32768 : 32767);
    case T_INT4: return value_int(variant ? INT32_MIN : 2147483647);
    case T_INT8: return value_int(variant ? INT64_MIN : INT64_MAX);
    case T_FLOAT4: return value_float(variant ? -0.0 : 1.5);
    case T_FLOAT8: return value_float(variant ? 1e-300 : -12345.678);
    case T_NUMERIC: {
        i128 big = (i128)1 << 100;
        return value_numeric(variant ? -big - 7 : -15, variant ? 9 : 2);
    }
    case T_TEXT: {
        int n = variant ? 300 : 3;
        for (int i = 0; i < n; i++) buf[i] = (char)('a' + i % 26);
        return value_text(buf, (uint32_t)n);
    }
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ: return value_int(variant ? -62135596800000000LL : 1436918400123000LL);
    case T_DATE: return value_int(variant ? -719162 : 16631);
    case T_INTERVAL: return value_interval(variant ? -14 : 1, variant ? 3 : -2, variant ? -1 : 86399999999LL);
    default: return value_null();
    }
}

static void round_trip(void **state)
{
    (void)state;
    Type types[NK * 2];
    for (int i = 0; i < NK * 2; i++) types[i] = type_make(kinds[i % NK]);
    RowCodec c;
    rowc_init(&c, types, NK * 2);
    static char bufs[NK * 2][400];
    for (int variant = 0; variant < 2; variant++)
        for (int nullmask = 0; nullmask < 3; nullmask++) {
            Value row[NK * 2];
            for (int i = 0; i < NK * 2; i++) {
                row[i] = sample(kinds[i % NK], variant ^ (i >= NK), bufs[i]);
                if ((nullmask == 1 && i % 3 == 0) || (nullmask == 2 && i % 2 == 1)) row[i] = value_null();
            }
            size_t n = rowc_size(&c, row);
            uint8_t *enc = malloc(n);
            assert_int_equal(rowc_encode(&c, row, enc), n);
            Value back[NK * 2];
            rowc_decode(&c, enc, back);
            for (int i = 0; i < NK * 2; i++) {
                assert_int_equal(back[i].isnull, row[i].isnull);
                assert_true(op_cell_identical(types[i], &row[i], &back[i]));
            }
            /* identical rows encode to identical bytes */
            uint8_t *again = malloc(n);
            rowc_encode(&c, back, again);
            assert_memory_equal(enc, again, n);
            free(again);
            free(enc);
        }
    rowc_fini(&c);
}

static void compact(void **state)
{
    (void)state;
    /* bigint, timestamp, short text: 1 bitmap byte + 8 + 8 + 1 + 5 */
    Type types[3] = {type_make(T_INT8), type_make(T_TIMESTAMP), type_make(T_TEXT)};
    RowCodec c;
    rowc_init(&c, types, 3);
    Value row[3] = {value_int(42), value_int(1436918400000000LL), value_text("hello", 5)};
    assert_int_equal(rowc_size(&c, row), 23);
    row[2] = value_null();
    assert_int_equal(rowc_size(&c, row), 17);
    rowc_fini(&c);
}

static void pool_classes(void **state)
{
    (void)state;
    Pool p;
    pool_init(&p);
    enum { N = 5000 };
    void *blocks[N];
    size_t sizes[N];
    for (int i = 0; i < N; i++) {
        sizes[i] = (size_t)(1 + (i * 37) % 1500); /* small and large */
        blocks[i] = pool_alloc(&p, sizes[i]);
        assert_int_equal((uintptr_t)blocks[i] % 16, 0);
        memset(blocks[i], i & 0xff, sizes[i]);
    }
    for (int i = 0; i < N; i++) {
        const unsigned char *b = blocks[i];
        for (size_t k = 0; k < sizes[i]; k++) assert_int_equal(b[k], i & 0xff);
    }
    int64_t reserved = p.reserved;
    for (int i = 0; i < N; i += 2) pool_free(&p, blocks[i], sizes[i]);
    /* the freed small blocks are reused before the pool grows */
    for (int i = 0; i < N; i += 2)
        if (sizes[i] <= POOL_MAX_SMALL) blocks[i] = pool_alloc(&p, sizes[i]);
        else blocks[i] = NULL;
    int64_t large_after = 0;
    for (int i = 0; i < N; i += 2)
        if (sizes[i] > POOL_MAX_SMALL) large_after += (int64_t)(16 + ((sizes[i] + 15) & ~(size_t)15));
    assert_true(p.reserved <= reserved - large_after);
    for (int i = 0; i < N; i++)
        if (blocks[i]) pool_free(&p, blocks[i], sizes[i]);
    assert_int_equal(p.used, 0);
    pool_fini(&p);
    assert_int_equal(p.reserved, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(compact),
        cmocka_unit_test(pool_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
