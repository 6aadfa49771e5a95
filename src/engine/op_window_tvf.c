/* Window table functions TUMBLE / HOP / SESSION: output = input columns ++
 * window_start, window_end (of the time column's type). Stateless.
 *
 *   TUMBLE(size)        one window per row: start = floor(t / size) * size
 *   HOP(slide, size)    every window [k*slide, k*slide + size) containing t, in
 *                       ascending start order (size/slide rows per input row)
 *   SESSION(gap)        sessions depend on later rows, so they cannot be assigned per
 *                       row: the TVF passes rows through with NULL window columns and
 *                       the window aggregate above it (the only consumer allowed,
 *                       directly or through filters that do not read the window
 *                       columns) builds the sessions from the time column.
 *
 * Windows are aligned to the epoch (1970-01-01 00:00:00). A row whose time is NULL
 * belongs to no window: it goes to the dead letters ("event time is NULL"). Weights
 * pass through, so retractions are assigned the same windows as their insertions. */
#include "engine/op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TvfOp {
    Op base;
    WindowTvfKind kind;
    int time_col;
    Type time_type;
    int64_t size, slide;
} TvfOp;

static void emit(TvfOp *t, const Batch *in, int i, int64_t ws, int64_t we)
{
    Batch *out = t->base.out;
    int nin = in->ncols;
    Value *o = batch_append(out, in->weights[i]);
    memcpy(o, batch_row(in, i), sizeof(Value) * (size_t)nin);
    Type wt = t->base.out_types[nin];
    o[nin] = op_time_value(wt, ws);
    o[nin + 1] = op_time_value(wt, we);
    op_copy_meta(out, in, i);
}

static bool tvf_step(Op *op, OpCtx *ctx)
{
    (void)ctx;
    TvfOp *t = (TvfOp *)op;
    const Batch *in = op->in[0]->out;
    Batch *out = op->out;
    for (int i = 0; i < in->n; i++) {
        const Value *row = batch_row(in, i);
        const Value *tv = &row[t->time_col];
        if (tv->isnull) {
            op_dead_letter(op, 0, i, "event time is NULL");
            continue;
        }
        if (t->kind == WTVF_SESSION) {
            Value *o = batch_append(out, in->weights[i]);
            memcpy(o, row, sizeof(Value) * (size_t)in->ncols);
            o[in->ncols] = value_null();
            o[in->ncols + 1] = value_null();
            op_copy_meta(out, in, i);
            continue;
        }
        int64_t us = op_time_us(t->time_type, tv);
        if (t->kind == WTVF_TUMBLE) {
            int64_t ws = op_floor_div(us, t->size) * t->size;
            emit(t, in, i, ws, op_sat_add(ws, t->size));
        } else {
            /* starts k * slide with us - size < start <= us */
            int64_t last = op_floor_div(us, t->slide) * t->slide;
            int64_t first = (op_floor_div(op_sat_add(us, -t->size), t->slide) + 1) * t->slide;
            for (int64_t s = first; s <= last; s += t->slide) {
                emit(t, in, i, s, op_sat_add(s, t->size));
                if (s > INT64_MAX - t->slide) break;
            }
        }
    }
    return true;
}

static void tvf_free(Op *op)
{
    op_base_fini(op);
    free(op);
}

static const OpVtbl tvf_vt = {
    .kind = "window_tvf",
    .frontier = FR_PASS,
    .step = tvf_step,
    .free = tvf_free,
};

static bool is_window_aggregate(const PlanNode *p)
{
    return p->kind == PL_AGGREGATE && (p->window_start_key >= 0 || p->window_end_key >= 0);
}

/* Every consumer of n is a window aggregate, directly or through filters (and n is no
 * model's output). */
static bool only_window_aggregates(const IrGraph *g, const IrNode *n)
{
    for (int m = 0; m < g->nmodels; m++)
        if (g->models[m].root == n) return false;
    for (int i = 0; i < g->nnodes; i++) {
        const IrNode *c = g->nodes[i];
        for (int k = 0; k < c->ninputs; k++) {
            if (c->inputs[k] != n) continue;
            if (is_window_aggregate(c->plan)) continue;
            if (c->plan->kind == PL_FILTER && only_window_aggregates(g, c)) continue;
            return false;
        }
    }
    return true;
}

Op *op_window_tvf_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize)
{
    const PlanNode *pn = n->plan;
    const Op *in = inputs[0];
    if (pn->time_col < 0 || pn->time_col >= in->ncols || pn->ncols != in->ncols + 2) {
        snprintf(err, errsize, "%s: malformed window table function (time column %d)", n->op_id, pn->time_col);
        return NULL;
    }
    Type tt = in->out_types[pn->time_col];
    if (!type_is_temporal(tt)) {
        snprintf(err, errsize, "%s: the time column of a window must be a timestamp or date", n->op_id);
        return NULL;
    }
    switch (pn->wtvf) {
    case WTVF_TUMBLE:
        if (pn->size_us <= 0) {
            snprintf(err, errsize, "%s: TUMBLE size must be positive", n->op_id);
            return NULL;
        }
        break;
    case WTVF_HOP:
        if (pn->size_us <= 0 || pn->slide_us <= 0) {
            snprintf(err, errsize, "%s: HOP slide and size must be positive", n->op_id);
            return NULL;
        }
        break;
    case WTVF_SESSION:
        if (pn->gap_us <= 0) {
            snprintf(err, errsize, "%s: SESSION gap must be positive", n->op_id);
            return NULL;
        }
        if (!only_window_aggregates(eng_pipeline_graph(p), n)) {
            snprintf(err, errsize, "SESSION windows are only supported under a window aggregate "
                     "(GROUP BY window_start, window_end): a row's session depends on later rows");
            return NULL;
        }
        break;
    }
    TvfOp *t = xcalloc(1, sizeof *t);
    op_base_init(&t->base, &tvf_vt, p, n, inputs, 1);
    t->kind = pn->wtvf;
    t->time_col = pn->time_col;
    t->time_type = tt;
    t->size = pn->size_us;
    t->slide = pn->slide_us;
    return &t->base;
}
