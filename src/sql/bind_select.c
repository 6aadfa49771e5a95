/* One SELECT (no set operation):
 *   FROM (joins, bind_join.c) -> [semi/anti joins: IN / EXISTS] -> [LEFT joins: scalar
 *   subqueries of WHERE] -> [Filter(WHERE)] -> [Aggregate(keys, aggs)] -> [Filter(HAVING)]
 *   or [TopN / OverAgg: window functions] [LEFT joins: scalar subqueries of the select
 *   list] [TopN: DISTINCT ON] -> Project(select list) -> [Distinct] -> [TopN: ORDER BY
 *   LIMIT] -> [Project dropping ORDER BY-only columns].
 * WHERE conjuncts that read two sides of an inner join become that join's condition
 * (bind_join.c). GROUP BY items may be expressions, output-column names or ordinals
 * (PostgreSQL's SQL92/SQL99 rules). In a grouped query the select list and HAVING are
 * bound over the input with aggregate calls collected, then rewritten onto the
 * Aggregate's output: a subtree equal to a group key becomes that key's column, an
 * aggregate its column, and any other input column is PostgreSQL's "must appear in the
 * GROUP BY clause" error. Output columns are named as PostgreSQL names them. */
#include "sql/bind_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Target {
    Ast *ast;                 /* the expression, or NULL for a column expanded from * */
    const ScopeCol *col;      /* the *-expanded column */
    const char *name;         /* output column name */
    int loc;
} Target;

/* An ORDER BY (or DISTINCT ON) item: an output column, or an expression over the
 * projection's input. */
typedef struct OrderItem {
    int target;               /* output column, or -1 */
    Expr *expr;               /* target < 0: over the projection's input */
    bool desc, nulls_first;
    int loc;
} OrderItem;

typedef struct SelectCtx {
    Binder *b;
    Ast *sel;
    int flags;
    const CteEnv *env;
    Scope scope;
    FromInfo fi;
    Target *t;
    int nt;
    const char **aliases;
    int naliases;
    SubList subs;             /* scalar subqueries */
    int nsubs_where;          /* the first ones are WHERE's: joined below the WHERE filter */
    WinList wins;             /* window function calls of the select list */
    CorrSink *corr;           /* this SELECT is a correlated subquery's */
    OrderItem *ord;           /* ORDER BY items (top-N) */
    int nord;
} SelectCtx;

PlanNode *bind_project_node(Binder *b, PlanNode *input, Expr **exprs, PlanColumn *cols, int n, int loc)
{
    PlanNode *p = bind_unary_node(b, PL_PROJECT, input, loc);
    p->exprs = exprs;
    p->nexprs = n;
    p->cols = cols;
    p->ncols = n;
    return p;
}

static char *sql_text(Binder *b, const Expr *e, const AggCall *agg, const PlanNode *in)
{
    StrBuf sb = STRBUF_INIT;
    if (agg) plan_agg_sql(agg, in->cols, in->ncols, &sb);
    else plan_expr_sql(e, in->cols, in->ncols, &sb);
    char *s = arena_strdup(b->arena, sb.len ? sb_cstr(&sb) : "?column?");
    sb_free(&sb);
    return s;
}

/* ---- select list ----------------------------------------------------------------------- */

static bool expand_targets(SelectCtx *sc)
{
    Binder *b = sc->b;
    Ast *sel = sc->sel;
    int cap = sel->targets.n + sc->scope.ncols * 2 + 1;
    sc->t = ARENA_ARRAY(b->arena, Target, cap);
    sc->aliases = ARENA_ARRAY(b->arena, const char *, sel->targets.n + 1);
    bool ok = true;
    for (int i = 0; i < sel->targets.n; i++) {
        Ast *rt = sel->targets.items[i];
        Ast *e = rt->kind == AST_RES_TARGET ? rt->expr : rt;
        if (rt->kind == AST_RES_TARGET && rt->name) sc->aliases[sc->naliases++] = rt->name;
        if (e && e->kind == AST_COLUMN_REF && e->star && e->nnames <= 1 && sel->from.n == 0) {
            bind_error(b, e->loc, "invalid-star", NULL, "SELECT * with no tables specified is not valid");
            ok = false;
            continue;
        }
        if (e && e->kind == AST_COLUMN_REF && e->star) {
            const ScopeCol **cols;
            int n = bind_expand_star(b, &sc->scope, e, &cols);
            if (n < 0) {
                ok = false;
                continue;
            }
            if (sc->nt + n > cap) {
                int ncap = (sc->nt + n) * 2;
                Target *t = ARENA_ARRAY(b->arena, Target, ncap);
                memcpy(t, sc->t, sizeof(Target) * (size_t)sc->nt);
                sc->t = t;
                cap = ncap;
            }
            for (int j = 0; j < n; j++) {
                Target *t = &sc->t[sc->nt++];
                memset(t, 0, sizeof *t);
                t->col = cols[j];
                t->name = cols[j]->name;
                t->loc = e->loc;
            }
            continue;
        }
        if (sc->nt + 1 > cap) {
            int ncap = (sc->nt + 1) * 2;
            Target *t = ARENA_ARRAY(b->arena, Target, ncap);
            memcpy(t, sc->t, sizeof(Target) * (size_t)sc->nt);
            sc->t = t;
            cap = ncap;
        }
        Target *t = &sc->t[sc->nt++];
        memset(t, 0, sizeof *t);
        t->ast = e;
        t->name = rt->kind == AST_RES_TARGET && rt->name ? rt->name : bind_figure_colname(e);
        t->loc = bind_ast_start(e) >= 0 ? bind_ast_start(e) : rt->loc;
    }
    return ok;
}

static Expr *bind_target(SelectCtx *sc, ExprCtx *cx, Target *t)
{
    if (!t->ast) return bind_column_expr(sc->b, t->col, t->loc);
    Expr *e = bind_expr(cx, t->ast);
    if (e && bind_is_unknown_literal(e) && !((sc->flags & QF_KEEP_UNKNOWN) && !sc->sel->distinct))
        e = bind_coerce(sc->b, e, type_make(T_TEXT));
    return e;
}

static bool check_unique_names(SelectCtx *sc)
{
    bool ok = true;
    for (int j = 1; j < sc->nt; j++)
        for (int i = 0; i < j; i++)
            if (strcmp(sc->t[i].name, sc->t[j].name) == 0) {
                bind_error(sc->b, sc->t[j].loc, "duplicate-column",
                           "a model's output columns need unique names: give this one another name with AS",
                           "column \"%s\" specified more than once", sc->t[j].name);
                ok = false;
                break;
            }
    return ok;
}

/* ---- GROUP BY ------------------------------------------------------------------------- */

static Expr *target_as_key(SelectCtx *sc, ExprCtx *gc, int i)
{
    Target *t = &sc->t[i];
    if (!t->ast) return bind_column_expr(sc->b, t->col, t->loc);
    return bind_expr(gc, t->ast);
}

static bool scope_has_name(const Scope *s, const char *name)
{
    for (int i = 0; i < s->ncols; i++)
        if (!s->cols[i].qualified_only && strcmp(s->cols[i].name, name) == 0) return true;
    return false;
}

static Expr *group_item(SelectCtx *sc, ExprCtx *gc, Ast *g)
{
    Binder *b = sc->b;
    if (g->kind == AST_CONST) {
        if (g->const_kind == AST_CONST_INT) {
            long pos = strtol(g->text, NULL, 10);
            if (pos < 1 || pos > sc->nt) {
                bind_error(b, g->loc, "grouping", NULL, "GROUP BY position %ld is not in select list", pos);
                return NULL;
            }
            return target_as_key(sc, gc, (int)pos - 1);
        }
        bind_error(b, g->loc, "grouping", "group by a column, an expression or a select-list position",
                   "non-integer constant in GROUP BY");
        return NULL;
    }
    if (g->kind == AST_COLUMN_REF && g->nnames == 1 && !g->star && !scope_has_name(&sc->scope, g->names[0])) {
        /* not an input column: an output column name (SQL92) */
        Expr *found = NULL;
        for (int i = 0; i < sc->nt; i++) {
            if (strcmp(sc->t[i].name, g->names[0]) != 0) continue;
            Expr *k = target_as_key(sc, gc, i);
            if (!k) return NULL;
            if (found && !plan_expr_equal(found, k)) {
                bind_error(b, g->loc, "grouping", NULL, "GROUP BY \"%s\" is ambiguous", g->names[0]);
                return NULL;
            }
            if (!found) found = k;
        }
        if (found) return found;
    }
    return bind_expr(gc, g);
}

typedef struct Regroup {
    Binder *b;
    const Scope *scope;
    Expr **keys;
    int nkeys;
    bool reported;
    int grp_base;             /* grouping sets: the column of GROUPING() call 0 */
} Regroup;

static void ungrouped_error(Regroup *rg, const Expr *e)
{
    if (rg->reported) return;
    rg->reported = true;
    const ScopeCol *c = NULL;
    for (int i = 0; i < rg->scope->ncols && !c; i++)
        if (rg->scope->cols[i].index == e->col) c = &rg->scope->cols[i];
    const char *name = !c ? "?" : c->rel ? arena_printf(rg->b->arena, "%s.%s", c->rel, c->name) : c->name;
    bind_error(rg->b, e->loc, "grouping", "add it to GROUP BY, or aggregate it, e.g. max(...)",
               "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function", name);
}

/* Re-expresses e (over the aggregate's input, aggregates as placeholders) over the
 * aggregate's output. Builds new nodes: the input tree is left untouched. */
static Expr *regroup(Regroup *rg, const Expr *e)
{
    Arena *a = rg->b->arena;
    if (e->kind == EX_COLUMN && BIND_IS_GRP_COL(e->col)) {
        Expr *c = plan_expr_column(a, rg->grp_base + BIND_PH_INDEX(e->col), e->type);
        c->loc = e->loc;
        return c;
    }
    if (e->kind == EX_COLUMN && BIND_IS_AGG_COL(e->col)) {
        Expr *c = plan_expr_column(a, rg->nkeys + BIND_AGG_INDEX(e->col), e->type);
        c->loc = e->loc;
        return c;
    }
    for (int i = 0; i < rg->nkeys; i++)
        if (plan_expr_equal(e, rg->keys[i])) {
            Expr *c = plan_expr_column(a, i, e->type);
            c->loc = e->loc;
            return c;
        }
    if (e->kind == EX_COLUMN && (BIND_IS_OUTER_COL(e->col) || BIND_IS_SUB_COL(e->col)))
        return plan_expr_copy(a, e); /* discovering; a subquery's column (joined above the Aggregate) */
    if (e->kind == EX_COLUMN) {
        ungrouped_error(rg, e);
        return NULL;
    }
    Expr *c = ARENA_NEW(a, Expr);
    *c = *e;
    if (e->nargs) {
        c->args = ARENA_ARRAY(a, Expr *, e->nargs);
        bool ok = true;
        for (int i = 0; i < e->nargs; i++) {
            c->args[i] = regroup(rg, e->args[i]);
            if (!c->args[i]) ok = false;
        }
        if (!ok) return NULL;
    }
    return c;
}

static Expr *regroup_top(Regroup *rg, const Expr *e)
{
    rg->reported = false;
    return e ? regroup(rg, e) : NULL;
}

/* ---- ORDER BY ---------------------------------------------------------------------------- */

/* Resolves one ORDER BY / DISTINCT ON item: an output column by ordinal or name
 * (SQL92), else an expression bound in oc (SQL99). False after reporting. */
static bool order_item(SelectCtx *sc, ExprCtx *oc, Ast *s, OrderItem *o)
{
    Binder *b = sc->b;
    Ast *e = s->kind == AST_SORT_BY ? s->expr : s;
    memset(o, 0, sizeof *o);
    o->target = -1;
    o->desc = s->kind == AST_SORT_BY && s->desc;
    o->nulls_first = s->kind == AST_SORT_BY && (s->nulls == 1 || (s->nulls == 0 && s->desc));
    if (!e) return false;
    o->loc = bind_ast_start(e);
    if (e->kind == AST_COLUMN_REF && e->nnames == 1 && !e->star)
        for (int j = 0; j < sc->nt; j++)
            if (strcmp(sc->t[j].name, e->names[0]) == 0) {
                o->target = j;
                return true;
            }
    if (e->kind == AST_CONST) {
        if (e->const_kind == AST_CONST_INT) {
            long pos = strtol(e->text, NULL, 10);
            if (pos < 1 || pos > sc->nt) {
                bind_error(b, e->loc, "invalid-order-by", NULL, "%s position %ld is not in select list", oc->clause, pos);
                return false;
            }
            o->target = (int)pos - 1;
            return true;
        }
        bind_error(b, e->loc, "invalid-order-by", NULL, "non-integer constant in %s", oc->clause);
        return false;
    }
    o->expr = bind_expr(oc, e);
    return o->expr != NULL;
}

static bool order_items(SelectCtx *sc, ExprCtx *oc, AstList *items, OrderItem **out)
{
    OrderItem *v = ARENA_ARRAY(sc->b->arena, OrderItem, items->n + 1);
    bool ok = true;
    for (int i = 0; i < items->n; i++)
        if (!order_item(sc, oc, items->items[i], &v[i])) ok = false;
    *out = v;
    return ok;
}

static int64_t limit_of(const Ast *sel)
{
    return sel->limit && sel->limit->kind == AST_CONST && sel->limit->text ? strtoll(sel->limit->text, NULL, 10) : 1;
}

/* DISTINCT ON (d) ... ORDER BY d, rest: a TopN over the input partitioned by d, ordered
 * by rest, keeping one row. PostgreSQL requires the leading ORDER BY items to be the
 * DISTINCT ON expressions. */
static bool in_domain(const SelectCtx *sc);

static PlanNode *distinct_on(SelectCtx *sc, PlanNode *cur, Expr **exprs, OrderItem *don, int ndon)
{
    Binder *b = sc->b;
    Expr **d = ARENA_ARRAY(b->arena, Expr *, ndon + 1);
    int nd = 0;
    int *dloc = ARENA_ARRAY(b->arena, int, ndon + 1);
    for (int i = 0; i < ndon; i++) {
        Expr *e = don[i].target >= 0 ? exprs[don[i].target] : don[i].expr;
        bool dup = false;
        for (int k = 0; k < nd && !dup; k++) dup = plan_expr_equal(d[k], e);
        if (dup) continue;
        dloc[nd] = don[i].loc;
        d[nd++] = bind_default_unknown(b, e);
    }
    /* PostgreSQL: the DISTINCT ON expressions must be the leftmost ORDER BY items (in any
     * order). Once they all appeared, repeating one of them later is a no-op (it is
     * constant within a partition) and is dropped. */
    bool *matched = ARENA_ARRAY(b->arena, bool, nd + 1);
    SortKey *rest = ARENA_ARRAY(b->arena, SortKey, sc->nord + 1);
    int nrest = 0, nmatched = 0;
    const char *msg = "SELECT DISTINCT ON expressions must match initial ORDER BY expressions";
    for (int i = 0; i < sc->nord; i++) {
        OrderItem *o = &sc->ord[i];
        Expr *e = o->target >= 0 ? exprs[o->target] : o->expr;
        int m = -1;
        for (int k = 0; k < nd && m < 0; k++)
            if (plan_expr_equal(d[k], e)) m = k;
        if (m >= 0) {
            if (!matched[m]) nmatched++;
            matched[m] = true;
            continue;
        }
        if (nmatched < nd) {
            int k = 0;
            while (matched[k]) k++;
            bind_error(b, dloc[k], "invalid-distinct-on", NULL, "%s", msg);
            return NULL;
        }
        rest[nrest].expr = bind_default_unknown(b, e);
        rest[nrest].desc = o->desc;
        rest[nrest].nulls_first = o->nulls_first;
        nrest++;
    }
    if (nrest == 0) {
        bind_error(b, dloc[0], "unsupported",
                   "add ORDER BY keys after the DISTINCT ON expressions to choose the row to keep, e.g. "
                   "DISTINCT ON (customer_id) ... ORDER BY customer_id, created_at DESC",
                   "DISTINCT ON without an ORDER BY that picks the row to keep is not supported yet");
        return NULL;
    }
    if (in_domain(sc) && !sc->corr->discover) {
        /* a correlated subquery's DISTINCT ON: one row per value and outer value */
        CorrSink *cs = sc->corr;
        Expr **d2 = ARENA_ARRAY(b->arena, Expr *, nd + cs->nd + 1);
        memcpy(d2, d, sizeof(Expr *) * (size_t)nd);
        for (int j = 0; j < cs->nd; j++) d2[nd + j] = plan_expr_column(b->arena, cs->dbase + j, cs->dnode->cols[j].type);
        d = d2;
        nd += cs->nd;
    }
    return bind_topn_node(b, cur, d, nd, rest, nrest, 1, dloc[0]);
}

/* ---- projection ----------------------------------------------------------------------------- */

static bool is_identity(const PlanNode *in, Expr *const *exprs, const PlanColumn *cols, int n)
{
    if (n != in->ncols) return false;
    for (int i = 0; i < n; i++) {
        const Expr *e = exprs[i];
        if (e->kind != EX_COLUMN || e->col != i) return false;
        if (strcmp(cols[i].name, in->cols[i].name) != 0) return false;
        const Type a = cols[i].type, c = in->cols[i].type;
        if (a.id != c.id || a.precision != c.precision || a.scale != c.scale) return false;
    }
    return true;
}

/* The select list's Project over input (plus the columns a correlated subquery's keys
 * and ORDER BY-only expressions need), DISTINCT, and the TopN of ORDER BY ... LIMIT. */
static PlanNode *finish(SelectCtx *sc, PlanNode *input, Expr **exprs)
{
    Binder *b = sc->b;
    Ast *sel = sc->sel;
    bool topn = (sc->flags & QF_TOPN) != 0;
    int ncorr = sc->corr ? sc->corr->n : 0;
    int cap = sc->nt + ncorr + (topn ? sc->nord : 0) + 1;
    Expr **all = ARENA_ARRAY(b->arena, Expr *, cap);
    PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, cap);
    memcpy(all, exprs, sizeof(Expr *) * (size_t)sc->nt);
    for (int i = 0; i < sc->nt; i++) {
        cols[i].name = sc->t[i].name;
        cols[i].type = exprs[i]->type;
    }
    int n = sc->nt;
    for (int k = 0; k < ncorr; k++) {
        all[n] = sc->corr->inner[k];
        cols[n].name = arena_printf(b->arena, "__corr%d", k + 1);
        cols[n].type = all[n]->type;
        sc->corr->inner[k] = plan_expr_column(b->arena, n, all[n]->type);
        n++;
    }
    if (sc->corr) sc->corr->ncols = sc->nt;
    int junk = 0;
    if (topn)
        for (int i = 0; i < sc->nord; i++) {
            OrderItem *o = &sc->ord[i];
            if (o->target >= 0) continue;
            for (int j = 0; j < n && o->target < 0; j++)
                if (plan_expr_equal(all[j], o->expr)) o->target = j;
            if (o->target >= 0) continue;
            if (sel->distinct) {
                bind_error(b, o->loc, "invalid-order-by", NULL,
                           "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
                return NULL;
            }
            all[n] = bind_default_unknown(b, o->expr);
            cols[n].name = arena_printf(b->arena, "__order%d", i + 1);
            cols[n].type = all[n]->type;
            o->target = n++;
            junk++;
        }
    PlanNode *p = is_identity(input, all, cols, n) ? input : bind_project_node(b, input, all, cols, n, sel->loc);
    for (int i = 0; sel->distinct && i < n; i++)
        if (cols[i].type.id == T_JSON) {   /* json has no equality (PostgreSQL's message) */
            bind_error(b, all[i]->loc >= 0 ? all[i]->loc : sel->loc, "type-mismatch", "cast it to text, e.g. x::text",
                       "could not identify an equality operator for type json");
            return NULL;
        }
    if (sel->distinct) p = bind_unary_node(b, PL_DISTINCT, p, sel->loc);
    if (!topn) return p;
    SortKey *keys = ARENA_ARRAY(b->arena, SortKey, sc->nord + 1);
    for (int i = 0; i < sc->nord; i++) {
        keys[i].expr = plan_expr_column(b->arena, sc->ord[i].target, p->cols[sc->ord[i].target].type);
        keys[i].desc = sc->ord[i].desc;
        keys[i].nulls_first = sc->ord[i].nulls_first;
    }
    /* a correlated subquery's TopN keeps its first rows per outer value: partitioned by
     * the domain columns */
    Expr **part = NULL;
    int npart = in_domain(sc) && !sc->corr->discover ? ncorr : 0;
    if (npart) {
        part = ARENA_ARRAY(b->arena, Expr *, npart);
        for (int k = 0; k < npart; k++) part[k] = plan_expr_column(b->arena, sc->nt + k, p->cols[sc->nt + k].type);
    }
    int64_t offset = sel->offset ? strtoll(sel->offset->text, NULL, 10) : 0;
    p = bind_topn_node(b, p, part, npart, keys, sc->nord, limit_of(sel) + offset, sc->ord[0].loc);
    if (offset > 0) {
        /* OFFSET m: the TopN keeps n + m rows, its row number drops the first m */
        PlanColumn rank = {"__row_number", type_make(T_INT8), 0};
        p->emit_rank = true;
        p->ncols = n + 1;
        p->cols = ARENA_ARRAY(b->arena, PlanColumn, n + 1);
        memcpy(p->cols, p->inputs[0]->cols, sizeof(PlanColumn) * (size_t)n);
        p->cols[n] = rank;
        Expr *gt = plan_expr_new(b->arena, EX_OP, type_make(T_BOOL), bind_ast_start(sel->offset));
        gt->op = OP_GT;
        gt->args = ARENA_ARRAY(b->arena, Expr *, 2);
        gt->args[0] = plan_expr_column(b->arena, n, type_make(T_INT8));
        gt->args[1] = plan_expr_const(b->arena, type_make(T_INT8), value_int(offset));
        gt->nargs = 2;
        p = bind_filter_node(b, p, gt, bind_ast_start(sel->offset));
        junk++;
        n++;
    }
    if (!junk) return p;
    int keep = n - junk;
    Expr **ke = ARENA_ARRAY(b->arena, Expr *, keep + 1);
    for (int i = 0; i < keep; i++) ke[i] = plan_expr_column(b->arena, i, cols[i].type);
    return bind_project_node(b, p, ke, cols, keep, sel->loc);
}

static ExprCtx order_ctx(const ExprCtx *cx, const char *clause)
{
    ExprCtx oc = *cx;
    oc.clause = clause;
    oc.aliases = NULL;
    oc.naliases = 0;
    oc.subs = NULL;
    oc.wins = NULL;
    return oc;
}

/* A domain-mode correlated subquery's SELECT (see CorrSink), while it is bound for good. */
static bool in_domain(const SelectCtx *sc)
{
    return sc->corr && sc->corr->domain;
}

/* Domain mode: cross joins the FROM clause with the domain placeholder (WHERE
 * conjuncts over both become its keys and condition). */
static void add_domain(SelectCtx *sc, PlanNode **pcur)
{
    CorrSink *cs = sc->corr;
    if (!cs || !cs->domain || cs->discover || !cs->dnode) return;
    PlanNode *d = cs->dnode;
    if (cs->dnode_used) {
        /* another branch of a set operation: a placeholder of its own */
        Binder *b = sc->b;
        d = plan_node_new(b->arena, PL_SETOP, sc->sel->loc);
        d->ncols = cs->dnode->ncols;
        d->cols = cs->dnode->cols;
        if (cs->nmore == cs->moremax) {
            int cap = cs->moremax ? cs->moremax * 2 : 4;
            PlanNode **v = ARENA_ARRAY(b->arena, PlanNode *, cap);
            if (cs->nmore) memcpy(v, cs->more, sizeof(PlanNode *) * (size_t)cs->nmore);
            cs->more = v;
            cs->moremax = cap;
        }
        cs->more[cs->nmore++] = d;
    }
    cs->dnode_used = true;
    *pcur = bind_cross_join(sc->b, &sc->fi, *pcur, d, sc->sel->loc);
    sc->fi.djoin = *pcur;
}

static PlanNode *bind_plain(SelectCtx *sc, PlanNode *cur)
{
    Binder *b = sc->b;
    Ast *sel = sc->sel;
    ExprCtx cx = {b, &sc->scope, AGGS_FORBIDDEN, "SELECT", NULL, sc->aliases, sc->naliases, in_domain(sc), &sc->subs,
                  &sc->wins, sc->env, NULL};
    Expr **exprs = ARENA_ARRAY(b->arena, Expr *, sc->nt + 1);
    bool ok = true;
    for (int i = 0; i < sc->nt; i++) {
        exprs[i] = bind_target(sc, &cx, &sc->t[i]);
        if (!exprs[i]) ok = false;
    }
    OrderItem *don = NULL;
    if (sc->flags & (QF_CHECK_ORDER | QF_TOPN) || sel->distinct_on.n) {
        ExprCtx oc = order_ctx(&cx, "ORDER BY");
        if (!order_items(sc, &oc, &sel->order_by, &sc->ord)) ok = false;
        sc->nord = sel->order_by.n;
    }
    if (sel->distinct_on.n) {
        ExprCtx dc = order_ctx(&cx, "DISTINCT ON");
        if (!order_items(sc, &dc, &sel->distinct_on, &don)) ok = false;
    }
    if (!ok) return NULL;
    if (sc->wins.n) {
        cur = bind_window_node(b, &sc->wins, cur, exprs, sc->nt);
        if (!cur) return NULL;
    }
    cur = bind_scalar_joins(b, cur, sc->scope.input, &sc->subs, sc->nsubs_where, exprs, sc->nt);
    if (sel->distinct_on.n) {
        cur = distinct_on(sc, cur, exprs, don, sel->distinct_on.n);
        if (!cur) return NULL;
    }
    return finish(sc, cur, exprs);
}

/* ---- grouping sets ------------------------------------------------------------------------ */

#define MAX_GROUPING_SETS 4096

typedef struct GSet {
    Ast **e;
    int n;
} GSet;
typedef struct GSets {
    GSet *v;
    int n, cap;
} GSets;

static bool gsets_add(Binder *b, GSets *s, Ast *const *e1, int n1, Ast *const *e2, int n2, int loc)
{
    if (s->n >= MAX_GROUPING_SETS) {
        bind_error(b, loc, "grouping", NULL, "too many grouping sets present (maximum %d)", MAX_GROUPING_SETS);
        return false;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 8;
        GSet *v = ARENA_ARRAY(b->arena, GSet, cap);
        if (s->n) memcpy(v, s->v, sizeof(GSet) * (size_t)s->n);
        s->v = v;
        s->cap = cap;
    }
    GSet *g = &s->v[s->n++];
    g->n = n1 + n2;
    g->e = ARENA_ARRAY(b->arena, Ast *, g->n + 1);
    if (n1) memcpy(g->e, e1, sizeof(Ast *) * (size_t)n1);
    if (n2) memcpy(g->e + n1, e2, sizeof(Ast *) * (size_t)n2);
    return true;
}

/* The elements of a ROLLUP / CUBE argument: an expression or a parenthesised list. */
static void gset_elems(Ast *a, Ast ***e, int *n)
{
    if (a->kind == AST_GROUPING_SET && a->gset == AST_GSET_LIST) {
        *e = a->args.items;
        *n = a->args.n;
    } else if (a->kind == AST_GROUPING_SET && a->gset == AST_GSET_EMPTY) {
        *e = NULL;
        *n = 0;
    } else {
        *e = &a->args.items[0]; /* replaced below */
        *n = -1;
    }
}

/* The grouping sets one GROUP BY item stands for (PostgreSQL's expansion). */
static bool gsets_of(Binder *b, Ast *item, GSets *out)
{
    memset(out, 0, sizeof *out);
    if (item->kind != AST_GROUPING_SET) return gsets_add(b, out, &item, 1, NULL, 0, item->loc);
    switch (item->gset) {
    case AST_GSET_EMPTY: return gsets_add(b, out, NULL, 0, NULL, 0, item->loc);
    case AST_GSET_LIST: return gsets_add(b, out, item->args.items, item->args.n, NULL, 0, item->loc);
    case AST_GSET_ROLLUP:
    case AST_GSET_CUBE: {
        int n = item->args.n;
        Ast ***el = ARENA_ARRAY(b->arena, Ast **, n + 1);
        int *nel = ARENA_ARRAY(b->arena, int, n + 1);
        for (int i = 0; i < n; i++) {
            Ast *a = item->args.items[i];
            if (a->kind == AST_GROUPING_SET && a->gset != AST_GSET_LIST && a->gset != AST_GSET_EMPTY) {
                bind_unsupported(b, a->loc, "a grouping set nested inside ROLLUP or CUBE");
                return false;
            }
            gset_elems(a, &el[i], &nel[i]);
            if (nel[i] < 0) {
                el[i] = &item->args.items[i];
                nel[i] = 1;
            }
        }
        if (item->gset == AST_GSET_CUBE && n > 12) {
            bind_error(b, item->loc, "grouping", NULL, "CUBE is limited to 12 elements");
            return false;
        }
        int count = item->gset == AST_GSET_ROLLUP ? n + 1 : 1 << n;
        for (int k = 0; k < count; k++) {
            Ast **e = ARENA_ARRAY(b->arena, Ast *, 1);
            int ne = 0;
            GSets tmp = {NULL, 0, 0};
            if (!gsets_add(b, &tmp, NULL, 0, NULL, 0, item->loc)) return false;
            for (int i = 0; i < n; i++) {
                bool in = item->gset == AST_GSET_ROLLUP ? i < n - k : ((k >> (n - 1 - i)) & 1) == 0;
                if (!in) continue;
                GSet *g = &tmp.v[0];
                Ast **v = ARENA_ARRAY(b->arena, Ast *, g->n + nel[i] + 1);
                if (g->n) memcpy(v, g->e, sizeof(Ast *) * (size_t)g->n);
                memcpy(v + g->n, el[i], sizeof(Ast *) * (size_t)nel[i]);
                g->e = v;
                g->n += nel[i];
            }
            e = tmp.v[0].e;
            ne = tmp.v[0].n;
            if (!gsets_add(b, out, e, ne, NULL, 0, item->loc)) return false;
        }
        return true;
    }
    case AST_GSET_SETS:
        for (int i = 0; i < item->args.n; i++) {
            GSets sub;
            if (!gsets_of(b, item->args.items[i], &sub)) return false;
            for (int k = 0; k < sub.n; k++)
                if (!gsets_add(b, out, sub.v[k].e, sub.v[k].n, NULL, 0, item->loc)) return false;
        }
        return true;
    }
    return false;
}

/* All grouping sets of a GROUP BY clause: the cross product of its items' sets. */
static bool expand_grouping_sets(Binder *b, const AstList *group_by, GSets *out)
{
    memset(out, 0, sizeof *out);
    if (!gsets_add(b, out, NULL, 0, NULL, 0, -1)) return false;
    for (int i = 0; i < group_by->n; i++) {
        GSets item, next = {NULL, 0, 0};
        if (!gsets_of(b, group_by->items[i], &item)) return false;
        for (int x = 0; x < out->n; x++)
            for (int y = 0; y < item.n; y++)
                if (!gsets_add(b, &next, out->v[x].e, out->v[x].n, item.v[y].e, item.v[y].n, group_by->items[i]->loc))
                    return false;
        *out = next;
    }
    return true;
}

static bool has_grouping_sets(const AstList *group_by)
{
    for (int i = 0; i < group_by->n; i++)
        if (group_by->items[i]->kind == AST_GROUPING_SET) return true;
    return false;
}

/* GROUPING SETS: one Aggregate per set (over its own copy of the input), each projected
 * onto the full layout (every key, NULL where the set lacks it; the aggregates; one
 * column per GROUPING() call, a constant per set), under one UnionAll. */
static PlanNode *grouping_union(SelectCtx *sc, PlanNode *cur, Expr **keys, int nkeys, const uint64_t *masks, int nsets,
                                AggList *aggs, int naggs, const GroupingList *gl, int loc)
{
    Binder *b = sc->b;
    /* GROUPING() arguments: which key each is */
    int **argkey = ARENA_ARRAY(b->arena, int *, gl->n + 1);
    for (int g = 0; g < gl->n; g++) {
        argkey[g] = ARENA_ARRAY(b->arena, int, gl->items[g].nargs + 1);
        for (int i = 0; i < gl->items[g].nargs; i++) {
            int k = -1;
            for (int j = 0; j < nkeys && k < 0; j++)
                if (plan_expr_equal(keys[j], gl->items[g].args[i])) k = j;
            if (k < 0) {
                bind_error(b, gl->items[g].args[i]->loc >= 0 ? gl->items[g].args[i]->loc : gl->items[g].loc, "grouping",
                           NULL, "arguments to GROUPING must be grouping expressions of the associated query level");
                return NULL;
            }
            argkey[g][i] = k;
        }
    }
    int ncols = nkeys + naggs + gl->n;
    PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, ncols + 1);
    for (int i = 0; i < nkeys; i++) {
        cols[i].type = keys[i]->type;
        cols[i].name = keys[i]->kind == EX_COLUMN ? cur->cols[keys[i]->col].name : sql_text(b, keys[i], NULL, cur);
    }
    for (int i = 0; i < naggs; i++) {
        cols[nkeys + i].type = aggs->items[i].type;
        cols[nkeys + i].name = sql_text(b, NULL, &aggs->items[i], cur);
    }
    for (int g = 0; g < gl->n; g++) {
        cols[nkeys + naggs + g].type = type_make(T_INT4);
        cols[nkeys + naggs + g].name = "grouping";
    }
    PlanNode **branches = ARENA_ARRAY(b->arena, PlanNode *, nsets + 1);
    for (int si = 0; si < nsets; si++) {
        PlanNode *in = si == 0 ? cur : plan_node_copy(b->arena, cur);
        PlanNode *agg = bind_unary_node(b, PL_AGGREGATE, in, loc);
        int *pos = ARENA_ARRAY(b->arena, int, nkeys + 1);
        agg->group = ARENA_ARRAY(b->arena, Expr *, nkeys + 1);
        for (int i = 0; i < nkeys; i++) {
            pos[i] = -1;
            if (!((masks[si] >> i) & 1)) continue;
            pos[i] = agg->ngroup;
            agg->group[agg->ngroup++] = plan_expr_copy(b->arena, keys[i]);
        }
        agg->aggs = naggs ? aggs->items : NULL;
        agg->naggs = naggs;
        agg->ncols = agg->ngroup + naggs;
        agg->cols = ARENA_ARRAY(b->arena, PlanColumn, agg->ncols + 1);
        for (int i = 0; i < nkeys; i++)
            if (pos[i] >= 0) agg->cols[pos[i]] = cols[i];
        for (int i = 0; i < naggs; i++) agg->cols[agg->ngroup + i] = cols[nkeys + i];
        if (!bind_window_aggregate(b, agg, loc)) return NULL;
        Expr **ex = ARENA_ARRAY(b->arena, Expr *, ncols + 1);
        for (int i = 0; i < nkeys; i++)
            ex[i] = pos[i] >= 0 ? plan_expr_column(b->arena, pos[i], keys[i]->type)
                                : plan_expr_const(b->arena, keys[i]->type, value_null());
        for (int i = 0; i < naggs; i++) ex[nkeys + i] = plan_expr_column(b->arena, agg->ngroup + i, aggs->items[i].type);
        for (int g = 0; g < gl->n; g++) {
            int64_t v = 0;
            for (int i = 0; i < gl->items[g].nargs; i++) v = (v << 1) | (((masks[si] >> argkey[g][i]) & 1) ? 0 : 1);
            ex[nkeys + naggs + g] = plan_expr_const(b->arena, type_make(T_INT4), value_int(v));
        }
        branches[si] = bind_project_node(b, agg, ex, cols, ncols, loc);
    }
    if (nsets == 1) return branches[0];
    PlanNode *u = plan_node_new(b->arena, PL_UNION_ALL, loc);
    u->inputs = branches;
    u->ninputs = nsets;
    u->ncols = ncols;
    u->cols = ARENA_ARRAY(b->arena, PlanColumn, ncols + 1);
    memcpy(u->cols, cols, sizeof(PlanColumn) * (size_t)ncols);
    return u;
}

static PlanNode *bind_grouped(SelectCtx *sc, PlanNode *cur)
{
    Binder *b = sc->b;
    Ast *sel = sc->sel;
    bool ok = true;

    /* group keys, over the input */
    ExprCtx gc = {b, &sc->scope, AGGS_FORBIDDEN, "GROUP BY", NULL, NULL, 0, in_domain(sc), NULL, NULL, sc->env, NULL};
    bool sets = has_grouping_sets(&sel->group_by);
    GSets gs = {NULL, 0, 0};
    if (sets && !expand_grouping_sets(b, &sel->group_by, &gs)) return NULL;
    int nitems = sel->group_by.n;
    Ast **items = sel->group_by.items;
    if (sets) {
        nitems = 0;
        for (int i = 0; i < gs.n; i++) nitems += gs.v[i].n;
        items = ARENA_ARRAY(b->arena, Ast *, nitems + 1);
        nitems = 0;
        for (int i = 0; i < gs.n; i++)
            for (int k = 0; k < gs.v[i].n; k++) items[nitems++] = gs.v[i].e[k];
    }
    Expr **keys = ARENA_ARRAY(b->arena, Expr *, nitems + 1);
    int *keyof = ARENA_ARRAY(b->arena, int, nitems + 1); /* item -> key */
    int nkeys = 0;
    for (int i = 0; i < nitems; i++) {
        keyof[i] = -1;
        /* the same AST node in several sets binds once */
        for (int j = 0; j < i && keyof[i] < 0; j++)
            if (items[j] == items[i]) keyof[i] = keyof[j];
        if (keyof[i] >= 0) continue;
        Expr *k = bind_default_unknown(b, group_item(sc, &gc, items[i]));
        if (!k) {
            ok = false;
            continue;
        }
        for (int j = 0; j < nkeys && keyof[i] < 0; j++)
            if (plan_expr_equal(keys[j], k)) keyof[i] = j;
        if (keyof[i] < 0) {
            keyof[i] = nkeys;
            keys[nkeys++] = k;
        }
    }
    if (ok && nkeys > 60 && sets) {
        bind_unsupported(b, bind_ast_start(items[0]), "grouping sets over more than 60 distinct expressions");
        return NULL;
    }
    uint64_t *masks = ARENA_ARRAY(b->arena, uint64_t, gs.n + 1);
    for (int i = 0, at = 0; ok && i < gs.n; i++)
        for (int k = 0; k < gs.v[i].n; k++, at++) masks[i] |= (uint64_t)1 << keyof[at];
    int nuser = nkeys;
    GroupingList gl = {NULL, 0, 0};

    /* select list and HAVING with aggregates collected */
    AggList aggs = {NULL, 0, 0};
    SubList gsubs = {NULL, 0, 0};
    ExprCtx tc = {b, &sc->scope, AGGS_COLLECT, "SELECT", &aggs, sc->aliases, sc->naliases, in_domain(sc), &gsubs, NULL,
                  sc->env, &gl};
    Expr **raw = ARENA_ARRAY(b->arena, Expr *, sc->nt + 1);
    for (int i = 0; i < sc->nt; i++) {
        raw[i] = bind_target(sc, &tc, &sc->t[i]);
        if (!raw[i]) ok = false;
    }
    Expr *having = NULL;
    if (sel->having) {
        ExprCtx hc = tc;
        hc.clause = "HAVING";
        having = bind_condition(&hc, sel->having, "HAVING");
        if (!having) ok = false;
    }
    int naggs = aggs.n;
    if (in_domain(sc) && !sc->corr->discover) {
        /* a correlated subquery's SELECT is grouped by the domain columns too (after the
         * binding above: outer references may add domain columns) */
        CorrSink *cs = sc->corr;
        Expr **k2 = ARENA_ARRAY(b->arena, Expr *, nkeys + cs->nd + 1);
        memcpy(k2, keys, sizeof(Expr *) * (size_t)nkeys);
        keys = k2;
        cs->inner = ARENA_ARRAY(b->arena, Expr *, cs->nd + 1);
        for (int j = 0; j < cs->nd; j++) {
            Expr *dk = plan_expr_column(b->arena, cs->dbase + j, cs->dnode->cols[j].type);
            cs->inner[j] = plan_expr_column(b->arena, nkeys, dk->type);
            for (int i = 0; i < gs.n; i++) masks[i] |= (uint64_t)1 << nkeys;
            keys[nkeys++] = dk;
        }
        cs->n = cs->nd;
    }
    (void)nuser;
    Regroup rg = {b, &sc->scope, keys, nkeys, false, 0};
    if (sc->flags & (QF_CHECK_ORDER | QF_TOPN)) {
        ExprCtx oc = order_ctx(&tc, "ORDER BY");
        if (!order_items(sc, &oc, &sel->order_by, &sc->ord)) ok = false;
        sc->nord = sel->order_by.n;
        if (sc->flags & QF_CHECK_ORDER) {
            for (int i = 0; i < sc->nord; i++)
                if (sc->ord[i].expr) regroup_top(&rg, sc->ord[i].expr);
            aggs.n = naggs; /* aggregates only the dropped ORDER BY needed */
        }
        naggs = aggs.n;
    }
    if (!ok) return NULL;

    PlanNode *agg;
    int aloc = sel->group_by.n ? bind_ast_start(sel->group_by.items[0]) : sel->loc;
    if (sets || gl.n) {
        if (!sets) { /* GROUPING() over a plain GROUP BY: one set of every key */
            gs.n = 1;
            masks[0] = nkeys >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << nkeys) - 1);
        }
        agg = grouping_union(sc, cur, keys, nkeys, masks, gs.n, &aggs, naggs, &gl, aloc < 0 ? sel->loc : aloc);
        if (!agg) return NULL;
        rg.grp_base = nkeys + naggs;
        goto grouped_output;
    }
    for (int i = 0; i < nkeys; i++)
        if (keys[i]->type.id == T_JSON) {   /* json has no equality (PostgreSQL's message) */
            bind_error(b, keys[i]->loc >= 0 ? keys[i]->loc : aloc, "type-mismatch", "cast it to text, e.g. x::text",
                       "could not identify an equality operator for type json");
            return NULL;
        }
    /* the Aggregate: keys first, then one column per aggregate call */
    agg = bind_unary_node(b, PL_AGGREGATE, cur, aloc);
    agg->group = keys;
    agg->ngroup = nkeys;
    agg->aggs = naggs ? aggs.items : NULL;
    agg->naggs = naggs;
    agg->ncols = nkeys + naggs;
    agg->cols = ARENA_ARRAY(b->arena, PlanColumn, agg->ncols + 1);
    for (int i = 0; i < nkeys; i++) {
        agg->cols[i].type = keys[i]->type;
        agg->cols[i].name = keys[i]->kind == EX_COLUMN ? cur->cols[keys[i]->col].name : sql_text(b, keys[i], NULL, cur);
    }
    for (int i = 0; i < naggs; i++) {
        agg->cols[nkeys + i].type = aggs.items[i].type;
        agg->cols[nkeys + i].name = sql_text(b, NULL, &aggs.items[i], cur);
    }
    if (!bind_window_aggregate(b, agg, agg->loc)) return NULL;
grouped_output:;

    Expr **exprs = ARENA_ARRAY(b->arena, Expr *, sc->nt + 1);
    int failed_star = -2; /* one error per * is enough */
    for (int i = 0; i < sc->nt; i++) {
        bool star = !sc->t[i].ast;
        if (star && sc->t[i].loc == failed_star) {
            ok = false;
            continue;
        }
        exprs[i] = regroup_top(&rg, raw[i]);
        if (!exprs[i]) {
            ok = false;
            if (star) failed_star = sc->t[i].loc;
        }
    }
    if (having) {
        having = regroup_top(&rg, having);
        if (!having) ok = false;
    }
    if (sc->flags & QF_TOPN)
        for (int i = 0; i < sc->nord; i++)
            if (sc->ord[i].expr) {
                sc->ord[i].expr = regroup_top(&rg, sc->ord[i].expr);
                if (!sc->ord[i].expr) ok = false;
            }
    if (!ok) return NULL;

    /* an output column that is exactly a key or an aggregate names it */
    bool *renamed = ARENA_ARRAY(b->arena, bool, agg->ncols + 1);
    for (int i = 0; i < sc->nt; i++) {
        const Expr *e = exprs[i];
        if (e->kind != EX_COLUMN || renamed[e->col]) continue;
        bool taken = false;
        for (int j = 0; j < agg->ncols && !taken; j++)
            taken = j != e->col && strcmp(agg->cols[j].name, sc->t[i].name) == 0;
        if (taken) continue;
        agg->cols[e->col].name = sc->t[i].name;
        renamed[e->col] = true;
    }

    PlanNode *top = agg;
    if (gsubs.n) {
        /* subqueries of the select list and HAVING: joined above the Aggregate, matching
         * their outer columns through the group keys holding them */
        for (int k = 0; k < gsubs.n; k++) {
            SubItem *it = &gsubs.items[k];
            if (!it->domain) continue;
            int *lc = ARENA_ARRAY(b->arena, int, it->nd + 1);
            for (int d = 0; d < it->nd; d++) {
                lc[d] = -1;
                for (int g = 0; g < nkeys && lc[d] < 0; g++)
                    if (keys[g]->kind == EX_COLUMN && keys[g]->col == it->dcols[d]) lc[d] = g;
                if (lc[d] < 0) {
                    const ScopeCol *c = NULL;
                    for (int i = 0; i < sc->scope.ncols && !c; i++)
                        if (sc->scope.cols[i].index == it->dcols[d]) c = &sc->scope.cols[i];
                    bind_error(b, it->loc, "grouping", "add the column to GROUP BY",
                               "subquery uses ungrouped column \"%s%s%s\" from outer query",
                               c && c->rel ? c->rel : "", c && c->rel ? "." : "", c ? c->name : "?");
                    return NULL;
                }
            }
            it->lcols = lc;
        }
        Expr **all = ARENA_ARRAY(b->arena, Expr *, sc->nt + 2);
        memcpy(all, exprs, sizeof(Expr *) * (size_t)sc->nt);
        int n = sc->nt;
        if (having) all[n++] = having;
        top = bind_scalar_joins(b, agg, sc->scope.input, &gsubs, 0, all, n);
    }
    if (having) top = bind_filter_node(b, top, having, bind_ast_start(sel->having));
    return finish(sc, top, exprs);
}

/* ---- WHERE ------------------------------------------------------------------------------------ */

/* Binds WHERE: semi/anti joins for IN / EXISTS conjuncts, correlation equalities
 * extracted (correlated subqueries), conjuncts pushed into the FROM clause's joins,
 * scalar subqueries joined, the rest as a Filter. */
static bool bind_where(SelectCtx *sc, PlanNode **pcur)
{
    Binder *b = sc->b;
    Ast *w = sc->sel->where;
    ExprCtx wc = {b, &sc->scope, AGGS_FORBIDDEN, "WHERE", NULL, sc->aliases, sc->naliases, sc->corr != NULL,
                  &sc->subs, NULL, sc->env, NULL};
    Ast **items = &w;
    int nitems = 1;
    const char *what = "WHERE";
    if (w->kind == AST_AND) {
        items = w->args.items;
        nitems = w->args.n;
        what = "AND";
    }
    bool ok = true;
    Expr **bound = ARENA_ARRAY(b->arena, Expr *, nitems + 1);
    Ast **semi = ARENA_ARRAY(b->arena, Ast *, nitems + 1);
    int nsemi = 0;
    for (int i = 0; i < nitems; i++) {
        if (bind_is_semi_conjunct(items[i])) {
            semi[nsemi++] = items[i];
            continue;
        }
        bound[i] = bind_condition(&wc, items[i], what);
        if (!bound[i]) ok = false;
    }
    if (!ok) return false;
    /* per item: its conjuncts, minus those moved into joins or correlation keys */
    Expr **keep = NULL;
    int nkeep = 0, capkeep = 0;
    Expr ***vs = ARENA_ARRAY(b->arena, Expr **, nitems + 1);
    int *ns = ARENA_ARRAY(b->arena, int, nitems + 1), *befores = ARENA_ARRAY(b->arena, int, nitems + 1);
    Expr **all = NULL;
    int nall = 0, capall = 0;
    for (int i = 0; i < nitems; i++) {
        if (!bound[i]) continue;
        int cap = 0;
        bind_conjuncts(b, bound[i], &vs[i], &ns[i], &cap);
        befores[i] = ns[i];
        if (sc->corr && !sc->corr->domain && !bind_extract_correlation(b, vs[i], &ns[i])) ok = false;
        for (int k = 0; k < ns[i]; k++) bind_push(b, (void ***)&all, &nall, &capall, vs[i][k]);
    }
    /* a comma list is joined in an order its conditions connect */
    PlanNode *reordered = bind_comma_order(b, &sc->fi, *pcur, all, nall);
    if (reordered != *pcur) sc->scope.input = *pcur = reordered;
    add_domain(sc, pcur);
    for (int i = 0; i < nitems; i++) {
        if (!bound[i]) continue;
        Expr **v = vs[i];
        int n = ns[i], before = befores[i];
        int kept = 0;
        for (int k = 0; k < n; k++)
            if (!bind_where_push(b, &sc->fi, *pcur, v[k])) v[kept++] = v[k];
        if (kept == before) {
            bind_push(b, (void ***)&keep, &nkeep, &capkeep, bound[i]);
        } else {
            for (int k = 0; k < kept; k++) bind_push(b, (void ***)&keep, &nkeep, &capkeep, v[k]);
        }
    }
    bind_join_finish(b, &sc->fi);
    if (!ok) return false;
    PlanNode *cur = *pcur;
    for (int i = 0; i < nsemi; i++) {
        bool retry;
        PlanNode *j = bind_semi_join(b, cur, &sc->scope, sc->env, semi[i], &retry);
        if (retry) {
            /* a correlation the semi join cannot take: the general form, a condition */
            Expr *c = bind_condition(&wc, semi[i], what);
            if (!c) ok = false;
            else bind_push(b, (void ***)&keep, &nkeep, &capkeep, c);
        } else if (!j) {
            ok = false;
        } else {
            cur = j;
        }
    }
    if (!ok) return false;
    cur = bind_scalar_joins(b, cur, sc->scope.input, &sc->subs, 0, keep, nkeep);
    sc->nsubs_where = sc->subs.n;
    if (nkeep) cur = bind_filter_node(b, cur, bind_and(b, keep, nkeep, w->loc), bind_ast_start(w));
    *pcur = cur;
    return true;
}

PlanNode *bind_select(Binder *b, Ast *sel, const CteEnv *env, int flags)
{
    SelectCtx sc;
    memset(&sc, 0, sizeof sc);
    sc.b = b;
    sc.sel = sel;
    sc.flags = flags;
    sc.env = env;
    sc.corr = b->corr && b->corr->sel == sel ? b->corr : NULL;
    for (int i = 0; !sc.corr && b->corr && i < b->corr->nbranches; i++)
        if (b->corr->branches[i] == sel) sc.corr = b->corr;
    PlanNode *cur = bind_from(b, sel, env, &sc.scope, &sc.fi);
    if (!cur) return NULL;
    if (in_domain(&sc) && !sc.corr->discover) {
        CorrSink *cs = sc.corr;
        cs->dbase = cur->ncols;
        cs->inner = ARENA_ARRAY(b->arena, Expr *, cs->nd + 1);
        for (int j = 0; j < cs->nd; j++) cs->inner[j] = plan_expr_column(b->arena, cs->dbase + j, cs->dnode->cols[j].type);
        cs->n = cs->nd;
    }
    bool ok = true;
    sc.wins.named = &sel->windows;
    if (!expand_targets(&sc)) ok = false;
    if ((flags & QF_UNIQUE_NAMES) && ok && !check_unique_names(&sc)) ok = false;

    if (sel->where) {
        if (!bind_where(&sc, &cur)) ok = false;
    } else {
        add_domain(&sc, &cur);
        bind_join_finish(b, &sc.fi);
    }
    bool grouped = sel->group_by.n > 0 || sel->having != NULL;
    for (int i = 0; i < sc.nt && !grouped; i++) grouped = bind_ast_has_agg(sc.t[i].ast);
    if (flags & (QF_CHECK_ORDER | QF_TOPN))
        for (int i = 0; i < sel->order_by.n && !grouped; i++) grouped = bind_ast_has_agg(sel->order_by.items[i]);
    if (sel->distinct_on.n && grouped) {
        bind_unsupported(b, bind_ast_start(sel->distinct_on.items[0]), "DISTINCT ON in a query with GROUP BY or aggregates");
        ok = false;
    }
    if (sc.corr && !sc.corr->domain && sc.corr->n && (grouped || sel->distinct || sel->distinct_on.n || (flags & QF_TOPN)) &&
        sc.corr->soft) {
        sc.corr->retry = true;
        ok = false;
    } else if (sc.corr && !sc.corr->domain && sc.corr->n && (grouped || sel->distinct || sel->distinct_on.n || (flags & QF_TOPN))) {
        bind_error(b, sel->loc, "unsupported", "correlate a plain SELECT ... FROM ... WHERE subquery",
                   "a correlated subquery with GROUP BY, aggregates, DISTINCT or LIMIT is not supported yet");
        ok = false;
    }
    PlanNode *p = grouped ? bind_grouped(&sc, cur) : bind_plain(&sc, cur);
    return ok ? p : NULL;
}
