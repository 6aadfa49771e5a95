/* Compile artifacts: target/manifest.json (project, sources, models with columns,
 * dependencies, IR, state descriptors and fingerprints), target/dag.json, and per model
 * target/ir/<model>.json and target/sql/<model>.sql. Deterministic: the same project
 * always yields byte-identical files. Later `weir plan` diffs a stored manifest with
 * the current one. */
#ifndef WEIR_LIFECYCLE_MANIFEST_H
#define WEIR_LIFECYCLE_MANIFEST_H

#include "ir/ir.h"

/* Render the manifest / DAG into out. */
void manifest_render(const IrGraph *g, StrBuf *out);
void manifest_render_dag(const IrGraph *g, StrBuf *out);
/* Write every artifact under <project dir>/target/ atomically (temp file + rename):
 * manifest.json and dag.json of the whole project, ir/<model>.json and sql/<model>.sql
 * of the models with models[i] true (NULL: every model).
 * Returns false with a message on an I/O error. */
bool manifest_write_all(const IrGraph *g, const char *project_dir, const bool *models, char *err, size_t errsize);

#endif
