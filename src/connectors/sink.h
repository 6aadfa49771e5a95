/* Sinks for `weir run`: where a model's changes go. A sink is opened for a model with
 * its output columns and presentation key, receives the consolidated changes of each
 * engine step (sink_write, possibly several calls per step), and makes them durable
 * and visible at the end of the step (sink_commit): a file sink flushes its buffer, the
 * sqlite sink commits the step's transaction. After a commit the sink's content
 * equals the model's result as of that step.
 *
 * Connectors: file {path, format}, stdout {format}, sqlite {path, table}, kafka {topic,
 * format, bootstrap_servers} (sink_file.c, sink_stdout.c, sink_sqlite.c, kafka.c),
 * clickhouse for the native models of a ClickHouse target (sink_clickhouse.c); the
 * others (postgres, webhook) come later and report "not supported" from sink_supported.
 *
 * Output formats (file, stdout), one line per change, keys in column order, values
 * rendered by value_format_json:
 *   json            {"c1":..,"c2":..}                 inserts only; an update or delete
 *                                                     fails the run (the checker keeps
 *                                                     json sinks on append-only models)
 *   changelog-json  {"op":"insert"|"update"|"delete","c1":..,..}   a delete carries the
 *                                                     row as it was
 *   debezium-json   {"before":{..}|null,"after":{..}|null,"op":"c"|"u"|"d"}
 *   upsert          (kafka only) the row for an insert or update, a tombstone (no value)
 *                   for a delete; the message key carries the model's key columns */
#ifndef WEIR_CONNECTORS_SINK_H
#define WEIR_CONNECTORS_SINK_H

#include "base/strbuf.h"
#include "engine/engine.h"
#include "project/project.h"
#include "sql/plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ConnSinkSpec {
    const char *model;           /* model name */
    const SinkDef *def;
    const PlanColumn *cols;      /* the model's output columns */
    int ncols;
    const int *key;              /* presentation key (column indexes) */
    int nkey;                    /* <= 0: keyless */
    bool durable;                /* a durable run: changes arrive as deliveries (SinkOps) */
    bool resume;                 /* a durable run continues: keep what the sink holds (no
                                    truncation, no dropped table); deliveries follow */
} ConnSinkSpec;

typedef struct ConnSink ConnSink;

typedef struct SinkOps {
    bool (*write)(ConnSink *s, const EngChange *changes, int n, char *err, size_t errsize);
    bool (*commit)(ConnSink *s, char *err, size_t errsize);
    /* Release and free (also after a failure). Work not yet committed is discarded
     * where the connector can (sqlite rolls the step back). */
    bool (*close)(ConnSink *s, char *err, size_t errsize);
    /* ---- durable runs (run.c): instead of a commit per step, the changes of a
     * checkpoint interval are stored in the checkpoint and then delivered:
     * begin_delivery, write..., end_delivery. After a crash the last checkpoint's
     * delivery is made again, so a delivery must have the same effect twice. ---- */
    /* Where the next delivery starts (file: its length; 0 for the others). Recorded
     * with the delivery in the checkpoint. */
    uint64_t (*delivery_base)(ConnSink *s);
    /* Start delivering checkpoint `ckpt`, which begins at `base`: the file sink cuts the
     * file back to base; the sqlite sink opens a transaction and sets *already when its
     * marker says the checkpoint is in (the caller then writes nothing and does not
     * end the delivery). With `replace` the delivery is the sink's whole content (a
     * restatement by weir apply): the file starts empty, the table is made anew with
     * the model's columns; a Kafka topic cannot be rewritten (an error). */
    bool (*begin_delivery)(ConnSink *s, uint64_t ckpt, uint64_t base, bool replace, bool *already, char *err,
                           size_t errsize);
    /* Make the delivery durable: file fsync, sqlite marker + commit, kafka acknowledged. */
    bool (*end_delivery)(ConnSink *s, uint64_t ckpt, char *err, size_t errsize);
} SinkOps;

struct ConnSink {
    const SinkOps *ops;
    const char *model;
    const char *target;          /* where it writes, for the summary: a path, "<stdout>" */
};

/* True when weir run can write this connector; otherwise *why says so. */
bool sink_supported(SinkConnector c, const char **why);
/* Open the sink configured for a model. Paths are relative to the project. Returns
 * NULL with a message when it cannot be opened. */
ConnSink *sink_open(Project *p, const ConnSinkSpec *spec, char *err, size_t errsize);
/* Write a step's changes (valid only during the call; the sink copies what it keeps). */
bool sink_write(ConnSink *s, const EngChange *changes, int n, char *err, size_t errsize);
/* End of a step: make the step's changes durable/visible. */
bool sink_commit(ConnSink *s, char *err, size_t errsize);
/* Release and free; an uncommitted step is discarded (call sink_commit first).
 * Returns false when closing fails. */
bool sink_close(ConnSink *s, char *err, size_t errsize);
/* Deliver the changes of checkpoint `ckpt` (durable runs; see SinkOps):
 * sink_begin_delivery, then (unless *already) sink_write calls and sink_end_delivery.
 * Idempotent, so a delivery interrupted by a crash is simply made again. */
bool sink_begin_delivery(ConnSink *s, uint64_t ckpt, uint64_t base, bool replace, bool *already, char *err,
                         size_t errsize);
bool sink_end_delivery(ConnSink *s, uint64_t ckpt, char *err, size_t errsize);
/* The base the next delivery starts from (SinkOps.delivery_base). */
uint64_t sink_delivery_base(ConnSink *s);

/* ---- connector constructors ---- */

/* A line sink on `path` (truncated; parent directories created). */
ConnSink *sink_file_open(const char *path, const ConnSinkSpec *spec, DataFormat format, char *err, size_t errsize);
/* A line sink on an open descriptor (not closed by the sink); `target` names it. */
ConnSink *sink_fd_open(int fd, const char *target, const ConnSinkSpec *spec, DataFormat format, char *err,
                       size_t errsize);
/* The line sink on standard output (sink_stdout.c). */
ConnSink *sink_stdout_open(const ConnSinkSpec *spec, DataFormat format, char *err, size_t errsize);
/* The Kafka sink (kafka.c) on the topic of spec->def; bootstrap servers from the sink
 * or the target, properties from the target (see src_kafka_reader_open). The topic
 * must exist. */
ConnSink *sink_kafka_open(Project *p, const ConnSinkSpec *spec, DataFormat format, char *err, size_t errsize);
/* The ClickHouse sink (sink_clickhouse.c) of a native model: rows into `database`.`table`,
 * the table weir apply made for it (docs/clickhouse.md "Native models"); emptied
 * unless spec->resume. */
ConnSink *sink_clickhouse_open(const ConnSinkSpec *spec, const char *url, const char *database, const char *table,
                               const char *user, const char *password, char *err, size_t errsize);
/* The SQLite sink (sink_sqlite.c): database file `path`, table `table`. */
ConnSink *sink_sqlite_open(const char *path, const char *table, const ConnSinkSpec *spec, char *err, size_t errsize);

/* ---- staged rollout of SQLite outputs (weir publish, rollback, janitor, audit) ---- */

/* One reader-facing name switched to a physical table: `name` becomes a view over
 * `table`; when `name` is still the physical table of the running version, it is first
 * renamed to `keep_as`. */
typedef struct SqliteSwitch {
    const char *name, *table, *keep_as;
} SqliteSwitch;

/* Switch every view of one database file in one transaction (all or none). */
bool sqlite_switch_views(const char *db_path, const SqliteSwitch *sw, int n, char *err, size_t errsize);
/* Is `name` a table (not a view) in the database? */
bool sqlite_is_table(const char *db_path, const char *name);
/* Drop table `table` if it exists (a superseded deployment's shadow output). */
bool sqlite_drop_table(const char *db_path, const char *table, char *err, size_t errsize);
/* The rows of `table` (or view): their count and an order-independent digest of their
 * values (as text); false with a message when it cannot be read. */
bool sqlite_table_digest(const char *db_path, const char *table, int64_t *rows, uint64_t *digest, char *err,
                         size_t errsize);

/* ---- line formatting (sink_format.c), shared by the line sinks ---- */

typedef struct SinkFormatter {
    DataFormat format;
    const char *model;
    int ncols;
    const PlanColumn *cols;
    char **prefix;               /* per column: ,"name": (the first without the comma) */
    size_t *prefix_len;
} SinkFormatter;

void sink_formatter_init(SinkFormatter *f, const ConnSinkSpec *spec, DataFormat format);
void sink_formatter_fini(SinkFormatter *f);
/* Append one line (with '\n') for the change. Returns false with a message when the
 * format cannot express it (json: an update or delete). */
bool sink_format_change(const SinkFormatter *f, const EngChange *c, StrBuf *out, char *err, size_t errsize);
/* Append {"c1":..,..} for a row. */
void sink_format_row(const SinkFormatter *f, const Value *row, StrBuf *out);

#endif
