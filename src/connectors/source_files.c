/* The reader of a file source whose path names a directory or a glob: the files it
 * matches are read one after another in name order (byte order of their paths), each
 * through the line reader of source_file.c. A directory's hidden files (names starting
 * with '.') are passed over, so a writer can land a file under a hidden name and rename
 * it into place. Its position says which files are read to their end and how far the
 * current one is read (records, with the file's identity), so a durable run continues
 * exactly there after a restart, and files that appeared since are read after it.
 *
 * The files read are kept compactly, so a position stays small however many files a
 * run has read: the last FILES_KEEP of them by name are listed, with their records and
 * identities, in the order read; every name up to a boundary (the largest name moved
 * out of the list) counts as read, with the count and an order-independent hash of
 * those names. Which file moves out is decided by the files read alone, so a restarted
 * run decides as one that never stopped. A file that appears under a name before the
 * boundary is not read (there is a warning): name files in arrival order.
 *
 * Watching (a durable run), the reader never ends: when no file is left it looks for
 * new ones; with until_caught_up it ends once the files there at open are read. With an
 * `until` position (a replay of what a checkpoint read) it reads exactly the files that
 * position holds and no record beyond it: the files up to its boundary (which must be
 * the ones it counts: same number, same hash), then its listed files in the order they
 * were read, each up to the records read then, then its current file up to its
 * records; then it ends. One read call returns records of one file only, and every
 * file's name stays valid until the reader closes (rows keep it as their origin). */
#include "connectors/source.h"

#include "base/bytes.h"
#include "base/hash.h"
#include "base/strmap.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define FILES_POS_MAGIC_V1 0x31534657u /* "WFS1": every file read listed */
#define FILES_POS_MAGIC 0x32534657u    /* "WFS2": a boundary, then the last files listed */
#define FILES_KEEP 256                 /* files read that a position lists by name */
#define NAME_HASH_SEED 0x57465332ull
#define IDLE_WAIT_NS (50 * 1000000L) /* watching, nothing new: look again after 50 ms */

typedef struct FileDone {
    char *name;                  /* path as shown (the source's path as written + the rest) */
    int64_t records;
    uint64_t dev, ino;
} FileDone;

typedef struct FilesReader {
    ConnReader base;
    char *pattern;               /* the absolute directory or glob */
    size_t strip;                /* bytes of a match's absolute path before its shown name */
    char *shown_prefix;          /* prepended to a match's path after strip */
    bool is_dir;
    ConnFraming framing;
    bool watch;
    bool until_caught_up;
    char **initial;              /* until_caught_up: the files there at open */
    int ninitial;
    /* the files read: every name <= boundary, and the listed ones */
    char *boundary;              /* NULL: none */
    uint64_t below_count, below_hash;
    int64_t below_records;
    FileDone *done;              /* files read to their end after the boundary, in the order read */
    int ndone, capdone;
    uint64_t warned_excess;      /* names before the boundary not read, when last warned */
    char *written;               /* the source's path as written, for messages */
    ConnReader *cur;             /* the file being read, NULL between files */
    char *cur_name;              /* owned by done[] once the file ends */
    int64_t cur_records;         /* records of cur returned so far (passed over included) */
    int64_t cur_skip;            /* resuming: records of cur still to pass over */
    int64_t cur_cap;             /* until: records of cur to read, -1: to its end */
    FileDone resume_cur;         /* resuming: the file the checkpoint was reading */
    /* until (a replay): what the position to end at holds */
    bool has_until;
    char *until_boundary;
    uint64_t until_count, until_hash;
    FileDone *until_done;
    int nuntil;
    FileDone until_cur;          /* name NULL: none */
    bool until_checked;          /* the files up to its boundary were compared */
    StrMap done_set;             /* until: the listed files read, for lookups (no compaction) */
    char **names;                /* every name handed out as `where` (freed at close) */
    int nnames, capnames;
} FilesReader;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* The shown names of the regular files the pattern matches now, sorted. */
static char **list_files(const FilesReader *r, int *n)
{
    char **out = NULL;
    int cnt = 0, cap = 0;
    if (r->is_dir) {
        DIR *d = opendir(r->pattern);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char *abs = xmalloc(strlen(r->pattern) + strlen(e->d_name) + 2);
            sprintf(abs, "%s/%s", r->pattern, e->d_name);
            struct stat st;
            if (stat(abs, &st) == 0 && S_ISREG(st.st_mode)) {
                if (cnt == cap) out = xrealloc(out, sizeof *out * (size_t)(cap = cap ? cap * 2 : 16));
                char *shown = xmalloc(strlen(r->shown_prefix) + strlen(e->d_name) + 2);
                sprintf(shown, "%s/%s", r->shown_prefix, e->d_name);
                out[cnt++] = shown;
            }
            free(abs);
        }
        if (d) closedir(d);
    } else {
        glob_t g;
        if (glob(r->pattern, 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc; i++) {
                struct stat st;
                if (stat(g.gl_pathv[i], &st) != 0 || !S_ISREG(st.st_mode)) continue;
                if (cnt == cap) out = xrealloc(out, sizeof *out * (size_t)(cap = cap ? cap * 2 : 16));
                const char *rest = strlen(g.gl_pathv[i]) >= r->strip ? g.gl_pathv[i] + r->strip : g.gl_pathv[i];
                char *shown = xmalloc(strlen(r->shown_prefix) + strlen(rest) + 1);
                sprintf(shown, "%s%s", r->shown_prefix, rest);
                out[cnt++] = shown;
            }
            globfree(&g);
        }
    }
    if (cnt > 1) qsort(out, (size_t)cnt, sizeof *out, cmp_str);
    *n = cnt;
    return out;
}

bool src_files_total_bytes(const char *abs, int64_t *bytes, int *files)
{
    FilesReader r = {.is_dir = !strpbrk(abs, "*?["), .pattern = (char *)abs, .shown_prefix = ""};
    *bytes = 0;
    *files = 0;
    if (r.is_dir) {
        struct stat st;
        if (stat(abs, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
        r.shown_prefix = (char *)abs;  /* the shown names are then the absolute paths */
    }
    int n = 0;
    char **names = list_files(&r, &n);
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0) *bytes += (int64_t)st.st_size;
        free(names[i]);
    }
    free(names);
    *files = n;
    return true;
}

/* The absolute path of a shown name. */
static char *abs_path(const FilesReader *r, const char *shown)
{
    const char *rest = shown + strlen(r->shown_prefix);
    if (r->is_dir) {
        char *a = xmalloc(strlen(r->pattern) + strlen(rest) + 1);
        sprintf(a, "%s%s", r->pattern, rest);
        return a;
    }
    char *a = xmalloc(r->strip + strlen(rest) + 1);
    memcpy(a, r->pattern, r->strip);
    strcpy(a + r->strip, rest);
    return a;
}

static bool below(const char *boundary, const char *name) { return boundary && strcmp(name, boundary) <= 0; }

static bool is_done(const FilesReader *r, const char *name)
{
    if (below(r->boundary, name)) return true;
    if (r->has_until) return strmap_get(&r->done_set, name) >= 0;
    for (int i = 0; i < r->ndone; i++)
        if (strcmp(r->done[i].name, name) == 0) return true;
    return false;
}

/* Moves the smallest listed name behind the boundary while more than FILES_KEEP are
 * listed (decided by the files read alone: a restart decides the same). A replay reads
 * a bounded set and keeps every name. */
static void compact(FilesReader *r)
{
    while (!r->has_until && r->ndone > FILES_KEEP) {
        int m = 0;
        for (int i = 1; i < r->ndone; i++)
            if (strcmp(r->done[i].name, r->done[m].name) < 0) m = i;
        FileDone f = r->done[m];
        memmove(&r->done[m], &r->done[m + 1], sizeof *r->done * (size_t)(r->ndone - m - 1));
        r->ndone--;
        free(r->boundary);
        r->boundary = f.name;
        r->below_count++;
        r->below_hash += hash_str(f.name, NAME_HASH_SEED);
        r->below_records += f.records;
    }
}

static void add_done(FilesReader *r, char *name, int64_t records, uint64_t dev, uint64_t ino)
{
    if (r->ndone == r->capdone) r->done = xrealloc(r->done, sizeof *r->done * (size_t)(r->capdone = r->capdone ? r->capdone * 2 : 16));
    r->done[r->ndone++] = (FileDone){name, records, dev, ino};
    if (r->has_until) strmap_put(&r->done_set, name, 1);
    compact(r);
}

static const char *keep_name(FilesReader *r, const char *name)
{
    if (r->nnames == r->capnames)
        r->names = xrealloc(r->names, sizeof *r->names * (size_t)(r->capnames = r->capnames ? r->capnames * 2 : 16));
    return r->names[r->nnames++] = xstrdup(name);
}

/* The current file ended: remember it as read. */
static void finish_current(FilesReader *r)
{
    add_done(r, xstrdup(r->cur_name), r->cur_records, r->cur->dev, r->cur->ino);
    r->cur->ops->close(r->cur);
    r->cur = NULL;
    r->cur_name = NULL;
}

/* Names before the boundary that the files read do not account for: files that
 * appeared there after later names were read. They are not read; say so once. */
static void warn_below(FilesReader *r, char **names, int n)
{
    uint64_t cnt = 0;
    for (int i = 0; i < n && below(r->boundary, names[i]); i++) cnt++;
    uint64_t excess = cnt > r->below_count ? cnt - r->below_count : 0;
    if (excess <= r->warned_excess) return;
    r->warned_excess = excess;
    fprintf(stderr, "weir: warning: %s: %llu file%s sorting before %s appeared after files named after %s were "
            "read; %s not read (name files so that their order is the order of arrival)\n", r->written,
            (unsigned long long)excess, excess == 1 ? "" : "s", r->boundary, excess == 1 ? "it" : "them",
            excess == 1 ? "it is" : "they are");
}

/* until: the next file of the position to end at (its files up to the boundary in name
 * order, its listed files in the order read, its current file), its records to read in
 * *cap (-1: all). -1 when there is none left, -2 on an error. */
static int pick_until(FilesReader *r, char **names, int n, int64_t *cap, char *err, size_t errsize)
{
    *cap = -1;
    if (r->until_boundary && !r->until_checked) {
        /* the files it counts (after those the resume position counts) are the ones there */
        uint64_t cnt = 0, h = 0;
        for (int i = 0; i < n && below(r->until_boundary, names[i]); i++)
            if (!below(r->boundary, names[i])) cnt++, h += hash_str(names[i], NAME_HASH_SEED);
        if (cnt != r->until_count - r->below_count || h != r->until_hash - r->below_hash) {
            snprintf(err, errsize, "%s: the files up to %s are not the %llu files the checkpoint read (%llu there now); "
                     "they cannot be read again as they were", r->written, r->until_boundary,
                     (unsigned long long)(r->until_count - r->below_count), (unsigned long long)cnt);
            return -2;
        }
        r->until_checked = true;
    }
    for (int i = 0; r->until_boundary && i < n && below(r->until_boundary, names[i]); i++)
        if (!is_done(r, names[i])) return i;
    for (int k = 0; k <= r->nuntil; k++) {
        const FileDone *f = k < r->nuntil ? &r->until_done[k] : &r->until_cur;
        if (!f->name || is_done(r, f->name)) continue;
        const char *name = f->name;
        char **hit = bsearch(&name, names, (size_t)n, sizeof *names, cmp_str);
        if (!hit) {
            snprintf(err, errsize, "%s: %s, which the checkpoint read, is gone; it cannot be read again", r->written,
                     f->name);
            return -2;
        }
        *cap = f->records;
        return (int)(hit - names);
    }
    return -1;
}

/* Opens the next file not read yet; 0 when there is none now, -1 on an error. */
static int open_next(FilesReader *r, char *err, size_t errsize)
{
    int n;
    char **names = list_files(r, &n);
    int pick = -1;
    int64_t cap = -1;
    if (r->has_until) {
        pick = pick_until(r, names, n, &cap, err, errsize);
        if (pick == -2) {
            free_list(names, n);
            return -1;
        }
    } else {
        warn_below(r, names, n);
        for (int i = 0; i < n && pick < 0; i++)
            if (!is_done(r, names[i])) pick = i;
    }
    if (pick < 0) {
        free_list(names, n);
        if (r->has_until) r->base.eof = true; /* everything the position holds is read */
        return 0;
    }
    char *abs = abs_path(r, names[pick]);
    const char *shown = keep_name(r, names[pick]);
    free_list(names, n);
    ConnReader *c = src_file_reader_open(abs, shown, r->framing, err, errsize);
    free(abs);
    if (!c) return -1;
    r->cur = c;
    r->cur_name = (char *)shown;
    r->cur_records = 0;
    r->cur_skip = 0;
    r->cur_cap = cap;
    if (r->has_until) {
        /* the file must be the one the position read */
        const FileDone *f = NULL;
        for (int k = 0; k <= r->nuntil && !f; k++) {
            const FileDone *g = k < r->nuntil ? &r->until_done[k] : &r->until_cur;
            if (g->name && strcmp(g->name, shown) == 0) f = g;
        }
        if (f && c->has_identity && (c->dev != f->dev || c->ino != f->ino)) {
            snprintf(err, errsize, "%s is not the file the checkpoint read (it was replaced); it cannot be read again",
                     shown);
            return -1;
        }
    }
    r->base.where = shown;
    r->base.dev = c->dev;
    r->base.ino = c->ino;
    r->base.file_seq++;
    if (r->resume_cur.name && strcmp(r->resume_cur.name, shown) == 0) {
        if (c->has_identity && (c->dev != r->resume_cur.dev || c->ino != r->resume_cur.ino)) {
            snprintf(err, errsize, "%s is not the file the checkpoint was reading (it was replaced); start over with "
                     "--fresh", shown);
            return -1;
        }
        r->cur_skip = r->resume_cur.records;
        free(r->resume_cur.name);
        r->resume_cur.name = NULL;
    }
    return 1;
}

/* until_caught_up: every file there at open is read. */
static bool caught_up(const FilesReader *r)
{
    for (int i = 0; i < r->ninitial; i++)
        if (!is_done(r, r->initial[i])) return false;
    return true;
}

/* until: the current file has given the records the position read of it. */
static bool cur_at_cap(const FilesReader *r) { return r->cur_cap >= 0 && r->cur_records >= r->cur_cap; }

static int fr_read(ConnReader *base, ConnRecord *recs, int max, char *err, size_t errsize)
{
    FilesReader *r = (FilesReader *)base;
    for (;;) {
        if (r->cur && (r->cur->eof || cur_at_cap(r))) finish_current(r); /* its records were returned before */
        if (!r->cur) {
            if (r->until_caught_up && caught_up(r)) {
                base->eof = true;
                return 0;
            }
            int o = open_next(r, err, errsize);
            if (o < 0) return -1;
            if (o == 0) {
                if (!r->watch || base->eof) {
                    base->eof = true;
                    return 0;
                }
                struct timespec ts = {0, IDLE_WAIT_NS};
                nanosleep(&ts, NULL); /* a signal ends it early: the driver may be stopping */
                return 0;
            }
        }
        int want = max;
        if (r->cur_cap >= 0 && want > r->cur_cap - r->cur_records) want = (int)(r->cur_cap - r->cur_records);
        int n = want > 0 ? r->cur->ops->read(r->cur, recs, want, err, errsize) : 0;
        if (n < 0) return -1;
        /* resuming inside this file: pass over what the checkpoint had read, except a
         * CSV file's header (the first record), which the decoder must see again */
        int keep = 0;
        for (int i = 0; i < n; i++) {
            int64_t idx = r->cur_records++;
            if (r->cur_skip > 0 && idx < r->cur_skip && !(r->framing == FRAME_CSV && idx == 0)) continue;
            recs[keep++] = recs[i];
        }
        if (r->cur_records >= r->cur_skip) r->cur_skip = 0;
        if (keep > 0) return keep;
        if (!r->cur->eof && !cur_at_cap(r)) return 0;
    }
}

static void fr_progress(ConnReader *base, int64_t *done, int64_t *total)
{
    FilesReader *r = (FilesReader *)base;
    *done = 0;
    *total = 0;
    if (r->cur && r->cur->ops->progress) r->cur->ops->progress(r->cur, done, total);
}

static void put_file(StrBuf *out, const char *name, int64_t records, uint64_t dev, uint64_t ino)
{
    bytes_put_str(out, name, strlen(name));
    bytes_put_u64(out, (uint64_t)records);
    bytes_put_u64(out, dev);
    bytes_put_u64(out, ino);
}

static void fr_position(ConnReader *base, StrBuf *out)
{
    FilesReader *r = (FilesReader *)base;
    bytes_put_u32(out, FILES_POS_MAGIC);
    bytes_put_u8(out, r->boundary ? 1 : 0);
    if (r->boundary) bytes_put_str(out, r->boundary, strlen(r->boundary));
    bytes_put_u64(out, r->below_count);
    bytes_put_u64(out, r->below_hash);
    bytes_put_u64(out, (uint64_t)r->below_records);
    bytes_put_u32(out, (uint32_t)r->ndone);
    for (int i = 0; i < r->ndone; i++) put_file(out, r->done[i].name, r->done[i].records, r->done[i].dev, r->done[i].ino);
    if (r->cur) {
        bytes_put_u8(out, 1);
        /* still passing over what the checkpoint had read: that much is read */
        int64_t records = r->cur_records > r->cur_skip ? r->cur_records : r->cur_skip;
        put_file(out, r->cur_name, records, r->cur->dev, r->cur->ino);
    } else if (r->resume_cur.name) { /* not reopened yet: still where the checkpoint was */
        bytes_put_u8(out, 1);
        put_file(out, r->resume_cur.name, r->resume_cur.records, r->resume_cur.dev, r->resume_cur.ino);
    } else {
        bytes_put_u8(out, 0);
    }
}

static void fr_close(ConnReader *base)
{
    FilesReader *r = (FilesReader *)base;
    if (!r) return;
    if (r->cur) r->cur->ops->close(r->cur);
    for (int i = 0; i < r->ndone; i++) free(r->done[i].name);
    free(r->done);
    free(r->boundary);
    free(r->written);
    for (int i = 0; i < r->nuntil; i++) free(r->until_done[i].name);
    free(r->until_done);
    free(r->until_boundary);
    free(r->until_cur.name);
    strmap_fini(&r->done_set);
    free(r->resume_cur.name);
    free_list(r->names, r->nnames);
    free_list(r->initial, r->ninitial);
    free(r->pattern);
    free(r->shown_prefix);
    free(r);
}

static const ConnReaderOps files_reader_ops = {
    .read = fr_read,
    .progress = fr_progress,
    .close = fr_close,
    .position = fr_position,
};

static bool get_file(ByteReader *br, FileDone *f)
{
    size_t n;
    const char *s = bytes_get_str(br, &n);
    f->records = (int64_t)bytes_get_u64(br);
    f->dev = bytes_get_u64(br);
    f->ino = bytes_get_u64(br);
    if (br->bad) return false;
    f->name = xstrndup(s, n);
    return true;
}

/* A position as read back: a boundary (v2), the files listed, the current one. */
typedef struct FilesPos {
    char *boundary;
    uint64_t below_count, below_hash;
    int64_t below_records;
    FileDone *done;
    int ndone;
    FileDone cur;                /* name NULL: none */
} FilesPos;

static void pos_free(FilesPos *fp)
{
    free(fp->boundary);
    for (int i = 0; i < fp->ndone; i++) free(fp->done[i].name);
    free(fp->done);
    free(fp->cur.name);
    memset(fp, 0, sizeof *fp);
}

/* Reads a position of either version; false (nothing to free) when it is not one. */
static bool pos_parse(const void *pos, size_t len, FilesPos *fp)
{
    memset(fp, 0, sizeof *fp);
    ByteReader br = bytes_reader(pos, len);
    uint32_t magic = bytes_get_u32(&br);
    if (br.bad || (magic != FILES_POS_MAGIC && magic != FILES_POS_MAGIC_V1)) return false;
    if (magic == FILES_POS_MAGIC) {
        if (bytes_get_u8(&br) == 1) {
            size_t n;
            const char *b = bytes_get_str(&br, &n);
            if (!br.bad) fp->boundary = xstrndup(b, n);
        }
        fp->below_count = bytes_get_u64(&br);
        fp->below_hash = bytes_get_u64(&br);
        fp->below_records = (int64_t)bytes_get_u64(&br);
    }
    uint32_t nd = bytes_get_u32(&br);
    bool ok = !br.bad && nd <= len;
    if (ok && nd) fp->done = xcalloc(nd, sizeof *fp->done);
    for (uint32_t i = 0; ok && i < nd; i++) {
        ok = get_file(&br, &fp->done[i]);
        if (ok) fp->ndone++;
    }
    if (ok && bytes_get_u8(&br) == 1) ok = get_file(&br, &fp->cur);
    if (!ok || br.bad || !bytes_done(&br)) {
        pos_free(fp);
        return false;
    }
    return true;
}

bool src_files_position_records(const void *pos, size_t len, int64_t *records, int *files)
{
    FilesPos fp;
    if (!pos_parse(pos, len, &fp)) return false;
    int64_t total = fp.below_records;
    for (int i = 0; i < fp.ndone; i++) total += fp.done[i].records;
    total += fp.cur.name ? fp.cur.records : 0;
    *records = total;
    if (files) *files = (int)fp.below_count + fp.ndone + (fp.cur.name ? 1 : 0);
    pos_free(&fp);
    return true;
}

bool src_path_is_multi(const char *abs)
{
    if (strpbrk(abs, "*?[")) return true;
    struct stat st;
    return stat(abs, &st) == 0 && S_ISDIR(st.st_mode);
}

ConnReader *src_files_reader_open(const char *abs, const char *written, ConnFraming framing, bool watch,
                                  bool until_caught_up, const void *resume, size_t resume_len, const void *until,
                                  size_t until_len, char *err, size_t errsize)
{
    FilesReader *r = xcalloc(1, sizeof *r);
    r->base.ops = &files_reader_ops;
    r->base.bounded = !watch;
    r->base.where = written;
    r->written = xstrdup(written);
    r->framing = framing;
    r->watch = watch;
    r->until_caught_up = watch && until_caught_up;
    r->is_dir = !strpbrk(abs, "*?[");
    size_t al = strlen(abs), wl = strlen(written);
    if (r->is_dir) {
        while (al > 1 && abs[al - 1] == '/') al--;
        while (wl > 1 && written[wl - 1] == '/') wl--;
        struct stat st;
        if (stat(abs, &st) != 0) {
            snprintf(err, errsize, "%s: cannot open: %s", written, strerror(errno));
            free(r->written);
            free(r);
            return NULL;
        }
        r->pattern = xstrndup(abs, al);
        r->shown_prefix = xstrndup(written, wl);
    } else {
        r->pattern = xstrdup(abs);
        /* a match is shown as the path as written: strip the absolute part before it */
        if (al >= wl && strcmp(abs + al - wl, written) == 0) {
            r->strip = al - wl;
            r->shown_prefix = xstrdup("");
        } else {
            r->strip = 0;
            r->shown_prefix = xstrdup("");
        }
    }
    if (until) {
        FilesPos up;
        if (!pos_parse(until, until_len, &up)) {
            snprintf(err, errsize, "%s: the position to read up to is not a position of a directory or glob source",
                     written);
            fr_close(&r->base);
            return NULL;
        }
        r->has_until = true;
        r->watch = false;
        r->until_caught_up = false;
        r->base.bounded = true;
        r->until_boundary = up.boundary;
        r->until_count = up.below_count;
        r->until_hash = up.below_hash;
        r->until_done = up.done;
        r->nuntil = up.ndone;
        r->until_cur = up.cur;
    }
    if (resume) {
        FilesPos rp;
        if (!pos_parse(resume, resume_len, &rp)) {
            snprintf(err, errsize, "%s: the checkpoint's position is not a position of a directory or glob source",
                     written);
            fr_close(&r->base);
            return NULL;
        }
        r->boundary = rp.boundary;
        r->below_count = rp.below_count;
        r->below_hash = rp.below_hash;
        r->below_records = rp.below_records;
        for (int i = 0; i < rp.ndone; i++) add_done(r, rp.done[i].name, rp.done[i].records, rp.done[i].dev, rp.done[i].ino);
        free(rp.done);
        r->resume_cur = rp.cur;
        if (r->resume_cur.name && is_done(r, r->resume_cur.name)) {
            free(r->resume_cur.name);
            r->resume_cur.name = NULL;
        }
    }
    if (r->until_caught_up) r->initial = list_files(r, &r->ninitial);
    return &r->base;
}
