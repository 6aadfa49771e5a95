/* How each source and model of a project is realized on ClickHouse, and the DDL of
 * those objects. A model becomes one of:
 *   stream     a MergeTree table fed by a materialized view (filters, projections);
 *   aggregate  an AggregatingMergeTree of -State columns fed by a materialized view,
 *              behind a view that merges them into exactly weir's upsert result;
 *   window     the same for a TUMBLE window aggregate; the view shows the windows the
 *              watermark has closed, as weir emits them;
 *   distinct   a ReplacingMergeTree behind a view that removes duplicates;
 *   native     computed by weir's native runtime and written to a ClickHouse table by a
 *              ClickHouse sink (when the target allows it: `native_fallback: true`);
 *   refused    none of these, with the reason.
 * A managed Kafka source lands in a Kafka engine table, a raw MergeTree with the replay
 * lineage columns and a landing materialized view; an adopted `stream_table` is read in
 * place.
 *
 * Object names (docs/clickhouse.md): the stable view readers query is the model's name;
 * a deployment D has the table `<model>__D` and the view `<model>__D__mv`; a landing
 * created by deployment D is `kafka__<source>__D`, `raw__<source>__D`,
 * `mv__<source>__D`. Physical columns are named `<model>__<column>` (a materialized
 * view's output aliases must not be the names of the columns it reads). The generated
 * SQL keeps three placeholders filled per deployment: CH_IN (the table a
 * materialized view or replay reads), CH_PHYS (the model's physical table, in views)
 * CH_FLAG (0 in the live view, 1 in a replay: the `_weir_replay` partition) and
 * CH_FENCE (a condition in the view's WHERE: `1`, or the cut of an adopted table). */
#ifndef WEIR_BACKENDS_CLICKHOUSE_CH_MODEL_H
#define WEIR_BACKENDS_CLICKHOUSE_CH_MODEL_H

#include "backends/clickhouse/ch_client.h"
#include "ir/ir.h"

#define CH_IN "\x01" "IN" "\x01"
#define CH_PHYS "\x01" "PHYS" "\x01"
#define CH_FLAG "\x01" "FLAG" "\x01"
#define CH_FENCE "\x01" "FENCE" "\x01"

typedef enum { CHK_EPHEMERAL, CHK_STREAM, CHK_AGGREGATE, CHK_WINDOW, CHK_DISTINCT, CHK_NATIVE, CHK_REFUSED } ChKind;

const char *ch_kind_name(ChKind k);

typedef struct ChModel {
    const char *name;
    int index;                 /* project->models */
    ChKind kind;
    const char *how;           /* one sentence: how it is realized */
    const char *why;           /* native / refused: the reason ClickHouse cannot maintain it */
    int in_source;             /* the source it reads (filter/projection models upstream are
                                  computed again in its view), -1 when not realized */
    const char *columns;       /* physical column definitions */
    const char *engine, *order_by, *partition_by, *ttl, *settings;  /* settings: "k = v, ..." or NULL */
    const char *mv_select;     /* SELECT ... FROM CH_IN ... (with CH_FLAG) */
    const char *view_select;   /* SELECT ... FROM CH_PHYS (CH_IN for a window's watermark) */
    const char *replay_policy; /* `replay_on_change` (full | bounded-<n><unit>), default full */
    int64_t bounded_us;        /* bounded-<n>: the window a rebuild replays (0: full) */
    bool bounded_without_history; /* `bounded_replay_fallback: bounded_without_history`:
                                  a bounded rebuild that cannot seed replays only the
                                  window (default `full`: the whole history) */
    const char *seed_col;      /* the physical column that holds the source's replay time
                                  (the model projects it): a bounded rebuild copies the
                                  active table's rows below the window by it; NULL: none */
    const char *replay_time;   /* the replay source's column the window bounds (managed:
                                  `_replay_landed_at`; adopted timestamp/landed_at: the
                                  mapped column); NULL: none (a bounded policy replays all) */
    /* native: the table weir run's ClickHouse sink writes (a deployment's `<model>__D`,
     * created and filled from the start of its sources when the model is new or
     * changed) and the stable view over it. Keyed models: a ReplacingMergeTree ordered by the key whose
     * version is the delivery sequence, read through FINAL without deleted rows;
     * keyless (insert-only) models: a MergeTree. Columns: the model's, then
     * `_weir_version` UInt64, `_weir_delivery` UInt64, `_weir_deleted` UInt8. NULL
     * when a column has no ClickHouse type (the model is then refused). */
    const char *native_ddl_tail, *native_view_select;
    const char **native_col_names, **native_col_types; /* the model's columns (without
                                  the _weir_* ones) and their ClickHouse types */
    int native_ncols;
    bool native_order_by_key;  /* keyed: ReplacingMergeTree */
} ChModel;

typedef struct ChSource {
    const char *name;          /* as in the project */
    const char *object;        /* name part of its objects: '.' -> '_' */
    int index;
    bool managed;              /* kafka: weir creates the landing */
    bool adopted;              /* clickhouse stream_table */
    const char *why;           /* neither: the reason (file and stdin sources) */
    const char *table;         /* adopted: `db`.`t` as written, quoted */
    const char *raw_columns;   /* managed: raw landing columns */
    const char *kafka_columns; /* managed: Kafka engine columns */
    const char *landing_select;/* managed: SELECT ... FROM CH_IN (the Kafka table) */
    const char *topic, *format;
    int max_block_size;        /* managed: messages per block a Kafka table inserts
                                  (`landing: {max_block_size: N}`, default 65536) */
    const char *boundary_mode; /* landed_at | offsets | timestamp | cursor */
    const char *boundary_cols[2]; /* adopted: the mapped columns (partition/offset or one) */
} ChSource;

typedef struct ChProject {
    Arena arena;
    const IrGraph *g;
    ChCaps caps;
    bool native_fallback;
    ChModel *models;           /* parallel to project->models */
    int nmodels;
    ChSource *sources;         /* parallel to project->sources */
    int nsources;
    int nrefused;
    const char *models_replay_time; /* scratch while a model is realized */
    const char *database;      /* the target's database: qualifies an adopted table
                                  written without one (NULL: left unqualified) */
} ChProject;

/* Realize every model for a server with caps. Never fails: models ClickHouse cannot
 * maintain get CHK_NATIVE or CHK_REFUSED with the reason. */
void ch_project_init(ChProject *cp, const IrGraph *g, const ChCaps *caps);
/* The same for the target database `database`, which qualifies the adopted tables
 * written without a database in the generated SQL. */
void ch_project_init_in(ChProject *cp, const IrGraph *g, const ChCaps *caps, const char *database);
void ch_project_fini(ChProject *cp);

/* Replace the placeholders: in -> CH_IN, phys -> CH_PHYS, flag -> CH_FLAG (NULL
 * leaves one as it is). Returns an arena string. */
const char *ch_fill(Arena *a, const char *sql, const char *in, const char *phys, const char *flag);
/* The same with the fence condition (NULL: `1`). */
const char *ch_fill_fence(Arena *a, const char *sql, const char *in, const char *phys, const char *flag,
                          const char *fence);

/* DDL of a model's physical table `db`.`table` and its materialized view reading `in`
 * (a qualified name); the stable view's SELECT over `phys`. Arena strings. */
const char *ch_table_ddl(const ChProject *cp, const ChModel *m, const char *db, const char *table);
const char *ch_mv_ddl(const ChProject *cp, const ChModel *m, const char *db, const char *mv, const char *table,
                      const char *in);
/* The same with the view's fence condition (an adopted table's cut). */
const char *ch_mv_ddl_fenced(const ChProject *cp, const ChModel *m, const char *db, const char *mv, const char *table,
                             const char *in, const char *fence);
const char *ch_view_select(const ChProject *cp, const ChModel *m, const char *phys, const char *in);

/* Landing DDL of a managed source: Kafka engine table, raw table, landing view. */
const char *ch_kafka_ddl(const ChProject *cp, const ChSource *s, const char *db, const char *name,
                         const char *brokers, const char *group);
const char *ch_raw_ddl(const ChProject *cp, const ChSource *s, const char *db, const char *name);
const char *ch_landing_mv_ddl(const ChProject *cp, const ChSource *s, const char *db, const char *mv,
                              const char *raw, const char *kafka);

/* DDL of a native model's table `db`.`table` and of its stable view `db`.`<model>` over
 * that table (both IF NOT EXISTS). Arena strings. */
const char *ch_native_table_ddl(const ChProject *cp, const ChModel *m, const char *db, const char *table);
const char *ch_native_view_ddl(const ChProject *cp, const ChModel *m, const char *db, const char *table);

/* `explain` on a ClickHouse target: how every model is realized and why. */
void ch_explain(const ChProject *cp, StrBuf *out);

#endif
