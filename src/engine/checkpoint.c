/* Pipeline checkpoints: the whole state of a pipeline between two steps as named
 * blobs, so that a new pipeline of the same project can continue where the old one
 * stopped (see engine.h). The "pipeline" blob holds what belongs to no single
 * operator: the step count, every source's watermark and every operator's event-time
 * frontier, plus each stateful operator's state fingerprint (the logic fingerprints of
 * its state descriptors), by which a restore recognises state that another version of
 * a model computed. Each stateful operator
 * writes "state/<op id>" in its own versioned format (its serialize hook); operators
 * with chunked state (save_chunks) add "state/<op id>@<hex>" chunks, which an
 * incremental save rewrites only when they changed. */
#include "engine/pipeline_internal.h"
#include "engine/partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CKPT_MAGIC 0x4b435057u  /* "WPCK" */
#define CKPT_VERSION 1u

static void put_str(StrBuf *b, const char *s) { bytes_put_str(b, s, strlen(s)); }

/* A string of the reader as a NUL-terminated copy in the pipeline arena. */
static const char *get_str(OpReader *r, Arena *a)
{
    size_t n;
    const char *s = bytes_get_str(r, &n);
    return r->bad ? "" : arena_strndup(a, s, n);
}

/* The id under which an operator's state is stored. */
static const char *op_key(const Op *op) { return op->node ? op->node->op_id : NULL; }

/* What an operator's state was computed from: the logic fingerprints of its state
 * descriptors (the same ones `weir plan` compares). */
static uint64_t state_fingerprint(const Op *op)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int k = 0; op->node && k < op->node->nstate; k++) h = (h ^ op->node->state[k].logic_fp) * 1099511628211ull;
    return h;
}

static const char *norm_key(const SourceSlot *s) { return s->norm_id; }

static bool put_state(EngPipeline *p, Op *op, const char *id, const EngCkptIO *io, char *err, size_t errsize)
{
    EngPutFn put = io->put;
    void *ctx = io->ctx;
    if (op->vt->save_chunks) {
        char *name = arena_printf(&p->arena, "state/%s", id);
        return op->vt->save_chunks(op, name, io, err, errsize);
    }
    StrBuf b = STRBUF_INIT;
    bool ok = op->vt->serialize(op, &b);
    if (!ok) snprintf(err, errsize, "state of %s: cannot be serialised", id);
    char *name = arena_printf(&p->arena, "state/%s", id);
    if (ok) ok = put(ctx, name, b.data ? b.data : "", b.len, err, errsize);
    sb_free(&b);
    return ok;
}

static bool save(EngPipeline *p, const EngCkptIO *io, char *err, size_t errsize)
{
    if (eng_deferred_pending(p)) {
        /* the state would hold changes no consumer has seen (and empty groups) */
        snprintf(err, errsize, "internal error: a checkpoint with deferred changes not flushed");
        p->ckpt_saved = false;
        return false;
    }
    EngPutFn put = io->put;
    void *ctx = io->ctx;
    StrBuf b = STRBUF_INIT;
    op_put_u32(&b, CKPT_MAGIC);
    op_put_u32(&b, CKPT_VERSION);
    op_put_u64(&b, p->step);
    uint32_t nsrc = 0;
    for (int s = 0; s < p->nsrc; s++) nsrc += p->src[s].used;
    op_put_u32(&b, nsrc);
    for (int s = 0; s < p->nsrc; s++) {
        if (!p->src[s].used) continue;
        put_str(&b, p->g->project->sources[s].name);
        op_put_i64(&b, p->src[s].wm);
    }
    op_put_u32(&b, (uint32_t)p->nops);
    for (int i = 0; i < p->nops; i++) {
        const Op *op = p->ops[i];
        put_str(&b, op_key(op) ? op_key(op) : "");
        op_put_u64(&b, state_fingerprint(op));
        op_put_i64(&b, op->in_wm);
        op_put_i64(&b, op->wm);
    }
    bool ok = put(ctx, "pipeline", b.data, b.len, err, errsize);
    sb_free(&b);
    for (int i = 0; i < p->nops && ok; i++) {
        Op *op = p->ops[i];
        if (op->vt->serialize && op_key(op)) ok = put_state(p, op, op_key(op), io, err, errsize);
    }
    for (int s = 0; s < p->nsrc && ok; s++)
        if (p->src[s].norm) ok = put_state(p, p->src[s].norm, norm_key(&p->src[s]), io, err, errsize);
    p->ckpt_saved = ok;
    return ok;
}

bool eng_checkpoint_save(EngPipeline *p, EngPutFn put, void *ctx, char *err, size_t errsize)
{
    EngCkptIO io = {put, NULL, ctx, false};
    return save(p, &io, err, errsize);
}

bool eng_checkpoint_save_inc(EngPipeline *p, EngPutFn put, EngDelFn del, void *ctx, char *err, size_t errsize)
{
    EngCkptIO io = {put, del, ctx, p->ckpt_saved};
    return save(p, &io, err, errsize);
}

bool eng_checkpoint_incremental_ok(const EngPipeline *p) { return p->ckpt_saved; }

int eng_checkpoint_chunk_prefixes(EngPipeline *p, const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < p->nops; i++) {
        const Op *op = p->ops[i];
        if (!op->vt->save_chunks || !op->vt->serialize || !op_key(op)) continue;
        if (n < max) out[n] = arena_printf(&p->arena, "state/%s@", op_key(op));
        n++;
    }
    for (int s = 0; s < p->nsrc; s++) {
        const Op *op = p->src[s].norm;
        if (!op || !op->vt->save_chunks) continue;
        if (n < max) out[n] = arena_printf(&p->arena, "state/%s@", norm_key(&p->src[s]));
        n++;
    }
    return n;
}

void eng_checkpoint_forget(EngPipeline *p) { p->ckpt_saved = false; }

typedef struct SavedOp {
    const char *id;
    uint64_t logic_fp;
    int64_t in_wm, wm;
} SavedOp;

static const SavedOp *find_saved(const SavedOp *ops, uint32_t n, const char *id)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ops[i].id, id) == 0) return &ops[i];
    return NULL;
}

static const char *model_of(const Op *op) { return op->model_name && op->model_name[0] ? op->model_name : "?"; }

static bool restore_state(EngPipeline *p, Op *op, const char *id, EngGetFn get, void *ctx, char *err,
                          size_t errsize)
{
    const void *data;
    size_t len;
    char *name = arena_printf(&p->arena, "state/%s", id);
    if (!get(ctx, name, &data, &len)) {
        snprintf(err, errsize, "the checkpoint has no state for %s", id);
        return false;
    }
    if (op->vt->restore_chunks) return op->vt->restore_chunks(op, name, data, len, get, ctx, err, errsize);
    return op->vt->deserialize(op, data, len, err, errsize);
}

/* A pipeline record: its step, the operators it names (their ids, logic fingerprints
 * and watermarks); with set_wm, the source watermarks it holds are set in p. False
 * (err filled) when it is absent or malformed; *saved is then NULL. */
static bool read_record(EngPipeline *p, EngGetFn get, void *ctx, bool set_wm, uint64_t *step, SavedOp **saved,
                        uint32_t *nops, char *err, size_t errsize)
{
    *saved = NULL;
    *nops = 0;
    const void *data;
    size_t len;
    if (!get(ctx, "pipeline", &data, &len)) {
        snprintf(err, errsize, "the checkpoint has no pipeline record");
        return false;
    }
    OpReader r = bytes_reader(data, len);
    if (op_get_u32(&r) != CKPT_MAGIC || op_get_u32(&r) != CKPT_VERSION) {
        snprintf(err, errsize, "the checkpoint's pipeline record is of an unknown format");
        return false;
    }
    *step = op_get_u64(&r);
    uint32_t nsrc = op_get_u32(&r);
    for (uint32_t i = 0; i < nsrc && !r.bad; i++) {
        const char *name = get_str(&r, &p->arena);
        int64_t wm = op_get_i64(&r);
        for (int s = 0; s < p->nsrc && set_wm; s++)
            if (p->src[s].used && strcmp(p->g->project->sources[s].name, name) == 0) p->src[s].wm = wm;
    }
    uint32_t n = op_get_u32(&r);
    if (r.bad || n > len) {
        snprintf(err, errsize, "the checkpoint's pipeline record is truncated");
        return false;
    }
    SavedOp *so = xcalloc((size_t)n + 1, sizeof(SavedOp));
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        so[i].id = get_str(&r, &p->arena);
        so[i].logic_fp = op_get_u64(&r);
        so[i].in_wm = op_get_i64(&r);
        so[i].wm = op_get_i64(&r);
    }
    if (r.bad || r.p != r.end) {
        snprintf(err, errsize, "the checkpoint's pipeline record is truncated or malformed");
        free(so);
        return false;
    }
    *saved = so;
    *nops = n;
    return true;
}

/* A model none of whose operators ran when the checkpoints were written is new: its
 * output would start now, without the history the others have seen. */
static bool check_no_new_model(EngPipeline *p, SavedOp *const *saved, const uint32_t *nops, int nrec, char *err,
                               size_t errsize)
{
    for (int m = 0; m < p->g->nmodels; m++) {
        if (!p->running[m]) continue;
        bool seen = false;
        for (int i = 0; i < p->nops && !seen; i++)
            for (int k = 0; k < nrec && !seen; k++)
                seen = p->ops[i]->node && p->ops[i]->node->model == m && find_saved(saved[k], nops[k], p->ops[i]->node->op_id);
        if (!seen) {
            snprintf(err, errsize, "model %s is new since the checkpoint (it would miss the history the other "
                     "models have seen)", p->g->project->models[m].name);
            return false;
        }
    }
    return true;
}

static bool restore_norms(EngPipeline *p, EngGetFn get, void *ctx, char *err, size_t errsize)
{
    for (int s = 0; s < p->nsrc; s++) {
        if (!p->src[s].norm) continue;
        char e2[512];
        if (!restore_state(p, p->src[s].norm, norm_key(&p->src[s]), get, ctx, e2, sizeof e2)) {
            snprintf(err, errsize, "source %s: %s", p->g->project->sources[s].name, e2);
            return false;
        }
    }
    return true;
}

bool eng_checkpoint_restore(EngPipeline *p, EngGetFn get, void *ctx, char *err, size_t errsize)
{
    if (p->step != 0) {
        snprintf(err, errsize, "a checkpoint is restored into a pipeline before its first step");
        return false;
    }
    uint64_t step;
    SavedOp *saved;
    uint32_t nops;
    bool ok = read_record(p, get, ctx, true, &step, &saved, &nops, err, errsize) &&
              check_no_new_model(p, &saved, &nops, 1, err, errsize);
    for (int i = 0; i < p->nops && ok; i++) {
        Op *op = p->ops[i];
        const char *id = op_key(op);
        const SavedOp *so = id ? find_saved(saved, nops, id) : NULL;
        bool stateful = op->vt->serialize != NULL;
        if (!so) {
            if (!stateful) continue;  /* a new stateless operator catches up from its inputs */
            snprintf(err, errsize, "model %s: operator %s has no state in the checkpoint (the model is new or "
                     "its plan changed since)", model_of(op), id ? id : "?");
            ok = false;
            break;
        }
        if (stateful && so->logic_fp != state_fingerprint(op)) {
            snprintf(err, errsize, "model %s changed since the checkpoint: the state of %s was computed by "
                     "another version of it", model_of(op), id);
            ok = false;
            break;
        }
        op->in_wm = so->in_wm;
        op->wm = so->wm;
        if (stateful) {
            char e2[512];
            if (!restore_state(p, op, id, get, ctx, e2, sizeof e2)) {
                snprintf(err, errsize, "model %s: %s", model_of(op), e2);
                ok = false;
            }
        }
    }
    ok = ok && restore_norms(p, get, ctx, err, errsize);
    free(saved);
    if (ok) p->step = step;
    p->ckpt_saved = ok;
    return ok;
}

bool eng_checkpoint_restore_plan(EngPipeline *p, const EngRestorePlan *rp, char *err, size_t errsize)
{
    if (p->step != 0) {
        snprintf(err, errsize, "a checkpoint is restored into a pipeline before its first step");
        return false;
    }
    uint64_t step, ignored;
    SavedOp *own;
    uint32_t nown;
    if (!read_record(p, rp->pipeline.get, rp->pipeline.ctx, true, &step, &own, &nown, err, errsize)) return false;
    int ns = rp->nstate;
    SavedOp **saved = xcalloc((size_t)ns + 1, sizeof(SavedOp *));
    uint32_t *nops = xcalloc((size_t)ns + 1, sizeof(uint32_t));
    bool ok = true;
    for (int k = 0; k < ns && ok; k++)
        ok = read_record(p, rp->state[k].get, rp->state[k].ctx, false, &ignored, &saved[k], &nops[k], err, errsize);
    if (ok && ns > 0) ok = check_no_new_model(p, saved, nops, ns, err, errsize);
    bool split = rp->n > 1 && rp->part && rp->part->node_col;
    for (int i = 0; i < p->nops && ok; i++) {
        Op *op = p->ops[i];
        const char *id = op_key(op);
        bool stateful = op->vt->serialize != NULL;
        const SavedOp *pso = id ? find_saved(own, nown, id) : NULL;
        if (pso) {
            op->in_wm = pso->in_wm;
            op->wm = pso->wm;
        }
        if (ns == 0) continue;  /* the operators start empty */
        int found = 0;
        for (int k = 0; k < ns && ok; k++) {
            const SavedOp *so = id ? find_saved(saved[k], nops[k], id) : NULL;
            if (!so) continue;
            if (stateful && so->logic_fp != state_fingerprint(op)) {
                snprintf(err, errsize, "model %s changed since the checkpoint: the state of %s was computed by "
                         "another version of it", model_of(op), id);
                ok = false;
                break;
            }
            /* the replicas stepped together: the lowest watermark is the one every replica passed */
            if (!found || so->in_wm < op->in_wm) op->in_wm = so->in_wm;
            if (!found || so->wm < op->wm) op->wm = so->wm;
            if (stateful) {
                memset(&op->route, 0, sizeof op->route);
                op->route.merge = found > 0;
                if (split && op->node) {
                    const IrNode *n = op->node;
                    op->route.replica = rp->replica;
                    op->route.n = rp->n;
                    op->route.out_col = rp->part->node_col[n->index];
                    op->route.in_col[0] = n->ninputs > 0 ? rp->part->node_col[n->inputs[0]->index] : -1;
                    op->route.in_col[1] = n->ninputs > 1 ? rp->part->node_col[n->inputs[1]->index] : -1;
                }
                char e2[512];
                if (!restore_state(p, op, id, rp->state[k].get, rp->state[k].ctx, e2, sizeof e2)) {
                    snprintf(err, errsize, "model %s: %s", model_of(op), e2);
                    ok = false;
                }
                memset(&op->route, 0, sizeof op->route);
            }
            found++;
        }
        if (ok && !found && stateful) {
            snprintf(err, errsize, "model %s: operator %s has no state in the checkpoint (the model is new or "
                     "its plan changed since)", model_of(op), id ? id : "?");
            ok = false;
        }
    }
    if (rp->norms) ok = ok && restore_norms(p, rp->pipeline.get, rp->pipeline.ctx, err, errsize);
    for (int k = 0; k < ns; k++) free(saved[k]);
    free(saved);
    free(nops);
    free(own);
    if (ok) p->step = step;
    p->ckpt_saved = false;   /* the target holds another layout: the next save is a full one */
    return ok;
}
