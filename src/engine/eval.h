/* Expression evaluation over one row with PostgreSQL semantics (three-valued logic,
 * NULL propagation, exact numeric arithmetic, overflow and division-by-zero errors).
 * Used by every operator that computes expressions. */
#ifndef WEIR_ENGINE_EVAL_H
#define WEIR_ENGINE_EVAL_H

#include "base/arena.h"
#include "base/value.h"
#include "sql/plan.h"

#include <stdbool.h>

typedef struct EvalCtx {
    Arena *arena;        /* where computed text/values are allocated (the output batch's arena) */
    char err[256];       /* message of the last runtime error (PostgreSQL wording) */
} EvalCtx;

/* Evaluate e over `row` (cells indexed by EX_COLUMN.col). On success writes the
 * result (of type e->type) to *out and returns true; on a runtime error (division by
 * zero, overflow, invalid cast) writes ctx->err and returns false. Text results point
 * into ctx->arena or into the row's text. Allocation-free unless a new text is built. */
bool eval_expr(const Expr *e, const Value *row, EvalCtx *ctx, Value *out);

/* Evaluate a boolean predicate: 1 when TRUE, 0 when FALSE or NULL, -1 on error. */
int eval_pred(const Expr *e, const Value *row, EvalCtx *ctx);

#endif
