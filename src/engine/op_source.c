/* Source scan operator: its output is the pipeline's batch for the source, filled by
 * producers (eng_source_batch / eng_source_upsert) before the step. Every scan of
 * the same source shares that batch, so the operator itself does nothing, except when
 * the batch carries the replay lineage columns (another model reads them) and this
 * scan does not: it then narrows the rows to the declared columns, keeping their
 * weights, origins and frontiers. */
#include "engine/op.h"

#include <stdlib.h>
#include <string.h>

typedef struct SourceOp {
    Op base;
    Batch *shared;           /* the source's batch; NULL when op->out is it */
} SourceOp;

static bool source_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    SourceOp *so = (SourceOp *)op;
    if (!so->shared) return true;
    const Batch *in = so->shared;
    Batch *out = &op->own;
    for (int i = 0; i < in->n; i++) {
        Value *row = batch_append(out, in->weights[i]);
        memcpy(row, batch_row(in, i), sizeof(Value) * (size_t)out->ncols);
        if (in->origins) batch_set_origin(out, out->n - 1, &in->origins[i]);
        if (in->frontier) batch_set_frontier(out, out->n - 1, in->frontier[i]);
    }
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
    SourceOp *so = xcalloc(1, sizeof *so);
    Op *op = &so->base;
    op_base_init(op, &source_vt, p, n, NULL, 0);
    if (n->plan->ncols < source_batch->ncols) so->shared = source_batch;
    else op->out = source_batch;
    return op;
}
