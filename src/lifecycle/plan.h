/* `weir plan`: what a new version of the project does to the state of the version that
 * runs (DESIGN.md section 3, plan verdicts). Compares two manifests -- what runs and
 * what the project is now -- and gives every model and every stateful operator a
 * verdict with its reasons in words:
 *   unchanged  nothing changed;
 *   safe       something changed, but every piece of state is reusable as it is (a
 *              projection above an aggregate, a sink, a new column computed from kept
 *              state ...);
 *   backfill   the state keeps its keys but its content is no longer right (a changed
 *              filter or expression feeding it, an upstream model that changes, a new
 *              aggregate column): it must be rebuilt from retained history;
 *   rebuild    the state is incompatible (its key, its kind or a column's type changed,
 *              or a source now reads another stream): it must be built anew;
 *   new        the model (or state) does not run yet: it is built from the sources'
 *              retained history;
 *   removed    the model is gone (its state is dropped).
 * A model's verdict is the worst of its states' verdicts (and at least safe when its
 * own fingerprint moved). Downstream models inherit an upstream change through their
 * logic fingerprints, and say which upstream model causes it. */
#ifndef WEIR_LIFECYCLE_PLAN_H
#define WEIR_LIFECYCLE_PLAN_H

#include "base/strbuf.h"
#include "lifecycle/manifest_read.h"

typedef enum {
    VERDICT_UNCHANGED,
    VERDICT_SAFE,
    VERDICT_NEW,
    VERDICT_BACKFILL,
    VERDICT_REBUILD,
    VERDICT_REMOVED,
} Verdict;

const char *verdict_name(Verdict v);

typedef struct PlanState {
    const char *id;
    const char *kind;
    Verdict verdict;
    const char *reason;          /* NULL when unchanged; may span lines */
} PlanState;

typedef struct PlanModel {
    const char *name;
    Verdict verdict;
    const char **reasons;        /* what changed in the model itself */
    int nreasons;
    PlanState *states;
    int nstates;
} PlanModel;

typedef struct Plan {
    Arena arena;
    PlanModel *models;           /* current models in manifest order, then removed ones */
    int nmodels;
    PlanState *source_states;    /* state that belongs to sources (changelog normalize) */
    int nsource_states;
    int counts[VERDICT_REMOVED + 1];
    bool blocked;                /* the running state cannot be reused as it is: some model
                                    needs a backfill or a rebuild, or is new next to models
                                    that already run */
} Plan;

/* Compare `running` (what runs; NULL: nothing runs yet, every model is new) with
 * `next` (the project now). */
void plan_compute(const Manifest *running, const Manifest *next, Plan *out);
void plan_free(Plan *p);
/* Human plan; `against` says what `running` is (e.g. "checkpoint 12 of target dev"). */
void plan_render_text(const Plan *p, const char *against, StrBuf *out);
/* {"against","blocked","summary":{"unchanged":n,...},"models":[{"name","verdict",
 *  "reasons":[..],"state":[{"id","kind","verdict","reason"}]}],"source_state":[...]} */
void plan_render_json(const Plan *p, const char *against, StrBuf *out);

#endif
