/* Filter operator: keeps the changes whose row satisfies the predicate (weights pass
 * through unchanged, so insertions and retractions of a row are filtered alike). A
 * predicate that fails at runtime sends the row to the dead letters. Output rows
 * reference the input's text (valid for the step). */
#include "engine/op.h"

#include <stdlib.h>

static bool filter_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    const Batch *in = op->in[0]->out;
    Batch *out = op->out;
    const Expr *pred = op->node->plan->pred;
    EvalCtx ec = {0};
    ec.arena = &out->arena;
    ec.err[0] = '\0';
    for (int i = 0; i < in->n; i++) {
        const Value *row = batch_row(in, i);
        int r = pred ? eval_pred(pred, row, &ec) : 1;
        if (r > 0) {
            batch_append_row(out, row, in->weights[i]);
            op_copy_meta(out, in, i);
        } else if (r < 0) {
            op_dead_letter(op, 0, i, ec.err);
        }
    }
    return true;
}

static void filter_free(Op *op)
{
    op_base_fini(op);
    free(op);
}

static const OpVtbl filter_vt = {
    .kind = "filter",
    .frontier = FR_PASS,
    .step = filter_step,
    .free = filter_free,
};

Op *op_filter_new(EngPipeline *p, const IrNode *n, Op **inputs)
{
    Op *op = xcalloc(1, sizeof *op);
    op_base_init(op, &filter_vt, p, n, inputs, 1);
    return op;
}
