/* Internal interfaces between the IR's build, analysis and explain files. */
#ifndef WEIR_IR_IR_INTERNAL_H
#define WEIR_IR_IR_INTERNAL_H

#include "ir/ir.h"

/* Fill modes, keys, state descriptors and fingerprints of every node and model, and
 * check each model's materialization contract (adds diagnostics). */
void ir_analyze(IrGraph *g, Arena *arena, DiagList *dl);
/* Every `columns:` entry of a model config names an output column of the model
 * (column_docs.c); errors with a did-you-mean otherwise. */
void ir_check_column_docs(const BoundProject *bp, DiagList *dl);

/* Column pruning (prune.c): rewrites the plan under root in place so that joins,
 * window TVFs and the nodes between them carry only the columns read above them,
 * inserting projections under join and TVF inputs where needed. The root keeps its
 * columns; new memory comes from arena. */
void ir_prune_columns(Arena *a, PlanNode *root);

/* ---- analyze.c helpers shared with analyze_stream.c ---- */
typedef struct ColList {
    PlanColumn *cols;
    const char **fp_names;       /* per column: the name its state fingerprint hashes
                                    (NULL: none differs from the shown name) */
    int n, cap;
} ColList;
void ir_col_add(ColList *l, Arena *a, const char *name, Type t);
/* ir_col_add for a column whose label says how the engine holds it while the
 * fingerprint hashes `fp_name`, what it computes (MIN/MAX: `.extreme` or `.multiset`
 * shown, one accumulator for the fingerprint and plan verdicts). */
void ir_col_add_fp(ColList *l, Arena *a, const char *name, const char *fp_name, Type t);
void ir_set_key(IrNode *n, Arena *a, const int *cols, int k);
/* Accumulator columns of aggregate calls, each named by its call's SQL over the input
 * columns (a second equal call gets "#2"); returns those call names (naggs).
 * `extreme_only`: the engine keeps only the extreme of MIN/MAX (its input is
 * insert-only), shown `.extreme`; else the ordered multiset of values, `.multiset`. */
const char **ir_agg_values(ColList *v, Arena *a, const AggCall *aggs, int naggs, const PlanColumn *in_cols, int nin,
                           bool extreme_only);
/* The values of a GROUP BY state (plain or window aggregate p): __rows, then the
 * accumulator columns of p's calls (named by p's output columns after the keys). */
void ir_group_state_values(StateDesc *s, Arena *a, const PlanNode *p, bool extreme_only);
/* Does the engine expire idle keys of an unbounded state of this kind by the model's
 * state_ttl (GROUP BY groups and a global aggregate's one group, DISTINCT rows,
 * unbounded join sides, TopN partitions, OVER aggregate partitions; not set operations)? */
bool ir_state_takes_ttl(const StateDesc *s);
/* Schema/logic fingerprints of a descriptor; an unbounded state that takes a TTL becomes
 * `ttl` when the model has state_ttl. */
void ir_finish_state(StateDesc *s, const IrNode *n, const ModelDef *m);

/* ---- analyze_stream.c: joins, windows, TopN, OVER aggregates, set operations ---- */
/* Mode, key and state of a node of one of those kinds (or a window aggregate). */
void ir_analyze_stream(const IrGraph *g, IrNode *n, Arena *a, const ModelDef *m);
/* True for an aggregate over a window TVF grouped by its window columns. */
bool ir_is_window_aggregate(const PlanNode *p);
/* Checks after analysis: unbounded join state (warning "unbounded-state"), OVER
 * aggregates over updating input (error). */
void ir_check_stream(const IrGraph *g, Arena *a, DiagList *dl);
/* Why a node of those kinds emits updates (append contract), or NULL. */
const char *ir_stream_update_reason(const IrNode *n, Arena *a);

/* Does the operator depend on event time (it waits for watermarks or judges lateness)? */
bool ir_uses_event_time(const IrNode *n);
/* Column-level fingerprints of n (lineage.c): n->rows_fp and n->col_fp, from its inputs'.
 * Needs n's inputs done, its time_fp and its state descriptors' bounds. */
void ir_lineage(const IrGraph *g, IrNode *n, Arena *a);
/* What n's output holds: its rows and every column. */
uint64_t ir_output_fp(const IrNode *n);
/* What state s of n holds, from the lineage of what feeds it (not its layout). */
uint64_t ir_state_content_fp(const IrNode *n, const StateDesc *s);

#endif
