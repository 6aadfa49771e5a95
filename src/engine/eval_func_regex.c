/* Regular expressions of the scalar function library. */
#include "engine/eval_func_internal.h"

bool eval_func_regex(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    (void)av;
    (void)out;
    return eval_fail(ctx, "function %s is not supported", func_kind_name((FuncKind)e->func));
}

int eval_regex_op(const Expr *e, const Value *row, EvalCtx *ctx)
{
    (void)row;
    (void)e;
    eval_fail(ctx, "regular expressions are not supported");
    return -1;
}
