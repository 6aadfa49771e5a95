/* Variable interpolation: ${name} in YAML string values and in model SQL, the SQL
 * offset map behind project_sql_pos, the --vars override, and ${ENV:NAME}, which
 * the loader leaves untouched so secrets are read only by commands that connect
 * (project_resolve_env) and never end up in compiled artifacts.
 * `$${` is an escape for a literal `${` (kept as `$${ENV:` in YAML so that
 * project_resolve_env does not resolve it later; it unescapes it instead). */
#include "project/project_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const VarDef *project_find_var(const Project *p, const char *name)
{
    for (int i = 0; i < p->nvars; i++)
        if (strcmp(p->vars[i].name, name) == 0) return &p->vars[i];
    return NULL;
}

/* Contract: true after a diagnostic at k when name is the built-in ${target}. */
bool project_var_reserved(ProjectLoader *L, const YNode *k, const char *name)
{
    if (strcmp(name, PROJECT_TARGET_VAR) != 0) return false;
    diag_error(L->dl, k->pos, "bad-name", "choose another name",
               "var name 'target' is reserved: ${target} is the name of the selected target");
    return true;
}

/* The text of ${name}: a var, or the built-in ${target} (the selected target's name,
 * known once weir.yml has been read). NULL when unknown. */
static const char *var_text(const Project *p, const char *name, bool *per_target)
{
    if (strcmp(name, PROJECT_TARGET_VAR) == 0) {
        if (per_target && p->target) *per_target = true;
        return p->target ? p->target->name : NULL;
    }
    const VarDef *v = project_find_var(p, name);
    return v ? v->text : NULL;
}

static bool is_env_ref(const char *s, size_t n)
{
    return n >= 4 && memcmp(s, "ENV:", 4) == 0;
}

static const char *unknown_var_hint(ProjectLoader *L, const char *name)
{
    Project *p = L->p;
    if (strcmp(name, PROJECT_TARGET_VAR) == 0)
        return "${target} (the selected target's name) is known in sources, models and their SQL, "
               "not in weir.yml";
    const char **names = ARENA_ARRAY(&p->arena, const char *, p->nvars ? p->nvars : 1);
    for (int i = 0; i < p->nvars; i++) names[i] = p->vars[i].name;
    const char *h = diag_did_you_mean(L->dl, name, names, p->nvars);
    if (h) return h;
    return arena_printf(&p->arena, "declare it in weir.yml (vars: {%s: ...}); --vars '{\"%s\": ...}' then overrides it",
                        name, name);
}

/* A reference found in text: `${` at start, `}` at end-1. */
typedef enum { REF_VAR, REF_ENV, REF_ESCAPE, REF_BAD } RefKind;

typedef struct Ref {
    RefKind kind;
    size_t end;              /* one past the reference */
    size_t name_off, name_len;
} Ref;

/* Scan a reference starting at s[i] == '$' && s[i+1] == '{' (or an escape `$${`):
 * its kind, end and (but for escapes) name span. */
static void scan_ref(const char *s, size_t n, size_t i, Ref *r)
{
    r->name_off = r->name_len = 0;
    if (s[i + 1] == '$') { /* `$${` */
        r->end = i + 3;
        r->kind = REF_ESCAPE;
        return;
    }
    size_t j = i + 2;
    while (j < n && s[j] != '}' && s[j] != '\n' && s[j] != '$' && s[j] != '{') j++;
    r->name_off = i + 2;
    if (j >= n || s[j] != '}') {
        r->end = i + 2;
        r->kind = REF_BAD;
        return;
    }
    r->end = j + 1;
    r->name_len = j - (i + 2);
    r->kind = is_env_ref(s + i + 2, r->name_len) ? REF_ENV : r->name_len == 0 ? REF_BAD : REF_VAR;
}

static bool at_ref(const char *s, size_t n, size_t i)
{
    if (s[i] != '$' || i + 1 >= n) return false;
    if (s[i + 1] == '{') return true;
    return s[i + 1] == '$' && i + 2 < n && s[i + 2] == '{';
}

/* The scanning loop of every interpolation: copies s from *i up to the next reference
 * into out, leaving *i at that reference, and scans it into r. False at the end of s
 * (everything copied). The caller handles the reference and continues at r->end. */
static bool next_ref(const char *s, size_t n, size_t *i, StrBuf *out, Ref *r)
{
    while (*i < n && !at_ref(s, n, *i)) sb_putc(out, s[(*i)++]);
    if (*i >= n) return false;
    scan_ref(s, n, *i, r);
    return true;
}

/* A REF_BAD reference (`${}` when empty, else an unterminated `${`). */
static void bad_ref_error(ProjectLoader *L, SrcPos pos, bool empty)
{
    diag_error(L->dl, pos, "bad-interpolation", "write ${name} to insert a var, or $${ for a literal ${",
               empty ? "empty variable reference '${}'" : "unterminated variable reference '${'");
}

/* ---- YAML ---- */

/* Byte offset of line:col (1-based, col in characters) in text. */
static size_t text_offset(const char *text, size_t len, int line, int col)
{
    size_t i = 0;
    for (int l = 1; l < line && i < len; i++)
        if (text[i] == '\n') l++;
    for (int c = 1; c < col && i < len; i++) {
        if (text[i] == '\n') break;
        /* advance over one UTF-8 character */
        while (i + 1 < len && ((unsigned char)text[i + 1] & 0xC0) == 0x80) i++;
        c++;
    }
    return i;
}

/* The exact position of the k-th occurrence of ref (length rl) at or after the
 * node's start in the file; the node's own position when not found (escapes). */
static SrcPos ref_pos(const YNode *n, const char *text, size_t len, const char *ref, size_t rl,
                      int k)
{
    if (!text || n->pos.line <= 0) return n->pos;
    size_t at = text_offset(text, len, n->pos.line, n->pos.col);
    for (; at + rl <= len; at++) {
        if (memcmp(text + at, ref, rl) == 0) {
            if (k-- == 0) return diag_text_pos(n->pos.file, text, len, at);
        }
    }
    return n->pos;
}

static int count_before(const char *s, size_t upto, const char *ref, size_t rl)
{
    int k = 0;
    for (size_t i = 0; i + rl <= upto; i++)
        if (memcmp(s + i, ref, rl) == 0) k++;
    return k;
}

static void interpolate_scalar(ProjectLoader *L, YNode *n, const char *text, size_t len)
{
    const char *s = n->str;
    size_t sl = n->len;
    if (!memchr(s, '$', sl)) return;
    StrBuf out = STRBUF_INIT;
    bool changed = false;
    size_t i = 0;
    Ref ref;
    while (next_ref(s, sl, &i, &out, &ref)) {
        size_t end = ref.end;
        if (ref.kind == REF_ESCAPE) {
            /* keep `$${ENV:` escaped for project_resolve_env */
            if (is_env_ref(s + i + 3, sl - i - 3)) sb_append(&out, "$${", 3);
            else sb_append(&out, "${", 2);
            changed = true;
        } else if (ref.kind == REF_ENV) {
            sb_append(&out, s + i, end - i);
        } else if (ref.kind == REF_BAD) {
            int nth = count_before(s, i, "${", 2);
            bad_ref_error(L, ref_pos(n, text, len, "${", 2, nth), end == i + 3);
            sb_append(&out, s + i, end - i);
        } else {
            char *name = arena_strndup(&L->p->arena, s + ref.name_off, ref.name_len);
            const char *v = var_text(L->p, name, &n->per_target);
            if (v) {
                sb_puts(&out, v);
                changed = true;
            } else {
                int nth = count_before(s, i, s + i, end - i);
                diag_error(L->dl, ref_pos(n, text, len, s + i, end - i, nth), "unknown-var",
                           unknown_var_hint(L, name), "unknown variable '%s'", name);
                sb_append(&out, s + i, end - i);
            }
        }
        i = end;
    }
    if (changed) {
        n->len = out.len;
        n->str = arena_strndup(&L->p->arena, sb_cstr(&out), out.len);
    }
    sb_free(&out);
}

static void walk(ProjectLoader *L, YNode *n, const char *text, size_t len)
{
    if (!n) return;
    switch (n->kind) {
    case YNODE_SCALAR:
        interpolate_scalar(L, n, text, len);
        break;
    case YNODE_SEQ:
        for (int i = 0; i < n->nitems; i++) walk(L, n->items[i], text, len);
        break;
    case YNODE_MAP:
        for (int i = 0; i < n->npairs; i++) walk(L, n->pairs[i].value, text, len);
        break;
    }
}

void project_interpolate_tree(ProjectLoader *L, YNode *root, const char *text, size_t len)
{
    walk(L, root, text, len);
}

/* ---- SQL ---- */

typedef struct MapBuilder {
    int *sql, *raw;
    int n, cap;
} MapBuilder;

static void map_add(MapBuilder *mb, int sql, int raw)
{
    /* an entry that continues the previous segment linearly is redundant */
    if (mb->n > 0) {
        int i = mb->n - 1;
        if (sql - mb->sql[i] + mb->raw[i] == raw) return;
        if (mb->sql[i] == sql) { /* a later entry at the same sql offset wins */
            mb->raw[i] = raw;
            return;
        }
    }
    if (mb->n == mb->cap) {
        mb->cap = mb->cap ? mb->cap * 2 : 16;
        mb->sql = xrealloc(mb->sql, sizeof(int) * (size_t)mb->cap);
        mb->raw = xrealloc(mb->raw, sizeof(int) * (size_t)mb->cap);
    }
    mb->sql[mb->n] = sql;
    mb->raw[mb->n] = raw;
    mb->n++;
}

/* Where a position of model SQL stands lexically, for what ${name} inserts there. */
typedef enum SqlCtx {
    SQL_CODE,                    /* outside strings, identifiers and comments */
    SQL_STRING,                  /* '...' (quotes doubled) */
    SQL_ESTRING,                 /* E'...' (backslash escapes, \' and '' are quotes) */
    SQL_USTRING,                 /* U&'...' (backslash starts a Unicode escape) */
    SQL_DOLLAR,                  /* $tag$...$tag$ (nothing is escaped) */
    SQL_IDENT,                   /* "..." (quotes doubled) */
    SQL_LINE_COMMENT,            /* -- to the end of the line */
    SQL_BLOCK_COMMENT,           /* / * ... * / (nested, as PostgreSQL nests them) */
} SqlCtx;

typedef struct SqlLex {
    SqlCtx ctx;
    int depth;                   /* SQL_BLOCK_COMMENT: nesting */
    size_t tag_off, tag_len;     /* SQL_DOLLAR: the delimiter $tag$ in the raw text */
    size_t delim_end;            /* just past the last dollar-quote delimiter lexed */
} SqlLex;

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           (unsigned char)c >= 0x80;
}

/* The length of a dollar-quote delimiter ($$ or $tag$) at s[k], 0 when none. */
static size_t dollar_tag(const char *s, size_t k, size_t to)
{
    if (s[k] != '$' || (k > 0 && ident_char(s[k - 1]))) return 0; /* x$y$ is an identifier */
    size_t j = k + 1;
    if (j < to && s[j] >= '0' && s[j] <= '9') return 0;           /* $1: a parameter */
    while (j < to && s[j] != '$' && ident_char(s[j])) j++;
    return j < to && s[j] == '$' ? j + 1 - k : 0;
}

/* Advances the lexical state over s[from, to) (the raw SQL between references). */
static void sql_lex(const char *s, size_t from, size_t to, SqlLex *lx)
{
    for (size_t k = from; k < to; k++) {
        char c = s[k];
        switch (lx->ctx) {
        case SQL_CODE: {
            if (c == '\'' ) {
                bool e = k > 0 && (s[k - 1] == 'E' || s[k - 1] == 'e') && (k < 2 || !ident_char(s[k - 2]));
                bool u = k > 1 && s[k - 1] == '&' && (s[k - 2] == 'U' || s[k - 2] == 'u') &&
                         (k < 3 || !ident_char(s[k - 3]));
                lx->ctx = e ? SQL_ESTRING : u ? SQL_USTRING : SQL_STRING;
            } else if (c == '"') {
                lx->ctx = SQL_IDENT;
            } else if (c == '-' && k + 1 < to && s[k + 1] == '-') {
                lx->ctx = SQL_LINE_COMMENT;
                k++;
            } else if (c == '/' && k + 1 < to && s[k + 1] == '*') {
                lx->ctx = SQL_BLOCK_COMMENT;
                lx->depth = 1;
                k++;
            } else if (c == '$') {
                size_t t = dollar_tag(s, k, to);
                if (t) {
                    lx->ctx = SQL_DOLLAR;
                    lx->tag_off = k;
                    lx->tag_len = t;
                    k += t - 1;
                    lx->delim_end = k + 1;
                }
            }
            break;
        }
        case SQL_STRING:
        case SQL_USTRING:
            if (c == '\'') lx->ctx = SQL_CODE;  /* '' inside toggles twice */
            break;
        case SQL_ESTRING:
            if (c == '\\') k++;                 /* \' and \\ are escapes */
            else if (c == '\'') lx->ctx = SQL_CODE;
            break;
        case SQL_IDENT:
            if (c == '"') lx->ctx = SQL_CODE;
            break;
        case SQL_LINE_COMMENT:
            if (c == '\n') lx->ctx = SQL_CODE;
            break;
        case SQL_BLOCK_COMMENT:
            if (c == '/' && k + 1 < to && s[k + 1] == '*') lx->depth++, k++;
            else if (c == '*' && k + 1 < to && s[k + 1] == '/') {
                k++;
                if (--lx->depth == 0) lx->ctx = SQL_CODE;
            }
            break;
        case SQL_DOLLAR:
            if (c == '$' && to - k >= lx->tag_len && memcmp(s + k, s + lx->tag_off, lx->tag_len) == 0) {
                k += lx->tag_len - 1;
                lx->ctx = SQL_CODE;
                lx->delim_end = k + 1;
            }
            break;
        }
    }
}

/* A number (optionally signed, with a fraction or exponent), true, false or null. */
static bool is_sql_literal_word(const char *v)
{
    if (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "null") == 0) return true;
    const char *c = v;
    if (*c == '-' || *c == '+') c++;
    bool digits = false;
    while (*c >= '0' && *c <= '9') c++, digits = true;
    if (*c == '.') {
        c++;
        while (*c >= '0' && *c <= '9') c++, digits = true;
    }
    if (digits && (*c == 'e' || *c == 'E')) {
        c++;
        if (*c == '-' || *c == '+') c++;
        if (!(*c >= '0' && *c <= '9')) return false;
        while (*c >= '0' && *c <= '9') c++;
    }
    return digits && *c == '\0';
}

/* What ${name} puts into SQL (docs/cli.md "Variables"): a SQL literal, so a var is never
 * read as an identifier: numbers, true, false and null as written, any other value as a
 * string literal ('usd', quotes doubled). Inside a string of the SQL its text, escaped as
 * that string needs it: '...' quotes doubled; E'...' and U&'...' also backslashes
 * doubled; $tag$...$tag$ as it is (NULL with *why set when the text holds the delimiter
 * $tag$, which would end the string); inside a "..." identifier double quotes doubled.
 * ${raw:name} is its text as it is (identifiers, SQL fragments), anywhere. */
static const char *sql_var_text(Project *p, const char *name, const char *v, bool raw, const char *sql,
                                const SqlLex *lx, const char **why)
{
    if (raw) return v;
    const VarDef *d = strcmp(name, PROJECT_TARGET_VAR) == 0 ? NULL : project_find_var(p, name);
    bool literal_word = (!d || !d->is_string) && is_sql_literal_word(v) && strcmp(name, PROJECT_TARGET_VAR) != 0;
    bool code = lx->ctx == SQL_CODE || lx->ctx == SQL_LINE_COMMENT || lx->ctx == SQL_BLOCK_COMMENT;
    if (literal_word && code) return v;
    if (lx->ctx == SQL_DOLLAR) {
        const char *tag = arena_strndup(&p->arena, sql + lx->tag_off, lx->tag_len);
        if (strstr(v, tag)) {
            *why = arena_printf(&p->arena, "its value holds %s, which would end the dollar-quoted string", tag);
            return NULL;
        }
        return v;
    }
    StrBuf b = STRBUF_INIT;
    char quote = lx->ctx == SQL_IDENT ? '"' : '\'';
    bool backslashes = lx->ctx == SQL_ESTRING || lx->ctx == SQL_USTRING;
    if (code) sb_putc(&b, '\'');
    for (const char *c = v; *c; c++) {
        if (*c == quote || (backslashes && *c == '\\')) sb_putc(&b, *c);
        sb_putc(&b, *c);
    }
    if (code) sb_putc(&b, '\'');
    const char *r = arena_strdup(&p->arena, sb_cstr(&b));
    sb_free(&b);
    return r;
}

/* Contract: reads m->raw_sql (NUL-terminated, m->sql_file for positions); sets m->sql
 * and the map so every byte of the result maps back to the raw file: text copied
 * through maps to itself, every byte of an inserted value maps to its `${`. */
void project_interpolate_sql(ProjectLoader *L, ModelDef *m)
{
    const char *s = m->raw_sql;
    size_t sl = strlen(s);
    StrBuf out = STRBUF_INIT;
    MapBuilder mb = {0};
    map_add(&mb, 0, 0);
    size_t i = 0, scanned = 0;
    SqlLex lx = {SQL_CODE, 0, 0, 0, 0};
    Ref ref;
    while (next_ref(s, sl, &i, &out, &ref)) {
        if (ref.kind == REF_ESCAPE) {
            /* `$$${x}`, `$t$${x}`: the first $ ends a dollar-quote delimiter, the var
             * follows (a delimiter always ends in $, so $${ cannot be the escape there) */
            SqlLex after = lx;
            sql_lex(s, scanned, i + 1, &after);
            if (after.delim_end == i + 1) {
                sb_putc(&out, '$');
                lx = after;
                scanned = ++i;
                scan_ref(s, sl, i, &ref);
            }
        }
        size_t end = ref.end;
        const char *ins = NULL;
        size_t insl = 0;
        SrcPos pos = diag_text_pos(m->sql_file, s, sl, i);
        if (ref.kind == REF_ESCAPE) {
            ins = "${";
            insl = 2;
        } else if (ref.kind == REF_ENV) {
            diag_error(L->dl, pos, "env-in-sql",
                       "pass the value through a var (--vars) or keep secrets in weir.yml targets",
                       "environment references are not allowed in model SQL: it is compiled "
                       "into artifacts and printed by explain");
        } else if (ref.kind == REF_BAD) {
            bad_ref_error(L, pos, end == i + 3);
        } else {
            /* where the reference stands: in a string of the SQL, an identifier or not */
            sql_lex(s, scanned, i, &lx);
            bool raw = ref.name_len > 4 && memcmp(s + ref.name_off, "raw:", 4) == 0;
            size_t off = raw ? 4 : 0;
            char *name = arena_strndup(&L->p->arena, s + ref.name_off + off, ref.name_len - off);
            const char *v = var_text(L->p, name, NULL);
            const char *why = NULL;
            if (v && (ins = sql_var_text(L->p, name, v, raw, s, &lx, &why))) {
                insl = strlen(ins);
            } else if (v) {
                diag_error(L->dl, pos, "bad-var", "use another delimiter for the string ($x$...$x$)",
                           "variable '%s' cannot be put into this string: %s", name, why);
            } else {
                diag_error(L->dl, pos, "unknown-var", unknown_var_hint(L, name),
                           "unknown variable '%s'", name);
            }
        }
        if (!ins) { /* keep the text as written so later errors still point at it */
            ins = s + i;
            insl = end - i;
        }
        for (size_t c = 0; c < insl; c++) map_add(&mb, (int)(out.len + c), (int)i);
        sb_append(&out, ins, insl);
        i = end;
        scanned = end;
        map_add(&mb, (int)out.len, (int)i);
    }
    Arena *a = &L->p->arena;
    m->sql = arena_strndup(a, out.len ? out.data : "", out.len);
    m->nmap = mb.n;
    m->map_sql_off = ARENA_ARRAY(a, int, mb.n);
    m->map_raw_off = ARENA_ARRAY(a, int, mb.n);
    memcpy(m->map_sql_off, mb.sql, sizeof(int) * (size_t)mb.n);
    memcpy(m->map_raw_off, mb.raw, sizeof(int) * (size_t)mb.n);
    free(mb.sql);
    free(mb.raw);
    sb_free(&out);
}

/* Contract: sql_offset is a byte offset into m->sql (clamped into range). Returns
 * m->sql_file with the 1-based line and character column of the raw byte it came from. */
SrcPos project_sql_pos(const ModelDef *m, int sql_offset)
{
    SrcPos none = {m ? m->sql_file : NULL, 0, 0};
    if (!m || !m->raw_sql) return none;
    size_t rawlen = strlen(m->raw_sql);
    if (sql_offset < 0) sql_offset = 0;
    int raw = sql_offset;
    if (m->nmap > 0 && m->map_sql_off) {
        int lo = 0, hi = m->nmap - 1, best = 0;
        while (lo <= hi) { /* last entry with map_sql_off <= sql_offset */
            int mid = (lo + hi) / 2;
            if (m->map_sql_off[mid] <= sql_offset) {
                best = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        raw = sql_offset - m->map_sql_off[best] + m->map_raw_off[best];
    }
    if (raw < 0) raw = 0;
    if ((size_t)raw > rawlen) raw = (int)rawlen;
    return diag_text_pos(m->sql_file, m->raw_sql, rawlen, (size_t)raw);
}

/* ---- --vars ---- */

void project_apply_vars_json(ProjectLoader *L, const char *json)
{
    Project *p = L->p;
    const char *file = "--vars";
    YNode *root = project_parse_yaml(L, file, json, strlen(json));
    if (!root) return;
    if (root->kind != YNODE_MAP) {
        diag_error(L->dl, root->pos, "bad-vars", "example: --vars '{\"min_amount\": 1}'",
                   "--vars must be a JSON object, found %s", yaml_kind_name(root));
        return;
    }
    for (int i = 0; i < root->npairs; i++) {
        YNode *k = root->pairs[i].key, *v = root->pairs[i].value;
        const char *name = project_expect_str(L, k, "a --vars name");
        if (!name) continue;
        if (project_var_reserved(L, k, name)) continue;
        if (v->kind != YNODE_SCALAR) {
            diag_error(L->dl, v->pos, "bad-vars", "vars are scalars: numbers, strings, booleans",
                       "var '%s' must be a scalar, found %s", name, yaml_kind_name(v));
            continue;
        }
        VarDef *d = (VarDef *)project_find_var(p, name);
        if (!d) {
            PROJECT_GROW(L, p->vars, p->nvars, L->cap_vars);
            d = &p->vars[p->nvars++];
            memset(d, 0, sizeof *d);
            d->name = name;
        }
        d->text = v->str;
        d->is_string = v->quoted;
    }
}

/* ---- ${ENV:NAME} ---- */

/* Contract: returns s with every ${ENV:NAME} replaced by the variable's value and
 * `$${` unescaped, as an arena string; NULL with a message in err when a variable
 * is unset or a reference is malformed. */
const char *project_resolve_env(Project *p, const char *s, char *err, size_t errsize)
{
    if (!s) return NULL;
    size_t sl = strlen(s);
    StrBuf out = STRBUF_INIT;
    size_t i = 0;
    Ref ref;
    while (next_ref(s, sl, &i, &out, &ref)) {
        size_t end = ref.end;
        if (ref.kind == REF_ESCAPE) {
            sb_append(&out, "${", 2);
        } else if (ref.kind == REF_ENV) {
            char *name = arena_strndup(&p->arena, s + ref.name_off + 4, ref.name_len - 4);
            const char *val = name[0] ? getenv(name) : NULL;
            if (!val) {
                if (err && errsize)
                    snprintf(err, errsize, "environment variable %s is not set",
                             name[0] ? name : "(empty name)");
                sb_free(&out);
                return NULL;
            }
            sb_puts(&out, val);
        } else {
            sb_append(&out, s + i, end - i);
        }
        i = end;
    }
    const char *r = arena_strndup(&p->arena, out.len ? out.data : "", out.len);
    sb_free(&out);
    return r;
}
