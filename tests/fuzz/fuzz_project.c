/* Fuzz target for the YAML adapter and the project loader: the input is parsed as
 * raw YAML, as weir.yml, as --vars, as a sources file, a models config file, a tests
 * file and a model's SQL (in memory, without the filesystem), and as a duration.
 * Every diagnostic is rendered, and every SQL offset is mapped back, so the
 * position arithmetic is exercised too. */
#include "base/yaml.h"
#include "project/project_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void render(DiagList *dl)
{
    StrBuf sb = STRBUF_INIT;
    diag_sort(dl);
    diag_render_text(dl, &sb, false);
    diag_render_json(dl, &sb);
    sb_free(&sb);
}

static void check_models(const Project *p)
{
    for (int i = 0; i < p->nmodels; i++) {
        const ModelDef *m = &p->models[i];
        if (!m->sql) continue; /* not parsed: an empty model or SQL a var could not be put into */
        int n = (int)strlen(m->sql);
        int step = n / 64 + 1; /* each lookup scans the file: keep the total linear */
        for (int off = -1; off <= n + 1; off += step) {
            SrcPos pos = project_sql_pos(m, off);
            if (pos.line < 1 || pos.col < 1) abort();
        }
    }
}

/* weir.yml is `weir` (NULL: a fixed valid one); the input goes into `kind`. */
static void run_project(const char *weir, const char *vars, const char *text, size_t size, int kind)
{
    static const char fixed_weir[] =
        "name: fuzz\nvars: {a: 1, region: eu}\ntargets: {dev: {}, prod: {runtime: native}}\n";
    static const char fixed_sql[] = "SELECT ${a} FROM source('s')\n";
    DiagList dl;
    diag_init(&dl);
    Project *p = project_new("/nonexistent/weir-fuzz");
    ProjectLoader L;
    project_loader_init(&L, p, &dl);
    L.check_files = false;
    if (weir) project_load_weir_text(&L, "weir.yml", weir, strlen(weir), NULL, vars);
    else project_load_weir_text(&L, "weir.yml", fixed_weir, sizeof fixed_weir - 1, "prod", vars);
    project_load_model_sql(&L, "models/m.sql", fixed_sql, sizeof fixed_sql - 1);
    switch (kind) {
    case 0: project_load_sources_text(&L, "sources/fuzz.yml", text, size); break;
    case 1: project_load_models_config_text(&L, "models/fuzz.yml", text, size); break;
    case 2: project_load_tests_text(&L, "tests/fuzz.yml", text, size); break;
    case 3: project_load_model_sql(&L, "models/sub/fuzz.sql", text, size); break;
    default: break;
    }
    project_loader_finish(&L);
    check_models(p);
    for (int i = 0; i < p->ntargets; i++) {
        char err[128];
        if (p->targets[i].kafka_bootstrap)
            project_resolve_env(p, p->targets[i].kafka_bootstrap, err, sizeof err);
    }
    render(&dl);
    project_free(p);
    diag_fini(&dl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (size) memcpy(text, data, size);
    text[size] = '\0';

    /* the adapter alone */
    {
        Arena a;
        DiagList dl;
        arena_init(&a, 4096);
        diag_init(&dl);
        diag_add_source(&dl, "in.yml", text);
        YNode *root = yaml_parse(&a, "in.yml", text, size, &dl);
        if (root) {
            yaml_kind_name(root);
            yaml_get(root, "sources");
            yaml_is_null(root);
        }
        render(&dl);
        diag_fini(&dl);
        arena_fini(&a);
    }

    run_project(text, NULL, NULL, 0, -1);   /* as weir.yml */
    run_project(NULL, text, NULL, 0, -1);   /* as --vars */
    for (int kind = 0; kind < 4; kind++) run_project(NULL, NULL, text, size, kind);

    int64_t us;
    project_parse_duration(text, &us);
    free(text);
    return 0;
}
