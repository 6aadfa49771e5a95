/* The line reader behind file and stdin sources: reads large blocks from a descriptor,
 * inflates gzip data transparently (detected by its magic bytes; multi-member files
 * work), and frames records at newlines (CSV: newlines outside quotes). Records are
 * handed out as pointers into the blocks; a block stays untouched until the read call
 * after the one that returned its records, so zero-copy rows live through the step. */
#include "connectors/source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BLOCK_SIZE (4u << 20)            /* 4 MiB: a few thousand records per block */
#define MAX_RECORD ((size_t)256 << 20)   /* a longer record is a fatal error */
#define ZIN_SIZE (256u << 10)
#define MAX_FREE_BLOCKS 4

typedef struct Block {
    struct Block *next;
    size_t cap;
    char data[];
} Block;

typedef struct LineReader {
    ConnReader base;
    char *where;
    int fd;
    bool own_fd;
    ConnFraming framing;
    /* transport */
    bool started;                /* the first bytes were examined */
    bool gzip;
    z_stream z;
    bool z_init;
    bool z_member_done;          /* the last inflate ended a gzip member */
    unsigned char *zin;
    char *pre;                   /* plain data read while detecting gzip */
    size_t pre_len, pre_off;
    bool in_eof;                 /* the descriptor reached its end */
    bool bom_checked;
    int64_t raw_bytes;           /* bytes read from the descriptor */
    int64_t total_bytes;         /* file size, 0 when unknown */
    bool regular;                /* a regular file: reads never wait for a writer */
    /* buffer */
    Block *cur;
    size_t pos, fill;            /* unconsumed data: cur->data[pos, fill) */
    size_t scan;                 /* framing resumes here for the pending record */
    bool inq;                    /* CSV: inside quotes at scan */
    int64_t pend_nl;             /* CSV: newlines inside the pending record before scan */
    Block *held;                 /* blocks holding records of the current call */
    Block *free_blocks;
    int nfree;
    int64_t line;                /* line number of the next record */
} LineReader;

static Block *get_block(LineReader *r, size_t min_cap)
{
    Block **pp = &r->free_blocks;
    while (*pp) {
        if ((*pp)->cap >= min_cap) {
            Block *b = *pp;
            *pp = b->next;
            r->nfree--;
            b->next = NULL;
            return b;
        }
        pp = &(*pp)->next;
    }
    size_t cap = min_cap > BLOCK_SIZE ? min_cap : BLOCK_SIZE;
    Block *b = xmalloc(sizeof(Block) + cap + 1);
    b->next = NULL;
    b->cap = cap;
    return b;
}

static void put_block(LineReader *r, Block *b)
{
    if (r->nfree >= MAX_FREE_BLOCKS) { free(b); return; }
    b->next = r->free_blocks;
    r->free_blocks = b;
    r->nfree++;
}

static void free_list(Block *b)
{
    while (b) {
        Block *n = b->next;
        free(b);
        b = n;
    }
}

/* read(2) with retries; -2 when interrupted by a signal (the driver may be stopping). */
static ssize_t raw_read(LineReader *r, void *dst, size_t n, char *err, size_t errsize)
{
    if (n > (1u << 30)) n = 1u << 30;
    for (;;) {
        ssize_t k = read(r->fd, dst, n);
        if (k >= 0) {
            r->raw_bytes += k;
            return k;
        }
        if (errno == EINTR) return -2;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return -2;
        snprintf(err, errsize, "%s: read error: %s", r->where, strerror(errno));
        return -1;
    }
}

/* Examines the first bytes: gzip or plain. */
static int start(LineReader *r, char *err, size_t errsize)
{
    r->zin = xmalloc(ZIN_SIZE);
    size_t have = 0;
    while (have < 2) {
        ssize_t k = raw_read(r, r->zin + have, ZIN_SIZE - have, err, errsize);
        if (k < 0) return (int)k;
        if (k == 0) break;
        have += (size_t)k;
    }
    r->started = true;
    if (have >= 2 && r->zin[0] == 0x1f && r->zin[1] == 0x8b) {
        r->gzip = true;
        memset(&r->z, 0, sizeof r->z);
        if (inflateInit2(&r->z, 15 + 16) != Z_OK) {
            snprintf(err, errsize, "%s: cannot initialise gzip decompression", r->where);
            return -1;
        }
        r->z_init = true;
        r->z.next_in = r->zin;
        r->z.avail_in = (uInt)have;
    } else {
        r->pre = (char *)r->zin;
        r->zin = NULL;
        r->pre_len = have;
        r->pre_off = 0;
        if (have == 0) r->in_eof = true;
    }
    return 0;
}

/* Produce up to n bytes of decompressed data. Returns the count, 0 at the end, -1 on
 * an error, -2 when interrupted. */
static ssize_t produce(LineReader *r, char *dst, size_t n, char *err, size_t errsize)
{
    if (!r->started) {
        int s = start(r, err, errsize);
        if (s < 0) return s;
    }
    if (!r->gzip) {
        if (r->pre) {
            size_t k = r->pre_len - r->pre_off;
            if (k > n) k = n;
            memcpy(dst, r->pre + r->pre_off, k);
            r->pre_off += k;
            if (r->pre_off == r->pre_len) { free(r->pre); r->pre = NULL; }
            if (k) return (ssize_t)k;
        }
        return raw_read(r, dst, n, err, errsize);
    }
    if (n > (1u << 30)) n = 1u << 30;
    for (;;) {
        if (r->z.avail_in == 0) {
            ssize_t k = raw_read(r, r->zin, ZIN_SIZE, err, errsize);
            if (k < 0) return k;
            if (k == 0) {
                if (r->z_member_done) return 0;
                snprintf(err, errsize, "%s: truncated gzip data", r->where);
                return -1;
            }
            r->z.next_in = r->zin;
            r->z.avail_in = (uInt)k;
        }
        if (r->z_member_done) {
            /* another gzip member follows */
            inflateReset(&r->z);
            r->z_member_done = false;
        }
        r->z.next_out = (unsigned char *)dst;
        r->z.avail_out = (uInt)n;
        int zr = inflate(&r->z, Z_NO_FLUSH);
        size_t got = n - r->z.avail_out;
        if (zr == Z_STREAM_END) r->z_member_done = true;
        else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            snprintf(err, errsize, "%s: corrupt gzip data (%s)", r->where, r->z.msg ? r->z.msg : "inflate failed");
            return -1;
        }
        if (got) return (ssize_t)got;
    }
}

/* True when producing more bytes would wait for a writer (a pipe or terminal with
 * nothing pending): records already read are then handed out instead of waiting to
 * fill the batch, so an interactive stdin source streams line by line. */
static bool would_block(LineReader *r)
{
    if (r->regular || !r->started) return false;
    if (r->gzip ? r->z.avail_in > 0 : r->pre != NULL) return false;
    struct pollfd pfd = {r->fd, POLLIN, 0};
    return poll(&pfd, 1, 0) == 0;
}

/* Finds the end of the pending record; sets *end to its newline. */
static bool find_end(LineReader *r, size_t *end)
{
    char *d = r->cur->data;
    if (r->framing == FRAME_LINES) {
        char *nl = r->scan < r->fill ? memchr(d + r->scan, '\n', r->fill - r->scan) : NULL;
        if (nl) {
            *end = (size_t)(nl - d);
            return true;
        }
        r->scan = r->fill;
        return false;
    }
    size_t i = r->scan;
    bool inq = r->inq;
    for (; i < r->fill; i++) {
        char c = d[i];
        if (c == '"') inq = !inq;
        else if (c == '\n') {
            if (!inq) {
                *end = i;
                return true;
            }
            r->pend_nl++;
        }
    }
    r->scan = i;
    r->inq = inq;
    return false;
}

static void emit(LineReader *r, ConnRecord *rec, size_t end)
{
    const char *d = r->cur->data + r->pos;
    size_t len = end - r->pos;
    if (len && d[len - 1] == '\r') len--;
    rec->data = d;
    rec->len = len;
    rec->pos = r->line;
    rec->partition = -1;
    rec->timestamp_us = 0;
    r->line += 1 + r->pend_nl;
    r->pend_nl = 0;
    r->inq = false;
}

static int lr_read(ConnReader *base, ConnRecord *recs, int max, char *err, size_t errsize)
{
    LineReader *r = (LineReader *)base;
    /* records of the previous call are no longer referenced */
    while (r->held) {
        Block *b = r->held;
        r->held = b->next;
        put_block(r, b);
    }
    int n = 0;
    bool cur_ref = false;        /* records of this call point into cur */
    while (n < max) {
        size_t end;
        if (find_end(r, &end)) {
            emit(r, &recs[n++], end);
            r->pos = r->scan = end + 1;
            cur_ref = true;
            continue;
        }
        if (r->in_eof) {
            if (r->pos < r->fill) {
                emit(r, &recs[n++], r->fill);
                r->pos = r->scan = r->fill;
            }
            base->eof = true;
            break;
        }
        /* more bytes needed: [pos, fill) holds only a partial record */
        if (n > 0 && would_block(r)) break;
        size_t part = r->fill - r->pos;
        if (cur_ref) {
            Block *nb = get_block(r, part * 2 > BLOCK_SIZE ? part * 2 : BLOCK_SIZE);
            memcpy(nb->data, r->cur->data + r->pos, part);
            r->cur->next = r->held;
            r->held = r->cur;
            r->cur = nb;
            cur_ref = false;
        } else if (r->pos > 0) {
            memmove(r->cur->data, r->cur->data + r->pos, part);
        }
        r->scan -= r->pos;
        r->fill = part;
        r->pos = 0;
        if (r->fill == r->cur->cap) {
            if (r->fill >= MAX_RECORD) {
                snprintf(err, errsize, "%s:%lld: record longer than %zu MiB", r->where, (long long)r->line,
                         MAX_RECORD >> 20);
                return -1;
            }
            Block *nb = get_block(r, r->cur->cap * 2);
            memcpy(nb->data, r->cur->data, r->fill);
            put_block(r, r->cur);
            r->cur = nb;
        }
        ssize_t got = produce(r, r->cur->data + r->fill, r->cur->cap - r->fill, err, errsize);
        if (got == -1) return -1;
        if (got == -2) break;
        if (got == 0) {
            r->in_eof = true;
            continue;
        }
        if (!r->bom_checked && r->fill + (size_t)got >= 3) {
            r->bom_checked = true;
            if (r->fill == 0 && memcmp(r->cur->data, "\xEF\xBB\xBF", 3) == 0) {
                memmove(r->cur->data, r->cur->data + 3, (size_t)got - 3);
                got -= 3;
            }
        }
        r->fill += (size_t)got;
    }
    return n;
}

static void lr_progress(ConnReader *base, int64_t *done, int64_t *total)
{
    LineReader *r = (LineReader *)base;
    int64_t d = r->raw_bytes;
    if (r->gzip) d -= r->z.avail_in;
    else d -= (int64_t)(r->fill - r->pos);
    if (d < 0) d = 0;
    *done = d;
    *total = r->total_bytes;
}

static void lr_close(ConnReader *base)
{
    LineReader *r = (LineReader *)base;
    if (!r) return;
    if (r->z_init) inflateEnd(&r->z);
    if (r->own_fd && r->fd >= 0) close(r->fd);
    free(r->zin);
    free(r->pre);
    free(r->cur);
    free_list(r->held);
    free_list(r->free_blocks);
    free(r->where);
    free(r);
}

static const ConnReaderOps line_reader_ops = {
    .read = lr_read,
    .progress = lr_progress,
    .commit = NULL,
    .close = lr_close,
};

static ConnReader *make_reader(int fd, bool own, const char *where, ConnFraming framing)
{
    LineReader *r = xcalloc(1, sizeof *r);
    r->base.ops = &line_reader_ops;
    r->where = xstrdup(where);
    r->base.where = r->where;
    r->base.bounded = true;
    r->fd = fd;
    r->own_fd = own;
    r->framing = framing;
    r->line = 1;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        r->total_bytes = st.st_size;
        r->regular = true;
        r->base.has_identity = true;
        r->base.dev = (uint64_t)st.st_dev;
        r->base.ino = (uint64_t)st.st_ino;
    }
    /* a small file gets a small first block (it grows when gzip data inflates) */
    size_t first = r->total_bytes > 0 && r->total_bytes < BLOCK_SIZE / 2 ? (size_t)r->total_bytes + 4096 : BLOCK_SIZE;
    r->cur = xmalloc(sizeof(Block) + first + 1);
    r->cur->next = NULL;
    r->cur->cap = first;
    return &r->base;
}

ConnReader *src_file_reader_open(const char *path, const char *where, ConnFraming framing,
                                 char *err, size_t errsize)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errsize, "%s: cannot open: %s", where ? where : path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errsize, "%s: is a directory", where ? where : path);
        close(fd);
        return NULL;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    return make_reader(fd, true, where ? where : path, framing);
}

ConnReader *src_fd_reader_open(int fd, bool own, const char *where, ConnFraming framing,
                               char *err, size_t errsize)
{
    if (fd < 0) {
        snprintf(err, errsize, "%s: invalid descriptor", where);
        return NULL;
    }
    return make_reader(fd, own, where, framing);
}
