/* Sources: sources/NAME.yml, a mapping `sources:` of name -> definition (DESIGN.md
 * section 2). Validates connector-specific keys, column types, event_time,
 * primary_key and formats; file sources must point at an existing file. */
#include "project/project_internal.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *const file_keys[] = {"sources"};
static const char *const source_keys[] = {
    "connector", "format", "columns", "event_time", "watermark_delay", "primary_key",
    "on_error", "description", "path", "topic", "bootstrap_servers", "delimiter",
    "kind", "table", "replay_boundary", "landing"};
/* index order matches SourceConnector, DataFormat (first four) and OnError */
static const char *const connectors[] = {"file", "kafka", "stdin", "clickhouse"};
static const char *const formats[] = {"json", "csv", "debezium-json", "changelog-json"};
static const char *const on_errors[] = {"dead_letter", "fail", "skip"};
static const char *const column_keys[] = {"type", "description", "encoding"};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *type_hint(ProjectLoader *L, const char *name)
{
    /* compare the name without its modifiers: "numric(12,2)" -> "numric" */
    const char *paren = strchr(name, '(');
    size_t n = paren ? (size_t)(paren - name) : strlen(name);
    while (n > 0 && name[n - 1] == ' ') n--;
    const char *base = arena_strndup(&L->p->arena, name, n);
    const char *h = diag_did_you_mean(L->dl, base, type_known_names, type_known_names_count);
    if (h) return h;
    return "use a PostgreSQL type name: bigint, integer, numeric(p,s), double precision, text, "
           "boolean, date, timestamp, timestamptz, interval";
}

/* A column's `encoding:` (docs/run.md "Temporal encodings"), checked against its type. */
static void load_encoding(ProjectLoader *L, ColumnDef *c, YNode *en)
{
    const char *what = arena_printf(&L->p->arena, "the encoding of column '%s'", c->name);
    const char *e = project_expect_str(L, en, what);
    if (!e) return;
    ColumnEncoding enc;
    if (!column_encoding_parse(e, &enc)) {
        const char *names[COL_ENC__COUNT];
        for (int i = 0; i < COL_ENC__COUNT; i++) names[i] = column_encoding_name((ColumnEncoding)i);
        const char *h = diag_did_you_mean(L->dl, e, names, COL_ENC__COUNT);
        diag_error(L->dl, en->pos, "bad-value",
                   h ? h : "one of text, epoch_s, epoch_ms, epoch_us, epoch_ns (timestamps), epoch_days (dates), "
                           "time_ms, time_us, time_ns (an interval: a time of day)",
                   "unknown encoding '%s' for column '%s'", e, c->name);
        return;
    }
    if (c->type.id != T_UNKNOWN && !column_encoding_fits(enc, c->type)) {
        const char *fits = c->type.id == T_TIMESTAMP || c->type.id == T_TIMESTAMPTZ
                               ? "a timestamp takes epoch_s, epoch_ms, epoch_us, epoch_ns or epoch_days"
                           : c->type.id == T_DATE     ? "a date takes epoch_days"
                           : c->type.id == T_INTERVAL ? "an interval takes time_ms, time_us or time_ns (a time of day)"
                                                      : "encodings are for timestamp, timestamptz, date and interval "
                                                        "columns";
        char tb[64];
        diag_error(L->dl, en->pos, "bad-value", fits, "encoding %s does not fit column '%s' of type %s", e, c->name,
                   type_name(c->type, tb, sizeof tb));
        return;
    }
    c->encoding = enc;
}

static void load_columns(ProjectLoader *L, SourceDef *s, YNode *cols)
{
    Project *p = L->p;
    if (!cols) {
        diag_error(L->dl, s->pos, "missing-key", "add `columns:` mapping each column to its type",
                   "source '%s' has no `columns`", s->name);
        return;
    }
    const char *what = arena_printf(&p->arena, "the columns of source '%s'", s->name);
    if (!project_expect_map(L, cols, what)) return;
    if (cols->npairs == 0) {
        diag_error(L->dl, cols->pos, "bad-value", NULL, "source '%s' has no columns", s->name);
        return;
    }
    s->columns = ARENA_ARRAY(&p->arena, ColumnDef, cols->npairs);
    for (int i = 0; i < cols->npairs; i++) {
        YNode *k = cols->pairs[i].key, *v = cols->pairs[i].value;
        const char *name = project_expect_str(L, k, "a column name");
        if (!name) continue;
        YNode *tn = v;
        if (v->kind == YNODE_MAP) { /* {type: bigint, description: ...} */
            const char *where = arena_printf(&p->arena, "column '%s'", name);
            project_check_keys(L, v, column_keys, NELEM(column_keys), where);
            tn = yaml_get(v, "type");
            if (!tn) {
                diag_error(L->dl, k->pos, "missing-key", "add `type: TYPE`",
                           "column '%s' has no `type`", name);
                continue;
            }
        }
        /* `{amount: numeric(12,2)}`: in a YAML flow mapping the comma splits the type
         * into `numeric(12` and a column named `2)` */
        if (tn->kind == YNODE_SCALAR && !tn->quoted && tn->str && strchr(tn->str, '(') && !strchr(tn->str, ')') &&
            i + 1 < cols->npairs && cols->pairs[i + 1].key->kind == YNODE_SCALAR && cols->pairs[i + 1].key->str &&
            strchr(cols->pairs[i + 1].key->str, ')') && yaml_is_null(cols->pairs[i + 1].value)) {
            const char *whole = arena_printf(&p->arena, "%s,%s", tn->str, cols->pairs[i + 1].key->str);
            diag_error(L->dl, tn->pos, "unknown-type",
                       arena_printf(&L->dl->arena, "quote it: %s: '%s' (in a flow mapping {...} a comma separates "
                                    "entries), or write the columns one per line", name, whole),
                       "the type of column '%s' is split at its comma by YAML: '%s'", name, whole);
            ColumnDef *c = &s->columns[s->ncolumns++];
            c->name = name;
            c->type = type_make(T_UNKNOWN);
            c->pos = k->pos;
            i++;
            continue;
        }
        const char *tname = project_expect_str(L, tn, arena_printf(&p->arena, "the type of column '%s'", name));
        if (!tname) continue;
        Type t;
        static const char *const unsupported[] = {"jsonb", "uuid", "bytea", "xml", "money", "inet"};
        bool later = false;
        for (size_t u = 0; u < sizeof unsupported / sizeof unsupported[0]; u++)
            if (strcasecmp(tname, unsupported[u]) == 0) later = true;
        if (later) {
            diag_error(L->dl, tn->pos, "unsupported",
                       arena_printf(&L->dl->arena, "declare '%s' as text for now (functions over text apply)", name),
                       "type %s (column '%s') is not supported yet", tname, name);
            t = type_make(T_UNKNOWN);
        } else if (!type_parse(tname, &t)) {
            diag_error(L->dl, tn->pos, "unknown-type", type_hint(L, tname),
                       "unknown type '%s' for column '%s'", tname, name);
            t = type_make(T_UNKNOWN);
        }
        if (source_lineage_of(name)) {
            diag_error(L->dl, k->pos, "reserved-name", "weir provides it: select it in a model without declaring it",
                       "column name '%s' is reserved for the replay lineage", name);
            continue;
        }
        ColumnDef *c = &s->columns[s->ncolumns++];
        c->name = name;
        c->type = t;
        c->pos = k->pos;
        YNode *en = v->kind == YNODE_MAP ? yaml_get(v, "encoding") : NULL;
        if (en) load_encoding(L, c, en);
    }
}

static const char *column_hint(ProjectLoader *L, const SourceDef *s, const char *name)
{
    const char **names = ARENA_ARRAY(&L->p->arena, const char *, s->ncolumns ? s->ncolumns : 1);
    for (int i = 0; i < s->ncolumns; i++) names[i] = s->columns[i].name;
    const char *h = diag_did_you_mean(L->dl, name, names, s->ncolumns);
    if (h) return h;
    return arena_printf(&L->dl->arena, "columns: %s", project_join_names(L, names, s->ncolumns));
}

static void load_event_time(ProjectLoader *L, SourceDef *s, YNode *n)
{
    const char *col = project_expect_str(L, n, "`event_time`");
    if (!col) return;
    int idx = source_column_index(s, col);
    if (idx < 0) {
        diag_error(L->dl, n->pos, "unknown-column", column_hint(L, s, col),
                   "event_time '%s' is not a column of source '%s'", col, s->name);
        s->event_time_invalid = true;
        return;
    }
    Type t = s->columns[idx].type;
    if (t.id != T_TIMESTAMP && t.id != T_TIMESTAMPTZ) {
        char buf[64];
        if (t.id != T_UNKNOWN) /* an unknown type was reported already */
            diag_error(L->dl, n->pos, "bad-event-time",
                       arena_printf(&L->dl->arena, "declare '%s' as `timestamp` or `timestamptz`", col),
                       "event_time column '%s' has type %s; it must be a timestamp or timestamptz",
                       col, type_name(t, buf, sizeof buf));
        s->event_time_invalid = true;
        return;
    }
    s->event_time_col = idx;
}

static void load_primary_key(ProjectLoader *L, SourceDef *s, YNode *n)
{
    const char **names;
    int count;
    if (!project_expect_str_list(L, n, "`primary_key`", &names, &count)) return;
    s->pk_cols = ARENA_ARRAY(&L->p->arena, int, count);
    for (int i = 0; i < count; i++) {
        int idx = source_column_index(s, names[i]);
        const YNode *at = n->kind == YNODE_SEQ ? n->items[i] : n;
        if (idx < 0) {
            diag_error(L->dl, at->pos, "unknown-column", column_hint(L, s, names[i]),
                       "primary_key column '%s' is not a column of source '%s'", names[i], s->name);
            continue;
        }
        s->pk_cols[s->npk++] = idx;
    }
}

/* Keys that exist but only for some connectors or formats. */
static void check_applicable(ProjectLoader *L, const SourceDef *s, const YNode *def)
{
    for (int i = 0; i < def->npairs; i++) {
        const YNode *k = def->pairs[i].key;
        if (k->kind != YNODE_SCALAR) continue;
        const char *need = NULL;
        if (strcmp(k->str, "path") == 0 && s->connector != SRC_FILE) need = "file";
        else if ((strcmp(k->str, "topic") == 0 || strcmp(k->str, "bootstrap_servers") == 0 ||
                  strcmp(k->str, "landing") == 0) &&
                 s->connector != SRC_KAFKA)
            need = "kafka";
        else if ((strcmp(k->str, "kind") == 0 || strcmp(k->str, "table") == 0 ||
                  strcmp(k->str, "replay_boundary") == 0) &&
                 s->connector != SRC_CLICKHOUSE)
            need = "clickhouse";
        if (need)
            diag_error(L->dl, k->pos, "key-not-applicable", NULL,
                       "key '%s' applies to %s sources, not to a %s source", k->str, need,
                       connectors[s->connector]);
        if (strcmp(k->str, "delimiter") == 0 && s->format != FMT_CSV)
            diag_error(L->dl, k->pos, "key-not-applicable", "set `format: csv`",
                       "key 'delimiter' applies to csv sources, not to format %s",
                       data_format_name(s->format));
    }
}

/* A path with ${ENV:NAME} is looked at only by the commands that read the file (the
 * environment is not read while loading); `$${` escapes are undone first. Data need not
 * exist before `weir run` (it lands later; CI has none): a missing file, or a glob that
 * matches nothing yet, is a note, never an error. A directory or a glob is a source of
 * many files (read in name order). */
static void check_file_path(ProjectLoader *L, SourceDef *s, YNode *n)
{
    if (!L->check_files || strstr(s->path, "${ENV:")) return;
    const char *path = project_resolve_env(L->p, s->path, NULL, 0);
    if (!path) return;
    const char *abs = project_path(L->p, path);
    if (strpbrk(path, "*?[")) {
        glob_t g;
        int rc = glob(abs, 0, NULL, &g);
        if (rc == 0) globfree(&g);
        else
            diag_add(L->dl, DIAG_NOTE, n->pos, "file-not-found", "weir run reads the files that match when it runs",
                     "no file matches %s yet", s->path);
        return;
    }
    struct stat st;
    if (stat(abs, &st) != 0)
        diag_add(L->dl, DIAG_NOTE, n->pos, "file-not-found",
                 "paths are relative to the project directory; weir run needs the file, the other commands do not",
                 "data file %s does not exist yet", s->path);
}

static void load_source(ProjectLoader *L, YNode *k, YNode *def)
{
    Project *p = L->p;
    const char *name = project_expect_str(L, k, "a source name");
    if (!name) return;
    int previ = strmap_get(&L->source_index, name);
    if (previ >= 0) {
        const SourceDef *prev = &p->sources[previ];
        diag_error(L->dl, k->pos, "duplicate-source", "rename one of them",
                   "source '%s' is already defined at %s:%d", name,
                   prev->pos.file ? prev->pos.file : "?", prev->pos.line);
        return;
    }
    const char *where = arena_printf(&p->arena, "source '%s'", name);
    if (!project_expect_map(L, def, where)) return;

    PROJECT_GROW(L, p->sources, p->nsources, L->cap_sources);
    strmap_put(&L->source_index, name, p->nsources);
    SourceDef *s = &p->sources[p->nsources++];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->pos = k->pos;
    s->node = def;
    s->event_time_col = -1;
    s->csv_delimiter = ',';
    s->format = FMT_JSON;
    s->on_error = ONERR_DEAD_LETTER;

    project_check_keys(L, def, source_keys, NELEM(source_keys), where);
    YNode *n;
    bool connector_ok = false;
    if ((n = yaml_get(def, "connector"))) {
        int c = project_expect_enum(L, n, connectors, NELEM(connectors), "connector");
        if (c >= 0) {
            s->connector = (SourceConnector)c;
            connector_ok = true;
        }
    } else {
        diag_error(L->dl, k->pos, "missing-key", "add `connector: file` (or kafka, stdin)",
                   "source '%s' has no `connector`", name);
    }
    YNode *fmt = yaml_get(def, "format");
    if (fmt) {
        int f = project_expect_enum(L, fmt, formats, NELEM(formats), "format");
        if (f >= 0) s->format = (DataFormat)f;
    }
    load_columns(L, s, yaml_get(def, "columns"));
    /* without usable columns, column references were not checked: no cascades */
    if ((n = yaml_get(def, "event_time")) && s->ncolumns) load_event_time(L, s, n);
    if ((n = yaml_get(def, "watermark_delay"))) {
        project_expect_duration(L, n, "`watermark_delay`", &s->watermark_delay_us);
        if (!yaml_get(def, "event_time"))
            diag_warning(L->dl, n->pos, "unused-key", "set `event_time` to enable watermarks",
                         "watermark_delay has no effect without event_time");
    }
    if ((n = yaml_get(def, "primary_key")) && s->ncolumns) load_primary_key(L, s, n);
    if (data_format_is_updating(s->format) && !yaml_get(def, "primary_key"))
        diag_error(L->dl, fmt->pos, "missing-primary-key", "add `primary_key: [column, ...]`",
                   "format %s needs a primary_key: updates and deletes of an updating source are "
                   "matched to earlier rows by key", data_format_name(s->format));
    if ((n = yaml_get(def, "on_error"))) {
        int e = project_expect_enum(L, n, on_errors, NELEM(on_errors), "on_error");
        if (e >= 0) s->on_error = (OnError)e;
    }
    if ((n = yaml_get(def, "description"))) project_expect_str(L, n, "`description`");
    if ((n = yaml_get(def, "delimiter"))) {
        const char *d = project_expect_str(L, n, "`delimiter`");
        if (d && strlen(d) == 1) s->csv_delimiter = d[0];
        else if (d)
            diag_error(L->dl, n->pos, "bad-value", "e.g. delimiter: ';' or \"\\t\"",
                       "delimiter must be a single character, found '%s'", d);
    }
    if (!connector_ok) return;
    check_applicable(L, s, def);
    if (s->connector == SRC_FILE) {
        if ((n = yaml_get(def, "path"))) {
            s->path = project_expect_str(L, n, "`path`");
            if (s->path) check_file_path(L, s, n);
        } else {
            diag_error(L->dl, k->pos, "missing-key", "add `path: data/FILE` (relative to the project)",
                       "file source '%s' needs a `path`", name);
        }
    } else if (s->connector == SRC_KAFKA) {
        if ((n = yaml_get(def, "topic"))) s->topic = project_expect_str(L, n, "`topic`");
        else
            diag_error(L->dl, k->pos, "missing-key", "add `topic: NAME`",
                       "kafka source '%s' needs a `topic`", name);
        if ((n = yaml_get(def, "bootstrap_servers")))
            s->bootstrap_servers = project_expect_str(L, n, "`bootstrap_servers`");
        if ((n = yaml_get(def, "landing"))) project_expect_map(L, n, "`landing`");
    } else if (s->connector == SRC_CLICKHOUSE) {
        /* an adopted table; the backend checks `replay_boundary` against the live schema */
        static const char *const kinds[] = {"stream_table"};
        if ((n = yaml_get(def, "kind"))) project_expect_enum(L, n, kinds, 1, "kind");
        else
            diag_error(L->dl, k->pos, "missing-key", "add `kind: stream_table`",
                       "clickhouse source '%s' needs a `kind`", name);
        if ((n = yaml_get(def, "table"))) s->table = project_expect_str(L, n, "`table`");
        else
            diag_error(L->dl, k->pos, "missing-key", "add `table: NAME` (the existing table)",
                       "clickhouse source '%s' needs a `table`", name);
        if ((n = yaml_get(def, "replay_boundary"))) project_expect_map(L, n, "`replay_boundary`");
    }
}

/* Contract: parses one sources file's text (registered with the diagnostics) and adds
 * its sources to L->p; the text must outlive nothing (the tree lives in the arena). */
void project_load_sources_text(ProjectLoader *L, const char *file, const char *text, size_t len)
{
    YNode *root = project_parse_yaml(L, file, text, len);
    if (!root || yaml_is_null(root)) return;
    if (!project_expect_map(L, root, file)) return;
    project_check_keys(L, root, file_keys, NELEM(file_keys), file);
    project_interpolate_tree(L, root, text, len);
    YNode *srcs = yaml_get(root, "sources");
    if (!srcs) {
        SrcPos pos = {root->pos.file, 1, 1};
        diag_error(L->dl, pos, "missing-key", "a sources file is a mapping `sources:` of name -> definition",
                   "%s has no `sources:` mapping", file);
        return;
    }
    if (yaml_is_null(srcs) || !project_expect_map(L, srcs, "`sources`")) return;
    for (int i = 0; i < srcs->npairs; i++) load_source(L, srcs->pairs[i].key, srcs->pairs[i].value);
}

static int cmp_source(const void *a, const void *b)
{
    return strcmp(((const SourceDef *)a)->name, ((const SourceDef *)b)->name);
}

void project_finish_sources(ProjectLoader *L)
{
    if (L->p->nsources > 1)
        qsort(L->p->sources, (size_t)L->p->nsources, sizeof(SourceDef), cmp_source);
}
