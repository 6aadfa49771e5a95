/* The line sink: writes one formatted line per change (json, changelog-json,
 * debezium-json; see sink.h) into a file or descriptor, buffered and flushed at the
 * end of every step or when the buffer grows large. A file is truncated when opened:
 * a run recomputes the model from the beginning. */
#include "connectors/dead_letter.h"
#include "connectors/sink.h"
#include "base/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLUSH_AT (1u << 20)

typedef struct FileSink {
    ConnSink base;
    char *target;
    int fd;
    bool own_fd;
    SinkFormatter fmt;
    StrBuf buf;
} FileSink;

static bool flush_buf(FileSink *s, char *err, size_t errsize)
{
    const char *p = s->buf.data;
    size_t n = s->buf.len;
    while (n) {
        ssize_t k = write(s->fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            snprintf(err, errsize, "model %s: sink %s: write error: %s", s->base.model, s->target, strerror(errno));
            return false;
        }
        p += k;
        n -= (size_t)k;
    }
    sb_clear(&s->buf);
    return true;
}

static bool fs_write(ConnSink *base, const EngChange *changes, int n, char *err, size_t errsize)
{
    FileSink *s = (FileSink *)base;
    for (int i = 0; i < n; i++) {
        if (!sink_format_change(&s->fmt, &changes[i], &s->buf, err, errsize)) return false;
        if (s->buf.len >= FLUSH_AT && !flush_buf(s, err, errsize)) return false;
    }
    return true;
}

static bool fs_commit(ConnSink *base, char *err, size_t errsize)
{
    return flush_buf((FileSink *)base, err, errsize);
}

static bool fs_close(ConnSink *base, char *err, size_t errsize)
{
    FileSink *s = (FileSink *)base;
    bool ok = true;
    if (s->own_fd && close(s->fd) != 0 && ok) {
        snprintf(err, errsize, "model %s: sink %s: close error: %s", s->base.model, s->target, strerror(errno));
        ok = false;
    }
    sink_formatter_fini(&s->fmt);
    sb_free(&s->buf);
    free(s->target);
    free(s);
    return ok;
}

static const SinkOps file_sink_ops = {fs_write, fs_commit, fs_close};

static ConnSink *make(int fd, bool own, const char *target, const ConnSinkSpec *spec, DataFormat format,
                      char *err, size_t errsize)
{
    if (format != FMT_JSON && format != FMT_CHANGELOG_JSON && format != FMT_DEBEZIUM_JSON) {
        snprintf(err, errsize, "model %s: format %s is not supported by the %s sink", spec->model,
                 data_format_name(format), own ? "file" : "stdout");
        if (own) close(fd);
        return NULL;
    }
    FileSink *s = xcalloc(1, sizeof *s);
    s->base.ops = &file_sink_ops;
    s->base.model = spec->model;
    s->target = xstrdup(target);
    s->base.target = s->target;
    s->fd = fd;
    s->own_fd = own;
    sink_formatter_init(&s->fmt, spec, format);
    sb_init(&s->buf);
    return &s->base;
}

ConnSink *sink_file_open(const char *path, const ConnSinkSpec *spec, DataFormat format, char *err, size_t errsize)
{
    if (!fs_mkdirs_for(path)) {
        snprintf(err, errsize, "model %s: sink %s: cannot create directory: %s", spec->model, path, strerror(errno));
        return NULL;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errsize, "model %s: sink %s: cannot open: %s", spec->model, path, strerror(errno));
        return NULL;
    }
    return make(fd, true, path, spec, format, err, errsize);
}

ConnSink *sink_fd_open(int fd, const char *target, const ConnSinkSpec *spec, DataFormat format, char *err,
                       size_t errsize)
{
    return make(fd, false, target, spec, format, err, errsize);
}
