/* Record decoders: turn the bytes of one source record (a JSON line, a CSV record)
 * into a row of the source's columns, or into a reason the record is bad. One decoder
 * per source format (decode_json.c, decode_csv.c, decode_changelog.c); decode.c
 * dispatches on SourceDef.format. Scalar text -> typed value conversion shared by the
 * formats lives in decode_value.c.
 *
 * Text lifetime: by default text cells point into the record bytes (zero-copy) when
 * the value needs no unescaping; the caller must keep the record bytes alive until
 * it stops using the row (the source readers keep every record of a step valid until
 * the next read, i.e. past the end of the engine step). Unescaped or converted text is
 * allocated in the arena passed to the decode call (the source batch's arena). With
 * copy_text set every text cell is copied into that arena instead.
 *
 * Error messages (written into err, never printed) have these shapes:
 *   invalid JSON at byte N: <what>          (N counts from 1 at the start of the record)
 *   not a JSON object
 *   column amount: expected numeric, found string "abc"
 *   column order_id: value out of range for bigint
 *   column created_at: invalid input syntax for type timestamp: "x"  (via value_parse) */
#ifndef WEIR_CONNECTORS_DECODE_H
#define WEIR_CONNECTORS_DECODE_H

#include "base/arena.h"
#include "base/value.h"
#include "engine/engine.h"
#include "project/project.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- scalar conversion (decode_value.c) ---- */

/* Human type label used in messages: "bigint", "numeric", "timestamp" ... (the family,
 * without precision/scale). */
const char *conn_type_label(Type t);
/* Full type text for range errors: "numeric(12,2)", "character varying(5)", "bigint". */
const char *conn_type_text(Type t, char *buf, size_t bufsize);

/* Convert text (a JSON string's content after unescaping, or a CSV field) into a value
 * of type t, the way PostgreSQL's input functions read it (tests/scripts/values_vs_pg.sh
 * compares them): integers are [spaces][+-]digits[spaces] ("12.0" and "1e3" are not
 * integers); numerics are parsed exactly (never through binary floating point) and
 * rounded half away from zero to the column's scale, then checked against its
 * precision, and an unconstrained numeric that weir's 38 digits cannot hold exactly is
 * an error, never rounded; floats take PostgreSQL's documented spellings (not C's
 * hexadecimal floats); text is checked against a varchar length. `s` need not be
 * NUL-terminated. Text results point into `s` unless `copy` is set (then into
 * `arena`); other types allocate only in the value_parse fallback. On failure writes "column <col>: <reason>" into err and returns false. */
bool conn_parse_text(Type t, const char *col, const char *s, size_t len, Arena *arena,
                     bool copy, Value *out, char *err, size_t errsize);

/* conn_parse_text for the text of a JSON number token (`number`: messages say
 * "found number 12.5" rather than "found string"), read as PostgreSQL's
 * json_populate_record reads a number: its text through the type's input. */
bool conn_parse_token(Type t, const char *col, const char *s, size_t len, bool number, Arena *arena,
                      bool copy, Value *out, char *err, size_t errsize);

/* How a value was written: a JSON string, a JSON number, or a CSV field. */
typedef enum ConnTokKind { CONN_TOK_STRING, CONN_TOK_NUMBER, CONN_TOK_FIELD } ConnTokKind;

/* A value written in a temporal encoding (enc != COL_ENC_TEXT; project.h): the integer
 * text of a JSON number or a CSV field (a JSON string is the wrong JSON type: an error)
 * into a column of type t (column_encoding_fits(enc, t)). epoch_s/ms/us/ns count from
 * 1970-01-01 00:00:00 UTC (negative before it); nanoseconds are cut to the microsecond
 * towards the past, so an instant stays in its second, minute and window; epoch_days
 * counts days (a date, or midnight of it as a timestamp); time_* count from midnight,
 * 0 to 24:00:00, into an interval. A value outside the type's range (or the time of
 * day's), a fraction or an exponent is an error ("column <col>: ..."). */
bool conn_parse_encoded(Type t, ColumnEncoding enc, const char *col, const char *s, size_t len, ConnTokKind kind,
                        Value *out, char *err, size_t errsize);

/* Integer value of text read as PostgreSQL's integer input reads it ([spaces][+-]
 * digits[spaces]; not "12.0" or "1e3") into an integer type. Returns 1 on success,
 * 0 on a syntax error, -1 when out of range. */
int conn_parse_integer(Type t, const char *s, size_t len, int64_t *out);
/* Exact numeric input rounded to t's scale (unconstrained numeric keeps the input's
 * scale). Returns 1 on success, 0 on a syntax error, -1 when out of range/precision. */
int conn_parse_numeric(Type t, const char *s, size_t len, Value *out);
/* Fast path for the canonical timestamp spelling 'YYYY-MM-DD HH:MM:SS[.f{1,6}]' (space
 * or 'T'; years 1..9999) into microseconds since 1970. Returns false for anything else
 * (the caller then falls back to value_parse, which knows every other form). */
bool conn_fast_timestamp(const char *s, size_t len, int64_t *us);
/* Fast path for 'YYYY-MM-DD' into days since 1970; false for anything else. */
bool conn_fast_date(const char *s, size_t len, int32_t *days);

/* Appends a short description of found JSON/CSV text for messages: string "abc..."
 * (escaped, truncated). Writes into buf (NUL-terminated). */
void conn_describe_string(const char *s, size_t len, char *buf, size_t bufsize);

/* ---- JSON object decoding (decode_json.c) ---- */

typedef struct ConnJsonDecoder ConnJsonDecoder;

/* A decoder for objects whose keys name the given columns. `extra_key`, when not NULL,
 * is a reserved key (e.g. "op") whose string value is reported instead of being
 * matched against columns. The column array must outlive the decoder. */
ConnJsonDecoder *conn_json_new(const ColumnDef *cols, int ncols, const char *extra_key);
void conn_json_free(ConnJsonDecoder *d);
void conn_json_set_copy_text(ConnJsonDecoder *d, bool copy);
/* The encoding of every column for the records that follow (ncols ColumnEncoding
 * values, kept by the caller), e.g. as a record's schema gives them; NULL: each
 * column's declared encoding. */
void conn_json_set_encodings(ConnJsonDecoder *d, const uint8_t *enc);

/* The value of the reserved key, when present (points into the record or arena). */
typedef struct ConnJsonExtra {
    bool present;
    bool is_null;
    const char *s;
    size_t len;
} ConnJsonExtra;

/* Decode one whole record holding a single JSON object (whitespace around it allowed)
 * into row[ncols]: every column is set (absent keys and JSON null are NULL). Unknown
 * keys are validated and ignored; a duplicated key keeps its last value. Returns false
 * with a message on malformed JSON, a non-object, or a value of the wrong type. */
bool conn_json_decode(const ConnJsonDecoder *d, const char *rec, size_t len, Value *row,
                      Arena *arena, ConnJsonExtra *extra, char *err, size_t errsize);
/* Decode the object starting at rec[*pos] (after optional whitespace) and set *pos just
 * past its closing brace. Positions in messages are relative to rec. */
bool conn_json_decode_at(const ConnJsonDecoder *d, const char *rec, size_t len, size_t *pos,
                         Value *row, Arena *arena, ConnJsonExtra *extra, char *err,
                         size_t errsize);

/* Scanning primitives for decoders of envelope formats (decode_changelog.c). All take
 * the whole record and a position, report errors as "invalid JSON at byte N: ...". */
size_t conn_json_skip_ws(const char *rec, size_t len, size_t pos);
/* Reads a string at rec[*pos] == '"'. The content is returned unescaped: pointing into
 * rec when it has no escapes, else into scratch (of scratch_size bytes; longer
 * escaped strings are an error "string too long"). */
bool conn_json_string(const char *rec, size_t len, size_t *pos, char *scratch, size_t scratch_size,
                      const char **s, size_t *slen, char *err, size_t errsize);
/* Validates and skips one JSON value at rec[*pos]. */
bool conn_json_skip_value(const char *rec, size_t len, size_t *pos, char *err, size_t errsize);
/* Formats "invalid JSON at byte N: <what>". */
void conn_json_syntax_error(size_t pos, const char *what, char *err, size_t errsize);

/* ---- CSV (decode_csv.c) ---- */

typedef struct ConnCsvDecoder ConnCsvDecoder;

ConnCsvDecoder *conn_csv_new(const ColumnDef *cols, int ncols, char delimiter);
void conn_csv_free(ConnCsvDecoder *d);
void conn_csv_set_copy_text(ConnCsvDecoder *d, bool copy);
bool conn_csv_has_header(const ConnCsvDecoder *d);
/* The next record is a header again (the next file of a directory source). */
void conn_csv_reset_header(ConnCsvDecoder *d);
/* Makes dst read records as src does (the header src has read, or none); dst and src
 * were made for the same columns. */
void conn_csv_copy_header(ConnCsvDecoder *dst, const ConnCsvDecoder *src);
/* Reads the header record: maps header names to columns (exact match, then
 * case-insensitive); unknown names are ignored, columns missing from the header read
 * as NULL. Fails when no header name matches a column or a name repeats a column. */
bool conn_csv_header(ConnCsvDecoder *d, const char *rec, size_t len, char *err, size_t errsize);
/* Decode one data record (RFC 4180: quoted fields may hold delimiters, "" and
 * newlines). An empty unquoted field is NULL, a quoted empty field is the empty string
 * (an error for non-text columns). A record must have as many fields as the header. */
bool conn_csv_decode(const ConnCsvDecoder *d, const char *rec, size_t len, Value *row,
                     Arena *arena, char *err, size_t errsize);

/* ---- the decoder for a source (decode.c, decode_changelog.c) ---- */

/* One decoded record. For json/csv sources op is CHANGE_INSERT. For changelog-json:
 * the "op" (update with old_row NULL). For debezium-json: c/r -> insert (row = after),
 * u -> update (row = after, old_row = before or NULL), d -> delete (row = before). */
typedef struct ConnDecoded {
    ChangeOp op;
    Value *row;
    Value *old_row;
} ConnDecoded;

typedef enum ConnDecodeResult {
    CONN_DEC_FATAL = -2,   /* the source cannot be read further (e.g. a CSV header names no column) */
    CONN_DEC_BAD = -1,     /* the record is bad: dead letter with the message */
    CONN_DEC_NONE = 0,     /* the record yields no row (a CSV header, a blank line) */
    CONN_DEC_ROW = 1,      /* out holds a change */
} ConnDecodeResult;

typedef struct ConnDecoder ConnDecoder;

/* A decoder for the source's format and columns. Returns NULL with a message when the
 * format cannot be decoded by weir run yet (e.g. upsert). `s` must outlive it. */
ConnDecoder *conn_decoder_new(const SourceDef *s, char *err, size_t errsize);
void conn_decoder_free(ConnDecoder *d);
/* Copy text into the arena instead of pointing into record bytes. */
void conn_decoder_set_copy_text(ConnDecoder *d, bool copy);
/* The records that follow come from another file (a directory or glob source): a CSV
 * decoder reads a header again. */
void conn_decoder_new_file(ConnDecoder *d);
/* True when the decoder's next record is read for its own sake, whatever came before
 * it: false only for a CSV decoder still to read its header. Records a decoder is
 * ready for may be decoded by several decoders of the same source in any order
 * (parallel decoding), each with its own arena, with the same results. */
bool conn_decoder_ready(const ConnDecoder *d);
/* Makes dst (a decoder of the same source) ready as src is: a CSV header src read. */
void conn_decoder_sync(ConnDecoder *dst, const ConnDecoder *src);
/* Decode one record. Rows in *out belong to the decoder and are valid until the next
 * call; text they hold lives in `arena` or in the record bytes. Blank records
 * (whitespace only) yield CONN_DEC_NONE. */
ConnDecodeResult conn_decode(ConnDecoder *d, const char *rec, size_t len, Arena *arena,
                             ConnDecoded *out, char *err, size_t errsize);

/* The encoding a Debezium / Kafka Connect logical type name (a schema field's "name",
 * e.g. io.debezium.time.MicroTimestamp) stands for; false when it names none. */
bool conn_schema_encoding(const char *name, size_t len, ColumnEncoding *out);

/* changelog-json / debezium-json (decode_changelog.c); used by conn_decode. */
typedef struct ConnChangelogDecoder ConnChangelogDecoder;
ConnChangelogDecoder *conn_changelog_new(const SourceDef *s);
void conn_changelog_free(ConnChangelogDecoder *d);
void conn_changelog_set_copy_text(ConnChangelogDecoder *d, bool copy);
ConnDecodeResult conn_changelog_decode(ConnChangelogDecoder *d, const char *rec, size_t len,
                                       Arena *arena, ConnDecoded *out, char *err, size_t errsize);

#endif
