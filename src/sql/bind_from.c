/* FROM clause binding and name resolution: source('x') and ref('m') calls, WITH
 * queries and subqueries in FROM (inlined as plan subtrees), aliases and alias column
 * lists, the scope of visible columns, resolution of plain and alias-qualified column
 * references with PostgreSQL's errors (does not exist / ambiguous / missing
 * FROM-clause entry) — falling back to the enclosing query's scope for correlated
 * subqueries — and * / alias.* expansion. Join trees are bound by bind_join.c and
 * window table functions by bind_window.c; several FROM items are cross joined. */
#include "sql/bind_internal.h"

#include <string.h>

/* ---- scope --------------------------------------------------------------------------- */

void bind_scope_add(Binder *b, Scope *s, const char *alias, const PlanNode *plan, int base)
{
    const char **rels = ARENA_ARRAY(b->arena, const char *, s->nrels + 1);
    if (s->nrels) memcpy(rels, s->rels, sizeof(const char *) * (size_t)s->nrels);
    rels[s->nrels++] = alias;
    s->rels = rels;
    ScopeCol *cols = ARENA_ARRAY(b->arena, ScopeCol, s->ncols + plan->ncols + 1);
    if (s->ncols) memcpy(cols, s->cols, sizeof(ScopeCol) * (size_t)s->ncols);
    for (int i = 0; i < plan->ncols; i++) {
        ScopeCol *c = &cols[s->ncols + i];
        memset(c, 0, sizeof *c);
        c->rel = alias;
        c->name = plan->cols[i].name;
        c->index = base + i;
        c->type = plan->cols[i].type;
        c->lineage = c->hidden = plan->cols[i].lineage != 0;
    }
    s->cols = cols;
    s->ncols += plan->ncols;
}

static bool rel_in_scope(const Scope *s, const char *rel)
{
    for (int i = 0; i < s->nrels; i++)
        if (s->rels[i] && strcmp(s->rels[i], rel) == 0) return true;
    return false;
}

static void missing_rel(Binder *b, const Scope *s, const char *rel, int loc)
{
    bind_error(b, loc, "unknown-relation", bind_did_you_mean(b, rel, s->rels, s->nrels),
               "missing FROM-clause entry for table \"%s\"", rel);
}

static const char *unknown_column_hint(ExprCtx *cx, const char *name, const char *const *cands, int n)
{
    Binder *b = cx->b;
    for (int i = 0; i < cx->naliases; i++)
        if (cx->aliases[i] && strcmp(cx->aliases[i], name) == 0)
            return arena_printf(b->arena,
                                "\"%s\" is an output column alias; aliases can be used in GROUP BY and ORDER BY, "
                                "not in %s: repeat the expression",
                                name, cx->clause ? cx->clause : "this clause");
    return bind_did_you_mean(b, name, cands, n);
}

typedef enum Lookup { LK_FOUND, LK_NOT_FOUND, LK_NO_REL, LK_AMBIGUOUS, LK_TOO_MANY } Lookup;

/* Finds a column reference in s without reporting. */
static Lookup lookup(const Scope *s, const Ast *ref, const ScopeCol **out)
{
    *out = NULL;
    if (ref->nnames == 1) {
        const char *name = ref->names[0];
        for (int i = 0; i < s->ncols; i++) {
            const ScopeCol *c = &s->cols[i];
            if (c->qualified_only || strcmp(c->name, name) != 0) continue;
            if (*out && (*out)->index != c->index) return LK_AMBIGUOUS;
            if (!*out) *out = c;
        }
        return *out ? LK_FOUND : LK_NOT_FOUND;
    }
    if (ref->nnames == 2) {
        const char *rel = ref->names[0], *name = ref->names[1];
        if (!rel_in_scope(s, rel)) return LK_NO_REL;
        for (int i = 0; i < s->ncols; i++) {
            const ScopeCol *c = &s->cols[i];
            if (!c->rel || strcmp(c->rel, rel) != 0 || strcmp(c->name, name) != 0) continue;
            if (*out && (*out)->index != c->index) return LK_AMBIGUOUS;
            if (!*out) *out = c;
        }
        return *out ? LK_FOUND : LK_NOT_FOUND;
    }
    return LK_TOO_MANY;
}

const ScopeCol *bind_resolve_column(ExprCtx *cx, const Ast *ref, bool *outer)
{
    Binder *b = cx->b;
    const Scope *s = cx->scope;
    int loc = ref->loc;
    *outer = false;
    if (!s) {
        bind_error(b, loc, "unknown-column", NULL, "column reference is not allowed here");
        return NULL;
    }
    const ScopeCol *found;
    Lookup lk = lookup(s, ref, &found);
    if (lk == LK_FOUND) return found;
    if ((lk == LK_NOT_FOUND || lk == LK_NO_REL) && b->outer) {
        const ScopeCol *oc;
        if (lookup(b->outer, ref, &oc) == LK_FOUND) {
            *outer = true;
            return oc;
        }
    }
    if (ref->nnames == 1) {
        const char *name = ref->names[0];
        if (lk == LK_AMBIGUOUS) {
            bind_error(b, loc, "ambiguous-column", "qualify the column with its relation, e.g. t.x",
                       "column reference \"%s\" is ambiguous", name);
            return NULL;
        }
        const char **cands = ARENA_ARRAY(b->arena, const char *, s->ncols + 1);
        int n = 0;
        for (int i = 0; i < s->ncols; i++)
            if (!s->cols[i].qualified_only) cands[n++] = s->cols[i].name;
        bind_error(b, loc, "unknown-column", unknown_column_hint(cx, name, cands, n), "column \"%s\" does not exist",
                   name);
        return NULL;
    }
    if (ref->nnames == 2) {
        const char *rel = ref->names[0], *name = ref->names[1];
        if (lk == LK_NO_REL) {
            missing_rel(b, s, rel, loc);
            return NULL;
        }
        if (lk == LK_AMBIGUOUS) {
            bind_error(b, loc, "ambiguous-column", NULL, "column reference \"%s.%s\" is ambiguous", rel, name);
            return NULL;
        }
        const char **cands = ARENA_ARRAY(b->arena, const char *, s->ncols + 1);
        int n = 0;
        for (int i = 0; i < s->ncols; i++)
            if (s->cols[i].rel && strcmp(s->cols[i].rel, rel) == 0) cands[n++] = s->cols[i].name;
        bind_error(b, loc, "unknown-column", bind_did_you_mean(b, name, cands, n), "column %s.%s does not exist", rel,
                   name);
        return NULL;
    }
    StrBuf sb = STRBUF_INIT;
    for (int i = 0; i < ref->nnames; i++) {
        if (i) sb_putc(&sb, '.');
        sb_puts(&sb, ref->names[i]);
    }
    bind_error(b, loc, "unknown-column", "qualify columns with the relation's alias only, e.g. orders.amount",
               "column reference \"%s\" has too many dotted names", sb_cstr(&sb));
    sb_free(&sb);
    return NULL;
}

int bind_expand_star(Binder *b, const Scope *s, const Ast *ref, const ScopeCol ***out)
{
    const char *rel = ref->nnames >= 1 ? ref->names[ref->nnames - 1] : NULL;
    if (ref->nnames > 1) {
        bind_error(b, ref->loc, "unknown-column", "qualify columns with the relation's alias only, e.g. orders.*",
                   "improper qualified name (too many dotted names)");
        return -1;
    }
    if (rel && !rel_in_scope(s, rel)) {
        missing_rel(b, s, rel, ref->loc);
        return -1;
    }
    const ScopeCol **v = ARENA_ARRAY(b->arena, const ScopeCol *, s->ncols + 1);
    int n = 0;
    for (int i = 0; i < s->ncols; i++) {
        const ScopeCol *c = &s->cols[i];
        if (rel ? (c->rel && strcmp(c->rel, rel) == 0 && !c->lineage) : !c->hidden) v[n++] = c;
    }
    *out = v;
    return n;
}

/* ---- renaming ---------------------------------------------------------------------------- */

PlanNode *bind_rename_columns(Binder *b, PlanNode *plan, const char *const *names, int n, int loc,
                              const char *what)
{
    if (n == 0) return plan;
    int visible = 0;  /* lineage columns keep their names */
    for (int i = 0; i < plan->ncols; i++) visible += !plan->cols[i].lineage;
    if (n > visible) {
        bind_error(b, loc, "invalid-alias", NULL, "%s has %d columns available but %d columns specified", what,
                   visible, n);
        return NULL;
    }
    PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, plan->ncols);
    memcpy(cols, plan->cols, sizeof(PlanColumn) * (size_t)plan->ncols);
    for (int i = 0; i < n; i++) cols[i].name = names[i];
    if (plan->kind == PL_PROJECT) {
        /* a projection made for this query (or a private copy): rename in place */
        plan->cols = cols;
        return plan;
    }
    /* sources, refs, aggregates keep their own names: rename with a projection */
    Expr **exprs = ARENA_ARRAY(b->arena, Expr *, plan->ncols);
    for (int i = 0; i < plan->ncols; i++) exprs[i] = plan_expr_column(b->arena, i, plan->cols[i].type);
    return bind_project_node(b, plan, exprs, cols, plan->ncols, loc);
}

/* ---- FROM items --------------------------------------------------------------------------- */

static const char *last_dotted(const char *s)
{
    const char *dot = strrchr(s, '.');
    return dot ? dot + 1 : s;
}

/* Names for hints: "did you mean ..." over sources and models. */
static const char **source_names(Binder *b, int *n)
{
    const Project *p = b->project;
    const char **v = ARENA_ARRAY(b->arena, const char *, p->nsources + 1);
    for (int i = 0; i < p->nsources; i++) v[i] = p->sources[i].name;
    *n = p->nsources;
    return v;
}

static const char **model_names(Binder *b, int *n)
{
    const Project *p = b->project;
    const char **v = ARENA_ARRAY(b->arena, const char *, p->nmodels + 1);
    for (int i = 0; i < p->nmodels; i++) v[i] = p->models[i].name;
    *n = p->nmodels;
    return v;
}

static PlanNode *bind_source_call(Binder *b, const char *name, int arg_loc, const char **alias)
{
    const SourceDef *sd = project_find_source(b->project, name);
    if (!sd) {
        int n;
        const char **names = source_names(b, &n);
        const char *hint = bind_did_you_mean(b, name, names, n);
        if (!hint && project_find_model(b->project, name))
            hint = arena_printf(b->arena, "\"%s\" is a model: read it with ref('%s')", name, name);
        /* source('customers') for shop.customers: sources are named with their prefix */
        for (int i = 0; !hint && i < n; i++) {
            const char *dot = strrchr(names[i], '.');
            if (dot && strcmp(dot + 1, name) == 0) hint = arena_printf(b->arena, "did you mean '%s'?", names[i]);
        }
        bind_error(b, arg_loc, "unknown-source", hint, "source \"%s\" does not exist", name);
        return NULL;
    }
    PlanNode *n = plan_node_new(b->arena, PL_SOURCE, arg_loc);
    n->name = sd->name;
    /* the lineage columns follow the declared ones, only in models that name them */
    int nlin = b->lineage && source_has_lineage(sd) ? LINEAGE_NCOLS : 0;
    n->ncols = sd->ncolumns + nlin;
    n->cols = ARENA_ARRAY(b->arena, PlanColumn, n->ncols > 0 ? n->ncols : 1);
    for (int i = 0; i < sd->ncolumns; i++) {
        n->cols[i].name = sd->columns[i].name;
        n->cols[i].type = sd->columns[i].type;
    }
    for (int k = 1; k <= nlin; k++) {
        PlanColumn *c = &n->cols[sd->ncolumns + k - 1];
        c->name = source_lineage_name(k);
        c->type = source_lineage_type(k);
        c->lineage = (uint8_t)k;
    }
    *alias = last_dotted(sd->name);
    return n;
}

static PlanNode *bind_ref_call(Binder *b, const char *name, int arg_loc, const char **alias)
{
    const ModelDef *md = project_find_model(b->project, name);
    if (!md) {
        int n;
        const char **names = model_names(b, &n);
        const char *hint = bind_did_you_mean(b, name, names, n);
        if (!hint && project_find_source(b->project, name))
            hint = arena_printf(b->arena, "\"%s\" is a source: read it with source('%s')", name, name);
        bind_error(b, arg_loc, "unknown-model", hint, "model \"%s\" does not exist", name);
        return NULL;
    }
    int idx = bound_model_index(b->bp, name);
    const PlanNode *up = idx >= 0 ? b->bp->models[idx].root : NULL;
    if (!up) {
        /* the referenced model failed to bind (or is in a cycle): already reported */
        b->failed = true;
        return NULL;
    }
    PlanNode *n = plan_node_new(b->arena, PL_REF, arg_loc);
    n->name = md->name;
    n->ncols = up->ncols;
    n->cols = ARENA_ARRAY(b->arena, PlanColumn, up->ncols > 0 ? up->ncols : 1);
    memcpy(n->cols, up->cols, sizeof(PlanColumn) * (size_t)up->ncols);
    *alias = md->name;
    return n;
}

static PlanNode *bind_range_function(Binder *b, Ast *item, const CteEnv *env, const char **alias)
{
    Ast *fc = item->func ? item->func : item;
    const char *fname = fc->name ? fc->name : "";
    int loc = fc->loc >= 0 ? fc->loc : item->loc;
    if (item->lateral) {
        bind_unsupported(b, item->loc, "LATERAL");
        return NULL;
    }
    bool is_source = strcmp(fname, "source") == 0, is_ref = strcmp(fname, "ref") == 0;
    if ((is_source || is_ref) && fc->nnames <= 1) {
        const Ast *arg = fc->args.n == 1 ? fc->args.items[0] : NULL;
        if (!arg || arg->kind != AST_CONST || arg->const_kind != AST_CONST_STRING || fc->agg_star ||
            fc->agg_distinct || fc->over || fc->agg_filter) {
            bind_error(b, arg ? arg->loc : loc, "invalid-argument",
                       is_source ? "e.g. FROM source('commerce.orders')" : "e.g. FROM ref('customer_metrics')",
                       "%s() takes one string literal naming a %s", fname, is_source ? "source" : "model");
            return NULL;
        }
        return is_source ? bind_source_call(b, arg->text, arg->loc, alias)
                         : bind_ref_call(b, arg->text, arg->loc, alias);
    }
    if ((strcmp(fname, "tumble") == 0 || strcmp(fname, "hop") == 0 || strcmp(fname, "session") == 0) &&
        fc->nnames <= 1)
        return bind_window_tvf(b, item, env, alias);
    if (strcmp(fname, "cumulate") == 0 && fc->nnames <= 1) {
        bind_error(b, loc, "unsupported",
                   "use TUMBLE(rel, time_col, size) or HOP(rel, time_col, slide, size) windows",
                   "CUMULATE windows are not supported yet");
        return NULL;
    }
    bind_error(b, loc, "unsupported", "read sources with source('...') and other models with ref('...')",
               "table function %s() is not supported yet", fname);
    return NULL;
}

static const CteEnv *find_cte(const CteEnv *env, const char *name)
{
    for (; env; env = env->next)
        if (strcmp(env->name, name) == 0) return env;
    return NULL;
}

static void relation_missing(Binder *b, const CteEnv *env, const Ast *item)
{
    const char *name = item->name ? item->name : "";
    StrBuf hint = STRBUF_INIT;
    sb_puts(&hint, "read sources with source('...') and other models with ref('...')");
    /* the closest of: a WITH query, a source (also by its last dotted part), a model */
    int nc = 0;
    for (const CteEnv *e = env; e; e = e->next) nc++;
    const char **ctes = ARENA_ARRAY(b->arena, const char *, nc + 1);
    nc = 0;
    for (const CteEnv *e = env; e; e = e->next) ctes[nc++] = e->name;
    const char *c = diag_closest(name, ctes, nc);
    const Project *p = b->project;
    if (c) {
        sb_printf(&hint, "; did you mean '%s'?", c);
    } else {
        const char *src = NULL;
        for (int i = 0; i < p->nsources && !src; i++)
            if (strcmp(p->sources[i].name, name) == 0 || strcmp(last_dotted(p->sources[i].name), name) == 0)
                src = p->sources[i].name;
        if (!src) {
            int n;
            const char **names = source_names(b, &n);
            src = diag_closest(name, names, n);
        }
        const char *model = project_find_model(p, name) ? name : NULL;
        if (!model) {
            int n;
            const char **names = model_names(b, &n);
            model = diag_closest(name, names, n);
        }
        if (src) sb_printf(&hint, "; did you mean source('%s')?", src);
        else if (model) sb_printf(&hint, "; did you mean ref('%s')?", model);
    }
    bind_error(b, item->loc, "unknown-relation", sb_cstr(&hint), "relation \"%s\" does not exist", name);
    sb_free(&hint);
}

PlanNode *bind_relation_arg(Binder *b, Ast *arg, const CteEnv *env, const char **alias)
{
    if (arg->kind == AST_FUNC_CALL && arg->name && arg->nnames <= 1 &&
        (strcmp(arg->name, "source") == 0 || strcmp(arg->name, "ref") == 0)) {
        Ast item;
        memset(&item, 0, sizeof item);
        item.kind = AST_RANGE_FUNCTION;
        item.loc = arg->loc;
        item.func = arg;
        item.args = arg->args;
        return bind_range_function(b, &item, env, alias);
    }
    if (arg->kind == AST_COLUMN_REF && arg->nnames == 1 && !arg->star) {
        Ast item;
        memset(&item, 0, sizeof item);
        item.kind = AST_RANGE_VAR;
        item.loc = arg->loc;
        item.name = arg->names[0];
        const CteEnv *c = find_cte(env, item.name);
        if (!c) {
            relation_missing(b, env, &item);
            return NULL;
        }
        if (!c->plan) {
            b->failed = true;
            return NULL;
        }
        *alias = c->name;
        return plan_node_copy(b->arena, c->plan);
    }
    bind_error(b, bind_ast_start(arg), "invalid-argument",
               "e.g. TUMBLE(source('commerce.orders'), created_at, INTERVAL '10' SECOND), or the name of a WITH query",
               "the first argument of a window table function must be source('...'), ref('...') or the name of a WITH "
               "query");
    return NULL;
}

PlanNode *bind_from_item(Binder *b, Ast *item, const CteEnv *env, const char **alias)
{
    PlanNode *plan = NULL;
    const char *dflt = NULL;
    const char *what = NULL;
    switch (item->kind) {
    case AST_RANGE_FUNCTION:
        plan = bind_range_function(b, item, env, &dflt);
        break;
    case AST_RANGE_VAR: {
        const CteEnv *c = item->name ? find_cte(env, item->name) : NULL;
        if (!c) {
            relation_missing(b, env, item);
            return NULL;
        }
        if (!c->plan) {
            b->failed = true; /* the WITH query's own errors are reported */
            return NULL;
        }
        plan = plan_node_copy(b->arena, c->plan);
        dflt = c->name;
        break;
    }
    case AST_RANGE_SUBSELECT:
        if (item->lateral) {
            bind_unsupported(b, item->loc, "LATERAL");
            return NULL;
        }
        plan = bind_query(b, item->subquery, env, 0);
        dflt = NULL;
        break;
    case AST_UNSUPPORTED:
        bind_unsupported(b, item->loc, item->name ? item->name : "this FROM item");
        return NULL;
    default:
        bind_unsupported(b, item->loc, ast_kind_name(item->kind));
        return NULL;
    }
    if (!plan) return NULL;
    *alias = item->alias ? item->alias : dflt;
    if (item->nalias_cols) {
        what = arena_printf(b->arena, "table \"%s\"", *alias ? *alias : "subquery");
        plan = bind_rename_columns(b, plan, item->alias_cols, item->nalias_cols, item->loc, what);
    }
    return plan;
}

/* ---- constant relations ------------------------------------------------------------- */

static void find_sublink(Ast *a, void *ud)
{
    Ast **found = ud;
    if (!*found && (a->kind == AST_SUBLINK || a->kind == AST_SELECT)) *found = a;
}

Ast *bind_values_with_subqueries(Binder *b, Ast *q)
{
    int nrows = q->nvalues, ncols = q->values[0].n;
    Ast *sub = NULL;
    for (int r = 0; r < nrows && !sub; r++)
        for (int c = 0; c < q->values[r].n && !sub; c++) bind_ast_walk(q->values[r].items[c], find_sublink, &sub);
    if (!sub) return NULL;
    for (int r = 1; r < nrows; r++)
        if (q->values[r].n != ncols) return NULL; /* bind_values reports it */
    Ast *u = NULL;
    for (int r = 0; r < nrows; r++) {
        Ast *s = ARENA_NEW(b->arena, Ast);
        memset(s, 0, sizeof *s);
        s->kind = AST_SELECT;
        s->loc = bind_ast_start(q->values[r].items[0]);
        s->targets.items = ARENA_ARRAY(b->arena, Ast *, ncols + 1);
        s->targets.n = ncols;
        for (int c = 0; c < ncols; c++) {
            Ast *t = ARENA_NEW(b->arena, Ast);
            memset(t, 0, sizeof *t);
            t->kind = AST_RES_TARGET;
            t->name = arena_printf(b->arena, "column%d", c + 1);
            t->expr = q->values[r].items[c];
            t->loc = bind_ast_start(t->expr);
            s->targets.items[c] = t;
        }
        if (!u) {
            u = s;
            continue;
        }
        Ast *un = ARENA_NEW(b->arena, Ast);
        memset(un, 0, sizeof *un);
        un->kind = AST_SELECT;
        un->setop = AST_SETOP_UNION;
        un->setop_all = true;
        un->larg = u;
        un->rarg = s;
        un->loc = q->loc;
        u = un;
    }
    return u;
}

PlanNode *bind_values(Binder *b, Ast *q)
{
    int nrows = q->nvalues, ncols = q->values[0].n;
    for (int r = 1; r < nrows; r++)
        if (q->values[r].n != ncols) {
            int loc = q->values[r].n ? bind_ast_start(q->values[r].items[0]) : q->loc;
            bind_error(b, loc, "sql-syntax", NULL, "VALUES lists must all be the same length");
            return NULL;
        }
    Scope empty;
    memset(&empty, 0, sizeof empty);
    ExprCtx cx;
    memset(&cx, 0, sizeof cx);
    cx.b = b;
    cx.scope = &empty;
    cx.agg_mode = AGGS_FORBIDDEN;
    cx.clause = "VALUES";
    Expr **ex = ARENA_ARRAY(b->arena, Expr *, (size_t)nrows * (size_t)ncols + 1);
    bool ok = true;
    for (int r = 0; r < nrows; r++)
        for (int c = 0; c < ncols; c++) {
            Ast *e = q->values[r].items[c];
            Ast *sub = NULL;
            bind_ast_walk(e, find_sublink, &sub);
            if (sub) {
                bind_unsupported(b, sub->loc >= 0 ? sub->loc : bind_ast_start(e), "a subquery in VALUES");
                ok = false;
                continue;
            }
            if (!(ex[r * ncols + c] = bind_expr(&cx, e))) ok = false;
        }
    if (!ok) return NULL;
    PlanColumn *cols = ARENA_ARRAY(b->arena, PlanColumn, ncols + 1);
    Expr **col = ARENA_ARRAY(b->arena, Expr *, nrows + 1);
    for (int c = 0; c < ncols && ok; c++) {
        for (int r = 0; r < nrows; r++) col[r] = ex[r * ncols + c];
        Type t;
        if (!bind_common_type(b, col, nrows, "VALUES", &t)) {
            ok = false;
            break;
        }
        for (int r = 0; r < nrows && ok; r++)
            if (!(ex[r * ncols + c] = bind_coerce(b, col[r], t))) ok = false;
        cols[c].name = arena_printf(b->arena, "column%d", c + 1);
        cols[c].type = t;
    }
    if (!ok) return NULL;
    PlanNode *v = plan_node_new(b->arena, PL_VALUES, q->loc);
    v->nrows = nrows;
    v->exprs = ex;
    v->nexprs = nrows * ncols;
    v->cols = cols;
    v->ncols = ncols;
    return v;
}

PlanNode *bind_from(Binder *b, Ast *sel, const CteEnv *env, Scope *scope, FromInfo *fi)
{
    memset(scope, 0, sizeof *scope);
    if (sel->from.n == 0) {
        /* SELECT without FROM reads one row, of no columns the query can name: the
         * plan's row holds one column, `__row` (true), outside the scope, so that no
         * operator ever keeps rows of no bytes */
        PlanNode *v = plan_node_new(b->arena, PL_VALUES, sel->loc);
        v->nrows = 1;
        v->ncols = 1;
        v->cols = ARENA_ARRAY(b->arena, PlanColumn, 1);
        v->cols[0].name = "__row";
        v->cols[0].type = type_make(T_BOOL);
        v->exprs = ARENA_ARRAY(b->arena, Expr *, 1);
        v->exprs[0] = plan_expr_const(b->arena, type_make(T_BOOL), value_bool(true));
        v->nexprs = 1;
        scope->input = v;
        return v;
    }
    PlanNode *plan = NULL;
    bool ok = true;
    CommaList *cl = &fi->comma;
    memset(cl, 0, sizeof *cl);
    if (sel->from.n >= 3) {
        cl->items = ARENA_ARRAY(b->arena, PlanNode *, sel->from.n);
        cl->base = ARENA_ARRAY(b->arena, int, sel->from.n);
        cl->cross = ARENA_ARRAY(b->arena, PlanNode *, sel->from.n);
    }
    for (int i = 0; i < sel->from.n; i++) {
        Scope s;
        memset(&s, 0, sizeof s);
        PlanNode *p = bind_join_tree(b, sel->from.items[i], env, &s, fi);
        if (!p) {
            ok = false;
            continue;
        }
        if (!ok) continue;
        if (cl->items) {
            cl->items[cl->n] = p;
            cl->base[cl->n++] = plan ? plan->ncols : 0;
        }
        if (!plan) {
            plan = p;
            *scope = s;
            continue;
        }
        /* FROM a, b: a cross join; the WHERE clause's conditions are pushed into it */
        for (int r = 0; r < s.nrels; r++)
            if (s.rels[r] && rel_in_scope(scope, s.rels[r])) {
                bind_error(b, sel->from.items[i]->loc, "duplicate-alias", "give one of them another alias",
                           "table name \"%s\" specified more than once", s.rels[r]);
                ok = false;
            }
        if (!ok) continue;
        int base = plan->ncols;
        plan = bind_cross_join(b, fi, plan, p, sel->from.items[i]->loc);
        if (cl->items) cl->cross[cl->n - 1] = plan;
        const char **rels = ARENA_ARRAY(b->arena, const char *, scope->nrels + s.nrels + 1);
        memcpy(rels, scope->rels, sizeof(const char *) * (size_t)scope->nrels);
        memcpy(rels + scope->nrels, s.rels, sizeof(const char *) * (size_t)s.nrels);
        ScopeCol *cols = ARENA_ARRAY(b->arena, ScopeCol, scope->ncols + s.ncols + 1);
        memcpy(cols, scope->cols, sizeof(ScopeCol) * (size_t)scope->ncols);
        for (int c = 0; c < s.ncols; c++) {
            cols[scope->ncols + c] = s.cols[c];
            cols[scope->ncols + c].index += base;
        }
        scope->rels = rels;
        scope->nrels += s.nrels;
        scope->cols = cols;
        scope->ncols += s.ncols;
    }
    if (!ok || !plan) return NULL;
    if (cl->n < 3) cl->n = 0;
    scope->input = plan;
    return plan;
}
