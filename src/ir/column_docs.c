/* The `columns:` of a model's config document its output columns: each documented name
 * must be a column the model's query produces (a misspelt name is an error at its
 * position in the YAML, with a did-you-mean). */
#include "ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

void ir_check_column_docs(const BoundProject *bp, DiagList *dl)
{
    for (int i = 0; i < bp->nmodels; i++) {
        const ModelDef *m = bp->models[i].model;
        const PlanNode *root = bp->models[i].root;
        if (!m || !root || !m->ncolumn_docs) continue;
        const char **names = xcalloc((size_t)root->ncols + 1, sizeof *names);
        for (int c = 0; c < root->ncols; c++) names[c] = root->cols[c].name;
        for (int k = 0; k < m->ncolumn_docs; k++) {
            const ModelColumnDoc *d = &m->column_docs[k];
            bool found = false;
            for (int c = 0; c < root->ncols && !found; c++) found = strcmp(names[c], d->name) == 0;
            if (found) continue;
            const char *hint = diag_did_you_mean(dl, d->name, names, root->ncols);
            if (!hint) {
                StrBuf sb = STRBUF_INIT;
                for (int c = 0; c < root->ncols; c++) sb_printf(&sb, "%s%s", c ? ", " : "its columns: ", names[c]);
                hint = arena_strdup(&dl->arena, sb_cstr(&sb));
                sb_free(&sb);
            }
            diag_error(dl, d->pos, "unknown-column", hint, "model '%s' has no column '%s' to document", m->name,
                       d->name);
        }
        free(names);
    }
}
