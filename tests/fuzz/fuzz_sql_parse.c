/* Fuzz target for the SQL front end (src/sql/pg_adapter.c): any byte string must parse
 * or fail with a message, never crash, leak or trip a sanitizer. The input is copied
 * into a NUL-terminated buffer (sql_parse takes a C string) and parsed into a fresh
 * arena. When the parse succeeds the AST is walked so every node is touched. */
#include "sql/ast.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t touch(const Ast *a);

static size_t touch_list(AstList l)
{
    size_t n = 0;
    for (int i = 0; i < l.n; i++) n += touch(l.items[i]);
    return n;
}

/* Visits every node and reads its strings, so a dangling or unterminated one shows up
 * under ASan. Returns the node count. */
static size_t touch(const Ast *a)
{
    if (!a) return 0;
    size_t n = 1 + strlen(ast_kind_name(a->kind));
    if (a->name) n += strlen(a->name) > 0;
    if (a->text) n += strlen(a->text) > 0;
    if (a->alias) n += strlen(a->alias) > 0;
    for (int i = 0; i < a->nnames; i++) n += strlen(a->names[i]) > 0;
    for (int i = 0; i < a->type_name.nnames; i++) n += strlen(a->type_name.names[i]) > 0;
    for (int i = 0; i < a->nalias_cols; i++) n += strlen(a->alias_cols[i]) > 0;
    for (int i = 0; i < a->nusing; i++) n += strlen(a->using_cols[i]) > 0;
    if (a->kind == AST_UNSUPPORTED && !a->name) abort();
    n += touch_list(a->ctes) + touch_list(a->distinct_on) + touch_list(a->targets) +
         touch_list(a->from) + touch_list(a->group_by) + touch_list(a->windows) +
         touch_list(a->order_by) + touch_list(a->args) + touch_list(a->agg_order) +
         touch_list(a->whens) + touch_list(a->partition) + touch_list(a->order);
    const Ast *kids[] = {a->where, a->having, a->limit, a->offset, a->larg, a->rarg, a->expr, a->lexpr, a->rexpr,
                         a->agg_filter, a->over, a->else_expr, a->subquery, a->func, a->quals};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) n += touch(kids[i]);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *sql = malloc(size + 1);
    if (!sql) return 0;
    memcpy(sql, data, size);
    sql[size] = '\0';
    Arena arena;
    arena_init(&arena, 0);
    SqlParseResult r = sql_parse(&arena, sql);
    if (r.ok) {
        if (!r.stmt || r.error) abort();
        touch(r.stmt);
    } else {
        if (r.stmt || !r.error) abort();
        if (r.error_loc < -1 || r.error_loc > (int)strlen(sql)) abort();
    }
    arena_fini(&arena);
    free(sql);
    return 0;
}
