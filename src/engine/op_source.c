/* Source scan operator: its output is the pipeline's batch for the source, filled by
 * producers (eng_source_batch / eng_source_upsert) before the step. Every scan of
 * the same source shares that batch, so the operator itself does nothing. */
#include "engine/op.h"

#include <stdlib.h>

static bool source_step(Op *op, OpCtx *ctx)
{
    (void)op;
    (void)ctx;
    return true;
}

static void source_free(Op *op)
{
    op_base_fini(op);
    free(op);
}

static const OpVtbl source_vt = {
    .kind = "source",
    .frontier = FR_PASS,
    .step = source_step,
    .free = source_free,
};

Op *op_source_new(EngPipeline *p, const IrNode *n, Batch *source_batch)
{
    Op *op = xcalloc(1, sizeof *op);
    op_base_init(op, &source_vt, p, n, NULL, 0);
    op->out = source_batch;
    return op;
}
