/* Sink dispatch: picks the connector for a model's sink configuration and forwards
 * the write/commit/close calls (see sink.h). */
#include "connectors/sink.h"

#include <stdio.h>

bool sink_supported(SinkConnector c, const char **why)
{
    switch (c) {
    case SINK_FILE: case SINK_STDOUT: case SINK_SQLITE: case SINK_KAFKA: case SINK_CLICKHOUSE:
        return true;
    default:
        if (why) *why = "is not supported by weir run yet (file, stdout, sqlite, kafka and clickhouse are)";
        return false;
    }
}

ConnSink *sink_open(Project *p, const ConnSinkSpec *spec, char *err, size_t errsize)
{
    const SinkDef *d = spec->def;
    const char *why = NULL;
    if (!sink_supported(d->connector, &why)) {
        snprintf(err, errsize, "model %s: sink connector %s %s", spec->model, sink_connector_name(d->connector), why);
        return NULL;
    }
    DataFormat fmt = d->format_set ? d->format : FMT_JSON;
    switch (d->connector) {
    case SINK_FILE:
        if (!d->path) {
            snprintf(err, errsize, "model %s: file sink without a path", spec->model);
            return NULL;
        }
        return sink_file_open(project_path(p, d->path), spec, fmt, err, errsize);
    case SINK_STDOUT:
        return sink_stdout_open(spec, fmt, err, errsize);
    case SINK_KAFKA:
        return sink_kafka_open(p, spec, fmt, err, errsize);
    case SINK_CLICKHOUSE:
        if (!d->native_table) {
            snprintf(err, errsize, "model %s: a clickhouse sink is written for the native models of a `runtime: "
                                   "clickhouse` target (weir run --target <it>), into the table weir apply makes",
                     spec->model);
            return NULL;
        }
        return sink_clickhouse_open(spec, d->url, d->database, d->table, d->user, d->password, err, errsize);
    default: /* SINK_SQLITE */
        if (!d->path) {
            snprintf(err, errsize, "model %s: sqlite sink without a path (the database file)", spec->model);
            return NULL;
        }
        return sink_sqlite_open(project_path(p, d->path), d->table ? d->table : spec->model, spec, err, errsize);
    }
}

bool sink_write(ConnSink *s, const EngChange *changes, int n, char *err, size_t errsize)
{
    return n == 0 || s->ops->write(s, changes, n, err, errsize);
}

bool sink_commit(ConnSink *s, char *err, size_t errsize) { return s->ops->commit(s, err, errsize); }

bool sink_close(ConnSink *s, char *err, size_t errsize)
{
    if (!s) return true;
    return s->ops->close(s, err, errsize);
}

bool sink_begin_delivery(ConnSink *s, uint64_t ckpt, uint64_t base, bool replace, bool *already, char *err,
                         size_t errsize)
{
    *already = false;
    return s->ops->begin_delivery(s, ckpt, base, replace, already, err, errsize);
}

bool sink_end_delivery(ConnSink *s, uint64_t ckpt, char *err, size_t errsize)
{
    return s->ops->end_delivery(s, ckpt, err, errsize);
}

uint64_t sink_delivery_base(ConnSink *s) { return s->ops->delivery_base(s); }
