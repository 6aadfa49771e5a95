/* Unit tests of the ClickHouse backend's text: quoting of identifiers and string
 * literals (any byte string stays one token), the masking of a password in messages,
 * type mapping, and expression translation (three-valued logic, integer division, the
 * refusals of what ClickHouse computes differently). The SQL against a real server is
 * tested by tests/scripts/clickhouse.sh and clickhouse_chdb.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "backends/clickhouse/ch_client.h"
#include "backends/clickhouse/ch_sql.h"

#include <string.h>

static void test_ident(void **st)
{
    (void)st;
    StrBuf b = STRBUF_INIT;
    ch_ident(&b, "plain");
    assert_string_equal(sb_cstr(&b), "`plain`");
    sb_clear(&b);
    ch_ident(&b, "a`b\\c; DROP TABLE x");
    assert_string_equal(sb_cstr(&b), "`a\\`b\\\\c; DROP TABLE x`");
    sb_clear(&b);
    ch_qual(&b, "db", "t");
    assert_string_equal(sb_cstr(&b), "`db`.`t`");
    sb_free(&b);
}

static void test_string_literal(void **st)
{
    (void)st;
    StrBuf b = STRBUF_INIT;
    const char raw[] = "it's \\ a\nb\tc\r\x01";
    ch_str(&b, raw, sizeof raw - 1);
    assert_string_equal(sb_cstr(&b), "'it\\'s \\\\ a\\nb\\tc\\r\\x01'");
    sb_clear(&b);
    ch_str(&b, "a\0b", 3);
    assert_string_equal(sb_cstr(&b), "'a\\0b'");
    sb_free(&b);
}

static void test_mask(void **st)
{
    (void)st;
    char msg[128] = "auth failed for s3cret: s3cret is wrong";
    ch_mask(msg, "s3cret");
    assert_string_equal(msg, "auth failed for ***: *** is wrong");
    char none[32] = "nothing here";
    ch_mask(none, "");
    assert_string_equal(none, "nothing here");
}

static void test_types(void **st)
{
    (void)st;
    Arena a;
    arena_init(&a, 4096);
    ChCaps old, cur;
    ch_caps_profile(false, &old);
    ch_caps_profile(true, &cur);
    const char *why = NULL;
    assert_string_equal(chx_type(type_numeric(12, 2), &old, false, &a, &why), "Nullable(Decimal(12, 2))");
    assert_string_equal(chx_type(type_make(T_TIMESTAMP), &old, true, &a, &why), "DateTime('UTC')");
    assert_string_equal(chx_type(type_make(T_TIMESTAMP), &cur, true, &a, &why), "DateTime64(6, 'UTC')");
    assert_null(chx_type(type_make(T_INTERVAL), &old, false, &a, &why));
    assert_non_null(strstr(why, "interval"));
    arena_fini(&a);
}

static Expr *op(Arena *a, int o, Type t, Expr *l, Expr *r)
{
    Expr *e = plan_expr_new(a, EX_OP, t, -1);
    e->op = o;
    e->nargs = 2;
    e->args = ARENA_ARRAY(a, Expr *, 2);
    e->args[0] = l;
    e->args[1] = r;
    return e;
}

static void test_expressions(void **st)
{
    (void)st;
    Arena a;
    arena_init(&a, 4096);
    ChCaps caps;
    ch_caps_profile(false, &caps);
    const char *env[] = {"`x`", "`y`"};
    const char *why = NULL;
    Type i4 = type_make(T_INT4), b = type_make(T_BOOL), num = type_numeric(12, 2);
    /* integer division truncates in both: intDiv */
    const char *s = chx_expr_str(op(&a, OP_DIV, i4, plan_expr_column(&a, 0, i4), plan_expr_column(&a, 1, i4)), env, 2,
                                 &caps, &a, &why);
    assert_string_equal(s, "intDiv(`x`, `y`)");
    /* numeric division: another scale in ClickHouse, refused with the reason */
    s = chx_expr_str(op(&a, OP_DIV, num, plan_expr_column(&a, 0, num), plan_expr_column(&a, 1, num)), env, 2, &caps, &a,
                     &why);
    assert_null(s);
    assert_non_null(strstr(why, "numeric division"));
    /* OR with PostgreSQL's three-valued logic */
    Expr *or = plan_expr_new(&a, EX_OR, b, -1);
    or->nargs = 2;
    or->args = ARENA_ARRAY(&a, Expr *, 2);
    or->args[0] = plan_expr_column(&a, 0, b);
    or->args[1] = plan_expr_column(&a, 1, b);
    s = chx_expr_str(or, env, 2, &caps, &a, &why);
    assert_string_equal(s, "multiIf(ifNull(`x`, 0) = 1 OR ifNull(`y`, 0) = 1, toNullable(toUInt8(1)), isNull(`x`) OR "
                           "isNull(`y`), NULL, toNullable(toUInt8(0)))");
    /* a text constant is one escaped literal */
    Value v = value_text("a'b", 3);
    s = chx_expr_str(plan_expr_const(&a, type_make(T_TEXT), v), env, 2, &caps, &a, &why);
    assert_string_equal(s, "'a\\'b'");
    arena_fini(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ident),       cmocka_unit_test(test_string_literal), cmocka_unit_test(test_mask),
        cmocka_unit_test(test_types),       cmocka_unit_test(test_expressions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
