/* Regular expressions of the scalar function library: the ~ ~* !~ !~* operators and
 * regexp_replace, regexp_like, regexp_count, regexp_substr with PostgreSQL 15's
 * argument checks, search loop and replacement escapes, over base/regex (PCRE2 with
 * PostgreSQL's flags and ARE spellings). A constant pattern was compiled by the
 * binder (Expr.regex); a computed one is compiled for the row and freed.
 *
 * Argument conventions: regexp_replace(source, pattern, replacement [, flags]) or
 * (source, pattern, replacement, int start [, int n [, flags]]); regexp_like(string,
 * pattern [, flags]); regexp_count(string, pattern [, int start [, flags]]);
 * regexp_substr(string, pattern [, int start [, int n [, flags [, int subexpr]]]]).
 * Positions are in characters, as in PostgreSQL; the search works on UTF-8 bytes. */
#include "engine/eval_func_internal.h"

#include "base/regex.h"

#include <string.h>

/* The pattern of e as a compiled expression: the binder's, or compiled now into
 * *owned (to be freed by the caller). fname: for the "global" option error. */
static Regex *get_regex(const Expr *e, const Value *pattern, const Value *flags, int base_opts, const char *fname,
                        EvalCtx *ctx, Regex **owned)
{
    *owned = NULL;
    if (e->regex) return e->regex;
    int opts = base_opts;
    bool global = false;
    if (flags && !regex_parse_flags(flags->s, flags->len, &opts, &global, ctx->err, sizeof ctx->err)) return NULL;
    if (global && fname) {
        eval_fail(ctx, "%s does not support the \"global\" option", fname);
        return NULL;
    }
    *owned = regex_compile(pattern->s, pattern->len, opts, ctx->err, sizeof ctx->err);
    return *owned;
}

/* Whether the flags ask for every match ('g'), for regexp_replace's flags form. */
static bool global_flag(const Value *flags)
{
    return flags && memchr(flags->s, 'g', flags->len) != NULL;
}

int eval_regex_op(const Expr *e, const Value *row, EvalCtx *ctx)
{
    Value ta, tb;
    const Value *a = eval_operand(e->args[0], row, ctx, &ta);
    if (!a) return -1;
    const Value *b = eval_operand(e->args[1], row, ctx, &tb);
    if (!b) return -1;
    if (a->isnull || b->isnull) return 2;
    bool icase = e->op == OP_IREGEX || e->op == OP_NOT_IREGEX;
    Regex *owned, *re = get_regex(e, b, NULL, icase ? REGEX_ICASE : 0, NULL, ctx, &owned);
    if (!re) return -1;
    int64_t m[2];
    int r = regex_search(re, a->s, a->len, 0, false, m, 2, ctx->err, sizeof ctx->err);
    regex_free(owned);
    if (r < 0) return -1;
    bool neg = e->op == OP_NOT_REGEX || e->op == OP_NOT_IREGEX;
    return (r == 1) != neg;
}

static bool bad_parameter(EvalCtx *ctx, const char *name, int64_t v)
{
    return eval_fail(ctx, "invalid value for parameter \"%s\": %lld", name, (long long)v);
}

/* Byte offset of character position `start` (0-based) in s, or -1 past the end. */
static int64_t start_offset(const Value *s, int64_t start)
{
    size_t off = utf8_skip_chars((const unsigned char *)s->s, s->len, start);
    if (off == s->len && utf8_count_chars((const unsigned char *)s->s, s->len) < start) return -1;
    return (int64_t)off;
}

/* Where the search goes on after a match [so, eo): at its end, or one character
 * further for an empty match. */
static size_t next_start(const Value *s, int64_t so, int64_t eo)
{
    if (so != eo) return (size_t)eo;
    if ((size_t)eo >= s->len) return s->len + 1;
    return (size_t)eo + utf8_charlen((const unsigned char *)s->s + eo, s->len - (size_t)eo);
}

#define MAX_GROUPS 10   /* \1 .. \9 and the whole match */

/* Appends the replacement with \1..\9 (groups), \& (the match) and \\ expanded; any
 * other backslash stays as it is. */
static void put_replacement(StrBuf *sb, const Value *rep, const Value *s, const int64_t *m, int ngroups)
{
    const char *p = rep->s, *end = rep->s + rep->len;
    while (p < end) {
        const char *bs = memchr(p, '\\', (size_t)(end - p));
        if (!bs) bs = end;
        sb_append(sb, p, (size_t)(bs - p));
        if (bs >= end) break;
        p = bs + 1;
        if (p >= end) {
            sb_putc(sb, '\\');
            break;
        }
        int idx;
        if (*p >= '1' && *p <= '9') idx = *p - '0';
        else if (*p == '&') idx = 0;
        else if (*p == '\\') {
            sb_putc(sb, '\\');
            p++;
            continue;
        } else {
            sb_putc(sb, '\\');
            continue;
        }
        p++;
        if (idx <= ngroups && m[2 * idx] >= 0) sb_append(sb, s->s + m[2 * idx], (size_t)(m[2 * idx + 1] - m[2 * idx]));
    }
}

static bool fn_replace(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    const Value *s = av[0], *rep = av[2], *flags = NULL;
    int64_t start = 1, n;
    bool int_form = e->nargs >= 4 && e->args[3]->type.id != T_TEXT;
    if (e->nargs == 4 && !int_form) flags = av[3];
    if (int_form) {
        start = av[3]->i;
        if (start <= 0) return bad_parameter(ctx, "start", start);
        if (e->nargs >= 5 && av[4]->i < 0) return bad_parameter(ctx, "n", av[4]->i);
        if (e->nargs == 6) flags = av[5];
    }
    Regex *owned, *re = get_regex(e, av[1], flags, 0, NULL, ctx, &owned);
    if (!re) return false;
    /* without n: every match with 'g', else the first */
    n = e->nargs >= 5 ? av[4]->i : global_flag(flags) ? 0 : 1;
    int64_t m[2 * MAX_GROUPS];
    int ngroups = regex_groups(re);
    if (ngroups > MAX_GROUPS - 1) ngroups = MAX_GROUPS - 1;
    StrBuf sb = STRBUF_INIT;
    int64_t from = start_offset(s, start - 1);
    size_t copied = 0, search = from < 0 ? s->len + 1 : (size_t)from;
    int64_t count = 0;
    bool checked = false, ok = true, changed = false;
    while (search <= s->len) {
        for (int k = 0; k < 2 * MAX_GROUPS; k++) m[k] = -1;
        int r = regex_search(re, s->s, s->len, search, checked, m, 2 * MAX_GROUPS, ctx->err, sizeof ctx->err);
        checked = true;
        if (r < 0) {
            ok = false;
            break;
        }
        if (r == 0) break;
        count++;
        if (n > 0 && count < n) {   /* not this one: search on, keep its text */
            search = next_start(s, m[0], m[1]);
            continue;
        }
        sb_append(&sb, s->s + copied, (size_t)(m[0] - (int64_t)copied));
        put_replacement(&sb, rep, s, m, ngroups);
        copied = (size_t)m[1];
        changed = true;
        if (n > 0) break;
        search = next_start(s, m[0], m[1]);
    }
    regex_free(owned);
    if (!ok) {
        sb_free(&sb);
        return false;
    }
    if (!changed) {
        sb_free(&sb);
        *out = *s;
        return true;
    }
    sb_append(&sb, s->s + copied, s->len - copied);
    if (!eval_text_size_ok(sb.len, ctx)) {
        sb_free(&sb);
        return false;
    }
    char *d = arena_alloc_raw(ctx->arena, sb.len ? sb.len : 1);
    if (sb.len) memcpy(d, sb.data, sb.len);
    *out = value_text(d, (uint32_t)sb.len);
    sb_free(&sb);
    return true;
}

/* regexp_count and regexp_substr: every match from `start` on (PostgreSQL's
 * setup_regexp_matches); for substr the n-th one's group subexpr (0: whole). */
static bool fn_matches(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    bool substr = e->func == FN_REGEXP_SUBSTR;
    const Value *s = av[0], *flags = NULL;
    int64_t start = 1, nth = 1, subexpr = 0;
    if (e->nargs > 2) {
        start = av[2]->i;
        if (start <= 0) return bad_parameter(ctx, "start", start);
    }
    if (substr) {
        if (e->nargs > 3) {
            nth = av[3]->i;
            if (nth <= 0) return bad_parameter(ctx, "n", nth);
        }
        if (e->nargs > 5) {
            subexpr = av[5]->i;
            if (subexpr < 0) return bad_parameter(ctx, "subexpr", subexpr);
        }
        if (e->nargs > 4) flags = av[4];
    } else if (e->nargs > 3) {
        flags = av[3];
    }
    Regex *owned, *re = get_regex(e, av[1], flags, 0, substr ? "regexp_substr()" : "regexp_count()", ctx, &owned);
    if (!re) return false;
    int groups = regex_groups(re);
    int64_t *m = arena_alloc_raw(ctx->arena, sizeof(int64_t) * 2 * (size_t)(groups + 1));
    int64_t from = start_offset(s, start - 1), count = 0;
    size_t search = from < 0 ? s->len + 1 : (size_t)from;
    bool checked = false, found = false;
    while (search <= s->len) {
        int r = regex_search(re, s->s, s->len, search, checked, m, 2 * (groups + 1), ctx->err, sizeof ctx->err);
        checked = true;
        if (r < 0) {
            regex_free(owned);
            return false;
        }
        if (r == 0) break;
        count++;
        if (substr && count == nth) {
            found = true;
            break;
        }
        search = next_start(s, m[0], m[1]);
    }
    regex_free(owned);
    if (!substr) {
        *out = value_int(count);
        return eval_coerce(e, type_make(T_INT4), out, ctx);
    }
    /* PostgreSQL counts the whole match as the one subexpression of a pattern without
     * groups (and when subexpr is 0) */
    int npatterns = subexpr > 0 && groups > 0 ? groups : 1;
    int64_t g = subexpr > 0 && groups > 0 ? subexpr : 0;
    if (!found || subexpr > npatterns || m[2 * g] < 0) {
        *out = value_null();
        return true;
    }
    *out = value_text(s->s + m[2 * g], (uint32_t)(m[2 * g + 1] - m[2 * g]));
    return true;
}

bool eval_func_regex(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    if (e->nargs < 2) return eval_fail(ctx, "function %s() called with %d arguments", func_kind_name((FuncKind)e->func), e->nargs);
    switch ((FuncKind)e->func) {
    case FN_REGEXP_REPLACE:
        if (e->nargs < 3) break;
        return fn_replace(e, av, ctx, out);
    case FN_REGEXP_LIKE: {
        Regex *owned, *re = get_regex(e, av[1], e->nargs > 2 ? av[2] : NULL, 0, "regexp_like()", ctx, &owned);
        if (!re) return false;
        int64_t m[2];
        int r = regex_search(re, av[0]->s, av[0]->len, 0, false, m, 2, ctx->err, sizeof ctx->err);
        regex_free(owned);
        if (r < 0) return false;
        *out = value_bool(r == 1);
        return true;
    }
    case FN_REGEXP_COUNT:
    case FN_REGEXP_SUBSTR:
        return fn_matches(e, av, ctx, out);
    default: break;
    }
    return eval_fail(ctx, "function %s is not supported", func_kind_name((FuncKind)e->func));
}
