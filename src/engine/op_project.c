/* Projection operator: computes the output expressions for every change (weights
 * pass through). Plain column references and constants are copied without calling
 * the evaluator. A row whose expressions fail at runtime goes to the dead letters and
 * is dropped; because expressions are deterministic its retraction fails alike. */
#include "engine/op.h"

#include <stdlib.h>

static bool proj_op_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    const Batch *in = op->in[0]->out;
    Batch *out = op->out;
    const PlanNode *pn = op->node->plan;
    EvalCtx ec = {0};
    ec.arena = &out->arena;
    ec.err[0] = '\0';
    for (int i = 0; i < in->n; i++) {
        const Value *row = batch_row(in, i);
        Value *o = batch_append(out, in->weights[i]);
        bool ok = true;
        for (int j = 0; j < pn->nexprs; j++) {
            const Expr *e = pn->exprs[j];
            if (e->kind == EX_COLUMN) {
                o[j] = row[e->col];
            } else if (e->kind == EX_CONST) {
                o[j] = e->cval;
            } else if (!eval_expr(e, row, &ec, &o[j])) {
                ok = false;
                break;
            }
        }
        if (!ok) {
            out->n--;
            op_dead_letter(op, 0, i, ec.err);
            continue;
        }
        op_copy_meta(out, in, i);
    }
    return true;
}

static void proj_op_free(Op *op)
{
    op_base_fini(op);
    free(op);
}

static const OpVtbl proj_op_vt = {
    .kind = "project",
    .frontier = FR_PASS,
    .step = proj_op_step,
    .free = proj_op_free,
};

Op *op_project_new(EngPipeline *p, const IrNode *n, Op **inputs)
{
    Op *op = xcalloc(1, sizeof *op);
    op_base_init(op, &proj_op_vt, p, n, inputs, 1);
    return op;
}
