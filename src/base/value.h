/* SQL types and runtime values. A Value is a 24-byte cell: integers, dates and
 * timestamps in `i`, floats in `f`, text as (s, len), numeric as a 128-bit scaled
 * integer (lo/hi + scale), interval as (months, days, micros). Text bytes are owned
 * elsewhere (an arena or keyed state); a Value never owns memory. */
#ifndef WEIR_BASE_VALUE_H
#define WEIR_BASE_VALUE_H

#include "base/arena.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

typedef __int128 i128;

typedef enum TypeId {
    T_UNKNOWN = 0,   /* untyped NULL literal or a string literal not yet coerced */
    T_BOOL,
    T_INT2,          /* smallint */
    T_INT4,          /* integer */
    T_INT8,          /* bigint */
    T_FLOAT4,        /* real */
    T_FLOAT8,        /* double precision */
    T_NUMERIC,       /* numeric(p,s) exact; precision/scale -1 when unconstrained */
    T_TEXT,          /* text; varchar(n) is T_TEXT with precision = n */
    T_TIMESTAMP,     /* microseconds since 1970-01-01 00:00:00, no zone */
    T_TIMESTAMPTZ,   /* microseconds since 1970-01-01 00:00:00 UTC */
    T_DATE,          /* days since 1970-01-01 */
    T_INTERVAL,      /* months, days, microseconds (PostgreSQL's three fields) */
    T_ARRAY,         /* one-dimensional array: Type.elem is the element's TypeId and
                        precision/scale the element's; the Value holds the encoded
                        elements as bytes (s, len; layout in value_array.c) */
    T_JSON,          /* json: its text as bytes (s, len), kept as produced */
    T__COUNT
} TypeId;

typedef struct Type {
    uint8_t id;          /* TypeId */
    int16_t precision;   /* numeric precision, varchar length; -1 = none */
    int16_t scale;       /* numeric scale; -1 = none (unconstrained numeric) */
    uint8_t elem;        /* T_ARRAY: the element's TypeId (never T_ARRAY or T_JSON); else 0 */
} Type;

static inline Type type_make(TypeId id) { Type t = {(uint8_t)id, -1, -1, 0}; return t; }
static inline Type type_numeric(int p, int s) { Type t = {T_NUMERIC, (int16_t)p, (int16_t)s, 0}; return t; }
static inline bool type_is_integer(Type t) { return t.id == T_INT2 || t.id == T_INT4 || t.id == T_INT8; }
static inline bool type_is_float(Type t) { return t.id == T_FLOAT4 || t.id == T_FLOAT8; }
static inline bool type_is_numeric_family(Type t) { return type_is_integer(t) || type_is_float(t) || t.id == T_NUMERIC; }
static inline bool type_is_temporal(Type t) { return t.id == T_TIMESTAMP || t.id == T_TIMESTAMPTZ || t.id == T_DATE; }
/* bool, the integers, date and the timestamps: the Value is `i`, and equality, order and
 * hashing are those of an int64 (the engine's fast paths). */
static inline bool type_is_int_like(Type t)
{
    switch ((TypeId)t.id) {
    case T_BOOL: case T_INT2: case T_INT4: case T_INT8:
    case T_TIMESTAMP: case T_TIMESTAMPTZ: case T_DATE:
        return true;
    default:
        return false;
    }
}
bool type_equal(Type a, Type b);
/* The array type whose elements have type elem (elem's precision/scale are kept). */
static inline Type type_array(Type elem)
{
    Type t = {T_ARRAY, elem.precision, elem.scale, elem.id};
    return t;
}
/* The element type of an array type. */
static inline Type type_elem(Type arr)
{
    Type t = {arr.elem, arr.precision, arr.scale, 0};
    return t;
}
/* t without its modifiers (numeric's precision and scale, varchar's length); an
 * array keeps its element type, without the element's modifiers. */
static inline Type type_base(Type t)
{
    Type b = {t.id, -1, -1, t.id == T_ARRAY ? t.elem : 0};
    return b;
}
/* Types whose Value is bytes (s, len) that an operator keeping it must copy: text,
 * unknown literals, arrays, json. */
static inline bool type_is_varlen(Type t)
{
    return t.id == T_TEXT || t.id == T_UNKNOWN || t.id == T_ARRAY || t.id == T_JSON;
}

/* Parses a PostgreSQL type name ("bigint", "int8", "numeric(12,2)", "varchar(20)",
 * "character varying", "timestamp with time zone", "double precision", "json", an
 * array of any of the scalar ones "text[]" / "numeric(12,2)[]" ...).
 * Returns false for an unknown or unsupported name. */
bool type_parse(const char *name, Type *out);
/* Canonical PostgreSQL spelling (format_type): "bigint", "numeric(12,2)",
 * "timestamp with time zone", "text[]", "json"... */
const char *type_name(Type t, char *buf, size_t bufsize);
/* Short stable name of the type family used in JSON output and fingerprints. */
const char *type_id_name(TypeId id);
/* All type names accepted by type_parse, for "did you mean" hints. */
extern const char *const type_known_names[];
extern const int type_known_names_count;

typedef struct Value {
    union {
        int64_t i;        /* bool (0/1), int2/4/8, date, timestamp(tz), interval micros */
        double f;         /* float4/float8 */
        const char *s;    /* text bytes (not necessarily NUL-terminated) */
        uint64_t lo;      /* numeric: low 64 bits of the scaled integer */
    };
    union {
        int64_t hi;       /* numeric: high 64 bits */
        uint32_t len;     /* text length in bytes */
        struct { int32_t months, days; } iv;  /* interval */
    };
    int16_t scale;        /* numeric: digits after the decimal point */
    uint8_t isnull;
    uint8_t pad_[5];
} Value;

static inline Value value_null(void) { Value v = {0}; v.isnull = 1; return v; }
static inline Value value_int(int64_t i) { Value v = {0}; v.i = i; return v; }
static inline Value value_bool(bool b) { Value v = {0}; v.i = b ? 1 : 0; return v; }
static inline Value value_float(double f) { Value v = {0}; v.f = f; return v; }
static inline Value value_text(const char *s, uint32_t len) { Value v = {0}; v.s = s; v.len = len; return v; }
static inline Value value_numeric(i128 n, int scale)
{
    Value v = {0};
    v.lo = (uint64_t)n;
    v.hi = (int64_t)(n >> 64);
    v.scale = (int16_t)scale;
    return v;
}
static inline i128 value_num(const Value *v) { return (i128)(((unsigned __int128)(uint64_t)v->hi << 64) | v->lo); }
static inline Value value_interval(int32_t months, int32_t days, int64_t micros)
{
    Value v = {0};
    v.i = micros;
    v.iv.months = months;
    v.iv.days = days;
    return v;
}

/* --- operations implemented in value.c --- */

/* Total order used for sorting, MIN/MAX, and grouping (NULLs sort last, as in
 * PostgreSQL's default ASC). Both values must have type t. Floats order NaN
 * greater than every number, as PostgreSQL does. Numerics compare by value
 * (1.50 == 1.5). Returns <0, 0, >0. */
int value_compare(Type t, const Value *a, const Value *b);
/* Equality consistent with value_compare (NULL equals NULL here: grouping semantics). */
bool value_equal(Type t, const Value *a, const Value *b);
/* Hash consistent with value_equal (numeric 1.50 and 1.5 hash equal). */
uint64_t value_hash(Type t, const Value *v, uint64_t seed);

/* PostgreSQL text output of a non-NULL value (e.g. numeric keeps its scale: "15.50";
 * timestamp "2024-01-01 00:00:01.25"; float8 shortest round-trip "0.1"; bool "t"/"f"
 * is NOT used: see value_format_json). */
void value_format_text(Type t, const Value *v, StrBuf *out);
/* JSON output: NULL -> null; bool -> true/false; integers and numerics as JSON numbers
 * (numerics keep their scale: 15.50); floats as numbers (NaN/Infinity as strings);
 * text, timestamps, dates and intervals as JSON strings of their text output. */
void value_format_json(Type t, const Value *v, StrBuf *out);

/* Parse text input the way PostgreSQL's input functions do for the type
 * (e.g. ' 42 ' for integers, 't'/'true'/'yes'/'on'/'1' for bool, '1e3' for numeric,
 * ISO 8601 timestamps with ' ' or 'T', intervals '1 day 02:00:00', '10 seconds', 'P1D').
 * Text values are copied into the arena. Numerics are rounded to the type's scale and
 * checked against its precision. Returns false and writes a message into err
 * (e.g. "invalid input syntax for type bigint: \"abc\"") on failure. */
bool value_parse(Type t, const char *text, size_t len, Arena *arena, Value *out,
                 char *err, size_t errsize);
/* float4 (f4) / float8 input, blanks around it allowed, with PostgreSQL's range rule
 * (an overflow or an underflow to zero is an error; denormals are accepted): strtof /
 * strtod over the non-terminated text. Returns 0 (ok, *out set), 1 (syntax) or 2 (out
 * of range). */
int value_parse_float(const char *s, size_t len, bool f4, double *out);

/* Cast a non-NULL value from type `from` to type `to` with PostgreSQL semantics
 * (numeric rounding half away from zero, integer overflow errors, float->int rounding
 * to nearest-even as PostgreSQL's rint, text<->anything via parse/format, timestamp<->date,
 * timestamp<->timestamptz as UTC). Returns false with a message on failure. */
bool value_cast(Type from, Type to, const Value *in, Arena *arena, Value *out,
                char *err, size_t errsize);

/* ---- arrays (value_array.c) ----
 * An array Value's bytes: u32 element count, then per element a u8 (0 NULL, 1 value)
 * and the value: for a varlen element type a u32 length and the bytes, for any other
 * its 18 bytes (the two 8-byte words of the Value, normalised, and the 2-byte scale).
 * Host byte order: the bytes travel only inside one engine, its state and its
 * checkpoints. Equal arrays (representation) have equal bytes. */

typedef struct ArrayIter {
    const char *p, *end;
    uint32_t left;
} ArrayIter;

/* Number of elements of a non-NULL array value (0 for malformed bytes). */
uint32_t array_count(const Value *a);
/* Start iterating a non-NULL array value. */
void array_iter(ArrayIter *it, const Value *a);
/* Next element (text points into the array's bytes); false at the end. */
bool array_next(ArrayIter *it, Type elem, Value *out);
/* Element i (1-based) of a non-NULL array, NULL outside 1..count. */
Value array_get(Type elem, const Value *a, int64_t i);
/* Building an array: array_begin writes the header into out (which may hold other
 * bytes before: the array starts at *start), array_push appends one element (NULL
 * allowed), array_end fixes the count. */
void array_begin(StrBuf *out, size_t *start);
void array_push(StrBuf *out, Type elem, const Value *v);
void array_end(StrBuf *out, size_t start, uint32_t n);
/* The same without a StrBuf: the bytes array_push appends for v, and writing them at p
 * (returns the end); the 4-byte count at the start is the caller's (array_put_count). */
size_t array_elem_size(Type elem, const Value *v);
char *array_put_elem(char *p, Type elem, const Value *v);
void array_put_count(char *start, uint32_t n);
/* Do the bytes form a well-formed array of elem (a checkpoint read back)? */
bool array_valid(Type elem, const char *s, size_t len);
/* PostgreSQL's json of a non-NULL value as to_json writes it (json_agg's elements):
 * numbers bare, NaN/Infinity and text quoted and escaped, booleans true/false,
 * timestamps in ISO 8601 with 'T' ("2024-01-01T10:00:00", timestamptz with "+00:00"),
 * arrays as [e,e], json as it is. */
void value_format_pgjson(Type t, const Value *v, StrBuf *out);
/* The same as a JSON object key (json_object_agg, json_build_object): a string, the
 * value's to_json text quoted when it is not one ("1.50", "true"). v non-NULL, scalar. */
void value_format_pgjson_key(Type t, const Value *v, StrBuf *out);

#endif
