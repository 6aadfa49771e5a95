/* to_char, to_timestamp(text, text) and to_date of the scalar function library: the
 * evaluator's side of base/datefmt (date/time templates) and base/numfmt (number
 * templates). Results are built in ctx->arena.
 *
 * Argument conventions: to_char(numeric | integer | bigint | real | double precision
 * | timestamp | timestamptz | interval, text template) (the binder casts smallint to
 * double precision and date to timestamptz, as PostgreSQL resolves them);
 * to_timestamp(text, text template) -> timestamptz; to_date(text, text template). */
#include "engine/eval_func_internal.h"

#include "base/datefmt.h"
#include "base/numfmt.h"
#include "base/timeutil.h"

#include <string.h>

/* Copies a StrBuf's text into the arena as the result. */
static bool text_result(StrBuf *sb, EvalCtx *ctx, Value *out)
{
    if (!eval_text_size_ok(sb->len, ctx)) {
        sb_free(sb);
        return false;
    }
    char *d = arena_alloc_raw(ctx->arena, sb->len ? sb->len : 1);
    if (sb->len) memcpy(d, sb->data, sb->len);
    *out = value_text(d, (uint32_t)sb->len);
    sb_free(sb);
    return true;
}

static bool fn_to_char(const Expr *e, const Value *v, const Value *fmt, EvalCtx *ctx, Value *out)
{
    Type t = e->args[0]->type;
    StrBuf sb = STRBUF_INIT;
    bool ok;
    switch (t.id) {
    case T_TIMESTAMP:
    case T_TIMESTAMPTZ:
        /* PostgreSQL: NULL for an empty template or an infinite timestamp */
        if (fmt->len == 0 || v->i == TM_INFINITY || v->i == TM_NEG_INFINITY) {
            *out = value_null();
            return true;
        }
        ok = datefmt_timestamp_to_char(v->i, t.id == T_TIMESTAMPTZ, fmt->s, fmt->len, &sb, ctx->err, sizeof ctx->err);
        break;
    case T_INTERVAL:
        if (fmt->len == 0) {
            *out = value_null();
            return true;
        }
        ok = datefmt_interval_to_char(v->iv.months, v->iv.days, v->i, fmt->s, fmt->len, &sb, ctx->err,
                                      sizeof ctx->err);
        break;
    default: {
        NumFmtValue nv;
        memset(&nv, 0, sizeof nv);
        switch (t.id) {
        case T_NUMERIC: nv.kind = NUMFMT_NUMERIC; nv.num = value_num(v); nv.scale = v->scale; break;
        case T_INT2:
        case T_INT4: nv.kind = NUMFMT_INT4; nv.i = v->i; break;
        case T_INT8: nv.kind = NUMFMT_INT8; nv.i = v->i; break;
        case T_FLOAT4: nv.kind = NUMFMT_FLOAT4; nv.f = v->f; break;
        case T_FLOAT8: nv.kind = NUMFMT_FLOAT8; nv.f = v->f; break;
        default: {
            char b[64];
            return eval_fail(ctx, "function to_char(%s, text) does not exist", type_name(t, b, sizeof b));
        }
        }
        ok = numfmt_to_char(&nv, fmt->s, fmt->len, &sb, ctx->err, sizeof ctx->err);
        break;
    }
    }
    if (!ok) {
        sb_free(&sb);
        return false;
    }
    return text_result(&sb, ctx, out);
}

bool eval_func_format(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    if (e->nargs < 2) return eval_fail(ctx, "function %s() called with %d arguments", func_kind_name((FuncKind)e->func), e->nargs);
    switch ((FuncKind)e->func) {
    case FN_TO_CHAR: return fn_to_char(e, av[0], av[1], ctx, out);
    case FN_TO_TIMESTAMP: {
        int64_t ts;
        if (!datefmt_to_timestamp(av[0]->s, av[0]->len, av[1]->s, av[1]->len, &ts, ctx->err, sizeof ctx->err))
            return false;
        *out = value_int(ts);
        return true;
    }
    case FN_TO_DATE: {
        int64_t d;
        if (!datefmt_to_date(av[0]->s, av[0]->len, av[1]->s, av[1]->len, &d, ctx->err, sizeof ctx->err))
            return false;
        *out = value_int(d);
        return true;
    }
    default: break;
    }
    return eval_fail(ctx, "function %s is not supported", func_kind_name((FuncKind)e->func));
}
