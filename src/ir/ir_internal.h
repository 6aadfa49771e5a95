/* Internal interfaces between the IR's build, analysis and explain files. */
#ifndef WEIR_IR_IR_INTERNAL_H
#define WEIR_IR_IR_INTERNAL_H

#include "ir/ir.h"

/* Fill modes, keys, state descriptors and fingerprints of every node and model, and
 * check each model's materialization contract (adds diagnostics). */
void ir_analyze(IrGraph *g, Arena *arena, DiagList *dl);

#endif
