/* The durable store of `weir run`'s checkpoints: an LMDB environment in the target's
 * state directory (<state_dir>/checkpoint/). A checkpoint is a set of named blobs
 * (engine state, source positions, sink deliveries, dead-letter lengths; see
 * run_durable.c) written in one transaction: after a crash the store holds either the
 * whole new checkpoint or the whole previous one, never a mix. The store also holds an
 * exclusive lock on the state directory (<state_dir>/run.lock) for as long as it is
 * open, so two runs never continue the same state.
 *
 * Every blob carries its own checksum and every commit also writes a seal: the number
 * of blobs, a sum of their checksums and a checksum over the seal itself, each kept up
 * to date by the puts and deletes of a write, so a write that changes a few blobs of a
 * large checkpoint costs what it changes. A read verifies the whole checkpoint against its seal
 * before any blob is handed out, so a damaged store (truncated, emptied, bits flipped
 * on disk) is reported as corrupt, naming the file and the way out, and never crashes
 * weir or silently changes what a run continues from. */
#ifndef WEIR_RUNTIME_STATE_STORE_H
#define WEIR_RUNTIME_STATE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct StateStore StateStore;

/* Open (creating the directories and the store when `create` is set) the store of
 * state directory `dir`. With `create` unset a missing store is not an error: NULL with
 * err empty. `exclusive` takes the run lock (fails with a message when another process
 * holds it); readers such as `weir inspect` open without it. Fails with a message when
 * the store is damaged (truncated, emptied, missing its file): a store that exists is
 * never taken for a new one. */
StateStore *store_open(const char *dir, bool create, bool exclusive, char *err, size_t errsize);
/* A run that starts over (--fresh): store_open(dir, true, true) that, when the store is
 * damaged in any way, discards it and creates a new one. */
StateStore *store_open_fresh(const char *dir, char *err, size_t errsize);
/* Close the store (and release the lock); a write in progress is abandoned. */
void store_close(StateStore *s);

/* ---- reading the last checkpoint ----
 * Reads see the checkpoint committed last when the read began, verified against its
 * seal (false with a message naming the file when it is corrupt); blobs stay valid
 * until store_read_end (or close). Blob names starting with '#' are the store's own. */
bool store_read_begin(StateStore *s, char *err, size_t errsize);
/* False when the blob is absent (or no read is open). */
bool store_get(StateStore *s, const char *name, const void **data, size_t *len);
/* Calls fn for every blob whose name starts with prefix, in name order (not the
 * store's own '#' records). */
void store_foreach(StateStore *s, const char *prefix,
                   void (*fn)(void *ctx, const char *name, const void *data, size_t len), void *ctx);
void store_read_end(StateStore *s);

/* ---- writing a checkpoint ----
 * begin with `replace` empties the store for a new checkpoint (without it, puts add to
 * or overwrite blobs of the current one), all but the journal: blobs named
 * STORE_JOURNAL_PREFIX... (the target's deployments) outlive checkpoints. Nothing is
 * visible until commit, which seals the checkpoint and makes everything written
 * durable (fsync) at once. A full disk is reported as "no space left on device" with
 * the store's path. */
#define STORE_JOURNAL_PREFIX "journal/"
bool store_write_begin(StateStore *s, bool replace, char *err, size_t errsize);
bool store_put(StateStore *s, const char *name, const void *data, size_t len, char *err, size_t errsize);
/* A blob made of two parts (a header and a body), written without joining them first. */
bool store_put2(StateStore *s, const char *name, const void *a, size_t alen, const void *b, size_t blen, char *err,
                size_t errsize);
/* Like store_write_begin(replace), but the blobs whose names start with one of the
 * nkeep prefixes of `keep` stay too (an incremental checkpoint rewrites only those of
 * them that changed, and deletes those that are gone, with store_del). */
bool store_write_begin_keeping(StateStore *s, const char *const *keep, int nkeep, char *err, size_t errsize);
/* Removes a blob of the open write; a blob that does not exist is no error. */
bool store_del(StateStore *s, const char *name, char *err, size_t errsize);
bool store_write_commit(StateStore *s, char *err, size_t errsize);
void store_write_abort(StateStore *s);

/* Bytes (names, contents, checksums and the seal) the last commit wrote: what the
 * checkpoint changed, not the size of the whole checkpoint. */
int64_t store_last_commit_bytes(const StateStore *s);

/* Bytes the store's file takes on disk (for inspect). */
int64_t store_file_bytes(const StateStore *s);

#endif
