/* What the checkpoint of a durable run holds, read back for `weir inspect`: its id
 * and time, every source's position (and, for Kafka, the lag behind the cluster's
 * high watermarks when the cluster can be reached), the size of every piece of
 * operator state, the last delivery of every sink and the dead-letter files. Reads the
 * store without its run lock, so it works while a run is going (it then shows the
 * checkpoint committed last). */
#ifndef WEIR_RUNTIME_CHECKPOINT_INFO_H
#define WEIR_RUNTIME_CHECKPOINT_INFO_H

#include "base/strbuf.h"
#include "connectors/source.h"
#include "project/project.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct CkptSource {
    char *name;
    SrcPositionInfo pos;
    SrcPositionInfo origin;      /* where the deployment began reading (no partitions and
                                    records -1 when the checkpoint does not say) */
    int64_t *lows;               /* Kafka, with lag: the earliest offset retained per
                                    partition, NULL when unknown */
    int64_t *ends;               /* Kafka: high watermark per partition, NULL when unknown */
    int nends;
    char *lag_error;             /* why the lag is unknown (cluster unreachable ...) */
} CkptSource;

typedef struct CkptState {
    char *id;
    int64_t entries, bytes;
    int64_t expired;             /* entries its state_ttl expired (0 without one) */
} CkptState;

typedef struct CkptSink {
    char *model;
    uint64_t checkpoint;         /* the delivery's checkpoint */
    uint64_t changes;            /* changes it carried */
} CkptSink;

typedef struct CkptDeadLetters {
    char *name;
    int64_t bytes;
} CkptDeadLetters;

typedef struct CkptDeployment {
    int64_t id;
    int64_t at;                  /* unix seconds */
    char *mode;                  /* "run" (the first version), "direct" (weir apply) */
    uint64_t checkpoint;         /* the version's first checkpoint */
    char *status;
    char *plan;                  /* the plan's JSON, "" when none */
} CkptDeployment;

typedef struct CheckpointInfo {
    char *state_dir;
    bool exists;                 /* false: no durable run has written a checkpoint */
    uint64_t id;
    int64_t written_at;          /* unix seconds */
    char *project;
    int64_t store_bytes;         /* disk space of the store */
    int replicas;                /* engine replicas whose state it holds (1: one pipeline) */
    CkptSource *sources;
    int nsources;
    CkptState *states;
    int nstates;
    CkptSink *sinks;
    int nsinks;
    CkptDeadLetters *dead;
    int ndead;
    char *manifest;              /* the running project's manifest JSON, NULL when absent */
    size_t manifest_len;
    CkptDeployment *deployments; /* the journal, oldest first */
    int ndeployments;
} CheckpointInfo;

/* Read the checkpoint of the project's target. With `lag` the Kafka clusters are asked
 * for their high watermarks (a few seconds at most per source when unreachable).
 * Returns false with a message (and *out freed) when the store exists but cannot be
 * read: it is damaged, or of an unknown format. */
bool checkpoint_info_read(Project *p, bool lag, CheckpointInfo *out, char *err, size_t errsize);
void checkpoint_info_free(CheckpointInfo *c);
void checkpoint_info_render_text(const CheckpointInfo *c, StrBuf *out);
/* {"state_dir","exists","checkpoint","written_at","project","store_bytes","replicas",
 *  "sources":[{"name","records"|"partitions":[{"partition","offset","end","lag"}],
 *  "lag_error"}],"state":[{"id","entries","bytes","expired"}],"sinks":[{"model","checkpoint",
 *  "changes"}],"dead_letters":[{"name","bytes"}]} */
void checkpoint_info_render_json(const CheckpointInfo *c, StrBuf *out);

#endif
