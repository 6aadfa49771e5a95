/* The native runtime driver behind `weir run`: opens a reader for every source the
 * selected models read and a sink for every selected model with a `sink`, builds the
 * engine pipeline, and steps it over batches of records until every source is done: a
 * bounded source (file, stdin) at its end, a Kafka source only with until_caught_up
 * once it has caught up (otherwise it runs until a signal). Then the watermarks of the
 * bounded sources move to the end of time and a last step closes their windows (a
 * Kafka topic goes on, so its windows stay open for the next run), and the sinks are
 * committed and closed. SIGINT/SIGTERM stop gracefully: the current step finishes,
 * sinks are committed, exit code 0 (summary.interrupted).
 *
 * A run that reads Kafka is durable (run_durable.c): it continues from the checkpoint
 * in the target's state directory, writes a checkpoint every checkpoint_interval_s and
 * at its end, and its sinks receive their changes as deliveries after each checkpoint
 * (exactly once across crashes; docs/run.md, "Durable runs"). */
#ifndef WEIR_RUNTIME_RUN_H
#define WEIR_RUNTIME_RUN_H

#include "base/strbuf.h"
#include "ir/ir.h"
#include "project/project.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RunOptions {
    const bool *models_wanted;   /* per project model (--select); NULL = all. Upstream
                                    models run too; only selected models' sinks are written */
    bool fixed_selection;        /* models_wanted is the project's own choice, the same on
                                    every run (the native models of a ClickHouse target):
                                    a durable run accepts it */
    int batch_size;              /* records per source per step; <= 0: 4096 */
    int workers;                 /* threads that decode the records of a step (a fixed
                                    pool; the engine runs on the calling thread); <= 0:
                                    the machine's cores; 1: everything on one thread */
    bool progress;               /* a progress line on stderr when it is a terminal */
    bool copy_text;              /* copy decoded text into batch arenas (default: zero-copy) */
    bool no_origins;             /* do not track file:line through the engine (dead letters
                                    of engine rejections then lack a position) */
    bool until_caught_up;        /* Kafka sources stop at the high watermarks seen at start */
    bool fresh;                  /* durable runs: discard the checkpoint, start over */
    double checkpoint_interval_s;/* durable runs: seconds between checkpoints; 0: 10; < 0: after every step */
    const char *store;           /* durable runs: the deployment store to run ("." or
                                    "deployments/<id>", deployments.h); NULL: the active one */
    const char *until_store;     /* durable runs: read every source only up to the positions
                                    of that store's checkpoint (a staged deployment catching
                                    up with the running one), then end */
} RunOptions;

typedef struct RunSourceSummary {
    char *name;
    int64_t events;              /* records read */
    int64_t rows;                /* changes handed to the engine */
    int64_t dead_letters;        /* bad records and engine rejections written */
    int64_t skipped;             /* bad records counted only (on_error: skip) */
    char *dead_letter_file;      /* NULL when none was written */
} RunSourceSummary;

typedef struct RunModelSummary {
    char *name;
    int64_t inserts, updates, deletes;
    int64_t dead_letters;        /* rows the engine rejected (e.g. division by zero) */
    char *sink;                  /* where the sink wrote, NULL without a sink */
    char *dead_letter_file;
    int64_t sink_changes;        /* changes the sink received (coalesced: one per key per flush) */
    int64_t sink_flushes;        /* times the sink was flushed (committed, or delivered) */
    bool coalesced;              /* a keyed model: changes coalesced per key between flushes */
    bool deferred;               /* its aggregate emitted only at the sink's flush points
                                    (inserts/updates/deletes count those changes) */
} RunModelSummary;

typedef struct RunStateSummary {
    char *id;                    /* state id, as in `weir explain` */
    int64_t entries;             /* keys / rows held at the end of the run */
    int64_t bytes;               /* memory they take (entries, tables, accumulators) */
    int64_t expired;             /* entries the model's state_ttl expired (0 without one) */
} RunStateSummary;

typedef struct RunSummary {
    RunSourceSummary *sources;
    int nsources;
    RunModelSummary *models;     /* the selected models */
    int nmodels;
    RunStateSummary *state;      /* every piece of operator state of the pipeline */
    int nstate;
    int64_t events_in;
    int64_t changes_out;         /* over the selected models */
    int64_t dead_letters;
    int64_t skipped;
    int64_t steps;
    int workers;                 /* decoding threads the run used */
    int replicas;                /* engine replicas the operators ran on (1: one thread) */
    int repartitioned_from;      /* a resumed durable run whose checkpoint holds the state of
                                    this many replicas (1: one pipeline), re-partitioned
                                    over this run's layout; 0 when it has this run's layout */
    int partitioned_models;      /* replicas > 1: the selected models they ran */
    int one_thread_models;       /* replicas > 1: the selected models that ran on one
                                    pipeline next to them (they do not partition with the
                                    others; why: one_thread_reason) */
    char partition_by[160];      /* replicas > 1: the routing columns ("bid.auction") */
    char one_thread_reason[256]; /* workers > 1: why models run on one thread ("q4: global
                                    aggregate"), "" when none does */
    double elapsed_s;
    double events_per_s;
    double cpu_s;                /* CPU time of the process (user + system) at the end */
    double cpu_main_s;           /* of the calling thread alone (the rest: the pool's) */
    bool started;                /* the sources and sinks opened and the run began reading
                                    (false: it failed at start-up and read nothing) */
    bool interrupted;            /* stopped by SIGINT/SIGTERM */
    bool durable;                /* the run kept durable state (it reads Kafka) */
    int64_t resumed_from;        /* the checkpoint it continued from, 0: it started afresh */
    int64_t checkpoint;          /* the last checkpoint written (or resumed from) */
    int64_t checkpoints;         /* checkpoints written by this run */
    int64_t checkpoint_bytes;    /* size of the last checkpoint written */
    double checkpoint_s;         /* time spent writing and delivering checkpoints */
    double restore_s;            /* time spent restoring the checkpoint at start */
} RunSummary;

/* Run the pipeline. Returns the exit code: 0 success (also after a graceful stop),
 * 2 a configuration the runtime cannot execute (unsupported connector/format/node),
 * 3 a runtime failure (unreadable input, a sink error, on_error: fail, an engine
 * error); err then holds the message ("data/orders.jsonl:17: column amount: ...").
 * `out` is filled in every case (what ran until the failure); free it with
 * run_summary_free. The graph's project is `p`. */
int run_pipeline(Project *p, const IrGraph *g, const RunOptions *opts, RunSummary *out,
                 char *err, size_t errsize);
/* The target's state directory (project-joined): where a durable run keeps its store. */
const char *run_state_dir(Project *p);
void run_summary_free(RunSummary *s);

/* Human summary, several lines. */
void run_summary_render_text(const RunSummary *s, StrBuf *out);
/* Machine summary (stable): {"events_in","changes_out","dead_letters","skipped","steps",
 * "elapsed_s","events_per_s","interrupted","durable","checkpoint","resumed_from",
 * "checkpoints","checkpoint_bytes","checkpoint_s","restore_s","sources":[{"name","events","rows",
 * "dead_letters","skipped","dead_letter_file"}],"models":[{"name","inserts","updates",
 * "deletes","dead_letters","sink","sink_changes","sink_flushes",
 * "sink_coalesced","sink_deferred","dead_letter_file"}],"state":[{"id","entries","bytes","bytes_per_entry"}]}. */
void run_summary_render_json(const RunSummary *s, StrBuf *out);

#endif
