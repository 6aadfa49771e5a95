/* Sources for `weir run`, in two layers so every transport shares one decoding path:
 *
 *  - a ConnReader yields raw records (bytes + position) from a transport: a file
 *    (source_file.c, plain or gzip), standard input (source_stdin.c), a Kafka topic
 *    (kafka.c: partition/offset positions, unbounded unless it stops once caught up);
 *  - a ConnSource (source.c) owns a reader, the format's decoder, the on_error policy
 *    with its dead-letter file, and the event-time watermark, and turns each batch of
 *    records into rows of the engine's source batch (or keyed upserts).
 *
 * Buffer lifetime: record bytes returned by a read stay valid until the next read
 * call on the same reader (or its close). The driver reads, runs the engine step,
 * then reads again, so rows whose text points into record bytes (zero-copy decoding)
 * stay valid for the whole step. */
#ifndef WEIR_CONNECTORS_SOURCE_H
#define WEIR_CONNECTORS_SOURCE_H

#include "base/workpool.h"
#include "connectors/dead_letter.h"
#include "connectors/decode.h"
#include "engine/batch.h"
#include "engine/engine.h"
#include "project/project.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- readers */

typedef struct ConnRecord {
    const char *data;        /* record bytes without the line terminator */
    size_t len;
    int64_t pos;             /* files: line number (1-based) of the record's first line;
                                kafka: offset */
    int32_t partition;       /* -1 for files */
    int64_t timestamp_us;    /* transport timestamp, 0 when none */
} ConnRecord;

typedef struct ConnReader ConnReader;

typedef struct ConnReaderOps {
    /* Read up to max records into recs (max >= 1). Returns how many (0 is allowed, e.g.
     * when interrupted by a signal or when nothing is available yet), or -1 on an I/O
     * error with a message. Sets r->eof once no record will ever follow. */
    int (*read)(ConnReader *r, ConnRecord *recs, int max, char *err, size_t errsize);
    /* Progress for display: bytes consumed so far and the total (0 when unknown). */
    void (*progress)(ConnReader *r, int64_t *done, int64_t *total);
    /* Everything returned so far has been processed and committed downstream (Kafka:
     * commit offsets). NULL when the transport has nothing to commit. */
    bool (*commit)(ConnReader *r, char *err, size_t errsize);
    /* Release the transport and free the reader. */
    void (*close)(ConnReader *r);
    /* Partitioned readers: true when `partition` has nothing to deliver right now (it
     * is caught up with what the transport holds), so it does not hold the source's
     * watermark back until it delivers again. NULL for unpartitioned readers. */
    bool (*partition_idle)(ConnReader *r, int partition);
    /* Durable runs: append the position after every record returned so far, in the
     * reader's own format (its open function takes it back to continue there). NULL
     * for line readers: their source counts records instead. */
    void (*position)(ConnReader *r, StrBuf *out);
} ConnReaderOps;

struct ConnReader {
    const ConnReaderOps *ops;
    const char *where;       /* for origins and messages: project-relative path, "<stdin>", topic */
    bool bounded;            /* ends by itself (files, stdin): its end is the end of time */
    bool eof;                /* no record will follow (a bounded input's end, or a Kafka
                                reader that stops once caught up and is) */
    int npartitions;         /* > 0: records carry a partition in [0, npartitions) and the
                                watermark is the minimum over partitions */
    bool has_identity;       /* a regular file: dev/ino tell it from another file */
    uint64_t dev, ino;
    int64_t file_seq;        /* directory/glob readers: changes when the next file starts
                                (the decoder then starts afresh: a CSV file's header) */
};

/* Record framing for line readers: JSON formats end a record at every newline; CSV
 * records may span lines inside quoted fields. */
typedef enum ConnFraming { FRAME_LINES, FRAME_CSV } ConnFraming;

/* Line reader over a file (source_file.c). gzip input (by its magic bytes) is
 * decompressed transparently; a UTF-8 byte-order mark at the start is skipped.
 * `path` is opened as given; `where` (copied) is the name used in origins. */
ConnReader *src_file_reader_open(const char *path, const char *where, ConnFraming framing,
                                 char *err, size_t errsize);
/* Line reader over an open descriptor (plain or gzip, detected from the data); the
 * reader closes the descriptor when `own` is set. */
ConnReader *src_fd_reader_open(int fd, bool own, const char *where, ConnFraming framing,
                               char *err, size_t errsize);
/* Reader over the files a directory or a glob matches (source_files.c), in name order,
 * each as src_file_reader_open reads it; `abs` is the resolved path, `written` the
 * source's path as written (files are named after it in origins and messages). A
 * directory's hidden files are passed over. `watch` (a durable run): the reader never
 * ends but looks for new files when none is left (with until_caught_up it ends once the
 * files there at open are read); otherwise it ends after the files there when it runs
 * out. Its position (ops->position) says which files are read (compactly: a boundary
 * name and the last files read) and how far the current one is; `resume` (NULL: none)
 * continues there: files already read are passed over, the one being read continues
 * after the records read (an error when it was replaced). `until` (NULL: none; a
 * position of such a reader) ends the reader exactly there: only the files it holds
 * are read, each up to the records it had read, and the reader does not watch. */
ConnReader *src_files_reader_open(const char *abs, const char *written, ConnFraming framing, bool watch,
                                  bool until_caught_up, const void *resume, size_t resume_len, const void *until,
                                  size_t until_len, char *err, size_t errsize);
/* True when a file source's resolved path is a glob (has * ? or [) or a directory. */
bool src_path_is_multi(const char *abs);
/* The bytes of the regular files a directory or glob (resolved path `abs`) matches now,
 * as src_files_reader_open would read them (a directory's hidden files left out); *files
 * their number. False when the directory cannot be read. */
bool src_files_total_bytes(const char *abs, int64_t *bytes, int *files);
/* The records read in a position a directory/glob reader wrote, and over how many files;
 * false when the bytes are not such a position. */
bool src_files_position_records(const void *pos, size_t len, int64_t *records, int *files);
/* Line reader over standard input (source_stdin.c). */
ConnReader *src_stdin_reader_open(ConnFraming framing, char *err, size_t errsize);
/* Reader over the Kafka topic of source `def` (kafka.c): every partition from its
 * earliest offset; records are message values (tombstones are skipped), positions are
 * partition/offset, timestamps the message timestamps. With `until_caught_up` the
 * reader captures each partition's high watermark when it opens and reaches eof once
 * it has delivered everything below them (later messages are left for the next run).
 * The bootstrap servers come from the source or the target's `kafka:`, properties from
 * the target's `kafka: {properties}` (${ENV:..} resolved). `resume` (NULL: none) is a
 * position the reader wrote (ops->position): every partition continues at its offset
 * (partitions added since start at the earliest); an offset the cluster no longer
 * retains, beyond a partition's end, or a last record read that is no longer the
 * same (compared again on resume) is an error (records would be lost or the topic
 * was recreated). `stops` (NULL: none; nstops offsets) ends each partition at
 * that offset instead of at its high watermark (a replay of history up to a checkpoint;
 * an offset beyond the partition's end is an error). *config_error tells a
 * configuration problem (no bootstrap servers, a bad property) from an unreachable
 * cluster or a missing topic. */
ConnReader *src_kafka_reader_open(Project *p, const SourceDef *def, bool until_caught_up, const void *resume,
                                  size_t resume_len, const int64_t *stops, int nstops, bool *config_error, char *err,
                                  size_t errsize);

/* Reader over the ClickHouse table of a `connector: clickhouse` source
 * (source_clickhouse.c): the declared columns of the whole table, read with one query
 * at the first read, one JSONEachRow line per record (the source must have format
 * json, its default); bounded. def->url, database, user, password give the connection
 * (set by the CLI as the ClickHouse backend resolves it; no url: a configuration
 * error, *config_error set). `resume` (NULL: none) is a position the reader wrote: the
 * table was read by the run being continued, so the reader ends at once. */
ConnReader *src_clickhouse_reader_open(const SourceDef *def, const void *resume, size_t resume_len, bool *config_error,
                                       char *err, size_t errsize);

/* The partitions' next offsets in a position the Kafka reader wrote (malloc'd array of
 * *n). False when the bytes are not such a position. */
bool kafka_position_offsets(const void *pos, size_t len, int64_t **offsets, int *n);
/* The high watermark of every partition of the source's topic (malloc'd array), and with
 * `lows` the earliest offset the cluster retains (malloc'd too); returns the number of
 * partitions, or -1 with a message. For `weir inspect` (lag = end - checkpointed offset)
 * and `weir plan` (is the history a replay reads still retained?). */
int kafka_end_offsets(Project *p, const SourceDef *def, int timeout_ms, int64_t **lows, int64_t **ends, char *err,
                      size_t errsize);
/* The offsets consumer group `group` committed for every partition of the source's
 * topic (malloc'd array; -1 where it committed none), or -1 with a message. */
int kafka_group_offsets(Project *p, const SourceDef *def, const char *group, int64_t **offsets, char *err,
                        size_t errsize);
/* Commit offsets[i] (those >= 0) of partition i for consumer group `group`: a new group
 * then starts exactly there (the ClickHouse backend hands a landing's position to the
 * materialized views of a new deployment). */
bool kafka_group_commit(Project *p, const SourceDef *def, const char *group, const int64_t *offsets, int n, char *err,
                        size_t errsize);

/* ---------------------------------------------------------------- sources */

typedef struct SrcOptions {
    bool copy_text;              /* copy text cells into the batch arena (default: zero-copy) */
    bool keep_dead_letters;      /* append to existing dead-letter files instead of truncating */
    bool record_origins;         /* set Batch.origins (file:line per row) so rows the engine
                                    rejects downstream keep their position; otherwise only
                                    rows of the source batch itself can be located */
    bool record_frontier;        /* give every row its frontier (engine.h): the watermark
                                    that held before it in its partition */
    bool until_caught_up;        /* Kafka: stop at the high watermarks seen at open;
                                    directory/glob sources that watch: at the files there */
    bool watch_files;            /* directory/glob sources: look for new files (durable runs) */
    const void *resume;          /* a position from src_position: continue after it */
    size_t resume_len;
    const char *dead_letter_suffix; /* appended to the dead-letter file's name (a staged
                                    deployment's own files); NULL: none */
    bool discard_dead_letters;   /* bad records are only counted (a replay: they were
                                    written when the records were first read) */
    const void *until;           /* a position from src_position: end there (a replay of
                                    the history up to a checkpoint); NULL: none */
    size_t until_len;
    WorkPool *decode_pool;       /* decode each read's records over the pool's lanes
                                    (`weir run --workers`); NULL: on the calling thread.
                                    The results are the same either way */
} SrcOptions;

typedef struct SrcStats {
    int64_t records;             /* records read (blank lines and a CSV header excluded) */
    int64_t rows;                /* changes handed to the engine */
    int64_t bad;                 /* records rejected (dead-lettered or skipped) */
    int64_t dead_letters;        /* of which written to the dead-letter file */
    int64_t skipped;             /* of which only counted (on_error: skip) */
} SrcStats;

/* Applies a change of a keyed updating source (eng_source_upsert or a test double);
 * frontier as for rows appended to the batch (INT64_MIN: none). */
typedef bool (*SrcUpsertFn)(void *ctx, int source, ChangeOp op, const Value *row, const RowOrigin *origin,
                            int64_t frontier, char *err, size_t errsize);

typedef struct ConnSource ConnSource;

/* Open project source number `index` with a reader for its connector (file, stdin).
 * Returns NULL with a message when the file cannot be opened or the connector/format
 * is not supported by weir run yet (*config_error tells the latter: exit code 2). */
ConnSource *src_open(Project *p, int index, const SrcOptions *o, bool *config_error, char *err, size_t errsize);
/* Same over a given reader (taken over: closed by src_close). */
ConnSource *src_open_reader(Project *p, int index, ConnReader *r, const SrcOptions *o, char *err, size_t errsize);

/* A record position for messages: "data/orders.jsonl:17" (files) or
 * "topic orders partition 2 offset 17" (partition >= 0). */
void src_position_text(const char *where, int32_t partition, int64_t pos, char *buf, size_t size);

/* Read up to max records and decode them: rows of json/csv sources are appended to
 * `batch` with weight +1; changes of changelog-json/debezium-json sources go through
 * `upsert` (keyed sources) or as -1/+1 rows into `batch` (sources without a primary key).
 * A bad record follows on_error: dead_letter writes it, skip counts it, fail returns -1
 * with "<position>: <reason>" (src_position_text). Returns the number of records read, or -1 on a fatal
 * error (I/O, on_error: fail, unreadable CSV header). */
int src_read_batch(ConnSource *s, Batch *batch, SrcUpsertFn upsert, void *upsert_ctx, int max,
                   char *err, size_t errsize);
/* True once no record will follow (a bounded input's end; a Kafka source opened with
 * until_caught_up once it has caught up). */
bool src_done(const ConnSource *s);
bool src_bounded(const ConnSource *s);
/* The event-time watermark: max(event_time seen) - watermark_delay; INT64_MIN before
 * the first row or without event_time; INT64_MAX once a bounded input is exhausted.
 * Partitioned (Kafka): the minimum over partitions of their own max(event_time) -
 * delay; a partition that has delivered no event time yet holds the watermark at
 * INT64_MIN unless it is idle (caught up with nothing to deliver). */
int64_t src_watermark(const ConnSource *s);
/* Bytes consumed and total (0 when unknown), for progress display. */
void src_progress(const ConnSource *s, int64_t *done, int64_t *total);
const SrcStats *src_stats(const ConnSource *s);
const SourceDef *src_def(const ConnSource *s);
int src_index(const ConnSource *s);
/* Where the row `row` of the source batch filled during the current step came from;
 * false when `row` does not point into that batch. */
bool src_row_origin(const ConnSource *s, const Value *row, RowOrigin *out);
/* The source's dead-letter writer (engine rejections of this source's rows, e.g.
 * late rows, go to the same file). */
DlWriter *src_dead_letter_writer(ConnSource *s);
/* Durable runs: append the source's position after everything read so far (Kafka: the
 * next offset of every partition; files: the records consumed and the file's
 * identity) with the largest event time seen (per partition). Handed back through
 * SrcOptions.resume, the source continues after it with the same watermark: a
 * file source skips the records it had read (decoding them, so a CSV header is still
 * seen) and fails when the file is no longer the same file or is shorter. */
void src_position(const ConnSource *s, StrBuf *out);

/* What a position from src_position says, for `weir inspect`: records read (line
 * readers) or per-partition next offsets (Kafka; `offsets` malloc'd). */
typedef struct SrcPositionInfo {
    bool partitioned;
    int64_t records;
    int64_t *offsets;
    int npartitions;
} SrcPositionInfo;
bool src_position_info(const void *pos, size_t len, SrcPositionInfo *out);

/* Report that the step's results are committed downstream (forwards to the reader). */
bool src_commit(ConnSource *s, char *err, size_t errsize);
/* Flush the dead-letter file. */
bool src_flush(ConnSource *s, char *err, size_t errsize);
/* Close the reader and the dead-letter file and free the source. Returns false when
 * the final dead-letter flush fails. */
bool src_close(ConnSource *s, char *err, size_t errsize);

#endif
