/* YAML adapter over libyaml's event API (the only file that includes yaml.h).
 * Builds an arena-allocated YNode tree with 1-based line:col on every node, rejects
 * aliases (a shared node would make positions ambiguous and allows "billion laughs"
 * blow-ups in consumers), rejects duplicate mapping keys, multiple documents and
 * absurdly deep nesting. The tree is built with an explicit stack, so input depth
 * never turns into C recursion. */
#include "base/yaml.h"

#include "base/strmap.h"

#include <yaml.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting limit: far beyond any project file, low enough that consumers may recurse. */
#define YAML_MAX_DEPTH 200

typedef struct Frame {
    YNode *node;
    YNode **kids;      /* heap: sequence items, or alternating key/value for mappings */
    int nkids, cap;
} Frame;

typedef struct Builder {
    Arena *arena;
    const char *file;
    const char *text;
    size_t len;
    DiagList *dl;
    Frame *stack;
    int depth, cap;
    YNode *root;
    bool failed;
} Builder;

static SrcPos mark_pos(const Builder *b, yaml_mark_t m)
{
    SrcPos p = {b->file, (int)m.line + 1, (int)m.column + 1};
    return p;
}

/* Position of a byte offset (libyaml reader errors carry only an offset). */
static SrcPos offset_pos(const Builder *b, size_t off)
{
    return diag_text_pos(b->file, b->text, b->len, off);
}

static void push_kid(Frame *f, YNode *n)
{
    if (f->nkids == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 8;
        f->kids = xrealloc(f->kids, sizeof(YNode *) * (size_t)f->cap);
    }
    f->kids[f->nkids++] = n;
}

static bool same_key(const YNode *a, const YNode *b)
{
    return a->kind == YNODE_SCALAR && b->kind == YNODE_SCALAR && a->len == b->len &&
           memcmp(a->str, b->str, a->len) == 0;
}

/* Attach a finished node to its parent (or make it the root). */
static void attach(Builder *b, YNode *n)
{
    if (b->depth == 0) {
        b->root = n;
        return;
    }
    push_kid(&b->stack[b->depth - 1], n);
}

static bool open_node(Builder *b, YNode *n)
{
    if (b->depth >= YAML_MAX_DEPTH) {
        diag_error(b->dl, n->pos, "yaml-too-deep", "flatten the document",
                   "YAML nesting is deeper than %d levels", YAML_MAX_DEPTH);
        b->failed = true;
        return false;
    }
    if (b->depth == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->stack = xrealloc(b->stack, sizeof(Frame) * (size_t)b->cap);
    }
    Frame *f = &b->stack[b->depth++];
    memset(f, 0, sizeof *f);
    f->node = n;
    return true;
}

static void close_node(Builder *b)
{
    Frame *f = &b->stack[--b->depth];
    YNode *n = f->node;
    if (n->kind == YNODE_SEQ) {
        n->nitems = f->nkids;
        n->items = ARENA_ARRAY(b->arena, YNode *, f->nkids ? f->nkids : 1);
        if (f->nkids) memcpy(n->items, f->kids, sizeof(YNode *) * (size_t)f->nkids);
    } else {
        int np = f->nkids / 2;
        n->pairs = ARENA_ARRAY(b->arena, YPair, np ? np : 1);
        /* large mappings (a project's `models:`) find duplicates through a map, so
         * parsing stays linear */
        StrMap seen = STRMAP_INIT;
        bool use_map = np > 16;
        for (int i = 0; i < np; i++) {
            YNode *k = f->kids[2 * i], *v = f->kids[2 * i + 1];
            bool dup = false;
            if (use_map && k->kind == YNODE_SCALAR) {
                dup = strmap_get_n(&seen, k->str, k->len) >= 0;
                if (!dup) strmap_put_n(&seen, k->str, k->len, i);
            } else {
                for (int j = 0; j < n->npairs && !dup; j++) dup = same_key(n->pairs[j].key, k);
            }
            if (dup) {
                /* keep the first definition; the second is reported where it is */
                diag_error(b->dl, k->pos, "duplicate-key", "remove one of the two entries",
                           "duplicate key '%s'", k->str);
                continue;
            }
            n->pairs[n->npairs].key = k;
            n->pairs[n->npairs].value = v;
            n->npairs++;
        }
        strmap_fini(&seen);
    }
    free(f->kids);
    attach(b, n);
}

static YNode *new_node(Builder *b, YNodeKind kind, yaml_mark_t m)
{
    YNode *n = ARENA_NEW(b->arena, YNode);
    n->kind = kind;
    n->pos = mark_pos(b, m);
    return n;
}

static void syntax_error(Builder *b, yaml_parser_t *ps)
{
    SrcPos pos;
    if (ps->error == YAML_READER_ERROR)
        pos = offset_pos(b, ps->problem_offset);
    else
        pos = mark_pos(b, ps->problem_mark);
    const char *hint = NULL;
    /* the commonest YAML mistake: a tab used for indentation */
    if (ps->error != YAML_READER_ERROR && ps->problem_mark.index < b->len) {
        /* index counts characters; find the byte at line:col instead */
        const char *t = b->text, *end = b->text + b->len;
        for (int l = 1; l < pos.line && t < end; t++)
            if (*t == '\n') l++;
        for (int c = 1; c < pos.col && t < end; t++)
            if (((unsigned char)*t & 0xC0) != 0x80) c++;
        if (t < end && *t == '\t') hint = "YAML does not allow tabs for indentation; use spaces";
    }
    if (!hint && ps->error == YAML_READER_ERROR) hint = "project files must be UTF-8 text";
    const char *problem = ps->problem ? ps->problem : "unknown error";
    if (ps->context)
        diag_error(b->dl, pos, "yaml-syntax", hint, "invalid YAML: %s (%s at line %d)", problem,
                   ps->context, (int)ps->context_mark.line + 1);
    else
        diag_error(b->dl, pos, "yaml-syntax", hint, "invalid YAML: %s", problem);
    b->failed = true;
}

YNode *yaml_parse(Arena *arena, const char *file, const char *text, size_t len, DiagList *dl)
{
    Builder b;
    memset(&b, 0, sizeof b);
    if (!text) text = "", len = 0;
    b.arena = arena;
    b.file = file ? arena_strdup(arena, file) : NULL;
    b.text = text;
    b.len = len;
    b.dl = dl;

    yaml_parser_t ps;
    if (!yaml_parser_initialize(&ps)) {
        fprintf(stderr, "weir: out of memory (yaml parser)\n");
        abort();
    }
    yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
    yaml_parser_set_encoding(&ps, YAML_UTF8_ENCODING);

    int ndocs = 0;
    bool done = false;
    while (!done && !b.failed) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&ps, &ev)) {
            syntax_error(&b, &ps);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++ndocs > 1) {
                diag_error(dl, mark_pos(&b, ev.start_mark), "yaml-multiple-documents",
                           "put each definition in the one document, or split the file",
                           "only one YAML document per file is supported");
                b.failed = true;
            }
            break;
        case YAML_ALIAS_EVENT:
            diag_error(dl, mark_pos(&b, ev.start_mark), "yaml-alias",
                       "write the value out in full",
                       "YAML aliases (*%s) are not supported", (const char *)ev.data.alias.anchor);
            b.failed = true;
            break;
        case YAML_SCALAR_EVENT: {
            YNode *n = new_node(&b, YNODE_SCALAR, ev.start_mark);
            n->len = ev.data.scalar.length;
            n->str = arena_strndup(arena, (const char *)ev.data.scalar.value, n->len);
            n->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
                        (ev.data.scalar.tag &&
                         strcmp((const char *)ev.data.scalar.tag, YAML_STR_TAG) == 0);
            attach(&b, n);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
            open_node(&b, new_node(&b, YNODE_SEQ, ev.start_mark));
            break;
        case YAML_MAPPING_START_EVENT:
            open_node(&b, new_node(&b, YNODE_MAP, ev.start_mark));
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (b.depth > 0) close_node(&b);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&ps);
    while (b.depth > 0) free(b.stack[--b.depth].kids);
    free(b.stack);
    return b.failed ? NULL : b.root;
}

YNode *yaml_get(const YNode *m, const char *key)
{
    if (!m || m->kind != YNODE_MAP || !key) return NULL;
    size_t kl = strlen(key);
    for (int i = 0; i < m->npairs; i++) {
        const YNode *k = m->pairs[i].key;
        if (k->kind == YNODE_SCALAR && k->len == kl && memcmp(k->str, key, kl) == 0)
            return m->pairs[i].value;
    }
    return NULL;
}

bool yaml_is_null(const YNode *n)
{
    if (!n || n->kind != YNODE_SCALAR || n->quoted) return false;
    return n->len == 0 || strcmp(n->str, "~") == 0 || strcmp(n->str, "null") == 0 ||
           strcmp(n->str, "Null") == 0 || strcmp(n->str, "NULL") == 0;
}

const char *yaml_kind_name(const YNode *n)
{
    if (!n) return "nothing";
    switch (n->kind) {
    case YNODE_SEQ: return "a list";
    case YNODE_MAP: return "a mapping";
    default: return yaml_is_null(n) ? "null" : "a string";
    }
}
