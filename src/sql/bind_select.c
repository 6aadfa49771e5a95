/* One SELECT (no set operation): FROM -> [Filter(WHERE)] -> [Aggregate(keys, aggs)]
 * -> [Filter(HAVING)] -> Project(select list) -> [Distinct]. GROUP BY items may be
 * expressions, output-column names or ordinals (PostgreSQL's SQL92/SQL99 rules).
 * In a grouped query the select list and HAVING are bound over the input with
 * aggregate calls collected, then rewritten onto the Aggregate's output: a subtree
 * equal to a group key becomes that key's column, an aggregate its column, and any
 * other input column is PostgreSQL's "must appear in the GROUP BY clause" error.
 * Output columns are named as PostgreSQL names them. */
#include "sql/bind_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Target {
    Ast *ast;                 /* the expression, or NULL for a column expanded from * */
    const ScopeCol *col;      /* the *-expanded column */
    const char *name;         /* output column name */
    int loc;
} Target;

typedef struct SelectCtx {
    Binder *b;
    Ast *sel;
    int flags;
    Scope scope;
    Target *t;
    int nt;
    const char **aliases;
    int naliases;
} SelectCtx;

PlanNode *bind_project_node(Binder *b, PlanNode *input, Expr **exprs, PlanColumn *cols, int n, int loc)
{
    PlanNode *p = plan_node_new(b->arena, PL_PROJECT, loc);
    p->inputs = ARENA_ARRAY(b->arena, PlanNode *, 1);
    p->inputs[0] = input;
    p->ninputs = 1;
    p->exprs = exprs;
    p->nexprs = n;
    p->cols = cols;
    p->ncols = n;
    return p;
}

static PlanNode *unary_node(Binder *b, PlanKind k, PlanNode *input, int loc)
{
    PlanNode *p = plan_node_new(b->arena, k, loc);
    p->inputs = ARENA_ARRAY(b->arena, PlanNode *, 1);
    p->inputs[0] = input;
    p->ninputs = 1;
    p->cols = input->cols;
    p->ncols = input->ncols;
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
    if (e->kind == EX_COLUMN && e->col < 0) {
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

/* ---- ORDER BY (validated, then dropped: see bind_query.c) ---------------------------------- */

static void check_order(SelectCtx *sc, ExprCtx *oc, Regroup *rg)
{
    Binder *b = sc->b;
    for (int i = 0; i < sc->sel->order_by.n; i++) {
        Ast *s = sc->sel->order_by.items[i];
        Ast *e = s->kind == AST_SORT_BY ? s->expr : s;
        if (!e) continue;
        if (e->kind == AST_COLUMN_REF && e->nnames == 1 && !e->star) {
            bool found = false;
            for (int j = 0; j < sc->nt && !found; j++) found = strcmp(sc->t[j].name, e->names[0]) == 0;
            if (found) continue;
        }
        if (e->kind == AST_CONST) {
            if (e->const_kind == AST_CONST_INT) {
                long pos = strtol(e->text, NULL, 10);
                if (pos < 1 || pos > sc->nt)
                    bind_error(b, e->loc, "invalid-order-by", NULL, "ORDER BY position %ld is not in select list", pos);
            } else {
                bind_error(b, e->loc, "invalid-order-by", NULL, "non-integer constant in ORDER BY");
            }
            continue;
        }
        Expr *x = bind_expr(oc, e);
        if (x && rg) regroup_top(rg, x);
    }
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

static PlanNode *finish(SelectCtx *sc, PlanNode *input, Expr **exprs)
{
    Binder *b = sc->b;
    PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, sc->nt + 1);
    for (int i = 0; i < sc->nt; i++) {
        cols[i].name = sc->t[i].name;
        cols[i].type = exprs[i]->type;
    }
    PlanNode *p = is_identity(input, exprs, cols, sc->nt)
                      ? input
                      : bind_project_node(b, input, exprs, cols, sc->nt, sc->sel->loc);
    if (sc->sel->distinct) p = unary_node(b, PL_DISTINCT, p, sc->sel->loc);
    return p;
}

static PlanNode *bind_plain(SelectCtx *sc, PlanNode *cur)
{
    Binder *b = sc->b;
    ExprCtx cx = {b, &sc->scope, AGGS_FORBIDDEN, "SELECT", NULL, sc->aliases, sc->naliases};
    Expr **exprs = ARENA_ARRAY(b->arena, Expr *, sc->nt + 1);
    bool ok = true;
    for (int i = 0; i < sc->nt; i++) {
        exprs[i] = bind_target(sc, &cx, &sc->t[i]);
        if (!exprs[i]) ok = false;
    }
    if (sc->flags & QF_CHECK_ORDER) {
        ExprCtx oc = cx;
        oc.clause = "ORDER BY";
        oc.aliases = NULL;
        oc.naliases = 0;
        check_order(sc, &oc, NULL);
    }
    if (!ok) return NULL;
    return finish(sc, cur, exprs);
}

static PlanNode *bind_grouped(SelectCtx *sc, PlanNode *cur)
{
    Binder *b = sc->b;
    Ast *sel = sc->sel;
    bool ok = true;

    /* group keys, over the input */
    ExprCtx gc = {b, &sc->scope, AGGS_FORBIDDEN, "GROUP BY", NULL, NULL, 0};
    Expr **keys = ARENA_ARRAY(b->arena, Expr *, sel->group_by.n + 1);
    int nkeys = 0;
    for (int i = 0; i < sel->group_by.n; i++) {
        Expr *k = bind_default_unknown(b, group_item(sc, &gc, sel->group_by.items[i]));
        if (!k) {
            ok = false;
            continue;
        }
        bool dup = false;
        for (int j = 0; j < nkeys && !dup; j++) dup = plan_expr_equal(keys[j], k);
        if (!dup) keys[nkeys++] = k;
    }

    /* select list and HAVING with aggregates collected */
    AggList aggs = {NULL, 0, 0};
    ExprCtx tc = {b, &sc->scope, AGGS_COLLECT, "SELECT", &aggs, sc->aliases, sc->naliases};
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
    Regroup rg = {b, &sc->scope, keys, nkeys, false};
    if (sc->flags & QF_CHECK_ORDER) {
        ExprCtx oc = tc;
        oc.clause = "ORDER BY";
        oc.aliases = NULL;
        oc.naliases = 0;
        check_order(sc, &oc, &rg);
        aggs.n = naggs; /* aggregates only the dropped ORDER BY needed */
    }
    if (!ok) return NULL;

    /* the Aggregate: keys first, then one column per aggregate call */
    PlanNode *agg = plan_node_new(b->arena, PL_AGGREGATE, sel->group_by.n ? bind_ast_start(sel->group_by.items[0]) : sel->loc);
    agg->inputs = ARENA_ARRAY(b->arena, PlanNode *, 1);
    agg->inputs[0] = cur;
    agg->ninputs = 1;
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
    if (having) {
        top = unary_node(b, PL_FILTER, agg, bind_ast_start(sel->having));
        top->pred = having;
    }
    return finish(sc, top, exprs);
}

PlanNode *bind_select(Binder *b, Ast *sel, const CteEnv *env, int flags)
{
    SelectCtx sc;
    memset(&sc, 0, sizeof sc);
    sc.b = b;
    sc.sel = sel;
    sc.flags = flags;
    PlanNode *cur = bind_from(b, sel, env, &sc.scope);
    if (!cur) return NULL;
    bool ok = true;
    if (sel->distinct_on.n) {
        bind_unsupported(b, bind_ast_start(sel->distinct_on.items[0]), "DISTINCT ON");
        ok = false;
    }
    if (sel->windows.n) {
        bind_unsupported(b, sel->windows.items[0]->loc, "the WINDOW clause");
        ok = false;
    }
    if (!expand_targets(&sc)) ok = false;
    if ((flags & QF_UNIQUE_NAMES) && ok && !check_unique_names(&sc)) ok = false;

    if (sel->where) {
        ExprCtx wc = {b, &sc.scope, AGGS_FORBIDDEN, "WHERE", NULL, sc.aliases, sc.naliases};
        Expr *pred = bind_condition(&wc, sel->where, "WHERE");
        if (pred) {
            cur = unary_node(b, PL_FILTER, cur, bind_ast_start(sel->where));
            cur->pred = pred;
        } else {
            ok = false;
        }
    }
    bool grouped = sel->group_by.n > 0 || sel->having != NULL;
    for (int i = 0; i < sc.nt && !grouped; i++) grouped = bind_ast_has_agg(sc.t[i].ast);
    if (flags & QF_CHECK_ORDER)
        for (int i = 0; i < sel->order_by.n && !grouped; i++) grouped = bind_ast_has_agg(sel->order_by.items[i]);

    PlanNode *p = grouped ? bind_grouped(&sc, cur) : bind_plain(&sc, cur);
    return ok ? p : NULL;
}
