/* OVER windows and top-N: the streaming forms of window functions, DISTINCT ON and
 * ORDER BY ... LIMIT.
 *
 *  - ROW_NUMBER() / RANK() / DENSE_RANK() OVER (PARTITION BY p ORDER BY o) in a select
 *    list becomes a PL_TOPN over the SELECT's input whose output is input ++ the rank
 *    column; it starts without a limit. After the whole model is bound,
 *    bind_topn_finish folds a filter on the rank column above it (`rn <= N`, `rn < N`,
 *    `rn = 1`, also when the filter was pushed below a join) into the limit, reports a
 *    rank that is never filtered, and drops the rank column (emit_rank = false) when
 *    nothing above reads it.
 *  - SUM/COUNT/AVG/MIN/MAX(x), lag(x [, k [, default]]), first_value(x) and
 *    last_value(x) OVER (PARTITION BY k ORDER BY t [frame]), t an event-time column, with
 *    the default frame, ROWS/RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, ROWS
 *    BETWEEN n PRECEDING AND CURRENT ROW or RANGE BETWEEN INTERVAL '...' PRECEDING AND
 *    CURRENT ROW, becomes a PL_OVER_AGG: input ++ one column per call.
 *  - DISTINCT ON (e) ... ORDER BY e, rest: a TopN partitioned by e, ordered by rest,
 *    limit 1; ORDER BY ... LIMIT N: a TopN without partition over the result.
 * Other window functions and frames are "not supported yet". */
#include "sql/bind_internal.h"

#include <stdlib.h>
#include <string.h>

/* PostgreSQL's frame option bits (nodes/parsenodes.h). */
enum {
    FO_NONDEFAULT = 0x1, FO_RANGE = 0x2, FO_ROWS = 0x4, FO_GROUPS = 0x8, FO_BETWEEN = 0x10,
    FO_START_UNBOUNDED_PRECEDING = 0x20, FO_START_CURRENT_ROW = 0x200, FO_END_CURRENT_ROW = 0x400,
    FO_START_OFFSET_PRECEDING = 0x800,
};

static const char *rank_sql(int kind)
{
    return kind == 0 ? "ROW_NUMBER()" : kind == 1 ? "RANK()" : "DENSE_RANK()";
}

static int rank_kind(const Ast *a)
{
    if (!a->name || !bind_func_unqualified(a)) return -1;
    if (strcmp(a->name, "row_number") == 0) return 0;
    if (strcmp(a->name, "rank") == 0) return 1;
    if (strcmp(a->name, "dense_rank") == 0) return 2;
    return -1;
}

static const char *const supported_hint =
    "supported: ROW_NUMBER(), RANK() and DENSE_RANK() filtered in an outer query (a TopN), and "
    "SUM/COUNT/AVG/MIN/MAX(x), lag(x), first_value(x), last_value(x) OVER (PARTITION BY ... ORDER BY <event time>)";

static const char *const frame_hint =
    "frames end at CURRENT ROW and start UNBOUNDED PRECEDING, n PRECEDING (ROWS) or INTERVAL '...' PRECEDING (RANGE)";

/* Window value functions: lag, first_value, last_value (AGG__COUNT: none). */
static AggKind value_kind(const Ast *a)
{
    if (!a->name || !bind_func_unqualified(a)) return AGG__COUNT;
    if (strcmp(a->name, "lag") == 0) return AGG_LAG;
    if (strcmp(a->name, "first_value") == 0) return AGG_FIRST_VALUE;
    if (strcmp(a->name, "last_value") == 0) return AGG_LAST_VALUE;
    return AGG__COUNT;
}

/* ---- binding window calls ----------------------------------------------------------------- */

static bool same_spec(const WinCall *a, const WinCall *b)
{
    if (a->npartition != b->npartition || a->norder != b->norder || a->frame_rows != b->frame_rows ||
        a->frame_offset != b->frame_offset)
        return false;
    for (int i = 0; i < a->npartition; i++)
        if (!plan_expr_equal(a->partition[i], b->partition[i])) return false;
    for (int i = 0; i < a->norder; i++)
        if (a->order[i].desc != b->order[i].desc || a->order[i].nulls_first != b->order[i].nulls_first ||
            !plan_expr_equal(a->order[i].expr, b->order[i].expr))
            return false;
    return true;
}

static bool same_call(const WinCall *a, const WinCall *b)
{
    if (a->kind != b->kind || !same_spec(a, b)) return false;
    if (a->kind < 3) return true;
    return a->agg.kind == b->agg.kind && a->agg.distinct == b->agg.distinct && plan_expr_equal(a->agg.arg, b->agg.arg) &&
           plan_expr_equal(a->agg.filter, b->agg.filter) && a->agg.offset == b->agg.offset &&
           plan_expr_equal(a->agg.dflt, b->agg.dflt);
}

static void not_here(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    const char *clause = cx->clause ? cx->clause : "";
    if (cx->agg_mode == AGGS_INSIDE) {
        bind_error(b, a->loc, "invalid-window", NULL, "aggregate function calls cannot contain window function calls");
        return;
    }
    static const char *const pg_clauses[] = {"WHERE", "GROUP BY", "HAVING", "JOIN conditions", "FILTER",
                                             "window PARTITION BY", "window ORDER BY"};
    for (size_t i = 0; i < sizeof pg_clauses / sizeof pg_clauses[0]; i++)
        if (strcmp(clause, pg_clauses[i]) == 0) {
            const char *hint = strcmp(clause, "WHERE") == 0
                                   ? "compute it in a subquery and filter in the outer query, e.g. "
                                     "SELECT * FROM (SELECT ..., ROW_NUMBER() OVER (...) AS rn FROM ...) WHERE rn <= 10"
                                   : NULL;
            bind_error(b, a->loc, "invalid-window", hint, "window functions are not allowed in %s", clause);
            return;
        }
    if (cx->agg_mode == AGGS_COLLECT) {
        bind_unsupported(b, a->loc, "a window function in a query with GROUP BY or aggregates");
        return;
    }
    bind_unsupported(b, a->loc, arena_printf(b->arena, "a window function in %s", clause[0] ? clause : "this context"));
}

/* The window's frame into c (frame_rows, frame_offset): the frames a stream can
 * maintain row by row end at the current row. False after an error. */
static bool bind_frame(const ExprCtx *in, const Ast *w, WinCall *c)
{
    Binder *b = in->b;
    int fo = w->frame_options;
    c->frame_rows = false;
    c->frame_offset = -1;
    c->frame_loc = w->frame_start ? bind_ast_start(w->frame_start) : w->loc;
    if (fo == 0 || !(fo & FO_NONDEFAULT)) return true;
    int kind = fo & (FO_RANGE | FO_ROWS | FO_GROUPS);
    int start = fo & (FO_START_UNBOUNDED_PRECEDING | FO_START_CURRENT_ROW | FO_START_OFFSET_PRECEDING);
    int rest = fo & ~(FO_NONDEFAULT | FO_BETWEEN | kind | start | FO_END_CURRENT_ROW);
    if (kind == FO_GROUPS) {
        bind_error(b, w->loc, "unsupported", frame_hint, "GROUPS frames are not supported yet");
        return false;
    }
    if (!(fo & FO_END_CURRENT_ROW) || !start || rest) {
        bind_error(b, w->loc, "unsupported", frame_hint, "this window frame is not supported yet");
        return false;
    }
    c->frame_rows = kind == FO_ROWS;
    if (start == FO_START_CURRENT_ROW) c->frame_offset = 0;
    if (start != FO_START_OFFSET_PRECEDING) return true;
    /* the offset: a constant, checked as PostgreSQL does */
    ExprCtx cx = *in;
    cx.clause = "window frame";
    Expr *off = bind_expr(&cx, w->frame_start);
    if (!off) return false;
    if (c->frame_rows) {
        off = bind_coerce(b, off, type_make(T_INT8));
        if (!off) return false;
        if (off->kind != EX_CONST) {
            bind_error(b, c->frame_loc, "unsupported", "write the number of rows as a constant, e.g. ROWS 9 PRECEDING",
                       "a ROWS frame offset that is not a constant is not supported yet");
            return false;
        }
        if (off->cval.isnull) {
            bind_error(b, c->frame_loc, "invalid-argument", NULL, "frame starting offset must not be null");
            return false;
        }
        if (off->cval.i < 0) {
            bind_error(b, c->frame_loc, "invalid-argument", NULL, "frame starting offset must not be negative");
            return false;
        }
        c->frame_offset = off->cval.i;
        return true;
    }
    off = bind_coerce(b, off, type_make(T_INTERVAL));
    if (!off) return false;
    int64_t us;
    if (off->kind != EX_CONST || !bind_interval_us(off, &us)) {
        bind_error(b, c->frame_loc, "unsupported",
                   "write the range as a constant without months, e.g. RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW",
                   "this RANGE frame offset is not supported yet");
        return false;
    }
    if (us < 0) {
        bind_error(b, c->frame_loc, "invalid-argument", NULL, "invalid preceding or following size in window function");
        return false;
    }
    c->frame_offset = us;
    return true;
}

/* lag(x [, offset [, default]]), first_value(x), last_value(x) into c->agg. */
static bool bind_value_call(ExprCtx *in, Ast *a, AggKind vk, WinCall *c)
{
    Binder *b = in->b;
    const char *misuse = a->agg_star ? "*" : a->agg_distinct ? "DISTINCT" : NULL;
    if (misuse) {
        bind_error(b, a->loc, "invalid-window", NULL, "%s specified, but %s is not an aggregate function", misuse, c->name);
        return false;
    }
    if (a->agg_filter) {
        bind_error(b, a->loc, "invalid-window", NULL, "FILTER is not implemented for non-aggregate window functions");
        return false;
    }
    int n = a->args.n;
    Expr *args[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n && i < 3; i++) {
        args[i] = bind_expr(in, a->args.items[i]);
        if (!args[i]) return false;
    }
    if (n < 1 || n > (vk == AGG_LAG ? 3 : 1)) {
        Expr *all[8];
        int m = n < 8 ? n : 8;
        for (int i = 0; i < m; i++) all[i] = i < 3 ? args[i] : bind_expr(in, a->args.items[i]);
        bind_error(b, a->loc, "unknown-function", NULL, "function %s does not exist",
                   bind_func_signature(b, c->name, all, m, false));
        return false;
    }
    AggCall *ag = &c->agg;
    memset(ag, 0, sizeof *ag);
    ag->kind = vk;
    ag->loc = a->loc;
    ag->offset = 1;
    Expr *x = args[0], *d = n >= 3 ? args[2] : NULL;
    if (n >= 2) {
        Expr *k = bind_coerce(b, args[1], type_make(T_INT8));
        if (!k) return false;
        if (k->kind != EX_CONST) {
            bind_error(b, bind_ast_start(a->args.items[1]), "unsupported", "write the offset as a constant, e.g. lag(x, 2)",
                       "lag with an offset that is not a constant is not supported yet");
            return false;
        }
        if (k->cval.isnull || k->cval.i < 0) {
            bind_error(b, bind_ast_start(a->args.items[1]), "unsupported", "lag looks back 0 or more rows",
                       "lag with a %s offset is not supported yet", k->cval.isnull ? "NULL" : "negative");
            return false;
        }
        ag->offset = k->cval.i;
    }
    /* lag(anycompatible, integer, anycompatible): x and the default share one type */
    if (d) {
        Expr *pair[2] = {x, d};
        Type t;
        bool ux = bind_is_unknown_literal(x), ud = bind_is_unknown_literal(d);
        if (!ux && !ud && bind_type_cat(x->type) != bind_type_cat(d->type)) {
            bind_error(b, a->loc, "unknown-function",
                       "no function matches the given name and argument types; you might need to add explicit type casts",
                       "function %s does not exist", bind_func_signature(b, c->name, args, n, false));
            return false;
        }
        if (!bind_common_type(b, pair, 2, "lag", &t)) return false;
        x = bind_coerce(b, x, t);
        d = bind_coerce(b, d, t);
        if (!x || !d) return false;
    } else {
        x = bind_default_unknown(b, x);
        if (!x) return false;
    }
    ag->arg = x;
    ag->dflt = d;
    /* a polymorphic function's result has no typmod (numeric, not numeric(12,2)) */
    ag->type = type_make((TypeId)x->type.id);
    if (vk != AGG_LAG) ag->offset = 0;
    return true;
}

/* The window a call uses: OVER w, or OVER (w ...) adding ORDER BY or a frame to the
 * named window w of the WINDOW clause, resolved as PostgreSQL does (w may itself refer
 * to an earlier named window). tmp holds a composed window. NULL after an error. */
static const Ast *resolve_window(Binder *b, const WinList *l, const Ast *w, Ast *tmp, int depth)
{
    if (!w->refname) return w;
    const Ast *def = NULL;
    for (int i = 0; l->named && i < l->named->n && !def; i++) {
        const Ast *d = l->named->items[i];
        if (d->kind == AST_WINDOW_DEF && d->name && strcmp(d->name, w->refname) == 0) def = d;
    }
    if (!def) {
        bind_error(b, w->loc, "unknown-window", "define it in the query's WINDOW clause: WINDOW w AS (PARTITION BY ...)",
                   "window \"%s\" does not exist", w->refname);
        return NULL;
    }
    if (depth > 16) {
        bind_error(b, w->loc, "unknown-window", NULL, "window \"%s\" refers to itself", w->refname);
        return NULL;
    }
    Ast base;
    def = resolve_window(b, l, def, &base, depth + 1);
    if (!def) return NULL;
    bool bare = !w->partition.n && !w->order.n && !(w->frame_options & FO_NONDEFAULT);
    if (bare) return def == &base ? (*tmp = base, tmp) : def; /* OVER w: w as it is */
    if (w->partition.n) {
        bind_error(b, w->loc, "invalid-window", NULL, "cannot override PARTITION BY clause of window \"%s\"", w->refname);
        return NULL;
    }
    if (w->order.n && def->order.n) {
        bind_error(b, w->loc, "invalid-window", NULL, "cannot override ORDER BY clause of window \"%s\"", w->refname);
        return NULL;
    }
    if (def->frame_options && (def->frame_options & FO_NONDEFAULT)) {
        bind_error(b, w->loc, "invalid-window", "move the frame into the OVER clause",
                   "cannot copy window \"%s\" because it has a frame clause", w->refname);
        return NULL;
    }
    *tmp = *def;
    tmp->refname = NULL;
    tmp->name = NULL;
    tmp->loc = w->loc;
    if (w->order.n) tmp->order = w->order;
    tmp->frame_options = w->frame_options;
    tmp->frame_start = w->frame_start;
    tmp->frame_end = w->frame_end;
    return tmp;
}

Expr *bind_window_call(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    if (!cx->wins) {
        not_here(cx, a);
        return NULL;
    }
    Ast composed;
    const Ast *w = resolve_window(b, cx->wins, a->over, &composed, 0);
    if (!w) return NULL;
    WinCall c;
    memset(&c, 0, sizeof c);
    c.loc = a->loc;
    c.name = a->name ? a->name : "";
    int rk = rank_kind(a);
    int ak = bind_agg_kind(a);
    AggKind vk = value_kind(a);
    if (ak == AGG_MODE || ak == AGG_PERCENTILE_CONT || ak == AGG_PERCENTILE_DISC) {
        bind_error(b, a->loc, "invalid-window", NULL, "OVER is not supported for ordered-set aggregate %s", a->name);
        return NULL;
    }
    if (ak == AGG_STRING_AGG && a->agg_order.n) {
        bind_error(b, a->loc, "invalid-window", NULL, "aggregate ORDER BY is not implemented for window functions");
        return NULL;
    }
    if (ak == AGG_STRING_AGG && a->agg_distinct) {
        bind_error(b, a->loc, "invalid-window", NULL, "DISTINCT is not implemented for window functions");
        return NULL;
    }
    if (ak == AGG_ARRAY_AGG || ak == AGG_JSON_AGG || ak == AGG_JSON_OBJECT_AGG || bind_is_stats_agg(a)) {
        bind_unsupported(b, a->loc, arena_printf(b->arena, "%s() as a window function", a->name));
        return NULL;
    }
    if (bind_func_unqualified(a) && a->name && strcmp(a->name, "lead") == 0) {
        bind_error(b, a->loc, "unsupported", "a stream cannot wait for rows that have not arrived; use lag, ordered the other way",
                   "window function lead() is not supported yet");
        return NULL;
    }
    if (rk < 0 && ak < 0 && vk == AGG__COUNT) {
        if (bind_func_unqualified(a) && bind_is_scalar_function(c.name)) {
            bind_error(b, a->loc, "invalid-window", NULL,
                       "OVER specified, but %s is not a window function nor an aggregate function", c.name);
            return NULL;
        }
        bind_error(b, a->loc, "unsupported", supported_hint, "window function %s() is not supported yet", c.name);
        return NULL;
    }
    ExprCtx in = *cx;
    in.agg_mode = AGGS_FORBIDDEN;
    in.subs = NULL;
    in.wins = NULL;
    if (rk >= 0) {
        const char *misuse = a->agg_star ? "*" : a->agg_distinct ? "DISTINCT" : a->agg_filter ? "FILTER" : NULL;
        if (misuse) {
            bind_error(b, a->loc, "invalid-window", NULL, "%s specified, but %s is not an aggregate function", misuse,
                       c.name);
            return NULL;
        }
        if (a->args.n) {
            Expr **args = ARENA_ARRAY(b->arena, Expr *, a->args.n);
            for (int i = 0; i < a->args.n; i++) {
                args[i] = bind_expr(&in, a->args.items[i]);
                if (!args[i]) return NULL;
            }
            bind_error(b, a->loc, "unknown-function", NULL, "function %s does not exist",
                       bind_func_signature(b, c.name, args, a->args.n, false));
            return NULL;
        }
        c.kind = rk;
    } else if (vk != AGG__COUNT) {
        if (!bind_value_call(&in, a, vk, &c) || !bind_frame(&in, w, &c)) return NULL;
        c.kind = 3;
    } else {
        if (a->agg_distinct) {
            bind_unsupported(b, a->loc, "DISTINCT in a window aggregate");
            return NULL;
        }
        ExprCtx ac = *cx;
        AggList tmp = {NULL, 0, 0};
        ac.agg_mode = AGGS_COLLECT;
        ac.aggs = &tmp;
        ac.subs = NULL;
        ac.wins = NULL;
        if (!bind_agg_call(&ac, a, (AggKind)ak) || tmp.n != 1) return NULL;
        c.kind = 3;
        c.agg = tmp.items[0];
        if (!bind_frame(&in, w, &c)) return NULL;
    }
    in.clause = "window PARTITION BY";
    c.npartition = w->partition.n;
    c.partition = ARENA_ARRAY(b->arena, Expr *, c.npartition + 1);
    bool ok = true;
    for (int i = 0; i < c.npartition; i++) {
        c.partition[i] = bind_default_unknown(b, bind_expr(&in, w->partition.items[i]));
        if (!c.partition[i]) ok = false;
    }
    in.clause = "window ORDER BY";
    c.norder = w->order.n;
    c.order = ARENA_ARRAY(b->arena, SortKey, c.norder + 1);
    for (int i = 0; i < c.norder; i++) {
        Ast *s = w->order.items[i];
        Ast *e = s->kind == AST_SORT_BY ? s->expr : s;
        if (i == 0) c.order_loc = bind_ast_start(e);
        c.order[i].expr = bind_default_unknown(b, bind_expr(&in, e));
        if (!c.order[i].expr) ok = false;
        c.order[i].desc = s->kind == AST_SORT_BY && s->desc;
        c.order[i].nulls_first = s->kind == AST_SORT_BY && (s->nulls == 1 || (s->nulls == 0 && s->desc));
    }
    if (!ok) return NULL;
    if (c.kind == 3 && c.agg.kind == AGG_STRING_AGG && c.norder > 0) {
        /* string_agg OVER (... ORDER BY t): the frame's values in the window's order, as
         * PostgreSQL joins them (peers by value): packed items keyed by t (bind_func.c) */
        Expr *x = c.agg.arg, *delim = c.agg.dflt;
        if (x->kind == EX_FUNC && x->func == FN_STRING_AGG_ITEM && x->nargs == 3) {
            delim = x->args[1];
            x = x->args[0];
        }
        Expr *item = plan_expr_new(b->arena, EX_FUNC, type_make(T_TEXT), a->loc);
        item->func = FN_STRING_AGG_ITEM;
        item->args = ARENA_ARRAY(b->arena, Expr *, 3);
        item->args[0] = x;
        item->args[1] = delim;
        item->args[2] = plan_expr_copy(b->arena, c.order[0].expr);
        item->nargs = 3;
        c.agg.arg = item;
        c.agg.dflt = NULL;
        c.agg.offset = c.order[0].desc ? 1 : 0;
    }
    WinList *l = cx->wins;
    int k;
    for (k = 0; k < l->n; k++)
        if (same_call(&l->items[k], &c)) break;
    if (k == l->n) {
        if (l->n == l->cap) {
            int cap = l->cap ? l->cap * 2 : 4;
            WinCall *v = ARENA_ARRAY(b->arena, WinCall, cap);
            if (l->n) memcpy(v, l->items, sizeof(WinCall) * (size_t)l->n);
            l->items = v;
            l->cap = cap;
        }
        l->items[l->n++] = c;
    }
    Type t = c.kind < 3 ? type_make(T_INT8) : c.agg.type;
    Expr *ref = plan_expr_column(b->arena, BIND_WIN_COL(k), t);
    ref->loc = a->loc;
    return ref;
}

/* ---- TopN / OverAgg nodes ----------------------------------------------------------------- */

PlanNode *bind_topn_node(Binder *b, PlanNode *input, Expr **partition, int npartition, SortKey *order, int norder,
                         int64_t limit, int loc)
{
    PlanNode *t = bind_unary_node(b, PL_TOPN, input, loc);
    t->partition = partition;
    t->npartition = npartition;
    t->order = order;
    t->norder = norder;
    t->limit = limit;
    return t;
}

typedef struct WinMap {
    int base;                /* the rank column (a TopN), or -1 */
    const int *colof;        /* per window call: its output column (chained OVER aggregates) */
} WinMap;

static int win_col(int col, void *ud)
{
    const WinMap *m = ud;
    if (!BIND_IS_WIN_COL(col)) return col;
    return m->colof ? m->colof[BIND_PH_INDEX(col)] : m->base + BIND_PH_INDEX(col);
}

static PlanNode *with_columns(Binder *b, PlanNode *n, const PlanNode *input, const PlanColumn *extra, int nextra)
{
    n->ncols = input->ncols + nextra;
    n->cols = ARENA_ARRAY(b->arena, PlanColumn, n->ncols);
    memcpy(n->cols, input->cols, sizeof(PlanColumn) * (size_t)input->ncols);
    memcpy(n->cols + input->ncols, extra, sizeof(PlanColumn) * (size_t)nextra);
    return n;
}

/* The checks a window of OVER aggregates must pass: ordered by one event-time column of
 * the SELECT's input, ascending. */
static bool over_window_ok(Binder *b, const WinCall *c, PlanNode *input)
{
    if (c->norder == 0) {
        bind_error(b, c->loc, "unsupported", supported_hint,
                   "an aggregate over a whole partition (OVER without ORDER BY) is not supported yet");
        return false;
    }
    const SortKey *o = &c->order[0];
    bool time = c->norder == 1 && o->expr->kind == EX_COLUMN && bind_event_time(b, input, o->expr->col);
    if (!time) {
        bind_error(b, c->order_loc, "unsupported",
                   "order a running aggregate by a source's event_time column, e.g. OVER (PARTITION BY k ORDER BY created_at)",
                   "OVER (... ORDER BY ...) other than one event-time column is not supported yet");
        return false;
    }
    if (o->desc) {
        bind_error(b, c->order_loc, "unsupported", "order by the event-time column ascending",
                   "a running aggregate ordered by descending time is not supported yet");
        return false;
    }
    return true;
}

PlanNode *bind_window_node(Binder *b, WinList *w, PlanNode *input, Expr **exprs, int n)
{
    int nrank = 0, nagg = 0, first_rank = -1, first_agg = -1;
    for (int i = 0; i < w->n; i++) {
        if (w->items[i].kind < 3) {
            if (first_rank < 0) first_rank = i;
            nrank++;
        } else {
            if (first_agg < 0) first_agg = i;
            nagg++;
        }
    }
    if (nrank && nagg) {
        int later = first_rank > first_agg ? first_rank : first_agg;
        bind_unsupported(b, w->items[later].loc, "ranking functions and window aggregates in one SELECT");
        return NULL;
    }
    if (nrank > 1) {
        bind_error(b, w->items[1].loc, "unsupported", "rank in one subquery and filter the rank in the outer query",
                   "more than one ranking function in a SELECT is not supported yet");
        return NULL;
    }
    WinMap map = {input->ncols, NULL};
    PlanNode *node;
    if (nrank) {
        const WinCall *c = &w->items[0];
        if (c->norder == 0) {
            bind_error(b, c->loc, "unsupported", "e.g. ROW_NUMBER() OVER (PARTITION BY k ORDER BY t DESC)",
                       "%s without ORDER BY in its window is not supported yet", rank_sql(c->kind));
            return NULL;
        }
        /* no limit yet: bind_topn_finish takes it from a filter on the rank */
        node = bind_topn_node(b, input, c->partition, c->npartition, c->order, c->norder, -1, c->loc);
        node->rank_kind = c->kind;
        node->emit_rank = true;
        PlanColumn rank = {c->name, type_make(T_INT8), 0};
        with_columns(b, node, input, &rank, 1);
    } else {
        /* one OVER aggregate per distinct window, chained: each adds its calls' columns
         * after those of the windows before it */
        int *colof = ARENA_ARRAY(b->arena, int, w->n);
        bool *done = ARENA_ARRAY(b->arena, bool, w->n);
        node = input;
        for (int i = 0; i < w->n; i++) {
            if (done[i]) continue;
            const WinCall *c = &w->items[i];
            if (!over_window_ok(b, c, input)) return NULL;
            int ncalls = 0;
            for (int j = i; j < w->n; j++)
                if (!done[j] && same_spec(c, &w->items[j])) ncalls++;
            PlanNode *o = bind_unary_node(b, PL_OVER_AGG, node, c->loc);
            o->partition = c->partition;
            o->npartition = c->npartition;
            o->order = c->order;
            o->norder = c->norder;
            o->frame_rows = c->frame_rows;
            o->frame_offset = c->frame_offset;
            o->naggs = ncalls;
            o->aggs = ARENA_ARRAY(b->arena, AggCall, ncalls);
            PlanColumn *extra = ARENA_ARRAY(b->arena, PlanColumn, ncalls);
            int k = 0;
            for (int j = i; j < w->n; j++) {
                if (done[j] || !same_spec(c, &w->items[j])) continue;
                done[j] = true;
                colof[j] = node->ncols + k;
                o->aggs[k] = w->items[j].agg;
                extra[k].name = w->items[j].name;
                extra[k].type = w->items[j].agg.type;
                k++;
            }
            with_columns(b, o, node, extra, ncalls);
            node = o;
        }
        map.colof = colof;
    }
    for (int i = 0; i < n; i++) bind_expr_remap(exprs[i], win_col, &map);
    return node;
}

/* ---- model-level TopN finishing ----------------------------------------------------------- */

static bool pending(const PlanNode *n)
{
    return n->kind == PL_TOPN && n->limit < 0;
}

/* Columns of n's output that carry the rank of the pending TopN at the bottom of a
 * Filter / Project chain (plain column references only); NULL when n is not such a
 * chain. Sets *top to the TopN. */
static bool *chain_ranks(Binder *b, PlanNode *n, PlanNode **top)
{
    if (pending(n)) {
        bool *s = ARENA_ARRAY(b->arena, bool, n->ncols);
        s[n->ncols - 1] = true;
        *top = n;
        return s;
    }
    if (n->kind == PL_FILTER) return chain_ranks(b, n->inputs[0], top);
    if (n->kind != PL_PROJECT) return NULL;
    bool *in = chain_ranks(b, n->inputs[0], top);
    if (!in) return NULL;
    bool *s = ARENA_ARRAY(b->arena, bool, n->ncols + 1);
    for (int i = 0; i < n->nexprs; i++) {
        const Expr *e = n->exprs[i];
        s[i] = e->kind == EX_COLUMN && e->col >= 0 && e->col < n->inputs[0]->ncols && in[e->col];
    }
    return s;
}

static bool int_const(const Expr *e, int64_t *v)
{
    if (e->kind != EX_CONST || e->cval.isnull || !type_is_integer(e->type)) return false;
    *v = e->cval.i;
    return true;
}

/* A Filter above a pending TopN: takes the rank bounds of its conjuncts as the limit.
 * Returns what replaces the filter (its input when no conjunct is left). */
static PlanNode *fold_filter(Binder *b, PlanNode *f)
{
    PlanNode *top = NULL;
    bool *rk = chain_ranks(b, f->inputs[0], &top);
    if (!rk) return f;
    Expr **v = NULL;
    int n = 0, cap = 0;
    bind_conjuncts(b, f->pred, &v, &n, &cap);
    Expr **keep = ARENA_ARRAY(b->arena, Expr *, n + 1);
    int nkeep = 0;
    int64_t limit = -1;
    int ncols = f->inputs[0]->ncols;
    for (int i = 0; i < n; i++) {
        Expr *e = v[i];
        int64_t k = 0;
        int op = -1;
        if (e->kind == EX_OP && e->nargs == 2) {
            const Expr *x = e->args[0], *y = e->args[1];
            if (x->kind == EX_COLUMN && x->col >= 0 && x->col < ncols && rk[x->col] && int_const(y, &k))
                op = e->op;
            else if (y->kind == EX_COLUMN && y->col >= 0 && y->col < ncols && rk[y->col] && int_const(x, &k))
                op = e->op == OP_GE ? OP_LE : e->op == OP_GT ? OP_LT : e->op == OP_LE ? OP_GE : e->op == OP_LT ? OP_GT : e->op;
        }
        int64_t lim = -1;
        bool drop = false;
        if (op == OP_LE) {
            lim = k;
            drop = true;
        } else if (op == OP_LT) {
            lim = k == INT64_MIN ? 0 : k - 1;
            drop = true;
        } else if (op == OP_EQ) {
            lim = k;
            drop = k == 1;
        }
        if (lim >= 0 || op == OP_LE || op == OP_LT || op == OP_EQ) {
            if (lim < 1) {
                bind_error(b, e->loc, "unsupported", "keep at least the first row, e.g. rn <= 1",
                           "a filter on %s that keeps no rows is not supported yet", rank_sql(top->rank_kind));
                top->limit = 1; /* reported: not also "without a filter" */
                return f;
            }
            if (limit < 0 || lim < limit) limit = lim;
        }
        if (!drop) keep[nkeep++] = e;
    }
    if (limit < 0) return f;
    top->limit = limit;
    if (nkeep == 0) return f->inputs[0];
    f->pred = bind_and(b, keep, nkeep, keep[0]->loc);
    return f;
}

static PlanNode *fold(Binder *b, PlanNode *n)
{
    for (int i = 0; i < n->ninputs; i++) n->inputs[i] = fold(b, n->inputs[i]);
    return n->kind == PL_FILTER ? fold_filter(b, n) : n;
}

static void report_pending(Binder *b, const PlanNode *n)
{
    for (int i = 0; i < n->ninputs; i++) report_pending(b, n->inputs[i]);
    if (!pending(n)) return;
    const char *f = rank_sql(n->rank_kind);
    bind_error(b, n->loc, "unsupported",
               "rank in a subquery and filter the rank in the outer query: SELECT * FROM (SELECT ..., ROW_NUMBER() OVER "
               "(PARTITION BY k ORDER BY t DESC) AS rn FROM ...) WHERE rn <= 10",
               "%s without a filter on its result (WHERE rn <= N in an outer query) is not supported yet", f);
}

/* ---- emit_rank ---------------------------------------------------------------------------- */

typedef struct RankUse {
    Binder *b;
    const PlanNode *top;
    bool used;
    const bool *set;         /* while scanning expressions */
    int nset;
} RankUse;

static void note_col(int col, void *ud)
{
    RankUse *u = ud;
    if (col >= 0 && col < u->nset && u->set[col]) u->used = true;
}

static void scan(RankUse *u, const Expr *e, const bool *set, int nset)
{
    if (!set || !e) return;
    u->set = set;
    u->nset = nset;
    bind_expr_cols(e, note_col, u);
}

static bool any(const bool *s, int n)
{
    for (int i = 0; s && i < n; i++)
        if (s[i]) return true;
    return false;
}

/* Columns of n's output carrying the rank of u->top; NULL when none. Sets u->used when
 * an expression (or a whole-row operator) reads one. */
static bool *carry(RankUse *u, const PlanNode *n)
{
    Arena *a = u->b->arena;
    if (n == u->top) {
        bool *s = ARENA_ARRAY(a, bool, n->ncols);
        s[n->ncols - 1] = true;
        return s;
    }
    bool **in = ARENA_ARRAY(a, bool *, n->ninputs + 1);
    bool some = false;
    for (int i = 0; i < n->ninputs; i++) {
        in[i] = n->kind == PL_REF ? NULL : carry(u, n->inputs[i]);
        some = some || in[i];
    }
    if (!some) return NULL;
    const PlanNode *i0 = n->inputs[0];
    bool *out = ARENA_ARRAY(a, bool, n->ncols + 1);
    switch (n->kind) {
    case PL_FILTER:
        scan(u, n->pred, in[0], i0->ncols);
        return in[0];
    case PL_PROJECT:
        for (int i = 0; i < n->nexprs; i++) {
            const Expr *e = n->exprs[i];
            if (e->kind == EX_COLUMN && e->col >= 0 && e->col < i0->ncols && in[0] && in[0][e->col]) out[i] = true;
            else scan(u, e, in[0], i0->ncols);
        }
        return out;
    case PL_JOIN: {
        int nl = i0->ncols, nr = n->inputs[1]->ncols;
        bool *both = ARENA_ARRAY(a, bool, nl + nr + 1);
        for (int i = 0; i < nl; i++) both[i] = in[0] && in[0][i];
        for (int i = 0; i < nr; i++) both[nl + i] = in[1] && in[1][i];
        for (int k = 0; k < n->nkeys; k++) {
            scan(u, n->left_keys[k], in[0], nl);
            scan(u, n->right_keys[k], in[1], nr);
        }
        scan(u, n->pred, both, nl + nr);
        memcpy(out, both, sizeof(bool) * (size_t)n->ncols);
        return out;
    }
    case PL_AGGREGATE:
        for (int i = 0; i < n->ngroup; i++) {
            const Expr *g = n->group[i];
            if (g->kind == EX_COLUMN && g->col >= 0 && g->col < i0->ncols && in[0][g->col]) out[i] = true;
            else scan(u, g, in[0], i0->ncols);
        }
        for (int i = 0; i < n->naggs; i++) {
            scan(u, n->aggs[i].arg, in[0], i0->ncols);
            scan(u, n->aggs[i].filter, in[0], i0->ncols);
        }
        return out;
    case PL_TOPN:
    case PL_OVER_AGG:
        for (int i = 0; i < n->npartition; i++) scan(u, n->partition[i], in[0], i0->ncols);
        for (int i = 0; i < n->norder; i++) scan(u, n->order[i].expr, in[0], i0->ncols);
        for (int i = 0; i < n->naggs; i++) {
            scan(u, n->aggs[i].arg, in[0], i0->ncols);
            scan(u, n->aggs[i].filter, in[0], i0->ncols);
        }
        memcpy(out, in[0], sizeof(bool) * (size_t)i0->ncols);
        return out;
    case PL_WINDOW_TVF:
        memcpy(out, in[0], sizeof(bool) * (size_t)i0->ncols);
        return out;
    case PL_UNION_ALL:
        for (int k = 0; k < n->ninputs; k++)
            for (int i = 0; in[k] && i < n->ncols; i++) out[i] = out[i] || in[k][i];
        return out;
    default:
        /* DISTINCT and set operations compare whole rows */
        u->used = true;
        return NULL;
    }
}

/* e with every column reference replaced by the expression it names in `by`. */
static Expr *substitute(Binder *b, const Expr *e, Expr *const *by)
{
    if (e->kind == EX_COLUMN) return plan_expr_copy(b->arena, by[e->col]);
    Expr *c = ARENA_NEW(b->arena, Expr);
    *c = *e;
    if (e->nargs) {
        c->args = ARENA_ARRAY(b->arena, Expr *, e->nargs);
        for (int i = 0; i < e->nargs; i++) c->args[i] = substitute(b, e->args[i], by);
    }
    return c;
}

/* Removes the unread rank column of top: a Project directly above it gets a NULL in
 * its place (and is merged into a Project above it); any other parent reads it
 * through a padding Project. */
static PlanNode *drop_rank(Binder *b, PlanNode *n, PlanNode *top, int rank_col)
{
    for (int i = 0; i < n->ninputs; i++) {
        if (n->inputs[i] != top) {
            if (n->kind == PL_REF) continue;
            PlanNode *c = drop_rank(b, n->inputs[i], top, rank_col);
            n->inputs[i] = c;
            if (n->kind == PL_PROJECT && c->kind == PL_PROJECT && c->ninputs == 1 && c->inputs[0] == top) {
                /* Project over the patched Project: one Project */
                for (int k = 0; k < n->nexprs; k++) n->exprs[k] = substitute(b, n->exprs[k], c->exprs);
                n->inputs[0] = top;
            }
            continue;
        }
        Expr *null_rank = plan_expr_const(b->arena, type_make(T_INT8), value_null());
        if (n->kind == PL_PROJECT) {
            for (int k = 0; k < n->nexprs; k++)
                if (n->exprs[k]->kind == EX_COLUMN && n->exprs[k]->col == rank_col) n->exprs[k] = null_rank;
            continue;
        }
        Expr **exprs = ARENA_ARRAY(b->arena, Expr *, rank_col + 1);
        PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, rank_col + 1);
        for (int k = 0; k < rank_col; k++) exprs[k] = plan_expr_column(b->arena, k, top->cols[k].type);
        exprs[rank_col] = null_rank;
        memcpy(cols, top->cols, sizeof(PlanColumn) * (size_t)(rank_col + 1));
        n->inputs[i] = bind_project_node(b, top, exprs, cols, rank_col + 1, top->loc);
    }
    return n;
}

static void collect_ranked(Binder *b, PlanNode *n, PlanNode ***v, int *nv, int *cap)
{
    if (n->kind == PL_REF) return;
    for (int i = 0; i < n->ninputs; i++) collect_ranked(b, n->inputs[i], v, nv, cap);
    if (n->kind == PL_TOPN && n->emit_rank) bind_push(b, (void ***)v, nv, cap, n);
}

PlanNode *bind_topn_finish(Binder *b, PlanNode *root)
{
    root = fold(b, root);
    report_pending(b, root);
    if (b->failed) return root;
    PlanNode **tops = NULL;
    int nt = 0, cap = 0;
    collect_ranked(b, root, &tops, &nt, &cap);
    for (int i = 0; i < nt; i++) {
        PlanNode *top = tops[i];
        RankUse u = {b, top, false, NULL, 0};
        bool *out = carry(&u, root);
        if (u.used || any(out, root->ncols)) continue;
        int rank_col = top->ncols - 1;
        root = drop_rank(b, root, top, rank_col);
        top->emit_rank = false;
        top->ncols = rank_col;
    }
    return root;
}
