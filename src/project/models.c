/* Models: models/.../NAME.sql (one model per file, name = file stem) and their configs
 * in models/.../NAME.yml (a mapping `models:` of name -> config with materialized, key,
 * state_ttl, sink, description, columns). Configs are held until every .sql file
 * is known, then attached in project_finish_models. */
#include "project/project_internal.h"

#include <stdlib.h>
#include <string.h>

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const file_keys[] = {"models"};
static const char *const config_keys[] = {"materialized", "key", "state_ttl", "sink",
                                          "description", "columns", "audits", "clickhouse", "tags"};
static const char *const column_doc_keys[] = {"name", "description"};
static const char *const audit_kinds[] = {"not_null", "unique", "accepted_values"};
static const char *const accepted_keys[] = {"column", "values"};
/* index order matches Materialization */
static const char *const materializations[] = {"view", "ephemeral", "append", "upsert",
                                               "retract", "table"};

/* ---- sinks ---- */

/* index order matches SinkConnector - 1 */
static const char *const sink_connectors[] = {"file", "stdout", "sqlite", "postgres",
                                              "kafka", "clickhouse", "webhook"};
static const char *const sink_keys[] = {"connector", "description", "path", "format", "table",
                                        "replace_existing", "dsn", "topic", "bootstrap_servers",
                                        "url", "database", "method", "headers", "batch", "flush_interval"};

typedef struct SinkSpec {
    const char *keys[5];     /* keys besides connector/description */
    const char *required;    /* required key or NULL */
    bool kafka_formats;      /* accepts format: upsert */
    bool flushes;            /* takes flush_interval (weir run writes it) */
} SinkSpec;

static const SinkSpec sink_specs[] = {
    /* file */ {{"path", "format"}, "path", false, true},
    /* stdout */ {{"format"}, NULL, false, true},
    /* sqlite */ {{"path", "table", "replace_existing"}, "path", false, true},
    /* postgres */ {{"dsn", "table"}, "dsn", false, false},
    /* kafka */ {{"topic", "format", "bootstrap_servers"}, "topic", true, true},
    /* clickhouse */ {{"url", "database", "table"}, "url", false, false},
    /* webhook */ {{"url", "method", "headers", "batch"}, "url", false, false},
};

static const char *const sink_formats[] = {"json", "changelog-json", "debezium-json", "upsert"};
static const DataFormat sink_format_ids[] = {FMT_JSON, FMT_CHANGELOG_JSON, FMT_DEBEZIUM_JSON,
                                             FMT_UPSERT};
static const char *const methods[] = {"POST", "PUT", "PATCH", "DELETE", "GET"};

static bool spec_has(const SinkSpec *sp, const char *key)
{
    for (int i = 0; i < 5 && sp->keys[i]; i++)
        if (strcmp(sp->keys[i], key) == 0) return true;
    return false;
}

static const char *spec_keys(ProjectLoader *L, const SinkSpec *sp)
{
    int n = 0;
    while (n < 5 && sp->keys[n]) n++;
    return project_join_names(L, sp->keys, n);
}

static SinkDef *load_sink(ProjectLoader *L, const char *model, YNode *n)
{
    Project *p = L->p;
    const char *where = arena_printf(&p->arena, "the sink of model '%s'", model);
    if (!project_expect_map(L, n, where)) return NULL;
    project_check_keys(L, n, sink_keys, NELEM(sink_keys), where);
    YNode *cn = yaml_get(n, "connector");
    if (!cn) {
        diag_error(L->dl, n->pos, "missing-key",
                   arena_printf(&L->dl->arena, "add `connector:` (%s)",
                                project_join_names(L, sink_connectors, NELEM(sink_connectors))),
                   "the sink of model '%s' has no `connector`", model);
        return NULL;
    }
    int c = project_expect_enum(L, cn, sink_connectors, NELEM(sink_connectors), "sink connector");
    if (c < 0) return NULL;
    const SinkSpec *sp = &sink_specs[c];
    SinkDef *s = ARENA_NEW(&p->arena, SinkDef);
    s->connector = (SinkConnector)(c + 1);
    s->pos = n->pos;
    s->node = n;
    s->format = FMT_JSON;
    const char *cname = sink_connectors[c];

    for (int i = 0; i < n->npairs; i++) {
        const YNode *k = n->pairs[i].key;
        if (k->kind != YNODE_SCALAR || strcmp(k->str, "connector") == 0 ||
            strcmp(k->str, "description") == 0 || spec_has(sp, k->str) ||
            (strcmp(k->str, "flush_interval") == 0 && sp->flushes))
            continue;
        bool known = false;
        for (int j = 0; j < NELEM(sink_keys) && !known; j++) known = strcmp(k->str, sink_keys[j]) == 0;
        if (known) /* unknown keys were reported by project_check_keys */
            diag_error(L->dl, k->pos, "key-not-applicable",
                       arena_printf(&L->dl->arena, "%s sinks take: %s", cname, spec_keys(L, sp)),
                       "key '%s' does not apply to a %s sink", k->str, cname);
    }
    if (sp->required && !yaml_get(n, sp->required))
        diag_error(L->dl, n->pos, "missing-key",
                   arena_printf(&L->dl->arena, "add `%s:`", sp->required),
                   "a %s sink needs `%s`", cname, sp->required);

    YNode *v;
    s->path_pos = n->pos;
    if (spec_has(sp, "path") && (v = yaml_get(n, "path"))) {
        s->path = project_expect_str(L, v, "`path`");
        s->path_pos = v->pos;
        s->path_per_target = v->per_target;
        if (s->path && strstr(s->path, "${ENV:"))
            diag_error(L->dl, v->pos, "bad-value",
                       "write the path into the project, or pass it with --vars and ${name}",
                       "a sink path cannot read the environment (${ENV:...})");
    }
    if (spec_has(sp, "format") && (v = yaml_get(n, "format"))) {
        int nf = sp->kafka_formats ? 4 : 3;
        int f = project_expect_enum(L, v, sink_formats, nf, "sink format");
        if (f >= 0) {
            s->format = sink_format_ids[f];
            s->format_set = true;
        } else {
            s->format_invalid = true;
        }
    }
    if (spec_has(sp, "table")) {
        s->table = model;
        if ((v = yaml_get(n, "table"))) {
            const char *t = project_expect_str(L, v, "`table`");
            if (t) s->table = t;
            s->table_per_target = v->per_target;
        }
    }
    if (spec_has(sp, "replace_existing") && (v = yaml_get(n, "replace_existing"))) {
        const char *b = project_expect_str(L, v, "`replace_existing`");
        if (b && (strcmp(b, "true") == 0 || strcmp(b, "false") == 0))
            s->replace_existing = strcmp(b, "true") == 0;
        else if (b)
            diag_error(L->dl, v->pos, "bad-value", "write true or false",
                       "replace_existing must be true or false, found '%s'", b);
    }
    if (spec_has(sp, "dsn") && (v = yaml_get(n, "dsn"))) s->dsn = project_expect_str(L, v, "`dsn`");
    if (spec_has(sp, "topic") && (v = yaml_get(n, "topic"))) s->topic = project_expect_str(L, v, "`topic`");
    if (spec_has(sp, "bootstrap_servers") && (v = yaml_get(n, "bootstrap_servers")))
        s->bootstrap_servers = project_expect_str(L, v, "`bootstrap_servers`");
    if (spec_has(sp, "url") && (v = yaml_get(n, "url"))) s->url = project_expect_str(L, v, "`url`");
    if (spec_has(sp, "database") && (v = yaml_get(n, "database")))
        s->database = project_expect_str(L, v, "`database`");
    if (spec_has(sp, "method")) {
        s->method = "POST";
        if ((v = yaml_get(n, "method"))) {
            int m = project_expect_enum(L, v, methods, NELEM(methods), "HTTP method");
            if (m >= 0) s->method = methods[m];
        }
    }
    if (spec_has(sp, "headers") && (v = yaml_get(n, "headers")) &&
        project_expect_map(L, v, "`headers`")) {
        s->headers = v;
        for (int i = 0; i < v->npairs; i++) {
            project_expect_str(L, v->pairs[i].key, "a header name");
            project_expect_str(L, v->pairs[i].value, "a header value");
        }
    }
    if (spec_has(sp, "batch")) {
        s->batch = 1;
        if ((v = yaml_get(n, "batch"))) {
            const char *b = project_expect_str(L, v, "`batch`");
            char *end = NULL;
            long val = b ? strtol(b, &end, 10) : 0;
            if (b && (*end || end == b || val < 1 || val > 1000000))
                diag_error(L->dl, v->pos, "bad-value", "a whole number of rows per request, e.g. 100",
                           "batch must be a number from 1 to 1000000, found '%s'", b);
            else if (b)
                s->batch = (int)val;
        }
    }
    s->flush_interval_us = -1;
    if (sp->flushes && (v = yaml_get(n, "flush_interval")))
        project_expect_duration(L, v, "`flush_interval`", &s->flush_interval_us);
    if ((v = yaml_get(n, "description"))) project_expect_str(L, v, "`description`");
    return s;
}

/* audits: a list of {not_null: [COL, ...]}, {unique: [COL, ...]} and
 * {accepted_values: {column: COL, values: [V, ...]}}; the columns are checked against
 * the model's when the audit runs. Returns the list, or NULL after a diagnostic. */
static YNode *load_audits(ProjectLoader *L, YNode *n)
{
    if (n->kind != YNODE_SEQ) {
        diag_error(L->dl, n->pos, "bad-type", "audits is a list such as [{not_null: [id]}, {unique: [id]}]",
                   "expected a list, found %s for `audits`", yaml_kind_name(n));
        return NULL;
    }
    for (int i = 0; i < n->nitems; i++) {
        YNode *a = n->items[i];
        if (!project_expect_map(L, a, "an audit")) return NULL;
        if (a->npairs != 1) {
            diag_error(L->dl, a->pos, "bad-value", "one audit per list item, e.g. {not_null: [id]}",
                       "an audit names one check");
            return NULL;
        }
        YNode *k = a->pairs[0].key, *v = a->pairs[0].value;
        int kind = project_expect_enum(L, k, audit_kinds, NELEM(audit_kinds), "audit");
        if (kind < 0) return NULL;
        if (kind == 2) {
            if (!project_expect_map(L, v, "accepted_values")) return NULL;
            project_check_keys(L, v, accepted_keys, NELEM(accepted_keys), "accepted_values");
            YNode *col = yaml_get(v, "column"), *vals = yaml_get(v, "values");
            if (!col || !vals || vals->kind != YNODE_SEQ) {
                diag_error(L->dl, v->pos, "missing-key", "accepted_values: {column: status, values: [new, paid]}",
                           "accepted_values needs `column` and a list of `values`");
                return NULL;
            }
        } else if (v->kind != YNODE_SEQ || v->nitems == 0) {
            diag_error(L->dl, v->pos, "bad-type", "list the columns, e.g. [customer_id]",
                       "expected a list of columns for `%s`", k->str);
            return NULL;
        }
    }
    return n;
}

/* ---- config files ---- */

/* `tags: nightly` or `tags: [nightly, finance]`; a tag is a non-empty word without spaces
 * or commas (the selector grammar splits on them). */
static void load_tags(ProjectLoader *L, YNode *n, ModelConfig *c)
{
    const char **tags;
    int ntags;
    if (!project_expect_str_list(L, n, "`tags`", &tags, &ntags)) return;
    const char **kept = ARENA_ARRAY(&L->p->arena, const char *, ntags + 1);
    int nk = 0;
    for (int i = 0; i < ntags; i++) {
        const YNode *item = n->kind == YNODE_SEQ ? n->items[i] : n;
        if (!tags[i][0] || strpbrk(tags[i], " \t,+:")) {
            diag_error(L->dl, item->pos, "bad-value", "a tag is one word, e.g. nightly or finance_daily",
                       "tag '%s' has a space, comma, '+' or ':' (or is empty)", tags[i]);
            continue;
        }
        bool dup = false;
        for (int k = 0; k < nk && !dup; k++) dup = strcmp(kept[k], tags[i]) == 0;
        if (!dup) kept[nk++] = tags[i];
    }
    c->tags = kept;
    c->ntags = nk;
}

/* One column's documentation: `NAME: text`, `NAME: {description: text}`, or (the list
 * form) `- {name: NAME, description: text}`. */
static void add_column_doc(ProjectLoader *L, ModelConfig *c, YNode *name_node, YNode *v, int *cap)
{
    const char *name = project_expect_str(L, name_node, "a column name");
    if (!name) return;
    const char *desc = NULL;
    if (v && !yaml_is_null(v)) {
        if (v->kind == YNODE_SCALAR) desc = project_expect_str(L, v, "a column description");
        else if (project_expect_map(L, v, "the documentation of a column")) {
            project_check_keys(L, v, column_doc_keys + 1, 1, "the documentation of a column");
            YNode *d = yaml_get(v, "description");
            if (d && !yaml_is_null(d)) desc = project_expect_str(L, d, "`description`");
        }
    }
    for (int i = 0; i < c->ncolumn_docs; i++)
        if (strcmp(c->column_docs[i].name, name) == 0) {
            diag_error(L->dl, name_node->pos, "duplicate-key", "document each column once",
                       "column '%s' is documented twice (first at line %d)", name, c->column_docs[i].pos.line);
            return;
        }
    if (c->ncolumn_docs >= *cap) {
        int nc = *cap ? *cap * 2 : 8;
        ModelColumnDoc *na = ARENA_ARRAY(&L->p->arena, ModelColumnDoc, nc);
        if (c->ncolumn_docs) memcpy(na, c->column_docs, sizeof *na * (size_t)c->ncolumn_docs);
        c->column_docs = na;
        *cap = nc;
    }
    c->column_docs[c->ncolumn_docs++] = (ModelColumnDoc){name, desc, name_node->pos};
}

static void load_column_docs(ProjectLoader *L, YNode *n, ModelConfig *c)
{
    int cap = 0;
    if (n->kind == YNODE_SEQ) {
        for (int i = 0; i < n->nitems; i++) {
            YNode *it = n->items[i];
            if (!project_expect_map(L, it, "an entry of `columns` ({name, description})")) continue;
            project_check_keys(L, it, column_doc_keys, NELEM(column_doc_keys), "an entry of `columns`");
            YNode *nm = yaml_get(it, "name");
            if (!nm) {
                diag_error(L->dl, it->pos, "missing-key", "columns: [{name: customer_id, description: ...}]",
                           "an entry of `columns` has no `name`");
                continue;
            }
            add_column_doc(L, c, nm, yaml_get(it, "description"), &cap);
        }
        return;
    }
    if (!project_expect_map(L, n, "`columns` (a mapping of column name -> documentation)")) return;
    for (int i = 0; i < n->npairs; i++) add_column_doc(L, c, n->pairs[i].key, n->pairs[i].value, &cap);
}

static void load_config(ProjectLoader *L, YNode *k, YNode *v)
{
    Project *p = L->p;
    const char *name = project_expect_str(L, k, "a model name");
    if (!name) return;
    int previ = strmap_get(&L->config_index, name);
    const ModelConfig *prev = previ >= 0 ? &L->configs[previ] : NULL;
    bool overrides = L->override_file && k->pos.file && strcmp(k->pos.file, L->override_file) == 0;
    if (prev && L->override_file && prev->pos.file && strcmp(prev->pos.file, L->override_file) == 0)
        return;  /* an override stands */
    if (prev && !overrides) {
        diag_error(L->dl, k->pos, "duplicate-config", "merge the two entries",
                   "model '%s' is already configured at %s:%d", name,
                   prev->pos.file ? prev->pos.file : "?", prev->pos.line);
        return;
    }
    ModelConfig *c;
    if (prev) {
        c = (ModelConfig *)prev;
    } else {
        PROJECT_GROW(L, L->configs, L->nconfigs, L->cap_configs);
        strmap_put(&L->config_index, name, L->nconfigs);
        c = &L->configs[L->nconfigs++];
    }
    memset(c, 0, sizeof *c);
    c->name = name;
    c->pos = k->pos;
    c->materialized = MAT_VIEW;
    if (yaml_is_null(v)) return;
    const char *where = arena_printf(&p->arena, "the config of model '%s'", name);
    if (!project_expect_map(L, v, where)) return;
    project_check_keys(L, v, config_keys, NELEM(config_keys), where);
    YNode *n;
    if ((n = yaml_get(v, "materialized"))) {
        int m = project_expect_enum(L, n, materializations, NELEM(materializations), "materialization");
        if (m >= 0) {
            c->materialized = (Materialization)m;
            c->materialized_set = true;
            c->materialized_pos = n->pos;
        }
    }
    if ((n = yaml_get(v, "key"))) {
        c->key_pos = n->pos;
        project_expect_str_list(L, n, "`key`", &c->key, &c->nkey);
    }
    /* a missing key for upsert/table is reported by the IR analysis, which knows the
     * query's unique key and can suggest it */
    if ((n = yaml_get(v, "state_ttl"))) {
        c->state_ttl_pos = n->pos;
        project_expect_duration(L, n, "`state_ttl`", &c->state_ttl_us);
    }
    if ((n = yaml_get(v, "sink"))) c->sink = load_sink(L, name, n);
    if ((n = yaml_get(v, "audits"))) c->audits = load_audits(L, n);
    if ((n = yaml_get(v, "description"))) c->description = project_expect_str(L, n, "`description`");
    if ((n = yaml_get(v, "tags"))) load_tags(L, n, c);
    /* the ClickHouse backend validates the keys inside (it knows engines and settings) */
    if ((n = yaml_get(v, "clickhouse")) && project_expect_map(L, n, "`clickhouse`")) c->clickhouse = n;
    if ((n = yaml_get(v, "columns")) && !yaml_is_null(n)) load_column_docs(L, n, c);
}

/* Contract: parses one models/.../NAME.yml text; configs are attached to models by
 * project_finish_models. */
void project_load_models_config_text(ProjectLoader *L, const char *file, const char *text,
                                     size_t len)
{
    YNode *root = project_parse_yaml(L, file, text, len);
    if (!root || yaml_is_null(root)) return;
    if (!project_expect_map(L, root, file)) return;
    project_check_keys(L, root, file_keys, NELEM(file_keys), file);
    project_interpolate_tree(L, root, text, len);
    YNode *models = yaml_get(root, "models");
    if (!models) {
        SrcPos pos = {root->pos.file, 1, 1};
        diag_error(L->dl, pos, "missing-key", "a model config file is a mapping `models:` of name -> config",
                   "%s has no `models:` mapping", file);
        return;
    }
    if (yaml_is_null(models) || !project_expect_map(L, models, "`models`")) return;
    for (int i = 0; i < models->npairs; i++) load_config(L, models->pairs[i].key, models->pairs[i].value);
}

/* ---- SQL files ---- */

static bool is_identifier(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return false;
    for (s++; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* True when text holds nothing but whitespace and SQL comments. */
static bool sql_is_empty(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '-' && i + 1 < n && s[i + 1] == '-') {
            while (i < n && s[i] != '\n') i++;
        } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            int depth = 0; /* PostgreSQL block comments nest */
            do {
                if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') depth++, i += 2;
                else if (i + 1 < n && s[i] == '*' && s[i + 1] == '/') depth--, i += 2;
                else i++;
            } while (i < n && depth > 0);
        } else {
            return false;
        }
    }
    return true;
}

/* Contract: adds the model defined by one .sql file (file = project-relative path),
 * interpolating vars into its SQL; the text is copied into the arena. */
void project_load_model_sql(ProjectLoader *L, const char *file, const char *text, size_t len)
{
    Project *p = L->p;
    diag_add_source(L->dl, file, text);
    SrcPos top = {file, 1, 1};
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t bl = strlen(base);
    if (bl > 4 && strcmp(base + bl - 4, ".sql") == 0) bl -= 4;
    const char *name = arena_strndup(&p->arena, base, bl);
    if (!is_identifier(name)) {
        diag_error(L->dl, top, "bad-name", "rename the file using letters, digits and _",
                   "model name '%s' (the file name) is not an identifier", name);
    }
    int previ = strmap_get(&L->model_index, name);
    if (previ >= 0) {
        const ModelDef *prev = &p->models[previ];
        diag_error(L->dl, top, "duplicate-model", "model names are file names and must be unique",
                   "model '%s' is defined twice: %s and %s", name, prev->sql_file, file);
        return;
    }
    if (memchr(text, '\0', len)) {
        diag_error(L->dl, top, "bad-value", NULL, "%s contains a NUL byte", file);
        len = strlen(text);
    }
    bool empty = sql_is_empty(text, len);
    if (empty)
        diag_error(L->dl, top, "empty-model", "write a SELECT statement, or delete the file",
                   "model '%s' is empty", name);
    PROJECT_GROW(L, p->models, p->nmodels, L->cap_models);
    strmap_put(&L->model_index, name, p->nmodels);
    ModelDef *m = &p->models[p->nmodels++];
    memset(m, 0, sizeof *m);
    m->name = name;
    m->sql_file = arena_strdup(&p->arena, file);
    m->raw_sql = arena_strndup(&p->arena, text, len);
    m->materialized = MAT_VIEW;
    m->materialized_pos = top;
    m->key_pos = top;
    m->config_pos = top;
    int errors_before = L->dl->errors;
    project_interpolate_sql(L, m);
    /* an empty model, or SQL a var could not be put into, is not parsed: its one error
     * says what is wrong, not the syntax errors that would follow from it */
    if (empty || L->dl->errors > errors_before) m->sql = NULL;
}

static int cmp_model(const void *a, const void *b)
{
    return strcmp(((const ModelDef *)a)->name, ((const ModelDef *)b)->name);
}

void project_finish_models(ProjectLoader *L)
{
    Project *p = L->p;
    if (p->nmodels > 1) qsort(p->models, (size_t)p->nmodels, sizeof(ModelDef), cmp_model);
    const char **names = ARENA_ARRAY(&p->arena, const char *, p->nmodels ? p->nmodels : 1);
    for (int i = 0; i < p->nmodels; i++) names[i] = p->models[i].name;
    for (int i = 0; i < L->nconfigs; i++) {
        const ModelConfig *c = &L->configs[i];
        ModelDef *m = (ModelDef *)project_find_model(p, c->name);
        if (!m) {
            const char *hint = diag_did_you_mean(L->dl, c->name, names, p->nmodels);
            if (!hint)
                hint = arena_printf(&L->dl->arena, "create models/%s.sql, or remove this entry", c->name);
            diag_error(L->dl, c->pos, "unknown-model", hint,
                       "model '%s' is configured but has no .sql file", c->name);
            continue;
        }
        m->has_config = true;
        m->config_pos = c->pos;
        m->materialized = c->materialized;
        if (c->materialized_set) m->materialized_pos = c->materialized_pos;
        m->key = c->key;
        m->nkey = c->nkey;
        if (c->key) m->key_pos = c->key_pos;
        m->state_ttl_us = c->state_ttl_us;
        m->state_ttl_pos = c->state_ttl_pos;
        m->sink = c->sink;
        m->clickhouse = c->clickhouse;
        if (c->clickhouse) {
            YNode *lk = yaml_get(c->clickhouse, "lookup");
            m->lookup = lk && lk->kind == YNODE_SCALAR && (strcmp(lk->str, "true") == 0 || strcmp(lk->str, "yes") == 0);
        }
        m->audits = c->audits;
        m->description = c->description;
        m->tags = c->tags;
        m->ntags = c->ntags;
        m->column_docs = c->column_docs;
        m->ncolumn_docs = c->ncolumn_docs;
    }
}
