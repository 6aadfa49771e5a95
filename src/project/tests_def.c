/* Test definitions: tests/NAME.yml, a list `tests:` of {name, model, given, expect,
 * expect_final, expect_dead_letters, description; for upgrade tests previous, then,
 * expect_verdict}. `given` (and `then`) is a list of steps: {source, rows},
 * {watermark: {SOURCE: time}}, or bare row mappings (consecutive bare rows form one
 * step with source = NULL, resolved later by the layer that knows the model's
 * sources). Only the structure is checked here; values are checked by the runner. */
#include "project/project_internal.h"

#include <stdlib.h>
#include <string.h>

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const file_keys[] = {"tests"};
static const char *const test_keys[] = {"name", "model", "given", "expect", "expect_final",
                                        "expect_dead_letters", "description", "previous", "then",
                                        "expect_verdict", "compare", "float_tolerance"};
static const char *const compare_modes[] = {"exact", "subset"};
static const char *const previous_keys[] = {"models", "manifest"};
static const char *const previous_model_keys[] = {"sql", "config"};
static const char *const dead_keys[] = {"reason", "row"};
static const char *const rows_step_keys[] = {"source", "rows"};
static const char *const wm_step_keys[] = {"watermark"};
static const char *const ops[] = {"insert", "update", "delete"};

/* A row: a mapping of column -> scalar (or a list of scalars: an array column's
 * elements); `op` (when allowed) in insert|update|delete. */
static bool check_row(ProjectLoader *L, const YNode *row, bool op_allowed, const char *what)
{
    if (row->kind != YNODE_MAP) {
        diag_error(L->dl, row->pos, "bad-type", "write a row as a mapping: {column: value, ...}",
                   "expected a row mapping, found %s in %s", yaml_kind_name(row), what);
        return false;
    }
    bool ok = true;
    for (int i = 0; i < row->npairs; i++) {
        const YNode *k = row->pairs[i].key, *v = row->pairs[i].value;
        const char *col = project_expect_str(L, k, "a column name");
        if (!col) {
            ok = false;
            continue;
        }
        bool flat_list = v->kind == YNODE_SEQ && strcmp(col, "op") != 0;   /* an array column's elements */
        for (int j = 0; flat_list && j < v->nitems; j++) flat_list = v->items[j]->kind == YNODE_SCALAR;
        if (v->kind != YNODE_SCALAR && !flat_list) {
            diag_error(L->dl, v->pos, "bad-type", "row values are scalars (or null), or lists of scalars for arrays",
                       "expected a scalar value, found %s for column '%s'", yaml_kind_name(v), col);
            ok = false;
            continue;
        }
        if (strcmp(col, "op") == 0) {
            if (!op_allowed) {
                diag_error(L->dl, k->pos, "unexpected-op",
                           "only given rows and the `expect` changelog carry an op",
                           "rows in %s take no `op`", what);
                ok = false;
            } else if (project_expect_enum(L, v, ops, NELEM(ops), "op") < 0) {
                ok = false;
            }
        }
    }
    return ok;
}

/* rows: a list of row mappings (null = empty). */
static YNode **load_rows(ProjectLoader *L, const YNode *list, bool op_allowed, const char *what,
                         int *count)
{
    *count = 0;
    if (!list || yaml_is_null(list)) return NULL;
    if (list->kind != YNODE_SEQ) {
        diag_error(L->dl, list->pos, "bad-type", NULL, "expected a list of rows, found %s for %s",
                   yaml_kind_name(list), what);
        return NULL;
    }
    YNode **rows = ARENA_ARRAY(&L->p->arena, YNode *, list->nitems ? list->nitems : 1);
    for (int i = 0; i < list->nitems; i++)
        if (check_row(L, list->items[i], op_allowed, what)) rows[(*count)++] = list->items[i];
    return rows;
}

/* expect_dead_letters: a list of {reason: TEXT, row: {column: value, ...}} (row
 * optional: the listed columns of the rejected row). */
static YNode **load_dead_letters(ProjectLoader *L, const YNode *list, int *count)
{
    *count = 0;
    if (!list || yaml_is_null(list)) return NULL;
    if (list->kind != YNODE_SEQ) {
        diag_error(L->dl, list->pos, "bad-type", "e.g. expect_dead_letters: [{reason: late, row: {order_id: 3}}]",
                   "expected a list, found %s for `expect_dead_letters`", yaml_kind_name(list));
        return NULL;
    }
    YNode **out = ARENA_ARRAY(&L->p->arena, YNode *, list->nitems ? list->nitems : 1);
    for (int i = 0; i < list->nitems; i++) {
        YNode *d = list->items[i];
        if (!project_expect_map(L, d, "a dead letter ({reason, row})")) continue;
        project_check_keys(L, d, dead_keys, NELEM(dead_keys), "a dead letter");
        YNode *reason = yaml_get(d, "reason");
        if (!reason) {
            diag_error(L->dl, d->pos, "missing-key", "e.g. reason: late (or the error, e.g. division by zero)",
                       "a dead letter needs a `reason`");
            continue;
        }
        if (!project_expect_str(L, reason, "`reason`")) continue;
        YNode *row = yaml_get(d, "row");
        if (row && !yaml_is_null(row) && !check_row(L, row, false, "a dead letter's `row`")) continue;
        out[(*count)++] = d;
    }
    return out;
}

typedef struct StepList {
    TestStep *items;
    int n, cap;
} StepList;

static TestStep *new_step(ProjectLoader *L, StepList *sl, TestStepKind kind, SrcPos pos)
{
    PROJECT_GROW(L, sl->items, sl->n, sl->cap);
    TestStep *s = &sl->items[sl->n++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->pos = pos;
    return s;
}

static void load_watermark_step(ProjectLoader *L, StepList *sl, YNode *item)
{
    project_check_keys(L, item, wm_step_keys, NELEM(wm_step_keys), "a watermark step");
    YNode *wm = yaml_get(item, "watermark");
    if (!project_expect_map(L, wm, "`watermark` (a mapping of source -> time)")) return;
    if (wm->npairs == 0) {
        diag_error(L->dl, wm->pos, "bad-value", "e.g. watermark: {commerce.orders: '2024-01-01 00:01:00'}",
                   "watermark step names no source");
        return;
    }
    TestStep *s = new_step(L, sl, STEP_WATERMARK, item->pos);
    s->wms = ARENA_ARRAY(&L->p->arena, TestWatermark, wm->npairs);
    for (int i = 0; i < wm->npairs; i++) {
        const char *src = project_expect_str(L, wm->pairs[i].key, "a source name");
        const char *t = project_expect_str(L, wm->pairs[i].value, "a watermark time");
        if (!src || !t) continue;
        TestWatermark *w = &s->wms[s->nwms++];
        w->source = src;
        w->time = t;
        w->pos = wm->pairs[i].value->pos;
    }
}

static void load_rows_step(ProjectLoader *L, StepList *sl, YNode *item)
{
    project_check_keys(L, item, rows_step_keys, NELEM(rows_step_keys), "a given step");
    TestStep *s = new_step(L, sl, STEP_ROWS, item->pos);
    YNode *src = yaml_get(item, "source");
    if (src) {
        s->source = project_expect_str(L, src, "`source`");
    } else {
        diag_error(L->dl, item->pos, "missing-key", "add `source: NAME` naming the input the rows feed",
                   "a given step with `rows` needs a `source`");
    }
    YNode *rows = yaml_get(item, "rows");
    if (!rows) {
        diag_error(L->dl, item->pos, "missing-key", "add `rows:` with a list of row mappings",
                   "a given step with `source` needs `rows`");
        return;
    }
    s->rows = load_rows(L, rows, true, "`rows`", &s->nrows);
}

static void load_steps(ProjectLoader *L, TestStep **out, int *nout, YNode *given)
{
    if (!given || yaml_is_null(given)) return;
    if (given->kind != YNODE_SEQ) {
        diag_error(L->dl, given->pos, "bad-type",
                   "given is a list of steps ({source, rows} or {watermark}) or of rows",
                   "expected a list, found %s for `given`", yaml_kind_name(given));
        return;
    }
    StepList sl = {0};
    TestStep *bare = NULL; /* the open step of consecutive bare rows */
    for (int i = 0; i < given->nitems; i++) {
        YNode *item = given->items[i];
        if (item->kind == YNODE_MAP && yaml_get(item, "watermark")) {
            load_watermark_step(L, &sl, item);
            bare = NULL;
        } else if (item->kind == YNODE_MAP && (yaml_get(item, "source") || yaml_get(item, "rows"))) {
            load_rows_step(L, &sl, item);
            bare = NULL;
        } else if (check_row(L, item, true, "`given`")) {
            if (!bare) {
                bare = new_step(L, &sl, STEP_ROWS, item->pos);
                /* bare rows are at most the rest of the list */
                bare->rows = ARENA_ARRAY(&L->p->arena, YNode *, given->nitems - i);
            }
            bare->rows[bare->nrows++] = item;
        }
    }
    *out = sl.items;
    *nout = sl.n;
}

/* An upgrade test's previous version: {models: {NAME: {sql, config}}} or {manifest: PATH}. */
static void load_previous(ProjectLoader *L, TestCase *t, YNode *n)
{
    if (!project_expect_map(L, n, "`previous`")) return;
    project_check_keys(L, n, previous_keys, NELEM(previous_keys), "`previous`");
    YNode *models = yaml_get(n, "models"), *manifest = yaml_get(n, "manifest");
    if (!models == !manifest) {
        diag_error(L->dl, n->pos, "bad-value", "give the previous version's models (`models: {NAME: {sql: ...}}`) "
                   "or a manifest of it (`manifest: target_v1/manifest.json`)",
                   "`previous` needs exactly one of `models` and `manifest`");
        return;
    }
    if (manifest && !project_expect_str(L, manifest, "`manifest`")) return;
    if (models && project_expect_map(L, models, "`previous.models`")) {
        for (int i = 0; i < models->npairs; i++) {
            YNode *m = models->pairs[i].value;
            const char *what = arena_printf(&L->p->arena, "the previous version of model '%s'", models->pairs[i].key->str);
            if (!project_expect_map(L, m, what)) return;
            project_check_keys(L, m, previous_model_keys, NELEM(previous_model_keys), what);
            YNode *sql = yaml_get(m, "sql"), *cfg = yaml_get(m, "config");
            if (!sql) {
                diag_error(L->dl, m->pos, "missing-key", "add `sql: SELECT ...`", "%s has no `sql`", what);
                return;
            }
            if (!project_expect_str(L, sql, "`sql`")) return;
            if (cfg && !project_expect_map(L, cfg, "`config`")) return;
        }
    }
    t->previous = n;
}

static const TestCase *find_test(const Project *p, const char *name)
{
    for (int i = 0; i < p->ntests; i++)
        if (p->tests[i].name && strcmp(p->tests[i].name, name) == 0) return &p->tests[i];
    return NULL;
}

static void load_test_body(ProjectLoader *L, const char *file, YNode *n);

/* A float_tolerance: a non-negative number. */
static bool check_tolerance(ProjectLoader *L, const YNode *v)
{
    char *end = NULL;
    double d = v && v->kind == YNODE_SCALAR ? strtod(v->str, &end) : -1;
    if (!v || v->kind != YNODE_SCALAR || !end || *end || end == v->str || !(d >= 0) || d > 1e300) {
        diag_error(L->dl, v ? v->pos : (SrcPos){0}, "bad-value",
                   "float_tolerance: 1e-9, or per column {avg_price: 1e-6}",
                   "a float tolerance is a number >= 0, not '%s'", v && v->kind == YNODE_SCALAR ? v->str : "a collection");
        return false;
    }
    return true;
}

/* compare: exact | subset, float_tolerance: N | {column: N}; the columns are checked by
 * the test runner, which knows the model's columns. */
static void load_compare(ProjectLoader *L, TestCase *t, YNode *n)
{
    YNode *c = yaml_get(n, "compare");
    if (c) {
        int k = project_expect_enum(L, c, compare_modes, NELEM(compare_modes), "comparison");
        t->compare_subset = k == 1;
    }
    YNode *ft = yaml_get(n, "float_tolerance");
    if (!ft) return;
    if (ft->kind == YNODE_MAP) {
        bool ok = true;
        for (int i = 0; i < ft->npairs; i++) ok = check_tolerance(L, ft->pairs[i].value) && ok;
        if (ok) t->float_tolerance = ft;
    } else if (check_tolerance(L, ft)) {
        t->float_tolerance = ft;
    }
}

static void load_test(ProjectLoader *L, const char *file, YNode *n)
{
    int errors_before = L->dl->errors, ntests_before = L->p->ntests;
    load_test_body(L, file, n);
    if (L->p->ntests > ntests_before) L->p->tests[ntests_before].load_errors += L->dl->errors - errors_before;
}

static void load_test_body(ProjectLoader *L, const char *file, YNode *n)
{
    Project *p = L->p;
    if (!project_expect_map(L, n, "a test")) return;
    project_check_keys(L, n, test_keys, NELEM(test_keys), "a test");
    YNode *nn = yaml_get(n, "name");
    const char *name = NULL;
    if (!nn) {
        diag_error(L->dl, n->pos, "missing-key", "add `name: what_it_checks`", "test has no `name`");
    } else if ((name = project_expect_str(L, nn, "`name`"))) {
        const TestCase *prev = find_test(p, name);
        if (prev) {
            diag_error(L->dl, nn->pos, "duplicate-test", "test names are unique in a project",
                       "test '%s' is already defined at %s:%d", name, prev->pos.file, prev->pos.line);
            return;
        }
    }
    PROJECT_GROW(L, p->tests, p->ntests, L->cap_tests);
    TestCase *t = &p->tests[p->ntests++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->file = file;
    t->pos = n->pos;
    const char *label = name ? name : "(unnamed)";
    YNode *mn = yaml_get(n, "model");
    if (mn) {
        t->model = project_expect_str(L, mn, "`model`");
        t->model_pos = mn->pos;
    } else {
        diag_error(L->dl, n->pos, "missing-key", "add `model: MODEL_NAME`",
                   "test '%s' has no `model`", label);
    }
    load_steps(L, &t->given, &t->ngiven, yaml_get(n, "given"));
    YNode *prev = yaml_get(n, "previous"), *then = yaml_get(n, "then"), *ev = yaml_get(n, "expect_verdict");
    if (prev) load_previous(L, t, prev);
    if ((then || ev) && !prev)
        diag_error(L->dl, (then ? then : ev)->pos, "missing-key",
                   "an upgrade test names the version before it: `previous: {models: {...}}`",
                   "`%s` belongs to an upgrade test, and test '%s' has no `previous`", then ? "then" : "expect_verdict",
                   name ? name : "(unnamed)");
    if (then) load_steps(L, &t->then, &t->nthen, then);
    if (ev && (ev->kind == YNODE_SCALAR || project_expect_map(L, ev, "`expect_verdict`"))) t->expect_verdict = ev;
    YNode *e = yaml_get(n, "expect");
    if (e) {
        t->has_expect = true;
        t->expect = load_rows(L, e, true, "`expect`", &t->nexpect);
    }
    YNode *ef = yaml_get(n, "expect_final");
    if (ef) {
        t->has_expect_final = true;
        t->expect_final = load_rows(L, ef, false, "`expect_final`", &t->nexpect_final);
    }
    YNode *ed = yaml_get(n, "expect_dead_letters");
    if (ed) {
        t->has_expect_dead = true;
        t->expect_dead = load_dead_letters(L, ed, &t->nexpect_dead);
    }
    if (!e && !ef && !ed)
        diag_error(L->dl, n->pos, "missing-expect",
                   "add `expect:` (the exact changelog), `expect_final:` (the final rows) and/or "
                   "`expect_dead_letters:`",
                   "test '%s' has neither `expect` nor `expect_final`", label);
    YNode *d = yaml_get(n, "description");
    if (d) project_expect_str(L, d, "`description`");
    load_compare(L, t, n);
}

/* Contract: parses one tests file's text and appends its tests to L->p in order. */
void project_load_tests_text(ProjectLoader *L, const char *file, const char *text, size_t len)
{
    YNode *root = project_parse_yaml(L, file, text, len);
    if (!root || yaml_is_null(root)) return;
    if (!project_expect_map(L, root, file)) return;
    project_check_keys(L, root, file_keys, NELEM(file_keys), file);
    project_interpolate_tree(L, root, text, len);
    YNode *tests = yaml_get(root, "tests");
    if (!tests) {
        SrcPos pos = {root->pos.file, 1, 1};
        diag_error(L->dl, pos, "missing-key", "a tests file is a mapping `tests:` with a list of tests",
                   "%s has no `tests:` list", file);
        return;
    }
    if (yaml_is_null(tests)) return;
    if (tests->kind != YNODE_SEQ) {
        diag_error(L->dl, tests->pos, "bad-type", NULL, "expected a list, found %s for `tests`",
                   yaml_kind_name(tests));
        return;
    }
    const char *f = arena_strdup(&L->p->arena, file);
    for (int i = 0; i < tests->nitems; i++) {
        int before = L->p->ntests;
        load_test(L, f, tests->items[i]);
        if (L->p->ntests > before && i + 1 < tests->nitems) L->p->tests[before].end = tests->items[i + 1]->pos;
    }
}

/* Tests stay in file order (files are read sorted by name); check their models. */
void project_finish_tests(ProjectLoader *L)
{
    Project *p = L->p;
    const char **names = ARENA_ARRAY(&p->arena, const char *, p->nmodels ? p->nmodels : 1);
    for (int i = 0; i < p->nmodels; i++) names[i] = p->models[i].name;
    for (int i = 0; i < p->ntests; i++) {
        const TestCase *t = &p->tests[i];
        if (!t->model || project_find_model(p, t->model)) continue;
        const char *hint = diag_did_you_mean(L->dl, t->model, names, p->nmodels);
        if (!hint && p->nmodels)
            hint = arena_printf(&L->dl->arena, "models: %s", project_join_names(L, names, p->nmodels));
        diag_error(L->dl, t->model_pos, "unknown-model", hint, "test '%s' uses unknown model '%s'",
                   t->name ? t->name : "(unnamed)", t->model);
        p->tests[i].load_errors++;
    }
}
