/* Internal operator interface of the engine (not for use outside src/engine and its
 * unit tests). An operator is one IrNode's executable instance: it reads the output
 * batches of its input operators during a step (borrowed: valid only for the step) and
 * writes its own output batch, which the pipeline clears at the end of the step.
 * Operators with several inputs (joins, set operations) read all their input batches
 * in the same step call. Event time reaches operators through Op.in_wm (the minimum
 * over the inputs' output watermarks as of the previous step while step() runs) and
 * through on_watermark, called after step() whenever in_wm advanced (windows close
 * after the rows of the step are in). An operator's output watermark (Op.wm, what its
 * consumers read) is in_wm unless out_watermark holds it back.
 *
 * Lateness is a property of the input, not of the batching: a row carries its
 * frontier (Batch.frontier), the watermark that held before it in its source, and an
 * operator that depends on event time judges the row against op_judge_wm: that
 * frontier, or in_wm when it is later. Operators pass frontiers on with their rows
 * (op_copy_meta); a join's pair carries the later of its two rows' frontiers (as an
 * interval join shifts them, see op_join.c); rows
 * an operator emits when its watermark advances carry the largest watermark at which
 * they were not yet emitted (a window: its end - 1). Operators that emit per key per
 * step (aggregates, TopN ...) record none: their rows are judged against the
 * consumer's in_wm. Op.need_frontier says whether anything downstream reads them.
 *
 * Stateful operators keep explicit state structures that can be serialised to bytes
 * (checkpoints) and restored. */
#ifndef WEIR_ENGINE_OP_H
#define WEIR_ENGINE_OP_H

#include "base/bytes.h"
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

/* What an operator does with the frontiers of its input rows (see above). */
typedef enum OpFrontierRole {
    FR_NONE,                 /* its output rows carry none (it emits per key per step) */
    FR_PASS,                 /* its output rows carry those of the input rows they come from */
    FR_JUDGE,                /* it judges rows by event time: it reads them always */
} OpFrontierRole;

typedef struct OpVtbl {
    const char *kind;        /* "filter", "aggregate", ... */
    OpFrontierRole frontier; /* the kind's role (an instance may change it: Op.frontier) */
    /* Called once when every operator of the pipeline is built and Op.need_frontier is
     * known, before any step or restore. NULL: nothing to do. */
    void (*prepare)(Op *op);
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
    /* Chunked checkpoints (optional, besides serialize/deserialize, which stay the
     * one-blob form other users copy state with): save writes blob `name` (a small
     * base) and chunk blobs named `name` "@<hex>" through io; with io->incremental
     * the target holds this operator's previous save and only chunks changed since
     * are written (chunks that became empty deleted), otherwise every chunk is and
     * the target holds none. Either way the change tracking restarts. restore reads
     * the base (also the one-blob formats deserialize reads) and its chunks. */
    bool (*save_chunks)(Op *op, const char *name, const struct EngCkptIO *io, char *err, size_t errsize);
    bool (*restore_chunks)(Op *op, const char *name, const uint8_t *base, size_t len, EngGetFn get, void *ctx,
                           char *err, size_t errsize);
    /* The watermark the operator's output promises, given its input frontier in_wm
     * (called after every step). NULL: in_wm. Operators that emit rows older than
     * their input frontier (an interval join's NULL-padded rows) hold it back, so
     * downstream operators do not judge those rows late. */
    int64_t (*out_watermark)(const Op *op, int64_t in_wm);
    /* The operator's current result appended to op->out as insertions (weight =
     * multiplicity): what `weir apply` re-derives a model's rows from. NULL when the
     * state does not hold the result (window and OVER aggregates, bounded, outer and
     * anti joins emit rows and let them go) or the operator keeps no state. */
    bool (*emit_current)(Op *op, char *err, size_t errsize);
    /* Take over the state of src, the operator of the same id in another version's
     * pipeline, whose layout differs only by accumulators this one no longer has.
     * NULL when the operator cannot (its state is then rebuilt instead). */
    bool (*adopt)(Op *dst, const Op *src, char *err, size_t errsize);
    /* Deferred output (eng_defer_model): from now on a step emits nothing; the
     * operator remembers which keys changed (and the row each had at the previous
     * flush) until `flush` appends each changed key's net change since then (-row as
     * it was, +row now; nothing when equal) to op->out. `can_defer` says whether the
     * operator can; `defer` returns false when it cannot (it is left as it was);
     * `pending` says whether a flush
     * would emit anything. NULL: the operator never defers. */
    bool (*can_defer)(const Op *op);
    bool (*defer)(Op *op);
    bool (*flush)(Op *op, OpCtx *ctx);
    bool (*pending)(const Op *op);
} OpVtbl;

/* A restore that re-partitions state (eng_checkpoint_restore_plan): the operator reads
 * the checkpoints of several pipelines into one state (merge: a restore after the first
 * does not clear what the earlier ones read), and, as replica `replica` of n, keeps only
 * the keyed entries whose routing cell it owns (eng_partition_replica). out_col and
 * in_col[i] are where the routing column is in the operator's output and in input i's
 * rows (-1: not there); each kind finds the cell of an entry from them (its key holds a
 * copy of it, as the partitioning requires). Zeroed (n = 0) in every other restore. */
typedef struct OpRoute {
    bool merge;
    int replica, n;
    int out_col, in_col[2];
} OpRoute;

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
    int64_t in_wm;           /* input event-time frontier: min over the inputs' wm (sources:
                                the source's), as of the end of the previous step while
                                step() runs: the windows it has closed stay closed
                                (op_judge_wm) */
    int64_t wm;              /* output watermark read by consumers: in_wm, or what
                                out_watermark holds it back to */
    OpFrontierRole frontier; /* vt->frontier unless the constructor says otherwise */
    bool need_frontier;      /* an operator downstream judges event time by the
                                frontiers of this operator's output rows (set by the
                                pipeline once every operator is built) */
    OpRoute route;           /* set by a restore that merges or splits replicas' state */
};

/* ---- common helpers (op_common.c) ---- */

/* During a restore: does this pipeline keep an entry whose routing cell (of type t) is
 * v? Always when the restore does not split (route.n <= 1) or the cell is not known. */
bool op_route_keeps(const Op *op, Type t, const Value *v);
/* The index of the first of keys[0..n) that is a plain copy of column col (the routing
 * column of an operator's input, route.in_col[0]), or -1. */
int op_route_key_index(Expr *const *keys, int n, int col);
/* The same for an entry whose routing cell is row[col] (col < 0: not known, kept). */
bool op_route_keeps_row(const Op *op, const Type *types, int col, const Value *row);

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
/* value_compare (NULL last), with the integer-like types compared inline. */
static inline int op_cell_cmp(Type t, const Value *a, const Value *b)
{
    if (!type_is_int_like(t)) return value_compare(t, a, b);
    if (a->isnull || b->isnull) return (int)a->isnull - (int)b->isnull;
    return (a->i > b->i) - (a->i < b->i);
}
/* Per-cell total order: value_compare, then for equal values a representation
 * tie-break (numeric scale, float bits, interval fields), so that only identical cells
 * compare equal. (Rows are ordered by value over all columns first: op_row_order.) */
int op_cell_order(Type t, const Value *a, const Value *b);

/* The id of the node's state descriptor of `kind`; else its index-th descriptor; else
 * (a node the IR gave fewer descriptors) "<op_id><suffix>" in pipeline memory. */
const char *op_state_id(Op *op, const char *kind, int index, const char *suffix);
/* Saturating int64 addition (event-time bounds near INT64_MIN/MAX). */
static inline int64_t op_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}
/* Event time of a non-NULL temporal cell in microseconds (a date counts from its
 * midnight), and back to a cell of type t (a date takes the day containing us). */
static inline int64_t op_time_us(Type t, const Value *v)
{
    if (t.id == T_DATE) {
        int64_t r;
        if (__builtin_mul_overflow(v->i, (int64_t)86400000000LL, &r)) return v->i < 0 ? INT64_MIN : INT64_MAX;
        return r;
    }
    return v->i;
}
static inline int64_t op_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline Value op_time_value(Type t, int64_t us)
{
    return value_int(t.id == T_DATE ? op_floor_div(us, 86400000000LL) : us);
}
/* Row order used wherever the engine needs a deterministic total order of rows
 * (tie-breaks, output sorting, checkpoints): value order column by column, and only
 * for rows equal in value the representation (op_cell_order), so identical rows, and
 * only they, compare equal. op_row_order_inline is the same order for the output sort,
 * which compares whole rows on every tie of its prefixes; elsewhere the call is
 * cheaper than the inlined code. */
static inline int op_row_order_inline(const Type *types, int n, const Value *a, const Value *b)
{
    for (int c = 0; c < n; c++) {
        int r = op_cell_cmp(types[c], &a[c], &b[c]);
        if (r) return r;
    }
    for (int c = 0; c < n; c++) {
        int r = op_cell_order(types[c], &a[c], &b[c]);
        if (r) return r;
    }
    return 0;
}
int op_row_order(const Type *types, int n, const Value *a, const Value *b);
/* Append row (n cells of types) to out with its text copied into out's arena. */
static inline Value *op_append_copy(Batch *out, const Value *row, const Type *types, int64_t w)
{
    batch_append_row_copy(out, row, types, w);
    return batch_row(out, out->n - 1);
}

/* Copy the input row's origin and frontier (those the input batch records) to the
 * last row appended to out. */
static inline void op_copy_meta(Batch *out, const Batch *in, int row)
{
    if (in->origins) batch_set_origin(out, out->n - 1, &in->origins[row]);
    if (in->frontier) batch_set_frontier(out, out->n - 1, in->frontier[row]);
}

/* The watermark row `row` of `in` is judged against by an operator whose input
 * watermark is in_wm: the row's frontier, or in_wm when that is later (a window that
 * has closed stays closed). */
static inline int64_t op_judge_wm(int64_t in_wm, const Batch *in, int row)
{
    int64_t f = batch_frontier(in, row);
    return f > in_wm ? f : in_wm;
}

/* ---- checkpoint codec (op_common.c): little-endian, type-directed ---- */

static inline void op_put_u8(StrBuf *b, uint8_t v) { bytes_put_u8(b, v); }
static inline void op_put_u32(StrBuf *b, uint32_t v) { bytes_put_u32(b, v); }
static inline void op_put_u64(StrBuf *b, uint64_t v) { bytes_put_u64(b, v); }
static inline void op_put_i64(StrBuf *b, int64_t v) { op_put_u64(b, (uint64_t)v); }
void op_put_i128(StrBuf *b, i128 v);
void op_put_f64(StrBuf *b, double v);
/* A cell of type t (NULL flag first). */
void op_put_value(StrBuf *b, Type t, const Value *v);

typedef ByteReader OpReader;

static inline uint8_t op_get_u8(OpReader *r) { return bytes_get_u8(r); }
static inline uint32_t op_get_u32(OpReader *r) { return bytes_get_u32(r); }
static inline uint64_t op_get_u64(OpReader *r) { return bytes_get_u64(r); }
static inline int64_t op_get_i64(OpReader *r) { return (int64_t)op_get_u64(r); }
i128 op_get_i128(OpReader *r);
double op_get_f64(OpReader *r);
/* Text values point into the reader's buffer (copy before the buffer goes away). */
void op_get_value(OpReader *r, Type t, Value *v);
/* The n cells of a row (or key) of types, one op_put_value / op_get_value each. */
void op_put_row(StrBuf *b, const Type *types, int n, const Value *row);
void op_get_row(OpReader *r, const Type *types, int n, Value *row);

/* ---- checkpoint framing and state statistics (op_common.c) ---- */

/* A state checkpoint starts with the operator kind's magic, its format version and a
 * hash of the running operator's shape (column types, kinds...), so that a checkpoint
 * of another kind, version or shape is rejected before anything is read.
 * op_get_header reads the three fields and returns whether all of them match. */
void op_put_header(StrBuf *b, uint32_t magic, uint32_t version, uint64_t shape);
bool op_get_header(OpReader *r, uint32_t magic, uint32_t version, uint64_t shape);
/* The end of a checkpoint read: true when ok and the reader consumed every byte without
 * error; else writes "state of <state_id>: truncated or malformed" to err and returns
 * false (the caller then empties the state it had partly restored). */
bool op_get_finish(const OpReader *r, bool ok, const char *state_id, char *err, size_t errsize);

/* ---- chunked state of a keyed table (incremental checkpoints) ----
 * The entries go into 1 << bits chunks by the top bits of their key hash; dirty has a
 * bit per chunk, set when an entry of it changes (NULL before the first save: nothing
 * is tracked, the next save is a full one). op_chunks_save writes, as "<name>@<hex>",
 * every chunk (a full save: bits chosen for about 4 entries per chunk) or, with
 * io->incremental and tracking on, the dirty ones (deleting those now empty; the
 * chunks are re-sized, the old ones deleted, when the table grew or shrank 16-fold),
 * each as its entry count and its entries in key order, written by put_entry; then
 * tracking restarts. op_chunks_restore reads the chunks of a table saved with `bits`,
 * each entry by get_entry (which inserts it and tells its key hash, false when it is
 * malformed or a duplicate), checks every entry is in its chunk and the total is
 * `count`, and starts tracking. */
struct KTab;
typedef struct ChunkTrack {
    uint8_t *dirty;
    int bits;
} ChunkTrack;
static inline uint32_t chunk_index(int bits, uint64_t h) { return bits ? (uint32_t)(h >> (64 - bits)) : 0; }
static inline void chunk_mark(ChunkTrack *ct, uint64_t h)
{
    if (!ct->dirty) return;
    uint32_t c = chunk_index(ct->bits, h);
    ct->dirty[c >> 3] |= (uint8_t)(1u << (c & 7));
}
/* The bits a full save of n entries uses. */
int op_chunk_bits(uint64_t n);
bool op_chunks_save(ChunkTrack *ct, const struct KTab *t, const char *name, const EngCkptIO *io,
                    void (*put_entry)(void *ctx, StrBuf *b, const void *payload), void *ctx, char *err,
                    size_t errsize);
bool op_chunks_restore(ChunkTrack *ct, int bits, uint64_t count, const char *name, EngGetFn get, void *gctx,
                       bool (*get_entry)(void *ctx, OpReader *r, uint64_t *hash), void *ctx);
void op_chunks_fini(ChunkTrack *ct);
/* Shape hashes are FNV-1a over 64-bit words: start from OP_SHAPE_SEED, mix in each
 * field with op_shape_mix (the bytes of existing checkpoints depend on this formula). */
#define OP_SHAPE_SEED 1469598103934665603ull
static inline void op_shape_mix(uint64_t *h, uint64_t x) { *h = (*h ^ x) * 1099511628211ull; }

struct KTab;
/* The payloads of the entries of t that keep accepts (every entry when keep is NULL),
 * in op_row_order of their keys: checkpoints write state in an order that depends only
 * on its content. Returns a malloc'd array (the caller frees it) of *n payloads. */
void **op_sorted_entries(const struct KTab *t, bool (*keep)(const void *payload), uint32_t *n);

/* state_stats of an operator with a single state descriptor: fills out[0] when there is
 * room (max >= 1) and returns 1. */
static inline int op_state_stats1(EngStateStats *out, int max, const char *id, int64_t entries, int64_t bytes)
{
    if (max >= 1) {
        out[0].id = id;
        out[0].entries = entries;
        out[0].bytes = bytes;
        out[0].expired = 0;
    }
    return 1;
}
/* The same for a state with a state_ttl that expired `expired` entries so far. */
static inline int op_state_stats1_ttl(EngStateStats *out, int max, const char *id, int64_t entries, int64_t bytes,
                                      int64_t expired)
{
    op_state_stats1(out, max, id, entries, bytes);
    if (max >= 1) out[0].expired = expired;
    return 1;
}

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
/* Streaming-SQL operators (one file each; see the file comments for semantics). */
Op *op_join_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize);
Op *op_window_tvf_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize);
/* A PL_AGGREGATE with window_start_key or window_end_key >= 0. */
Op *op_window_aggregate_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize);
Op *op_topn_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize);
Op *op_setop_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize);
Op *op_over_agg_new(EngPipeline *p, const IrNode *n, Op **inputs, char *err, size_t errsize);
/* PL_VALUES: a constant relation, emitted once (op_values.c). */
Op *op_values_new(EngPipeline *p, const IrNode *n);

/* Changelog normalize for a keyed updating source: the latest row per primary key.
 * `out` is the source's batch (borrowed; the pipeline clears it per step); state_id
 * must outlive the operator. */
Op *op_normalize_new(EngPipeline *p, const SourceDef *src, const char *state_id, Batch *out);
/* Apply an insert/update (row = the new row) or a delete (row holds at least the key
 * columns) and append the resulting -old/+new changes to the source batch (text
 * copied), with the record's origin (may be NULL) and frontier (INT64_MIN: none). A
 * delete of an unknown key changes nothing and returns false with a message. */
bool op_normalize_apply(Op *op, ChangeOp kind, const Value *row, const RowOrigin *origin,
                        int64_t frontier, char *err, size_t errsize);

/* ---- pipeline internals used by operators and unit tests (pipeline.c) ---- */

/* The dead-letter sink of the pipeline (may be NULL). */
void eng_emit_dead_letter(EngPipeline *p, const EngDeadLetter *dl);
/* The operator of IR node `node_index`, or NULL when the pipeline does not run it. */
Op *eng_pipeline_op(EngPipeline *p, int node_index);
/* The pipeline's arena (pipeline lifetime) and the graph it runs. */
Arena *eng_pipeline_arena(EngPipeline *p);
const IrGraph *eng_pipeline_graph(EngPipeline *p);
/* The changelog-normalize operator of a source, or NULL. */
Op *eng_pipeline_normalize_op(EngPipeline *p, int source);

#endif
