/* A manifest read back (target/manifest.json, or the one a durable run keeps with its
 * checkpoint): the sources, the models with their plan trees, and the state
 * descriptors with their fingerprints -- what `weir plan` compares. All strings live
 * in the manifest's arena. */
#ifndef WEIR_LIFECYCLE_MANIFEST_READ_H
#define WEIR_LIFECYCLE_MANIFEST_READ_H

#include "base/arena.h"
#include "ir/ir.h"
#include "project/project.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct MfColumn {
    const char *name, *type;
} MfColumn;

typedef struct MfState {
    const char *id, *kind, *bound, *bound_detail;
    const char *schema_fp, *logic_fp;
    MfColumn *key;
    int nkey;
    MfColumn *values;
    int nvalues;
    int64_t ttl_s;               /* -1: none */
} MfState;

typedef struct MfNode MfNode;
struct MfNode {
    const char *id, *op, *detail, *logic_fp, *mode;
    const char *ref;             /* Ref nodes: the model read */
    const char *source;          /* Source nodes: the source scanned */
    MfNode **inputs;
    int ninputs;
};

/* Where a model's output goes (all NULL without a sink). */
typedef struct MfSink {
    const char *connector, *format;
    const char *where;           /* path, table ("file:table" for SQLite) or topic */
} MfSink;

typedef struct MfModel {
    const char *name, *fingerprint, *output_fp, *materialized, *output_mode;
    MfSink sink;
    int64_t ttl_s;               /* state_ttl, 0 when none */
    const char **key;
    int nkey;
    MfColumn *cols;
    int ncols;
    const char **dep_sources, **dep_models;
    int ndep_sources, ndep_models;
    MfNode *plan;                /* NULL when the model did not compile */
} MfModel;

typedef struct MfSource {
    const char *name, *connector, *format, *where, *event_time;  /* where: path or topic */
    MfColumn *cols;
    int ncols;
    const char **pk;
    int npk;
    int64_t watermark_delay_ms;
} MfSource;

typedef struct Manifest {
    Arena arena;
    const char *project, *target, *runtime;
    MfSource *sources;
    int nsources;
    MfModel *models;
    int nmodels;
    MfState *states;
    int nstates;
    ProjectFile *files;          /* the version's definition (project_load_files) */
    int nfiles;
} Manifest;

/* Parse manifest JSON. `what` names it in messages ("target/manifest.json"). Returns
 * false with a message for text that is not a manifest of a version this weir reads. */
bool manifest_parse(const char *text, size_t len, const char *what, Manifest *out, char *err, size_t errsize);
/* The current project's manifest (manifest_render, read back). */
bool manifest_of_graph(const IrGraph *g, Manifest *out, char *err, size_t errsize);
void manifest_free(Manifest *m);

const MfModel *mf_find_model(const Manifest *m, const char *name);
const MfSource *mf_find_source(const Manifest *m, const char *name);
const MfState *mf_find_state(const Manifest *m, const char *id);

#endif
