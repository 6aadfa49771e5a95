/* Internal interface between the scalar function dispatcher (eval_func.c) and the
 * function families: strings (eval_func_string.c), math (eval_func_math.c), date/time
 * (eval_func_time.c), to_char / to_timestamp / to_date (eval_func_format.c),
 * regular expressions (eval_func_regex.c) and arrays (eval_func_array.c). Not for use outside src/engine/eval*.c.
 *
 * Every family entry point evaluates one strict EX_FUNC node of its family: the
 * dispatcher has already evaluated the arguments, av[0 .. e->nargs), none of them
 * NULL. The contract is otherwise eval_expr's: the result (of type e->type) in *out,
 * or false with PostgreSQL's message in ctx->err. */
#ifndef WEIR_ENGINE_EVAL_FUNC_INTERNAL_H
#define WEIR_ENGINE_EVAL_FUNC_INTERNAL_H

#include "engine/eval_internal.h"

/* The most arguments a scalar function takes (make_interval: 7). */
#define EVAL_FUNC_MAX_ARGS 8

bool eval_func_string(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out);
bool eval_func_math(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out);
bool eval_func_time(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out);
bool eval_func_format(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out);
bool eval_func_regex(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out);
bool eval_func_array(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out);

/* The non-strict array evaluators (eval_func_array.c): they evaluate their own
 * arguments over the row. */
bool eval_array_ctor(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);
bool eval_array_cmp(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);
bool eval_agg_item(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);
bool eval_array_concat(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);
bool eval_array_to_string(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);
bool eval_string_to_array(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);
bool eval_array_search(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);
bool eval_json_build(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);

/* concat() and concat_ws(), the non-strict string functions: they evaluate their own
 * arguments over the row (eval_func_string.c). */
bool eval_func_concat(const Expr *e, const Value *row, EvalCtx *ctx, Value *out, bool ws);

/* "value overflows numeric format"; returns false. */
bool eval_overflow_numeric(EvalCtx *ctx);
/* "requested length too large" unless n bytes fit a text value (PostgreSQL's 1 GB
 * limit for a single value); returns whether they fit. */
bool eval_text_size_ok(size_t n, EvalCtx *ctx);

/* Byte offset after skipping k characters from the start of s (n bytes). */
static inline size_t utf8_skip_chars(const unsigned char *s, size_t n, int64_t k)
{
    size_t i = 0;
    while (k > 0 && i < n) {
        i += utf8_charlen(s + i, n - i);
        k--;
    }
    return i;
}

/* Number of characters in s (n bytes): the bytes that do not continue a character. */
static inline int64_t utf8_count_chars(const unsigned char *s, size_t n)
{
    int64_t c = 0;
    for (size_t i = 0; i < n; i++) c += (s[i] & 0xC0) != 0x80;
    return c;
}

#endif
