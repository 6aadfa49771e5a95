/* A running source: reads record batches from its ConnReader, decodes them with the
 * format's decoder into the engine's source batch (or keyed upserts), applies the
 * on_error policy to bad records (dead letter / skip / fail), keeps the line of every
 * row it appended (for dead letters the engine reports later in the step), and tracks
 * the event-time watermark (per partition for Kafka): every row gets the watermark
 * that held before it in its partition as its frontier (engine.h), and a durable
 * run's position carries the largest event times seen, so a resumed run judges and
 * holds back exactly as one that never stopped. Transport-independent: every
 * transport is a ConnReader. */
#include "connectors/source.h"

#include "base/bytes.h"
#include "base/workpool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POS_MAGIC 0x53505357u     /* "WSPS" */
enum { POS_RECORDS = 1, POS_READER = 2 };
#define POS_TIME 0x54u            /* "T": the event-time section that follows a position */

typedef struct RowPos {
    int64_t pos;                 /* line or offset */
    int32_t partition;           /* -1 for files */
} RowPos;

typedef struct DecodedSlot {
    int8_t res;              /* ConnDecodeResult */
    int8_t op;               /* ChangeOp */
    bool has_old;
    uint32_t msg;            /* BAD/FATAL: offset of the message in its lane's msgs */
} DecodedSlot;

typedef struct DecodeLane {
    ConnDecoder *dec;        /* lane 0: the source's decoder */
    Arena arena;             /* lanes > 0 */
    StrBuf msgs;
    int lo, hi;
} DecodeLane;

struct ConnSource {
    Project *project;
    const SourceDef *def;
    int index;
    ConnReader *reader;
    ConnDecoder *decoder;
    DlWriter *dl;
    SrcStats stats;
    ConnRecord *recs;
    int nrecs_cap;
    /* rows appended to the current step's batch: rowpos[i] is the position of row
     * batch_base + i; reset when a read finds the batch empty (a new step) */
    const Batch *batch;
    int batch_base;
    RowPos *rowpos;
    int nrowpos, rowpos_cap;
    int64_t max_event;           /* INT64_MIN until the first event time */
    int64_t *part_max;           /* partitioned readers: max event time per partition */
    int64_t raw_records;         /* records the reader returned (positions of line readers) */
    int64_t landed_us;           /* the current read's _replay_landed_at (INT64_MIN: not taken yet) */
    int64_t skip;                /* resuming: records still to pass over */
    int64_t until;               /* line readers: end after this many records, -1: none */
    int64_t file_seq;            /* the reader's file_seq the decoder started with */
    bool keyed;                  /* updating source with a primary key */
    bool record_origins;
    bool record_frontier;
    /* parallel decoding (NULL pool: one decoder on the calling thread) */
    WorkPool *pool;
    DecodeLane *lanes;    /* nlanes */
    int nlanes;
    DecodedSlot *slots;   /* per record of the current read */
    Value *slot_vals;            /* slot_stride cells per record: the row (and old row) */
    int slot_stride;
    int slots_cap;
};

/* A position as src_position writes it: the transport's part, then (since positions
 * carry it) the event-time section; older checkpoints end before it. */
typedef struct PosParts {
    uint8_t kind;
    uint64_t count;              /* POS_RECORDS */
    uint8_t has_id;
    uint64_t dev, ino;
    const void *inner;           /* POS_READER: the reader's own position */
    size_t inner_len;
    bool has_time;
    int64_t max_event;
    uint32_t nparts;
    ByteReader parts;            /* nparts i64: the largest event time per partition */
} PosParts;

static bool parse_position(const void *pos, size_t len, PosParts *out)
{
    memset(out, 0, sizeof *out);
    ByteReader br = bytes_reader(pos, len);
    uint32_t magic = bytes_get_u32(&br);
    out->kind = bytes_get_u8(&br);
    if (br.bad || magic != POS_MAGIC) return false;
    if (out->kind == POS_RECORDS) {
        out->count = bytes_get_u64(&br);
        out->has_id = bytes_get_u8(&br);
        out->dev = bytes_get_u64(&br);
        out->ino = bytes_get_u64(&br);
    } else if (out->kind == POS_READER) {
        out->inner = bytes_get_str(&br, &out->inner_len);
    } else {
        return false;
    }
    if (!br.bad && !bytes_done(&br)) {
        if (bytes_get_u8(&br) != POS_TIME) return false;
        out->has_time = true;
        out->max_event = (int64_t)bytes_get_u64(&br);
        out->nparts = bytes_get_u32(&br);
        out->parts = br;
        for (uint32_t i = 0; i < out->nparts && !br.bad; i++) bytes_get_u64(&br);
    }
    return bytes_done(&br);
}

static ConnFraming framing_for(const SourceDef *d)
{
    return d->format == FMT_CSV ? FRAME_CSV : FRAME_LINES;
}

/* A resume position of the kind a source of this transport writes, parsed. */
static bool resume_position(const SourceDef *def, const void *pos, size_t len, uint8_t kind, PosParts *out,
                            char *err, size_t errsize)
{
    if (!parse_position(pos, len, out) || out->kind != kind) {
        snprintf(err, errsize, "source %s: the checkpoint's position is not a position of this kind of source", def->name);
        return false;
    }
    return true;
}

/* A resume position for a line reader: how many records to pass over, after checking
 * that the reader reads the same file. */
static bool records_to_skip(const SourceDef *def, const ConnReader *r, const PosParts *pp, int64_t *skip,
                            char *err, size_t errsize)
{
    if (pp->has_id && r->has_identity && (pp->dev != r->dev || pp->ino != r->ino)) {
        snprintf(err, errsize, "source %s: %s is not the file the checkpoint read (it was replaced); "
                 "start over with --fresh", def->name, r->where);
        return false;
    }
    /* a stream that is not a file (a pipe on stdin) starts anew: nothing to pass over */
    *skip = pp->has_id && r->has_identity ? (int64_t)pp->count : 0;
    return true;
}

ConnSource *src_open_reader(Project *p, int index, ConnReader *r, const SrcOptions *o, char *err, size_t errsize)
{
    const SourceDef *def = &p->sources[index];
    int64_t skip = 0;
    PosParts pp = {0};
    if (o && o->resume &&
        (!resume_position(def, o->resume, o->resume_len, r->ops->position ? POS_READER : POS_RECORDS, &pp, err,
                          errsize) ||
         (!r->ops->position && !records_to_skip(def, r, &pp, &skip, err, errsize)))) {
        r->ops->close(r);
        return NULL;
    }
    ConnDecoder *dec = conn_decoder_new(def, err, errsize);
    if (!dec) {
        r->ops->close(r);
        return NULL;
    }
    ConnSource *s = xcalloc(1, sizeof *s);
    s->project = p;
    s->def = def;
    s->index = index;
    s->reader = r;
    s->decoder = dec;
    if (o && o->copy_text) conn_decoder_set_copy_text(dec, true);
    /* decoded text in lane arenas lives until the next read, as record bytes do, so
     * copy_text (text that must outlive the reader's buffer) decodes on one thread */
    if (o && o->decode_pool && workpool_lanes(o->decode_pool) > 1 && !o->copy_text) {
        s->pool = o->decode_pool;
        s->nlanes = workpool_lanes(o->decode_pool);
        s->lanes = xcalloc((size_t)s->nlanes, sizeof(DecodeLane));
        s->lanes[0].dec = dec;
        for (int k = 1; k < s->nlanes; k++) {
            s->lanes[k].dec = conn_decoder_new(def, err, errsize);
            arena_init(&s->lanes[k].arena, 1 << 16);
        }
        s->slot_stride = def->ncolumns * (data_format_is_updating(def->format) ? 2 : 1);
        if (s->slot_stride < 1) s->slot_stride = 1;
    }
    s->record_origins = o && o->record_origins;
    s->record_frontier = o && o->record_frontier;
    const char *dl_name = o && o->dead_letter_suffix ? arena_printf(&p->arena, "%s%s", def->name, o->dead_letter_suffix)
                                                     : def->name;
    s->dl = o && o->discard_dead_letters ? dl_open("/dev/null", def->name, true)
                                         : dl_open_project(p, dl_name, o ? o->keep_dead_letters : false);
    s->max_event = INT64_MIN;
    s->keyed = data_format_is_updating(def->format) && def->npk > 0;
    s->skip = skip;
    s->until = -1;
    if (o && o->until && !r->ops->position) {
        int64_t cap = 0;
        PosParts up;
        if (!resume_position(def, o->until, o->until_len, POS_RECORDS, &up, err, errsize) ||
            !records_to_skip(def, r, &up, &cap, err, errsize)) {
            src_close(s, NULL, 0);
            return NULL;
        }
        s->until = cap;
    }
    if (r->npartitions > 0) {
        s->part_max = xmalloc(sizeof(int64_t) * (size_t)r->npartitions);
        for (int i = 0; i < r->npartitions; i++) s->part_max[i] = INT64_MIN;
    }
    if (pp.has_time) {
        /* the event times seen before the checkpoint (partitions added since start
         * without any) */
        s->max_event = pp.max_event;
        for (uint32_t i = 0; i < pp.nparts; i++) {
            int64_t t = (int64_t)bytes_get_u64(&pp.parts);
            if (s->part_max && (int)i < r->npartitions) s->part_max[i] = t;
        }
    }
    return s;
}

ConnSource *src_open(Project *p, int index, const SrcOptions *o, bool *config_error, char *err, size_t errsize)
{
    const SourceDef *def = &p->sources[index];
    *config_error = false;
    if (def->format == FMT_UPSERT) {
        snprintf(err, errsize, "source %s: format upsert is for sinks; a source reads changelog-json or debezium-json",
                 def->name);
        *config_error = true;
        return NULL;
    }
    ConnReader *r = NULL;
    switch (def->connector) {
    case SRC_FILE: {
        if (!def->path) {
            snprintf(err, errsize, "source %s: file connector without a path", def->name);
            *config_error = true;
            return NULL;
        }
        /* ${ENV:NAME} is read here, where the data is read; messages and dead letters
         * name the file by its path as written, so the value is never printed */
        char e2[256];
        const char *path = project_resolve_env(p, def->path, e2, sizeof e2);
        if (!path) {
            snprintf(err, errsize, "source %s: path %s: %s", def->name, def->path, e2);
            *config_error = true;
            return NULL;
        }
        const char *abs = project_path(p, path);
        if (src_path_is_multi(abs)) {
            PosParts pp = {0}, up = {0};
            if (o && o->resume && !resume_position(def, o->resume, o->resume_len, POS_READER, &pp, err, errsize))
                return NULL;
            /* a replay: the files, and the records of each, the position to end at holds */
            if (o && o->until && !resume_position(def, o->until, o->until_len, POS_READER, &up, err, errsize))
                return NULL;
            r = src_files_reader_open(abs, def->path, framing_for(def), o && o->watch_files, o && o->until_caught_up,
                                      pp.inner, pp.inner_len, up.inner, up.inner_len, err, errsize);
        } else {
            r = src_file_reader_open(abs, def->path, framing_for(def), err, errsize);
        }
        if (!r) { /* name the source: "source shop.orders: data/orders.jsonl: cannot open: ..." */
            char e3[768];
            snprintf(e3, sizeof e3, "source %s: %s", def->name, err);
            snprintf(err, errsize, "%s", e3);
        }
        break;
    }
    case SRC_STDIN:
        r = src_stdin_reader_open(framing_for(def), err, errsize);
        break;
    case SRC_CLICKHOUSE: {
        PosParts pp = {0};
        if (o && o->resume && !resume_position(def, o->resume, o->resume_len, POS_READER, &pp, err, errsize))
            return NULL;
        r = src_clickhouse_reader_open(def, pp.inner, pp.inner_len, config_error, err, errsize);
        if (!r) return NULL;
        break;
    }
    case SRC_KAFKA:
        if (def->format == FMT_CSV) {
            snprintf(err, errsize, "source %s: format csv is for files; a kafka source reads json, changelog-json "
                                   "or debezium-json", def->name);
            *config_error = true;
            return NULL;
        }
        PosParts pp = {0}, up = {0};
        if (o && o->resume && !resume_position(def, o->resume, o->resume_len, POS_READER, &pp, err, errsize))
            return NULL;
        if (o && o->until && !resume_position(def, o->until, o->until_len, POS_READER, &up, err, errsize)) return NULL;
        int64_t *stops = NULL;
        int nstops = 0;
        if (up.inner && !kafka_position_offsets(up.inner, up.inner_len, &stops, &nstops)) {
            snprintf(err, errsize, "source %s: the position to read up to is malformed", def->name);
            return NULL;
        }
        r = src_kafka_reader_open(p, def, o && o->until_caught_up, pp.inner, pp.inner_len, stops, nstops, config_error,
                                  err, errsize);
        free(stops);
        break;
    }
    if (!r) return NULL;
    return src_open_reader(p, index, r, o, err, errsize);
}

static RowOrigin origin_of(const ConnSource *s, const ConnRecord *r)
{
    RowOrigin o = {s->reader->where, r->pos, r->partition, r->timestamp_us};
    return o;
}

/* Remembers the position of the row just appended to b. */
static void note_pos(ConnSource *s, Batch *b, const ConnRecord *r)
{
    if (s->record_origins) {
        RowOrigin o = origin_of(s, r);
        batch_set_origin(b, b->n - 1, &o);
    }
    if (s->nrowpos == s->rowpos_cap) {
        s->rowpos_cap = s->rowpos_cap ? s->rowpos_cap * 2 : 4096;
        s->rowpos = xrealloc(s->rowpos, sizeof(RowPos) * (size_t)s->rowpos_cap);
    }
    s->rowpos[s->nrowpos++] = (RowPos){r->pos, r->partition};
}

/* max(event time) - watermark_delay, INT64_MIN for none. */
static int64_t minus_delay(const ConnSource *s, int64_t max_event)
{
    int64_t d = s->def->watermark_delay_us;
    if (max_event == INT64_MIN || (d > 0 && max_event < INT64_MIN + d)) return INT64_MIN;
    return max_event - d;
}

/* The frontier of the next row of partition `partition` (-1: unpartitioned): the
 * watermark of the rows before it in its partition. */
static int64_t frontier_of(const ConnSource *s, int32_t partition)
{
    if (s->part_max && partition >= 0 && partition < s->reader->npartitions) return minus_delay(s, s->part_max[partition]);
    return minus_delay(s, s->max_event);
}

static void note_event_time(ConnSource *s, const ConnRecord *r, const Value *row)
{
    int64_t t;
    if (!eng_event_time(s->def, row, &t)) return;
    if (t > s->max_event) s->max_event = t;
    if (s->part_max && r->partition >= 0 && r->partition < s->reader->npartitions && t > s->part_max[r->partition])
        s->part_max[r->partition] = t;
}

/* Applies the on_error policy to a bad record. Returns false for on_error: fail. */
static bool bad_record(ConnSource *s, const ConnRecord *r, const char *reason, char *err, size_t errsize)
{
    s->stats.bad++;
    switch (s->def->on_error) {
    case ONERR_FAIL: {
        char where[320];
        src_position_text(s->reader->where, r->partition, r->pos, where, sizeof where);
        snprintf(err, errsize, "%s: %s", where, reason);
        return false;
    }
    case ONERR_SKIP:
        s->stats.skipped++;
        return true;
    default: {
        s->stats.dead_letters++;
        RowOrigin o = origin_of(s, r);
        return dl_write_raw(s->dl, reason, &o, r->data, r->len, err, errsize);
    }
    }
}

void src_position_text(const char *where, int32_t partition, int64_t pos, char *buf, size_t size)
{
    if (partition >= 0) snprintf(buf, size, "topic %s partition %d offset %lld", where, partition, (long long)pos);
    else snprintf(buf, size, "%s:%lld", where, (long long)pos);
}

static bool key_equal(const ConnSource *s, const Value *a, const Value *b)
{
    for (int k = 0; k < s->def->npk; k++) {
        int c = s->def->pk_cols[k];
        if (!value_equal(s->def->columns[c].type, &a[c], &b[c])) return false;
    }
    return true;
}

/* Appends a row of the record r to the batch, with its position and frontier. */
static void append_row(ConnSource *s, Batch *batch, const ConnRecord *r, const Value *row, int64_t w, int64_t front)
{
    batch_append_row(batch, row, w);
    note_pos(s, batch, r);
    if (front != INT64_MIN) batch_set_frontier(batch, batch->n - 1, front);
}

/* Hands one decoded change to the engine. Returns false with a reason in err when the
 * engine rejects it (e.g. a delete of an unknown key): a bad record. */
static bool apply_change(ConnSource *s, Batch *batch, SrcUpsertFn upsert, void *ctx, const ConnRecord *r,
                         const ConnDecoded *d, int64_t front, char *err, size_t errsize)
{
    if (!s->keyed) {
        if (d->op == CHANGE_UPDATE) {
            if (!d->old_row) {
                snprintf(err, errsize, "an update needs the source's primary_key (or a debezium \"before\")");
                return false;
            }
            append_row(s, batch, r, d->old_row, -1, front);
            append_row(s, batch, r, d->row, 1, front);
        } else {
            append_row(s, batch, r, d->row, d->op == CHANGE_DELETE ? -1 : 1, front);
        }
        return true;
    }
    RowOrigin o = origin_of(s, r);
    if (d->op == CHANGE_UPDATE && d->old_row && !key_equal(s, d->old_row, d->row)) {
        /* the key changed: delete the old key, insert the new one */
        if (!upsert(ctx, s->index, CHANGE_DELETE, d->old_row, &o, front, err, errsize)) return false;
        return upsert(ctx, s->index, CHANGE_INSERT, d->row, &o, front, err, errsize);
    }
    return upsert(ctx, s->index, d->op, d->row, &o, front, err, errsize);
}

/* _replay_landed_at: the time a read took its records (not deterministic). */
static int64_t wall_clock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Takes one decoded record (res and d from conn_decode, msg its message) into the
 * step: rows into the batch or through upsert, bad records by on_error. Returns
 * false on a fatal error (message in err). */
static bool take_decoded(ConnSource *s, Batch *batch, SrcUpsertFn upsert, void *upsert_ctx, const ConnRecord *r,
                         ConnDecodeResult res, const ConnDecoded *dp, const char *msg_in, char *err, size_t errsize)
{
    if (s->skip > 0) {
        /* resuming: read before the checkpoint (decoded all the same, so that the
         * decoder sees a CSV header); its rows and dead letters are already out */
        s->skip--;
        return true;
    }
    char msg[512];
    if (res == CONN_DEC_ROW) {
        ConnDecoded d = *dp;
        s->stats.records++;
        int64_t front = s->record_frontier ? frontier_of(s, r->partition) : INT64_MIN;
        if (s->def->format == FMT_JSON || s->def->format == FMT_CSV) {
            if (batch->ncols > s->def->ncolumns) {
                /* a model reads the replay lineage (docs/sql.md) */
                if (s->landed_us == INT64_MIN && r->partition >= 0) s->landed_us = wall_clock_us();
                EngLineage lin = {r->partition >= 0 ? r->partition : 0, r->pos,
                                  r->partition >= 0 && r->timestamp_us ? r->timestamp_us : INT64_MIN,
                                  r->partition >= 0 ? s->landed_us : INT64_MIN};
                eng_source_append(batch, d.row, s->def->ncolumns, 1, &lin);
            } else {
                batch_append_row(batch, d.row, 1);
            }
            note_pos(s, batch, r);
            if (front != INT64_MIN) batch_set_frontier(batch, batch->n - 1, front);
        } else if (!apply_change(s, batch, upsert, upsert_ctx, r, &d, front, msg, sizeof msg)) {
            return bad_record(s, r, msg, err, errsize);
        }
        s->stats.rows++;
        note_event_time(s, r, d.row);
    } else if (res == CONN_DEC_BAD) {
        s->stats.records++;
        return bad_record(s, r, msg_in, err, errsize);
    } else if (res == CONN_DEC_FATAL) {
        char where[320];
        src_position_text(s->reader->where, r->partition, r->pos, where, sizeof where);
        snprintf(err, errsize, "%s: %s", where, msg_in);
        return false;
    }
    return true;
}

/* ---- parallel decoding (SrcOptions.decode_pool) ----
 * The records [lo, n) of a read are cut into one contiguous range per lane; lane 0
 * decodes its range on the calling thread with the source's decoder into the batch's
 * arena, lane k > 0 on a pool thread with a decoder of its own into an arena of its
 * own (reset at the next read: its text lives as long as the record bytes do, past
 * the step). Every lane keeps its results (the row's cells, op, message) in slots
 * of its own range; then the records are taken in input order, exactly as decoded
 * one by one, so rows, dead letters, positions and watermarks do not depend on the
 * number of lanes. */

/* One job over the lanes: what every lane reads and where it writes. */
typedef struct DecodeJob {
    ConnSource *s;
    Arena *batch_arena;
} DecodeJob;

/* Records fewer than this per lane are decoded on one thread. */
enum { MIN_RECORDS_PER_LANE = 1 };

static void decode_lane(void *arg, int lane)
{
    DecodeJob *job = arg;
    ConnSource *s = job->s;
    DecodeLane *L = &s->lanes[lane];
    Arena *arena = lane == 0 ? job->batch_arena : &L->arena;
    int ncols = s->def->ncolumns, stride = s->slot_stride;
    char msg[512];
    sb_clear(&L->msgs);
    for (int i = L->lo; i < L->hi; i++) {
        const ConnRecord *r = &s->recs[i];
        ConnDecoded d;
        ConnDecodeResult res = conn_decode(L->dec, r->data, r->len, arena, &d, msg, sizeof msg);
        DecodedSlot *sl = &s->slots[i];
        sl->res = (int8_t)res;
        sl->has_old = false;
        if (res == CONN_DEC_ROW) {
            sl->op = (int8_t)d.op;
            Value *v = s->slot_vals + (size_t)i * (size_t)stride;
            memcpy(v, d.row, sizeof(Value) * (size_t)ncols);
            if (d.old_row && stride > ncols) {
                memcpy(v + ncols, d.old_row, sizeof(Value) * (size_t)ncols);
                sl->has_old = true;
            }
        } else if (res == CONN_DEC_BAD || res == CONN_DEC_FATAL) {
            sl->msg = (uint32_t)L->msgs.len;
            sb_puts(&L->msgs, msg);
            sb_putc(&L->msgs, '\0');
        }
    }
}

static bool parallel_decode(ConnSource *s, Batch *batch, SrcUpsertFn upsert, void *upsert_ctx, int lo, int n,
                            char *err, size_t errsize)
{
    int nl = s->nlanes;
    if ((n - lo) / MIN_RECORDS_PER_LANE < nl) nl = (n - lo) / MIN_RECORDS_PER_LANE;
    if (nl < 1) nl = 1;
    if (n > s->slots_cap) {
        s->slots_cap = n;
        s->slots = xrealloc(s->slots, sizeof(DecodedSlot) * (size_t)n);
        s->slot_vals = xrealloc(s->slot_vals, sizeof(Value) * (size_t)n * (size_t)s->slot_stride);
    }
    for (int k = 0; k < nl; k++) {
        DecodeLane *L = &s->lanes[k];
        L->lo = lo + (int)((int64_t)(n - lo) * k / nl);
        L->hi = lo + (int)((int64_t)(n - lo) * (k + 1) / nl);
        if (k > 0) {
            arena_reset(&L->arena);
            conn_decoder_sync(L->dec, s->decoder);
        }
    }
    DecodeJob job = {s, &batch->arena};
    workpool_run(s->pool, nl, decode_lane, &job);
    int ncols = s->def->ncolumns;
    for (int k = 0; k < nl; k++) {
        const DecodeLane *L = &s->lanes[k];
        for (int i = L->lo; i < L->hi; i++) {
            const DecodedSlot *sl = &s->slots[i];
            Value *v = s->slot_vals + (size_t)i * (size_t)s->slot_stride;
            ConnDecoded d = {(ChangeOp)sl->op, v, sl->has_old ? v + ncols : NULL};
            const char *msg = sl->res == CONN_DEC_BAD || sl->res == CONN_DEC_FATAL ? L->msgs.data + sl->msg : "";
            if (!take_decoded(s, batch, upsert, upsert_ctx, &s->recs[i], (ConnDecodeResult)sl->res, &d, msg, err,
                              errsize))
                return false;
        }
    }
    return true;
}


int src_read_batch(ConnSource *s, Batch *batch, SrcUpsertFn upsert, void *upsert_ctx, int max,
                   char *err, size_t errsize)
{
    if (max < 1) max = 1;
    if (s->reader->eof) return 0;
    if (s->until >= 0) {
        if (s->raw_records >= s->until) return 0;
        if (max > s->until - s->raw_records) max = (int)(s->until - s->raw_records);
    }
    if (max > s->nrecs_cap) {
        s->nrecs_cap = max;
        s->recs = xrealloc(s->recs, sizeof(ConnRecord) * (size_t)max);
    }
    if (batch != s->batch || batch->n == 0) {
        s->batch = batch;
        s->batch_base = batch->n;
        s->nrowpos = 0;
    }
    int n = s->reader->ops->read(s->reader, s->recs, max, err, errsize);
    if (n < 0) return -1;
    if (s->reader->file_seq != s->file_seq) { /* the next file of a directory or glob */
        s->file_seq = s->reader->file_seq;
        conn_decoder_new_file(s->decoder);
    }
    s->raw_records += n;
    Arena *arena = &batch->arena;
    char msg[512];
    s->landed_us = INT64_MIN;
    int i = 0;
    /* a CSV header is read in order, by the source's own decoder */
    for (; i < n && (!s->pool || !conn_decoder_ready(s->decoder)); i++) {
        const ConnRecord *r = &s->recs[i];
        ConnDecoded d;
        ConnDecodeResult res = conn_decode(s->decoder, r->data, r->len, arena, &d, msg, sizeof msg);
        if (!take_decoded(s, batch, upsert, upsert_ctx, r, res, &d, msg, err, errsize)) return -1;
    }
    if (i < n && !parallel_decode(s, batch, upsert, upsert_ctx, i, n, err, errsize)) return -1;
    if (s->skip > 0 && s->reader->eof) {
        snprintf(err, errsize, "source %s: %s has fewer records than the checkpoint had read (it was truncated "
                 "or rewritten); start over with --fresh", s->def->name, s->reader->where);
        return -1;
    }
    return n;
}

bool src_position_info(const void *pos, size_t len, SrcPositionInfo *out)
{
    memset(out, 0, sizeof *out);
    PosParts pp;
    if (!parse_position(pos, len, &pp)) return false;
    if (pp.kind == POS_RECORDS) {
        out->records = (int64_t)pp.count;
        return true;
    }
    if (src_files_position_records(pp.inner, pp.inner_len, &out->records, NULL)) return true;
    out->partitioned = true;
    return kafka_position_offsets(pp.inner, pp.inner_len, &out->offsets, &out->npartitions);
}

void src_position(const ConnSource *s, StrBuf *out)
{
    bytes_put_u32(out, POS_MAGIC);
    if (s->reader->ops->position) {
        bytes_put_u8(out, POS_READER);
        StrBuf b = STRBUF_INIT;
        s->reader->ops->position(s->reader, &b);
        bytes_put_str(out, b.data ? b.data : "", b.len);
        sb_free(&b);
    } else {
        bytes_put_u8(out, POS_RECORDS);
        bytes_put_u64(out, (uint64_t)s->raw_records);
        bytes_put_u8(out, s->reader->has_identity);
        bytes_put_u64(out, s->reader->dev);
        bytes_put_u64(out, s->reader->ino);
    }
    /* everything the watermark depends on: an idle partition must go on holding it
     * back after a restart */
    bytes_put_u8(out, POS_TIME);
    bytes_put_u64(out, (uint64_t)s->max_event);
    int np = s->part_max ? s->reader->npartitions : 0;
    bytes_put_u32(out, (uint32_t)np);
    for (int i = 0; i < np; i++) bytes_put_u64(out, (uint64_t)s->part_max[i]);
}

bool src_done(const ConnSource *s) { return s->reader->eof || (s->until >= 0 && s->raw_records >= s->until); }
bool src_bounded(const ConnSource *s) { return s->reader->bounded; }

/* The partitioned source's event-time high mark: the minimum over partitions that are
 * not idle without data (see src_watermark). */
static int64_t partitioned_max_event(const ConnSource *s)
{
    const ConnReader *r = s->reader;
    int64_t m = INT64_MAX;
    bool any = false;
    for (int p = 0; p < r->npartitions; p++) {
        if (s->part_max[p] == INT64_MIN) {
            if (r->ops->partition_idle && r->ops->partition_idle((ConnReader *)r, p)) continue;
            return INT64_MIN;
        }
        any = true;
        if (s->part_max[p] < m) m = s->part_max[p];
    }
    return any ? m : INT64_MIN;
}

int64_t src_watermark(const ConnSource *s)
{
    if (s->reader->eof && s->reader->bounded) return INT64_MAX;
    return minus_delay(s, s->part_max ? partitioned_max_event(s) : s->max_event);
}

void src_progress(const ConnSource *s, int64_t *done, int64_t *total)
{
    *done = 0;
    *total = 0;
    if (s->reader->ops->progress) s->reader->ops->progress(s->reader, done, total);
}

const SrcStats *src_stats(const ConnSource *s) { return &s->stats; }
const SourceDef *src_def(const ConnSource *s) { return s->def; }
int src_index(const ConnSource *s) { return s->index; }

bool src_row_origin(const ConnSource *s, const Value *row, RowOrigin *out)
{
    const Batch *b = s->batch;
    if (!b || !row || b->n == 0 || b->ncols == 0) return false;
    uintptr_t lo = (uintptr_t)b->vals, hi = (uintptr_t)(b->vals + (size_t)b->n * (size_t)b->ncols);
    uintptr_t p = (uintptr_t)row;
    if (p < lo || p >= hi) return false;
    size_t idx = (size_t)(p - lo) / (sizeof(Value) * (size_t)b->ncols);
    if (idx < (size_t)s->batch_base || idx - (size_t)s->batch_base >= (size_t)s->nrowpos) return false;
    const RowPos *rp = &s->rowpos[idx - (size_t)s->batch_base];
    out->where = s->reader->where;
    out->line = rp->pos;
    out->partition = rp->partition;
    out->timestamp_us = 0;
    return true;
}

bool src_commit(ConnSource *s, char *err, size_t errsize)
{
    if (s->reader->ops->commit) return s->reader->ops->commit(s->reader, err, errsize);
    return true;
}

DlWriter *src_dead_letter_writer(ConnSource *s) { return s->dl; }

bool src_flush(ConnSource *s, char *err, size_t errsize) { return dl_flush(s->dl, err, errsize); }

bool src_close(ConnSource *s, char *err, size_t errsize)
{
    if (!s) return true;
    bool ok = dl_close(s->dl, err, errsize);
    s->reader->ops->close(s->reader);
    conn_decoder_free(s->decoder);
    for (int k = 1; k < s->nlanes; k++) {
        conn_decoder_free(s->lanes[k].dec);
        arena_fini(&s->lanes[k].arena);
    }
    for (int k = 0; k < s->nlanes; k++) sb_free(&s->lanes[k].msgs);
    free(s->lanes);
    free(s->slots);
    free(s->slot_vals);
    free(s->recs);
    free(s->rowpos);
    free(s->part_max);
    free(s);
    return ok;
}
