/* The ClickHouse target as a lifecycle backend (lifecycle/backend.h): what is deployed
 * (the manifest weir keeps in the target database), `weir apply [--staged]` and the
 * staged rollout's audit, publish, rollback and janitor, over the verbs of
 * ch_deploy.h (doctor and repair have no operation in the interface yet). */
#ifndef WEIR_BACKENDS_CLICKHOUSE_CH_BACKEND_H
#define WEIR_BACKENDS_CLICKHOUSE_CH_BACKEND_H

#include "backends/clickhouse/ch_deploy.h"
#include "lifecycle/backend.h"

/* Open the backend; o (copied) holds the connection flags and options. Never fails:
 * the connection is made by each operation. */
LcBackend *ch_backend_open(Project *p, const IrGraph *g, const ChOptions *o);

#endif
