/* What `weir apply` needs from the engine (engine.h, "versions"): a model's current rows
 * re-derived from state, and state moved from the pipeline of one version (or of a
 * replay) into the pipeline of another.
 *
 * A model's rows come from its frontier: on every path down from its root, the first
 * operator whose state holds its current result (emit_current), or the normalize state
 * of a keyed updating source. The frontier operators write their result into their
 * output batches as insertions, the stateless operators above them run one step over
 * those batches, and the root's batch is presented as a step's output would be. No
 * state changes and no dead letter is written. */
#include "engine/pipeline_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M_NONE, M_FRONTIER, M_ABOVE };

/* Mark the frontier below op and the operators above it; false when a path reaches an
 * operator that keeps state without holding its result, or an insert-only source. */
static bool mark(EngPipeline *p, const Op *op, uint8_t *marks)
{
    int i = op->node->index;
    if (marks[i] != M_NONE) return true;
    if (op->vt->emit_current) {
        marks[i] = M_FRONTIER;
        return true;
    }
    if (op->node->plan->kind == PL_SOURCE) {
        if (!p->src[op->node->source].norm) return false;
        marks[i] = M_FRONTIER;
        return true;
    }
    if (op->vt->serialize || op->nin == 0) return false;
    marks[i] = M_ABOVE;
    for (int k = 0; k < op->nin; k++)
        if (!mark(p, op->in[k], marks)) return false;
    return true;
}

static const Op *root_op(const EngPipeline *p, int model)
{
    const IrNode *r = p->g->models[model].root;
    return r ? p->node_ops[r->index] : NULL;
}

bool eng_model_derivable(EngPipeline *p, int model)
{
    const Op *root = root_op(p, model);
    if (!root) return false;
    uint8_t *marks = xcalloc((size_t)p->g->nnodes + 1, 1);
    bool ok = mark(p, root, marks);
    free(marks);
    return ok;
}

bool eng_model_rows(EngPipeline *p, int model, const Batch *minus, EngListener fn, void *ctx, char *err,
                    size_t errsize)
{
    const Op *root = root_op(p, model);
    if (!root) {
        snprintf(err, errsize, "model %s does not run", p->g->project->models[model].name);
        return false;
    }
    uint8_t *marks = xcalloc((size_t)p->g->nnodes + 1, 1);
    if (!mark(p, root, marks)) {
        free(marks);
        snprintf(err, errsize, "the rows of model %s are not kept in state", p->g->project->models[model].name);
        return false;
    }
    EngDeadLetterFn dl = p->opts.dead_letter;
    p->opts.dead_letter = NULL;
    OpCtx octx = {p, p->step, err, errsize};
    bool ok = true;
    eng_reset_batches(p);
    for (int i = 0; i < p->nops && ok; i++) {
        Op *op = p->ops[i];
        uint8_t m = marks[op->node->index];
        if (m == M_FRONTIER && op->node->plan->kind == PL_SOURCE) {
            Op *norm = p->src[op->node->source].norm;
            Batch *saved = norm->out;
            norm->out = &p->src[op->node->source].batch;
            ok = norm->vt->emit_current(norm, err, errsize);
            norm->out = saved;
            if (ok) ok = op->vt->step(op, &octx);
        } else if (m == M_FRONTIER) {
            ok = op->vt->emit_current(op, err, errsize);
        } else if (m == M_ABOVE) {
            ok = op->vt->step(op, &octx);
        }
    }
    if (ok && minus) {
        Batch *out = root->out;
        for (int i = 0; i < minus->n; i++)
            batch_append_row_copy(out, batch_row(minus, i), root->out_types, -minus->weights[i]);
    }
    if (ok) ok = eng_present(p, model, root, fn, ctx, err, errsize);
    eng_reset_batches(p);
    p->opts.dead_letter = dl;
    free(marks);
    return ok;
}

typedef struct Collect {
    Batch *b;
    const Type *types;
} Collect;

static bool collect_rows(void *ctx, int model, const EngChange *changes, int n, char *err, size_t errsize)
{
    (void)model; (void)err; (void)errsize;
    Collect *c = ctx;
    for (int i = 0; i < n; i++) batch_append_row_copy(c->b, changes[i].row, c->types, 1);
    return true;
}

bool eng_model_rows_batch(EngPipeline *p, int model, Batch *out, char *err, size_t errsize)
{
    const Op *root = root_op(p, model);
    if (!root) {
        snprintf(err, errsize, "model %s does not run", p->g->project->models[model].name);
        return false;
    }
    Collect c = {out, root->out_types};
    return eng_model_rows(p, model, NULL, collect_rows, &c, err, errsize);
}

/* The operator (or source normalize state) of pipeline p with id `id`. */
static Op *find_op(const EngPipeline *p, const char *id)
{
    for (int i = 0; i < p->nops; i++)
        if (p->ops[i]->node && p->ops[i]->node->op_id && strcmp(p->ops[i]->node->op_id, id) == 0) return p->ops[i];
    for (int s = 0; s < p->nsrc; s++)
        if (p->src[s].norm && p->src[s].norm_id && strcmp(p->src[s].norm_id, id) == 0) return p->src[s].norm;
    return NULL;
}

bool eng_has_op(const EngPipeline *p, const char *op_id) { return find_op(p, op_id) != NULL; }

bool eng_adopt_state(EngPipeline *dst, EngPipeline *src, const char *op_id, bool map, char *err, size_t errsize)
{
    Op *d = find_op(dst, op_id), *s = find_op(src, op_id);
    if (!d || !s) {
        snprintf(err, errsize, "operator %s is missing from the %s version", op_id, d ? "other" : "new");
        return false;
    }
    d->in_wm = s->in_wm;
    d->wm = s->wm;
    if (!d->vt->serialize) return true;
    if (d->vt != s->vt) {
        snprintf(err, errsize, "operator %s: its kind changed (%s -> %s)", op_id, s->vt->kind, d->vt->kind);
        return false;
    }
    if (map) {
        if (!d->vt->adopt) {
            snprintf(err, errsize, "operator %s (%s) cannot drop accumulators", op_id, d->vt->kind);
            return false;
        }
        return d->vt->adopt(d, s, err, errsize);
    }
    StrBuf b = STRBUF_INIT;
    bool ok = s->vt->serialize(s, &b);
    if (!ok) snprintf(err, errsize, "operator %s: its state cannot be serialised", op_id);
    char e2[512];
    if (ok && !d->vt->deserialize(d, (const uint8_t *)(b.data ? b.data : ""), b.len, e2, sizeof e2)) {
        snprintf(err, errsize, "operator %s: %s", op_id, e2);
        ok = false;
    }
    sb_free(&b);
    return ok;
}

void eng_adopt_progress(EngPipeline *dst, const EngPipeline *src)
{
    dst->step = src->step;
    for (int s = 0; s < dst->nsrc; s++) {
        if (!dst->src[s].used) continue;
        const char *name = dst->g->project->sources[s].name;
        for (int t = 0; t < src->nsrc; t++)
            if (src->src[t].used && strcmp(src->g->project->sources[t].name, name) == 0) dst->src[s].wm = src->src[t].wm;
    }
}

int eng_op_ids(const EngPipeline *p, const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < p->nops; i++) {
        if (!p->ops[i]->node || !p->ops[i]->node->op_id) continue;
        if (n < max) out[n] = p->ops[i]->node->op_id;
        n++;
    }
    for (int s = 0; s < p->nsrc; s++) {
        if (!p->src[s].norm || !p->src[s].norm_id) continue;
        if (n < max) out[n] = p->src[s].norm_id;
        n++;
    }
    return n;
}
