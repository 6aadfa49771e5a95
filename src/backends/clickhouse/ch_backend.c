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
