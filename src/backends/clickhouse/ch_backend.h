/* The ClickHouse target as a lifecycle backend (lifecycle/backend.h): what is deployed
 * (the manifest weir keeps in the target database) and `weir apply [--staged]`. The
 * staged rollout's other verbs (audit, publish, rollback, doctor, repair, janitor) are
 * the functions of ch_deploy.h until the backend interface has them. */
#ifndef WEIR_BACKENDS_CLICKHOUSE_CH_BACKEND_H
#define WEIR_BACKENDS_CLICKHOUSE_CH_BACKEND_H

#include "backends/clickhouse/ch_deploy.h"
#include "lifecycle/backend.h"

/* Open the backend; o (copied) holds the connection flags and options. Never fails:
 * the connection is made by each operation. */
LcBackend *ch_backend_open(Project *p, const IrGraph *g, const ChOptions *o);

#endif
