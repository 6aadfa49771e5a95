/* `weir apply` on the native runtime: moves a durable target from the version it runs
 * to the project as it is now, in one checkpoint (docs/lifecycle.md, "apply").
 *
 * From the target's last checkpoint: the running version's pipeline is restored; the
 * new version's pipeline takes every piece of state the plan keeps (as it is, or an
 * aggregate without its dropped accumulators) by operator id; state the plan rebuilds
 * is computed by replaying the sources from where the deployment began reading up to
 * the checkpoint's positions (only the models that need it run in the replay); every
 * sink whose rows change receives, as the checkpoint's delivery, the changes that turn
 * the old version's rows into the new one's (re-derived from state), or its whole new
 * content (a new place or format, new columns, rows not kept in state: those come
 * from the replay). The new checkpoint -- the new version's state at the old
 * checkpoint's positions, its manifest and the deliveries -- replaces the old one in
 * one transaction of the state store, with the deployment's record in the journal:
 * a crash before it leaves the old version, after it the new one, whose deliveries the
 * next `weir run` (or apply) makes again if they were interrupted. Records that arrive
 * meanwhile stay in the cluster and are read by the next run from those positions. */
#ifndef WEIR_RUNTIME_APPLY_H
#define WEIR_RUNTIME_APPLY_H

#include "ir/ir.h"
#include "lifecycle/plan.h"
#include "project/project.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RunApplyRequest {
    Project *p;                  /* the new version (its sinks and sources are opened) */
    const IrGraph *g;
    Project *old_p;              /* the running version, loaded from its manifest */
    const IrGraph *old_g;
    const Plan *plan;            /* plan_compute(running, new) */
    const char *manifest;        /* the new version's manifest JSON */
    size_t manifest_len;
    const char *plan_json;       /* kept in the deployment's record */
    int batch_size;              /* records per source per replay step; <= 0: 4096 */
    bool staged;                 /* build the new version beside the running one: in a new
                                  * store (deployments.h) writing shadow outputs, each with
                                  * its whole content; the running version is only read */
} RunApplyRequest;

typedef struct RunApplyResult {
    int64_t deployment;          /* the id of the deployment recorded */
    uint64_t checkpoint;         /* the new version's first checkpoint */
    int64_t replayed_records;    /* records read again */
    int64_t restated_changes;    /* changes delivered to restate sinks */
    int nreplayed;               /* operators rebuilt by the replay */
    int nkept;                   /* operators whose state was kept (or mapped) */
    bool settled;                /* deliveries an interrupted run or apply left were made first */
    char store[64];              /* staged: the new deployment's store ("deployments/<id>") */
} RunApplyResult;

/* Carry the plan out. Returns the exit code: 0 done; 2 the target cannot take it (no
 * durable state, a run holds the state directory, a sink that cannot be restated);
 * 3 an infrastructure failure (the store, a source, a sink), err says which. */
int run_apply(const RunApplyRequest *req, RunApplyResult *out, char *err, size_t errsize);

#endif
