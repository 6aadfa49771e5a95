/* Literals and casts: integer literals are integer / bigint / numeric by size, decimal
 * literals numeric with their written scale, string literals and NULL stay "unknown"
 * until the context decides their type (bind_types.c parses them then), and
 * CAST / :: / typed literals (timestamp '...', INTERVAL '10' SECOND) are folded into
 * typed constants at bind time. */
#include "sql/bind_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static Expr *number_const(ExprCtx *cx, const Ast *a)
{
    Binder *b = cx->b;
    const char *s = a->text ? a->text : "0";
    bool integral = !strpbrk(s, ".eE");
    if (integral) {
        errno = 0;
        char *end = NULL;
        long long v = strtoll(s, &end, 10);
        if (errno == 0 && end && *end == '\0') {
            Expr *e;
            if (v >= INT32_MIN && v <= INT32_MAX) e = plan_expr_const(b->arena, type_make(T_INT4), value_int(v));
            else e = plan_expr_const(b->arena, type_make(T_INT8), value_int(v));
            e->loc = a->loc;
            return e;
        }
    }
    Value v;
    char err[256] = "";
    if (!value_parse(type_make(T_NUMERIC), s, strlen(s), b->arena, &v, err, sizeof err)) {
        bind_error(b, a->loc, "invalid-literal", NULL, "%s", err[0] ? err : "invalid numeric literal");
        return NULL;
    }
    Expr *e = plan_expr_const(b->arena, type_make(T_NUMERIC), v);
    e->loc = a->loc;
    return e;
}

Expr *bind_literal(ExprCtx *cx, const Ast *a)
{
    Binder *b = cx->b;
    Expr *e;
    switch (a->const_kind) {
    case AST_CONST_INT:
    case AST_CONST_NUMBER: return number_const(cx, a);
    case AST_CONST_STRING: {
        const char *s = a->text ? a->text : "";
        e = plan_expr_const(b->arena, type_make(T_UNKNOWN), value_text(s, (uint32_t)strlen(s)));
        break;
    }
    case AST_CONST_BOOL:
        e = plan_expr_const(b->arena, type_make(T_BOOL),
                            value_bool(a->text && (a->text[0] == 't' || a->text[0] == 'T')));
        break;
    case AST_CONST_NULL:
    default: e = plan_expr_const(b->arena, type_make(T_UNKNOWN), value_null()); break;
    }
    e->loc = a->loc;
    return e;
}

/* INTERVAL '10' SECOND: a bare number counts in the qualifier's last field, and
 * fields below that last one are dropped (PostgreSQL's AdjustIntervalForTypmod). */
enum { IV_YEAR = 4, IV_MONTH = 2, IV_DAY = 8, IV_HOUR = 1024, IV_MINUTE = 2048, IV_SECOND = 4096 };

static const char *last_field_unit(int mask)
{
    if (mask & IV_SECOND) return "second";
    if (mask & IV_MINUTE) return "minute";
    if (mask & IV_HOUR) return "hour";
    if (mask & IV_DAY) return "day";
    if (mask & IV_MONTH) return "month";
    if (mask & IV_YEAR) return "year";
    return NULL;
}

static bool bare_number(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i])) i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t digits = 0;
    while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '.')) i++, digits++;
    while (i < n && isspace((unsigned char)s[i])) i++;
    return digits > 0 && i == n;
}

static void truncate_interval(Value *v, int mask)
{
    const int64_t hour = 3600000000LL, minute = 60000000LL;
    const char *u = last_field_unit(mask);
    if (!u || strcmp(u, "second") == 0) return;
    if (strcmp(u, "minute") == 0) v->i = (v->i / minute) * minute;
    else if (strcmp(u, "hour") == 0) v->i = (v->i / hour) * hour;
    else {
        v->i = 0;
        if (strcmp(u, "day") != 0) v->iv.days = 0;
        if (strcmp(u, "year") == 0) v->iv.months = (v->iv.months / 12) * 12;
    }
}

static Expr *interval_literal(ExprCtx *cx, Expr *arg, int fields, int loc)
{
    Binder *b = cx->b;
    if (!bind_is_unknown_literal(arg) || arg->cval.isnull) {
        if (arg->kind == EX_CONST && arg->cval.isnull)
            return bind_cast(b, arg, type_make(T_INTERVAL), loc);
        bind_unsupported(b, loc, "an interval field qualifier on a non-literal");
        return NULL;
    }
    const char *s = arg->cval.s;
    size_t n = arg->cval.len;
    const char *unit = last_field_unit(fields);
    Expr *lit = arg;
    if (unit && bare_number(s, n)) {
        lit = plan_expr_copy(b->arena, arg);
        const char *t = arena_printf(b->arena, "%.*s %s", (int)n, s, unit);
        lit->cval = value_text(t, (uint32_t)strlen(t));
    }
    Expr *c = bind_cast(b, lit, type_make(T_INTERVAL), loc);
    if (!c) return NULL;
    if (c->kind == EX_CONST && !c->cval.isnull) truncate_interval(&c->cval, fields);
    return c;
}

Expr *bind_type_cast(ExprCtx *cx, Ast *a)
{
    Binder *b = cx->b;
    Type to;
    if (!bind_type_name(b, &a->type_name, &to)) return NULL;
    Expr *arg = bind_expr(cx, a->expr);
    if (!arg) return NULL;
    if (to.id == T_INTERVAL && a->type_name.interval_fields)
        return interval_literal(cx, arg, a->type_name.interval_fields, a->loc);
    return bind_cast(b, arg, to, a->loc);
}
