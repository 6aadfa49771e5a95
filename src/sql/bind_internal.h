/* Internal interface shared by the binder's files (bind_*.c); nothing outside
 * src/sql/bind_*.c includes it. The binder turns one model's AST into a typed plan:
 *   bind_project.c  dependency scan, ref() cycles, binding order, BoundProject
 *   bind_query.c    query level: WITH, set operations, ORDER BY / LIMIT placement
 *   bind_select.c   one SELECT: WHERE, GROUP BY, aggregates, HAVING, select list, DISTINCT
 *   bind_from.c     FROM items, scopes, column resolution, * expansion
 *   bind_expr.c     expressions and operators
 *   bind_literal.c  literals, casts and typed literals
 *   bind_func.c     scalar functions and aggregate calls
 *   bind_types.c    PostgreSQL type rules: categories, common types, coercions, casts
 *   bind_util.c     diagnostics and AST helpers */
#ifndef WEIR_SQL_BIND_INTERNAL_H
#define WEIR_SQL_BIND_INTERNAL_H

#include "sql/ast.h"
#include "sql/binder.h"
#include "sql/plan.h"

#include <stdbool.h>

/* Per-model binding state. */
typedef struct Binder {
    Arena *arena;                /* plans, names and the model's AST */
    DiagList *dl;
    const Project *project;
    const ModelDef *model;
    const BoundProject *bp;      /* for ref(): upstream models are bound first */
    bool failed;                 /* set by every error, and when an upstream is missing */
} Binder;

/* A column visible in a FROM scope. The join issue extends scopes to left ++ right
 * (indexes into the concatenated row) and adds USING/NATURAL merged columns: an entry
 * with rel == NULL and the two side entries marked hidden + qualified_only. */
typedef struct ScopeCol {
    const char *rel;             /* alias of the relation it belongs to (NULL: none) */
    const char *name;
    int index;                   /* column index in the input row of the clause */
    Type type;
    bool hidden;                 /* not part of * expansion */
    bool qualified_only;         /* only reachable as rel.name */
} ScopeCol;

typedef struct Scope {
    ScopeCol *cols;
    int ncols;
    const char **rels;           /* relation aliases in FROM order (NULL entries allowed) */
    int nrels;
    const PlanNode *input;       /* the node whose output the indexes refer to */
} Scope;

/* WITH queries visible at a point, innermost first. plan is NULL when the CTE
 * failed to bind (its errors are already reported). */
typedef struct CteEnv {
    const char *name;
    PlanNode *plan;
    const struct CteEnv *next;
} CteEnv;

typedef enum AggMode {
    AGGS_FORBIDDEN,              /* "aggregate functions are not allowed in <clause>" */
    AGGS_COLLECT,                /* aggregates are collected into ExprCtx.aggs */
    AGGS_INSIDE,                 /* inside an aggregate's argument: nesting error */
} AggMode;

typedef struct AggList {
    AggCall *items;
    int n, cap;
} AggList;

/* While a grouped SELECT is bound, an aggregate call k is an EX_COLUMN with this
 * (negative) index; bind_select.c rewrites it to the Aggregate's output column. */
#define BIND_AGG_COL(k) (-(k) - 1)
#define BIND_AGG_INDEX(col) (-(col) - 1)

typedef struct ExprCtx {
    Binder *b;
    const Scope *scope;
    AggMode agg_mode;
    const char *clause;          /* "WHERE", "GROUP BY", "SELECT", "HAVING", ... */
    AggList *aggs;               /* AGGS_COLLECT */
    const char *const *aliases;  /* output column aliases of this SELECT, for hints */
    int naliases;
} ExprCtx;

/* Query flags. */
enum {
    QF_TOP = 1,                  /* the model's own query: ORDER BY is ignored with a warning */
    QF_KEEP_UNKNOWN = 2,         /* set-operation branch: leave unknown literals for the set op */
    QF_UNIQUE_NAMES = 4,         /* output column names must be unique (the model's output) */
    QF_CHECK_ORDER = 8,          /* validate (then drop) this SELECT's ORDER BY */
};

/* ---- bind_util.c ---- */
SrcPos bind_pos(const Binder *b, int loc);
void bind_error(Binder *b, int loc, const char *code, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void bind_warning(Binder *b, int loc, const char *code, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "<what> is not supported yet" (code "unsupported"). */
void bind_unsupported(Binder *b, int loc, const char *what);
/* Leftmost position in an expression subtree (PostgreSQL's exprLocation), or -1. */
int bind_ast_start(const Ast *a);
/* Aggregate kind named by a function call (count, sum, avg, min, max, bool_and,
 * bool_or, every), or -1. */
int bind_agg_kind(const Ast *fc);
/* True when an aggregate call (without OVER) occurs in a, outside subqueries. */
bool bind_ast_has_agg(const Ast *a);
/* Calls fn on every node of the tree (subqueries included), parents first. */
void bind_ast_walk(Ast *a, void (*fn)(Ast *, void *), void *ud);
/* PostgreSQL's output column name for a select-list expression ("?column?" when none). */
const char *bind_figure_colname(const Ast *a);
/* Quotes a list of candidate names as a hint; NULL when nothing is close. */
const char *bind_did_you_mean(Binder *b, const char *word, const char *const *cands, int n);
/* True when the function-call AST names a pg_catalog (or unqualified) function. */
bool bind_func_unqualified(const Ast *fc);
/* "name(type, type)" for messages; types without typmods, as PostgreSQL prints them. */
const char *bind_func_signature(Binder *b, const char *name, Expr *const *args, int nargs, bool star);

/* ---- bind_types.c ---- */
typedef enum TypeCat { CAT_UNKNOWN, CAT_BOOL, CAT_NUM, CAT_STR, CAT_DATETIME, CAT_SPAN } TypeCat;
TypeCat bind_type_cat(Type t);
/* Name without typmod ("numeric", "unknown"), as in PostgreSQL's messages. */
const char *bind_type_display(Binder *b, Type t);
/* Name with typmod ("numeric(12,2)"). */
const char *bind_type_full(Binder *b, Type t);
/* Implicit cast exists (PostgreSQL's pg_cast 'i' entries for weir's types). */
bool bind_can_implicit(Type from, Type to);
/* Explicit cast exists. */
bool bind_can_explicit(Type from, Type to);
/* Common type of two operands of an arithmetic or comparison operator (both known,
 * same category): PostgreSQL's operator resolution outcome. */
Type bind_op_common(Type a, Type b);
/* select_common_type for CASE, COALESCE, UNION ...: all unknown -> text; different
 * categories -> error "<context> types x and y cannot be matched" at the offender.
 * Returns false on error. */
bool bind_common_type(Binder *b, Expr *const *es, int n, const char *context, Type *out);
/* Implicitly coerce e to `to` (unknown literals are parsed; constants are folded;
 * otherwise an EX_CAST is inserted). When only the typmod differs and `to` has none,
 * e is returned as is. Returns NULL after reporting an invalid literal. */
Expr *bind_coerce(Binder *b, Expr *e, Type to);
/* Like bind_coerce but the result has exactly type `to` (typmod included). */
Expr *bind_coerce_exact(Binder *b, Expr *e, Type to);
/* Explicit cast (CAST / ::), folded for constants; errors at loc. */
Expr *bind_cast(Binder *b, Expr *e, Type to, int loc);
/* Unknown literal -> text; anything else unchanged. */
Expr *bind_default_unknown(Binder *b, Expr *e);
/* Parses an AST type name; reports an error at its position and returns false when
 * the type is unknown or unsupported. */
bool bind_type_name(Binder *b, const AstTypeName *tn, Type *out);
bool bind_is_unknown_literal(const Expr *e);

/* ---- bind_expr.c ---- */
/* Binds an expression in cx. Returns NULL after reporting an error. */
Expr *bind_expr(ExprCtx *cx, Ast *a);
/* Binds a condition and checks it is boolean: "argument of <what> must be type boolean". */
Expr *bind_condition(ExprCtx *cx, Ast *a, const char *what);
/* Requires a bound expression to be boolean (unknown literals are parsed as boolean). */
Expr *bind_require_bool(ExprCtx *cx, Expr *e, const char *what, int loc);
/* Binary comparison/arithmetic with PostgreSQL's operator resolution. */
Expr *bind_binary_op(ExprCtx *cx, int op, Expr *l, Expr *r, int loc);
/* Input column reference with the given scope entry. */
Expr *bind_column_expr(Binder *b, const ScopeCol *c, int loc);

/* ---- bind_literal.c ---- */
/* A literal (AST_CONST): typed number/boolean, or an unknown-typed string/NULL. */
Expr *bind_literal(ExprCtx *cx, const Ast *a);
/* CAST(x AS t), x::t, typed literals; constants are folded. */
Expr *bind_type_cast(ExprCtx *cx, Ast *a);

/* ---- bind_func.c ---- */
Expr *bind_func_call(ExprCtx *cx, Ast *a);
/* Resolves a scalar function over bound arguments (also used for the ^ operator). */
Expr *bind_scalar_func(ExprCtx *cx, const char *name, Expr **args, int nargs, int loc);
/* Names of supported functions (scalar and aggregate), for hints. */
extern const char *const bind_function_names[];
extern const int bind_function_names_count;

/* ---- bind_from.c ---- */
/* Binds the FROM clause of a SELECT into its input plan and scope; NULL on error. */
PlanNode *bind_from(Binder *b, Ast *sel, const CteEnv *env, Scope *scope);
/* Resolves a (non-star) column reference in the scope; NULL after reporting. */
const ScopeCol *bind_resolve_column(ExprCtx *cx, const Ast *ref);
/* Expands * or rel.* into scope entries (order of the scope). Returns the count,
 * or -1 after reporting an unknown relation. */
int bind_expand_star(Binder *b, const Scope *scope, const Ast *ref, const ScopeCol ***out);
/* Gives a plan's output columns new names (alias column lists, CTE column lists).
 * `what` names the relation in the error ("table \"x\"", "WITH query \"x\""). */
PlanNode *bind_rename_columns(Binder *b, PlanNode *plan, const char *const *names, int n, int loc,
                              const char *what);

/* ---- bind_query.c / bind_select.c ---- */
/* Binds a query expression (SELECT or set operation, with its WITH clause). */
PlanNode *bind_query(Binder *b, Ast *q, const CteEnv *env, int flags);
/* Binds a simple SELECT (no set operation; WITH already handled). */
PlanNode *bind_select(Binder *b, Ast *sel, const CteEnv *env, int flags);
/* Appends a Project over `input` with the given expressions and output columns. */
PlanNode *bind_project_node(Binder *b, PlanNode *input, Expr **exprs, PlanColumn *cols, int n, int loc);

#endif
