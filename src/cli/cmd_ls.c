/* `weir ls`: the project's models, sources and tests, selected with --select/--exclude
 * (the grammar every command shares, ir/select.h) and --resource-type; one line each, or
 * --format json (docs/cli.md#weir-ls). */
#include "cli/cli.h"
#include "base/jsonw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RT_MODEL = 1, RT_SOURCE = 2, RT_TEST = 4 };

/* --resource-type: comma-separated kinds; 0 after an error message. */
static int parse_resource_types(const char *s)
{
    if (!s) return RT_MODEL | RT_SOURCE | RT_TEST;
    static const char *const names[] = {"model", "source", "test"};
    int mask = 0;
    char *buf = strdup(s);
    if (!buf) abort();
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(t, names[i]) == 0 || (strncmp(t, names[i], strlen(names[i])) == 0 && strcmp(t + strlen(names[i]), "s") == 0))
                k = i;
        if (k < 0) {
            const char *close = diag_closest(t, names, 3);
            if (close) cli_error("--resource-type: unknown type '%s'; did you mean '%s'?", t, close);
            else cli_error("--resource-type: unknown type '%s' (expected model, source or test)", t);
            free(buf);
            return 0;
        }
        mask |= 1 << k;
    }
    free(buf);
    if (!mask) cli_error("--resource-type: expected model, source or test");
    return mask;
}

/* The sink in one word: connector:path|table|topic, or "-". */
static void sink_text(const SinkDef *s, StrBuf *sb)
{
    if (!s) {
        sb_puts(sb, "-");
        return;
    }
    sb_puts(sb, sink_connector_name(s->connector));
    const char *where = s->path ? s->path : s->topic ? s->topic : s->table ? s->table : s->url;
    if (where) sb_printf(sb, ":%s", where);
}

static void model_json(JsonW *w, const CliProject *cp, int i)
{
    const ModelDef *m = &cp->project->models[i];
    const BoundModel *bm = &cp->bound->models[i];
    jw_obj(w);
    jw_kstr(w, "resource_type", "model");
    jw_kstr(w, "name", m->name);
    jw_kstr(w, "path", m->sql_file);
    jw_kstr(w, "materialized", materialization_name(m->materialized));
    jw_key(w, "key");
    jw_arr(w);
    for (int k = 0; k < m->nkey; k++) jw_str(w, m->key[k]);
    jw_end_arr(w);
    jw_key(w, "sink");
    if (m->sink) {
        jw_obj(w);
        jw_kstr(w, "connector", sink_connector_name(m->sink->connector));
        if (m->sink->path) jw_kstr(w, "path", m->sink->path);
        if (m->sink->table) jw_kstr(w, "table", m->sink->table);
        if (m->sink->topic) jw_kstr(w, "topic", m->sink->topic);
        if (m->sink->url) jw_kstr(w, "url", m->sink->url);
        jw_end_obj(w);
    } else {
        jw_null(w);
    }
    jw_key(w, "tags");
    jw_arr(w);
    for (int k = 0; k < m->ntags; k++) jw_str(w, m->tags[k]);
    jw_end_arr(w);
    jw_kstr(w, "description", m->description);
    jw_key(w, "depends_on");
    jw_obj(w);
    jw_key(w, "models");
    jw_arr(w);
    for (int k = 0; k < bm->ndep_models; k++) jw_str(w, bm->dep_models[k]);
    jw_end_arr(w);
    jw_key(w, "sources");
    jw_arr(w);
    for (int k = 0; k < bm->ndep_sources; k++) jw_str(w, bm->dep_sources[k]);
    jw_end_arr(w);
    jw_end_obj(w);
    jw_end_obj(w);
}

int cmd_ls(const CliOptions *o)
{
    int types = parse_resource_types(o->resource_type);
    if (!types) return EXIT_USAGE;
    if (o->format != OUT_TEXT && o->format != OUT_JSON) {
        cli_error("ls writes text or json");
        return EXIT_USAGE;
    }
    CliProject cp;
    if (!cli_load_project(o, &cp)) return EXIT_USAGE;
    Selection sel;
    if (!cli_selection(&cp, o, NULL, &sel)) {
        cli_project_free(&cp);
        return EXIT_USAGE;
    }
    if (cli_stop_on_errors(&cp, o, "weir ls: the project has errors (see above); fix them first")) {
        selection_free(&sel);
        return EXIT_FAILURES;
    }
    const Project *p = cp.project;
    StrBuf sb = STRBUF_INIT;
    JsonW w;
    jw_init(&w, &sb, true);
    bool json = o->format == OUT_JSON;
    if (json) {
        jw_obj(&w);
        jw_kint(&w, "version", 1);
        jw_key(&w, "nodes");
        jw_arr(&w);
    }
    int listed = 0;
    if (types & RT_MODEL)
        for (int i = 0; i < p->nmodels; i++) {
            if (!sel.models[i]) continue;
            listed++;
            const ModelDef *m = &p->models[i];
            if (json) {
                model_json(&w, &cp, i);
                continue;
            }
            sb_printf(&sb, "model   %-30s %-9s key=", m->name, materialization_name(m->materialized));
            if (!m->nkey) sb_puts(&sb, "-");
            for (int k = 0; k < m->nkey; k++) sb_printf(&sb, "%s%s", k ? "," : "", m->key[k]);
            sb_puts(&sb, "  sink=");
            sink_text(m->sink, &sb);
            sb_puts(&sb, "  tags=");
            if (!m->ntags) sb_puts(&sb, "-");
            for (int k = 0; k < m->ntags; k++) sb_printf(&sb, "%s%s", k ? "," : "", m->tags[k]);
            sb_putc(&sb, '\n');
        }
    if (types & RT_SOURCE)
        for (int i = 0; i < p->nsources; i++) {
            if (!sel.sources[i]) continue;
            listed++;
            const SourceDef *s = &p->sources[i];
            static const char *const connectors[] = {"file", "kafka", "stdin", "clickhouse"};
            const char *conn = connectors[s->connector];
            if (json) {
                jw_obj(&w);
                jw_kstr(&w, "resource_type", "source");
                jw_kstr(&w, "name", s->name);
                jw_kstr(&w, "path", s->pos.file);
                jw_kstr(&w, "connector", conn);
                jw_kstr(&w, "format", data_format_name(s->format));
                jw_end_obj(&w);
                continue;
            }
            sb_printf(&sb, "source  %-30s %-9s format=%s\n", s->name, conn, data_format_name(s->format));
        }
    if (types & RT_TEST)
        for (int i = 0; i < p->ntests; i++) {
            if (!sel.tests[i]) continue;
            listed++;
            const TestCase *t = &p->tests[i];
            if (json) {
                jw_obj(&w);
                jw_kstr(&w, "resource_type", "test");
                jw_kstr(&w, "name", t->name);
                jw_kstr(&w, "path", t->file);
                jw_kint(&w, "line", t->pos.line);
                jw_kstr(&w, "model", t->model);
                jw_end_obj(&w);
                continue;
            }
            sb_printf(&sb, "test    %-30s model=%s\n", t->name ? t->name : "(unnamed)", t->model ? t->model : "?");
        }
    if (json) {
        jw_end_arr(&w);
        jw_end_obj(&w);
    }
    if (!listed && cli_selecting(o, NULL)) fprintf(stderr, "weir ls: the selection matches nothing\n");
    cli_write_stdout(sb.data, sb.len);
    sb_free(&sb);
    selection_free(&sel);
    cli_project_free(&cp);
    return EXIT_OK;
}
