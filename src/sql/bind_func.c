/* Function calls: aggregate calls (count, sum, avg, min, max, bool_and/bool_or/every,
 * with DISTINCT and FILTER) with PostgreSQL's result types, and the scalar functions
 * weir evaluates (string, math, date/time, formatting, regular expressions). Each
 * function resolves its argument types the way PostgreSQL's function resolution ends
 * up for weir's types, e.g. round(integer) is round(double precision) because double
 * precision is the preferred numeric type, round(numeric, int) keeps numeric, and
 * to_char(date, text) is to_char(timestamptz, text). Constant regular expressions are
 * compiled here (bind_prepare_regex), so an invalid one is a bind error. */
#include "sql/bind_internal.h"

#include "base/regex.h"
#include "base/tz.h"

#include <math.h>
#include <string.h>
#include <strings.h>

const char *const bind_function_names[] = {
    "abs", "acos", "age", "array_agg", "array_append", "array_cat", "array_length", "array_position", "array_prepend", "array_remove",
    "array_to_json", "array_to_string", "ascii", "asin", "atan", "atan2", "avg", "bool_and",
    "bool_or", "btrim", "cardinality", "cbrt", "ceil", "ceiling", "char_length", "character_length", "chr", "coalesce", "concat", "concat_ws", "cos",
    "count", "date_bin", "date_part", "date_trunc", "degrees", "div", "every", "exp", "extract", "floor", "gcd",
    "greatest", "initcap", "isfinite", "json_agg", "json_build_array", "json_build_object", "json_object_agg", "justify_days", "justify_hours", "justify_interval", "lcm", "least",
    "left", "length", "ln", "log", "log10", "lower", "lpad", "ltrim", "make_date", "make_interval",
    "make_timestamp", "max", "md5", "min", "mod", "nullif", "octet_length", "pi", "position", "pow", "power",
    "radians", "regexp_count", "regexp_like", "regexp_replace", "regexp_substr", "repeat", "replace", "reverse",
    "right", "round", "rpad", "rtrim", "sign", "sin", "split_part", "sqrt", "starts_with", "string_to_array", "strpos", "substr",
    "substring", "sum", "tan", "to_char", "to_date", "to_json", "to_timestamp", "translate", "trim", "trunc", "upper",
    "width_bucket",
};
const int bind_function_names_count = (int)(sizeof bind_function_names / sizeof bind_function_names[0]);

/* PostgreSQL functions weir does not evaluate yet: "not supported yet" rather than
 * "does not exist". */
static const char *const unsupported_functions[] = {
    "acosd", "acosh", "asind", "asinh", "atan2d", "atand", "atanh", "clock_timestamp", "corr",
    "cosd", "cosh", "cot", "cotd", "cume_dist", "decode", "dense_rank", "encode", "factorial", "first_value",
    "format", "format_type", "gen_random_uuid", "jsonb_agg",
    "jsonb_build_object", "lag", "last_value", "lead", "min_scale", "mode", "now", "nth_value", "ntile",
    "percent_rank", "percentile_cont", "percentile_disc", "quote_ident", "quote_literal", "quote_nullable",
    "random", "rank", "regexp_instr", "regexp_match", "regexp_matches", "regexp_split_to_array",
    "regexp_split_to_table", "row_number", "scale", "setseed", "sind", "sinh", "statement_timestamp", "tand", "tanh", "timeofday", "timezone", "to_hex", "to_number",
    "transaction_timestamp", "trim_scale", "unnest",
};

/* Window functions that only exist with OVER. */
static const char *const window_only_functions[] = {
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
    "last_value", "nth_value",
};

bool bind_refuse_nondeterministic(Binder *b, const char *name, int loc)
{
    static const char *const clock[] = {"now", "clock_timestamp", "statement_timestamp", "transaction_timestamp",
                                        "timeofday", "current_timestamp", "current_date", "current_time",
                                        "localtime", "localtimestamp"};
    static const char *const chance[] = {"random", "setseed", "gen_random_uuid", "random_normal"};
    for (size_t i = 0; i < sizeof clock / sizeof clock[0]; i++)
        if (strcasecmp(name, clock[i]) == 0) {
            bind_error(b, loc, "nondeterministic",
                       "use event time instead: the source's event_time column, window_start / window_end of a "
                       "TUMBLE/HOP/SESSION window, or an interval join bound",
                       "%s%s reads the processing time, which is not supported: a model's result must depend on its "
                       "input only, so that replays, tests and restarts give the same rows",
                       name, i < 5 ? "()" : "");
            return true;
        }
    for (size_t i = 0; i < sizeof chance / sizeof chance[0]; i++)
        if (strcasecmp(name, chance[i]) == 0) {
            bind_error(b, loc, "nondeterministic",
                       "derive the value from the row instead, e.g. md5(key::text) or a hash of the key",
                       "%s() is not deterministic, which is not supported: a model's result must depend on its "
                       "input only, so that replays, tests and restarts give the same rows", name);
            return true;
        }
    return false;
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0) return true;
    return false;
}

static Expr *func_node(Binder *b, FuncKind f, Type t, int loc, Expr **args, int n)
{
    Expr *e = plan_expr_new(b->arena, EX_FUNC, t, loc);
    e->func = f;
    e->nargs = n;
    e->args = ARENA_ARRAY(b->arena, Expr *, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) e->args[i] = args[i];
    return e;
}

static void no_such_function(Binder *b, const char *name, Expr **args, int n, int loc, bool star)
{
    for (int i = 0; i < n; i++)
        if (!args[i]) return; /* an invalid literal was reported while trying a signature */
    bind_error(b, loc, "unknown-function",
               "no function matches the given name and argument types; you might need to add explicit type casts",
               "function %s does not exist", bind_func_signature(b, name, args, n, star));
}

/* "does not exist" for the original argument types, unless trying a signature
 * already reported an invalid literal (its coerced argument is NULL). */
static void no_signature(Binder *b, const char *name, Expr **args, Expr **orig, int n, int loc)
{
    for (int i = 0; i < n; i++)
        if (!args[i]) return;
    no_such_function(b, name, orig, n, loc, false);
}

static void not_unique(Binder *b, const char *name, Expr **args, int n, int loc)
{
    bind_error(b, loc, "unknown-function", "cast the arguments to the types you mean, e.g. '1'::numeric",
               "function %s is not unique", bind_func_signature(b, name, args, n, false));
}

/* A copy of the argument list before coercions: what "function f(types) does not
 * exist" shows when a signature was tried and did not fit. */
static Expr **saved_args(Binder *b, Expr **args, int n)
{
    Expr **c = ARENA_ARRAY(b->arena, Expr *, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) c[i] = args[i];
    return c;
}

/* Coerces args[i] to t when an implicit cast allows it. */
static bool arg_to(Binder *b, Expr **args, int i, TypeId t)
{
    if (!bind_can_implicit(args[i]->type, type_make(t))) return false;
    args[i] = bind_coerce(b, args[i], type_make(t));
    return args[i] != NULL;
}

/* Every argument to the given types; false when one does not fit (or a literal is bad). */
static bool args_to(Binder *b, Expr **args, int n, const TypeId *sig)
{
    for (int i = 0; i < n; i++)
        if (!arg_to(b, args, i, sig[i])) return false;
    return true;
}

/* ---- aggregates ---------------------------------------------------------------------- */

static bool agg_type(AggKind k, Type t, Type *out)
{
    TypeId id = (TypeId)t.id;
    switch (k) {
    case AGG_COUNT_STAR:
    case AGG_COUNT: *out = type_make(T_INT8); return true;
    case AGG_SUM:
        if (id == T_INT2 || id == T_INT4) *out = type_make(T_INT8);
        else if (id == T_INT8 || id == T_NUMERIC) *out = type_make(T_NUMERIC);
        else if (id == T_FLOAT4 || id == T_FLOAT8 || id == T_INTERVAL) *out = type_make(id);
        else return false;
        return true;
    case AGG_SUM_SQUARES:
        if (id == T_NUMERIC || id == T_FLOAT8) *out = type_make(id);
        else return false;
        return true;
    case AGG_AVG:
        if (type_is_integer(t) || id == T_NUMERIC) *out = type_make(T_NUMERIC);
        else if (type_is_float(t)) *out = type_make(T_FLOAT8);
        else if (id == T_INTERVAL) *out = type_make(T_INTERVAL);
        else return false;
        return true;
    case AGG_MIN:
    case AGG_MAX:
        if (id == T_BOOL || id == T_UNKNOWN || id == T_JSON) return false;
        *out = t.id == T_ARRAY ? type_base(t) : type_make(id);
        return true;
    case AGG_BOOL_AND:
    case AGG_BOOL_OR:
        if (id != T_BOOL) return false;
        *out = type_make(T_BOOL);
        return true;
    case AGG_STRING_AGG:
        if (id != T_TEXT) return false;
        *out = type_make(T_TEXT);
        return true;
    case AGG_MODE:
    case AGG_PERCENTILE_CONT:
    case AGG_PERCENTILE_DISC: /* typed by ordered_set_call */
    case AGG_ARRAY_AGG:
    case AGG_JSON_AGG:
    case AGG_JSON_OBJECT_AGG: /* typed by collect_call */
    case AGG_LAG:
    case AGG_FIRST_VALUE:
    case AGG_LAST_VALUE: /* window value functions: typed by bind_over.c */
    case AGG__COUNT: break;
    }
    return false;
}

static Expr *agg_placeholder(ExprCtx *cx, const AggCall *acp, int loc);

/* json_build_object(k, v, ...), json_build_array(v, ...), to_json(x), array_to_json(a):
 * json; untyped literals are text. */
static Expr *json_fn(ExprCtx *cx, const char *name, Expr **args, int n, int loc)
{
    Binder *b = cx->b;
    bool obj = !strcmp(name, "json_build_object"), arr = !strcmp(name, "json_build_array");
    Expr **orig = saved_args(b, args, n);
    for (int i = 0; i < n; i++) {
        if (bind_is_unknown_literal(args[i])) args[i] = bind_coerce(b, args[i], type_make(T_TEXT));
        if (!args[i]) return NULL;
    }
    if (obj && n % 2) {
        bind_error(b, loc, "invalid-argument", "The arguments of json_build_object() must consist of alternating keys and values.",
                   "argument list must have even number of elements");
        return NULL;
    }
    for (int i = 0; obj && i < n; i += 2)
        if (args[i]->type.id == T_ARRAY || args[i]->type.id == T_JSON) {
            bind_error(b, args[i]->loc >= 0 ? args[i]->loc : loc, "type-mismatch", NULL,
                       "key value must be scalar, not array, composite, or json");
            return NULL;
        }
    if (!obj && !arr && (n != 1 || (name[0] == 'a' && args[0]->type.id != T_ARRAY))) {
        no_such_function(b, name, orig, n, loc, false);
        return NULL;
    }
    return func_node(b, obj ? FN_JSON_BUILD_OBJECT : arr ? FN_JSON_BUILD_ARRAY : FN_TO_JSON, type_make(T_JSON), loc, args, n);
}

/* array_to_string(a, delimiter [, null string]) -> text and string_to_array(s,
 * delimiter [, null string]) -> text[]. */
static Expr *array_text_fn(ExprCtx *cx, const char *name, Expr **args, int n, int loc)
{
    Binder *b = cx->b;
    bool to_string = name[0] == 'a';
    Expr **orig = saved_args(b, args, n);
    if (n < 2 || n > 3) {
        no_such_function(b, name, orig, n, loc, false);
        return NULL;
    }
    for (int i = to_string ? 1 : 0; i < n; i++) {
        if (bind_is_unknown_literal(args[i])) args[i] = bind_coerce(b, args[i], type_make(T_TEXT));
        if (!args[i]) return NULL;
        if (args[i]->type.id != T_TEXT) {
            no_such_function(b, name, orig, n, loc, false);
            return NULL;
        }
    }
    if (to_string && args[0]->type.id != T_ARRAY) {
        no_such_function(b, name, orig, n, loc, false);
        return NULL;
    }
    return func_node(b, to_string ? FN_ARRAY_TO_STRING : FN_STRING_TO_ARRAY,
                     to_string ? type_make(T_TEXT) : type_array(type_make(T_TEXT)), loc, args, n);
}

/* PostgreSQL's error for array_cat & co. without a match: the function's, or the operator's. */
static void no_array_concat(Binder *b, const char *name, Expr **args, int loc)
{
    if (name) {
        no_such_function(b, name, args, 2, loc, false);
        return;
    }
    bind_error(b, loc, "type-mismatch", "cast one side, e.g. x::text[]", "operator does not exist: %s || %s",
               bind_type_display(b, args[0]->type), bind_type_display(b, args[1]->type));
}

Expr *bind_array_concat(ExprCtx *cx, FuncKind f, Expr *l, Expr *r, int loc, const char *name)
{
    Binder *b = cx->b;
    Expr *orig[2] = {l, r};
    Expr **arr = f == FN_ARRAY_PREPEND ? &r : &l, **other = f == FN_ARRAY_PREPEND ? &l : &r;
    if (f == FN_ARRAY_CAT) {
        if (bind_is_unknown_literal(l) && r->type.id == T_ARRAY) l = bind_coerce(b, l, type_base(r->type));
        if (bind_is_unknown_literal(r) && l && l->type.id == T_ARRAY) r = bind_coerce(b, r, type_base(l->type));
        if (!l || !r) return NULL;
        Expr *both[2] = {l, r};
        Type t;
        if (l->type.id != T_ARRAY || r->type.id != T_ARRAY ||
            !bind_common_type(b, both, 2, name ? name : "||", &t)) {
            if (l->type.id != T_ARRAY || r->type.id != T_ARRAY) no_array_concat(b, name, orig, loc);
            return NULL;
        }
        Expr *args[2] = {bind_coerce(b, l, t), bind_coerce(b, r, t)};
        if (!args[0] || !args[1]) return NULL;
        return func_node(b, FN_ARRAY_CAT, t, loc, args, 2);
    }
    if ((*arr)->type.id != T_ARRAY || (*other)->type.id == T_ARRAY) {
        no_array_concat(b, name, orig, loc);
        return NULL;
    }
    Type et = type_base(type_elem((*arr)->type));
    if ((*other)->type.id != T_UNKNOWN && (*other)->type.id != et.id) {
        if (!bind_can_implicit((*other)->type, et)) {
            Type common = bind_op_common((*other)->type, et);
            if (bind_type_cat((*other)->type) != bind_type_cat(et) || !bind_can_implicit(et, common)) {
                no_array_concat(b, name, orig, loc);
                return NULL;
            }
            et = common;
            *arr = bind_coerce(b, *arr, type_array(et));
            if (!*arr) return NULL;
        }
    }
    *other = bind_coerce(b, *other, et);
    if (!*other) return NULL;
    Expr *args[2] = {l, r};
    return func_node(b, f, (*arr)->type.id == T_ARRAY ? type_base((*arr)->type) : type_array(et), loc, args, 2);
}

/* array_length(a, dimension) and cardinality(a) over one-dimensional arrays. */
static Expr *array_fn(ExprCtx *cx, const char *name, Expr **args, int n, int loc)
{
    Binder *b = cx->b;
    bool card = name[0] == 'c';
    Expr **orig = saved_args(b, args, n);
    if (n != (card ? 1 : 2) || args[0]->type.id != T_ARRAY) {
        no_such_function(b, name, orig, n, loc, false);
        return NULL;
    }
    if (!card) {
        if (bind_is_unknown_literal(args[1]) || (type_is_integer(args[1]->type) && args[1]->type.id != T_INT8))
            args[1] = bind_coerce(b, args[1], type_make(T_INT4));
        if (!args[1]) return NULL;
        if (args[1]->type.id != T_INT4) {
            no_such_function(b, name, orig, n, loc, false);
            return NULL;
        }
    }
    return func_node(b, card ? FN_CARDINALITY : FN_ARRAY_LENGTH, type_make(T_INT4), loc, args, n);
}

/* string_agg(value, delimiter [ORDER BY key [ASC|DESC]]): text values joined, each but
 * the first after its own row's delimiter (NULL: none), as PostgreSQL defines it. With
 * a constant delimiter and no key other than the value, the values are kept as they
 * are, in their order (C collation); PostgreSQL leaves the order unspecified without
 * ORDER BY, weir sorts. Ordered by another expression or with a delimiter computed
 * per row, the argument is FN_STRING_AGG_ITEM(value, delimiter, key) (the key is the
 * value without ORDER BY), kept in the order of the key (NULLs where ORDER BY puts
 * them), then value and delimiter ascending, NULL last: PostgreSQL's order for DISTINCT
 * (which is over the pairs (value, delimiter) and may be ordered by either), and one
 * of the orders it allows for ties otherwise. */
static bool string_agg_call(ExprCtx *cx, Ast *a, Expr **args, int n, AggCall *ac)
{
    Binder *b = cx->b;
    if (n != 2 || a->agg_star) {
        no_such_function(b, a->name, args, n, a->loc, a->agg_star);
        return false;
    }
    for (int i = 0; i < 2; i++) {
        if (bind_is_unknown_literal(args[i])) args[i] = bind_coerce(b, args[i], type_make(T_TEXT));
        if (!args[i]) return false;
        if (args[i]->type.id != T_TEXT) {
            no_such_function(b, a->name, args, n, a->loc, false);
            return false;
        }
    }
    bool per_row = args[1]->kind != EX_CONST;
    ac->type = type_make(T_TEXT);
    ac->arg = args[0];
    ac->dflt = args[1];
    if (a->agg_order.n > 1) {
        bind_unsupported(b, a->agg_order.items[1]->loc, "string_agg ordered by more than its value");
        return false;
    }
    if (a->agg_order.n == 1) {
        Ast *sb = a->agg_order.items[0];
        Ast *oe = sb->kind == AST_SORT_BY ? sb->expr : sb;
        ExprCtx in = *cx;
        in.agg_mode = AGGS_INSIDE;
        Expr *o = oe ? bind_expr(&in, oe) : NULL;
        if (!o) return false;
        if (bind_is_unknown_literal(o)) o = bind_coerce(b, o, type_make(T_TEXT));
        if (!o) return false;
        bool other = !plan_expr_equal(o, args[0]);
        if (other && a->agg_distinct && !plan_expr_equal(o, args[1])) {
            bind_error(b, bind_ast_start(oe), "invalid-aggregate", NULL,
                       "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list");
            return false;
        }
        ac->offset = sb->kind == AST_SORT_BY && sb->desc ? 1 : 0;
        if (other && sb->kind == AST_SORT_BY && sb->nulls != 0 && sb->nulls != (sb->desc ? 1 : 2))
            ac->offset |= 2; /* the key's NULLs where the default would not put them */
        if (other || per_row) {
            Expr *item[3] = {args[0], args[1], o};
            ac->arg = func_node(b, FN_STRING_AGG_ITEM, type_make(T_TEXT), a->loc, item, 3);
            ac->dflt = NULL;
        }
        return true;
    }
    if (per_row) {
        Expr *item[3] = {args[0], args[1], plan_expr_copy(b->arena, args[0])};
        ac->arg = func_node(b, FN_STRING_AGG_ITEM, type_make(T_TEXT), a->loc, item, 3);
        ac->dflt = NULL;
    }
    return true;
}

static bool is_ordered_set_kind(AggKind k)
{
    return k == AGG_MODE || k == AGG_PERCENTILE_CONT || k == AGG_PERCENTILE_DISC;
}

static bool is_collecting_kind(AggKind k)
{
    return k == AGG_ARRAY_AGG || k == AGG_JSON_AGG || k == AGG_JSON_OBJECT_AGG;
}

/* array_agg(x), json_agg(x), json_object_agg(k, v), each with [DISTINCT] and
 * [ORDER BY key [ASC|DESC] [NULLS FIRST|LAST], ...]: NULL values are aggregated (so
 * the argument is FN_AGG_ITEM, never NULL: engine/agg_vitem.h), in the order of the
 * keys; PostgreSQL leaves the order without ORDER BY (and of ties) unspecified, weir
 * orders by the values. array_agg's result is an array of x's type (arrays of arrays,
 * PostgreSQL's multidimensional result, are not supported), json_agg's and
 * json_object_agg's is json. */
static bool collect_call(ExprCtx *cx, Ast *a, AggKind kind, Expr **args, int n, AggCall *ac)
{
    Binder *b = cx->b;
    int nv = kind == AGG_JSON_OBJECT_AGG ? 2 : 1;
    if (n != nv || a->agg_star) {
        no_such_function(b, a->name, args, n, a->loc, a->agg_star);
        return false;
    }
    for (int i = 0; i < nv; i++) {
        if (bind_is_unknown_literal(args[i])) args[i] = bind_coerce(b, args[i], type_make(T_TEXT));
        if (!args[i]) return false;
    }
    Type xt = args[0]->type;
    if (kind == AGG_JSON_OBJECT_AGG && (xt.id == T_ARRAY || xt.id == T_JSON)) {
        bind_error(b, args[0]->loc >= 0 ? args[0]->loc : a->loc, "type-mismatch", NULL,
                   "key value must be scalar, not array, composite, or json");
        return false;
    }
    if (kind == AGG_ARRAY_AGG && xt.id == T_ARRAY) {
        bind_unsupported(b, args[0]->loc >= 0 ? args[0]->loc : a->loc,
                         "array_agg over arrays (a multidimensional array)");
        return false;
    }
    if (kind == AGG_ARRAY_AGG && xt.id == T_JSON) {
        bind_unsupported(b, args[0]->loc >= 0 ? args[0]->loc : a->loc, "array_agg over json (json[])");
        return false;
    }
    for (int i = 0; i < nv && a->agg_distinct; i++)
        if (args[i]->type.id == T_JSON) {
            bind_error(b, args[i]->loc >= 0 ? args[i]->loc : a->loc, "type-mismatch", NULL,
                       "could not identify an equality operator for type json");
            return false;
        }
    int nk = a->agg_order.n;
    if (nv + nk > 16) {
        bind_unsupported(b, a->loc, arena_printf(b->arena, "%s ordered by more than %d expressions", a->name, 16 - nv));
        return false;
    }
    int nargs = 1 + nv + 2 * nk;
    Expr **item = ARENA_ARRAY(b->arena, Expr *, nargs);
    item[0] = plan_expr_const(b->arena, type_make(T_INT4), value_int(nv));
    for (int i = 0; i < nv; i++) item[1 + i] = args[i];
    ExprCtx in = *cx;
    in.agg_mode = AGGS_INSIDE;
    for (int k = 0; k < nk; k++) {
        Ast *sb = a->agg_order.items[k];
        Ast *oe = sb->kind == AST_SORT_BY ? sb->expr : sb;
        Expr *o = oe ? bind_expr(&in, oe) : NULL;
        if (o && bind_is_unknown_literal(o)) o = bind_coerce(b, o, type_make(T_TEXT));
        if (!o) return false;
        int at = bind_ast_start(oe);
        if (o->type.id == T_JSON) {
            bind_error(b, at, "type-mismatch", NULL, "could not identify an ordering operator for type json");
            return false;
        }
        if (a->agg_distinct) {
            bool in_args = false;
            for (int i = 0; i < nv; i++) in_args = in_args || plan_expr_equal(o, args[i]);
            if (!in_args) {
                bind_error(b, at, "invalid-aggregate", NULL,
                           "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list");
                return false;
            }
        }
        bool desc = sb->kind == AST_SORT_BY && sb->desc;
        int nulls = sb->kind == AST_SORT_BY ? sb->nulls : 0;
        bool nulls_first = nulls == 1 || (nulls == 0 && desc);
        int64_t flags = (desc ? 1 : 0) | (nulls_first ? 2 : 0);   /* agg_vitem.h's AGG_VITEM_* */
        item[1 + nv + 2 * k] = plan_expr_const(b->arena, type_make(T_INT4), value_int(flags));
        item[2 + nv + 2 * k] = o;
    }
    ac->arg = func_node(b, FN_AGG_ITEM, type_make(T_TEXT), a->loc, item, nargs);
    ac->type = kind == AGG_ARRAY_AGG ? type_array(xt) : type_make(T_JSON);
    return true;
}

/* mode() / percentile_cont(f) / percentile_disc(f) WITHIN GROUP (ORDER BY x [DESC]):
 * x is the accumulated value (percentile_cont: cast to double precision, as
 * PostgreSQL's percentile_cont(float8) takes it); the fraction f must be a constant
 * (double precision, NULL allowed) between 0 and 1, checked here as PostgreSQL checks
 * it when the group's result is computed. */
static bool ordered_set_call(ExprCtx *cx, Ast *a, AggKind kind, AggCall *ac)
{
    Binder *b = cx->b;
    int ndirect = kind == AGG_MODE ? 0 : 1;
    ExprCtx in = *cx;
    in.agg_mode = AGGS_INSIDE;
    int n = a->args.n + a->agg_order.n;
    Expr **args = ARENA_ARRAY(b->arena, Expr *, n > 0 ? n : 1);
    for (int i = 0; i < a->args.n; i++) {
        Ast *d = a->args.items[i];
        if (d->kind == AST_ARRAY || (d->kind == AST_UNSUPPORTED && d->name && strstr(d->name, "ARRAY"))) {
            bind_unsupported(b, d->loc, arena_printf(b->arena, "%s with an array of fractions", a->name));
            return false;
        }
        if (!(args[i] = bind_expr(&in, d))) return false;
    }
    for (int i = 0; i < a->agg_order.n; i++) {
        Ast *sb = a->agg_order.items[i];
        if (!(args[a->args.n + i] = bind_expr(&in, sb->kind == AST_SORT_BY ? sb->expr : sb))) return false;
    }
    if (a->args.n != ndirect || a->agg_order.n != 1 || a->agg_star) {
        no_such_function(b, a->name, args, n, a->loc, a->agg_star);
        return false;
    }
    if (a->agg_distinct) {
        bind_error(b, a->loc, "invalid-aggregate", NULL, "cannot use DISTINCT with WITHIN GROUP");
        return false;
    }
    Expr **orig = saved_args(b, args, n);
    Expr *x = args[ndirect];
    if (ndirect) {
        Expr *f = args[0];
        if (!bind_can_implicit(f->type, type_make(T_FLOAT8)) && f->type.id != T_UNKNOWN) {
            no_such_function(b, a->name, orig, n, a->loc, false);
            return false;
        }
        if (!(f = bind_coerce(b, f, type_make(T_FLOAT8)))) return false;
        if (f->kind != EX_CONST) {
            bind_unsupported(b, f->loc >= 0 ? f->loc : a->loc,
                             arena_printf(b->arena, "a %s fraction computed per group", a->name));
            return false;
        }
        if (!f->cval.isnull && (isnan(f->cval.f) || f->cval.f < 0 || f->cval.f > 1)) {
            bind_error(b, f->loc >= 0 ? f->loc : a->loc, "invalid-argument", NULL,
                       "percentile value %g is not between 0 and 1", f->cval.f);
            return false;
        }
        ac->dflt = f;
    }
    if (kind == AGG_PERCENTILE_CONT) {
        if (x->type.id == T_INTERVAL) {
            bind_unsupported(b, x->loc >= 0 ? x->loc : a->loc, "percentile_cont over interval values");
            return false;
        }
        if (!bind_can_implicit(x->type, type_make(T_FLOAT8)) && x->type.id != T_UNKNOWN) {
            no_such_function(b, a->name, orig, n, a->loc, false);
            return false;
        }
        if (!(x = bind_coerce(b, x, type_make(T_FLOAT8)))) return false;
    } else if (bind_is_unknown_literal(x)) {
        if (!(x = bind_coerce(b, x, type_make(T_TEXT)))) return false;
    }
    ac->arg = x;
    ac->type = kind == AGG_PERCENTILE_CONT ? type_make(T_FLOAT8) : x->type;
    Ast *sb = a->agg_order.items[0];
    ac->offset = sb->kind == AST_SORT_BY && sb->desc ? 1 : 0;
    return true;
}

Expr *bind_agg_call(ExprCtx *cx, Ast *a, AggKind kind)
{
    Binder *b = cx->b;
    if (cx->agg_mode == AGGS_FORBIDDEN) {
        const char *hint = cx->clause && strcmp(cx->clause, "WHERE") == 0 ? "filter on aggregates with HAVING" : NULL;
        bind_error(b, a->loc, "invalid-aggregate", hint, "aggregate functions are not allowed in %s",
                   cx->clause ? cx->clause : "this context");
        return NULL;
    }
    if (cx->agg_mode == AGGS_INSIDE) {
        bind_error(b, a->loc, "invalid-aggregate", NULL, "aggregate function calls cannot be nested");
        return NULL;
    }
    if (is_ordered_set_kind(kind) != a->agg_within_group) {
        if (a->agg_within_group)
            bind_error(b, a->loc, "invalid-aggregate", NULL,
                       "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", a->name);
        else
            bind_error(b, a->loc, "invalid-aggregate", NULL,
                       "WITHIN GROUP is required for ordered-set aggregate %s", a->name);
        return NULL;
    }
    if (a->agg_order.n && kind != AGG_STRING_AGG && !is_ordered_set_kind(kind) && !is_collecting_kind(kind)) {
        bind_unsupported(b, a->agg_order.items[0]->loc, "ORDER BY inside an aggregate call");
        return NULL;
    }
    if (a->func_variadic) {
        bind_unsupported(b, a->loc, "VARIADIC");
        return NULL;
    }
    AggCall ac;
    memset(&ac, 0, sizeof ac);
    ac.kind = kind;
    ac.distinct = a->agg_distinct;
    ac.loc = a->loc;
    ExprCtx in = *cx;
    in.agg_mode = AGGS_INSIDE;
    int n = is_ordered_set_kind(kind) ? 0 : a->args.n;
    Expr **args = ARENA_ARRAY(b->arena, Expr *, n > 0 ? n : 1);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        args[i] = bind_expr(&in, a->args.items[i]);
        if (!args[i]) ok = false;
    }
    if (!ok) return NULL;

    if (is_ordered_set_kind(kind)) {
        if (!ordered_set_call(cx, a, kind, &ac)) return NULL;
    } else if (kind == AGG_COUNT_STAR) {
        if (n != 0) {
            no_such_function(b, a->name, args, n, a->loc, false);
            return NULL;
        }
        ac.type = type_make(T_INT8);
    } else if (kind == AGG_STRING_AGG) {
        if (!string_agg_call(cx, a, args, n, &ac)) return NULL;
    } else if (is_collecting_kind(kind)) {
        if (!collect_call(cx, a, kind, args, n, &ac)) return NULL;
    } else {
        if (n != 1 || a->agg_star) {
            no_such_function(b, a->name, args, n, a->loc, a->agg_star);
            return NULL;
        }
        Expr *arg = args[0];
        if (bind_is_unknown_literal(arg)) {
            if (kind == AGG_SUM || kind == AGG_AVG) {
                not_unique(b, a->name, args, 1, a->loc);
                return NULL;
            }
            arg = bind_coerce(b, arg, type_make(kind == AGG_BOOL_AND || kind == AGG_BOOL_OR ? T_BOOL : T_TEXT));
            if (!arg) return NULL;
        }
        if (!agg_type(kind, arg->type, &ac.type)) {
            no_such_function(b, a->name, &arg, 1, a->loc, false);
            return NULL;
        }
        ac.arg = arg;
    }
    if (a->agg_filter) {
        ExprCtx fc = *cx;
        fc.agg_mode = AGGS_FORBIDDEN;
        fc.clause = "FILTER";
        ac.filter = bind_condition(&fc, a->agg_filter, "FILTER");
        if (!ac.filter) return NULL;
    }
    return agg_placeholder(cx, &ac, a->loc);
}

/* Adds an aggregate call to cx->aggs (deduplicated) and returns its placeholder. */
static Expr *agg_placeholder(ExprCtx *cx, const AggCall *acp, int loc)
{
    Binder *b = cx->b;
    AggCall ac = *acp;
    AggList *l = cx->aggs;
    int k;
    for (k = 0; k < l->n; k++) {
        AggCall *o = &l->items[k];
        if (o->kind == ac.kind && o->distinct == ac.distinct && plan_expr_equal(o->arg, ac.arg) &&
            plan_expr_equal(o->filter, ac.filter) && o->offset == ac.offset && plan_expr_equal(o->dflt, ac.dflt))
            break;
    }
    if (k == l->n) {
        if (l->n == l->cap) {
            int cap = l->cap ? l->cap * 2 : 8;
            AggCall *items = ARENA_ARRAY(b->arena, AggCall, cap);
            if (l->n) memcpy(items, l->items, sizeof(AggCall) * (size_t)l->n);
            l->items = items;
            l->cap = cap;
        }
        l->items[l->n++] = ac;
    }
    Expr *ref = plan_expr_column(b->arena, BIND_AGG_COL(k), l->items[k].type);
    ref->loc = loc;
    return ref;
}

static Expr *op2(Binder *b, int op, Type t, Expr *l, Expr *r, int loc)
{
    Expr *e = plan_expr_new(b->arena, EX_OP, t, loc);
    e->op = op;
    e->args = ARENA_ARRAY(b->arena, Expr *, 2);
    e->args[0] = l;
    e->args[1] = r;
    e->nargs = 2;
    return e;
}

/* variance / var_samp / var_pop / stddev / stddev_samp / stddev_pop ([DISTINCT] x) as
 * PostgreSQL computes them from N = count(x), S = sum(x), Q = sum(x * x) (with DISTINCT:
 * over the distinct values, Q an AGG_SUM_SQUARES of them) (in numeric for integer
 * and numeric x, in double precision for real and double precision x):
 *   var = (N * Q - S * S) / (N * (N - 1))   (pop: / (N * N)); NULL below 2 (pop: 1) rows;
 *   numeric: 0 when the numerator is not positive, the quotient at PostgreSQL's division
 *   scale and stddev its square root at that same scale; double: stddev = sqrt(var). */
static Expr *bind_stats_agg(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    const char *name = a->name;
    bool pop = strstr(name, "_pop") != NULL;
    bool sd = strncmp(name, "stddev", 6) == 0;
    if (cx->agg_mode != AGGS_COLLECT || a->agg_order.n || a->func_variadic || a->args.n != 1 || a->agg_star)
        return bind_agg_call(cx, a, AGG_SUM); /* its checks and messages */
    ExprCtx in = *cx;
    in.agg_mode = AGGS_INSIDE;
    Expr *x = bind_expr(&in, a->args.items[0]);
    if (!x) return NULL;
    bool flt = type_is_float(x->type);
    if (!flt && !type_is_integer(x->type) && x->type.id != T_NUMERIC) {
        no_such_function(b, name, &x, 1, a->loc, false);
        return NULL;
    }
    Type t = type_make(flt ? T_FLOAT8 : T_NUMERIC);
    Expr *xc = bind_coerce(b, x, t);
    if (!xc) return NULL;
    Expr *filter = NULL;
    if (a->agg_filter) {
        ExprCtx fc = *cx;
        fc.agg_mode = AGGS_FORBIDDEN;
        fc.clause = "FILTER";
        filter = bind_condition(&fc, a->agg_filter, "FILTER");
        if (!filter) return NULL;
    }
    int loc = a->loc;
    AggCall ac;
    memset(&ac, 0, sizeof ac);
    ac.loc = loc;
    ac.filter = filter;
    ac.kind = AGG_COUNT;
    ac.distinct = a->agg_distinct;
    /* DISTINCT: the three calls share one set of the distinct values of xc; the squares
     * are summed over those values (sum(DISTINCT x * x) would merge -2 and 2) */
    ac.arg = a->agg_distinct ? xc : x;
    ac.type = type_make(T_INT8);
    Expr *n = agg_placeholder(cx, &ac, loc);
    ac.kind = AGG_SUM;
    ac.arg = xc;
    ac.type = t;
    Expr *sum = agg_placeholder(cx, &ac, loc);
    if (a->agg_distinct) {
        ac.kind = AGG_SUM_SQUARES;
        ac.arg = plan_expr_copy(b->arena, xc);
    } else {
        ac.arg = op2(b, OP_MUL, t, plan_expr_copy(b->arena, xc), plan_expr_copy(b->arena, xc), loc);
    }
    Expr *sq = agg_placeholder(cx, &ac, loc);
    Expr *nn = bind_coerce(b, n, t);
    Expr *num = op2(b, OP_SUB, t, op2(b, OP_MUL, t, nn, sq, loc),
                    op2(b, OP_MUL, t, sum, plan_expr_copy(b->arena, sum), loc), loc);
    Expr *one = bind_coerce(b, plan_expr_const(b->arena, type_make(T_INT8), value_int(1)), t);
    Expr *den = op2(b, OP_MUL, t, plan_expr_copy(b->arena, nn),
                    pop ? plan_expr_copy(b->arena, nn) : op2(b, OP_SUB, t, plan_expr_copy(b->arena, nn), one, loc), loc);
    Expr *zero = bind_coerce(b, plan_expr_const(b->arena, type_make(T_INT8), value_int(0)), t);
    Expr *var;
    if (flt) {
        Expr *g = plan_expr_new(b->arena, EX_GREATEST, t, loc);
        g->args = ARENA_ARRAY(b->arena, Expr *, 2);
        g->args[0] = num;
        g->args[1] = zero;
        g->nargs = 2;
        var = op2(b, OP_DIV, t, g, den, loc);
        if (sd) var = func_node(b, FN_SQRT, t, loc, (Expr *[]){var}, 1);
    } else {
        var = op2(b, OP_DIV, t, num, den, loc);
        if (sd) {
            Expr *args[2] = {var, plan_expr_const(b->arena, type_make(T_BOOL), value_bool(true))};
            var = func_node(b, FN_SQRT, t, loc, args, 2);
        }
    }
    /* CASE WHEN n < k THEN NULL [WHEN num <= 0 THEN 0] ELSE var END */
    Expr *few = op2(b, OP_LT, type_make(T_BOOL), plan_expr_copy(b->arena, n),
                    plan_expr_const(b->arena, type_make(T_INT8), value_int(pop ? 1 : 2)), loc);
    Expr *c = plan_expr_new(b->arena, EX_CASE, t, loc);
    int na = flt ? 3 : 5;
    c->args = ARENA_ARRAY(b->arena, Expr *, na);
    c->args[0] = few;
    c->args[1] = plan_expr_const(b->arena, t, value_null());
    if (!flt) {
        c->args[2] = op2(b, OP_LE, type_make(T_BOOL), plan_expr_copy(b->arena, num), plan_expr_copy(b->arena, zero), loc);
        c->args[3] = plan_expr_copy(b->arena, zero);
    }
    c->args[na - 1] = var;
    c->nargs = na;
    c->has_else = true;
    return c;
}

/* ---- date/time units ----------------------------------------------------------------- */

enum {
    U_TS = 1,      /* valid for timestamp */
    U_TZ = 2,      /* valid for timestamp with time zone */
    U_DATE = 4,    /* valid for date (extract) */
    U_IV = 8,      /* valid for interval */
    U_TRUNC = 16,  /* a date_trunc unit */
};

typedef struct Unit {
    const char *name;
    const char *canon;
    int flags;
} Unit;

#define U_ALLDT (U_TS | U_TZ)
static const Unit units[] = {
    {"microseconds", "microseconds", U_ALLDT | U_IV | U_TRUNC}, {"microsecond", "microseconds", U_ALLDT | U_IV | U_TRUNC},
    {"us", "microseconds", U_ALLDT | U_IV | U_TRUNC}, {"usec", "microseconds", U_ALLDT | U_IV | U_TRUNC},
    {"usecs", "microseconds", U_ALLDT | U_IV | U_TRUNC}, {"usecond", "microseconds", U_ALLDT | U_IV | U_TRUNC},
    {"useconds", "microseconds", U_ALLDT | U_IV | U_TRUNC},
    {"milliseconds", "milliseconds", U_ALLDT | U_IV | U_TRUNC}, {"millisecond", "milliseconds", U_ALLDT | U_IV | U_TRUNC},
    {"ms", "milliseconds", U_ALLDT | U_IV | U_TRUNC}, {"msec", "milliseconds", U_ALLDT | U_IV | U_TRUNC},
    {"msecs", "milliseconds", U_ALLDT | U_IV | U_TRUNC}, {"msecond", "milliseconds", U_ALLDT | U_IV | U_TRUNC},
    {"mseconds", "milliseconds", U_ALLDT | U_IV | U_TRUNC},
    {"second", "second", U_ALLDT | U_IV | U_TRUNC}, {"seconds", "second", U_ALLDT | U_IV | U_TRUNC},
    {"sec", "second", U_ALLDT | U_IV | U_TRUNC}, {"secs", "second", U_ALLDT | U_IV | U_TRUNC},
    {"s", "second", U_ALLDT | U_IV | U_TRUNC},
    {"minute", "minute", U_ALLDT | U_IV | U_TRUNC}, {"minutes", "minute", U_ALLDT | U_IV | U_TRUNC},
    {"min", "minute", U_ALLDT | U_IV | U_TRUNC}, {"mins", "minute", U_ALLDT | U_IV | U_TRUNC},
    {"m", "minute", U_ALLDT | U_IV | U_TRUNC},
    {"hour", "hour", U_ALLDT | U_IV | U_TRUNC}, {"hours", "hour", U_ALLDT | U_IV | U_TRUNC},
    {"hr", "hour", U_ALLDT | U_IV | U_TRUNC}, {"hrs", "hour", U_ALLDT | U_IV | U_TRUNC},
    {"h", "hour", U_ALLDT | U_IV | U_TRUNC},
    {"day", "day", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"days", "day", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"d", "day", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"week", "week", U_ALLDT | U_DATE | U_TRUNC}, {"weeks", "week", U_ALLDT | U_DATE | U_TRUNC},
    {"w", "week", U_ALLDT | U_DATE | U_TRUNC},
    {"month", "month", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"months", "month", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"mon", "month", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"mons", "month", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"quarter", "quarter", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"qtr", "quarter", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"year", "year", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"years", "year", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"yr", "year", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"yrs", "year", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"y", "year", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"decade", "decade", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"decades", "decade", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"dec", "decade", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"decs", "decade", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"century", "century", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"centuries", "century", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"c", "century", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"cent", "century", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"millennium", "millennium", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"millennia", "millennium", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"mil", "millennium", U_ALLDT | U_DATE | U_IV | U_TRUNC}, {"mils", "millennium", U_ALLDT | U_DATE | U_IV | U_TRUNC},
    {"dow", "dow", U_ALLDT | U_DATE}, {"isodow", "isodow", U_ALLDT | U_DATE}, {"doy", "doy", U_ALLDT | U_DATE},
    {"isoyear", "isoyear", U_ALLDT | U_DATE}, {"julian", "julian", U_ALLDT | U_DATE},
    {"epoch", "epoch", U_ALLDT | U_DATE | U_IV},
    {"timezone", "timezone", U_TZ}, {"timezone_hour", "timezone_hour", U_TZ},
    {"timezone_minute", "timezone_minute", U_TZ},
};

static const char *const unit_canon_names[] = {
    "microseconds", "milliseconds", "second", "minute", "hour", "day", "week", "month", "quarter", "year",
    "decade", "century", "millennium", "dow", "isodow", "doy", "isoyear", "julian", "epoch", "timezone",
    "timezone_hour", "timezone_minute",
};

static int type_unit_flag(Type t)
{
    switch ((TypeId)t.id) {
    case T_TIMESTAMP: return U_TS;
    case T_TIMESTAMPTZ: return U_TZ;
    case T_DATE: return U_DATE;
    case T_INTERVAL: return U_IV;
    default: return 0;
    }
}

static bool string_const(const Expr *e)
{
    return e->kind == EX_CONST && !e->cval.isnull && (e->type.id == T_UNKNOWN || e->type.id == T_TEXT);
}

/* Validates a date_trunc unit / extract field against the source type and returns
 * it as a text constant with PostgreSQL's canonical spelling; NULL after an error. */
static Expr *unit_arg(Binder *b, Expr *arg, Type src, bool trunc)
{
    char low[64];
    size_t n = arg->cval.len < sizeof low - 1 ? arg->cval.len : sizeof low - 1;
    for (size_t i = 0; i < n; i++) {
        char c = arg->cval.s[i];
        low[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    low[n] = '\0';
    const char *tname = bind_type_display(b, src);
    const Unit *u = NULL;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(units[i].name, low) == 0) {
            u = &units[i];
            break;
        }
    if (!u) {
        bind_error(b, arg->loc, "invalid-argument",
                   bind_did_you_mean(b, low, unit_canon_names, (int)(sizeof unit_canon_names / sizeof unit_canon_names[0])),
                   "unit \"%s\" not recognized for type %s", low, tname);
        return NULL;
    }
    int need = type_unit_flag(src);
    if (!(u->flags & need) || (trunc && !(u->flags & U_TRUNC))) {
        bind_error(b, arg->loc, "invalid-argument", NULL, "unit \"%s\" not supported for type %s", low, tname);
        return NULL;
    }
    Expr *c = plan_expr_const(b->arena, type_make(T_TEXT), value_text(u->canon, (uint32_t)strlen(u->canon)));
    c->loc = arg->loc;
    return c;
}

static Expr *date_fn(ExprCtx *cx, const char *name, Expr **args, int n, int loc)
{
    Binder *b = cx->b;
    bool trunc = strcmp(name, "date_trunc") == 0;
    bool part = strcmp(name, "date_part") == 0;
    if (trunc && n == 3) {
        bind_unsupported(b, loc, "date_trunc with a time zone argument");
        return NULL;
    }
    if (n != 2 || (args[0]->type.id != T_TEXT && args[0]->type.id != T_UNKNOWN)) {
        no_such_function(b, name, args, n, loc, false);
        return NULL;
    }
    if (!string_const(args[0])) {
        bind_unsupported(b, args[0]->loc >= 0 ? args[0]->loc : loc,
                         arena_printf(b->arena, "%s with a non-constant %s", name, trunc ? "unit" : "field"));
        return NULL;
    }
    Expr *src = args[1];
    if (bind_is_unknown_literal(src)) {
        not_unique(b, name, args, n, loc);
        return NULL;
    }
    Type st = src->type, rt;
    switch ((TypeId)st.id) {
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ:
    case T_INTERVAL: rt = type_make((TypeId)st.id); break;
    case T_DATE:
        /* date_trunc(text, date) resolves through timestamptz (the preferred type);
         * date_part(text, date) through timestamp; extract has a date variant */
        if (trunc) rt = type_make(T_TIMESTAMPTZ);
        else if (part) {
            src = bind_coerce(b, src, type_make(T_TIMESTAMP));
            st = src->type;
            rt = st;
        } else rt = st;
        break;
    default: no_such_function(b, name, args, n, loc, false); return NULL;
    }
    Expr *unit = unit_arg(b, args[0], trunc && st.id == T_DATE ? type_make(T_TIMESTAMPTZ) : st, trunc);
    if (!unit) return NULL;
    Expr *a2[2] = {unit, src};
    if (trunc) return func_node(b, FN_DATE_TRUNC, rt, loc, a2, 2);
    return func_node(b, FN_EXTRACT, type_make(part ? T_FLOAT8 : T_NUMERIC), loc, a2, 2);
}

/* The timestamp type a pair of timestamp arguments resolves to (date_bin's source and
 * origin, age's arguments): timestamp when both are timestamps (or one is an unknown
 * literal), else timestamp with time zone, the preferred type (dates, timestamptz, two
 * literals). T_UNKNOWN when one is not a date/time at all. */
static TypeId timestamp_pair(Expr *a, Expr *c)
{
    bool ua = bind_is_unknown_literal(a), uc = bind_is_unknown_literal(c);
    TypeId ta = (TypeId)a->type.id, tc = (TypeId)c->type.id;
    if ((!ua && !type_is_temporal(a->type)) || (!uc && !type_is_temporal(c->type))) return T_UNKNOWN;
    if ((ua || ta == T_TIMESTAMP) && (uc || tc == T_TIMESTAMP) && !(ua && uc)) return T_TIMESTAMP;
    return T_TIMESTAMPTZ;
}

/* date_bin, make_date, make_timestamp, make_interval, to_timestamp(float8), age,
 * justify_*, isfinite. */
static Expr *time_fn(ExprCtx *cx, const char *name, Expr **args, int n, int loc, bool *handled)
{
    Binder *b = cx->b;
    Expr **orig = saved_args(b, args, n);
    *handled = true;
    if (strcmp(name, "date_bin") == 0) {
        if (n == 3) {
            TypeId t = timestamp_pair(args[1], args[2]);
            TypeId sig[3] = {T_INTERVAL, t, t};
            if (t != T_UNKNOWN && args_to(b, args, 3, sig)) return func_node(b, FN_DATE_BIN, type_make(t), loc, args, 3);
        }
    } else if (strcmp(name, "make_date") == 0) {
        static const TypeId I3[3] = {T_INT4, T_INT4, T_INT4};
        if (n == 3 && args_to(b, args, 3, I3)) return func_node(b, FN_MAKE_DATE, type_make(T_DATE), loc, args, 3);
    } else if (strcmp(name, "make_timestamp") == 0 || strcmp(name, "make_interval") == 0) {
        bool iv = name[5] == 'i';
        static const TypeId TS[6] = {T_INT4, T_INT4, T_INT4, T_INT4, T_INT4, T_FLOAT8};
        static const TypeId IV[7] = {T_INT4, T_INT4, T_INT4, T_INT4, T_INT4, T_INT4, T_FLOAT8};
        if (iv ? n <= 7 && args_to(b, args, n, IV) : n == 6 && args_to(b, args, 6, TS))
            return func_node(b, iv ? FN_MAKE_INTERVAL : FN_MAKE_TIMESTAMP, type_make(iv ? T_INTERVAL : T_TIMESTAMP),
                             loc, args, n);
    } else if (strcmp(name, "age") == 0) {
        if (n == 1) {
            bind_unsupported(b, loc, "age() with one argument (it measures from the current date)");
            return NULL;
        }
        if (n == 2) {
            TypeId t = timestamp_pair(args[0], args[1]);
            TypeId sig[2] = {t, t};
            if (t != T_UNKNOWN && args_to(b, args, 2, sig)) return func_node(b, FN_AGE, type_make(T_INTERVAL), loc, args, 2);
        }
    } else if (strcmp(name, "justify_days") == 0 || strcmp(name, "justify_hours") == 0 ||
               strcmp(name, "justify_interval") == 0) {
        static const TypeId IVL[1] = {T_INTERVAL};
        FuncKind f = name[8] == 'd' ? FN_JUSTIFY_DAYS : name[8] == 'h' ? FN_JUSTIFY_HOURS : FN_JUSTIFY_INTERVAL;
        if (n == 1 && args_to(b, args, 1, IVL)) return func_node(b, f, type_make(T_INTERVAL), loc, args, 1);
    } else if (strcmp(name, "isfinite") == 0) {
        if (n == 1 && bind_is_unknown_literal(args[0])) {
            not_unique(b, name, args, n, loc);
            return NULL;
        }
        TypeId t = n == 1 ? (TypeId)args[0]->type.id : T_UNKNOWN;
        if (n == 1 && (t == T_DATE || t == T_TIMESTAMP || t == T_TIMESTAMPTZ || t == T_INTERVAL))
            return func_node(b, FN_ISFINITE, type_make(T_BOOL), loc, args, 1);
    } else if (strcmp(name, "to_char") == 0) {
        if (n == 2 && bind_is_unknown_literal(args[0])) {
            not_unique(b, name, args, n, loc);
            return NULL;
        }
        if (n == 2) {
            /* smallint goes to the double precision variant (the preferred type), date to
             * timestamptz */
            TypeId t = (TypeId)args[0]->type.id;
            TypeId to = t == T_INT2 ? T_FLOAT8 : t == T_DATE ? T_TIMESTAMPTZ : t;
            bool known = to == T_INT4 || to == T_INT8 || to == T_FLOAT4 || to == T_FLOAT8 || to == T_NUMERIC ||
                         to == T_TIMESTAMP || to == T_TIMESTAMPTZ || to == T_INTERVAL;
            TypeId sig[2] = {to, T_TEXT};
            if (known && args_to(b, args, 2, sig)) return func_node(b, FN_TO_CHAR, type_make(T_TEXT), loc, args, 2);
        }
    } else if ((strcmp(name, "to_timestamp") == 0 || strcmp(name, "to_date") == 0) && n == 2) {
        static const TypeId TT[2] = {T_TEXT, T_TEXT};
        bool ts = name[3] == 't';
        if (args_to(b, args, 2, TT))
            return func_node(b, ts ? FN_TO_TIMESTAMP : FN_TO_DATE, type_make(ts ? T_TIMESTAMPTZ : T_DATE), loc, args, 2);
    } else if (strcmp(name, "to_timestamp") == 0 && n == 1) {
        static const TypeId F1[1] = {T_FLOAT8};
        if (args_to(b, args, 1, F1)) return func_node(b, FN_TO_TIMESTAMP, type_make(T_TIMESTAMPTZ), loc, args, 1);
    } else {
        *handled = false;
        return NULL;
    }
    no_signature(b, name, args, orig, n, loc);
    return NULL;
}

/* ---- numeric functions ------------------------------------------------------------------ */

static FuncKind math_kind(const char *name)
{
    if (strcmp(name, "abs") == 0) return FN_ABS;
    if (strcmp(name, "round") == 0) return FN_ROUND;
    if (strcmp(name, "trunc") == 0) return FN_TRUNC;
    if (strcmp(name, "floor") == 0) return FN_FLOOR;
    if (strcmp(name, "ceil") == 0 || strcmp(name, "ceiling") == 0) return FN_CEIL;
    if (strcmp(name, "sign") == 0) return FN_SIGN;
    if (strcmp(name, "sqrt") == 0) return FN_SQRT;
    if (strcmp(name, "mod") == 0) return FN_MOD;
    if (strcmp(name, "power") == 0 || strcmp(name, "pow") == 0) return FN_POWER;
    static const struct { const char *name; FuncKind f; } more[] = {
        {"exp", FN_EXP}, {"ln", FN_LN}, {"log", FN_LOG}, {"log10", FN_LOG10}, {"cbrt", FN_CBRT},
        {"pi", FN_PI}, {"degrees", FN_DEGREES}, {"radians", FN_RADIANS}, {"sin", FN_SIN}, {"cos", FN_COS},
        {"tan", FN_TAN}, {"asin", FN_ASIN}, {"acos", FN_ACOS}, {"atan", FN_ATAN}, {"atan2", FN_ATAN2},
        {"width_bucket", FN_WIDTH_BUCKET}, {"div", FN_DIV}, {"gcd", FN_GCD}, {"lcm", FN_LCM},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        if (strcmp(name, more[i].name) == 0) return more[i].f;
    return FN__COUNT;
}

/* The type PostgreSQL resolves a numeric-or-float function to when it has both a
 * float8 and a numeric variant: float8 when an argument is a float (float8 does not
 * cast to numeric implicitly), numeric when one is numeric, else float8 (the
 * preferred type). Unknown literals do not count. */
static TypeId float_or_numeric(Expr **args, int n)
{
    bool anynum = false;
    for (int i = 0; i < n; i++) {
        if (bind_is_unknown_literal(args[i])) continue;
        if (type_is_float(args[i]->type)) return T_FLOAT8;
        if (args[i]->type.id == T_NUMERIC) anynum = true;
    }
    return anynum ? T_NUMERIC : T_FLOAT8;
}

static Expr *math_fn(ExprCtx *cx, const char *name, FuncKind f, Expr **args, int n, int loc)
{
    Binder *b = cx->b;
    Expr **orig = saved_args(b, args, n);
    for (int i = 0; i < n; i++)
        if (!bind_is_unknown_literal(args[i]) && bind_type_cat(args[i]->type) != CAT_NUM) {
            no_such_function(b, name, args, n, loc, false);
            return NULL;
        }
    Type rt;
    switch (f) {
    case FN_ABS:
        if (n != 1) break;
        /* abs has a variant per numeric type; an unknown literal takes the preferred one */
        rt = bind_is_unknown_literal(args[0]) ? type_make(T_FLOAT8) : type_make((TypeId)args[0]->type.id);
        if (!arg_to(b, args, 0, (TypeId)rt.id)) return NULL;
        return func_node(b, f, rt, loc, args, 1);
    case FN_ROUND:
    case FN_TRUNC:
        if (n == 2) {
            static const TypeId sig[2] = {T_NUMERIC, T_INT4};
            if (!args_to(b, args, 2, sig)) break;
            return func_node(b, f, type_make(T_NUMERIC), loc, args, 2);
        }
        __attribute__((fallthrough)); /* one argument: like floor */
    case FN_FLOOR:
    case FN_CEIL:
    case FN_SIGN:
    case FN_SQRT:
        if (n != 1) break;
        rt = args[0]->type.id == T_NUMERIC ? type_make(T_NUMERIC) : type_make(T_FLOAT8);
        if (!arg_to(b, args, 0, (TypeId)rt.id)) return NULL;
        return func_node(b, f, rt, loc, args, 1);
    case FN_EXP:
    case FN_LN:
    case FN_LOG10:
        if (n != 1) break;
        rt = type_make(float_or_numeric(args, 1));
        if (!arg_to(b, args, 0, (TypeId)rt.id)) return NULL;
        return func_node(b, f, rt, loc, args, 1);
    case FN_LOG:
        if (n == 1) {
            rt = type_make(float_or_numeric(args, 1));
            if (!arg_to(b, args, 0, (TypeId)rt.id)) return NULL;
            return func_node(b, f, rt, loc, args, 1);
        }
        __attribute__((fallthrough)); /* log(base, x) and div(a, b) exist for numeric only */
    case FN_DIV: {
        static const TypeId NN[2] = {T_NUMERIC, T_NUMERIC};
        if (n != 2 || !args_to(b, args, 2, NN)) break;
        return func_node(b, f, type_make(T_NUMERIC), loc, args, 2);
    }
    case FN_CBRT: case FN_DEGREES: case FN_RADIANS: case FN_SIN: case FN_COS: case FN_TAN: case FN_ASIN:
    case FN_ACOS: case FN_ATAN: case FN_ATAN2: case FN_PI: {
        static const TypeId FF[2] = {T_FLOAT8, T_FLOAT8};
        int want = f == FN_PI ? 0 : f == FN_ATAN2 ? 2 : 1;
        if (n != want || !args_to(b, args, n, FF)) break;
        return func_node(b, f, type_make(T_FLOAT8), loc, args, n);
    }
    case FN_WIDTH_BUCKET: {
        if (n != 4) break;
        TypeId t = float_or_numeric(args, 3);
        TypeId sig[4] = {t, t, t, T_INT4};
        if (!args_to(b, args, 4, sig)) break;
        return func_node(b, f, type_make(T_INT4), loc, args, 4);
    }
    case FN_GCD:
    case FN_LCM: {
        if (n != 2) break;
        bool u0 = bind_is_unknown_literal(args[0]), u1 = bind_is_unknown_literal(args[1]);
        if (u0 && u1) {
            not_unique(b, name, args, n, loc);
            return NULL;
        }
        Type t0 = u0 ? args[1]->type : args[0]->type, t1 = u1 ? args[0]->type : args[1]->type;
        if (type_is_float(t0) || type_is_float(t1)) break;
        if (t0.id == T_INT2 && t1.id == T_INT2) {
            not_unique(b, name, args, n, loc);   /* integer and bigint fit equally */
            return NULL;
        }
        rt = bind_op_common(t0, t1);
        if (rt.id == T_INT2) rt = type_make(T_INT4);
        if (!arg_to(b, args, 0, (TypeId)rt.id) || !arg_to(b, args, 1, (TypeId)rt.id)) return NULL;
        return func_node(b, f, rt, loc, args, 2);
    }
    case FN_MOD:
    case FN_POWER: {
        if (n != 2) break;
        bool u0 = bind_is_unknown_literal(args[0]), u1 = bind_is_unknown_literal(args[1]);
        if (u0 && u1) {
            not_unique(b, name, args, n, loc);
            return NULL;
        }
        Type t0 = u0 ? args[1]->type : args[0]->type, t1 = u1 ? args[0]->type : args[1]->type;
        bool anyfloat = type_is_float(t0) || type_is_float(t1);
        bool anynum = t0.id == T_NUMERIC || t1.id == T_NUMERIC;
        if (f == FN_MOD) {
            if (anyfloat) break;
            rt = bind_op_common(t0, t1);
        } else {
            rt = anyfloat ? type_make(T_FLOAT8) : anynum ? type_make(T_NUMERIC) : type_make(T_FLOAT8);
        }
        if (!arg_to(b, args, 0, (TypeId)rt.id) || !arg_to(b, args, 1, (TypeId)rt.id)) return NULL;
        return func_node(b, f, rt, loc, args, 2);
    }
    default: break;
    }
    no_signature(b, name, args, orig, n, loc);
    return NULL;
}

/* ---- string functions -------------------------------------------------------------------- */

static Expr *string_fn(ExprCtx *cx, const char *name, Expr **args, int n, int loc, bool *handled)
{
    Binder *b = cx->b;
    static const TypeId T3[3] = {T_TEXT, T_TEXT, T_TEXT};
    static const TypeId TII[3] = {T_TEXT, T_INT4, T_INT4};
    static const TypeId TTI[3] = {T_TEXT, T_TEXT, T_INT4};
    *handled = true;
    FuncKind f;
    Type text = type_make(T_TEXT);
    Expr **orig = saved_args(b, args, n);
    if (strcmp(name, "lower") == 0 || strcmp(name, "upper") == 0) {
        f = name[0] == 'l' ? FN_LOWER : FN_UPPER;
        if (n == 1 && args_to(b, args, 1, T3)) return func_node(b, f, text, loc, args, 1);
    } else if (strcmp(name, "length") == 0 || strcmp(name, "char_length") == 0 ||
               strcmp(name, "character_length") == 0) {
        if (n == 1 && args_to(b, args, 1, T3)) return func_node(b, FN_LENGTH, type_make(T_INT4), loc, args, 1);
    } else if (strcmp(name, "btrim") == 0 || strcmp(name, "trim") == 0 || strcmp(name, "ltrim") == 0 ||
               strcmp(name, "rtrim") == 0) {
        f = name[0] == 'l' ? FN_LTRIM : name[0] == 'r' ? FN_RTRIM : FN_BTRIM;
        if ((n == 1 || n == 2) && args_to(b, args, n, T3)) return func_node(b, f, text, loc, args, n);
    } else if (strcmp(name, "substring") == 0 || strcmp(name, "substr") == 0) {
        if (name[3] == 's' && n == 2 && (bind_is_unknown_literal(args[1]) || args[1]->type.id == T_TEXT)) {
            /* substring(text, text) is the regular-expression form */
            bind_unsupported(b, loc, "substring with a regular expression");
            return NULL;
        }
        if ((n == 2 || n == 3) && args_to(b, args, n, TII)) return func_node(b, FN_SUBSTRING, text, loc, args, n);
    } else if (strcmp(name, "split_part") == 0) {
        if (n == 3 && args_to(b, args, 3, TTI)) return func_node(b, FN_SPLIT_PART, text, loc, args, 3);
    } else if (strcmp(name, "replace") == 0) {
        if (n == 3 && args_to(b, args, 3, T3)) return func_node(b, FN_REPLACE, text, loc, args, 3);
    } else if (strcmp(name, "strpos") == 0 || strcmp(name, "position") == 0) {
        /* position(a IN b) arrives as position(b, a): haystack first, like strpos */
        if (n == 2 && args_to(b, args, 2, T3)) return func_node(b, FN_POSITION, type_make(T_INT4), loc, args, 2);
    } else if (strcmp(name, "left") == 0 || strcmp(name, "right") == 0) {
        f = name[0] == 'l' ? FN_LEFT : FN_RIGHT;
        if (n == 2 && args_to(b, args, 2, TII)) return func_node(b, f, text, loc, args, 2);
    } else if (strcmp(name, "lpad") == 0 || strcmp(name, "rpad") == 0) {
        static const TypeId TIT[3] = {T_TEXT, T_INT4, T_TEXT};
        f = name[0] == 'l' ? FN_LPAD : FN_RPAD;
        if ((n == 2 || n == 3) && args_to(b, args, n, TIT)) return func_node(b, f, text, loc, args, n);
    } else if (strcmp(name, "initcap") == 0 || strcmp(name, "reverse") == 0 || strcmp(name, "md5") == 0) {
        f = name[0] == 'i' ? FN_INITCAP : name[0] == 'r' ? FN_REVERSE : FN_MD5;
        if (n == 1 && args_to(b, args, 1, T3)) return func_node(b, f, text, loc, args, 1);
    } else if (strcmp(name, "ascii") == 0 || strcmp(name, "octet_length") == 0) {
        f = name[0] == 'a' ? FN_ASCII : FN_OCTET_LENGTH;
        if (n == 1 && args_to(b, args, 1, T3)) return func_node(b, f, type_make(T_INT4), loc, args, 1);
    } else if (strcmp(name, "repeat") == 0) {
        if (n == 2 && args_to(b, args, 2, TII)) return func_node(b, FN_REPEAT, text, loc, args, 2);
    } else if (strcmp(name, "starts_with") == 0) {
        if (n == 2 && args_to(b, args, 2, T3)) return func_node(b, FN_STARTS_WITH, type_make(T_BOOL), loc, args, 2);
    } else if (strcmp(name, "translate") == 0) {
        if (n == 3 && args_to(b, args, 3, T3)) return func_node(b, FN_TRANSLATE, text, loc, args, 3);
    } else if (strcmp(name, "chr") == 0) {
        static const TypeId I1[1] = {T_INT4};
        if (n == 1 && args_to(b, args, 1, I1)) return func_node(b, FN_CHR, text, loc, args, 1);
    } else if (strcmp(name, "concat") == 0 || strcmp(name, "concat_ws") == 0) {
        bool ws = name[6] == '_';
        if (n >= (ws ? 2 : 1) && (!ws || arg_to(b, args, 0, T_TEXT))) {
            /* "any" arguments: each is printed with its type's output function */
            for (int i = 0; i < n; i++) {
                args[i] = bind_default_unknown(b, args[i]);
                if (!args[i]) return NULL;
            }
            return func_node(b, ws ? FN_CONCAT_WS : FN_CONCAT, text, loc, args, n);
        }
    } else {
        *handled = false;
        return NULL;
    }
    no_signature(b, name, args, orig, n, loc);
    return NULL;
}

/* ---- regular expressions ------------------------------------------------------------------ */

static bool text_const(const Expr *e)
{
    return e->kind == EX_CONST && !e->cval.isnull && e->type.id == T_TEXT;
}

bool bind_prepare_regex(Binder *b, Expr *e, const Expr *pattern, const Expr *flags, int base_opts, const char *fname)
{
    int opts = base_opts;
    bool global = false;
    char err[256];
    if (flags && text_const(flags)) {
        if (!regex_parse_flags(flags->cval.s, flags->cval.len, &opts, &global, err, sizeof err)) {
            bind_error(b, flags->loc >= 0 ? flags->loc : e->loc, "invalid-argument", NULL, "%s", err);
            return false;
        }
        if (global && fname) {
            bind_error(b, flags->loc >= 0 ? flags->loc : e->loc, "invalid-argument", NULL,
                       "%s does not support the \"global\" option", fname);
            return false;
        }
    }
    if (!text_const(pattern) || (flags && !text_const(flags))) return true;
    e->regex = regex_compile_in(b->arena, pattern->cval.s, pattern->cval.len, opts, err, sizeof err);
    if (!e->regex) {
        bind_error(b, pattern->loc >= 0 ? pattern->loc : e->loc, "invalid-argument", NULL, "%s", err);
        return false;
    }
    return true;
}

/* regexp_replace, regexp_like, regexp_count, regexp_substr (PostgreSQL 15's forms; a
 * literal in the fourth position of regexp_replace is its flags, as PostgreSQL
 * resolves an unknown literal to text). */
static Expr *regex_fn(ExprCtx *cx, const char *name, Expr **args, int n, int loc, bool *handled)
{
    Binder *b = cx->b;
    Expr **orig = saved_args(b, args, n);
    *handled = true;
    TypeId sig[6] = {T_TEXT, T_TEXT, T_TEXT, T_TEXT, T_TEXT, T_TEXT};
    FuncKind f;
    Type rt;
    int flags_at = -1;
    const char *fname = NULL;
    if (strcmp(name, "regexp_replace") == 0) {
        f = FN_REGEXP_REPLACE;
        rt = type_make(T_TEXT);
        if (n < 3 || n > 6) goto nofunc;
        bool fourth_int = n >= 4 && !bind_is_unknown_literal(args[3]) && args[3]->type.id != T_TEXT;
        if (n == 4 && !fourth_int) flags_at = 3;
        else if (n >= 4) {
            sig[3] = T_INT4;
            if (n >= 5) sig[4] = T_INT4;
            if (n == 6) flags_at = 5;
        }
    } else if (strcmp(name, "regexp_like") == 0) {
        f = FN_REGEXP_LIKE;
        rt = type_make(T_BOOL);
        fname = "regexp_like()";
        if (n < 2 || n > 3) goto nofunc;
        if (n == 3) flags_at = 2;
    } else if (strcmp(name, "regexp_count") == 0) {
        f = FN_REGEXP_COUNT;
        rt = type_make(T_INT4);
        fname = "regexp_count()";
        if (n < 2 || n > 4) goto nofunc;
        sig[2] = T_INT4;
        if (n == 4) flags_at = 3;
    } else if (strcmp(name, "regexp_substr") == 0) {
        f = FN_REGEXP_SUBSTR;
        rt = type_make(T_TEXT);
        fname = "regexp_substr()";
        if (n < 2 || n > 6) goto nofunc;
        sig[2] = sig[3] = sig[5] = T_INT4;
        if (n >= 5) flags_at = 4;
    } else {
        *handled = false;
        return NULL;
    }
    if (!args_to(b, args, n, sig)) goto nofunc;
    Expr *e = func_node(b, f, rt, loc, args, n);
    if (!bind_prepare_regex(b, e, e->args[1], flags_at >= 0 ? e->args[flags_at] : NULL, 0, fname)) return NULL;
    return e;
nofunc:
    no_signature(b, name, args, orig, n, loc);
    return NULL;
}

/* ---- entry points ------------------------------------------------------------------------ */

/* x AT TIME ZONE zone (PostgreSQL's timezone(zone, x)). weir's session time zone is
 * UTC and timestamptz values are UTC, so with zone 'UTC' (or 'GMT', 'Etc/UTC', 'Z')
 * timestamp -> timestamptz and timestamptz -> timestamp are casts that keep the
 * instant's digits; an interval offset (hours, minutes, seconds) shifts them:
 *   timestamptz AT TIME ZONE iv = timestamp (x + iv);  timestamp AT TIME ZONE iv =
 *   timestamptz (x - iv). Any other zone text is FN_TIMEZONE (base/tz.h: abbreviations,
 *   the time zone database, POSIX zones), resolved here when it is a constant (an
 *   unknown name is then a bind error at the zone) and per row otherwise. */
static Expr *at_time_zone(ExprCtx *cx, Expr **args, int nargs, int loc)
{
    Binder *b = cx->b;
    if (nargs != 2) return NULL;
    Expr *zone = args[0], *x = args[1];
    if (bind_is_unknown_literal(x)) x = bind_coerce(b, x, type_make(T_TIMESTAMPTZ));
    if (!x) return NULL;
    if (x->type.id == T_DATE) x = bind_coerce(b, x, type_make(T_TIMESTAMPTZ));
    if (x->type.id != T_TIMESTAMP && x->type.id != T_TIMESTAMPTZ) {
        no_such_function(b, "timezone", args, nargs, loc, false);
        return NULL;
    }
    bool to_tz = x->type.id == T_TIMESTAMP;
    Type out = type_make(to_tz ? T_TIMESTAMPTZ : T_TIMESTAMP);
    if (bind_is_unknown_literal(zone)) zone = bind_coerce(b, zone, type_make(T_TEXT));
    if (!zone) return NULL;
    if (zone->type.id == T_TEXT) {
        if (zone->kind == EX_CONST && !zone->cval.isnull) {
            static const char *const utc[] = {"utc", "gmt", "etc/utc", "etc/gmt", "z", "zulu", "universal", "uct"};
            for (size_t i = 0; i < sizeof utc / sizeof utc[0]; i++)
                if (strlen(utc[i]) == zone->cval.len && strncasecmp(zone->cval.s, utc[i], zone->cval.len) == 0)
                    return bind_cast(b, x, out, loc);
        }
        Expr *pair[2] = {zone, x};
        Expr *e = func_node(b, FN_TIMEZONE, out, loc, pair, 2);
        if (zone->kind == EX_CONST && !zone->cval.isnull) {
            int len = (int)(zone->cval.len > TZ_NAME_MAX ? TZ_NAME_MAX : zone->cval.len);
            TzStatus st = tz_find(zone->cval.s, zone->cval.len, &e->tzone);
            int at = zone->loc >= 0 ? zone->loc : loc;
            if (st != TZ_FOUND) {
                bind_error(b, at, "invalid-time-zone",
                           "a zone of the time zone database (AT TIME ZONE 'Europe/Berlin'), an abbreviation "
                           "('CET'), a POSIX zone ('UTC+3') or an interval (INTERVAL '+02:00')",
                           "time zone \"%.*s\" not recognized", len, zone->cval.s);
                return NULL;
            }
        }
        return e;
    }
    if (zone->type.id == T_INTERVAL) {
        if (zone->kind == EX_CONST && !zone->cval.isnull && (zone->cval.iv.months || zone->cval.iv.days)) {
            StrBuf sb = STRBUF_INIT;
            value_format_text(zone->type, &zone->cval, &sb);
            const char *txt = arena_strdup(b->arena, sb_cstr(&sb));
            sb_free(&sb);
            bind_error(b, zone->loc >= 0 ? zone->loc : loc, "invalid-time-zone", NULL,
                       "interval time zone \"%s\" must not include months or days", txt);
            return NULL;
        }
        if (to_tz) {
            Expr *d = bind_binary_op(cx, OP_SUB, x, zone, loc);
            return d ? bind_cast(b, d, out, loc) : NULL;
        }
        Expr *c = bind_cast(b, x, out, loc);
        return c ? bind_binary_op(cx, OP_ADD, c, zone, loc) : NULL;
    }
    no_such_function(b, "timezone", args, nargs, loc, false);
    return NULL;
}

Expr *bind_scalar_func(ExprCtx *cx, const char *name, Expr **args, int nargs, int loc)
{
    Binder *b = cx->b;
    bool handled;
    if (strcmp(name, "timezone") == 0 && nargs == 2) return at_time_zone(cx, args, nargs, loc);
    Expr *e = string_fn(cx, name, args, nargs, loc, &handled);
    if (handled) return e;
    FuncKind mk = math_kind(name);
    if (mk != FN__COUNT) return math_fn(cx, name, mk, args, nargs, loc);
    if (strcmp(name, "date_trunc") == 0 || strcmp(name, "extract") == 0 || strcmp(name, "date_part") == 0)
        return date_fn(cx, name, args, nargs, loc);
    e = time_fn(cx, name, args, nargs, loc, &handled);
    if (handled) return e;
    e = regex_fn(cx, name, args, nargs, loc, &handled);
    if (handled) return e;
    if (bind_refuse_nondeterministic(b, name, loc)) return NULL;
    if (strcmp(name, "array_length") == 0 || strcmp(name, "cardinality") == 0) return array_fn(cx, name, args, nargs, loc);
    if (strcmp(name, "json_build_object") == 0 || strcmp(name, "json_build_array") == 0 || strcmp(name, "to_json") == 0 ||
        strcmp(name, "array_to_json") == 0)
        return json_fn(cx, name, args, nargs, loc);
    if (strcmp(name, "array_position") == 0 || strcmp(name, "array_remove") == 0) {
        Expr **orig = saved_args(b, args, nargs);
        if (nargs != 2 || args[0]->type.id != T_ARRAY) {
            no_such_function(b, name, orig, nargs, loc, false);
            return NULL;
        }
        Type et = type_base(type_elem(args[0]->type));
        if (args[1]->type.id != T_UNKNOWN && args[1]->type.id != et.id && !bind_can_implicit(args[1]->type, et)) {
            no_such_function(b, name, orig, nargs, loc, false);
            return NULL;
        }
        if (!(args[1] = bind_coerce(b, args[1], et))) return NULL;
        bool pos = name[6] == 'p';
        return func_node(b, pos ? FN_ARRAY_POSITION : FN_ARRAY_REMOVE, pos ? type_make(T_INT4) : type_base(args[0]->type),
                         loc, args, 2);
    }
    if (strcmp(name, "array_to_string") == 0 || strcmp(name, "string_to_array") == 0)
        return array_text_fn(cx, name, args, nargs, loc);
    if (strcmp(name, "array_cat") == 0 || strcmp(name, "array_append") == 0 || strcmp(name, "array_prepend") == 0) {
        if (nargs != 2) {
            no_such_function(b, name, args, nargs, loc, false);
            return NULL;
        }
        return bind_array_concat(cx, name[6] == 'c' ? FN_ARRAY_CAT : name[6] == 'a' ? FN_ARRAY_APPEND : FN_ARRAY_PREPEND,
                                 args[0], args[1], loc, name);
    }
    if (strcmp(name, "jsonb_agg") == 0 || strcmp(name, "jsonb_object_agg") == 0) {
        const char *hint = arena_printf(b->arena, "use %s, whose result is json", name[9] ? "json_object_agg" : "json_agg");
        bind_error(b, loc, "unsupported", hint, "%s() is not supported: weir has no jsonb type", name);
        return NULL;
    }
    if (in_list(name, unsupported_functions, sizeof unsupported_functions / sizeof unsupported_functions[0])) {
        bind_unsupported(b, loc, arena_printf(b->arena, "function %s", bind_func_signature(b, name, args, nargs, false)));
        return NULL;
    }
    const char *hint = bind_did_you_mean(b, name, bind_function_names, bind_function_names_count);
    if (!hint && (strcmp(name, "source") == 0 || strcmp(name, "ref") == 0))
        hint = "source() and ref() name relations: use them in FROM";
    /* Flink's group-window functions: weir's windows are table functions in FROM */
    static const char *const flink_windows[] = {"tumble", "tumble_start", "tumble_end", "tumble_rowtime", "hop",
                                                "hop_start", "hop_end", "session", "session_start", "session_end"};
    if (in_list(name, flink_windows, sizeof flink_windows / sizeof flink_windows[0]))
        hint = "windows are table functions in FROM: FROM TUMBLE(source('s'), ts_column, INTERVAL '5' MINUTE), "
               "then GROUP BY window_start, window_end and select window_start/window_end (docs/sql.md)";
    bind_error(b, loc, "unknown-function", hint, "function %s does not exist",
               bind_func_signature(b, name, args, nargs, false));
    return NULL;
}

Expr *bind_func_call(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    const char *name = a->name ? a->name : "";
    if (a->over) return bind_window_call(cx, a);
    if (a->agg_within_group && bind_func_unqualified(a) &&
        (strcmp(name, "rank") == 0 || strcmp(name, "dense_rank") == 0 || strcmp(name, "percent_rank") == 0 ||
         strcmp(name, "cume_dist") == 0)) {
        bind_unsupported(b, a->loc, arena_printf(b->arena, "the hypothetical-set aggregate %s() WITHIN GROUP", a->name));
        return NULL;
    }
    if (bind_func_unqualified(a) && in_list(name, window_only_functions,
                                            sizeof window_only_functions / sizeof window_only_functions[0])) {
        bind_error(b, a->loc, "invalid-window", "e.g. ROW_NUMBER() OVER (PARTITION BY k ORDER BY t)",
                   "window function %s requires an OVER clause", name);
        return NULL;
    }
    if (a->grouping_func) {
        if (!cx->grouping || cx->agg_mode != AGGS_COLLECT) {
            bind_error(b, a->loc, "grouping", NULL, "%s",
                       cx->agg_mode == AGGS_FORBIDDEN && cx->clause
                           ? arena_printf(b->arena, "grouping operations are not allowed in %s", cx->clause)
                           : "arguments to GROUPING must be grouping expressions of the associated query level");
            return NULL;
        }
        if (a->args.n > 31) {
            bind_error(b, a->loc, "grouping", NULL, "GROUPING must have fewer than 32 arguments");
            return NULL;
        }
        ExprCtx in = *cx;
        in.agg_mode = AGGS_FORBIDDEN;
        in.clause = "GROUPING";
        GroupingCall gc = {ARENA_ARRAY(b->arena, Expr *, a->args.n + 1), a->args.n, a->loc};
        for (int i = 0; i < a->args.n; i++) {
            gc.args[i] = bind_expr(&in, a->args.items[i]);
            if (!gc.args[i]) return NULL;
        }
        GroupingList *gl = cx->grouping;
        if (gl->n == gl->cap) {
            int cap = gl->cap ? gl->cap * 2 : 4;
            GroupingCall *v = ARENA_ARRAY(b->arena, GroupingCall, cap);
            if (gl->n) memcpy(v, gl->items, sizeof(GroupingCall) * (size_t)gl->n);
            gl->items = v;
            gl->cap = cap;
        }
        gl->items[gl->n] = gc;
        Expr *ref = plan_expr_column(b->arena, BIND_GRP_COL(gl->n), type_make(T_INT4));
        ref->loc = a->loc;
        gl->n++;
        return ref;
    }
    int ak = bind_agg_kind(a);
    if (ak >= 0) return bind_agg_call(cx, a, (AggKind)ak);
    if (bind_is_stats_agg(a)) return bind_stats_agg(cx, a);
    const char *misuse = a->agg_star ? "*" : a->agg_distinct ? "DISTINCT" : a->agg_filter ? "FILTER"
                         : a->agg_within_group ? "WITHIN GROUP" : a->agg_order.n ? "ORDER BY" : NULL;
    if (misuse && bind_func_unqualified(a)) {
        if (a->agg_star)
            bind_error(b, a->loc, "invalid-aggregate", NULL, "%s(*) specified, but %s is not an aggregate function",
                       name, name);
        else
            bind_error(b, a->loc, "invalid-aggregate", NULL, "%s specified, but %s is not an aggregate function",
                       misuse, name);
        return NULL;
    }
    if (a->func_variadic) {
        bind_unsupported(b, a->loc, "VARIADIC");
        return NULL;
    }
    int n = a->args.n;
    Expr **args = ARENA_ARRAY(b->arena, Expr *, n > 0 ? n : 1);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        args[i] = bind_expr(cx, a->args.items[i]);
        if (!args[i]) ok = false;
    }
    if (!ok) return NULL;
    if (!bind_func_unqualified(a)) {
        StrBuf sb = STRBUF_INIT;
        for (int i = 0; i < a->nnames; i++) {
            if (i) sb_putc(&sb, '.');
            sb_puts(&sb, a->names[i]);
        }
        const char *full = arena_strdup(b->arena, sb_cstr(&sb));
        sb_free(&sb);
        bind_error(b, a->loc, "unknown-function", NULL, "function %s does not exist",
                   bind_func_signature(b, full, args, n, false));
        return NULL;
    }
    return bind_scalar_func(cx, name, args, n, a->loc);
}

static int bind_agg_kind_name(const char *n)
{
    static const char *const aggs[] = {"count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "string_agg",
                                       "mode", "percentile_cont", "percentile_disc", "array_agg", "json_agg",
                                       "json_object_agg"};
    for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++)
        if (strcmp(n, aggs[i]) == 0) return (int)i;
    return -1;
}

bool bind_is_scalar_function(const char *name)
{
    return in_list(name, bind_function_names, (size_t)bind_function_names_count) && bind_agg_kind_name(name) < 0;
}
