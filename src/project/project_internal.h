/* Internals of the project loader shared by its files (project.c, check.c,
 * interpolate.c, sources.c, models.c, tests_def.c) and by the fuzz target, which
 * drives the per-file parsers on in-memory text without touching the filesystem.
 * Not for use outside src/project/ and tests/. */
#ifndef WEIR_PROJECT_INTERNAL_H
#define WEIR_PROJECT_INTERNAL_H

#include "base/strmap.h"
#include "project/project.h"

#include <stddef.h>

/* A models/.../NAME.yml entry, kept until every .sql file is known (a config may come
 * before the SQL file it configures), then copied into its ModelDef. */
typedef struct ModelConfig {
    const char *name;
    SrcPos pos;                  /* the name key */
    Materialization materialized;
    bool materialized_set;
    SrcPos materialized_pos;
    const char **key;
    int nkey;
    SrcPos key_pos;
    int64_t state_ttl_us;
    SrcPos state_ttl_pos;
    SinkDef *sink;
    YNode *clickhouse;
    YNode *audits;
    const char *description;
    const char **tags;
    int ntags;
    ModelColumnDoc *column_docs;
    int ncolumn_docs;
} ModelConfig;

/* Loader state while a project is being built. All memory is in p->arena. */
typedef struct ProjectLoader {
    Project *p;
    DiagList *dl;
    bool check_files;            /* stat file-source paths (the fuzz target turns it off) */
    int cap_sources, cap_models, cap_tests, cap_targets, cap_vars;
    ModelConfig *configs;
    int nconfigs, cap_configs;
    /* name -> index of p->sources, p->models (until they are sorted) and configs, so
     * loading stays linear in the size of the project; freed by project_loader_finish */
    StrMap source_index, model_index, config_index;
    const char *override_file;   /* ProjectOptions.override_file */
} ProjectLoader;

/* Grow an arena array (the old copy stays in the arena until project_free). */
#define PROJECT_GROW(L, arr, n, cap)                                                   \
    do {                                                                               \
        if ((n) >= (cap)) {                                                            \
            int nc_ = (cap) ? (cap) * 2 : 8;                                           \
            void *na_ = arena_alloc(&(L)->p->arena, sizeof(*(arr)) * (size_t)nc_);     \
            if ((n) > 0) memcpy(na_, (arr), sizeof(*(arr)) * (size_t)(n));             \
            (arr) = na_;                                                               \
            (cap) = nc_;                                                               \
        }                                                                              \
    } while (0)

/* --- lifecycle (project.c) --- */

/* A new empty project for directory dir (copied); free with project_free. */
Project *project_new(const char *dir);
void project_loader_init(ProjectLoader *L, Project *p, DiagList *dl);
/* Parse weir.yml text: vars (then the --vars override, which may be NULL), name,
 * default_target, targets; selects `target` (NULL = default). The text is
 * registered with dl. Returns false when the file is not a usable mapping. */
bool project_load_weir_text(ProjectLoader *L, const char *file, const char *text, size_t len,
                            const char *target, const char *vars_json);
/* After every file: sort sources and models, attach model configs, check tests'
 * models and interpolate model SQL; releases the loader's own memory. */
void project_loader_finish(ProjectLoader *L);

/* Steps of project_loader_finish, one per file kind. */
void project_finish_sources(ProjectLoader *L);
void project_finish_models(ProjectLoader *L);
void project_finish_tests(ProjectLoader *L);
/* Collisions of file and SQLite sinks, shared state directories (outputs.c). */
void project_check_outputs(ProjectLoader *L);

/* --- per file kind; `file` is the project-relative name used in positions --- */

void project_load_sources_text(ProjectLoader *L, const char *file, const char *text, size_t len);
void project_load_model_sql(ProjectLoader *L, const char *file, const char *text, size_t len);
void project_load_models_config_text(ProjectLoader *L, const char *file, const char *text,
                                     size_t len);
void project_load_tests_text(ProjectLoader *L, const char *file, const char *text, size_t len);

/* --- validation helpers (check.c); each reports its own diagnostic --- */

/* Parse text with yaml_parse into the project arena after registering it with dl. */
YNode *project_parse_yaml(ProjectLoader *L, const char *file, const char *text, size_t len);
/* n must be a mapping; else "expected a mapping, found X for WHAT". */
bool project_expect_map(ProjectLoader *L, const YNode *n, const char *what);
/* n must be a non-null scalar; returns its text or NULL after a diagnostic. */
const char *project_expect_str(ProjectLoader *L, const YNode *n, const char *what);
/* Every key of map must be a scalar in known[] (error "unknown key" with a did-you-mean
 * hint, or the list of known keys). Returns false if any was bad. */
bool project_check_keys(ProjectLoader *L, const YNode *map, const char *const *known, int n,
                        const char *where);
/* Index of n's text in names[], or -1 after "unknown WHAT 'x'" with did-you-mean. */
int project_expect_enum(ProjectLoader *L, const YNode *n, const char *const *names, int count,
                        const char *what);
/* A list of strings or a single string. Returns false after a diagnostic. */
bool project_expect_str_list(ProjectLoader *L, const YNode *n, const char *what,
                             const char ***out, int *count);
/* A duration ("5s", "1 hour"). Returns false after a diagnostic. */
bool project_expect_duration(ProjectLoader *L, const YNode *n, const char *what, int64_t *us);
/* "a, b, c" in the list's arena, for hints. */
const char *project_join_names(ProjectLoader *L, const char *const *names, int count);

/* --- interpolation (interpolate.c) --- */

/* Replace ${var} in every scalar value of the tree (keys are left alone); `text` is
 * the file's text, used to point errors at the exact reference. ${ENV:..} stays. */
void project_interpolate_tree(ProjectLoader *L, YNode *root, const char *text, size_t len);
/* Fill m->sql and its offset map from m->raw_sql. */
void project_interpolate_sql(ProjectLoader *L, ModelDef *m);
/* Parse --vars (JSON or YAML flow mapping) and override or add vars. */
void project_apply_vars_json(ProjectLoader *L, const char *json);

/* The built-in variable holding the selected target's name. */
#define PROJECT_TARGET_VAR "target"
/* True (after an error at k) when a var would be named like the built-in ${target}. */
bool project_var_reserved(ProjectLoader *L, const YNode *k, const char *name);

/* --- lookups shared between files --- */

const VarDef *project_find_var(const Project *p, const char *name);

#endif
