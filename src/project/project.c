/* Project loading: finds and reads the project's files (weir.yml, sources/NAME.yml,
 * models/.../NAME.sql|yml, tests/NAME.yml), parses weir.yml (name, default_target, targets,
 * vars, --vars, --target), and provides the lookups of project.h.
 *
 * Diagnostic codes emitted by the loader (stable; documented for --format json):
 *   yaml-syntax            invalid YAML (libyaml's problem text)       [base/yaml.c]
 *   yaml-alias             YAML aliases are not supported              [base/yaml.c]
 *   yaml-multiple-documents  more than one document in a file          [base/yaml.c]
 *   yaml-too-deep          nesting beyond 200 levels                   [base/yaml.c]
 *   duplicate-key          the same key twice in one mapping           [base/yaml.c]
 *   no-project             no weir.yml in the project directory
 *   io-error               a file or directory that cannot be read
 *   bad-type               wrong YAML kind ("expected a string, found a list")
 *   unknown-key            a key the format does not have (did-you-mean hint)
 *   key-not-applicable     a known key that does not apply to this connector/runtime/format
 *   missing-key            a required key is absent (name, connector, path, topic, model ...)
 *   unknown-value          a value outside an enum (connector, format, on_error,
 *                          materialized, runtime, op, method)
 *   bad-value              a malformed value (empty list, bad delimiter, bad batch size)
 *   bad-name               a name that cannot be used (empty, not an identifier)
 *   unknown-type           a column type type_parse does not know
 *   unknown-column         event_time / primary_key naming no column of the source
 *   bad-event-time         event_time column that is not timestamp/timestamptz
 *   missing-primary-key    updating format (debezium-json, changelog-json) without primary_key
 *   file-not-found         a file source's path does not exist
 *   bad-duration           watermark_delay / state_ttl that is not a duration
 *   unknown-var            ${name} naming no var (did-you-mean hint)
 *   bad-interpolation      unterminated or empty ${...}
 *   env-in-sql             ${ENV:..} in model SQL
 *   bad-vars               --vars that is not an object of scalars; a var that is not a scalar
 *   unknown-target         --target or default_target naming no target
 *   duplicate-source       a source defined in two files
 *   duplicate-model        two .sql files with the same stem
 *   duplicate-config       a model configured in two .yml files
 *   duplicate-test         two tests with the same name
 *   unknown-model          a config or a test naming no model
 *   empty-model            a .sql file with no SQL in it
 *   missing-expect         a test with neither expect nor expect_final
 *   unexpected-op          `op` in an expect_final row
 *   sink-collision         two sinks on one file or SQLite table, a sink on a source's file,
 *                          a sink every native target writes        [outputs.c]
 *   state-dir-collision    two native targets with one state_dir      [outputs.c]
 *   unused-key  (warning)  a key that has no effect (watermark_delay without event_time)
 *   sink-outside-project (warning)  a relative sink path leaving the project [outputs.c]
 */
#include "project/project_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- names ---- */

static const char *const column_encoding_names[COL_ENC__COUNT] = {
    "text", "epoch_s", "epoch_ms", "epoch_us", "epoch_ns", "epoch_days", "time_ms", "time_us", "time_ns",
};

const char *column_encoding_name(ColumnEncoding e)
{
    return (unsigned)e < COL_ENC__COUNT ? column_encoding_names[e] : "?";
}

bool column_encoding_parse(const char *name, ColumnEncoding *out)
{
    for (int i = 0; i < COL_ENC__COUNT; i++)
        if (strcmp(name, column_encoding_names[i]) == 0) {
            *out = (ColumnEncoding)i;
            return true;
        }
    return false;
}

bool column_encoding_fits(ColumnEncoding e, Type t)
{
    switch (e) {
    case COL_ENC_TEXT: return true;
    case COL_ENC_EPOCH_S: case COL_ENC_EPOCH_MS: case COL_ENC_EPOCH_US: case COL_ENC_EPOCH_NS:
        return t.id == T_TIMESTAMP || t.id == T_TIMESTAMPTZ;
    case COL_ENC_EPOCH_DAYS: return t.id == T_DATE || t.id == T_TIMESTAMP || t.id == T_TIMESTAMPTZ;
    case COL_ENC_TIME_MS: case COL_ENC_TIME_US: case COL_ENC_TIME_NS: return t.id == T_INTERVAL;
    default: return false;
    }
}

const char *data_format_name(DataFormat f)
{
    switch (f) {
    case FMT_JSON: return "json";
    case FMT_CSV: return "csv";
    case FMT_DEBEZIUM_JSON: return "debezium-json";
    case FMT_CHANGELOG_JSON: return "changelog-json";
    case FMT_UPSERT: return "upsert";
    }
    return "?";
}

const char *sink_connector_name(SinkConnector c)
{
    static const char *const names[] = {"none", "file", "stdout", "sqlite", "postgres",
                                        "kafka", "clickhouse", "webhook"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

const char *materialization_name(Materialization m)
{
    static const char *const names[] = {"view", "ephemeral", "append", "upsert", "retract", "table"};
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "?";
}

bool data_format_is_updating(DataFormat f)
{
    return f == FMT_DEBEZIUM_JSON || f == FMT_CHANGELOG_JSON || f == FMT_UPSERT;
}

/* ---- lifecycle ---- */

Project *project_new(const char *dir)
{
    Project *p = xcalloc(1, sizeof *p);
    arena_init(&p->arena, 64 * 1024);
    p->dir = arena_strdup(&p->arena, dir && *dir ? dir : ".");
    return p;
}

void project_loader_init(ProjectLoader *L, Project *p, DiagList *dl)
{
    memset(L, 0, sizeof *L);
    L->p = p;
    L->dl = dl;
    L->check_files = true;
}

/* Contract: releases the project and everything it owns (all in its arena). NULL is ok. */
void project_free(Project *p)
{
    if (!p) return;
    arena_fini(&p->arena);
    free(p);
}

/* ---- weir.yml ---- */

static const char *const weir_keys[] = {"name", "default_target", "targets", "vars", "description"};
static const char *const runtimes[] = {"native", "clickhouse", "flink"};
/* target keys: common ones first, then per runtime (extend here as backends grow) */
static const char *const target_keys[] = {"runtime", "state_dir", "kafka", "description",
                                          "url", "database", "user", "password", "native_fallback",
                                          "gateway_url"};
enum { TARGET_COMMON_KEYS = 4 };
static const char *const target_runtime_of[] = {NULL, NULL, NULL, NULL, "clickhouse", "clickhouse",
                                                "clickhouse", "clickhouse", "clickhouse", "flink"};
static const char *const kafka_keys[] = {"bootstrap_servers", "properties", "unreachable_timeout"};

static bool is_identifier(const char *s)
{
    if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return false;
    for (s++; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

static void load_vars(ProjectLoader *L, YNode *vars)
{
    Project *p = L->p;
    if (!vars || yaml_is_null(vars)) return;
    if (!project_expect_map(L, vars, "`vars`")) return;
    for (int i = 0; i < vars->npairs; i++) {
        YNode *k = vars->pairs[i].key, *v = vars->pairs[i].value;
        const char *name = project_expect_str(L, k, "a var name");
        if (!name) continue;
        if (!is_identifier(name)) {
            diag_error(L->dl, k->pos, "bad-name", "use letters, digits and _ (not starting with a digit)",
                       "var name '%s' cannot be used in ${...}", name);
            continue;
        }
        if (project_var_reserved(L, k, name)) continue;
        if (v->kind != YNODE_SCALAR) {
            diag_error(L->dl, v->pos, "bad-vars", "vars are scalars: numbers, strings, booleans",
                       "var '%s' must be a scalar, found %s", name, yaml_kind_name(v));
            continue;
        }
        PROJECT_GROW(L, p->vars, p->nvars, L->cap_vars);
        VarDef *d = &p->vars[p->nvars++];
        d->name = name;
        d->text = v->str;
        d->is_string = v->quoted;
        d->declared = true;
    }
}

static void load_target(ProjectLoader *L, YNode *k, YNode *v)
{
    Project *p = L->p;
    const char *name = project_expect_str(L, k, "a target name");
    if (!name) return;
    PROJECT_GROW(L, p->targets, p->ntargets, L->cap_targets);
    TargetDef *t = &p->targets[p->ntargets++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->pos = k->pos;
    t->node = v;
    t->runtime = "native";
    t->state_dir = arena_printf(&p->arena, ".weir/%s", name);
    t->kafka_unreachable_us = PROJECT_KAFKA_UNREACHABLE_US;
    if (yaml_is_null(v)) return;
    const char *where = arena_printf(&p->arena, "target '%s'", name);
    if (!project_expect_map(L, v, where)) return;
    project_check_keys(L, v, target_keys, (int)(sizeof target_keys / sizeof target_keys[0]), where);
    YNode *n;
    if ((n = yaml_get(v, "runtime"))) {
        int r = project_expect_enum(L, n, runtimes, 3, "runtime");
        if (r >= 0) t->runtime = runtimes[r];
    }
    for (int i = 0; i < v->npairs; i++) {
        const YNode *key = v->pairs[i].key;
        for (size_t j = TARGET_COMMON_KEYS; j < sizeof target_keys / sizeof target_keys[0]; j++)
            if (key->kind == YNODE_SCALAR && strcmp(key->str, target_keys[j]) == 0 &&
                strcmp(target_runtime_of[j], t->runtime) != 0)
                diag_error(L->dl, key->pos, "key-not-applicable", NULL,
                           "key '%s' applies to %s targets, not to a %s target", key->str,
                           target_runtime_of[j], t->runtime);
    }
    if ((n = yaml_get(v, "state_dir"))) {
        const char *s = project_expect_str(L, n, "`state_dir`");
        if (s) t->state_dir = s;
    }
    if ((n = yaml_get(v, "kafka")) && project_expect_map(L, n, "`kafka`")) {
        project_check_keys(L, n, kafka_keys, 3, "`kafka`");
        YNode *b = yaml_get(n, "bootstrap_servers");
        if (b) t->kafka_bootstrap = project_expect_str(L, b, "`bootstrap_servers`");
        YNode *u = yaml_get(n, "unreachable_timeout");
        if (u && project_expect_duration(L, u, "`unreachable_timeout`", &t->kafka_unreachable_us) &&
            t->kafka_unreachable_us <= 0)
            diag_error(L->dl, u->pos, "bad-duration", NULL, "`unreachable_timeout` must be positive");
        YNode *props = yaml_get(n, "properties");
        if (props && project_expect_map(L, props, "kafka `properties`")) {
            t->kafka_properties = props;
            for (int i = 0; i < props->npairs; i++)
                project_expect_str(L, props->pairs[i].value, "a kafka property");
        }
    }
    static const char *const str_keys[] = {"url", "database", "user", "password", "gateway_url",
                                           "description"};
    for (size_t i = 0; i < sizeof str_keys / sizeof str_keys[0]; i++)
        if ((n = yaml_get(v, str_keys[i])))
            project_expect_str(L, n, arena_printf(&p->arena, "`%s`", str_keys[i]));
}

static const TargetDef *find_target(const Project *p, const char *name)
{
    for (int i = 0; i < p->ntargets; i++)
        if (strcmp(p->targets[i].name, name) == 0) return &p->targets[i];
    return NULL;
}

static const char *target_hint(ProjectLoader *L, const char *name)
{
    Project *p = L->p;
    const char **names = ARENA_ARRAY(&p->arena, const char *, p->ntargets ? p->ntargets : 1);
    for (int i = 0; i < p->ntargets; i++) names[i] = p->targets[i].name;
    const char *h = diag_did_you_mean(L->dl, name, names, p->ntargets);
    if (h) return h;
    return arena_printf(&L->dl->arena, "targets in weir.yml: %s",
                        project_join_names(L, names, p->ntargets));
}

static void select_target(ProjectLoader *L, const char *file, YNode *targets_node,
                          YNode *default_node, const char *wanted)
{
    Project *p = L->p;
    if (p->ntargets == 0) {
        /* no targets declared: one implicit native target */
        const char *name = p->default_target ? p->default_target : "dev";
        if (wanted && strcmp(wanted, name) != 0) {
            SrcPos none = {NULL, 0, 0};
            diag_error(L->dl, none, "unknown-target", "declare it under `targets:` in weir.yml",
                       "unknown target '%s': weir.yml declares no targets", wanted);
        }
        PROJECT_GROW(L, p->targets, p->ntargets, L->cap_targets);
        TargetDef *t = &p->targets[p->ntargets++];
        memset(t, 0, sizeof *t);
        t->name = name;
        t->pos = (SrcPos){file, 1, 1};
        t->runtime = "native";
        t->state_dir = arena_printf(&p->arena, ".weir/%s", name);
        p->default_target = name;
        p->target = t;
        return;
    }
    if (p->default_target) {
        if (!find_target(p, p->default_target)) {
            diag_error(L->dl, default_node->pos, "unknown-target", target_hint(L, p->default_target),
                       "default_target '%s' is not a target", p->default_target);
            p->default_target = NULL;
        }
    }
    if (!p->default_target) {
        if (find_target(p, "dev")) p->default_target = "dev";
        else if (p->ntargets == 1) p->default_target = p->targets[0].name;
        else if (!default_node)
            diag_error(L->dl, targets_node->pos, "missing-key",
                       "add `default_target: NAME` to weir.yml",
                       "weir.yml declares several targets but no default_target");
    }
    const char *name = wanted ? wanted : p->default_target;
    if (!name) name = p->targets[0].name;
    p->target = find_target(p, name);
    if (!p->target) {
        SrcPos none = {NULL, 0, 0};
        diag_error(L->dl, none, "unknown-target", target_hint(L, name), "unknown target '%s'", name);
        p->target = &p->targets[0];
    }
}

bool project_load_weir_text(ProjectLoader *L, const char *file, const char *text, size_t len,
                            const char *target, const char *vars_json)
{
    Project *p = L->p;
    int errors = L->dl->errors;
    YNode *root = project_parse_yaml(L, file, text, len);
    if (!root && L->dl->errors > errors) return false;
    if (root && !yaml_is_null(root) && !project_expect_map(L, root, "weir.yml")) return false;
    if (root && root->kind != YNODE_MAP) root = NULL;

    if (root) project_check_keys(L, root, weir_keys, (int)(sizeof weir_keys / sizeof weir_keys[0]),
                                 "weir.yml");
    load_vars(L, yaml_get(root, "vars"));
    if (vars_json) project_apply_vars_json(L, vars_json);
    if (root)
        for (int i = 0; i < root->npairs; i++) {
            YNode *k = root->pairs[i].key;
            if (k->kind == YNODE_SCALAR && strcmp(k->str, "vars") == 0) continue;
            project_interpolate_tree(L, root->pairs[i].value, text, len);
        }

    YNode *n = yaml_get(root, "name");
    if (n) {
        p->name = project_expect_str(L, n, "`name`");
    } else {
        SrcPos pos = {file, 1, 1};
        diag_error(L->dl, pos, "missing-key", "add `name: my_project` to weir.yml",
                   "weir.yml has no `name`");
    }
    YNode *dn = yaml_get(root, "default_target");
    if (dn) p->default_target = project_expect_str(L, dn, "`default_target`");
    YNode *tn = yaml_get(root, "targets");
    if (tn && !yaml_is_null(tn) && project_expect_map(L, tn, "`targets`"))
        for (int i = 0; i < tn->npairs; i++) load_target(L, tn->pairs[i].key, tn->pairs[i].value);
    select_target(L, file, tn, dn, target);
    return true;
}

/* ---- filesystem ---- */

/* Reads a whole file into the arena (NUL-terminated). NULL with errno on failure. */
static char *read_file(Arena *a, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    StrBuf sb = STRBUF_INIT;
    char buf[16384];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_append(&sb, buf, n);
    int err = ferror(f);
    fclose(f);
    if (err) {
        sb_free(&sb);
        errno = EIO;
        return NULL;
    }
    *len = sb.len;
    char *s = arena_strndup(a, sb.len ? sb.data : "", sb.len);
    sb_free(&sb);
    return s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted names of the non-hidden entries of dir; heap array of heap strings. */
static char **list_dir(const char *dir, int *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = xrealloc(names, sizeof(char *) * (size_t)cap);
        }
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, (size_t)n, sizeof(char *), cmp_str);
    *count = n;
    return names;
}

static void free_list(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

static bool has_ext(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    return n > e && strcmp(name + n - e, ext) == 0;
}

static bool is_yaml_name(const char *name)
{
    return has_ext(name, ".yml") || has_ext(name, ".yaml");
}

typedef void (*FileLoader)(ProjectLoader *L, const char *file, const char *text, size_t len);

/* Keep a definition file's text for the project's snapshot (tests are not part of it). */
static void remember_file(ProjectLoader *L, const char *rel, const char *text, size_t len)
{
    Project *p = L->p;
    PROJECT_GROW(L, p->files, p->nfiles, p->cap_files);
    p->files[p->nfiles++] = (ProjectFile){rel, text, len};
}

static void load_one(ProjectLoader *L, const char *rel, FileLoader fn)
{
    size_t len = 0;
    const char *abs = project_path(L->p, rel);
    char *text = read_file(&L->p->arena, abs, &len);
    if (!text) {
        SrcPos pos = {rel, 0, 0};
        diag_error(L->dl, pos, "io-error", NULL, "cannot read %s: %s", abs, strerror(errno));
        return;
    }
    const char *name = arena_strdup(&L->p->arena, rel);
    if (fn != project_load_tests_text) remember_file(L, name, text, len);
    fn(L, name, text, len);
}

/* sources/NAME.yml and tests/NAME.yml: one level, sorted by name */
static void load_flat_dir(ProjectLoader *L, const char *sub, FileLoader fn)
{
    int n;
    char **names = list_dir(project_path(L->p, sub), &n);
    for (int i = 0; i < n; i++) {
        if (!is_yaml_name(names[i])) continue;
        char *rel = arena_printf(&L->p->arena, "%s/%s", sub, names[i]);
        struct stat st;
        if (stat(project_path(L->p, rel), &st) == 0 && S_ISDIR(st.st_mode)) continue;
        load_one(L, rel, fn);
    }
    free_list(names, n);
}

/* models/...: .sql files are models, .yml/.yaml files are configs; sorted paths.
 * `up` lists the directories being walked (device, inode), so symlink loops stop. */
typedef struct DirId {
    dev_t dev;
    ino_t ino;
    const struct DirId *up;
} DirId;

static void load_models_dir(ProjectLoader *L, const char *rel, const DirId *up)
{
    int n;
    char **names = list_dir(project_path(L->p, rel), &n);
    for (int i = 0; i < n; i++) {
        char *child = arena_printf(&L->p->arena, "%s/%s", rel, names[i]);
        struct stat st;
        if (stat(project_path(L->p, child), &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            bool loop = false;
            for (const DirId *d = up; d && !loop; d = d->up)
                loop = d->dev == st.st_dev && d->ino == st.st_ino;
            DirId me = {st.st_dev, st.st_ino, up};
            if (!loop) load_models_dir(L, child, &me);
        } else if (has_ext(names[i], ".sql")) {
            load_one(L, child, project_load_model_sql);
        } else if (is_yaml_name(names[i])) {
            load_one(L, child, project_load_models_config_text);
        }
    }
    free_list(names, n);
}

/* Contract: see project.h. Files are read in a fixed order (weir.yml, sources, models,
 * tests; each directory sorted by name) so diagnostics and results are deterministic. */
Project *project_load(const ProjectOptions *opts, DiagList *dl)
{
    ProjectOptions def = {0};
    if (!opts) opts = &def;
    Project *p = project_new(opts->dir);
    ProjectLoader L;
    project_loader_init(&L, p, dl);

    const char *weir = project_path(p, "weir.yml");
    SrcPos none = {NULL, 0, 0};
    struct stat st;
    memset(&st, 0, sizeof st);
    if (stat(weir, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
        diag_error(dl, none, "no-project",
                   arena_printf(&dl->arena, "run `weir init %s` to create a project", p->dir),
                   "no weir.yml in %s", p->dir);
        project_free(p);
        return NULL;
    }
    size_t len = 0;
    char *text = S_ISDIR(st.st_mode) ? NULL : read_file(&p->arena, weir, &len);
    if (!text) {
        diag_error(dl, none, "io-error", NULL, "cannot read %s: %s", weir,
                   S_ISDIR(st.st_mode) ? "it is a directory" : strerror(errno));
        project_free(p);
        return NULL;
    }
    remember_file(&L, "weir.yml", text, len);
    project_load_weir_text(&L, "weir.yml", text, len, opts->target, opts->vars_json);
    load_flat_dir(&L, "sources", project_load_sources_text);
    struct stat mst;
    if (stat(project_path(p, "models"), &mst) == 0 && S_ISDIR(mst.st_mode)) {
        DirId top = {mst.st_dev, mst.st_ino, NULL};
        load_models_dir(&L, "models", &top);
    }
    load_flat_dir(&L, "tests", project_load_tests_text);
    project_loader_finish(&L);
    return p;
}

/* Contract: see project.h. The files are loaded in the order project_load reads them
 * (weir.yml, sources/, models/, each sorted by path). */
static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const ProjectFile *)a)->path, ((const ProjectFile *)b)->path);
}

Project *project_load_files(const ProjectFile *files, int nfiles, const ProjectOptions *opts, DiagList *dl)
{
    ProjectOptions def = {0};
    if (!opts) opts = &def;
    Project *p = project_new(opts->dir);
    ProjectLoader L;
    project_loader_init(&L, p, dl);
    L.check_files = false;
    L.override_file = opts->override_file ? arena_strdup(&p->arena, opts->override_file) : NULL;
    ProjectFile *fs = ARENA_ARRAY(&p->arena, ProjectFile, nfiles + 1);
    int n = 0;
    const ProjectFile *weir = NULL;
    for (int i = 0; i < nfiles; i++) {
        ProjectFile f = {arena_strdup(&p->arena, files[i].path), arena_strndup(&p->arena, files[i].text, files[i].len),
                         files[i].len};
        if (strcmp(f.path, "weir.yml") == 0) weir = &fs[n];
        fs[n++] = f;
    }
    if (!weir) {
        SrcPos none = {NULL, 0, 0};
        diag_error(dl, none, "no-project", NULL, "the project's snapshot has no weir.yml");
        project_free(p);
        return NULL;
    }
    qsort(fs, (size_t)n, sizeof *fs, cmp_file);
    for (int i = 0; i < n; i++)
        if (strcmp(fs[i].path, "weir.yml") == 0) {
            remember_file(&L, fs[i].path, fs[i].text, fs[i].len);
            project_load_weir_text(&L, "weir.yml", fs[i].text, fs[i].len, opts->target, opts->vars_json);
        }
    for (int i = 0; i < n; i++) {
        const char *f = fs[i].path;
        FileLoader fn = NULL;
        if (strncmp(f, "sources/", 8) == 0 && is_yaml_name(f)) fn = project_load_sources_text;
        else if (strncmp(f, "models/", 7) == 0 && has_ext(f, ".sql")) fn = project_load_model_sql;
        else if (strncmp(f, "models/", 7) == 0 && is_yaml_name(f)) fn = project_load_models_config_text;
        if (!fn) continue;
        remember_file(&L, fs[i].path, fs[i].text, fs[i].len);
        fn(&L, fs[i].path, fs[i].text, fs[i].len);
    }
    project_loader_finish(&L);
    return p;
}

void project_loader_finish(ProjectLoader *L)
{
    project_finish_sources(L);
    project_finish_models(L);
    project_check_outputs(L);
    project_finish_tests(L);
    strmap_fini(&L->source_index);
    strmap_fini(&L->model_index);
    strmap_fini(&L->config_index);
}

/* ---- lookups ---- */

/* Binary search of an array of n elements of `size` bytes sorted by the name at its
 * start (SourceDef and ModelDef both begin with `const char *name`). */
static const void *find_sorted(const void *arr, int n, size_t size, const char *name)
{
    int lo = 0, hi = n - 1;
    while (name && lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const void *e = (const char *)arr + (size_t)mid * size;
        int c = strcmp(*(const char *const *)e, name);
        if (c == 0) return e;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

/* Contract: p's sources and models are sorted by name (the loader sorts them). */
const SourceDef *project_find_source(const Project *p, const char *name)
{
    return p ? find_sorted(p->sources, p->nsources, sizeof(SourceDef), name) : NULL;
}

const ModelDef *project_find_model(const Project *p, const char *name)
{
    return p ? find_sorted(p->models, p->nmodels, sizeof(ModelDef), name) : NULL;
}

int source_column_index(const SourceDef *s, const char *name)
{
    for (int i = 0; s && name && i < s->ncolumns; i++)
        if (strcmp(s->columns[i].name, name) == 0) return i;
    return -1;
}

static const char *const lineage_names[LINEAGE_NCOLS + 1] = {NULL, "_replay_partition", "_replay_offset",
                                                             "_replay_timestamp", "_replay_landed_at"};

const char *source_lineage_name(int k)
{
    return k >= 1 && k <= LINEAGE_NCOLS ? lineage_names[k] : NULL;
}

Type source_lineage_type(int k)
{
    switch (k) {
    case LINEAGE_PARTITION: return type_make(T_INT4);
    case LINEAGE_OFFSET: return type_make(T_INT8);
    default: return type_make(T_TIMESTAMPTZ);
    }
}

int source_lineage_of(const char *name)
{
    for (int k = 1; name && k <= LINEAGE_NCOLS; k++)
        if (strcmp(lineage_names[k], name) == 0) return k;
    return LINEAGE_NONE;
}

bool source_has_lineage(const SourceDef *s)
{
    return s && !data_format_is_updating(s->format);
}

/* Contract: rel joined with p->dir unless rel is absolute or the dir is "."; arena string. */
const char *project_path(Project *p, const char *rel)
{
    if (!rel) return NULL;
    if (rel[0] == '/' || strcmp(p->dir, ".") == 0) return arena_strdup(&p->arena, rel);
    size_t dl = strlen(p->dir);
    if (dl && p->dir[dl - 1] == '/') return arena_printf(&p->arena, "%s%s", p->dir, rel);
    return arena_printf(&p->arena, "%s/%s", p->dir, rel);
}
