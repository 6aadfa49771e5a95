/* The ClickHouse lifecycle backend (see ch_backend.h). */
#include "backends/clickhouse/ch_backend.h"

#include <stdlib.h>
#include <string.h>

static bool ch_deployed(LcBackend *b, LcDeployed *out, int *code, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    const ChOptions *o = b->impl;
    StrBuf desc = STRBUF_INIT;
    char *manifest = NULL;
    size_t len = 0;
    int rc = ch_verb_deployed(b->project, b->graph, o, &manifest, &len, &desc, err, errsize);
    if (rc) {
        *code = rc;
        sb_free(&desc);
        return false;
    }
    out->exists = manifest != NULL;
    out->manifest = manifest;
    out->manifest_len = len;
    out->description = sb_take(&desc);
    return true;
}

static bool ch_apply(LcBackend *b, const LcApplyRequest *req, LcApplyResult *out, int *code, char *err,
                     size_t errsize)
{
    memset(out, 0, sizeof *out);
    ChOptions o = *(const ChOptions *)b->impl;
    o.staged = req->staged;
    StrBuf sb = STRBUF_INIT;
    int rc = ch_verb_apply(b->project, b->graph, &o, &sb, err, errsize);
    out->summary = sb.data ? sb_take(&sb) : NULL;
    sb_free(&sb);
    *code = rc;
    return rc == 0;
}

/* A verb of ch_deploy.h as a backend operation: exit 0 true; 1 (found failures) true
 * with *found set; 2 and 3 false with the code. */
static bool verb(LcBackend *b, int (*fn)(Project *, const IrGraph *, const ChOptions *, StrBuf *, char *, size_t),
                 const ChOptions *o, StrBuf *out, bool *found, int *code, char *err, size_t errsize)
{
    int rc = fn(b->project, b->graph, o, out, err, errsize);
    if (found) *found = rc == 1;
    if (rc == 0 || (rc == 1 && found)) return true;
    *code = rc;
    return false;
}

static bool ch_audit(LcBackend *b, bool json, StrBuf *out, bool *ready, int *code, char *err, size_t errsize)
{
    ChOptions o = *(const ChOptions *)b->impl;
    o.json = json;
    bool not_ready = false;
    bool ok = verb(b, ch_verb_audit, &o, out, &not_ready, code, err, errsize);
    *ready = ok && !not_ready;
    return ok;
}

static bool ch_publish(LcBackend *b, StrBuf *out, int *code, char *err, size_t errsize)
{
    return verb(b, ch_verb_publish, b->impl, out, NULL, code, err, errsize);
}

static bool ch_rollback(LcBackend *b, StrBuf *out, int *code, char *err, size_t errsize)
{
    return verb(b, ch_verb_rollback, b->impl, out, NULL, code, err, errsize);
}

static bool ch_janitor(LcBackend *b, int64_t retain_s, StrBuf *out, int *code, char *err, size_t errsize)
{
    ChOptions o = *(const ChOptions *)b->impl;
    o.retention_s = retain_s;
    return verb(b, ch_verb_janitor, &o, out, NULL, code, err, errsize);
}

static void backend_close(LcBackend *b)
{
    free(b->impl);
    free(b);
}

static const LcBackendOps ch_ops = {
    .name = "clickhouse",
    .deploys_first = true,
    .deployed = ch_deployed,
    .apply = ch_apply,
    .audit = ch_audit,
    .publish = ch_publish,
    .rollback = ch_rollback,
    .janitor = ch_janitor,
    .close = backend_close,
};

LcBackend *ch_backend_open(Project *p, const IrGraph *g, const ChOptions *o)
{
    LcBackend *b = xcalloc(1, sizeof *b);
    b->ops = &ch_ops;
    b->project = p;
    b->graph = g;
    ChOptions *c = xmalloc(sizeof *c);
    *c = *o;
    b->impl = c;
    return b;
}
