/* IR analysis of the streaming operators: joins (incl. semi/anti, interval and window
 * joins), window table functions, window aggregates, TopN, OVER aggregates and set
 * operations — the changelog mode and unique key of their output, their state
 * descriptors and bounds, and the checks `weir check` reports about them: join state
 * that grows without bound (warning "unbounded-state") and running aggregates over
 * updating input (error).
 *
 * Modes: an INNER or SEMI join of insert-only inputs is insert_only (also interval and
 * window joins); outer and ANTI joins, and joins of updating inputs, retract. A window
 * aggregate emits each window once: insert_only, keyed by its group columns. TopN
 * retracts (ROW_NUMBER deduplication with limit 1 is upsert by its partition). An OVER
 * aggregate is insert_only. UNION / INTERSECT [ALL] of insert-only inputs only ever
 * insert; EXCEPT [ALL] retracts. */
#include "ir/ir_internal.h"

#include <string.h>

/* ---- tracing columns ----------------------------------------------------------------------- */

bool ir_is_window_aggregate(const PlanNode *p)
{
    return p->kind == PL_AGGREGATE && (p->window_start_key >= 0 || p->window_end_key >= 0);
}

int ir_window_col(const IrNode *n, int col, int64_t *size_us)
{
    const PlanNode *p = n->plan;
    if (col < 0 || col >= p->ncols) return 0;
    switch (p->kind) {
    case PL_WINDOW_TVF:
        if (col == p->ncols - 1) return 2;
        if (col == p->ncols - 2) {
            if (p->wtvf == WTVF_SESSION) return 0; /* a session's start is known only with its end */
            *size_us = p->size_us;
            return 1;
        }
        return ir_window_col(n->inputs[0], col, size_us);
    case PL_AGGREGATE: {
        const Expr *e = col < p->ngroup ? p->group[col] : NULL;
        return e && e->kind == EX_COLUMN ? ir_window_col(n->inputs[0], e->col, size_us) : 0;
    }
    case PL_PROJECT: {
        const Expr *e = p->exprs[col];
        return e->kind == EX_COLUMN ? ir_window_col(n->inputs[0], e->col, size_us) : 0;
    }
    case PL_FILTER:
    case PL_REF:
    case PL_DISTINCT: return n->ninputs ? ir_window_col(n->inputs[0], col, size_us) : 0;
    case PL_JOIN: {
        int nl = n->inputs[0]->plan->ncols;
        if (col < nl) return ir_window_col(n->inputs[0], col, size_us);
        if (p->join_type == JOIN_SEMI || p->join_type == JOIN_ANTI) return 0;
        return ir_window_col(n->inputs[1], col - nl, size_us);
    }
    case PL_TOPN:
    case PL_OVER_AGG: return col < n->inputs[0]->plan->ncols ? ir_window_col(n->inputs[0], col, size_us) : 0;
    case PL_UNION_ALL: {
        int64_t s0 = 0;
        int k = n->ninputs ? ir_window_col(n->inputs[0], col, &s0) : 0;
        for (int i = 1; i < n->ninputs && k; i++) {
            int64_t si = 0;
            if (ir_window_col(n->inputs[i], col, &si) != k || si != s0) k = 0;
        }
        if (k == 1) *size_us = s0;
        return k;
    }
    default: return 0;
    }
}

/* The watermark delay of the source whose event time column col carries, or -1. */
static int64_t time_delay(const IrGraph *g, const IrNode *n, int col)
{
    const PlanNode *p = n->plan;
    if (col < 0 || col >= p->ncols) return -1;
    switch (p->kind) {
    case PL_SOURCE: {
        const SourceDef *s = n->source >= 0 ? &g->project->sources[n->source] : NULL;
        return s && s->event_time_col == col ? s->watermark_delay_us : -1;
    }
    case PL_PROJECT: {
        const Expr *e = p->exprs[col];
        return e->kind == EX_COLUMN ? time_delay(g, n->inputs[0], e->col) : -1;
    }
    case PL_FILTER:
    case PL_REF:
    case PL_DISTINCT: return n->ninputs ? time_delay(g, n->inputs[0], col) : -1;
    case PL_WINDOW_TVF:
        return time_delay(g, n->inputs[0], col >= p->ncols - 2 ? p->time_col : col);
    case PL_AGGREGATE: {
        if (col != p->window_start_key && col != p->window_end_key) return -1;
        const IrNode *in = n->inputs[0];
        while (in->plan->kind == PL_FILTER) in = in->inputs[0];
        return in->plan->kind == PL_WINDOW_TVF ? time_delay(g, in, in->plan->ncols - 1) : -1;
    }
    case PL_JOIN: {
        int nl = n->inputs[0]->plan->ncols;
        return col < nl ? time_delay(g, n->inputs[0], col) : time_delay(g, n->inputs[1], col - nl);
    }
    case PL_TOPN:
    case PL_OVER_AGG: return col < n->inputs[0]->plan->ncols ? time_delay(g, n->inputs[0], col) : -1;
    default: return -1;
    }
}

/* ---- helpers ------------------------------------------------------------------------------ */

static const char *expr_name(Arena *a, const Expr *e, const PlanColumn *cols, int ncols)
{
    if (e->kind == EX_COLUMN && e->col >= 0 && e->col < ncols) return cols[e->col].name;
    StrBuf sb = STRBUF_INIT;
    plan_expr_sql(e, cols, ncols, &sb);
    const char *s = arena_strdup(a, sb.len ? sb_cstr(&sb) : "?");
    sb_free(&sb);
    return s;
}

static PlanColumn *expr_cols(Arena *a, Expr *const *es, int n, const PlanColumn *cols, int ncols)
{
    PlanColumn *k = ARENA_ARRAY(a, PlanColumn, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        k[i].name = expr_name(a, es[i], cols, ncols);
        k[i].type = es[i]->type;
    }
    return k;
}

static bool plain_columns(Expr *const *es, int n)
{
    for (int i = 0; i < n; i++)
        if (es[i]->kind != EX_COLUMN) return false;
    return true;
}

static StateDesc *new_states(IrNode *n, Arena *a, int count)
{
    n->state = ARENA_ARRAY(a, StateDesc, count);
    n->nstate = count;
    return n->state;
}

static void copy_key(IrNode *n, Arena *a, const IrNode *in)
{
    if (in->nkey >= 0) ir_set_key(n, a, in->key, in->nkey);
}

static const char *bound_text(Arena *a, const char *col, int64_t off)
{
    if (off == 0) return col;
    return arena_printf(a, "%s %c %s", col, off < 0 ? '-' : '+',
                        plan_duration_text(a, off < 0 ? (off == INT64_MIN ? INT64_MAX : -off) : off));
}

/* ---- joins -------------------------------------------------------------------------------- */

int ir_window_join_key(const IrNode *n, int *kind, int64_t size_us[2])
{
    const PlanNode *p = n->plan;
    if (p->kind != PL_JOIN || p->interval_join || p->null_aware) return -1;
    int best = -1, best_kind = 0;
    for (int k = 0; k < p->nkeys && best_kind < 2; k++) {
        const Expr *l = p->left_keys[k], *r = p->right_keys[k];
        if (l->kind != EX_COLUMN || r->kind != EX_COLUMN) continue;
        int64_t s0 = 0, s1 = 0;
        int a = ir_window_col(n->inputs[0], l->col, &s0), b = ir_window_col(n->inputs[1], r->col, &s1);
        if (a == 0 || a != b || a <= best_kind) continue;
        best = k;
        best_kind = a;
        size_us[0] = s0;
        size_us[1] = s1;
    }
    *kind = best_kind;
    return best;
}

/* Two windowed inputs joined on the same window column. */
static bool window_join(const IrNode *n)
{
    int kind;
    int64_t sz[2];
    return ir_window_join_key(n, &kind, sz) >= 0;
}

/* Each row of `side` matches at most one row of the other side: the other side's
 * unique key is covered by plain-column equi keys. */
static bool unique_match(const IrNode *n, int other)
{
    const PlanNode *p = n->plan;
    const IrNode *o = n->inputs[other];
    if (o->nkey <= 0) return false;
    Expr *const *ks = other == 0 ? p->left_keys : p->right_keys;
    for (int i = 0; i < o->nkey; i++) {
        bool found = false;
        for (int k = 0; k < p->nkeys && !found; k++) found = ks[k]->kind == EX_COLUMN && ks[k]->col == o->key[i];
        if (!found) return false;
    }
    return true;
}

static void join_key(IrNode *n, Arena *a)
{
    const PlanNode *p = n->plan;
    const IrNode *l = n->inputs[0], *r = n->inputs[1];
    int nl = l->plan->ncols;
    JoinType jt = p->join_type;
    if (jt == JOIN_SEMI || jt == JOIN_ANTI) {
        copy_key(n, a, l);
        return;
    }
    if ((jt == JOIN_INNER || jt == JOIN_LEFT) && l->nkey >= 0 && unique_match(n, 1)) {
        copy_key(n, a, l);
        return;
    }
    if ((jt == JOIN_INNER || jt == JOIN_RIGHT) && r->nkey >= 0 && unique_match(n, 0)) {
        int *k = ARENA_ARRAY(a, int, r->nkey > 0 ? r->nkey : 1);
        for (int i = 0; i < r->nkey; i++) k[i] = r->key[i] + nl;
        ir_set_key(n, a, k, r->nkey);
        return;
    }
    if (l->nkey >= 0 && r->nkey >= 0) {
        int *k = ARENA_ARRAY(a, int, l->nkey + r->nkey + 1);
        for (int i = 0; i < l->nkey; i++) k[i] = l->key[i];
        for (int i = 0; i < r->nkey; i++) k[l->nkey + i] = r->key[i] + nl;
        ir_set_key(n, a, k, l->nkey + r->nkey);
    }
}

static void join_side_state(StateDesc *s, IrNode *n, Arena *a, int side)
{
    const PlanNode *p = n->plan;
    const PlanNode *in = n->inputs[side]->plan;
    s->id = arena_printf(a, "%s/%s", n->op_id, side == 0 ? "left" : "right");
    s->kind = side == 0 ? "join_left" : "join_right";
    s->nkey = p->nkeys;
    s->key = expr_cols(a, side == 0 ? p->left_keys : p->right_keys, p->nkeys, in->cols, in->ncols);
    ColList v = {0};
    for (int i = 0; i < in->ncols; i++) ir_col_add(&v, a, in->cols[i].name, in->cols[i].type);
    ir_col_add(&v, a, "__count", type_make(T_INT8));
    s->values = v.cols;
    s->nvalues = v.n;
    s->bound = BOUND_UNBOUNDED;
    if (p->interval_join && p->left_time_col >= 0 && p->right_time_col >= 0) {
        /* right.t + lower <= left.t <= right.t + upper: a left row can still match while
         * the watermark (of future right rows) is below left.t - lower; a right row
         * while it is below right.t + upper */
        s->bound = BOUND_WATERMARK;
        s->bound_detail = side == 0 ? bound_text(a, in->cols[p->left_time_col].name,
                                                 p->lower_us == INT64_MIN ? INT64_MAX : -p->lower_us)
                                    : bound_text(a, in->cols[p->right_time_col].name, p->upper_us);
    } else if (window_join(n)) {
        s->bound = BOUND_WATERMARK;
        s->bound_detail = "window_end";
    }
}

/* A lookup join's one state: the table side's rows by its keys (the stream side keeps
 * none: a stream row joins the table as it is when the row arrives, then is done). */
static void lookup_state(StateDesc *s, IrNode *n, Arena *a)
{
    join_side_state(s, n, a, 1);
    s->id = arena_printf(a, "%s/table", n->op_id);
    s->kind = "lookup_table";
    s->bound = BOUND_UNBOUNDED;
    s->bound_detail = "the table's rows; the stream side keeps none";
}

static void analyze_join(IrNode *n, Arena *a, const ModelDef *m)
{
    const PlanNode *p = n->plan;
    if (n->lookup) {
        /* the table side emits nothing: an insert-only stream yields insert-only output,
         * a LEFT lookup's NULL-padded rows included (no later match retracts them) */
        n->mode = n->inputs[0]->mode == CL_INSERT_ONLY ? CL_INSERT_ONLY : CL_RETRACT;
        join_key(n, a);
        if (m) lookup_state(new_states(n, a, 1), n, a);
        return;
    }
    bool ins = n->inputs[0]->mode == CL_INSERT_ONLY && n->inputs[1]->mode == CL_INSERT_ONLY;
    n->mode = ins && (p->join_type == JOIN_INNER || p->join_type == JOIN_SEMI) ? CL_INSERT_ONLY : CL_RETRACT;
    join_key(n, a);
    if (!m) return;
    StateDesc *s = new_states(n, a, 2);
    join_side_state(&s[0], n, a, 0);
    join_side_state(&s[1], n, a, 1);
}

/* ---- windows ------------------------------------------------------------------------------ */

static void analyze_window_tvf(IrNode *n, Arena *a)
{
    const IrNode *in = n->inputs[0];
    n->mode = in->mode;
    if (in->nkey < 0) return;
    if (n->plan->wtvf != WTVF_HOP) {
        copy_key(n, a, in);
        return;
    }
    /* a row is in several hopping windows */
    int *k = ARENA_ARRAY(a, int, in->nkey + 1);
    memcpy(k, in->key, sizeof(int) * (size_t)in->nkey);
    k[in->nkey] = n->plan->ncols - 2;
    ir_set_key(n, a, k, in->nkey + 1);
}

static void analyze_window_aggregate(const IrGraph *g, IrNode *n, Arena *a, const ModelDef *m)
{
    const PlanNode *p = n->plan;
    n->mode = CL_INSERT_ONLY;
    int *k = ARENA_ARRAY(a, int, p->ngroup + 1);
    for (int i = 0; i < p->ngroup; i++) k[i] = i;
    ir_set_key(n, a, k, p->ngroup);
    if (!m) return;
    StateDesc *s = new_states(n, a, 1);
    s->id = n->op_id;
    s->kind = "window_aggregate";
    s->nkey = p->ngroup;
    s->key = ARENA_ARRAY(a, PlanColumn, p->ngroup + 1);
    int nk = 0;
    if (p->window_start_key >= 0) s->key[nk++] = p->cols[p->window_start_key];
    if (p->window_end_key >= 0) s->key[nk++] = p->cols[p->window_end_key];
    for (int i = 0; i < p->ngroup; i++)
        if (i != p->window_start_key && i != p->window_end_key) s->key[nk++] = p->cols[i];
    ir_group_state_values(s, a, p, n->inputs[0]->mode == CL_INSERT_ONLY);
    s->bound = BOUND_WATERMARK;
    int wcol = p->window_end_key >= 0 ? p->window_end_key : p->window_start_key;
    int64_t delay = time_delay(g, n, wcol);
    const char *end = p->window_end_key >= 0 ? "window_end" : "window_start + size";
    s->bound_detail = delay > 0 ? arena_printf(a, "%s + %s", end, plan_duration_text(a, delay)) : end;
}

/* ---- TopN and OVER aggregates -------------------------------------------------------------- */

static void analyze_topn(IrNode *n, Arena *a, const ModelDef *m)
{
    const PlanNode *p = n->plan;
    const IrNode *in = n->inputs[0];
    const PlanNode *ip = in->plan;
    n->mode = CL_RETRACT;
    bool plain = plain_columns(p->partition, p->npartition);
    int *k = ARENA_ARRAY(a, int, p->npartition + 2);
    for (int i = 0; i < p->npartition && plain; i++) k[i] = p->partition[i]->col;
    if (!p->emit_rank && p->rank_kind == 0 && p->limit == 1 && plain) {
        /* deduplication: the latest kept row per partition */
        n->mode = CL_UPSERT;
        ir_set_key(n, a, k, p->npartition);
    } else if (p->emit_rank && p->rank_kind == 0 && plain) {
        k[p->npartition] = p->ncols - 1;
        ir_set_key(n, a, k, p->npartition + 1);
    } else {
        copy_key(n, a, in);
    }
    if (!m) return;
    StateDesc *s = new_states(n, a, 1);
    s->id = n->op_id;
    s->kind = "topn";
    s->nkey = p->npartition;
    s->key = expr_cols(a, p->partition, p->npartition, ip->cols, ip->ncols);
    ColList v = {0};
    for (int i = 0; i < ip->ncols; i++) ir_col_add(&v, a, ip->cols[i].name, ip->cols[i].type);
    ir_col_add(&v, a, "__count", type_make(T_INT8));
    s->values = v.cols;
    s->nvalues = v.n;
    s->bound = BOUND_UNBOUNDED;
}

static void analyze_over_agg(IrNode *n, Arena *a, const ModelDef *m)
{
    const PlanNode *p = n->plan;
    const IrNode *in = n->inputs[0];
    const PlanNode *ip = in->plan;
    n->mode = CL_INSERT_ONLY;
    copy_key(n, a, in);
    if (!m) return;
    StateDesc *s = new_states(n, a, 1);
    s->id = n->op_id;
    s->kind = "over_aggregate";
    s->nkey = p->npartition;
    s->key = expr_cols(a, p->partition, p->npartition, ip->cols, ip->ncols);
    ColList v = {0};
    /* rows wait for the watermark to pass their time; accumulators per partition */
    for (int i = 0; i < ip->ncols; i++)
        ir_col_add(&v, a, arena_printf(a, "pending.%s", ip->cols[i].name), ip->cols[i].type);
    /* a bounded frame retracts the rows that leave it (op_over_agg.c) */
    ir_agg_values(&v, a, p->aggs, p->naggs, ip->cols, ip->ncols, p->frame_offset < 0);
    /* rows a partition keeps: its frame's (bounded frames), the last rows lag reads */
    int64_t lag = -1;
    bool first = false;
    for (int i = 0; i < p->naggs; i++) {
        if (p->aggs[i].kind == AGG_LAG && p->aggs[i].offset > lag) lag = p->aggs[i].offset;
        if (p->aggs[i].kind == AGG_FIRST_VALUE && p->frame_offset < 0) first = true;
    }
    if (p->frame_offset >= 0 || lag >= 0)
        for (int i = 0; i < ip->ncols; i++)
            ir_col_add(&v, a, arena_printf(a, "kept.%s", ip->cols[i].name), ip->cols[i].type);
    if (first)
        for (int i = 0; i < ip->ncols; i++)
            ir_col_add(&v, a, arena_printf(a, "first.%s", ip->cols[i].name), ip->cols[i].type);
    s->values = v.cols;
    s->value_fp_names = v.fp_names;
    s->nvalues = v.n;
    s->bound = BOUND_UNBOUNDED;
    if (p->norder > 0) {
        const char *t = expr_name(a, p->order[0].expr, ip->cols, ip->ncols);
        const char *kept = "";
        if (p->frame_offset >= 0 && p->frame_rows)
            kept = arena_printf(a, "; the last %lld rows per partition", (long long)(p->frame_offset + 1 > lag + 1 ? p->frame_offset + 1 : lag + 1));
        else if (p->frame_offset >= 0)
            kept = arena_printf(a, "; the rows of the last %s per partition%s", plan_duration_text(a, p->frame_offset),
                                lag >= 0 ? arena_printf(a, " (at least %lld)", (long long)(lag + 1)) : "");
        else if (lag >= 0)
            kept = arena_printf(a, "; the last %lld rows per partition", (long long)(lag + 1));
        s->bound_detail = arena_printf(a, "pending rows until the watermark passes %s; accumulators per partition%s", t,
                                       kept);
    }
}

/* ---- set operations ---------------------------------------------------------------------- */

static void analyze_setop(IrNode *n, Arena *a, const ModelDef *m)
{
    const PlanNode *p = n->plan;
    bool ins = n->inputs[0]->mode == CL_INSERT_ONLY && n->inputs[1]->mode == CL_INSERT_ONLY;
    n->mode = ins && p->setop != SETOP_EXCEPT ? CL_INSERT_ONLY : CL_RETRACT;
    if (!p->all) {
        int *k = ARENA_ARRAY(a, int, p->ncols + 1);
        for (int i = 0; i < p->ncols; i++) k[i] = i;
        ir_set_key(n, a, k, p->ncols);
    }
    if (!m) return;
    StateDesc *s = new_states(n, a, 1);
    s->id = n->op_id;
    s->kind = "setop";
    s->nkey = p->ncols;
    s->key = p->cols;
    s->nvalues = 2;
    s->values = ARENA_ARRAY(a, PlanColumn, 2);
    s->values[0].name = "__left_count";
    s->values[0].type = type_make(T_INT8);
    s->values[1].name = "__right_count";
    s->values[1].type = type_make(T_INT8);
    s->bound = BOUND_UNBOUNDED;
}

void ir_analyze_stream(const IrGraph *g, IrNode *n, Arena *a, const ModelDef *m)
{
    switch (n->plan->kind) {
    case PL_JOIN: analyze_join(n, a, m); break;
    case PL_WINDOW_TVF: analyze_window_tvf(n, a); break;
    case PL_AGGREGATE: analyze_window_aggregate(g, n, a, m); break;
    case PL_TOPN: analyze_topn(n, a, m); break;
    case PL_OVER_AGG: analyze_over_agg(n, a, m); break;
    case PL_SETOP: analyze_setop(n, a, m); break;
    default: break;
    }
    for (int i = 0; i < n->nstate; i++) ir_finish_state(&n->state[i], n, m);
}

/* ---- checks ------------------------------------------------------------------------------- */

static const char *input_text(const IrNode *in, Arena *a, const char *side)
{
    const IrNode *x = in;
    while (x->plan->kind == PL_FILTER || x->plan->kind == PL_PROJECT) x = x->inputs[0];
    if (x->plan->kind == PL_SOURCE) return arena_printf(a, "the %s input (source '%s')", side, x->plan->name);
    if (x->plan->kind == PL_REF) return arena_printf(a, "the %s input (model '%s')", side, x->plan->name);
    return arena_printf(a, "the %s input", side);
}

static const char *join_what(const PlanNode *p)
{
    switch (p->join_type) {
    case JOIN_SEMI: return "IN / EXISTS";
    case JOIN_ANTI: return p->null_aware ? "NOT IN" : "NOT EXISTS";
    default: return p->nkeys ? "join" : "join without an equality condition";
    }
}

/* The first source upstream of n (within its model's DAG) without an event_time, or
 * NULL when every one has it. */
static const SourceDef *source_without_event_time(const IrGraph *g, const IrNode *n)
{
    if (n->plan->kind == PL_SOURCE) {
        const SourceDef *s = n->source >= 0 ? &g->project->sources[n->source] : NULL;
        return s && s->event_time_col < 0 ? s : NULL;
    }
    for (int i = 0; i < n->ninputs; i++) {
        const SourceDef *s = source_without_event_time(g, n->inputs[i]);
        if (s) return s;
    }
    return NULL;
}

/* Mark the sources upstream of n (within its model's DAG) in seen[]; returns the first
 * two found (second NULL when there is only one). */
static void sources_upstream(const IrGraph *g, const IrNode *n, bool *seen, const SourceDef **first,
                             const SourceDef **second)
{
    if (n->plan->kind == PL_SOURCE) {
        if (n->source < 0 || seen[n->source]) return;
        seen[n->source] = true;
        const SourceDef *s = &g->project->sources[n->source];
        if (!*first) *first = s;
        else if (!*second) *second = s;
        return;
    }
    for (int i = 0; i < n->ninputs; i++) sources_upstream(g, n->inputs[i], seen, first, second);
}

/* A keyed TTL state (GROUP BY, DISTINCT, TopN, a set operation) whose input reads several sources judges
 * each row by its own source's watermark: whether an entry that a row of one source
 * last updated has expired for a row of another depends on which of the two came first,
 * so the result can vary with the batching (docs/semantics.md, State TTL). */
static void check_state_ttl_sources(const IrGraph *g, const IrNode *n, const ModelDef *m, Arena *a,
                                    DiagList *dl)
{
    PlanKind k = n->plan->kind;
    if (k != PL_AGGREGATE && k != PL_DISTINCT && k != PL_TOPN && k != PL_SETOP) return;
    int nsrc = g->project->nsources;
    bool *seen = ARENA_ARRAY(a, bool, nsrc + 1);
    memset(seen, 0, sizeof(bool) * (size_t)(nsrc + 1));
    const SourceDef *first = NULL, *second = NULL;
    for (int i = 0; i < n->ninputs; i++) sources_upstream(g, n->inputs[i], seen, &first, &second);
    if (!second) return;
    SrcPos pos = project_sql_pos(m, n->plan->loc < 0 ? 0 : n->plan->loc);
    diag_warning(dl, pos, "state-ttl-several-sources",
                 "aggregate each source on its own (one TTL state per source) and combine the results, or "
                 "key the state so that every key's rows come from one source",
                 "with state_ttl, a key of this %s can receive rows of sources %s and %s: each row is judged by "
                 "its own source's watermark, so whether a key expires between rows of the two depends on how "
                 "the sources interleave, and the result can differ with --batch-size",
                 k == PL_AGGREGATE ? "GROUP BY" : k == PL_DISTINCT ? "DISTINCT" : k == PL_SETOP ? "set operation"
                                                                                     : "ROW_NUMBER filter",
                 first->name, second->name);
}

/* A state_ttl expires keys by event time: every state it bounds needs watermarks. */
static void check_state_ttl(const IrGraph *g, Arena *a, DiagList *dl)
{
    bool *done = ARENA_ARRAY(a, bool, g->project->nmodels + 1);
    memset(done, 0, sizeof(bool) * (size_t)(g->project->nmodels + 1));
    for (int i = 0; i < g->nnodes; i++) {
        const IrNode *n = g->nodes[i];
        if (n->model < 0 || done[n->model]) continue;
        const ModelDef *m = &g->project->models[n->model];
        bool ttl = false;
        for (int k = 0; k < n->nstate; k++) ttl = ttl || n->state[k].bound == BOUND_TTL;
        if (!ttl) continue;
        const SourceDef *s = source_without_event_time(g, n);
        if (!s) {
            check_state_ttl_sources(g, n, m, a, dl);
            continue;
        }
        done[n->model] = true;
        diag_error(dl, m->state_ttl_pos, "state-ttl-without-event-time",
                   "declare `event_time` (and `watermark_delay`) on the source, or remove state_ttl",
                   "state_ttl expires idle keys by event time, but model %s reads source %s, which has no "
                   "event_time: its watermark never advances, so nothing would ever expire",
                   m->name, s->name);
    }
}

/* Whether n's rows are constants (computed from VALUES alone): a fixed set that never
 * grows, however long the model runs. */
static bool constant_rows(const IrNode *n)
{
    if (n->plan->kind == PL_VALUES) return true;
    if (n->plan->kind == PL_SOURCE || n->ninputs == 0) return false;
    for (int i = 0; i < n->ninputs; i++)
        if (!constant_rows(n->inputs[i])) return false;
    return true;
}

/* What a lookup join (only the left input triggers) must be: an inner or LEFT
 * equi-join without a time bound, over an insert-only stream. Its state is the table
 * side's rows, so no unbounded-state warning is given for the stream side. */
static void check_lookup(const IrNode *n, Arena *a, DiagList *dl, SrcPos pos)
{
    const PlanNode *p = n->plan;
    const char *hint = "a lookup (`clickhouse: {lookup: true}`) joins a stream (left) with a slowly changing table "
                       "(right): `FROM stream AS s [LEFT] JOIN table AS t ON s.k = t.k`";
    if (p->join_type != JOIN_INNER && p->join_type != JOIN_LEFT) {
        if (p->join_type == JOIN_SEMI || p->join_type == JOIN_ANTI)
            diag_error(dl, pos, "lookup-join", hint, "a lookup join is an inner join or a LEFT JOIN, not %s", join_what(p));
        else
            diag_error(dl, pos, "lookup-join", hint, "a lookup join is an inner join or a LEFT JOIN, not a %s join",
                       join_type_name(p->join_type));
        return;
    }
    if (p->nkeys == 0) {
        diag_error(dl, pos, "lookup-join", hint, "a lookup join needs an equality between the stream's and the table's keys");
        return;
    }
    if (p->interval_join || window_join(n)) {
        diag_error(dl, pos, "lookup-join", hint,
                   "a lookup join has no time bound: a stream row joins the table as it is when the row arrives");
        return;
    }
    if (n->inputs[0]->mode != CL_INSERT_ONLY)
        diag_error(dl, pos, "lookup-join",
                   "join the updates with an ordinary join (both sides trigger), or look up from an insert-only stream",
                   "the stream side of a lookup join must be insert-only, but %s is %s: a lookup keeps no state for "
                   "the stream, so a retraction could not take back exactly what its row joined when it arrived",
                   input_text(n->inputs[0], a, "left"), ir_mode_text(n->inputs[0], a));
}

void ir_check_stream(const IrGraph *g, Arena *a, DiagList *dl)
{
    check_state_ttl(g, a, dl);
    for (int i = 0; i < g->nnodes; i++) {
        const IrNode *n = g->nodes[i];
        if (n->model < 0) continue;
        const ModelDef *m = &g->project->models[n->model];
        const PlanNode *p = n->plan;
        SrcPos pos = project_sql_pos(m, p->loc < 0 ? 0 : p->loc);
        if (p->kind == PL_OVER_AGG && n->inputs[0]->mode != CL_INSERT_ONLY) {
            diag_error(dl, pos, "over-updating-input",
                       "compute the running aggregate over an insert-only input (e.g. the source itself) and join "
                       "or filter afterwards",
                       "a running aggregate (... OVER (PARTITION BY ... ORDER BY ...)) needs an insert-only input, "
                       "but its input is %s", ir_mode_text(n->inputs[0], a));
            continue;
        }
        if (p->kind == PL_JOIN && n->lookup) {
            check_lookup(n, a, dl, pos);
            continue;
        }
        if (p->kind != PL_JOIN || m->state_ttl_us > 0) continue;
        if (p->interval_join || window_join(n)) continue;
        bool l = n->inputs[0]->mode == CL_INSERT_ONLY && !constant_rows(n->inputs[0]),
             r = n->inputs[1]->mode == CL_INSERT_ONLY && !constant_rows(n->inputs[1]);
        if (!l && !r) continue;
        const char *grows = l && r ? "every row of both inputs"
                            : l    ? arena_printf(a, "every row of %s", input_text(n->inputs[0], a, "left"))
                                   : arena_printf(a, "every row of %s", input_text(n->inputs[1], a, "right"));
        diag_warning(dl, pos, "unbounded-state",
                     "add a time bound such as `a.t BETWEEN b.t - INTERVAL '1' HOUR AND b.t`, join windowed inputs, "
                     "or set state_ttl on the model",
                     "the state of this %s grows without bound: %s is kept forever", join_what(p), grows);
    }
}

/* The node a chain of filters and projections above `in` starts from. */
static const IrNode *below_row_ops(const IrNode *in)
{
    while (in->plan->kind == PL_FILTER || in->plan->kind == PL_PROJECT) in = in->inputs[0];
    return in;
}

bool ir_source_is_lookup_table(const IrGraph *g, int src)
{
    bool feeds_lookup = false;
    for (int i = 0; i < g->nnodes; i++) {
        const IrNode *n = g->nodes[i];
        /* chains of filters and projections are judged by what reads their top */
        if (n->plan->kind == PL_FILTER || n->plan->kind == PL_PROJECT) continue;
        for (int k = 0; k < n->ninputs; k++) {
            const IrNode *in = below_row_ops(n->inputs[k]);
            if (in->plan->kind != PL_SOURCE || in->source != src) continue;
            if (!(n->plan->kind == PL_JOIN && n->lookup && k == 1)) return false;
            feeds_lookup = true;
        }
    }
    /* a model whose output is the source's rows reads it as a stream */
    for (int m = 0; m < g->nmodels; m++) {
        const IrNode *r = g->models[m].root ? below_row_ops(g->models[m].root) : NULL;
        if (r && r->plan->kind == PL_SOURCE && r->source == src) return false;
    }
    return feeds_lookup;
}

const char *ir_stream_update_reason(const IrNode *n, Arena *a)
{
    const PlanNode *p = n->plan;
    switch (p->kind) {
    case PL_JOIN:
        switch (p->join_type) {
        case JOIN_LEFT: return "a LEFT JOIN retracts its NULL-padded rows when a match arrives";
        case JOIN_RIGHT: return "a RIGHT JOIN retracts its NULL-padded rows when a match arrives";
        case JOIN_FULL: return "a FULL JOIN retracts its NULL-padded rows when a match arrives";
        case JOIN_ANTI:
            return p->null_aware ? "NOT IN (an anti join) retracts a row when a matching row arrives"
                                 : "NOT EXISTS (an anti join) retracts a row when a matching row arrives";
        default: return "this join emits retractions";
        }
    case PL_TOPN: {
        static const char *const names[] = {"ROW_NUMBER()", "RANK()", "DENSE_RANK()"};
        const char *f = names[p->rank_kind >= 0 && p->rank_kind < 3 ? p->rank_kind : 0];
        if (p->npartition == 0 && !p->emit_rank) return "ORDER BY ... LIMIT replaces rows as better ones arrive";
        if (!p->emit_rank && p->limit == 1)
            return "deduplication (ROW_NUMBER() = 1 or DISTINCT ON) replaces the row it keeps";
        return arena_printf(a, "%s TopN updates its ranks", f);
    }
    case PL_SETOP:
        return p->setop == SETOP_EXCEPT ? "EXCEPT retracts rows that appear in its right input"
                                        : "a set operation over updating input retracts rows";
    default: return NULL;
    }
}
