/* Engine hot-path benchmark: GROUP BY a bigint key (~10k groups) with COUNT(*),
 * SUM(v), MAX(v), fed with pre-built batches of 4096 rows through eng_step. The plan
 * and IR are built by hand (no binder). Prints input rows/second for:
 *   insert-only       the aggregate over an insert-only source (MAX keeps the extreme)
 *   insert-only+out   the same with a listener: consolidation and ordered presentation
 *   retract           the input declared as a retracting changelog (MAX keeps an ordered
 *                     multiset per group); rows are inserts, so the multisets grow
 * The target is >= 10M rows/s on one core for the first line (DESIGN.md section 5:
 * performance claims live in bench/).
 *
 * Usage: engine_bench [total_rows_per_case [case]]   (default 40M, all cases;
 * case = insert-only | insert-only+out | retract) */
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
    if (!only || strcmp(only, "insert-only") == 0)
        printf("target: >= 10.00 M rows/s for insert-only: %s\n", r >= 10e6 ? "met" : "NOT met");
    free(g_rows);
    return 0;
}
