/* Shared scaffolding of the evaluator's unit tests (test_eval.c, test_eval_funcs.c):
 * constructors of hand-built expression trees (no binder), a fixed row, and run(),
 * which evaluates an expression over that row and renders the result as PostgreSQL's
 * psql prints it ("NULL" for NULL, "ERROR: msg" for a runtime error). Included by
 * exactly one test file per binary. */
#ifndef WEIR_TEST_EVAL_UTIL_H
#define WEIR_TEST_EVAL_UTIL_H

/* not every test file uses every constructor */
#pragma GCC diagnostic ignored "-Wunused-function"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/decimal.h"
#include "base/timeutil.h"
#include "engine/eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Arena A;        /* expression trees and results */
static EvalCtx C;
static Value R[12];    /* the row */

#define TB  type_make(T_BOOL)
#define TI2 type_make(T_INT2)
#define TI4 type_make(T_INT4)
#define TI8 type_make(T_INT8)
#define TF4 type_make(T_FLOAT4)
#define TF8 type_make(T_FLOAT8)
#define TN  type_make(T_NUMERIC)
#define TT  type_make(T_TEXT)
#define TTS type_make(T_TIMESTAMP)
#define TTZ type_make(T_TIMESTAMPTZ)
#define TD  type_make(T_DATE)
#define TIV type_make(T_INTERVAL)

/* ---- constructors ---- */

static Expr *node(ExprKind k, Type t, int n, Expr **args)
{
    Expr *e = arena_alloc(&A, sizeof *e);
    e->kind = k;
    e->type = t;
    e->loc = -1;
    e->nargs = n;
    if (n) {
        e->args = arena_alloc(&A, sizeof(Expr *) * (size_t)n);
        memcpy(e->args, args, sizeof(Expr *) * (size_t)n);
    }
    return e;
}

static Expr *mkv(ExprKind k, Type t, int n, va_list ap)
{
    Expr *args[64];
    for (int i = 0; i < n; i++) args[i] = va_arg(ap, Expr *);
    return node(k, t, n, args);
}

static Expr *mk(ExprKind k, Type t, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    Expr *e = mkv(k, t, n, ap);
    va_end(ap);
    return e;
}

static Expr *K(Type t, Value v)
{
    Expr *e = node(EX_CONST, t, 0, NULL);
    e->cval = v;
    return e;
}

static Expr *i2(int64_t v) { return K(TI2, value_int(v)); }
static Expr *i4(int64_t v) { return K(TI4, value_int(v)); }
static Expr *i8(int64_t v) { return K(TI8, value_int(v)); }
static Expr *f8(double v) { return K(TF8, value_float(v)); }
static Expr *f4(double v) { return K(TF4, value_float((float)v)); }
static Expr *bl(int v) { return K(TB, value_bool(v)); }
static Expr *nul(Type t) { return K(t, value_null()); }
static Expr *txt(const char *s) { return K(TT, value_text(arena_strdup(&A, s), (uint32_t)strlen(s))); }
static Expr *num(const char *s)
{
    i128 n;
    int sc;
    assert_true(dec_parse(s, strlen(s), &n, &sc));
    return K(TN, value_numeric(n, sc));
}
static Expr *ts(const char *s)
{
    int64_t v;
    assert_true(tm_parse_timestamp(s, strlen(s), false, &v));
    return K(TTS, value_int(v));
}
static Expr *tstz(const char *s)
{
    int64_t v;
    assert_true(tm_parse_timestamp(s, strlen(s), true, &v));
    return K(TTZ, value_int(v));
}
static Expr *dt(const char *s)
{
    int64_t v;
    assert_true(tm_parse_date(s, strlen(s), &v));
    return K(TD, value_int(v));
}
static Expr *iv(const char *s)
{
    int32_t m, d;
    int64_t u;
    assert_true(tm_parse_interval(s, strlen(s), &m, &d, &u));
    return K(TIV, value_interval(m, d, u));
}
static Expr *col(int i, Type t)
{
    Expr *e = node(EX_COLUMN, t, 0, NULL);
    e->col = i;
    return e;
}
static Expr *op2(int op, Type t, Expr *a, Expr *b)
{
    Expr *e = mk(EX_OP, t, 2, a, b);
    e->op = op;
    return e;
}
static Expr *op1(int op, Type t, Expr *a)
{
    Expr *e = mk(EX_OP, t, 1, a);
    e->op = op;
    return e;
}
static Expr *cmp(int op, Expr *a, Expr *b) { return op2(op, TB, a, b); }
static Expr *fn(int f, Type t, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    Expr *e = mkv(EX_FUNC, t, n, ap);
    va_end(ap);
    e->func = f;
    return e;
}
static Expr *cast(Expr *a, Type t) { return mk(EX_CAST, t, 1, a); }
static Expr *like(int op, const char *s, const char *p) { return op2(op, TB, txt(s), txt(p)); }

/* ---- evaluation and text output ---- */

static void fmt_float(double f, bool is4, StrBuf *sb)
{
    if (isnan(f)) { sb_puts(sb, "NaN"); return; }
    if (isinf(f)) { sb_puts(sb, f > 0 ? "Infinity" : "-Infinity"); return; }
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, f);
        if (is4 ? (float)strtod(buf, NULL) == (float)f : strtod(buf, NULL) == f) break;
    }
    sb_puts(sb, buf);
}

/* Evaluates e over R and renders the result as PostgreSQL prints it ("NULL" for
 * NULL, "ERROR: msg" on a runtime error). */
static const char *run(const Expr *e)
{
    Value v;
    memset(&v, 0xAB, sizeof v);   /* catch fields left unset */
    C.err[0] = 0;
    if (!eval_expr(e, R, &C, &v)) return arena_printf(&A, "ERROR: %s", C.err);
    if (v.isnull) return "NULL";
    StrBuf sb = STRBUF_INIT;
    switch (e->type.id) {
    case T_BOOL: sb_puts(&sb, v.i ? "t" : "f"); break;
    case T_INT2: case T_INT4: case T_INT8: sb_printf(&sb, "%lld", (long long)v.i); break;
    case T_FLOAT4: case T_FLOAT8: fmt_float(v.f, e->type.id == T_FLOAT4, &sb); break;
    case T_NUMERIC: dec_format(value_num(&v), v.scale, &sb); break;
    case T_TEXT: sb_append(&sb, v.s, v.len); break;
    case T_TIMESTAMP: tm_format_timestamp(v.i, &sb); break;
    case T_TIMESTAMPTZ: tm_format_timestamptz(v.i, &sb); break;
    case T_DATE: tm_format_date(v.i, &sb); break;
    case T_INTERVAL: tm_format_interval(v.iv.months, v.iv.days, v.i, &sb); break;
    default: sb_puts(&sb, "?"); break;
    }
    const char *s = arena_strndup(&A, sb.data ? sb.data : "", sb.len);
    sb_free(&sb);
    return s;
}

#define CHECK(e, expected) assert_string_equal(run(e), expected)

static int setup(void **state)
{
    (void)state;
    arena_init(&A, 1 << 16);
    C.arena = &A;
    R[0] = value_int(5);                                  /* int4 5 */
    R[1] = value_text("Google", 6);                       /* text 'Google' */
    R[2] = value_numeric(150, 2);                         /* numeric 1.50 */
    R[3] = value_null();                                  /* int4 NULL */
    R[4] = value_float(2.5);                              /* float8 2.5 */
    R[5] = value_int(INT64_C(1710506096789000));          /* timestamp 2024-03-15 12:34:56.789 */
    R[6] = value_bool(true);                              /* bool true */
    R[7] = value_null();                                  /* bool NULL */
    R[8] = value_text("", 0);                             /* text '' */
    R[9] = value_null();                                  /* text NULL */
    R[10] = value_numeric(100000, 2);                     /* numeric 1000.00 */
    R[11] = value_bool(false);                            /* bool false */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    arena_fini(&A);
    return 0;
}


#endif
