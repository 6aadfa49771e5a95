/* Unit tests for the project loader (src/project): each test writes a small project
 * into a fresh temporary directory, loads it and checks the result or the exact
 * diagnostics (code, message, file:line:col, hint). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "project/project.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct Fixture {
    char dir[64];
    DiagList dl;
    Project *p;
} Fixture;

static int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/weir_test_project_XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    diag_init(&f->dl);
    *state = f;
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    Fixture *f = *state;
    project_free(f->p);
    diag_fini(&f->dl);
    nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* Write rel (creating its directories) under the project directory. */
static void put(Fixture *f, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", f->dir, rel);
    for (char *s = path + strlen(f->dir) + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            mkdir(path, 0755);
            *s = '/';
        }
    }
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static Project *load(Fixture *f, const char *target, const char *vars)
{
    ProjectOptions o = {.dir = f->dir, .target = target, .vars_json = vars};
    project_free(f->p);
    f->p = project_load(&o, &f->dl);
    return f->p;
}

static void dump(const DiagList *dl)
{
    StrBuf sb = STRBUF_INIT;
    diag_render_text(dl, &sb, false);
    fprintf(stderr, "%s", sb_cstr(&sb));
    for (int i = 0; i < dl->count; i++) fprintf(stderr, "  [code %s]\n", dl->items[i].code);
    sb_free(&sb);
}

static void expect_clean(Fixture *f)
{
    if (f->dl.count) dump(&f->dl);
    assert_int_equal(f->dl.count, 0);
}

/* Find the diagnostic with this code whose message contains msg; check its
 * position (line/col 0 = not checked) and that its hint contains hint (NULL = any). */
static const Diag *expect_diag(Fixture *f, const char *code, const char *msg, const char *file,
                               int line, int col, const char *hint)
{
    for (int i = 0; i < f->dl.count; i++) {
        const Diag *d = &f->dl.items[i];
        if (strcmp(d->code, code) != 0 || !strstr(d->message, msg)) continue;
        if (file && (!d->pos.file || strcmp(d->pos.file, file) != 0)) continue;
        if (line && d->pos.line != line) continue;
        if (col && d->pos.col != col) continue;
        if (hint && (!d->hint || !strstr(d->hint, hint))) continue;
        return d;
    }
    fprintf(stderr, "expected diagnostic [%s] '%s' at %s:%d:%d hint '%s'; got:\n", code, msg,
            file ? file : "-", line, col, hint ? hint : "-");
    dump(&f->dl);
    fail();
    return NULL;
}

#define WEIR_MIN "name: shop\nvars:\n  min_amount: 5\n  region: 'eu'\n"

static const char *ORDERS_SRC =
    "sources:\n"
    "  commerce.orders:\n"
    "    connector: file\n"
    "    path: data/orders.jsonl\n"
    "    format: json\n"
    "    columns:\n"
    "      order_id: bigint\n"
    "      amount: numeric(12,2)\n"
    "      status: text\n"
    "      created_at: timestamp\n"
    "    event_time: created_at\n"
    "    watermark_delay: 5s\n"
    "    primary_key: [order_id]\n"
    "    on_error: skip\n";

static void base_project(Fixture *f)
{
    put(f, "weir.yml", WEIR_MIN);
    put(f, "data/orders.jsonl", "{}\n");
    put(f, "sources/commerce.yml", ORDERS_SRC);
    put(f, "models/metrics.sql", "SELECT 1 FROM source('commerce.orders')\n");
}

/* ---------------- successful loads ---------------- */

static void test_full_project(void **state)
{
    Fixture *f = *state;
    put(f, "weir.yml",
        "name: commerce\n"
        "default_target: dev\n"
        "vars: {min_amount: 0, region: 'eu'}\n"
        "targets:\n"
        "  dev:  {runtime: native, state_dir: .weir/dev}\n"
        "  prod: {runtime: native, kafka: {bootstrap_servers: \"${ENV:KAFKA_BOOTSTRAP}\"}}\n"
        "  ch:\n");
    put(f, "data/orders.jsonl", "{}\n");
    put(f, "sources/commerce.yml", ORDERS_SRC);
    put(f, "sources/a_events.yaml",
        "sources:\n"
        "  events:\n"
        "    connector: kafka\n"
        "    topic: ev_${region}\n"
        "    format: changelog-json\n"
        "    columns:\n"
        "      id: {type: bigint, description: the id}\n"
        "      ts: timestamp with time zone\n"
        "    event_time: ts\n"
        "    primary_key: id\n"
        "  stdin_rows:\n"
        "    connector: stdin\n"
        "    format: csv\n"
        "    delimiter: ';'\n"
        "    columns: {a: text}\n");
    put(f, "models/marts/customer_metrics.sql",
        "SELECT customer_id, COUNT(*) AS n\nFROM source('commerce.orders')\nGROUP BY customer_id\n");
    put(f, "models/staging/b_model.sql", "SELECT 1\n");
    put(f, "models/schema.yml",
        "models:\n"
        "  customer_metrics:\n"
        "    materialized: upsert\n"
        "    key: [customer_id]\n"
        "    state_ttl: 30d\n"
        "    description: per customer\n"
        "    columns: {customer_id: {description: the customer}}\n"
        "    sink:\n"
        "      connector: file\n"
        "      path: out/${target}/customer_metrics.jsonl\n"
        "      format: changelog-json\n"
        "  b_model:\n"
        "    materialized: table\n"
        "    key: id\n"
        "    sink: {connector: sqlite, path: out/db.sqlite, table: 'b_${target}'}\n");
    put(f, "tests/spend.yml",
        "tests:\n"
        "  - name: spend_accumulates\n"
        "    model: customer_metrics\n"
        "    given:\n"
        "      - source: commerce.orders\n"
        "        rows:\n"
        "          - {order_id: 1, customer_id: 42, amount: 10}\n"
        "          - {order_id: 2, customer_id: 42, amount: 18}\n"
        "      - watermark: {commerce.orders: '2024-01-01 00:01:00'}\n"
        "    expect:\n"
        "      - {op: insert, customer_id: 42, n: 1}\n"
        "      - {op: update, customer_id: 42, n: 2}\n"
        "    expect_final:\n"
        "      - {customer_id: 42, n: 2}\n"
        "  - name: bare_rows\n"
        "    model: b_model\n"
        "    given:\n"
        "      - {id: 1}\n"
        "      - {id: 2, op: delete}\n"
        "      - watermark: {events: '2024-01-01'}\n"
        "      - {id: 3}\n"
        "    expect: []\n");
    put(f, "tests/a_first.yml", "tests:\n  - {name: first, model: b_model, expect_final: []}\n");
    Project *p = load(f, NULL, NULL);
    assert_non_null(p);
    expect_clean(f);
    assert_string_equal(p->name, "commerce");
    assert_string_equal(p->default_target, "dev");
    assert_int_equal(p->ntargets, 3);
    assert_string_equal(p->target->name, "dev");
    assert_string_equal(p->target->runtime, "native");
    assert_string_equal(p->target->state_dir, ".weir/dev");
    assert_string_equal(p->targets[1].kafka_bootstrap, "${ENV:KAFKA_BOOTSTRAP}");
    assert_string_equal(p->targets[2].runtime, "native");
    assert_string_equal(p->targets[2].state_dir, ".weir/ch");
    assert_int_equal(p->nvars, 2);

    /* sources sorted by name */
    assert_int_equal(p->nsources, 3);
    assert_string_equal(p->sources[0].name, "commerce.orders");
    assert_string_equal(p->sources[1].name, "events");
    assert_string_equal(p->sources[2].name, "stdin_rows");
    const SourceDef *o = project_find_source(p, "commerce.orders");
    assert_ptr_equal(o, &p->sources[0]);
    assert_int_equal(o->connector, SRC_FILE);
    assert_string_equal(o->path, "data/orders.jsonl");
    assert_int_equal(o->format, FMT_JSON);
    assert_int_equal(o->ncolumns, 4);
    assert_int_equal(o->columns[1].type.id, T_NUMERIC);
    assert_int_equal(o->columns[1].type.precision, 12);
    assert_int_equal(o->columns[1].type.scale, 2);
    assert_int_equal(o->columns[1].pos.line, 8);
    assert_int_equal(o->event_time_col, 3);
    assert_int_equal(o->watermark_delay_us, 5000000);
    assert_int_equal(o->npk, 1);
    assert_int_equal(o->pk_cols[0], 0);
    assert_int_equal(o->on_error, ONERR_SKIP);
    assert_string_equal(o->pos.file, "sources/commerce.yml");
    assert_int_equal(o->pos.line, 2);
    assert_int_equal(o->pos.col, 3);
    assert_int_equal(source_column_index(o, "status"), 2);
    assert_int_equal(source_column_index(o, "nope"), -1);
    const SourceDef *ev = &p->sources[1];
    assert_int_equal(ev->connector, SRC_KAFKA);
    assert_string_equal(ev->topic, "ev_eu");
    assert_int_equal(ev->format, FMT_CHANGELOG_JSON);
    assert_int_equal(ev->columns[1].type.id, T_TIMESTAMPTZ);
    assert_int_equal(ev->event_time_col, 1);
    assert_int_equal(ev->npk, 1);
    assert_int_equal(ev->on_error, ONERR_DEAD_LETTER);
    assert_int_equal(p->sources[2].csv_delimiter, ';');
    assert_int_equal(p->sources[2].format, FMT_CSV);

    /* models sorted by name, configs attached */
    assert_int_equal(p->nmodels, 2);
    assert_string_equal(p->models[0].name, "b_model");
    assert_string_equal(p->models[1].name, "customer_metrics");
    const ModelDef *m = project_find_model(p, "customer_metrics");
    assert_non_null(m);
    assert_string_equal(m->sql_file, "models/marts/customer_metrics.sql");
    assert_true(m->has_config);
    assert_int_equal(m->materialized, MAT_UPSERT);
    assert_int_equal(m->materialized_pos.line, 3);
    assert_int_equal(m->nkey, 1);
    assert_string_equal(m->key[0], "customer_id");
    assert_int_equal(m->state_ttl_us, 30LL * 86400 * 1000000);
    assert_non_null(m->sink);
    assert_int_equal(m->sink->connector, SINK_FILE);
    assert_string_equal(m->sink->path, "out/dev/customer_metrics.jsonl");
    assert_true(m->sink->path_per_target);
    const SinkDef *bs = project_find_model(p, "b_model")->sink;
    assert_true(bs->table_per_target && !bs->path_per_target);
    assert_int_equal(m->sink->format, FMT_CHANGELOG_JSON);
    assert_true(m->sink->format_set);
    assert_int_equal(m->config_pos.line, 2);
    const ModelDef *b = &p->models[0];
    assert_int_equal(b->materialized, MAT_TABLE);
    assert_int_equal(b->nkey, 1);
    assert_string_equal(b->key[0], "id");
    assert_int_equal(b->sink->connector, SINK_SQLITE);
    assert_string_equal(b->sink->table, "b_dev");
    assert_null(project_find_model(p, "nope"));

    /* tests: files sorted, then in order */
    assert_int_equal(p->ntests, 3);
    assert_string_equal(p->tests[0].name, "first");
    assert_string_equal(p->tests[0].file, "tests/a_first.yml");
    assert_true(p->tests[0].has_expect_final);
    assert_false(p->tests[0].has_expect);
    const TestCase *t = &p->tests[1];
    assert_string_equal(t->name, "spend_accumulates");
    assert_string_equal(t->model, "customer_metrics");
    assert_int_equal(t->model_pos.line, 3);
    assert_int_equal(t->ngiven, 2);
    assert_int_equal(t->given[0].kind, STEP_ROWS);
    assert_string_equal(t->given[0].source, "commerce.orders");
    assert_int_equal(t->given[0].nrows, 2);
    assert_string_equal(yaml_get(t->given[0].rows[1], "amount")->str, "18");
    assert_int_equal(t->given[1].kind, STEP_WATERMARK);
    assert_int_equal(t->given[1].nwms, 1);
    assert_string_equal(t->given[1].wms[0].source, "commerce.orders");
    assert_string_equal(t->given[1].wms[0].time, "2024-01-01 00:01:00");
    assert_int_equal(t->nexpect, 2);
    assert_int_equal(t->nexpect_final, 1);
    t = &p->tests[2];
    assert_int_equal(t->ngiven, 3); /* bare rows, watermark, bare row */
    assert_int_equal(t->given[0].kind, STEP_ROWS);
    assert_null(t->given[0].source);
    assert_int_equal(t->given[0].nrows, 2);
    assert_int_equal(t->given[1].kind, STEP_WATERMARK);
    assert_null(t->given[2].source);
    assert_int_equal(t->given[2].nrows, 1);
    assert_true(t->has_expect);
    assert_int_equal(t->nexpect, 0);
}

static void test_sql_interpolation_map(void **state)
{
    Fixture *f = *state;
    base_project(f);
    const char *raw = "SELECT *\nFROM t\nWHERE a >= ${min_amount} AND r = '${region}'\n  AND c = $${x} -- end\n";
    put(f, "models/metrics.sql", raw);
    Project *p = load(f, NULL, NULL);
    expect_clean(f);
    const ModelDef *m = project_find_model(p, "metrics");
    assert_string_equal(m->raw_sql, raw);
    const char *want = "SELECT *\nFROM t\nWHERE a >= 5 AND r = 'eu'\n  AND c = ${x} -- end\n";
    assert_string_equal(m->sql, want);
    /* text before any substitution maps to itself */
    SrcPos pos = project_sql_pos(m, (int)(strstr(m->sql, "FROM") - m->sql));
    assert_string_equal(pos.file, "models/metrics.sql");
    assert_int_equal(pos.line, 2);
    assert_int_equal(pos.col, 1);
    /* the inserted value maps to its ${ (line 3 col 12) */
    int off5 = (int)(strstr(m->sql, ">= 5") - m->sql) + 3;
    pos = project_sql_pos(m, off5);
    assert_int_equal(pos.line, 3);
    assert_int_equal(pos.col, 12);
    /* the 'u' of 'eu' maps to the second ${ too */
    pos = project_sql_pos(m, (int)(strstr(m->sql, "'eu'") - m->sql) + 2);
    assert_int_equal(pos.line, 3);
    assert_int_equal(pos.col, 35);
    /* text after substitutions maps to the raw position */
    pos = project_sql_pos(m, (int)(strstr(m->sql, "AND r") - m->sql));
    assert_int_equal(pos.line, 3);
    assert_int_equal(pos.col, 26);
    pos = project_sql_pos(m, (int)(strstr(m->sql, "-- end") - m->sql));
    assert_int_equal(pos.line, 4);
    assert_int_equal(pos.col, 17);
    /* out of range offsets are clamped */
    pos = project_sql_pos(m, -5);
    assert_int_equal(pos.line, 1);
    assert_int_equal(pos.col, 1);
    pos = project_sql_pos(m, 100000);
    assert_int_equal(pos.line, 5);
    assert_int_equal(pos.col, 1);
}

static void test_vars_override(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/metrics.sql", "SELECT ${min_amount}, ${extra}, '${region}'\n");
    Project *p = load(f, NULL, "{\"min_amount\": 1, \"extra\": \"x y\"}");
    expect_clean(f);
    const ModelDef *m = project_find_model(p, "metrics");
    assert_string_equal(m->sql, "SELECT 1, 'x y', 'eu'\n");
    assert_int_equal(p->nvars, 3);
    for (int i = 0; i < p->nvars; i++) {
        if (strcmp(p->vars[i].name, "extra") == 0) assert_true(p->vars[i].is_string);
        if (strcmp(p->vars[i].name, "min_amount") == 0) assert_false(p->vars[i].is_string);
    }
}

/* ${name} in SQL is a literal: a string var never becomes an identifier; inside a
 * '...' string its text goes in with quotes doubled; ${raw:name} is the text as it is. */
static void test_vars_are_sql_literals(void **state)
{
    Fixture *f = *state;
    put(f, "weir.yml", "name: shop\nvars:\n  cur: usd\n  n: 5\n  neg: -2.5e3\n  q: \"it's\"\n  five: '5'\n"
                       "  col: amount\n  flag: true\n");
    put(f, "models/m.sql",
        "SELECT ${raw:col} FROM t WHERE currency = ${cur} AND n > ${n} AND x = ${neg} AND s = ${q}\n"
        "  AND t = ${five} AND b = ${flag} AND l LIKE '%${q}%' -- it's ${cur}\n  AND c = ${cur}\n");
    Project *p = load(f, NULL, NULL);
    expect_clean(f);
    assert_string_equal(project_find_model(p, "m")->sql,
                        "SELECT amount FROM t WHERE currency = 'usd' AND n > 5 AND x = -2.5e3 AND s = 'it''s'\n"
                        "  AND t = '5' AND b = true AND l LIKE '%it''s%' -- it's 'usd'\n  AND c = 'usd'\n");
}

/* Inside E'...' and U&'...' strings a var's backslashes are doubled too; inside
 * $$...$$ (or $tag$...$tag$) strings its text goes in as it is, and a value holding the
 * delimiter is an error; inside a "..." identifier double quotes are doubled. Comments
 * (-- and nested block comments) and escapes do not confuse where a string ends. */
static void test_vars_in_escape_and_dollar_strings(void **state)
{
    Fixture *f = *state;
    put(f, "weir.yml", "name: shop\nvars:\n  bs: 'a\\b''c'\n  cur: usd\n  n: 5\n  dq: 'x\"y'\n");
    put(f, "models/m.sql",
        "SELECT E'${bs}' AS e, e'\\'${bs}' AS e2, U&'${bs}' AS u, $$${bs}$$ AS d, $t$it's ${n}$t$ AS t,\n"
        "  '${bs}' AS s, ${cur} AS c, \"${dq}\" AS i, 'E''${n}' AS x, E'\\\\' || ${n} AS y,\n"
        "  /* a 'quote /* nested */ ${n} */ $$ $1 $$ || ${cur} AS z, x$y$ || ${n} AS w\n");
    Project *p = load(f, NULL, NULL);
    expect_clean(f);
    assert_string_equal(project_find_model(p, "m")->sql,
                        "SELECT E'a\\\\b''c' AS e, e'\\'a\\\\b''c' AS e2, U&'a\\\\b''c' AS u, $$a\\b'c$$ AS d, "
                        "$t$it's 5$t$ AS t,\n"
                        "  'a\\b''c' AS s, 'usd' AS c, \"x\"\"y\" AS i, 'E''5' AS x, E'\\\\' || 5 AS y,\n"
                        "  /* a 'quote /* nested */ 5 */ $$ $1 $$ || 'usd' AS z, x$y$ || 5 AS w\n");
}

/* A value that holds the dollar quote's delimiter would end the string: an error at
 * the reference. */
static void test_vars_dollar_delimiter_in_value(void **state)
{
    Fixture *f = *state;
    put(f, "weir.yml", "name: shop\nvars:\n  evil: 'x$$ OR true --'\n");
    put(f, "models/m.sql", "SELECT $$${evil}$$ AS d\n");
    load(f, NULL, NULL);
    expect_diag(f, "bad-var",
                "variable 'evil' cannot be put into this string: its value holds $$, which would end the "
                "dollar-quoted string",
                "models/m.sql", 1, 10, NULL);
}

static void test_vars_errors(void **state)
{
    Fixture *f = *state;
    base_project(f);
    load(f, NULL, "[1, 2]");
    expect_diag(f, "bad-vars", "--vars must be a JSON object, found a list", "--vars", 1, 1, "--vars");
    diag_fini(&f->dl);
    diag_init(&f->dl);
    load(f, NULL, "{\"a\": [1]}");
    expect_diag(f, "bad-vars", "var 'a' must be a scalar, found a list", "--vars", 1, 7, NULL);
    diag_fini(&f->dl);
    diag_init(&f->dl);
    load(f, NULL, "{\"a\": 1");
    expect_diag(f, "yaml-syntax", "invalid YAML", "--vars", 2, 1, NULL);
}

static void test_targets(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "weir.yml",
        "name: shop\ndefault_target: dev\ntargets:\n  dev: {}\n  prod:\n    runtime: clickhouse\n"
        "    url: http://ch:8123\n    state_dir: /var/weir\n");
    Project *p = load(f, "prod", NULL);
    expect_clean(f);
    assert_string_equal(p->target->name, "prod");
    assert_string_equal(p->target->runtime, "clickhouse");
    assert_string_equal(p->target->state_dir, "/var/weir");
    assert_string_equal(p->target->pos.file, "weir.yml");
    assert_int_equal(p->target->pos.line, 5);

    load(f, "prd", NULL);
    expect_diag(f, "unknown-target", "unknown target 'prd'", NULL, 0, 0, "did you mean 'prod'?");
    assert_non_null(f->p->target); /* falls back so later stages still run */

    diag_fini(&f->dl);
    diag_init(&f->dl);
    load(f, "zzzzzz", NULL);
    expect_diag(f, "unknown-target", "unknown target 'zzzzzz'", NULL, 0, 0, "targets in weir.yml: dev, prod");
}

static void test_target_errors(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "weir.yml",
        "name: shop\ndefault_target: dve\ntargets:\n  dev: {runtime: nativ, stat_dir: x}\n"
        "  b: {url: http://x}\n");
    load(f, NULL, NULL);
    expect_diag(f, "unknown-target", "default_target 'dve' is not a target", "weir.yml", 2, 17,
                "did you mean 'dev'?");
    expect_diag(f, "unknown-value", "unknown runtime 'nativ'", "weir.yml", 4, 18, "did you mean 'native'?");
    expect_diag(f, "unknown-key", "unknown key 'stat_dir' in target 'dev'", "weir.yml", 4, 25,
                "did you mean 'state_dir'?");
    expect_diag(f, "key-not-applicable", "key 'url' applies to clickhouse targets, not to a native target",
                "weir.yml", 5, 7, NULL);
    assert_string_equal(f->p->target->name, "dev");
}

static void test_no_targets_implicit_dev(void **state)
{
    Fixture *f = *state;
    base_project(f);
    Project *p = load(f, NULL, NULL);
    expect_clean(f);
    assert_int_equal(p->ntargets, 1);
    assert_string_equal(p->target->name, "dev");
    assert_string_equal(p->target->runtime, "native");
    assert_string_equal(p->target->state_dir, ".weir/dev");
    load(f, "prod", NULL);
    expect_diag(f, "unknown-target", "unknown target 'prod'", NULL, 0, 0, "targets:");
}

/* ---------------- weir.yml ---------------- */

static void test_missing_weir_yml(void **state)
{
    Fixture *f = *state;
    Project *p = load(f, NULL, NULL);
    assert_null(p);
    assert_int_equal(f->dl.errors, 1);
    const Diag *d = expect_diag(f, "no-project", "no weir.yml in ", NULL, 0, 0, "weir init");
    assert_non_null(strstr(d->message, f->dir));
    assert_non_null(strstr(d->hint, "to create a project"));
}

static void test_weir_yml_errors(void **state)
{
    Fixture *f = *state;
    put(f, "weir.yml", "nmae: shop\ndefualt_target: dev\nvars: [1]\n");
    Project *p = load(f, NULL, NULL);
    assert_non_null(p);
    expect_diag(f, "missing-key", "weir.yml has no `name`", "weir.yml", 1, 1, "name:");
    expect_diag(f, "unknown-key", "unknown key 'nmae' in weir.yml", "weir.yml", 1, 1, "did you mean 'name'?");
    expect_diag(f, "unknown-key", "unknown key 'defualt_target'", "weir.yml", 2, 1,
                "did you mean 'default_target'?");
    expect_diag(f, "bad-type", "expected a mapping, found a list for `vars`", "weir.yml", 3, 7, NULL);

    diag_fini(&f->dl);
    diag_init(&f->dl);
    put(f, "weir.yml", "name: [a, b]\nvars:\n  ok: 1\n  bad-name: 2\n  lst: [1]\nzzzzzzzzzz: 1\n");
    load(f, NULL, NULL);
    expect_diag(f, "bad-type", "expected a string, found a list", "weir.yml", 1, 7, NULL);
    expect_diag(f, "bad-name", "var name 'bad-name'", "weir.yml", 4, 3, NULL);
    expect_diag(f, "bad-vars", "var 'lst' must be a scalar, found a list", "weir.yml", 5, 8, NULL);
    expect_diag(f, "unknown-key", "unknown key 'zzzzzzzzzz'", "weir.yml", 6, 1,
                "known keys: name, default_target, targets, vars, description");

    diag_fini(&f->dl);
    diag_init(&f->dl);
    put(f, "weir.yml", "- just\n- a list\n");
    assert_non_null(load(f, NULL, NULL));
    expect_diag(f, "bad-type", "expected a mapping, found a list for weir.yml", "weir.yml", 1, 1, NULL);

    diag_fini(&f->dl);
    diag_init(&f->dl);
    put(f, "weir.yml", "name: x\ntargets: {a: {}, b: {}}\n");
    load(f, NULL, NULL);
    expect_diag(f, "missing-key", "several targets but no default_target", "weir.yml", 2, 10, NULL);
}

static void test_yaml_syntax_in_project(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "sources/broken.yml", "sources:\n  x: [1, 2\n");
    load(f, NULL, NULL);
    expect_diag(f, "yaml-syntax", "invalid YAML", "sources/broken.yml", 0, 0, NULL);
    /* the file's text is registered: rendering shows the line */
    StrBuf sb = STRBUF_INIT;
    diag_render_text(&f->dl, &sb, false);
    assert_non_null(strstr(sb_cstr(&sb), "sources/broken.yml:"));
    sb_free(&sb);
}

static void test_diag_renders_source_line(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "sources/x.yml", "sources:\n  x:\n    connector: fiel\n    columns: {a: text}\n");
    load(f, NULL, NULL);
    StrBuf sb = STRBUF_INIT;
    diag_sort(&f->dl);
    diag_render_text(&f->dl, &sb, false);
    const char *out = sb_cstr(&sb);
    assert_non_null(strstr(out, "sources/x.yml:3:16: error: unknown connector 'fiel'"));
    assert_non_null(strstr(out, " 3 |     connector: fiel\n"));
    assert_non_null(strstr(out, "   |                ^\n"));
    assert_non_null(strstr(out, "hint: did you mean 'file'?"));
    sb_free(&sb);
}

/* ---------------- sources ---------------- */

static void test_source_errors(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "sources/bad.yml",
        "sources:\n"
        "  s1:\n"                          /* 2 */
        "    connector: fiel\n"            /* 3 */
        "    fromat: json\n"               /* 4 */
        "    columns:\n"                   /* 5 */
        "      a: bigitn\n"                /* 6 */
        "      b: text\n"                  /* 7 */
        "      c: zzzqqqxxxyyy\n"          /* 8 */
        "      d: numric(12, 2)\n"         /* 9 */
        "  s2:\n"                          /* 10 */
        "    connector: file\n"            /* 11 */
        "    path: data/missing.jsonl\n"   /* 12 */
        "    format: debezium-jsn\n"       /* 13 */
        "    on_error: ignore\n"           /* 14 */
        "    columns: {id: bigint, t: text}\n" /* 15 */
        "    event_time: tt\n"             /* 16 */
        "    primary_key: [id, idd]\n"     /* 17 */
        "  s3:\n"                          /* 18 */
        "    connector: file\n"            /* 19 */
        "    format: changelog-json\n"     /* 20 */
        "    columns: {id: bigint, t: text}\n" /* 21 */
        "    event_time: t\n"              /* 22 */
        "    watermark_delay: 5 parsecs\n" /* 23 */
        "  s4:\n"                          /* 24 */
        "    connector: kafka\n"           /* 25 */
        "    path: x\n"                    /* 26 */
        "    delimiter: ';'\n"             /* 27 */
        "    columns: [a, b]\n"            /* 28 */
        "  s5:\n"                          /* 29 */
        "    format: json\n"               /* 30 */
        "    columns: {}\n"                /* 31 */
        "    watermark_delay: 1s\n"        /* 32 */
        "  s6: [x]\n");                    /* 33 */
    load(f, NULL, NULL);
    const char *F = "sources/bad.yml";
    expect_diag(f, "unknown-value", "unknown connector 'fiel'", F, 3, 16, "did you mean 'file'?");
    expect_diag(f, "unknown-key", "unknown key 'fromat' in source 's1'", F, 4, 5, "did you mean 'format'?");
    expect_diag(f, "unknown-type", "unknown type 'bigitn' for column 'a'", F, 6, 10, "did you mean 'bigint'?");
    expect_diag(f, "unknown-type", "unknown type 'zzzqqqxxxyyy'", F, 8, 10, "PostgreSQL type name");
    expect_diag(f, "unknown-type", "unknown type 'numric(12, 2)'", F, 9, 10, "did you mean 'numeric'?");
    /* data need not exist before weir run: a note, not an error */
    const Diag *d = expect_diag(f, "file-not-found", "data file data/missing.jsonl does not exist yet", F, 12, 11,
                                "relative to the project");
    assert_int_equal(d->severity, DIAG_NOTE);
    expect_diag(f, "unknown-value", "unknown format 'debezium-jsn'", F, 13, 13, "did you mean 'debezium-json'?");
    expect_diag(f, "unknown-value", "unknown on_error 'ignore'", F, 14, 15, "dead_letter, fail, skip");
    expect_diag(f, "unknown-column", "event_time 'tt' is not a column of source 's2'", F, 16, 17,
                "did you mean 't'?");
    expect_diag(f, "unknown-column", "primary_key column 'idd' is not a column", F, 17, 23,
                "did you mean 'id'?");
    expect_diag(f, "missing-key", "file source 's3' needs a `path`", F, 18, 3, "path:");
    expect_diag(f, "missing-primary-key", "format changelog-json needs a primary_key", F, 20, 13,
                "primary_key:");
    expect_diag(f, "bad-event-time", "event_time column 't' has type text; it must be a timestamp", F, 22,
                17, "timestamptz");
    expect_diag(f, "bad-duration", "invalid duration '5 parsecs'", F, 23, 22, "5s");
    expect_diag(f, "key-not-applicable", "key 'path' applies to file sources, not to a kafka source", F, 26,
                5, NULL);
    expect_diag(f, "key-not-applicable", "key 'delimiter' applies to csv sources", F, 27, 5, "format: csv");
    expect_diag(f, "bad-type", "expected a mapping, found a list for the columns of source 's4'", F, 28, 14,
                NULL);
    expect_diag(f, "missing-key", "kafka source 's4' needs a `topic`", F, 24, 3, NULL);
    expect_diag(f, "missing-key", "source 's5' has no `connector`", F, 29, 3, "connector: file");
    expect_diag(f, "bad-value", "source 's5' has no columns", F, 31, 14, NULL);
    expect_diag(f, "bad-type", "expected a mapping, found a list for source 's6'", F, 33, 7, NULL);
    /* a warning, not an error */
    const Diag *w = expect_diag(f, "unused-key", "watermark_delay has no effect without event_time", F, 32,
                                22, "event_time");
    assert_int_equal(w->severity, DIAG_WARNING);
}

static void test_source_missing_columns_and_kinds(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "sources/x.yml",
        "sources:\n  a:\n    connector: stdin\n    topic: t\n  b:\n    connector: [file]\n"
        "    columns: {c: [bigint]}\n");
    load(f, NULL, NULL);
    expect_diag(f, "missing-key", "source 'a' has no `columns`", "sources/x.yml", 2, 3, "columns:");
    expect_diag(f, "key-not-applicable", "key 'topic' applies to kafka sources, not to a stdin source",
                "sources/x.yml", 4, 5, NULL);
    expect_diag(f, "bad-type", "expected a string, found a list for connector", "sources/x.yml", 6, 16, NULL);
    expect_diag(f, "bad-type", "expected a string, found a list for the type of column 'c'",
                "sources/x.yml", 7, 18, NULL);
}

static void test_duplicate_source_across_files(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "sources/z_more.yml",
        "sources:\n\n  commerce.orders:\n    connector: stdin\n    columns: {a: text}\n");
    Project *p = load(f, NULL, NULL);
    expect_diag(f, "duplicate-source", "source 'commerce.orders' is already defined at sources/commerce.yml:2",
                "sources/z_more.yml", 3, 3, NULL);
    assert_int_equal(p->nsources, 1);
    assert_int_equal(p->sources[0].connector, SRC_FILE); /* the first definition stays */
}

static void test_source_file_top_level(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "sources/x.yml", "sorces:\n  a: {}\n");
    put(f, "sources/y.yml", "sources: [a]\n");
    put(f, "sources/notes.txt", "ignored");
    load(f, NULL, NULL);
    expect_diag(f, "unknown-key", "unknown key 'sorces' in sources/x.yml", "sources/x.yml", 1, 1,
                "did you mean 'sources'?");
    expect_diag(f, "missing-key", "sources/x.yml has no `sources:` mapping", "sources/x.yml", 1, 1, NULL);
    expect_diag(f, "bad-type", "expected a mapping, found a list for `sources`", "sources/y.yml", 1, 10, NULL);
}

static void test_file_source_directory_and_env_path(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "data/dir/x", "");
    put(f, "sources/x.yml",
        "sources:\n  a: {connector: file, path: data/dir, columns: {a: text}}\n"
        "  b: {connector: file, path: '${ENV:DATA_FILE}', columns: {a: text}}\n");
    Project *p = load(f, NULL, NULL);
    /* a directory is a source of many files; a glob that matches nothing yet is noted */
    assert_int_equal(f->dl.errors, 0);
    assert_int_equal(f->dl.count, 0);
    assert_string_equal(project_find_source(p, "b")->path, "${ENV:DATA_FILE}");
}

/* ---------------- models ---------------- */

static void test_duplicate_model(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/a/dup.sql", "SELECT 1\n");
    put(f, "models/b/dup.sql", "SELECT 2\n");
    Project *p = load(f, NULL, NULL);
    expect_diag(f, "duplicate-model", "model 'dup' is defined twice: models/a/dup.sql and models/b/dup.sql",
                "models/b/dup.sql", 1, 1, NULL);
    const ModelDef *m = project_find_model(p, "dup");
    assert_string_equal(m->sql_file, "models/a/dup.sql");
    assert_int_equal(p->nmodels, 2);
}

static void test_models_symlink_loop(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/sub/inner.sql", "SELECT 1\n");
    char link[512];
    snprintf(link, sizeof link, "%s/models/sub/loop", f->dir);
    assert_int_equal(symlink("..", link), 0);
    Project *p = load(f, NULL, NULL);
    expect_clean(f);
    assert_int_equal(p->nmodels, 2);
    assert_string_equal(project_find_model(p, "inner")->sql_file, "models/sub/inner.sql");
}

static void test_weir_yml_is_directory(void **state)
{
    Fixture *f = *state;
    put(f, "weir.yml/x", "");
    assert_null(load(f, NULL, NULL));
    expect_diag(f, "io-error", "it is a directory", NULL, 0, 0, NULL);
}

static void test_empty_and_badly_named_model(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/empty.sql", "  \n-- nothing here\n/* nor /* here */ */\n");
    put(f, "models/my-model.sql", "SELECT 1\n");
    load(f, NULL, NULL);
    expect_diag(f, "empty-model", "model 'empty' is empty", "models/empty.sql", 1, 1, "SELECT");
    expect_diag(f, "bad-name", "model name 'my-model'", "models/my-model.sql", 1, 1, NULL);
}

static void test_model_config_errors(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/other.sql", "SELECT 2\n");
    put(f, "models/config.yml",
        "models:\n"
        "  metrcs:\n"                        /* 2 */
        "    materialized: view\n"           /* 3 */
        "  metrics:\n"                       /* 4 */
        "    materialized: upsrt\n"          /* 5 */
        "    state_ttl: forever\n"           /* 6 */
        "    keys: [a]\n"                    /* 7 */
        "    sink:\n"                        /* 8 */
        "      connector: fil\n"             /* 9 */
        "  other:\n"                         /* 10 */
        "    materialized: upsert\n"         /* 11 */
        "    key: [[a]]\n"                   /* 12 */
        "    columns: [a]\n"                 /* 13 */
        "  qqqqqqqqqqqq: {}\n");             /* 14 */
    put(f, "models/z/more.yml", "models:\n  other:\n    materialized: table\n    key: x\n");
    load(f, NULL, NULL);
    const char *F = "models/config.yml";
    expect_diag(f, "unknown-model", "model 'metrcs' is configured but has no .sql file", F, 2, 3,
                "did you mean 'metrics'?");
    expect_diag(f, "unknown-model", "model 'qqqqqqqqqqqq'", F, 14, 3, "create models/qqqqqqqqqqqq.sql");
    expect_diag(f, "unknown-value", "unknown materialization 'upsrt'", F, 5, 19, "did you mean 'upsert'?");
    expect_diag(f, "bad-duration", "invalid duration 'forever' for `state_ttl`", F, 6, 16, NULL);
    expect_diag(f, "unknown-key", "unknown key 'keys' in the config of model 'metrics'", F, 7, 5,
                "did you mean 'key'?");
    expect_diag(f, "unknown-value", "unknown sink connector 'fil'", F, 9, 18, "did you mean 'file'?");
    expect_diag(f, "bad-type", "expected a string, found a list for `key`", F, 12, 11, NULL);
    /* `columns` is a mapping or dbt's list of {name, description} */
    expect_diag(f, "bad-type", "expected a mapping, found a string for an entry of `columns`", F, 13, 15, NULL);
    expect_diag(f, "duplicate-config", "model 'other' is already configured at models/config.yml:10",
                "models/z/more.yml", 2, 3, NULL);
}

static void test_upsert_needs_key(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/schema.yml", "models:\n  metrics:\n    materialized: table\n");
    load(f, NULL, NULL);
    /* the loader accepts it: the IR analysis reports the missing key, with the query's
     * unique key as the hint (tests/cli/check_upsert_missing_key) */
    expect_clean(f);
    assert_int_equal(f->p->models[0].materialized, MAT_TABLE);
    assert_int_equal(f->p->models[0].nkey, 0);
}

static void test_sinks(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/k.sql", "SELECT 1\n");
    put(f, "models/w.sql", "SELECT 1\n");
    put(f, "models/p.sql", "SELECT 1\n");
    put(f, "models/c.sql", "SELECT 1\n");
    put(f, "models/s.sql", "SELECT 1\n");
    put(f, "models/schema.yml",
        "models:\n"
        "  k: {sink: {connector: kafka, topic: out, format: upsert, bootstrap_servers: 'b:9092'}}\n"
        "  w: {sink: {connector: webhook, url: 'http://h/x', method: PUT, headers: {A: b}, batch: 50}}\n"
        "  p: {sink: {connector: postgres, dsn: 'host=x', table: t1}}\n"
        "  c: {sink: {connector: clickhouse, url: 'http://ch', database: db}}\n"
        "  s: {sink: {connector: stdout}}\n");
    Project *p = load(f, NULL, NULL);
    expect_clean(f);
    const SinkDef *s = project_find_model(p, "k")->sink;
    assert_int_equal(s->connector, SINK_KAFKA);
    assert_string_equal(s->topic, "out");
    assert_int_equal(s->format, FMT_UPSERT);
    assert_string_equal(s->bootstrap_servers, "b:9092");
    s = project_find_model(p, "w")->sink;
    assert_int_equal(s->connector, SINK_WEBHOOK);
    assert_string_equal(s->url, "http://h/x");
    assert_string_equal(s->method, "PUT");
    assert_int_equal(s->batch, 50);
    assert_string_equal(yaml_get(s->headers, "A")->str, "b");
    s = project_find_model(p, "p")->sink;
    assert_string_equal(s->dsn, "host=x");
    assert_string_equal(s->table, "t1");
    s = project_find_model(p, "c")->sink;
    assert_string_equal(s->database, "db");
    assert_string_equal(s->table, "c");
    s = project_find_model(p, "s")->sink;
    assert_int_equal(s->connector, SINK_STDOUT);
    assert_int_equal(s->format, FMT_JSON);
    assert_false(s->format_set);
    assert_string_equal(sink_connector_name(s->connector), "stdout");
}

static void test_sink_errors(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/a.sql", "SELECT 1\n");
    put(f, "models/b.sql", "SELECT 1\n");
    put(f, "models/c.sql", "SELECT 1\n");
    put(f, "models/schema.yml",
        "models:\n"
        "  a:\n"
        "    sink:\n"                          /* 3 */
        "      connector: file\n"              /* 4 */
        "      topic: x\n"                     /* 5 */
        "      format: upsert\n"               /* 6 */
        "  b:\n"
        "    sink: {path: x}\n"                /* 8 */
        "  c:\n"
        "    sink: {connector: webhook, url: u, batch: lots, method: YELL, tpoic: x}\n"); /* 10 */
    load(f, NULL, NULL);
    const char *F = "models/schema.yml";
    expect_diag(f, "key-not-applicable", "key 'topic' does not apply to a file sink", F, 5, 7,
                "file sinks take: path, format");
    expect_diag(f, "missing-key", "a file sink needs `path`", F, 4, 7, "path:");
    expect_diag(f, "unknown-value", "unknown sink format 'upsert'", F, 6, 15,
                "json, changelog-json, debezium-json");
    expect_diag(f, "missing-key", "the sink of model 'b' has no `connector`", F, 8, 11, "file, stdout");
    expect_diag(f, "bad-value", "batch must be a number", F, 10, 47, NULL);
    expect_diag(f, "unknown-value", "unknown HTTP method 'YELL'", F, 10, 61, NULL);
    expect_diag(f, "unknown-key", "unknown key 'tpoic' in the sink of model 'c'", F, 10, 67,
                "did you mean 'topic'?");
}

/* ---------------- interpolation ---------------- */

/* ${target} is the selected target's name in YAML and SQL; it cannot be a var's name
 * and is unknown in weir.yml (read before the target is chosen). */
static void test_target_var(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "weir.yml", "name: shop\ndefault_target: dev\ntargets: {dev: {}, prod: {}}\n");
    put(f, "models/metrics.sql", "SELECT '${target}' AS t FROM source('commerce.orders')\n");
    put(f, "models/metrics.yml",
        "models:\n  metrics:\n    materialized: append\n"
        "    sink: {connector: file, path: 'out/${target}/m.jsonl'}\n");
    Project *p = load(f, "prod", NULL);
    expect_clean(f);
    const ModelDef *m = project_find_model(p, "metrics");
    assert_string_equal(m->sql, "SELECT 'prod' AS t FROM source('commerce.orders')\n");
    assert_string_equal(m->sink->path, "out/prod/m.jsonl");

    load(f, NULL, "{\"target\": 1}");
    expect_diag(f, "bad-name", "var name 'target' is reserved", "--vars", 1, 2, NULL);

    diag_fini(&f->dl);
    diag_init(&f->dl);
    put(f, "weir.yml", "name: shop\nvars: {target: x}\ntargets:\n  dev: {state_dir: '.weir/${target}'}\n");
    load(f, NULL, NULL);
    expect_diag(f, "bad-name", "var name 'target' is reserved", "weir.yml", 2, 8, NULL);
    expect_diag(f, "unknown-var", "unknown variable 'target'", "weir.yml", 4, 27, "not in weir.yml");
}

static void test_unknown_var_in_sql(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "models/metrics.sql", "SELECT *\n  FROM t WHERE a > ${min_amout}\n   AND b = ${qqqqqqqqq} ${ENV:X} ${unterminated\n");
    load(f, NULL, NULL);
    const char *F = "models/metrics.sql";
    expect_diag(f, "unknown-var", "unknown variable 'min_amout'", F, 2, 20, "did you mean 'min_amount'?");
    expect_diag(f, "unknown-var", "unknown variable 'qqqqqqqqq'", F, 3, 12, "vars:");
    expect_diag(f, "env-in-sql", "environment references are not allowed in model SQL", F, 3, 25, NULL);
    expect_diag(f, "bad-interpolation", "unterminated variable reference", F, 3, 34, NULL);
    const ModelDef *m = project_find_model(f->p, "metrics");
    /* SQL a var could not be put into is not parsed: no syntax errors follow */
    assert_null(m->sql);
    assert_non_null(strstr(m->raw_sql, "${min_amout}"));
}

static void test_yaml_interpolation(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "data/orders_eu.jsonl", "{}\n");
    put(f, "sources/x.yml",
        "sources:\n"
        "  a:\n"
        "    connector: file\n"
        "    path: data/orders_${region}.jsonl\n"
        "    description: 'cost $${x} and ${regin} and ${}'\n"
        "    columns: {a: text}\n"
        "  b:\n"
        "    connector: kafka\n"
        "    topic: t\n"
        "    bootstrap_servers: ${ENV:KAFKA}\n"
        "    columns: {a: text}\n");
    Project *p = load(f, NULL, NULL);
    expect_diag(f, "unknown-var", "unknown variable 'regin'", "sources/x.yml", 5, 34, "did you mean 'region'?");
    expect_diag(f, "bad-interpolation", "empty variable reference", "sources/x.yml", 5, 47, NULL);
    assert_int_equal(f->dl.errors, 2);
    assert_string_equal(project_find_source(p, "a")->path, "data/orders_eu.jsonl");
    const char *bs = project_find_source(p, "b")->bootstrap_servers;
    assert_string_equal(bs, "${ENV:KAFKA}");
    char err[128];
    setenv("WEIR_TEST_KAFKA", "k1:9092", 1);
    unsetenv("WEIR_TEST_UNSET");
    assert_string_equal(project_resolve_env(p, "x ${ENV:WEIR_TEST_KAFKA} y $${z}", err, sizeof err),
                        "x k1:9092 y ${z}");
    assert_null(project_resolve_env(p, "${ENV:WEIR_TEST_UNSET}", err, sizeof err));
    assert_string_equal(err, "environment variable WEIR_TEST_UNSET is not set");
}

/* ---------------- tests ---------------- */

static void test_tests_errors(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "tests/a.yml",
        "tests:\n"
        "  - name: t1\n"                                   /* 2 */
        "    model: metrics\n"
        "    expect: []\n"
        "  - name: t2\n"                                   /* 5 */
        "    modl: metrics\n"                              /* 6 */
        "    given:\n"
        "      - source: commerce.orders\n"                /* 8 */
        "        rowz: []\n"                               /* 9 */
        "      - [1, 2]\n"                                 /* 10 */
        "      - {a: 1, op: upsert}\n"                     /* 11 */
        "      - {a: [[1]]}\n"                             /* 12 */
        "      - watermark: 5\n"                           /* 13 */
        "  - model: metrcs\n"                              /* 14 */
        "    expect: [{op: insert, a: 1}, 7]\n"            /* 15 */
        "    expect_final: [{op: insert, a: 1}]\n");       /* 16 */
    put(f, "tests/b.yml",
        "tests:\n"
        "  - name: t1\n"                                   /* 2 */
        "    model: metrics\n"
        "    expect: []\n");
    load(f, NULL, NULL);
    const char *F = "tests/a.yml";
    expect_diag(f, "unknown-key", "unknown key 'modl' in a test", F, 6, 5, "did you mean 'model'?");
    expect_diag(f, "missing-key", "test 't2' has no `model`", F, 5, 5, NULL);
    expect_diag(f, "missing-expect", "test 't2' has neither `expect` nor `expect_final`", F, 5, 5, NULL);
    expect_diag(f, "unknown-key", "unknown key 'rowz' in a given step", F, 9, 9, "did you mean 'rows'?");
    expect_diag(f, "missing-key", "a given step with `source` needs `rows`", F, 8, 9, NULL);
    expect_diag(f, "bad-type", "expected a row mapping, found a list in `given`", F, 10, 9, NULL);
    expect_diag(f, "unknown-value", "unknown op 'upsert'", F, 11, 20, "did you mean 'insert'?");
    expect_diag(f, "bad-type", "expected a scalar value, found a list for column 'a'", F, 12, 13, NULL);
    expect_diag(f, "bad-type", "expected a mapping, found a string for `watermark`", F, 13, 20, NULL);
    expect_diag(f, "missing-key", "test has no `name`", F, 14, 5, NULL);
    expect_diag(f, "unknown-model", "test '(unnamed)' uses unknown model 'metrcs'", F, 14, 12,
                "did you mean 'metrics'?");
    expect_diag(f, "bad-type", "expected a row mapping, found a string in `expect`", F, 15, 34, NULL);
    expect_diag(f, "unexpected-op", "rows in `expect_final` take no `op`", F, 16, 21, "expect");
    expect_diag(f, "duplicate-test", "test 't1' is already defined at tests/a.yml:2", "tests/b.yml", 2, 11,
                NULL);
    assert_int_equal(f->p->ntests, 3);
}

static void test_tests_top_level(void **state)
{
    Fixture *f = *state;
    base_project(f);
    put(f, "tests/a.yml", "tests: {name: x}\n");
    put(f, "tests/b.yml", "test:\n  - name: x\n");
    put(f, "tests/c.yml", "tests:\n  - name: y\n    model: metrics\n    given: {a: 1}\n    expect: 5\n");
    load(f, NULL, NULL);
    expect_diag(f, "bad-type", "expected a list, found a mapping for `tests`", "tests/a.yml", 1, 8, NULL);
    expect_diag(f, "unknown-key", "unknown key 'test'", "tests/b.yml", 1, 1, "did you mean 'tests'?");
    expect_diag(f, "bad-type", "expected a list, found a mapping for `given`", "tests/c.yml", 4, 12, NULL);
    expect_diag(f, "bad-type", "expected a list of rows, found a string for `expect`", "tests/c.yml", 5, 13,
                NULL);
}

/* ---------------- durations and helpers ---------------- */

static void test_durations(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int64_t us;
    } ok[] = {
        {"5s", 5000000},
        {"500ms", 500000},
        {"10m", 600000000},
        {"2h", 7200000000LL},
        {"30d", 2592000000000LL},
        {"1w", 604800000000LL},
        {"250us", 250},
        {"5 seconds", 5000000},
        {"1 hour", 3600000000LL},
        {"2 days", 172800000000LL},
        {"1 minute", 60000000},
        {"1.5h", 5400000000LL},
        {"1h 30m", 5400000000LL},
        {"1h30m", 5400000000LL},
        {"0", 0},
        {" 3 MS ", 3000},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t us = -1;
        if (!project_parse_duration(ok[i].s, &us)) fail_msg("rejected '%s'", ok[i].s);
        assert_int_equal(us, ok[i].us);
    }
    static const char *const bad[] = {"", "5", "s", "-5s", "5 parsecs", "1.0000001us", "5s5",
                                      "99999999999999999999s", "9999999999999w", "1.s", "abc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t us;
        if (project_parse_duration(bad[i], &us)) fail_msg("accepted '%s'", bad[i]);
    }
}

static void test_names_and_paths(void **state)
{
    Fixture *f = *state;
    base_project(f);
    Project *p = load(f, NULL, NULL);
    expect_clean(f);
    assert_string_equal(data_format_name(FMT_DEBEZIUM_JSON), "debezium-json");
    assert_string_equal(materialization_name(MAT_RETRACT), "retract");
    assert_true(data_format_is_updating(FMT_CHANGELOG_JSON));
    assert_false(data_format_is_updating(FMT_CSV));
    char want[256];
    snprintf(want, sizeof want, "%s/data/x", f->dir);
    assert_string_equal(project_path(p, "data/x"), want);
    assert_string_equal(project_path(p, "/abs/x"), "/abs/x");
    const ModelDef *m = project_find_model(p, "metrics");
    assert_false(m->has_config);
    assert_int_equal(m->materialized, MAT_VIEW);
    assert_string_equal(m->config_pos.file, "models/metrics.sql");
    assert_int_equal(m->config_pos.line, 1);
    assert_null(m->sink);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_full_project),
        T(test_sql_interpolation_map),
        T(test_vars_override),
        T(test_vars_are_sql_literals),
        T(test_vars_in_escape_and_dollar_strings),
        T(test_vars_dollar_delimiter_in_value),
        T(test_vars_errors),
        T(test_targets),
        T(test_target_errors),
        T(test_no_targets_implicit_dev),
        T(test_missing_weir_yml),
        T(test_weir_yml_errors),
        T(test_yaml_syntax_in_project),
        T(test_diag_renders_source_line),
        T(test_source_errors),
        T(test_source_missing_columns_and_kinds),
        T(test_duplicate_source_across_files),
        T(test_source_file_top_level),
        T(test_file_source_directory_and_env_path),
        T(test_duplicate_model),
        T(test_models_symlink_loop),
        T(test_weir_yml_is_directory),
        T(test_empty_and_badly_named_model),
        T(test_model_config_errors),
        T(test_upsert_needs_key),
        T(test_sinks),
        T(test_sink_errors),
        T(test_target_var),
        T(test_unknown_var_in_sql),
        T(test_yaml_interpolation),
        T(test_tests_errors),
        T(test_tests_top_level),
        T(test_durations),
        T(test_names_and_paths),
    };
    return cmocka_run_group_tests_name("project", tests, NULL, NULL);
}
