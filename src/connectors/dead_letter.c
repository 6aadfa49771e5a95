/* Dead-letter files: buffered JSON-lines writers for records a source rejected and
 * rows the engine rejected (see dead_letter.h for the line format). */
#include "connectors/dead_letter.h"
#include "base/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FLUSH_AT (256u << 10)

struct DlWriter {
    char *path;
    char *name;
    bool append;
    int fd;                  /* -1 until the first write */
    bool failed;
    StrBuf buf;
    int64_t count;
    int64_t length;          /* bytes in the file: written by this writer, plus what a
                                resumed run kept */
};

DlWriter *dl_open(const char *path, const char *name, bool append)
{
    DlWriter *w = xcalloc(1, sizeof *w);
    w->path = xstrdup(path);
    w->name = xstrdup(name);
    w->append = append;
    w->fd = -1;
    sb_init(&w->buf);
    return w;
}

/* <project>/target/dead_letter/<name>.jsonl, '/' in name becoming '_'. */
static const char *project_dl_path(Project *p, const char *name)
{
    StrBuf rel = STRBUF_INIT;
    sb_puts(&rel, "target/dead_letter/");
    for (const char *c = name; *c; c++) sb_putc(&rel, *c == '/' || *c == '\\' ? '_' : *c);
    sb_puts(&rel, ".jsonl");
    const char *path = project_path(p, sb_cstr(&rel));
    sb_free(&rel);
    return path;
}

DlWriter *dl_open_project(Project *p, const char *name, bool append)
{
    return dl_open(project_dl_path(p, name), name, append);
}

bool dl_remove_project(Project *p, const char *name, char *err, size_t errsize)
{
    const char *path = project_dl_path(p, name);
    if (unlink(path) == 0 || errno == ENOENT) return true;
    snprintf(err, errsize, "%s: cannot remove the dead letters of the previous run: %s", path, strerror(errno));
    return false;
}

static bool write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        s += k;
        n -= (size_t)k;
    }
    return true;
}

bool dl_flush(DlWriter *w, char *err, size_t errsize)
{
    if (!w || w->buf.len == 0) return true;
    if (w->failed) return false;
    if (w->fd < 0) {
        if (!fs_mkdirs_for(w->path)) {
            snprintf(err, errsize, "%s: cannot create directory: %s", w->path, strerror(errno));
            w->failed = true;
            return false;
        }
        w->fd = open(w->path, O_WRONLY | O_CREAT | O_CLOEXEC | (w->append ? O_APPEND : O_TRUNC), 0666);
        if (w->fd < 0) {
            snprintf(err, errsize, "%s: cannot open: %s", w->path, strerror(errno));
            w->failed = true;
            return false;
        }
    }
    if (!write_all(w->fd, w->buf.data, w->buf.len)) {
        snprintf(err, errsize, "%s: write error: %s", w->path, strerror(errno));
        w->failed = true;
        return false;
    }
    w->length += (int64_t)w->buf.len;
    sb_clear(&w->buf);
    return true;
}

bool dl_sync(DlWriter *w, char *err, size_t errsize)
{
    if (!dl_flush(w, err, errsize)) return false;
    if (w && w->fd >= 0 && fsync(w->fd) != 0) {
        snprintf(err, errsize, "%s: fsync: %s", w->path, strerror(errno));
        return false;
    }
    return true;
}

int64_t dl_length(const DlWriter *w) { return w ? w->length + (int64_t)w->buf.len : 0; }

bool dl_resume(DlWriter *w, int64_t length, char *err, size_t errsize)
{
    w->append = true;
    w->length = 0;
    struct stat st;
    if (stat(w->path, &st) != 0) return true;  /* gone: later dead letters start a new file */
    if (st.st_size > length && truncate(w->path, (off_t)length) != 0) {
        snprintf(err, errsize, "%s: cannot cut it back to %lld bytes: %s", w->path, (long long)length, strerror(errno));
        return false;
    }
    w->length = st.st_size < length ? st.st_size : length;
    return true;
}

bool dl_json_str_lossy(StrBuf *sb, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    bool exact = true;
    sb_putc(sb, '"');
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    const unsigned char *run = p;
    while (p < e) {
        unsigned c = *p;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') { p++; continue; }
        int k = 0;
        if (c >= 0x80) {
            if (c >= 0xC2 && c <= 0xDF) k = 1;
            else if (c >= 0xE0 && c <= 0xEF) k = 2;
            else if (c >= 0xF0 && c <= 0xF4) k = 3;
            bool ok = k > 0 && e - p > k;
            for (int j = 1; ok && j <= k; j++) ok = (p[j] & 0xC0) == 0x80;
            if (ok && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) || (c == 0xF0 && p[1] < 0x90) ||
                       (c == 0xF4 && p[1] > 0x8F)))
                ok = false;
            if (ok) { p += k + 1; continue; }
        }
        sb_append(sb, (const char *)run, (size_t)(p - run));
        switch (c) {
        case '"': sb_append(sb, "\\\"", 2); break;
        case '\\': sb_append(sb, "\\\\", 2); break;
        case '\n': sb_append(sb, "\\n", 2); break;
        case '\r': sb_append(sb, "\\r", 2); break;
        case '\t': sb_append(sb, "\\t", 2); break;
        default:
            if (c < 0x20) {
                char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                sb_append(sb, u, 6);
            } else {
                sb_append(sb, "\\ufffd", 6);
                exact = false;
            }
        }
        p++;
        run = p;
    }
    sb_append(sb, (const char *)run, (size_t)(p - run));
    sb_putc(sb, '"');
    return exact;
}

static void base64(StrBuf *sb, const unsigned char *s, size_t n)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    sb_putc(sb, '"');
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 | s[i + 2];
        char o[4] = {tbl[v >> 18], tbl[(v >> 12) & 63], tbl[(v >> 6) & 63], tbl[v & 63]};
        sb_append(sb, o, 4);
    }
    if (i < n) {
        unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0);
        char o[4] = {tbl[v >> 18], tbl[(v >> 12) & 63], i + 1 < n ? tbl[(v >> 6) & 63] : '=', '='};
        sb_append(sb, o, 4);
    }
    sb_putc(sb, '"');
}

/* The record's position: "file"/"line" for files, "topic"/"partition"/"offset" for Kafka. */
static void head(DlWriter *w, const char *reason, const RowOrigin *o)
{
    StrBuf *b = &w->buf;
    sb_puts(b, "{\"source\":");
    dl_json_str_lossy(b, w->name, strlen(w->name));
    sb_puts(b, ",\"reason\":");
    dl_json_str_lossy(b, reason ? reason : "", reason ? strlen(reason) : 0);
    if (!o || !o->where) return;
    if (o->partition >= 0) {
        sb_puts(b, ",\"topic\":");
        dl_json_str_lossy(b, o->where, strlen(o->where));
        sb_printf(b, ",\"partition\":%d,\"offset\":%lld", o->partition, (long long)o->line);
    } else {
        sb_puts(b, ",\"file\":");
        dl_json_str_lossy(b, o->where, strlen(o->where));
        sb_printf(b, ",\"line\":%lld", (long long)o->line);
    }
}

static bool finish(DlWriter *w, char *err, size_t errsize)
{
    sb_puts(&w->buf, "}\n");
    w->count++;
    if (w->buf.len >= FLUSH_AT) return dl_flush(w, err, errsize);
    return true;
}

bool dl_write_raw(DlWriter *w, const char *reason, const RowOrigin *origin, const char *raw, size_t rawlen,
                  char *err, size_t errsize)
{
    head(w, reason, origin);
    sb_puts(&w->buf, ",\"raw\":");
    if (!dl_json_str_lossy(&w->buf, raw, rawlen)) {
        sb_puts(&w->buf, ",\"raw_base64\":");
        base64(&w->buf, (const unsigned char *)raw, rawlen);
    }
    return finish(w, err, errsize);
}

bool dl_write_row(DlWriter *w, const char *reason, const RowOrigin *origin, const PlanColumn *cols,
                  const Type *types, const Value *row, int ncols, char *err, size_t errsize)
{
    head(w, reason, origin);
    sb_puts(&w->buf, ",\"row\":{");
    for (int c = 0; c < ncols; c++) {
        if (c) sb_putc(&w->buf, ',');
        const char *n = cols && cols[c].name ? cols[c].name : "?";
        sb_json_str(&w->buf, n, strlen(n));
        sb_putc(&w->buf, ':');
        Type t = types ? types[c] : cols[c].type;
        value_format_json(t, &row[c], &w->buf);
    }
    sb_putc(&w->buf, '}');
    return finish(w, err, errsize);
}

int64_t dl_count(const DlWriter *w) { return w ? w->count : 0; }
const char *dl_name(const DlWriter *w) { return w ? w->name : NULL; }
const char *dl_path(const DlWriter *w) { return w && w->count ? w->path : NULL; }

bool dl_close(DlWriter *w, char *err, size_t errsize)
{
    if (!w) return true;
    bool ok = dl_flush(w, err, errsize);
    if (w->fd >= 0 && close(w->fd) != 0 && ok) {
        snprintf(err, errsize, "%s: close error: %s", w->path, strerror(errno));
        ok = false;
    }
    sb_free(&w->buf);
    free(w->path);
    free(w->name);
    free(w);
    return ok;
}
