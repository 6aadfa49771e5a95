/* Key partitioning of a pipeline over engine replicas (`weir run --workers N`): which
 * source column each source's rows are routed by so that N copies of the same pipeline,
 * each owning a hash range of that column, together compute exactly what one pipeline
 * computes. A pure function of the IR (eng_partition_plan), the hash rows are routed
 * by (eng_partition_hash), and the per-step routing of a source batch into a replica. */
#ifndef WEIR_ENGINE_PARTITION_H
#define WEIR_ENGINE_PARTITION_H

#include "engine/batch.h"
#include "ir/ir.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct EngPartition {
    bool ok;                 /* the running models can be partitioned */
    int nsources;            /* project->nsources */
    int *source_col;         /* per source: the column its rows are routed by; -1 when no
                                running model reads the source */
    int nmodels;             /* running models (wanted and their upstreams) */
    int nstateful;           /* stateful operators, each keyed by the routing columns */
    char by[160];            /* ok: the routing column of each source read, in source
                                order: "bid.auction", "auction.id, bid.auction" */
    char reason[256];        /* !ok: why one replica, naming the model
                                ("q4: global aggregate", "no keyed state") */
    int *node_col;           /* ok: per IR node index, where the routing column is in the
                                node's output (a copy of it), -1 where it is lost or the
                                node does not run; what a restore that re-partitions
                                state routes each stateful operator's entries by */
} EngPartition;

/* Decide how the models running for `wanted` (NULL: all; upstream models are added as
 * eng_pipeline_new adds them) can be partitioned. ok when every stateful operator
 * (aggregate, window aggregate, DISTINCT, join, TopN, OVER, set operation) is keyed by
 * a column that is a copy of the routing column of its input's source -- a GROUP BY
 * key, a join's equal key pair (the same position on both sides), a TopN's or OVER's
 * PARTITION BY, or any column of a whole-row key --, each running model's output
 * carries the routing column (in its presentation key when it has one; a keyless
 * insert-only model need not), and at least
 * one operator is stateful. Not partitioned: global aggregates, TopN/OVER without
 * PARTITION BY, cross and full outer joins, NOT IN on the routing key, routing columns of types without a canonical hash (only integers, booleans,
 * dates, timestamps and text route). Fills *out (free with eng_partition_free) and
 * returns out->ok. Deterministic: the first fitting columns in source and column order. */
bool eng_partition_plan(const IrGraph *g, const bool *wanted, EngPartition *out);
void eng_partition_free(EngPartition *p);

/* The replica (0..n-1) that owns a row whose routing cell is v (of type t): equal
 * values (op_cell_cmp) go to equal replicas; NULL goes to replica 0. */
int eng_partition_replica(Type t, const Value *v, int n);

/* Append to `dst` (a replica's source batch, same columns) the rows of `src` that
 * replica `replica` of n owns by column `col`, shallow (text keeps pointing where src's
 * does: src must outlive dst's use), with their weights, origins and frontiers; the
 * index in src of each appended row goes to *src_index (grown as needed, reused across
 * calls: no allocation once it is large enough). n = 1: every row (col unused).
 * Returns the rows appended. */
int eng_partition_route(const Batch *src, Type t, int col, int replica, int n, Batch *dst,
                        int **src_index, int *src_index_cap);

#endif
