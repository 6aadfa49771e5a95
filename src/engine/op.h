/* Internal operator interface of the engine (not for use outside src/engine and its
 * unit tests). An operator is one IrNode's executable instance: it reads the output
 * batches of its input operators during a step (borrowed: valid only for the step) and
 * writes its own output batch, which the pipeline clears at the end of the step.
 * Operators with several inputs (joins, set operations: a later issue) read all their
 * input batches in the same step call. Event time reaches operators through
 * on_watermark, called after step() whenever the minimum watermark over the
 * operator's inputs advanced, so rows of a step are judged against the watermark in
 * force before it. Stateful operators keep explicit state structures that can be
 * serialised to bytes (checkpoints) and restored. */
#ifndef WEIR_ENGINE_OP_H
#define WEIR_ENGINE_OP_H

#include "base/strbuf.h"
#include "engine/engine.h"
#include "engine/eval.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Op Op;

/* Per-step context handed to operators. */
typedef struct OpCtx {
    EngPipeline *p;
    uint64_t step;           /* step number, 1 for the first step */
    char *err;               /* fatal error message (a step returning false fills it) */
    size_t errsize;
} OpCtx;

typedef struct OpVtbl {
    const char *kind;        /* "filter", "aggregate", ... */
    /* Process this step's input batches into op->out. False = fatal error (ctx->err). */
    bool (*step)(Op *op, OpCtx *ctx);
    /* The event-time frontier of the inputs advanced to wm (may append to op->out).
     * NULL when the operator does not depend on event time. */
    bool (*on_watermark)(Op *op, OpCtx *ctx, int64_t wm);
    /* Release the operator's own memory (op_base_fini releases the common part). */
    void (*free)(Op *op);
    /* Write up to max entries (one per state descriptor); return how many exist.
     * NULL for stateless operators. */
    int (*state_stats)(const Op *op, EngStateStats *out, int max);
    /* Checkpoint hooks: append the state to out / replace the state from bytes.
     * NULL for stateless operators. The format is private to the operator kind and
     * versioned; deserialize validates it and fails with a message on bad input. */
    bool (*serialize)(const Op *op, StrBuf *out);
    bool (*deserialize)(Op *op, const uint8_t *data, size_t len, char *err, size_t errsize);
} OpVtbl;

struct Op {
    const OpVtbl *vt;
    const IrNode *node;      /* NULL for engine-internal operators (changelog normalize) */
    EngPipeline *p;
    Op **in;                 /* input operators (their ->out is read during step) */
    int nin;
    Batch *out;              /* this step's output: &own, or a borrowed batch (source, ref) */
    Batch own;
    Type *out_types;         /* ncols output column types */
    int ncols;
    const char *model_name;  /* for dead letters: the owning model (or source) name */
    int64_t wm;              /* event-time frontier: min over inputs (sources: the source's) */
};

/* ---- common helpers (op_common.c) ---- */

/* Initialise the common part: output batch of the node's columns, types, inputs
 * (the array is copied). With node == NULL (engine-internal operators) the operator
 * has no columns until its constructor sets ncols/out_types/own itself. */
void op_base_init(Op *op, const OpVtbl *vt, EngPipeline *p, const IrNode *node, Op **inputs, int nin);
void op_base_fini(Op *op);
/* Report row `row` of input `input`'s batch as a dead letter with `reason` and the
 * operator's model name (the row is dropped by the caller). */
void op_dead_letter(Op *op, int input, int row, const char *reason);
/* Representation equality of two rows (1.50 and 1.5 differ; NULL equals NULL): the
 * test "is this output row unchanged" used before emitting -old/+new. */
bool op_rows_identical(const Type *types, int n, const Value *a, const Value *b);
bool op_cell_identical(Type t, const Value *a, const Value *b);
/* Per-cell total order: value_compare, then for equal values a representation
 * tie-break (numeric scale, float bits, interval fields), so that only identical cells
 * compare equal. (Rows are ordered by value over all columns first: see pipeline.c.) */
int op_cell_order(Type t, const Value *a, const Value *b);

/* Copy the input row's origin (if the input batch records origins) to the last row
 * appended to out. */
static inline void op_copy_origin(Batch *out, const Batch *in, int row)
{
    if (in->origins) batch_set_origin(out, out->n - 1, &in->origins[row]);
}

/* ---- checkpoint codec (op_common.c): little-endian, type-directed ---- */

void op_put_u8(StrBuf *b, uint8_t v);
void op_put_u32(StrBuf *b, uint32_t v);
void op_put_u64(StrBuf *b, uint64_t v);
static inline void op_put_i64(StrBuf *b, int64_t v) { op_put_u64(b, (uint64_t)v); }
void op_put_i128(StrBuf *b, i128 v);
void op_put_f64(StrBuf *b, double v);
/* A cell of type t (NULL flag first). */
void op_put_value(StrBuf *b, Type t, const Value *v);

typedef struct OpReader {
    const uint8_t *p, *end;
    bool bad;                /* set on truncation or malformed input; reads then return 0 */
} OpReader;

uint8_t op_get_u8(OpReader *r);
uint32_t op_get_u32(OpReader *r);
uint64_t op_get_u64(OpReader *r);
static inline int64_t op_get_i64(OpReader *r) { return (int64_t)op_get_u64(r); }
i128 op_get_i128(OpReader *r);
double op_get_f64(OpReader *r);
/* Text values point into the reader's buffer (copy before the buffer goes away). */
void op_get_value(OpReader *r, Type t, Value *v);

/* ---- operator constructors (one file each) ---- */

/* Output = `source_batch` (the pipeline's batch for the source, shared by every scan
 * of it); stateless. */
Op *op_source_new(EngPipeline *p, const IrNode *n, Batch *source_batch);
/* Output = the input's output batch (zero copy). */
Op *op_ref_new(EngPipeline *p, const IrNode *n, Op **inputs);
Op *op_filter_new(EngPipeline *p, const IrNode *n, Op **inputs);
Op *op_project_new(EngPipeline *p, const IrNode *n, Op **inputs);
Op *op_union_all_new(EngPipeline *p, const IrNode *n, Op **inputs);
Op *op_distinct_new(EngPipeline *p, const IrNode *n, Op **inputs);
Op *op_aggregate_new(EngPipeline *p, const IrNode *n, Op **inputs);

/* Changelog normalize for a keyed updating source: the latest row per primary key.
 * `out` is the source's batch (borrowed; the pipeline clears it per step); state_id
 * must outlive the operator. */
Op *op_normalize_new(EngPipeline *p, const SourceDef *src, const char *state_id, Batch *out);
/* Apply an insert/update (row = the new row) or a delete (row holds at least the key
 * columns) and append the resulting -old/+new changes to the source batch (text
 * copied). A delete of an unknown key changes nothing and returns false with a
 * message. */
bool op_normalize_apply(Op *op, ChangeOp kind, const Value *row, const RowOrigin *origin,
                        char *err, size_t errsize);

/* ---- pipeline internals used by operators and unit tests (pipeline.c) ---- */

/* The dead-letter sink of the pipeline (may be NULL). */
void eng_emit_dead_letter(EngPipeline *p, const EngDeadLetter *dl);
/* The operator of IR node `node_index`, or NULL when the pipeline does not run it. */
Op *eng_pipeline_op(EngPipeline *p, int node_index);
/* The changelog-normalize operator of a source, or NULL. */
Op *eng_pipeline_normalize_op(EngPipeline *p, int source);

#endif
