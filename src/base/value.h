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
    T__COUNT
} TypeId;

typedef struct Type {
    uint8_t id;          /* TypeId */
    int16_t precision;   /* numeric precision, varchar length; -1 = none */
    int16_t scale;       /* numeric scale; -1 = none (unconstrained numeric) */
} Type;

static inline Type type_make(TypeId id) { Type t = {(uint8_t)id, -1, -1}; return t; }
static inline Type type_numeric(int p, int s) { Type t = {T_NUMERIC, (int16_t)p, (int16_t)s}; return t; }
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

/* Parses a PostgreSQL type name ("bigint", "int8", "numeric(12,2)", "varchar(20)",
 * "character varying", "timestamp with time zone", "double precision" ...).
 * Returns false for an unknown or unsupported name. */
bool type_parse(const char *name, Type *out);
/* Canonical PostgreSQL spelling: "bigint", "numeric(12,2)", "timestamp with time zone"... */
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

#endif
