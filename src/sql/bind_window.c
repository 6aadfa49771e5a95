/* Event-time windows: the table functions TUMBLE(rel, time_col, size),
 * HOP(rel, time_col, slide, size) and SESSION(rel, time_col, gap) in FROM (DESIGN.md
 * section 2), which become PL_WINDOW_TVF nodes adding window_start and window_end;
 * which columns carry event time (a source's event_time, traced through projections,
 * filters, joins, unions and ref(); a window's start and end); and window aggregates:
 * a GROUP BY over a window table function (directly or through filters) that groups
 * by window_start and/or window_end emits each window once, when the watermark passes
 * its end. Flink's DESCRIPTOR(col) spelling of the time column is accepted; its
 * `TABLE rel` spelling is not valid PostgreSQL syntax, so the relation is written bare. */
#include "sql/bind_internal.h"

#include <string.h>

/* ---- event time ------------------------------------------------------------------------ */

bool bind_event_time(Binder *b, const PlanNode *n, int col)
{
    if (!n || col < 0 || col >= n->ncols) return false;
    switch (n->kind) {
    case PL_SOURCE: {
        const SourceDef *sd = project_find_source(b->project, n->name);
        return sd && sd->event_time_col == col;
    }
    case PL_REF: {
        int idx = bound_model_index(b->bp, n->name);
        const PlanNode *root = idx >= 0 ? b->bp->models[idx].root : NULL;
        return root && bind_event_time(b, root, col);
    }
    case PL_FILTER:
    case PL_DISTINCT: return bind_event_time(b, n->inputs[0], col);
    case PL_PROJECT: {
        const Expr *e = col < n->nexprs ? n->exprs[col] : NULL;
        return e && e->kind == EX_COLUMN && bind_event_time(b, n->inputs[0], e->col);
    }
    case PL_WINDOW_TVF: return col >= n->ncols - 2 || bind_event_time(b, n->inputs[0], col);
    case PL_AGGREGATE: return col == n->window_start_key || col == n->window_end_key;
    case PL_JOIN: {
        int nl = n->inputs[0]->ncols;
        return col < nl ? bind_event_time(b, n->inputs[0], col) : bind_event_time(b, n->inputs[1], col - nl);
    }
    case PL_UNION_ALL:
        for (int i = 0; i < n->ninputs; i++)
            if (!bind_event_time(b, n->inputs[i], col)) return false;
        return n->ninputs > 0;
    case PL_TOPN:
    case PL_OVER_AGG: return col < n->inputs[0]->ncols && bind_event_time(b, n->inputs[0], col);
    case PL_SETOP:
    case PL_VALUES: return false;
    }
    return false;
}

/* The source a column comes from (for hints), or NULL. */
static const char *column_source(Binder *b, const PlanNode *n, int col)
{
    if (!n || col < 0 || col >= n->ncols) return NULL;
    switch (n->kind) {
    case PL_SOURCE: return n->name;
    case PL_FILTER:
    case PL_DISTINCT: return column_source(b, n->inputs[0], col);
    case PL_PROJECT: {
        const Expr *e = col < n->nexprs ? n->exprs[col] : NULL;
        return e && e->kind == EX_COLUMN ? column_source(b, n->inputs[0], e->col) : NULL;
    }
    case PL_REF: {
        int idx = bound_model_index(b->bp, n->name);
        return idx >= 0 ? column_source(b, b->bp->models[idx].root, col) : NULL;
    }
    case PL_JOIN: {
        int nl = n->inputs[0]->ncols;
        return col < nl ? column_source(b, n->inputs[0], col) : column_source(b, n->inputs[1], col - nl);
    }
    case PL_WINDOW_TVF:
    case PL_TOPN:
    case PL_OVER_AGG: return col < n->inputs[0]->ncols ? column_source(b, n->inputs[0], col) : NULL;
    default: return NULL;
    }
}

/* ---- TUMBLE / HOP / SESSION ------------------------------------------------------------- */

static const char *upper_name(Binder *b, const char *s)
{
    char *u = arena_strdup(b->arena, s);
    for (char *p = u; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
    return u;
}

/* A size argument: a positive fixed-length interval constant; -1 after reporting. */
static int64_t size_arg(Binder *b, Ast *a, const char *fn, const char *what)
{
    ExprCtx cx = {b, NULL, AGGS_FORBIDDEN, "window size", NULL, NULL, 0, false, NULL, NULL, NULL, NULL};
    Expr *e = bind_expr(&cx, a);
    if (!e) return -1;
    int loc = bind_ast_start(a);
    if (bind_is_unknown_literal(e)) e = bind_coerce(b, e, type_make(T_INTERVAL));
    if (!e) return -1;
    if (e->kind != EX_CONST || e->type.id != T_INTERVAL || e->cval.isnull) {
        bind_error(b, loc, "invalid-window", "e.g. INTERVAL '10' SECOND or INTERVAL '5 minutes'",
                   "the %s of %s must be an interval constant", what, fn);
        return -1;
    }
    if (e->cval.iv.months != 0) {
        bind_error(b, loc, "invalid-window", "use days or smaller units, e.g. INTERVAL '30' DAY",
                   "%s windows cannot have a %s containing months or years", fn, what);
        return -1;
    }
    int64_t us;
    if (!bind_interval_us(e, &us)) {
        bind_error(b, loc, "invalid-window", NULL, "the %s of %s is out of range", what, fn);
        return -1;
    }
    if (us <= 0) {
        bind_error(b, loc, "invalid-window", NULL, "the %s of %s must be greater than zero", what, fn);
        return -1;
    }
    return us;
}

/* The time column argument: a column name, or DESCRIPTOR(name). -1 after reporting. */
static int time_arg(Binder *b, Ast *a, const PlanNode *rel, const char *fn)
{
    Ast *ref = a;
    if (a->kind == AST_FUNC_CALL && a->name && strcmp(a->name, "descriptor") == 0 && a->nnames <= 1 &&
        a->args.n == 1)
        ref = a->args.items[0];
    if (ref->kind != AST_COLUMN_REF || ref->star || ref->nnames != 1) {
        bind_error(b, bind_ast_start(a), "invalid-window", "e.g. TUMBLE(source('commerce.orders'), created_at, INTERVAL '1' MINUTE)",
                   "the second argument of %s must name a time column of its relation", fn);
        return -1;
    }
    const char *name = ref->names[0];
    int col = -1, n = 0;
    for (int i = 0; i < rel->ncols; i++)
        if (strcmp(rel->cols[i].name, name) == 0) {
            if (col < 0) col = i;
            n++;
        }
    if (n > 1) {
        bind_error(b, ref->loc, "ambiguous-column", NULL, "column reference \"%s\" is ambiguous", name);
        return -1;
    }
    if (col < 0) {
        const char **cands = ARENA_ARRAY(b->arena, const char *, rel->ncols + 1);
        for (int i = 0; i < rel->ncols; i++) cands[i] = rel->cols[i].name;
        bind_error(b, ref->loc, "unknown-column", bind_did_you_mean(b, name, cands, rel->ncols),
                   "column \"%s\" does not exist", name);
        return -1;
    }
    Type t = rel->cols[col].type;
    if (t.id != T_TIMESTAMP && t.id != T_TIMESTAMPTZ) {
        bind_error(b, ref->loc, "invalid-window", "windows are computed over an event-time column of type timestamp",
                   "the time column of %s must be of type timestamp or timestamp with time zone, but \"%s\" is of type %s",
                   fn, name, bind_type_display(b, t));
        return -1;
    }
    if (!bind_event_time(b, rel, col)) {
        const char *src = column_source(b, rel, col);
        const SourceDef *sd = src ? project_find_source(b->project, src) : NULL;
        if (sd && sd->event_time_invalid) { /* the source's event_time is wrong: reported there */
            b->failed = true;
            return -1;
        }
        const char *hint =
            src ? arena_printf(b->arena, "set `event_time: %s` on source '%s', so its watermark closes the windows", name,
                               src)
                : "window over a source's event_time column (or a window's window_start/window_end)";
        bind_error(b, ref->loc, "invalid-window", hint,
                   "column \"%s\" is not an event-time column: windows over it would never close", name);
        return -1;
    }
    return col;
}

PlanNode *bind_window_tvf(Binder *b, Ast *item, const CteEnv *env, const char **alias)
{
    Ast *fc = item->func ? item->func : item;
    const char *name = fc->name ? fc->name : "";
    const char *fn = upper_name(b, name);
    WindowTvfKind kind = strcmp(name, "tumble") == 0 ? WTVF_TUMBLE : strcmp(name, "hop") == 0 ? WTVF_HOP : WTVF_SESSION;
    int want = kind == WTVF_HOP ? 4 : 3;
    static const char *const usage[] = {
        "TUMBLE(relation, time_column, size), e.g. TUMBLE(source('commerce.orders'), created_at, INTERVAL '1' MINUTE)",
        "HOP(relation, time_column, slide, size), e.g. HOP(source('commerce.orders'), created_at, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)",
        "SESSION(relation, time_column, gap), e.g. SESSION(source('commerce.orders'), created_at, INTERVAL '30' MINUTE)",
    };
    if (item->lateral) {
        bind_unsupported(b, item->loc, "LATERAL");
        return NULL;
    }
    if (fc->agg_star || fc->agg_distinct || fc->agg_filter || fc->over || fc->agg_order.n || fc->func_variadic) {
        bind_error(b, fc->loc, "invalid-window", usage[kind], "invalid call of the window table function %s", fn);
        return NULL;
    }
    if (kind == WTVF_TUMBLE && fc->args.n == 4) {
        bind_unsupported(b, bind_ast_start(fc->args.items[3]), "TUMBLE with an offset");
        return NULL;
    }
    if (fc->args.n != want) {
        bind_error(b, fc->loc, "invalid-window", usage[kind], "%s takes %d arguments, not %d", fn, want, fc->args.n);
        return NULL;
    }
    const char *relalias = NULL;
    PlanNode *rel = bind_relation_arg(b, fc->args.items[0], env, &relalias);
    if (!rel) return NULL;
    int col = time_arg(b, fc->args.items[1], rel, fn);
    int64_t a1 = size_arg(b, fc->args.items[2], fn, kind == WTVF_TUMBLE ? "size" : kind == WTVF_HOP ? "slide" : "gap");
    int64_t a2 = kind == WTVF_HOP ? size_arg(b, fc->args.items[3], fn, "size") : 0;
    if (col < 0 || a1 < 0 || a2 < 0) return NULL;
    if (kind == WTVF_HOP && a2 % a1 != 0) {
        bind_error(b, bind_ast_start(fc->args.items[3]), "invalid-window",
                   "choose a size that is a whole number of slides, e.g. slide 1 minute and size 5 minutes",
                   "the size of HOP (%s) must be a multiple of its slide (%s)", plan_duration_text(b->arena, a2),
                   plan_duration_text(b->arena, a1));
        return NULL;
    }
    for (int i = 0; i < rel->ncols; i++)
        if (strcmp(rel->cols[i].name, "window_start") == 0 || strcmp(rel->cols[i].name, "window_end") == 0) {
            bind_error(b, bind_ast_start(fc->args.items[0]), "invalid-window",
                       "rename the column in a WITH query before windowing",
                       "the relation of %s already has a column named \"%s\"", fn, rel->cols[i].name);
            return NULL;
        }
    PlanNode *n = bind_unary_node(b, PL_WINDOW_TVF, rel, fc->loc);
    n->wtvf = kind;
    n->time_col = col;
    if (kind == WTVF_SESSION) {
        n->gap_us = a1;
    } else if (kind == WTVF_HOP) {
        n->slide_us = a1;
        n->size_us = a2;
    } else {
        n->size_us = n->slide_us = a1;
    }
    n->ncols = rel->ncols + 2;
    n->cols = ARENA_ARRAY(b->arena, PlanColumn, n->ncols);
    memcpy(n->cols, rel->cols, sizeof(PlanColumn) * (size_t)rel->ncols);
    n->cols[rel->ncols].name = "window_start";
    n->cols[rel->ncols].type = rel->cols[col].type;
    n->cols[rel->ncols + 1].name = "window_end";
    n->cols[rel->ncols + 1].type = rel->cols[col].type;
    *alias = relalias;
    return n;
}

/* ---- window aggregates ------------------------------------------------------------------ */

bool bind_window_aggregate(Binder *b, PlanNode *agg, int loc)
{
    const PlanNode *in = agg->inputs[0];
    while (in->kind == PL_FILTER) in = in->inputs[0];
    if (in->kind != PL_WINDOW_TVF) return true;
    int ws = in->ncols - 2, we = in->ncols - 1;
    for (int i = 0; i < agg->ngroup; i++) {
        const Expr *g = agg->group[i];
        if (g->kind != EX_COLUMN) continue;
        if (g->col == ws && agg->window_start_key < 0) agg->window_start_key = i;
        if (g->col == we && agg->window_end_key < 0) agg->window_end_key = i;
    }
    if (in->wtvf == WTVF_SESSION && (agg->window_start_key >= 0) != (agg->window_end_key >= 0)) {
        bind_error(b, loc, "invalid-window", "add both window columns to GROUP BY",
                   "a SESSION window aggregate must group by both window_start and window_end");
        return false;
    }
    return true;
}
