/* Unit tests for the libpg_query adapter (src/sql/pg_adapter.c): the AST shape of every
 * construct weir binds (checked through a compact S-expression rendering), byte
 * positions of nodes, errors for syntax errors / non-SELECT / several statements, and
 * AST_UNSUPPORTED names and positions for everything else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/strbuf.h"
#include "sql/ast.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- S-expression rendering of an AST ------------------------------------- */

static void sx(StrBuf *b, const Ast *a);

static void sx_list(StrBuf *b, const char *head, AstList l)
{
    if (!l.n) return;
    sb_printf(b, " (%s", head);
    for (int i = 0; i < l.n; i++) {
        sb_putc(b, ' ');
        sx(b, l.items[i]);
    }
    sb_putc(b, ')');
}

static void sx_items(StrBuf *b, AstList l)
{
    for (int i = 0; i < l.n; i++) {
        sb_putc(b, ' ');
        sx(b, l.items[i]);
    }
}

static void sx_opt(StrBuf *b, const char *head, const Ast *a)
{
    if (!a) return;
    sb_printf(b, " (%s ", head);
    sx(b, a);
    sb_putc(b, ')');
}

static void sx_names(StrBuf *b, const char *const *names, int n, const char *sep)
{
    for (int i = 0; i < n; i++) sb_printf(b, "%s%s", i ? sep : "", names[i]);
}

static void sx_alias(StrBuf *b, const Ast *a)
{
    if (a->alias) sb_printf(b, " @%s", a->alias);
    if (a->nalias_cols) {
        sb_puts(b, " (");
        sx_names(b, a->alias_cols, a->nalias_cols, " ");
        sb_putc(b, ')');
    }
}

static void sx_type(StrBuf *b, const AstTypeName *t)
{
    sx_names(b, t->names, t->nnames, ".");
    if (t->ntypmods) {
        sb_putc(b, '(');
        for (int i = 0; i < t->ntypmods; i++) sb_printf(b, "%s%d", i ? "," : "", t->typmods[i]);
        sb_putc(b, ')');
    }
    if (t->interval_fields) sb_printf(b, "{%d}", t->interval_fields);
    if (t->is_array) sb_puts(b, "[]");
}

static void sx(StrBuf *b, const Ast *a)
{
    static const char *const setops[] = {"select", "union", "except", "intersect"};
    static const char *const joins[] = {"inner", "left", "right", "full", "cross"};
    static const char *const sublinks[] = {"exists", "any", "all", "scalar"};
    if (!a) {
        sb_puts(b, "NIL");
        return;
    }
    switch (a->kind) {
    case AST_SELECT:
        sb_printf(b, "(%s%s", setops[a->setop], a->setop_all ? "-all" : "");
        if (a->recursive) sb_puts(b, " recursive");
        sx_list(b, "with", a->ctes);
        if (a->distinct) sb_puts(b, " distinct");
        sx_list(b, "distinct-on", a->distinct_on);
        if (a->setop != AST_SETOP_NONE) {
            sb_putc(b, ' ');
            sx(b, a->larg);
            sb_putc(b, ' ');
            sx(b, a->rarg);
        }
        sx_items(b, a->targets);
        sx_list(b, "from", a->from);
        sx_opt(b, "where", a->where);
        sx_list(b, "group", a->group_by);
        sx_opt(b, "having", a->having);
        sx_list(b, "windows", a->windows);
        sx_list(b, "order", a->order_by);
        sx_opt(b, "limit", a->limit);
        sx_opt(b, "offset", a->offset);
        sb_putc(b, ')');
        return;
    case AST_RES_TARGET:
        if (a->name) {
            sb_printf(b, "(as %s ", a->name);
            sx(b, a->expr);
            sb_putc(b, ')');
        } else {
            sx(b, a->expr);
        }
        return;
    case AST_COLUMN_REF:
        sx_names(b, a->names, a->nnames, ".");
        if (a->star) sb_puts(b, a->nnames ? ".*" : "*");
        return;
    case AST_CONST:
        switch (a->const_kind) {
        case AST_CONST_INT: sb_printf(b, "%s", a->text); return;
        case AST_CONST_NUMBER: sb_printf(b, "#%s", a->text); return;
        case AST_CONST_STRING: sb_printf(b, "'%s'", a->text); return;
        case AST_CONST_BOOL: sb_printf(b, "%s", a->text); return;
        case AST_CONST_NULL: sb_puts(b, "null"); return;
        }
        return;
    case AST_TYPE_CAST:
        sb_puts(b, "(cast ");
        sx(b, a->expr);
        sb_putc(b, ' ');
        sx_type(b, &a->type_name);
        sb_putc(b, ')');
        return;
    case AST_OP:
        sb_printf(b, "(%s", a->name);
        if (a->lexpr) {
            sb_putc(b, ' ');
            sx(b, a->lexpr);
        }
        sb_putc(b, ' ');
        sx(b, a->rexpr);
        sb_putc(b, ')');
        return;
    case AST_AND:
    case AST_OR:
        sb_puts(b, a->kind == AST_AND ? "(and" : "(or");
        sx_items(b, a->args);
        sb_putc(b, ')');
        return;
    case AST_NOT:
        sb_puts(b, "(not ");
        sx(b, a->expr);
        sb_putc(b, ')');
        return;
    case AST_IN_LIST:
        sb_printf(b, "(%s ", a->negated ? "not-in" : "in");
        sx(b, a->lexpr);
        sx_items(b, a->args);
        sb_putc(b, ')');
        return;
    case AST_BETWEEN:
        sb_printf(b, "(%sbetween%s ", a->negated ? "not-" : "", a->symmetric ? "-sym" : "");
        sx(b, a->lexpr);
        sx_items(b, a->args);
        sb_putc(b, ')');
        return;
    case AST_LIKE:
    case AST_DISTINCT_FROM:
    case AST_NULLIF: {
        const char *h = a->kind == AST_LIKE ? (a->ilike ? "ilike" : "like")
                        : a->kind == AST_NULLIF ? "nullif"
                                                : "distinct-from";
        sb_printf(b, "(%s%s ", a->negated ? "not-" : "", h);
        sx(b, a->lexpr);
        sb_putc(b, ' ');
        sx(b, a->rexpr);
        sb_putc(b, ')');
        return;
    }
    case AST_NULL_TEST:
        sb_printf(b, "(%s ", a->negated ? "is-not-null" : "is-null");
        sx(b, a->expr);
        sb_putc(b, ')');
        return;
    case AST_BOOL_TEST:
        sb_printf(b, "(booltest%d ", a->booltest);
        sx(b, a->expr);
        sb_putc(b, ')');
        return;
    case AST_FUNC_CALL:
        sb_puts(b, "(call ");
        sx_names(b, a->names, a->nnames, ".");
        if (a->agg_star) sb_puts(b, " *");
        if (a->agg_distinct) sb_puts(b, " distinct");
        if (a->func_variadic) sb_puts(b, " variadic");
        sx_items(b, a->args);
        sx_list(b, "agg-order", a->agg_order);
        sx_opt(b, "filter", a->agg_filter);
        sx_opt(b, "over", a->over);
        sb_putc(b, ')');
        return;
    case AST_CASE:
        sb_puts(b, "(case");
        if (a->expr) {
            sb_putc(b, ' ');
            sx(b, a->expr);
        }
        sx_items(b, a->whens);
        sx_opt(b, "else", a->else_expr);
        sb_putc(b, ')');
        return;
    case AST_CASE_WHEN:
        sb_puts(b, "(when ");
        sx(b, a->lexpr);
        sb_putc(b, ' ');
        sx(b, a->rexpr);
        sb_putc(b, ')');
        return;
    case AST_ARRAY:
        sb_puts(b, "(array");
        sx_items(b, a->args);
        sb_putc(b, ')');
        return;
    case AST_SUBSCRIPT:
        sb_puts(b, "(subscript ");
        sx(b, a->expr);
        sb_putc(b, ' ');
        sx(b, a->lexpr);
        sb_putc(b, ')');
        return;
    case AST_ARRAY_CMP:
        sb_printf(b, "(%s-%s ", a->name, a->negated ? "all" : "any");
        sx(b, a->lexpr);
        sb_putc(b, ' ');
        sx(b, a->rexpr);
        sb_putc(b, ')');
        return;
    case AST_COALESCE:
    case AST_MIN_MAX:
        sb_puts(b, a->kind == AST_COALESCE ? "(coalesce" : a->is_greatest ? "(greatest" : "(least");
        sx_items(b, a->args);
        sb_putc(b, ')');
        return;
    case AST_SUBLINK:
        sb_printf(b, "(%s", sublinks[a->sublink]);
        if (a->sublink_op) sb_printf(b, " %s", a->sublink_op);
        if (a->lexpr) {
            sb_putc(b, ' ');
            sx(b, a->lexpr);
        }
        sb_putc(b, ' ');
        sx(b, a->subquery);
        sb_putc(b, ')');
        return;
    case AST_STAR:
        sb_puts(b, "*");
        return;
    case AST_RANGE_VAR:
        sb_printf(b, "(table %s", a->name);
        sx_alias(b, a);
        sb_putc(b, ')');
        return;
    case AST_RANGE_SUBSELECT:
        sb_puts(b, a->lateral ? "(lateral-subselect " : "(subselect ");
        sx(b, a->subquery);
        sx_alias(b, a);
        sb_putc(b, ')');
        return;
    case AST_RANGE_FUNCTION:
        sb_puts(b, a->lateral ? "(lateral-tablefunc " : "(tablefunc ");
        sx(b, a->func);
        sx_alias(b, a);
        sb_putc(b, ')');
        return;
    case AST_JOIN:
        sb_printf(b, "(%sjoin-%s ", a->natural ? "natural-" : "", joins[a->join_kind]);
        sx(b, a->larg);
        sb_putc(b, ' ');
        sx(b, a->rarg);
        sx_opt(b, "on", a->quals);
        if (a->nusing) {
            sb_puts(b, " (using ");
            sx_names(b, a->using_cols, a->nusing, " ");
            sb_putc(b, ')');
        }
        sx_alias(b, a);
        sb_putc(b, ')');
        return;
    case AST_CTE:
        sb_printf(b, "(cte %s", a->name);
        sx_alias(b, a);
        sb_putc(b, ' ');
        sx(b, a->subquery);
        sb_putc(b, ')');
        return;
    case AST_SORT_BY:
        sb_puts(b, "(sort ");
        sx(b, a->expr);
        if (a->desc) sb_puts(b, " desc");
        if (a->nulls) sb_puts(b, a->nulls == 1 ? " nulls-first" : " nulls-last");
        sb_putc(b, ')');
        return;
    case AST_WINDOW_DEF:
        sb_puts(b, "(window");
        if (a->name) sb_printf(b, " %s", a->name);
        if (a->refname) sb_printf(b, " ref=%s", a->refname);
        sx_list(b, "partition", a->partition);
        sx_list(b, "order", a->order);
        if (a->has_frame) sb_puts(b, " frame");
        sb_putc(b, ')');
        return;
    case AST_UNSUPPORTED:
        sb_printf(b, "(unsupported \"%s\")", a->name);
        return;
    case AST_GROUPING_SET: {
        static const char *const kinds[] = {"sets", "rollup", "cube", "empty", "list"};
        sb_printf(b, "(%s", kinds[a->gset]);
        sx_items(b, a->args);
        sb_putc(b, ')');
        return;
    }
    }
    sb_printf(b, "(?%d)", (int)a->kind);
}

/* ---- walking the tree (for position checks) -------------------------------- */

typedef struct Found {
    AstKind kind;
    int want;   /* which occurrence, in pre-order */
    int seen;
    const Ast *hit;
} Found;

static void walk(const Ast *a, Found *f);

static void walk_list(AstList l, Found *f)
{
    for (int i = 0; i < l.n; i++) walk(l.items[i], f);
}

static void walk(const Ast *a, Found *f)
{
    if (!a || f->hit) return;
    if (a->kind == f->kind && f->seen++ == f->want) {
        f->hit = a;
        return;
    }
    walk_list(a->ctes, f);
    walk_list(a->distinct_on, f);
    walk(a->larg, f);
    walk(a->rarg, f);
    walk_list(a->targets, f);
    walk_list(a->from, f);
    walk(a->where, f);
    walk_list(a->group_by, f);
    walk(a->having, f);
    walk_list(a->windows, f);
    walk_list(a->order_by, f);
    walk(a->limit, f);
    walk(a->offset, f);
    walk(a->expr, f);
    walk(a->lexpr, f);
    walk(a->rexpr, f);
    if (a->kind != AST_RANGE_FUNCTION) walk_list(a->args, f); /* its args are func's */
    walk_list(a->agg_order, f);
    walk(a->agg_filter, f);
    walk(a->over, f);
    walk_list(a->whens, f);
    walk(a->else_expr, f);
    walk(a->subquery, f);
    walk(a->func, f);
    walk(a->quals, f);
    walk_list(a->partition, f);
    walk_list(a->order, f);
}

static const Ast *find(const Ast *root, AstKind k, int nth)
{
    Found f = {k, nth, 0, NULL};
    walk(root, &f);
    return f.hit;
}

/* ---- fixture --------------------------------------------------------------- */

typedef struct Fixture {
    Arena arena;
    StrBuf sb;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    arena_init(&f->arena, 4096);
    sb_init(&f->sb);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    arena_fini(&f->arena);
    sb_free(&f->sb);
    free(f);
    return 0;
}

static const Ast *parse_ok(Fixture *f, const char *sql)
{
    SqlParseResult r = sql_parse(&f->arena, sql);
    if (!r.ok) fail_msg("parse of [%s] failed: %s at %d", sql, r.error ? r.error : "?", r.error_loc);
    assert_non_null(r.stmt);
    assert_null(r.error);
    return r.stmt;
}

static const char *render(Fixture *f, const Ast *a)
{
    sb_clear(&f->sb);
    sx(&f->sb, a);
    return sb_cstr(&f->sb);
}

/* Offset of the first occurrence of marker in sql (the test fails when absent). */
static int offset_of(const char *sql, const char *marker)
{
    const char *p = strstr(sql, marker);
    if (!p) fail_msg("marker [%s] not in [%s]", marker, sql);
    return (int)(p - sql);
}

/* ---- shape: table-driven --------------------------------------------------- */

typedef struct ShapeCase {
    const char *sql;
    const char *want;
} ShapeCase;

static const ShapeCase shape_cases[] = {
    /* literals */
    {"SELECT 1, 0, -7, 2147483647", "(select 1 0 -7 2147483647)"},
    {"SELECT 2147483648, 99999999999999999999, -2147483649", "(select #2147483648 #99999999999999999999 #-2147483649)"},
    {"SELECT 1.50, .5, 1e10, -0.0", "(select #1.50 #.5 #1e10 #-0.0)"},
    {"SELECT 'abc', '', 'it''s', E'a\\nb'", "(select 'abc' '' 'it's' 'a\nb')"},
    {"SELECT true, false, NULL", "(select true false null)"},
    /* names, aliases */
    {"SELECT a, t.b AS bee, s.t.c, *, t.*", "(select a (as bee t.b) s.t.c * t.*)"},
    {"SELECT \"Mixed Case\" \"X\" FROM \"T\"", "(select (as X Mixed Case) (from (table T)))"},
    /* casts */
    {"SELECT x::numeric(12,2), CAST(x AS bigint), y::text[]",
     "(select (cast x pg_catalog.numeric(12,2)) (cast x pg_catalog.int8) (cast y text[]))"},
    {"SELECT INTERVAL '10' SECOND, INTERVAL '1 day', INTERVAL '1' SECOND(3), INTERVAL(2) '3'",
     "(select (cast '10' pg_catalog.interval{4096}) (cast '1 day' pg_catalog.interval) "
     "(cast '1' pg_catalog.interval(3){4096}) (cast '3' pg_catalog.interval(2)))"},
    {"SELECT INTERVAL '1-2' YEAR TO MONTH, x::interval",
     "(select (cast '1-2' pg_catalog.interval{6}) (cast x pg_catalog.interval))"},
    {"SELECT timestamp '2024-01-01', date '2024-01-01', CAST(x AS varchar(10))",
     "(select (cast '2024-01-01' pg_catalog.timestamp) (cast '2024-01-01' date) "
     "(cast x pg_catalog.varchar(10)))"},
    /* operators */
    {"SELECT a + b * 2, -x, a || 'x', NOT a, a >= 1 AND b <> 2 AND c = 3 OR d",
     "(select (+ a (* b 2)) (- x) (|| a 'x') (not a) (or (and (>= a 1) (<> b 2) (= c 3)) d))"},
    {"SELECT a AND (b AND c), (a OR b) OR (c OR d), a OPERATOR(pg_catalog.+) b",
     "(select (and a b c) (or a b c d) (+ a b))"},
    {"SELECT x IN (1, 2, 3), x NOT IN ('a')", "(select (in x 1 2 3) (not-in x 'a'))"},
    {"SELECT x BETWEEN 1 AND 5, x NOT BETWEEN 1 AND 5, x BETWEEN SYMMETRIC 5 AND 1, "
     "x NOT BETWEEN SYMMETRIC 5 AND 1",
     "(select (between x 1 5) (not-between x 1 5) (between-sym x 5 1) (not-between-sym x 5 1))"},
    {"SELECT s LIKE 'a%', s NOT LIKE 'b', s ILIKE 'c', s NOT ILIKE 'd'",
     "(select (like s 'a%') (not-like s 'b') (ilike s 'c') (not-ilike s 'd'))"},
    {"SELECT ARRAY[1, a], arr[i + 1], x = ANY (arr), x <> ALL ('{1}'), '{1,2}'::int[]",
     "(select (array 1 a) (subscript arr (+ i 1)) (=-any x arr) (<>-all x '{1}') (cast '{1,2}' pg_catalog.int4[]))"},
    {"SELECT a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b, NULLIF(a, 0)",
     "(select (distinct-from a b) (not-distinct-from a b) (nullif a 0))"},
    {"SELECT a IS NULL, a IS NOT NULL, a ISNULL, b IS TRUE, b IS NOT TRUE, b IS FALSE, "
     "b IS NOT FALSE, b IS UNKNOWN, b IS NOT UNKNOWN",
     "(select (is-null a) (is-not-null a) (is-null a) (booltest0 b) (booltest1 b) (booltest2 b) "
     "(booltest3 b) (booltest4 b) (booltest5 b))"},
    /* conditional expressions */
    {"SELECT CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'none' END",
     "(select (case (when (> a 1) 'big') (when (> a 0) 'small') (else 'none')))"},
    {"SELECT CASE status WHEN 'new' THEN 1 END", "(select (case status (when 'new' 1)))"},
    {"SELECT COALESCE(a, b, 0), GREATEST(a, b), LEAST(1, 2)",
     "(select (coalesce a b 0) (greatest a b) (least 1 2))"},
    /* functions with SQL syntax */
    {"SELECT EXTRACT(year FROM t), EXTRACT(EPOCH FROM t)",
     "(select (call pg_catalog.extract 'year' t) (call pg_catalog.extract 'epoch' t))"},
    {"SELECT POSITION('a' IN s), SUBSTRING(s FROM 2 FOR 3), SUBSTRING(s, 2)",
     "(select (call pg_catalog.position s 'a') (call pg_catalog.substring s 2 3) (call substring s 2))"},
    {"SELECT TRIM(s), TRIM(BOTH 'x' FROM s), TRIM(LEADING FROM s), TRIM(TRAILING 'y' FROM s)",
     "(select (call pg_catalog.btrim s) (call pg_catalog.btrim s 'x') (call pg_catalog.ltrim s) "
     "(call pg_catalog.rtrim s 'y'))"},
    {"SELECT lower(s), my_schema.f(1, 2), date_trunc('hour', t)",
     "(select (call lower s) (call my_schema.f 1 2) (call date_trunc 'hour' t))"},
    /* aggregates */
    {"SELECT count(*), count(DISTINCT x), sum(x) FILTER (WHERE x > 0), string_agg(s, ',' ORDER BY s)",
     "(select (call count *) (call count distinct x) (call sum x (filter (> x 0))) "
     "(call string_agg s ',' (agg-order (sort s))))"},
    {"SELECT concat(VARIADIC arr)", "(select (call concat variadic arr))"},
    /* window functions */
    {"SELECT row_number() OVER (PARTITION BY a ORDER BY b DESC)",
     "(select (call row_number (over (window (partition a) (order (sort b desc))))))"},
    {"SELECT sum(x) OVER w, sum(x) OVER (w ORDER BY c), sum(x) OVER () FROM t WINDOW w AS (PARTITION BY a)",
     "(select (call sum x (over (window ref=w))) (call sum x (over (window ref=w (order (sort c))))) "
     "(call sum x (over (window))) (from (table t)) (windows (window w (partition a))))"},
    {"SELECT sum(x) OVER (ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), "
     "sum(x) OVER (ORDER BY t RANGE UNBOUNDED PRECEDING)",
     "(select (call sum x (over (window (order (sort t)) frame))) "
     "(call sum x (over (window (order (sort t)) frame))))"},
    /* FROM */
    {"SELECT * FROM source('a.b') s", "(select * (from (tablefunc (call source 'a.b') @s)))"},
    {"SELECT * FROM ref('m')", "(select * (from (tablefunc (call ref 'm'))))"},
    {"SELECT window_start, count(*) FROM TUMBLE(source('x'), created_at, INTERVAL '10' SECOND) w GROUP BY 1",
     "(select window_start (call count *) (from (tablefunc (call tumble (call source 'x') created_at "
     "(cast '10' pg_catalog.interval{4096})) @w)) (group 1))"},
    {"SELECT * FROM a, b AS bb (x, y), s.t", "(select * (from (table a) (table b @bb (x y)) (table s.t)))"},
    {"SELECT * FROM c.s.t", "(select * (from (table c.s.t)))"},
    {"SELECT * FROM (SELECT 1 AS one) AS q (o)", "(select * (from (subselect (select (as one 1)) @q (o))))"},
    {"SELECT * FROM a, LATERAL (SELECT a.x) l", "(select * (from (table a) (lateral-subselect (select a.x) @l)))"},
    /* joins */
    {"SELECT * FROM a JOIN b ON a.id = b.id", "(select * (from (join-inner (table a) (table b) (on (= a.id b.id)))))"},
    {"SELECT * FROM a INNER JOIN b USING (id, k)", "(select * (from (join-inner (table a) (table b) (using id k))))"},
    {"SELECT * FROM a LEFT JOIN b ON true RIGHT OUTER JOIN c ON false FULL JOIN d USING (k)",
     "(select * (from (join-full (join-right (join-left (table a) (table b) (on true)) (table c) (on false)) "
     "(table d) (using k))))"},
    {"SELECT * FROM a CROSS JOIN b, a NATURAL JOIN b, a NATURAL LEFT JOIN b",
     "(select * (from (join-cross (table a) (table b)) (natural-join-inner (table a) (table b)) "
     "(natural-join-left (table a) (table b))))"},
    {"SELECT * FROM (a JOIN b ON true) AS j", "(select * (from (join-inner (table a) (table b) (on true) @j)))"},
    {"SELECT * FROM source('o') o JOIN ref('c') c ON o.cid = c.id",
     "(select * (from (join-inner (tablefunc (call source 'o') @o) (tablefunc (call ref 'c') @c) "
     "(on (= o.cid c.id)))))"},
    /* WITH */
    {"WITH a AS (SELECT 1), b (x) AS MATERIALIZED (SELECT 2) SELECT * FROM a, b",
     "(select (with (cte a (select 1)) (cte b (x) (select 2))) * (from (table a) (table b)))"},
    {"WITH RECURSIVE r AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r",
     "(select recursive (with (cte r (union-all (select 1) (select (+ n 1) (from (table r)))))) * "
     "(from (table r)))"},
    /* set operations */
    {"SELECT a FROM t UNION ALL SELECT a FROM u",
     "(union-all (select a (from (table t))) (select a (from (table u))))"},
    {"SELECT 1 UNION SELECT 2 EXCEPT SELECT 3 INTERSECT SELECT 4",
     "(except (union (select 1) (select 2)) (intersect (select 3) (select 4)))"},
    {"(SELECT 1) UNION (SELECT 2) ORDER BY 1 LIMIT 1", "(union (select 1) (select 2) (order (sort 1)) (limit 1))"},
    {"SELECT 1 EXCEPT ALL SELECT 2", "(except-all (select 1) (select 2))"},
    /* clauses */
    {"SELECT DISTINCT a FROM t", "(select distinct a (from (table t)))"},
    {"SELECT DISTINCT ON (a, b) a, c FROM t", "(select (distinct-on a b) a c (from (table t)))"},
    {"SELECT a, sum(b) FROM t WHERE c > 0 GROUP BY a HAVING sum(b) > 10 ORDER BY 2 DESC NULLS LAST, a ASC "
     "NULLS FIRST LIMIT 10 OFFSET 5",
     "(select a (call sum b) (from (table t)) (where (> c 0)) (group a) (having (> (call sum b) 10)) "
     "(order (sort 2 desc nulls-last) (sort a nulls-first)) (limit 10) (offset 5))"},
    {"SELECT a FROM t LIMIT ALL", "(select a (from (table t)))"},
    {"SELECT a FROM t OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY", "(select a (from (table t)) (limit 3) (offset 2))"},
    {"SELECT a FROM t FETCH FIRST ROW ONLY", "(select a (from (table t)) (limit 1))"},
    {"SELECT", "(select)"},
    {"TABLE t", "(select * (from (table t)))"},
    /* subqueries in expressions */
    {"SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id)",
     "(select * (from (table t)) (where (exists (select 1 (from (table u)) (where (= u.id t.id))))))"},
    {"SELECT a IN (SELECT b FROM u), a NOT IN (SELECT b FROM u), a > ALL (SELECT b FROM u), a < ANY (SELECT 1)",
     "(select (any = a (select b (from (table u)))) (not (any = a (select b (from (table u))))) "
     "(all > a (select b (from (table u)))) (any < a (select 1)))"},
    {"SELECT (SELECT max(x) FROM u) AS m", "(select (as m (scalar (select (call max x) (from (table u))))))"},
    /* comments are ignored */
    {"/* head */ SELECT -- line\n a /* mid */ FROM t; -- tail", "(select a (from (table t)))"},
    {"SELECT a FROM t GROUP BY GROUPING SETS ((a, b), a, ()), ROLLUP (a, (b, c)), CUBE (a)",
     "(select a (from (table t)) (group (sets (list a b) a (empty)) (rollup a (list b c)) (cube a)))"},
    {"SELECT GROUPING(a, b) FROM t GROUP BY a, b", "(select (call grouping a b) (from (table t)) (group a b))"},
    /* Flink's window spelling: the TABLE wrappers are blanked before parsing */
    {"SELECT w FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' MINUTE))",
     "(select w (from (tablefunc (call tumble t (call descriptor ts) (cast '5' pg_catalog.interval{2048})))))"},
};

static void test_shapes(void **state)
{
    Fixture *f = *state;
    int failures = 0;
    for (size_t i = 0; i < sizeof shape_cases / sizeof shape_cases[0]; i++) {
        const ShapeCase *c = &shape_cases[i];
        SqlParseResult r = sql_parse(&f->arena, c->sql);
        const char *got = r.ok ? render(f, r.stmt) : r.error;
        if (!r.ok || strcmp(got, c->want) != 0) {
            print_error("case %zu: %s\n  want: %s\n  got:  %s\n", i, c->sql, c->want, got);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* ---- unsupported constructs: name and position ----------------------------- */

typedef struct UnsupCase {
    const char *sql;
    const char *name;    /* expected AST_UNSUPPORTED name */
    const char *marker;  /* its position: first occurrence of this text */
} UnsupCase;

static const UnsupCase unsup_cases[] = {
    {"SELECT 1 FROM t ORDER BY a USING <", "ORDER BY ... USING", "<"},
    {"SELECT a INTO t2 FROM t", "SELECT INTO", "SELECT"},
    {"SELECT a FROM t FOR UPDATE", "FOR UPDATE", "SELECT"},
    {"SELECT a FROM t FOR SHARE", "FOR SHARE", "SELECT"},
    {"SELECT a FROM t ORDER BY a FETCH FIRST 2 ROWS WITH TIES", "FETCH FIRST ... WITH TIES", "2"},
    {"SELECT s SIMILAR TO 'a%' FROM t", "SIMILAR TO", "SIMILAR"},
    {"SELECT s LIKE 'a!%' ESCAPE '!' FROM t", "LIKE ... ESCAPE", "LIKE"},
    {"SELECT s ILIKE 'a!%' ESCAPE '!' FROM t", "ILIKE ... ESCAPE", "ILIKE"},
    {"SELECT CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP (processing time)", "CURRENT_TIMESTAMP"},
    {"SELECT a FROM t WHERE d < CURRENT_DATE", "CURRENT_DATE (processing time)", "CURRENT_DATE"},
    {"SELECT LOCALTIMESTAMP(3)", "LOCALTIMESTAMP (processing time)", "LOCALTIMESTAMP"},
    {"SELECT CURRENT_USER", "CURRENT_USER", "CURRENT_USER"},
    {"SELECT a FROM t WHERE b = $1", "$n parameters", "$1"},
    {"SELECT arr[1:2] FROM t", "array slice", "arr"},
    {"SELECT arr[1][2] FROM t", "field selection or several subscripts", "arr"},
    {"SELECT ARRAY[ARRAY[1], ARRAY[2]]", "multidimensional ARRAY[...]", "ARRAY"},
    {"SELECT ARRAY(SELECT 1)", "ARRAY(subquery)", "ARRAY"},
    {"SELECT ROW(1, 2)", "ROW constructor", "ROW"},
    {"SELECT (a, b) IN (SELECT 1, 2)", "ROW constructor", "(a"},
    {"SELECT s COLLATE \"C\" FROM t", "COLLATE", "COLLATE"},
    {"SELECT XMLELEMENT(name foo)", "XML expression", "XMLELEMENT"},
    {"SELECT f(a => 1)", "named function argument", "a =>"},
    {"SELECT B'101'", "bit-string literal", "B'"},
    {"SELECT * FROM t TABLESAMPLE SYSTEM (10)", "TABLESAMPLE", "t TABLESAMPLE"},
    {"SELECT * FROM generate_series(1, 3) WITH ORDINALITY", "WITH ORDINALITY", "generate_series"},
    {"SELECT * FROM ROWS FROM (f(1), g(2))", "ROWS FROM (...)", "f(1)"},
    {"SELECT * FROM f(1) AS x(a int)", "column definition list", "f(1)"},
    {"SELECT * FROM a JOIN b USING (k) AS j", "USING (...) AS alias", "JOIN"},
    {"WITH x AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM x", "data-modifying statement in WITH",
     "x AS"},
    {"WITH RECURSIVE r AS (SELECT 1 UNION SELECT 2 FROM r) SEARCH DEPTH FIRST BY a SET o SELECT * FROM r",
     "SEARCH clause", "r AS"},
    {"SELECT x::numeric(p)", "type modifier that is not an integer constant", "numeric"},
    {"SELECT * FROM CAST(1 AS int)", "expression used as a table function", "CAST"},
};

static void test_unsupported(void **state)
{
    Fixture *f = *state;
    int failures = 0;
    for (size_t i = 0; i < sizeof unsup_cases / sizeof unsup_cases[0]; i++) {
        const UnsupCase *c = &unsup_cases[i];
        SqlParseResult r = sql_parse(&f->arena, c->sql);
        if (!r.ok) {
            print_error("case %zu: %s\n  parse failed: %s\n", i, c->sql, r.error);
            failures++;
            continue;
        }
        const Ast *u = find(r.stmt, AST_UNSUPPORTED, 0);
        int want_loc = offset_of(c->sql, c->marker);
        if (!u || strcmp(u->name, c->name) != 0 || u->loc != want_loc) {
            print_error("case %zu: %s\n  want: \"%s\" at %d\n  got:  \"%s\" at %d  in %s\n", i, c->sql, c->name,
                        want_loc, u ? u->name : "(none)", u ? u->loc : -2, render(f, r.stmt));
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* ---- positions ------------------------------------------------------------- */

typedef struct LocCase {
    const char *sql;
    AstKind kind;
    int nth;             /* occurrence in pre-order */
    const char *marker;  /* expected position: first occurrence of this text */
} LocCase;

static const LocCase loc_cases[] = {
    {"SELECT a FROM t", AST_SELECT, 0, "SELECT"},
    {"  \n/* c */ -- x\n select a", AST_SELECT, 0, "select"},
    {"SELECT DISTINCT ON (a + b) x FROM t", AST_SELECT, 0, "SELECT"},
    {"WITH q AS (SELECT 1) SELECT * FROM q", AST_SELECT, 0, "WITH"},
    {"WITH q AS (SELECT 1) SELECT * FROM q", AST_CTE, 0, "q AS"},
    {"WITH q AS (SELECT 1) SELECT * FROM q", AST_SELECT, 1, "SELECT 1"},
    {"SELECT 1 UNION SELECT 2", AST_SELECT, 2, "SELECT 2"},
    {"SELECT a, b AS bee FROM t", AST_RES_TARGET, 1, "b AS"},
    {"SELECT a, t.b FROM t", AST_COLUMN_REF, 1, "t.b"},
    {"SELECT 1, 'x', 2.5", AST_CONST, 2, "2.5"},
    {"SELECT -5", AST_CONST, 0, "-5"},
    {"SELECT a + b", AST_OP, 0, "+"},
    {"SELECT x::int", AST_TYPE_CAST, 0, "::"},
    {"SELECT CAST(x AS int)", AST_TYPE_CAST, 0, "CAST"},
    {"SELECT 1, INTERVAL '10' SECOND", AST_TYPE_CAST, 0, "INTERVAL"},
    {"SELECT 1, timestamp '2024-01-01'", AST_TYPE_CAST, 0, "timestamp"},
    {"SELECT a AND b", AST_AND, 0, "AND"},
    {"SELECT NOT a", AST_NOT, 0, "NOT"},
    {"SELECT a IN (1)", AST_IN_LIST, 0, "IN"},
    {"SELECT a BETWEEN 1 AND 2", AST_BETWEEN, 0, "BETWEEN"},
    {"SELECT a LIKE 'x'", AST_LIKE, 0, "LIKE"},
    {"SELECT a IS NULL", AST_NULL_TEST, 0, "IS"},
    {"SELECT 1, count(*)", AST_FUNC_CALL, 0, "count"},
    {"SELECT sum(x) OVER (PARTITION BY a)", AST_WINDOW_DEF, 0, "(PARTITION"},
    {"SELECT CASE WHEN a THEN 1 END", AST_CASE, 0, "CASE"},
    {"SELECT CASE WHEN a THEN 1 END", AST_CASE_WHEN, 0, "WHEN"},
    {"SELECT 1, COALESCE(a, b)", AST_COALESCE, 0, "COALESCE"},
    {"SELECT 1, GREATEST(a, b)", AST_MIN_MAX, 0, "GREATEST"},
    {"SELECT 1 WHERE EXISTS (SELECT 1)", AST_SUBLINK, 0, "EXISTS"},
    {"SELECT 1 WHERE EXISTS (SELECT 1)", AST_SELECT, 1, "SELECT 1)"},
    {"SELECT 1 WHERE a IN (SELECT 1)", AST_SUBLINK, 0, "IN"},
    {"SELECT * FROM  s.t AS x", AST_RANGE_VAR, 0, "s.t"},
    {"SELECT * FROM  (SELECT 1) x", AST_RANGE_SUBSELECT, 0, "(SELECT"},
    {"SELECT * FROM  (SELECT 1) x", AST_SELECT, 1, "SELECT 1"},
    {"SELECT * FROM  (SELECT 1 UNION SELECT 2) x", AST_RANGE_SUBSELECT, 0, "(SELECT"},
    {"SELECT * FROM t, LATERAL (SELECT 1) x", AST_RANGE_SUBSELECT, 0, "LATERAL"},
    {"SELECT * FROM  source('a') x", AST_RANGE_FUNCTION, 0, "source"},
    {"SELECT * FROM a LEFT OUTER JOIN b ON true", AST_JOIN, 0, "LEFT"},
    {"SELECT * FROM a JOIN b ON true", AST_JOIN, 0, "JOIN"},
    {"SELECT * FROM a CROSS JOIN b", AST_JOIN, 0, "CROSS"},
    {"SELECT * FROM a NATURAL JOIN b", AST_JOIN, 0, "NATURAL"},
    {"SELECT * FROM a FULL JOIN (b JOIN c ON true) ON true", AST_JOIN, 0, "FULL"},
    {"SELECT * FROM a FULL JOIN (b JOIN c ON true) ON true", AST_JOIN, 1, "JOIN c"},
    {"SELECT * FROM a JOIN (SELECT 1) s ON true", AST_JOIN, 0, "JOIN"},
    {"SELECT * FROM a JOIN (SELECT 1) s ON true", AST_RANGE_SUBSELECT, 0, "(SELECT"},
    {"SELECT a FROM t ORDER BY a DESC", AST_SORT_BY, 0, "a DESC"},
    {"SELECT 'é', x FROM t", AST_COLUMN_REF, 0, "x FROM"},
};

static void test_locations(void **state)
{
    Fixture *f = *state;
    int failures = 0;
    for (size_t i = 0; i < sizeof loc_cases / sizeof loc_cases[0]; i++) {
        const LocCase *c = &loc_cases[i];
        const Ast *root = parse_ok(f, c->sql);
        const Ast *n = find(root, c->kind, c->nth);
        int want = offset_of(c->sql, c->marker);
        if (!n || n->loc != want) {
            print_error("case %zu: %s\n  %s #%d: want loc %d, got %d\n", i, c->sql, ast_kind_name(c->kind), c->nth,
                        want, n ? n->loc : -2);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* ---- a few shapes checked field by field ---------------------------------- */

static void test_fields_const_and_cast(void **state)
{
    Fixture *f = *state;
    const Ast *s = parse_ok(f, "SELECT INTERVAL '10' SECOND AS w, 2147483648, 1.50");
    assert_int_equal(s->kind, AST_SELECT);
    assert_int_equal(s->setop, AST_SETOP_NONE);
    assert_int_equal(s->targets.n, 3);
    const Ast *t0 = s->targets.items[0];
    assert_int_equal(t0->kind, AST_RES_TARGET);
    assert_string_equal(t0->name, "w");
    const Ast *cast = t0->expr;
    assert_int_equal(cast->kind, AST_TYPE_CAST);
    assert_int_equal(cast->type_name.nnames, 2);
    assert_string_equal(cast->type_name.names[1], "interval");
    assert_int_equal(cast->type_name.interval_fields, 4096);
    assert_int_equal(cast->type_name.ntypmods, 0);
    assert_false(cast->type_name.is_array);
    assert_int_equal(cast->type_name.loc, 7);
    assert_int_equal(cast->expr->kind, AST_CONST);
    assert_int_equal(cast->expr->const_kind, AST_CONST_STRING);
    assert_string_equal(cast->expr->text, "10");
    assert_int_equal(cast->expr->loc, 16);
    const Ast *big = s->targets.items[1]->expr;
    assert_int_equal(big->const_kind, AST_CONST_NUMBER);
    assert_string_equal(big->text, "2147483648");
    const Ast *num = s->targets.items[2]->expr;
    assert_int_equal(num->const_kind, AST_CONST_NUMBER);
    assert_string_equal(num->text, "1.50");
}

static void test_fields_func_and_window(void **state)
{
    Fixture *f = *state;
    const Ast *s = parse_ok(f, "SELECT count(DISTINCT x) FILTER (WHERE y), EXTRACT(hour FROM t), "
                               "row_number() OVER (PARTITION BY a ORDER BY b DESC) FROM t");
    const Ast *cnt = s->targets.items[0]->expr;
    assert_int_equal(cnt->kind, AST_FUNC_CALL);
    assert_string_equal(cnt->name, "count");
    assert_true(cnt->agg_distinct);
    assert_false(cnt->agg_star);
    assert_non_null(cnt->agg_filter);
    assert_int_equal(cnt->agg_filter->kind, AST_COLUMN_REF);
    assert_null(cnt->over);

    const Ast *ex = s->targets.items[1]->expr;
    assert_string_equal(ex->name, "extract");
    assert_int_equal(ex->nnames, 2);
    assert_string_equal(ex->names[0], "pg_catalog");
    assert_int_equal(ex->args.n, 2);
    assert_int_equal(ex->args.items[0]->kind, AST_CONST);
    assert_int_equal(ex->args.items[0]->const_kind, AST_CONST_STRING);
    assert_string_equal(ex->args.items[0]->text, "hour");

    const Ast *rn = s->targets.items[2]->expr;
    assert_string_equal(rn->name, "row_number");
    assert_int_equal(rn->args.n, 0);
    assert_non_null(rn->over);
    assert_int_equal(rn->over->kind, AST_WINDOW_DEF);
    assert_int_equal(rn->over->partition.n, 1);
    assert_int_equal(rn->over->order.n, 1);
    assert_true(rn->over->order.items[0]->desc);
    assert_false(rn->over->has_frame);
    assert_null(rn->over->refname);
    assert_null(rn->over->name);
}

static void test_fields_from(void **state)
{
    Fixture *f = *state;
    const Ast *s = parse_ok(f, "SELECT * FROM TUMBLE(source('commerce.orders'), created_at, INTERVAL '10' SECOND) "
                               "AS w LEFT JOIN ref('c') c USING (customer_id)");
    assert_int_equal(s->from.n, 1);
    const Ast *j = s->from.items[0];
    assert_int_equal(j->kind, AST_JOIN);
    assert_int_equal(j->join_kind, AST_JOIN_LEFT);
    assert_int_equal(j->nusing, 1);
    assert_string_equal(j->using_cols[0], "customer_id");
    assert_null(j->quals);
    const Ast *tf = j->larg;
    assert_int_equal(tf->kind, AST_RANGE_FUNCTION);
    assert_string_equal(tf->alias, "w");
    assert_non_null(tf->func);
    assert_string_equal(tf->func->name, "tumble");
    assert_int_equal(tf->args.n, 3);
    assert_ptr_equal(tf->args.items, tf->func->args.items);
    assert_int_equal(tf->args.items[0]->kind, AST_FUNC_CALL);
    assert_string_equal(tf->args.items[0]->name, "source");
    assert_string_equal(tf->args.items[0]->args.items[0]->text, "commerce.orders");
    assert_int_equal(j->rarg->kind, AST_RANGE_FUNCTION);
    assert_string_equal(j->rarg->alias, "c");
}

/* ---- errors ---------------------------------------------------------------- */

typedef struct ErrCase {
    const char *sql;
    const char *message;  /* substring of the error */
    const char *marker;   /* error position: first occurrence of this text; NULL = -1 */
} ErrCase;

static const ErrCase err_cases[] = {
    {"SELECT a FROM FROM t", "syntax error at or near \"FROM\"", "FROM t"},
    {"SELECT a, FROM t", "syntax error at or near \"FROM\"", "FROM"},
    {"SELECT 'é', 'ü' FROM FROM t", "syntax error", "FROM t"},
    {"SELECT (a", "syntax error at end of input", NULL},
    {"SELECT 'abc", "unterminated quoted string", "'abc"},
    {"INSERT INTO t VALUES (1)", "only SELECT is allowed in a model; found INSERT", "INSERT"},
    {"  UPDATE t SET a = 1", "only SELECT is allowed in a model; found UPDATE", "UPDATE"},
    {"DELETE FROM t", "only SELECT is allowed in a model; found DELETE", "DELETE"},
    {"WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", "found INSERT", "WITH"},
    {"CREATE TABLE t (a int)", "only SELECT is allowed in a model; found CREATE", "CREATE"},
    {"CREATE VIEW v AS SELECT 1", "found CREATE VIEW", "CREATE"},
    {"drop table t", "found DROP", "drop"},
    {"EXPLAIN SELECT 1", "found EXPLAIN", "EXPLAIN"},
    {"SELECT 1; SELECT 2", "expected a single SELECT statement", "SELECT 2"},
    {"SELECT 1;\n  -- two\n  INSERT INTO t VALUES (1)", "expected a single SELECT statement", "INSERT"},
    {"", "expected a single SELECT statement", NULL},
    {"  -- only a comment\n", "expected a single SELECT statement", NULL},
    {";", "expected a single SELECT statement", NULL},
};

static void test_errors(void **state)
{
    Fixture *f = *state;
    int failures = 0;
    for (size_t i = 0; i < sizeof err_cases / sizeof err_cases[0]; i++) {
        const ErrCase *c = &err_cases[i];
        SqlParseResult r = sql_parse(&f->arena, c->sql);
        int want = c->marker ? offset_of(c->sql, c->marker) : -1;
        if (r.ok || r.stmt || !r.error || !strstr(r.error, c->message) || (c->marker && r.error_loc != want)) {
            print_error("case %zu: [%s]\n  want: %s at %d\n  got:  ok=%d %s at %d\n", i, c->sql, c->message, want,
                        r.ok, r.error ? r.error : "(null)", r.error_loc);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_error_at_end_of_input(void **state)
{
    Fixture *f = *state;
    const char *sql = "SELECT (a";
    SqlParseResult r = sql_parse(&f->arena, sql);
    assert_false(r.ok);
    assert_int_equal(r.error_loc, (int)strlen(sql));
    r = sql_parse(&f->arena, "");
    assert_false(r.ok);
    assert_int_equal(r.error_loc, 0);
}

/* ---- robustness ------------------------------------------------------------ */

static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * (size_t)n + tl + 1);
    memcpy(s, head, hl);
    for (int i = 0; i < n; i++) memcpy(s + hl + ul * (size_t)i, unit, ul);
    memcpy(s + hl + ul * (size_t)n, tail, tl + 1);
    return s;
}

typedef struct ChainJob {
    Arena *arena;
    const char *sql;
    SqlParseResult res;
} ChainJob;

static void *chain_thread(void *arg)
{
    ChainJob *j = arg;
    j->res = sql_parse(j->arena, j->sql);
    return NULL;
}

/* sql_parse on a thread with a small stack of its own (256 KiB). */
static SqlParseResult parse_on_small_stack(Arena *arena, const char *sql)
{
    ChainJob job = {arena, sql, {0}};
    pthread_attr_t attr;
    pthread_t th;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
    assert_int_equal(pthread_create(&th, &attr, chain_thread, &job), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&attr);
    return job.res;
}

/* A left-deep operator chain is as deep as it is long, and libpg_query + protobuf-c
 * need ~2 KiB of stack per level. sql_parse must survive chains that need more than
 * its base stack, called from a thread with a small stack of its own: a chain within
 * SQL_MAX_DEPTH parses, a longer one (12000 or 60000 terms) is refused as too deep,
 * pointing into the chain, without translating it (no recursion beyond the limit),
 * and quickly (the protobuf serialisation of a deep tree is quadratic). */
static void test_deep_operator_chain(void **state)
{
    Fixture *f = *state;
    enum { TERMS = SQL_MAX_DEPTH - 10 };
    char *sql = repeat("SELECT ", "a + ", TERMS, "a");
    SqlParseResult r = parse_on_small_stack(&f->arena, sql);
    assert_true(r.ok);
    const Ast *e = r.stmt->targets.items[0]->expr;
    int depth = 0;
    while (e && e->kind == AST_OP) {
        e = e->lexpr;
        depth++;
    }
    assert_int_equal(depth, TERMS);
    free(sql);
    static const int too_deep[] = {SQL_MAX_DEPTH + 5, 12000, 60000};
    for (int i = 0; i < 3; i++) {
        sql = repeat("SELECT ", "a + ", too_deep[i], "a");
        r = parse_on_small_stack(&f->arena, sql);
        assert_false(r.ok);
        assert_null(r.stmt);
        assert_string_equal(r.code, "too-deep");
        assert_string_equal(r.error, SQL_TOO_DEEP_MESSAGE);
        /* just beyond the limit: at the operator of the first level beyond it (the
         * SELECT is level 1, the last `+` level 2); far beyond (refused before the
         * translation): at the first node found beyond it, the chain's first operand */
        int want = i == 0 ? 7 + 4 * (too_deep[i] - SQL_MAX_DEPTH) + 2 : 7;
        if (r.error_loc != want) print_error("%d terms: error at %d, want %d\n", too_deep[i], r.error_loc, want);
        assert_int_equal(r.error_loc, want);
        free(sql);
    }
    /* nested subqueries count as well */
    char *open = repeat("SELECT * FROM ", "(SELECT * FROM ", SQL_MAX_DEPTH, "t");
    char *close = repeat("", ") s", SQL_MAX_DEPTH, "");
    sql = malloc(strlen(open) + strlen(close) + 1);
    strcpy(stpcpy(sql, open), close);
    free(open);
    free(close);
    r = parse_on_small_stack(&f->arena, sql);
    assert_false(r.ok);
    assert_string_equal(r.code, "too-deep");
    free(sql);
}

static void test_too_complex(void **state)
{
    Fixture *f = *state;
    char *sql = repeat("SELECT ", "a+", 100001, "a");
    SqlParseResult r = sql_parse(&f->arena, sql);
    assert_false(r.ok);
    assert_non_null(strstr(r.error, "too complex"));
    free(sql);
    /* a long flat list is fine */
    sql = repeat("SELECT x IN (", "1,", 150000, "1)");
    r = sql_parse(&f->arena, sql);
    assert_true(r.ok);
    assert_int_equal(r.stmt->targets.items[0]->expr->args.n, 150001);
    free(sql);
}

static void test_deep_nesting_is_an_error_not_a_crash(void **state)
{
    Fixture *f = *state;
    char *sql = repeat("SELECT ", "(", 20000, "1");
    SqlParseResult r = sql_parse(&f->arena, sql);
    assert_false(r.ok);
    assert_non_null(r.error);
    free(sql);
    sql = repeat("SELECT * FROM t WHERE ", "NOT ", 5000, "a");
    r = sql_parse(&f->arena, sql);
    assert_true(r.ok || r.error != NULL);
    free(sql);
}

static void test_too_long(void **state)
{
    Fixture *f = *state;
    size_t n = ((size_t)1 << 20) + 10;
    char *sql = malloc(n + 1);
    memset(sql, ' ', n);
    memcpy(sql, "SELECT 1", 8);
    sql[n] = '\0';
    SqlParseResult r = sql_parse(&f->arena, sql);
    assert_false(r.ok);
    assert_non_null(strstr(r.error, "too long"));
    free(sql);
}

static void test_many_parses_and_kind_names(void **state)
{
    Fixture *f = *state;
    for (int i = 0; i < 200; i++) {
        arena_reset(&f->arena);
        SqlParseResult r = sql_parse(&f->arena, i % 2 ? "SELECT a FROM t WHERE b > 1" : "SELECT FROM FROM");
        assert_int_equal(r.ok, i % 2);
    }
    assert_string_equal(ast_kind_name(AST_SELECT), "SELECT");
    assert_string_equal(ast_kind_name(AST_JOIN), "JOIN");
    assert_string_equal(ast_kind_name(AST_UNSUPPORTED), "unsupported construct");
    for (int k = AST_SELECT; k <= AST_UNSUPPORTED; k++) assert_non_null(ast_kind_name((AstKind)k));
    assert_string_equal(ast_kind_name((AstKind)999), "unknown AST node");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsupported, setup, teardown),
        cmocka_unit_test_setup_teardown(test_locations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fields_const_and_cast, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fields_func_and_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fields_from, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_at_end_of_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deep_operator_chain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deep_nesting_is_an_error_not_a_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_complex, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_long, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_parses_and_kind_names, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
