/* Reading manifests back (the only file that includes jansson.h); see manifest_read.h.
 * Tolerant of keys it does not know (a newer weir may add some), strict about the
 * version and the shape of what it uses. */
#include "lifecycle/manifest_read.h"

#include "base/strbuf.h"
#include "lifecycle/manifest.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

typedef struct Reader {
    Arena *a;
    const char *what;
    char *err;
    size_t errsize;
    bool bad;
} Reader;

static void bad(Reader *r, const char *fmt, const char *detail)
{
    if (r->bad) return;
    r->bad = true;
    char msg[256];
    snprintf(msg, sizeof msg, fmt, detail);
    snprintf(r->err, r->errsize, "%s: %s", r->what, msg);
}

static const char *str(Reader *r, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return NULL;
    if (!json_is_string(v)) {
        bad(r, "\"%s\" is not a string", key);
        return NULL;
    }
    return arena_strdup(r->a, json_string_value(v));
}

static const char **strs(Reader *r, json_t *arr, int *n)
{
    *n = 0;
    if (!json_is_array(arr)) return NULL;
    size_t k = json_array_size(arr);
    const char **out = ARENA_ARRAY(r->a, const char *, k + 1);
    for (size_t i = 0; i < k; i++) {
        json_t *v = json_array_get(arr, i);
        if (json_is_string(v)) out[(*n)++] = arena_strdup(r->a, json_string_value(v));
    }
    return out;
}

static MfColumn *cols(Reader *r, json_t *arr, int *n)
{
    *n = 0;
    if (!json_is_array(arr)) return NULL;
    size_t k = json_array_size(arr);
    MfColumn *out = ARENA_ARRAY(r->a, MfColumn, k + 1);
    for (size_t i = 0; i < k; i++) {
        json_t *c = json_array_get(arr, i);
        out[*n].name = str(r, c, "name");
        out[*n].type = str(r, c, "type");
        /* a source column's encoding decides its values: compared and shown with the type */
        const char *enc = str(r, c, "encoding");
        if (enc && out[*n].type) out[*n].type = arena_printf(r->a, "%s (encoding %s)", out[*n].type, enc);
        if (out[*n].name) (*n)++;
    }
    return out;
}

static MfNode *node(Reader *r, json_t *o, int depth)
{
    if (!json_is_object(o) || depth > 10000) return NULL;
    MfNode *n = ARENA_NEW(r->a, MfNode);
    n->id = str(r, o, "id");
    n->op = str(r, o, "op");
    n->detail = str(r, o, "detail");
    n->logic_fp = str(r, o, "logic_fingerprint");
    n->ref = str(r, o, "ref");
    n->source = str(r, o, "source");
    n->mode = str(r, o, "mode");
    json_t *in = json_object_get(o, "inputs");
    size_t k = json_is_array(in) ? json_array_size(in) : 0;
    n->inputs = ARENA_ARRAY(r->a, MfNode *, k + 1);
    for (size_t i = 0; i < k; i++) {
        MfNode *c = node(r, json_array_get(in, i), depth + 1);
        if (c) n->inputs[n->ninputs++] = c;
    }
    return n;
}

static void state(Reader *r, json_t *o, MfState *s)
{
    s->id = str(r, o, "id");
    s->kind = str(r, o, "kind");
    s->bound = str(r, o, "bound");
    s->bound_detail = str(r, o, "bound_detail");
    s->schema_fp = str(r, o, "schema_fingerprint");
    s->logic_fp = str(r, o, "logic_fingerprint");
    s->key = cols(r, json_object_get(o, "key"), &s->nkey);
    s->values = cols(r, json_object_get(o, "values"), &s->nvalues);
    json_t *ttl = json_object_get(o, "ttl_seconds");
    s->ttl_s = json_is_integer(ttl) ? (int64_t)json_integer_value(ttl) : -1;
    if (!s->id || !s->schema_fp || !s->logic_fp) bad(r, "a state descriptor lacks %s", "its id or fingerprints");
}

bool manifest_parse(const char *text, size_t len, const char *what, Manifest *out, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->arena, 16384);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errsize, "%s:%d:%d: not valid JSON: %s", what, je.line, je.column, je.text);
        return false;
    }
    Reader r = {&out->arena, what, err, errsize, false};
    json_t *ver = json_object_get(root, "manifest_version");
    if (!json_is_object(root) || !json_is_integer(ver) || json_integer_value(ver) != 1) {
        bad(&r, "%s", "not a manifest of version 1 (manifest_version)");
        json_decref(root);
        return false;
    }
    json_t *proj = json_object_get(root, "project");
    out->project = str(&r, proj, "name");
    out->target = str(&r, proj, "target");
    out->runtime = str(&r, proj, "runtime");
    json_t *srcs = json_object_get(root, "sources");
    size_t ns = json_is_array(srcs) ? json_array_size(srcs) : 0;
    out->sources = ARENA_ARRAY(&out->arena, MfSource, ns + 1);
    for (size_t i = 0; i < ns; i++) {
        json_t *o = json_array_get(srcs, i);
        MfSource *s = &out->sources[out->nsources++];
        s->name = str(&r, o, "name");
        s->connector = str(&r, o, "connector");
        s->format = str(&r, o, "format");
        s->where = str(&r, o, "topic");
        if (!s->where) s->where = str(&r, o, "path");
        if (!s->where) s->where = str(&r, o, "table");
        s->event_time = str(&r, o, "event_time");
        s->cols = cols(&r, json_object_get(o, "columns"), &s->ncols);
        s->pk = strs(&r, json_object_get(o, "primary_key"), &s->npk);
        json_t *d = json_object_get(o, "watermark_delay_ms");
        s->watermark_delay_ms = json_is_integer(d) ? (int64_t)json_integer_value(d) : 0;
        if (!s->name) bad(&r, "a source lacks %s", "its name");
    }
    json_t *models = json_object_get(root, "models");
    size_t nm = json_is_array(models) ? json_array_size(models) : 0;
    out->models = ARENA_ARRAY(&out->arena, MfModel, nm + 1);
    for (size_t i = 0; i < nm; i++) {
        json_t *o = json_array_get(models, i);
        MfModel *m = &out->models[out->nmodels++];
        m->name = str(&r, o, "name");
        m->fingerprint = str(&r, o, "fingerprint");
        m->output_fp = str(&r, o, "output_fingerprint");
        m->materialized = str(&r, o, "materialized");
        m->output_mode = str(&r, o, "output_mode");
        m->key = strs(&r, json_object_get(o, "key"), &m->nkey);
        m->cols = cols(&r, json_object_get(o, "columns"), &m->ncols);
        json_t *dep = json_object_get(o, "depends_on");
        m->dep_sources = strs(&r, json_object_get(dep, "sources"), &m->ndep_sources);
        m->dep_models = strs(&r, json_object_get(dep, "models"), &m->ndep_models);
        m->plan = node(&r, json_object_get(o, "plan"), 0);
        json_t *ttl = json_object_get(o, "state_ttl_seconds");
        m->ttl_s = json_is_integer(ttl) ? (int64_t)json_integer_value(ttl) : 0;
        json_t *sk = json_object_get(o, "sink");
        if (json_is_object(sk)) {
            m->sink.connector = str(&r, sk, "connector");
            m->sink.format = str(&r, sk, "format");
            const char *path = str(&r, sk, "path"), *table = str(&r, sk, "table"), *topic = str(&r, sk, "topic");
            if (table && path) m->sink.where = arena_printf(r.a, "%s:%s", path, table);
            else m->sink.where = table ? table : topic ? topic : path;
        }
        if (!m->name) bad(&r, "a model lacks %s", "its name");
    }
    json_t *states = json_object_get(root, "state");
    size_t nst = json_is_array(states) ? json_array_size(states) : 0;
    out->states = ARENA_ARRAY(&out->arena, MfState, nst + 1);
    for (size_t i = 0; i < nst; i++) state(&r, json_array_get(states, i), &out->states[out->nstates++]);
    json_t *files = json_object_get(json_object_get(root, "definition"), "files");
    size_t nf = json_is_array(files) ? json_array_size(files) : 0;
    out->files = ARENA_ARRAY(&out->arena, ProjectFile, nf + 1);
    for (size_t i = 0; i < nf; i++) {
        json_t *f = json_array_get(files, i), *t = json_object_get(f, "text");
        const char *path = str(&r, f, "path");
        if (!path || !json_is_string(t)) {
            bad(&r, "%s", "a definition file lacks its path or text");
            break;
        }
        size_t n = json_string_length(t);
        out->files[out->nfiles++] = (ProjectFile){path, arena_strndup(r.a, json_string_value(t), n), n};
    }
    json_decref(root);
    if (r.bad) manifest_free(out);
    return !r.bad;
}

bool manifest_of_graph(const IrGraph *g, Manifest *out, char *err, size_t errsize)
{
    StrBuf sb = STRBUF_INIT;
    manifest_render(g, &sb);
    bool ok = manifest_parse(sb.data, sb.len, "the project's manifest", out, err, errsize);
    sb_free(&sb);
    return ok;
}

void manifest_free(Manifest *m)
{
    arena_fini(&m->arena);
    memset(m, 0, sizeof *m);
}

const MfModel *mf_find_model(const Manifest *m, const char *name)
{
    for (int i = 0; i < m->nmodels; i++)
        if (m->models[i].name && strcmp(m->models[i].name, name) == 0) return &m->models[i];
    return NULL;
}

const MfSource *mf_find_source(const Manifest *m, const char *name)
{
    for (int i = 0; i < m->nsources; i++)
        if (m->sources[i].name && strcmp(m->sources[i].name, name) == 0) return &m->sources[i];
    return NULL;
}

const MfState *mf_find_state(const Manifest *m, const char *id)
{
    for (int i = 0; i < m->nstates; i++)
        if (m->states[i].id && strcmp(m->states[i].id, id) == 0) return &m->states[i];
    return NULL;
}
