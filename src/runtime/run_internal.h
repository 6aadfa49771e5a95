/* The state of one `weir run`, shared by run.c (the loop) and run_durable.c (the
 * checkpoints of a durable run). Not for use outside src/runtime. */
#ifndef WEIR_RUNTIME_RUN_INTERNAL_H
#define WEIR_RUNTIME_RUN_INTERNAL_H

#include "connectors/dead_letter.h"
#include "runtime/coalesce.h"
#include "runtime/delivery.h"
#include "runtime/run.h"
#include "connectors/sink.h"
#include "connectors/source.h"
#include "runtime/state_store.h"
#include "engine/engine.h"
#include "engine/partition.h"

/* The "meta" blob of a checkpoint: magic, version, u64 id, u64 unix time, str project. */
#define RUN_META_MAGIC 0x54454d57u    /* "WMET" */
#define RUN_META_VERSION 1u
/* In the "stats/state" blob, after the list of states: their expired-entry counts. */
#define RUN_STATS_EXPIRED_MAGIC 0x50584557u  /* "WEXP" */
/* A deployment's record in the journal (apply.c, checkpoint_info.c). */
#define RUN_DEPLOYMENT_MAGIC 0x504c4457u  /* "WDLP" */

typedef struct DlLength {
    char *name;
    int64_t length;
} DlLength;

typedef struct Run {
    Project *p;
    const IrGraph *g;
    EngPipeline *pipe;
    ConnSource **sources;        /* open sources */
    int nsources;
    ConnSink **sinks;            /* per project model, NULL without a sink */
    DlWriter **model_dl;         /* per project model (+1: names that are neither), lazily opened */
    int64_t *ins, *upd, *del, *model_dead;
    bool *wanted;
    int64_t *src_engine_dead;    /* per open source: engine rejections */
    char dl_err[512];            /* first dead-letter write failure (reported after the step) */
    /* coalesced sinks (keyed models: upsert, table): per project model, NULL for the
     * others, whose sinks get every step's changes at its end */
    Coalescer **coal;            /* runs without checkpoints: the changes since the last flush */
    double *flush_every;         /* seconds between flushes */
    double *last_flush;
    int64_t *sink_changes, *sink_flushes;  /* per model: changes the sink received, flushes */
    bool *deferred;              /* per model: its output is deferred to the flushes of its
                                    coalescing sink (run_defer) */
    /* durable runs (run_durable.c) */
    WorkPool *decode_pool;       /* --workers > 1: the sources decode over it */
    struct RunReplicas *par;     /* a partitioned run: the engine replicas (run_parallel.c) */
    bool durable;                /* state, positions and deliveries go to the store */
    StateStore *store;
    bool resumed;                /* continued from a checkpoint */
    int ckpt_replicas;           /* resumed: the engine replicas the checkpoint holds the
                                    state of (1: one pipeline, r->pipe's) */
    char ckpt_partition_by[160]; /* ckpt_replicas > 1: the columns they routed rows by */
    int repartitioned_from;      /* resumed from a checkpoint of this many replicas, whose
                                    state was re-partitioned over this run's (0: same layout) */
    uint64_t ckpt;               /* id of the last checkpoint written or resumed from */
    uint64_t resumed_from;
    int64_t checkpoints;         /* written by this run */
    Delivery *deliv;             /* per project model with a sink: changes since the checkpoint */
    DlLength *dl_lengths;        /* resumed: dead-letter file lengths of the checkpoint */
    int ndl_lengths;
    double last_ckpt_s;
    double ckpt_seconds;         /* spent writing and delivering checkpoints */
    double restore_seconds;      /* spent restoring the checkpoint at start */
    int64_t ckpt_bytes;          /* bytes the last checkpoint wrote (incremental: what changed) */
    StrBuf manifest;             /* the running project's manifest (kept in every checkpoint
                                    for weir plan) */
    StrBuf *origins;             /* per open source: the position its deployment began
                                    reading at (kept in every checkpoint) */
    const char *store_dir;       /* the store it runs on (deployments.h) */
    const char *dl_suffix;       /* dead-letter names of a deployment with a store of its
                                    own ("__v<id>"), NULL for the first store */
    char **outputs;              /* per project model: the physical name its sink writes
                                    ("outputs/<model>" of the store), NULL: the configured */
} Run;

/* The default flush interval of a coalesced sink (SinkDef.flush_interval_us unset). */
#define RUN_FLUSH_INTERVAL_S 1.0

/* Are model m's sink changes coalesced per key between flushes? Keyed models
 * materialized upsert or table (nkey: its presentation key's length); append and
 * retract models keep their changelog as the steps made it. */
static inline bool run_sink_coalesces(const ModelDef *m, int nkey)
{
    return nkey > 0 && (m->materialized == MAT_UPSERT || m->materialized == MAT_TABLE);
}

/* A file source whose path is a directory or a glob (read file by file, durable). */
bool run_source_is_multi_file(Project *p, const SourceDef *def);
/* Does the run keep durable state? (It reads a Kafka source or a directory/glob file
 * source: an unbounded input whose run continues where the last one stopped.) */
bool run_is_durable(const Project *p, EngPipeline *pipe);

/* ---- run_parallel.c: a partitioned run over engine replicas ---- */
/* With --workers N > 1: when the running models can be partitioned
 * (engine/partition.h), N replicas of the pipeline, each owning a hash range of the
 * routing columns; r->pipe stays the one the sources fill (a resumed durable run is
 * restored after, by run_par_restore, whatever layout its checkpoint has). Records the
 * decision in out. Returns false (message in err) when a replica cannot be built. */
bool run_par_open(Run *r, const EngOptions *eo, int workers, RunSummary *out, char *err, size_t errsize);
/* The pipelines of a partitioned run besides r->pipe and the name prefix their
 * checkpoint blobs carry ("replica/<i>/", "rest/"): up to max of them in pipes and
 * prefixes; returns how many there are (0: not partitioned). */
int run_par_pipelines(Run *r, EngPipeline **pipes, const char **prefixes, int max);
/* The replicas of the run (1: not partitioned) and their routing columns (NULL: not
 * partitioned; EngPartition.by). */
int run_par_replicas(const Run *r);
const char *run_par_partition_by(const Run *r);
/* Advance source s's watermark in every pipeline of the run. */
void run_set_watermark(Run *r, int source, int64_t wm);
/* One step: with replicas, route the source rows, run the replicas on the pool,
 * dead-letter and present their outputs in order; else eng_step. */
bool run_step(Run *r, char *err, size_t errsize);
/* Model m's sink coalesces (a flush point is every flush of it and every
 * checkpoint): defer its output to those points in every pipeline that presents it
 * (engine.h eng_defer_model). Returns whether it is deferred (r->deferred[m]). */
bool run_defer(Run *r, int m);
/* A flush point of model m: its changes deferred since the last one are handed to
 * the listener (nothing when m is not deferred). */
bool run_flush(Run *r, int m, char *err, size_t errsize);
/* The state of every replica, summed per state id (eng_state_stats' contract). */
int run_state_stats(Run *r, EngStateStats *out, int max);
void run_par_close(Run *r);
/* Open the state store of the target; without `fresh`, continue from its checkpoint
 * when there is one (r->resumed; run_par_restore then restores the pipelines). Exit
 * code on failure in *code (2: the checkpoint does not fit the project; 3: the store). */
bool run_durable_open(Run *r, bool fresh, int *code, char *err, size_t errsize);
/* A resumed run: restore pipeline `pipe` from the checkpoint's blobs under `prefix`
 * exactly (the checkpoint has this run's layout; its next save may be incremental), and
 * with seed give it the checkpoint's expired-entry counts (one pipeline per state id
 * takes them: the run's totals sum its pipelines'). */
bool run_durable_restore_replica(Run *r, EngPipeline *pipe, const char *prefix, bool seed, char *err, size_t errsize);
/* The same through run_ckpt_restore (another layout: the state re-partitioned); `what`
 * names the pipeline in the message. */
bool run_durable_restore_pipe(Run *r, EngPipeline *pipe, bool state, const EngPartition *part, int replica, int n,
                              bool norms, bool seed, const char *what, char *err, size_t errsize);
/* A resumed run, once its pipelines are built (run_par_open): restore them from the
 * checkpoint, whatever replica count it was written with (run_ckpt_restore). */
bool run_par_restore(Run *r, char *err, size_t errsize);
/* A resumed run: the position source `name` had at the checkpoint (NULL: none). Valid
 * until run_durable_resume_outputs. */
const void *run_durable_source_position(Run *r, const char *name, size_t *len);
/* The sink r's model m writes: its config with the physical name the store records
 * for it (a table, file or topic), or the config itself. */
const SinkDef *run_durable_sink(Run *r, int m);
/* Put "outputs/<model>" = name for every model of p with a physical name (names NULL
 * or name NULL: none), in the checkpoint being written. */
bool run_put_outputs(StateStore *store, const Project *p, char *const *names, char *err, size_t errsize);
/* Note where open source r->sources[i] begins: a fresh run's first position, or the
 * origin a resumed run's checkpoint recorded (the start of the history that `weir
 * apply` replays). Call while the store is being read (before resume_outputs). */
void run_durable_origin(Run *r, int i);
/* A resumed run, once sources and sinks are open: cut the dead-letter files back to the
 * checkpoint and make the checkpoint's deliveries again; ends reading the store. */
bool run_durable_resume_outputs(Run *r, char *err, size_t errsize);
/* A dead-letter writer of a durable run, opened in append mode and, when resumed, cut
 * back to the length the checkpoint recorded for its name. */
bool run_durable_adopt_dl(Run *r, DlWriter *w, char *err, size_t errsize);
/* Is a checkpoint due (interval passed, or too many pending changes)? */
bool run_durable_due(const Run *r, double interval_s);
/* Write a checkpoint (state, positions, dead-letter lengths, deliveries) and deliver it. */
bool run_durable_checkpoint(Run *r, char *err, size_t errsize);
void run_durable_close(Run *r);

/* Pieces of a checkpoint shared with weir apply (apply.c): the "meta" blob, the
 * "stats/state" blob of a pipeline, and the "delivered" marker of checkpoint `id`
 * (its own transaction). */
void run_meta_blob(StrBuf *v, uint64_t id, const char *project);
bool run_put_stats(StateStore *store, EngPipeline *pipe, char *err, size_t errsize);
/* The engine replicas the checkpoint being read in `store` holds the state of (its
 * "replicas" blob; 1 when it has none: one pipeline). */
int run_ckpt_replicas(StateStore *store);
/* Restore pipeline p from the checkpoint being read in st, whatever its layout (one
 * pipeline, or the replicas and rest pipeline of a partitioned run: merged): with
 * state false only the step, source watermarks and (norms) normalize state (the run's
 * own pipeline of a partitioned run, which runs no operator); with part and n > 1 as
 * replica `replica` of n under part, keeping the entries it owns
 * (eng_checkpoint_restore_plan). A one-pipeline checkpoint restored whole into one
 * pipeline is eng_checkpoint_restore. */
bool run_ckpt_restore(StateStore *st, EngPipeline *p, bool state, const EngPartition *part, int replica, int n,
                      bool norms, char *err, size_t errsize);
bool run_mark_delivered(StateStore *store, uint64_t id, char *err, size_t errsize);

#endif
