/* YAML documents with positions: the adapter over libyaml (the only file that
 * includes yaml.h). Produces an arena-allocated tree of YNode; every node keeps its
 * file:line:col so the loader can point diagnostics at the offending key or value. */
#ifndef WEIR_BASE_YAML_H
#define WEIR_BASE_YAML_H

#include "base/arena.h"
#include "base/diag.h"

#include <stdbool.h>

typedef enum { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP } YNodeKind;

typedef struct YNode YNode;
typedef struct YPair { YNode *key; YNode *value; } YPair;

struct YNode {
    YNodeKind kind;
    SrcPos pos;          /* start of the node */
    /* scalar */
    const char *str;     /* NUL-terminated text */
    size_t len;
    bool quoted;         /* quoted scalars are always strings; plain `null`/`~` is NULL */
    bool per_target;     /* set by the project loader: the text interpolated ${target} */
    /* sequence */
    YNode **items;
    int nitems;
    /* mapping, in document order */
    YPair *pairs;
    int npairs;
};

/* Parse text (one document) into a tree allocated in arena. `file` is used for
 * positions. On a syntax error adds a diagnostic (with file:line:col) and returns NULL.
 * An empty document yields NULL without a diagnostic.
 * Also rejected (diagnostic, NULL): aliases (code yaml-alias), a second document
 * (yaml-multiple-documents), nesting deeper than 200 (yaml-too-deep). A key repeated
 * in one mapping is reported at the second key (duplicate-key) and dropped; the
 * tree is still returned, so callers check dl->errors, not only the result.
 * Columns count characters (UTF-8), not bytes. */
YNode *yaml_parse(Arena *arena, const char *file, const char *text, size_t len, DiagList *dl);

/* Mapping lookup by key text; NULL when absent or when m is not a mapping. */
YNode *yaml_get(const YNode *m, const char *key);
/* True for a plain (unquoted) scalar spelled null, Null, NULL or ~, or an empty plain scalar. */
bool yaml_is_null(const YNode *n);
/* Human name of the node kind for messages: "a string", "a list", "a mapping"
 * ("null" for a null scalar, "nothing" for NULL). */
const char *yaml_kind_name(const YNode *n);

#endif
