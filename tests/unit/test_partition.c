/* Unit tests of the key-partitioning analysis (engine/partition.h) over real projects
 * (loader, binder, IR): which pipelines route by which source column, why the others
 * keep one replica; the replica hash and the routing of a batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/partition.h"
#include "ir/ir.h"
#include "project/project.h"
#include "sql/binder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/weir-test-partition-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0777);
        *s = '/';
    }
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *SOURCES =
    "sources:\n"
    "  s.orders:\n"
    "    connector: file\n"
    "    path: data/orders.jsonl\n"
    "    format: json\n"
    "    columns: {order_id: bigint, customer_id: bigint, amount: 'numeric(12,2)', status: text, ts: timestamp}\n"
    "    event_time: ts\n"
    "    watermark_delay: 1s\n"
    "  s.customers:\n"
    "    connector: file\n"
    "    path: data/customers.jsonl\n"
    "    format: changelog-json\n"
    "    columns: {id: bigint, name: text, tier: text}\n"
    "    primary_key: [id]\n";

typedef struct Loaded {
    DiagList dl;
    Project *p;
    Arena arena;
    IrGraph *g;
    EngPartition part;
} Loaded;

/* Writes the project: models given as "name=SQL" strings (NULL-terminated), with an
 * optional schema.yml. */
static void load(Loaded *l, const char *schema, const char *const *models)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/models'", dir);
    assert_int_equal(system(cmd), 0);
    put("weir.yml", "name: part\n");
    put("sources/s.yml", SOURCES);
    put("data/orders.jsonl", "");
    put("data/customers.jsonl", "");
    if (schema) put("models/schema.yml", schema);
    for (int i = 0; models[i]; i++) {
        char name[128];
        const char *eq = strchr(models[i], '=');
        snprintf(name, sizeof name, "models/%.*s.sql", (int)(eq - models[i]), models[i]);
        put(name, eq + 1);
    }
    ProjectOptions po = {.dir = dir};
    diag_init(&l->dl);
    l->p = project_load(&po, &l->dl);
    assert_non_null(l->p);
    arena_init(&l->arena, 65536);
    BoundProject *bp = sql_bind_project(l->p, &l->arena, &l->dl);
    l->g = ir_build(bp, &l->arena, &l->dl);
    if (l->dl.errors) {
        StrBuf sb = STRBUF_INIT;
        diag_render_text(&l->dl, &sb, false);
        fail_msg("project errors:\n%s", sb_cstr(&sb));
    }
}

static void unload(Loaded *l)
{
    eng_partition_free(&l->part);
    arena_fini(&l->arena);
    project_free(l->p);
    diag_fini(&l->dl);
}

static int source_index(const Loaded *l, const char *name)
{
    for (int s = 0; s < l->p->nsources; s++)
        if (strcmp(l->p->sources[s].name, name) == 0) return s;
    fail_msg("no source %s", name);
    return -1;
}

/* The routing column of source `name`, by name ("" when none). */
static const char *routed_by(const Loaded *l, const char *name)
{
    int s = source_index(l, name);
    int c = l->part.source_col[s];
    return c < 0 ? "" : l->p->sources[s].columns[c].name;
}

static void expect_ok(const char *schema, const char *const *models, const char *orders_col, const char *customers_col)
{
    Loaded l;
    load(&l, schema, models);
    bool ok = eng_partition_plan(l.g, NULL, &l.part);
    if (!ok) fail_msg("not partitioned: %s", l.part.reason);
    assert_string_equal(routed_by(&l, "s.orders"), orders_col);
    assert_string_equal(routed_by(&l, "s.customers"), customers_col);
    unload(&l);
}

static void expect_not(const char *schema, const char *const *models, const char *reason)
{
    Loaded l;
    load(&l, schema, models);
    bool ok = eng_partition_plan(l.g, NULL, &l.part);
    if (ok) fail_msg("partitioned by %s, expected: %s", l.part.by, reason);
    if (!strstr(l.part.reason, reason)) fail_msg("reason '%s', expected '%s'", l.part.reason, reason);
    for (int s = 0; s < l.p->nsources; s++) assert_int_equal(l.part.source_col[s], -1);
    unload(&l);
}

static void group_by_key(void **state)
{
    (void)state;
    const char *m[] = {"per_customer=SELECT customer_id, count(*) AS n, sum(amount) AS total "
                       "FROM source('s.orders') GROUP BY customer_id", NULL};
    expect_ok(NULL, m, "customer_id", "");
    /* the key is found among several group keys, after a projection that moves it */
    const char *m2[] = {"by_status=SELECT status, cid, count(*) AS n FROM "
                        "(SELECT status, amount, customer_id AS cid FROM source('s.orders')) o GROUP BY status, cid",
                        NULL};
    Loaded l;
    load(&l, NULL, m2);
    assert_true(eng_partition_plan(l.g, NULL, &l.part));
    /* both keys fit: the first in the source's column order wins */
    assert_string_equal(routed_by(&l, "s.orders"), "customer_id");
    assert_string_equal(l.part.by, "s.orders.customer_id");
    assert_int_equal(l.part.nstateful, 1);
    unload(&l);
}

static void chain_and_join(void **state)
{
    (void)state;
    const char *m[] = {
        "per_customer=SELECT customer_id, count(*) AS n FROM source('s.orders') GROUP BY customer_id",
        "busy=SELECT customer_id, n FROM ref('per_customer') WHERE n > 3",
        "by_status=SELECT customer_id, status, count(DISTINCT amount) AS a FROM source('s.orders') "
        "GROUP BY customer_id, status",
        "named=SELECT o.order_id, o.customer_id, c.name FROM source('s.orders') o "
        "JOIN source('s.customers') c ON o.customer_id = c.id",
        "top=SELECT customer_id, order_id FROM (SELECT customer_id, order_id, ROW_NUMBER() OVER "
        "(PARTITION BY customer_id ORDER BY amount DESC, order_id) AS rn FROM source('s.orders')) t WHERE rn <= 2",
        "per_minute=SELECT customer_id, window_start, count(*) AS n FROM "
        "TUMBLE(source('s.orders'), ts, INTERVAL '1' MINUTE) GROUP BY customer_id, window_start, window_end",
        NULL};
    const char *schema = "models:\n  named: {materialized: retract}\n  top: {materialized: retract}\n";
    expect_ok(schema, m, "customer_id", "id");
    Loaded l;
    load(&l, schema, m);
    assert_true(eng_partition_plan(l.g, NULL, &l.part));
    assert_int_equal(l.part.nmodels, 6);
    assert_int_equal(l.part.nstateful, 5); /* 2 aggregates, the join, the TopN, the window */
    assert_string_equal(l.part.by, "s.customers.id, s.orders.customer_id"); /* source order */
    unload(&l);
}

static void not_partitioned(void **state)
{
    (void)state;
    const char *global[] = {"total=SELECT count(*) AS n FROM source('s.orders')", NULL};
    expect_not(NULL, global, "total: global aggregate");
    const char *differ[] = {
        "a=SELECT customer_id, count(*) AS n FROM source('s.orders') GROUP BY customer_id",
        "b=SELECT status, count(*) AS n FROM source('s.orders') GROUP BY status", NULL};
    expect_not(NULL, differ, "share no source column");
    /* a chain whose second key is one of the first's: partitioned by it */
    const char *chain[] = {
        "a=SELECT customer_id, status, count(*) AS n FROM source('s.orders') GROUP BY customer_id, status",
        "b=SELECT status, sum(n) AS n FROM ref('a') GROUP BY status", NULL};
    expect_ok(NULL, chain, "status", "");
    /* a chain whose second key is computed by the first: no source column keys both */
    const char *chain2[] = {
        "a=SELECT customer_id, count(*) AS n FROM source('s.orders') GROUP BY customer_id",
        "b=SELECT n, count(*) AS customers FROM ref('a') GROUP BY n", NULL};
    expect_not(NULL, chain2, "b: keys share no source column");
    const char *stateless[] = {"f=SELECT order_id, amount FROM source('s.orders') WHERE amount > 1", NULL};
    expect_not(NULL, stateless, "no keyed state");
    const char *topn[] = {"t=SELECT order_id FROM (SELECT order_id, ROW_NUMBER() OVER (ORDER BY amount DESC, order_id) "
                          "AS rn FROM source('s.orders')) x WHERE rn <= 3", NULL};
    expect_not("models:\n  t: {materialized: retract}\n", topn, "TopN without PARTITION BY");
    /* numeric keys have no canonical hash (1.5 and 1.50 are equal) */
    const char *numeric[] = {"n=SELECT amount, count(*) AS c FROM source('s.orders') GROUP BY amount", NULL};
    expect_not(NULL, numeric, "share no source column");
    /* a retracting keyless output without the key: equal rows of two keys would meet */
    const char *drops[] = {"d=SELECT n FROM (SELECT customer_id, count(*) AS n FROM source('s.orders') "
                           "GROUP BY customer_id) x", NULL};
    expect_not("models:\n  d: {materialized: retract}\n", drops, "drops the partitioning column");
    /* a join whose keys are not plain columns of one side */
    const char *expr_join[] = {"j=SELECT o.order_id, c.name FROM source('s.orders') o JOIN source('s.customers') c "
                               "ON o.customer_id + 1 = c.id", NULL};
    expect_not("models:\n  j: {materialized: retract}\n", expr_join, "share no source column");
}

static void wanted_subset(void **state)
{
    (void)state;
    const char *differ[] = {
        "a=SELECT customer_id, count(*) AS n FROM source('s.orders') GROUP BY customer_id",
        "b=SELECT status, count(*) AS n FROM source('s.orders') GROUP BY status", NULL};
    Loaded l;
    load(&l, NULL, differ);
    bool wanted[2] = {false, false};
    for (int m = 0; m < l.p->nmodels; m++) wanted[m] = strcmp(l.p->models[m].name, "b") == 0;
    assert_true(eng_partition_plan(l.g, wanted, &l.part));
    assert_string_equal(routed_by(&l, "s.orders"), "status");
    assert_string_equal(routed_by(&l, "s.customers"), "");
    assert_int_equal(l.part.nmodels, 1);
    unload(&l);
}

static void replica_hash_and_route(void **state)
{
    (void)state;
    Type i8 = type_make(T_INT8), txt = type_make(T_TEXT);
    Value null = {0};
    null.isnull = 1;
    assert_int_equal(eng_partition_replica(i8, &null, 4), 0);
    int seen[4] = {0};
    for (int64_t k = 0; k < 1000; k++) {
        Value v = value_int(k);
        int r = eng_partition_replica(i8, &v, 4);
        assert_true(r >= 0 && r < 4);
        assert_int_equal(eng_partition_replica(i8, &v, 4), r);
        assert_int_equal(eng_partition_replica(i8, &v, 1), 0);
        seen[r]++;
    }
    for (int r = 0; r < 4; r++) assert_true(seen[r] > 150); /* spread over every replica */
    /* equal text in different memory routes alike */
    char a[] = "channel-7", b[] = "channel-7";
    Value va = {0}, vb = {0};
    va.s = a;
    va.len = 9;
    vb.s = b;
    vb.len = 9;
    assert_int_equal(eng_partition_replica(txt, &va, 3), eng_partition_replica(txt, &vb, 3));

    /* routing: every row to exactly one replica, in input order, with its weight,
     * frontier and index */
    Batch src, dst[3];
    batch_init(&src, 2);
    for (int i = 0; i < 3; i++) batch_init(&dst[i], 2);
    for (int i = 0; i < 50; i++) {
        Value *row = batch_append(&src, i % 5 == 0 ? -1 : 1);
        row[0] = value_int(i % 7);
        row[1] = value_int(i);
        batch_set_frontier(&src, i, 1000 + i);
    }
    int *idx[3] = {NULL, NULL, NULL}, cap[3] = {0, 0, 0};
    int total = 0;
    for (int r = 0; r < 3; r++) {
        int got = eng_partition_route(&src, i8, 0, r, 3, &dst[r], &idx[r], &cap[r]);
        assert_int_equal(got, dst[r].n);
        total += got;
        for (int k = 0; k < dst[r].n; k++) {
            int i = idx[r][k];
            if (k > 0) assert_true(i > idx[r][k - 1]);
            assert_int_equal(batch_row(&dst[r], k)[1].i, i);
            assert_int_equal(dst[r].weights[k], src.weights[i]);
            assert_int_equal(batch_frontier(&dst[r], k), 1000 + i);
            assert_int_equal(eng_partition_replica(i8, &batch_row(&src, i)[0], 3), r);
        }
    }
    assert_int_equal(total, 50);
    batch_fini(&src);
    for (int r = 0; r < 3; r++) {
        batch_fini(&dst[r]);
        free(idx[r]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(group_by_key, setup, teardown),
        cmocka_unit_test_setup_teardown(chain_and_join, setup, teardown),
        cmocka_unit_test_setup_teardown(not_partitioned, setup, teardown),
        cmocka_unit_test_setup_teardown(wanted_subset, setup, teardown),
        cmocka_unit_test(replica_hash_and_route),
    };
    return cmocka_run_group_tests_name("partition", tests, NULL, NULL);
}
