/* `weir plan`: what a new version of the project does to the version that runs
 * (DESIGN.md section 3, plan verdicts; docs/lifecycle.md). Compares two manifests --
 * what runs and what the project is now -- and gives every model and every stateful
 * operator a verdict with its reasons in words:
 *   unchanged  nothing that decides the state or the output changed;
 *   safe       every piece of state is reusable as it is (or without accumulators that
 *              are no longer read, or with a shorter state_ttl: the entries keep their
 *              update times); the output may change, and is then re-derived from
 *              the state (a projection above an aggregate, a new sink);
 *   backfill   the state keeps its keys but its content no longer matches the new
 *              program (a changed filter or expression feeding it, an upstream model that
 *              changes, a new aggregate column, a longer or added TTL, another watermark
 *              delay under a window or a TTL), or the
 *              output is not kept in state at all (a stateless model with a sink): it is
 *              recomputed from the sources' retained history;
 *   rebuild    the state is incompatible (its key, its kind or a column's type changed,
 *              or a source now reads another stream): it is built anew from history;
 *   new        the model (or state) does not run yet: built from retained history;
 *   removed    the model is gone: its state is dropped, its sink left as it is.
 * A model's verdict is the worst of its states' verdicts and of what its output needs.
 * Downstream models inherit an upstream change through their logic fingerprints and say
 * which upstream model causes it. Everything is decided from the state descriptors and
 * the plan trees of the manifests, never from SQL text.
 *
 * What replaying costs is known only to a backend (Kafka offsets, retention, file
 * sizes): it adds that with plan_add_replay before rendering. */
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
/* "backfill" -> VERDICT_BACKFILL; false for other words. */
bool verdict_parse(const char *s, Verdict *out);

/* What apply does with a piece of state. */
typedef enum {
    STATE_KEEP,                  /* restored as it is */
    STATE_MAP,                   /* restored without the accumulators no longer read */
    STATE_REPLAY,                /* built anew from the sources' retained history */
    STATE_DROP,                  /* no longer needed */
} StateAction;

const char *state_action_name(StateAction a);

typedef struct PlanState {
    const char *id;
    const char *kind;
    Verdict verdict;
    StateAction action;
    const char *reason;          /* NULL when unchanged; may span lines */
} PlanState;

/* How a model's sink comes to hold what a fresh run of the new version would give. */
typedef enum {
    OUTPUT_KEEP,                 /* the output does not change (or there is no sink) */
    OUTPUT_FROM_STATE,           /* the current rows are derived from the state; the sink
                                    receives only the rows that change */
    OUTPUT_REPLAY,               /* the output is not kept in state: recomputed from the
                                    sources' history, the sink rewritten */
    OUTPUT_LEFT,                 /* removed model: its sink is left as it is */
} OutputAction;

const char *output_action_name(OutputAction a);

typedef struct PlanModel {
    const char *name;
    Verdict verdict;
    const char **reasons;        /* what changed in the model itself */
    int nreasons;
    PlanState *states;
    int nstates;
    OutputAction output;
    const char *sink;            /* "sqlite target/x.db:customer_metrics" or NULL */
} PlanModel;

/* The history a replay reads from one source (filled by the backend). */
typedef struct PlanPartition {
    int32_t partition;
    int64_t from, to;            /* offsets to read again: [from, to) */
    int64_t earliest;            /* the first offset the cluster still holds, -1 unknown */
} PlanPartition;

typedef struct PlanReplay {
    const char *source;
    const char *connector;       /* "kafka", "file", ... */
    bool known;                  /* positions are known (there is a running state) */
    PlanPartition *parts;        /* kafka */
    int nparts;
    int64_t bytes;               /* file: bytes read again, -1 unknown */
    bool lost;                   /* part of that history is no longer retained */
    const char *note;            /* e.g. why positions or retention are unknown */
} PlanReplay;

typedef struct Plan {
    Arena arena;
    bool deployed;               /* something runs (a manifest was compared) */
    PlanModel *models;           /* current models in manifest order, then removed ones */
    int nmodels;
    PlanState *source_states;    /* state that belongs to sources (changelog normalize) */
    int nsource_states;
    int counts[VERDICT_REMOVED + 1];
    const char **replay_sources; /* sources whose retained history a replay reads */
    int nreplay_sources;
    PlanReplay *replay;          /* per replay source, once the backend added it */
    int nreplay;
    const char **blockers;       /* why the plan cannot be carried out (history lost ...) */
    int nblockers;
} Plan;

/* Compare `running` (what runs; NULL: nothing runs yet, every model is new and nothing
 * needs a replay) with `next` (the project now). */
void plan_compute(const Manifest *running, const Manifest *next, Plan *out);
/* Add what replaying source r->source costs (copied); history that is lost blocks the
 * plan. */
void plan_add_replay(Plan *p, const PlanReplay *r);
/* Add a reason the plan cannot be carried out (copied). */
void plan_add_blocker(Plan *p, const char *text);
/* Does some model's verdict reach `level` (backfill: backfill or rebuild)? */
bool plan_reaches(const Plan *p, Verdict level);
/* What apply does with operator op_id (the owner of its states): replay when any of
 * them is rebuilt, map when an aggregate drops accumulators, else keep. */
StateAction plan_op_action(const Plan *p, const char *op_id);
/* The model's entry, or NULL. */
const PlanModel *plan_find_model(const Plan *p, const char *name);
const PlanState *plan_find_state(const Plan *p, const char *id);
void plan_free(Plan *p);

/* The plan a reviewer reads; `against` says what `running` is (e.g. "checkpoint 12 of
 * target dev"). */
void plan_render_text(const Plan *p, const char *against, StrBuf *out);
/* The stable JSON of docs/lifecycle.md. */
void plan_render_json(const Plan *p, const char *against, StrBuf *out);

#endif
