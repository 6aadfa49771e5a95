/* The pipeline's private layout, shared by pipeline.c (construction, steps,
 * presentation) and checkpoint.c (saving and restoring its state). Not for use
 * outside src/engine. */
#ifndef WEIR_ENGINE_PIPELINE_INTERNAL_H
#define WEIR_ENGINE_PIPELINE_INTERNAL_H

#include "engine/op.h"

typedef struct SourceSlot {
    bool used;               /* some running operator scans the source */
    Batch batch;             /* this step's changes of the source */
    Op *norm;                /* changelog normalize (keyed updating sources), or NULL */
    const char *norm_id;
    Type *types;             /* the source's column types (pipeline arena) */
    int64_t wm;              /* watermark (event-time microseconds), INT64_MIN = none */
    bool need_frontier;      /* some scan of it feeds an operator that judges event time */
} SourceSlot;

struct EngPipeline {
    const IrGraph *g;
    EngOptions opts;
    Arena arena;             /* pipeline lifetime: ids, names */
    Op **node_ops;           /* per IrNode index, NULL when not run */
    Op **ops;                /* topological order */
    int nops;
    SourceSlot *src;         /* per project source */
    int nsrc;
    bool *running;           /* per model: its root runs, so its changes are presented */
    uint64_t step;
    bool ckpt_saved;         /* the last checkpoint save succeeded (an incremental one may follow) */
    bool ttl;                /* some running state expires by a state_ttl: the first rows of a
                                source, before it has a watermark, are stamped with the one
                                they start (see stamp_first_rows) */
    /* presentation scratch, reused across steps */
    int *idx;
    int64_t *wts;
    int *last;               /* per merged row: the largest batch index among its copies */
    struct SortEnt *ents, *ents_tmp;
    int idxcap;
    uint32_t hist[8][256];   /* radix sort digit histograms */
    Op **in_scratch;         /* construction: a node's input operators */
    EngChange *ch;
    int64_t chcap;
    int pos;                 /* during a step: 2 * the running operator's IrNode index (+1
                                in its on_watermark); -1 outside */
    /* eng_step_collect: per model, this step's changes (rows valid until eng_step_end) */
    EngChange **mch;
    int64_t *mnch, *mcap;
    /* deferred models (eng_defer_model): per model, its operators from the aggregate
     * to the root (NULL: not deferred) and how many */
    Op ***defer_chain;
    int *defer_n;
    /* expired-entry counts carried over from an earlier run (eng_seed_expired) */
    const char **seed_ids;
    int64_t *seed_expired;
    int nseed;
};

/* Consolidate model m's output (root->out) as a step presents it and hand it to fn. */
bool eng_present(EngPipeline *p, int m, const Op *root, EngListener fn, void *fn_ctx, char *err, size_t errsize);
/* Empty every operator's and source's batch (the end of a step). */
void eng_reset_batches(EngPipeline *p);
/* Does some deferred model have changes a flush would present? */
bool eng_deferred_pending(const EngPipeline *p);

#endif
