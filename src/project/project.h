/* The loaded project: weir.yml, sources, models (SQL + config), tests. Everything is
 * allocated in the project's arena and validated by the loader; every definition
 * keeps its position for diagnostics. See DESIGN.md section 2 for the file format. */
#ifndef WEIR_PROJECT_PROJECT_H
#define WEIR_PROJECT_PROJECT_H

#include "base/arena.h"
#include "base/diag.h"
#include "base/value.h"
#include "base/yaml.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum { FMT_JSON, FMT_CSV, FMT_DEBEZIUM_JSON, FMT_CHANGELOG_JSON, FMT_UPSERT } DataFormat;
/* SRC_CLICKHOUSE: an existing ClickHouse table adopted by a clickhouse target
 * (`kind: stream_table`); the native runtime reads it once, at start
 * (source_clickhouse.c). */
typedef enum { SRC_FILE, SRC_KAFKA, SRC_STDIN, SRC_CLICKHOUSE } SourceConnector;
typedef enum { ONERR_DEAD_LETTER, ONERR_FAIL, ONERR_SKIP } OnError;
typedef enum {
    SINK_NONE, SINK_FILE, SINK_STDOUT, SINK_SQLITE, SINK_POSTGRES, SINK_KAFKA, SINK_CLICKHOUSE, SINK_WEBHOOK
} SinkConnector;
typedef enum { MAT_VIEW, MAT_EPHEMERAL, MAT_APPEND, MAT_UPSERT, MAT_RETRACT, MAT_TABLE } Materialization;

const char *data_format_name(DataFormat f);
const char *sink_connector_name(SinkConnector c);
const char *materialization_name(Materialization m);
/* True when rows of this format carry updates/deletes (debezium-json, changelog-json, upsert). */
bool data_format_is_updating(DataFormat f);

/* How a source column's values are written in the records (a column's `encoding:`;
 * docs/run.md "Temporal encodings"). COL_ENC_TEXT: the type's text input (the default);
 * the others take an integer: epoch_* since 1970-01-01 00:00:00 (UTC) for timestamp and
 * timestamptz columns (epoch_days: date, or a timestamp at midnight), time_* since
 * midnight for interval columns (a time of day: weir has no time type). */
typedef enum ColumnEncoding {
    COL_ENC_TEXT = 0,
    COL_ENC_EPOCH_S,
    COL_ENC_EPOCH_MS,
    COL_ENC_EPOCH_US,
    COL_ENC_EPOCH_NS,
    COL_ENC_EPOCH_DAYS,
    COL_ENC_TIME_MS,
    COL_ENC_TIME_US,
    COL_ENC_TIME_NS,
    COL_ENC__COUNT
} ColumnEncoding;

/* The encoding's name as written in YAML ("epoch_ms", "text"). */
const char *column_encoding_name(ColumnEncoding e);
/* The encoding a name means; false for an unknown name. */
bool column_encoding_parse(const char *name, ColumnEncoding *out);
/* Can a column of type t be written in encoding e? */
bool column_encoding_fits(ColumnEncoding e, Type t);

typedef struct ColumnDef {
    const char *name;
    Type type;
    SrcPos pos;
    ColumnEncoding encoding;     /* COL_ENC_TEXT unless the column declares `encoding:` */
} ColumnDef;

typedef struct SourceDef {
    const char *name;            /* e.g. "commerce.orders" */
    SrcPos pos;                  /* position of the name key */
    SourceConnector connector;
    const char *path;            /* file: project-relative path as written */
    const char *topic;           /* kafka */
    const char *bootstrap_servers; /* kafka; may contain ${ENV:..}, resolve with project_resolve_env */
    DataFormat format;
    char csv_delimiter;          /* csv: default ',' */
    ColumnDef *columns;
    int ncolumns;
    int event_time_col;          /* index into columns, -1 when none */
    bool event_time_invalid;     /* `event_time:` names no usable column (reported): what
                                    needs an event time is not reported again */
    int64_t watermark_delay_us;  /* default 0 */
    int *pk_cols;                /* primary_key as column indexes */
    int npk;
    OnError on_error;
    const char *table;           /* clickhouse: the adopted table ([database.]name) */
    const char *url;             /* clickhouse: the connection weir run reads the table over, */
    const char *database;        /* set (resolved as the ClickHouse backend resolves it) by */
    const char *user, *password; /* the CLI; NULL until then. The password is never printed */
    YNode *node;                 /* the definition, for connector-specific keys (a clickhouse
                                    source's `replay_boundary` is read by the backend) */
} SourceDef;

typedef struct SinkDef {
    SinkConnector connector;
    SrcPos pos;
    const char *path;            /* file: path; sqlite: database file */
    SrcPos path_pos;             /* the path's value, or pos */
    bool path_per_target;        /* the path interpolates ${target} */
    DataFormat format;           /* file/stdout/kafka; default json */
    bool format_set;
    bool format_invalid;         /* `format:` names no format (reported): nothing is checked
                                    against it */
    const char *table;           /* sqlite/postgres/clickhouse; default model name */
    bool table_per_target;       /* the table interpolates ${target} */
    bool replace_existing;       /* sqlite: may replace a table weir did not create */
    const char *dsn;             /* postgres */
    const char *topic;           /* kafka */
    const char *bootstrap_servers;
    const char *url;             /* clickhouse/webhook */
    const char *database;        /* clickhouse */
    const char *user, *password; /* clickhouse: set (resolved) by weir run for the native
                                    models of a runtime: clickhouse target */
    bool native_table;           /* clickhouse: the table weir apply made for a native model */
    const char *method;          /* webhook */
    YNode *headers;              /* webhook: mapping */
    int batch;                   /* webhook */
    int64_t flush_interval_us;   /* file/stdout/sqlite/kafka: the longest a keyed (upsert,
                                    table) model's changes wait before the sink gets them,
                                    coalesced to one per key; -1 = not set */
    YNode *node;
} SinkDef;

/* One entry of a model config's `columns:`: documentation of an output column. */
typedef struct ModelColumnDoc {
    const char *name;
    const char *description;     /* NULL when none */
    SrcPos pos;                  /* the column's name in the YAML */
} ModelColumnDoc;

typedef struct ModelDef {
    const char *name;            /* file stem */
    const char *sql_file;        /* project-relative path of the .sql file */
    const char *raw_sql;         /* file text as written */
    const char *sql;             /* after ${var} interpolation; NULL when it failed or the file is empty (reported) */
    /* interpolation map: for mapping positions in `sql` back to `raw_sql` */
    int *map_sql_off, *map_raw_off; /* sorted pairs: from sql offset map_sql_off[i] onward, raw = sql - map_sql_off[i] + map_raw_off[i] */
    int nmap;
    /* config (models/.../NAME.yml); defaults when absent */
    Materialization materialized;
    SrcPos materialized_pos;     /* config position, or the SQL file when not configured */
    const char **key;
    int nkey;
    SrcPos key_pos;
    int64_t state_ttl_us;        /* 0 = none */
    SrcPos state_ttl_pos;        /* the state_ttl value (when state_ttl_us > 0) */
    SinkDef *sink;               /* NULL when none */
    YNode *audits;               /* data audits ({not_null|unique|accepted_values}), NULL */
    SrcPos config_pos;           /* position of the model's config entry, or {sql_file,1,1} */
    bool has_config;
    YNode *clickhouse;           /* `clickhouse:` storage settings (engine, order_by, ...),
                                    read by the ClickHouse backend; NULL when absent */
    bool lookup;                 /* `clickhouse: {lookup: true}`: the model's joins are
                                    lookups (only the left input triggers) on every
                                    runtime, the native engine and weir test included */
    const char *description;     /* `description:`, NULL when none */
    const char **tags;           /* `tags:` as written (a string or a list), duplicates dropped */
    int ntags;
    ModelColumnDoc *column_docs; /* `columns:`, in file order; checked against the model's
                                    output columns after binding (ir_check_column_docs) */
    int ncolumn_docs;
} ModelDef;

typedef enum { STEP_ROWS, STEP_WATERMARK } TestStepKind;

typedef struct TestWatermark {
    const char *source;
    const char *time;            /* text; parsed by the test runner as a timestamp */
    SrcPos pos;
} TestWatermark;

typedef struct TestStep {
    TestStepKind kind;
    SrcPos pos;
    const char *source;          /* STEP_ROWS: source or model name the rows feed */
    YNode **rows;                /* STEP_ROWS: each a YAML mapping column -> scalar (and `op`) */
    int nrows;
    TestWatermark *wms;          /* STEP_WATERMARK */
    int nwms;
} TestStep;

typedef struct TestCase {
    const char *name;
    const char *file;            /* project-relative path of the tests/NAME.yml file */
    SrcPos pos;
    const char *model;
    SrcPos model_pos;
    TestStep *given;
    int ngiven;
    YNode **expect;              /* rows with `op` */
    int nexpect;
    bool has_expect;
    YNode **expect_final;        /* rows without `op` */
    int nexpect_final;
    bool has_expect_final;
    YNode **expect_dead;         /* expect_dead_letters: mappings {reason, row?} */
    int nexpect_dead;
    bool has_expect_dead;
    /* upgrade tests: `given` runs on the previous version, which is then upgraded to the
     * project's, and `then` runs on it; `expect` is the changelog from the upgrade on */
    YNode *previous;             /* {models: {NAME: {sql, config}}} or {manifest: PATH}; NULL */
    TestStep *then;
    int nthen;
    YNode *expect_verdict;       /* a verdict (of the test's model) or {MODEL: verdict}; NULL */
    bool compare_subset;         /* `compare: subset`: an expected row is compared on the
                                    columns it names only */
    YNode *float_tolerance;      /* a number (every float column) or {column: number}; NULL */
    int load_errors;             /* errors the loader found in this test's definition */
    SrcPos end;                  /* where the next test of the file starts ({0}: at the end
                                    of the file): the test's extent, for its diagnostics */
} TestCase;

#define PROJECT_KAFKA_UNREACHABLE_US (60 * 1000000LL)  /* default unreachable_timeout */

typedef struct TargetDef {
    const char *name;
    SrcPos pos;
    const char *runtime;         /* native (default) | clickhouse | flink */
    const char *state_dir;       /* default .weir/<target> */
    const char *kafka_bootstrap; /* raw, may contain ${ENV:..} */
    YNode *kafka_properties;     /* kafka: {properties: {name: value}} (librdkafka settings;
                                    values raw, may contain ${ENV:..}), NULL when absent */
    int64_t kafka_unreachable_us; /* kafka: {unreachable_timeout}: how long a run goes on
                                    while no broker of a cluster answers */
    YNode *node;
} TargetDef;

typedef struct VarDef {
    const char *name;
    const char *text;            /* scalar text inserted by ${name} */
    bool is_string;              /* quoted in YAML/JSON: inserted as-is (the SQL decides quoting) */
    bool declared;               /* declared under `vars:` in weir.yml (not only by --vars) */
} VarDef;

/* A file of the project's definition (weir.yml, the sources and models files) as it was read:
 * what a deployment keeps so that the version it runs can be loaded again later. */
typedef struct ProjectFile {
    const char *path;            /* project-relative */
    const char *text;
    size_t len;
} ProjectFile;

typedef struct Project {
    Arena arena;
    const char *dir;             /* project directory as given */
    const char *name;
    const char *default_target;
    TargetDef *targets;
    int ntargets;
    const TargetDef *target;     /* the selected target */
    VarDef *vars;
    int nvars;
    SourceDef *sources;          /* sorted by name */
    int nsources;
    ModelDef *models;            /* sorted by name */
    int nmodels;
    TestCase *tests;             /* in file order, files sorted by name */
    int ntests;
    ProjectFile *files;          /* the definition files read, in load order (no tests) */
    int nfiles, cap_files;
} Project;

typedef struct ProjectOptions {
    const char *dir;             /* default "." */
    const char *target;          /* NULL = default_target */
    const char *vars_json;       /* --vars; NULL = none */
    const char *override_file;   /* project_load_files: the model configs of this file take
                                    the place of other configs of the same models (an
                                    upgrade test's previous version); NULL = none */
} ProjectOptions;

/* Load and validate the project. Returns a project (possibly partial) and adds every
 * problem found to dl (errors and warnings with file:line:col and hints). Returns NULL
 * only when weir.yml is missing or unreadable. Free with project_free. */
Project *project_load(const ProjectOptions *opts, DiagList *dl);
void project_free(Project *p);
/* Load a project from definition files held in memory (a deployment's snapshot: see
 * ProjectFile; "weir.yml" among them) instead of opts->dir's files. Paths inside the
 * project still resolve against opts->dir; data files are not looked at. Tests are not
 * loaded. Diagnostics as project_load; NULL when there is no weir.yml among the files. */
Project *project_load_files(const ProjectFile *files, int nfiles, const ProjectOptions *opts, DiagList *dl);

const SourceDef *project_find_source(const Project *p, const char *name);
const ModelDef *project_find_model(const Project *p, const char *name);
int source_column_index(const SourceDef *s, const char *name);

/* The replay lineage columns (docs/sql.md "Replay lineage columns"): every insert-only
 * source offers them besides its declared columns, a model reads them by name. Their
 * names are reserved in `columns:`. */
typedef enum SourceLineage {
    LINEAGE_NONE = 0,
    LINEAGE_PARTITION,       /* integer: Kafka partition; 0 for files, stdin and tests */
    LINEAGE_OFFSET,          /* bigint: Kafka offset; the record's line for files and stdin,
                                its 0-based position among the source's rows in a test */
    LINEAGE_TIMESTAMP,       /* timestamptz: the message timestamp; NULL elsewhere */
    LINEAGE_LANDED_AT,       /* timestamptz: when weir run read the record from Kafka (or
                                ClickHouse landed it); NULL for files, stdin and tests */
} SourceLineage;
#define LINEAGE_NCOLS 4
/* Name of lineage column k (LINEAGE_PARTITION..LINEAGE_LANDED_AT), e.g. "_replay_offset". */
const char *source_lineage_name(int k);
/* Its type. */
Type source_lineage_type(int k);
/* Which lineage column `name` is, LINEAGE_NONE when none. */
int source_lineage_of(const char *name);
/* Whether the source offers the lineage columns (insert-only formats). */
bool source_has_lineage(const SourceDef *s);

/* Map a byte offset in m->sql back to a position in the model's .sql file. */
SrcPos project_sql_pos(const ModelDef *m, int sql_offset);

/* Resolve ${ENV:NAME} references in s (used only by commands that connect).
 * Returns an arena string, or NULL and an error message when a variable is unset. */
const char *project_resolve_env(Project *p, const char *s, char *err, size_t errsize);

/* Absolute-or-project-relative path joined with the project directory (arena string). */
const char *project_path(Project *p, const char *rel);

/* Parse a duration like "5s", "500ms", "30d", "1 hour" into microseconds. */
bool project_parse_duration(const char *s, int64_t *us);

#endif
