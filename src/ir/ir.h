/* The streaming IR: the operator DAG of the whole project. Each IrNode wraps one
 * plan node (sql/plan.h) of one model; ref() edges are resolved, so a model's source
 * scans and upstream models are ordinary inputs. Analysis attaches to every node the
 * changelog mode of its output edge and its unique key, and to every stateful node a
 * state descriptor with a stable id and fingerprints. Built once per command from
 * the bound project; all memory lives in the caller's arena. */
#ifndef WEIR_IR_IR_H
#define WEIR_IR_IR_H

#include "sql/binder.h"
#include "sql/plan.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum ChangelogMode {
    CL_INSERT_ONLY,   /* rows are only ever inserted */
    CL_UPSERT,        /* latest row per key; deletes by key (key = IrNode.key) */
    CL_RETRACT,       /* explicit retractions (-1) and insertions (+1) */
} ChangelogMode;

typedef enum StateBound { BOUND_UNBOUNDED, BOUND_WATERMARK, BOUND_TTL } StateBound;

/* One piece of keyed operator state. */
typedef struct StateDesc {
    const char *id;          /* stable: "<model>/<kind><n>", n = ordinal of that kind in the model */
    const char *kind;        /* "aggregate", "distinct", "changelog_normalize", "join_left", ... */
    PlanColumn *key;         /* key columns (names and types) */
    int nkey;
    PlanColumn *values;      /* per-key accumulator / row columns */
    const char **value_fp_names; /* per value, NULL or the name the fingerprints hash where
                                    the label says more than what is computed (MIN/MAX:
                                    `.extreme` / `.multiset`); NULL: the names */
    int nvalues;
    const char **calls;      /* aggregating states: the name of each aggregate call, in the
                                order of the plan's calls (how accumulators are matched
                                between two versions); NULL otherwise */
    int ncalls;
    StateBound bound;
    int64_t ttl_us;          /* BOUND_TTL */
    const char *bound_detail;/* e.g. "window_end + 5s" or NULL */
    uint64_t schema_fp;      /* key + value column names/types + kind: changes force a rebuild */
    uint64_t logic_fp;       /* schema_fp + the expressions and everything upstream that feed it:
                                changes with equal schema_fp mean the content must be backfilled */
} StateDesc;

typedef struct IrNode IrNode;
struct IrNode {
    int index;               /* position in IrGraph.nodes (topological: inputs first) */
    PlanNode *plan;
    int model;               /* owning model index (project->models), -1 for shared source scans */
    const char *op_id;       /* stable operator id "<model>/<kind><n>" */
    IrNode **inputs;
    int ninputs;
    int source;              /* PL_SOURCE: index into project->sources */
    ChangelogMode mode;      /* of this node's output edge */
    int *key;                /* output columns forming a unique key (mode UPSERT: the upsert key) */
    int nkey;                /* -1 when no unique key is known */
    StateDesc *state;        /* stateful nodes: one or more descriptors */
    int nstate;
    uint64_t logic_fp;       /* structural hash of this node and everything upstream */
    uint64_t rows_fp;        /* lineage (lineage.c): which rows the output holds, and */
    uint64_t *col_fp;        /* per output column, what it holds; from what is read only */
    bool lookup;             /* PL_JOIN of a lookup model (`clickhouse: {lookup: true}`):
                                only the left input (the stream) triggers; the right
                                input (the table) only updates the join's state, which
                                is that side's rows alone (op_lookup_join.c) */
    uint64_t time_fp;        /* the event-time configuration (event_time column, watermark
                                delay) of every source upstream: part of logic_fp only for
                                operators that depend on event time */
};

typedef struct IrModel {
    const ModelDef *def;
    const BoundModel *bound;
    IrNode *root;            /* NULL when the model failed to bind */
    int *out_key;            /* presentation key: configured key, else inferred unique key */
    int nout_key;            /* -1: keyless */
    uint64_t fingerprint;    /* own plan + config + sources + upstream model fingerprints */
    char fingerprint_hex[17];
    uint64_t output_fp;      /* what the output holds (lineage of its rows and columns) +
                                config: moves only when the model's result changes */
    char output_fp_hex[17];
} IrModel;

typedef struct IrGraph {
    const Project *project;
    const BoundProject *bound;
    IrNode **nodes;          /* topological order */
    int nnodes;
    IrModel *models;         /* parallel to project->models */
    int nmodels;
} IrGraph;

/* Build the IR for every bound model and run the analysis (modes, keys, state,
 * fingerprints). Adds materialization-contract and unbounded-state diagnostics to dl. */
IrGraph *ir_build(const BoundProject *bp, Arena *arena, DiagList *dl);

/* Does column col of n's output carry a window bound (through projections, filters,
 * joins, the group keys of aggregates, TopN and OVER aggregates, ref())? 2: a
 * window_end; 1: a window_start, with *size_us set to the window's size (TUMBLE/HOP;
 * a SESSION's start is not a bound); 0: neither. */
int ir_window_col(const IrNode *n, int col, int64_t *size_us);
/* A window join: the key pair of join node n that is the same window bound on both
 * inputs (window_end preferred), or -1. *kind is ir_window_col's answer for it and
 * size_us the window sizes on each side (for window_start keys). The join's state then
 * expires by watermark. */
int ir_window_join_key(const IrNode *n, int *kind, int64_t size_us[2]);

/* Is source s (index into project->sources) read only as the table side of lookup
 * joins (every scan of it feeds, through filters and projections, the right input of
 * a lookup join)? weir run reads such a source, when it ends by itself, to its end
 * before it reads any other source, so the first stream rows see the whole table. */
bool ir_source_is_lookup_table(const IrGraph *g, int s);

const char *changelog_mode_name(ChangelogMode m);
/* "upsert(customer_id)", "insert_only", "retract" */
const char *ir_mode_text(const IrNode *n, Arena *a);
const char *state_bound_name(StateBound b);
/* 16 lowercase hex digits. */
void ir_fp_hex(uint64_t fp, char out[17]);

#endif
