/* The scalar function dispatcher behind EX_FUNC: evaluates the arguments, applies
 * SQL's strictness (a NULL argument gives NULL for every function but concat and
 * concat_ws) and hands the call to its family (eval_func_internal.h): strings,
 * math, date/time, formatting, regular expressions. Each family implements
 * PostgreSQL 15's semantics and error wording for the argument types the binder
 * resolved (bind_func.c); the argument conventions are listed at the top of each
 * family's file. */
#include "engine/eval_func_internal.h"

#include "engine/agg_item.h"

bool eval_overflow_numeric(EvalCtx *ctx) { return eval_fail(ctx, "value overflows numeric format"); }

bool eval_text_size_ok(size_t n, EvalCtx *ctx)
{
    /* PostgreSQL's MaxAllocSize for the value with its 4-byte header */
    if (n <= (size_t)0x3fffffff - 4) return true;
    return eval_fail(ctx, "requested length too large");
}

/* string_agg's packed (x, delimiter, order key) (agg_item.h): NULL when x is NULL. */
static bool eval_string_agg_item(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    if (e->nargs != 3) return eval_fail(ctx, "function string_agg_item() called with %d arguments", e->nargs);
    Value tmp[3];
    const Value *av[3];
    for (int i = 0; i < 3; i++) {
        av[i] = eval_operand(e->args[i], row, ctx, &tmp[i]);
        if (!av[i]) return false;
    }
    if (av[0]->isnull) {
        *out = value_null();
        return true;
    }
    Type kt = e->args[2]->type;
    size_t n = agg_item_size(kt, av[0], av[1], av[2]);
    if (!eval_text_size_ok(n, ctx)) return false;
    char *buf = arena_alloc_raw(ctx->arena, n ? n : 1);
    agg_item_pack(buf, kt, av[0], av[1], av[2]);
    *out = value_text(buf, (uint32_t)n);
    return true;
}

bool eval_func(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    if (e->func == FN_CONCAT) return eval_func_concat(e, row, ctx, out, false);
    if (e->func == FN_CONCAT_WS) return eval_func_concat(e, row, ctx, out, true);
    if (e->func == FN_STRING_AGG_ITEM) return eval_string_agg_item(e, row, ctx, out);
    if (e->func == FN_AGG_ITEM) return eval_agg_item(e, row, ctx, out);
    if (e->func == FN_ARRAY) return eval_array_ctor(e, row, ctx, out);
    if (e->func == FN_ARRAY_CMP) return eval_array_cmp(e, row, ctx, out);
    if (e->func == FN_ARRAY_CAT || e->func == FN_ARRAY_APPEND || e->func == FN_ARRAY_PREPEND)
        return eval_array_concat(e, row, ctx, out);
    if (e->func == FN_ARRAY_TO_STRING) return eval_array_to_string(e, row, ctx, out);
    if (e->func == FN_STRING_TO_ARRAY) return eval_string_to_array(e, row, ctx, out);
    if (e->func == FN_ARRAY_POSITION || e->func == FN_ARRAY_REMOVE) return eval_array_search(e, row, ctx, out);
    if (e->func == FN_JSON_BUILD_OBJECT || e->func == FN_JSON_BUILD_ARRAY) return eval_json_build(e, row, ctx, out);

    /* Every other function is strict: NULL in, NULL out. All arguments are evaluated
     * first (so an error in any of them is reported, as PostgreSQL does). */
    Value tmp[EVAL_FUNC_MAX_ARGS];
    const Value *av[EVAL_FUNC_MAX_ARGS];
    if (e->nargs < 0 || e->nargs > EVAL_FUNC_MAX_ARGS)
        return eval_fail(ctx, "function %s() called with %d arguments", func_kind_name((FuncKind)e->func), e->nargs);
    for (int i = 0; i < e->nargs; i++) {
        av[i] = eval_operand(e->args[i], row, ctx, &tmp[i]);
        if (!av[i]) return false;
    }
    for (int i = 0; i < e->nargs; i++)
        if (av[i]->isnull) {
            *out = value_null();
            return true;
        }

    switch ((FuncKind)e->func) {
    case FN_LOWER: case FN_UPPER: case FN_LENGTH: case FN_SUBSTRING: case FN_BTRIM: case FN_LTRIM:
    case FN_RTRIM: case FN_SPLIT_PART: case FN_REPLACE: case FN_POSITION: case FN_LEFT: case FN_RIGHT:
    case FN_LPAD: case FN_RPAD: case FN_INITCAP: case FN_REVERSE: case FN_REPEAT: case FN_MD5:
    case FN_STARTS_WITH: case FN_TRANSLATE: case FN_ASCII: case FN_CHR: case FN_OCTET_LENGTH:
        return eval_func_string(e, av, ctx, out);
    case FN_ABS: case FN_ROUND: case FN_TRUNC: case FN_FLOOR: case FN_CEIL: case FN_MOD: case FN_SIGN:
    case FN_SQRT: case FN_POWER: case FN_EXP: case FN_LN: case FN_LOG: case FN_LOG10: case FN_CBRT:
    case FN_PI: case FN_DEGREES: case FN_RADIANS: case FN_SIN: case FN_COS: case FN_TAN: case FN_ASIN:
    case FN_ACOS: case FN_ATAN: case FN_ATAN2: case FN_WIDTH_BUCKET: case FN_DIV: case FN_GCD: case FN_LCM:
        return eval_func_math(e, av, ctx, out);
    case FN_DATE_TRUNC: case FN_EXTRACT: case FN_MAKE_INTERVAL: case FN_DATE_BIN: case FN_MAKE_DATE:
    case FN_MAKE_TIMESTAMP: case FN_AGE: case FN_JUSTIFY_DAYS: case FN_JUSTIFY_HOURS:
    case FN_JUSTIFY_INTERVAL: case FN_ISFINITE: case FN_TIMEZONE:
        return eval_func_time(e, av, ctx, out);
    case FN_TO_TIMESTAMP:
        if (e->nargs == 1) return eval_func_time(e, av, ctx, out);   /* to_timestamp(epoch seconds) */
        return eval_func_format(e, av, ctx, out);
    case FN_TO_CHAR: case FN_TO_DATE:
        return eval_func_format(e, av, ctx, out);
    case FN_REGEXP_REPLACE: case FN_REGEXP_LIKE: case FN_REGEXP_COUNT: case FN_REGEXP_SUBSTR:
        return eval_func_regex(e, av, ctx, out);
    case FN_SUBQUERY_ROWS:
        return eval_fail(ctx, "more than one row returned by a subquery used as an expression");
    case FN_ARRAY_LENGTH: case FN_CARDINALITY: case FN_ARRAY_SUBSCRIPT: case FN_ARRAY_CONTAINS: case FN_ARRAY_OVERLAP:
    case FN_TO_JSON:
        return eval_func_array(e, av, ctx, out);
    case FN_CONCAT: case FN_CONCAT_WS: case FN_STRING_AGG_ITEM: case FN_AGG_ITEM: case FN_ARRAY: case FN_ARRAY_CMP:
    case FN_ARRAY_CAT: case FN_ARRAY_APPEND: case FN_ARRAY_PREPEND: case FN_ARRAY_TO_STRING: case FN_STRING_TO_ARRAY:
    case FN_ARRAY_POSITION: case FN_ARRAY_REMOVE: case FN_JSON_BUILD_OBJECT: case FN_JSON_BUILD_ARRAY:
    case FN__COUNT: break;
    }
    return eval_fail(ctx, "function %s is not supported", func_kind_name((FuncKind)e->func));
}
