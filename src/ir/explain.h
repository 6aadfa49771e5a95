/* Rendering of the IR for people and programs: `weir explain` text, JSON and DOT,
 * and the per-model JSON that `weir compile` embeds in target/manifest.json.
 * The JSON shape is a stable contract documented in docs/explain-json.md. */
#ifndef WEIR_IR_EXPLAIN_H
#define WEIR_IR_EXPLAIN_H

#include "base/jsonw.h"
#include "ir/ir.h"

/* The models with wanted[m] set (wanted NULL: every model), in dependency order.
 * Appends to out. */
void ir_explain_text(const IrGraph *g, const bool *wanted, StrBuf *out);
void ir_explain_json(const IrGraph *g, const bool *wanted, StrBuf *out);
void ir_explain_dot(const IrGraph *g, const bool *wanted, StrBuf *out);

/* One model as a JSON object (name, materialization, columns, modes, fingerprint,
 * dependencies, operator tree with state descriptors). */
void ir_model_json(JsonW *w, const IrGraph *g, int model);
/* One state descriptor as a JSON object. */
void ir_state_json(JsonW *w, const StateDesc *s);
/* One-line description of an operator, e.g. "Filter (status <> 'cancelled')". */
const char *ir_node_detail(const IrGraph *g, const IrNode *n, Arena *a);

#endif
