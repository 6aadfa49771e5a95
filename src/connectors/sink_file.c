/* The line sink: writes one formatted line per change (json, changelog-json,
 * debezium-json; see sink.h) into a file or descriptor, buffered and flushed at the
 * end of every step or when the buffer grows large. A file is truncated when opened:
 * a run recomputes the model from the beginning, unless a durable run resumes. A
 * durable run's delivery cuts the file back to the length its checkpoint recorded
 * before writing, so a delivery made twice leaves the file as made once. */
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
    uint64_t written;            /* bytes in the file (own files) */
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
        s->written += (uint64_t)k;
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

static uint64_t fs_delivery_base(ConnSink *base) { return ((FileSink *)base)->written; }

static bool fs_begin_delivery(ConnSink *base, uint64_t ckpt, uint64_t at, bool replace, bool *already, char *err,
                              size_t errsize)
{
    (void)ckpt;
    if (replace) at = 0;  /* the delivery holds the file's whole content */
    FileSink *s = (FileSink *)base;
    *already = false;
    sb_clear(&s->buf);
    if (!s->own_fd) return true;  /* stdout: a stream cannot be cut back */
    if (ftruncate(s->fd, (off_t)at) != 0 || lseek(s->fd, (off_t)at, SEEK_SET) < 0) {
        snprintf(err, errsize, "model %s: sink %s: cannot cut it back to %llu bytes: %s", s->base.model, s->target,
                 (unsigned long long)at, strerror(errno));
        return false;
    }
    s->written = at;
    return true;
}

static bool fs_end_delivery(ConnSink *base, uint64_t ckpt, char *err, size_t errsize)
{
    (void)ckpt;
    FileSink *s = (FileSink *)base;
    if (!flush_buf(s, err, errsize)) return false;
    if (s->own_fd && fsync(s->fd) != 0) {
        snprintf(err, errsize, "model %s: sink %s: fsync: %s", s->base.model, s->target, strerror(errno));
        return false;
    }
    return true;
}

static const SinkOps file_sink_ops = {
    .write = fs_write,
    .commit = fs_commit,
    .close = fs_close,
    .delivery_base = fs_delivery_base,
    .begin_delivery = fs_begin_delivery,
    .end_delivery = fs_end_delivery,
};

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
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (spec->resume ? 0 : O_TRUNC), 0666);
    if (fd < 0) {
        snprintf(err, errsize, "model %s: sink %s: cannot open: %s", spec->model, path, strerror(errno));
        return NULL;
    }
    off_t end = spec->resume ? lseek(fd, 0, SEEK_END) : 0;
    ConnSink *s = make(fd, true, path, spec, format, err, errsize);
    if (s) ((FileSink *)s)->written = end > 0 ? (uint64_t)end : 0;
    return s;
}

ConnSink *sink_fd_open(int fd, const char *target, const ConnSinkSpec *spec, DataFormat format, char *err,
                       size_t errsize)
{
    return make(fd, false, target, spec, format, err, errsize);
}
