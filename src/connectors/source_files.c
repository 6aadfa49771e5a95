/* The reader of a file source whose path names a directory or a glob: the files it
 * matches are read one after another in name order (byte order of their paths), each
 * through the line reader of source_file.c. A directory's hidden files (names starting
 * with '.') are passed over, so a writer can land a file under a hidden name and rename
 * it into place. Its position lists every file read to its end and how far the current
 * one is read (records, with the file's identity), so a durable run continues exactly
 * there after a restart, and files that appeared since are read after it. Watching (a
 * durable run), the reader never ends: when no file is left it looks for new ones; with
 * until_caught_up it ends once the files there at open are read. One read call returns
 * records of one file only, and every file's name stays valid until the reader closes
 * (rows keep it as their origin). */
#include "connectors/source.h"

#include "base/bytes.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define FILES_POS_MAGIC 0x31534657u  /* "WFS1" */
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
    FileDone *done;              /* files read to their end, in the order read */
    int ndone, capdone;
    ConnReader *cur;             /* the file being read, NULL between files */
    char *cur_name;              /* owned by done[] once the file ends */
    int64_t cur_records;         /* records of cur returned so far (passed over included) */
    int64_t cur_skip;            /* resuming: records of cur still to pass over */
    FileDone resume_cur;         /* resuming: the file the checkpoint was reading */
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

static bool is_done(const FilesReader *r, const char *name)
{
    for (int i = 0; i < r->ndone; i++)
        if (strcmp(r->done[i].name, name) == 0) return true;
    return false;
}

static void add_done(FilesReader *r, char *name, int64_t records, uint64_t dev, uint64_t ino)
{
    if (r->ndone == r->capdone) r->done = xrealloc(r->done, sizeof *r->done * (size_t)(r->capdone = r->capdone ? r->capdone * 2 : 16));
    r->done[r->ndone++] = (FileDone){name, records, dev, ino};
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

/* Opens the next file not read yet; 0 when there is none now, -1 on an error. */
static int open_next(FilesReader *r, char *err, size_t errsize)
{
    int n;
    char **names = list_files(r, &n);
    int pick = -1;
    for (int i = 0; i < n && pick < 0; i++)
        if (!is_done(r, names[i])) pick = i;
    if (pick < 0) {
        free_list(names, n);
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

static int fr_read(ConnReader *base, ConnRecord *recs, int max, char *err, size_t errsize)
{
    FilesReader *r = (FilesReader *)base;
    for (;;) {
        if (r->cur && r->cur->eof) finish_current(r); /* its records were returned before */
        if (!r->cur) {
            if (r->until_caught_up && caught_up(r)) {
                base->eof = true;
                return 0;
            }
            int o = open_next(r, err, errsize);
            if (o < 0) return -1;
            if (o == 0) {
                if (!r->watch) {
                    base->eof = true;
                    return 0;
                }
                struct timespec ts = {0, IDLE_WAIT_NS};
                nanosleep(&ts, NULL); /* a signal ends it early: the driver may be stopping */
                return 0;
            }
        }
        int n = r->cur->ops->read(r->cur, recs, max, err, errsize);
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
        if (!r->cur->eof) return 0;
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
    bytes_put_u32(out, (uint32_t)r->ndone);
    for (int i = 0; i < r->ndone; i++) put_file(out, r->done[i].name, r->done[i].records, r->done[i].dev, r->done[i].ino);
    if (r->cur) {
        bytes_put_u8(out, 1);
        put_file(out, r->cur_name, r->cur_records, r->cur->dev, r->cur->ino);
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

bool src_files_position_records(const void *pos, size_t len, int64_t *records, int *files)
{
    ByteReader br = bytes_reader(pos, len);
    if (bytes_get_u32(&br) != FILES_POS_MAGIC || br.bad) return false;
    uint32_t nd = bytes_get_u32(&br);
    int64_t total = 0;
    FileDone f;
    for (uint32_t i = 0; i < nd; i++) {
        if (!get_file(&br, &f)) return false;
        total += f.records;
        free(f.name);
    }
    int nf = (int)nd;
    if (bytes_get_u8(&br) == 1) {
        if (!get_file(&br, &f)) return false;
        total += f.records;
        free(f.name);
        nf++;
    }
    if (br.bad || !bytes_done(&br)) return false;
    *records = total;
    if (files) *files = nf;
    return true;
}

bool src_path_is_multi(const char *abs)
{
    if (strpbrk(abs, "*?[")) return true;
    struct stat st;
    return stat(abs, &st) == 0 && S_ISDIR(st.st_mode);
}

ConnReader *src_files_reader_open(const char *abs, const char *written, ConnFraming framing, bool watch,
                                  bool until_caught_up, const void *resume, size_t resume_len, char *err,
                                  size_t errsize)
{
    FilesReader *r = xcalloc(1, sizeof *r);
    r->base.ops = &files_reader_ops;
    r->base.bounded = !watch;
    r->base.where = written;
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
    if (resume) {
        ByteReader br = bytes_reader(resume, resume_len);
        bool ok = bytes_get_u32(&br) == FILES_POS_MAGIC && !br.bad;
        uint32_t nd = ok ? bytes_get_u32(&br) : 0;
        for (uint32_t i = 0; ok && i < nd; i++) {
            FileDone f;
            ok = get_file(&br, &f);
            if (ok) add_done(r, f.name, f.records, f.dev, f.ino);
        }
        if (ok && bytes_get_u8(&br) == 1) ok = get_file(&br, &r->resume_cur);
        if (!ok || br.bad || !bytes_done(&br)) {
            snprintf(err, errsize, "%s: the checkpoint's position is not a position of a directory or glob source",
                     written);
            fr_close(&r->base);
            return NULL;
        }
        if (r->resume_cur.name && is_done(r, r->resume_cur.name)) {
            free(r->resume_cur.name);
            r->resume_cur.name = NULL;
        }
    }
    if (r->until_caught_up) r->initial = list_files(r, &r->ninitial);
    return &r->base;
}
