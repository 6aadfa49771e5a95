/* The checkpoint store over LMDB (the only file that includes lmdb.h); see
 * state_store.h. One unnamed database holds the blobs of the current checkpoint; a
 * checkpoint write empties it and fills it again inside one write transaction, so
 * LMDB's copy-on-write pages give the all-or-nothing commit. LMDB was chosen over
 * RocksDB because checkpoints are a few large blobs written at once and read back
 * once at start, for which an mmap'd B-tree with a single fsync per commit is the
 * simplest thing that is durable; bench/checkpoint.sh measures it (bench/README.md). */
#include "runtime/state_store.h"

#include "base/arena.h"
#include "base/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Address space reserved for the map (the file grows with its content). */
#define MAP_SIZE ((size_t)1 << 38)

struct StateStore {
    MDB_env *env;
    MDB_dbi dbi;
    MDB_txn *rtxn;               /* open read, or NULL */
    MDB_txn *wtxn;               /* open write, or NULL */
    int lock_fd;                 /* run.lock held with flock, or -1 */
    char *data_path;
};

static bool lmdb_error(const char *what, int rc, char *err, size_t errsize)
{
    snprintf(err, errsize, "state store: %s: %s", what, mdb_strerror(rc));
    return false;
}

StateStore *store_open(const char *dir, bool create, bool exclusive, char *err, size_t errsize)
{
    err[0] = '\0';
    size_t n = strlen(dir) + 32;
    char *ckdir = xmalloc(n), *lock = xmalloc(n);
    snprintf(ckdir, n, "%s/checkpoint", dir);
    snprintf(lock, n, "%s/run.lock", dir);
    StateStore *s = NULL;
    struct stat st;
    if (!create && stat(ckdir, &st) != 0) goto out;  /* no store: not an error */
    if (create && !fs_mkdirs(ckdir)) {
        snprintf(err, errsize, "state store: cannot create %s: %s", ckdir, strerror(errno));
        goto out;
    }
    s = xcalloc(1, sizeof *s);
    s->lock_fd = -1;
    if (exclusive) {
        s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (s->lock_fd < 0) {
            snprintf(err, errsize, "state store: cannot open %s: %s", lock, strerror(errno));
            goto fail;
        }
        if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
            snprintf(err, errsize, "state directory %s is in use by another weir run", dir);
            goto fail;
        }
    }
    int rc = mdb_env_create(&s->env);
    if (rc == 0) rc = mdb_env_set_mapsize(s->env, MAP_SIZE);
    if (rc == 0) rc = mdb_env_open(s->env, ckdir, create ? 0 : MDB_RDONLY, 0666);
    if (rc != 0) {
        lmdb_error(ckdir, rc, err, errsize);
        goto fail;
    }
    MDB_txn *t;
    rc = mdb_txn_begin(s->env, NULL, create ? 0 : MDB_RDONLY, &t);
    if (rc == 0) rc = mdb_dbi_open(t, NULL, 0, &s->dbi);
    if (rc == 0) rc = mdb_txn_commit(t);
    else mdb_txn_abort(t);
    if (rc != 0) {
        lmdb_error("open", rc, err, errsize);
        goto fail;
    }
    s->data_path = xmalloc(n + 16);
    snprintf(s->data_path, n + 16, "%s/data.mdb", ckdir);
    goto out;
fail:
    store_close(s);
    s = NULL;
out:
    free(ckdir);
    free(lock);
    return s;
}

void store_close(StateStore *s)
{
    if (!s) return;
    if (s->wtxn) mdb_txn_abort(s->wtxn);
    if (s->rtxn) mdb_txn_abort(s->rtxn);
    if (s->env) mdb_env_close(s->env);
    if (s->lock_fd >= 0) close(s->lock_fd);
    free(s->data_path);
    free(s);
}

bool store_read_begin(StateStore *s, char *err, size_t errsize)
{
    if (s->rtxn) return true;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
    if (rc != 0) {
        s->rtxn = NULL;
        return lmdb_error("read", rc, err, errsize);
    }
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
    if (!t) return false;
    MDB_val k = key_of(name), v;
    if (mdb_get(t, s->dbi, &k, &v) != 0) return false;
    *data = v.mv_data;
    *len = v.mv_size;
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
        if (k.mv_size + 1 > cap) {
            cap = k.mv_size + 1;
            name = xrealloc(name, cap);
        }
        memcpy(name, k.mv_data, k.mv_size);
        name[k.mv_size] = '\0';
        fn(ctx, name, v.mv_data, v.mv_size);
    }
    free(name);
    mdb_cursor_close(c);
}

void store_read_end(StateStore *s)
{
    if (s->rtxn) mdb_txn_abort(s->rtxn);
    s->rtxn = NULL;
}

/* Delete every blob of the checkpoint, keeping the journal ("journal/..."). */
static int drop_checkpoint(StateStore *s)
{
    MDB_cursor *c;
    int rc = mdb_cursor_open(s->wtxn, s->dbi, &c);
    if (rc != 0) return rc;
    MDB_val k, v;
    static const char keep[] = STORE_JOURNAL_PREFIX;
    for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
        if (k.mv_size >= sizeof keep - 1 && memcmp(k.mv_data, keep, sizeof keep - 1) == 0) continue;
        rc = mdb_cursor_del(c, 0);
        if (rc != 0) break;
    }
    mdb_cursor_close(c);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

bool store_write_begin(StateStore *s, bool replace, char *err, size_t errsize)
{
    store_read_end(s);  /* a long read would keep the pages of old checkpoints alive */
    if (s->wtxn) store_write_abort(s);
    int rc = mdb_txn_begin(s->env, NULL, 0, &s->wtxn);
    if (rc != 0) {
        s->wtxn = NULL;
        return lmdb_error("write", rc, err, errsize);
    }
    rc = replace ? drop_checkpoint(s) : 0;
    if (rc != 0) {
        store_write_abort(s);
        return lmdb_error("write", rc, err, errsize);
    }
    return true;
}

bool store_put(StateStore *s, const char *name, const void *data, size_t len, char *err, size_t errsize)
{
    if (!s->wtxn) {
        snprintf(err, errsize, "state store: no checkpoint is being written");
        return false;
    }
    MDB_val k = key_of(name), v = {len, (void *)data};
    int rc = mdb_put(s->wtxn, s->dbi, &k, &v, 0);
    if (rc != 0) return lmdb_error(name, rc, err, errsize);
    return true;
}

bool store_put2(StateStore *s, const char *name, const void *a, size_t alen, const void *b, size_t blen, char *err,
                size_t errsize)
{
    if (!s->wtxn) {
        snprintf(err, errsize, "state store: no checkpoint is being written");
        return false;
    }
    MDB_val k = key_of(name), v = {alen + blen, NULL};
    int rc = mdb_put(s->wtxn, s->dbi, &k, &v, MDB_RESERVE);
    if (rc != 0) return lmdb_error(name, rc, err, errsize);
    if (alen) memcpy(v.mv_data, a, alen);
    if (blen) memcpy((char *)v.mv_data + alen, b, blen);
    return true;
}

bool store_write_commit(StateStore *s, char *err, size_t errsize)
{
    if (!s->wtxn) {
        snprintf(err, errsize, "state store: no checkpoint is being written");
        return false;
    }
    int rc = mdb_txn_commit(s->wtxn);
    s->wtxn = NULL;
    if (rc != 0) return lmdb_error("commit", rc, err, errsize);
    return true;
}

void store_write_abort(StateStore *s)
{
    if (s->wtxn) mdb_txn_abort(s->wtxn);
    s->wtxn = NULL;
}

int64_t store_file_bytes(const StateStore *s)
{
    struct stat st;
    if (!s->data_path || stat(s->data_path, &st) != 0) return 0;
    return (int64_t)st.st_blocks * 512;
}
