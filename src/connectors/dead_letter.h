/* Dead letters: records a source could not read and rows the engine rejected are
 * written, never dropped, as JSON lines to <project>/target/dead_letter/<name>.jsonl
 * (name = the source or model). A source record line:
 *   {"source":"commerce.orders","reason":"...","file":"data/orders.jsonl","line":17,"raw":"..."}
 * (from Kafka: "topic":"orders","partition":2,"offset":17 in place of "file"/"line").
 * "raw" is the record's bytes as a JSON string; bytes that are not valid UTF-8 are
 * shown as U+FFFD there and the exact bytes are added as "raw_base64".
 * An engine row line:
 *   {"source":"<source or model>","reason":"late","file":..,"line":..,"row":{...}}
 * with file/line only when the row's origin is known and the row rendered with
 * value_format_json in column order. */
#ifndef WEIR_CONNECTORS_DEAD_LETTER_H
#define WEIR_CONNECTORS_DEAD_LETTER_H

#include "base/value.h"
#include "engine/batch.h"
#include "project/project.h"
#include "sql/plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct DlWriter DlWriter;

/* A writer for dead letters of `name` into `path` (copied). Nothing is created until
 * the first write; then parent directories are made and the file is truncated (a run
 * recomputes from the beginning) unless `append` is set. */
DlWriter *dl_open(const char *path, const char *name, bool append);
/* dl_open on <project>/target/dead_letter/<name>.jsonl ('/' in name becomes '_'). */
DlWriter *dl_open_project(Project *p, const char *name, bool append);
/* Removes that file of `name` (absent is fine): a run that recomputes from the
 * beginning must not leave a previous run's dead letters behind when it writes none. */
bool dl_remove_project(Project *p, const char *name, char *err, size_t errsize);

/* A record a source could not read, at `origin` (NULL or without `where`: no position).
 * Writes are buffered; returns false with a message on an I/O error. */
bool dl_write_raw(DlWriter *w, const char *reason, const RowOrigin *origin, const char *raw, size_t rawlen,
                  char *err, size_t errsize);
/* A row rejected by the engine (types/cols describe the row; origin may be NULL). */
bool dl_write_row(DlWriter *w, const char *reason, const RowOrigin *origin, const PlanColumn *cols,
                  const Type *types, const Value *row, int ncols, char *err, size_t errsize);
/* The name the writer was opened for (a source or model). */
const char *dl_name(const DlWriter *w);
/* Dead letters written so far. */
int64_t dl_count(const DlWriter *w);
/* The file written (project-joined path), or NULL before the first write. */
const char *dl_path(const DlWriter *w);
bool dl_flush(DlWriter *w, char *err, size_t errsize);
/* Durable runs: flush and fsync (a checkpoint records dl_length afterwards). */
bool dl_sync(DlWriter *w, char *err, size_t errsize);
/* Bytes the file holds once flushed (0 for NULL). */
int64_t dl_length(const DlWriter *w);
/* A resumed durable run: keep the file's first `length` bytes (what the checkpoint
 * recorded; dead letters written after it are cut off, they will be written again)
 * and append from there. */
bool dl_resume(DlWriter *w, int64_t length, char *err, size_t errsize);
/* Flush, close and free. Returns false when the final flush fails. */
bool dl_close(DlWriter *w, char *err, size_t errsize);

/* Append s as a JSON string that is always valid UTF-8 (invalid bytes as U+FFFD).
 * Returns false when some byte was replaced. */
bool dl_json_str_lossy(StrBuf *sb, const char *s, size_t n);

#endif
