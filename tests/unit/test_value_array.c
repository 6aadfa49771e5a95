/* Unit tests for arrays and json as values (src/base/value_array.c): PostgreSQL's text
 * output and input of one-dimensional arrays, their order / equality / hashing, casts,
 * JSON output, json input, to_json's text (value_format_pgjson), and that array and
 * json cells survive the engine's state encodings (row codec, checkpoint values).
 * Expected texts are PostgreSQL 15's (the SQL in the comments). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/value.h"
#include "engine/op.h"
#include "engine/row_codec.h"
#include "engine/agg_vitem.h"

#include <stdio.h>
#include <string.h>

static Arena arena;

static Type ty(const char *name)
{
    Type t;
    assert_true(type_parse(name, &t));
    return t;
}

static Value parse(Type t, const char *text)
{
    Value v;
    char err[256] = "";
    if (!value_parse(t, text, strlen(text), &arena, &v, err, sizeof err)) fail_msg("%s: %s", text, err);
    return v;
}

static const char *text_of(Type t, const Value *v)
{
    StrBuf sb = STRBUF_INIT;
    value_format_text(t, v, &sb);
    const char *s = arena_strndup(&arena, sb.len ? sb.data : "", sb.len);
    sb_free(&sb);
    return s;
}

static const char *json_of(Type t, const Value *v, bool pg)
{
    StrBuf sb = STRBUF_INIT;
    if (pg) value_format_pgjson(t, v, &sb);
    else value_format_json(t, v, &sb);
    const char *s = arena_strndup(&arena, sb.len ? sb.data : "", sb.len);
    sb_free(&sb);
    return s;
}

/* An array of elem from elements given as text (NULL: a NULL element). */
static Value make_array(Type elem, int n, const char *const *items)
{
    StrBuf sb = STRBUF_INIT;
    size_t start;
    array_begin(&sb, &start);
    for (int i = 0; i < n; i++) {
        Value v = items[i] ? parse(elem, items[i]) : value_null();
        array_push(&sb, elem, &v);
    }
    array_end(&sb, start, (uint32_t)n);
    Value a = value_text(arena_strndup(&arena, sb.data, sb.len), (uint32_t)sb.len);
    sb_free(&sb);
    return a;
}

static void test_type_names(void **state)
{
    (void)state;
    char buf[96];
    assert_string_equal(type_name(ty("bigint[]"), buf, sizeof buf), "bigint[]");
    assert_string_equal(type_name(ty("numeric(12,2)[]"), buf, sizeof buf), "numeric(12,2)[]");
    assert_string_equal(type_name(ty("timestamp[]"), buf, sizeof buf), "timestamp without time zone[]");
    assert_string_equal(type_name(ty("varchar(3) []"), buf, sizeof buf), "character varying(3)[]");
    assert_string_equal(type_name(ty("json"), buf, sizeof buf), "json");
    Type t;
    assert_false(type_parse("json[]", &t));
    assert_false(type_parse("int[][]", &t));
    assert_false(type_parse("int[", &t));
    assert_false(type_parse("[]", &t));
    assert_true(type_equal(ty("int[]"), ty("integer[]")));
    assert_false(type_equal(ty("int[]"), ty("bigint[]")));
    assert_false(type_equal(ty("numeric(5,2)[]"), ty("numeric[]")));
}

/* select array['a b','','NULL','null','x,y','q"u','b\s','{x}','plain',NULL,' lead','é'] */
static void test_text_output(void **state)
{
    (void)state;
    const char *items[] = {"a b", "", "NULL", "null", "x,y", "q\"u", "b\\s", "{x}", "plain", NULL, " lead", "\xc3\xa9",
                           "tab\there"};
    Value a = make_array(type_make(T_TEXT), 13, items);
    assert_string_equal(text_of(ty("text[]"), &a),
                        "{\"a b\",\"\",\"NULL\",\"null\",\"x,y\",\"q\\\"u\",\"b\\\\s\",\"{x}\",plain,NULL,\" lead\",\xc3\xa9,"
                        "\"tab\there\"}");
    /* booleans as boolout writes them; numerics keep their scale; timestamps quoted */
    const char *b[] = {"true", "false", NULL};
    Value ab = make_array(type_make(T_BOOL), 3, b);
    assert_string_equal(text_of(ty("boolean[]"), &ab), "{t,f,NULL}");
    const char *n[] = {"1.50", "-2", "0.000"};
    Value an = make_array(type_numeric(-1, -1), 3, n);
    assert_string_equal(text_of(ty("numeric[]"), &an), "{1.50,-2,0.000}");
    const char *ts[] = {"2024-01-01 10:00:00", "2024-01-01 10:00:00.5"};
    Value at = make_array(type_make(T_TIMESTAMP), 2, ts);
    assert_string_equal(text_of(ty("timestamp[]"), &at), "{\"2024-01-01 10:00:00\",\"2024-01-01 10:00:00.5\"}");
    const char *f[] = {"1.5", "NaN", "-Infinity", "1e20"};
    Value af = make_array(type_make(T_FLOAT8), 4, f);
    assert_string_equal(text_of(ty("float8[]"), &af), "{1.5,NaN,-Infinity,1e+20}");
    const char *iv[] = {"1 day", "-00:00:01"};
    Value ai = make_array(type_make(T_INTERVAL), 2, iv);
    assert_string_equal(text_of(ty("interval[]"), &ai), "{\"1 day\",-00:00:01}");
    Value empty = make_array(type_make(T_INT4), 0, NULL);
    assert_string_equal(text_of(ty("int[]"), &empty), "{}");
    assert_int_equal(array_count(&empty), 0);
}

/* select '{1, 2 ,NULL, "3"}'::int[], '{"a b",c\,d, "NULL", null}'::text[], ... */
static void test_text_input(void **state)
{
    (void)state;
    static const struct { const char *type, *in, *out; } ok[] = {
        {"int[]", "{1, 2 ,NULL, \"3\"}", "{1,2,NULL,3}"},
        {"int[]", " { } ", "{}"},
        {"text[]", "{\"a b\",c\\,d, \"NULL\", null}", "{\"a b\",\"c,d\",\"NULL\",NULL}"},
        {"text[]", "{ a b , c }", "{\"a b\",c}"},
        {"text[]", "{\"\"}", "{\"\"}"},
        {"text[]", "{\"a\\\\b\", \"c\\\"d\"}", "{\"a\\\\b\",\"c\\\"d\"}"},
        {"numeric(5,2)[]", "{1.005,2}", "{1.01,2.00}"},
        {"boolean[]", "{yes,off}", "{t,f}"},
        {"varchar(2)[]", "{ab,\"c \"}", "{ab,\"c \"}"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        Value v = parse(ty(ok[i].type), ok[i].in);
        assert_string_equal(text_of(ty(ok[i].type), &v), ok[i].out);
    }
    static const struct { const char *type, *in, *err; } bad[] = {
        {"int[]", "{1,2", "malformed array literal"},
        {"int[]", "1,2", "malformed array literal"},
        {"int[]", "{1,{2}}", "malformed array literal"},
        {"int[]", "{1,,2}", "malformed array literal"},
        {"int[]", "{1} x", "malformed array literal"},
        {"int[]", "{\"1\"2}", "malformed array literal"},
        {"int[]", "{a}", "invalid input syntax for type integer: \"a\""},
        {"int[]", "[1:2]={1,2}", "malformed array literal"},
        {"smallint[]", "{99999}", "value \"99999\" is out of range for type smallint"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Value v;
        char err[256] = "";
        assert_false(value_parse(ty(bad[i].type), bad[i].in, strlen(bad[i].in), &arena, &v, err, sizeof err));
        if (!strstr(err, bad[i].err)) fail_msg("%s: %s", bad[i].in, err);
    }
}

/* select array[1,2] < array[1,2,3], array[1,null] = array[1,null], array[1,null] > array[1,2],
 * '{}'::int[] < array[1], array[1.5] = array[1.50] */
static void test_order_equality_hash(void **state)
{
    (void)state;
    Type t = ty("numeric[]");
    const char *in[] = {"{}", "{-1}", "{1}", "{1,2}", "{1,2,3}", "{1,NULL}", "{2}", "{NULL}", "{NULL,1}"};
    size_t n = sizeof in / sizeof in[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            Value a = parse(t, in[i]), b = parse(t, in[j]);
            int c = value_compare(t, &a, &b);
            int want = (i > j) - (i < j);
            if ((c > 0) - (c < 0) != want) fail_msg("%s vs %s: %d", in[i], in[j], c);
            assert_int_equal(value_equal(t, &a, &b), i == j);
        }
    /* equal by value, different representations: equal, same hash */
    Value x = parse(t, "{1.5,NULL}"), y = parse(t, "{1.50,NULL}");
    assert_true(value_equal(t, &x, &y));
    assert_int_equal(value_compare(t, &x, &y), 0);
    assert_true(value_hash(t, &x, 7) == value_hash(t, &y, 7));
    Value z = parse(t, "{1.5}");
    assert_false(value_equal(t, &x, &z));
    /* a NULL array sorts last, as every NULL */
    Value nul = value_null();
    assert_true(value_compare(t, &x, &nul) < 0);
    /* texts compare bytewise (C collation) element by element */
    Type tt = ty("text[]");
    Value p = parse(tt, "{ab,c}"), q = parse(tt, "{abc}");
    assert_true(value_compare(tt, &p, &q) < 0);
}

static void test_casts(void **state)
{
    (void)state;
    char err[256];
    Value in = parse(ty("numeric[]"), "{1.5,2.5,NULL}"), out;
    assert_true(value_cast(ty("numeric[]"), ty("int[]"), &in, &arena, &out, err, sizeof err));
    assert_string_equal(text_of(ty("int[]"), &out), "{2,3,NULL}");   /* select '{1.5,2.5,NULL}'::numeric[]::int[] */
    assert_true(value_cast(ty("numeric[]"), type_make(T_TEXT), &in, &arena, &out, err, sizeof err));
    assert_int_equal(out.len, 14);
    assert_memory_equal(out.s, "{1.5,2.5,NULL}", 14);
    Value t = value_text("{a,b}", 5);
    assert_true(value_cast(type_make(T_TEXT), ty("varchar(1)[]"), &t, &arena, &out, err, sizeof err));
    assert_string_equal(text_of(ty("varchar(1)[]"), &out), "{a,b}");
    Value big = parse(ty("bigint[]"), "{99999}");
    assert_false(value_cast(ty("bigint[]"), ty("smallint[]"), &big, &arena, &out, err, sizeof err));
    assert_string_equal(err, "smallint out of range");
    assert_false(value_cast(ty("bigint[]"), type_make(T_INT8), &big, &arena, &out, err, sizeof err));
    assert_string_equal(err, "cannot cast type bigint[] to bigint");
}

static void test_json(void **state)
{
    (void)state;
    /* JSON sinks: arrays as JSON arrays of their elements' JSON */
    Value a = parse(ty("text[]"), "{x,\"q\\\"u\",NULL}");
    assert_string_equal(json_of(ty("text[]"), &a, false), "[\"x\",\"q\\\"u\",null]");
    Value n = parse(ty("numeric[]"), "{1.50,-2}");
    assert_string_equal(json_of(ty("numeric[]"), &n, false), "[1.50,-2]");
    /* json input is validated and kept as written; json output embeds it */
    Type j = type_make(T_JSON);
    Value v = parse(j, " {\"a\" : [1, 2.5e3, null, true, \"\\u00e9\"]} ");
    assert_string_equal(text_of(j, &v), " {\"a\" : [1, 2.5e3, null, true, \"\\u00e9\"]} ");
    assert_string_equal(json_of(j, &v, false), " {\"a\" : [1, 2.5e3, null, true, \"\\u00e9\"]} ");
    static const char *const bad[] = {"", "[1,", "{\"a\"}", "01", "[1,]", "tru", "\"\\x\"", "{\"a\":1,}", "1 2", "'a'"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[128];
        Value o;
        assert_false(value_parse(j, bad[i], strlen(bad[i]), &arena, &o, err, sizeof err));
    }
    /* to_json: select to_json('2024-01-01 10:00:00.5'::timestamp), ... (TimeZone UTC) */
    Value ts = parse(type_make(T_TIMESTAMP), "2024-01-01 10:00:00.5");
    assert_string_equal(json_of(type_make(T_TIMESTAMP), &ts, true), "\"2024-01-01T10:00:00.5\"");
    Value tz = parse(type_make(T_TIMESTAMPTZ), "2024-01-01 10:00:00+00");
    assert_string_equal(json_of(type_make(T_TIMESTAMPTZ), &tz, true), "\"2024-01-01T10:00:00+00:00\"");
    Value inf = parse(type_make(T_TIMESTAMP), "infinity");
    assert_string_equal(json_of(type_make(T_TIMESTAMP), &inf, true), "\"infinity\"");
    Value bc = parse(type_make(T_DATE), "0044-03-15 BC");
    assert_string_equal(json_of(type_make(T_DATE), &bc, true), "\"0044-03-15 BC\"");
    Value f = value_float(1e20);
    assert_string_equal(json_of(type_make(T_FLOAT8), &f, true), "1e+20");
    Value ats = parse(ty("timestamp[]"), "{\"2024-01-01 10:00:00\",NULL}");
    assert_string_equal(json_of(ty("timestamp[]"), &ats, true), "[\"2024-01-01T10:00:00\",null]");
    Value s = value_text("a\"b\n", 4);
    assert_string_equal(json_of(type_make(T_TEXT), &s, true), "\"a\\\"b\\n\"");
}

static void test_subscripts(void **state)
{
    (void)state;
    Type t = ty("text[]");
    Value a = parse(t, "{x,NULL,\"\"}");
    assert_int_equal(array_count(&a), 3);
    Value e = array_get(type_elem(t), &a, 1);
    assert_false(e.isnull);
    assert_memory_equal(e.s, "x", 1);
    assert_true(array_get(type_elem(t), &a, 2).isnull);
    e = array_get(type_elem(t), &a, 3);
    assert_false(e.isnull);
    assert_int_equal(e.len, 0);
    assert_true(array_get(type_elem(t), &a, 0).isnull);
    assert_true(array_get(type_elem(t), &a, 4).isnull);
    assert_true(array_get(type_elem(t), &a, -1).isnull);
}

/* Arrays and json through the row codec (join state) and the checkpoint value codec,
 * and a corrupt array refused when read back. */
static void test_codecs(void **state)
{
    (void)state;
    Type types[4] = {ty("numeric(12,2)[]"), type_make(T_JSON), ty("text[]"), type_make(T_INT8)};
    Value row[4] = {parse(types[0], "{1.50,NULL,-3}"), parse(types[1], "[1, {\"a\": null}]"), value_null(),
                    value_int(42)};
    RowCodec c;
    rowc_init(&c, types, 4);
    uint8_t buf[256], again[256];
    size_t n = rowc_size(&c, row);
    assert_true(n < sizeof buf);
    assert_int_equal(rowc_encode(&c, row, buf), n);
    Value back[4];
    rowc_decode(&c, buf, back);
    assert_true(op_rows_identical(types, 4, row, back));
    assert_int_equal(rowc_encode(&c, back, again), n);
    assert_memory_equal(buf, again, n);
    rowc_fini(&c);

    StrBuf sb = STRBUF_INIT;
    op_put_row(&sb, types, 4, row);
    OpReader r = {(const uint8_t *)sb.data, (const uint8_t *)sb.data + sb.len, false};
    Value got[4];
    op_get_row(&r, types, 4, got);
    assert_false(r.bad);
    assert_true(r.p == r.end);
    assert_true(op_rows_identical(types, 4, row, got));
    assert_string_equal(text_of(types[0], &got[0]), "{1.50,NULL,-3.00}");
    /* a truncated element count: the checkpoint is refused, not misread */
    sb_clear(&sb);
    Value bad = value_text("\x05\x00\x00\x00\x01", 5);
    op_put_value(&sb, types[2], &bad);
    OpReader r2 = {(const uint8_t *)sb.data, (const uint8_t *)sb.data + sb.len, false};
    Value v;
    op_get_value(&r2, types[2], &v);
    assert_true(r2.bad);
    sb_free(&sb);
    assert_false(array_valid(type_make(T_INT8), "\x01\x00\x00\x00\x01\x00", 6));
}

/* The packed items of array_agg / json_agg (agg_vitem.h): NULL values, the ORDER BY
 * key's direction and NULL placement, ties broken by the value. */
static void test_items(void **state)
{
    (void)state;
    char bufs[4][64];
    Value items[4];
    /* key (bigint, DESC, NULLS FIRST) then value (text) */
    struct { bool knull; int64_t k; const char *x; } in[4] = {{false, 1, "a"}, {true, 0, "b"}, {false, 5, NULL},
                                                              {false, 5, "c"}};
    for (int i = 0; i < 4; i++) {
        Value k = in[i].knull ? value_null() : value_int(in[i].k);
        Value x = in[i].x ? value_text(in[i].x, 1) : value_null();
        char *p = bufs[i];
        *p++ = 1;
        *p++ = 1;
        *p++ = AGG_VITEM_DESC | AGG_VITEM_NULLS_FIRST;
        p = agg_vitem_put_field(p, type_make(T_INT8), &k);
        p = agg_vitem_put_field(p, type_make(T_TEXT), &x);
        items[i] = value_text(bufs[i], (uint32_t)(p - bufs[i]));
        AggVItem it;
        assert_true(agg_vitem_unpack(items[i].s, items[i].len, &it));
        assert_int_equal(it.val[0].isnull, in[i].x == NULL);
    }
    /* NULL key first, then 5 (c before NULL value), then 1 */
    assert_true(agg_vitem_cmp(&items[1], &items[3]) < 0);
    assert_true(agg_vitem_cmp(&items[3], &items[2]) < 0);
    assert_true(agg_vitem_cmp(&items[2], &items[0]) < 0);
    assert_int_equal(agg_vitem_cmp(&items[0], &items[0]), 0);
    AggVItem it;
    assert_false(agg_vitem_unpack(items[0].s, items[0].len - 1, &it));
}

static int setup(void **state)
{
    (void)state;
    arena_init(&arena, 4096);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    arena_fini(&arena);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_text_output),
        cmocka_unit_test(test_text_input),
        cmocka_unit_test(test_order_equality_hash),
        cmocka_unit_test(test_casts),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_subscripts),
        cmocka_unit_test(test_codecs),
        cmocka_unit_test(test_items),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
