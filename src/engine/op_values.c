/* Constant relation operator (PL_VALUES: `VALUES (...), (...)` and the one empty row
 * a SELECT without FROM reads): its rows are emitted once, as inserts, in the first
 * step the operator runs, and never change, so its output is insert-only. Its state is
 * one flag, whether the rows were emitted (checkpointed, so a resumed run does not
 * emit them again). It has no input; its output watermark is the end of time (no row
 * of it can come later). A row whose expressions fail at runtime goes to the dead
 * letters and is dropped. */
#include "engine/op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUES_MAGIC 0x5756414cu /* "WVAL" */
#define VALUES_VERSION 1u

typedef struct ValuesOp {
    Op base;
    bool emitted;
} ValuesOp;

/* Append every row of the relation to out as an insert. */
static bool append_rows(Op *op, Batch *out, char *err, size_t errsize)
{
    const PlanNode *pn = op->node->plan;
    EvalCtx ec = {0};
    ec.arena = &out->arena;
    for (int r = 0; r < pn->nrows; r++) {
        Value *o = batch_append(out, 1);
        bool ok = true;
        for (int c = 0; c < pn->ncols && ok; c++) {
            const Expr *e = pn->exprs[(size_t)r * (size_t)pn->ncols + (size_t)c];
            if (e->kind == EX_CONST) o[c] = e->cval;
            else ok = eval_expr(e, NULL, &ec, &o[c]);
        }
        if (!ok) {
            out->n--;
            if (err) {
                snprintf(err, errsize, "%s", ec.err);
                return false;
            }
            EngDeadLetter dl;
            memset(&dl, 0, sizeof dl);
            dl.source = op->model_name;
            dl.reason = ec.err;
            eng_emit_dead_letter(op->p, &dl);
        }
    }
    return true;
}

static bool values_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    ValuesOp *v = (ValuesOp *)op;
    if (v->emitted) return true;
    v->emitted = true;
    return append_rows(op, op->out, NULL, 0);
}

static int64_t values_out_watermark(const Op *op, int64_t in_wm)
{
    (void)op;
    (void)in_wm;
    return INT64_MAX;
}

static uint64_t values_shape(const Op *op)
{
    uint64_t h = OP_SHAPE_SEED;
    op_shape_mix(&h, (uint64_t)op->ncols);
    for (int c = 0; c < op->ncols; c++) op_shape_mix(&h, op->out_types[c].id);
    op_shape_mix(&h, (uint64_t)op->node->plan->nrows);
    return h;
}

static bool values_serialize(const Op *op, StrBuf *sb)
{
    op_put_header(sb, VALUES_MAGIC, VALUES_VERSION, values_shape(op));
    op_put_u8(sb, ((const ValuesOp *)op)->emitted ? 1 : 0);
    return true;
}

static bool values_deserialize(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize)
{
    OpReader r = {data, data + len, false};
    bool ok = op_get_header(&r, VALUES_MAGIC, VALUES_VERSION, values_shape(op));
    uint8_t f = ok ? op_get_u8(&r) : 0;
    ok = ok && f <= 1;
    if (!op_get_finish(&r, ok, op->node->op_id, err, errsize)) return false;
    ((ValuesOp *)op)->emitted = f == 1;
    return true;
}

static int values_state_stats(const Op *op, EngStateStats *out, int max)
{
    (void)op;
    (void)out;
    (void)max;
    return 0;
}

/* The relation's rows (they are its whole result once emitted; before the first step
 * too, as a replay from the start would emit them). */
static bool values_emit_current(Op *op, char *err, size_t errsize)
{
    return append_rows(op, op->out, err, errsize);
}

static void values_free(Op *op)
{
    op_base_fini(op);
    free(op);
}

static const OpVtbl values_vt = {
    .kind = "values",
    .frontier = FR_NONE,
    .step = values_step,
    .free = values_free,
    .state_stats = values_state_stats,
    .serialize = values_serialize,
    .deserialize = values_deserialize,
    .out_watermark = values_out_watermark,
    .emit_current = values_emit_current,
};

Op *op_values_new(EngPipeline *p, const IrNode *n)
{
    ValuesOp *v = xcalloc(1, sizeof *v);
    op_base_init(&v->base, &values_vt, p, n, NULL, 0);
    return &v->base;
}
