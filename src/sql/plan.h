/* The typed relational plan: the binder's output for one model. A tree of PlanNode
 * operators whose expressions are typed and refer to input columns by index. The
 * streaming IR (src/ir) annotates these trees with changelog modes, keys and state,
 * the engine executes them, and backends print them as SQL.
 *
 * Column references: an Expr of kind EX_COLUMN has `col` = index into the node's
 * input row. For single-input nodes that is inputs[0]'s output; for PL_JOIN it is the
 * concatenation left ++ right. Aggregate arguments and group keys are evaluated on
 * the aggregate's input; everything above refers to the aggregate's output
 * (group keys first, then one column per AggCall). */
#ifndef WEIR_SQL_PLAN_H
#define WEIR_SQL_PLAN_H

#include "base/arena.h"
#include "base/value.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum ExprKind {
    EX_CONST,        /* cval of type `type` (cval.isnull for NULL) */
    EX_COLUMN,       /* input column `col` */
    EX_CAST,         /* args[0] cast to `type` */
    EX_OP,           /* operator `op` (OpKind) over args (1 or 2) */
    EX_AND,          /* n-ary, SQL three-valued logic */
    EX_OR,           /* n-ary, SQL three-valued logic */
    EX_NOT,
    EX_IS_NULL,      /* args[0] IS NULL; negated = IS NOT NULL */
    EX_BOOL_TEST,    /* args[0] IS [NOT] TRUE/FALSE/UNKNOWN: op = BT_* */
    EX_IN_LIST,      /* args[0] IN (args[1..]); negated = NOT IN; three-valued */
    EX_CASE,         /* searched CASE: args = cond0, res0, cond1, res1, ..., [else] (has_else) */
    EX_COALESCE,
    EX_NULLIF,
    EX_GREATEST,
    EX_LEAST,
    EX_FUNC,         /* scalar function `func` (FuncKind) over args */
    EX_SUBQUERY,     /* uncorrelated scalar subquery: `subplan` (one column); later issue */
} ExprKind;

typedef enum OpKind {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_NEG,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
    OP_IS_DISTINCT, OP_IS_NOT_DISTINCT,
    OP_CONCAT,                      /* text || text (NULL if either is NULL) */
    OP_LIKE, OP_NOT_LIKE, OP_ILIKE, OP_NOT_ILIKE,
    OP_REGEX, OP_NOT_REGEX, OP_IREGEX, OP_NOT_IREGEX,  /* ~ !~ ~* !~* (POSIX regular expressions) */
} OpKind;

typedef enum BoolTestKind { BT_IS_TRUE, BT_IS_NOT_TRUE, BT_IS_FALSE, BT_IS_NOT_FALSE, BT_IS_UNKNOWN, BT_IS_NOT_UNKNOWN } BoolTestKind;

typedef enum FuncKind {
    FN_LOWER, FN_UPPER, FN_LENGTH, FN_SUBSTRING, FN_BTRIM, FN_LTRIM, FN_RTRIM,
    FN_CONCAT, FN_CONCAT_WS, FN_SPLIT_PART, FN_REPLACE, FN_POSITION, FN_LEFT, FN_RIGHT,
    FN_ABS, FN_ROUND, FN_TRUNC, FN_FLOOR, FN_CEIL, FN_MOD, FN_SIGN, FN_SQRT, FN_POWER,
    FN_DATE_TRUNC, FN_EXTRACT,     /* args: field text const, source */
    FN_MAKE_INTERVAL,              /* years, months, weeks, days, hours, mins (int), secs (float8) */
    /* strings */
    FN_LPAD, FN_RPAD, FN_INITCAP, FN_REVERSE, FN_REPEAT, FN_MD5, FN_STARTS_WITH, FN_TRANSLATE,
    FN_ASCII, FN_CHR, FN_OCTET_LENGTH,
    /* regular expressions (the compiled constant pattern, if any, is Expr.regex) */
    FN_REGEXP_REPLACE,             /* source, pattern, replacement [, start int [, n int]] [, flags] */
    FN_REGEXP_LIKE,                /* string, pattern [, flags] */
    FN_REGEXP_COUNT,               /* string, pattern [, start [, flags]] */
    FN_REGEXP_SUBSTR,              /* string, pattern [, start [, n [, flags [, subexpr]]]] */
    /* formatting */
    FN_TO_CHAR,                    /* value, template */
    FN_TO_TIMESTAMP,               /* epoch float8, or (text, template) */
    FN_TO_DATE,                    /* text, template */
    /* date/time */
    FN_DATE_BIN, FN_MAKE_DATE, FN_MAKE_TIMESTAMP, FN_AGE, FN_JUSTIFY_DAYS, FN_JUSTIFY_HOURS,
    FN_JUSTIFY_INTERVAL, FN_ISFINITE,
    FN_SUBQUERY_ROWS,              /* no arguments: always fails with PostgreSQL's "more than one
                                      row returned by a subquery used as an expression" */
    FN_STRING_AGG_ITEM,            /* x text, delimiter text, order key: the argument of a
                                      string_agg ordered by another expression or with a
                                      delimiter per row (engine/agg_item.h); not strict:
                                      NULL only when x is */
    FN_AGG_ITEM,                   /* nv, values, (flags, key)...: the argument of array_agg,
                                      json_agg, json_object_agg (engine/agg_vitem.h); never
                                      NULL */
    /* arrays */
    FN_ARRAY,                      /* ARRAY[e, ...]: the elements (NULL ones too), of the
                                      element type of the call's type; not strict */
    FN_ARRAY_LENGTH,               /* array, dimension int */
    FN_CARDINALITY,                /* array */
    FN_ARRAY_SUBSCRIPT,            /* array, index bigint (1-based; NULL outside) */
    FN_ARRAY_CAT,                  /* array, array: array_cat / a || b (a NULL array: the other); not strict */
    FN_ARRAY_APPEND,               /* array, x: array_append / a || x (a NULL array: empty); not strict */
    FN_ARRAY_PREPEND,              /* x, array: array_prepend / x || a; not strict */
    FN_ARRAY_TO_STRING,            /* array, delimiter [, null string]: not strict in the null string */
    FN_STRING_TO_ARRAY,            /* text, delimiter [, null string]: NULL delimiter splits into
                                      characters; not strict in the delimiter and null string */
    FN_ARRAY_CONTAINS,             /* a, b: a @> b (every element of b is in a; NULL elements
                                      match nothing); b <@ a is the same call */
    FN_ARRAY_OVERLAP,              /* a, b: a && b (an element in both) */
    FN_ARRAY_POSITION,             /* array, x: the first 1-based position of x (IS NOT DISTINCT
                                      FROM), NULL when absent; not strict in x */
    FN_ARRAY_REMOVE,               /* array, x: the array without the elements equal to x (NULL
                                      removes NULLs); not strict in x */
    FN_JSON_BUILD_OBJECT,          /* key, value, ...: json; not strict (a NULL key is an error) */
    FN_JSON_BUILD_ARRAY,           /* value, ...: json; not strict */
    FN_TO_JSON,                    /* x: json (to_json, array_to_json) */
    FN_ARRAY_CMP,                  /* x, array, op (an int constant: OP_EQ .. OP_GE): x op ANY
                                      (array); negated: x op ALL (array); not strict */
    FN_TIMEZONE,                   /* zone text, timestamp | timestamptz (x AT TIME ZONE zone; the
                                      zone, when constant, resolved in Expr.tzone) */
    /* math */
    FN_EXP, FN_LN, FN_LOG, FN_LOG10, FN_CBRT, FN_PI, FN_DEGREES, FN_RADIANS, FN_SIN, FN_COS, FN_TAN,
    FN_ASIN, FN_ACOS, FN_ATAN, FN_ATAN2, FN_WIDTH_BUCKET, FN_DIV, FN_GCD, FN_LCM,
    FN__COUNT
} FuncKind;

typedef struct PlanNode PlanNode;
struct Regex;

typedef struct Expr Expr;
struct Expr {
    ExprKind kind;
    Type type;           /* result type */
    int loc;             /* byte offset in the model SQL, -1 if synthetic */
    Value cval;          /* EX_CONST; text points into the plan arena */
    int col;             /* EX_COLUMN */
    int op;              /* EX_OP: OpKind; EX_BOOL_TEST: BoolTestKind */
    int func;            /* EX_FUNC: FuncKind */
    bool negated;        /* EX_IS_NULL, EX_IN_LIST */
    bool has_else;       /* EX_CASE */
    Expr **args;
    int nargs;
    PlanNode *subplan;   /* EX_SUBQUERY */
    /* The regular expression of a ~ operator or regexp_* call whose pattern (and flags)
     * are constants, compiled once by the binder and freed with the plan's arena; NULL
     * when the pattern is computed per row (or the node was built without it). Not part
     * of equality or hashing: it follows from the arguments. */
    struct Regex *regex;
    /* The zone of an FN_TIMEZONE call whose zone is a constant, resolved by the binder
     * (base/tz.h; lives as long as the process); NULL when computed per row. Not part
     * of equality or hashing: it follows from the arguments. */
    const struct TzZone *tzone;
};

typedef enum AggKind {
    AGG_COUNT_STAR, AGG_COUNT, AGG_SUM, AGG_AVG, AGG_MIN, AGG_MAX, AGG_BOOL_AND, AGG_BOOL_OR,
    /* string_agg(arg, dflt): the text values joined by the constant separator `dflt`, in
     * the order of the values (offset = 1: descending) */
    AGG_STRING_AGG,
    /* ordered-set aggregates over the multiset of `arg`'s values (`arg` WITHIN GROUP
     * (ORDER BY arg), offset = 1: DESC): the most frequent value (ties: the first in that
     * order); the value interpolated at fraction `dflt` (a float8 constant, may be
     * NULL; arg cast to float8); the first value whose cumulative fraction >= dflt */
    AGG_MODE, AGG_PERCENTILE_CONT, AGG_PERCENTILE_DISC,
    /* window-only value functions (PL_OVER_AGG): the value of `arg` at another row */
    AGG_LAG,         /* `offset` rows before the current one in the partition, else `dflt` */
    AGG_FIRST_VALUE, /* at the frame's first row */
    AGG_LAST_VALUE,  /* at the frame's last row */
    /* the sum of the squares of `arg`'s values (numeric or double precision); with
     * DISTINCT, of its distinct values: variance(DISTINCT x) and friends */
    AGG_SUM_SQUARES,
    /* array_agg(x ORDER BY ...), json_agg(x ORDER BY ...), json_object_agg(k, v ORDER BY
     * ...): `arg` is FN_AGG_ITEM over the values and the ORDER BY keys (NULL values are
     * aggregated; without ORDER BY the values are in ascending order) */
    AGG_ARRAY_AGG, AGG_JSON_AGG, AGG_JSON_OBJECT_AGG,
    AGG__COUNT
} AggKind;

typedef struct AggCall {
    AggKind kind;
    bool distinct;       /* COUNT(DISTINCT x), SUM(DISTINCT x) ... */
    Expr *arg;           /* NULL for COUNT(*) */
    Expr *filter;        /* FILTER (WHERE ...) or NULL */
    Type type;           /* result type (PostgreSQL rules: SUM(int4) -> bigint, AVG(int) -> numeric ...) */
    int loc;
    int64_t offset;      /* AGG_LAG: how many rows back (>= 0); the ordered-set aggregates:
                            1 for descending order; AGG_STRING_AGG: bit 0 descending order,
                            bit 1 (over FN_STRING_AGG_ITEM) NULL keys placed opposite to the
                            default (NULLS FIRST ascending, NULLS LAST descending) */
    Expr *dflt;          /* AGG_LAG: the value without such a row (over the current row), or NULL;
                            AGG_STRING_AGG: the separator (a text constant);
                            AGG_PERCENTILE_*: the fraction (a float8 constant) */
} AggCall;

typedef enum PlanKind {
    PL_SOURCE,      /* scan of a declared source */
    PL_REF,         /* the output of another model (ref('x')) */
    PL_FILTER,      /* pred over input */
    PL_PROJECT,     /* exprs over input */
    PL_AGGREGATE,   /* group keys + aggregates; output = keys ++ aggregates */
    PL_DISTINCT,    /* SELECT DISTINCT over all input columns */
    PL_UNION_ALL,   /* n inputs with identical column types */
    /* the streaming-SQL issue fills these in; the binder rejects them until then */
    PL_JOIN,        /* join_type, equi keys, residual pred over left ++ right */
    PL_WINDOW_TVF,  /* TUMBLE/HOP/SESSION: adds window_start, window_end */
    PL_TOPN,        /* ROW_NUMBER/RANK/DENSE_RANK over partition, with a limit */
    PL_SETOP,       /* UNION/EXCEPT/INTERSECT (setop_kind, all) */
    PL_OVER_AGG,    /* running aggregate over a partition ordered by time */
    PL_VALUES,      /* constant relation: nrows rows of exprs (no input), emitted once */
} PlanKind;

typedef enum JoinType { JOIN_INNER, JOIN_LEFT, JOIN_RIGHT, JOIN_FULL, JOIN_SEMI, JOIN_ANTI } JoinType;
typedef enum WindowTvfKind { WTVF_TUMBLE, WTVF_HOP, WTVF_SESSION } WindowTvfKind;
typedef enum SetOpKind { SETOP_UNION, SETOP_EXCEPT, SETOP_INTERSECT } SetOpKind;

typedef struct PlanColumn {
    const char *name;
    Type type;
    uint8_t lineage;         /* PL_SOURCE: a replay lineage column (SourceLineage), 0: declared */
} PlanColumn;

typedef struct SortKey {
    Expr *expr;
    bool desc;
    bool nulls_first;
} SortKey;

struct PlanNode {
    PlanKind kind;
    int loc;                 /* byte offset in the model SQL of the clause it came from */
    PlanNode **inputs;
    int ninputs;
    PlanColumn *cols;        /* output schema */
    int ncols;

    const char *name;        /* PL_SOURCE: source name; PL_REF: model name */
    Expr *pred;              /* PL_FILTER; PL_JOIN residual (may be NULL) */
    Expr **exprs;            /* PL_PROJECT */
    int nexprs;
    Expr **group;            /* PL_AGGREGATE: group keys over input */
    int ngroup;
    AggCall *aggs;           /* PL_AGGREGATE */
    int naggs;

    /* PL_JOIN (the shapes the binder produces are listed in docs/sql.md, "Plan shapes"):
     * output = left columns ++ right columns for INNER/LEFT/RIGHT/FULL, left columns only
     * for SEMI/ANTI. A left row matches a right row when every key pair is equal (SQL
     * `=`: a NULL key never matches) and `pred` (over left ++ right; NULL = none) is
     * true. nkeys = 0 is a cross product filtered by pred. For outer joins `pred` is part
     * of the match condition (unmatched rows are NULL-padded), never a filter after it. */
    JoinType join_type;
    Expr **left_keys, **right_keys;  /* equi keys: left over left input, right over right input;
                                        each pair has one type (the binder casts both sides) */
    int nkeys;
    /* JOIN_ANTI from `x NOT IN (subquery)` / `x <> ALL (subquery)`: PostgreSQL's NULL
     * semantics on key pair 0 (x = the subquery's column); pairs 1.. are correlation
     * equalities (plain SQL `=`). A left row L is output iff no right row R matches L on
     * pairs 1.. (and pred) with (L.k0 = R.k0) TRUE or NULL: so L is dropped when its
     * group holds a NULL k0, or when L.k0 is NULL and its group is non-empty; an empty
     * group always keeps L. false: a plain anti join (NOT EXISTS). (Added by the
     * streaming-SQL binder.) */
    bool null_aware;
    /* > 0: a row of this node that reaches the dead letters shows only its first dl_ncols
     * columns (the LEFT joins of decorrelated subqueries: the outer row, not the
     * subquery's internal columns appended to it); < 0: none of them (the outer row
     * kept no column); 0: all */
    int dl_ncols;
    /* interval join (time-bounded): right.t + lower_us <= left.t <= right.t + upper_us,
     * where t are left_time_col / right_time_col (input column indexes). The exact
     * condition stays in `pred`; the bounds only let the engine free state by watermark. */
    bool interval_join;
    int left_time_col, right_time_col;
    int64_t lower_us, upper_us;

    /* PL_AGGREGATE over a window TVF (directly or through PL_FILTER nodes): indexes into
     * group[] of the keys that are the TVF's window_start / window_end columns, -1 when
     * absent. An aggregate with either >= 0 is a window aggregate: it emits final rows
     * when the watermark passes window_end (insert_only) and frees the window's state. */
    int window_start_key, window_end_key;

    /* PL_WINDOW_TVF: time column index in input, sizes in microseconds (fixed durations:
     * the binder rejects months). Output = input ++ window_start, window_end (the time
     * column's type). TUMBLE: size_us, slide_us = size_us; HOP: size_us and slide_us
     * (size a multiple of slide; a row is in size/slide windows); SESSION: gap_us. */
    WindowTvfKind wtvf;
    int time_col;
    int64_t size_us, slide_us, gap_us;

    /* PL_TOPN / PL_OVER_AGG: partition and order expressions over the input.
     * PL_TOPN keeps, per partition, the rows whose rank (by rank_kind over `order`) is at
     * most `limit`; ties in `order` are broken by the whole row so ROW_NUMBER is
     * deterministic. Output = input ++ rank (bigint) when emit_rank, else input.
     * PL_OVER_AGG: order has one key, an event-time column, ascending; one aggregate per
     * AggCall in aggs (evaluated over the input), output = input ++ one column per call:
     * the aggregate over the partition's rows up to the current row (see frame_rows),
     * emitted when the watermark passes the row's order key. */
    Expr **partition;
    int npartition;
    SortKey *order;
    int norder;
    int64_t limit;           /* PL_TOPN: highest rank kept (ROW_NUMBER: rows per partition) */
    int rank_kind;           /* 0 row_number, 1 rank, 2 dense_rank */
    bool emit_rank;          /* whether the rank column is part of the output */
    /* PL_OVER_AGG: true for `ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW` (each row's
     * value covers the rows before it and itself; rows with equal order keys count in
     * arrival order); false for RANGE, the default frame: rows with equal order keys
     * (peers) all get the value that includes every peer. (Added by the streaming-SQL
     * binder.) */
    bool frame_rows;
    /* PL_OVER_AGG: where the frame starts: -1 UNBOUNDED PRECEDING; else `frame_offset`
     * PRECEDING, rows (ROWS) or microseconds of the order column (RANGE). The frame ends
     * at the current row (with its peers for RANGE). */
    int64_t frame_offset;

    /* PL_SETOP: two inputs with identical column types (chains are left-deep); output
     * multiplicity of a row with multiplicities l, r in the inputs: UNION min(1, l + r)
     * (UNION ALL is PL_UNION_ALL), INTERSECT min(1, min(l, r)), INTERSECT ALL min(l, r),
     * EXCEPT (l > 0 && r == 0 ? 1 : 0), EXCEPT ALL max(0, l - r). */
    SetOpKind setop;
    bool all;

    /* PL_VALUES: `nrows` rows of ncols expressions each, row-major in exprs (nexprs =
     * nrows * ncols), over no input (no column references, no subqueries): `VALUES
     * (...), (...)`, and the one row a SELECT without FROM reads (one column `__row`,
     * true, that the query cannot name). */
    int nrows;
};

/* Helpers used by the binder and the IR. All memory comes from the arena. */
Expr *plan_expr_new(Arena *a, ExprKind kind, Type type, int loc);
Expr *plan_expr_column(Arena *a, int col, Type type);
Expr *plan_expr_const(Arena *a, Type type, Value v);
PlanNode *plan_node_new(Arena *a, PlanKind kind, int loc);
const char *plan_kind_name(PlanKind k);
const char *op_kind_symbol(OpKind op);
const char *func_kind_name(FuncKind f);
const char *agg_kind_name(AggKind k);
const char *join_type_name(JoinType j);
/* A duration in microseconds (window sizes, interval-join bounds) for messages and
 * explain: "10s", "1h30m", "-5m", "0s" (largest units first, d h m s ms us). */
const char *plan_duration_text(Arena *a, int64_t us);
/* Print an expression as PostgreSQL SQL text, naming input columns with `colnames`
 * (may be NULL: then $N). Used by explain and backends. */
struct StrBuf;
void plan_expr_sql(const Expr *e, const PlanColumn *incols, int nincols, struct StrBuf *out);
/* Structural hash of an expression / node (without positions), for fingerprints. */
/* The same with every column reference hashed as col_fps[col] (what the column holds,
 * e.g. its lineage fingerprint) instead of its position; col_fps NULL: positions. */
uint64_t plan_expr_hash_cols(const Expr *e, const uint64_t *col_fps, int ncols, uint64_t seed);
uint64_t plan_expr_hash(const Expr *e, uint64_t seed);
/* Structural hash of a plan subtree (kinds, names, column types, expressions,
 * aggregates, inputs; no positions). */
uint64_t plan_node_hash(const PlanNode *n, uint64_t seed);
/* Structural equality of expressions, ignoring positions. */
bool plan_expr_equal(const Expr *a, const Expr *b);
/* Structural equality of two nodes' own fields (kind, names, column types, every
 * expression and parameter; positions ignored), not of their inputs: with equal inputs,
 * equal nodes compute equal outputs (common subexpressions). */
bool plan_node_local_equal(const PlanNode *a, const PlanNode *b);
/* Deep copies into arena (a CTE referenced twice becomes two subtrees). */
Expr *plan_expr_copy(Arena *a, const Expr *e);
PlanNode *plan_node_copy(Arena *a, const PlanNode *n);
/* Whether the plan, counting every plan node and expression node (subquery plans
 * included) as a level, nests deeper than `limit` levels; then *loc is the location of
 * a node at the first level beyond (or of the nearest ancestor that has one). Looks no
 * deeper than limit + 1 levels, so its own recursion stays bounded. */
bool plan_deeper_than(const PlanNode *n, int limit, int *loc);
/* Print an aggregate call as SQL over its input columns: count(*), sum(DISTINCT x),
 * count(x) FILTER (WHERE ...). */
void plan_agg_sql(const AggCall *a, const PlanColumn *incols, int nincols, struct StrBuf *out);

#endif
