/* UNION ALL operator: the output is the concatenation of all input changes (a Z-set
 * sum), inputs in order. Rows reference the inputs' text (valid for the step). */
#include "engine/op.h"

#include <stdlib.h>
#include <string.h>

static bool union_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    Batch *out = op->out;
    for (int k = 0; k < op->nin; k++) {
        const Batch *in = op->in[k]->out;
        for (int i = 0; i < in->n; i++) {
            batch_append_row(out, batch_row(in, i), in->weights[i]);
            op_copy_meta(out, in, i);
        }
    }
    return true;
}

static void union_free(Op *op)
{
    op_base_fini(op);
    free(op);
}

static const OpVtbl union_vt = {
    .kind = "union_all",
    .frontier = FR_PASS,
    .step = union_step,
    .free = union_free,
};

Op *op_union_all_new(EngPipeline *p, const IrNode *n, Op **inputs)
{
    Op *op = xcalloc(1, sizeof *op);
    op_base_init(op, &union_vt, p, n, inputs, n->ninputs);
    return op;
}
