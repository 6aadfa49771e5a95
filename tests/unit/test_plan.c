/* Unit tests for the plan helpers (src/sql/plan.c): structural hashing and equality
 * ignore positions and see every other field, deep copies are independent, and
 * expressions print as PostgreSQL SQL (identifier quoting, labelled constants). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/strbuf.h"
#include "sql/plan.h"

#include <string.h>

static Arena arena;

static int setup(void **state)
{
    (void)state;
    arena_init(&arena, 16 * 1024);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    arena_fini(&arena);
    return 0;
}

static Expr *op2(int op, Type t, Expr *l, Expr *r, int loc)
{
    Expr *e = plan_expr_new(&arena, EX_OP, t, loc);
    e->op = op;
    e->nargs = 2;
    e->args = ARENA_ARRAY(&arena, Expr *, 2);
    e->args[0] = l;
    e->args[1] = r;
    return e;
}

static Expr *text_const(const char *s)
{
    return plan_expr_const(&arena, type_make(T_TEXT), value_text(s, (uint32_t)strlen(s)));
}

static char *sql(const Expr *e, const PlanColumn *cols, int n)
{
    StrBuf sb = STRBUF_INIT;
    plan_expr_sql(e, cols, n, &sb);
    char *s = arena_strdup(&arena, sb.len ? sb_cstr(&sb) : "");
    sb_free(&sb);
    return s;
}

static void test_hash_ignores_positions(void **state)
{
    (void)state;
    Expr *a = op2(OP_EQ, type_make(T_BOOL), plan_expr_column(&arena, 1, type_make(T_TEXT)), text_const("x"), 10);
    Expr *b = op2(OP_EQ, type_make(T_BOOL), plan_expr_column(&arena, 1, type_make(T_TEXT)), text_const("x"), 99);
    b->args[0]->loc = 42;
    assert_true(plan_expr_equal(a, b));
    assert_int_equal(plan_expr_hash(a, 7), plan_expr_hash(b, 7));
    assert_int_not_equal(plan_expr_hash(a, 7), plan_expr_hash(a, 8));

    Expr *c = op2(OP_EQ, type_make(T_BOOL), plan_expr_column(&arena, 1, type_make(T_TEXT)), text_const("y"), 10);
    assert_false(plan_expr_equal(a, c));
    assert_int_not_equal(plan_expr_hash(a, 7), plan_expr_hash(c, 7));

    Expr *d = op2(OP_NE, type_make(T_BOOL), plan_expr_column(&arena, 1, type_make(T_TEXT)), text_const("x"), 10);
    assert_false(plan_expr_equal(a, d));
    assert_int_not_equal(plan_expr_hash(a, 7), plan_expr_hash(d, 7));

    /* numeric constants with different scales are different expressions */
    Expr *n1 = plan_expr_const(&arena, type_make(T_NUMERIC), value_numeric(15, 1));
    Expr *n2 = plan_expr_const(&arena, type_make(T_NUMERIC), value_numeric(150, 2));
    assert_false(plan_expr_equal(n1, n2));
    assert_int_not_equal(plan_expr_hash(n1, 0), plan_expr_hash(n2, 0));

    /* typmods are part of the type */
    Expr *t1 = plan_expr_column(&arena, 0, type_numeric(12, 2));
    Expr *t2 = plan_expr_column(&arena, 0, type_make(T_NUMERIC));
    assert_false(plan_expr_equal(t1, t2));
}

static void test_copy_is_deep(void **state)
{
    (void)state;
    Expr *a = op2(OP_ADD, type_make(T_INT4), plan_expr_column(&arena, 0, type_make(T_INT4)),
                  plan_expr_const(&arena, type_make(T_INT4), value_int(1)), 3);
    Expr *c = plan_expr_copy(&arena, a);
    assert_true(plan_expr_equal(a, c));
    assert_ptr_not_equal(a->args[0], c->args[0]);
    c->args[0]->col = 5;
    assert_int_equal(a->args[0]->col, 0);

    PlanNode *src = plan_node_new(&arena, PL_SOURCE, 0);
    src->name = "s";
    src->ncols = 1;
    src->cols = ARENA_ARRAY(&arena, PlanColumn, 1);
    src->cols[0].name = "x";
    src->cols[0].type = type_make(T_INT4);
    PlanNode *f = plan_node_new(&arena, PL_FILTER, 5);
    f->inputs = ARENA_ARRAY(&arena, PlanNode *, 1);
    f->inputs[0] = src;
    f->ninputs = 1;
    f->cols = src->cols;
    f->ncols = 1;
    f->pred = op2(OP_GT, type_make(T_BOOL), plan_expr_column(&arena, 0, type_make(T_INT4)),
                  plan_expr_const(&arena, type_make(T_INT4), value_int(0)), 7);
    PlanNode *g = plan_node_copy(&arena, f);
    assert_ptr_not_equal(g->inputs[0], src);
    assert_int_equal(plan_node_hash(f, 1), plan_node_hash(g, 1));
    g->inputs[0]->cols[0].name = "y";
    assert_string_equal(src->cols[0].name, "x");
    assert_int_not_equal(plan_node_hash(f, 1), plan_node_hash(g, 1));
}

static void test_sql_printing(void **state)
{
    (void)state;
    PlanColumn cols[3] = {{"amount", {T_NUMERIC, 12, 2, 0}, 0}, {"user", {T_TEXT, -1, -1, 0}, 0}, {"Mixed Case", {T_INT4, -1, -1, 0}, 0}};
    Expr *gt = op2(OP_GT, type_make(T_BOOL), plan_expr_column(&arena, 0, cols[0].type),
                   plan_expr_const(&arena, type_make(T_NUMERIC), value_numeric(150, 2)), 0);
    assert_string_equal(sql(gt, cols, 3), "(amount > 1.50)");
    Expr *eq = op2(OP_EQ, type_make(T_BOOL), plan_expr_column(&arena, 1, cols[1].type), text_const("it's"), 0);
    assert_string_equal(sql(eq, cols, 3), "(\"user\" = 'it''s'::text)");
    assert_string_equal(sql(plan_expr_column(&arena, 2, cols[2].type), cols, 3), "\"Mixed Case\"");
    assert_string_equal(sql(plan_expr_column(&arena, 2, cols[2].type), NULL, 0), "$3");
    assert_string_equal(sql(plan_expr_const(&arena, type_make(T_INT4), value_int(-5)), NULL, 0), "'-5'::integer");
    assert_string_equal(sql(plan_expr_const(&arena, type_make(T_INT8), value_int(5)), NULL, 0), "'5'::bigint");
    assert_string_equal(sql(plan_expr_const(&arena, type_make(T_NUMERIC), value_numeric(100, 0)), NULL, 0),
                        "'100'::numeric");
    assert_string_equal(sql(plan_expr_const(&arena, type_make(T_INT4), value_null()), NULL, 0), "NULL::integer");
    Expr *cast = plan_expr_new(&arena, EX_CAST, type_make(T_INT8), 0);
    cast->nargs = 1;
    cast->args = ARENA_ARRAY(&arena, Expr *, 1);
    cast->args[0] = plan_expr_column(&arena, 2, cols[2].type);
    assert_string_equal(sql(cast, cols, 3), "\"Mixed Case\"::bigint");

    AggCall ag;
    memset(&ag, 0, sizeof ag);
    ag.kind = AGG_SUM;
    ag.distinct = true;
    ag.arg = plan_expr_column(&arena, 0, cols[0].type);
    ag.filter = gt;
    StrBuf sb = STRBUF_INIT;
    plan_agg_sql(&ag, cols, 3, &sb);
    assert_string_equal(sb_cstr(&sb), "sum(DISTINCT amount) FILTER (WHERE (amount > 1.50))");
    sb_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hash_ignores_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_is_deep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sql_printing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
