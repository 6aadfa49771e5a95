/* The pipeline: instantiates one operator per IR node needed by the wanted models (in
 * the graph's topological order), owns the source batches and watermarks, runs steps,
 * and presents each running model's output to the listener as consolidated, ordered
 * changes (DESIGN.md section 3):
 *   keyed models: one change per key, ordered by key (value_compare, NULLs last):
 *     +row -> insert; -old +new -> update; -row -> delete; net zero -> nothing;
 *   keyless models: a row of weight +k is k inserts, -k is k deletes; all deletes
 *     first, then inserts, each ordered by the whole row. */
#include "engine/pipeline_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_updating_format(DataFormat f)
{
    return f == FMT_DEBEZIUM_JSON || f == FMT_CHANGELOG_JSON || f == FMT_UPSERT;
}

static void mark_needed(const IrNode *n, bool *needed)
{
    if (needed[n->index]) return;
    needed[n->index] = true;
    for (int i = 0; i < n->ninputs; i++) mark_needed(n->inputs[i], needed);
}

static Op *make_norm(EngPipeline *p, int s)
{
    SourceSlot *slot = &p->src[s];
    const SourceDef *sd = &p->g->project->sources[s];
    if (!slot->norm_id) slot->norm_id = arena_printf(&p->arena, "source:%s/changelog_normalize", sd->name);
    slot->norm = op_normalize_new(p, sd, slot->norm_id, &slot->batch);
    return slot->norm;
}

EngPipeline *eng_pipeline_new(const IrGraph *g, const EngOptions *opts, char *err, size_t errsize)
{
    EngPipeline *p = xcalloc(1, sizeof *p);
    p->g = g;
    if (opts) p->opts = *opts;
    if (p->opts.max_batch_rows <= 0) p->opts.max_batch_rows = 4096;
    arena_init(&p->arena, 4096);
    const Project *proj = g->project;
    p->nsrc = proj->nsources;
    p->src = xcalloc((size_t)(p->nsrc > 0 ? p->nsrc : 1), sizeof(SourceSlot));
    for (int s = 0; s < p->nsrc; s++) p->src[s].wm = INT64_MIN;
    p->pos = -1;
    p->running = xcalloc((size_t)(g->nmodels > 0 ? g->nmodels : 1), sizeof(bool));
    p->node_ops = xcalloc((size_t)(g->nnodes > 0 ? g->nnodes : 1), sizeof(Op *));
    p->ops = xcalloc((size_t)(g->nnodes > 0 ? g->nnodes : 1), sizeof(Op *));

    int maxin = 1;
    for (int i = 0; i < g->nnodes; i++)
        if (g->nodes[i]->ninputs > maxin) maxin = g->nodes[i]->ninputs;
    p->in_scratch = ARENA_ARRAY(&p->arena, Op *, maxin);
    bool *needed = xcalloc((size_t)(g->nnodes > 0 ? g->nnodes : 1), sizeof(bool));
    for (int m = 0; m < g->nmodels; m++) {
        bool wanted = opts && opts->models_wanted ? opts->models_wanted[m] : true;
        if (!wanted) continue;
        if (!g->models[m].root) {
            if (opts && opts->models_wanted) {
                snprintf(err, errsize, "model '%s' cannot run: it has no valid plan", proj->models[m].name);
                goto fail;
            }
            continue;
        }
        mark_needed(g->models[m].root, needed);
    }
    for (int m = 0; m < g->nmodels; m++)
        p->running[m] = g->models[m].root && needed[g->models[m].root->index];

    for (int i = 0; i < g->nnodes; i++) {
        const IrNode *n = g->nodes[i];
        if (!needed[n->index]) continue;
        const char *model_name = n->model >= 0 && n->model < proj->nmodels ? proj->models[n->model].name : "";
        Op **in = p->in_scratch;
        for (int k = 0; k < n->ninputs; k++) {
            in[k] = p->node_ops[n->inputs[k]->index];
            if (!in[k]) {
                snprintf(err, errsize, "internal error: input of %s is not instantiated (graph not topological)", n->op_id);
                goto fail;
            }
        }
        Op *op = NULL;
        switch (n->plan->kind) {
        case PL_SOURCE: {
            int s = n->source;
            if (s < 0 || s >= p->nsrc) {
                snprintf(err, errsize, "operator %s scans an unknown source", n->op_id);
                goto fail;
            }
            const SourceDef *sd = &proj->sources[s];
            /* a scan has the declared columns, and the lineage columns after them in
             * models that read them */
            bool same = sd->ncolumns == n->plan->ncols ||
                        (sd->ncolumns + LINEAGE_NCOLS == n->plan->ncols && source_has_lineage(sd));
            for (int c = 0; same && c < sd->ncolumns; c++)
                same = sd->columns[c].type.id == n->plan->cols[c].type.id;
            if (!same) {
                snprintf(err, errsize, "operator %s: scan columns differ from source '%s'", n->op_id, sd->name);
                goto fail;
            }
            SourceSlot *slot = &p->src[s];
            if (!slot->used) {
                /* the source's batch carries the lineage columns when any running scan
                 * reads them; the other scans narrow it */
                bool lineage = false;
                for (int j = 0; j < g->nnodes; j++) {
                    const IrNode *o = g->nodes[j];
                    if (needed[o->index] && o->plan->kind == PL_SOURCE && o->source == s &&
                        o->plan->ncols > sd->ncolumns)
                        lineage = true;
                }
                int width = sd->ncolumns + (lineage ? LINEAGE_NCOLS : 0);
                slot->used = true;
                batch_init(&slot->batch, width);
                slot->types = ARENA_ARRAY(&p->arena, Type, width > 0 ? width : 1);
                for (int c = 0; c < sd->ncolumns; c++) slot->types[c] = sd->columns[c].type;
                for (int k = 1; lineage && k <= LINEAGE_NCOLS; k++)
                    slot->types[sd->ncolumns + k - 1] = source_lineage_type(k);
            }
            for (int k = 0; k < n->nstate && !slot->norm_id; k++)
                if (n->state[k].kind && strcmp(n->state[k].kind, "changelog_normalize") == 0)
                    slot->norm_id = n->state[k].id;
            if (!slot->norm && sd->npk > 0 && is_updating_format(sd->format)) make_norm(p, s);
            op = op_source_new(p, n, &slot->batch);
            break;
        }
        case PL_REF:
            if (n->ninputs != 1) {
                snprintf(err, errsize, "operator %s: ref('%s') is not resolved", n->op_id, n->plan->name ? n->plan->name : "?");
                goto fail;
            }
            op = op_ref_new(p, n, in);
            break;
        case PL_FILTER: op = op_filter_new(p, n, in); break;
        case PL_PROJECT: op = op_project_new(p, n, in); break;
        case PL_UNION_ALL: op = op_union_all_new(p, n, in); break;
        case PL_DISTINCT: op = op_distinct_new(p, n, in); break;
        case PL_AGGREGATE:
            if (n->plan->window_start_key >= 0 || n->plan->window_end_key >= 0)
                op = op_window_aggregate_new(p, n, in, err, errsize);
            else
                op = op_aggregate_new(p, n, in);
            break;
        case PL_JOIN: op = op_join_new(p, n, in, err, errsize); break;
        case PL_WINDOW_TVF: op = op_window_tvf_new(p, n, in, err, errsize); break;
        case PL_TOPN: op = op_topn_new(p, n, in, err, errsize); break;
        case PL_SETOP: op = op_setop_new(p, n, in, err, errsize); break;
        case PL_OVER_AGG: op = op_over_agg_new(p, n, in, err, errsize); break;
        case PL_VALUES: op = op_values_new(p, n); break;
        default:
            snprintf(err, errsize, "operator %d is not supported by the engine yet (model '%s')", (int)n->plan->kind, model_name);
            goto fail;
        }
        if (!op) {
            char tmp[512];
            snprintf(tmp, sizeof tmp, "%s", err);
            snprintf(err, errsize, "model '%s': %s", model_name, tmp);
            goto fail;
        }
        op->model_name = model_name;
        p->node_ops[n->index] = op;
        p->ops[p->nops++] = op;
    }
    free(needed);
    /* consumers come after their inputs: walking backwards, an operator knows whether
     * anything downstream reads its rows' frontiers before it tells its inputs */
    for (int i = p->nops - 1; i >= 0; i--) {
        Op *op = p->ops[i];
        if (op->frontier == FR_JUDGE || (op->frontier == FR_PASS && op->need_frontier))
            for (int k = 0; k < op->nin; k++) op->in[k]->need_frontier = true;
        if (op->need_frontier && op->node && op->node->plan->kind == PL_SOURCE) p->src[op->node->source].need_frontier = true;
    }
    for (int i = 0; i < p->nops; i++) {
        if (p->ops[i]->vt->prepare) p->ops[i]->vt->prepare(p->ops[i]);
        const IrNode *n = p->ops[i]->node;
        for (int k = 0; n && k < n->nstate; k++)
            if (n->state[k].bound == BOUND_TTL) p->ttl = true;
    }
    return p;
fail:
    free(needed);
    eng_pipeline_free(p);
    return NULL;
}

void eng_pipeline_free(EngPipeline *p)
{
    if (!p) return;
    for (int i = p->nops - 1; i >= 0; i--) p->ops[i]->vt->free(p->ops[i]);
    for (int s = 0; s < p->nsrc; s++) {
        if (p->src[s].norm) p->src[s].norm->vt->free(p->src[s].norm);
        if (p->src[s].used) batch_fini(&p->src[s].batch);
    }
    free(p->src);
    free(p->ops);
    free(p->node_ops);
    free(p->running);
    free(p->idx);
    free(p->wts);
    free(p->last);
    free(p->ents);
    free(p->ents_tmp);
    free(p->ch);
    if (p->mch)
        for (int m = 0; m < p->g->nmodels; m++) free(p->mch[m]);
    free(p->mch);
    free(p->mnch);
    free(p->mcap);
    free(p->seed_ids);
    free(p->seed_expired);
    arena_fini(&p->arena);
    free(p);
}

Value *eng_source_append(Batch *b, const Value *row, int ndeclared, int64_t w, const EngLineage *lin)
{
    Value *out = batch_append(b, w);
    memcpy(out, row, sizeof(Value) * (size_t)(ndeclared < b->ncols ? ndeclared : b->ncols));
    if (b->ncols < ndeclared + LINEAGE_NCOLS) return out;
    Value *l = out + ndeclared;
    for (int k = 0; k < LINEAGE_NCOLS; k++) l[k].isnull = 1;
    if (!lin) return out;
    l[LINEAGE_PARTITION - 1] = (Value){.i = lin->partition};
    l[LINEAGE_OFFSET - 1] = (Value){.i = lin->offset};
    if (lin->timestamp_us != INT64_MIN) l[LINEAGE_TIMESTAMP - 1] = (Value){.i = lin->timestamp_us};
    if (lin->landed_us != INT64_MIN) l[LINEAGE_LANDED_AT - 1] = (Value){.i = lin->landed_us};
    return out;
}

bool eng_model_running(const EngPipeline *p, int model)
{
    return model >= 0 && model < p->g->nmodels && p->running[model];
}

Batch *eng_source_batch(EngPipeline *p, int source)
{
    if (source < 0 || source >= p->nsrc || !p->src[source].used) return NULL;
    return &p->src[source].batch;
}

bool eng_source_needs_frontier(const EngPipeline *p, int source)
{
    return source >= 0 && source < p->nsrc && p->src[source].need_frontier;
}

bool eng_source_upsert(EngPipeline *p, int source, ChangeOp op, const Value *row,
                       const RowOrigin *origin, int64_t frontier, char *err, size_t errsize)
{
    if (source < 0 || source >= p->nsrc) {
        snprintf(err, errsize, "unknown source %d", source);
        return false;
    }
    SourceSlot *slot = &p->src[source];
    if (!slot->used) return true; /* no running model reads it */
    const SourceDef *sd = &p->g->project->sources[source];
    if (sd->npk == 0) {
        /* no key to look rows up by: inserts and deletes carry the whole row */
        if (op == CHANGE_UPDATE) {
            snprintf(err, errsize, "source '%s' has no primary_key: an update needs the old row "
                     "(declare primary_key, or send a delete and an insert)", sd->name);
            return false;
        }
        batch_append_row_copy(&slot->batch, row, slot->types, op == CHANGE_DELETE ? -1 : 1);
        if (origin) batch_set_origin(&slot->batch, slot->batch.n - 1, origin);
        if (frontier != INT64_MIN) batch_set_frontier(&slot->batch, slot->batch.n - 1, frontier);
        return true;
    }
    for (int k = 0; k < sd->npk; k++)
        if (row[sd->pk_cols[k]].isnull) {
            snprintf(err, errsize, "primary key column '%s' of source '%s' is missing or null",
                     sd->columns[sd->pk_cols[k]].name, sd->name);
            return false;
        }
    if (!slot->norm) make_norm(p, source);
    return op_normalize_apply(slot->norm, op, row, origin, frontier, err, errsize);
}

void eng_source_watermark(EngPipeline *p, int source, int64_t wm_us)
{
    if (source < 0 || source >= p->nsrc) return;
    if (wm_us > p->src[source].wm) p->src[source].wm = wm_us;
}

int64_t eng_source_current_watermark(const EngPipeline *p, int source)
{
    return source >= 0 && source < p->nsrc ? p->src[source].wm : INT64_MIN;
}

void eng_emit_dead_letter(EngPipeline *p, const EngDeadLetter *dl)
{
    if (p->opts.dead_letter) p->opts.dead_letter(p->opts.dead_letter_ctx, dl);
}

Op *eng_pipeline_op(EngPipeline *p, int node_index)
{
    if (node_index < 0 || node_index >= p->g->nnodes) return NULL;
    return p->node_ops[node_index];
}

Arena *eng_pipeline_arena(EngPipeline *p) { return &p->arena; }

const IrGraph *eng_pipeline_graph(EngPipeline *p) { return p->g; }

Op *eng_pipeline_normalize_op(EngPipeline *p, int source)
{
    if (source < 0 || source >= p->nsrc) return NULL;
    return p->src[source].norm;
}

/* ---------- presentation ---------- */

typedef struct SortCtx {
    const Batch *b;
    const Type *types;
    const int *key;
    int nkey;
} SortCtx;

static int key_cmp(const SortCtx *c, const Value *x, const Value *y)
{
    for (int k = 0; k < c->nkey; k++) {
        int col = c->key[k];
        int r = op_cell_cmp(c->types[col], &x[col], &y[col]);
        if (r) return r;
    }
    return 0;
}

/* Sorting compares a 64-bit order-preserving prefix of the first sort column first
 * (integers, timestamps, dates, text: the first 8 bytes), and whole rows only on
 * equal prefixes: most comparisons of a keyed output are then one integer compare.
 * prefix(a) <= prefix(b) whenever a sorts before b; NULL maps to the maximum. */
typedef struct SortEnt {
    uint64_t pre;
    int idx;
} SortEnt;

/* The 8 bytes of a text cell from byte `off` on, as an order-preserving prefix (zero
 * padded): among texts that agree on their first `off` bytes it never inverts their
 * order. */
static uint64_t text_prefix(const Value *v, uint32_t off)
{
    uint64_t x = 0;
    for (uint32_t k = 0; k < 8 && off + k < v->len; k++) x |= (uint64_t)(unsigned char)v->s[off + k] << (56 - 8 * k);
    return x;
}

static uint64_t sort_prefix(Type t, const Value *v)
{
    if (v->isnull) return UINT64_MAX;
    switch (t.id) {
    case T_BOOL: case T_INT2: case T_INT4: case T_INT8:
    case T_TIMESTAMP: case T_TIMESTAMPTZ: case T_DATE:
        return (uint64_t)v->i ^ ((uint64_t)1 << 63);
    case T_TEXT:
    case T_UNKNOWN:
        return text_prefix(v, 0);
    default:
        return 0; /* no cheap order-preserving prefix: compare whole values */
    }
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
    const SortEnt *ea = a, *eb = b;
    if (ea->pre != eb->pre) return ea->pre < eb->pre ? -1 : 1;
    const SortCtx *c = ctx;
    int i = ea->idx, j = eb->idx;
    const Value *x = batch_row(c->b, i), *y = batch_row(c->b, j);
    int r = key_cmp(c, x, y);
    if (r) return r;
    /* whole rows: representation breaks ties of value (1.5 before 1.50), so identical
     * rows end up adjacent */
    r = op_row_order_inline(c->types, c->b->ncols, x, y);
    if (r) return r;
    return (i > j) - (i < j);
}

/* Stable LSD radix sort of the prefixes (byte digits; digits equal in every entry are
 * skipped, so small integer keys take two passes). */
static void radix_prefixes(SortEnt *e, SortEnt *tmp, int n, uint32_t hist[8][256])
{
    memset(hist, 0, sizeof(uint32_t) * 8 * 256);
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 8; d++) hist[d][(e[i].pre >> (8 * d)) & 0xff]++;
    SortEnt *src = e, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        uint32_t *h = hist[d];
        if (h[(e[0].pre >> (8 * d)) & 0xff] == (uint32_t)n) continue; /* constant digit */
        uint32_t sum = 0;
        for (int k = 0; k < 256; k++) {
            uint32_t c = h[k];
            h[k] = sum;
            sum += c;
        }
        for (int i = 0; i < n; i++) dst[h[(src[i].pre >> (8 * d)) & 0xff]++] = src[i];
        SortEnt *t = src;
        src = dst;
        dst = t;
    }
    if (src != e) memcpy(e, src, sizeof(SortEnt) * (size_t)n);
}

/* Column p of the sort sequence: the key columns, then every column (the whole-row
 * order that follows the key). */
static inline int seq_col(const SortCtx *sc, int p)
{
    return p < sc->nkey ? sc->key[p] : p - sc->nkey;
}

/* Radix sort of the prefixes, then each run of equal prefixes is ordered further. A
 * run is refined by another radix pass where a prefix can be exact: after an
 * integer-like column whose cells in the run are all non-NULL (equal prefixes are then
 * equal values) by the next column of the sort sequence, and within a text column by
 * its next 8 bytes (keys sharing a long first part, "channel-1", "channel-2" ...).
 * Other runs are ordered by whole rows: insertion sort for the usual short ones (an
 * update's old and new row), qsort_r for long ones. (p, off): the sort-sequence
 * column and text byte offset this pass's prefixes were taken from. */
static void sort_ents(SortEnt *e, SortEnt *tmp, int n, SortCtx *sc, uint32_t hist[8][256], int p, uint32_t off)
{
    if (n < 2) return;
    if (n > 64) {
        radix_prefixes(e, tmp, n, hist);
    } else {
        /* a short run: insertion sort by prefix (stable) beats the radix's histograms */
        for (int k = 1; k < n; k++) {
            SortEnt x = e[k];
            int m = k - 1;
            while (m >= 0 && e[m].pre > x.pre) {
                e[m + 1] = e[m];
                m--;
            }
            e[m + 1] = x;
        }
    }
    int nseq = sc->nkey + sc->b->ncols;
    int col = sc->b->ncols > 0 ? seq_col(sc, p) : 0;
    Type t = sc->b->ncols > 0 ? sc->types[col] : type_make(T_INT8);
    bool text = t.id == T_TEXT || t.id == T_UNKNOWN;
    bool intlike = type_is_int_like(t);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && e[j].pre == e[i].pre) j++;
        int np = -1;           /* next level: sequence column */
        uint32_t noff = 0;     /* and text offset */
        if (j - i > 4 && sc->b->ncols > 0 && (text || intlike)) {
            bool nulls = false, longer = false;
            for (int k = i; k < j; k++) {
                const Value *v = &batch_row(sc->b, e[k].idx)[col];
                if (v->isnull) nulls = true;
                else if (text && v->len > off + 8) longer = true;
            }
            if (!nulls && text && longer) {
                np = p;
                noff = off + 8;
            } else if (!nulls && intlike && p + 1 < nseq) {
                np = p + 1;
            }
        }
        if (np >= 0) {
            int ncol = seq_col(sc, np);
            for (int k = i; k < j; k++) {
                const Value *v = &batch_row(sc->b, e[k].idx)[ncol];
                e[k].pre = np == p ? text_prefix(v, noff) : sort_prefix(sc->types[ncol], v);
            }
            sort_ents(e + i, tmp, j - i, sc, hist, np, noff);
        } else if (j - i > 16) {
            qsort_r(e + i, (size_t)(j - i), sizeof(SortEnt), cmp_rows, sc);
        } else {
            for (int k = i + 1; k < j; k++) {
                SortEnt x = e[k];
                int m = k - 1;
                while (m >= i && cmp_rows(&e[m], &x, sc) > 0) {
                    e[m + 1] = e[m];
                    m--;
                }
                e[m + 1] = x;
            }
        }
        i = j;
    }
}

/* The list changes are built into: p->ch, or in collect mode the model's own list. */
typedef struct ChangeBuf {
    EngChange **ch;
    int64_t *cap;
} ChangeBuf;

static void push_change(ChangeBuf *cb, int64_t *n, ChangeOp op, const Value *row, const Value *old)
{
    if (*n == *cb->cap) {
        *cb->cap = *cb->cap ? *cb->cap * 2 : 256;
        *cb->ch = xrealloc(*cb->ch, sizeof(EngChange) * (size_t)*cb->cap);
    }
    EngChange *c = &(*cb->ch)[(*n)++];
    c->op = op;
    c->row = row;
    c->old_row = old;
}

/* Consolidate model m's output batch (root's) into cb's list; returns the changes. */
static int64_t present_build(EngPipeline *p, int m, const Op *root, ChangeBuf *cb)
{
    const Batch *b = root->out;
    if (b->n == 0) return 0;
    const IrModel *im = &p->g->models[m];
    if (b->n > p->idxcap) {
        p->idxcap = b->n;
        p->idx = xrealloc(p->idx, sizeof(int) * (size_t)p->idxcap);
        p->wts = xrealloc(p->wts, sizeof(int64_t) * (size_t)p->idxcap);
        p->last = xrealloc(p->last, sizeof(int) * (size_t)p->idxcap);
        p->ents = xrealloc(p->ents, sizeof(SortEnt) * (size_t)p->idxcap);
        p->ents_tmp = xrealloc(p->ents_tmp, sizeof(SortEnt) * (size_t)p->idxcap);
    }
    SortCtx sc = {b, root->out_types, im->nout_key > 0 ? im->out_key : NULL, im->nout_key > 0 ? im->nout_key : 0};
    int first = sc.nkey > 0 ? sc.key[0] : 0;
    Type ft = b->ncols > 0 ? root->out_types[first] : type_make(T_INT8);
    for (int i = 0; i < b->n; i++) {
        p->ents[i].idx = i;
        p->ents[i].pre = b->ncols > 0 ? sort_prefix(ft, &batch_row(b, i)[first]) : 0;
    }
    sort_ents(p->ents, p->ents_tmp, b->n, &sc, p->hist, 0, 0);
    for (int i = 0; i < b->n; i++) p->idx[i] = p->ents[i].idx;

    /* merge identical rows, drop net-zero ones */
    int nr = 0;
    for (int i = 0; i < b->n;) {
        const Value *x = batch_row(b, p->idx[i]);
        int64_t w = b->weights[p->idx[i]];
        int last = p->idx[i];
        int j = i + 1;
        while (j < b->n && op_rows_identical(root->out_types, b->ncols, x, batch_row(b, p->idx[j]))) {
            w += b->weights[p->idx[j]];
            if (p->idx[j] > last) last = p->idx[j];
            j++;
        }
        if (w != 0) {
            p->idx[nr] = p->idx[i];
            p->wts[nr] = w;
            p->last[nr] = last;
            nr++;
        }
        i = j;
    }

    int64_t nch = 0;
    if (im->nout_key >= 0) {
        bool overwrite = im->nout_key > 0;
        for (int i = 0; i < nr;) {
            const Value *x = batch_row(b, p->idx[i]);
            int j = i + 1;
            while (j < nr && key_cmp(&sc, x, batch_row(b, p->idx[j])) == 0) j++;
            /* several rows inserted for one key: a state_ttl expired the key within the
             * step and a new generation started (each generation's last row is in the
             * output, as one row per step gives). A keyed consumer overwrites them in
             * turn, so only the one emitted last counts: the others are left out and
             * the step keeps one change per key. (Without key columns, e.g. a global
             * aggregate, they all stay: a keyless sink holds each generation's row.) */
            int npos = 0, keep = -1;
            for (int k = i; k < j; k++)
                if (p->wts[k] > 0) {
                    npos++;
                    if (keep < 0 || p->last[k] > p->last[keep]) keep = k;
                }
            if (npos > 1 && overwrite)
                for (int k = i; k < j; k++)
                    if (p->wts[k] > 0 && k != keep) p->wts[k] = 0;
            /* rows of one key [i, j): pair retractions with insertions as updates */
            int ni = i, pi = i;
            int64_t nleft = 0, pleft = 0;
            for (;;) {
                while (nleft == 0 && ni < j) {
                    if (p->wts[ni] < 0) nleft = -p->wts[ni];
                    else ni++;
                }
                while (pleft == 0 && pi < j) {
                    if (p->wts[pi] > 0) pleft = p->wts[pi];
                    else pi++;
                }
                if (nleft == 0 || pleft == 0) break;
                push_change(cb, &nch, CHANGE_UPDATE, batch_row(b, p->idx[pi]), batch_row(b, p->idx[ni]));
                if (--nleft == 0) ni++;
                if (--pleft == 0) pi++;
            }
            for (; ni < j; ni++, nleft = 0) {
                if (nleft == 0 && p->wts[ni] < 0) nleft = -p->wts[ni];
                for (; nleft > 0; nleft--) push_change(cb, &nch, CHANGE_DELETE, batch_row(b, p->idx[ni]), NULL);
            }
            for (; pi < j; pi++, pleft = 0) {
                if (pleft == 0 && p->wts[pi] > 0) pleft = p->wts[pi];
                for (; pleft > 0; pleft--) push_change(cb, &nch, CHANGE_INSERT, batch_row(b, p->idx[pi]), NULL);
            }
            i = j;
        }
    } else {
        for (int i = 0; i < nr; i++)
            for (int64_t k = 0; k < -p->wts[i]; k++) push_change(cb, &nch, CHANGE_DELETE, batch_row(b, p->idx[i]), NULL);
        for (int i = 0; i < nr; i++)
            for (int64_t k = 0; k < p->wts[i]; k++) push_change(cb, &nch, CHANGE_INSERT, batch_row(b, p->idx[i]), NULL);
    }
    return nch;
}

static bool call_listener(int m, EngListener fn, void *fn_ctx, const EngChange *ch, int64_t nch, char *err,
                          size_t errsize)
{
    if (nch == 0) return true;
    char lerr[512] = "";
    if (!fn(fn_ctx, m, ch, (int)nch, lerr, sizeof lerr)) {
        snprintf(err, errsize, "%s", lerr[0] ? lerr : "the output of the model failed");
        return false;
    }
    return true;
}

/* Consolidate model m's output batch (root's) and hand it to fn. */
bool eng_present(EngPipeline *p, int m, const Op *root, EngListener fn, void *fn_ctx, char *err, size_t errsize)
{
    ChangeBuf cb = {&p->ch, &p->chcap};
    int64_t nch = present_build(p, m, root, &cb);
    return call_listener(m, fn, fn_ctx, p->ch, nch, err, errsize);
}

/* ---------- steps ---------- */

void eng_reset_batches(EngPipeline *p)
{
    for (int i = 0; i < p->nops; i++) batch_clear(&p->ops[i]->own);
    for (int s = 0; s < p->nsrc; s++)
        if (p->src[s].used) batch_clear(&p->src[s].batch);
}

/* A row that comes before any watermark of its source has no frontier: an entry it
 * updates would count as idle since the beginning of time and expire with the first
 * watermark. For a state_ttl such a row counts as arriving at the watermark it starts
 * (its event time minus watermark_delay), which no rule of lateness can judge it late
 * by (its window ends, its interval and its OVER time are all after it). */
static void stamp_first_rows(EngPipeline *p)
{
    for (int s = 0; s < p->nsrc; s++) {
        SourceSlot *slot = &p->src[s];
        if (!slot->used || !slot->need_frontier || slot->batch.n == 0) continue;
        const SourceDef *sd = &p->g->project->sources[s];
        if (sd->event_time_col < 0) continue;
        Batch *b = &slot->batch;
        for (int i = 0; i < b->n; i++) {
            int64_t t;
            if (batch_frontier(b, i) != INT64_MIN) continue;
            if (!eng_event_time(sd, batch_row(b, i), &t)) continue;
            int64_t d = sd->watermark_delay_us;
            batch_set_frontier(b, i, d > 0 && t < INT64_MIN + d ? INT64_MIN : t - d);
        }
    }
}

/* Run every operator once (the step's computation, without presentation). */
static bool run_ops(EngPipeline *p, char *err, size_t errsize)
{
    p->step++;
    if (p->ttl) stamp_first_rows(p);
    OpCtx ctx = {p, p->step, err, errsize};
    bool ok = true;
    for (int i = 0; i < p->nops && ok; i++) {
        Op *op = p->ops[i];
        int64_t wm;
        if (op->node && op->node->plan->kind == PL_SOURCE) {
            wm = p->src[op->node->source].wm;
        } else if (op->nin > 0) {
            wm = INT64_MAX;
            for (int k = 0; k < op->nin; k++)
                if (op->in[k]->wm < wm) wm = op->in[k]->wm;
        } else {
            wm = op->in_wm;
        }
        int at = op->node ? op->node->index : i;
        p->pos = 2 * at;
        ok = op->vt->step(op, &ctx);
        if (ok && wm > op->in_wm) {
            op->in_wm = wm;
            p->pos = 2 * at + 1;
            if (op->vt->on_watermark) ok = op->vt->on_watermark(op, &ctx, wm);
        }
        int64_t out = op->vt->out_watermark ? op->vt->out_watermark(op, op->in_wm) : op->in_wm;
        if (out > op->wm) op->wm = out;
    }
    p->pos = -1;
    return ok;
}

bool eng_step(EngPipeline *p, char *err, size_t errsize)
{
    bool ok = run_ops(p, err, errsize);
    if (ok && p->opts.listener) {
        for (int m = 0; m < p->g->nmodels && ok; m++) {
            if (!p->running[m]) continue;
            ok = eng_present(p, m, p->node_ops[p->g->models[m].root->index], p->opts.listener, p->opts.listener_ctx,
                             err, errsize);
        }
    }
    eng_reset_batches(p);
    return ok;
}

int eng_step_position(const EngPipeline *p) { return p->pos; }

/* ---------- deferred output ---------- */

/* A projection that only copies columns and constants: it cannot fail and keeps
 * nothing. */
static bool plain_project(const IrNode *n)
{
    if (n->plan->kind != PL_PROJECT || n->ninputs != 1) return false;
    for (int j = 0; j < n->plan->nexprs; j++)
        if (n->plan->exprs[j]->kind != EX_COLUMN && n->plan->exprs[j]->kind != EX_CONST) return false;
    return true;
}

/* How many running operators read op. */
static int consumers(const EngPipeline *p, const Op *op)
{
    int n = 0;
    for (int i = 0; i < p->nops; i++)
        for (int k = 0; k < p->ops[i]->nin; k++) n += p->ops[i]->in[k] == op;
    return n;
}

enum { MAXCHAIN = 16 };

/* Model m's operators from the root down to the aggregate (chain[0] the root), when it
 * can be deferred (see eng_defer_model); returns how many, 0 when it cannot. */
static int defer_chain(const EngPipeline *p, int m, Op **chain)
{
    if (!eng_model_running(p, m)) return 0;
    int n = 0;
    const IrNode *x = p->g->models[m].root;
    for (;;) {
        Op *op = p->node_ops[x->index];
        if (!op || n == MAXCHAIN) return 0;
        chain[n++] = op;
        if (!plain_project(x)) break;
        x = x->inputs[0];
    }
    Op *agg = chain[n - 1];
    if (!agg->vt->defer || !agg->vt->flush || !agg->vt->can_defer || !agg->vt->can_defer(agg)) return 0;
    /* nothing else reads the chain: the root feeds only the presentation, every other
     * operator only the next one, and none is another running model's root */
    for (int k = 0; k < n; k++)
        if (consumers(p, chain[k]) != (k == 0 ? 0 : 1)) return 0;
    for (int k = 0; k < n - 1; k++)
        if (chain[k + 1]->node != chain[k]->in[0]->node) return 0;
    for (int mm = 0; mm < p->g->nmodels; mm++) {
        if (mm == m || !p->running[mm]) continue;
        for (int k = 0; k < n; k++)
            if (p->node_ops[p->g->models[mm].root->index] == chain[k]) return 0;
    }
    return n;
}

bool eng_model_deferrable(const EngPipeline *p, int m)
{
    Op *chain[MAXCHAIN];
    return defer_chain(p, m, chain) > 0;
}

bool eng_defer_model(EngPipeline *p, int m)
{
    if (p->defer_chain && m >= 0 && m < p->g->nmodels && p->defer_chain[m]) return true;
    Op *chain[MAXCHAIN]; /* root first */
    int n = defer_chain(p, m, chain);
    if (n == 0) return false;
    Op *agg = chain[n - 1];
    if (!agg->vt->defer(agg)) return false;
    int nm = p->g->nmodels > 0 ? p->g->nmodels : 1;
    if (!p->defer_chain) {
        p->defer_chain = ARENA_ARRAY(&p->arena, Op **, nm);
        p->defer_n = ARENA_ARRAY(&p->arena, int, nm);
        memset(p->defer_chain, 0, sizeof(Op **) * (size_t)nm);
        memset(p->defer_n, 0, sizeof(int) * (size_t)nm);
    }
    Op **c = ARENA_ARRAY(&p->arena, Op *, n);
    for (int k = 0; k < n; k++) c[k] = chain[n - 1 - k]; /* the aggregate first */
    p->defer_chain[m] = c;
    p->defer_n[m] = n;
    return true;
}

bool eng_model_deferred(const EngPipeline *p, int m)
{
    return p->defer_chain && m >= 0 && m < p->g->nmodels && p->defer_chain[m];
}

bool eng_deferred_pending(const EngPipeline *p)
{
    for (int m = 0; p->defer_chain && m < p->g->nmodels; m++)
        if (p->defer_chain[m] && p->defer_chain[m][0]->vt->pending(p->defer_chain[m][0])) return true;
    return false;
}

/* The aggregate's flush, then the projections above it, into the root's batch. */
static bool flush_ops(EngPipeline *p, int m, char *err, size_t errsize)
{
    OpCtx ctx = {p, p->step, err, errsize};
    Op **c = p->defer_chain[m];
    bool ok = true;
    for (int k = 0; k < p->defer_n[m] && ok; k++) {
        p->pos = 2 * (c[k]->node ? c[k]->node->index : 0);
        ok = k == 0 ? c[k]->vt->flush(c[k], &ctx) : c[k]->vt->step(c[k], &ctx);
    }
    p->pos = -1;
    return ok;
}

bool eng_flush(EngPipeline *p, int m, char *err, size_t errsize)
{
    if (!eng_model_deferred(p, m)) return true;
    bool ok = flush_ops(p, m, err, errsize);
    if (ok && p->opts.listener)
        ok = eng_present(p, m, p->node_ops[p->g->models[m].root->index], p->opts.listener, p->opts.listener_ctx, err,
                         errsize);
    eng_reset_batches(p);
    return ok;
}

bool eng_flush_collect(EngPipeline *p, int m, char *err, size_t errsize)
{
    if (!p->mch) {
        int nm = p->g->nmodels > 0 ? p->g->nmodels : 1;
        p->mch = xcalloc((size_t)nm, sizeof(EngChange *));
        p->mnch = xcalloc((size_t)nm, sizeof(int64_t));
        p->mcap = xcalloc((size_t)nm, sizeof(int64_t));
    }
    memset(p->mnch, 0, sizeof(int64_t) * (size_t)(p->g->nmodels > 0 ? p->g->nmodels : 1));
    if (!eng_model_deferred(p, m)) return true;
    if (!flush_ops(p, m, err, errsize)) return false;
    ChangeBuf cb = {&p->mch[m], &p->mcap[m]};
    p->mnch[m] = present_build(p, m, p->node_ops[p->g->models[m].root->index], &cb);
    return true;
}

bool eng_step_collect(EngPipeline *p, char *err, size_t errsize)
{
    if (!p->mch) {
        int nm = p->g->nmodels > 0 ? p->g->nmodels : 1;
        p->mch = xcalloc((size_t)nm, sizeof(EngChange *));
        p->mnch = xcalloc((size_t)nm, sizeof(int64_t));
        p->mcap = xcalloc((size_t)nm, sizeof(int64_t));
    }
    if (!run_ops(p, err, errsize)) return false;
    for (int m = 0; m < p->g->nmodels; m++) {
        p->mnch[m] = 0;
        if (!p->running[m]) continue;
        ChangeBuf cb = {&p->mch[m], &p->mcap[m]};
        p->mnch[m] = present_build(p, m, p->node_ops[p->g->models[m].root->index], &cb);
    }
    return true;
}

void eng_step_end(EngPipeline *p)
{
    eng_reset_batches(p);
    if (p->mnch) memset(p->mnch, 0, sizeof(int64_t) * (size_t)(p->g->nmodels > 0 ? p->g->nmodels : 1));
}

/* Does change a come before change b in model m's presentation order? keyed: by key
 * (a key's changes are all in one replica); keyless: by the whole row. */
static int merge_cmp(const IrModel *im, const Type *types, int ncols, const EngChange *a, const EngChange *b)
{
    if (im->nout_key >= 0) {
        for (int k = 0; k < im->nout_key; k++) {
            int c = im->out_key[k];
            int r = op_cell_cmp(types[c], &a->row[c], &b->row[c]);
            if (r) return r;
        }
        return 0;
    }
    return op_row_order_inline(types, ncols, a->row, b->row);
}

/* Merge [from[r], to[r]) of every replica's list of model m into out (at *n). */
static void merge_range(EngPipeline *const *reps, int n, int m, int64_t *from, const int64_t *to, EngChange *out,
                        int64_t *nout)
{
    const IrModel *im = &reps[0]->g->models[m];
    const Op *root = reps[0]->node_ops[im->root->index];
    const Type *types = root->out_types;
    int ncols = root->out->ncols;
    for (;;) {
        int best = -1;
        for (int r = 0; r < n; r++) {
            if (from[r] >= to[r]) continue;
            if (best < 0 || merge_cmp(im, types, ncols, &reps[r]->mch[m][from[r]], &reps[best]->mch[m][from[best]]) < 0)
                best = r;
        }
        if (best < 0) return;
        out[(*nout)++] = reps[best]->mch[m][from[best]++];
    }
}

bool eng_present_merged(EngPipeline *const *reps, int n, const bool *models, EngListener fn, void *fn_ctx, char *err,
                        size_t errsize)
{
    EngPipeline *p0 = reps[0];
    int64_t from[n > 0 ? n : 1], mid[n > 0 ? n : 1], to[n > 0 ? n : 1];
    for (int m = 0; m < p0->g->nmodels; m++) {
        if (!p0->running[m] || (models && !models[m])) continue;
        int64_t total = 0;
        int nonempty = -1, count = 0;
        for (int r = 0; r < n; r++) {
            total += reps[r]->mnch[m];
            if (reps[r]->mnch[m] > 0) {
                nonempty = r;
                count++;
            }
        }
        if (count == 0) continue;
        if (count == 1) {
            if (!call_listener(m, fn, fn_ctx, reps[nonempty]->mch[m], reps[nonempty]->mnch[m], err, errsize))
                return false;
            continue;
        }
        if (total > p0->chcap) {
            p0->chcap = total;
            p0->ch = xrealloc(p0->ch, sizeof(EngChange) * (size_t)p0->chcap);
        }
        int64_t nout = 0;
        const IrModel *im = &p0->g->models[m];
        for (int r = 0; r < n; r++) {
            from[r] = 0;
            to[r] = reps[r]->mnch[m];
            mid[r] = 0;
            /* keyless: each list is its deletes, then its inserts */
            if (im->nout_key < 0)
                while (mid[r] < to[r] && reps[r]->mch[m][mid[r]].op == CHANGE_DELETE) mid[r]++;
        }
        if (im->nout_key < 0) {
            merge_range(reps, n, m, from, mid, p0->ch, &nout);
            for (int r = 0; r < n; r++) from[r] = mid[r];
        }
        merge_range(reps, n, m, from, to, p0->ch, &nout);
        if (!call_listener(m, fn, fn_ctx, p0->ch, nout, err, errsize)) return false;
    }
    return true;
}

int eng_state_stats(EngPipeline *p, EngStateStats *out, int max)
{
    int total = 0;
    for (int i = 0; i < p->nops; i++) {
        const Op *op = p->ops[i];
        if (!op->vt->state_stats) continue;
        int room = max - total > 0 ? max - total : 0;
        total += op->vt->state_stats(op, room > 0 ? out + total : NULL, room);
    }
    for (int s = 0; s < p->nsrc; s++) {
        const Op *op = p->src[s].norm;
        if (!op) continue;
        int room = max - total > 0 ? max - total : 0;
        total += op->vt->state_stats(op, room > 0 ? out + total : NULL, room);
    }
    for (int i = 0; i < total && i < max; i++)
        for (int k = 0; k < p->nseed; k++)
            if (strcmp(out[i].id, p->seed_ids[k]) == 0) out[i].expired += p->seed_expired[k];
    return total;
}

void eng_seed_expired(EngPipeline *p, const char *id, int64_t expired)
{
    if (expired <= 0) return;
    for (int k = 0; k < p->nseed; k++)
        if (strcmp(id, p->seed_ids[k]) == 0) {
            p->seed_expired[k] = expired;
            return;
        }
    p->seed_ids = xrealloc(p->seed_ids, sizeof(char *) * (size_t)(p->nseed + 1));
    p->seed_expired = xrealloc(p->seed_expired, sizeof(int64_t) * (size_t)(p->nseed + 1));
    p->seed_ids[p->nseed] = arena_strdup(&p->arena, id);
    p->seed_expired[p->nseed++] = expired;
}
