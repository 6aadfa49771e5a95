/* The deployments of a native target on disk (docs/lifecycle.md, "Staged rollout").
 *
 * A target's state directory holds one state store per deployment that has its own
 * state: the first one in the directory itself ("."), staged ones in deployments/<id>/.
 * The file ACTIVE names the store that runs (absent: "."); switching it is one atomic
 * rename, so a reader sees either the old store or the new one. A publish or rollback
 * in progress is described by PUBLISH (written before its first step, removed after
 * the last), so the next command finishes it after a crash.
 *
 * Each store keeps, beside its checkpoint, the physical names of its outputs
 * ("outputs/<model>": the table, file or topic its sink writes), when they differ from
 * the names the project gives (a staged deployment writes shadow outputs). */
#ifndef WEIR_RUNTIME_DEPLOYMENTS_H
#define WEIR_RUNTIME_DEPLOYMENTS_H

#include "ir/ir.h"
#include "project/project.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The directory of the store that runs (project-joined; arena string). */
const char *deploy_active_dir(Project *p);
/* Its name relative to the state directory: "." or "deployments/<id>" (arena string). */
const char *deploy_active_name(Project *p);
/* The directory of store `name` ("." or "deployments/<id>"). */
const char *deploy_dir(Project *p, const char *name);
/* Make store `name` the one that runs (atomic). */
bool deploy_set_active(Project *p, const char *name, char *err, size_t errsize);
/* The store that ran before the last publish (PREVIOUS: what rollback returns to), or
 * NULL; and setting it (NULL: none). */
const char *deploy_previous_name(Project *p);
bool deploy_set_previous(Project *p, const char *name, char *err, size_t errsize);
/* The stores of the target other than "." in id order (malloc'd array of malloc'd
 * names, *n of them). */
char **deploy_list(Project *p, int *n);
/* A new staged store's name ("deployments/<id>" with an id above every existing one
 * and above `min_id`), and its id. */
const char *deploy_new_name(Project *p, int64_t min_id, int64_t *id);

/* The shadow name of an output for deployment `id`: "orders" -> "orders__v3",
 * "out/x.jsonl" -> "out/x__v3.jsonl" (arena string). */
const char *deploy_shadow_name(Project *p, const char *name, int64_t id);

/* ---- reading and changing a store (not the one a run holds) ---- */

/* The manifest kept with store `name`'s checkpoint (malloc'd) and the checkpoint's id
 * and time; false with a message when the store has none. */
bool deploy_store_manifest(Project *p, const char *name, char **manifest, size_t *len, uint64_t *ckpt,
                           int64_t *written_at, char *err, size_t errsize);
/* Do the checkpoints of stores a and b hold the same source positions? */
bool deploy_same_positions(Project *p, const char *a, const char *b, char *err, size_t errsize);
/* A pipeline of g (every model) restored from store `name`'s checkpoint, or NULL with
 * a message. The caller frees it. */
struct EngPipeline *deploy_restore(Project *p, const IrGraph *g, const char *name, char *err, size_t errsize);
/* The physical name store `name` records for model's output (malloc'd), NULL: none. */
char *deploy_output(Project *p, const char *name, const char *model);
/* Record it (a write of its own on the store; the store must not be in use). */
bool deploy_set_output(Project *p, const char *name, const char *model, const char *physical, char *err,
                       size_t errsize);
/* Record that deployment `id` of store `name` is now `status` ("published",
 * "rolled back" ...). */
bool deploy_set_status(Project *p, const char *name, int64_t id, const char *status, char *err, size_t errsize);
/* The id of the last deployment store `name`'s journal records (1 when it has none). */
int64_t deploy_last_id(Project *p, const char *name);

/* A publish (or rollback) in progress: from store `from` to store `to`. */
typedef struct DeployIntent {
    char from[256], to[256];
    int64_t id;                  /* the deployment published */
    bool rollback;
} DeployIntent;

bool deploy_intent_write(Project *p, const DeployIntent *in, char *err, size_t errsize);
/* False when none is in progress. */
bool deploy_intent_read(Project *p, DeployIntent *out);
void deploy_intent_clear(Project *p);

#endif
