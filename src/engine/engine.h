/* The incremental dataflow engine: executes the streaming IR over batches of (row,
 * weight) changes. The same engine is the simulator behind `weir test` (one input row
 * per step) and the runtime behind `weir run` (many rows per step); only the sources,
 * sinks and clock differ.
 *
 * Execution model: a pipeline holds one operator per IrNode, in topological order.
 * A step is: producers fill source batches (eng_source_batch), optionally advance
 * source watermarks, then eng_step() runs every operator once in topological order;
 * each operator reads its inputs' output batches for this step and produces its own.
 * At the end of the step each model's output batch is consolidated (equal rows'
 * weights summed, zero weights dropped) and handed to the model's listener, ordered
 * deterministically. Stateful operators keep their state in explicit structures
 * keyed by the IR's state descriptor ids (serialisable for checkpoints). */
#ifndef WEIR_ENGINE_ENGINE_H
#define WEIR_ENGINE_ENGINE_H

#include "engine/batch.h"
#include "ir/ir.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct EngPipeline EngPipeline;

/* A consolidated change of a model's output, as presented to users. */
typedef enum { CHANGE_INSERT, CHANGE_UPDATE, CHANGE_DELETE } ChangeOp;

typedef struct EngChange {
    ChangeOp op;
    const Value *row;        /* new row (insert/update) or the deleted row (delete) */
    const Value *old_row;    /* update: the row replaced; NULL otherwise */
} EngChange;

/* Called at the end of each step with the model's changes, ordered by the output key
 * (keyed models: one change per key) or, for keyless models, deletes then inserts,
 * each ordered by the whole row. Rows are valid only during the call. Return false to
 * stop the pipeline with an error (message in err). */
typedef bool (*EngListener)(void *ctx, int model, const EngChange *changes, int n,
                            char *err, size_t errsize);

/* A row that an operator could not process (an expression error, a late row). */
typedef struct EngDeadLetter {
    const char *source;      /* source name (for late rows / decode errors) or model name */
    const char *reason;      /* e.g. "late", "division by zero" */
    const RowOrigin *origin; /* may be NULL */
    const Value *row;        /* the row, in the schema of `types` */
    const Type *types;
    const PlanColumn *cols;
    int ncols;
} EngDeadLetter;
typedef void (*EngDeadLetterFn)(void *ctx, const EngDeadLetter *dl);

typedef struct EngOptions {
    const bool *models_wanted;   /* per model: run it (upstream models are added); NULL = all.
                                    The listener hears every running model: the wanted ones
                                    and the upstream models they read (filter by index). */
    EngListener listener;
    void *listener_ctx;
    EngDeadLetterFn dead_letter;
    void *dead_letter_ctx;
    int max_batch_rows;          /* runtime batch size hint for sources; default 4096 */
} EngOptions;

/* Build a pipeline for the graph. The graph must outlive the pipeline. Returns NULL and
 * a message when a node kind is not executable yet. */
EngPipeline *eng_pipeline_new(const IrGraph *g, const EngOptions *opts, char *err, size_t errsize);
void eng_pipeline_free(EngPipeline *p);

/* The batch a producer fills for source `source` (index into project->sources) during
 * the current step, or NULL when no running model reads the source. Rows appended
 * have the source's columns; for updating sources (changelog-json, debezium-json)
 * producers append retractions (-1) and insertions (+1) or use eng_source_upsert.
 *
 * Event time: a producer gives every row the watermark that held before it in its
 * source (batch_set_frontier; for Kafka, in its partition): max(event time of the
 * rows before it) - watermark_delay, or later when the source's watermark was moved
 * on explicitly. Windows, interval joins and OVER windows judge lateness by it, so
 * which rows are late does not depend on how rows are grouped into steps. A row
 * without one is judged against the operator's watermark as of the step. Producers
 * need to record frontiers only when eng_source_needs_frontier says some operator
 * reads them. Then, before the step, the producer advances the source's watermark
 * (eng_source_watermark) to what holds after the step's rows: windows close after
 * the rows of the step are in. */
Batch *eng_source_batch(EngPipeline *p, int source);
/* The replay lineage of a source row (project.h SourceLineage); a time that is
 * INT64_MIN reads as NULL. */
typedef struct EngLineage {
    int32_t partition;
    int64_t offset;
    int64_t timestamp_us;
    int64_t landed_us;
} EngLineage;
/* Append a row of the source's `ndeclared` declared cells to its batch b with weight w
 * (text is not copied, as batch_append_row). When b carries the lineage columns
 * (b->ncols > ndeclared: some running model reads them) they are set from lin (NULL:
 * all NULL). Returns the appended row. */
Value *eng_source_append(Batch *b, const Value *row, int ndeclared, int64_t w, const EngLineage *lin);
/* Does model `model` run in this pipeline (wanted, or upstream of a wanted model)? */
bool eng_model_running(const EngPipeline *p, int model);
/* Does some running operator judge event time by the frontiers of this source's rows? */
bool eng_source_needs_frontier(const EngPipeline *p, int source);
/* For keyed updating sources: apply an upsert (op insert/update: row is the new row)
 * or a delete (row holds at least the key columns) using the source's primary key;
 * the engine keeps the latest row per key (changelog_normalize state) and emits the
 * matching retraction, with the record's origin (may be NULL) and frontier (the
 * watermark before the record, INT64_MIN: none). Returns false with a message if
 * e.g. a delete names an unknown key (such deletes are ignored and reported, never
 * fatal). The row's text is copied.
 * For a source without primary_key an insert appends +row and a delete appends -row
 * (the row as it was); an update is rejected (it needs the old row). A source that no
 * running model reads accepts and ignores everything. */
bool eng_source_upsert(EngPipeline *p, int source, ChangeOp op, const Value *row,
                       const RowOrigin *origin, int64_t frontier, char *err, size_t errsize);
/* Advance the watermark of a source (event-time microseconds). Monotonic: lower values
 * are ignored. INT64_MAX means the source has ended. */
void eng_source_watermark(EngPipeline *p, int source, int64_t wm_us);
/* The source's watermark as advanced so far (INT64_MIN: none). */
int64_t eng_source_current_watermark(const EngPipeline *p, int source);
/* The event time of a row of source d in microseconds (a date counts from its
 * midnight); false when the source has no event_time or the row's is NULL or out of
 * range. A source's watermark is max(event time of its rows) - watermark_delay.
 * (Inline: sources call it for every row.) */
static inline bool eng_event_time(const SourceDef *d, const Value *row, int64_t *us)
{
    int c = d->event_time_col;
    if (c < 0 || row[c].isnull) return false;
    int64_t t = row[c].i;
    if (d->columns[c].type.id == T_DATE && __builtin_mul_overflow(t, (int64_t)86400000000LL, &t)) return false;
    *us = t;
    return true;
}
/* Run one step. Returns false on a fatal error (message in err). */
bool eng_step(EngPipeline *p, char *err, size_t errsize);

/* ---- replicas (weir run --workers N over a partitioned pipeline, see partition.h) ----
 * A step in three parts, so that N pipelines of the same graph can run their operators
 * on N threads and present their outputs together: eng_step_collect runs the step's
 * operators and consolidates each running model's output into the pipeline's own list
 * (no listener call; dead letters still go to opts.dead_letter, from the calling
 * thread); eng_present_merged, on one thread, hands the listener each model's changes
 * of all replicas merged into presentation order (by key, or by row for keyless
 * models: the order one pipeline would present them in when a key's -- a row's --
 * changes are all in one replica); eng_step_end empties the step's batches. */
bool eng_step_collect(EngPipeline *p, char *err, size_t errsize);
/* models: per model, whether to present it (NULL: every running model). */
bool eng_present_merged(EngPipeline *const *reps, int n, const bool *models, EngListener fn, void *fn_ctx, char *err,
                        size_t errsize);
void eng_step_end(EngPipeline *p);
/* ---- deferred output (weir run into sinks that keep one row per key) ----
 * A model whose consumer keeps only each key's latest row between its flushes (an
 * upsert or table sink that coalesces) need not be presented every step: with
 * eng_defer_model its aggregate keeps, instead of emitting, which groups changed and
 * the row each had at the last flush, and eng_flush presents the net change of every
 * such group since then: one change per key, from the row the consumer got last to
 * the row the model has now (nothing when they are equal). The rows a consumer holds
 * after each flush are the ones it would hold had every step been presented; what it
 * sees between flushes is the same too, since a coalescing consumer shows nothing
 * between them. Dead letters are unchanged (a deferred model's operators between the
 * aggregate and the root cannot fail). A checkpoint must be a flush point: saving one
 * while a flush is pending fails. */

/* Defer model m's output. Possible when its root is a GROUP BY aggregate with group
 * keys and no state_ttl, or plain projections (columns and constants) of one, and no
 * other running operator reads any of them; returns whether m is now deferred. Call
 * before the first step (after a restore is fine). */
bool eng_defer_model(EngPipeline *p, int model);
/* Could model m be deferred in this pipeline (the same test, nothing changed)? */
bool eng_model_deferrable(const EngPipeline *p, int model);
/* Is model m deferred? */
bool eng_model_deferred(const EngPipeline *p, int model);
/* A flush point of deferred model m (nothing for a model that is not deferred):
 * presents its net change since the previous flush to the listener (eng_flush), or
 * collects it as eng_step_collect does (eng_flush_collect: every other model's list
 * empty; then eng_present_merged and eng_step_end). Call between steps. */
bool eng_flush(EngPipeline *p, int model, char *err, size_t errsize);
bool eng_flush_collect(EngPipeline *p, int model, char *err, size_t errsize);

/* During a step (for a dead-letter callback): 2 * the graph index (IrNode.index) of the
 * operator that runs, + 1 while it handles the watermark; -1 outside a step. Dead
 * letters of one step in this order and then in their input order are the order
 * eng_step emits them in, also across pipelines of one graph running different models. */
int eng_step_position(const EngPipeline *p);

/* Current number of state entries and bytes per state descriptor id (for inspect), and
 * how many entries its state_ttl expired (0 without a TTL; counted since the pipeline was
 * made, plus what eng_seed_expired carried over). Writes at most max entries and returns
 * how many states exist (call with max 0 to size the array). Ids point into the graph or
 * the pipeline (valid while both live). */
typedef struct EngStateStats { const char *id; int64_t entries; int64_t bytes; int64_t expired; } EngStateStats;
int eng_state_stats(EngPipeline *p, EngStateStats *out, int max);
/* A run that continues an earlier one (a restored checkpoint) counts state `id`'s expired
 * entries on from `expired`. Ids the pipeline does not have are ignored. */
void eng_seed_expired(EngPipeline *p, const char *id, int64_t expired);

/* ---- checkpoints (checkpoint.c) ----
 * Between two steps the whole state of a pipeline can be written as named blobs and
 * read back into a new pipeline of the same graph, which then continues as the old
 * one would have. Blobs: "pipeline" (step count, source watermarks, every operator's
 * event-time frontier and each stateful operator's logic fingerprint) and
 * "state/<op id>" per stateful operator (and "state/source:<name>/changelog_normalize"
 * per keyed updating source). Contents depend only on the state, never on addresses
 * or hash-table order. */

/* Receives one blob; `data` is valid only during the call. Return false (with a
 * message) to stop the save. */
typedef bool (*EngPutFn)(void *ctx, const char *name, const void *data, size_t len, char *err, size_t errsize);
/* Looks a blob up; false when it is absent. *data must stay valid until the restore
 * returns. */
typedef bool (*EngGetFn)(void *ctx, const char *name, const void **data, size_t *len);

/* Removes a blob; absent is no error. */
typedef bool (*EngDelFn)(void *ctx, const char *name, char *err, size_t errsize);
/* Where a save goes: incremental saves also delete blobs. */
typedef struct EngCkptIO {
    EngPutFn put;
    EngDelFn del;
    void *ctx;
    bool incremental;
} EngCkptIO;

/* Write the pipeline's state through put into a target that holds no state blobs.
 * Call between steps. Large state (GROUP BY aggregates) is written as chunks,
 * "state/<op id>@<hex>", beside "state/<op id>". */
bool eng_checkpoint_save(EngPipeline *p, EngPutFn put, void *ctx, char *err, size_t errsize);
/* An incremental save: the target holds what the last save of this pipeline wrote
 * (eng_checkpoint_incremental_ok says there is one), and gets only the chunks that
 * changed since (deleting those that are gone) plus every small blob again. Without an
 * earlier save it is a full save into a target that holds no state blobs. */
bool eng_checkpoint_save_inc(EngPipeline *p, EngPutFn put, EngDelFn del, void *ctx, char *err, size_t errsize);
/* Whether an incremental save can follow: the last save of this pipeline (or the
 * restore that filled it: the target restored from counts as saved) succeeded and was
 * not forgotten. */
bool eng_checkpoint_incremental_ok(const EngPipeline *p);
/* The name prefixes of the chunks an incremental save keeps ("state/<op id>@" per
 * chunked operator; every other blob it writes again): up to max into out (valid as
 * long as the pipeline); returns how many there are. */
int eng_checkpoint_chunk_prefixes(EngPipeline *p, const char **out, int max);
/* The last save did not reach the target (its write was abandoned): the next save
 * must be a full one. */
void eng_checkpoint_forget(EngPipeline *p);
/* Restore a checkpoint into a pipeline that has not run a step yet. Fails with a
 * message naming the model when a running model has no operator in the checkpoint (it
 * is new), when a stateful operator has no state there (the model was re-planned),
 * when its logic fingerprint differs (another version of the model computed that
 * state), or when a blob is malformed; the pipeline is then
 * partly restored and must be freed. State of operators that no longer run is ignored. */
bool eng_checkpoint_restore(EngPipeline *p, EngGetFn get, void *ctx, char *err, size_t errsize);

/* A restore that re-partitions state: p (before its first step) takes its step, source
 * watermarks and normalize state from `pipeline`, and each operator's state from every
 * one of `state` whose pipeline record names the operator (the replicas of an earlier
 * partitioned run, its rest pipeline, or one pipeline), merged; with part and n > 1, p is
 * replica `replica` of n under that plan and keeps only the keyed entries whose routing
 * cell it owns, so that the state of K replicas becomes that of n (any K, any n; the
 * routing columns may differ, since every stateful operator's key holds its routing
 * column). nstate 0: the operators start empty (the run's own pipeline in a partitioned
 * run, which runs none). norms: p takes the normalize state of keyed updating sources
 * from `pipeline` (the pipeline that normalizes them; the others start with none). An
 * operator's watermarks are the lowest its sources hold. Fails
 * as eng_checkpoint_restore does (a model new since, a changed fingerprint, a malformed
 * or duplicated entry); the next save of p is a full one. */
struct EngPartition;
typedef struct EngCkptSource {
    EngGetFn get;
    void *ctx;
} EngCkptSource;
typedef struct EngRestorePlan {
    EngCkptSource pipeline;
    const EngCkptSource *state;
    int nstate;
    const struct EngPartition *part;
    int replica, n;
    bool norms;
} EngRestorePlan;
bool eng_checkpoint_restore_plan(EngPipeline *p, const EngRestorePlan *rp, char *err, size_t errsize);

/* ---- versions (snapshot.c): what `weir apply` needs to move a running pipeline to a
 * new version of the project ---- */

/* Can model m's current rows be derived from the pipeline's state (every path from
 * its root reaches an operator whose state holds its result before a source)? */
bool eng_model_derivable(EngPipeline *p, int model);
/* Model m's current rows -- what its sink holds -- re-derived from the state, minus the
 * rows of `minus` (NULL: none; rows of m's column types, each taken with its weight
 * negated), consolidated as a step's output and handed to fn (not called when empty):
 * with minus = another version's rows of the model, the changes that turn its sink into
 * this version's. Call between steps; the state does not change. */
bool eng_model_rows(EngPipeline *p, int model, const Batch *minus, EngListener fn, void *ctx, char *err,
                    size_t errsize);
/* Model m's current rows appended to `out` (initialised with the model's column count;
 * text copied into its arena), each with weight 1: the `minus` of another version. */
bool eng_model_rows_batch(EngPipeline *p, int model, Batch *out, char *err, size_t errsize);
/* Give operator op_id of dst (a pipeline that has not run a step) the state and
 * event-time frontier of the operator of the same id in src (another version's
 * pipeline, or a replay of this one): as it is, or with `map` through the operator's
 * adopt hook (an aggregate without the accumulators dst no longer has). Fails with a
 * message when src has no such operator or the state does not fit. */
bool eng_adopt_state(EngPipeline *dst, EngPipeline *src, const char *op_id, bool map, char *err, size_t errsize);
/* Does the pipeline run operator (or hold state) op_id? */
bool eng_has_op(const EngPipeline *p, const char *op_id);
/* dst continues where src stopped: its step count and the watermarks of the sources
 * both read (by name). */
void eng_adopt_progress(EngPipeline *dst, const EngPipeline *src);
/* Every operator and state id of the pipeline in topological order (normalize states of
 * updating sources last); valid while the pipeline lives. Returns how many exist. */
int eng_op_ids(const EngPipeline *p, const char **out, int max);

#endif
