/* Unit tests of the temporal encodings of source columns (docs/run.md "Temporal
 * encodings"): every encoding through conn_parse_encoded (epochs before and after 1970,
 * the boundaries of each type's range, wrong JSON types, fractions), the JSON and CSV
 * decoders honouring a column's declared encoding, and debezium-json records whose Kafka
 * Connect schema names the logical types (io.debezium.time.*): detected, cached,
 * checked against a declaration, with the payload before or after the schema. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/timeutil.h"
#include "connectors/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const Type TS = {T_TIMESTAMP, -1, -1, 0}, TSTZ = {T_TIMESTAMPTZ, -1, -1, 0}, DATE = {T_DATE, -1, -1, 0},
                  IV = {T_INTERVAL, -1, -1, 0};

/* The value of number text s in encoding e for type t; fails the test on an error. */
static Value enc_ok(Type t, ColumnEncoding e, const char *s)
{
    Value v;
    char err[256] = "";
    if (!conn_parse_encoded(t, e, "c", s, strlen(s), CONN_TOK_NUMBER, &v, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", s, err);
        fail();
    }
    assert_false(v.isnull);
    return v;
}

/* The message for number text s (kind k) in encoding e for type t. */
static const char *enc_err(Type t, ColumnEncoding e, const char *s, ConnTokKind k)
{
    static char err[256];
    Value v;
    err[0] = '\0';
    assert_false(conn_parse_encoded(t, e, "c", s, strlen(s), k, &v, err, sizeof err));
    return err;
}

static int64_t ts_of(const char *text)
{
    int64_t us;
    assert_true(tm_parse_timestamp(text, strlen(text), false, &us));
    return us;
}

static void epochs(void **state)
{
    (void)state;
    /* 2024-01-15 10:30:00.123456 UTC in every unit */
    int64_t t = ts_of("2024-01-15 10:30:00.123456");
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_US, "1705314600123456").i, t);
    assert_int_equal(enc_ok(TSTZ, COL_ENC_EPOCH_US, "1705314600123456").i, t);
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_NS, "1705314600123456789").i, t); /* 789 ns cut */
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_MS, "1705314600123").i, ts_of("2024-01-15 10:30:00.123"));
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_S, "1705314600").i, ts_of("2024-01-15 10:30:00"));
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_S, "0").i, 0);
    /* before 1970 */
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_MS, "-1").i, ts_of("1969-12-31 23:59:59.999"));
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_S, "-86400").i, ts_of("1969-12-31 00:00:00"));
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_US, "-1").i, ts_of("1969-12-31 23:59:59.999999"));
    /* nanoseconds go towards the past, before 1970 as after: the instant stays in its second */
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_NS, "-1").i, -1);
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_NS, "-1000").i, -1);
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_NS, "-1001").i, -2);
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_NS, "999").i, 0);
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_NS, "-9223372036854775808").i, INT64_C(-9223372036854776));
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_NS, "9223372036854775807").i, INT64_C(9223372036854775));
    /* CSV fields are text: spaces around the digits as PostgreSQL's integer input */
    Value v;
    char err[128];
    assert_true(conn_parse_encoded(TS, COL_ENC_EPOCH_MS, "c", " 1000 ", 6, CONN_TOK_FIELD, &v, err, sizeof err));
    assert_int_equal(v.i, 1000000);
}

static void epoch_boundaries(void **state)
{
    (void)state;
    /* the first instant of the range: 4714-11-24 00:00:00 BC */
    int64_t first = ts_of("4714-11-24 00:00:00 BC");
    char buf[64];
    snprintf(buf, sizeof buf, "%lld", (long long)first);
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_US, buf).i, first);
    snprintf(buf, sizeof buf, "%lld", (long long)first - 1);
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_US, buf, CONN_TOK_NUMBER),
                        "column c: timestamp out of range: epoch_us -210866803200000001");
    snprintf(buf, sizeof buf, "%lld", (long long)(first / 1000000));
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_S, buf).i, first);
    snprintf(buf, sizeof buf, "%lld", (long long)(first / 1000000 - 1));
    assert_string_equal(enc_err(TSTZ, COL_ENC_EPOCH_S, buf, CONN_TOK_NUMBER),
                        "column c: timestamp out of range: epoch_s -210866803201");
    /* the last finite microsecond; the next is infinity, not a value of a column */
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_US, "9223372036854775806").i, INT64_MAX - 1);
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_US, "9223372036854775807", CONN_TOK_NUMBER),
                        "column c: timestamp out of range: epoch_us 9223372036854775807");
    /* beyond bigint, and seconds or milliseconds that overflow in microseconds */
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_NS, "9223372036854775808", CONN_TOK_NUMBER),
                        "column c: timestamp out of range: epoch_ns 9223372036854775808");
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_S, "9223372036855", CONN_TOK_NUMBER),
                        "column c: timestamp out of range: epoch_s 9223372036855");
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_MS, "-9223372036854776", CONN_TOK_NUMBER),
                        "column c: timestamp out of range: epoch_ms -9223372036854776");
}

static void epoch_days(void **state)
{
    (void)state;
    assert_int_equal(enc_ok(DATE, COL_ENC_EPOCH_DAYS, "19737").i, 19737); /* 2024-01-15 */
    assert_int_equal(enc_ok(DATE, COL_ENC_EPOCH_DAYS, "-1").i, -1);       /* 1969-12-31 */
    assert_int_equal(enc_ok(DATE, COL_ENC_EPOCH_DAYS, "-2440588").i, -2440588); /* 4714-11-24 BC */
    assert_string_equal(enc_err(DATE, COL_ENC_EPOCH_DAYS, "-2440589", CONN_TOK_NUMBER),
                        "column c: date out of range: epoch_days -2440589");
    assert_int_equal(enc_ok(DATE, COL_ENC_EPOCH_DAYS, "2145042905").i, 2145042905); /* 5874897-12-31 */
    assert_string_equal(enc_err(DATE, COL_ENC_EPOCH_DAYS, "2145042906", CONN_TOK_NUMBER),
                        "column c: date out of range: epoch_days 2145042906");
    /* into a timestamp: midnight of the day */
    assert_int_equal(enc_ok(TS, COL_ENC_EPOCH_DAYS, "19737").i, ts_of("2024-01-15 00:00:00"));
    assert_int_equal(enc_ok(TSTZ, COL_ENC_EPOCH_DAYS, "-1").i, ts_of("1969-12-31 00:00:00"));
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_DAYS, "2145042905", CONN_TOK_NUMBER),
                        "column c: timestamp out of range: epoch_days 2145042905");
}

static void times_of_day(void **state)
{
    (void)state;
    Value v = enc_ok(IV, COL_ENC_TIME_MS, "37800123"); /* 10:30:00.123 */
    assert_int_equal(v.iv.months, 0);
    assert_int_equal(v.iv.days, 0);
    assert_int_equal(v.i, INT64_C(37800123000));
    assert_int_equal(enc_ok(IV, COL_ENC_TIME_US, "37800123456").i, INT64_C(37800123456));
    assert_int_equal(enc_ok(IV, COL_ENC_TIME_NS, "37800123456789").i, INT64_C(37800123456));
    assert_int_equal(enc_ok(IV, COL_ENC_TIME_US, "0").i, 0);
    /* 24:00:00 is a time of day, as in PostgreSQL; past it and before midnight are not */
    assert_int_equal(enc_ok(IV, COL_ENC_TIME_MS, "86400000").i, TM_USECS_PER_DAY);
    assert_string_equal(enc_err(IV, COL_ENC_TIME_MS, "86400001", CONN_TOK_NUMBER),
                        "column c: time of day out of range: time_ms 86400001");
    assert_string_equal(enc_err(IV, COL_ENC_TIME_NS, "86400000000001", CONN_TOK_NUMBER),
                        "column c: time of day out of range: time_ns 86400000000001");
    assert_string_equal(enc_err(IV, COL_ENC_TIME_US, "-1", CONN_TOK_NUMBER),
                        "column c: time of day out of range: time_us -1");
    assert_string_equal(enc_err(IV, COL_ENC_TIME_NS, "-1", CONN_TOK_NUMBER),
                        "column c: time of day out of range: time_ns -1");
}

static void wrong_kinds(void **state)
{
    (void)state;
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_MS, "2024-01-15", CONN_TOK_STRING),
                        "column c: expected a number (epoch_ms: milliseconds since 1970-01-01 00:00:00 UTC), found "
                        "string \"2024-01-15\"");
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_MS, "1705314600123", CONN_TOK_STRING),
                        "column c: expected a number (epoch_ms: milliseconds since 1970-01-01 00:00:00 UTC), found "
                        "string \"1705314600123\"");
    assert_string_equal(enc_err(TS, COL_ENC_EPOCH_S, "1705314600.5", CONN_TOK_NUMBER),
                        "column c: expected an integer (epoch_s: seconds since 1970-01-01 00:00:00 UTC), found "
                        "number 1705314600.5");
    assert_string_equal(enc_err(DATE, COL_ENC_EPOCH_DAYS, "1e4", CONN_TOK_NUMBER),
                        "column c: expected an integer (epoch_days: days since 1970-01-01), found number 1e4");
    assert_string_equal(enc_err(IV, COL_ENC_TIME_US, "x", CONN_TOK_FIELD),
                        "column c: expected an integer (time_us: microseconds since midnight), found string \"x\"");
}

/* ---- through the decoders ---- */

enum { K_ID, K_AT, K_DAY, K_TOD, K_ZONED, NK };

static ColumnDef kcols[NK];

static SourceDef source(DataFormat f, ColumnEncoding at_enc)
{
    static const char *names[NK] = {"id", "at", "day", "tod", "zoned"};
    Type types[NK] = {type_make(T_INT8), TS, DATE, IV, TSTZ};
    for (int c = 0; c < NK; c++) {
        memset(&kcols[c], 0, sizeof kcols[c]);
        kcols[c].name = names[c];
        kcols[c].type = types[c];
    }
    kcols[K_AT].encoding = at_enc;
    SourceDef s;
    memset(&s, 0, sizeof s);
    s.name = "t";
    s.format = f;
    s.csv_delimiter = ',';
    s.columns = kcols;
    s.ncolumns = NK;
    s.event_time_col = -1;
    return s;
}

static ConnDecodeResult dec(ConnDecoder *d, Arena *a, const char *rec, ConnDecoded *o, char *err)
{
    err[0] = '\0';
    return conn_decode(d, rec, strlen(rec), a, o, err, 512);
}

static void json_and_csv_declared(void **state)
{
    (void)state;
    SourceDef s = source(FMT_JSON, COL_ENC_EPOCH_MS);
    kcols[K_DAY].encoding = COL_ENC_EPOCH_DAYS;
    kcols[K_TOD].encoding = COL_ENC_TIME_MS;
    char err[512];
    ConnDecoder *d = conn_decoder_new(&s, err, sizeof err);
    Arena a;
    arena_init(&a, 1024);
    ConnDecoded o;
    assert_int_equal(dec(d, &a, "{\"id\": 1, \"at\": -1, \"day\": -1, \"tod\": 1000, \"zoned\": \"2024-01-15T10:30:00+02:00\"}",
                         &o, err), CONN_DEC_ROW);
    assert_int_equal(o.row[K_AT].i, -1000);
    assert_int_equal(o.row[K_DAY].i, -1);
    assert_int_equal(o.row[K_TOD].i, 1000000);
    assert_int_equal(o.row[K_ZONED].i, ts_of("2024-01-15 08:30:00"));
    assert_int_equal(dec(d, &a, "{\"id\": 2, \"at\": null}", &o, err), CONN_DEC_ROW);
    assert_true(o.row[K_AT].isnull);
    assert_int_equal(dec(d, &a, "{\"id\": 3, \"at\": \"2024-01-15 10:30:00\"}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column at: expected a number (epoch_ms: milliseconds since 1970-01-01 00:00:00 UTC), "
                             "found string \"2024-01-15 10:30:00\"");
    assert_int_equal(dec(d, &a, "{\"id\": 4, \"at\": true}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column at: expected a number (epoch_ms), found boolean true");
    assert_int_equal(dec(d, &a, "{\"id\": 5, \"at\": [1]}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column at: expected a number (epoch_ms), found array");
    assert_int_equal(dec(d, &a, "{\"id\": 6, \"tod\": 86400001}", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column tod: time of day out of range: time_ms 86400001");
    conn_decoder_free(d);

    s = source(FMT_CSV, COL_ENC_EPOCH_US);
    d = conn_decoder_new(&s, err, sizeof err);
    assert_int_equal(dec(d, &a, "id,at,day", &o, err), CONN_DEC_NONE);
    assert_int_equal(dec(d, &a, "1,-1,2024-01-15", &o, err), CONN_DEC_ROW);
    assert_int_equal(o.row[K_AT].i, -1);
    assert_int_equal(o.row[K_DAY].i, 19737);
    assert_int_equal(dec(d, &a, "2,,", &o, err), CONN_DEC_ROW);
    assert_true(o.row[K_AT].isnull);
    assert_int_equal(dec(d, &a, "3,2024-01-15 10:30:00,", &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column at: expected an integer (epoch_us: microseconds since 1970-01-01 00:00:00 "
                             "UTC), found string \"2024-01-15 10:30:00\"");
    conn_decoder_free(d);
    arena_fini(&a);
}

/* A Debezium record with the schema Kafka Connect writes (schemas.enable=true). */
static char *debezium_record(const char *at_type, const char *day_type, const char *tod_type, const char *zoned_type,
                             const char *after, bool payload_first)
{
    char schema[4096], fields[1024];
    snprintf(fields, sizeof fields,
             "[{\"type\":\"int64\",\"optional\":false,\"field\":\"id\"},"
             "{\"type\":\"int64\",\"optional\":true,%s\"field\":\"at\"},"
             "{\"type\":\"int32\",\"optional\":true,%s\"field\":\"day\"},"
             "{\"type\":\"int64\",\"optional\":true,%s\"field\":\"tod\"},"
             "{\"type\":\"string\",\"optional\":true,%s\"field\":\"zoned\"}]",
             at_type, day_type, tod_type, zoned_type);
    snprintf(schema, sizeof schema,
             "{\"type\":\"struct\",\"fields\":[{\"type\":\"struct\",\"fields\":%s,\"optional\":true,"
             "\"name\":\"db.public.t.Value\",\"field\":\"before\"},{\"type\":\"struct\",\"fields\":%s,"
             "\"optional\":true,\"name\":\"db.public.t.Value\",\"field\":\"after\"},{\"type\":\"struct\","
             "\"fields\":[{\"type\":\"string\",\"optional\":false,\"field\":\"version\"}],\"optional\":false,"
             "\"name\":\"io.debezium.connector.postgresql.Source\",\"field\":\"source\"},{\"type\":\"string\","
             "\"optional\":false,\"field\":\"op\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}],"
             "\"optional\":false,\"name\":\"db.public.t.Envelope\"}",
             fields, fields);
    char payload[1024];
    snprintf(payload, sizeof payload, "{\"before\":null,\"after\":%s,\"source\":{\"version\":\"2.5\"},\"op\":\"c\","
             "\"ts_ms\":1}", after);
    size_t n = strlen(schema) + strlen(payload) + 64;
    char *r = malloc(n);
    if (payload_first) snprintf(r, n, "{\"payload\":%s,\"schema\":%s}", payload, schema);
    else snprintf(r, n, "{\"schema\":%s,\"payload\":%s}", schema, payload);
    return r;
}

static void debezium_schema_names(void **state)
{
    (void)state;
    SourceDef s = source(FMT_DEBEZIUM_JSON, COL_ENC_TEXT);
    char err[512];
    ConnDecoder *d = conn_decoder_new(&s, err, sizeof err);
    Arena a;
    arena_init(&a, 1024);
    ConnDecoded o;
    const char *after = "{\"id\":1,\"at\":-1,\"day\":-1,\"tod\":37800123456,\"zoned\":\"2024-01-15T10:30:00.5Z\"}";
    for (int order = 0; order < 2; order++) {
        char *r = debezium_record("\"name\":\"io.debezium.time.MicroTimestamp\",\"version\":1,",
                                  "\"name\":\"io.debezium.time.Date\",\"version\":1,",
                                  "\"name\":\"io.debezium.time.MicroTime\",\"version\":1,",
                                  "\"name\":\"io.debezium.time.ZonedTimestamp\",\"version\":1,", after, order == 1);
        assert_int_equal(dec(d, &a, r, &o, err), CONN_DEC_ROW);
        assert_int_equal(o.op, CHANGE_INSERT);
        assert_int_equal(o.row[K_AT].i, -1);
        assert_int_equal(o.row[K_DAY].i, -1);
        assert_int_equal(o.row[K_TOD].i, INT64_C(37800123456));
        assert_int_equal(o.row[K_ZONED].i, ts_of("2024-01-15 10:30:00.5"));
        free(r);
    }
    /* the other units; the schema changes, so it is read again */
    const char *units[][2] = {{"io.debezium.time.Timestamp", "1705314600123"},
                              {"io.debezium.time.NanoTimestamp", "1705314600123456789"},
                              {"org.apache.kafka.connect.data.Timestamp", "1705314600123"}};
    int64_t want[] = {ts_of("2024-01-15 10:30:00.123"), ts_of("2024-01-15 10:30:00.123456"),
                      ts_of("2024-01-15 10:30:00.123")};
    for (int u = 0; u < 3; u++) {
        char at[128], af[256];
        snprintf(at, sizeof at, "\"name\":\"%s\",", units[u][0]);
        snprintf(af, sizeof af, "{\"id\":1,\"at\":%s,\"day\":19737,\"tod\":1}", units[u][1]);
        char *r = debezium_record(at, "\"name\":\"org.apache.kafka.connect.data.Date\",",
                                  "\"name\":\"io.debezium.time.NanoTime\",", "", af, false);
        assert_int_equal(dec(d, &a, r, &o, err), CONN_DEC_ROW);
        assert_int_equal(o.row[K_AT].i, want[u]);
        assert_int_equal(o.row[K_DAY].i, 19737);
        assert_int_equal(o.row[K_TOD].i, 0); /* 1 ns */
        free(r);
    }
    /* a value outside the range, and of the wrong JSON type, under the schema */
    char *r = debezium_record("\"name\":\"io.debezium.time.Timestamp\",", "", "", "",
                              "{\"id\":1,\"at\":9223372036854775807}", false);
    assert_int_equal(dec(d, &a, r, &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column at: timestamp out of range: epoch_ms 9223372036854775807");
    free(r);
    r = debezium_record("\"name\":\"io.debezium.time.Timestamp\",", "", "", "", "{\"id\":1,\"at\":\"x\"}", false);
    assert_int_equal(dec(d, &a, r, &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column at: expected a number (epoch_ms: milliseconds since 1970-01-01 00:00:00 UTC), "
                             "found string \"x\"");
    free(r);
    /* the same record without a schema: the declared (text) encoding holds again */
    assert_int_equal(dec(d, &a, "{\"op\":\"c\",\"after\":{\"id\":1,\"at\":\"2024-01-15 10:30:00\"}}", &o, err),
                     CONN_DEC_ROW);
    assert_int_equal(o.row[K_AT].i, ts_of("2024-01-15 10:30:00"));
    assert_int_equal(dec(d, &a, "{\"op\":\"c\",\"after\":{\"id\":1,\"at\":1705314600123}}", &o, err), CONN_DEC_BAD);
    /* a logical type the column's type cannot hold */
    r = debezium_record("\"name\":\"io.debezium.time.MicroTime\",", "", "", "", "{\"id\":1,\"at\":1}", false);
    assert_int_equal(dec(d, &a, r, &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column at: the record's schema gives io.debezium.time.MicroTime (time_us), which a "
                             "timestamp without time zone column cannot hold");
    free(r);
    conn_decoder_free(d);

    /* a declaration must agree with the schema */
    s = source(FMT_DEBEZIUM_JSON, COL_ENC_EPOCH_MS);
    d = conn_decoder_new(&s, err, sizeof err);
    r = debezium_record("\"name\":\"io.debezium.time.MicroTimestamp\",", "", "", "", "{\"id\":1,\"at\":1}", false);
    assert_int_equal(dec(d, &a, r, &o, err), CONN_DEC_BAD);
    assert_string_equal(err, "column at: the record's schema gives io.debezium.time.MicroTimestamp (epoch_us), but the "
                             "column declares encoding epoch_ms");
    free(r);
    r = debezium_record("\"name\":\"io.debezium.time.Timestamp\",", "", "", "", "{\"id\":1,\"at\":1}", false);
    assert_int_equal(dec(d, &a, r, &o, err), CONN_DEC_ROW);
    assert_int_equal(o.row[K_AT].i, 1000);
    free(r);
    /* a field without a logical type: the declaration holds */
    r = debezium_record("", "", "", "", "{\"id\":1,\"at\":2}", false);
    assert_int_equal(dec(d, &a, r, &o, err), CONN_DEC_ROW);
    assert_int_equal(o.row[K_AT].i, 2000);
    free(r);
    conn_decoder_free(d);
    arena_fini(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(epochs),
        cmocka_unit_test(epoch_boundaries),
        cmocka_unit_test(epoch_days),
        cmocka_unit_test(times_of_day),
        cmocka_unit_test(wrong_kinds),
        cmocka_unit_test(json_and_csv_declared),
        cmocka_unit_test(debezium_schema_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
