/* Array and json functions and the packed inputs of the collecting aggregates: the ARRAY[...]
 * constructor (FN_ARRAY), array_length / cardinality / subscripts, x op ANY / ALL (array)
 * (FN_ARRAY_CMP), and FN_AGG_ITEM, the packed (values, ORDER BY keys) that array_agg,
 * json_agg and json_object_agg keep (agg_vitem.h). */
#include "engine/eval_func_internal.h"
#include "engine/agg_vitem.h"

/* ARRAY[e1, e2, ...]: the elements (NULL ones too) of type e->type's element type. */
bool eval_array_ctor(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    Type et = type_elem(e->type);
    StrBuf b = STRBUF_INIT;
    size_t start;
    array_begin(&b, &start);
    for (int i = 0; i < e->nargs; i++) {
        Value tmp;
        const Value *v = eval_operand(e->args[i], row, ctx, &tmp);
        if (!v) {
            sb_free(&b);
            return false;
        }
        array_push(&b, et, v);
    }
    array_end(&b, start, (uint32_t)e->nargs);
    bool ok = eval_text_size_ok(b.len, ctx);
    if (ok) {
        char *s = arena_alloc_raw(ctx->arena, b.len);
        memcpy(s, b.data, b.len);
        *out = value_text(s, (uint32_t)b.len);
    }
    sb_free(&b);
    return ok;
}

/* x op ANY (array): true when the comparison holds for an element; else NULL when it
 * is NULL for one (x or the element NULL); else false (also for an empty array).
 * Negated, x op ALL (array): false when it fails for an element; else NULL when it is
 * NULL for one; else true. */
bool eval_array_cmp(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    Value t0, t1;
    if (e->nargs != 3 || e->args[2]->kind != EX_CONST) return eval_fail(ctx, "malformed array comparison");
    const Value *x = eval_operand(e->args[0], row, ctx, &t0);
    if (!x) return false;
    const Value *a = eval_operand(e->args[1], row, ctx, &t1);
    if (!a) return false;
    if (a->isnull) {
        *out = value_null();
        return true;
    }
    int op = (int)e->args[2]->cval.i;
    bool all = e->negated;
    Type et = type_elem(e->args[1]->type);
    ArrayIter it;
    array_iter(&it, a);
    bool saw_null = false;
    Value v;
    while (array_next(&it, et, &v)) {
        if (x->isnull || v.isnull) {
            saw_null = true;
            continue;
        }
        int c = value_compare(et, x, &v);
        bool holds = op == OP_EQ ? c == 0 : op == OP_NE ? c != 0 : op == OP_LT ? c < 0 : op == OP_LE ? c <= 0
                   : op == OP_GT ? c > 0 : c >= 0;
        if (holds != all) {   /* ANY: found one that holds; ALL: found one that fails */
            *out = value_bool(!all);
            return true;
        }
    }
    *out = saw_null ? value_null() : value_bool(all);
    return true;
}

/* Appends the elements of a (non-NULL) to b. */
static uint32_t push_all(StrBuf *b, Type et, const Value *a)
{
    ArrayIter it;
    array_iter(&it, a);
    uint32_t n = 0;
    Value v;
    while (array_next(&it, et, &v)) {
        array_push(b, et, &v);
        n++;
    }
    return n;
}

static bool finish_array(StrBuf *b, size_t start, uint32_t n, EvalCtx *ctx, Value *out)
{
    array_end(b, start, n);
    bool ok = eval_text_size_ok(b->len, ctx);
    if (ok) {
        char *s = arena_alloc_raw(ctx->arena, b->len);
        memcpy(s, b->data, b->len);
        *out = value_text(s, (uint32_t)b->len);
    }
    sb_free(b);
    return ok;
}

/* array_cat, array_append, array_prepend (and ||), with PostgreSQL's NULLs: a NULL
 * array is empty, but array_cat of two NULL arrays is NULL. */
bool eval_array_concat(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    if (e->nargs != 2) return eval_fail(ctx, "malformed array concatenation");
    Value t0, t1;
    const Value *x = eval_operand(e->args[0], row, ctx, &t0);
    if (!x) return false;
    const Value *y = eval_operand(e->args[1], row, ctx, &t1);
    if (!y) return false;
    Type et = type_elem(e->type);
    if (e->func == FN_ARRAY_CAT && x->isnull && y->isnull) {
        *out = value_null();
        return true;
    }
    StrBuf b = STRBUF_INIT;
    size_t start;
    array_begin(&b, &start);
    uint32_t n = 0;
    switch ((FuncKind)e->func) {
    case FN_ARRAY_CAT:
        if (!x->isnull) n += push_all(&b, et, x);
        if (!y->isnull) n += push_all(&b, et, y);
        break;
    case FN_ARRAY_APPEND:
        if (!x->isnull) n += push_all(&b, et, x);
        array_push(&b, et, y);
        n++;
        break;
    default: /* FN_ARRAY_PREPEND */
        array_push(&b, et, x);
        n++;
        if (!y->isnull) n += push_all(&b, et, y);
        break;
    }
    return finish_array(&b, start, n, ctx, out);
}

/* array_to_string(a, delimiter [, null string]): the elements' text (booleans t/f)
 * joined; NULL elements left out, or written as the null string when it is given. */
bool eval_array_to_string(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    Value t[3];
    const Value *av[3] = {NULL, NULL, NULL};
    for (int i = 0; i < e->nargs && i < 3; i++)
        if (!(av[i] = eval_operand(e->args[i], row, ctx, &t[i]))) return false;
    if (av[0]->isnull || av[1]->isnull) {
        *out = value_null();
        return true;
    }
    const Value *ns = e->nargs == 3 && !av[2]->isnull ? av[2] : NULL;
    Type et = type_elem(e->args[0]->type);
    StrBuf b = STRBUF_INIT;
    ArrayIter it;
    array_iter(&it, av[0]);
    Value v;
    bool first = true;
    while (array_next(&it, et, &v)) {
        if (v.isnull && !ns) continue;
        if (!first && av[1]->len) sb_append(&b, av[1]->s, av[1]->len);
        first = false;
        if (v.isnull) {
            if (ns->len) sb_append(&b, ns->s, ns->len);
        } else if (et.id == T_BOOL) {
            sb_putc(&b, v.i ? 't' : 'f');
        } else {
            value_format_text(et, &v, &b);
        }
    }
    bool ok = eval_text_size_ok(b.len, ctx);
    if (ok) {
        char *s = arena_alloc_raw(ctx->arena, b.len ? b.len : 1);
        if (b.len) memcpy(s, b.data, b.len);
        *out = value_text(s, (uint32_t)b.len);
    }
    sb_free(&b);
    return ok;
}

/* string_to_array(s, delimiter [, null string]): the pieces between delimiters; an
 * empty s gives an empty array, an empty delimiter the whole s, a NULL delimiter each
 * character; pieces equal to the null string are NULL. */
bool eval_string_to_array(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    Value t[3];
    const Value *av[3] = {NULL, NULL, NULL};
    for (int i = 0; i < e->nargs && i < 3; i++)
        if (!(av[i] = eval_operand(e->args[i], row, ctx, &t[i]))) return false;
    if (av[0]->isnull) {
        *out = value_null();
        return true;
    }
    const Value *s = av[0], *d = av[1], *ns = e->nargs == 3 && !av[2]->isnull ? av[2] : NULL;
    Type et = type_make(T_TEXT);
    StrBuf b = STRBUF_INIT;
    size_t start;
    array_begin(&b, &start);
    uint32_t n = 0;
    size_t i = 0, len = s->len;
    while (len > 0 && i <= len) {
        size_t end;
        if (d->isnull) {
            end = i + utf8_charlen((const unsigned char *)s->s + i, len - i);
        } else if (d->len == 0) {
            end = len;
        } else {
            end = i;
            while (end + d->len <= len && memcmp(s->s + end, d->s, d->len) != 0) end++;
            if (end + d->len > len) end = len;
        }
        Value piece = value_text(s->s + i, (uint32_t)(end - i));
        if (ns && ns->len == piece.len && (piece.len == 0 || memcmp(ns->s, piece.s, piece.len) == 0))
            piece = value_null();
        array_push(&b, et, &piece);
        n++;
        if (d->isnull || d->len == 0) {
            i = end;
            if (i >= len) break;
        } else {
            if (end >= len) break;
            i = end + d->len;
        }
    }
    return finish_array(&b, start, n, ctx, out);
}

/* Is a non-NULL x an element of the array? (NULL elements match nothing.) */
static bool has_element(Type et, const Value *a, const Value *x)
{
    ArrayIter it;
    array_iter(&it, a);
    Value v;
    while (array_next(&it, et, &v))
        if (!v.isnull && value_equal(et, &v, x)) return true;
    return false;
}

/* array_position(a, x) and array_remove(a, x): NULL x finds / removes NULL elements. */
bool eval_array_search(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    Value t0, t1;
    const Value *a = eval_operand(e->args[0], row, ctx, &t0);
    if (!a) return false;
    const Value *x = eval_operand(e->args[1], row, ctx, &t1);
    if (!x) return false;
    if (a->isnull) {
        *out = value_null();
        return true;
    }
    Type et = type_elem(e->args[0]->type);
    ArrayIter it;
    array_iter(&it, a);
    Value v;
    if (e->func == FN_ARRAY_POSITION) {
        for (int64_t k = 1; array_next(&it, et, &v); k++)
            if (value_equal(et, &v, x)) {   /* NULL equals NULL here: IS NOT DISTINCT FROM */
                *out = value_int(k);
                return true;
            }
        *out = value_null();
        return true;
    }
    StrBuf b = STRBUF_INIT;
    size_t start;
    array_begin(&b, &start);
    uint32_t n = 0;
    while (array_next(&it, et, &v))
        if (!value_equal(et, &v, x)) {
            array_push(&b, et, &v);
            n++;
        }
    return finish_array(&b, start, n, ctx, out);
}

/* json_build_object(k, v, ...) and json_build_array(v, ...), PostgreSQL's text:
 * {"k" : v, "k2" : v2} and [v, v2]. */
bool eval_json_build(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    bool obj = e->func == FN_JSON_BUILD_OBJECT;
    StrBuf b = STRBUF_INIT;
    sb_putc(&b, obj ? '{' : '[');
    for (int i = 0; i < e->nargs; i++) {
        Value t;
        const Value *v = eval_operand(e->args[i], row, ctx, &t);
        if (!v) {
            sb_free(&b);
            return false;
        }
        if (i) sb_puts(&b, obj && i % 2 ? " : " : ", ");
        if (obj && i % 2 == 0) {
            if (v->isnull) {
                sb_free(&b);
                return eval_fail(ctx, "argument %d cannot be null", i + 1);
            }
            value_format_pgjson_key(e->args[i]->type, v, &b);
        } else {
            value_format_pgjson(e->args[i]->type, v, &b);
        }
    }
    sb_putc(&b, obj ? '}' : ']');
    bool ok = eval_text_size_ok(b.len, ctx);
    if (ok) {
        char *s = arena_alloc_raw(ctx->arena, b.len);
        memcpy(s, b.data, b.len);
        *out = value_text(s, (uint32_t)b.len);
    }
    sb_free(&b);
    return ok;
}

/* The strict array functions (no argument NULL). */
bool eval_func_array(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    const Value *a = av[0];
    switch ((FuncKind)e->func) {
    case FN_ARRAY_LENGTH: {
        /* one-dimensional arrays: dimension 1 has the elements; an empty array none */
        uint32_t n = array_count(a);
        *out = av[1]->i == 1 && n > 0 ? value_int((int64_t)n) : value_null();
        return true;
    }
    case FN_CARDINALITY:
        *out = value_int((int64_t)array_count(a));
        return true;
    case FN_TO_JSON: {
        StrBuf b = STRBUF_INIT;
        value_format_pgjson(e->args[0]->type, a, &b);
        bool ok = eval_text_size_ok(b.len, ctx);
        if (ok) {
            char *s = arena_alloc_raw(ctx->arena, b.len ? b.len : 1);
            if (b.len) memcpy(s, b.data, b.len);
            *out = value_text(s, (uint32_t)b.len);
        }
        sb_free(&b);
        return ok;
    }
    case FN_ARRAY_SUBSCRIPT:
        *out = array_get(type_elem(e->args[0]->type), a, av[1]->i);
        return true;
    case FN_ARRAY_CONTAINS:
    case FN_ARRAY_OVERLAP: {
        Type et = type_elem(e->args[0]->type);
        bool contains = e->func == FN_ARRAY_CONTAINS;
        ArrayIter it;
        array_iter(&it, av[1]);
        Value v;
        while (array_next(&it, et, &v)) {
            bool in = !v.isnull && has_element(et, a, &v);
            if (contains && !in) {
                *out = value_bool(false);
                return true;
            }
            if (!contains && in) {
                *out = value_bool(true);
                return true;
            }
        }
        *out = value_bool(contains);
        return true;
    }
    default:
        return eval_fail(ctx, "function %s is not supported", func_kind_name((FuncKind)e->func));
    }
}

/* FN_AGG_ITEM(nv, values..., (flags, key)...): the packed item, never NULL. */
bool eval_agg_item(const Expr *e, const Value *row, EvalCtx *ctx, Value *out)
{
    if (e->nargs < 2 || e->args[0]->kind != EX_CONST) return eval_fail(ctx, "malformed agg_item() call");
    int nv = (int)e->args[0]->cval.i;
    int nk = (e->nargs - 1 - nv) / 2;
    if (nv < 1 || nv + nk > AGG_VITEM_MAX || 1 + nv + 2 * nk != e->nargs) return eval_fail(ctx, "malformed agg_item() call");
    Value tmp[AGG_VITEM_MAX];
    const Value *vals[AGG_VITEM_MAX];
    Type types[AGG_VITEM_MAX];
    uint8_t flags[AGG_VITEM_MAX];
    int n = 0;
    /* keys first in the packed bytes, then the values */
    for (int k = 0; k < nk; k++, n++) {
        const Expr *f = e->args[1 + nv + 2 * k], *key = e->args[2 + nv + 2 * k];
        flags[n] = (uint8_t)(f->kind == EX_CONST ? f->cval.i : 0);
        types[n] = key->type;
        if (!(vals[n] = eval_operand(key, row, ctx, &tmp[n]))) return false;
    }
    for (int i = 0; i < nv; i++, n++) {
        types[n] = e->args[1 + i]->type;
        if (!(vals[n] = eval_operand(e->args[1 + i], row, ctx, &tmp[n]))) return false;
    }
    size_t size = 2 + (size_t)nk;
    for (int i = 0; i < n; i++) size += agg_vitem_field_size(types[i], vals[i]);
    if (!eval_text_size_ok(size, ctx)) return false;
    char *buf = arena_alloc_raw(ctx->arena, size), *p = buf;
    *p++ = (char)nk;
    *p++ = (char)nv;
    for (int i = 0; i < n; i++) {
        if (i < nk) *p++ = (char)flags[i];
        p = agg_vitem_put_field(p, types[i], vals[i]);
    }
    *out = value_text(buf, (uint32_t)size);
    return true;
}
