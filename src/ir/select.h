/* Node selection with dbt's selector grammar over the project's DAG (models, the sources
 * they read, and the tests of each model). One pure function serves every command that
 * takes models, so `weir ls`, compile, explain, test, run and plan select identically.
 *
 * Grammar (docs/cli.md#selecting-models):
 *   selection := set ( ' ' set )*            space: union
 *   set       := atom ( ',' atom )*          comma: intersection
 *   atom      := [ '@' | [N] '+' ] body [ '+' [N] ]
 *   body      := NAME | GLOB | tag:TAG | path:PATH | source:NAME
 * `+x` adds x's ancestors, `x+` its descendants, `N+x` / `x+N` at most N levels away,
 * `@x` x's descendants and all of their ancestors. A NAME is a model or a test; a
 * source:NAME is a source (`shop.orders`) or every source of a group (`shop`) and
 * selects the source with the models that read it. Tests follow their model: a test is
 * selected when its model is (or when it is named). --exclude uses the same grammar and
 * is removed from the result. */
#ifndef WEIR_IR_SELECT_H
#define WEIR_IR_SELECT_H

#include "sql/binder.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct Selection {
    bool *models;       /* [project->nmodels] */
    bool *sources;      /* [project->nsources] */
    bool *tests;        /* [project->ntests] */
    int nmodels, nsources, ntests;   /* how many of each are selected */
} Selection;

/* Resolves `select` (NULL or empty: every node) minus `exclude` (NULL or empty: none)
 * over bp's project. Returns true with *out filled (free with selection_free), or false
 * with a message in err (an unknown name, tag, path or source with a did-you-mean, or a
 * malformed atom) and *out zeroed. Never prints. */
bool select_nodes(const BoundProject *bp, const char *select, const char *exclude, Selection *out, char *err,
                  size_t errsize);
void selection_free(Selection *s);

#endif
