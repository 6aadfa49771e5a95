/* String functions of the scalar function library (character-based on UTF-8, as
 * PostgreSQL in a UTF-8 database): lower/upper/initcap with the C.UTF-8 case mapping
 * of like.c, length, substring, trim, split_part, replace, position, left/right,
 * concat/concat_ws, lpad/rpad, reverse, repeat, md5, starts_with, translate, ascii,
 * chr, octet_length. Functions returning a piece of an input text (substring, trim,
 * left/right, split_part, an unchanged lower/upper or replace) point into that input
 * instead of copying; new text goes to ctx->arena.
 *
 * Argument conventions (the binder's, PostgreSQL's argument order):
 *   lower/upper/initcap/length/reverse/md5/ascii/octet_length(text);
 *   substring(text, int start [, int count]); btrim/ltrim/rtrim(text [, text chars]);
 *   concat(any...), concat_ws(text sep, any...) (non-text arguments are printed);
 *   split_part(text, text delimiter, int field); replace(text, text from, text to);
 *   position(text string, text substring) = strpos (PostgreSQL parses
 *     `position(sub IN str)` into position(str, sub)); left/right(text, int);
 *   lpad/rpad(text, int length [, text fill]); repeat(text, int);
 *   starts_with(text, text prefix); translate(text, text from, text to); chr(int). */
#include "engine/eval_func_internal.h"

#include "base/md5.h"

#include <string.h>

static inline Value slice(const Value *v, size_t from, size_t to)
{
    return value_text(v->s + from, (uint32_t)(to - from));
}

/* ---- string functions ---- */

static bool fn_case(const Value *v, bool upper, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len, i = 0, adv;
    /* Find the first character that changes; an unchanged text is returned as is. */
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            if (upper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z')) break;
            i++;
            continue;
        }
        uint32_t cp = utf8_decode(s + i, n - i, &adv);
        if (adv > 1 && (upper ? eval_upper_cp(cp) : eval_lower_cp(cp)) != cp) break;
        i += adv;
    }
    if (i == n) { *out = *v; return true; }
    /* a mapped character may need one byte more than a 2-byte original (U+0250 ->
     * U+2C6F): at most half as many bytes again */
    char *d = arena_alloc_raw(ctx->arena, n + n / 2 + 4);
    memcpy(d, s, i);
    size_t j = i;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            d[j++] = (char)(upper ? ((c >= 'a' && c <= 'z') ? c - 32 : c)
                                  : ((c >= 'A' && c <= 'Z') ? c + 32 : c));
            i++;
            continue;
        }
        uint32_t cp = utf8_decode(s + i, n - i, &adv);
        if (adv == 1) { d[j++] = (char)c; i++; continue; }   /* invalid byte: keep it */
        j += utf8_encode(upper ? eval_upper_cp(cp) : eval_lower_cp(cp), d + j);
        i += adv;
    }
    *out = value_text(d, (uint32_t)j);
    return true;
}

/* substring(s from start [for count]), PostgreSQL's text_substring. */
static bool fn_substring(const Value *v, int64_t start, bool has_count, int64_t count, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len;
    int64_t s1 = start < 1 ? 1 : start;
    size_t from = utf8_skip_chars(s, n, s1 - 1), to = n;
    if (has_count) {
        if (count < 0) return eval_fail(ctx, "negative substring length not allowed");
        int64_t end;
        if (!__builtin_add_overflow(start, count, &end)) {   /* overflow: runs to the end */
            if (end < 1 || end <= s1) { *out = value_text(v->s, 0); return true; }
            to = from + utf8_skip_chars(s + from, n - from, end - s1);
        }
    }
    *out = slice(v, from, to);
    return true;
}

/* Whether the character s[0..clen) occurs in the trim set. */
static bool in_set(const unsigned char *c, size_t clen, const Value *set)
{
    const unsigned char *p = (const unsigned char *)set->s;
    size_t m = set->len;
    if (clen == 1) return memchr(p, c[0], m) != NULL;
    for (size_t i = 0; i < m;) {
        size_t l = utf8_charlen(p + i, m - i);
        if (l == clen && memcmp(p + i, c, clen) == 0) return true;
        i += l;
    }
    return false;
}

static void fn_trim(const Value *v, const Value *set, bool left, bool right, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t i = 0, j = v->len;
    if (left) {
        while (i < j) {
            size_t l = utf8_charlen(s + i, j - i);
            if (!in_set(s + i, l, set)) break;
            i += l;
        }
    }
    if (right) {
        while (j > i) {
            size_t k = j - 1;
            while (k > i && (s[k] & 0xC0) == 0x80) k--;
            if (!in_set(s + k, j - k, set)) break;
            j = k;
        }
    }
    *out = slice(v, i, j);
}

static const unsigned char *find(const unsigned char *h, size_t hn, const Value *needle)
{
    return memmem(h, hn, needle->s, needle->len);
}

static bool fn_split_part(const Value *v, const Value *delim, int64_t field, EvalCtx *ctx, Value *out)
{
    if (field == 0) return eval_fail(ctx, "field position must not be zero");
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len, dl = delim->len;
    *out = value_text(v->s, 0);
    if (n == 0) return true;
    if (dl == 0) {
        if (field == 1 || field == -1) *out = *v;
        return true;
    }
    if (field < 0) {
        int64_t fields = 1;
        for (const unsigned char *p = s, *h; (h = find(p, n - (size_t)(p - s), delim)); p = h + dl) fields++;
        field = fields + field + 1;
        if (field <= 0) return true;
    }
    size_t start = 0;
    for (int64_t f = 1; f < field; f++) {
        const unsigned char *h = find(s + start, n - start, delim);
        if (!h) return true;
        start = (size_t)(h - s) + dl;
    }
    const unsigned char *h = find(s + start, n - start, delim);
    *out = slice(v, start, h ? (size_t)(h - s) : n);
    return true;
}

static bool fn_replace(const Value *v, const Value *from, const Value *to, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len, fl = from->len;
    *out = *v;
    if (n == 0 || fl == 0) return true;
    size_t hits = 0;
    for (const unsigned char *p = s, *h; (h = find(p, n - (size_t)(p - s), from)); p = h + fl) hits++;
    if (hits == 0) return true;
    size_t total = n - hits * fl + hits * to->len;
    if (total > UINT32_MAX) return eval_fail(ctx, "requested length too large");
    char *d = arena_alloc_raw(ctx->arena, total ? total : 1);
    size_t j = 0;
    const unsigned char *p = s, *h;
    while ((h = find(p, n - (size_t)(p - s), from))) {
        memcpy(d + j, p, (size_t)(h - p));
        j += (size_t)(h - p);
        memcpy(d + j, to->s, to->len);
        j += to->len;
        p = h + fl;
    }
    memcpy(d + j, p, n - (size_t)(p - s));
    *out = value_text(d, (uint32_t)total);
    return true;
}

static void fn_position(const Value *v, const Value *sub, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    const unsigned char *h = find(s, v->len, sub);
    *out = value_int(h ? utf8_count_chars(s, (size_t)(h - s)) + 1 : 0);
}

static void fn_left_right(const Value *v, int64_t k, bool left, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len;
    int64_t keep = k;
    if (k < 0 || !left) {
        int64_t total = utf8_count_chars(s, n);
        keep = k < 0 ? total + k : (k < total ? k : total);
        if (keep < 0) keep = 0;
        if (!left) {
            *out = slice(v, utf8_skip_chars(s, n, total - keep), n);
            return;
        }
    }
    *out = slice(v, 0, utf8_skip_chars(s, n, keep));
}

/* concat(...) ignores NULLs; concat_ws(sep, ...) is NULL only for a NULL separator. */
bool eval_func_concat(const Expr *e, const Value *row, EvalCtx *ctx, Value *out, bool ws)
{
    Value stack[16], sepbuf, sept;
    Value *parts = e->nargs <= 16 ? stack : arena_alloc_raw(ctx->arena, sizeof(Value) * (size_t)e->nargs);
    const Value *sep = NULL;
    int first = 0, nparts = 0;
    if (ws) {
        if (e->nargs < 1) return eval_fail(ctx, "function concat_ws() needs a separator");
        sep = eval_operand(e->args[0], row, ctx, &sepbuf);
        if (!sep) return false;
        if (sep->isnull) { *out = value_null(); return true; }
        sep = eval_as_text(e->args[0]->type, sep, true, ctx, &sept);
        first = 1;
    }
    size_t total = 0;
    for (int i = first; i < e->nargs; i++) {
        Value t, tt;
        const Value *v = eval_operand(e->args[i], row, ctx, &t);
        if (!v) return false;
        if (v->isnull) continue;
        v = eval_as_text(e->args[i]->type, v, true, ctx, &tt);
        parts[nparts++] = *v;
        total += v->len;
    }
    if (sep && nparts > 1) total += (size_t)(nparts - 1) * sep->len;
    if (total > UINT32_MAX) return eval_fail(ctx, "requested length too large");
    if (nparts <= 1) {   /* no new text needed */
        *out = nparts ? parts[0] : value_text("", 0);
        return true;
    }
    char *d = arena_alloc_raw(ctx->arena, total ? total : 1);
    size_t j = 0;
    for (int i = 0; i < nparts; i++) {
        if (sep && i > 0) { memcpy(d + j, sep->s, sep->len); j += sep->len; }
        memcpy(d + j, parts[i].s, parts[i].len);
        j += parts[i].len;
    }
    *out = value_text(d, (uint32_t)total);
    return true;
}


/* ---- padding, repetition, reversal ---- */

/* lpad/rpad(s, len, fill): s cut or filled with fill (cycled) to len characters;
 * a negative len is 0 and an empty fill leaves s as it is (cut to len). */
static bool fn_pad(const Value *v, int64_t len, const Value *fill, bool left, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s, *f = (const unsigned char *)fill->s;
    if (len < 0) len = 0;
    int64_t have = utf8_count_chars(s, v->len);
    if (have > len) have = len;
    if (fill->len == 0) len = have;
    /* PostgreSQL reserves 4 bytes per character of the result */
    if (len > INT32_MAX / 4) return eval_fail(ctx, "requested length too large");
    if (!eval_text_size_ok((size_t)len * 4, ctx)) return false;
    size_t keep = utf8_skip_chars(s, v->len, have);
    if (have == len) {
        *out = slice(v, 0, keep);
        return true;
    }
    /* the fill part: len - have characters of fill, cycled */
    int64_t need = len - have;
    int64_t fill_chars = utf8_count_chars(f, fill->len);
    size_t fill_bytes = (size_t)(need / fill_chars) * fill->len + utf8_skip_chars(f, fill->len, need % fill_chars);
    size_t total = keep + fill_bytes;
    if (!eval_text_size_ok(total, ctx)) return false;
    char *d = arena_alloc_raw(ctx->arena, total ? total : 1);
    char *p = d;
    if (!left) {
        memcpy(p, s, keep);
        p += keep;
    }
    for (size_t done = 0; done < fill_bytes;) {
        size_t k = fill_bytes - done < fill->len ? fill_bytes - done : fill->len;
        memcpy(p, f, k);
        p += k;
        done += k;
    }
    if (left) memcpy(p, s, keep);
    *out = value_text(d, (uint32_t)total);
    return true;
}

static bool fn_repeat(const Value *v, int64_t count, EvalCtx *ctx, Value *out)
{
    if (count < 0) count = 0;
    if (v->len && (uint64_t)count > (uint64_t)INT32_MAX / v->len) return eval_fail(ctx, "requested length too large");
    size_t total = (size_t)count * v->len;
    if (!eval_text_size_ok(total, ctx)) return false;
    if (count == 1 || total == 0) {
        *out = count == 1 ? *v : value_text(v->s, 0);
        return true;
    }
    char *d = arena_alloc_raw(ctx->arena, total);
    for (int64_t i = 0; i < count; i++) memcpy(d + (size_t)i * v->len, v->s, v->len);
    *out = value_text(d, (uint32_t)total);
    return true;
}

/* reverse(s): the characters in reverse order (each character's bytes kept). */
static void fn_reverse(const Value *v, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len;
    if (n <= 1) {
        *out = *v;
        return;
    }
    char *d = arena_alloc_raw(ctx->arena, n);
    for (size_t i = 0; i < n;) {
        size_t l = utf8_charlen(s + i, n - i);
        memcpy(d + n - i - l, s + i, l);
        i += l;
    }
    *out = value_text(d, (uint32_t)n);
}

/* initcap(s): the first letter or digit of every run of them upper-cased, the rest
 * lower-cased (PostgreSQL's rule: a character follows a word when the character
 * before it, as converted, is alphanumeric in the C.UTF-8 locale). */
static void fn_initcap(const Value *v, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s;
    size_t n = v->len, j = 0, adv;
    char *d = arena_alloc_raw(ctx->arena, n + n / 2 + 4);
    bool inword = false;
    for (size_t i = 0; i < n; i += adv) {
        uint32_t c = utf8_decode(s + i, n - i, &adv);
        if (adv == 1 && c >= 0x80) {   /* invalid byte: kept, ends a word */
            d[j++] = (char)c;
            inword = false;
            continue;
        }
        c = inword ? eval_lower_cp(c) : eval_upper_cp(c);
        j += utf8_encode(c, d + j);
        inword = eval_isalnum_cp(c);
    }
    *out = value_text(d, (uint32_t)j);
}

/* translate(s, from, to): each character of s found in from (its first occurrence)
 * becomes the character at the same position in to, or is dropped when to is
 * shorter; other characters are kept. */
static bool fn_translate(const Value *v, const Value *from, const Value *to, EvalCtx *ctx, Value *out)
{
    const unsigned char *s = (const unsigned char *)v->s, *fp = (const unsigned char *)from->s,
                        *tp = (const unsigned char *)to->s;
    size_t n = v->len;
    if (n == 0 || from->len == 0) {
        *out = *v;
        return true;
    }
    /* every character may become one of up to 4 bytes */
    if (!eval_text_size_ok(n * 4, ctx)) return false;
    char *d = arena_alloc_raw(ctx->arena, n * 4);
    size_t j = 0;
    for (size_t i = 0; i < n;) {
        size_t l = utf8_charlen(s + i, n - i), k = 0;
        int64_t idx = 0;
        bool found = false;
        while (k < from->len) {
            size_t fl = utf8_charlen(fp + k, from->len - k);
            if (fl == l && memcmp(fp + k, s + i, l) == 0) {
                found = true;
                break;
            }
            k += fl;
            idx++;
        }
        if (!found) {
            memcpy(d + j, s + i, l);
            j += l;
        } else {
            size_t t = utf8_skip_chars(tp, to->len, idx);
            if (t < to->len) {
                size_t tl = utf8_charlen(tp + t, to->len - t);
                memcpy(d + j, tp + t, tl);
                j += tl;
            }
        }
        i += l;
    }
    *out = value_text(d, (uint32_t)j);
    return true;
}

/* ascii(s): the code point of the first character (0 for an empty string). */
static int64_t fn_ascii(const Value *v)
{
    if (v->len == 0) return 0;
    size_t adv;
    return utf8_decode((const unsigned char *)v->s, v->len, &adv);
}

/* chr(n): the character with code point n. */
static bool fn_chr(int64_t c, EvalCtx *ctx, Value *out)
{
    if (c < 0) return eval_fail(ctx, "character number must be positive");
    if (c == 0) return eval_fail(ctx, "null character not permitted");
    if (c > 0x10FFFF) return eval_fail(ctx, "requested character too large for encoding: %lld", (long long)c);
    if (c >= 0xD800 && c <= 0xDFFF) return eval_fail(ctx, "requested character not valid for encoding: %lld", (long long)c);
    char *d = arena_alloc_raw(ctx->arena, 4);
    *out = value_text(d, (uint32_t)utf8_encode((uint32_t)c, d));
    return true;
}

static void fn_md5(const Value *v, EvalCtx *ctx, Value *out)
{
    char *d = arena_alloc_raw(ctx->arena, 33);
    md5_hex(v->s, v->len, d);
    *out = value_text(d, 32);
}

/* ---- dispatch ---- */

bool eval_func_string(const Expr *e, const Value *const *av, EvalCtx *ctx, Value *out)
{
    static const Value space = {.s = " ", .len = 1};
    int n = e->nargs;
    switch ((FuncKind)e->func) {
    case FN_LOWER: return fn_case(av[0], false, ctx, out);
    case FN_UPPER: return fn_case(av[0], true, ctx, out);
    case FN_INITCAP: fn_initcap(av[0], ctx, out); return true;
    case FN_LENGTH:
        *out = value_int(utf8_count_chars((const unsigned char *)av[0]->s, av[0]->len));
        return eval_coerce(e, type_make(T_INT4), out, ctx);
    case FN_OCTET_LENGTH:
        *out = value_int(av[0]->len);
        return eval_coerce(e, type_make(T_INT4), out, ctx);
    case FN_SUBSTRING:
        if (n < 2) break;
        return fn_substring(av[0], av[1]->i, n >= 3, n >= 3 ? av[2]->i : 0, ctx, out);
    case FN_BTRIM: case FN_LTRIM: case FN_RTRIM:
        fn_trim(av[0], n >= 2 ? av[1] : &space, e->func != FN_RTRIM, e->func != FN_LTRIM, out);
        return true;
    case FN_SPLIT_PART:
        if (n < 3) break;
        return fn_split_part(av[0], av[1], av[2]->i, ctx, out);
    case FN_REPLACE:
        if (n < 3) break;
        return fn_replace(av[0], av[1], av[2], ctx, out);
    case FN_POSITION:
        if (n < 2) break;
        fn_position(av[0], av[1], out);
        return eval_coerce(e, type_make(T_INT4), out, ctx);
    case FN_LEFT: case FN_RIGHT:
        if (n < 2) break;
        fn_left_right(av[0], av[1]->i, e->func == FN_LEFT, out);
        return true;
    case FN_LPAD: case FN_RPAD:
        if (n < 2) break;
        return fn_pad(av[0], av[1]->i, n >= 3 ? av[2] : &space, e->func == FN_LPAD, ctx, out);
    case FN_REPEAT:
        if (n < 2) break;
        return fn_repeat(av[0], av[1]->i, ctx, out);
    case FN_REVERSE: fn_reverse(av[0], ctx, out); return true;
    case FN_MD5: fn_md5(av[0], ctx, out); return true;
    case FN_STARTS_WITH:
        if (n < 2) break;
        *out = value_bool(av[1]->len == 0 || (av[1]->len <= av[0]->len && memcmp(av[0]->s, av[1]->s, av[1]->len) == 0));
        return true;
    case FN_TRANSLATE:
        if (n < 3) break;
        return fn_translate(av[0], av[1], av[2], ctx, out);
    case FN_ASCII:
        *out = value_int(fn_ascii(av[0]));
        return eval_coerce(e, type_make(T_INT4), out, ctx);
    case FN_CHR: return fn_chr(av[0]->i, ctx, out);
    default: break;
    }
    return eval_fail(ctx, "function %s() called with %d arguments", func_kind_name((FuncKind)e->func), n);
}
