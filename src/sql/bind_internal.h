/* Internal interface shared by the binder's files (bind_*.c); nothing outside
 * src/sql/bind_*.c includes it. The binder turns one model's AST into a typed plan:
 *   bind_project.c  dependency scan, ref() cycles, binding order, BoundProject
 *   bind_query.c    query level: WITH, ORDER BY / LIMIT placement
 *   bind_setop.c    UNION ALL, UNION, INTERSECT, EXCEPT: branch types, PL_UNION_ALL / PL_SETOP
 *   bind_select.c   one SELECT: WHERE, GROUP BY, aggregates, HAVING, select list, DISTINCT,
 *                   ORDER BY keys for top-N and DISTINCT ON
 *   bind_from.c     FROM items, scopes, column resolution (also of outer queries), * expansion
 *   bind_join.c     joins: USING/NATURAL scopes, WHERE pushdown, equi keys, interval bounds
 *   bind_window.c   TUMBLE/HOP/SESSION, event-time columns, window aggregates
 *   bind_over.c     OVER windows (TopN, running aggregates), DISTINCT ON, ORDER BY LIMIT
 *   bind_subquery.c IN/EXISTS/NOT IN/NOT EXISTS as semi/anti joins, correlation, scalar subqueries
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

struct Scope;
struct CorrSink;

/* Per-model binding state. */
typedef struct Binder {
    Arena *arena;                /* plans, names and the model's AST */
    DiagList *dl;
    const Project *project;
    const ModelDef *model;
    const BoundProject *bp;      /* for ref(): upstream models are bound first */
    bool failed;                 /* set by every error, and when an upstream is missing */
    /* While a subquery of an expression (a sublink) is bound: the scope of the query
     * around it, so its column references can be recognised as correlated ones, and
     * where the correlated SELECT (corr->sel) puts its correlation equalities (NULL when
     * correlation is not supported for this subquery). */
    const struct Scope *outer;
    struct CorrSink *corr;
    bool lineage;                /* the model's SQL mentions _replay_: its source scans carry
                                    the replay lineage columns (hidden from *) */
} Binder;

/* A column visible in a FROM scope. Join scopes are left ++ right (indexes into the
 * concatenated row); USING/NATURAL add merged columns (rel == NULL, or the join's
 * alias) first and mark the two side entries hidden + qualified_only. */
typedef struct ScopeCol {
    const char *rel;             /* alias of the relation it belongs to (NULL: none) */
    const char *name;
    int index;                   /* column index in the input row of the clause */
    Type type;
    bool hidden;                 /* not part of * expansion */
    bool qualified_only;         /* only reachable as rel.name */
    bool lineage;                /* a source's replay lineage column: not in * nor rel.* */
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

/* Placeholder column indexes used while a SELECT is bound, replaced before the plan
 * is finished: aggregate calls (above), window function calls (their TopN / OverAgg
 * column), scalar subqueries (their LEFT join's column) and correlated references to
 * an outer query's column (extracted into join keys). */
#define BIND_PH_SPAN (1 << 20)
#define BIND_WIN_COL(k) (-BIND_PH_SPAN - 1 - (k))
#define BIND_SUB_COL(k) (-2 * BIND_PH_SPAN - 1 - (k))
#define BIND_OUTER_COL(i) (-3 * BIND_PH_SPAN - 1 - (i))
#define BIND_IS_AGG_COL(c) ((c) < 0 && (c) >= -BIND_PH_SPAN)
#define BIND_IS_WIN_COL(c) ((c) < -BIND_PH_SPAN && (c) >= -2 * BIND_PH_SPAN)
#define BIND_IS_SUB_COL(c) ((c) < -2 * BIND_PH_SPAN && (c) >= -3 * BIND_PH_SPAN)
#define BIND_IS_OUTER_COL(c) ((c) < -3 * BIND_PH_SPAN && (c) >= -4 * BIND_PH_SPAN)
#define BIND_GRP_COL(k) (-4 * BIND_PH_SPAN - 1 - (k))
#define BIND_IS_GRP_COL(c) ((c) < -4 * BIND_PH_SPAN && (c) >= -5 * BIND_PH_SPAN)
#define BIND_PH_INDEX(c) ((-(c) - 1) % BIND_PH_SPAN)

/* GROUPING(args) calls of a grouped SELECT: each becomes a column of the grouping
 * sets' union (BIND_GRP_COL placeholders until then). */
typedef struct GroupingCall {
    Expr **args;
    int nargs;
    int loc;
} GroupingCall;
typedef struct GroupingList {
    GroupingCall *items;
    int n, cap;
} GroupingList;

/* Scalar subqueries met while binding a SELECT's WHERE and select list: each becomes a
 * LEFT join (nkeys = 0) with the subquery's one-row plan. */
typedef struct SubItem {
    PlanNode *plan;              /* one column (a correlated one: see below); NULL: the column
                                    after the previous item's (its match marker) */
    int loc;
    /* A correlated subquery (decorrelated over a domain, see CorrSink): plan's output is
     * [value, marker (TRUE), domain columns...]; the LEFT join matches the outer row's
     * columns dcols[] (indexes of the outer FROM row) with the domain columns, NULLs
     * matching NULLs; `domain` is the placeholder node to fill with the DISTINCT domain
     * once the outer FROM clause is complete. */
    PlanNode *domain;
    const int *dcols;
    const int *lcols;            /* the outer row's columns matched with the domain's: dcols,
                                    or (above an Aggregate) the group keys holding them */
    int nd;
    PlanNode **more;             /* further domain placeholders (a set operation's branches) */
    int nmore;
} SubItem;
typedef struct SubList {
    SubItem *items;
    int n, cap;
} SubList;

/* Window function calls (OVER) of one SELECT's select list. */
typedef struct WinCall {
    int kind;                    /* 0..2 rank kind (row_number, rank, dense_rank), or 3: aggregate
                                    or value function (lag, first_value, last_value) */
    AggCall agg;                 /* kind 3 */
    Expr **partition;
    int npartition;
    SortKey *order;
    int norder;
    bool frame_rows;
    int64_t frame_offset;        /* -1 UNBOUNDED PRECEDING, else N PRECEDING (rows or microseconds) */
    int frame_loc;               /* position of the frame's start offset (messages) */
    const char *name;            /* function name, for the output column and messages */
    int loc;
    int order_loc;               /* position of the first ORDER BY key (messages) */
} WinCall;
typedef struct WinList {
    WinCall *items;
    int n, cap;
    const AstList *named;        /* the SELECT's WINDOW clause (AST_WINDOW_DEF with a name) */
} WinList;

typedef struct ExprCtx {
    Binder *b;
    const Scope *scope;
    AggMode agg_mode;
    const char *clause;          /* "WHERE", "GROUP BY", "SELECT", "HAVING", ... */
    AggList *aggs;               /* AGGS_COLLECT */
    const char *const *aliases;  /* output column aliases of this SELECT, for hints */
    int naliases;
    bool allow_outer;            /* correlated references may appear (a sublink's WHERE) */
    SubList *subs;               /* scalar subqueries are collected here (NULL: not here) */
    WinList *wins;               /* window function calls are collected here (NULL: not here) */
    const CteEnv *env;           /* WITH queries visible to subqueries of the expression */
    GroupingList *grouping;      /* GROUPING() calls are collected here (NULL: not allowed here) */
} ExprCtx;

/* The joins built for one FROM clause, with their not yet split conditions: WHERE
 * conjuncts are pushed into them before bind_join_finish splits every condition into
 * equi keys, interval bounds and a residual predicate. */
typedef struct PendingJoin {
    PlanNode *node;
    Expr **conj;                 /* over left ++ right */
    int nconj, cap;
} PendingJoin;
/* A comma-separated FROM list of three or more items, as first built: a left-deep chain
 * of cross joins in FROM order (the scope's column order). bind_comma_order may rebuild
 * it in another order (items connected by equalities first); then `chain` is the new
 * chain, `map` takes a column of the FROM-order row to the chain's, and `top` is the
 * Project above the chain that restores the FROM order. */
typedef struct CommaList {
    PlanNode **items;
    int *base;                   /* first column of each item in the FROM-order row */
    PlanNode **cross;            /* the cross joins of the FROM-order chain */
    int n;
    PlanNode *chain, *top;
    int *map;
} CommaList;
typedef struct FromInfo {
    PendingJoin *joins;
    int n, cap;
    CommaList comma;
    PlanNode *djoin;             /* the cross join with a correlated subquery's domain */
} FromInfo;

/* Correlation equalities of a correlated subquery (EXISTS / IN): inner[i] is over the
 * subquery's output (an extra output column the binder adds), outer[i] over the
 * enclosing query's scope. */
typedef struct CorrSink {
    const Ast *sel;              /* the SELECT whose WHERE may hold correlated references */
    Expr **inner, **outer;
    int n, cap;
    int ncols;                   /* the subquery's output columns before the added ones */
    /* Domain mode (scalar subqueries, EXISTS / ANY / ALL inside expressions): outer
     * references may appear in any clause of sel. `discover`: they are only collected
     * into dcols (outer FROM-row indexes, distinct). Otherwise the SELECT is cross joined
     * with `domain` (the DISTINCT outer values, dcols order), an outer reference is that
     * join's column dbase + j, a grouped SELECT also groups by the domain columns, and
     * the domain columns are appended to the output (inner/n as above). */
    bool domain, discover;
    /* soft: a correlation the semi/anti join cannot take (not an equality, outside
     * WHERE, a grouped subquery) sets retry instead of reporting */
    bool soft, retry;
    int *dcols;
    int nd, dcap;
    PlanNode *dnode;
    int dbase;
    /* A set operation as the subquery's body: its SELECT branches (each is correlated,
     * cross joined with a domain of its own: dnode for the first, the placeholders in
     * more[] for the others), and the set operation itself (a TopN over it is
     * partitioned by the domain columns). */
    const Ast **branches;
    int nbranches;
    const Ast *setop;
    bool dnode_used;
    bool values_branch;          /* a branch is VALUES (refused when correlated) */
    int values_loc;
    PlanNode **more;
    int nmore, moremax;
} CorrSink;

/* Query flags. */
enum {
    QF_TOP = 1,                  /* the model's own query: ORDER BY is ignored with a warning */
    QF_KEEP_UNKNOWN = 2,         /* set-operation branch: leave unknown literals for the set op */
    QF_UNIQUE_NAMES = 4,         /* output column names must be unique (the model's output) */
    QF_CHECK_ORDER = 8,          /* validate (then drop) this SELECT's ORDER BY */
    QF_TOPN = 16,                /* ORDER BY + constant LIMIT: a TopN over the result */
};

/* ---- bind_util.c ---- */
SrcPos bind_pos(const Binder *b, int loc);
/* False after a "too-deep" error when plan nests deeper than SQL_MAX_DEPTH; the error
 * is at `loc`, or (loc < 0) at the first node beyond the limit. */
bool bind_check_depth(Binder *b, const PlanNode *plan, int loc);
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
/* variance, var_samp, var_pop, stddev, stddev_samp, stddev_pop (computed from count,
 * sum and sum of squares by bind_func.c). */
bool bind_is_stats_agg(const Ast *fc);
/* True when an aggregate call (without OVER) occurs in a, outside subqueries. */
bool bind_ast_has_agg(const Ast *a);
/* Calls fn on every node of the tree (subqueries included), parents first. */
void bind_ast_walk(Ast *a, void (*fn)(Ast *, void *), void *ud);
/* Rewrites, in place, every EX_COLUMN of e whose index fn maps to another value
 * (fn returns its argument to leave a column alone). */
void bind_expr_remap(Expr *e, int (*fn)(int col, void *ud), void *ud);
/* A copy of e with column indexes mapped by fn (e is left untouched). */
Expr *bind_expr_mapped(Binder *b, const Expr *e, int (*fn)(int col, void *ud), void *ud);
/* Visits every EX_COLUMN index of e. */
void bind_expr_cols(const Expr *e, void (*fn)(int col, void *ud), void *ud);
/* Flattens nested EX_AND nodes of e into conjuncts (appended to *v). */
void bind_conjuncts(Binder *b, Expr *e, Expr ***v, int *n, int *cap);
/* AND of n conditions (NULL for none, the condition itself for one). */
Expr *bind_and(Binder *b, Expr **v, int n, int loc);
/* Appends one pointer to a growable arena array. */
void bind_push(Binder *b, void ***v, int *n, int *cap, void *item);
/* A plain one-input node passing its input's columns through (Filter, Distinct). */
PlanNode *bind_unary_node(Binder *b, PlanKind k, PlanNode *input, int loc);
/* A Filter with pred over input. */
PlanNode *bind_filter_node(Binder *b, PlanNode *input, Expr *pred, int loc);
/* Microseconds of a fixed-length interval constant (months rejected): false when e is
 * not a constant interval (or has months). A day counts 24 hours. */
bool bind_interval_us(const Expr *e, int64_t *us);
/* PostgreSQL's output column name for a select-list expression ("?column?" when none). */
const char *bind_figure_colname(const Ast *a);
/* Quotes a list of candidate names as a hint; NULL when nothing is close. */
const char *bind_did_you_mean(Binder *b, const char *word, const char *const *cands, int n);
/* True when the function-call AST names a pg_catalog (or unqualified) function. */
bool bind_func_unqualified(const Ast *fc);
/* "name(type, type)" for messages; types without typmods, as PostgreSQL prints them. */
/* An expression as SQL for a message or hint, with the input's column names ("x"
 * when it prints as nothing); arena-allocated. */
char *bind_expr_text(ExprCtx *cx, const Expr *e);
const char *bind_func_signature(Binder *b, const char *name, Expr *const *args, int nargs, bool star);

/* ---- bind_types.c ---- */
typedef enum TypeCat { CAT_UNKNOWN, CAT_BOOL, CAT_NUM, CAT_STR, CAT_DATETIME, CAT_SPAN, CAT_ARRAY, CAT_JSON } TypeCat;
/* array_cat / array_append / array_prepend (f) and || over arrays: the element types
 * brought together (bind_func.c); name is the function's, NULL for ||. */
Expr *bind_array_concat(ExprCtx *cx, FuncKind f, Expr *l, Expr *r, int loc, const char *name);
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
/* An aggregate call (no OVER) in cx (AGGS_COLLECT): added to cx->aggs (deduplicated);
 * returns its placeholder column. */
Expr *bind_agg_call(ExprCtx *cx, Ast *a, AggKind kind);
/* True for the names of functions weir evaluates as scalar functions. */
bool bind_is_scalar_function(const char *name);
/* Resolves a scalar function over bound arguments (also used for the ^ operator). */
Expr *bind_scalar_func(ExprCtx *cx, const char *name, Expr **args, int nargs, int loc);
/* Compiles the constant pattern of a ~ / ~* / !~ / !~* operator or regexp_* call
 * (pattern: the pattern argument; flags: the flags argument or NULL; base_opts: the
 * operator's own options, i.e. case-insensitive for ~*) into e->regex, reporting an
 * invalid pattern or flags at their position with PostgreSQL's message. A pattern or
 * flags computed per row leave e->regex NULL (the evaluator compiles them). fname:
 * the function for the "does not support the global option" error, NULL when 'g' is
 * allowed. False after an error. */
bool bind_prepare_regex(Binder *b, Expr *e, const Expr *pattern, const Expr *flags, int base_opts, const char *fname);
/* now(), current_timestamp, random(), ... (processing time or chance): reports the
 * refusal with its reason and the event-time alternative and returns true; false for
 * other names. */
bool bind_refuse_nondeterministic(Binder *b, const char *name, int loc);
/* Names of supported functions (scalar and aggregate), for hints. */
extern const char *const bind_function_names[];
extern const int bind_function_names_count;

/* ---- bind_from.c ---- */
/* Binds the FROM clause of a SELECT into its input plan and scope; NULL on error. The
 * joins it builds are left in fi with their conditions unsplit (see FromInfo). */
PlanNode *bind_from(Binder *b, Ast *sel, const CteEnv *env, Scope *scope, FromInfo *fi);
/* Binds one FROM item that is not a join (source(), ref(), a WITH query, a subquery,
 * a window table function) with its alias and alias column list; *alias is set to the
 * name it is known by (NULL for an unnamed subquery). */
PlanNode *bind_from_item(Binder *b, Ast *item, const CteEnv *env, const char **alias);
/* The relation argument of a window table function: source('x'), ref('m') or the name
 * of a WITH query. */
PlanNode *bind_relation_arg(Binder *b, Ast *arg, const CteEnv *env, const char **alias);
/* Appends a relation's columns to a scope (indexes base..base+ncols-1). */
void bind_scope_add(Binder *b, Scope *s, const char *alias, const PlanNode *plan, int base);
/* Resolves a (non-star) column reference in the scope; NULL after reporting. When the
 * name is not in the scope but in the enclosing query's (b->outer), the outer entry is
 * returned and *outer set. */
const ScopeCol *bind_resolve_column(ExprCtx *cx, const Ast *ref, bool *outer);
/* Expands * or rel.* into scope entries (order of the scope). Returns the count,
 * or -1 after reporting an unknown relation. */
int bind_expand_star(Binder *b, const Scope *scope, const Ast *ref, const ScopeCol ***out);
/* Gives a plan's output columns new names (alias column lists, CTE column lists).
 * `what` names the relation in the error ("table \"x\"", "WITH query \"x\""). */
/* VALUES (...), (...) (q->nvalues rows): a PL_VALUES node of columns column1..N whose
 * types are resolved per column as PostgreSQL resolves them (unknown -> text, a common
 * type, "VALUES types x and y cannot be matched"); subqueries are refused. */
PlanNode *bind_values(Binder *b, Ast *q);
/* VALUES rows holding subqueries, as PostgreSQL allows them: the rows as SELECTs
 * without FROM (columns column1..N) under UNION ALL, which types the columns as VALUES
 * does; NULL when no row holds a subquery (or the rows differ in length). */
Ast *bind_values_with_subqueries(Binder *b, Ast *q);
PlanNode *bind_rename_columns(Binder *b, PlanNode *plan, const char *const *names, int n, int loc,
                              const char *what);

/* ---- bind_join.c ---- */
/* Binds a FROM item that may be a join tree; adds its relations to scope (indexes
 * from 0) and its joins to fi. NULL after reporting. */
PlanNode *bind_join_tree(Binder *b, Ast *item, const CteEnv *env, Scope *scope, FromInfo *fi);
/* A PL_JOIN node over l and r with its output columns (left ++ right; left only for
 * semi/anti joins) and no condition. */
PlanNode *bind_join_node(Binder *b, JoinType jt, PlanNode *l, PlanNode *r, int loc);
/* Cross join of two FROM items (comma), registered in fi. */
PlanNode *bind_cross_join(Binder *b, FromInfo *fi, PlanNode *l, PlanNode *r, int loc);
/* Pushes a WHERE conjunct over root's output into the inner joins of fi: into the
 * lowest join whose two sides it references, or (referencing one side of an inner
 * join) below the join as a Filter. False when it stays in the WHERE filter. */
bool bind_join_push(Binder *b, FromInfo *fi, PlanNode *root, Expr *conj);
/* Join order of a comma list (fi->comma, three or more items) given the WHERE
 * conjuncts over the FROM-order row: greedily, starting from the first item, the next
 * item is the first one an equality conjunct connects to the items joined so far (else
 * one any conjunct connects, else the next one). When that order differs from the FROM
 * order the chain is rebuilt and the Project restoring the FROM order returned (push
 * conjuncts with bind_where_push); else root is returned unchanged. */
PlanNode *bind_comma_order(Binder *b, FromInfo *fi, PlanNode *root, Expr *const *conj, int n);
/* bind_join_push for a WHERE conjunct over the FROM clause's output `root` (which may
 * be the Project of a reordered comma list). */
bool bind_where_push(Binder *b, FromInfo *fi, PlanNode *root, Expr *conj);
/* Splits every pending join's conjuncts into equi keys (both sides cast to one type),
 * interval-join bounds and a residual predicate. */
void bind_join_finish(Binder *b, FromInfo *fi);

/* ---- bind_window.c ---- */
/* TUMBLE / HOP / SESSION in FROM: a PL_WINDOW_TVF over its relation. */
PlanNode *bind_window_tvf(Binder *b, Ast *item, const CteEnv *env, const char **alias);
/* Marks agg as a window aggregate when its input is a window TVF (through filters) and
 * it groups by window_start and/or window_end; checks SESSION's grouping. False after
 * reporting. */
bool bind_window_aggregate(Binder *b, PlanNode *agg, int loc);
/* True when column col of plan n carries event time: it traces back (through
 * projections, filters, joins, unions, ref()) to a source's event_time column, or is a
 * window TVF's or window aggregate's window_start / window_end. */
bool bind_event_time(Binder *b, const PlanNode *n, int col);

/* ---- bind_over.c ---- */
/* A window function call (OVER): collected into cx->wins, returns its placeholder. */
Expr *bind_window_call(ExprCtx *cx, Ast *a);
/* Builds the TopN / OverAgg for the collected calls over input and rewrites the
 * placeholders in exprs[0..n) to its columns. NULL after reporting. */
PlanNode *bind_window_node(Binder *b, WinList *w, PlanNode *input, Expr **exprs, int n);
/* A TopN node over input (limit >= 1; partition may be empty). */
PlanNode *bind_topn_node(Binder *b, PlanNode *input, Expr **partition, int npartition, SortKey *order,
                         int norder, int64_t limit, int loc);
/* Model-level finishing of ROW_NUMBER/RANK/DENSE_RANK TopNs: folds `rn <= N`, `rn < N`,
 * `rn = N` filters above a TopN into its limit, reports TopNs left without one, and
 * drops the rank column where nothing reads it (emit_rank). Returns the (possibly
 * replaced) root. */
PlanNode *bind_topn_finish(Binder *b, PlanNode *root);

/* ---- bind_subquery.c ---- */
/* True when a WHERE conjunct is [NOT] EXISTS (...), x [NOT] IN (...) or x <> ALL (...). */
bool bind_is_semi_conjunct(const Ast *a);
/* A subquery's body as a subquery expression reads it: ORDER BY without LIMIT dropped
 * (no order to keep); for EXISTS (exists), and for an aggregate without GROUP BY (one
 * row), a constant LIMIT >= 1 and its ORDER BY dropped too, and DISTINCT of that one
 * row. q itself when nothing changes, else a copy. */
Ast *bind_sublink_body(Binder *b, Ast *q, bool exists);
/* Binds such a conjunct as a semi/anti join of cur (whose columns scope describes)
 * with the subquery. NULL after reporting, or with *retry set (nothing reported) when
 * its correlation needs the general form: bind it as an expression instead. */
PlanNode *bind_semi_join(Binder *b, PlanNode *cur, const Scope *scope, const CteEnv *env, Ast *conj, bool *retry);
/* A subquery in an expression: scalar subqueries (uncorrelated aggregates without
 * GROUP BY) are collected into cx->subs; everything else is reported. */
Expr *bind_sublink_expr(ExprCtx *cx, Ast *a);
/* LEFT joins of cur with the scalar subqueries subs[from..], rewriting their
 * placeholders in exprs[0..n). from_plan: the outer FROM clause's finished plan, the
 * source of correlated subqueries' domains. */
PlanNode *bind_scalar_joins(Binder *b, PlanNode *cur, const PlanNode *from_plan, SubList *subs, int from,
                            Expr **exprs, int n);
/* The column a reference to outer FROM-row column `index` becomes in a domain-mode
 * correlated SELECT (see CorrSink): recorded in dcols. */
int bind_domain_col(Binder *b, CorrSink *cs, int index);
/* In a correlated SELECT (b->corr->sel == the SELECT): moves the conjuncts holding
 * correlated references out of v (WHERE conjuncts) into b->corr; reports the ones
 * that are not `inner = outer` equalities. False after reporting. */
bool bind_extract_correlation(Binder *b, Expr **v, int *n);

/* ---- bind_query.c / bind_select.c / bind_setop.c ---- */
/* Binds a query expression (SELECT or set operation, with its WITH clause). */
PlanNode *bind_query(Binder *b, Ast *q, const CteEnv *env, int flags);
/* Binds a simple SELECT (no set operation; WITH already handled). */
PlanNode *bind_select(Binder *b, Ast *sel, const CteEnv *env, int flags);
/* Binds a set operation tree (UNION [ALL], INTERSECT [ALL], EXCEPT [ALL]). */
PlanNode *bind_setop(Binder *b, Ast *q, const CteEnv *env, int flags);
/* Validates the ORDER BY of a set operation: result column names and ordinals only.
 * Returns the output column of each item through cols (may be NULL). */
bool bind_setop_order(Binder *b, Ast *q, const PlanNode *p, int *cols);
/* Appends a Project over `input` with the given expressions and output columns. */
PlanNode *bind_project_node(Binder *b, PlanNode *input, Expr **exprs, PlanColumn *cols, int n, int loc);
/* The constant LIMIT of a query (>= 1), or -1 after reporting. */
int64_t bind_limit_value(Binder *b, Ast *limit);

#endif
