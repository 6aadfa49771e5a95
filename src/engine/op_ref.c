/* ref('model') operator: passes the upstream model's root output through unchanged.
 * The output batch IS the upstream batch (zero copy); the upstream operator runs
 * earlier in the same step, so the batch is complete when consumers read it. */
#include "engine/op.h"

#include <stdlib.h>

static bool ref_step(Op *op, OpCtx *ctx)
{
    (void)op;
    (void)ctx;
    return true;
}

static void ref_free(Op *op)
{
    op_base_fini(op);
    free(op);
}

static const OpVtbl ref_vt = {
    .kind = "ref",
    .frontier = FR_PASS,
    .step = ref_step,
    .free = ref_free,
};

Op *op_ref_new(EngPipeline *p, const IrNode *n, Op **inputs)
{
    Op *op = xcalloc(1, sizeof *op);
    op_base_init(op, &ref_vt, p, n, inputs, 1);
    op->out = inputs[0]->out;
    return op;
}
