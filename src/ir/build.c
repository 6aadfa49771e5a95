/* Builds the streaming IR from the bound project: one IrNode per plan node, models in
 * dependency order so that every node comes after its inputs, ref() edges resolved to
 * the referenced model's root, and stable operator ids "<model>/<kind><n>". The
 * analysis (modes, keys, state, fingerprints, contract checks) is in analyze.c. */
#include "ir/ir.h"
#include "ir/ir_internal.h"

#include <string.h>

typedef struct Builder {
    const BoundProject *bp;
    Arena *arena;
    IrGraph *g;
    int cap;
    /* per-model counters of operator kinds, for stable ids */
    int kind_count[PL_VALUES + 1];
    int model_start;         /* index in g->nodes of the model's first node */
} Builder;

static const char *op_kind_slug(PlanKind k)
{
    switch (k) {
    case PL_SOURCE: return "source";
    case PL_REF: return "ref";
    case PL_FILTER: return "filter";
    case PL_PROJECT: return "project";
    case PL_AGGREGATE: return "aggregate";
    case PL_DISTINCT: return "distinct";
    case PL_UNION_ALL: return "union_all";
    case PL_JOIN: return "join";
    case PL_WINDOW_TVF: return "window";
    case PL_TOPN: return "topn";
    case PL_SETOP: return "setop";
    case PL_OVER_AGG: return "over_agg";
    case PL_VALUES: return "values";
    }
    return "op";
}

static void push_node(Builder *b, IrNode *n)
{
    if (b->g->nnodes == b->cap) {
        int cap = b->cap ? b->cap * 2 : 64;
        IrNode **nodes = ARENA_ARRAY(b->arena, IrNode *, cap);
        if (b->g->nnodes) memcpy(nodes, b->g->nodes, sizeof(IrNode *) * (size_t)b->g->nnodes);
        b->g->nodes = nodes;
        b->cap = cap;
    }
    n->index = b->g->nnodes;
    b->g->nodes[b->g->nnodes++] = n;
}

static int source_index(const Project *p, const char *name)
{
    const SourceDef *s = project_find_source(p, name);
    return s ? (int)(s - p->sources) : -1;
}

/* A node of the model being built that computes what n computes: same inputs and an
 * equal plan node. Common subexpressions (a subquery or CTE written twice, as in
 * Nexmark q5) run once and keep their state once; the tree refers to the node twice. */
static IrNode *find_equal(const Builder *b, const IrNode *n)
{
    for (int i = b->model_start; i < b->g->nnodes; i++) {
        IrNode *c = b->g->nodes[i];
        if (c->ninputs != n->ninputs) continue;
        bool same = true;
        for (int k = 0; k < n->ninputs && same; k++) same = c->inputs[k] == n->inputs[k];
        if (same && plan_node_local_equal(c->plan, n->plan)) return c;
    }
    return NULL;
}

/* Post-order: inputs first, so ids count from the leaves and adding an operator on
 * top of a model does not renumber the operators below it. Returns NULL when a
 * referenced model failed to bind. */
static IrNode *build_node(Builder *b, int model, PlanNode *pn)
{
    IrNode *n = ARENA_NEW(b->arena, IrNode);
    n->plan = pn;
    n->model = model;
    n->source = -1;
    n->nkey = -1;
    if (pn->kind == PL_REF) {
        int m = bound_model_index(b->bp, pn->name);
        IrNode *up = m >= 0 ? b->g->models[m].root : NULL;
        if (!up) return NULL;
        n->ninputs = 1;
        n->inputs = ARENA_ARRAY(b->arena, IrNode *, 1);
        n->inputs[0] = up;
    } else if (pn->ninputs > 0) {
        n->ninputs = pn->ninputs;
        n->inputs = ARENA_ARRAY(b->arena, IrNode *, pn->ninputs);
        for (int i = 0; i < pn->ninputs; i++) {
            n->inputs[i] = build_node(b, model, pn->inputs[i]);
            if (!n->inputs[i]) return NULL;
        }
    }
    if (pn->kind == PL_SOURCE) n->source = source_index(b->bp->project, pn->name);
    n->lookup = pn->kind == PL_JOIN && b->bp->project->models[model].lookup;
    IrNode *same = find_equal(b, n);
    if (same) return same;
    const char *model_name = b->bp->project->models[model].name;
    n->op_id = arena_printf(b->arena, "%s/%s%d", model_name, op_kind_slug(pn->kind),
                            b->kind_count[pn->kind]++);
    push_node(b, n);
    return n;
}

IrGraph *ir_build(const BoundProject *bp, Arena *arena, DiagList *dl)
{
    ir_check_column_docs(bp, dl);
    Builder b = {0};
    b.bp = bp;
    b.arena = arena;
    IrGraph *g = ARENA_NEW(arena, IrGraph);
    b.g = g;
    g->project = bp->project;
    g->bound = bp;
    g->nmodels = bp->nmodels;
    g->models = ARENA_ARRAY(arena, IrModel, bp->nmodels > 0 ? bp->nmodels : 1);
    for (int i = 0; i < bp->nmodels; i++) {
        g->models[i].def = &bp->project->models[i];
        g->models[i].bound = &bp->models[i];
        g->models[i].nout_key = -1;
    }
    for (int t = 0; t < bp->ntopo; t++) {
        int m = bp->topo[t];
        const BoundModel *bm = &bp->models[m];
        if (!bm->root) continue;
        memset(b.kind_count, 0, sizeof b.kind_count);
        int before = g->nnodes;
        b.model_start = before;
        ir_prune_columns(arena, bm->root);
        IrNode *root = build_node(&b, m, bm->root);
        if (!root) {
            g->nnodes = before; /* an upstream model failed: its error is already reported */
            continue;
        }
        g->models[m].root = root;
    }
    ir_analyze(g, arena, dl);
    return g;
}

const char *changelog_mode_name(ChangelogMode m)
{
    switch (m) {
    case CL_INSERT_ONLY: return "insert_only";
    case CL_UPSERT: return "upsert";
    case CL_RETRACT: return "retract";
    }
    return "?";
}

const char *state_bound_name(StateBound b)
{
    switch (b) {
    case BOUND_UNBOUNDED: return "unbounded";
    case BOUND_WATERMARK: return "watermark";
    case BOUND_TTL: return "ttl";
    }
    return "?";
}

const char *ir_mode_text(const IrNode *n, Arena *a)
{
    if (n->mode != CL_UPSERT) return changelog_mode_name(n->mode);
    StrBuf sb = STRBUF_INIT;
    sb_puts(&sb, "upsert(");
    for (int i = 0; i < n->nkey; i++) {
        if (i) sb_puts(&sb, ", ");
        sb_puts(&sb, n->plan->cols[n->key[i]].name);
    }
    sb_putc(&sb, ')');
    const char *s = arena_strdup(a, sb_cstr(&sb));
    sb_free(&sb);
    return s;
}

void ir_fp_hex(uint64_t fp, char out[17])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--) {
        out[i] = hex[fp & 15];
        fp >>= 4;
    }
    out[16] = '\0';
}
