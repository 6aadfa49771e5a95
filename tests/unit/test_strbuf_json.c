/* Unit tests for sb_json_str (src/base/strbuf.c), whose scan skips 8 plain bytes at a
 * time: random strings of plain, control, quote, backslash and high (UTF-8) bytes at
 * every length and offset, against a byte-at-a-time reference. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

static void ref_json(StrBuf *sb, const char *s, size_t n)
{
    sb_putc(sb, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': sb_puts(sb, "\\\""); break;
        case '\\': sb_puts(sb, "\\\\"); break;
        case '\n': sb_puts(sb, "\\n"); break;
        case '\r': sb_puts(sb, "\\r"); break;
        case '\t': sb_puts(sb, "\\t"); break;
        case '\b': sb_puts(sb, "\\b"); break;
        case '\f': sb_puts(sb, "\\f"); break;
        default:
            if (c < 0x20) sb_printf(sb, "\\u%04x", c);
            else sb_putc(sb, (char)c);
        }
    }
    sb_putc(sb, '"');
}

static uint64_t rng = 0x13198a2e03707344ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_json_str(void **state)
{
    (void)state;
    static const unsigned char specials[] = {'"', '\\', 0, 1, 0x1f, 0x20, 0x21, '\n', '\t',
                                             0x7f, 0x80, 0xc3, 0xa9, 0xff, 0x5b, 0x5d, 0x23};
    char buf[80];
    for (int iter = 0; iter < 100000; iter++) {
        size_t n = (size_t)(next() % 70);
        int density = (int)(next() % 4);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next();
            if (density && r % (unsigned)(density * 8) == 0) buf[i] = (char)specials[(r >> 8) % sizeof specials];
            else buf[i] = (char)('a' + (r >> 8) % 26);
        }
        size_t off = (size_t)(next() % 8);
        if (off > n) off = n;
        StrBuf a = STRBUF_INIT, b = STRBUF_INIT;
        sb_json_str(&a, buf + off, n - off);
        ref_json(&b, buf + off, n - off);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        sb_free(&a);
        sb_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
