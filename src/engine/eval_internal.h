/* Internal interfaces shared by the evaluator's files (eval.c, eval_func.c, like.c):
 * operand fetching without copies, error reporting, UTF-8 decoding and the simple
 * case mapping used by lower/upper/ILIKE. Not for use outside src/engine/eval*.c. */
#ifndef WEIR_ENGINE_EVAL_INTERNAL_H
#define WEIR_ENGINE_EVAL_INTERNAL_H

#include "engine/eval.h"

#include <stddef.h>
#include <stdint.h>

/* Writes a printf-formatted message into ctx->err; always returns false so callers
 * can `return eval_fail(ctx, ...)`. */
bool eval_fail(EvalCtx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Evaluates an EX_FUNC node (eval_func.c). Same contract as eval_expr. */
bool eval_func(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);

/* Numeric result finishing: rounds (n, scale) to e's fixed scale when the result type
 * is numeric(p,s), checks the precision, and stores it in *out. */
bool eval_numeric_result(const Expr *e, i128 n, int scale, EvalCtx *ctx, Value *out);

/* Converts a computed value of type `from` to e->type when they differ (the binder
 * normally makes them equal; this is a safety net, not a hot path). */
bool eval_coerce(const Expr *e, Type from, Value *v, EvalCtx *ctx);

/* Text form of a non-NULL value for || and concat() when the binder left a non-text
 * argument: the type's PostgreSQL output (built in ctx->arena). Booleans print as
 * "true"/"false" (the bool::text cast, what || uses) or, with bool_short, "t"/"f"
 * (boolout, what concat() uses). Text values are returned as is. */
const Value *eval_as_text(Type t, const Value *v, bool bool_short, EvalCtx *ctx, Value *tmp);

/* Returns a pointer to the value of argument expression a: the row cell for a column,
 * the constant itself for a constant (no copy), otherwise evaluates into *tmp and
 * returns tmp. NULL on error (ctx->err written). */
static inline const Value *eval_operand(const Expr *a, const Value *row, EvalCtx *ctx, Value *tmp)
{
    if (a->kind == EX_COLUMN) return &row[a->col];
    if (a->kind == EX_CONST) return &a->cval;
    return eval_expr(a, row, ctx, tmp) ? tmp : NULL;
}

/* --- LIKE / ILIKE (like.c) --- */

/* SQL LIKE of text t against pattern p with '%', '_' (one character) and '\' escape.
 * icase folds both sides with eval_lower_cp (ILIKE). Returns 1 on a match, 0 on no
 * match, -1 when the pattern ends with an escape character (ctx->err written).
 * Allocation-free, iterative (no recursion, one backtrack point). */
int eval_like_match(const char *t, size_t tlen, const char *p, size_t plen, bool icase, EvalCtx *ctx);

/* --- UTF-8 and case mapping (like.c) --- */

/* Decodes one character at s (slen > 0 bytes available). Invalid or truncated
 * sequences decode as the single byte (so any input makes progress). */
static inline uint32_t utf8_decode(const unsigned char *s, size_t slen, size_t *adv)
{
    unsigned c = s[0];
    if (c < 0x80) { *adv = 1; return c; }
    if (c >= 0xC2 && c < 0xE0 && slen >= 2 && (s[1] & 0xC0) == 0x80) {
        *adv = 2;
        return ((uint32_t)(c & 0x1F) << 6) | (s[1] & 0x3F);
    }
    if (c >= 0xE0 && c < 0xF0 && slen >= 3 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
        *adv = 3;
        return ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    }
    if (c >= 0xF0 && c < 0xF5 && slen >= 4 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 &&
        (s[3] & 0xC0) == 0x80) {
        *adv = 4;
        return ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
               ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    }
    *adv = 1;
    return c;
}

/* Byte length of the character starting at s, from its lead byte (as PostgreSQL's
 * pg_mblen), clamped to the slen bytes available; stray bytes count as one. */
static inline size_t utf8_charlen(const unsigned char *s, size_t slen)
{
    unsigned c = s[0];
    size_t l = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 1;
    return l <= slen ? l : slen;
}

/* Encodes code point c (< 0x110000) into out (4 bytes room); returns the length. */
static inline size_t utf8_encode(uint32_t c, char *out)
{
    if (c < 0x80) { out[0] = (char)c; return 1; }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Simple (one-to-one) case mapping: glibc's towlower/towupper in the C.UTF-8 locale
 * (PostgreSQL's libc provider in a C.UTF-8 database), or, without that locale, tables
 * for ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic. A mapped character may need
 * one UTF-8 byte more than the original (U+0250 upper-cases to U+2C6F). */
uint32_t eval_lower_cp(uint32_t c);
uint32_t eval_upper_cp(uint32_t c);
/* Whether c is a letter or digit in the same locale (iswalnum): initcap's word rule. */
bool eval_isalnum_cp(uint32_t c);

/* --- regular expression operators (eval_func_regex.c) --- */

/* text ~ pattern, ~*, !~, !~* (e->op OP_REGEX .. OP_NOT_IREGEX): 1 true, 0 false,
 * 2 NULL, -1 error (ctx->err written). Uses e->regex when the binder compiled the
 * pattern, else compiles it for this row. */
int eval_regex_op(const Expr *e, const Value *row, EvalCtx *ctx);

#endif
