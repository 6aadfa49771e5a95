/* The expression evaluator: PostgreSQL 15 semantics for every ExprKind and OpKind
 * (three-valued logic, NULL propagation, overflow and division-by-zero errors in
 * PostgreSQL's words, exact numeric via base/decimal, date/time via base/timeutil).
 *
 * Hot-path design: boolean-valued nodes are evaluated by eval_bool, which returns a
 * truth value directly instead of building Values, and operands that are columns or
 * constants are read in place (eval_operand) instead of being copied. Nothing here
 * allocates except when a new text is built (in ctx->arena). Scalar functions live in
 * eval_func*.c, LIKE in like.c, the ~ operators in eval_func_regex.c. */
#include "engine/eval_internal.h"

#include "base/decimal.h"
#include "base/timeutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Truth values of eval_bool. */
enum { TV_ERR = -1, TV_FALSE = 0, TV_TRUE = 1, TV_NULL = 2 };

static int eval_bool(const Expr *e, const Value *row, EvalCtx *ctx);

bool eval_fail(EvalCtx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- result helpers ---- */

bool eval_numeric_result(const Expr *e, i128 n, int scale, EvalCtx *ctx, Value *out)
{
    if (e->type.id != T_NUMERIC) {   /* the binder typed the result otherwise: cast */
        Value v = value_numeric(n, scale);
        return value_cast(type_make(T_NUMERIC), e->type, &v, ctx->arena, out, ctx->err, sizeof ctx->err);
    }
    if (e->type.scale >= 0) {
        if (e->type.scale != scale) {
            if (!dec_rescale(n, scale, e->type.scale, &n))
                return eval_fail(ctx, "numeric field overflow");
            scale = e->type.scale;
        }
        if (e->type.precision > 0 && !dec_fits_precision(n, scale, e->type.precision))
            return eval_fail(ctx, "numeric field overflow");
    }
    *out = value_numeric(n, scale);
    return true;
}

bool eval_coerce(const Expr *e, Type from, Value *v, EvalCtx *ctx)
{
    if (v->isnull || from.id == e->type.id) {
        if (!v->isnull && from.id == T_NUMERIC && e->type.scale >= 0 && v->scale != e->type.scale)
            return eval_numeric_result(e, value_num(v), v->scale, ctx, v);
        return true;
    }
    Value in = *v;
    return value_cast(from, e->type, &in, ctx->arena, v, ctx->err, sizeof ctx->err);
}

const Value *eval_as_text(Type t, const Value *v, bool bool_short, EvalCtx *ctx, Value *tmp)
{
    if (t.id == T_TEXT || t.id == T_UNKNOWN) return v;
    if (t.id == T_BOOL) {
        const char *s = v->i ? (bool_short ? "t" : "true") : (bool_short ? "f" : "false");
        *tmp = value_text(s, (uint32_t)strlen(s));
        return tmp;
    }
    StrBuf sb = STRBUF_INIT;
    value_format_text(t, v, &sb);
    char *s = arena_alloc_raw(ctx->arena, sb.len ? sb.len : 1);
    if (sb.len) memcpy(s, sb.data, sb.len);
    *tmp = value_text(s, (uint32_t)sb.len);
    sb_free(&sb);
    return tmp;
}

/* ---- comparison ---- */

static inline int cmp3(int64_t a, int64_t b) { return (a > b) - (a < b); }

/* SQL comparison of two non-NULL values of type t (value_compare's order, inlined for
 * the common types). */
static inline int compare(Type t, const Value *a, const Value *b)
{
    switch (t.id) {
    case T_BOOL: case T_INT2: case T_INT4: case T_INT8:
    case T_DATE: case T_TIMESTAMP: case T_TIMESTAMPTZ:
        return cmp3(a->i, b->i);
    case T_FLOAT4: case T_FLOAT8:
        if (!isnan(a->f) && !isnan(b->f)) return (a->f > b->f) - (a->f < b->f);
        return isnan(a->f) ? (isnan(b->f) ? 0 : 1) : -1;
    case T_NUMERIC:
        if (a->scale == b->scale) {
            i128 x = value_num(a), y = value_num(b);
            return (x > y) - (x < y);
        }
        return dec_cmp(value_num(a), a->scale, value_num(b), b->scale);
    case T_TEXT: case T_UNKNOWN: {
        uint32_t n = a->len < b->len ? a->len : b->len;
        int c = n ? memcmp(a->s, b->s, n) : 0;
        if (c) return c;
        return cmp3(a->len, b->len);
    }
    case T_INTERVAL:
        return tm_interval_cmp(a->iv.months, a->iv.days, a->i, b->iv.months, b->iv.days, b->i);
    default:
        return value_compare(t, a, b);
    }
}

/* Rank within a family of mutually comparable types: numbers (int < numeric < float)
 * and datetimes (date < timestamp < timestamptz); 0 for the rest. */
static int type_rank(TypeId t)
{
    switch (t) {
    case T_INT2: return 1;
    case T_INT4: return 2;
    case T_INT8: return 3;
    case T_NUMERIC: return 4;
    case T_FLOAT4: return 5;
    case T_FLOAT8: return 6;
    case T_DATE: return 11;
    case T_TIMESTAMP: return 12;
    case T_TIMESTAMPTZ: return 13;
    default: return 0;
    }
}

static bool cast_into(Type from, Type to, const Value **v, Value *tmp, EvalCtx *ctx)
{
    if (!value_cast(from, to, *v, ctx->arena, tmp, ctx->err, sizeof ctx->err)) return false;
    *v = tmp;
    return true;
}

/* Brings two non-NULL operands to one type to compare them in (*t). The binder's
 * contract is to cast both sides to a common type already, so this is a safety net
 * off the hot path: integers of any width compare as they are; an untyped literal
 * takes the other side's type; otherwise the lower-ranked side of a family is cast
 * up (int -> numeric -> float, date -> timestamp -> timestamptz). */
static bool unify(Type ta, const Value **a, Type tb, const Value **b, Type *t, EvalCtx *ctx,
                  Value *tmpa, Value *tmpb)
{
    *t = ta;
    if (ta.id == tb.id) return true;
    bool atext = ta.id == T_TEXT || ta.id == T_UNKNOWN, btext = tb.id == T_TEXT || tb.id == T_UNKNOWN;
    if (atext && btext) return true;
    if (type_is_integer(ta) && type_is_integer(tb)) return true;
    if (ta.id == T_UNKNOWN) { *t = tb; return cast_into(ta, tb, a, tmpa, ctx); }
    if (tb.id == T_UNKNOWN) return cast_into(tb, ta, b, tmpb, ctx);
    int ra = type_rank((TypeId)ta.id), rb = type_rank((TypeId)tb.id);
    if (ra && rb && (ra < 10) == (rb < 10) && rb > ra) {
        *t = tb;
        return cast_into(ta, tb, a, tmpa, ctx);
    }
    return cast_into(tb, ta, b, tmpb, ctx);
}

static int eval_compare(const Expr *e, const Value *row, EvalCtx *ctx)
{
    Value ta, tb, ca, cb;
    const Expr *ea = e->args[0], *eb = e->args[1];
    const Value *a = eval_operand(ea, row, ctx, &ta);
    if (!a) return TV_ERR;
    const Value *b = eval_operand(eb, row, ctx, &tb);
    if (!b) return TV_ERR;
    Type t = ea->type;
    if (e->op == OP_IS_DISTINCT || e->op == OP_IS_NOT_DISTINCT) {
        bool distinct;
        if (a->isnull || b->isnull) {
            distinct = a->isnull != b->isnull;
        } else {
            if (ea->type.id != eb->type.id && !unify(ea->type, &a, eb->type, &b, &t, ctx, &ca, &cb))
                return TV_ERR;
            distinct = compare(t, a, b) != 0;
        }
        return (distinct == (e->op == OP_IS_DISTINCT)) ? TV_TRUE : TV_FALSE;
    }
    if (a->isnull || b->isnull) return TV_NULL;
    if (ea->type.id != eb->type.id && !unify(ea->type, &a, eb->type, &b, &t, ctx, &ca, &cb))
        return TV_ERR;
    int c = compare(t, a, b);
    bool r;
    switch (e->op) {
    case OP_EQ: r = c == 0; break;
    case OP_NE: r = c != 0; break;
    case OP_LT: r = c < 0; break;
    case OP_LE: r = c <= 0; break;
    case OP_GT: r = c > 0; break;
    default:    r = c >= 0; break;
    }
    return r ? TV_TRUE : TV_FALSE;
}

static int eval_like(const Expr *e, const Value *row, EvalCtx *ctx)
{
    Value ta, tb;
    const Value *a = eval_operand(e->args[0], row, ctx, &ta);
    if (!a) return TV_ERR;
    const Value *b = eval_operand(e->args[1], row, ctx, &tb);
    if (!b) return TV_ERR;
    if (a->isnull || b->isnull) return TV_NULL;
    bool icase = e->op == OP_ILIKE || e->op == OP_NOT_ILIKE;
    int m = eval_like_match(a->s, a->len, b->s, b->len, icase, ctx);
    if (m < 0) return TV_ERR;
    if (e->op == OP_NOT_LIKE || e->op == OP_NOT_ILIKE) m = !m;
    return m ? TV_TRUE : TV_FALSE;
}

static int eval_in_list(const Expr *e, const Value *row, EvalCtx *ctx)
{
    Value tx, ti;
    const Expr *ex = e->args[0];
    const Value *x = eval_operand(ex, row, ctx, &tx);
    if (!x) return TV_ERR;
    if (x->isnull) return TV_NULL;
    bool sawnull = false, found = false;
    for (int i = 1; i < e->nargs && !found; i++) {
        const Expr *ei = e->args[i];
        Value ca, cb;
        const Value *v = eval_operand(ei, row, ctx, &ti), *xv = x;
        if (!v) return TV_ERR;
        if (v->isnull) { sawnull = true; continue; }
        Type t = ex->type;
        if (ei->type.id != ex->type.id && !unify(ex->type, &xv, ei->type, &v, &t, ctx, &ca, &cb))
            return TV_ERR;
        if (compare(t, xv, v) == 0) found = true;
    }
    int r = found ? TV_TRUE : sawnull ? TV_NULL : TV_FALSE;
    if (e->negated && r != TV_NULL) r = r == TV_TRUE ? TV_FALSE : TV_TRUE;
    return r;
}

/* ---- boolean evaluation ---- */

static inline int tv_of(const Value *v) { return v->isnull ? TV_NULL : (v->i ? TV_TRUE : TV_FALSE); }

static int eval_bool(const Expr *e, const Value *row, EvalCtx *ctx)
{
    switch (e->kind) {
    case EX_COLUMN:
        return tv_of(&row[e->col]);
    case EX_CONST:
        return tv_of(&e->cval);
    case EX_AND:
    case EX_OR: {
        /* one dominant argument decides (AND: FALSE, OR: TRUE); else NULL if any is NULL */
        int dominant = e->kind == EX_AND ? TV_FALSE : TV_TRUE;
        int res = e->kind == EX_AND ? TV_TRUE : TV_FALSE;
        for (int i = 0; i < e->nargs; i++) {
            int r = eval_bool(e->args[i], row, ctx);
            if (r == dominant || r == TV_ERR) return r;
            if (r == TV_NULL) res = TV_NULL;
        }
        return res;
    }
    case EX_NOT: {
        int r = eval_bool(e->args[0], row, ctx);
        return r == TV_TRUE ? TV_FALSE : r == TV_FALSE ? TV_TRUE : r;
    }
    case EX_IS_NULL: {
        Value t;
        const Value *v = eval_operand(e->args[0], row, ctx, &t);
        if (!v) return TV_ERR;
        return ((v->isnull != 0) != e->negated) ? TV_TRUE : TV_FALSE;
    }
    case EX_BOOL_TEST: {
        int r = eval_bool(e->args[0], row, ctx);
        if (r == TV_ERR) return r;
        bool b;
        switch (e->op) {
        case BT_IS_TRUE:        b = r == TV_TRUE; break;
        case BT_IS_NOT_TRUE:    b = r != TV_TRUE; break;
        case BT_IS_FALSE:       b = r == TV_FALSE; break;
        case BT_IS_NOT_FALSE:   b = r != TV_FALSE; break;
        case BT_IS_UNKNOWN:     b = r == TV_NULL; break;
        default:                b = r != TV_NULL; break;
        }
        return b ? TV_TRUE : TV_FALSE;
    }
    case EX_IN_LIST:
        return eval_in_list(e, row, ctx);
    case EX_OP:
        switch (e->op) {
        case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        case OP_IS_DISTINCT: case OP_IS_NOT_DISTINCT:
            return eval_compare(e, row, ctx);
        case OP_LIKE: case OP_NOT_LIKE: case OP_ILIKE: case OP_NOT_ILIKE:
            return eval_like(e, row, ctx);
        case OP_REGEX: case OP_NOT_REGEX: case OP_IREGEX: case OP_NOT_IREGEX: {
            int r = eval_regex_op(e, row, ctx);
            return r < 0 ? TV_ERR : r == 2 ? TV_NULL : r ? TV_TRUE : TV_FALSE;
        }
        default:
            break;
        }
        break;
    default:
        break;
    }
    Value v;
    if (!eval_expr(e, row, ctx, &v)) return TV_ERR;
    return tv_of(&v);
}

/* ---- arithmetic ---- */

static bool int_range_error(TypeId t, EvalCtx *ctx)
{
    return eval_fail(ctx, t == T_INT2 ? "smallint out of range"
                          : t == T_INT4 ? "integer out of range" : "bigint out of range");
}

static bool int_arith(int op, TypeId t, int64_t x, int64_t y, EvalCtx *ctx, Value *out)
{
    int64_t r;
    switch (op) {
    case OP_ADD: if (__builtin_add_overflow(x, y, &r)) return int_range_error(t, ctx); break;
    case OP_SUB: if (__builtin_sub_overflow(x, y, &r)) return int_range_error(t, ctx); break;
    case OP_MUL: if (__builtin_mul_overflow(x, y, &r)) return int_range_error(t, ctx); break;
    case OP_DIV:
        if (y == 0) return eval_fail(ctx, "division by zero");
        if (y == -1) {
            if (__builtin_sub_overflow((int64_t)0, x, &r)) return int_range_error(t, ctx);
        } else {
            r = x / y;
        }
        break;
    case OP_MOD:
        if (y == 0) return eval_fail(ctx, "division by zero");
        r = y == -1 ? 0 : x % y;
        break;
    default:
        return eval_fail(ctx, "unsupported integer operator");
    }
    if (t == T_INT2 ? (r < INT16_MIN || r > INT16_MAX)
                    : t == T_INT4 ? (r < INT32_MIN || r > INT32_MAX) : false)
        return int_range_error(t, ctx);
    *out = value_int(r);
    return true;
}

static bool float_arith(int op, TypeId t, double x, double y, EvalCtx *ctx, Value *out)
{
    double r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV:
        if (y == 0.0 && !isnan(x)) return eval_fail(ctx, "division by zero");
        r = x / y;
        break;
    default:
    {
        char b[64];
        type_name(type_make(t), b, sizeof b);
        return eval_fail(ctx, "operator does not exist: %s %% %s", b, b);
    }
    }
    if (t == T_FLOAT4) r = (float)r;
    if (isinf(r)) {
        bool from_inf = op == OP_DIV ? isinf(x) : (isinf(x) || isinf(y));
        if (!from_inf) return eval_fail(ctx, "value out of range: overflow");
    }
    if (r == 0.0 && x != 0.0) {
        if ((op == OP_MUL && y != 0.0) || (op == OP_DIV && !isinf(y)))
            return eval_fail(ctx, "value out of range: underflow");
    }
    *out = value_float(r);
    return true;
}

static bool numeric_arith(const Expr *e, int op, const Value *a, const Value *b, EvalCtx *ctx, Value *out)
{
    i128 x = value_num(a), y = value_num(b), r;
    int s;
    bool ok;
    switch (op) {
    case OP_ADD: ok = dec_add(x, a->scale, y, b->scale, &r, &s); break;
    case OP_SUB: ok = dec_sub(x, a->scale, y, b->scale, &r, &s); break;
    case OP_MUL: ok = dec_mul(x, a->scale, y, b->scale, &r, &s); break;
    case OP_DIV:
        if (y == 0) return eval_fail(ctx, "division by zero");
        ok = dec_div(x, a->scale, y, b->scale, &r, &s);
        break;
    case OP_MOD:
        if (y == 0) return eval_fail(ctx, "division by zero");
        ok = dec_mod(x, a->scale, y, b->scale, &r, &s);
        break;
    default:
        return eval_fail(ctx, "unsupported numeric operator");
    }
    if (!ok) return eval_fail(ctx, "value overflows numeric format");
    return eval_numeric_result(e, r, s, ctx, out);
}

/* ---- date/time arithmetic ---- */

static const char *op_sym(int op)
{
    static const char *const names[] = {"+", "-", "*", "/", "%", "-"};
    return op >= 0 && op <= OP_NEG ? names[op] : "?";
}

static bool interval_range_error(EvalCtx *ctx) { return eval_fail(ctx, "interval out of range"); }

static bool interval_neg(const Value *v, EvalCtx *ctx, Value *out)
{
    if (v->iv.months == INT32_MIN || v->iv.days == INT32_MIN || v->i == INT64_MIN)
        return interval_range_error(ctx);
    *out = value_interval(-v->iv.months, -v->iv.days, -v->i);
    return true;
}

static bool interval_addsub(bool sub, const Value *a, const Value *b, EvalCtx *ctx, Value *out)
{
    int32_t m = 0, d = 0;
    int64_t u = 0;
    bool of = sub ? (__builtin_sub_overflow(a->iv.months, b->iv.months, &m) ||
                     __builtin_sub_overflow(a->iv.days, b->iv.days, &d) ||
                     __builtin_sub_overflow(a->i, b->i, &u))
                  : (__builtin_add_overflow(a->iv.months, b->iv.months, &m) ||
                     __builtin_add_overflow(a->iv.days, b->iv.days, &d) ||
                     __builtin_add_overflow(a->i, b->i, &u));
    if (of) return interval_range_error(ctx);
    *out = value_interval(m, d, u);
    return true;
}

#define TSROUND(j) (rint((j) * 1000000.0) / 1000000.0)

static bool fits_int32(double d) { return !isnan(d) && d >= (double)INT32_MIN && d <= (double)INT32_MAX; }
static bool fits_int64(double d) { return !isnan(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0; }

/* interval * factor (div false: PostgreSQL's interval_mul) or interval / factor (div
 * true: interval_div). Fractional months and days cascade into days and time through
 * 30-day months and 86400-second days. Each field is multiplied or divided as
 * PostgreSQL does: dividing is not multiplying by 1 / factor (rounding differs). */
static bool interval_scale(const Value *span, double factor, bool div, EvalCtx *ctx, Value *out)
{
#define SCALE(x) (div ? (x) / factor : (x) * factor)
    if (div && factor == 0.0) return eval_fail(ctx, "division by zero");
    double rd = SCALE(span->iv.months);
    if (!fits_int32(rd)) return interval_range_error(ctx);
    int32_t months = (int32_t)rd;
    rd = SCALE(span->iv.days);
    if (!fits_int32(rd)) return interval_range_error(ctx);
    int32_t days = (int32_t)rd;
    double month_remainder_days = (SCALE(span->iv.months) - months) * 30.0;
    month_remainder_days = TSROUND(month_remainder_days);
    double sec_remainder = (SCALE(span->iv.days) - days + month_remainder_days -
                            (int)month_remainder_days) * 86400.0;
    sec_remainder = TSROUND(sec_remainder);
    int64_t days64 = days;
    if (fabs(sec_remainder) >= 86400.0) {
        days64 += (int)(sec_remainder / 86400.0);
        sec_remainder -= (int)(sec_remainder / 86400.0) * 86400.0;
    }
    days64 += (int32_t)month_remainder_days;
    rd = rint(SCALE((double)span->i) + sec_remainder * 1000000.0);
    if (!fits_int64(rd) || days64 < INT32_MIN || days64 > INT32_MAX) return interval_range_error(ctx);
    *out = value_interval(months, (int32_t)days64, (int64_t)rd);
    return true;
#undef SCALE
}

static double number_as_double(Type t, const Value *v)
{
    if (type_is_integer(t) || t.id == T_BOOL) return (double)v->i;
    if (type_is_float(t)) return v->f;
    if (t.id == T_NUMERIC) return dec_to_double(value_num(v), v->scale);
    return 0.0;
}

/* Valid date range (days since 1970): PostgreSQL's 4714-11-24 BC .. 5874897-12-31. */
#define DATE_MIN_DAYS INT64_C(-2440588)
#define DATE_END_DAYS (INT64_C(2147483494) - INT64_C(2440588))

/* date + n days (n negated first for date - n). */
static bool date_plus(int64_t d, int64_t n, bool sub, EvalCtx *ctx, Value *out)
{
    if (d == TM_INFINITY || d == TM_NEG_INFINITY) { *out = value_int(d); return true; }
    if (n < INT32_MIN || n > INT32_MAX) return eval_fail(ctx, "date out of range");
    int64_t r = sub ? d - n : d + n;   /* both far below 2^62 here: no overflow */
    if (r < DATE_MIN_DAYS || r >= DATE_END_DAYS) return eval_fail(ctx, "date out of range");
    *out = value_int(r);
    return true;
}

static bool ts_plus_interval(int64_t ts, const Value *iv, bool sub, EvalCtx *ctx, Value *out)
{
    Value span = *iv;
    if (sub && !interval_neg(iv, ctx, &span)) return false;
    int64_t r;
    if (!tm_add_interval(ts, span.iv.months, span.iv.days, span.i, &r))
        return eval_fail(ctx, "timestamp out of range");
    *out = value_int(r);
    return true;
}

static bool date_to_ts(int64_t d, EvalCtx *ctx, int64_t *ts)
{
    if (!tm_date_to_timestamp(d, ts)) return eval_fail(ctx, "date out of range for timestamp");
    return true;
}

/* Operators whose operand types differ (or are temporal): timestamp +- interval,
 * date +- integer, date - date, timestamp - timestamp, interval times/divided by a number and
 * interval +- interval. Result is produced in its natural type and then coerced. */
static bool temporal_arith(const Expr *e, const Value *a, const Value *b, EvalCtx *ctx, Value *out)
{
    Type ta = e->args[0]->type, tb = e->args[1]->type;
    TypeId ia = ta.id, ib = tb.id;
    int op = e->op;
    Type natural = e->type;
    bool ok;
    int64_t ts;

    if (ia == T_INTERVAL && ib == T_INTERVAL && (op == OP_ADD || op == OP_SUB)) {
        natural = type_make(T_INTERVAL);
        ok = interval_addsub(op == OP_SUB, a, b, ctx, out);
    } else if (ia == T_INTERVAL && type_is_numeric_family(tb) && (op == OP_MUL || op == OP_DIV)) {
        natural = type_make(T_INTERVAL);
        double f = number_as_double(tb, b);
        ok = interval_scale(a, f, op == OP_DIV, ctx, out);
    } else if (type_is_numeric_family(ta) && ib == T_INTERVAL && op == OP_MUL) {
        natural = type_make(T_INTERVAL);
        ok = interval_scale(b, number_as_double(ta, a), false, ctx, out);
    } else if ((ia == T_TIMESTAMP || ia == T_TIMESTAMPTZ) && ib == T_INTERVAL &&
               (op == OP_ADD || op == OP_SUB)) {
        natural = ta;
        ok = ts_plus_interval(a->i, b, op == OP_SUB, ctx, out);
    } else if (ia == T_INTERVAL && (ib == T_TIMESTAMP || ib == T_TIMESTAMPTZ) && op == OP_ADD) {
        natural = tb;
        ok = ts_plus_interval(b->i, a, false, ctx, out);
    } else if (ia == T_DATE && ib == T_INTERVAL && (op == OP_ADD || op == OP_SUB)) {
        natural = type_make(T_TIMESTAMP);
        ok = date_to_ts(a->i, ctx, &ts) && ts_plus_interval(ts, b, op == OP_SUB, ctx, out);
    } else if (ia == T_INTERVAL && ib == T_DATE && op == OP_ADD) {
        natural = type_make(T_TIMESTAMP);
        ok = date_to_ts(b->i, ctx, &ts) && ts_plus_interval(ts, a, false, ctx, out);
    } else if (ia == T_DATE && type_is_integer(tb) && (op == OP_ADD || op == OP_SUB)) {
        natural = type_make(T_DATE);
        ok = date_plus(a->i, b->i, op == OP_SUB, ctx, out);
    } else if (type_is_integer(ta) && ib == T_DATE && op == OP_ADD) {
        natural = type_make(T_DATE);
        ok = date_plus(b->i, a->i, false, ctx, out);
    } else if (ia == T_DATE && ib == T_DATE && op == OP_SUB) {
        natural = type_make(T_INT4);
        if (a->i == TM_INFINITY || a->i == TM_NEG_INFINITY || b->i == TM_INFINITY || b->i == TM_NEG_INFINITY)
            return eval_fail(ctx, "cannot subtract infinite dates");
        *out = value_int(a->i - b->i);
        ok = true;
    } else if ((ia == T_TIMESTAMP || ia == T_TIMESTAMPTZ || ia == T_DATE) && ib == ia && op == OP_SUB) {
        natural = type_make(T_INTERVAL);
        int64_t x = a->i, y = b->i;
        if (x == TM_INFINITY || x == TM_NEG_INFINITY || y == TM_INFINITY || y == TM_NEG_INFINITY)
            return eval_fail(ctx, "cannot subtract infinite timestamps");
        int32_t m, d;
        int64_t u;
        if (!tm_sub_timestamps(x, y, &m, &d, &u)) return interval_range_error(ctx);
        *out = value_interval(m, d, u);
        ok = true;
    } else {
        char b1[64], b2[64];
        return eval_fail(ctx, "operator does not exist: %s %s %s", type_name(ta, b1, sizeof b1),
                         op_sym(op), type_name(tb, b2, sizeof b2));
    }
    if (!ok) return false;
    return eval_coerce(e, natural, out, ctx);
}

static bool eval_neg(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    Value t;
    const Expr *ea = e->args[0];
    const Value *a = eval_operand(ea, row, ctx, &t);
    if (!a) return false;
    if (a->isnull) { *out = value_null(); return true; }
    switch (ea->type.id) {
    case T_INT2: case T_INT4: case T_INT8:
        return int_arith(OP_SUB, (TypeId)ea->type.id, 0, a->i, ctx, out) && eval_coerce(e, ea->type, out, ctx);
    case T_FLOAT4: case T_FLOAT8:
        *out = value_float(-a->f);
        return eval_coerce(e, ea->type, out, ctx);
    case T_NUMERIC:
        return eval_numeric_result(e, -value_num(a), a->scale, ctx, out);
    case T_INTERVAL:
        return interval_neg(a, ctx, out) && eval_coerce(e, ea->type, out, ctx);
    default: {
        char b[64];
        return eval_fail(ctx, "operator does not exist: - %s", type_name(ea->type, b, sizeof b));
    }
    }
}

static bool eval_concat_op(const Expr *e, const Value *a, const Value *b, EvalCtx *ctx, Value *out)
{
    Value ta, tb;
    a = eval_as_text(e->args[0]->type, a, false, ctx, &ta);
    b = eval_as_text(e->args[1]->type, b, false, ctx, &tb);
    if (b->len == 0) { *out = value_text(a->s, a->len); return true; }
    if (a->len == 0) { *out = value_text(b->s, b->len); return true; }
    size_t n = (size_t)a->len + b->len;
    if (n > UINT32_MAX) return eval_fail(ctx, "requested length too large");
    char *s = arena_alloc_raw(ctx->arena, n);
    memcpy(s, a->s, a->len);
    memcpy(s + a->len, b->s, b->len);
    *out = value_text(s, (uint32_t)n);
    return true;
}

static bool eval_arith(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    if (e->op == OP_NEG || e->nargs == 1) {
        if (e->op == OP_ADD) { /* unary plus */
            Value t;
            const Value *a = eval_operand(e->args[0], row, ctx, &t);
            if (!a) return false;
            *out = *a;
            return eval_coerce(e, e->args[0]->type, out, ctx);
        }
        return eval_neg(e, row, ctx, out);
    }
    Value ta, tb;
    const Expr *ea = e->args[0], *eb = e->args[1];
    const Value *a = eval_operand(ea, row, ctx, &ta);
    if (!a) return false;
    const Value *b = eval_operand(eb, row, ctx, &tb);
    if (!b) return false;
    if (a->isnull || b->isnull) { *out = value_null(); return true; }
    if (e->op == OP_CONCAT) return eval_concat_op(e, a, b, ctx, out);

    TypeId ia = ea->type.id, ib = eb->type.id;
    if (ia == ib) {
        switch (ia) {
        case T_INT2: case T_INT4: case T_INT8:
            if (!int_arith(e->op, ia, a->i, b->i, ctx, out)) return false;
            return e->type.id == ia ? true : eval_coerce(e, ea->type, out, ctx);
        case T_FLOAT4: case T_FLOAT8:
            if (!float_arith(e->op, ia, a->f, b->f, ctx, out)) return false;
            return e->type.id == ia ? true : eval_coerce(e, ea->type, out, ctx);
        case T_NUMERIC:
            return numeric_arith(e, e->op, a, b, ctx, out);
        default:
            break;
        }
    } else if (type_is_integer(ea->type) && type_is_integer(eb->type)) {
        /* int2 + int4 etc. (PostgreSQL has cross-width operators; the result is the
         * wider type). */
        TypeId w = ia > ib ? ia : ib;
        if (!int_arith(e->op, w, a->i, b->i, ctx, out)) return false;
        return eval_coerce(e, type_make(w), out, ctx);
    }
    return temporal_arith(e, a, b, ctx, out);
}

/* ---- conditional expressions ---- */

static bool eval_case(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    int npairs = (e->nargs - (e->has_else ? 1 : 0)) / 2;
    const Expr *res = NULL;
    for (int i = 0; i < npairs; i++) {
        int r = eval_bool(e->args[2 * i], row, ctx);
        if (r == TV_ERR) return false;
        if (r == TV_TRUE) { res = e->args[2 * i + 1]; break; }
    }
    if (!res) {
        if (!e->has_else) { *out = value_null(); return true; }
        res = e->args[e->nargs - 1];
    }
    if (!eval_expr(res, row, ctx, out)) return false;
    return res->type.id == e->type.id || out->isnull ? true : eval_coerce(e, res->type, out, ctx);
}

static bool eval_coalesce(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    for (int i = 0; i < e->nargs; i++) {
        const Expr *a = e->args[i];
        if (!eval_expr(a, row, ctx, out)) return false;
        if (!out->isnull)
            return a->type.id == e->type.id ? true : eval_coerce(e, a->type, out, ctx);
    }
    *out = value_null();
    return true;
}

static bool eval_nullif(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    Value tb, ca, cb;
    const Expr *ea = e->args[0], *eb = e->args[1];
    if (!eval_expr(ea, row, ctx, out)) return false;
    const Value *b = eval_operand(eb, row, ctx, &tb), *a = out;
    if (!b) return false;
    if (out->isnull || b->isnull) return true;
    Type t = ea->type;
    if (ea->type.id != eb->type.id && !unify(ea->type, &a, eb->type, &b, &t, ctx, &ca, &cb))
        return false;
    if (compare(t, a, b) == 0) *out = value_null();
    return true;
}

static bool eval_minmax(const Expr *e, const Value *row, EvalCtx *ctx, Value *out, bool greatest)
{
    *out = value_null();
    for (int i = 0; i < e->nargs; i++) {
        const Expr *a = e->args[i];
        Value t;
        const Value *v = eval_operand(a, row, ctx, &t);
        if (!v) return false;
        if (v->isnull) continue;
        Value c = *v;
        if (a->type.id != e->type.id && !eval_coerce(e, a->type, &c, ctx)) return false;
        if (out->isnull) { *out = c; continue; }
        int r = compare(e->type, &c, out);
        if (greatest ? r > 0 : r < 0) *out = c;
    }
    return true;
}

/* Identical non-NULL cells of a non-text type (the same representation). */
static inline bool same_cell(Type t, const Value *a, const Value *b)
{
    switch ((TypeId)t.id) {
    case T_NUMERIC: return a->lo == b->lo && a->hi == b->hi && a->scale == b->scale;
    case T_INTERVAL: return a->i == b->i && a->iv.months == b->iv.months && a->iv.days == b->iv.days;
    case T_FLOAT4:
    case T_FLOAT8: return memcmp(&a->f, &b->f, sizeof a->f) == 0;
    default: return a->i == b->i;
    }
}

static bool eval_cast(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    Value t;
    const Expr *a = e->args[0];
    const Value *v = eval_operand(a, row, ctx, &t);
    if (!v) return false;
    if (v->isnull) { *out = value_null(); return true; }
    Type from = a->type, to = e->type;
    if (from.id == to.id && from.elem == to.elem && to.precision < 0 && to.scale < 0 && from.id != T_UNKNOWN) {
        *out = *v;   /* same type, no typmod to enforce: pass through (text is not copied) */
        return true;
    }
    if (from.id == T_NUMERIC && to.id == T_NUMERIC && to.scale == v->scale &&
        (to.precision <= 0 || dec_fits_precision(value_num(v), v->scale, to.precision))) {
        *out = *v;
        return true;
    }
    if (to.id != T_TEXT || type_is_varlen(from) || !ctx->arena)
        return value_cast(from, to, v, ctx->arena, out, ctx->err, sizeof ctx->err);
    /* formatting to text: reuse the result for a repeated input */
    EvalMemo *m = &ctx->memo[((uintptr_t)e >> 4) % EVAL_MEMO];
    if (m->e == e && m->arena == ctx->arena && m->gen == ctx->arena->gen && same_cell(from, &m->in, v)) {
        *out = m->out;
        return true;
    }
    if (!value_cast(from, to, v, ctx->arena, out, ctx->err, sizeof ctx->err)) return false;
    m->e = e;
    m->in = *v;
    m->out = *out;
    m->arena = ctx->arena;
    m->gen = ctx->arena->gen;
    return true;
}

/* ---- entry points ---- */

bool eval_expr(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    switch (e->kind) {
    case EX_CONST:
        *out = e->cval;
        return true;
    case EX_COLUMN:
        *out = row[e->col];
        return true;
    case EX_CAST:
        return eval_cast(e, row, ctx, out);
    case EX_OP:
        switch (e->op) {
        case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD: case OP_NEG: case OP_CONCAT:
            return eval_arith(e, row, ctx, out);
        default:
            break;
        }
        /* comparisons and LIKE are boolean */
        __attribute__((fallthrough));
    case EX_AND: case EX_OR: case EX_NOT: case EX_IS_NULL: case EX_BOOL_TEST: case EX_IN_LIST: {
        int r = eval_bool(e, row, ctx);
        if (r == TV_ERR) return false;
        *out = r == TV_NULL ? value_null() : value_bool(r == TV_TRUE);
        return true;
    }
    case EX_CASE:
        return eval_case(e, row, ctx, out);
    case EX_COALESCE:
        return eval_coalesce(e, row, ctx, out);
    case EX_NULLIF:
        return eval_nullif(e, row, ctx, out);
    case EX_GREATEST:
        return eval_minmax(e, row, ctx, out, true);
    case EX_LEAST:
        return eval_minmax(e, row, ctx, out, false);
    case EX_FUNC:
        return eval_func(e, row, ctx, out);
    case EX_SUBQUERY:
        return eval_fail(ctx, "scalar subqueries are not supported yet");
    }
    return eval_fail(ctx, "unknown expression kind %d", (int)e->kind);
}

int eval_pred(const Expr *e, const Value *row, EvalCtx *ctx)
{
    int r = eval_bool(e, row, ctx);
    return r == TV_ERR ? -1 : r == TV_TRUE;
}
