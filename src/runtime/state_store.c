/* The checkpoint store over LMDB (the only file that includes lmdb.h); see
 * state_store.h. One unnamed database holds the blobs of the current checkpoint; a
 * checkpoint write empties it and fills it again inside one write transaction, so
 * LMDB's copy-on-write pages give the all-or-nothing commit. LMDB was chosen over
 * RocksDB because checkpoints are a few large blobs written at once and read back
 * once at start, for which an mmap'd B-tree with a single fsync per commit is the
 * simplest thing that is durable; bench/checkpoint.sh measures it (bench/README.md).
 *
 * LMDB keeps no checksums and trusts its file: a truncated file makes reads of the map
 * fault (SIGBUS), a damaged page can trip its assertions (abort) or hand out wrong
 * bytes. So the store adds its own integrity: every record carries an 8-byte trailer,
 * the XXH3 checksum of its name and content, and every commit writes "#seal" (the
 * number of records, the wrapping sum of their checksums, and a checksum of the seal).
 * Both are kept up to date by each put and delete (the old record's trailer is read
 * and subtracted), so a commit costs in proportion to what it changes, not to the
 * whole checkpoint: an incremental checkpoint rewrites only the blobs that changed.
 * A read walks the whole database, checks every record against its trailer and the
 * count and sum against the seal before anything is used, and that walk runs
 * under a guard that turns a fault or an LMDB assertion into a "corrupt" error. After
 * the walk every page a reader touches has been read once without harm. A store
 * directory is created under a temporary name and renamed into place once its first
 * (empty) seal is committed, so an existing store without a seal is always damage,
 * never a store that was about to be created. */
#include "runtime/state_store.h"

#include "base/arena.h"
#include "base/bytes.h"
#include "base/fault.h"
#include "base/fsutil.h"
#include "base/hash.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Address space reserved for the map (the file grows with its content). */
#define MAP_SIZE ((size_t)1 << 38)

#define SEAL_KEY "#seal"
#define SEAL_MAGIC 0x4c455357u   /* "WSEL" */
#define SEAL_VERSION 2u          /* 1: a list of every blob's name, length and checksum */
#define TRAILER 8u
#define OLDER_FORMAT "it was written by an older weir (format 1)"
#define SEAL_SEED 0x5745495253544f52ull

/* What a seal says of the records it covers: their number and the wrapping sum of
 * their trailers. */
typedef struct Seal {
    uint64_t n, sum;
} Seal;

struct StateStore {
    MDB_env *env;
    MDB_dbi dbi;
    MDB_txn *rtxn;               /* open read, or NULL */
    MDB_txn *wtxn;               /* open write, or NULL */
    int lock_fd;                 /* run.lock held with flock, or -1 */
    char *dir;                   /* <state_dir>/checkpoint */
    char *data_path;             /* .../data.mdb */
    Seal sealed;                 /* the committed checkpoint's blobs, as of transaction */
    size_t sealed_txn;           /* ... (0: not known; read before writing) */
    bool creating;               /* create_store's first commit: nothing to verify */
    Seal pending;                /* the open write's blobs */
    int64_t written_bytes;       /* names, contents and trailers put by the open write */
    int64_t last_commit_bytes;   /* ... by the last commit (with its seal) */
    int64_t write_bytes;         /* bytes put by the open write (for disk-full messages) */
    bool damaged;                /* an error said the store is corrupt */
};

/* ---------------------------------------------------------------- errors */

static MDB_val key_of(const char *name);
static bool corrupt(StateStore *s, char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The store is damaged: the message names the file and the way out. */
static bool corrupt(StateStore *s, char *err, size_t errsize, const char *fmt, ...)
{
    s->damaged = true;
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(err, errsize, "the checkpoint store %s is corrupt: %s; `weir run --fresh` discards it and starts "
             "over (sinks are recomputed from the beginning)", s->data_path, why);
    return false;
}

static bool is_damage(int rc)
{
    return rc == MDB_INVALID || rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_VERSION_MISMATCH ||
           rc == MDB_BAD_TXN || rc == MDB_BAD_VALSIZE || rc == MDB_CURSOR_FULL;
}

/* An LMDB failure. A short write at commit comes back as EIO (LMDB's choice), so EIO
 * on a file system without room is reported as the full disk it is. */
static bool lmdb_error(StateStore *s, const char *what, int rc, char *err, size_t errsize)
{
    if (is_damage(rc)) return corrupt(s, err, errsize, "%s: %s", what, mdb_strerror(rc));
    struct statvfs fs;
    if ((rc == EIO || rc == ENOSPC || rc == EDQUOT) && statvfs(s->dir, &fs) == 0) {
        int64_t avail = (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
        if (rc != EIO || avail < s->write_bytes + ((int64_t)1 << 20)) {
            snprintf(err, errsize, "state store %s: cannot write the checkpoint: no space left on device (%lld KiB "
                     "free)", s->data_path, (long long)(avail >> 10));
            return false;
        }
    }
    snprintf(err, errsize, "state store %s: %s: %s", s->data_path, what, mdb_strerror(rc));
    return false;
}

/* ---------------------------------------------------------------- the fault guard */

/* Runs fn(ctx) with SIGBUS and SIGSEGV (a read of the map beyond a truncated file or
 * through a damaged page number) and LMDB's assertions turned into a return: the
 * signal number, -1 for an assertion, 0 when fn ran through. The store is used by one
 * thread; the guard is only active inside this call. */
static sigjmp_buf *guard_jump;

static void on_fault(int sig) { siglongjmp(*guard_jump, sig); }

static void on_lmdb_assert(MDB_env *env, const char *msg)
{
    (void)env; (void)msg;
    if (guard_jump) siglongjmp(*guard_jump, -1);
}

static int guarded(void (*fn)(void *ctx), void *ctx)
{
    struct sigaction sa, old_bus, old_segv;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigjmp_buf jb;
    sigjmp_buf *outer = guard_jump;
    int sig = sigsetjmp(jb, 1);
    if (sig == 0) {
        guard_jump = &jb;
        fn(ctx);
    }
    guard_jump = outer;
    sigaction(SIGBUS, &old_bus, NULL);
    sigaction(SIGSEGV, &old_segv, NULL);
    return sig;
}

static const char *fault_text(int sig)
{
    return sig == SIGBUS ? "a record reaches beyond the end of the file"
           : sig == SIGSEGV ? "a damaged page reference makes reading it fault"
                            : "LMDB found a damaged page";
}

/* ---------------------------------------------------------------- seals */

static uint64_t blob_hash(const char *name, size_t nlen, const void *data, size_t len)
{
    return hash_bytes(data, len, hash_bytes(name, nlen, SEAL_SEED));
}

/* The checksum a record's trailer holds (its last TRAILER bytes), little-endian. */
static uint64_t trailer_of(const void *data, size_t len)
{
    ByteReader r = bytes_reader((const char *)data + len - TRAILER, TRAILER);
    return bytes_get_u64(&r);
}

/* Writes checksum h as the trailer after a record's len bytes at dst. */
static void put_trailer(char *dst, size_t len, uint64_t h)
{
    for (unsigned i = 0; i < TRAILER; i++) dst[len + i] = (char)(h >> (8 * i));
}

static void seal_render(const Seal *l, StrBuf *out)
{
    bytes_put_u32(out, SEAL_MAGIC);
    bytes_put_u32(out, SEAL_VERSION);
    bytes_put_u64(out, l->n);
    bytes_put_u64(out, l->sum);
    bytes_put_u64(out, hash_bytes(out->data, out->len, SEAL_SEED));
}

/* Parses a seal; false with the reason in why. */
static bool seal_parse(const void *data, size_t len, Seal *out, char *why, size_t whysize)
{
    ByteReader tail = bytes_reader((const char *)data + (len >= 8 ? len - 8 : 0), len >= 8 ? 8 : 0);
    if (len < 8 + 8 || hash_bytes(data, len - 8, SEAL_SEED) != bytes_get_u64(&tail)) {
        snprintf(why, whysize, "its seal fails its checksum");
        return false;
    }
    ByteReader r = bytes_reader(data, len - 8);
    uint32_t magic = bytes_get_u32(&r), version = bytes_get_u32(&r);
    if (magic != SEAL_MAGIC || version != SEAL_VERSION) {
        snprintf(why, whysize, magic == SEAL_MAGIC && version == 1 ? OLDER_FORMAT : "its seal is of an unknown format");
        return false;
    }
    out->n = bytes_get_u64(&r);
    out->sum = bytes_get_u64(&r);
    if (!bytes_done(&r)) {
        snprintf(why, whysize, "its seal is malformed");
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- verification */

typedef struct Verify {
    StateStore *s;
    MDB_txn *txn;
    MDB_cursor *cursor;          /* closed after the walk, also when it faulted */
    MDB_cursor *free_cursor;
    uint8_t *live;               /* a bit per page of the file the snapshot uses (page walk) */
    size_t npages;               /* pages the snapshot's meta page says the file has */
    Seal found;                  /* what the database holds */
    const void *seal;
    size_t seal_len;
    int rc;                      /* an LMDB error of the walk */
    bool moved_on;               /* the snapshot's meta page was rewritten meanwhile */
    char why[512];
} Verify;

/* ---- LMDB's pages, read from the file ----
 * LMDB's reads trust the page headers (a node count from a damaged header makes a
 * search read beyond its page) and its writes trust them more (they move nodes by the
 * header's offsets: a damaged one overruns a heap buffer). So before anything else the
 * pages of the snapshot's two B-trees are read from the file (never through the map)
 * and checked: each page where its parent says, of the right kind, its offsets and
 * nodes inside it, overflow chains inside the file, no page used twice. The layout is
 * LMDB 0.9's (lmdb.h and mdb.c: MDB_page, MDB_node, MDB_meta). */

#define PG_HDR 16                /* pgno u64, pad u16, flags u16, lower u16, upper u16 */
#define PG_BRANCH 0x01
#define PG_LEAF 0x02
#define PG_OVERFLOW 0x04
#define NODE_HDR 8               /* lo u16, hi u16, flags u16, ksize u16 */
#define NODE_BIGDATA 0x01
#define PG_META 0x08
#define META_MAGIC 0xBEEFC0DEu

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

typedef struct PageWalk {
    Verify *v;
    int fd;
    size_t psize;
    uint8_t *buf;                /* one page per tree level */
} PageWalk;

static bool page_bad(Verify *v, uint64_t pg, const char *what)
{
    snprintf(v->why, sizeof v->why, "page %llu is damaged (%s)", (unsigned long long)pg, what);
    return false;
}

/* Marks pages [pg, pg + n) used; false when one is outside the file or used already. */
static bool claim(Verify *v, uint64_t pg, uint64_t n)
{
    if (pg < 2 || n == 0 || pg >= v->npages || n > v->npages - pg) return page_bad(v, pg, "outside the file");
    for (uint64_t i = pg; i < pg + n; i++) {
        if (v->live[i / 8] & (1u << (i % 8))) return page_bad(v, i, "used twice");
        v->live[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    return true;
}

static bool read_page(PageWalk *w, uint64_t pg, uint8_t *buf)
{
    if (pread(w->fd, buf, w->psize, (off_t)(pg * w->psize)) == (ssize_t)w->psize) return true;
    return page_bad(w->v, pg, "cannot be read");
}

/* A key of the main tree as LMDB orders them (bytes, then length). */
typedef struct KeyRef {
    const uint8_t *p;
    size_t n;
} KeyRef;

static int key_cmp(KeyRef a, KeyRef b)
{
    int c = memcmp(a.p, b.p, a.n < b.n ? a.n : b.n);
    return c ? c : (a.n > b.n) - (a.n < b.n);
}

/* Checks the subtree at pg; with `keys` (the main tree), also that its keys are in
 * order and inside [lo, hi) (lo.p NULL: no lower bound, hi.p NULL: none above), the
 * range its parent's keys route a search to: a damaged branch key would make a lookup
 * miss a record that a walk of the leaves finds. */
static bool check_tree(PageWalk *w, uint64_t pg, int depth, bool keys, KeyRef lo, KeyRef hi)
{
    Verify *v = w->v;
    if (depth > 32) return page_bad(v, pg, "the tree is too deep");
    uint8_t *p = w->buf + (size_t)depth * w->psize;
    if (!claim(v, pg, 1) || !read_page(w, pg, p)) return false;
    uint16_t flags = rd16(p + 10), lower = rd16(p + 12), upper = rd16(p + 14);
    if (rd64(p) != pg) return page_bad(v, pg, "its number");
    if (flags != PG_BRANCH && flags != PG_LEAF) return page_bad(v, pg, "its kind");
    if (lower < PG_HDR + 2 || lower > upper || upper > w->psize || (lower - PG_HDR) % 2)
        return page_bad(v, pg, "its offsets");
    int nnodes = (lower - PG_HDR) / 2;
    KeyRef prev = {NULL, 0};
    for (int i = 0; i < nnodes; i++) {
        uint16_t at = rd16(p + PG_HDR + 2 * i);
        if (at < upper || at % 2 || (size_t)at + NODE_HDR > w->psize) return page_bad(v, pg, "a node's offset");
        const uint8_t *n = p + at;
        uint16_t ksize = rd16(n + 6), nflags = rd16(n + 4);
        size_t end = (size_t)at + NODE_HDR + ksize;
        if (end > w->psize) return page_bad(v, pg, "a key");
        KeyRef key = {n + NODE_HDR, ksize};
        /* a branch page's first key is not used (LMDB leaves it empty) */
        if (keys && (flags == PG_LEAF || i > 0)) {
            if ((prev.p && key_cmp(prev, key) >= 0) || (lo.p && key_cmp(key, lo) < 0) ||
                (hi.p && key_cmp(key, hi) >= 0))
                return page_bad(v, pg, "its keys are out of order");
            prev = key;
        }
        if (flags == PG_BRANCH) {
            uint64_t child = (uint64_t)rd16(n) | (uint64_t)rd16(n + 2) << 16 | (uint64_t)nflags << 32;
            KeyRef clo = i > 0 ? key : lo, chi = hi;
            if (i + 1 < nnodes) {
                uint16_t at2 = rd16(p + PG_HDR + 2 * (i + 1));
                if (at2 < upper || at2 % 2 || (size_t)at2 + NODE_HDR > w->psize) return page_bad(v, pg, "a node's offset");
                const uint8_t *n2 = p + at2;
                if ((size_t)at2 + NODE_HDR + rd16(n2 + 6) > w->psize) return page_bad(v, pg, "a key");
                chi = (KeyRef){n2 + NODE_HDR, rd16(n2 + 6)};
            }
            if (!check_tree(w, child, depth + 1, keys, clo, chi)) return false;
            continue;
        }
        uint64_t dsize = rd32(n);
        if (nflags & ~NODE_BIGDATA) return page_bad(v, pg, "a node's flags");
        if (!(nflags & NODE_BIGDATA)) {
            if (end + dsize > w->psize) return page_bad(v, pg, "a record beyond its page");
            continue;
        }
        if (end + 8 > w->psize) return page_bad(v, pg, "a record's page number");
        uint64_t opg = rd64(n + NODE_HDR + ksize);
        uint8_t *o = w->buf + 33 * w->psize;
        if (opg < 2 || opg >= v->npages || !read_page(w, opg, o)) return page_bad(v, opg, "outside the file");
        uint64_t pages = rd32(o + 12);
        if (rd64(o) != opg || rd16(o + 10) != PG_OVERFLOW || pages < (dsize + PG_HDR + w->psize - 1) / w->psize)
            return page_bad(v, opg, "an overflow page");
        if (!claim(v, opg, pages)) return false;
    }
    return true;
}

/* The meta page of transaction `txn` (LMDB alternates two), its roots and size. */
static bool meta_of(PageWalk *w, uint64_t txn, uint64_t roots[2], uint64_t *last_pg)
{
    uint8_t *p = w->buf;
    for (uint64_t m = 0; m < 2; m++) {
        if (pread(w->fd, p, w->psize, (off_t)(m * w->psize)) != (ssize_t)w->psize) continue;
        const uint8_t *mm = p + PG_HDR;  /* magic, version, address, mapsize, 2 x MDB_db (48), last_pg, txnid */
        if (rd32(mm) != META_MAGIC || rd64(mm + 24 + 96 + 8) != txn) continue;
        for (int d = 0; d < 2; d++) roots[d] = rd64(mm + 24 + 48 * d + 40);
        *last_pg = rd64(mm + 24 + 96);
        return true;
    }
    return false;
}

static void walk_pages(Verify *v)
{
    MDB_stat st;
    PageWalk w = {.v = v};
    if ((v->rc = mdb_env_stat(v->s->env, &st)) != 0 || (v->rc = mdb_env_get_fd(v->s->env, &w.fd)) != 0) return;
    w.psize = st.ms_psize;
    w.buf = xmalloc(34 * w.psize);
    uint64_t roots[2], last_pg;
    if (!meta_of(&w, mdb_txn_id(v->txn), roots, &last_pg)) {
        /* two commits of another process since the read began (LMDB alternates the two
         * meta pages) or damage: the caller reads again */
        v->moved_on = true;
        snprintf(v->why, sizeof v->why, "no meta page describes its last transaction");
    } else {
        v->npages = last_pg + 1;
        v->live = xcalloc(v->npages / 8 + 1, 1);
        for (int d = 0; d < 2 && !v->why[0]; d++)
            if (roots[d] != UINT64_MAX)  /* all ones: an empty tree */
                check_tree(&w, roots[d], 0, d == 1, (KeyRef){NULL, 0}, (KeyRef){NULL, 0});
    }
    free(w.buf);
}

/* LMDB's free list (its database 0: per transaction id, the pages it freed, as a count
 * and the page numbers in descending order) is read only when a write allocates pages;
 * a damaged one would make it hand out pages in use or beyond the file, or overrun its
 * own buffers. Every page it lists must be a page of the file that no tree uses, listed
 * once. */
static void walk_free_list(Verify *v)
{
    if ((v->rc = mdb_cursor_open(v->txn, 0, &v->free_cursor)) != 0) return;
    MDB_val k, d;
    int rc;
    for (rc = mdb_cursor_get(v->free_cursor, &k, &d, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(v->free_cursor, &k, &d, MDB_NEXT)) {
        const uint8_t *ids = d.mv_data;
        uint64_t n = d.mv_size >= 8 ? rd64(ids) : 0, prev = UINT64_MAX;
        bool ok = k.mv_size == 8 && d.mv_size >= 8 && n < d.mv_size / 8;
        for (uint64_t i = 1; ok && i <= n; i++) {
            uint64_t pg = rd64(ids + 8 * i);
            ok = pg < prev && claim(v, pg, 1);
            prev = pg;
        }
        if (!ok) {
            snprintf(v->why, sizeof v->why, "its list of free pages is damaged");
            return;
        }
    }
    if (rc != MDB_NOTFOUND) v->rc = rc;
}

static void walk(void *ctx)
{
    Verify *v = ctx;
    walk_pages(v);
    if (v->rc != 0 || v->why[0]) return;
    MDB_val sk = key_of(SEAL_KEY), sd;
    if (mdb_get(v->txn, v->s->dbi, &sk, &sd) == 0 && sd.mv_size >= 8) {
        ByteReader hr = bytes_reader(sd.mv_data, 8);
        if (bytes_get_u32(&hr) == SEAL_MAGIC && bytes_get_u32(&hr) == 1) {
            /* its records carry no trailers: only a run, which converts it, reads it */
            snprintf(v->why, sizeof v->why, OLDER_FORMAT);
            return;
        }
    }
    v->rc = mdb_cursor_open(v->txn, v->s->dbi, &v->cursor);
    if (v->rc != 0) return;
    MDB_cursor *c = v->cursor;
    MDB_val k, d;
    int rc;
    for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
        if (memchr(k.mv_data, '\0', k.mv_size)) {
            snprintf(v->why, sizeof v->why, "a record has a damaged name");
            break;
        }
        if (k.mv_size == strlen(SEAL_KEY) && memcmp(k.mv_data, SEAL_KEY, k.mv_size) == 0) {
            v->seal = d.mv_data;
            v->seal_len = d.mv_size;
            continue;
        }
        if (d.mv_size < TRAILER ||
            blob_hash(k.mv_data, k.mv_size, d.mv_data, d.mv_size - TRAILER) != trailer_of(d.mv_data, d.mv_size)) {
            snprintf(v->why, sizeof v->why, "record %.*s fails its checksum", (int)(k.mv_size > 200 ? 200 : k.mv_size),
                     (const char *)k.mv_data);
            break;
        }
        v->found.n++;
        v->found.sum += trailer_of(d.mv_data, d.mv_size);
    }
    if (rc != 0 && rc != MDB_NOTFOUND) v->rc = rc;
    if (v->rc == 0 && !v->why[0]) walk_free_list(v);
}

/* Verifies the database as transaction t sees it against its seal; the seal's entries
 * go to *out. *moved_on: failed because writers went on meanwhile (read again). */
static bool verify(StateStore *s, MDB_txn *t, Seal *out, bool *moved_on, char *err, size_t errsize)
{
    Verify v = {.s = s, .txn = t};
    int sig = guarded(walk, &v);
    *moved_on = !sig && v.moved_on;
    if (v.cursor) mdb_cursor_close(v.cursor);
    if (v.free_cursor) mdb_cursor_close(v.free_cursor);
    free(v.live);
    bool ok = false;
    char why[512] = "";
    Seal sealed = {0};
    if (sig) snprintf(why, sizeof why, "%s", fault_text(sig));
    else if (v.why[0]) snprintf(why, sizeof why, "%s", v.why);
    else if (v.rc != 0) snprintf(why, sizeof why, "%s", mdb_strerror(v.rc));
    else if (!v.seal && v.found.n == 0) snprintf(why, sizeof why, "it holds no records (it was emptied)");
    else if (!v.seal) snprintf(why, sizeof why, "it has no seal (written by an older weir, or damaged)");
    else if (seal_parse(v.seal, v.seal_len, &sealed, why, sizeof why)) {
        if (sealed.n != v.found.n)
            snprintf(why, sizeof why, "it holds %llu records where its seal counts %llu (records are %s)",
                     (unsigned long long)v.found.n, (unsigned long long)sealed.n,
                     v.found.n < sealed.n ? "missing" : "not in its seal");
        else if (sealed.sum != v.found.sum)
            snprintf(why, sizeof why, "its records are not the ones its seal covers");
        ok = !why[0];
    }
    if (ok) *out = sealed;
    else if (strncmp(why, OLDER_FORMAT, strlen(OLDER_FORMAT)) == 0) {
        s->damaged = true;  /* --fresh discards it as it would a damaged one */
        snprintf(err, errsize, "the checkpoint store %s was written by an older weir (format 1): the next `weir run` "
                 "converts it in place and continues from its checkpoint (`weir run --fresh` discards it)", s->data_path);
    } else corrupt(s, err, errsize, "%s", why);
    return ok;
}

/* ---------------------------------------------------------------- opening */

typedef struct OpenCtx {
    StateStore *s;
    const char *path;
    unsigned flags;
    int rc;
} OpenCtx;

static void open_env(void *ctx)
{
    OpenCtx *o = ctx;
    StateStore *s = o->s;
    o->rc = mdb_env_create(&s->env);
    if (o->rc == 0) mdb_env_set_assert(s->env, on_lmdb_assert);
    if (o->rc == 0) o->rc = mdb_env_set_mapsize(s->env, MAP_SIZE);
    if (o->rc == 0) o->rc = mdb_env_open(s->env, o->path, o->flags, 0666);
    if (o->rc != 0) return;
    MDB_txn *t;
    o->rc = mdb_txn_begin(s->env, NULL, o->flags & MDB_RDONLY, &t);
    if (o->rc == 0) o->rc = mdb_dbi_open(t, NULL, 0, &s->dbi);
    if (o->rc == 0) o->rc = mdb_txn_commit(t);
    else mdb_txn_abort(t);
}

static bool env_open(StateStore *s, const char *path, bool rdonly, char *err, size_t errsize)
{
    OpenCtx o = {s, path, rdonly ? MDB_RDONLY : 0, 0};
    int sig = guarded(open_env, &o);
    if (sig) return corrupt(s, err, errsize, "%s", fault_text(sig));
    if (o.rc != 0) return lmdb_error(s, "open", o.rc, err, errsize);
    return true;
}

static void env_close(StateStore *s)
{
    if (s->env) mdb_env_close(s->env);
    s->env = NULL;
}

/* Removes an LMDB directory (its two files, then the directory). */
static bool remove_store_dir(const char *dir, char *err, size_t errsize)
{
    static const char *const files[] = {"data.mdb", "lock.mdb"};
    StrBuf p = STRBUF_INIT;
    bool ok = true;
    for (size_t i = 0; i < 2 && ok; i++) {
        sb_clear(&p);
        sb_printf(&p, "%s/%s", dir, files[i]);
        ok = unlink(sb_cstr(&p)) == 0 || errno == ENOENT;
    }
    if (ok) {
        sb_clear(&p);
        sb_puts(&p, dir);
        ok = rmdir(dir) == 0 || errno == ENOENT;
    }
    if (!ok) snprintf(err, errsize, "state store: cannot remove %s: %s", sb_cstr(&p), strerror(errno));
    sb_free(&p);
    return ok;
}

/* Creates the store directory `dir`: built as <dir>.new.<pid> with its first, empty
 * seal committed, then renamed into place (when another process got there first, its
 * store is used). */
static bool create_store(StateStore *s, const char *dir, char *err, size_t errsize)
{
    StrBuf tmp = STRBUF_INIT;
    sb_printf(&tmp, "%s.new.%d", dir, (int)getpid());
    bool ok = remove_store_dir(sb_cstr(&tmp), err, errsize);
    if (ok && !fs_mkdirs(sb_cstr(&tmp))) {
        snprintf(err, errsize, "state store: cannot create %s: %s", sb_cstr(&tmp), strerror(errno));
        ok = false;
    }
    if (ok) ok = env_open(s, sb_cstr(&tmp), false, err, errsize);
    if (ok) {
        s->sealed = (Seal){0, 0};
        s->creating = true;
        ok = store_write_begin(s, true, err, errsize) && store_write_commit(s, err, errsize);
        s->creating = false;
    }
    env_close(s);
    s->sealed_txn = 0;
    if (ok && rename(sb_cstr(&tmp), dir) != 0) {
        struct stat st;
        if ((errno == EEXIST || errno == ENOTEMPTY) && stat(dir, &st) == 0) {
            ok = remove_store_dir(sb_cstr(&tmp), err, errsize);
        } else {
            snprintf(err, errsize, "state store: cannot rename %s to %s: %s", sb_cstr(&tmp), dir, strerror(errno));
            ok = false;
        }
    }
    sb_free(&tmp);
    return ok;
}

/* LMDB's two meta pages, read from the file before LMDB maps it: both must be meta
 * pages of LMDB's format (LMDB refuses the file otherwise), and the newer one, which
 * LMDB uses, must have its trees' roots inside the file and ask for no larger map than
 * weir reserves (a damaged count would make LMDB map or read beyond the file). */
static bool check_meta(StateStore *s, char *err, size_t errsize)
{
    int fd = open(s->data_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return corrupt(s, err, errsize, "it cannot be opened: %s", strerror(errno));
    struct stat st;
    uint8_t page[2][PG_HDR + 136];
    size_t psize = 0;
    bool ok = fstat(fd, &st) == 0;
    for (int m = 0; m < 2 && ok; m++) {
        ok = pread(fd, page[m], sizeof page[m], (off_t)(m * psize)) == (ssize_t)sizeof page[m] &&
             rd16(page[m] + 10) == PG_META && rd32(page[m] + PG_HDR) == META_MAGIC && rd32(page[m] + PG_HDR + 4) == 1;
        if (m == 0) psize = rd32(page[0] + PG_HDR + 24);  /* kept in the free list's MDB_db */
        ok = ok && psize >= 512 && psize <= 65536 && !(psize & (psize - 1));
    }
    close(fd);
    if (!ok) return corrupt(s, err, errsize, "its meta pages are damaged");
    const uint8_t *mm = page[rd64(page[0] + PG_HDR + 128) < rd64(page[1] + PG_HDR + 128)] + PG_HDR;
    uint64_t mapsize = rd64(mm + 16), last_pg = rd64(mm + 120);
    /* LMDB may count pages it allocated in the last commit but did not write (the file
     * ends before them: they are free), so the file must hold the trees' roots, not
     * every page counted; the pages below the roots are read and checked by walk_pages */
    bool short_file = last_pg >= MAP_SIZE / psize;
    for (int d = 0; d < 2; d++) {
        uint64_t root = rd64(mm + 24 + 48 * d + 40);
        if (root != UINT64_MAX && (root > last_pg || (root + 1) * psize > (uint64_t)st.st_size)) short_file = true;
    }
    if (short_file)
        return corrupt(s, err, errsize, "the file (%lld bytes) is shorter than the pages its meta page counts: "
                       "truncated or damaged", (long long)st.st_size);
    if (mapsize > MAP_SIZE) return corrupt(s, err, errsize, "its meta page is damaged");
    return true;
}

/* The file's checks, the environment and its size; `verify_now` also verifies the
 * checkpoint. */
static bool open_checked(StateStore *s, bool rdonly, bool verify_now, char *err, size_t errsize)
{
    struct stat st;
    if (stat(s->data_path, &st) != 0) return corrupt(s, err, errsize, "the file is missing");
    if (st.st_size == 0) return corrupt(s, err, errsize, "the file is empty");
    if (!check_meta(s, err, errsize) || !env_open(s, s->dir, rdonly, err, errsize)) return false;
    if (!verify_now) return true;
    bool ok = store_read_begin(s, err, errsize);
    store_read_end(s);
    return ok;
}

/* ---------------------------------------------------------------- format 1 */

/* A store written before records carried trailers (format 1: records as they were put,
 * and a seal listing every record's name, length and checksum in name order) is read
 * and converted in place by a run that holds the run lock. The old store is verified
 * against its seal as that weir did, every record is copied with its trailer into
 * "convert.mdb" next to data.mdb, sealed, committed and synced, and that file is then
 * renamed over data.mdb (and the directory synced): a kill at any moment leaves either
 * the old store, which the next run converts again, or the converted one. */

#define CONVERT_FILE "convert.mdb"

typedef struct Format1 {
    Verify v;                    /* the page walk, the free list and the reason */
    bool is_format1;             /* its seal is a format-1 seal */
    uint64_t records;
} Format1;

/* Checks the records, in key order, against a format-1 seal's list (sorted by name,
 * which is LMDB's order for names without NUL bytes). */
static void walk_format1(void *ctx)
{
    Format1 *f = ctx;
    Verify *v = &f->v;
    walk_pages(v);
    if (v->rc != 0 || v->why[0]) return;
    MDB_val sk = key_of(SEAL_KEY), sd;
    if (mdb_get(v->txn, v->s->dbi, &sk, &sd) != 0 || sd.mv_size < 8 + 12) return;
    ByteReader hr = bytes_reader(sd.mv_data, 8);
    if (bytes_get_u32(&hr) != SEAL_MAGIC || bytes_get_u32(&hr) != 1) return;
    f->is_format1 = true;
    ByteReader tail = bytes_reader((const char *)sd.mv_data + sd.mv_size - 8, 8);
    if (hash_bytes(sd.mv_data, sd.mv_size - 8, SEAL_SEED) != bytes_get_u64(&tail)) {
        snprintf(v->why, sizeof v->why, "its seal fails its checksum");
        return;
    }
    ByteReader seal = bytes_reader((const char *)sd.mv_data + 8, sd.mv_size - 16);
    uint32_t n = bytes_get_u32(&seal);
    if ((v->rc = mdb_cursor_open(v->txn, v->s->dbi, &v->cursor)) != 0) return;
    MDB_val k, d;
    int rc;
    uint32_t i = 0;
    for (rc = mdb_cursor_get(v->cursor, &k, &d, MDB_FIRST); rc == 0; rc = mdb_cursor_get(v->cursor, &k, &d, MDB_NEXT)) {
        if (k.mv_size == strlen(SEAL_KEY) && memcmp(k.mv_data, SEAL_KEY, k.mv_size) == 0) continue;
        if (memchr(k.mv_data, '\0', k.mv_size)) {
            snprintf(v->why, sizeof v->why, "a record has a damaged name");
            return;
        }
        size_t nl = 0;
        const char *name = i < n ? bytes_get_str(&seal, &nl) : NULL;
        uint64_t len = bytes_get_u64(&seal), h = bytes_get_u64(&seal);
        if (!name || seal.bad || nl != k.mv_size || memcmp(name, k.mv_data, nl) != 0) {
            snprintf(v->why, sizeof v->why, "record %.*s is not in its seal (format 1)",
                     (int)(k.mv_size > 200 ? 200 : k.mv_size), (const char *)k.mv_data);
            return;
        }
        if (len != d.mv_size || h != blob_hash(k.mv_data, k.mv_size, d.mv_data, d.mv_size)) {
            snprintf(v->why, sizeof v->why, "record %.*s fails its checksum", (int)(nl > 200 ? 200 : nl), name);
            return;
        }
        i++;
    }
    if (rc != MDB_NOTFOUND) {
        v->rc = rc;
        return;
    }
    if (i != n || !bytes_done(&seal)) {
        snprintf(v->why, sizeof v->why, "its seal lists records it does not hold (format 1)");
        return;
    }
    f->records = i;
    walk_free_list(v);
}

typedef struct Copy {
    StateStore *s;
    MDB_txn *from;
    MDB_env *env;
    MDB_txn *to;
    MDB_dbi dbi;
    Seal seal;
    int rc;
} Copy;

/* Copies every record of c->from with its trailer into c->to, then the seal. */
static void copy_records(void *ctx)
{
    Copy *c = ctx;
    MDB_cursor *cur;
    if ((c->rc = mdb_cursor_open(c->from, c->s->dbi, &cur)) != 0) return;
    MDB_val k, d;
    int rc;
    for (rc = mdb_cursor_get(cur, &k, &d, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
        if (k.mv_size == strlen(SEAL_KEY) && memcmp(k.mv_data, SEAL_KEY, k.mv_size) == 0) continue;
        MDB_val nv = {d.mv_size + TRAILER, NULL};
        if ((rc = mdb_put(c->to, c->dbi, &k, &nv, MDB_RESERVE)) != 0) break;
        char *dst = nv.mv_data;
        memcpy(dst, d.mv_data, d.mv_size);
        uint64_t h = blob_hash(k.mv_data, k.mv_size, d.mv_data, d.mv_size);
        put_trailer(dst, d.mv_size, h);
        c->seal.n++;
        c->seal.sum += h;
    }
    mdb_cursor_close(cur);
    if (rc != MDB_NOTFOUND) {
        c->rc = rc;
        return;
    }
    StrBuf sb = STRBUF_INIT;
    seal_render(&c->seal, &sb);
    MDB_val sk = key_of(SEAL_KEY), sv = {sb.len, sb.data};
    c->rc = mdb_put(c->to, c->dbi, &sk, &sv, 0);
    sb_free(&sb);
}

static bool sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = fsync(fd) == 0;
    close(fd);
    return ok;
}

/* Writes the converted store as <dir>/convert.mdb, committed and synced. */
static bool write_converted(StateStore *s, MDB_txn *from, const char *path, uint64_t *records, char *err,
                            size_t errsize)
{
    Copy c = {.s = s, .from = from};
    int rc = mdb_env_create(&c.env);
    if (rc == 0) rc = mdb_env_set_mapsize(c.env, MAP_SIZE);
    if (rc == 0) rc = mdb_env_open(c.env, path, MDB_NOSUBDIR | MDB_NOLOCK, 0666);
    if (rc == 0) rc = mdb_txn_begin(c.env, NULL, 0, &c.to);
    if (rc == 0 && (rc = mdb_dbi_open(c.to, NULL, 0, &c.dbi)) != 0) mdb_txn_abort(c.to);
    bool ok = rc == 0;
    if (ok) {
        int sig = guarded(copy_records, &c);
        if (sig) {
            mdb_txn_abort(c.to);
            ok = corrupt(s, err, errsize, "%s", fault_text(sig));
        } else if ((rc = c.rc) != 0 || (rc = mdb_txn_commit(c.to)) != 0) {
            if (c.rc) mdb_txn_abort(c.to);
            ok = false;
        }
    }
    if (ok && (rc = mdb_env_sync(c.env, 1)) != 0) ok = false;
    if (c.env) mdb_env_close(c.env);
    if (!ok && !err[0]) {
        snprintf(err, errsize, "state store %s: cannot convert it from format 1 (writing %s): %s", s->data_path, path,
                 mdb_strerror(rc));
    }
    *records = c.seal.n;
    return ok;
}

/* A format-1 store is converted; any other store is left to the usual checks. */
static bool convert_format1(StateStore *s, char *err, size_t errsize)
{
    MDB_txn *t;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &t);
    if (rc != 0) return lmdb_error(s, "read", rc, err, errsize);
    Format1 f = {.v = {.s = s, .txn = t}};
    int sig = guarded(walk_format1, &f);
    if (f.v.cursor) mdb_cursor_close(f.v.cursor);
    if (f.v.free_cursor) mdb_cursor_close(f.v.free_cursor);
    free(f.v.live);
    if (!f.is_format1) {
        mdb_txn_abort(t);
        return true;
    }
    if (sig || f.v.why[0] || f.v.rc != 0) {
        mdb_txn_abort(t);
        return corrupt(s, err, errsize, "%s (it was written by an older weir, format 1, and cannot be converted)",
                       sig ? fault_text(sig) : f.v.why[0] ? f.v.why : mdb_strerror(f.v.rc));
    }
    StrBuf path = STRBUF_INIT;
    sb_printf(&path, "%s/%s", s->dir, CONVERT_FILE);
    unlink(sb_cstr(&path));  /* left by a conversion that was killed */
    uint64_t records = 0;
    bool ok = write_converted(s, t, sb_cstr(&path), &records, err, errsize);
    mdb_txn_abort(t);
    if (ok) fault_point("store-convert-written");
    env_close(s);
    s->sealed_txn = 0;
    if (ok && rename(sb_cstr(&path), s->data_path) != 0) {
        snprintf(err, errsize, "state store: cannot rename %s to %s: %s", sb_cstr(&path), s->data_path,
                 strerror(errno));
        ok = false;
    }
    if (ok && !sync_dir(s->dir)) {
        snprintf(err, errsize, "state store: cannot sync %s: %s", s->dir, strerror(errno));
        ok = false;
    }
    if (!ok) unlink(sb_cstr(&path));
    sb_free(&path);
    if (!ok) return false;
    fault_point("store-convert-renamed");
    fprintf(stderr, "weir: converted the checkpoint store %s from format 1 (written by an older weir) to format %u "
            "(%llu records); continuing from its checkpoint\n", s->data_path, SEAL_VERSION,
            (unsigned long long)records);
    return check_meta(s, err, errsize) && env_open(s, s->dir, false, err, errsize);
}

static StateStore *open_store(const char *dir, bool create, bool exclusive, bool fresh, char *err, size_t errsize)
{
    err[0] = '\0';
    StateStore *s = xcalloc(1, sizeof *s);
    s->lock_fd = -1;
    size_t n = strlen(dir) + 32;
    s->dir = xmalloc(n);
    snprintf(s->dir, n, "%s/checkpoint", dir);
    s->data_path = xmalloc(n + 16);
    snprintf(s->data_path, n + 16, "%s/data.mdb", s->dir);
    struct stat st;
    if (!create && stat(s->dir, &st) != 0) goto fail;  /* no store: not an error */
    if (create && !fs_mkdirs(dir)) {
        snprintf(err, errsize, "state store: cannot create %s: %s", dir, strerror(errno));
        goto fail;
    }
    if (exclusive) {
        char *lock = xmalloc(n);
        snprintf(lock, n, "%s/run.lock", dir);
        if ((s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666)) < 0)
            snprintf(err, errsize, "state store: cannot open %s: %s", lock, strerror(errno));
        else if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0)
            snprintf(err, errsize, "state directory %s is in use by another weir run", dir);
        free(lock);
        if (err[0]) goto fail;
    }
    if (create && stat(s->dir, &st) != 0 && !create_store(s, s->dir, err, errsize)) goto fail;
    bool ok = open_checked(s, !create, fresh, err, errsize);
    /* a run converts a store of format 1 (it holds the run lock) */
    if (ok && create && exclusive) ok = convert_format1(s, err, errsize);
    if (!ok) {
        /* a run that starts over discards a damaged store (its journal with it: none
         * of it can be trusted) */
        if (!fresh || !s->damaged) goto fail;
        env_close(s);
        s->damaged = false;
        s->sealed_txn = 0;
        if (!remove_store_dir(s->dir, err, errsize) || !create_store(s, s->dir, err, errsize) ||
            !open_checked(s, false, false, err, errsize))
            goto fail;
        err[0] = '\0';
    }
    return s;
fail:
    store_close(s);
    return NULL;
}

StateStore *store_open(const char *dir, bool create, bool exclusive, char *err, size_t errsize)
{
    return open_store(dir, create, exclusive, false, err, errsize);
}

StateStore *store_open_fresh(const char *dir, char *err, size_t errsize)
{
    return open_store(dir, true, true, true, err, errsize);
}

void store_close(StateStore *s)
{
    if (!s) return;
    if (s->wtxn) mdb_txn_abort(s->wtxn);
    if (s->rtxn) mdb_txn_abort(s->rtxn);
    env_close(s);
    if (s->lock_fd >= 0) close(s->lock_fd);
    free(s->dir);
    free(s->data_path);
    free(s);
}

/* ---------------------------------------------------------------- reading */

bool store_read_begin(StateStore *s, char *err, size_t errsize)
{
    if (s->rtxn) return true;
    for (int attempt = 0;; attempt++) {
        int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
        if (rc != 0) {
            s->rtxn = NULL;
            return lmdb_error(s, "read", rc, err, errsize);
        }
        bool moved_on;
        if (verify(s, s->rtxn, &s->sealed, &moved_on, err, errsize)) break;
        store_read_end(s);
        s->sealed_txn = 0;
        if (!moved_on || attempt == 5) return false;
        s->damaged = false;
    }
    s->sealed_txn = mdb_txn_id(s->rtxn);
    return true;
}

static MDB_val key_of(const char *name)
{
    MDB_val k = {strlen(name), (void *)name};
    return k;
}

bool store_get(StateStore *s, const char *name, const void **data, size_t *len)
{
    MDB_txn *t = s->wtxn ? s->wtxn : s->rtxn;
    if (!t || name[0] == '#') return false;
    MDB_val k = key_of(name), v;
    if (mdb_get(t, s->dbi, &k, &v) != 0 || v.mv_size < TRAILER) return false;
    *data = v.mv_data;
    *len = v.mv_size - TRAILER;
    return true;
}

void store_foreach(StateStore *s, const char *prefix,
                   void (*fn)(void *ctx, const char *name, const void *data, size_t len), void *ctx)
{
    MDB_txn *t = s->wtxn ? s->wtxn : s->rtxn;
    if (!t) return;
    MDB_cursor *c;
    if (mdb_cursor_open(t, s->dbi, &c) != 0) return;
    size_t pl = strlen(prefix);
    MDB_val k = {pl, (void *)prefix}, v;
    int rc = mdb_cursor_get(c, &k, &v, pl ? MDB_SET_RANGE : MDB_FIRST);
    char *name = NULL;
    size_t cap = 0;
    for (; rc == 0; rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
        if (k.mv_size < pl || memcmp(k.mv_data, prefix, pl) != 0) break;
        if ((k.mv_size && *(const char *)k.mv_data == '#') || v.mv_size < TRAILER) continue;
        if (k.mv_size + 1 > cap) {
            cap = k.mv_size + 1;
            name = xrealloc(name, cap);
        }
        memcpy(name, k.mv_data, k.mv_size);
        name[k.mv_size] = '\0';
        fn(ctx, name, v.mv_data, v.mv_size - TRAILER);
    }
    free(name);
    mdb_cursor_close(c);
}

void store_read_end(StateStore *s)
{
    if (s->rtxn) mdb_txn_abort(s->rtxn);
    s->rtxn = NULL;
}

/* ---------------------------------------------------------------- writing */


static bool has_prefix(const MDB_val *k, const char *prefix, size_t pl)
{
    return pl && k->mv_size >= pl && memcmp(k->mv_data, prefix, pl) == 0;
}

/* The record under the cursor leaves the open write: its trailer leaves the sum. */
static void unseal(StateStore *s, const MDB_val *v)
{
    if (v->mv_size >= TRAILER) s->pending.sum -= trailer_of(v->mv_data, v->mv_size);
    s->pending.n--;
}

/* Delete every blob of the checkpoint, keeping the journal ("journal/...") and the
 * blobs whose names start with one of the nkeep prefixes of `keep`. Kept ranges are
 * skipped, not walked. */
static int drop_checkpoint(StateStore *s, const char *const *keep, int nkeep)
{
    MDB_cursor *c;
    int rc = mdb_cursor_open(s->wtxn, s->dbi, &c);
    if (rc != 0) return rc;
    MDB_val k, v;
    static const char journal[] = STORE_JOURNAL_PREFIX;
    for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;) {
        const char *skip = has_prefix(&k, journal, sizeof journal - 1) ? journal : NULL;
        for (int i = 0; i < nkeep && !skip; i++)
            if (has_prefix(&k, keep[i], strlen(keep[i]))) skip = keep[i];
        if (skip) {
            /* the first name after every name with this prefix: the prefix with its
             * last byte raised */
            char next[512];
            size_t n = strlen(skip);
            if (n >= sizeof next || (unsigned char)skip[n - 1] == 0xff) {
                rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
                continue;
            }
            memcpy(next, skip, n);
            next[n - 1]++;
            k = (MDB_val){n, next};
            rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
            continue;
        }
        if (k.mv_size == strlen(SEAL_KEY) && memcmp(k.mv_data, SEAL_KEY, k.mv_size) == 0) {
            rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
            continue;
        }
        unseal(s, &v);
        rc = mdb_cursor_del(c, 0);
        if (rc != 0) break;
        rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);  /* after a delete: the record that followed */
    }
    mdb_cursor_close(c);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

static bool write_begin(StateStore *s, bool replace, const char *const *keep, int nkeep, char *err, size_t errsize)
{
    store_read_end(s);  /* a long read would keep the pages of old checkpoints alive */
    if (s->wtxn) store_write_abort(s);
    s->write_bytes = 0;
    /* the seal of the new checkpoint starts from the committed one, verified (in a read:
     * LMDB shows its free list only to reads) and still the last one when the write
     * begins (a writer without the run lock may have committed in between) */
    int rc;
    for (int attempt = 0;; attempt++) {
        if (s->sealed_txn == 0 && !s->creating) {
            if (!store_read_begin(s, err, errsize)) return false;
            store_read_end(s);
        }
        rc = mdb_txn_begin(s->env, NULL, 0, &s->wtxn);
        if (rc != 0) {
            s->wtxn = NULL;
            return lmdb_error(s, "write", rc, err, errsize);
        }
        if (mdb_txn_id(s->wtxn) == s->sealed_txn + 1) break;
        store_write_abort(s);
        s->sealed_txn = 0;
        if (attempt == 3) {
            snprintf(err, errsize, "state store %s: other processes keep writing it", s->data_path);
            return false;
        }
    }
    s->pending = s->sealed;
    s->written_bytes = 0;
    rc = replace ? drop_checkpoint(s, keep, nkeep) : 0;
    if (rc != 0) {
        store_write_abort(s);
        return lmdb_error(s, "write", rc, err, errsize);
    }
    return true;
}

bool store_write_begin(StateStore *s, bool replace, char *err, size_t errsize)
{
    return write_begin(s, replace, NULL, 0, err, errsize);
}

bool store_write_begin_keeping(StateStore *s, const char *const *keep, int nkeep, char *err, size_t errsize)
{
    return write_begin(s, true, keep, nkeep, err, errsize);
}

static bool check_writable(StateStore *s, const char *name, char *err, size_t errsize)
{
    if (!s->wtxn) {
        snprintf(err, errsize, "state store: no checkpoint is being written");
        return false;
    }
    if (name[0] == '#') {
        snprintf(err, errsize, "state store: record names starting with '#' are reserved (%s)", name);
        return false;
    }
    return true;
}

/* The record `name` of the open write leaves the seal when it exists. */
static void unseal_name(StateStore *s, const MDB_val *k)
{
    MDB_val old;
    if (mdb_get(s->wtxn, s->dbi, (MDB_val *)k, &old) == 0) unseal(s, &old);
}

bool store_put(StateStore *s, const char *name, const void *data, size_t len, char *err, size_t errsize)
{
    return store_put2(s, name, data, len, NULL, 0, err, errsize);
}

bool store_put2(StateStore *s, const char *name, const void *a, size_t alen, const void *b, size_t blen, char *err,
                size_t errsize)
{
    if (!check_writable(s, name, err, errsize)) return false;
    size_t len = alen + blen;
    MDB_val k = key_of(name), v = {len + TRAILER, NULL};
    unseal_name(s, &k);
    s->write_bytes += (int64_t)len;
    int rc = mdb_put(s->wtxn, s->dbi, &k, &v, MDB_RESERVE);
    if (rc != 0) return lmdb_error(s, name, rc, err, errsize);
    char *dst = v.mv_data;
    if (alen) memcpy(dst, a, alen);
    if (blen) memcpy(dst + alen, b, blen);
    uint64_t h = blob_hash(name, k.mv_size, dst, len);
    put_trailer(dst, len, h);
    s->pending.n++;
    s->pending.sum += h;
    s->written_bytes += (int64_t)(k.mv_size + len + TRAILER);
    return true;
}

bool store_del(StateStore *s, const char *name, char *err, size_t errsize)
{
    if (!check_writable(s, name, err, errsize)) return false;
    MDB_val k = key_of(name), old;
    int rc = mdb_get(s->wtxn, s->dbi, &k, &old);
    if (rc == MDB_NOTFOUND) return true;
    if (rc == 0) {
        unseal(s, &old);
        rc = mdb_del(s->wtxn, s->dbi, &k, NULL);
    }
    if (rc != 0) return lmdb_error(s, name, rc, err, errsize);
    return true;
}

bool store_write_commit(StateStore *s, char *err, size_t errsize)
{
    if (!s->wtxn) {
        snprintf(err, errsize, "state store: no checkpoint is being written");
        return false;
    }
    StrBuf seal = STRBUF_INIT;
    seal_render(&s->pending, &seal);
    MDB_val k = key_of(SEAL_KEY), v = {seal.len, seal.data};
    size_t txn = mdb_txn_id(s->wtxn);
    int rc = mdb_put(s->wtxn, s->dbi, &k, &v, 0);
    s->written_bytes += (int64_t)(k.mv_size + seal.len);
    sb_free(&seal);
    if (rc == 0) rc = mdb_txn_commit(s->wtxn);
    else mdb_txn_abort(s->wtxn);
    s->wtxn = NULL;
    if (rc != 0) {
        s->sealed_txn = 0;  /* read it again before adding to it */
        return lmdb_error(s, "commit", rc, err, errsize);
    }
    s->sealed_txn = txn;
    s->sealed = s->pending;
    s->last_commit_bytes = s->written_bytes;
    return true;
}

void store_write_abort(StateStore *s)
{
    if (s->wtxn) mdb_txn_abort(s->wtxn);
    s->wtxn = NULL;
}

int64_t store_last_commit_bytes(const StateStore *s) { return s->last_commit_bytes; }

int64_t store_file_bytes(const StateStore *s)
{
    struct stat st;
    if (!s->data_path || stat(s->data_path, &st) != 0) return 0;
    return (int64_t)st.st_blocks * 512;
}
