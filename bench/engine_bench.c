/* Engine hot-path benchmark: pre-built batches of 4096 rows through eng_step, plans and
 * IR built by hand (no binder). Prints input rows/second (CPU time and wall clock) for:
 *   insert-only       GROUP BY a bigint key (~10k groups) with COUNT(*), SUM(v), MAX(v)
 *                     over an insert-only source (MAX keeps the extreme)
 *   insert-only+out   the same with a listener: consolidation and ordered presentation
 *   retract           the input declared as a retracting changelog (MAX keeps an ordered
 *                     multiset per group); rows are inserts, so the multisets grow
 *   join              INNER join of an updating stream (k, v) with a 10k-row dimension
 *                     table on k: every step inserts 4096 stream rows and retracts the
 *                     4096 inserted 16 steps before (state stays ~65k rows); each input
 *                     row yields one joined insertion or retraction
 *   tumble            TUMBLE(1 s) window aggregate GROUP BY window, k (~10k keys) with
 *                     COUNT(*), SUM(v), MAX(v); event time advances 10 us per row (100k
 *                     rows per window) and the watermark follows each batch, so windows
 *                     close and emit their ~10k rows as the input moves on
 * The target is >= 10M rows/s on one core for the first line (DESIGN.md section 5:
 * performance claims live in bench/).
 *
 * Usage: engine_bench [total_rows_per_case [case]]   (default 40M, all cases;
 * case = insert-only | insert-only+out | retract | join | tumble) */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 4096
#define NBATCHES 64
#define NGROUPS 10000

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct Bench {
    Arena a;
    Project proj;
    SourceDef src;
    ColumnDef cols[2];
    ModelDef model;
    IrGraph g;
    IrModel im;
    IrNode nsrc, nagg;
    IrNode *nodes[2];
    PlanNode psrc, pagg;
    PlanColumn scols[2], acols[4];
    Expr ek, ev;
    Expr *group[1];
    AggCall aggs[3];
    int key[1];
    IrNode *agg_inputs[1];
    StateDesc sd;
} Bench;

static void build(Bench *b, ChangelogMode mode)
{
    memset(b, 0, sizeof *b);
    Type i8 = type_make(T_INT8);
    b->cols[0] = (ColumnDef){.name = "k", .type = i8};
    b->cols[1] = (ColumnDef){.name = "v", .type = i8};
    b->src.name = "bench.events";
    b->src.columns = b->cols;
    b->src.ncolumns = 2;
    b->src.event_time_col = -1;
    b->proj.sources = &b->src;
    b->proj.nsources = 1;
    b->model.name = "agg";
    b->proj.models = &b->model;
    b->proj.nmodels = 1;

    b->scols[0] = (PlanColumn){"k", i8};
    b->scols[1] = (PlanColumn){"v", i8};
    b->psrc.kind = PL_SOURCE;
    b->psrc.name = b->src.name;
    b->psrc.cols = b->scols;
    b->psrc.ncols = 2;
    b->nsrc = (IrNode){.index = 0, .plan = &b->psrc, .model = 0, .op_id = "agg/source0", .source = 0,
                       .mode = mode, .nkey = -1};

    b->ek = (Expr){.kind = EX_COLUMN, .type = i8, .loc = -1, .col = 0};
    b->ev = (Expr){.kind = EX_COLUMN, .type = i8, .loc = -1, .col = 1};
    b->group[0] = &b->ek;
    b->aggs[0] = (AggCall){.kind = AGG_COUNT_STAR, .type = i8};
    b->aggs[1] = (AggCall){.kind = AGG_SUM, .arg = &b->ev, .type = type_numeric(-1, -1)};
    b->aggs[2] = (AggCall){.kind = AGG_MAX, .arg = &b->ev, .type = i8};
    b->acols[0] = (PlanColumn){"k", i8};
    b->acols[1] = (PlanColumn){"n", i8};
    b->acols[2] = (PlanColumn){"total", type_numeric(-1, -1)};
    b->acols[3] = (PlanColumn){"top", i8};
    b->pagg.kind = PL_AGGREGATE;
    b->pagg.window_start_key = b->pagg.window_end_key = -1;
    b->pagg.cols = b->acols;
    b->pagg.ncols = 4;
    b->pagg.group = b->group;
    b->pagg.ngroup = 1;
    b->pagg.aggs = b->aggs;
    b->pagg.naggs = 3;
    b->key[0] = 0;
    b->agg_inputs[0] = &b->nsrc;
    b->sd = (StateDesc){.id = "agg/aggregate0", .kind = "aggregate"};
    b->nagg = (IrNode){.index = 1, .plan = &b->pagg, .model = 0, .op_id = "agg/aggregate0",
                       .inputs = b->agg_inputs, .ninputs = 1, .source = -1, .mode = CL_UPSERT,
                       .key = b->key, .nkey = 1, .state = &b->sd, .nstate = 1};
    b->nodes[0] = &b->nsrc;
    b->nodes[1] = &b->nagg;
    b->im = (IrModel){.def = &b->model, .root = &b->nagg, .out_key = b->key, .nout_key = 1};
    b->g = (IrGraph){.project = &b->proj, .nodes = b->nodes, .nnodes = 2, .models = &b->im, .nmodels = 1};
}

static int64_t g_changes;

static bool count_changes(void *ctx, int model, const EngChange *ch, int n, char *err, size_t errsize)
{
    (void)ctx; (void)model; (void)ch; (void)err; (void)errsize;
    g_changes += n;
    return true;
}

static Value *g_rows;

static void make_rows(void)
{
    g_rows = malloc(sizeof(Value) * 2 * BATCH * NBATCHES);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < BATCH * NBATCHES; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        g_rows[2 * i] = value_int((int64_t)(x % NGROUPS));
        g_rows[2 * i + 1] = value_int((int64_t)((x >> 20) % 1000000));
    }
}

static double run_case(const char *name, ChangelogMode mode, bool listen, int64_t total)
{
    Bench b;
    build(&b, mode);
    EngOptions o = {0};
    if (listen) o.listener = count_changes;
    char err[256];
    EngPipeline *p = eng_pipeline_new(&b.g, &o, err, sizeof err);
    if (!p) {
        fprintf(stderr, "engine_bench: %s\n", err);
        exit(3);
    }
    Batch *in = eng_source_batch(p, 0);
    int64_t rows = 0;
    g_changes = 0;
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (int64_t bi = 0; rows < total; bi++) {
        const Value *src = g_rows + (size_t)(bi % NBATCHES) * BATCH * 2;
        for (int i = 0; i < BATCH; i++) batch_append_row(in, src + 2 * i, 1);
        if (!eng_step(p, err, sizeof err)) {
            fprintf(stderr, "engine_bench: %s\n", err);
            exit(3);
        }
        rows += BATCH;
    }
    double dt = clock_s(CLOCK_MONOTONIC) - t0, ct = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    EngStateStats st[4];
    int ns = eng_state_stats(p, st, 4);
    /* rows per second of CPU time: on a shared machine wall time also counts the time
     * other processes held the core; both are printed */
    double rate = (double)rows / ct;
    printf("%-16s %8.2f M rows/s CPU  %8.2f M rows/s wall  (%lld rows, %.2fs CPU; %lld groups, %.1f MiB state%s)\n",
           name, rate / 1e6, (double)rows / dt / 1e6, (long long)rows, ct, ns > 0 ? (long long)st[0].entries : 0LL,
           ns > 0 ? (double)st[0].bytes / (1024.0 * 1024.0) : 0.0,
           listen ? "; listener on" : "");
    eng_pipeline_free(p);
    return rate;
}

/* ---------- streaming cases: join and tumbling window ---------- */

typedef struct SBench {
    Arena a;
    Project proj;
    SourceDef src[2];
    ModelDef model;
    IrGraph g;
    IrModel im;
    IrNode *nodes[4];
} SBench;

static PlanColumn *pcols(Arena *a, int n, const char *const *names, const Type *types)
{
    PlanColumn *c = ARENA_ARRAY(a, PlanColumn, n);
    for (int i = 0; i < n; i++) c[i] = (PlanColumn){names[i], types[i]};
    return c;
}

static IrNode *snode(SBench *b, int idx, PlanKind kind, IrNode **ins, int nin, ChangelogMode mode)
{
    IrNode *n = ARENA_NEW(&b->a, IrNode);
    PlanNode *p = ARENA_NEW(&b->a, PlanNode);
    p->kind = kind;
    p->window_start_key = p->window_end_key = -1;
    p->time_col = p->left_time_col = p->right_time_col = -1;
    p->ninputs = nin;
    p->inputs = ARENA_ARRAY(&b->a, PlanNode *, nin > 0 ? nin : 1);
    n->inputs = ARENA_ARRAY(&b->a, IrNode *, nin > 0 ? nin : 1);
    for (int i = 0; i < nin; i++) {
        n->inputs[i] = ins[i];
        p->inputs[i] = ins[i]->plan;
    }
    n->ninputs = nin;
    n->plan = p;
    n->index = idx;
    n->model = 0;
    n->mode = mode;
    n->nkey = -1;
    n->source = -1;
    n->op_id = arena_printf(&b->a, "bench/op%d", idx);
    b->nodes[idx] = n;
    return n;
}

static IrNode *ssource(SBench *b, int idx, int s, const char *name, int ncols, const char *const *names,
                       const Type *types, ChangelogMode mode)
{
    SourceDef *sd = &b->src[s];
    sd->name = name;
    sd->ncolumns = ncols;
    sd->columns = ARENA_ARRAY(&b->a, ColumnDef, ncols);
    for (int i = 0; i < ncols; i++) sd->columns[i] = (ColumnDef){.name = names[i], .type = types[i]};
    sd->event_time_col = -1;
    IrNode *n = snode(b, idx, PL_SOURCE, NULL, 0, mode);
    n->source = s;
    n->plan->name = name;
    n->plan->cols = pcols(&b->a, ncols, names, types);
    n->plan->ncols = ncols;
    return n;
}

static Expr *scol(SBench *b, int c, Type t)
{
    Expr *e = ARENA_NEW(&b->a, Expr);
    e->kind = EX_COLUMN;
    e->type = t;
    e->loc = -1;
    e->col = c;
    return e;
}

static void sfinish(SBench *b, int nsrc, IrNode *root, int nnodes)
{
    b->proj.sources = b->src;
    b->proj.nsources = nsrc;
    b->model.name = "bench";
    b->proj.models = &b->model;
    b->proj.nmodels = 1;
    b->im = (IrModel){.def = &b->model, .root = root, .nout_key = -1};
    b->g = (IrGraph){.project = &b->proj, .nodes = b->nodes, .nnodes = nnodes, .models = &b->im, .nmodels = 1};
}

/* stream(k, v) retracting  JOIN  dim(k, name) insert-only  ON k */
static void build_join(SBench *b)
{
    memset(b, 0, sizeof *b);
    arena_init(&b->a, 4096);
    Type i8 = type_make(T_INT8);
    const char *sn[2] = {"k", "v"}, *dn[2] = {"k", "name"};
    Type t2[2] = {i8, i8};
    IrNode *l = ssource(b, 0, 0, "bench.stream", 2, sn, t2, CL_RETRACT);
    IrNode *r = ssource(b, 1, 1, "bench.dim", 2, dn, t2, CL_INSERT_ONLY);
    IrNode *ins[2] = {l, r};
    IrNode *j = snode(b, 2, PL_JOIN, ins, 2, CL_RETRACT);
    PlanNode *p = j->plan;
    p->join_type = JOIN_INNER;
    p->nkeys = 1;
    p->left_keys = ARENA_ARRAY(&b->a, Expr *, 1);
    p->right_keys = ARENA_ARRAY(&b->a, Expr *, 1);
    p->left_keys[0] = scol(b, 0, i8);
    p->right_keys[0] = scol(b, 0, i8);
    const char *jn[4] = {"k", "v", "k", "name"};
    Type t4[4] = {i8, i8, i8, i8};
    p->cols = pcols(&b->a, 4, jn, t4);
    p->ncols = 4;
    sfinish(b, 2, j, 3);
}

/* events(k, v, t) -> TUMBLE(t, 1 s) -> GROUP BY window_start, window_end, k */
static void build_tumble(SBench *b)
{
    memset(b, 0, sizeof *b);
    arena_init(&b->a, 4096);
    Type i8 = type_make(T_INT8), ts = type_make(T_TIMESTAMP);
    const char *en[3] = {"k", "v", "t"};
    Type t3[3] = {i8, i8, ts};
    IrNode *src = ssource(b, 0, 0, "bench.events", 3, en, t3, CL_INSERT_ONLY);
    IrNode *tvf = snode(b, 1, PL_WINDOW_TVF, &src, 1, CL_INSERT_ONLY);
    tvf->plan->wtvf = WTVF_TUMBLE;
    tvf->plan->time_col = 2;
    tvf->plan->size_us = tvf->plan->slide_us = 1000000;
    const char *tn[5] = {"k", "v", "t", "window_start", "window_end"};
    Type t5[5] = {i8, i8, ts, ts, ts};
    tvf->plan->cols = pcols(&b->a, 5, tn, t5);
    tvf->plan->ncols = 5;
    IrNode *agg = snode(b, 2, PL_AGGREGATE, &tvf, 1, CL_INSERT_ONLY);
    PlanNode *p = agg->plan;
    p->ngroup = 3;
    p->group = ARENA_ARRAY(&b->a, Expr *, 3);
    p->group[0] = scol(b, 3, ts);
    p->group[1] = scol(b, 4, ts);
    p->group[2] = scol(b, 0, i8);
    p->window_start_key = 0;
    p->window_end_key = 1;
    p->naggs = 3;
    p->aggs = ARENA_ARRAY(&b->a, AggCall, 3);
    Expr *v = scol(b, 1, i8);
    p->aggs[0] = (AggCall){.kind = AGG_COUNT_STAR, .type = i8};
    p->aggs[1] = (AggCall){.kind = AGG_SUM, .arg = v, .type = type_numeric(-1, -1)};
    p->aggs[2] = (AggCall){.kind = AGG_MAX, .arg = v, .type = i8};
    const char *an[6] = {"window_start", "window_end", "k", "n", "total", "top"};
    Type t6[6] = {ts, ts, i8, i8, type_numeric(-1, -1), i8};
    p->cols = pcols(&b->a, 6, an, t6);
    p->ncols = 6;
    sfinish(b, 1, agg, 3);
}

static void report(const char *name, EngPipeline *p, int64_t rows, double t0, double c0, const char *extra)
{
    double dt = clock_s(CLOCK_MONOTONIC) - t0, ct = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    EngStateStats st[8];
    int ns = eng_state_stats(p, st, 8);
    int64_t entries = 0, bytes = 0;
    for (int i = 0; i < ns && i < 8; i++) {
        entries += st[i].entries;
        bytes += st[i].bytes;
    }
    printf("%-16s %8.2f M rows/s CPU  %8.2f M rows/s wall  (%lld rows, %.2fs CPU; %lld state entries, %.1f MiB state; %s)\n",
           name, (double)rows / ct / 1e6, (double)rows / dt / 1e6, (long long)rows, ct, (long long)entries,
           (double)bytes / (1024.0 * 1024.0), extra);
}

static void step_or_die(EngPipeline *p)
{
    char err[256];
    if (!eng_step(p, err, sizeof err)) {
        fprintf(stderr, "engine_bench: %s\n", err);
        exit(3);
    }
}

static EngPipeline *pipeline_or_die(SBench *b)
{
    EngOptions o = {0};
    char err[256];
    EngPipeline *p = eng_pipeline_new(&b->g, &o, err, sizeof err);
    if (!p) {
        fprintf(stderr, "engine_bench: %s\n", err);
        exit(3);
    }
    return p;
}

#define JOIN_WINDOW 16

static void run_join(int64_t total)
{
    SBench b;
    build_join(&b);
    EngPipeline *p = pipeline_or_die(&b);
    Batch *stream = eng_source_batch(p, 0), *dim = eng_source_batch(p, 1);
    for (int k = 0; k < NGROUPS; k++) {
        Value row[2] = {value_int(k), value_int(k * 7)};
        batch_append_row(dim, row, 1);
    }
    step_or_die(p);
    int64_t rows = 0;
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (int64_t bi = 0; rows < total; bi++) {
        const Value *src = g_rows + (size_t)(bi % NBATCHES) * BATCH * 2;
        for (int i = 0; i < BATCH; i++) batch_append_row(stream, src + 2 * i, 1);
        rows += BATCH;
        if (bi >= JOIN_WINDOW) {
            const Value *old = g_rows + (size_t)((bi - JOIN_WINDOW) % NBATCHES) * BATCH * 2;
            for (int i = 0; i < BATCH; i++) batch_append_row(stream, old + 2 * i, -1);
            rows += BATCH;
        }
        step_or_die(p);
    }
    report("join", p, rows, t0, c0, "inserts + retractions, 1 output per row");
    eng_pipeline_free(p);
    arena_fini(&b.a);
}

static void run_tumble(int64_t total)
{
    SBench b;
    build_tumble(&b);
    EngPipeline *p = pipeline_or_die(&b);
    Batch *in = eng_source_batch(p, 0);
    Value *rows3 = malloc(sizeof(Value) * 3 * BATCH);
    int64_t rows = 0, t = 1704067200000000LL; /* 2024-01-01 */
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (int64_t bi = 0; rows < total; bi++) {
        const Value *src = g_rows + (size_t)(bi % NBATCHES) * BATCH * 2;
        for (int i = 0; i < BATCH; i++) {
            rows3[3 * i] = src[2 * i];
            rows3[3 * i + 1] = src[2 * i + 1];
            rows3[3 * i + 2] = value_int(t);
            t += 10;
        }
        for (int i = 0; i < BATCH; i++) batch_append_row(in, rows3 + 3 * i, 1);
        eng_source_watermark(p, 0, t);
        step_or_die(p);
        rows += BATCH;
    }
    eng_source_watermark(p, 0, INT64_MAX);
    step_or_die(p);
    report("tumble", p, rows, t0, c0, "windows of 100k rows, emitted on watermark");
    free(rows3);
    eng_pipeline_free(p);
    arena_fini(&b.a);
}

int main(int argc, char **argv)
{
    int64_t total = argc > 1 ? atoll(argv[1]) : 40000000LL;
    make_rows();
    printf("engine_bench: GROUP BY bigint (%d groups) COUNT(*), SUM(v), MAX(v); batches of %d rows\n",
           NGROUPS, BATCH);
    const char *only = argc > 2 ? argv[2] : NULL;
    double r = 0;
    if (!only || strcmp(only, "insert-only") == 0) r = run_case("insert-only", CL_INSERT_ONLY, false, total);
    if (!only || strcmp(only, "insert-only+out") == 0) run_case("insert-only+out", CL_INSERT_ONLY, true, total);
    if (!only || strcmp(only, "retract") == 0) run_case("retract", CL_RETRACT, false, total / 4);
    if (!only || strcmp(only, "join") == 0) run_join(total / 2);
    if (!only || strcmp(only, "tumble") == 0) run_tumble(total / 2);
    if (!only || strcmp(only, "insert-only") == 0)
        printf("target: >= 10.00 M rows/s for insert-only: %s\n", r >= 10e6 ? "met" : "NOT met");
    free(g_rows);
    return 0;
}
