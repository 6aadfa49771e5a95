/* Compile artifacts (see manifest.h). */
#include "lifecycle/manifest.h"
#include "base/fsutil.h"
#include "base/jsonw.h"
#include "ir/explain.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WEIR_VERSION "0.1.0"

static const char *connector_name(SourceConnector c)
{
    switch (c) {
    case SRC_FILE: return "file";
    case SRC_KAFKA: return "kafka";
    case SRC_STDIN: return "stdin";
    case SRC_CLICKHOUSE: return "clickhouse";
    }
    return "?";
}

static void source_json(JsonW *w, const SourceDef *s)
{
    char buf[64];
    jw_obj(w);
    jw_kstr(w, "name", s->name);
    jw_kstr(w, "connector", connector_name(s->connector));
    if (s->path) jw_kstr(w, "path", s->path);
    if (s->topic) jw_kstr(w, "topic", s->topic);
    if (s->table) jw_kstr(w, "table", s->table);
    jw_kstr(w, "format", data_format_name(s->format));
    jw_key(w, "columns");
    jw_arr(w);
    for (int i = 0; i < s->ncolumns; i++) {
        jw_obj(w);
        jw_kstr(w, "name", s->columns[i].name);
        jw_kstr(w, "type", type_name(s->columns[i].type, buf, sizeof buf));
        if (s->columns[i].encoding != COL_ENC_TEXT) jw_kstr(w, "encoding", column_encoding_name(s->columns[i].encoding));
        jw_end_obj(w);
    }
    jw_end_arr(w);
    jw_kstr(w, "event_time", s->event_time_col >= 0 ? s->columns[s->event_time_col].name : NULL);
    jw_kint(w, "watermark_delay_ms", s->watermark_delay_us / 1000);
    jw_key(w, "primary_key");
    jw_arr(w);
    for (int i = 0; i < s->npk; i++) jw_str(w, s->columns[s->pk_cols[i]].name);
    jw_end_arr(w);
    jw_end_obj(w);
}

/* weir.yml as the snapshot keeps it: the name, the selected target (name and runtime
 * only: connection settings may hold secrets and are taken from the project at hand)
 * and the effective vars. */
static void snapshot_weir_yml(const Project *p, StrBuf *b)
{
    StrBuf q = STRBUF_INIT;
    JsonW w;
    jw_init(&w, &q, false);
    jw_str(&w, p->name ? p->name : "project");
    sb_printf(b, "name: %s\n", sb_cstr(&q));
    if (p->target) {
        sb_clear(&q);
        jw_init(&w, &q, false);
        jw_str(&w, p->target->name);
        sb_printf(b, "default_target: %s\ntargets:\n  %s: {runtime: %s}\n", sb_cstr(&q), sb_cstr(&q),
                  p->target->runtime ? p->target->runtime : "native");
    }
    if (p->nvars) sb_puts(b, "vars:\n");
    for (int i = 0; i < p->nvars; i++) {
        sb_clear(&q);
        jw_init(&w, &q, false);
        jw_str(&w, p->vars[i].name);
        sb_printf(b, "  %s: ", sb_cstr(&q));
        if (p->vars[i].is_string) {
            sb_clear(&q);
            jw_init(&w, &q, false);
            jw_str(&w, p->vars[i].text);
            sb_puts(b, sb_cstr(&q));
        } else {
            sb_puts(b, p->vars[i].text);
        }
        sb_putc(b, '\n');
    }
    sb_free(&q);
}

static void definition_json(JsonW *w, const Project *p)
{
    jw_obj(w);
    jw_key(w, "files");
    jw_arr(w);
    StrBuf weir = STRBUF_INIT;
    snapshot_weir_yml(p, &weir);
    jw_obj(w);
    jw_kstr(w, "path", "weir.yml");
    jw_kstr(w, "text", sb_cstr(&weir));
    jw_end_obj(w);
    sb_free(&weir);
    for (int i = 0; i < p->nfiles; i++) {
        if (strcmp(p->files[i].path, "weir.yml") == 0) continue;
        jw_obj(w);
        jw_kstr(w, "path", p->files[i].path);
        jw_key(w, "text");
        jw_strn(w, p->files[i].text, p->files[i].len);
        jw_end_obj(w);
    }
    jw_end_arr(w);
    jw_end_obj(w);
}

/* What the model configs document: {"models": {NAME: {"description", "tags",
 * "columns": {COLUMN: description}}}}, models by name, columns as written. */
static void docs_json(JsonW *w, const Project *p)
{
    jw_obj(w);
    jw_key(w, "models");
    jw_obj(w);
    for (int i = 0; i < p->nmodels; i++) {
        const ModelDef *m = &p->models[i];
        jw_key(w, m->name);
        jw_obj(w);
        jw_kstr(w, "description", m->description);
        jw_key(w, "tags");
        jw_arr(w);
        for (int k = 0; k < m->ntags; k++) jw_str(w, m->tags[k]);
        jw_end_arr(w);
        jw_key(w, "columns");
        jw_obj(w);
        for (int k = 0; k < m->ncolumn_docs; k++) jw_kstr(w, m->column_docs[k].name, m->column_docs[k].description);
        jw_end_obj(w);
        jw_end_obj(w);
    }
    jw_end_obj(w);
    jw_end_obj(w);
}

void manifest_render(const IrGraph *g, StrBuf *out)
{
    const Project *p = g->project;
    JsonW w;
    jw_init(&w, out, true);
    jw_obj(&w);
    jw_kint(&w, "manifest_version", 1);
    jw_kstr(&w, "weir_version", WEIR_VERSION);
    jw_key(&w, "project");
    jw_obj(&w);
    jw_kstr(&w, "name", p->name);
    jw_kstr(&w, "target", p->target ? p->target->name : NULL);
    jw_kstr(&w, "runtime", p->target && p->target->runtime ? p->target->runtime : "native");
    jw_end_obj(&w);
    jw_key(&w, "sources");
    jw_arr(&w);
    for (int i = 0; i < p->nsources; i++) source_json(&w, &p->sources[i]);
    jw_end_arr(&w);
    jw_key(&w, "models");
    jw_arr(&w);
    for (int i = 0; i < g->nmodels; i++) ir_model_json(&w, g, i);
    jw_end_arr(&w);
    jw_key(&w, "state");
    jw_arr(&w);
    for (int i = 0; i < g->nnodes; i++)
        for (int s = 0; s < g->nodes[i]->nstate; s++) {
            const StateDesc *sd = &g->nodes[i]->state[s];
            bool dup = false; /* a shared source's normalize state appears once */
            for (int j = 0; j < i && !dup; j++)
                for (int t = 0; t < g->nodes[j]->nstate; t++)
                    if (strcmp(g->nodes[j]->state[t].id, sd->id) == 0) dup = true;
            if (!dup) ir_state_json(&w, sd);
        }
    jw_end_arr(&w);
    jw_key(&w, "tests");
    jw_arr(&w);
    for (int i = 0; i < p->ntests; i++) {
        jw_obj(&w);
        jw_kstr(&w, "name", p->tests[i].name);
        jw_kstr(&w, "model", p->tests[i].model);
        jw_kstr(&w, "file", p->tests[i].file);
        jw_end_obj(&w);
    }
    jw_end_arr(&w);
    jw_key(&w, "docs");
    docs_json(&w, p);
    jw_key(&w, "definition");
    definition_json(&w, p);
    jw_end_obj(&w);
}

void manifest_render_dag(const IrGraph *g, StrBuf *out)
{
    const Project *p = g->project;
    JsonW w;
    jw_init(&w, out, true);
    jw_obj(&w);
    jw_key(&w, "nodes");
    jw_arr(&w);
    for (int i = 0; i < p->nsources; i++) {
        jw_obj(&w);
        jw_kstr(&w, "id", arena_printf((Arena *)&p->arena, "source:%s", p->sources[i].name));
        jw_kstr(&w, "kind", "source");
        jw_end_obj(&w);
    }
    for (int i = 0; i < g->nmodels; i++) {
        jw_obj(&w);
        jw_kstr(&w, "id", arena_printf((Arena *)&p->arena, "model:%s", p->models[i].name));
        jw_kstr(&w, "kind", "model");
        jw_kstr(&w, "materialized", materialization_name(p->models[i].materialized));
        jw_end_obj(&w);
    }
    jw_end_arr(&w);
    jw_key(&w, "edges");
    jw_arr(&w);
    for (int i = 0; i < g->nmodels; i++) {
        const BoundModel *bm = g->models[i].bound;
        for (int k = 0; k < bm->ndep_sources; k++) {
            jw_obj(&w);
            jw_kstr(&w, "from", arena_printf((Arena *)&p->arena, "source:%s", bm->dep_sources[k]));
            jw_kstr(&w, "to", arena_printf((Arena *)&p->arena, "model:%s", p->models[i].name));
            jw_end_obj(&w);
        }
        for (int k = 0; k < bm->ndep_models; k++) {
            jw_obj(&w);
            jw_kstr(&w, "from", arena_printf((Arena *)&p->arena, "model:%s", bm->dep_models[k]));
            jw_kstr(&w, "to", arena_printf((Arena *)&p->arena, "model:%s", p->models[i].name));
            jw_end_obj(&w);
        }
    }
    jw_end_arr(&w);
    jw_end_obj(&w);
}

static bool mkdir_p(const char *path, char *err, size_t errsize)
{
    if (fs_mkdirs(path)) return true;
    snprintf(err, errsize, "cannot create directory %s: %s", path, strerror(errno));
    return false;
}

static bool write_atomic(const char *path, const StrBuf *content, char *err, size_t errsize)
{
    return fs_write_atomic(path, content->data, content->len, err, errsize);
}

bool manifest_write_all(const IrGraph *g, const char *project_dir, const bool *models, char *err, size_t errsize)
{
    char dir[4096], path[4300];
    snprintf(dir, sizeof dir, "%s/target", project_dir);
    if (!mkdir_p(dir, err, errsize)) return false;
    StrBuf sb = STRBUF_INIT;
    bool ok = true;
    manifest_render(g, &sb);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    ok = ok && write_atomic(path, &sb, err, errsize);
    sb_clear(&sb);
    manifest_render_dag(g, &sb);
    snprintf(path, sizeof path, "%s/dag.json", dir);
    ok = ok && write_atomic(path, &sb, err, errsize);
    snprintf(path, sizeof path, "%s/target/ir", project_dir);
    ok = ok && mkdir_p(path, err, errsize);
    snprintf(path, sizeof path, "%s/target/sql", project_dir);
    ok = ok && mkdir_p(path, err, errsize);
    for (int i = 0; ok && i < g->nmodels; i++) {
        if (models && !models[i]) continue;
        sb_clear(&sb);
        JsonW w;
        jw_init(&w, &sb, true);
        ir_model_json(&w, g, i);
        snprintf(path, sizeof path, "%s/target/ir/%s.json", project_dir, g->models[i].def->name);
        ok = write_atomic(path, &sb, err, errsize);
        if (!ok) break;
        sb_clear(&sb);
        sb_puts(&sb, g->models[i].def->sql ? g->models[i].def->sql : "");
        if (sb.len && sb.data[sb.len - 1] != '\n') sb_putc(&sb, '\n');
        snprintf(path, sizeof path, "%s/target/sql/%s.sql", project_dir, g->models[i].def->name);
        ok = write_atomic(path, &sb, err, errsize);
    }
    sb_free(&sb);
    return ok;
}
