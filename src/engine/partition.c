/* Key partitioning (partition.h): the analysis that picks a routing column per source
 * from the IR, and the routing of a step's source rows into a replica.
 *
 * The analysis follows, for one choice of routing columns, where the routing column
 * goes through every running operator (its position in the operator's output, or lost)
 * and checks that every stateful operator's key contains it; choices are tried in
 * source then column order and the first that fits wins. */
#include "engine/partition.h"

#include "base/hash.h"
#include "base/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool routable_type(Type t)
{
    switch (t.id) {
    case T_BOOL: case T_INT2: case T_INT4: case T_INT8:
    case T_DATE: case T_TIMESTAMP: case T_TIMESTAMPTZ: case T_TEXT:
        return true;
    default:
        return false;
    }
}

static const char *model_name(const IrGraph *g, const IrNode *n)
{
    return n->model >= 0 && n->model < g->project->nmodels ? g->project->models[n->model].name : "?";
}

static bool is_col(const Expr *e, int col) { return e && e->kind == EX_COLUMN && e->col == col && col >= 0; }

/* The index of the first expression of es that is a plain copy of column col, or -1. */
static int find_col(Expr *const *es, int n, int col)
{
    for (int i = 0; i < n; i++)
        if (is_col(es[i], col)) return i;
    return -1;
}

static bool stateful(const IrNode *n)
{
    switch (n->plan->kind) {
    case PL_AGGREGATE: case PL_DISTINCT: case PL_JOIN: case PL_TOPN: case PL_SETOP: case PL_OVER_AGG:
        return true;
    default:
        return n->nstate > 0 && n->plan->kind != PL_SOURCE;
    }
}

/* Failures that no choice of columns can fix; NULL when there is none at node n. */
static const char *structural(const IrGraph *g, const IrNode *n)
{
    const PlanNode *p = n->plan;
    switch (p->kind) {
    case PL_SOURCE:
        /* a keyed updating source is normalized (by its primary key) before its rows are
         * routed: the run's own pipeline keeps that state */
        return NULL;
    case PL_AGGREGATE: return p->ngroup == 0 ? "global aggregate" : NULL;
    case PL_TOPN: return p->npartition == 0 ? "TopN without PARTITION BY" : NULL;
    case PL_OVER_AGG: return p->npartition == 0 ? "OVER without PARTITION BY" : NULL;
    case PL_JOIN:
        if (p->nkeys == 0) return "join without equal keys";
        if (p->join_type == JOIN_FULL) return "full outer join";
        if (p->null_aware && p->nkeys == 1) return "NOT IN";
        return NULL;
    case PL_FILTER: case PL_PROJECT: case PL_REF: case PL_UNION_ALL: case PL_DISTINCT: case PL_SETOP:
    case PL_WINDOW_TVF:
        return NULL;
    case PL_VALUES: return "constant rows (VALUES or SELECT without FROM)"; /* every replica would emit them */
    }
    return "operator kind not partitioned";
}

/* Where the routing column is in n's output given its inputs' (pc[input index]); -1
 * when lost. Stateful operators whose key lacks it set *bad. */
static int follow(const IrNode *n, const int *pc, const int *source_col, bool *bad)
{
    const PlanNode *p = n->plan;
    int in0 = n->ninputs > 0 ? pc[n->inputs[0]->index] : -1;
    switch (p->kind) {
    case PL_SOURCE: return source_col[n->source];
    case PL_VALUES: *bad = true; return -1;
    case PL_FILTER: case PL_REF: case PL_WINDOW_TVF: return in0;
    case PL_PROJECT: return in0 < 0 ? -1 : find_col(p->exprs, p->nexprs, in0);
    case PL_UNION_ALL: case PL_SETOP:
        for (int i = 1; i < n->ninputs; i++)
            if (pc[n->inputs[i]->index] != in0) in0 = -1;
        if (in0 < 0 && p->kind == PL_SETOP) *bad = true;
        return in0;
    case PL_DISTINCT:
        if (in0 < 0) *bad = true;
        return in0;
    case PL_AGGREGATE: {
        int k = in0 < 0 ? -1 : find_col(p->group, p->ngroup, in0);
        if (k < 0) *bad = true;
        return k;
    }
    case PL_TOPN: case PL_OVER_AGG:
        if (in0 < 0 || find_col(p->partition, p->npartition, in0) < 0) *bad = true;
        return in0;
    case PL_JOIN: {
        int l = in0, r = n->ninputs > 1 ? pc[n->inputs[1]->index] : -1;
        int k = -1;
        for (int i = p->null_aware ? 1 : 0; i < p->nkeys && k < 0 && l >= 0 && r >= 0; i++)
            if (is_col(p->left_keys[i], l) && is_col(p->right_keys[i], r)) k = i;
        if (k < 0) {
            *bad = true;
            return -1;
        }
        if (p->join_type == JOIN_RIGHT) return n->inputs[0]->plan->ncols + r;
        return l;
    }
    }
    *bad = true;
    return -1;
}

typedef struct Search {
    const IrGraph *g;
    const bool *needed;
    int *pc;                 /* per node */
    int *source_col;
    int fail_node;           /* the node the last evaluation failed at */
    const char *fail_why;
} Search;

static bool evaluate(Search *s)
{
    const IrGraph *g = s->g;
    for (int i = 0; i < g->nnodes; i++) {
        const IrNode *n = g->nodes[i];
        if (!s->needed[n->index]) continue;
        bool bad = false;
        s->pc[n->index] = follow(n, s->pc, s->source_col, &bad);
        if (bad) {
            s->fail_node = i;
            s->fail_why = "keys share no source column with the other stateful operators";
            return false;
        }
    }
    for (int m = 0; m < g->nmodels; m++) {
        const IrModel *im = &g->models[m];
        if (!im->root || !s->needed[im->root->index]) continue;
        int c = s->pc[im->root->index];
        /* keyless: equal rows in one replica (their changes consolidate as in one
         * pipeline), or an insert-only output, whose changes never cancel */
        bool in_key = im->nout_key < 0 && (c >= 0 || im->root->mode == CL_INSERT_ONLY);
        for (int k = 0; k < im->nout_key && !in_key; k++) in_key = im->out_key[k] == c;
        if (!in_key) {
            s->fail_node = im->root->index;
            s->fail_why = im->nout_key >= 0 ? "its key does not hold the partitioning column"
                                             : "its output drops the partitioning column";
            return false;
        }
    }
    return true;
}

static void mark_needed(const IrNode *n, bool *needed)
{
    if (needed[n->index]) return;
    needed[n->index] = true;
    for (int i = 0; i < n->ninputs; i++) mark_needed(n->inputs[i], needed);
}

bool eng_partition_plan(const IrGraph *g, const bool *wanted, EngPartition *out)
{
    memset(out, 0, sizeof *out);
    const Project *proj = g->project;
    out->nsources = proj->nsources;
    out->source_col = xcalloc((size_t)proj->nsources + 1, sizeof(int));
    for (int s = 0; s < proj->nsources; s++) out->source_col[s] = -1;
    bool *needed = xcalloc((size_t)g->nnodes + 1, sizeof(bool));
    int *pc = xcalloc((size_t)g->nnodes + 1, sizeof(int));
    bool *read = xcalloc((size_t)proj->nsources + 1, sizeof(bool));
    for (int m = 0; m < g->nmodels; m++)
        if ((!wanted || wanted[m]) && g->models[m].root) mark_needed(g->models[m].root, needed);
    for (int m = 0; m < g->nmodels; m++)
        if (g->models[m].root && needed[g->models[m].root->index]) out->nmodels++;
    for (int i = 0; i < g->nnodes && !out->reason[0]; i++) {
        const IrNode *n = g->nodes[i];
        if (!needed[n->index]) continue;
        if (n->plan->kind == PL_SOURCE && n->source >= 0 && n->source < proj->nsources) read[n->source] = true;
        if (stateful(n)) out->nstateful++;
        const char *why = structural(g, n);
        if (why) snprintf(out->reason, sizeof out->reason, "%s: %s", model_name(g, n), why);
    }
    if (!out->reason[0] && out->nstateful == 0) snprintf(out->reason, sizeof out->reason, "no keyed state");
    if (out->reason[0]) goto done;

    /* an odometer over the routable columns of every source read */
    int nread = 0;
    int *srcs = xcalloc((size_t)proj->nsources + 1, sizeof(int));
    int *digit = xcalloc((size_t)proj->nsources + 1, sizeof(int));
    int **cand = xcalloc((size_t)proj->nsources + 1, sizeof(int *));
    int *ncand = xcalloc((size_t)proj->nsources + 1, sizeof(int));
    bool found = false;
    int best_fail = -1;
    const char *best_why = "no column of a type rows can be routed by";
    for (int s = 0; s < proj->nsources; s++) {
        if (!read[s]) continue;
        const SourceDef *sd = &proj->sources[s];
        cand[nread] = xcalloc((size_t)sd->ncolumns + 1, sizeof(int));
        for (int c = 0; c < sd->ncolumns; c++)
            if (routable_type(sd->columns[c].type)) cand[nread][ncand[nread]++] = c;
        srcs[nread++] = s;
    }
    bool any = nread > 0;
    for (int k = 0; k < nread; k++)
        if (ncand[k] == 0) any = false;
    Search se = {g, needed, pc, out->source_col, -1, NULL};
    for (long tries = 0; any && tries < 100000; tries++) {
        for (int k = 0; k < nread; k++) out->source_col[srcs[k]] = cand[k][digit[k]];
        if (evaluate(&se)) {
            found = true;
            break;
        }
        if (se.fail_node > best_fail) {
            best_fail = se.fail_node;
            best_why = se.fail_why;
        }
        int k = 0;
        while (k < nread && ++digit[k] == ncand[k]) digit[k++] = 0;
        if (k == nread) break;
    }
    for (int k = 0; k < nread; k++) free(cand[k]);
    free(cand);
    free(ncand);
    if (found) {
        out->ok = true;
        out->node_col = xcalloc((size_t)g->nnodes + 1, sizeof(int));
        for (int i = 0; i < g->nnodes; i++) {
            int x = g->nodes[i]->index;
            out->node_col[x] = needed[x] ? pc[x] : -1;
        }
        size_t len = 0;
        for (int k = 0; k < nread && len < sizeof out->by; k++) {
            const SourceDef *sd = &proj->sources[srcs[k]];
            int w = snprintf(out->by + len, sizeof out->by - len, "%s%s.%s", k ? ", " : "", sd->name,
                             sd->columns[out->source_col[srcs[k]]].name);
            if (w > 0) len += (size_t)w;
        }
    } else {
        for (int s = 0; s < proj->nsources; s++) out->source_col[s] = -1;
        snprintf(out->reason, sizeof out->reason, "%s: %s",
                 best_fail >= 0 ? model_name(g, g->nodes[best_fail]) : "?", best_why);
    }
    free(srcs);
    free(digit);
done:
    free(needed);
    free(pc);
    free(read);
    return out->ok;
}

void eng_partition_free(EngPartition *p)
{
    if (!p) return;
    free(p->source_col);
    p->source_col = NULL;
    free(p->node_col);
    p->node_col = NULL;
}

int eng_partition_replica(Type t, const Value *v, int n)
{
    if (n <= 1 || v->isnull) return 0;
    uint64_t h = t.id == T_TEXT ? hash_bytes(v->s, v->len, 0x70617274ull) : hash_u64((uint64_t)v->i, 0x70617274ull);
    /* the high bits (well mixed) scaled to [0, n) */
    return (int)(((h >> 32) * (uint64_t)n) >> 32);
}

int eng_partition_route(const Batch *src, Type t, int col, int replica, int n, Batch *dst,
                        int **src_index, int *src_index_cap)
{

    int got = 0;
    int base = dst->n;
    for (int i = 0; i < src->n; i++) {
        const Value *row = batch_row(src, i);
        if (n > 1 && eng_partition_replica(t, &row[col], n) != replica) continue;
        batch_append_row(dst, row, src->weights[i]);
        int k = dst->n - 1;
        if (src->origins) batch_set_origin(dst, k, &src->origins[i]);
        if (src->frontier) batch_set_frontier(dst, k, src->frontier[i]);
        if (base + got >= *src_index_cap) {
            *src_index_cap = *src_index_cap ? *src_index_cap * 2 : 1024;
            while (*src_index_cap <= base + got) *src_index_cap *= 2;
            *src_index = xrealloc(*src_index, sizeof(int) * (size_t)*src_index_cap);
        }
        (*src_index)[base + got] = i;
        got++;
    }
    return got;
}
