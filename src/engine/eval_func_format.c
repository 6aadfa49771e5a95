/* to_char, to_timestamp and to_date of the scalar function library. */
#include "engine/eval_func_internal.h"

bool eval_func_format(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    (void)av;
    (void)out;
    return eval_fail(ctx, "function %s is not supported", func_kind_name((FuncKind)e->func));
}
