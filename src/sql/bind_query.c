/* Query-level binding: the WITH clause (each WITH query bound once, in order, seeing
 * the ones before it; references copy its plan), set operations (bind_setop.c), and
 * where ORDER BY / LIMIT may appear: a continuously maintained result has no order, so
 * ORDER BY without LIMIT on the model's own query is accepted with a warning and
 * dropped; ORDER BY with a constant LIMIT is a TopN (in any query); DISTINCT ON
 * consumes its SELECT's ORDER BY; everything else is "not supported yet". */
#include "sql/bind_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- WITH ---------------------------------------------------------------------------- */

static const CteEnv *bind_ctes(Binder *b, Ast *q, const CteEnv *env)
{
    const CteEnv *outer = env;
    for (int i = 0; i < q->ctes.n; i++) {
        Ast *c = q->ctes.items[i];
        if (c->kind != AST_CTE) {
            bind_unsupported(b, c->loc, c->kind == AST_UNSUPPORTED && c->name ? c->name : ast_kind_name(c->kind));
            continue;
        }
        bool dup = false;
        for (const CteEnv *e = env; e != outer && !dup; e = e->next) dup = strcmp(e->name, c->name) == 0;
        if (dup) {
            bind_error(b, c->loc, "duplicate-cte", "give each WITH query its own name",
                       "WITH query name \"%s\" specified more than once", c->name);
            continue;
        }
        PlanNode *plan = bind_query(b, c->subquery, env, 0);
        if (plan && c->nalias_cols)
            plan = bind_rename_columns(b, plan, c->alias_cols, c->nalias_cols, c->loc,
                                       arena_printf(b->arena, "WITH query \"%s\"", c->name));
        /* a chain of WITH queries nests their plans without nesting the syntax */
        if (plan && !bind_check_depth(b, plan, c->loc)) plan = NULL;
        CteEnv *n = ARENA_NEW(b->arena, CteEnv);
        n->name = c->name;
        n->plan = plan;
        n->next = env;
        env = n;
    }
    return env;
}

/* ---- query ---------------------------------------------------------------------------------- */

int64_t bind_limit_value(Binder *b, Ast *limit)
{
    int loc = bind_ast_start(limit);
    if (limit->kind == AST_CONST && limit->const_kind == AST_CONST_INT) {
        long long v = strtoll(limit->text, NULL, 10);
        if (v < 0) {
            bind_error(b, loc, "invalid-limit", NULL, "LIMIT must not be negative");
            return -1;
        }
        if (v == 0) {
            bind_unsupported(b, loc, "LIMIT 0");
            return -1;
        }
        return v;
    }
    if (limit->kind == AST_OP && !limit->lexpr && limit->name && strcmp(limit->name, "-") == 0 && limit->rexpr &&
        limit->rexpr->kind == AST_CONST && limit->rexpr->const_kind == AST_CONST_INT) {
        bind_error(b, loc, "invalid-limit", NULL, "LIMIT must not be negative");
        return -1;
    }
    bind_unsupported(b, loc, "a LIMIT that is not an integer constant");
    return -1;
}

/* TopN over a set operation's result, ordered by its result columns. */
static PlanNode *setop_topn(Binder *b, Ast *q, PlanNode *p, int64_t limit)
{
    int *cols = ARENA_ARRAY(b->arena, int, q->order_by.n + 1);
    if (!bind_setop_order(b, q, p, cols)) return NULL;
    SortKey *keys = ARENA_ARRAY(b->arena, SortKey, q->order_by.n + 1);
    for (int i = 0; i < q->order_by.n; i++) {
        Ast *s = q->order_by.items[i];
        keys[i].expr = plan_expr_column(b->arena, cols[i], p->cols[cols[i]].type);
        keys[i].desc = s->kind == AST_SORT_BY && s->desc;
        keys[i].nulls_first = s->kind == AST_SORT_BY && (s->nulls == 1 || (s->nulls == 0 && s->desc));
    }
    /* the body of a correlated subquery: its first rows per outer value */
    const CorrSink *cs = b->corr;
    int npart = cs && cs->domain && !cs->discover && cs->setop == q ? cs->nd : 0;
    Expr **part = npart ? ARENA_ARRAY(b->arena, Expr *, npart) : NULL;
    for (int j = 0; j < npart; j++) {
        int c = p->ncols - npart + j;
        part[j] = plan_expr_column(b->arena, c, p->cols[c].type);
    }
    return bind_topn_node(b, p, part, npart, keys, q->order_by.n, limit, bind_ast_start(q->order_by.items[0]));
}

PlanNode *bind_query(Binder *b, Ast *q, const CteEnv *env, int flags)
{
    if (!q) {
        bind_error(b, -1, "sql-syntax", NULL, "missing query");
        return NULL;
    }
    if (q->kind == AST_UNSUPPORTED) {
        bind_unsupported(b, q->loc, q->name ? q->name : "this statement");
        return NULL;
    }
    if (q->kind != AST_SELECT) {
        bind_unsupported(b, q->loc, ast_kind_name(q->kind));
        return NULL;
    }
    bool ok = true;
    if (q->ctes.n) {
        if (q->recursive) {
            bind_unsupported(b, q->ctes.items[0]->loc, "WITH RECURSIVE");
            return NULL;
        }
        /* the WITH queries of a correlated subquery are not correlated */
        const struct Scope *save_outer = b->outer;
        CorrSink *save_corr = b->corr;
        b->corr = NULL;
        env = bind_ctes(b, q, env);
        b->outer = save_outer;
        b->corr = save_corr;
    }
    if (flags & QF_TOP) flags |= QF_UNIQUE_NAMES;
    bool simple = q->setop == AST_SETOP_NONE;
    int64_t limit = -1;
    if (q->offset) {
        /* OFFSET m with ORDER BY ... LIMIT n of a SELECT: a TopN of n + m rows whose
         * first m are dropped by their row number (bind_select.c) */
        Ast *o = q->offset;
        int oloc = bind_ast_start(o);
        if ((o->kind == AST_OP && !o->lexpr && o->name && strcmp(o->name, "-") == 0 && o->rexpr &&
             o->rexpr->kind == AST_CONST && o->rexpr->const_kind == AST_CONST_INT) ||
            (o->kind == AST_CONST && o->const_kind == AST_CONST_INT && strtoll(o->text, NULL, 10) < 0)) {
            bind_error(b, oloc, "invalid-offset", NULL, "OFFSET must not be negative");
            ok = false;
        } else if (o->kind != AST_CONST || o->const_kind != AST_CONST_INT) {
            bind_unsupported(b, oloc, "an OFFSET that is not an integer constant");
            ok = false;
        } else if (!q->limit) {
            bind_error(b, oloc, "unsupported",
                       "add ORDER BY ... LIMIT n: OFFSET keeps the rows after the first m of a TopN",
                       "OFFSET without LIMIT is not supported yet");
            ok = false;
        } else if (!simple || q->nvalues || q->distinct_on.n) {
            bind_unsupported(b, oloc, !simple ? "OFFSET on a set operation" : q->nvalues ? "OFFSET on VALUES"
                                                                                       : "OFFSET with DISTINCT ON");
            ok = false;
        }
    }
    bool none = q->limit && q->limit->kind == AST_CONST && q->limit->const_kind == AST_CONST_INT &&
                strtoll(q->limit->text, NULL, 10) == 0 && !q->offset;
    if (none) {
        /* LIMIT 0: no row, whatever the order (checked, then dropped) */
        limit = 0;
    } else if (q->limit) {
        if (!q->order_by.n) {
            bind_error(b, bind_ast_start(q->limit), "unsupported",
                       "add ORDER BY to say which rows to keep, e.g. ORDER BY amount DESC LIMIT 10",
                       "LIMIT without ORDER BY is not supported yet");
            ok = false;
        } else if (simple && q->distinct_on.n) {
            bind_unsupported(b, bind_ast_start(q->limit), "LIMIT with DISTINCT ON");
            ok = false;
        } else {
            limit = bind_limit_value(b, q->limit);
            if (limit < 0) ok = false;
        }
    }
    bool consumed = simple && q->distinct_on.n > 0;
    bool drop_order = false;
    if (q->order_by.n && !q->limit && !consumed) {
        int loc = bind_ast_start(q->order_by.items[0]);
        if (flags & QF_TOP) {
            bind_warning(b, loc, "order-by-ignored", "remove the ORDER BY; order rows where you read the result",
                         "ORDER BY is ignored: a continuously maintained result has no order");
            drop_order = true;
        } else {
            bind_unsupported(b, loc, "ORDER BY in a subquery, WITH query or UNION branch");
            ok = false;
        }
    }
    PlanNode *p;
    if (!simple) {
        p = bind_setop(b, q, env, flags);
        if (p && (drop_order || (none && q->order_by.n))) bind_setop_order(b, q, p, NULL);
        if (p && limit > 0) p = setop_topn(b, q, p, limit);
    } else if (q->nvalues) {
        if (limit >= 0) {
            bind_unsupported(b, bind_ast_start(q->limit), "LIMIT on VALUES");
            ok = false;
        }
        /* rows holding subqueries are bound as SELECTs under UNION ALL */
        Ast *u = bind_values_with_subqueries(b, q);
        p = u ? bind_query(b, u, env, flags) : bind_values(b, q);
    } else {
        p = bind_select(b, q, env,
                        flags | (drop_order || (none && q->order_by.n) ? QF_CHECK_ORDER : 0) | (limit > 0 ? QF_TOPN : 0));
    }
    if (p && none) {
        Expr *no = plan_expr_const(b->arena, type_make(T_BOOL), value_bool(false));
        p = bind_filter_node(b, p, no, bind_ast_start(q->limit));
    }
    return ok ? p : NULL;
}
