/* Expression evaluation over one row with PostgreSQL semantics (three-valued logic,
 * NULL propagation, exact numeric arithmetic, overflow and division-by-zero errors).
 * Used by every operator that computes expressions. */
#ifndef WEIR_ENGINE_EVAL_H
#define WEIR_ENGINE_EVAL_H

#include "base/arena.h"
#include "base/value.h"
#include "sql/plan.h"

#include <stdbool.h>

/* A remembered result: expressions that format text (casts of numbers and date/times
 * to text) usually see the same input many times in a row (event-time columns repeat
 * within a millisecond, a day key all day long), so the last input and result of a few
 * such nodes are kept while the result's text is still valid (same arena generation). */
#define EVAL_MEMO 4
typedef struct EvalMemo {
    const Expr *e;
    Value in, out;
    const Arena *arena;
    uint64_t gen;
} EvalMemo;

typedef struct EvalCtx {
    Arena *arena;        /* where computed text/values are allocated (the output batch's arena) */
    char err[256];       /* message of the last runtime error (PostgreSQL wording) */
    EvalMemo memo[EVAL_MEMO];  /* zeroed: empty */
} EvalCtx;

/* Evaluate e over `row` (cells indexed by EX_COLUMN.col). On success writes the
 * result (of type e->type) to *out and returns true; on a runtime error (division by
 * zero, overflow, invalid cast) writes ctx->err and returns false. Text results point
 * into ctx->arena or into the row's text. Allocation-free unless a new text is built. */
bool eval_expr(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);

/* Evaluate a boolean predicate: 1 when TRUE, 0 when FALSE or NULL, -1 on error. */
int eval_pred(const Expr *e, const Value *row, EvalCtx *ctx);

#endif
