/* The lifecycle verbs on a ClickHouse target (docs/clickhouse.md): plan (read-only),
 * apply (build: stage and publish at once), apply --staged (StreamBuild's backfill),
 * audit, publish, rollback, doctor, repair, janitor, and compile (offline). Every
 * mutating verb holds the target's lock (the table `_weir_lock`), records each step as
 * an append-only state transition of its deployment, and can be rerun after a crash at
 * any step: it resumes where the last recorded step ended.
 *
 * The cut-over of a staged deployment is exact (no row lost or counted twice): the
 * landing views of the managed sources it reads are detached (ingestion pauses), the
 * new materialized views are created, the landed history (and every active table a new
 * view reads) is snapshotted by partition, the landing views are attached again, and
 * the snapshot is replayed at leisure into partition `_weir_replay = 1` of each new
 * table, which a rerun replaces whole. The live views write partition 0. */
#ifndef WEIR_BACKENDS_CLICKHOUSE_CH_DEPLOY_H
#define WEIR_BACKENDS_CLICKHOUSE_CH_DEPLOY_H

#include "backends/clickhouse/ch_client.h"
#include "ir/ir.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ChOptions {
    ChFlags flags;
    bool json;                 /* --format json where the output is data */
    int fail_on;               /* plan: exit 1 when a verdict reaches this (Verdict), -1: never */
    bool staged;               /* apply --staged */
    const char *deployment;    /* --deployment ID (audit, publish) */
    bool force;                /* publish: even when the audit is not ready */
    int64_t retention_s;       /* janitor: keep superseded deployments this long (-1: default 7d) */
    bool yes;                  /* reconcile: record what it adopts (otherwise a preview) */
    void *log;                 /* FILE *: every statement sent, or NULL */
    /* apply: fill the new table `table` of the native model `model` (a project model
     * index) with weir's native runtime, from the start of its sources with a fresh
     * state of its own, until it has caught up. Returns 0 or an exit code (with err).
     * NULL: a native model cannot be deployed (apply refuses it). */
    int (*native_replay)(void *ctx, Project *p, const IrGraph *g, int model, const char *table, char *err,
                         size_t errsize);
    void *native_ctx;
} ChOptions;

/* Every verb appends its report to out and a one-line error to err, and returns an
 * exit code: 0 success; 1 the verb ran and found failures (audit not ready, lock held,
 * plan blocked); 2 a configuration error; 3 the server failed. */
/* What the target runs: the manifest (malloc'd, NULL when nothing is deployed) of the
 * deployment the stable views read, and a description for humans. */
int ch_verb_deployed(Project *p, const IrGraph *g, const ChOptions *o, char **manifest, size_t *len, StrBuf *desc,
                     char *err, size_t errsize);
int ch_verb_plan(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
int ch_verb_apply(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
int ch_verb_audit(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
int ch_verb_publish(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
int ch_verb_rollback(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
int ch_verb_doctor(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
int ch_verb_repair(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
/* reconcile: the models whose live table already is what the project describes (same
 * columns, types, engine, sorting and partition keys), whose materialized view exists
 * and whose stable view would not change, but which plan would rebuild because the
 * metadata records another query, are adopted; so are models nothing of weir's
 * realizes yet whose objects were made outside weir (the view `<model>` over such a
 * table, fed by a materialized view of the model's adopted source). With o->yes (and
 * only when every such model qualifies and nothing else would change) a deployment of
 * its own records the running objects under the project's signatures and manifest
 * (nothing is created, no view switched), so plan treats the current SQL as applied.
 * A model that does not qualify is reported with the difference. */
int ch_verb_reconcile(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
/* `weir run` on a ClickHouse target: the table the published deployment of every native
 * model reads (tables[i] for project model i, strings in the project's arena; NULL for
 * the models ClickHouse maintains). Exit code as above: 1 when a native model has no
 * published table yet (weir apply first). */
int ch_native_tables(Project *p, const IrGraph *g, const ChOptions *o, const char **tables, char *err,
                     size_t errsize);
int ch_verb_janitor(Project *p, const IrGraph *g, const ChOptions *o, StrBuf *out, char *err, size_t errsize);
/* `weir explain` on a ClickHouse target (no connection: both server generations). */
void ch_verb_explain(const IrGraph *g, StrBuf *out);
/* `weir compile`: target/clickhouse/{18.16,current}/NNN_<object>.sql, the DDL of a
 * deployment of the whole project, deterministic. */
bool ch_verb_compile(const IrGraph *g, const char *project_dir, char *err, size_t errsize);

#endif
