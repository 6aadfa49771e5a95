/* Where a project writes, checked once every model is configured: two sinks writing
 * one file or one SQLite table interleave or overwrite each other, a sink writing a
 * file that a source reads destroys its own input, and a sink that every target writes
 * is shared by their runs (and by their checkpoints, which record what each delivered),
 * so each of these is an error at the later definition, naming the earlier one. Paths
 * are compared after lexical normalisation against the project directory (`.`, `..`,
 * repeated slashes; symbolic links are not followed). A relative sink path that leaves
 * the project directory is a warning. */
#include "project/project_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum { OUT_SOURCE, OUT_FILE_SINK, OUT_SQLITE_SINK } OutputKind;

typedef struct Output {
    OutputKind kind;
    const char *name;            /* source or model name */
    SrcPos pos;
} Output;

typedef struct Outputs {
    ProjectLoader *L;
    const char *dir;             /* the project directory, absolute when it can be resolved */
    Output *items;
    int n, cap;
    StrMap by_path;              /* normalised path -> first output using it */
    StrMap by_table;             /* normalised path "\n" lower-case table -> sqlite sink */
} Outputs;

/* path with `.` and empty components dropped and `x/..` folded, as an arena string;
 * a relative path keeps its leading `..` components. */
static char *normalize(Arena *a, const char *path)
{
    size_t n = strlen(path);
    char *out = arena_alloc(a, n + 2);
    bool abs = path[0] == '/';
    size_t o = 0, root = 0;
    if (abs) out[o++] = '/', root = 1;
    const char *p = path;
    while (*p) {
        while (*p == '/') p++;
        const char *e = p;
        while (*e && *e != '/') e++;
        size_t len = (size_t)(e - p);
        if (len == 0 || (len == 1 && p[0] == '.')) {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            /* fold into the previous component unless there is none (or it is `..`) */
            size_t last = o;
            while (last > root && out[last - 1] != '/') last--;
            bool prev_up = o - last == 2 && out[last] == '.' && out[last + 1] == '.';
            if (o > root && !prev_up) {
                o = last > root ? last - 1 : root;
            } else if (!abs) {
                if (o > root) out[o++] = '/';
                out[o++] = '.';
                out[o++] = '.';
            }
        } else {
            if (o > root) out[o++] = '/';
            memcpy(out + o, p, len);
            o += len;
        }
        p = e;
    }
    if (o == 0) out[o++] = '.';
    out[o] = '\0';
    return out;
}

/* The key of a project-relative or absolute path. */
static const char *path_key(Outputs *o, const char *path)
{
    Arena *a = &o->L->p->arena;
    if (path[0] == '/') return normalize(a, path);
    return normalize(a, arena_printf(a, "%s/%s", o->dir, path));
}

static int add_output(Outputs *o, OutputKind kind, const char *name, SrcPos pos)
{
    PROJECT_GROW(o->L, o->items, o->n, o->cap);
    o->items[o->n] = (Output){kind, name, pos};
    return o->n++;
}

/* "file:line:col" for messages. */
static const char *pos_text(ProjectLoader *L, SrcPos pos)
{
    return arena_printf(&L->dl->arena, "%s:%d:%d", pos.file ? pos.file : "?", pos.line, pos.col);
}

static const char *describe(ProjectLoader *L, const Output *e)
{
    const char *at = pos_text(L, e->pos);
    switch (e->kind) {
    case OUT_SOURCE: return arena_printf(&L->dl->arena, "which source '%s' reads (%s)", e->name, at);
    case OUT_FILE_SINK: return arena_printf(&L->dl->arena, "which model '%s' writes too (%s)", e->name, at);
    default: return arena_printf(&L->dl->arena, "the SQLite database of model '%s' (%s)", e->name, at);
    }
}

static void collision(Outputs *o, const ModelDef *m, const SinkDef *s, const Output *first)
{
    diag_error(o->L->dl, s->path_pos, "sink-collision",
               first->kind == OUT_SOURCE
                   ? "a sink truncates its file when a run starts: write the output somewhere else"
                   : "give each sink its own file (or table): two models writing one interleave and "
                     "overwrite each other's rows",
               "the sink of model '%s' writes %s, %s", m->name, s->path, describe(o->L, first));
}

static void check_sink(Outputs *o, const ModelDef *m, const SinkDef *s)
{
    ProjectLoader *L = o->L;
    const char *key = path_key(o, s->path);
    int prev = strmap_get(&o->by_path, key);
    const Output *first = prev >= 0 ? &o->items[prev] : NULL;
    if (s->connector == SINK_FILE) {
        if (first) {
            collision(o, m, s, first);
            return;
        }
        strmap_put(&o->by_path, key, add_output(o, OUT_FILE_SINK, m->name, s->path_pos));
        return;
    }
    /* sqlite: one database may hold the tables of several models, each its own */
    if (first && first->kind != OUT_SQLITE_SINK) {
        collision(o, m, s, first);
        return;
    }
    int self = add_output(o, OUT_SQLITE_SINK, m->name, s->path_pos);
    if (!first) strmap_put(&o->by_path, key, self);
    const char *table = s->table ? s->table : m->name;
    if (strncasecmp(table, "_weir_", 6) == 0) {
        diag_error(L->dl, s->path_pos, "bad-name", "choose another `table:`",
                   "table '%s' of the sink of model '%s': names starting with _weir_ are weir's own tables",
                   table, m->name);
        return;
    }
    char *tkey = arena_printf(&L->p->arena, "%s\n%s", key, table);
    for (char *c = tkey + strlen(key) + 1; *c; c++) *c = (char)tolower((unsigned char)*c); /* SQLite's rule */
    int t = strmap_get(&o->by_table, tkey);
    if (t >= 0) {
        const Output *other = &o->items[t];
        diag_error(L->dl, s->path_pos, "sink-collision",
                   "give each model its own `table:` (SQLite compares table names case-insensitively)",
                   "the sink of model '%s' writes table '%s' of %s, which model '%s' writes too (%s)", m->name,
                   table, s->path, other->name, pos_text(L, other->pos));
        return;
    }
    strmap_put(&o->by_table, tkey, self);
}

/* Names of the native targets, "'dev' and 'prod'"; NULL when fewer than two. */
static const char *native_targets(ProjectLoader *L)
{
    const Project *p = L->p;
    const char **names = ARENA_ARRAY(&L->p->arena, const char *, p->ntargets + 1);
    int n = 0;
    for (int i = 0; i < p->ntargets; i++)
        if (strcmp(p->targets[i].runtime, "native") == 0)
            names[n++] = arena_printf(&L->p->arena, "'%s'", p->targets[i].name);
    if (n < 2) return NULL;
    StrBuf sb = STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        if (i) sb_puts(&sb, i == n - 1 ? " and " : ", ");
        sb_puts(&sb, names[i]);
    }
    const char *s = arena_strdup(&L->dl->arena, sb_cstr(&sb));
    sb_free(&sb);
    return s;
}

/* Two native targets keeping their checkpoints in one state_dir would resume from each
 * other's state. */
static void check_state_dirs(Outputs *o)
{
    const Project *p = o->L->p;
    StrMap seen = STRMAP_INIT;
    for (int i = 0; i < p->ntargets; i++) {
        const TargetDef *t = &p->targets[i];
        if (strcmp(t->runtime, "native") != 0 || !t->state_dir) continue;
        const char *key = path_key(o, t->state_dir);
        int prev = strmap_get(&seen, key);
        if (prev < 0) {
            strmap_put(&seen, key, i);
            continue;
        }
        const TargetDef *first = &p->targets[prev];
        const YNode *n = t->node ? yaml_get(t->node, "state_dir") : NULL;
        diag_error(o->L->dl, n ? n->pos : t->pos, "state-dir-collision",
                   "give each target its own state_dir (the default is .weir/<target>)",
                   "target '%s' keeps its state in %s, as target '%s' does (%s)", t->name, t->state_dir,
                   first->name, pos_text(o->L, first->pos));
    }
    strmap_fini(&seen);
}

/* Contract: run after the models' configs are attached (project_finish_models); reports
 * every collision of file and SQLite sinks with each other and with file sources, sinks
 * shared by all native targets, shared state directories, and sink paths leaving the
 * project directory. Definitions are visited in the order they were read. */
void project_check_outputs(ProjectLoader *L)
{
    Project *p = L->p;
    char resolved[PATH_MAX];
    Outputs o = {L, realpath(p->dir, resolved) ? arena_strdup(&p->arena, resolved) : p->dir, NULL, 0, 0,
                 STRMAP_INIT, STRMAP_INIT};
    for (int i = 0; i < p->nsources; i++) {
        const SourceDef *s = &p->sources[i];
        if (s->connector != SRC_FILE || !s->path || strstr(s->path, "${ENV:")) continue;
        const char *key = path_key(&o, s->path);
        if (strmap_get(&o.by_path, key) < 0) {
            const YNode *n = s->node ? yaml_get(s->node, "path") : NULL;
            strmap_put(&o.by_path, key, add_output(&o, OUT_SOURCE, s->name, n ? n->pos : s->pos));
        }
    }
    const char *targets = native_targets(L);
    for (int i = 0; i < L->nconfigs; i++) {
        const ModelDef *m = project_find_model(p, L->configs[i].name);
        const SinkDef *s = m ? m->sink : NULL;
        if (!s || s != L->configs[i].sink || !s->path || strstr(s->path, "${ENV:")) continue;
        if (s->connector != SINK_FILE && s->connector != SINK_SQLITE) continue;
        if (s->path[0] != '/') {
            const char *rel = normalize(&p->arena, s->path);
            if (strncmp(rel, "..", 2) == 0 && (rel[2] == '/' || rel[2] == '\0'))
                diag_warning(L->dl, s->path_pos, "sink-outside-project",
                             "sink paths are relative to the project directory; write an absolute path if "
                             "the output belongs elsewhere",
                             "the sink of model '%s' writes %s, outside the project directory", m->name, s->path);
        }
        if (targets && !s->path_per_target && !(s->connector == SINK_SQLITE && s->table_per_target))
            diag_error(L->dl, s->path_pos, "sink-collision",
                       s->connector == SINK_FILE
                           ? "put ${target} in the path (out/${target}/NAME.jsonl) so each target writes its own"
                           : "put ${target} in the path or the table so each target writes its own",
                       "the sink of model '%s' is the same for targets %s: runs of each would write %s", m->name,
                       targets, s->path);
        check_sink(&o, m, s);
    }
    check_state_dirs(&o);
    strmap_fini(&o.by_path);
    strmap_fini(&o.by_table);
}
