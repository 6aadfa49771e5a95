/* What native.c (plan, apply) and staged.c (the staged rollout) share: deployed
 * versions loaded again from their manifests. Not for use outside src/backends/native. */
#ifndef WEIR_BACKENDS_NATIVE_INTERNAL_H
#define WEIR_BACKENDS_NATIVE_INTERNAL_H

#include "backends/native/native.h"
#include "lifecycle/manifest_read.h"

/* A version of the project loaded from the definition its manifest keeps. */
typedef struct NativeVersion {
    DiagList dl;
    Arena arena;
    Project *p;                  /* paths resolve in the project's directory */
    IrGraph *g;
    Manifest mf;                 /* native_load_store: the store's manifest */
    bool have_mf;
    uint64_t checkpoint;         /* native_load_store: the store's checkpoint and time */
    int64_t written_at;
} NativeVersion;

/* Load manifest m's version; false with a message (the version is then partly loaded:
 * free it all the same). */
bool native_load_version(LcBackend *b, const Manifest *m, NativeVersion *out, char *err, size_t errsize);
/* Load the version deployment store `store` runs ("." or "deployments/<id>"). */
bool native_load_store(LcBackend *b, const char *store, NativeVersion *out, char *err, size_t errsize);
void native_version_free(NativeVersion *v);

/* Finish a publish or rollback that a crash interrupted (deployments.h, PUBLISH). */
bool native_settle(LcBackend *b, int *code, char *err, size_t errsize);

bool native_audit(LcBackend *b, bool json, StrBuf *out, bool *ready, int *code, char *err, size_t errsize);
bool native_publish(LcBackend *b, StrBuf *out, int *code, char *err, size_t errsize);
bool native_rollback(LcBackend *b, StrBuf *out, int *code, char *err, size_t errsize);
bool native_janitor(LcBackend *b, int64_t retain_s, StrBuf *out, int *code, char *err, size_t errsize);

#endif
