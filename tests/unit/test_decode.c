/* Unit tests of the connectors: the JSON, CSV, changelog-json and debezium-json
 * decoders (every type, exact numerics, escapes, every error message), the line reader
 * (framing, CRLF, BOM, gzip, buffer lifetime), sources (on_error policies, dead-letter
 * lines, watermarks, updating formats) and the sinks (line formats, sqlite applying
 * inserts/updates/deletes, read back with sqlite3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/decimal.h"
#include "base/timeutil.h"
#include "connectors/dead_letter.h"
#include "connectors/decode.h"
#include "connectors/sink.h"
#include "connectors/source.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ------------------------------------------------------------------ fixtures */

enum { C_ID, C_QTY, C_SMALL, C_AMOUNT, C_BIG, C_RATIO, C_SCORE, C_FLAG, C_NAME, C_CODE, C_TS, C_TSTZ, C_DAY, C_SPAN, NCOLS };

static ColumnDef cols[NCOLS];

static void init_cols(void)
{
    static const char *names[NCOLS] = {"id", "qty", "small", "amount", "big", "ratio", "score",
                                       "flag", "name", "code", "created_at", "created_tz", "day", "span"};
    Type types[NCOLS] = {
        type_make(T_INT8), type_make(T_INT4), type_make(T_INT2), type_numeric(12, 2), type_make(T_NUMERIC),
        type_make(T_FLOAT4), type_make(T_FLOAT8), type_make(T_BOOL), type_make(T_TEXT),
        {T_TEXT, 5, -1, 0}, type_make(T_TIMESTAMP), type_make(T_TIMESTAMPTZ), type_make(T_DATE), type_make(T_INTERVAL),
    };
    for (int c = 0; c < NCOLS; c++) {
        memset(&cols[c], 0, sizeof cols[c]);
        cols[c].name = names[c];
        cols[c].type = types[c];
    }
}

typedef struct JFix {
    ConnJsonDecoder *d;
    Arena arena;
    Value row[NCOLS];
    char err[512];
} JFix;

static int jfix_setup(void **state)
{
    init_cols();
    JFix *f = calloc(1, sizeof *f);
    f->d = conn_json_new(cols, NCOLS, NULL);
    arena_init(&f->arena, 4096);
    *state = f;
    return 0;
}

static int jfix_teardown(void **state)
{
    JFix *f = *state;
    conn_json_free(f->d);
    arena_fini(&f->arena);
    free(f);
    return 0;
}

static bool jdec(JFix *f, const char *line)
{
    f->err[0] = '\0';
    return conn_json_decode(f->d, line, strlen(line), f->row, &f->arena, NULL, f->err, sizeof f->err);
}

static void jerr(JFix *f, const char *line, const char *msg)
{
    bool ok = jdec(f, line);
    if (ok) fail_msg("decoded but expected error: %s\n  line: %s", msg, line);
    assert_string_equal(f->err, msg);
}

static void assert_text(const Value *v, const char *s)
{
    assert_false(v->isnull);
    assert_int_equal(v->len, strlen(s));
    assert_memory_equal(v->s, s, strlen(s));
}

static void assert_num(const Value *v, int64_t n, int scale)
{
    assert_false(v->isnull);
    assert_true(value_num(v) == (i128)n);
    assert_int_equal(v->scale, scale);
}

static int64_t ts(const char *s)
{
    int64_t v;
    assert_true(tm_parse_timestamp(s, strlen(s), false, &v));
    return v;
}

/* ------------------------------------------------------------------ JSON: types */

static void json_all_types(void **state)
{
    JFix *f = *state;
    const char *line =
        "{\"id\": 42, \"qty\": -7, \"small\": 300, \"amount\": 15.5, \"big\": 123.4500, \"ratio\": 1.5,"
        " \"score\": -2.25e2, \"flag\": true, \"name\": \"widget\", \"code\": \"ab\","
        " \"created_at\": \"2024-01-01 00:00:01.250\", \"created_tz\": \"2024-01-01T00:00:01Z\","
        " \"day\": \"2024-02-29\", \"span\": \"1 day 02:00:00\"}";
    assert_true(jdec(f, line));
    assert_int_equal(f->row[C_ID].i, 42);
    assert_int_equal(f->row[C_QTY].i, -7);
    assert_int_equal(f->row[C_SMALL].i, 300);
    assert_num(&f->row[C_AMOUNT], 1550, 2);
    assert_num(&f->row[C_BIG], 1234500, 4);
    assert_true(f->row[C_RATIO].f == 1.5);
    assert_true(f->row[C_SCORE].f == -225.0);
    assert_int_equal(f->row[C_FLAG].i, 1);
    assert_text(&f->row[C_NAME], "widget");
    assert_text(&f->row[C_CODE], "ab");
    assert_int_equal(f->row[C_TS].i, ts("2024-01-01 00:00:01.25"));
    assert_int_equal(f->row[C_TSTZ].i, 1704067201000000LL);
    assert_int_equal(f->row[C_DAY].i, 19782);
    assert_int_equal(f->row[C_SPAN].iv.days, 1);
    assert_int_equal(f->row[C_SPAN].i, 7200000000LL);
    for (int c = 0; c < NCOLS; c++) assert_false(f->row[c].isnull);
}

static void json_nulls_and_absent(void **state)
{
    JFix *f = *state;
    assert_true(jdec(f, "{\"id\": null, \"name\": null}"));
    for (int c = 0; c < NCOLS; c++) assert_true(f->row[c].isnull);
    assert_true(jdec(f, "{}"));
    for (int c = 0; c < NCOLS; c++) assert_true(f->row[c].isnull);
    assert_true(jdec(f, "  \t{ }  \r"));
    /* a previous row's values never leak into the next */
    assert_true(jdec(f, "{\"id\": 1}"));
    assert_true(jdec(f, "{\"qty\": 2}"));
    assert_true(f->row[C_ID].isnull);
}

static void json_unknown_and_duplicate_keys(void **state)
{
    JFix *f = *state;
    assert_true(jdec(f, "{\"zzz\": {\"a\": [1, 2, {\"b\": null}], \"c\": \"\\u00e9\"}, \"id\": 1, \"other\": [true, false],"
                        " \"id\": 2, \"ID\": 3}"));
    assert_int_equal(f->row[C_ID].i, 2);
    /* an escaped key still finds its column */
    assert_true(jdec(f, "{\"\\u0069d\": 5}"));
    assert_int_equal(f->row[C_ID].i, 5);
}

static void json_integers(void **state)
{
    JFix *f = *state;
    assert_true(jdec(f, "{\"id\": \"12\"}"));
    assert_int_equal(f->row[C_ID].i, 12);
    assert_true(jdec(f, "{\"id\": \" -12 \"}"));
    assert_int_equal(f->row[C_ID].i, -12);
    assert_true(jdec(f, "{\"id\": \"+0012\"}"));
    assert_int_equal(f->row[C_ID].i, 12);
    assert_true(jdec(f, "{\"id\": \"-00000000000000000000009223372036854775808\"}"));
    assert_int_equal(f->row[C_ID].i, INT64_MIN);
    /* PostgreSQL's integer input: digits only, so these are dead letters, never
     * integers (1e-39 once read as 0 and a 42-digit 1.000...0001 as 1) */
    jerr(f, "{\"id\": 12.0}", "column id: expected bigint, found number 12.0");
    jerr(f, "{\"id\": 1e3}", "column id: expected bigint, found number 1e3");
    jerr(f, "{\"id\": 1e-39}", "column id: expected bigint, found number 1e-39");
    jerr(f, "{\"id\": 1.000000000000000000000000000000000000000001}",
         "column id: expected bigint, found number 1.00000000000000000000000000000000000000...");
    jerr(f, "{\"id\": \"1e-39\"}", "column id: expected bigint, found string \"1e-39\"");
    jerr(f, "{\"id\": \"12.0\"}", "column id: expected bigint, found string \"12.0\"");
    jerr(f, "{\"id\": \"0x10\"}", "column id: expected bigint, found string \"0x10\"");
    jerr(f, "{\"id\": \"1_000\"}", "column id: expected bigint, found string \"1_000\"");
    jerr(f, "{\"id\": \"+\"}", "column id: expected bigint, found string \"+\"");
    assert_true(jdec(f, "{\"id\": 9223372036854775807}"));
    assert_int_equal(f->row[C_ID].i, INT64_MAX);
    assert_true(jdec(f, "{\"id\": -9223372036854775808}"));
    assert_int_equal(f->row[C_ID].i, INT64_MIN);
    assert_true(jdec(f, "{\"small\": -32768, \"qty\": 2147483647}"));
    assert_int_equal(f->row[C_SMALL].i, -32768);
    assert_int_equal(f->row[C_QTY].i, 2147483647);
    jerr(f, "{\"id\": 9223372036854775808}", "column id: value out of range for bigint");
    jerr(f, "{\"id\": -9223372036854775809}", "column id: value out of range for bigint");
    jerr(f, "{\"id\": 123456789012345678901234567890}", "column id: value out of range for bigint");
    jerr(f, "{\"id\": 1e300}", "column id: expected bigint, found number 1e300");
    jerr(f, "{\"small\": 32768}", "column small: value out of range for smallint");
    jerr(f, "{\"qty\": -2147483649}", "column qty: value out of range for integer");
    jerr(f, "{\"id\": \"9223372036854775808\"}", "column id: value out of range for bigint");
    jerr(f, "{\"id\": 12.5}", "column id: expected bigint, found number 12.5");
    jerr(f, "{\"id\": \"abc\"}", "column id: expected bigint, found string \"abc\"");
    jerr(f, "{\"id\": \"\"}", "column id: expected bigint, found string \"\"");
    jerr(f, "{\"id\": true}", "column id: expected bigint, found boolean true");
    jerr(f, "{\"id\": {\"a\": 1}}", "column id: expected bigint, found object");
    jerr(f, "{\"id\": [1]}", "column id: expected bigint, found array");
}

static void json_exact_numerics(void **state)
{
    JFix *f = *state;
    /* 0.1 and 0.2 stay exact: 10 and 20 hundredths, never 0.1000000000000000055... */
    assert_true(jdec(f, "{\"amount\": 0.1, \"big\": 0.2}"));
    assert_num(&f->row[C_AMOUNT], 10, 2);
    assert_num(&f->row[C_BIG], 2, 1);
    i128 sum;
    int ss;
    assert_true(dec_add(value_num(&f->row[C_AMOUNT]), 2, value_num(&f->row[C_BIG]), 1, &sum, &ss));
    char buf[DEC_FMT_BUFSIZE];
    dec_format_buf(sum, ss, buf);
    assert_string_equal(buf, "0.30");
    /* rounding to the column scale as PostgreSQL's input does: half away from zero */
    assert_true(jdec(f, "{\"amount\": \"12.345\"}"));
    assert_num(&f->row[C_AMOUNT], 1235, 2);
    assert_true(jdec(f, "{\"amount\": 12.345}"));
    assert_num(&f->row[C_AMOUNT], 1235, 2);
    assert_true(jdec(f, "{\"amount\": -12.345}"));
    assert_num(&f->row[C_AMOUNT], -1235, 2);
    assert_true(jdec(f, "{\"amount\": 12.344999999999999999999}"));
    assert_num(&f->row[C_AMOUNT], 1234, 2);
    assert_true(jdec(f, "{\"amount\": 15}"));
    assert_num(&f->row[C_AMOUNT], 1500, 2);
    assert_true(jdec(f, "{\"amount\": 1.5e2}"));
    assert_num(&f->row[C_AMOUNT], 15000, 2);
    assert_true(jdec(f, "{\"amount\": \" 9999999999.99 \"}"));
    assert_num(&f->row[C_AMOUNT], 999999999999LL, 2);
    jerr(f, "{\"amount\": 10000000000}", "column amount: value out of range for numeric(12,2)");
    jerr(f, "{\"amount\": 9999999999.995}", "column amount: value out of range for numeric(12,2)");
    jerr(f, "{\"amount\": \"abc\"}", "column amount: expected numeric, found string \"abc\"");
    jerr(f, "{\"amount\": \"NaN\"}", "column amount: expected numeric, found string \"NaN\"");
    jerr(f, "{\"amount\": false}", "column amount: expected numeric, found boolean false");
    /* unconstrained numeric keeps every digit (more than a double holds) */
    assert_true(jdec(f, "{\"big\": 12345678901234567890.123456789}"));
    assert_false(f->row[C_BIG].isnull);
    assert_int_equal(f->row[C_BIG].scale, 9);
    dec_format_buf(value_num(&f->row[C_BIG]), f->row[C_BIG].scale, buf);
    assert_string_equal(buf, "12345678901234567890.123456789");
    assert_true(jdec(f, "{\"big\": \"-0.000001\"}"));
    assert_num(&f->row[C_BIG], -1, 6);
    /* weir's numeric holds 38 digits: a value it cannot hold exactly is refused, never
     * rounded (1e-39 and a 42-digit fraction once read as 0 and 1) */
    static const char *const too_big[] = {"1e40", "1e-39", "\"1e-39\"", "1.000000000000000000000000000000000000000001",
                                          "12345678901234567890.1234567890123456789"};
    for (int i = 0; i < 5; i++) {
        char line[128];
        snprintf(line, sizeof line, "{\"big\": %s}", too_big[i]);
        jerr(f, line, "column big: value out of range for numeric: weir's numeric holds 38 digits, at most 38 of "
                      "them after the point");
    }
    assert_true(jdec(f, "{\"big\": 1e-38}"));
    assert_num(&f->row[C_BIG], 1, 38);
    assert_true(jdec(f, "{\"big\": \"1.50e1\"}"));
    assert_num(&f->row[C_BIG], 150, 1);
    /* a constrained numeric rounds as PostgreSQL does, however many digits come */
    assert_true(jdec(f, "{\"amount\": 1.000000000000000000000000000000000000000001}"));
    assert_num(&f->row[C_AMOUNT], 100, 2);
    assert_true(jdec(f, "{\"amount\": 1e-39}"));
    assert_num(&f->row[C_AMOUNT], 0, 2);
}

static void json_floats_and_bools(void **state)
{
    JFix *f = *state;
    assert_true(jdec(f, "{\"score\": 0.1, \"ratio\": 0.1}"));
    assert_true(f->row[C_SCORE].f == 0.1);
    assert_true(f->row[C_RATIO].f == (double)0.1f);
    assert_true(jdec(f, "{\"score\": \"NaN\", \"ratio\": \"-Infinity\"}"));
    assert_true(isnan(f->row[C_SCORE].f));
    assert_true(isinf(f->row[C_RATIO].f) && f->row[C_RATIO].f < 0);
    assert_true(jdec(f, "{\"score\": 12}"));
    assert_true(f->row[C_SCORE].f == 12.0);
    jerr(f, "{\"score\": 1e400}", "column score: value out of range for double precision");
    jerr(f, "{\"ratio\": 1e39}", "column ratio: value out of range for real");
    jerr(f, "{\"score\": \"x1\"}", "column score: expected double precision, found string \"x1\"");
    /* C's hexadecimal floats are not PostgreSQL's syntax (glibc's strtod reads them) */
    jerr(f, "{\"score\": \"0x10\"}", "column score: expected double precision, found string \"0x10\"");
    jerr(f, "{\"ratio\": \"0x1p3\"}", "column ratio: expected real, found string \"0x1p3\"");
    jerr(f, "{\"score\": \"nan(1)\"}", "column score: expected double precision, found string \"nan(1)\"");
    assert_true(jdec(f, "{\"score\": \" -inf \", \"ratio\": \"+NaN\"}"));
    assert_true(isinf(f->row[C_SCORE].f) && f->row[C_SCORE].f < 0);
    assert_true(isnan(f->row[C_RATIO].f));
    assert_true(jdec(f, "{\"score\": \".5e-1\"}"));
    assert_true(f->row[C_SCORE].f == 0.05);
    assert_true(jdec(f, "{\"flag\": false}"));
    assert_int_equal(f->row[C_FLAG].i, 0);
    assert_true(jdec(f, "{\"flag\": \"yes\"}"));
    assert_int_equal(f->row[C_FLAG].i, 1);
    assert_true(jdec(f, "{\"flag\": \"OFF\"}"));
    assert_int_equal(f->row[C_FLAG].i, 0);
    /* a number's text through boolean input, as PostgreSQL's json_populate_record */
    assert_true(jdec(f, "{\"flag\": 1}"));
    assert_int_equal(f->row[C_FLAG].i, 1);
    assert_true(jdec(f, "{\"flag\": 0}"));
    assert_int_equal(f->row[C_FLAG].i, 0);
    jerr(f, "{\"flag\": 2}", "column flag: expected boolean, found number 2");
    jerr(f, "{\"flag\": 1.0}", "column flag: expected boolean, found number 1.0");
    jerr(f, "{\"flag\": \"maybe\"}", "column flag: expected boolean, found string \"maybe\"");
    jerr(f, "{\"flag\": \"o\"}", "column flag: expected boolean, found string \"o\"");
}

static void json_text_escapes_unicode(void **state)
{
    JFix *f = *state;
    assert_true(jdec(f, "{\"name\": \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"}"));
    assert_text(&f->row[C_NAME], "a\"b\\c/d\b\f\n\r\t");
    assert_true(jdec(f, "{\"name\": \"caf\\u00e9 \\u20AC\"}"));
    assert_text(&f->row[C_NAME], "caf\xC3\xA9 \xE2\x82\xAC");
    assert_true(jdec(f, "{\"name\": \"\\ud83d\\ude00!\"}"));
    assert_text(&f->row[C_NAME], "\xF0\x9F\x98\x80!");
    assert_true(jdec(f, "{\"name\": \"h\xC3\xA9llo \xF0\x9F\x98\x80\"}"));
    assert_text(&f->row[C_NAME], "h\xC3\xA9llo \xF0\x9F\x98\x80");
    assert_true(jdec(f, "{\"name\": \"\"}"));
    assert_text(&f->row[C_NAME], "");
    /* scalars and nested values in a text column keep their JSON text */
    assert_true(jdec(f, "{\"name\": 12.50}"));
    assert_text(&f->row[C_NAME], "12.50");
    assert_true(jdec(f, "{\"name\": true}"));
    assert_text(&f->row[C_NAME], "true");
    assert_true(jdec(f, "{\"name\": {\"a\": [1, \"x\"]}}"));
    assert_text(&f->row[C_NAME], "{\"a\": [1, \"x\"]}");
    assert_true(jdec(f, "{\"name\": [ ]}"));
    assert_text(&f->row[C_NAME], "[ ]");
    jerr(f, "{\"name\": \"\\ud83d\"}", "invalid JSON at byte 11: unpaired Unicode surrogate");
    jerr(f, "{\"name\": \"\\ude00\"}", "invalid JSON at byte 11: unpaired Unicode surrogate");
    jerr(f, "{\"name\": \"\\ud83d\\u0041\"}", "invalid JSON at byte 11: unpaired Unicode surrogate");
    jerr(f, "{\"name\": \"\\u12G4\"}", "invalid JSON at byte 11: invalid \\u escape");
    jerr(f, "{\"name\": \"\\u12\"}", "invalid JSON at byte 11: invalid \\u escape");
    jerr(f, "{\"name\": \"\\u12", "invalid JSON at byte 11: truncated \\u escape");
    jerr(f, "{\"name\": \"\\x\"}", "invalid JSON at byte 11: invalid escape in string");
    jerr(f, "{\"name\": \"a\xFF\"}", "invalid JSON at byte 12: invalid UTF-8 in string");
    jerr(f, "{\"name\": \"\xC0\xAF\"}", "invalid JSON at byte 11: invalid UTF-8 in string");
    jerr(f, "{\"name\": \"\xED\xA0\x80\"}", "invalid JSON at byte 11: invalid UTF-8 in string");
    jerr(f, "{\"name\": \"a\tb\"}", "invalid JSON at byte 12: control character in string");
    jerr(f, "{\"name\": \"\\u0000\"}", "column name: \\u0000 cannot be stored in a text value");
    /* varchar(5) */
    assert_true(jdec(f, "{\"code\": \"h\xC3\xA9llo\"}"));
    assert_text(&f->row[C_CODE], "h\xC3\xA9llo");
    assert_true(jdec(f, "{\"code\": \"abc   \"}"));
    assert_text(&f->row[C_CODE], "abc  ");
    jerr(f, "{\"code\": \"abcdef\"}", "column code: value too long for type character varying(5)");
}

static void json_zero_copy_and_copy(void **state)
{
    JFix *f = *state;
    const char *line = "{\"name\": \"plain\", \"code\": \"e\\n\"}";
    assert_true(jdec(f, line));
    /* no escapes: the cell points into the record */
    assert_true(f->row[C_NAME].s >= line && f->row[C_NAME].s < line + strlen(line));
    /* escapes: unescaped into the arena */
    assert_false(f->row[C_CODE].s >= line && f->row[C_CODE].s < line + strlen(line));
    assert_text(&f->row[C_CODE], "e\n");
    conn_json_set_copy_text(f->d, true);
    assert_true(jdec(f, line));
    assert_false(f->row[C_NAME].s >= line && f->row[C_NAME].s < line + strlen(line));
    assert_text(&f->row[C_NAME], "plain");
    conn_json_set_copy_text(f->d, false);
}

static void json_timestamps(void **state)
{
    JFix *f = *state;
    /* the fast path agrees with the general parser */
    const char *samples[] = {"1970-01-01 00:00:00", "2024-01-01 00:00:01.250", "2024-02-29T23:59:59.999999",
                             "1900-03-01 12:00:00.5", "0001-01-01 00:00:00", "9999-12-31 23:59:59.123456",
                             "2000-02-29 00:00:00.000", "1969-12-31 23:59:59.999"};
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        int64_t fast;
        assert_true(conn_fast_timestamp(samples[i], strlen(samples[i]), &fast));
        assert_int_equal(fast, ts(samples[i]));
    }
    int32_t days;
    int64_t d2;
    assert_true(conn_fast_date("1999-12-31", 10, &days));
    assert_true(tm_parse_date("1999-12-31", 10, &d2));
    assert_int_equal(days, d2);
    /* forms the fast path leaves to the general parser */
    assert_true(jdec(f, "{\"created_at\": \"2024-01-01T00:00:01Z\"}"));
    assert_int_equal(f->row[C_TS].i, ts("2024-01-01 00:00:01"));
    assert_true(jdec(f, "{\"created_at\": \"2024-01-01\"}"));
    assert_int_equal(f->row[C_TS].i, ts("2024-01-01 00:00:00"));
    assert_true(jdec(f, "{\"created_tz\": \"2024-01-01 02:00:01+02:00\"}"));
    assert_int_equal(f->row[C_TSTZ].i, 1704067201000000LL);
    assert_true(jdec(f, "{\"created_at\": \"2024-01-01 00:00:01.1234567\"}"));
    assert_int_equal(f->row[C_TS].i, ts("2024-01-01 00:00:01.123457"));
    int64_t x;
    assert_false(conn_fast_timestamp("2024-02-30 00:00:00", 19, &x));
    assert_false(conn_fast_timestamp("2023-02-29 00:00:00", 19, &x));
    assert_false(conn_fast_timestamp("2024-01-01 24:00:00", 19, &x));
    assert_false(jdec(f, "{\"created_at\": \"2024-13-01 00:00:00\"}"));
    assert_non_null(strstr(f->err, "column created_at: "));
    assert_false(jdec(f, "{\"created_at\": \"yesterday-ish\"}"));
    assert_non_null(strstr(f->err, "column created_at: "));
    jerr(f, "{\"created_at\": 1704067201}",
         "column created_at: invalid input syntax for type timestamp: \"1704067201\"");
    /* ISO 8601's basic date form, as PostgreSQL reads a number into a timestamp */
    assert_true(jdec(f, "{\"created_at\": 20240101}"));
    assert_int_equal(f->row[C_TS].i, ts("2024-01-01 00:00:00"));
    jerr(f, "{\"day\": true}", "column day: expected date, found boolean true");
    assert_true(jdec(f, "{\"span\": \"10 seconds\"}"));
    assert_int_equal(f->row[C_SPAN].i, 10000000);
    assert_false(jdec(f, "{\"span\": \"ten\"}"));
    assert_non_null(strstr(f->err, "column span: "));
}

static void json_syntax_errors(void **state)
{
    JFix *f = *state;
    jerr(f, "[1, 2]", "not a JSON object");
    jerr(f, "\"x\"", "not a JSON object");
    jerr(f, "12", "not a JSON object");
    jerr(f, "null", "not a JSON object");
    jerr(f, "x", "invalid JSON at byte 1: unexpected character 'x', expected '{'");
    jerr(f, "", "invalid JSON at byte 1: unexpected end of data, expected '{'");
    jerr(f, "{\"id\": 1", "invalid JSON at byte 9: unexpected end of data, expected ',' or '}'");
    jerr(f, "{\"id\": 1} x", "invalid JSON at byte 11: unexpected data after the object");
    jerr(f, "{\"id\" 1}", "invalid JSON at byte 7: unexpected character '1', expected ':' after a key");
    jerr(f, "{id: 1}", "invalid JSON at byte 2: unexpected character 'i', expected a string key");
    jerr(f, "{\"id\": 1,}", "invalid JSON at byte 10: unexpected character '}', expected a string key");
    jerr(f, "{\"id\": tru}", "invalid JSON at byte 8: invalid literal");
    jerr(f, "{\"flag\": nul}", "invalid JSON at byte 10: invalid literal");
    jerr(f, "{\"id\": 01}", "invalid JSON at byte 9: unexpected character '1', expected ',' or '}'");
    jerr(f, "{\"id\": -}", "invalid JSON at byte 8: invalid number");
    jerr(f, "{\"id\": 1.}", "invalid JSON at byte 10: invalid number: expected a digit after '.'");
    jerr(f, "{\"id\": 1e}", "invalid JSON at byte 10: invalid number: expected a digit in the exponent");
    jerr(f, "{\"id\": .5}", "invalid JSON at byte 8: unexpected character '.', expected a value");
    jerr(f, "{\"name\": \"abc}", "invalid JSON at byte 10: unterminated string");
    jerr(f, "{\"x\": [1, 2}", "invalid JSON at byte 12: unexpected character '}', expected ',' or ']'");
    jerr(f, "{\"x\": {\"a\" 1}}", "invalid JSON at byte 12: unexpected character '1', expected ':'");
    jerr(f, "{\"id\": 1 \"qty\": 2}", "invalid JSON at byte 10: unexpected character '\"', expected ',' or '}'");
    jerr(f, "{\"id\": \x01}", "invalid JSON at byte 8: unexpected byte 0x01, expected a value");
    /* nesting is bounded */
    char deep[700];
    int n = 0;
    n += sprintf(deep + n, "{\"x\": ");
    for (int i = 0; i < 300; i++) deep[n++] = '[';
    deep[n] = '\0';
    assert_false(jdec(f, deep));
    assert_non_null(strstr(f->err, "nesting too deep"));
}

static void json_extra_key(void **state)
{
    (void)state;
    init_cols();
    ConnJsonDecoder *d = conn_json_new(cols, NCOLS, "op");
    Arena a;
    arena_init(&a, 1024);
    Value row[NCOLS];
    ConnJsonExtra x;
    char err[256];
    const char *l = "{\"op\": \"delete\", \"id\": 3}";
    assert_true(conn_json_decode(d, l, strlen(l), row, &a, &x, err, sizeof err));
    assert_true(x.present);
    assert_int_equal(x.len, 6);
    assert_memory_equal(x.s, "delete", 6);
    assert_int_equal(row[C_ID].i, 3);
    l = "{\"id\": 3}";
    assert_true(conn_json_decode(d, l, strlen(l), row, &a, &x, err, sizeof err));
    assert_false(x.present);
    l = "{\"op\": 5}";
    assert_false(conn_json_decode(d, l, strlen(l), row, &a, &x, err, sizeof err));
    assert_string_equal(err, "\"op\" must be a string");
    conn_json_free(d);
    arena_fini(&a);
}

/* ------------------------------------------------------------------ CSV */

typedef struct CFix {
    ConnCsvDecoder *d;
    Arena arena;
    Value row[NCOLS];
    char err[512];
} CFix;

static ConnCsvDecoder *csv_with_header(const char *header, char delim)
{
    init_cols();
    ConnCsvDecoder *d = conn_csv_new(cols, NCOLS, delim);
    char err[256];
    if (!conn_csv_header(d, header, strlen(header), err, sizeof err)) fail_msg("header: %s", err);
    return d;
}

static bool cdec(ConnCsvDecoder *d, Arena *a, Value *row, const char *rec, char *err, size_t errsize)
{
    err[0] = '\0';
    return conn_csv_decode(d, rec, strlen(rec), row, a, err, errsize);
}

static void csv_header_mapping(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 1024);
    Value row[NCOLS];
    char err[256];
    /* reordered, an unknown column ignored, missing columns NULL, case-insensitive fallback */
    ConnCsvDecoder *d = csv_with_header("\xEF\xBB\xBFname,ignored,ID, amount\r", ',');
    assert_true(cdec(d, &a, row, "widget,zzz,7,12.345", err, sizeof err));
    assert_text(&row[C_NAME], "widget");
    assert_int_equal(row[C_ID].i, 7);
    assert_num(&row[C_AMOUNT], 1235, 2);
    assert_true(row[C_QTY].isnull);
    assert_true(row[C_TS].isnull);
    assert_true(cdec(d, &a, row, ",,,\r", err, sizeof err));
    assert_true(row[C_NAME].isnull);
    assert_true(row[C_ID].isnull);
    conn_csv_free(d);
    /* header problems */
    d = conn_csv_new(cols, NCOLS, ',');
    assert_false(conn_csv_header(d, "a,b,c", 5, err, sizeof err));
    assert_string_equal(err, "the CSV header names none of the source's columns (first header field \"a\")");
    assert_false(conn_csv_header(d, "id,name,ID", 10, err, sizeof err));
    assert_string_equal(err, "CSV header names column id twice");
    assert_false(conn_csv_has_header(d));
    conn_csv_free(d);
    arena_fini(&a);
}

static void csv_quoting(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a, 1024);
    Value row[NCOLS];
    char err[256];
    ConnCsvDecoder *d = csv_with_header("id,name,code,flag", ',');
    assert_true(cdec(d, &a, row, "1,\"a,b\",\"\",t", err, sizeof err));
    assert_text(&row[C_NAME], "a,b");
    assert_text(&row[C_CODE], "");       /* quoted empty = empty string */
    assert_int_equal(row[C_FLAG].i, 1);
    assert_true(cdec(d, &a, row, "2,\"he said \"\"hi\"\"\",,", err, sizeof err));
    assert_text(&row[C_NAME], "he said \"hi\"");
    assert_true(row[C_CODE].isnull);      /* empty unquoted = NULL */
    assert_true(row[C_FLAG].isnull);
    assert_true(cdec(d, &a, row, "3,\"line1\nline2\",x,f", err, sizeof err));
    assert_text(&row[C_NAME], "line1\nline2");
    assert_true(cdec(d, &a, row, "4,caf\xC3\xA9,\"\"\"\",\"true\"", err, sizeof err));
    assert_text(&row[C_NAME], "caf\xC3\xA9");
    assert_text(&row[C_CODE], "\"");
    assert_int_equal(row[C_FLAG].i, 1);
    /* errors */
    assert_false(cdec(d, &a, row, "1,a,b,t,extra", err, sizeof err));
    assert_string_equal(err, "record has more fields than the header (4)");
    assert_false(cdec(d, &a, row, "1,a", err, sizeof err));
    assert_string_equal(err, "record has 2 fields, the header has 4");
    assert_false(cdec(d, &a, row, "1,\"abc,x,t", err, sizeof err));
    assert_string_equal(err, "unterminated quoted field starting at byte 3");
    assert_false(cdec(d, &a, row, "1,\"ab\"c,x,t", err, sizeof err));
    assert_string_equal(err, "unexpected character after a closing quote at byte 7");
    assert_false(cdec(d, &a, row, "x1,a,b,t", err, sizeof err));
    assert_string_equal(err, "column id: expected bigint, found string \"x1\"");
    assert_false(cdec(d, &a, row, "1e-39,a,b,t", err, sizeof err));
    assert_string_equal(err, "column id: expected bigint, found string \"1e-39\"");
    assert_false(cdec(d, &a, row, "12.0,a,b,t", err, sizeof err));
    assert_string_equal(err, "column id: expected bigint, found string \"12.0\"");
    assert_false(cdec(d, &a, row, "1,a,b,1.0", err, sizeof err));
    assert_string_equal(err, "column flag: expected boolean, found string \"1.0\"");
    assert_false(cdec(d, &a, row, "\"\",a,b,t", err, sizeof err));
    assert_string_equal(err, "column id: expected bigint, found string \"\"");
    assert_false(cdec(d, &a, row, "1,a\xFF,b,t", err, sizeof err));
    assert_string_equal(err, "column name: invalid UTF-8 or NUL byte in text");
    assert_false(cdec(d, &a, row, "1,a,toolong,t", err, sizeof err));
    assert_string_equal(err, "column code: value too long for type character varying(5)");
    conn_csv_free(d);
    /* other delimiters */
    d = csv_with_header("id;name", ';');
    assert_true(cdec(d, &a, row, "5;x,y", err, sizeof err));
    assert_int_equal(row[C_ID].i, 5);
    assert_text(&row[C_NAME], "x,y");
    conn_csv_free(d);
    d = csv_with_header("id\tcreated_at", '\t');
    assert_true(cdec(d, &a, row, "6\t2024-01-01 00:00:01", err, sizeof err));
    assert_int_equal(row[C_TS].i, ts("2024-01-01 00:00:01"));
    conn_csv_free(d);
    arena_fini(&a);
}

/* ------------------------------------------------------------------ updating formats */

static SourceDef make_source(DataFormat fmt, bool keyed)
{
    init_cols();
    static int pk[1] = {C_ID};
    SourceDef s;
    memset(&s, 0, sizeof s);
    s.name = "shop.orders";
    s.connector = SRC_FILE;
    s.format = fmt;
    s.csv_delimiter = ',';
    s.columns = cols;
    s.ncolumns = NCOLS;
    s.event_time_col = -1;
    s.pk_cols = keyed ? pk : NULL;
    s.npk = keyed ? 1 : 0;
    return s;
}

static ConnDecodeResult dec_rec(ConnDecoder *d, Arena *a, const char *rec, ConnDecoded *out, char *err)
{
    err[0] = '\0';
    return conn_decode(d, rec, strlen(rec), a, out, err, 512);
}

static void changelog_json_shapes(void **state)
{
    (void)state;
    SourceDef s = make_source(FMT_CHANGELOG_JSON, true);
    char err[512];
    ConnDecoder *d = conn_decoder_new(&s, err, sizeof err);
    assert_non_null(d);
    Arena a;
    arena_init(&a, 1024);
    ConnDecoded o;
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"insert\", \"id\": 1, \"name\": \"a\"}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_INSERT);
    assert_int_equal(o.row[C_ID].i, 1);
    assert_text(&o.row[C_NAME], "a");
    assert_int_equal(dec_rec(d, &a, "{\"id\": 1, \"name\": \"b\", \"op\": \"update\"}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_UPDATE);
    assert_null(o.old_row);
    assert_text(&o.row[C_NAME], "b");
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"delete\", \"id\": 1}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_DELETE);
    assert_int_equal(dec_rec(d, &a, "{\"id\": 2}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_INSERT);
    assert_int_equal(dec_rec(d, &a, "{\"id\": 2, \"op\": null}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_INSERT);
    assert_int_equal(dec_rec(d, &a, "{\"id\": 2, \"op\": \"upsert\"}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "\"op\" must be insert, update or delete, found string \"upsert\"");
    assert_int_equal(dec_rec(d, &a, "{\"id\": 2, \"op\": 1}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "\"op\" must be a string");
    assert_int_equal(dec_rec(d, &a, "   ", &o, err), CONN_DEC_NONE);
    conn_decoder_free(d);
    arena_fini(&a);
}

static void debezium_shapes(void **state)
{
    (void)state;
    SourceDef s = make_source(FMT_DEBEZIUM_JSON, true);
    char err[512];
    ConnDecoder *d = conn_decoder_new(&s, err, sizeof err);
    Arena a;
    arena_init(&a, 1024);
    ConnDecoded o;
    assert_int_equal(dec_rec(d, &a, "{\"before\": null, \"after\": {\"id\": 1, \"name\": \"a\"}, \"op\": \"c\", "
                                    "\"source\": {\"db\": \"x\"}, \"ts_ms\": 1}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_INSERT);
    assert_int_equal(o.row[C_ID].i, 1);
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"r\", \"after\": {\"id\": 9}}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_INSERT);
    assert_int_equal(o.row[C_ID].i, 9);
    assert_int_equal(dec_rec(d, &a, "{\"before\": {\"id\": 1, \"name\": \"a\"}, \"after\": {\"id\": 1, \"name\": \"b\"}, "
                                    "\"op\": \"u\"}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_UPDATE);
    assert_non_null(o.old_row);
    assert_text(&o.old_row[C_NAME], "a");
    assert_text(&o.row[C_NAME], "b");
    assert_int_equal(dec_rec(d, &a, "{\"after\": {\"id\": 1, \"name\": \"c\"}, \"op\": \"u\"}", &o, err), CONN_DEC_ROW);
    assert_null(o.old_row);
    assert_int_equal(dec_rec(d, &a, "{\"before\": {\"id\": 1, \"name\": \"c\"}, \"after\": null, \"op\": \"d\"}", &o, err),
                     CONN_DEC_ROW);
    assert_int_equal(o.op, CHANGE_DELETE);
    assert_text(&o.row[C_NAME], "c");
    /* the Kafka Connect wrapper */
    assert_int_equal(dec_rec(d, &a, "{\"schema\": {\"type\": \"struct\"}, \"payload\": {\"before\": null, "
                                    "\"after\": {\"id\": 5}, \"op\": \"c\"}}", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.row[C_ID].i, 5);
    assert_int_equal(dec_rec(d, &a, "{\"schema\": null, \"payload\": null}", &o, err), CONN_DEC_NONE);
    /* errors */
    assert_int_equal(dec_rec(d, &a, "{\"after\": {\"id\": 1}}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "debezium record without \"op\"");
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"u\", \"before\": {\"id\": 1}}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "debezium op \"u\" without \"after\"");
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"d\", \"after\": null}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "debezium op \"d\" without \"before\"");
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"c\"}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "debezium op \"c\" without \"after\"");
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"x\", \"after\": {}}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "\"op\" must be c, u, d or r, found string \"x\"");
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"c\", \"after\": [1]}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "\"after\" must be an object or null");
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"c\", \"after\": {\"id\": \"x\"}}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column id: expected bigint, found string \"x\"");
    assert_int_equal(dec_rec(d, &a, "{\"op\": \"c\", \"after\": {\"id\": 1}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "invalid JSON at byte 31: unexpected end of data, expected ',' or '}'");
    assert_int_equal(dec_rec(d, &a, "[]", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "not a JSON object");
    conn_decoder_free(d);
    arena_fini(&a);
    /* upsert is a sink format */
    s.format = FMT_UPSERT;
    assert_null(conn_decoder_new(&s, err, sizeof err));
}

/* ------------------------------------------------------------------ files, readers, sources */

static char tmpdir[256];

static int files_setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/weir-test-decode-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    return 0;
}

static int files_teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *tpath(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    fclose(fp);
}

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, fp);
    s[got] = '\0';
    fclose(fp);
    return s;
}

static void reader_lines_crlf_bom(void **state)
{
    (void)state;
    const char *p = tpath("a.jsonl");
    const char data[] = "\xEF\xBB\xBF{\"id\":1}\r\n\n{\"id\":2}\n{\"id\":3}";
    write_file(p, data, sizeof data - 1);
    char err[256];
    ConnReader *r = src_file_reader_open(p, "data/a.jsonl", FRAME_LINES, err, sizeof err);
    assert_non_null(r);
    ConnRecord recs[8];
    int n = r->ops->read(r, recs, 8, err, sizeof err);
    assert_int_equal(n, 4);
    assert_true(r->eof);
    assert_int_equal(recs[0].len, 8);
    assert_memory_equal(recs[0].data, "{\"id\":1}", 8);
    assert_int_equal(recs[0].pos, 1);
    assert_int_equal(recs[1].len, 0);
    assert_int_equal(recs[1].pos, 2);
    assert_int_equal(recs[2].pos, 3);
    assert_int_equal(recs[3].pos, 4);
    assert_memory_equal(recs[3].data, "{\"id\":3}", 8);
    int64_t done, total;
    r->ops->progress(r, &done, &total);
    assert_int_equal(total, sizeof data - 1);
    assert_int_equal(done, total);
    assert_int_equal(r->ops->read(r, recs, 8, err, sizeof err), 0);
    r->ops->close(r);
    assert_null(src_file_reader_open(tpath("missing"), "data/missing.jsonl", FRAME_LINES, err, sizeof err));
    assert_non_null(strstr(err, "data/missing.jsonl: cannot open"));
}

/* Many small reads over a file much larger than a block: every record of a read stays
 * intact until the next read, across block boundaries. */
static void reader_buffer_lifetime(void **state)
{
    (void)state;
    const char *p = tpath("big.jsonl");
    FILE *fp = fopen(p, "wb");
    int nlines = 60000;
    for (int i = 0; i < nlines; i++) fprintf(fp, "{\"id\":%d,\"pad\":\"%0*d\"}\n", i, 40 + i % 200, i);
    /* one line longer than a block */
    fputc('{', fp);
    fputs("\"pad\":\"", fp);
    for (int i = 0; i < 9 << 20; i++) fputc('x', fp);
    fputs("\"}\n", fp);
    fclose(fp);
    char err[256];
    ConnReader *r = src_file_reader_open(p, "big", FRAME_LINES, err, sizeof err);
    ConnRecord recs[777];
    int seen = 0;
    bool got_long = false;
    while (!r->eof) {
        int n = r->ops->read(r, recs, 777, err, sizeof err);
        assert_true(n >= 0);
        for (int i = 0; i < n; i++) {
            if (recs[i].len > 1000) {
                got_long = true;
                assert_int_equal(recs[i].len, (9 << 20) + 10);
                assert_int_equal(recs[i].pos, nlines + 1);
                continue;
            }
            char expect[64];
            int k = snprintf(expect, sizeof expect, "{\"id\":%d,", seen);
            assert_memory_equal(recs[i].data, expect, (size_t)k);
            assert_int_equal(recs[i].pos, seen + 1);
            seen++;
        }
        /* every record of this read is still intact after the loop */
        for (int i = 0; i < n; i++)
            if (recs[i].len < 1000) assert_int_equal(recs[i].data[recs[i].len - 1], '}');
    }
    assert_int_equal(seen, nlines);
    assert_true(got_long);
    r->ops->close(r);
}

static void gz_write(const char *path, const char *data, const char *mode)
{
    gzFile g = gzopen(path, mode);
    assert_non_null(g);
    gzwrite(g, data, (unsigned)strlen(data));
    gzclose(g);
}

static void reader_gzip(void **state)
{
    (void)state;
    const char *p = tpath("a.jsonl.gz");
    gz_write(p, "{\"id\":1}\n{\"id\":2}\n", "wb");
    gz_write(p, "{\"id\":3}\n", "ab");   /* a second gzip member */
    char err[256];
    ConnReader *r = src_file_reader_open(p, "a.jsonl.gz", FRAME_LINES, err, sizeof err);
    ConnRecord recs[8];
    int n = r->ops->read(r, recs, 8, err, sizeof err);
    assert_int_equal(n, 3);
    assert_memory_equal(recs[2].data, "{\"id\":3}", 8);
    assert_int_equal(recs[2].pos, 3);
    r->ops->close(r);
    /* truncated gzip data is an error, not a silent end */
    char *whole = read_file(p);
    struct stat st;
    stat(p, &st);
    const char *t = tpath("trunc.gz");
    write_file(t, whole, (size_t)st.st_size / 2);
    free(whole);
    r = src_file_reader_open(t, "trunc.gz", FRAME_LINES, err, sizeof err);
    int total = 0;
    for (;;) {
        n = r->ops->read(r, recs, 8, err, sizeof err);
        if (n <= 0) break;
        total += n;
    }
    assert_int_equal(n, -1);
    assert_true(total <= 3);
    assert_non_null(strstr(err, "trunc.gz: "));
    r->ops->close(r);
}

static void reader_csv_framing(void **state)
{
    (void)state;
    const char *p = tpath("a.csv");
    const char data[] = "id,name\r\n1,\"multi\nline\"\r\n2,\"a \"\"q\"\"\nb\nc\"\n3,z";
    write_file(p, data, sizeof data - 1);
    char err[256];
    ConnReader *r = src_file_reader_open(p, "a.csv", FRAME_CSV, err, sizeof err);
    ConnRecord recs[8];
    int n = r->ops->read(r, recs, 8, err, sizeof err);
    assert_int_equal(n, 4);
    assert_int_equal(recs[0].pos, 1);
    assert_int_equal(recs[1].pos, 2);
    assert_int_equal(recs[1].len, strlen("1,\"multi\nline\""));
    assert_int_equal(recs[2].pos, 4);
    assert_int_equal(recs[3].pos, 7);
    r->ops->close(r);
}

static Project *test_project(SourceDef *src)
{
    Project *p = calloc(1, sizeof *p);
    arena_init(&p->arena, 4096);
    p->dir = tmpdir;
    p->sources = src;
    p->nsources = 1;
    return p;
}

static void free_project(Project *p)
{
    arena_fini(&p->arena);
    free(p);
}

static void source_dead_letters_and_watermark(void **state)
{
    (void)state;
    SourceDef s = make_source(FMT_JSON, false);
    s.path = "data/orders.jsonl";
    s.event_time_col = C_TS;
    s.watermark_delay_us = 5000000;
    s.on_error = ONERR_DEAD_LETTER;
    mkdir(tpath("data"), 0777);
    const char data[] = "{\"id\":1,\"created_at\":\"2024-01-01 00:00:10\"}\n"
                        "{\"id\":\"abc\"}\n"
                        "not json \xFF\n"
                        "\n"
                        "{\"id\":2,\"created_at\":\"2024-01-01 00:00:30\"}\n"
                        "{\"id\":3,\"created_at\":\"2024-01-01 00:00:20\"}\n";
    write_file(tpath("data/orders.jsonl"), data, sizeof data - 1);
    Project *p = test_project(&s);
    char err[512];
    bool cfg;
    ConnSource *src = src_open(p, 0, NULL, &cfg, err, sizeof err);
    assert_non_null(src);
    assert_int_equal(src_watermark(src), INT64_MIN);
    Batch b;
    batch_init(&b, NCOLS);
    assert_int_equal(src_read_batch(src, &b, NULL, NULL, 3, err, sizeof err), 3);
    assert_int_equal(b.n, 1);
    RowOrigin o;
    assert_true(src_row_origin(src, batch_row(&b, 0), &o));
    assert_int_equal(o.line, 1);
    assert_string_equal(o.where, "data/orders.jsonl");
    assert_int_equal(src_watermark(src), ts("2024-01-01 00:00:05"));
    assert_int_equal(src_read_batch(src, &b, NULL, NULL, 100, err, sizeof err), 3);
    assert_int_equal(b.n, 3);
    assert_true(src_row_origin(src, batch_row(&b, 2), &o));
    assert_int_equal(o.line, 6);
    assert_true(src_done(src));
    assert_int_equal(src_watermark(src), INT64_MAX);
    const SrcStats *st = src_stats(src);
    assert_int_equal(st->records, 5);
    assert_int_equal(st->rows, 3);
    assert_int_equal(st->bad, 2);
    assert_int_equal(st->dead_letters, 2);
    assert_true(src_close(src, err, sizeof err));
    char *dl = read_file(tpath("target/dead_letter/shop.orders.jsonl"));
    assert_non_null(dl);
    assert_string_equal(dl,
        "{\"source\":\"shop.orders\",\"reason\":\"column id: expected bigint, found string \\\"abc\\\"\","
        "\"file\":\"data/orders.jsonl\",\"line\":2,\"raw\":\"{\\\"id\\\":\\\"abc\\\"}\"}\n"
        "{\"source\":\"shop.orders\",\"reason\":\"invalid JSON at byte 1: invalid literal\","
        "\"file\":\"data/orders.jsonl\",\"line\":3,\"raw\":\"not json \\ufffd\",\"raw_base64\":\"bm90IGpzb24g/w==\"}\n");
    free(dl);
    /* skip: counted, nothing written; fail: stops with file:line: reason */
    unlink(tpath("target/dead_letter/shop.orders.jsonl"));
    s.on_error = ONERR_SKIP;
    src = src_open(p, 0, NULL, &cfg, err, sizeof err);
    batch_clear(&b);
    assert_int_equal(src_read_batch(src, &b, NULL, NULL, 100, err, sizeof err), 6);
    assert_int_equal(src_stats(src)->skipped, 2);
    assert_int_equal(src_stats(src)->dead_letters, 0);
    assert_true(src_close(src, err, sizeof err));
    assert_int_equal(access(tpath("target/dead_letter/shop.orders.jsonl"), F_OK), -1);
    s.on_error = ONERR_FAIL;
    src = src_open(p, 0, NULL, &cfg, err, sizeof err);
    batch_clear(&b);
    assert_int_equal(src_read_batch(src, &b, NULL, NULL, 100, err, sizeof err), -1);
    assert_string_equal(err, "data/orders.jsonl:2: column id: expected bigint, found string \"abc\"");
    assert_true(src_close(src, err, sizeof err));
    batch_fini(&b);
    free_project(p);
}

typedef struct UpsertLog {
    int n;
    ChangeOp ops[16];
    int64_t ids[16];
    int64_t lines[16];
    bool reject_unknown_delete;
} UpsertLog;

static bool log_upsert(void *ctx, int source, ChangeOp op, const Value *row, const RowOrigin *origin,
                       int64_t frontier, char *err, size_t errsize)
{
    UpsertLog *l = ctx;
    if (l->reject_unknown_delete && op == CHANGE_DELETE && row[C_ID].i == 99) {
        snprintf(err, errsize, "delete of an unknown key");
        return false;
    }
    l->ops[l->n] = op;
    l->ids[l->n] = row[C_ID].i;
    l->lines[l->n] = origin ? origin->line : -1;
    l->n++;
    return true;
}

static void source_updating_formats(void **state)
{
    (void)state;
    SourceDef s = make_source(FMT_DEBEZIUM_JSON, true);
    s.path = "cdc.jsonl";
    const char data[] = "{\"op\":\"c\",\"after\":{\"id\":1}}\n"
                        "{\"op\":\"u\",\"before\":{\"id\":1},\"after\":{\"id\":1,\"name\":\"x\"}}\n"
                        "{\"op\":\"u\",\"before\":{\"id\":1},\"after\":{\"id\":2}}\n"
                        "{\"op\":\"d\",\"before\":{\"id\":99}}\n"
                        "{\"op\":\"d\",\"before\":{\"id\":2}}\n";
    write_file(tpath("cdc.jsonl"), data, sizeof data - 1);
    Project *p = test_project(&s);
    char err[512];
    bool cfg;
    ConnSource *src = src_open(p, 0, NULL, &cfg, err, sizeof err);
    Batch b;
    batch_init(&b, NCOLS);
    UpsertLog log = {.reject_unknown_delete = true};
    assert_int_equal(src_read_batch(src, &b, log_upsert, &log, 100, err, sizeof err), 5);
    assert_int_equal(b.n, 0);
    assert_int_equal(log.n, 5);
    assert_int_equal(log.ops[0], CHANGE_INSERT);
    assert_int_equal(log.ops[1], CHANGE_UPDATE);
    /* a changed key: delete the old key, insert the new one */
    assert_int_equal(log.ops[2], CHANGE_DELETE);
    assert_int_equal(log.ids[2], 1);
    assert_int_equal(log.ops[3], CHANGE_INSERT);
    assert_int_equal(log.ids[3], 2);
    assert_int_equal(log.lines[3], 3);
    assert_int_equal(log.ops[4], CHANGE_DELETE);
    assert_int_equal(log.lines[4], 5);
    assert_int_equal(src_stats(src)->dead_letters, 1);
    assert_true(src_close(src, err, sizeof err));
    char *dl = read_file(tpath("target/dead_letter/shop.orders.jsonl"));
    assert_non_null(strstr(dl, "\"reason\":\"delete of an unknown key\",\"file\":\"cdc.jsonl\",\"line\":4"));
    free(dl);
    /* changelog-json without a primary key: -1/+1 rows in the batch */
    s = make_source(FMT_CHANGELOG_JSON, false);
    s.path = "cl.jsonl";
    const char cl[] = "{\"id\":1}\n{\"id\":1,\"op\":\"delete\"}\n{\"id\":1,\"op\":\"update\"}\n";
    write_file(tpath("cl.jsonl"), cl, sizeof cl - 1);
    p->sources = &s;
    src = src_open(p, 0, NULL, &cfg, err, sizeof err);
    batch_clear(&b);
    assert_int_equal(src_read_batch(src, &b, log_upsert, &log, 100, err, sizeof err), 3);
    assert_int_equal(b.n, 2);
    assert_int_equal(b.weights[0], 1);
    assert_int_equal(b.weights[1], -1);
    assert_int_equal(src_stats(src)->dead_letters, 1);
    assert_true(src_close(src, err, sizeof err));
    batch_fini(&b);
    free_project(p);
}

static void source_csv_file(void **state)
{
    (void)state;
    SourceDef s = make_source(FMT_CSV, false);
    s.path = "o.csv.gz";
    gz_write(tpath("o.csv.gz"), "id,name,amount\n1,\"a\nb\",1.005\n2,,\n", "wb");
    Project *p = test_project(&s);
    char err[512];
    bool cfg;
    ConnSource *src = src_open(p, 0, NULL, &cfg, err, sizeof err);
    assert_non_null(src);
    Batch b;
    batch_init(&b, NCOLS);
    assert_int_equal(src_read_batch(src, &b, NULL, NULL, 100, err, sizeof err), 3);
    assert_int_equal(b.n, 2);
    assert_text(&batch_row(&b, 0)[C_NAME], "a\nb");
    assert_num(&batch_row(&b, 0)[C_AMOUNT], 101, 2);
    assert_true(batch_row(&b, 1)[C_NAME].isnull);
    RowOrigin o;
    assert_true(src_row_origin(src, batch_row(&b, 1), &o));
    assert_int_equal(o.line, 4);
    assert_int_equal(src_stats(src)->records, 2);
    assert_true(src_close(src, err, sizeof err));
    /* a header that names no column stops the run */
    gz_write(tpath("o.csv.gz"), "x,y\n1,2\n", "wb");
    src = src_open(p, 0, NULL, &cfg, err, sizeof err);
    batch_clear(&b);
    assert_int_equal(src_read_batch(src, &b, NULL, NULL, 100, err, sizeof err), -1);
    assert_string_equal(err, "o.csv.gz:1: the CSV header names none of the source's columns (first header field \"x\")");
    assert_true(src_close(src, err, sizeof err));
    batch_fini(&b);
    free_project(p);
}

/* ------------------------------------------------------------------ sinks */

static PlanColumn out_cols[4];

static ConnSinkSpec make_spec(SinkDef *def, const int *key, int nkey)
{
    out_cols[0] = (PlanColumn){"customer_id", type_make(T_INT8), 0};
    out_cols[1] = (PlanColumn){"name", type_make(T_TEXT), 0};
    out_cols[2] = (PlanColumn){"total", type_numeric(12, 2), 0};
    out_cols[3] = (PlanColumn){"last_seen", type_make(T_TIMESTAMP), 0};
    ConnSinkSpec s = {.model = "customer_metrics", .def = def, .cols = out_cols, .ncols = 4, .key = key, .nkey = nkey};
    return s;
}

static void row4(Value *r, int64_t id, const char *name, int64_t cents, const char *when)
{
    r[0] = id < 0 ? value_null() : value_int(id);
    r[1] = name ? value_text(name, (uint32_t)strlen(name)) : value_null();
    r[2] = value_numeric(cents, 2);
    r[3] = when ? value_int(ts(when)) : value_null();
}

static void sink_line_formats(void **state)
{
    (void)state;
    SinkDef def = {0};
    def.connector = SINK_FILE;
    ConnSinkSpec spec = make_spec(&def, NULL, -1);
    Value a[4], b[4];
    row4(a, 42, "Ann \"A\"", 1550, "2024-01-01 00:00:01.25");
    row4(b, 42, NULL, 2800, NULL);
    EngChange ch[3] = {{CHANGE_INSERT, a, NULL}, {CHANGE_UPDATE, b, a}, {CHANGE_DELETE, b, NULL}};
    char err[512];
    ConnSink *s = sink_file_open(tpath("out/cl.jsonl"), &spec, FMT_CHANGELOG_JSON, err, sizeof err);
    assert_non_null(s);
    assert_true(sink_write(s, ch, 3, err, sizeof err));
    assert_true(sink_commit(s, err, sizeof err));
    assert_true(sink_close(s, err, sizeof err));
    char *got = read_file(tpath("out/cl.jsonl"));
    assert_string_equal(got,
        "{\"op\":\"insert\",\"customer_id\":42,\"name\":\"Ann \\\"A\\\"\",\"total\":15.50,\"last_seen\":\"2024-01-01 00:00:01.25\"}\n"
        "{\"op\":\"update\",\"customer_id\":42,\"name\":null,\"total\":28.00,\"last_seen\":null}\n"
        "{\"op\":\"delete\",\"customer_id\":42,\"name\":null,\"total\":28.00,\"last_seen\":null}\n");
    free(got);
    s = sink_file_open(tpath("out/dbz.jsonl"), &spec, FMT_DEBEZIUM_JSON, err, sizeof err);
    assert_true(sink_write(s, ch, 3, err, sizeof err));
    assert_true(sink_commit(s, err, sizeof err));
    assert_true(sink_close(s, err, sizeof err));
    got = read_file(tpath("out/dbz.jsonl"));
    assert_string_equal(got,
        "{\"before\":null,\"after\":{\"customer_id\":42,\"name\":\"Ann \\\"A\\\"\",\"total\":15.50,\"last_seen\":\"2024-01-01 00:00:01.25\"},\"op\":\"c\"}\n"
        "{\"before\":{\"customer_id\":42,\"name\":\"Ann \\\"A\\\"\",\"total\":15.50,\"last_seen\":\"2024-01-01 00:00:01.25\"},"
        "\"after\":{\"customer_id\":42,\"name\":null,\"total\":28.00,\"last_seen\":null},\"op\":\"u\"}\n"
        "{\"before\":{\"customer_id\":42,\"name\":null,\"total\":28.00,\"last_seen\":null},\"after\":null,\"op\":\"d\"}\n");
    free(got);
    s = sink_file_open(tpath("out/plain.jsonl"), &spec, FMT_JSON, err, sizeof err);
    assert_true(sink_write(s, ch, 1, err, sizeof err));
    assert_false(sink_write(s, ch + 2, 1, err, sizeof err));
    assert_string_equal(err, "model customer_metrics: sink format json is append-only, but the model emitted a delete; "
                             "use format changelog-json or debezium-json");
    assert_true(sink_commit(s, err, sizeof err));
    assert_true(sink_close(s, err, sizeof err));
    got = read_file(tpath("out/plain.jsonl"));
    assert_string_equal(got, "{\"customer_id\":42,\"name\":\"Ann \\\"A\\\"\",\"total\":15.50,\"last_seen\":\"2024-01-01 00:00:01.25\"}\n");
    free(got);
    /* uncommitted lines are not written by close (the failed step is discarded) */
    s = sink_file_open(tpath("out/plain.jsonl"), &spec, FMT_JSON, err, sizeof err);
    assert_true(sink_write(s, ch, 1, err, sizeof err));
    assert_true(sink_close(s, err, sizeof err));
    got = read_file(tpath("out/plain.jsonl"));
    assert_string_equal(got, "");
    free(got);
}

typedef struct Rows { char text[2048]; } Rows;

static int collect(void *ctx, int n, char **vals, char **names)
{
    (void)names;
    Rows *r = ctx;
    for (int i = 0; i < n; i++) {
        strcat(r->text, i ? "|" : "");
        strcat(r->text, vals[i] ? vals[i] : "NULL");
    }
    strcat(r->text, "\n");
    return 0;
}

static const char *query(const char *db, const char *sql, Rows *r)
{
    sqlite3 *h;
    r->text[0] = '\0';
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h, sql, collect, r, &msg) != SQLITE_OK) fail_msg("%s", msg);
    sqlite3_close(h);
    return r->text;
}

static void sink_sqlite_applies_changes(void **state)
{
    (void)state;
    SinkDef def = {0};
    def.connector = SINK_SQLITE;
    int key[1] = {0};
    ConnSinkSpec spec = make_spec(&def, key, 1);
    const char *db = tpath("out/w.db");
    char err[512];
    ConnSink *s = sink_sqlite_open(db, "metrics", &spec, err, sizeof err);
    assert_non_null(s);
    Value a[4], b[4], c[4], n1[4], n2[4];
    row4(a, 1, "ann", 1000, "2024-01-01 00:00:01");
    row4(b, 2, "bob", 250, NULL);
    row4(c, 1, "ann", 1550, "2024-01-02 00:00:00.5");
    row4(n1, -1, "nobody", 5, NULL);   /* a NULL key */
    row4(n2, -1, "nobody", 7, NULL);
    EngChange step1[4] = {{CHANGE_INSERT, a, NULL}, {CHANGE_INSERT, b, NULL}, {CHANGE_INSERT, n1, NULL}};
    assert_true(sink_write(s, step1, 3, err, sizeof err));
    assert_true(sink_commit(s, err, sizeof err));
    Rows r;
    assert_string_equal(query(db, "SELECT * FROM metrics ORDER BY customer_id", &r),
                        "NULL|nobody|0.05|NULL\n1|ann|10.00|2024-01-01 00:00:01\n2|bob|2.50|NULL\n");
    EngChange step2[3] = {{CHANGE_UPDATE, c, a}, {CHANGE_DELETE, b, NULL}, {CHANGE_UPDATE, n2, n1}};
    assert_true(sink_write(s, step2, 3, err, sizeof err));
    /* a step is visible only once committed */
    assert_string_equal(query(db, "SELECT count(*) FROM metrics", &r), "3\n");
    assert_true(sink_commit(s, err, sizeof err));
    assert_string_equal(query(db, "SELECT * FROM metrics ORDER BY customer_id", &r),
                        "NULL|nobody|0.07|NULL\n1|ann|15.50|2024-01-02 00:00:00.5\n");
    assert_string_equal(query(db, "SELECT typeof(customer_id), typeof(total) FROM metrics WHERE customer_id = 1", &r),
                        "integer|text\n");
    /* a delete of a row that is not there fails loudly */
    EngChange bad[1] = {{CHANGE_DELETE, b, NULL}};
    assert_false(sink_write(s, bad, 1, err, sizeof err));
    assert_non_null(strstr(err, "a deleted row is not in table metrics"));
    assert_true(sink_close(s, err, sizeof err));
    assert_string_equal(query(db, "PRAGMA journal_mode", &r), "wal\n");
    /* reopening replaces the table: a run recomputes from the beginning */
    s = sink_sqlite_open(db, "metrics", &spec, err, sizeof err);
    assert_true(sink_close(s, err, sizeof err));
    assert_string_equal(query(db, "SELECT count(*) FROM metrics", &r), "0\n");

    /* keyless: duplicates are kept, a delete removes exactly one equal row */
    ConnSinkSpec ks = make_spec(&def, NULL, -1);
    s = sink_sqlite_open(db, "events", &ks, err, sizeof err);
    EngChange ins[3] = {{CHANGE_INSERT, a, NULL}, {CHANGE_INSERT, a, NULL}, {CHANGE_INSERT, b, NULL}};
    assert_true(sink_write(s, ins, 3, err, sizeof err));
    assert_true(sink_commit(s, err, sizeof err));
    EngChange del[2] = {{CHANGE_DELETE, a, NULL}, {CHANGE_DELETE, b, NULL}};
    assert_true(sink_write(s, del, 2, err, sizeof err));
    assert_true(sink_commit(s, err, sizeof err));
    assert_string_equal(query(db, "SELECT * FROM events", &r), "1|ann|10.00|2024-01-01 00:00:01\n");
    /* an uncommitted step is rolled back by close */
    EngChange more[1] = {{CHANGE_INSERT, b, NULL}};
    assert_true(sink_write(s, more, 1, err, sizeof err));
    assert_true(sink_close(s, err, sizeof err));
    assert_string_equal(query(db, "SELECT count(*) FROM events", &r), "1\n");
}

static void dead_letter_rows(void **state)
{
    (void)state;
    SinkDef def = {0};
    ConnSinkSpec spec = make_spec(&def, NULL, -1);
    Value a[4];
    row4(a, 7, "x", 100, NULL);
    DlWriter *w = dl_open(tpath("dl/m.jsonl"), "customer_metrics", false);
    char err[256];
    RowOrigin o = {"data/orders.jsonl", 12, -1, 0};
    assert_null(dl_path(w));
    assert_true(dl_write_row(w, "division by zero", &o, spec.cols, NULL, a, 4, err, sizeof err));
    assert_true(dl_write_row(w, "late", NULL, spec.cols, NULL, a, 4, err, sizeof err));
    assert_int_equal(dl_count(w), 2);
    assert_non_null(dl_path(w));
    assert_true(dl_close(w, err, sizeof err));
    char *got = read_file(tpath("dl/m.jsonl"));
    assert_string_equal(got,
        "{\"source\":\"customer_metrics\",\"reason\":\"division by zero\",\"file\":\"data/orders.jsonl\",\"line\":12,"
        "\"row\":{\"customer_id\":7,\"name\":\"x\",\"total\":1.00,\"last_seen\":null}}\n"
        "{\"source\":\"customer_metrics\",\"reason\":\"late\",\"row\":{\"customer_id\":7,\"name\":\"x\",\"total\":1.00,"
        "\"last_seen\":null}}\n");
    free(got);
}

int main(void)
{
    const struct CMUnitTest json_tests[] = {
        cmocka_unit_test_setup_teardown(json_all_types, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_nulls_and_absent, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_unknown_and_duplicate_keys, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_integers, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_exact_numerics, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_floats_and_bools, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_text_escapes_unicode, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_zero_copy_and_copy, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_timestamps, jfix_setup, jfix_teardown),
        cmocka_unit_test_setup_teardown(json_syntax_errors, jfix_setup, jfix_teardown),
        cmocka_unit_test(json_extra_key),
        cmocka_unit_test(csv_header_mapping),
        cmocka_unit_test(csv_quoting),
        cmocka_unit_test(changelog_json_shapes),
        cmocka_unit_test(debezium_shapes),
    };
    const struct CMUnitTest file_tests[] = {
        cmocka_unit_test(reader_lines_crlf_bom),
        cmocka_unit_test(reader_buffer_lifetime),
        cmocka_unit_test(reader_gzip),
        cmocka_unit_test(reader_csv_framing),
        cmocka_unit_test(source_dead_letters_and_watermark),
        cmocka_unit_test(source_updating_formats),
        cmocka_unit_test(source_csv_file),
        cmocka_unit_test(sink_line_formats),
        cmocka_unit_test(sink_sqlite_applies_changes),
        cmocka_unit_test(dead_letter_rows),
    };
    int fails = cmocka_run_group_tests_name("decoders", json_tests, NULL, NULL);
    fails += cmocka_run_group_tests_name("sources and sinks", file_tests, files_setup, files_teardown);
    return fails ? 1 : 0;
}
