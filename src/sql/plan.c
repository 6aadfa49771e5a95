/* Helpers over the typed plan (plan.h): constructors, names, deep copies, structural
 * equality and hashing (positions excluded, for fingerprints), and printing of
 * expressions as PostgreSQL SQL in the style of PostgreSQL's own deparser
 * (ruleutils.c): operators fully parenthesised, constants labelled with their type
 * unless the bare literal already has it ('x'::text, '5'::bigint, 1.50). */
#include "sql/plan.h"

#include "base/strbuf.h"

#include <string.h>
#include "base/hash.h"

Expr *plan_expr_new(Arena *a, ExprKind kind, Type type, int loc)
{
    Expr *e = ARENA_NEW(a, Expr);
    e->kind = kind;
    e->type = type;
    e->loc = loc;
    e->col = -1;
    return e;
}

Expr *plan_expr_column(Arena *a, int col, Type type)
{
    Expr *e = plan_expr_new(a, EX_COLUMN, type, -1);
    e->col = col;
    return e;
}

Expr *plan_expr_const(Arena *a, Type type, Value v)
{
    Expr *e = plan_expr_new(a, EX_CONST, type, -1);
    e->cval = v;
    return e;
}

PlanNode *plan_node_new(Arena *a, PlanKind kind, int loc)
{
    PlanNode *n = ARENA_NEW(a, PlanNode);
    n->kind = kind;
    n->loc = loc;
    n->time_col = -1;
    n->limit = -1;
    n->left_time_col = n->right_time_col = -1;
    n->window_start_key = n->window_end_key = -1;
    n->frame_offset = -1;
    return n;
}

const char *plan_kind_name(PlanKind k)
{
    switch (k) {
    case PL_SOURCE: return "Source";
    case PL_REF: return "Ref";
    case PL_FILTER: return "Filter";
    case PL_PROJECT: return "Project";
    case PL_AGGREGATE: return "Aggregate";
    case PL_DISTINCT: return "Distinct";
    case PL_UNION_ALL: return "UnionAll";
    case PL_JOIN: return "Join";
    case PL_WINDOW_TVF: return "WindowTvf";
    case PL_TOPN: return "TopN";
    case PL_SETOP: return "SetOp";
    case PL_OVER_AGG: return "OverAgg";
    case PL_VALUES: return "Values";
    }
    return "?";
}

const char *op_kind_symbol(OpKind op)
{
    switch (op) {
    case OP_ADD: return "+";
    case OP_SUB: return "-";
    case OP_MUL: return "*";
    case OP_DIV: return "/";
    case OP_MOD: return "%";
    case OP_NEG: return "-";
    case OP_EQ: return "=";
    case OP_NE: return "<>";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_IS_DISTINCT: return "IS DISTINCT FROM";
    case OP_IS_NOT_DISTINCT: return "IS NOT DISTINCT FROM";
    case OP_CONCAT: return "||";
    case OP_LIKE: return "LIKE";
    case OP_NOT_LIKE: return "NOT LIKE";
    case OP_ILIKE: return "ILIKE";
    case OP_NOT_ILIKE: return "NOT ILIKE";
    case OP_REGEX: return "~";
    case OP_NOT_REGEX: return "!~";
    case OP_IREGEX: return "~*";
    case OP_NOT_IREGEX: return "!~*";
    }
    return "?";
}

const char *func_kind_name(FuncKind f)
{
    static const char *const names[FN__COUNT] = {
        [FN_LOWER] = "lower", [FN_UPPER] = "upper", [FN_LENGTH] = "length",
        [FN_SUBSTRING] = "substring", [FN_BTRIM] = "btrim", [FN_LTRIM] = "ltrim",
        [FN_RTRIM] = "rtrim", [FN_CONCAT] = "concat", [FN_CONCAT_WS] = "concat_ws",
        [FN_SPLIT_PART] = "split_part", [FN_REPLACE] = "replace", [FN_POSITION] = "strpos",
        [FN_LEFT] = "left", [FN_RIGHT] = "right", [FN_ABS] = "abs", [FN_ROUND] = "round",
        [FN_TRUNC] = "trunc", [FN_FLOOR] = "floor", [FN_CEIL] = "ceil", [FN_MOD] = "mod",
        [FN_SIGN] = "sign", [FN_SQRT] = "sqrt", [FN_POWER] = "power",
        [FN_DATE_TRUNC] = "date_trunc", [FN_EXTRACT] = "extract",
        [FN_MAKE_INTERVAL] = "make_interval",
        [FN_LPAD] = "lpad", [FN_RPAD] = "rpad", [FN_INITCAP] = "initcap", [FN_REVERSE] = "reverse",
        [FN_REPEAT] = "repeat", [FN_MD5] = "md5", [FN_STARTS_WITH] = "starts_with",
        [FN_TRANSLATE] = "translate", [FN_ASCII] = "ascii", [FN_CHR] = "chr",
        [FN_OCTET_LENGTH] = "octet_length", [FN_REGEXP_REPLACE] = "regexp_replace",
        [FN_REGEXP_LIKE] = "regexp_like", [FN_REGEXP_COUNT] = "regexp_count",
        [FN_REGEXP_SUBSTR] = "regexp_substr", [FN_TO_CHAR] = "to_char",
        [FN_TO_TIMESTAMP] = "to_timestamp", [FN_TO_DATE] = "to_date", [FN_DATE_BIN] = "date_bin",
        [FN_MAKE_DATE] = "make_date", [FN_MAKE_TIMESTAMP] = "make_timestamp", [FN_AGE] = "age",
        [FN_JUSTIFY_DAYS] = "justify_days", [FN_JUSTIFY_HOURS] = "justify_hours",
        [FN_JUSTIFY_INTERVAL] = "justify_interval", [FN_ISFINITE] = "isfinite", [FN_TIMEZONE] = "timezone", [FN_STRING_AGG_ITEM] = "string_agg_item", [FN_AGG_ITEM] = "agg_item", [FN_ARRAY] = "array", [FN_ARRAY_LENGTH] = "array_length", [FN_CARDINALITY] = "cardinality", [FN_ARRAY_SUBSCRIPT] = "array_subscript", [FN_ARRAY_CMP] = "array_cmp", [FN_JSON_BUILD_OBJECT] = "json_build_object", [FN_JSON_BUILD_ARRAY] = "json_build_array", [FN_TO_JSON] = "to_json", [FN_ARRAY_CONTAINS] = "array_contains", [FN_ARRAY_OVERLAP] = "array_overlap", [FN_ARRAY_POSITION] = "array_position", [FN_ARRAY_REMOVE] = "array_remove", [FN_ARRAY_CAT] = "array_cat", [FN_ARRAY_APPEND] = "array_append", [FN_ARRAY_PREPEND] = "array_prepend", [FN_ARRAY_TO_STRING] = "array_to_string", [FN_STRING_TO_ARRAY] = "string_to_array", [FN_SUBQUERY_ROWS] = "more_than_one_row", [FN_EXP] = "exp",
        [FN_LN] = "ln", [FN_LOG] = "log", [FN_LOG10] = "log10", [FN_CBRT] = "cbrt", [FN_PI] = "pi",
        [FN_DEGREES] = "degrees", [FN_RADIANS] = "radians", [FN_SIN] = "sin", [FN_COS] = "cos",
        [FN_TAN] = "tan", [FN_ASIN] = "asin", [FN_ACOS] = "acos", [FN_ATAN] = "atan",
        [FN_ATAN2] = "atan2", [FN_WIDTH_BUCKET] = "width_bucket", [FN_DIV] = "div", [FN_GCD] = "gcd",
        [FN_LCM] = "lcm",
    };
    if ((unsigned)f >= FN__COUNT || !names[f]) return "?";
    return names[f];
}

const char *agg_kind_name(AggKind k)
{
    switch (k) {
    case AGG_COUNT_STAR:
    case AGG_COUNT: return "count";
    case AGG_SUM: return "sum";
    case AGG_AVG: return "avg";
    case AGG_MIN: return "min";
    case AGG_MAX: return "max";
    case AGG_BOOL_AND: return "bool_and";
    case AGG_BOOL_OR: return "bool_or";
    case AGG_STRING_AGG: return "string_agg";
    case AGG_MODE: return "mode";
    case AGG_PERCENTILE_CONT: return "percentile_cont";
    case AGG_PERCENTILE_DISC: return "percentile_disc";
    case AGG_LAG: return "lag";
    case AGG_FIRST_VALUE: return "first_value";
    case AGG_LAST_VALUE: return "last_value";
    case AGG_SUM_SQUARES: return "sum_squares";
    case AGG_ARRAY_AGG: return "array_agg";
    case AGG_JSON_AGG: return "json_agg";
    case AGG_JSON_OBJECT_AGG: return "json_object_agg";
    case AGG__COUNT: break;
    }
    return "?";
}

const char *join_type_name(JoinType j)
{
    switch (j) {
    case JOIN_INNER: return "inner";
    case JOIN_LEFT: return "left";
    case JOIN_RIGHT: return "right";
    case JOIN_FULL: return "full";
    case JOIN_SEMI: return "semi";
    case JOIN_ANTI: return "anti";
    }
    return "?";
}

const char *plan_duration_text(Arena *a, int64_t us)
{
    if (us == 0) return "0s";
    StrBuf sb = STRBUF_INIT;
    uint64_t u = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
    if (us < 0) sb_putc(&sb, '-');
    static const struct {
        uint64_t us;
        const char *unit;
    } units[] = {{86400000000ULL, "d"}, {3600000000ULL, "h"}, {60000000ULL, "m"}, {1000000ULL, "s"},
                 {1000ULL, "ms"}, {1ULL, "us"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (u >= units[i].us) {
            sb_printf(&sb, "%llu%s", (unsigned long long)(u / units[i].us), units[i].unit);
            u %= units[i].us;
        }
    const char *s = arena_strdup(a, sb_cstr(&sb));
    sb_free(&sb);
    return s;
}

/* ---- copies ---------------------------------------------------------------- */

Expr *plan_expr_copy(Arena *a, const Expr *e)
{
    if (!e) return NULL;
    Expr *c = ARENA_NEW(a, Expr);
    *c = *e;
    if (e->kind == EX_CONST && !e->cval.isnull && (e->type.id == T_TEXT || e->type.id == T_UNKNOWN) && e->cval.s)
        c->cval.s = arena_strndup(a, e->cval.s, e->cval.len);
    if (e->nargs) {
        c->args = ARENA_ARRAY(a, Expr *, e->nargs);
        for (int i = 0; i < e->nargs; i++) c->args[i] = plan_expr_copy(a, e->args[i]);
    }
    if (e->subplan) c->subplan = plan_node_copy(a, e->subplan);
    return c;
}

static Expr **copy_exprs(Arena *a, Expr *const *es, int n)
{
    if (!n || !es) return NULL;
    Expr **c = ARENA_ARRAY(a, Expr *, n);
    for (int i = 0; i < n; i++) c[i] = plan_expr_copy(a, es[i]);
    return c;
}

PlanNode *plan_node_copy(Arena *a, const PlanNode *n)
{
    if (!n) return NULL;
    PlanNode *c = ARENA_NEW(a, PlanNode);
    *c = *n;
    if (n->ninputs) {
        c->inputs = ARENA_ARRAY(a, PlanNode *, n->ninputs);
        for (int i = 0; i < n->ninputs; i++) c->inputs[i] = plan_node_copy(a, n->inputs[i]);
    }
    if (n->ncols) {
        c->cols = ARENA_ARRAY(a, PlanColumn, n->ncols);
        memcpy(c->cols, n->cols, sizeof(PlanColumn) * (size_t)n->ncols);
    }
    c->pred = plan_expr_copy(a, n->pred);
    c->exprs = copy_exprs(a, n->exprs, n->nexprs);
    c->group = copy_exprs(a, n->group, n->ngroup);
    if (n->naggs) {
        c->aggs = ARENA_ARRAY(a, AggCall, n->naggs);
        for (int i = 0; i < n->naggs; i++) {
            c->aggs[i] = n->aggs[i];
            c->aggs[i].arg = plan_expr_copy(a, n->aggs[i].arg);
            c->aggs[i].filter = plan_expr_copy(a, n->aggs[i].filter);
            c->aggs[i].dflt = plan_expr_copy(a, n->aggs[i].dflt);
        }
    }
    c->left_keys = copy_exprs(a, n->left_keys, n->nkeys);
    c->right_keys = copy_exprs(a, n->right_keys, n->nkeys);
    c->partition = copy_exprs(a, n->partition, n->npartition);
    if (n->norder) {
        c->order = ARENA_ARRAY(a, SortKey, n->norder);
        for (int i = 0; i < n->norder; i++) {
            c->order[i] = n->order[i];
            c->order[i].expr = plan_expr_copy(a, n->order[i].expr);
        }
    }
    return c;
}

/* ---- depth -------------------------------------------------------------------- */

typedef struct DepthWalk {
    int limit;
    int loc;                 /* -2 until a node beyond the limit is found */
} DepthWalk;

static bool node_deeper(DepthWalk *w, const PlanNode *n, int level, int near);

static bool expr_deeper(DepthWalk *w, const Expr *e, int level, int near)
{
    if (!e) return false;
    if (e->loc >= 0) near = e->loc;
    if (level > w->limit) {
        w->loc = near;
        return true;
    }
    for (int i = 0; i < e->nargs; i++)
        if (expr_deeper(w, e->args[i], level + 1, near)) return true;
    return e->subplan && node_deeper(w, e->subplan, level + 1, near);
}

static bool exprs_deeper(DepthWalk *w, Expr *const *es, int n, int level, int near)
{
    for (int i = 0; i < n; i++)
        if (expr_deeper(w, es[i], level, near)) return true;
    return false;
}

static bool node_deeper(DepthWalk *w, const PlanNode *n, int level, int near)
{
    if (!n) return false;
    if (n->loc >= 0) near = n->loc;
    if (level > w->limit) {
        w->loc = near;
        return true;
    }
    int l = level + 1;
    if (expr_deeper(w, n->pred, l, near) || exprs_deeper(w, n->exprs, n->nexprs, l, near) ||
        exprs_deeper(w, n->group, n->ngroup, l, near) || exprs_deeper(w, n->left_keys, n->nkeys, l, near) ||
        exprs_deeper(w, n->right_keys, n->nkeys, l, near) ||
        exprs_deeper(w, n->partition, n->npartition, l, near))
        return true;
    for (int i = 0; i < n->naggs; i++)
        if (expr_deeper(w, n->aggs[i].arg, l, near) || expr_deeper(w, n->aggs[i].filter, l, near) ||
            expr_deeper(w, n->aggs[i].dflt, l, near))
            return true;
    for (int i = 0; i < n->norder; i++)
        if (expr_deeper(w, n->order[i].expr, l, near)) return true;
    for (int i = 0; i < n->ninputs; i++)
        if (node_deeper(w, n->inputs[i], l, near)) return true;
    return false;
}

bool plan_deeper_than(const PlanNode *n, int limit, int *loc)
{
    DepthWalk w = {limit, -2};
    bool deeper = node_deeper(&w, n, 1, -1);
    if (deeper && loc) *loc = w.loc;
    return deeper;
}

/* ---- equality and hashing ---------------------------------------------------- */

static bool type_same(Type a, Type b)
{
    return a.id == b.id && a.precision == b.precision && a.scale == b.scale && a.elem == b.elem;
}

static bool const_equal(Type t, const Value *a, const Value *b)
{
    if (a->isnull || b->isnull) return a->isnull == b->isnull;
    switch ((TypeId)t.id) {
    case T_TEXT:
    case T_ARRAY:
    case T_JSON:
    case T_UNKNOWN: return a->len == b->len && (a->len == 0 || memcmp(a->s, b->s, a->len) == 0);
    case T_NUMERIC: return a->lo == b->lo && a->hi == b->hi && a->scale == b->scale;
    case T_FLOAT4:
    case T_FLOAT8: return memcmp(&a->f, &b->f, sizeof a->f) == 0;
    case T_INTERVAL: return a->i == b->i && a->iv.months == b->iv.months && a->iv.days == b->iv.days;
    default: return a->i == b->i;
    }
}

bool plan_expr_equal(const Expr *a, const Expr *b)
{
    if (a == b) return true;
    if (!a || !b) return false;
    if (a->kind != b->kind || !type_same(a->type, b->type) || a->nargs != b->nargs) return false;
    switch (a->kind) {
    case EX_CONST: return const_equal(a->type, &a->cval, &b->cval);
    case EX_COLUMN: return a->col == b->col;
    case EX_OP:
    case EX_BOOL_TEST:
        if (a->op != b->op) return false;
        break;
    case EX_FUNC:
        if (a->func != b->func || a->negated != b->negated) return false;   /* FN_ARRAY_CMP: ANY / ALL */
        break;
    case EX_IS_NULL:
    case EX_IN_LIST:
        if (a->negated != b->negated) return false;
        break;
    case EX_CASE:
        if (a->has_else != b->has_else) return false;
        break;
    case EX_SUBQUERY:
        if (a->subplan != b->subplan) return false;
        break;
    default: break;
    }
    for (int i = 0; i < a->nargs; i++)
        if (!plan_expr_equal(a->args[i], b->args[i])) return false;
    return true;
}

static bool exprs_equal(Expr *const *a, Expr *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!plan_expr_equal(a[i], b[i])) return false;
    return true;
}

static bool str_equal(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

bool plan_node_local_equal(const PlanNode *a, const PlanNode *b)
{
    if (a->kind != b->kind || a->ninputs != b->ninputs || a->ncols != b->ncols) return false;
    if (!str_equal(a->name, b->name)) return false;
    for (int i = 0; i < a->ncols; i++)
        if (!str_equal(a->cols[i].name, b->cols[i].name) || !type_same(a->cols[i].type, b->cols[i].type)) return false;
    if (!plan_expr_equal(a->pred, b->pred)) return false;
    if (a->nexprs != b->nexprs || !exprs_equal(a->exprs, b->exprs, a->nexprs)) return false;
    if (a->ngroup != b->ngroup || !exprs_equal(a->group, b->group, a->ngroup)) return false;
    if (a->naggs != b->naggs) return false;
    for (int i = 0; i < a->naggs; i++) {
        const AggCall *x = &a->aggs[i], *y = &b->aggs[i];
        if (x->kind != y->kind || x->distinct != y->distinct || !type_same(x->type, y->type) ||
            !plan_expr_equal(x->arg, y->arg) || !plan_expr_equal(x->filter, y->filter) || x->offset != y->offset ||
            !plan_expr_equal(x->dflt, y->dflt))
            return false;
    }
    if (a->join_type != b->join_type || a->nkeys != b->nkeys || a->null_aware != b->null_aware ||
        !exprs_equal(a->left_keys, b->left_keys, a->nkeys) || !exprs_equal(a->right_keys, b->right_keys, a->nkeys))
        return false;
    if (a->interval_join != b->interval_join || a->left_time_col != b->left_time_col ||
        a->right_time_col != b->right_time_col || a->lower_us != b->lower_us || a->upper_us != b->upper_us)
        return false;
    if (a->window_start_key != b->window_start_key || a->window_end_key != b->window_end_key) return false;
    if (a->wtvf != b->wtvf || a->time_col != b->time_col || a->size_us != b->size_us || a->slide_us != b->slide_us ||
        a->gap_us != b->gap_us)
        return false;
    if (a->npartition != b->npartition || !exprs_equal(a->partition, b->partition, a->npartition)) return false;
    if (a->norder != b->norder) return false;
    for (int i = 0; i < a->norder; i++)
        if (a->order[i].desc != b->order[i].desc || a->order[i].nulls_first != b->order[i].nulls_first ||
            !plan_expr_equal(a->order[i].expr, b->order[i].expr))
            return false;
    return a->limit == b->limit && a->rank_kind == b->rank_kind && a->emit_rank == b->emit_rank &&
           a->frame_rows == b->frame_rows && a->frame_offset == b->frame_offset && a->setop == b->setop &&
           a->all == b->all && a->nrows == b->nrows;
}

static uint64_t hash_words(const uint64_t *w, size_t n, uint64_t seed)
{
    return hash_bytes(w, n * sizeof *w, seed);
}

static uint64_t hash_value(Type t, const Value *v, uint64_t h)
{
    if (v->isnull) {
        uint64_t w = 0x6e756c6cu;
        return hash_words(&w, 1, h);
    }
    switch ((TypeId)t.id) {
    case T_TEXT:
    case T_ARRAY:
    case T_JSON:
    case T_UNKNOWN: return hash_bytes(v->len ? v->s : "", v->len, h ^ 0x74657874u);
    case T_NUMERIC: {
        uint64_t w[3] = {v->lo, (uint64_t)v->hi, (uint64_t)(uint16_t)v->scale};
        return hash_words(w, 3, h);
    }
    case T_FLOAT4:
    case T_FLOAT8: {
        uint64_t w;
        memcpy(&w, &v->f, sizeof w);
        return hash_words(&w, 1, h);
    }
    case T_INTERVAL: {
        uint64_t w[3] = {(uint64_t)v->i, (uint64_t)(uint32_t)v->iv.months, (uint64_t)(uint32_t)v->iv.days};
        return hash_words(w, 3, h);
    }
    default: {
        uint64_t w = (uint64_t)v->i;
        return hash_words(&w, 1, h);
    }
    }
}

uint64_t plan_expr_hash_cols(const Expr *e, const uint64_t *col_fps, int ncols, uint64_t seed)
{
    if (!e) {
        uint64_t w = 0xdeadu;
        return hash_words(&w, 1, seed);
    }
    /* with col_fps a column reference stands for what the column holds, not for where
     * it sits in the input row */
    uint64_t col = (uint64_t)(int64_t)e->col;
    if (col_fps && e->kind == EX_COLUMN) col = e->col >= 0 && e->col < ncols ? col_fps[e->col] : 0x6e6f6e65u;
    uint64_t w[9] = {
        (uint64_t)e->kind, e->type.id, (uint64_t)(uint16_t)e->type.precision, (uint64_t)(uint16_t)e->type.scale,
        col, (uint64_t)(int64_t)e->op, (uint64_t)(int64_t)e->func,
        (uint64_t)(e->negated | (e->has_else << 1)), (uint64_t)e->nargs,
    };
    uint64_t h = hash_words(w, 9, seed);
    if (e->type.elem) h = hash_words(&(uint64_t){0x656c656du ^ e->type.elem}, 1, h);   /* arrays only */
    if (e->kind == EX_CONST) h = hash_value(e->type, &e->cval, h);
    for (int i = 0; i < e->nargs; i++) h = plan_expr_hash_cols(e->args[i], col_fps, ncols, h);
    if (e->subplan) h = plan_node_hash(e->subplan, h);
    return h;
}

uint64_t plan_expr_hash(const Expr *e, uint64_t seed) { return plan_expr_hash_cols(e, NULL, 0, seed); }

static uint64_t hash_exprs(Expr *const *es, int n, uint64_t h)
{
    uint64_t w = (uint64_t)n;
    h = hash_words(&w, 1, h);
    for (int i = 0; i < n; i++) h = plan_expr_hash(es[i], h);
    return h;
}

uint64_t plan_node_hash(const PlanNode *n, uint64_t seed)
{
    if (!n) return hash_words(&(uint64_t){2}, 1, seed);
    uint64_t w[12] = {
        (uint64_t)n->kind, (uint64_t)n->ninputs, (uint64_t)n->ncols, (uint64_t)n->join_type,
        (uint64_t)n->wtvf, (uint64_t)(int64_t)n->time_col, (uint64_t)n->size_us, (uint64_t)n->slide_us,
        (uint64_t)n->gap_us, (uint64_t)n->limit, (uint64_t)(n->rank_kind | (n->emit_rank << 4) | (n->all << 5)),
        (uint64_t)n->setop,
    };
    uint64_t h = hash_words(w, 12, seed);
    uint64_t x[7] = {
        (uint64_t)(n->interval_join | (n->null_aware << 1) | (n->frame_rows << 2)),
        (uint64_t)(int64_t)n->left_time_col, (uint64_t)(int64_t)n->right_time_col, (uint64_t)n->lower_us,
        (uint64_t)n->upper_us, (uint64_t)(int64_t)n->window_start_key, (uint64_t)(int64_t)n->window_end_key,
    };
    h = hash_words(x, 7, h);
    if (n->frame_offset != -1) h = hash_words(&(uint64_t){(uint64_t)n->frame_offset}, 1, h);
    h = hash_str(n->name, h);
    for (int i = 0; i < n->ncols; i++) {
        h = hash_str(n->cols[i].name, h);
        uint64_t t[3] = {n->cols[i].type.id, (uint64_t)(uint16_t)n->cols[i].type.precision,
                         (uint64_t)(uint16_t)n->cols[i].type.scale};
        h = hash_words(t, 3, h);
        if (n->cols[i].type.elem) h = hash_words(&(uint64_t){0x656c656du ^ n->cols[i].type.elem}, 1, h);
    }
    h = plan_expr_hash(n->pred, h);
    h = hash_exprs(n->exprs, n->nexprs, h);
    h = hash_exprs(n->group, n->ngroup, h);
    for (int i = 0; i < n->naggs; i++) {
        const AggCall *a = &n->aggs[i];
        uint64_t t[5] = {(uint64_t)a->kind, a->distinct, a->type.id, (uint64_t)(uint16_t)a->type.precision,
                         (uint64_t)(uint16_t)a->type.scale};
        h = hash_words(t, 5, h);
        if (a->type.elem) h = hash_words(&(uint64_t){0x656c656du ^ a->type.elem}, 1, h);
        h = plan_expr_hash(a->arg, h);
        h = plan_expr_hash(a->filter, h);
        /* mixed in only when set, so that the hashes of other calls stay what they were */
        if (a->offset || a->dflt) {
            h = hash_words(&(uint64_t){(uint64_t)a->offset}, 1, h);
            h = plan_expr_hash(a->dflt, h);
        }
    }
    h = hash_exprs(n->left_keys, n->nkeys, h);
    h = hash_exprs(n->right_keys, n->nkeys, h);
    h = hash_exprs(n->partition, n->npartition, h);
    for (int i = 0; i < n->norder; i++) {
        uint64_t t[2] = {n->order[i].desc, n->order[i].nulls_first};
        h = hash_words(t, 2, h);
        h = plan_expr_hash(n->order[i].expr, h);
    }
    for (int i = 0; i < n->ninputs; i++) h = plan_node_hash(n->inputs[i], h);
    return h;
}

/* ---- SQL printing ------------------------------------------------------------ */

/* Keywords PostgreSQL's quote_identifier quotes (reserved, type/function-name and
 * column-name keywords), sorted. */
static const char *const keywords[] = {
    "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization",
    "between", "bigint", "binary", "bit", "boolean", "both", "case", "cast", "char", "character",
    "check", "coalesce", "collate", "collation", "column", "concurrently", "constraint", "create",
    "cross", "current_catalog", "current_date", "current_role", "current_schema", "current_time",
    "current_timestamp", "current_user", "dec", "decimal", "default", "deferrable", "desc",
    "distinct", "do", "else", "end", "except", "exists", "extract", "false", "fetch", "float",
    "for", "foreign", "freeze", "from", "full", "grant", "greatest", "group", "grouping", "having",
    "ilike", "in", "initially", "inner", "inout", "int", "integer", "intersect", "interval", "into",
    "is", "isnull", "join", "lateral", "leading", "least", "left", "like", "limit", "localtime",
    "localtimestamp", "national", "natural", "nchar", "none", "normalize", "not", "notnull", "null",
    "nullif", "numeric", "offset", "on", "only", "or", "order", "out", "outer", "overlaps",
    "overlay", "placing", "position", "precision", "primary", "real", "references", "returning",
    "right", "row", "select", "session_user", "setof", "similar", "smallint", "some", "substring",
    "symmetric", "table", "tablesample", "then", "time", "timestamp", "to", "trailing", "treat",
    "trim", "true", "union", "unique", "user", "using", "values", "varchar", "variadic", "verbose",
    "when", "where", "window", "with",
};

static bool is_keyword(const char *s)
{
    int lo = 0, hi = (int)(sizeof keywords / sizeof keywords[0]) - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(s, keywords[mid]);
        if (c == 0) return true;
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return false;
}

static void put_ident(StrBuf *out, const char *s)
{
    bool safe = s && *s && ((*s >= 'a' && *s <= 'z') || *s == '_');
    for (const char *p = s; safe && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) safe = false;
    if (safe && !is_keyword(s)) {
        sb_puts(out, s);
        return;
    }
    sb_putc(out, '"');
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '"') sb_putc(out, '"');
        sb_putc(out, *p);
    }
    sb_putc(out, '"');
}

static void put_quoted(StrBuf *out, const char *s, size_t n)
{
    sb_putc(out, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'') sb_putc(out, '\'');
        sb_putc(out, s[i]);
    }
    sb_putc(out, '\'');
}

static void put_type(StrBuf *out, Type t)
{
    char buf[96];
    if (t.id == T_UNKNOWN) sb_puts(out, "unknown");
    else sb_puts(out, type_name(t, buf, sizeof buf));
}

/* Constants as ruleutils.c's get_const_expr prints them. */
static void put_const(StrBuf *out, const Expr *e)
{
    Type t = e->type;
    if (e->cval.isnull) {
        sb_puts(out, "NULL");
        if (t.id != T_UNKNOWN) {
            sb_puts(out, "::");
            put_type(out, t);
        }
        return;
    }
    if (t.id == T_UNKNOWN) {
        put_quoted(out, e->cval.s, e->cval.len);
        return;
    }
    if (t.id == T_BOOL) {
        sb_puts(out, e->cval.i ? "true" : "false");
        return;
    }
    if (t.id == T_TEXT && t.precision < 0) {
        put_quoted(out, e->cval.s, e->cval.len);
        sb_puts(out, "::text");
        return;
    }
    StrBuf txt = STRBUF_INIT;
    value_format_text(t, &e->cval, &txt);
    const char *s = txt.len ? sb_cstr(&txt) : "";
    bool label = true;
    if (t.id == T_INT4 && s[0] != '-') {
        sb_puts(out, s);
        label = false;
    } else if (t.id == T_NUMERIC && s[0] >= '0' && s[0] <= '9' && strpbrk(s, ".eE")) {
        sb_puts(out, s);
        label = t.precision >= 0 || t.scale >= 0;
    } else {
        put_quoted(out, s, txt.len);
    }
    if (label) {
        sb_puts(out, "::");
        put_type(out, t);
    }
    sb_free(&txt);
}

static void put_expr(StrBuf *out, const Expr *e, const PlanColumn *cols, int ncols);

static void put_args(StrBuf *out, Expr *const *args, int from, int n, const PlanColumn *cols, int ncols)
{
    for (int i = from; i < n; i++) {
        if (i > from) sb_puts(out, ", ");
        put_expr(out, args[i], cols, ncols);
    }
}

/* date_trunc's unit and extract's field are text constants printed bare. */
static void put_unit(StrBuf *out, const Expr *e, bool quoted, const PlanColumn *cols, int ncols)
{
    if (e->kind == EX_CONST && !e->cval.isnull && (e->type.id == T_TEXT || e->type.id == T_UNKNOWN)) {
        if (quoted) put_quoted(out, e->cval.s, e->cval.len);
        else sb_append(out, e->cval.s, e->cval.len);
    } else {
        put_expr(out, e, cols, ncols);
    }
}

static void put_expr(StrBuf *out, const Expr *e, const PlanColumn *cols, int ncols)
{
    if (!e) {
        sb_puts(out, "NULL");
        return;
    }
    switch (e->kind) {
    case EX_CONST: put_const(out, e); return;
    case EX_COLUMN:
        if (cols && e->col >= 0 && e->col < ncols) put_ident(out, cols[e->col].name);
        else sb_printf(out, "$%d", e->col + 1);
        return;
    case EX_CAST:
        put_expr(out, e->nargs ? e->args[0] : NULL, cols, ncols);
        sb_puts(out, "::");
        put_type(out, e->type);
        return;
    case EX_OP:
        sb_putc(out, '(');
        if (e->op == OP_NEG || e->nargs == 1) {
            sb_puts(out, "- ");
            put_expr(out, e->nargs ? e->args[0] : NULL, cols, ncols);
        } else {
            put_expr(out, e->nargs > 0 ? e->args[0] : NULL, cols, ncols);
            sb_printf(out, " %s ", op_kind_symbol((OpKind)e->op));
            put_expr(out, e->nargs > 1 ? e->args[1] : NULL, cols, ncols);
        }
        sb_putc(out, ')');
        return;
    case EX_AND:
    case EX_OR:
        sb_putc(out, '(');
        for (int i = 0; i < e->nargs; i++) {
            if (i) sb_puts(out, e->kind == EX_AND ? " AND " : " OR ");
            put_expr(out, e->args[i], cols, ncols);
        }
        sb_putc(out, ')');
        return;
    case EX_NOT:
        sb_puts(out, "(NOT ");
        put_expr(out, e->nargs ? e->args[0] : NULL, cols, ncols);
        sb_putc(out, ')');
        return;
    case EX_IS_NULL:
        sb_putc(out, '(');
        put_expr(out, e->nargs ? e->args[0] : NULL, cols, ncols);
        sb_puts(out, e->negated ? " IS NOT NULL)" : " IS NULL)");
        return;
    case EX_BOOL_TEST: {
        static const char *const tests[] = {" IS TRUE", " IS NOT TRUE", " IS FALSE", " IS NOT FALSE",
                                            " IS UNKNOWN", " IS NOT UNKNOWN"};
        sb_putc(out, '(');
        put_expr(out, e->nargs ? e->args[0] : NULL, cols, ncols);
        sb_puts(out, (unsigned)e->op < 6 ? tests[e->op] : " IS ?");
        sb_putc(out, ')');
        return;
    }
    case EX_IN_LIST:
        sb_putc(out, '(');
        put_expr(out, e->nargs ? e->args[0] : NULL, cols, ncols);
        sb_puts(out, e->negated ? " NOT IN (" : " IN (");
        put_args(out, e->args, 1, e->nargs, cols, ncols);
        sb_puts(out, "))");
        return;
    case EX_CASE: {
        sb_puts(out, "CASE");
        int pairs = (e->nargs - (e->has_else ? 1 : 0)) / 2;
        for (int i = 0; i < pairs; i++) {
            sb_puts(out, " WHEN ");
            put_expr(out, e->args[2 * i], cols, ncols);
            sb_puts(out, " THEN ");
            put_expr(out, e->args[2 * i + 1], cols, ncols);
        }
        if (e->has_else) {
            sb_puts(out, " ELSE ");
            put_expr(out, e->args[e->nargs - 1], cols, ncols);
        }
        sb_puts(out, " END");
        return;
    }
    case EX_COALESCE:
    case EX_NULLIF:
    case EX_GREATEST:
    case EX_LEAST:
        sb_puts(out, e->kind == EX_COALESCE ? "COALESCE(" : e->kind == EX_NULLIF ? "NULLIF("
                     : e->kind == EX_GREATEST ? "GREATEST(" : "LEAST(");
        put_args(out, e->args, 0, e->nargs, cols, ncols);
        sb_putc(out, ')');
        return;
    case EX_FUNC:
        if (e->func == FN_ARRAY_CMP && e->nargs == 3 && e->args[2]->kind == EX_CONST) {
            static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
            int64_t op = e->args[2]->cval.i - OP_EQ;
            sb_putc(out, '(');
            put_expr(out, e->args[0], cols, ncols);
            sb_printf(out, " %s %s (", op >= 0 && op < 6 ? ops[op] : "?", e->negated ? "ALL" : "ANY");
            put_expr(out, e->args[1], cols, ncols);
            sb_puts(out, "))");
            return;
        }
        if (e->func == FN_EXTRACT && e->nargs == 2) {
            if (e->type.id == T_NUMERIC) {
                sb_puts(out, "EXTRACT(");
                put_unit(out, e->args[0], false, cols, ncols);
                sb_puts(out, " FROM ");
                put_expr(out, e->args[1], cols, ncols);
            } else {
                /* date_part: the double precision variant */
                sb_puts(out, "date_part(");
                put_unit(out, e->args[0], true, cols, ncols);
                sb_puts(out, ", ");
                put_expr(out, e->args[1], cols, ncols);
            }
            sb_putc(out, ')');
            return;
        }
        sb_puts(out, func_kind_name((FuncKind)e->func));
        sb_putc(out, '(');
        if (e->func == FN_DATE_TRUNC && e->nargs >= 1) {
            put_unit(out, e->args[0], true, cols, ncols);
            if (e->nargs > 1) sb_puts(out, ", ");
            put_args(out, e->args, 1, e->nargs, cols, ncols);
        } else {
            put_args(out, e->args, 0, e->nargs, cols, ncols);
        }
        sb_putc(out, ')');
        return;
    case EX_SUBQUERY: sb_puts(out, "(SELECT ...)"); return;
    }
    sb_puts(out, "?");
}

void plan_expr_sql(const Expr *e, const PlanColumn *incols, int nincols, StrBuf *out)
{
    put_expr(out, e, incols, nincols);
}

void plan_agg_sql(const AggCall *a, const PlanColumn *incols, int nincols, StrBuf *out)
{
    sb_puts(out, agg_kind_name(a->kind));
    sb_putc(out, '(');
    if (a->kind == AGG_MODE || a->kind == AGG_PERCENTILE_CONT || a->kind == AGG_PERCENTILE_DISC) {
        if (a->kind != AGG_MODE) put_expr(out, a->dflt, incols, nincols);
        sb_puts(out, ") WITHIN GROUP (ORDER BY ");
        put_expr(out, a->arg, incols, nincols);
        if (a->offset) sb_puts(out, " DESC");
    } else if ((a->kind == AGG_ARRAY_AGG || a->kind == AGG_JSON_AGG || a->kind == AGG_JSON_OBJECT_AGG) && a->arg &&
               a->arg->kind == EX_FUNC && a->arg->func == FN_AGG_ITEM && a->arg->nargs >= 2 &&
               a->arg->args[0]->kind == EX_CONST) {
        /* the values and ORDER BY keys of the packed item (engine/agg_vitem.h) */
        const Expr *it = a->arg;
        int nv = (int)it->args[0]->cval.i;
        if (a->distinct) sb_puts(out, "DISTINCT ");
        for (int i = 0; i < nv && 1 + i < it->nargs; i++) {
            if (i) sb_puts(out, ", ");
            put_expr(out, it->args[1 + i], incols, nincols);
        }
        for (int k = 1 + nv; k + 1 < it->nargs; k += 2) {
            sb_puts(out, k == 1 + nv ? " ORDER BY " : ", ");
            put_expr(out, it->args[k + 1], incols, nincols);
            int64_t f = it->args[k]->kind == EX_CONST ? it->args[k]->cval.i : 0;
            if (f & 1) sb_puts(out, " DESC");
            if (((f & 2) != 0) != ((f & 1) != 0)) sb_puts(out, (f & 2) ? " NULLS FIRST" : " NULLS LAST");
        }
    } else if (a->kind == AGG_COUNT_STAR) {
        sb_putc(out, '*');
    } else {
        if (a->distinct) sb_puts(out, "DISTINCT ");
        const Expr *item = a->kind == AGG_STRING_AGG && a->arg && a->arg->kind == EX_FUNC &&
                                   a->arg->func == FN_STRING_AGG_ITEM && a->arg->nargs == 3
                               ? a->arg : NULL;
        put_expr(out, item ? item->args[0] : a->arg, incols, nincols);
        if (item) {
            sb_puts(out, ", ");
            put_expr(out, item->args[1], incols, nincols);
            sb_puts(out, " ORDER BY ");
            put_expr(out, item->args[2], incols, nincols);
            if (a->offset & 1) sb_puts(out, " DESC");
            if (a->offset & 2) sb_puts(out, a->offset & 1 ? " NULLS LAST" : " NULLS FIRST");
        } else if (a->kind == AGG_STRING_AGG) {
            sb_puts(out, ", ");
            put_expr(out, a->dflt, incols, nincols);
            sb_puts(out, " ORDER BY ");
            put_expr(out, a->arg, incols, nincols);
            if (a->offset) sb_puts(out, " DESC");
        }
        if (a->kind == AGG_LAG && (a->offset != 1 || a->dflt)) sb_printf(out, ", %lld", (long long)a->offset);
        if (a->kind == AGG_LAG && a->dflt) {
            sb_puts(out, ", ");
            put_expr(out, a->dflt, incols, nincols);
        }
    }
    sb_putc(out, ')');
    if (a->filter) {
        sb_puts(out, " FILTER (WHERE ");
        put_expr(out, a->filter, incols, nincols);
        sb_putc(out, ')');
    }
}
