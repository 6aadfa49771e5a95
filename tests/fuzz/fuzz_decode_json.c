/* Fuzz target for the JSON record decoders: the input is decoded as one record
 * against a fixed schema holding every column type, as json (zero-copy and copying
 * text), changelog-json and debezium-json. A decoded row must hold valid values: text
 * is valid UTF-8 without NUL bytes and every value can be rendered as JSON. */
#include "connectors/decode.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static ColumnDef cols[14];

static void init(void)
{
    static bool done;
    if (done) return;
    done = true;
    static const char *names[14] = {"id", "qty", "small", "amount", "big", "ratio", "score",
                                    "flag", "name", "code", "created_at", "created_tz", "day", "span"};
    Type types[14] = {
        type_make(T_INT8), type_make(T_INT4), type_make(T_INT2), type_numeric(12, 2), type_make(T_NUMERIC),
        type_make(T_FLOAT4), type_make(T_FLOAT8), type_make(T_BOOL), type_make(T_TEXT),
        {T_TEXT, 5, -1, 0}, type_make(T_TIMESTAMP), type_make(T_TIMESTAMPTZ), type_make(T_DATE), type_make(T_INTERVAL),
    };
    for (int c = 0; c < 14; c++) {
        cols[c].name = names[c];
        cols[c].type = types[c];
    }
}

static bool valid_text(const Value *v)
{
    const unsigned char *p = (const unsigned char *)v->s, *e = p + v->len;
    while (p < e) {
        unsigned c = *p;
        if (c == 0) return false;
        if (c < 0x80) { p++; continue; }
        int k = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 ? 1 : -1;
        if (k < 0 || c > 0xF4 || e - p <= k) return false;
        for (int j = 1; j <= k; j++)
            if ((p[j] & 0xC0) != 0x80) return false;
        p += k + 1;
    }
    return true;
}

static void check_row(const Value *row)
{
    StrBuf sb = STRBUF_INIT;
    for (int c = 0; c < 14; c++) {
        if (!row[c].isnull && cols[c].type.id == T_TEXT && !valid_text(&row[c])) abort();
        value_format_json(cols[c].type, &row[c], &sb);
    }
    sb_free(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init();
    /* a private copy, exactly `size` bytes: reading past the record is an ASan error */
    char *rec = malloc(size ? size : 1);
    if (size) memcpy(rec, data, size);
    Arena arena;
    arena_init(&arena, 4096);
    char err[512];
    Value row[14];

    ConnJsonDecoder *d = conn_json_new(cols, 14, NULL);
    if (conn_json_decode(d, rec, size, row, &arena, NULL, err, sizeof err)) check_row(row);
    else if (!err[0]) abort();
    conn_json_set_copy_text(d, true);
    if (conn_json_decode(d, rec, size, row, &arena, NULL, err, sizeof err)) check_row(row);
    conn_json_free(d);

    static int pk[1] = {0};
    SourceDef s;
    memset(&s, 0, sizeof s);
    s.name = "fuzz";
    s.columns = cols;
    s.ncolumns = 14;
    s.event_time_col = -1;
    s.pk_cols = pk;
    s.npk = 1;
    DataFormat fmts[2] = {FMT_CHANGELOG_JSON, FMT_DEBEZIUM_JSON};
    for (int i = 0; i < 2; i++) {
        s.format = fmts[i];
        ConnDecoder *cd = conn_decoder_new(&s, err, sizeof err);
        ConnDecoded out;
        if (conn_decode(cd, rec, size, &arena, &out, err, sizeof err) == CONN_DEC_ROW) {
            check_row(out.row);
            if (out.old_row) check_row(out.old_row);
        }
        conn_decoder_free(cd);
    }
    arena_fini(&arena);
    free(rec);
    return 0;
}
