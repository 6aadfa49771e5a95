/* weir's own SQL syntax tree: what the libpg_query adapter (pg_adapter.c) produces
 * and the binder consumes. It covers the PostgreSQL SELECT grammar weir binds; any
 * other construct becomes AST_UNSUPPORTED carrying its name and position, so the
 * binder can say "not supported yet" at the right place instead of mis-binding.
 * Every node has `loc`: a byte offset into the SQL text (-1 when unknown). */
#ifndef WEIR_SQL_AST_H
#define WEIR_SQL_AST_H

#include "base/arena.h"
#include "base/diag.h"

#include <stdbool.h>

typedef enum AstKind {
    AST_SELECT,        /* a SELECT or a set operation (setop != AST_SETOP_NONE) */
    AST_RES_TARGET,    /* select-list item: expr [AS name] */
    AST_COLUMN_REF,    /* a.b.c or a.* / * : names[], star */
    AST_CONST,         /* literal: const_kind + text */
    AST_TYPE_CAST,     /* CAST(expr AS type) / expr::type / type 'literal' / INTERVAL '1' SECOND */
    AST_OP,            /* operator: name ("+", "=", "~~" ...), lexpr (NULL for prefix), rexpr */
    AST_AND, AST_OR, AST_NOT,
    AST_IN_LIST,       /* lexpr [NOT] IN (list) : negated */
    AST_BETWEEN,       /* lexpr [NOT] BETWEEN [SYMMETRIC] args[0] AND args[1] */
    AST_LIKE,          /* lexpr [NOT] LIKE/ILIKE rexpr : negated, ilike; escape unsupported */
    AST_DISTINCT_FROM, /* lexpr IS [NOT] DISTINCT FROM rexpr : negated */
    AST_NULLIF,        /* NULLIF(lexpr, rexpr) */
    AST_NULL_TEST,     /* arg IS [NOT] NULL : negated */
    AST_BOOL_TEST,     /* arg IS [NOT] TRUE/FALSE/UNKNOWN : booltest (0..5 as BoolTestKind in plan.h) */
    AST_FUNC_CALL,     /* name(args) [FILTER (WHERE ..)] [OVER window]: agg_star, agg_distinct */
    AST_CASE,          /* CASE [arg] WHEN .. THEN .. [ELSE ..] END : arg, whens (AST_CASE_WHEN), else_expr */
    AST_CASE_WHEN,     /* when_expr (in lexpr), result (in rexpr) */
    AST_COALESCE,      /* args */
    AST_MIN_MAX,       /* GREATEST/LEAST(args): is_greatest */
    AST_SUBLINK,       /* subquery in an expression: sublink (EXISTS, ANY/IN, scalar), lexpr = test expr, subquery */
    AST_STAR,          /* bare * inside count(*) is represented by agg_star instead; kept for completeness */
    AST_RANGE_VAR,     /* FROM name [alias] : a CTE name or a plain table (binder decides) */
    AST_RANGE_SUBSELECT,/* FROM (subquery) alias */
    AST_RANGE_FUNCTION,/* FROM func(args) [alias]: source('x'), ref('y'), TUMBLE(...) */
    AST_JOIN,          /* larg JOIN rarg ON quals | USING (names) : join_kind, natural */
    AST_CTE,           /* WITH name [(colnames)] AS (subquery) */
    AST_SORT_BY,       /* expr ASC|DESC NULLS FIRST|LAST : desc, nulls (0 default, 1 first, 2 last) */
    AST_WINDOW_DEF,    /* OVER (PARTITION BY partition ORDER BY order [frame]) : has_frame */
    AST_ARRAY,         /* ARRAY[args] */
    AST_SUBSCRIPT,     /* expr[lexpr] (one subscript, not a slice) */
    AST_ARRAY_CMP,     /* lexpr op ANY (rexpr) : name = op, negated = ALL */
    AST_UNSUPPORTED,   /* what: a human name of the construct ("LATERAL", "window frame", ...) */
    AST_GROUPING_SET,  /* GROUP BY item: gset (AstGroupingSetKind) over args (exprs, nested sets) */
} AstKind;

typedef enum AstGroupingSetKind {
    AST_GSET_SETS,     /* GROUPING SETS (...) */
    AST_GSET_ROLLUP,
    AST_GSET_CUBE,
    AST_GSET_EMPTY,    /* () */
    AST_GSET_LIST,     /* (a, b) inside one of the above: one set of several expressions */
} AstGroupingSetKind;

typedef enum AstConstKind { AST_CONST_INT, AST_CONST_NUMBER, AST_CONST_STRING, AST_CONST_BOOL, AST_CONST_NULL } AstConstKind;
typedef enum AstSetOp { AST_SETOP_NONE, AST_SETOP_UNION, AST_SETOP_EXCEPT, AST_SETOP_INTERSECT } AstSetOp;
typedef enum AstJoinKind { AST_JOIN_INNER, AST_JOIN_LEFT, AST_JOIN_RIGHT, AST_JOIN_FULL, AST_JOIN_CROSS } AstJoinKind;
typedef enum AstSublinkKind { AST_SUBLINK_EXISTS, AST_SUBLINK_ANY, AST_SUBLINK_ALL, AST_SUBLINK_EXPR } AstSublinkKind;

typedef struct Ast Ast;

typedef struct AstList {
    Ast **items;
    int n;
} AstList;

/* Type name as written: names (e.g. {"pg_catalog","int4"} or {"numeric"}), typmods
 * (integer constants, e.g. 12, 2), array bounds unsupported. For INTERVAL '1' SECOND
 * the interval field qualifier is kept in interval_fields (PostgreSQL's INTERVAL_MASK
 * bits: YEAR 4, MONTH 2, DAY 8, HOUR 1024, MINUTE 2048, SECOND 4096) or 0. */
typedef struct AstTypeName {
    const char **names;
    int nnames;
    int typmods[4];
    int ntypmods;
    int interval_fields;
    bool is_array;
    int loc;
} AstTypeName;

struct Ast {
    AstKind kind;
    int loc;

    /* AST_SELECT */
    bool distinct;            /* SELECT DISTINCT */
    AstList distinct_on;      /* DISTINCT ON (exprs) */
    AstList targets;          /* AST_RES_TARGET */
    AstList from;             /* range items */
    Ast *where;
    AstList group_by;
    Ast *having;
    AstList order_by;         /* AST_SORT_BY */
    Ast *limit;               /* expression or NULL */
    Ast *offset;
    AstList ctes;             /* AST_CTE */
    bool recursive;           /* WITH RECURSIVE (unsupported) */
    AstList windows;          /* named WINDOW clause (AST_WINDOW_DEF with name) */
    AstSetOp setop;
    bool setop_all;
    AstList *values;          /* VALUES (...), (...): nvalues rows of expressions (a SELECT
                                 node with values has no targets, FROM, WHERE ...) */
    int nvalues;
    Ast *larg, *rarg;         /* set operation operands; AST_JOIN operands */

    /* common expression fields */
    const char *name;         /* RES_TARGET alias; OP name; FUNC_CALL last name; RANGE_VAR relname;
                                 CTE name; WINDOW_DEF name; UNSUPPORTED description */
    const char **names;       /* COLUMN_REF fields; FUNC_CALL qualified name parts */
    int nnames;
    bool star;                /* COLUMN_REF ends with * */
    Ast *expr;                /* RES_TARGET value; TYPE_CAST arg; NOT arg; NULL_TEST/BOOL_TEST arg;
                                 SORT_BY expr; CASE arg (simple CASE) */
    Ast *lexpr, *rexpr;
    AstList args;             /* AND/OR args; IN list; BETWEEN bounds; FUNC_CALL args; COALESCE; MIN_MAX;
                                 RANGE_FUNCTION: the function call's args */
    bool negated;
    bool symmetric;           /* BETWEEN SYMMETRIC */
    bool ilike;
    int booltest;
    bool is_greatest;

    /* AST_CONST */
    AstConstKind const_kind;
    const char *text;         /* literal text (digits, string contents, "true"/"false") */

    /* AST_TYPE_CAST */
    AstTypeName type_name;

    /* AST_FUNC_CALL */
    bool agg_star;            /* count(*) */
    bool agg_distinct;
    Ast *agg_filter;
    AstList agg_order;        /* aggregate ORDER BY, or the WITHIN GROUP (ORDER BY ...) list */
    bool agg_within_group;    /* agg_order came from WITHIN GROUP (ordered-set aggregates) */
    Ast *over;                /* AST_WINDOW_DEF or NULL */
    bool func_variadic;
    bool grouping_func;       /* GROUPING(args): the grouping-set bits of its arguments */
    AstGroupingSetKind gset;  /* AST_GROUPING_SET */

    /* AST_CASE */
    AstList whens;
    Ast *else_expr;

    /* AST_SUBLINK */
    AstSublinkKind sublink;
    const char *sublink_op;   /* operator for ANY/ALL ("=" for IN) */
    Ast *subquery;            /* also RANGE_SUBSELECT, CTE */

    /* range items */
    const char *alias;        /* RANGE_*, JOIN alias */
    const char **alias_cols;  /* alias column names / CTE column names */
    int nalias_cols;
    bool lateral;
    Ast *func;                /* RANGE_FUNCTION: the AST_FUNC_CALL */
    AstJoinKind join_kind;
    bool natural;
    Ast *quals;
    const char **using_cols;
    int nusing;

    /* AST_WINDOW_DEF */
    AstList partition;
    AstList order;            /* AST_SORT_BY */
    bool has_frame;           /* a frame other than the default one */
    int frame_options;        /* PostgreSQL's FRAMEOPTION_* bits as parsed (0: none given) */
    Ast *frame_start;         /* the start's offset expression (N / INTERVAL ... PRECEDING), or NULL */
    Ast *frame_end;           /* the end's offset expression, or NULL */
    const char *refname;      /* OVER w */

    /* AST_SORT_BY */
    bool desc;
    int nulls;                /* 0 default, 1 NULLS FIRST, 2 NULLS LAST */
};

typedef struct SqlParseResult {
    Ast *stmt;                /* the single SELECT, or NULL on error */
    bool ok;
    const char *error;        /* parser message, when !ok */
    int error_loc;            /* byte offset of the error, or -1 */
    const char *code;         /* diagnostic code when !ok: NULL = sql-syntax */
    const char *hint;         /* or NULL */
} SqlParseResult;

/* How deeply a model's SQL may nest: expressions within expressions (each operator,
 * function call, CASE, cast ... is a level), queries within queries (subqueries, WITH
 * queries, set operations, joins). The parser adapter refuses a deeper syntax tree and
 * the binder a deeper plan (its expressions included), so no later stage, all of which
 * recurse over these trees (binder, IR, evaluator, explain, manifest), ever sees one:
 * 1000 levels take well under 4 MiB of stack in every stage, even with sanitizers. */
#define SQL_MAX_DEPTH 1000
/* The message of a too deep query (diagnostic code "too-deep"). */
#define SQL_TOO_DEEP_MESSAGE "the query nests more than 1000 levels deep (expressions within expressions, queries within queries)"
#define SQL_TOO_DEEP_HINT "split it: compute parts in WITH queries, in other columns or in other models"

/* Parse one SELECT statement (PostgreSQL dialect) into an AST in arena. Fails when the
 * text is not valid SQL, holds more than one statement, is not a SELECT (the message
 * says which) or nests deeper than SQL_MAX_DEPTH (code "too-deep", at the first node
 * beyond). Never aborts on any input. */
SqlParseResult sql_parse(Arena *arena, const char *sql);

/* Human name of an AST kind for messages. */
const char *ast_kind_name(AstKind k);

#endif
