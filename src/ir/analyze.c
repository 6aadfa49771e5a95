/* IR analysis: the changelog mode and unique key of every edge, a state descriptor
 * for every stateful operator, fingerprints, and the materialization contract of
 * every model (DESIGN.md section 3). Joins, windows, TopN, OVER aggregates and set
 * operations are analysed in analyze_stream.c.
 *
 * Fingerprints are structural hashes that ignore SQL positions and anything outside
 * a model's own plan, its config, the sources it reads and its upstream models, so
 * they do not move when unrelated parts of the project change:
 *   node.logic_fp    = kind + payload (expressions, names, output schema) + inputs' logic_fp
 *                      (+ the sources' event_time and watermark_delay, for operators
 *                      that depend on event time)
 *   state.schema_fp  = kind + key types + accumulator types   (changes => rebuild)
 *   state.logic_fp   = schema_fp + the lineage of what feeds the state (lineage.c:
 *                      only what it reads) + the TTL          (changes => backfill)
 *   model.output_fp  = the lineage of the model's output + materialization + key + ttl
 *   model.fingerprint = root logic_fp + materialization + key + ttl */
#include "base/hash.h"
#include "ir/ir_internal.h"

#include <string.h>

/* ---------- fingerprints ---------- */

static uint64_t hash_type(Type t, uint64_t h)
{
    h = hash_u64(t.id, h);
    h = hash_u64((uint64_t)(int64_t)t.precision, h);
    if (t.elem) h = hash_u64(0x656c656dull ^ t.elem, h);   /* arrays only: other types keep their fingerprints */
    return hash_u64((uint64_t)(int64_t)t.scale, h);
}

static uint64_t hash_exprs(Expr **es, int n, uint64_t h)
{
    h = hash_u64((uint64_t)n, h);
    for (int i = 0; i < n; i++) h = es[i] ? plan_expr_hash(es[i], h) : hash_u64(0x9e37, h);
    return h;
}

/* Aggregate calls (kind, DISTINCT, argument, FILTER, result type), in order. */
static uint64_t hash_aggs(const AggCall *aggs, int n, uint64_t h)
{
    for (int i = 0; i < n; i++) {
        const AggCall *a = &aggs[i];
        h = hash_u64((uint64_t)a->kind * 2 + a->distinct, h);
        h = a->arg ? plan_expr_hash(a->arg, h) : hash_u64(1, h);
        h = a->filter ? plan_expr_hash(a->filter, h) : hash_u64(2, h);
        h = hash_type(a->type, h);
        if (a->offset || a->dflt) { /* only when set: other calls keep their fingerprints */
            h = hash_u64((uint64_t)a->offset, h);
            h = a->dflt ? plan_expr_hash(a->dflt, h) : hash_u64(3, h);
        }
    }
    return h;
}

static uint64_t hash_source_def(const SourceDef *s, uint64_t h)
{
    h = hash_str(s->name, h);
    h = hash_u64(s->connector, h);
    h = hash_str(s->path, h);
    h = hash_str(s->topic, h);
    h = hash_u64(s->format, h);
    h = hash_u64((uint64_t)s->ncolumns, h);
    for (int i = 0; i < s->ncolumns; i++) {
        h = hash_str(s->columns[i].name, h);
        h = hash_type(s->columns[i].type, h);
    }
    for (int i = 0; i < s->npk; i++) h = hash_u64((uint64_t)s->pk_cols[i], h);
    return h;
}

/* Does the operator depend on event time (it waits for watermarks or judges lateness)?
 * Only those carry their sources' event-time configuration in their fingerprints, so a
 * changed watermark delay leaves a plain GROUP BY's state as it is. */
bool ir_uses_event_time(const IrNode *n)
{
    if (n->plan->kind == PL_OVER_AGG || ir_is_window_aggregate(n->plan)) return true;
    for (int i = 0; i < n->nstate; i++)
        if (n->state[i].bound == BOUND_WATERMARK) return true;
    return false;
}

/* The node's own content: kind, output schema, expressions. */
static uint64_t node_payload_hash(const IrGraph *g, const IrNode *n)
{
    const PlanNode *p = n->plan;
    uint64_t h = hash_u64(p->kind, 0x5745495200000001ull);
    h = hash_u64((uint64_t)p->ncols, h);
    for (int i = 0; i < p->ncols; i++) {
        h = hash_str(p->cols[i].name, h);
        h = hash_type(p->cols[i].type, h);
    }
    switch (p->kind) {
    case PL_SOURCE:
        if (n->source >= 0) h = hash_source_def(&g->project->sources[n->source], h);
        break;
    case PL_REF: h = hash_str(p->name, h); break;
    case PL_FILTER: h = p->pred ? plan_expr_hash(p->pred, h) : h; break;
    case PL_PROJECT: h = hash_exprs(p->exprs, p->nexprs, h); break;
    case PL_VALUES:
        h = hash_u64((uint64_t)p->nrows, h);
        h = hash_exprs(p->exprs, p->nexprs, h);
        break;
    case PL_AGGREGATE:
        h = hash_exprs(p->group, p->ngroup, h);
        h = hash_aggs(p->aggs, p->naggs, h);
        /* only window aggregates hash their window keys: plain aggregates keep their fingerprints */
        if (p->window_start_key >= 0 || p->window_end_key >= 0) {
            h = hash_u64((uint64_t)(int64_t)p->window_start_key, h);
            h = hash_u64((uint64_t)(int64_t)p->window_end_key, h);
        }
        break;
    case PL_JOIN:
        h = hash_u64(p->join_type, h);
        if (n->lookup) h = hash_u64(0x4c4f4f4b5550ull, h); /* another operator: only the left triggers */
        h = hash_exprs(p->left_keys, p->nkeys, h);
        h = hash_exprs(p->right_keys, p->nkeys, h);
        h = p->pred ? plan_expr_hash(p->pred, h) : h;
        h = hash_u64((uint64_t)p->null_aware, h);
        if (p->interval_join) {
            h = hash_u64((uint64_t)p->left_time_col, h);
            h = hash_u64((uint64_t)p->right_time_col, h);
            h = hash_u64((uint64_t)p->lower_us, h);
            h = hash_u64((uint64_t)p->upper_us, h);
        }
        break;
    case PL_WINDOW_TVF:
        h = hash_u64(p->wtvf, h);
        h = hash_u64((uint64_t)p->time_col, h);
        h = hash_u64((uint64_t)p->size_us, h);
        h = hash_u64((uint64_t)p->slide_us, h);
        h = hash_u64((uint64_t)p->gap_us, h);
        break;
    case PL_TOPN:
    case PL_OVER_AGG:
        h = hash_exprs(p->partition, p->npartition, h);
        for (int i = 0; i < p->norder; i++) {
            h = plan_expr_hash(p->order[i].expr, h);
            h = hash_u64((uint64_t)p->order[i].desc * 2 + p->order[i].nulls_first, h);
        }
        h = hash_u64((uint64_t)p->limit, h);
        h = hash_u64((uint64_t)p->rank_kind * 2 + p->emit_rank, h);
        h = hash_u64((uint64_t)p->frame_rows, h);
        if (p->frame_offset != -1) h = hash_u64((uint64_t)p->frame_offset, h);
        h = hash_aggs(p->aggs, p->naggs, h);
        break;
    case PL_SETOP: h = hash_u64((uint64_t)p->setop * 2 + p->all, h); break;
    case PL_DISTINCT:
    case PL_UNION_ALL: break;
    }
    return h;
}

/* ---------- state descriptors ---------- */

void ir_col_add_fp(ColList *l, Arena *a, const char *name, const char *fp_name, Type t)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        PlanColumn *c = ARENA_ARRAY(a, PlanColumn, cap);
        if (l->n) memcpy(c, l->cols, sizeof(PlanColumn) * (size_t)l->n);
        l->cols = c;
        if (l->fp_names) {
            const char **f = ARENA_ARRAY(a, const char *, cap);
            memcpy(f, l->fp_names, sizeof(const char *) * (size_t)l->n);
            l->fp_names = f;
        }
        l->cap = cap;
    }
    if (fp_name && !l->fp_names) l->fp_names = ARENA_ARRAY(a, const char *, l->cap); /* zeroed: NULLs */
    l->cols[l->n].name = name;
    l->cols[l->n].type = t;
    if (l->fp_names) l->fp_names[l->n] = fp_name;
    l->n++;
}

void ir_col_add(ColList *l, Arena *a, const char *name, Type t) { ir_col_add_fp(l, a, name, NULL, t); }

bool ir_state_takes_ttl(const StateDesc *s)
{
    static const char *const kinds[] = {"aggregate", "distinct", "join_left", "join_right", "topn", "over_aggregate",
                                        "setop"};
    if (!s->kind) return false;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(s->kind, kinds[i]) == 0) return true;
    return false;
}

void ir_finish_state(StateDesc *s, const IrNode *n, const ModelDef *m)
{
    uint64_t h = hash_str(s->kind, 0x5354415445ull);
    h = hash_u64((uint64_t)s->nkey, h);
    for (int i = 0; i < s->nkey; i++) h = hash_type(s->key[i].type, h);
    h = hash_u64((uint64_t)s->nvalues, h);
    for (int i = 0; i < s->nvalues; i++) {
        /* what the value computes, not how explain labels it */
        h = hash_str(s->value_fp_names && s->value_fp_names[i] ? s->value_fp_names[i] : s->values[i].name, h);
        h = hash_type(s->values[i].type, h);
    }
    s->schema_fp = h;
    if (s->bound == BOUND_UNBOUNDED && m && m->state_ttl_us > 0 && ir_state_takes_ttl(s)) {
        s->bound = BOUND_TTL;
        s->ttl_us = m->state_ttl_us;
    }
    /* what expires decides what the state holds: a changed TTL changes its content */
    s->logic_fp = hash_u64(n->col_fp ? ir_state_content_fp(n, s) : 0, h);
    /* ... and so do the watermarks it expires by (the sources' event time and delay) */
    if (s->bound == BOUND_TTL) s->logic_fp = hash_u64(n->time_fp, hash_u64((uint64_t)s->ttl_us, s->logic_fp));
}

const char **ir_agg_values(ColList *v, Arena *a, const AggCall *aggs, int naggs, const PlanColumn *in_cols, int nin,
                           bool extreme_only)
{
    const char **names = ARENA_ARRAY(a, const char *, naggs + 1);
    const char **calls = ARENA_ARRAY(a, const char *, naggs + 1);
    for (int i = 0; i < naggs; i++) {
        const AggCall *ag = &aggs[i];
        /* accumulators are named by the call, not by the output column: renaming a
         * column or wrapping the aggregate in an expression leaves the state as it is */
        StrBuf sb = STRBUF_INIT;
        plan_agg_sql(ag, in_cols, nin, &sb);
        int same = 0;
        for (int k = 0; k < i; k++) same += strcmp(names[k], sb_cstr(&sb)) == 0;
        names[i] = arena_strdup(a, sb_cstr(&sb));
        const char *name = same ? arena_printf(a, "%s#%d", names[i], same + 1) : names[i];
        calls[i] = name;
        sb_free(&sb);
        Type argt = ag->arg ? ag->arg->type : type_make(T_INT8);
        if (ag->distinct) ir_col_add(v, a, arena_printf(a, "%s.distinct_values", name), argt);
        switch (ag->kind) {
        case AGG_COUNT_STAR:
        case AGG_COUNT: ir_col_add(v, a, arena_printf(a, "%s.count", name), type_make(T_INT8)); break;
        case AGG_SUM:
        case AGG_AVG:
        case AGG_SUM_SQUARES:
            ir_col_add(v, a, arena_printf(a, "%s.sum", name), type_is_integer(argt) ? type_numeric(38, 0) : argt);
            ir_col_add(v, a, arena_printf(a, "%s.count", name), type_make(T_INT8));
            break;
        case AGG_MIN:
        case AGG_MAX:
            /* insert-only input: the engine keeps the extreme alone (agg_accum.c's
             * extreme_only); one fingerprint for both, as both compute MIN/MAX */
            ir_col_add_fp(v, a, arena_printf(a, "%s.%s", name, extreme_only ? "extreme" : "multiset"),
                          arena_printf(a, "%s.multiset", name), argt);
            break;
        case AGG_STRING_AGG:
        case AGG_MODE:
        case AGG_PERCENTILE_CONT:
        case AGG_PERCENTILE_DISC: ir_col_add(v, a, arena_printf(a, "%s.multiset", name), argt); break;
        case AGG_ARRAY_AGG:
        case AGG_JSON_AGG:
        case AGG_JSON_OBJECT_AGG: ir_col_add(v, a, arena_printf(a, "%s.multiset", name), type_make(T_TEXT)); break;
        case AGG_BOOL_AND:
        case AGG_BOOL_OR:
            ir_col_add(v, a, arena_printf(a, "%s.true_count", name), type_make(T_INT8));
            ir_col_add(v, a, arena_printf(a, "%s.false_count", name), type_make(T_INT8));
            break;
        case AGG_LAG:
        case AGG_FIRST_VALUE:
        case AGG_LAST_VALUE: break; /* read from the partition's kept rows */
        case AGG__COUNT: break;
        }
    }
    return calls;
}

void ir_group_state_values(StateDesc *s, Arena *a, const PlanNode *p, bool extreme_only)
{
    ColList v = {0};
    ir_col_add(&v, a, "__rows", type_make(T_INT8));
    const PlanNode *in = p->ninputs > 0 ? p->inputs[0] : NULL;
    s->calls = ir_agg_values(&v, a, p->aggs, p->naggs, in ? in->cols : NULL, in ? in->ncols : 0, extreme_only);
    s->ncalls = p->naggs;
    s->values = v.cols;
    s->value_fp_names = v.fp_names;
    s->nvalues = v.n;
}

/* Make s, unbounded (or ttl: ir_finish_state), the only state descriptor of n. */
static void set_single_state(IrNode *n, StateDesc *s, const ModelDef *m)
{
    s->bound = BOUND_UNBOUNDED;
    ir_finish_state(s, n, m);
    n->state = s;
    n->nstate = 1;
}

static void aggregate_state(IrNode *n, Arena *a, const ModelDef *m)
{
    const PlanNode *p = n->plan;
    StateDesc *s = ARENA_NEW(a, StateDesc);
    s->id = n->op_id;
    s->kind = "aggregate";
    s->nkey = p->ngroup;
    s->key = ARENA_ARRAY(a, PlanColumn, p->ngroup > 0 ? p->ngroup : 1);
    for (int i = 0; i < p->ngroup; i++) s->key[i] = p->cols[i];
    ir_group_state_values(s, a, p, n->inputs[0]->mode == CL_INSERT_ONLY);
    set_single_state(n, s, m);
}

static void distinct_state(IrNode *n, Arena *a, const ModelDef *m)
{
    StateDesc *s = ARENA_NEW(a, StateDesc);
    s->id = n->op_id;
    s->kind = "distinct";
    s->nkey = n->plan->ncols;
    s->key = n->plan->cols;
    s->nvalues = 1;
    s->values = ARENA_NEW(a, PlanColumn);
    s->values[0].name = "__count";
    s->values[0].type = type_make(T_INT8);
    set_single_state(n, s, m);
}

static void normalize_state(IrNode *n, Arena *a, const SourceDef *src)
{
    StateDesc *s = ARENA_NEW(a, StateDesc);
    s->id = arena_printf(a, "source:%s/changelog_normalize", src->name);
    s->kind = "changelog_normalize";
    s->nkey = src->npk;
    s->key = ARENA_ARRAY(a, PlanColumn, src->npk > 0 ? src->npk : 1);
    for (int i = 0; i < src->npk; i++) s->key[i] = n->plan->cols[src->pk_cols[i]];
    s->nvalues = n->plan->ncols;
    s->values = n->plan->cols;
    set_single_state(n, s, NULL);
}

/* ---------- modes and keys ---------- */

void ir_set_key(IrNode *n, Arena *a, const int *cols, int k)
{
    n->nkey = k;
    n->key = ARENA_ARRAY(a, int, k > 0 ? k : 1);
    for (int i = 0; i < k; i++) n->key[i] = cols[i];
}

static void set_key_range(IrNode *n, Arena *a, int k)
{
    n->nkey = k;
    n->key = ARENA_ARRAY(a, int, k > 0 ? k : 1);
    for (int i = 0; i < k; i++) n->key[i] = i;
}

static bool all_insert_only(const IrNode *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i]->mode != CL_INSERT_ONLY) return false;
    return true;
}

static void analyze_node(IrGraph *g, IrNode *n, Arena *a)
{
    const PlanNode *p = n->plan;
    const ModelDef *m = n->model >= 0 ? &g->project->models[n->model] : NULL;
    IrNode *in = n->ninputs > 0 ? n->inputs[0] : NULL;
    switch (p->kind) {
    case PL_SOURCE: {
        const SourceDef *src = n->source >= 0 ? &g->project->sources[n->source] : NULL;
        n->mode = CL_INSERT_ONLY;
        if (src && src->npk > 0) ir_set_key(n, a, src->pk_cols, src->npk);
        if (src && data_format_is_updating(src->format)) {
            n->mode = src->npk > 0 ? CL_UPSERT : CL_RETRACT;
            normalize_state(n, a, src);
        }
        break;
    }
    case PL_REF:
    case PL_FILTER:
        n->mode = in->mode;
        if (in->nkey >= 0) ir_set_key(n, a, in->key, in->nkey);
        break;
    case PL_PROJECT: {
        n->mode = in->mode;
        if (in->nkey >= 0) {
            int *k = ARENA_ARRAY(a, int, in->nkey > 0 ? in->nkey : 1);
            bool ok = true;
            for (int i = 0; i < in->nkey && ok; i++) {
                k[i] = -1;
                for (int j = 0; j < p->nexprs; j++)
                    if (p->exprs[j]->kind == EX_COLUMN && p->exprs[j]->col == in->key[i]) {
                        k[i] = j;
                        break;
                    }
                ok = k[i] >= 0;
            }
            if (ok) ir_set_key(n, a, k, in->nkey);
        }
        if (n->mode == CL_UPSERT && n->nkey < 0) n->mode = CL_RETRACT;
        break;
    }
    case PL_AGGREGATE:
        if (ir_is_window_aggregate(p)) {
            ir_analyze_stream(g, n, a, m);
            break;
        }
        n->mode = CL_UPSERT;
        set_key_range(n, a, p->ngroup);
        if (m) aggregate_state(n, a, m);
        break;
    case PL_DISTINCT:
        n->mode = in->mode == CL_INSERT_ONLY ? CL_INSERT_ONLY : CL_RETRACT;
        set_key_range(n, a, p->ncols);
        if (m) distinct_state(n, a, m);
        break;
    case PL_UNION_ALL:
        n->mode = all_insert_only(n) ? CL_INSERT_ONLY : CL_RETRACT;
        break;
    case PL_VALUES: n->mode = CL_INSERT_ONLY; break;
    case PL_SETOP:
    case PL_JOIN:
    case PL_OVER_AGG:
    case PL_TOPN:
    case PL_WINDOW_TVF:
        ir_analyze_stream(g, n, a, m);
        break;
    }
    uint64_t h = node_payload_hash(g, n);
    /* the event-time configuration of the sources upstream: passed through single-input
     * operators unchanged, so only the sources (and how inputs meet) decide it */
    n->time_fp = n->ninputs == 1 ? n->inputs[0]->time_fp : 0x54494d45ull;
    if (p->kind == PL_SOURCE && n->source >= 0) {
        const SourceDef *src = &g->project->sources[n->source];
        n->time_fp = hash_str(src->event_time_col >= 0 ? src->columns[src->event_time_col].name : "", n->time_fp);
        n->time_fp = hash_u64((uint64_t)src->watermark_delay_us, n->time_fp);
    }
    for (int i = 0; i < n->ninputs; i++) {
        h = hash_u64(n->inputs[i]->logic_fp, h);
        if (n->ninputs > 1) n->time_fp = hash_u64(n->inputs[i]->time_fp, n->time_fp);
    }
    if (ir_uses_event_time(n)) h = hash_u64(n->time_fp, h);
    ir_lineage(g, n, a);
    n->logic_fp = h;
    /* state fingerprints need logic_fp: recompute now that it is known */
    /* a source's normalize state belongs to the source, not to the model reading it:
     * the model's state_ttl does not apply to it */
    for (int i = 0; i < n->nstate; i++)
        ir_finish_state(&n->state[i], n, p->kind == PL_SOURCE ? NULL : m);
}

/* ---------- materialization contract ---------- */

/* The operator that first turns an insert-only stream into an updating one, searching
 * from the root down the updating inputs. */
static const IrNode *first_updating(const IrNode *n)
{
    if (n->plan->kind == PL_REF) return n; /* an upstream model's own operators are its own */
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i]->mode != CL_INSERT_ONLY) return first_updating(n->inputs[i]);
    return n;
}

static const char *update_reason(const IrGraph *g, const IrNode *n, Arena *a)
{
    const IrNode *c = first_updating(n);
    switch (c->plan->kind) {
    case PL_AGGREGATE:
        return c->plan->ngroup > 0 ? "its GROUP BY without a window updates its rows"
                                   : "an aggregate without GROUP BY or a window updates its single row";
    case PL_SOURCE:
        return arena_printf(a, "source '%s' is an updating source (format %s)", c->plan->name,
                            c->source >= 0 ? data_format_name(g->project->sources[c->source].format) : "?");
    case PL_REF: {
        const IrNode *up = c->ninputs > 0 ? first_updating(c->inputs[0]) : NULL;
        const char *why = up && up->plan->kind == PL_AGGREGATE && up->plan->ngroup > 0 ? " (its GROUP BY without a window)"
                        : up && up->plan->kind == PL_SOURCE ? " (it reads an updating source)" : "";
        return arena_printf(a, "its input ref('%s') updates its rows%s", c->plan->name, why);
    }
    default: {
        const char *r = ir_stream_update_reason(c, a);
        return r ? r : arena_printf(a, "operator %s emits updates", c->op_id);
    }
    }
}

static const char *key_list_text(const IrNode *n, Arena *a)
{
    StrBuf sb = STRBUF_INIT;
    for (int i = 0; i < n->nkey; i++) {
        if (i) sb_puts(&sb, ", ");
        sb_puts(&sb, n->plan->cols[n->key[i]].name);
    }
    const char *s = arena_strdup(a, sb_cstr(&sb));
    sb_free(&sb);
    return s;
}

static int column_index(const PlanNode *p, const char *name)
{
    for (int i = 0; i < p->ncols; i++)
        if (strcmp(p->cols[i].name, name) == 0) return i;
    return -1;
}

static void check_model(IrGraph *g, IrModel *im, Arena *a, DiagList *dl)
{
    const ModelDef *m = im->def;
    const IrNode *root = im->root;
    const PlanNode *p = root->plan;
    bool updating = root->mode != CL_INSERT_ONLY;

    /* presentation key: configured key, else the inferred unique key */
    if (m->nkey > 0) {
        int *k = ARENA_ARRAY(a, int, m->nkey);
        bool ok = true;
        for (int i = 0; i < m->nkey; i++) {
            k[i] = column_index(p, m->key[i]);
            if (k[i] < 0) {
                const char **names = ARENA_ARRAY(a, const char *, p->ncols > 0 ? p->ncols : 1);
                for (int j = 0; j < p->ncols; j++) names[j] = p->cols[j].name;
                diag_error(dl, m->key_pos, "key-column", diag_did_you_mean(dl, m->key[i], names, p->ncols),
                           "key column '%s' is not a column of model '%s'", m->key[i], m->name);
                ok = false;
            }
        }
        if (ok) {
            im->out_key = k;
            im->nout_key = m->nkey;
        }
    } else if (root->nkey >= 0) {
        im->out_key = root->key;
        im->nout_key = root->nkey;
    }

    switch (m->materialized) {
    case MAT_APPEND:
        if (updating)
            diag_error(dl, m->materialized_pos, "append-updating",
                       "use `materialized: upsert` with a key, or `retract`; or aggregate over a "
                       "TUMBLE/HOP window so each row is final when it is emitted",
                       "model '%s' is materialized as append, but its result updates rows: %s",
                       m->name, update_reason(g, root, a));
        break;
    case MAT_UPSERT:
    case MAT_TABLE:
        if (m->nkey == 0) {
            const char *hint = root->nkey > 0
                ? arena_printf(a, "the query's rows are unique by [%s]; add `key: [%s]`",
                               key_list_text(root, a), key_list_text(root, a))
                : "add `key: [...]` naming the columns that identify a row";
            diag_error(dl, m->materialized_pos, "missing-key", hint,
                       "model '%s' is materialized as %s, which requires a key", m->name,
                       materialization_name(m->materialized));
        } else if (im->nout_key == m->nkey && updating) {
            if (root->nkey < 0) {
                diag_error(dl, m->key_pos, "key-not-unique",
                           "use `materialized: retract`, or make the query group by the key",
                           "key [%s] of model '%s' cannot be verified: the query's changes have no "
                           "unique key", m->key[0], m->name);
            } else {
                for (int i = 0; i < root->nkey; i++) {
                    bool found = false;
                    for (int j = 0; j < im->nout_key; j++)
                        if (im->out_key[j] == root->key[i]) found = true;
                    if (!found) {
                        diag_error(dl, m->key_pos, "key-not-unique",
                                   arena_printf(a, "use `key: [%s]`", key_list_text(root, a)),
                                   "key of model '%s' does not identify its rows: rows are unique by "
                                   "[%s]", m->name, key_list_text(root, a));
                        break;
                    }
                }
            }
        }
        break;
    default: break;
    }

    const SinkDef *s = m->sink;
    if (s) {
        if (m->materialized == MAT_EPHEMERAL)
            diag_error(dl, s->pos, "ephemeral-sink", "use `materialized: view` (or another mode) to give it a sink",
                       "model '%s' is ephemeral (inlined into its consumers) and cannot have a sink", m->name);
        bool format_sink = (s->connector == SINK_FILE || s->connector == SINK_STDOUT || s->connector == SINK_KAFKA) &&
                           !s->format_invalid;
        if (format_sink && s->format == FMT_JSON && updating)
            diag_error(dl, s->pos, "sink-format",
                       "use `format: changelog-json` or `format: debezium-json`, which carry updates and deletes",
                       "sink format json carries inserts only, but model '%s' updates its rows: %s",
                       m->name, update_reason(g, root, a));
        if (format_sink && s->format == FMT_UPSERT && im->nout_key <= 0)
            diag_error(dl, s->pos, "sink-format", "configure `key: [...]` on the model",
                       "sink format upsert needs a key, and model '%s' has none", m->name);
        if (format_sink && s->format == FMT_CSV)
            diag_error(dl, s->pos, "sink-format", "use json, changelog-json or debezium-json",
                       "csv is not supported as a sink format");
    }
}

void ir_analyze(IrGraph *g, Arena *arena, DiagList *dl)
{
    for (int i = 0; i < g->nnodes; i++) analyze_node(g, g->nodes[i], arena);
    ir_check_stream(g, arena, dl);
    for (int i = 0; i < g->nmodels; i++) {
        IrModel *im = &g->models[i];
        if (!im->root) continue;
        const ModelDef *m = im->def;
        uint64_t h = hash_u64(im->root->logic_fp, 0x4d4f44454cull);
        h = hash_u64(m->materialized, h);
        for (int k = 0; k < m->nkey; k++) h = hash_str(m->key[k], h);
        h = hash_u64((uint64_t)m->state_ttl_us, h);
        im->fingerprint = h;
        ir_fp_hex(h, im->fingerprint_hex);
        uint64_t o = hash_u64(ir_output_fp(im->root), 0x4f5554ull);
        o = hash_u64(m->materialized, o);
        for (int k = 0; k < m->nkey; k++) o = hash_str(m->key[k], o);
        o = hash_u64((uint64_t)m->state_ttl_us, o);
        im->output_fp = o;
        ir_fp_hex(o, im->output_fp_hex);
        check_model(g, im, arena, dl);
    }
}
