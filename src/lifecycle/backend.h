/* The lifecycle's backend interface: what a target that runs a project (the native
 * runtime, ClickHouse, later Flink) does for `weir plan`, `weir apply`, the staged
 * rollout verbs and `weir inspect`. The CLI opens the backend of the selected target's
 * runtime and drives it through these operations; the verdicts themselves are computed
 * once, for every backend, by plan_compute (plan.h). See docs/lifecycle.md.
 *
 * Every operation returns false on failure with a message in err and an exit code in
 * *code (2: the request or the configuration cannot be carried out; 3: an
 * infrastructure failure). Operations that change the target are resumable: a crash at
 * any moment leaves the target running either the old version or the new one, and the
 * next call of the same operation (or `weir run`) finishes or undoes what was begun. */
#ifndef WEIR_LIFECYCLE_BACKEND_H
#define WEIR_LIFECYCLE_BACKEND_H

#include "ir/ir.h"
#include "lifecycle/plan.h"
#include "project/project.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct LcBackend LcBackend;

/* What a target runs now. */
typedef struct LcDeployed {
    bool exists;                 /* false: nothing runs yet */
    char *manifest;              /* the manifest JSON of the version that runs */
    size_t manifest_len;
    char *description;           /* for humans: "checkpoint 12 of target dev (written ...)" */
    int64_t deployment;          /* the deployment's id, 0 when it has none */
} LcDeployed;

void lc_deployed_free(LcDeployed *d);

/* A request to deploy the project as it is now (the backend's graph). */
typedef struct LcApplyRequest {
    const Plan *plan;            /* plan_compute(deployed, project), with replay costs */
    const char *manifest;        /* the new version's manifest JSON */
    size_t manifest_len;
    bool allow_rebuild;          /* carry out rebuild verdicts too */
    bool staged;                 /* build beside the running version into shadow outputs */
} LcApplyRequest;

/* What an apply did, for the summary. */
typedef struct LcApplyResult {
    int64_t deployment;          /* the new deployment's id */
    int64_t replayed_records;    /* records read again from retained history */
    int64_t restated_rows;       /* changes sent to sinks to restate their rows */
    bool resumed;                /* an interrupted apply was finished */
    char store[64];              /* staged: where the new version was built */
    char *summary;               /* malloc'd: the backend's own account of what it did, which
                                    the CLI prints in place of the counts above (NULL: none) */
} LcApplyResult;

typedef struct LcBackendOps {
    const char *name;            /* "native", "clickhouse" */
    bool deploys_first;          /* apply also deploys a project that does not run yet (the
                                    native runtime leaves that to `weir run`) */
    /* What the target runs (out is zeroed first). */
    bool (*deployed)(LcBackend *b, LcDeployed *out, int *code, char *err, size_t errsize);
    /* Add to `plan` what replaying each of its replay_sources costs (plan_add_replay)
     * and what blocks it. Never fails: what cannot be known is said in a note. */
    void (*replay_costs)(LcBackend *b, Plan *plan);
    /* Deploy the new version (NULL: the backend cannot apply yet); with req->staged,
     * build it beside the running one into shadow outputs. */
    bool (*apply)(LcBackend *b, const LcApplyRequest *req, LcApplyResult *out, int *code, char *err,
                  size_t errsize);
    /* ---- the staged rollout (NULL: the backend has none) ---- */
    /* Is the staged version ready to take over? Brings it up to the running version's
     * input first; *ready says the verdict, out the report (text, or JSON). */
    bool (*audit)(LcBackend *b, bool json, StrBuf *out, bool *ready, int *code, char *err, size_t errsize);
    /* Switch the readers to the staged version in one step; the running one is kept. */
    bool (*publish)(LcBackend *b, StrBuf *out, int *code, char *err, size_t errsize);
    /* Switch them back to the version that ran before the last publish. */
    bool (*rollback)(LcBackend *b, StrBuf *out, int *code, char *err, size_t errsize);
    /* Remove superseded versions older than retain_s (their state and outputs). */
    bool (*janitor)(LcBackend *b, int64_t retain_s, StrBuf *out, int *code, char *err, size_t errsize);
    void (*close)(LcBackend *b);
} LcBackendOps;

struct LcBackend {
    const LcBackendOps *ops;
    Project *project;            /* the project as it is now */
    const IrGraph *graph;        /* its IR */
    void *impl;                  /* the backend's own state */
};

#endif
