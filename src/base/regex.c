/* The PCRE2 adapter behind base/regex.h (the only file that includes pcre2.h):
 * PostgreSQL flag letters, the rewriting of ARE spellings into PCRE2 syntax, compiled
 * patterns (JIT-compiled when available) and searches. */
#include "base/regex.h"

#include "base/strbuf.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

struct Regex {
    pcre2_code *code;
    int groups;
};

bool regex_parse_flags(const char *s, size_t n, int *opts, bool *global, char *err, size_t errsize)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case 'g': *global = true; break;
        case 'i': *opts |= REGEX_ICASE; break;
        case 'c': *opts &= ~REGEX_ICASE; break;
        case 'n':
        case 'm': *opts |= REGEX_NL_DOT | REGEX_NL_ANCHOR; break;
        case 'p': *opts = (*opts | REGEX_NL_DOT) & ~REGEX_NL_ANCHOR; break;
        case 'w': *opts = (*opts | REGEX_NL_ANCHOR) & ~REGEX_NL_DOT; break;
        case 's': *opts &= ~(REGEX_NL_DOT | REGEX_NL_ANCHOR); break;
        case 'x': *opts |= REGEX_EXPANDED; break;
        case 'q': *opts |= REGEX_LITERAL; break;
        case 't': *opts &= ~REGEX_EXPANDED; break;
        case 'e': break;   /* extended REs: read as AREs (a superset for ordinary patterns) */
        case 'b':
            snprintf(err, errsize, "regular expression option \"b\" (basic regular expressions) is not supported");
            return false;
        default: {
            /* the whole (UTF-8) character, as PostgreSQL prints it */
            size_t l = 1;
            unsigned char c = (unsigned char)s[i];
            if (c >= 0xC0) l = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            if (l > n - i) l = n - i;
            snprintf(err, errsize, "invalid regular expression option: \"%.*s\"", (int)l, s + i);
            return false;
        }
        }
    }
    return true;
}

/* ---- character classes ----
 * PostgreSQL classifies characters with the database locale's iswalpha & co (here
 * C.UTF-8, for every code point), so \w, \s, \d and [[:alpha:]] & co are spelled out
 * as explicit code point ranges taken from that locale, built once per class. Without
 * the locale, PCRE2's Unicode classes stand in. */

/* Lazily built state shared by every thread (`weir run --workers N` evaluates
 * expressions on several): made once, under pthread_once or a lock. */
static locale_t c_utf8_loc;
static pthread_once_t c_utf8_once = PTHREAD_ONCE_INIT;
static void c_utf8_init(void) { c_utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0); }

static locale_t c_utf8(void)
{
    pthread_once(&c_utf8_once, c_utf8_init);
    return c_utf8_loc;
}

static pthread_mutex_t class_lock = PTHREAD_MUTEX_INITIALIZER;

enum { C_ALNUM, C_ALPHA, C_DIGIT, C_GRAPH, C_LOWER, C_PRINT, C_PUNCT, C_SPACE, C_UPPER, C_WORD, C__COUNT };

static bool in_class(int cls, wint_t c, locale_t loc)
{
    switch (cls) {
    case C_ALNUM: return iswalnum_l(c, loc);
    case C_ALPHA: return iswalpha_l(c, loc);
    case C_DIGIT: return iswdigit_l(c, loc);
    case C_GRAPH: return iswgraph_l(c, loc);
    case C_LOWER: return iswlower_l(c, loc);
    case C_PRINT: return iswprint_l(c, loc);
    case C_PUNCT: return iswpunct_l(c, loc);
    case C_SPACE: return iswspace_l(c, loc);
    case C_UPPER: return iswupper_l(c, loc);
    default: return c == '_' || iswalnum_l(c, loc);
    }
}

/* The ranges of class cls as PCRE2 class items ("\x{30}-\x{39}..."), or NULL without
 * the locale. */
static const char *class_items(int cls)
{
    static char *items[C__COUNT];
    locale_t loc = c_utf8();
    if (!loc) return NULL;
    pthread_mutex_lock(&class_lock);
    if (!items[cls]) {
        StrBuf sb = STRBUF_INIT;
        long start = -1;
        for (long c = 0; c <= 0x110000; c++) {
            bool in = c < 0x110000 && !(c >= 0xD800 && c <= 0xDFFF) && in_class(cls, (wint_t)c, loc);
            if (in && start < 0) start = c;
            if (!in && start >= 0 && !(c >= 0xD800 && c <= 0xDFFF)) {
                if (c - 1 == start) sb_printf(&sb, "\\x{%lX}", start);
                else sb_printf(&sb, "\\x{%lX}-\\x{%lX}", start, c - 1);
                start = -1;
            }
        }
        items[cls] = xstrdup(sb.len ? sb_cstr(&sb) : "");
        sb_free(&sb);
    }
    const char *r = items[cls];
    pthread_mutex_unlock(&class_lock);
    return r;
}

/* Class items of a POSIX class name (the part between "[:" and ":]"), as PostgreSQL
 * defines them; NULL when the name is unknown (PCRE2 reports it). icase: upper and
 * lower mean any letter. */
static bool put_class_items(StrBuf *out, const char *name, size_t len, bool icase)
{
    static const char *const names[] = {"alnum", "alpha", "digit", "graph", "lower", "print", "punct", "space",
                                        "upper", "word"};
    if (len == 5 && memcmp(name, "blank", 5) == 0) {
        sb_puts(out, "\\t ");
        return true;
    }
    if (len == 5 && memcmp(name, "cntrl", 5) == 0) {
        sb_puts(out, "\\x{0}-\\x{1F}\\x{7F}-\\x{9F}");
        return true;
    }
    if (len == 6 && memcmp(name, "xdigit", 6) == 0) {
        sb_puts(out, "0-9a-fA-F");
        return true;
    }
    for (int k = 0; k < C__COUNT; k++)
        if (strlen(names[k]) == len && memcmp(names[k], name, len) == 0) {
            int cls = icase && (k == C_UPPER || k == C_LOWER) ? C_ALPHA : k;
            const char *items = class_items(cls);
            if (!items) {
                /* no locale: PCRE2's own class */
                sb_printf(out, "[:%s:]", names[cls]);
                return true;
            }
            sb_puts(out, items);
            return true;
        }
    return false;
}

/* \d \s \w (negated: \D \S \W) outside a bracket expression. */
static bool put_escape_class(StrBuf *out, char e)
{
    int cls = (e == 'd' || e == 'D') ? C_DIGIT : (e == 's' || e == 'S') ? C_SPACE : C_WORD;
    const char *items = class_items(cls);
    if (!items) return false;
    sb_puts(out, (e >= 'a' && e <= 'z') ? "[" : "[^");
    sb_puts(out, items);
    sb_putc(out, ']');
    return true;
}

/* Word boundaries in PostgreSQL's sense of a word character (\m \M \y \Y). */
static void put_boundary(StrBuf *out, char e)
{
    const char *w = class_items(C_WORD);
    StrBuf cls = STRBUF_INIT;
    if (w) {
        sb_putc(&cls, '[');
        sb_puts(&cls, w);
        sb_putc(&cls, ']');
    } else {
        sb_puts(&cls, "\\w");
    }
    const char *W = sb_cstr(&cls);
    switch (e) {
    case 'm': sb_printf(out, "(?<!%s)(?=%s)", W, W); break;
    case 'M': sb_printf(out, "(?<=%s)(?!%s)", W, W); break;
    case 'y': sb_printf(out, "(?:(?<=%s)(?!%s)|(?<!%s)(?=%s))", W, W, W, W); break;
    default: sb_printf(out, "(?:(?<=%s)(?=%s)|(?<!%s)(?!%s))", W, W, W, W); break;
    }
    sb_free(&cls);
}

/* ---- ARE to PCRE2 ---- */

static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static size_t char_len(const char *p, size_t left)
{
    unsigned char c = (unsigned char)*p;
    size_t l = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    return l <= left ? l : left;
}

/* \uXXXX, \UXXXXXXXX and \xhhh... (ARE: any number of hex digits) as \x{...};
 * p points after the backslash. Returns the bytes consumed, 0 when it is not one. */
static size_t hex_escape(const char *p, size_t left, StrBuf *out)
{
    size_t want = p[0] == 'u' ? 4 : p[0] == 'U' ? 8 : 0, i = 1;
    if (p[0] != 'u' && p[0] != 'U' && p[0] != 'x') return 0;
    while (i < left && is_hex(p[i]) && (want == 0 || i <= want)) i++;
    if (i == 1 || (want && i != want + 1)) return 0;
    sb_puts(out, "\\x{");
    sb_append(out, p + 1, i - 1);
    sb_putc(out, '}');
    return i;
}

/* A bracket expression starting at p[0] == '['; returns the bytes consumed. */
static size_t bracket(const char *p, size_t n, int opts, StrBuf *out)
{
    size_t i = 1;
    sb_putc(out, '[');
    if (i < n && p[i] == '^') {
        sb_putc(out, '^');
        i++;
        if (opts & REGEX_NL_DOT) sb_puts(out, "\\n");   /* newline-sensitive: [^a] excludes \n */
    }
    if (i < n && p[i] == ']') {
        sb_puts(out, "\\]");
        i++;
    }
    while (i < n && p[i] != ']') {
        if (p[i] == '[' && i + 1 < n && (p[i + 1] == '.' || p[i + 1] == '=')) {
            /* [.c.] and [=c=] of a single character: the character itself */
            char d = p[i + 1];
            size_t l = i + 2 < n ? char_len(p + i + 2, n - i - 2) : 0;
            if (l && i + 2 + l + 1 < n && p[i + 2 + l] == d && p[i + 3 + l] == ']') {
                unsigned char c = (unsigned char)p[i + 2];
                if (l == 1 && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                    sb_putc(out, '\\');
                sb_append(out, p + i + 2, l);
                i += l + 4;
                continue;
            }
        }
        if (p[i] == '[' && i + 1 < n && p[i + 1] == ':') {
            const char *end = NULL;
            for (size_t j = i + 2; j + 1 < n; j++)
                if (p[j] == ':' && p[j + 1] == ']') {
                    end = p + j + 2;
                    break;
                }
            if (end) {
                size_t cl = (size_t)(end - (p + i));
                if (!put_class_items(out, p + i + 2, cl - 4, (opts & REGEX_ICASE) != 0)) sb_append(out, p + i, cl);
                i = (size_t)(end - p);
                continue;
            }
        }
        if (p[i] == '\\' && i + 1 < n) {
            char c = p[i + 1];
            size_t h;
            if (c == 'd' || c == 's' || c == 'w') {
                static const char *const nm[] = {"digit", "space", "word"};
                const char *name = nm[c == 'd' ? 0 : c == 's' ? 1 : 2];
                put_class_items(out, name, strlen(name), false);
            } else if (c == 'B') sb_puts(out, "\\\\");
            else if (c == 'v') sb_puts(out, "\\x0b");
            else if ((h = hex_escape(p + i + 1, n - i - 1, out))) {
                i += 1 + h;
                continue;
            } else {
                sb_putc(out, '\\');
                size_t l = char_len(p + i + 1, n - i - 1);
                sb_append(out, p + i + 1, l);
                i += 1 + l;
                continue;
            }
            i += 2;
            continue;
        }
        size_t l = char_len(p + i, n - i);
        sb_append(out, p + i, l);
        i += l;
    }
    if (i < n) {
        sb_putc(out, ']');
        i++;
    }
    return i;
}

/* ARE embedded options "(?letters)" at the start of the pattern; returns the bytes
 * consumed (0: none), -1 for an unknown letter. */
static long embedded_options(const char *p, size_t n, int *opts)
{
    if (n < 3 || p[0] != '(' || p[1] != '?') return 0;
    size_t i = 2;
    while (i < n && ((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z'))) i++;
    if (i == 2 || i >= n || p[i] != ')') return 0;
    for (size_t k = 2; k < i; k++) {
        bool g = false;
        char err[8];
        if (p[k] == 'g' || !regex_parse_flags(p + k, 1, opts, &g, err, sizeof err)) return -1;
    }
    return (long)(i + 1);
}

/* Rewrites an ARE into PCRE2 syntax (adjusting *opts for directors and embedded
 * options). False for an invalid embedded option. */
static bool translate(const char *p, size_t n, int *opts, StrBuf *out, char *err, size_t errsize)
{
    if (*opts & REGEX_LITERAL) {   /* flag q: the whole pattern, directors included */
        sb_append(out, p, n);
        return true;
    }
    if (n >= 4 && memcmp(p, "***=", 4) == 0) {
        *opts |= REGEX_LITERAL;
        p += 4, n -= 4;
    } else if (n >= 4 && memcmp(p, "***:", 4) == 0) {
        p += 4, n -= 4;
    }
    if (!(*opts & REGEX_LITERAL)) {
        long k = embedded_options(p, n, opts);
        if (k < 0) {
            snprintf(err, errsize, "invalid regular expression: invalid embedded option");
            return false;
        }
        p += k, n -= (size_t)k;
    }
    if (*opts & REGEX_LITERAL) {
        sb_append(out, p, n);
        return true;
    }
    size_t i = 0;
    while (i < n) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            char d = p[i + 1];
            const char *rep = NULL;
            switch (d) {
            case 'm': case 'M': case 'y': case 'Y':
                put_boundary(out, d);
                i += 2;
                continue;
            case 'd': case 'D': case 's': case 'S': case 'w': case 'W':
                if (put_escape_class(out, d)) {
                    i += 2;
                    continue;
                }
                break;
            case 'Z': rep = "\\z"; break;
            case 'b': rep = "\\x08"; break;
            case 'B': rep = "\\\\"; break;
            case 'v': rep = "\\x0b"; break;
            default: break;
            }
            if (rep) {
                sb_puts(out, rep);
                i += 2;
                continue;
            }
            size_t h = hex_escape(p + i + 1, n - i - 1, out);
            if (h) {
                i += 1 + h;
                continue;
            }
            size_t l = char_len(p + i + 1, n - i - 1);
            sb_putc(out, '\\');
            sb_append(out, p + i + 1, l);
            i += 1 + l;
            continue;
        }
        if (c == '{' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9') {
            /* a bound {m}, {m,}, {m,n}: ARE requires it closed and at most 255 */
            size_t j = i + 1;
            long lo = 0, hi = -1;
            while (j < n && p[j] >= '0' && p[j] <= '9') lo = lo < 1000 ? lo * 10 + (p[j++] - '0') : 1000;
            if (j < n && p[j] == ',') {
                j++;
                if (j < n && p[j] >= '0' && p[j] <= '9') {
                    hi = 0;
                    while (j < n && p[j] >= '0' && p[j] <= '9') hi = hi < 1000 ? hi * 10 + (p[j++] - '0') : 1000;
                }
            } else {
                hi = lo;
            }
            if (j >= n || p[j] != '}') {
                snprintf(err, errsize, "invalid regular expression: braces {} not balanced");
                return false;
            }
            if (lo > 255 || hi > 255 || (hi >= 0 && hi < lo)) {
                snprintf(err, errsize, "invalid regular expression: invalid repetition count(s)");
                return false;
            }
            sb_append(out, p + i, j + 1 - i);
            i = j + 1;
            continue;
        }
        if (c == '[') {
            if (n - i >= 7 && (memcmp(p + i, "[[:<:]]", 7) == 0 || memcmp(p + i, "[[:>:]]", 7) == 0)) {
                put_boundary(out, p[i + 3] == '<' ? 'm' : 'M');
                i += 7;
                continue;
            }
            i += bracket(p + i, n - i, *opts, out);
            continue;
        }
        size_t l = char_len(p + i, n - i);
        sb_append(out, p + i, l);
        i += l;
    }
    return true;
}

/* PostgreSQL's wording for the PCRE2 compile errors that have an ARE counterpart. */
static const char *pg_message(int code)
{
    switch (code) {
    case PCRE2_ERROR_MISSING_CLOSING_PARENTHESIS:
    case PCRE2_ERROR_UNMATCHED_CLOSING_PARENTHESIS: return "parentheses () not balanced";
    case PCRE2_ERROR_MISSING_SQUARE_BRACKET: return "brackets [] not balanced";
    case PCRE2_ERROR_QUANTIFIER_INVALID:
    case PCRE2_ERROR_INVALID_AFTER_PARENS_QUERY: return "quantifier operand invalid";
    case PCRE2_ERROR_QUANTIFIER_OUT_OF_ORDER:
    case PCRE2_ERROR_QUANTIFIER_TOO_BIG: return "invalid repetition count(s)";
    case PCRE2_ERROR_CLASS_RANGE_ORDER:
    case PCRE2_ERROR_CLASS_INVALID_RANGE: return "invalid character range";
    case PCRE2_ERROR_END_BACKSLASH:
    case PCRE2_ERROR_UNKNOWN_ESCAPE:
    case PCRE2_ERROR_ESCAPE_INVALID_IN_CLASS:
    case PCRE2_ERROR_UNSUPPORTED_ESCAPE_SEQUENCE:
    case PCRE2_ERROR_BACKSLASH_K_SYNTAX:
    case PCRE2_ERROR_BACKSLASH_G_SYNTAX: return "invalid escape \\ sequence";
    case PCRE2_ERROR_BAD_SUBPATTERN_REFERENCE: return "invalid backreference number";
    case PCRE2_ERROR_UNKNOWN_POSIX_CLASS: return "invalid character class";
    case PCRE2_ERROR_POSIX_NO_SUPPORT_COLLATING: return "invalid collating element";
    default: return NULL;
    }
}

static pcre2_compile_context *compile_ctx;
static pthread_once_t compile_ctx_once = PTHREAD_ONCE_INIT;

static void compile_ctx_init(void)
{
    compile_ctx = pcre2_compile_context_create(NULL);
    if (compile_ctx) pcre2_set_newline(compile_ctx, PCRE2_NEWLINE_LF);
}

static pcre2_compile_context *compile_context(void)
{
    pthread_once(&compile_ctx_once, compile_ctx_init);
    return compile_ctx;
}

/* The match data a thread matches with: a compiled expression is shared by the threads
 * that evaluate it, its results are not. Grown to the most groups seen; freed when the
 * thread ends. */
static pthread_key_t md_key;
static pthread_once_t md_once = PTHREAD_ONCE_INIT;

typedef struct ThreadMatch {
    pcre2_match_data *md;
    uint32_t pairs;
} ThreadMatch;

static void md_free(void *p)
{
    ThreadMatch *t = p;
    pcre2_match_data_free(t->md);
    free(t);
}

static void md_init(void) { (void)pthread_key_create(&md_key, md_free); }

static pcre2_match_data *thread_match_data(uint32_t pairs)
{
    pthread_once(&md_once, md_init);
    ThreadMatch *t = pthread_getspecific(md_key);
    if (!t) {
        t = xcalloc(1, sizeof *t);
        (void)pthread_setspecific(md_key, t);
    }
    if (t->pairs < pairs) {
        pcre2_match_data_free(t->md);
        t->md = pcre2_match_data_create(pairs, NULL);
        if (!t->md) {
            fprintf(stderr, "weir: out of memory (regular expression)\n");
            abort();
        }
        t->pairs = pairs;
    }
    return t->md;
}

Regex *regex_compile(const char *pattern, size_t n, int opts, char *err, size_t errsize)
{
    StrBuf sb = STRBUF_INIT;
    if (!translate(pattern, n, &opts, &sb, err, errsize)) {
        sb_free(&sb);
        return NULL;
    }
    uint32_t po = PCRE2_UTF;
    if (opts & REGEX_ICASE) po |= PCRE2_CASELESS;
    if (opts & REGEX_LITERAL) {
        po |= PCRE2_LITERAL;
    } else {
        if (!c_utf8()) po |= PCRE2_UCP;   /* the classes were spelled out from the locale */
        if (!(opts & REGEX_NL_DOT)) po |= PCRE2_DOTALL;
        po |= (opts & REGEX_NL_ANCHOR) ? PCRE2_MULTILINE : PCRE2_DOLLAR_ENDONLY;
        if (opts & REGEX_EXPANDED) po |= PCRE2_EXTENDED;
    }
    int code;
    PCRE2_SIZE off;
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)(sb.data ? sb.data : ""), sb.len, po, &code, &off, compile_context());
    sb_free(&sb);
    if (!c) {
        const char *m = pg_message(code);
        if (m) {
            snprintf(err, errsize, "invalid regular expression: %s", m);
        } else {
            PCRE2_UCHAR buf[160];
            if (pcre2_get_error_message(code, buf, sizeof buf) < 0) snprintf((char *)buf, sizeof buf, "error %d", code);
            snprintf(err, errsize, "invalid regular expression: %s", (const char *)buf);
        }
        return NULL;
    }
    (void)pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);   /* interpreted when JIT is unavailable */
    Regex *re = xmalloc(sizeof *re);
    re->code = c;
    uint32_t groups = 0;
    pcre2_pattern_info(c, PCRE2_INFO_CAPTURECOUNT, &groups);
    re->groups = (int)groups;
    return re;
}

static void release(void *p) { regex_free(p); }

Regex *regex_compile_in(Arena *a, const char *pattern, size_t n, int opts, char *err, size_t errsize)
{
    Regex *re = regex_compile(pattern, n, opts, err, errsize);
    if (re) arena_on_release(a, release, re);
    return re;
}

void regex_free(Regex *re)
{
    if (!re) return;
    pcre2_code_free(re->code);
    free(re);
}

int regex_groups(const Regex *re) { return re->groups; }

int regex_search(Regex *re, const char *s, size_t n, size_t start, bool checked, int64_t *m, int mcap,
                 char *err, size_t errsize)
{
    if (start > n) return 0;
    pcre2_match_data *md = thread_match_data((uint32_t)re->groups + 1);
    int rc = pcre2_match(re->code, (PCRE2_SPTR)(s ? s : ""), n, start, checked ? PCRE2_NO_UTF_CHECK : 0, md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc < 0) {
        if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) {
            snprintf(err, errsize, "invalid byte sequence for encoding \"UTF8\"");
        } else {
            PCRE2_UCHAR buf[160];
            if (pcre2_get_error_message(rc, buf, sizeof buf) < 0) snprintf((char *)buf, sizeof buf, "error %d", rc);
            snprintf(err, errsize, "regular expression failed: %s", (const char *)buf);
        }
        return -1;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    int pairs = re->groups + 1;
    for (int k = 0; k < pairs && 2 * k + 1 < mcap; k++) {
        bool unset = ov[2 * k] == PCRE2_UNSET;
        m[2 * k] = unset ? -1 : (int64_t)ov[2 * k];
        m[2 * k + 1] = unset ? -1 : (int64_t)ov[2 * k + 1];
    }
    return 1;
}
