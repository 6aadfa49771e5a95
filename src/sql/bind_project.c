/* Project-level binding: parses every model, scans its AST for source('...') and
 * ref('...') calls (the dependency lists, sorted and unique), finds reference cycles
 * (each model on a cycle gets an error naming it, "a -> b -> a"), orders the other
 * models upstream-first and binds them in that order so a ref() sees the referenced
 * model's output columns. */
#include "sql/bind_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct DepRef {
    bool is_source;
    const char *name;
    int loc;                 /* the string argument */
} DepRef;

typedef struct ModelScan {
    Ast *stmt;               /* NULL when the SQL did not parse */
    DepRef *refs;
    int nrefs, cap;
    Arena *arena;
    int *deps;               /* indexes of referenced models, sorted by name, unique */
    int ndeps;
    /* Tarjan's SCC state */
    int index, low;
    bool on_stack, in_cycle;
    int scc;
} ModelScan;

static void add_ref(ModelScan *ms, const Ast *fc)
{
    if (fc->kind != AST_FUNC_CALL || !fc->name || fc->nnames > 1) return;
    bool src = strcmp(fc->name, "source") == 0;
    if (!src && strcmp(fc->name, "ref") != 0) return;
    if (fc->args.n != 1) return;
    const Ast *arg = fc->args.items[0];
    if (arg->kind != AST_CONST || arg->const_kind != AST_CONST_STRING || !arg->text) return;
    if (ms->nrefs == ms->cap) {
        int cap = ms->cap ? ms->cap * 2 : 8;
        DepRef *v = ARENA_ARRAY(ms->arena, DepRef, cap);
        if (ms->nrefs) memcpy(v, ms->refs, sizeof(DepRef) * (size_t)ms->nrefs);
        ms->refs = v;
        ms->cap = cap;
    }
    DepRef *r = &ms->refs[ms->nrefs++];
    r->is_source = src;
    r->name = arg->text;
    r->loc = arg->loc;
}

/* FROM source('x') / ref('m'), also as the relation argument of a table function
 * (TUMBLE(source('x'), ...)). */
static void scan_fn(Ast *a, void *ud)
{
    if (a->kind != AST_RANGE_FUNCTION) return;
    const Ast *fc = a->func ? a->func : a;
    if (fc->kind != AST_FUNC_CALL) return;
    add_ref(ud, fc);
    for (int i = 0; i < fc->args.n; i++) add_ref(ud, fc->args.items[i]);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted, unique names of the refs of one kind that exist in the project. */
static const char **dep_names(const Project *p, Arena *arena, const ModelScan *ms, bool sources, int *out_n)
{
    const char **v = ARENA_ARRAY(arena, const char *, ms->nrefs + 1);
    int n = 0;
    for (int i = 0; i < ms->nrefs; i++) {
        const DepRef *r = &ms->refs[i];
        if (r->is_source != sources) continue;
        if (sources ? !project_find_source(p, r->name) : !project_find_model(p, r->name)) continue;
        v[n++] = r->name;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_str);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || strcmp(v[u - 1], v[i]) != 0) v[u++] = v[i];
    *out_n = u;
    return v;
}

/* bp->models[i] binds bp->project->models[i] (sql_bind_project), which are sorted. */
int bound_model_index(const BoundProject *bp, const char *name)
{
    const ModelDef *m = bp && name ? project_find_model(bp->project, name) : NULL;
    return m ? (int)(m - bp->project->models) : -1;
}

/* ---- cycles ------------------------------------------------------------------------- */

/* The model graph is walked with explicit stacks, not recursion: a chain of ref()s is as
 * long as the project is large. */
typedef struct Graph {
    ModelScan *ms;
    int n;
    int counter, nscc;
    int *stack;                  /* Tarjan's stack of visited models */
    int sp;
    int *walk, *edge;            /* the depth-first walk: models and their next dependency */
} Graph;

/* Tarjan's strongly connected components from v; every model of a component of more
 * than one model, or that refers to itself, is marked in_cycle. */
static void strong_connect(Graph *g, int v)
{
    int depth = 0;
    g->walk[depth] = v;
    g->edge[depth] = 0;
    g->ms[v].index = g->ms[v].low = ++g->counter;
    g->stack[g->sp++] = v;
    g->ms[v].on_stack = true;
    while (depth >= 0) {
        int u = g->walk[depth];
        ModelScan *m = &g->ms[u];
        if (g->edge[depth] < m->ndeps) {
            int w = m->deps[g->edge[depth]++];
            if (w == u) m->in_cycle = true;
            if (!g->ms[w].index) {
                g->ms[w].index = g->ms[w].low = ++g->counter;
                g->stack[g->sp++] = w;
                g->ms[w].on_stack = true;
                depth++;
                g->walk[depth] = w;
                g->edge[depth] = 0;
            } else if (g->ms[w].on_stack && g->ms[w].index < m->low) {
                m->low = g->ms[w].index;
            }
            continue;
        }
        if (m->low == m->index) {
            int id = g->nscc++, from = g->sp, w;
            do {
                w = g->stack[--from];
                g->ms[w].scc = id;
            } while (w != u);
            for (int i = from; i < g->sp; i++) {
                g->ms[g->stack[i]].on_stack = false;
                if (g->sp - from > 1) g->ms[g->stack[i]].in_cycle = true;
            }
            g->sp = from;
        }
        depth--;
        if (depth >= 0 && m->low < g->ms[g->walk[depth]].low) g->ms[g->walk[depth]].low = m->low;
    }
}

/* Shortest path v -> ... -> v inside v's component, as model indexes (first == last). */
static int cycle_path(Graph *g, Arena *arena, int v, int **out)
{
    int n = g->n;
    int *prev = ARENA_ARRAY(arena, int, n);
    int *queue = ARENA_ARRAY(arena, int, n + 1);
    for (int i = 0; i < n; i++) prev[i] = -2;
    int qh = 0, qt = 0, end = -1;
    for (int k = 0; k < g->ms[v].ndeps && end < 0; k++) {
        int w = g->ms[v].deps[k];
        if (w == v) end = v;
        else if (g->ms[w].scc == g->ms[v].scc && prev[w] == -2) {
            prev[w] = v;
            queue[qt++] = w;
        }
    }
    while (qh < qt && end < 0) {
        int u = queue[qh++];
        for (int k = 0; k < g->ms[u].ndeps; k++) {
            int w = g->ms[u].deps[k];
            if (w == v) {
                end = u;
                break;
            }
            if (g->ms[w].scc == g->ms[v].scc && prev[w] == -2) {
                prev[w] = u;
                queue[qt++] = w;
            }
        }
    }
    /* walk back from end to v */
    int len = 1;
    for (int u = end; u != v; u = prev[u]) len++;
    int *path = ARENA_ARRAY(arena, int, len + 2);
    path[0] = v;
    path[len] = v;
    int i = len - 1;
    for (int u = end; u != v; u = prev[u]) path[i--] = u;
    *out = path;
    return len + 1;
}

static void report_cycle(Graph *g, const Project *p, Arena *arena, DiagList *dl, int v)
{
    int *path;
    int n = cycle_path(g, arena, v, &path);
    StrBuf sb = STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(&sb, " -> ");
        sb_puts(&sb, p->models[path[i]].name);
    }
    /* point at the ref() that leads into the cycle */
    const ModelScan *m = &g->ms[v];
    const char *next = p->models[path[1]].name;
    int loc = 0;
    for (int i = 0; i < m->nrefs; i++)
        if (!m->refs[i].is_source && strcmp(m->refs[i].name, next) == 0) {
            loc = m->refs[i].loc;
            break;
        }
    diag_error(dl, project_sql_pos(&p->models[v], loc), "ref-cycle",
               "a model cannot depend on itself, directly or through other models", "reference cycle: %s",
               sb_cstr(&sb));
    sb_free(&sb);
}

/* ---- order ------------------------------------------------------------------------------- */

/* Appends v's dependencies (outside cycles), then v, to order: upstream first. */
static void topo_visit(Graph *g, int v, bool *done, int *order, int *n)
{
    if (done[v]) return;
    int depth = 0;
    done[v] = true;
    g->walk[0] = v;
    g->edge[0] = 0;
    while (depth >= 0) {
        const ModelScan *m = &g->ms[g->walk[depth]];
        if (g->edge[depth] < m->ndeps) {
            int w = m->deps[g->edge[depth]++];
            if (done[w] || g->ms[w].in_cycle) continue;
            done[w] = true;
            depth++;
            g->walk[depth] = w;
            g->edge[depth] = 0;
            continue;
        }
        order[(*n)++] = g->walk[depth--];
    }
}

BoundProject *sql_bind_project(const Project *p, Arena *arena, DiagList *dl)
{
    BoundProject *bp = ARENA_NEW(arena, BoundProject);
    bp->project = p;
    bp->nmodels = p->nmodels;
    bp->models = ARENA_ARRAY(arena, BoundModel, p->nmodels + 1);
    bp->topo = ARENA_ARRAY(arena, int, p->nmodels + 1);
    ModelScan *ms = ARENA_ARRAY(arena, ModelScan, p->nmodels + 1);

    for (int i = 0; i < p->nmodels; i++) {
        const ModelDef *m = &p->models[i];
        BoundModel *bm = &bp->models[i];
        bm->model = m;
        ms[i].arena = arena;
        if (!m->sql) continue;
        if (m->sql_file && m->raw_sql) diag_add_source(dl, m->sql_file, m->raw_sql);
        SqlParseResult r = sql_parse(arena, m->sql);
        if (!r.ok || !r.stmt) {
            const char *hint = r.hint;
            /* Flink's plural interval units: INTERVAL '5' MINUTES */
            static const char *const plural[][3] = {{"\"SECONDS\"", "SECOND", "seconds"},
                                                    {"\"MINUTES\"", "MINUTE", "minutes"},
                                                    {"\"HOURS\"", "HOUR", "hours"}, {"\"DAYS\"", "DAY", "days"}};
            for (size_t u = 0; !hint && r.error && u < sizeof plural / sizeof plural[0]; u++)
                if (strstr(r.error, plural[u][0]))
                    hint = arena_printf(arena, "the unit is singular in PostgreSQL: INTERVAL '5' %s (or "
                                        "INTERVAL '5 %s')", plural[u][1], plural[u][2]);
            diag_error(dl, project_sql_pos(m, r.error_loc < 0 ? 0 : r.error_loc), r.code ? r.code : "sql-syntax",
                       hint, "%s", r.error ? r.error : "syntax error");
            continue;
        }
        ms[i].stmt = r.stmt;
        bind_ast_walk(r.stmt, scan_fn, &ms[i]);
        bm->dep_sources = dep_names(p, arena, &ms[i], true, &bm->ndep_sources);
        bm->dep_models = dep_names(p, arena, &ms[i], false, &bm->ndep_models);
        ms[i].deps = ARENA_ARRAY(arena, int, bm->ndep_models + 1);
        for (int k = 0; k < bm->ndep_models; k++) {
            const ModelDef *dm = project_find_model(p, bm->dep_models[k]);
            if (dm) ms[i].deps[ms[i].ndeps++] = (int)(dm - p->models);
        }
    }

    Graph g = {ms, p->nmodels, 0, 0, ARENA_ARRAY(arena, int, p->nmodels + 1), 0,
               ARENA_ARRAY(arena, int, p->nmodels + 1), ARENA_ARRAY(arena, int, p->nmodels + 1)};
    for (int i = 0; i < p->nmodels; i++)
        if (!ms[i].index) strong_connect(&g, i);
    for (int i = 0; i < p->nmodels; i++)
        if (ms[i].in_cycle) report_cycle(&g, p, arena, dl, i);

    bool *done = ARENA_ARRAY(arena, bool, p->nmodels + 1);
    for (int i = 0; i < p->nmodels; i++)
        if (!ms[i].in_cycle) topo_visit(&g, i, done, bp->topo, &bp->ntopo);

    for (int t = 0; t < bp->ntopo; t++) {
        int i = bp->topo[t];
        if (!ms[i].stmt) continue;
        /* a source column whose type was reported as wrong: binding over it would only
         * add errors that follow from that one */
        bool bad_source = false;
        for (int k = 0; k < bp->models[i].ndep_sources && !bad_source; k++) {
            const SourceDef *sd = project_find_source(p, bp->models[i].dep_sources[k]);
            for (int c = 0; sd && c < sd->ncolumns; c++)
                if (sd->columns[c].type.id == T_UNKNOWN) bad_source = true;
        }
        if (bad_source) continue;
        Binder b = {arena, dl, p, &p->models[i], bp, false, NULL, NULL, false};
        /* a model that never names a lineage column scans its sources without them */
        b.lineage = p->models[i].sql && strcasestr(p->models[i].sql, "_replay_") != NULL;
        PlanNode *root = bind_query(&b, ms[i].stmt, NULL, QF_TOP);
        if (root && !b.failed) root = bind_topn_finish(&b, root);
        if (root && !b.failed && !bind_check_depth(&b, root, -1)) root = NULL;
        bp->models[i].root = b.failed ? NULL : root;
    }
    return bp;
}
