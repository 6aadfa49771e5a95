/* The Kafka connector, the only file that includes librdkafka: a ConnReader over a
 * topic (source side) and a ConnSink that produces a model's changes to a topic.
 *
 * Reader: weir owns its positions (no consumer group): it starts every partition of
 * the topic itself, at the earliest retained offset or where a checkpoint left it, on
 * one queue and reads message values from it in batches. Messages stay alive until the next read
 * (records point into them, like the file reader's blocks). Partition-EOF events tell
 * which partitions are caught up: idle ones do not hold the watermark back, and with
 * until_caught_up the reader ends once every partition reached the high watermark it
 * had when the reader opened. A resumed reader reads every partition's last delivered
 * message again and compares it with the checkpoint's, so a topic deleted and
 * recreated is an error, not a silent skip of its first records.
 *
 * Sink: an idempotent producer; a change is one message whose value is the formatted
 * change (json, changelog-json, debezium-json; upsert: the row, or a tombstone for a
 * delete) and whose key is the model's key columns as a JSON object (no key for a
 * keyless model). Keys are partitioned with murmur2 like the Java client, so other
 * clients agree on where a key lives. sink_commit waits until the broker acknowledged
 * every message of the step (at-least-once per step). In a durable run every delivery
 * is a transaction with a marker of its checkpoint (exactly once for read_committed
 * consumers, see ks_begin_delivery). */
#include "base/bytes.h"
#include "base/hash.h"
#include "connectors/sink.h"
#include "connectors/source.h"

#include <librdkafka/rdkafka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OPEN_TIMEOUT_MS 10000        /* metadata and watermark queries at open */
#define PROBE_INTERVAL_S 1.0         /* while brokers seem down, ask the cluster this often */
#define PROBE_TIMEOUT_MS 250         /* how long one such question may take */
#define FLUSH_TIMEOUT_MS 60000       /* a step's messages must be acknowledged within this */
#define TXN_STEP_MS 500              /* transactional calls wait this long between liveness checks */
#define IDLE_WAIT_MS 50              /* an idle read waits this long for messages */
#define FILL_WAIT_MS 10              /* a read with data pending waits this long for a full batch */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- configuration */

/* Builds the client configuration: bootstrap servers (own setting, else the target's),
 * `defaults` (name, value pairs), the target's properties (which may override them),
 * then `fixed` (pairs the connector relies on). */
static rd_kafka_conf_t *make_conf(Project *p, const char *what, const char *own_bootstrap,
                                  const char *const *defaults, int ndefaults, const char *const *fixed, int nfixed,
                                  const char **cluster, bool *config_error, char *err, size_t errsize)
{
    const TargetDef *t = p->target;
    const char *raw = own_bootstrap ? own_bootstrap : t ? t->kafka_bootstrap : NULL;
    *config_error = true;
    if (!raw) {
        snprintf(err, errsize, "%s: no kafka bootstrap servers: set `bootstrap_servers` on it or "
                               "`kafka: {bootstrap_servers: ...}` on the target", what);
        return NULL;
    }
    char e2[512];
    const char *bootstrap = project_resolve_env(p, raw, e2, sizeof e2);
    if (!bootstrap) {
        snprintf(err, errsize, "%s: bootstrap_servers: %s", what, e2);
        return NULL;
    }
    if (cluster) *cluster = bootstrap;
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char cerr[512];
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, cerr, sizeof cerr) != RD_KAFKA_CONF_OK) goto bad;
    for (int i = 0; i < ndefaults; i++)
        if (rd_kafka_conf_set(conf, defaults[2 * i], defaults[2 * i + 1], cerr, sizeof cerr) != RD_KAFKA_CONF_OK)
            goto bad;
    if (t && t->kafka_properties) {
        const YNode *props = t->kafka_properties;
        for (int i = 0; i < props->npairs; i++) {
            const YNode *k = props->pairs[i].key, *v = props->pairs[i].value;
            if (k->kind != YNODE_SCALAR || v->kind != YNODE_SCALAR) continue;
            const char *val = project_resolve_env(p, v->str, e2, sizeof e2);
            if (!val) {
                snprintf(err, errsize, "%s: kafka property %s: %s", what, k->str, e2);
                rd_kafka_conf_destroy(conf);
                return NULL;
            }
            if (rd_kafka_conf_set(conf, k->str, val, cerr, sizeof cerr) != RD_KAFKA_CONF_OK) goto bad;
        }
    }
    for (int i = 0; i < nfixed; i++)
        if (rd_kafka_conf_set(conf, fixed[2 * i], fixed[2 * i + 1], cerr, sizeof cerr) != RD_KAFKA_CONF_OK) goto bad;
    *config_error = false;
    return conf;
bad:
    snprintf(err, errsize, "%s: kafka configuration: %s", what, cerr);
    rd_kafka_conf_destroy(conf);
    return NULL;
}

/* librdkafka reports broker connection trouble through logs and error events; weir
 * reports it itself (only the CLI prints), so the library stays quiet. */
static void quiet_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    (void)rk; (void)level; (void)fac; (void)buf;
}

/* ---------------------------------------------------------------- liveness
 * librdkafka retries a cluster that went away forever, and tells about it only as an
 * ALL_BROKERS_DOWN error on the client's main queue (never on a partition's queue). A
 * client keeps a KLive: the error (or, for a sink, a second spent waiting for
 * acknowledgements) makes it suspect the cluster; while suspect it asks the cluster for
 * its topic's metadata once a second; an answer (or any message) clears the suspicion,
 * and no answer for the target's kafka unreachable_timeout fails the run with a message
 * naming the cluster. The clock starts at the first unanswered question,
 * so a report about connections that were idle long ago does not count as downtime. */

typedef struct KLive {
    rd_kafka_t *rk;
    const char *what;            /* "source NAME" / "model NAME: sink" */
    rd_kafka_topic_t *rkt;       /* the client's topic: the question is about it */
    char *cluster;               /* the bootstrap servers */
    double limit_s;
    bool suspect;                /* librdkafka reported every broker down */
    double down_since;           /* first unanswered question (0: none) */
    double last_probe;
    char reason[256];
    char fatal[512];             /* an error the client cannot recover from */
} KLive;

static void live_init(KLive *l, Project *p, const char *what, const char *cluster)
{
    memset(l, 0, sizeof *l);
    l->what = what;
    l->cluster = xstrdup(cluster ? cluster : "");
    int64_t us = p->target ? p->target->kafka_unreachable_us : PROJECT_KAFKA_UNREACHABLE_US;
    l->limit_s = (double)(us > 0 ? us : PROJECT_KAFKA_UNREACHABLE_US) / 1e6;
}

static void live_fini(KLive *l) { free(l->cluster); }

static void live_error(KLive *l, int e, const char *reason)
{
    if (e == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
        l->suspect = true;
        snprintf(l->reason, sizeof l->reason, "%s", reason);
    } else if (e == RD_KAFKA_RESP_ERR__AUTHENTICATION && !l->fatal[0]) {
        snprintf(l->fatal, sizeof l->fatal, "%s", reason);
    }
}

/* A client that has waited since `since` for the cluster to answer suspects it after a
 * second, without waiting for librdkafka to call every broker down (which can take
 * its reconnection backoff, up to 10 s). */
static void live_waiting(KLive *l, double since)
{
    if (l->suspect || mono_s() - since < PROBE_INTERVAL_S) return;
    l->suspect = true;
    snprintf(l->reason, sizeof l->reason, "messages were not acknowledged");
}

/* Something came from the cluster. */
static void live_up(KLive *l)
{
    l->suspect = false;
    l->down_since = 0;
    l->reason[0] = '\0';
}

/* Serves the client's main queue (its error reports) and, while the cluster is suspect,
 * asks it. False with a message once it has not answered for the limit. */
static bool live_check(KLive *l, char *err, size_t errsize)
{
    rd_kafka_poll(l->rk, 0);
    if (l->fatal[0]) {
        snprintf(err, errsize, "%s: kafka cluster %s: %s", l->what, l->cluster, l->fatal);
        return false;
    }
    if (!l->suspect) return true;
    double now = mono_s();
    if (now - l->last_probe >= PROBE_INTERVAL_S) {
        /* the metadata of the client's topic (neither client lets a broker create a
         * topic it asks about); librdkafka's offset queries would wait for the leader
         * far beyond their timeout */
        const struct rd_kafka_metadata *md = NULL;
        if (l->rkt && rd_kafka_metadata(l->rk, 0, l->rkt, &md, PROBE_TIMEOUT_MS) == RD_KAFKA_RESP_ERR_NO_ERROR) {
            rd_kafka_metadata_destroy(md);
            live_up(l);
            return true;
        }
        l->last_probe = mono_s();
        if (l->down_since == 0) l->down_since = now;
    }
    if (l->down_since != 0 && now - l->down_since >= l->limit_s) {
        snprintf(err, errsize, "%s: no broker of the kafka cluster %s has answered for %g s (the target's kafka "
                 "unreachable_timeout)%s%s", l->what, l->cluster, l->limit_s, l->reason[0] ? ": " : "", l->reason);
        return false;
    }
    return true;
}

/* Before a call that librdkafka lets wait far beyond its timeout when the cluster is
 * gone (the transactional ones): asks the cluster until it answers or the limit is
 * reached. */
static bool live_confirm(KLive *l, char *err, size_t errsize)
{
    l->suspect = true;
    l->last_probe = 0;  /* ask now */
    while (l->suspect) {
        if (!live_check(l, err, errsize)) return false;
        if (l->suspect) rd_kafka_poll(l->rk, 100);
    }
    return true;
}

/* The topic's partition count, or -1 with a message. Asks for the metadata of all
 * topics: a request naming the topic would make brokers with automatic topic creation
 * (the default, and the mock cluster) create it, and a misspelt topic would be read
 * as an empty one. */
static int topic_partitions(rd_kafka_t *rk, const char *topic, const char *what, char *err, size_t errsize)
{
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 1, NULL, &md, OPEN_TIMEOUT_MS);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        snprintf(err, errsize, "%s: cannot reach kafka: %s", what, rd_kafka_err2str(e));
        return -1;
    }
    int n = -1;
    rd_kafka_resp_err_t terr = RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
    for (int i = 0; i < md->topic_cnt; i++) {
        const struct rd_kafka_metadata_topic *t = &md->topics[i];
        if (strcmp(t->topic, topic) != 0) continue;
        terr = t->err;
        if (terr == RD_KAFKA_RESP_ERR_NO_ERROR && t->partition_cnt > 0) n = t->partition_cnt;
        break;
    }
    rd_kafka_metadata_destroy(md);
    if (n < 0 && terr != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART && terr != RD_KAFKA_RESP_ERR_NO_ERROR)
        snprintf(err, errsize, "%s: topic %s: %s", what, topic, rd_kafka_err2str(terr));
    else if (n < 0)
        snprintf(err, errsize, "%s: topic %s does not exist", what, topic);
    return n;
}

/* ---------------------------------------------------------------- reader */

typedef struct KPart {
    int64_t next;                /* offset of the next message to deliver */
    int64_t last;                /* offset of the last message delivered (-1: none) */
    uint64_t last_hash;          /* record_hash of that message */
    bool check;                  /* resumed: that message must still be there (verify_positions) */
    int64_t end;                 /* until_caught_up: high watermark at open */
    bool at_eof;                 /* the last event was partition EOF (nothing pending) */
    bool done;                   /* until_caught_up: everything below `end` delivered */
    bool started;                /* fetching (consume_start) */
} KPart;

typedef struct KafkaReader {
    ConnReader base;
    char *where;                 /* topic */
    char *what;                  /* "source NAME" for messages */
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    rd_kafka_queue_t *queue;     /* every partition's messages, in fetch order */
    KPart *parts;
    int nparts;
    int ndone;
    bool until_caught_up;
    rd_kafka_message_t **held;   /* messages of the last read, destroyed by the next */
    int nheld, held_cap;
    KLive live;
} KafkaReader;

static void reader_on_error(rd_kafka_t *rk, int e, const char *reason, void *opaque)
{
    (void)rk;
    live_error(&((KafkaReader *)opaque)->live, e, reason);
}

/* What identifies a record at its offset: its timestamp, key and value. */
static uint64_t record_hash(const rd_kafka_message_t *m)
{
    rd_kafka_timestamp_type_t tt;
    uint64_t h = hash_u64((uint64_t)rd_kafka_message_timestamp(m, &tt), 0x6b7265636f7264ull);
    h = hash_u64(m->key ? m->key_len : UINT64_MAX, h);
    if (m->key) h = hash_bytes(m->key, m->key_len, h);
    h = hash_u64(m->payload ? m->len : UINT64_MAX, h);
    return m->payload ? hash_bytes(m->payload, m->len, h) : h;
}

static void release_held(KafkaReader *r)
{
    for (int i = 0; i < r->nheld; i++) rd_kafka_message_destroy(r->held[i]);
    r->nheld = 0;
}

static void stop_partition(KafkaReader *r, int p)
{
    if (!r->parts[p].started) return;
    r->parts[p].started = false;
    rd_kafka_consume_stop(r->rkt, p);
}

static void mark_done(KafkaReader *r, int p)
{
    KPart *kp = &r->parts[p];
    if (kp->done) return;
    kp->done = true;
    if (++r->ndone == r->nparts) r->base.eof = true;
    stop_partition(r, p);
}

/* A message carrying an error. Returns false for errors the run cannot survive. */
static bool message_error(KafkaReader *r, const rd_kafka_message_t *m, char *err, size_t errsize)
{
    rd_kafka_resp_err_t e = m->err;
    if (e == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        if (m->partition < 0 || m->partition >= r->nparts) return true;
        KPart *kp = &r->parts[m->partition];
        live_up(&r->live);
        kp->at_eof = true;
        if (m->offset > kp->next) kp->next = m->offset;
        if (r->until_caught_up && kp->next >= kp->end) mark_done(r, m->partition);
        return true;
    }
    char fatal[256];
    if (rd_kafka_fatal_error(r->rk, fatal, sizeof fatal)) {
        snprintf(err, errsize, "%s: kafka: %s", r->what, fatal);
        return false;
    }
    switch (e) {
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
        snprintf(err, errsize, "%s: topic %s: %s", r->what, r->where, rd_kafka_message_errstr(m));
        return false;
    default:
        return true;             /* transient: the client retries */
    }
}

static int kr_read(ConnReader *base, ConnRecord *recs, int max, char *err, size_t errsize)
{
    KafkaReader *r = (KafkaReader *)base;
    release_held(r);
    if (base->eof) return 0;
    if (max > r->held_cap) {
        r->held_cap = max;
        r->held = xrealloc(r->held, sizeof *r->held * (size_t)max);
    }
    bool idle = true;
    for (int p = 0; p < r->nparts && idle; p++) idle = r->parts[p].done || r->parts[p].at_eof;
    /* consume_batch_queue returns once `max` messages are there or the time is up: a
     * short wait while data is pending makes full batches (steps cost per call) */
    ssize_t got = rd_kafka_consume_batch_queue(r->queue, idle ? IDLE_WAIT_MS : FILL_WAIT_MS, r->held, (size_t)max);
    if (got < 0) {
        snprintf(err, errsize, "%s: kafka: %s", r->what, rd_kafka_err2str(rd_kafka_last_error()));
        return -1;
    }
    r->nheld = (int)got;
    int n = 0;
    for (int i = 0; i < r->nheld; i++) {
        const rd_kafka_message_t *m = r->held[i];
        if (m->err) {
            if (!message_error(r, m, err, errsize)) return -1;
            continue;
        }
        if (m->partition < 0 || m->partition >= r->nparts) continue;
        KPart *kp = &r->parts[m->partition];
        live_up(&r->live);
        if (kp->done || (r->until_caught_up && m->offset >= kp->end)) {
            mark_done(r, m->partition);  /* beyond what the partition held at open */
            continue;
        }
        rd_kafka_timestamp_type_t tt;
        int64_t ts = rd_kafka_message_timestamp(m, &tt);
        kp->next = m->offset + 1;
        kp->last = m->offset;
        kp->last_hash = record_hash(m);
        kp->at_eof = false;
        if (r->until_caught_up && kp->next >= kp->end) mark_done(r, m->partition);
        if (!m->payload) continue;       /* tombstone */
        recs[n].data = m->payload;
        recs[n].len = m->len;
        recs[n].pos = m->offset;
        recs[n].partition = m->partition;
        recs[n].timestamp_us = ts >= 0 && tt != RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? ts * 1000 : 0;
        n++;
    }
    if (!live_check(&r->live, err, errsize)) return -1;
    return n;
}

static void kr_progress(ConnReader *base, int64_t *done, int64_t *total)
{
    KafkaReader *r = (KafkaReader *)base;
    *done = *total = 0;
    if (!r->until_caught_up) return;
    for (int p = 0; p < r->nparts; p++) {
        int64_t lo = 0, hi = 0;
        rd_kafka_get_watermark_offsets(r->rk, r->where, p, &lo, &hi);
        int64_t next = r->parts[p].next > lo ? r->parts[p].next : lo;
        *done += (next < r->parts[p].end ? next : r->parts[p].end) - lo;
        *total += r->parts[p].end > lo ? r->parts[p].end - lo : 0;
    }
}

static bool kr_partition_idle(ConnReader *base, int p)
{
    KafkaReader *r = (KafkaReader *)base;
    return p >= 0 && p < r->nparts && (r->parts[p].done || r->parts[p].at_eof);
}

static void kr_close(ConnReader *base)
{
    KafkaReader *r = (KafkaReader *)base;
    release_held(r);
    for (int p = 0; p < r->nparts; p++) stop_partition(r, p);
    if (r->queue) rd_kafka_queue_destroy(r->queue);
    if (r->rkt) rd_kafka_topic_destroy(r->rkt);
    if (r->rk) rd_kafka_destroy(r->rk);
    live_fini(&r->live);
    free(r->held);
    free(r->parts);
    free(r->where);
    free(r->what);
    free(r);
}


/* A position: u32 n, n u64 next offsets, then KPOS_RECORDS and n (i64 offset, u64
 * record_hash) of the last message delivered per partition (verify_positions). */
#define KPOS_RECORDS 0x4345524bu   /* "KREC" */

static void kr_position(ConnReader *base, StrBuf *out)
{
    KafkaReader *r = (KafkaReader *)base;
    bytes_put_u32(out, (uint32_t)r->nparts);
    for (int p = 0; p < r->nparts; p++) bytes_put_u64(out, (uint64_t)r->parts[p].next);
    bytes_put_u32(out, KPOS_RECORDS);
    for (int p = 0; p < r->nparts; p++) {
        bytes_put_u64(out, (uint64_t)r->parts[p].last);
        bytes_put_u64(out, r->parts[p].last_hash);
    }
}

/* The partition count of a position; *records points at its per-partition records
 * (NULL in a position without them). False when the bytes are no position. */
static bool position_layout(const void *pos, size_t len, uint32_t *n, const uint8_t **records)
{
    ByteReader br = bytes_reader(pos, len);
    uint32_t k = bytes_get_u32(&br);
    size_t base = 4 + 8 * (size_t)k;
    *n = k;
    *records = NULL;
    if (br.bad || k > len) return false;
    if (len == base) return true;
    ByteReader tail = bytes_reader((const uint8_t *)pos + base, len > base ? len - base : 0);
    if (len != base + 4 + 16 * (size_t)k || bytes_get_u32(&tail) != KPOS_RECORDS) return false;
    *records = tail.p;
    return true;
}

bool kafka_position_offsets(const void *pos, size_t len, int64_t **offsets, int *n)
{
    uint32_t k;
    const uint8_t *records;
    if (!position_layout(pos, len, &k, &records)) return false;
    ByteReader br = bytes_reader((const uint8_t *)pos + 4, 8 * (size_t)k);
    *offsets = xcalloc((size_t)k + 1, sizeof(int64_t));
    for (uint32_t i = 0; i < k; i++) (*offsets)[i] = (int64_t)bytes_get_u64(&br);
    *n = (int)k;
    return true;
}

int kafka_end_offsets(Project *p, const SourceDef *def, int timeout_ms, int64_t **lows, int64_t **ends, char *err,
                      size_t errsize)
{
    if (lows) *lows = NULL;
    char what[300];
    snprintf(what, sizeof what, "source %s", def->name);
    bool config_error;
    static const char *const fixed[] = {"socket.connection.setup.timeout.ms", "2000"};
    rd_kafka_conf_t *conf = make_conf(p, what, def->bootstrap_servers, NULL, 0, fixed, 1, NULL, &config_error, err,
                                      errsize);
    if (!conf) return -1;
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    char cerr[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, cerr, sizeof cerr);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, errsize, "%s: kafka client: %s", what, cerr);
        return -1;
    }
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 1, NULL, &md, timeout_ms);
    int n = -1;
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        snprintf(err, errsize, "%s: cannot reach kafka: %s", what, rd_kafka_err2str(e));
    } else {
        for (int i = 0; i < md->topic_cnt; i++)
            if (strcmp(md->topics[i].topic, def->topic) == 0 && md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR)
                n = md->topics[i].partition_cnt;
        rd_kafka_metadata_destroy(md);
        if (n < 0) snprintf(err, errsize, "%s: topic %s does not exist", what, def->topic);
    }
    if (n >= 0) {
        *ends = xcalloc((size_t)n + 1, sizeof(int64_t));
        if (lows) *lows = xcalloc((size_t)n + 1, sizeof(int64_t));
        for (int i = 0; i < n && n >= 0; i++) {
            int64_t lo, hi;
            e = rd_kafka_query_watermark_offsets(rk, def->topic, i, &lo, &hi, timeout_ms);
            if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
                snprintf(err, errsize, "%s: topic %s partition %d: %s", what, def->topic, i, rd_kafka_err2str(e));
                free(*ends);
                *ends = NULL;
                if (lows) {
                    free(*lows);
                    *lows = NULL;
                }
                n = -1;
                break;
            }
            (*ends)[i] = hi;
            if (lows) (*lows)[i] = lo;
        }
    }
    rd_kafka_destroy(rk);
    return n;
}

/* A client of consumer group `group` (no subscription: it only reads and commits
 * offsets). */
static rd_kafka_t *group_client(Project *p, const SourceDef *def, const char *group, char *err, size_t errsize)
{
    char what[300];
    snprintf(what, sizeof what, "source %s", def->name);
    bool config_error;
    const char *fixed[] = {"group.id", group, "enable.auto.commit", "false", "socket.connection.setup.timeout.ms",
                           "2000"};
    rd_kafka_conf_t *conf = make_conf(p, what, def->bootstrap_servers, NULL, 0, fixed, 3, NULL, &config_error, err, errsize);
    if (!conf) return NULL;
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    char cerr[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, cerr, sizeof cerr);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, errsize, "%s: kafka client: %s", what, cerr);
    }
    return rk;
}

int kafka_group_offsets(Project *p, const SourceDef *def, const char *group, int64_t **offsets, char *err,
                        size_t errsize)
{
    rd_kafka_t *rk = group_client(p, def, group, err, errsize);
    if (!rk) return -1;
    int n = topic_partitions(rk, def->topic, def->name, err, errsize);
    if (n >= 0) {
        rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n);
        for (int i = 0; i < n; i++) rd_kafka_topic_partition_list_add(l, def->topic, i);
        rd_kafka_resp_err_t e = rd_kafka_committed(rk, l, OPEN_TIMEOUT_MS);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
            snprintf(err, errsize, "source %s: committed offsets of group %s: %s", def->name, group,
                     rd_kafka_err2str(e));
            n = -1;
        } else {
            *offsets = xcalloc((size_t)n + 1, sizeof(int64_t));
            for (int i = 0; i < n; i++) (*offsets)[i] = l->elems[i].offset < 0 ? -1 : l->elems[i].offset;
        }
        rd_kafka_topic_partition_list_destroy(l);
    }
    rd_kafka_destroy(rk);
    return n;
}

bool kafka_group_commit(Project *p, const SourceDef *def, const char *group, const int64_t *offsets, int n, char *err,
                        size_t errsize)
{
    rd_kafka_t *rk = group_client(p, def, group, err, errsize);
    if (!rk) return false;
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n > 0 ? n : 1);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (offsets[i] >= 0) {
            rd_kafka_topic_partition_list_add(l, def->topic, i)->offset = offsets[i];
            k++;
        }
    bool ok = true;
    if (k > 0) {
        rd_kafka_resp_err_t e = rd_kafka_commit(rk, l, 0);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
            snprintf(err, errsize, "source %s: commit offsets for group %s: %s", def->name, group, rd_kafka_err2str(e));
            ok = false;
        }
    }
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_destroy(rk);
    return ok;
}

static const ConnReaderOps kafka_reader_ops = {
    .read = kr_read,
    .progress = kr_progress,
    .close = kr_close,
    .partition_idle = kr_partition_idle,
    .position = kr_position,
};

/* Where each partition starts: the resume position's offsets (checked against what the
 * cluster retains), the earliest retained offset otherwise. */
static bool start_offsets(KafkaReader *r, const void *resume, size_t resume_len, const int64_t *stops, int nstops,
                          char *err, size_t errsize)
{
    uint32_t nsaved = 0;
    const uint8_t *records = NULL;
    if (resume && (!position_layout(resume, resume_len, &nsaved, &records) || nsaved > (uint32_t)r->nparts)) {
        snprintf(err, errsize, "%s: topic %s has %d partitions, fewer than the checkpoint read (or the "
                 "checkpoint's position is malformed)", r->what, r->where, r->nparts);
        return false;
    }
    ByteReader br = bytes_reader((const uint8_t *)resume + 4, 8 * (size_t)nsaved);
    ByteReader rec = bytes_reader(records, records ? 16 * (size_t)nsaved : 0);
    for (int i = 0; i < r->nparts; i++) {
        int64_t lo = 0, hi = 0;
        rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(r->rk, r->where, i, &lo, &hi, OPEN_TIMEOUT_MS);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
            snprintf(err, errsize, "%s: topic %s partition %d: cannot read its offsets: %s", r->what, r->where, i,
                     rd_kafka_err2str(e));
            return false;
        }
        int64_t start = (uint32_t)i < nsaved ? (int64_t)bytes_get_u64(&br) : lo;
        if (start < lo) {
            snprintf(err, errsize, "%s: topic %s partition %d: the checkpoint continues at offset %lld, but the "
                     "cluster only retains offsets from %lld: records were lost; start over with --fresh",
                     r->what, r->where, i, (long long)start, (long long)lo);
            return false;
        }
        if (start > hi) {
            snprintf(err, errsize, "%s: topic %s partition %d: the checkpoint continues at offset %lld, beyond "
                     "its end (%lld): was the topic recreated? start over with --fresh", r->what, r->where, i,
                     (long long)start, (long long)hi);
            return false;
        }
        KPart *kp = &r->parts[i];
        kp->next = start;
        kp->end = hi;
        kp->last = -1;
        if (records && (uint32_t)i < nsaved) {
            kp->last = (int64_t)bytes_get_u64(&rec);
            kp->last_hash = bytes_get_u64(&rec);
        }
        kp->check = kp->last >= lo && kp->last < start;
        if (stops) {
            int64_t stop = i < nstops ? stops[i] : start;
            if (stop > hi) {
                snprintf(err, errsize, "%s: topic %s partition %d: the history to read ends at offset %lld, beyond its "
                         "end (%lld): was the topic recreated?", r->what, r->where, i, (long long)stop, (long long)hi);
                return false;
            }
            kp->end = stop;
        }
    }
    return true;
}

/* A resumed reader: the message before each partition's position must still be the
 * one the checkpoint read there. A topic deleted and created again (or a cluster
 * rebuilt) can hold more records than the checkpoint had read, at the same offsets, and
 * continuing there would skip its first records silently. So each partition whose
 * last message the cluster still retains is read once at that offset, on a queue of
 * its own, before reading starts; a message no longer there (compaction removed it)
 * cannot be checked. */
static bool verify_positions(KafkaReader *r, char *err, size_t errsize)
{
    rd_kafka_queue_t *q = rd_kafka_queue_new(r->rk);
    int pending = 0;
    bool ok = true;
    for (int i = 0; i < r->nparts && ok; i++) {
        if (!r->parts[i].check) continue;
        if (rd_kafka_consume_start_queue(r->rkt, i, r->parts[i].last, q) != 0) {
            snprintf(err, errsize, "%s: topic %s partition %d: cannot start reading: %s", r->what, r->where, i,
                     rd_kafka_err2str(rd_kafka_last_error()));
            r->parts[i].check = false;
            ok = false;
            break;
        }
        r->parts[i].started = true;
        pending++;
    }
    double deadline = mono_s() + OPEN_TIMEOUT_MS / 1000.0;
    char last_error[256] = "no answer";
    while (ok && pending > 0) {
        if (mono_s() > deadline) {
            snprintf(err, errsize, "%s: topic %s: cannot read the records the checkpoint ended at within %d s: %s",
                     r->what, r->where, OPEN_TIMEOUT_MS / 1000, last_error);
            ok = false;
            break;
        }
        rd_kafka_message_t *m = rd_kafka_consume_queue(q, 100);
        if (!m) continue;
        KPart *kp = m->partition >= 0 && m->partition < r->nparts ? &r->parts[m->partition] : NULL;
        if (kp && kp->check && m->err && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            snprintf(last_error, sizeof last_error, "%s", rd_kafka_message_errstr(m));
        } else if (kp && kp->check) {
            if (!m->err && m->offset == kp->last && record_hash(m) != kp->last_hash) {
                snprintf(err, errsize, "%s: topic %s partition %d: the record at offset %lld is not the one the "
                         "checkpoint read there: the topic was recreated (or its cluster replaced) since the "
                         "checkpoint; start over with --fresh", r->what, r->where, m->partition,
                         (long long)kp->last);
                ok = false;
            }
            kp->check = false;
            pending--;
        }
        rd_kafka_message_destroy(m);
    }
    for (int i = 0; i < r->nparts; i++) stop_partition(r, i);
    rd_kafka_message_t *m;
    while ((m = rd_kafka_consume_queue(q, 0))) rd_kafka_message_destroy(m);
    rd_kafka_queue_destroy(q);
    return ok;
}

ConnReader *src_kafka_reader_open(Project *p, const SourceDef *def, bool until_caught_up, const void *resume,
                                  size_t resume_len, const int64_t *stops, int nstops, bool *config_error, char *err,
                                  size_t errsize)
{
    if (stops) until_caught_up = true;
    char what[300];
    snprintf(what, sizeof what, "source %s", def->name);
    /* all partitions share one queue, and each partition compares the queue's length
     * with queued.min.messages: at the default (100000) a step's processing time lets
     * the queue pass it and every partition's fetching backs off, at a third of the
     * throughput; memory stays bounded by queued.max.messages.kbytes */
    static const char *const defaults[] = {"queued.min.messages", "10000000"};
    static const char *const fixed[] = {
        "enable.partition.eof", "true",
        "auto.offset.reset", "error",        /* never skip records silently */
        "allow.auto.create.topics", "false", /* asking about the topic never creates it */
    };
    const char *cluster = NULL;
    rd_kafka_conf_t *conf = make_conf(p, what, def->bootstrap_servers, defaults, 1, fixed, 3, &cluster, config_error,
                                      err, errsize);
    if (!conf) return NULL;
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    rd_kafka_conf_set_error_cb(conf, reader_on_error);
    KafkaReader *r = xcalloc(1, sizeof *r);
    r->base.ops = &kafka_reader_ops;
    r->where = xstrdup(def->topic);
    r->what = xstrdup(what);
    live_init(&r->live, p, r->what, cluster);
    rd_kafka_conf_set_opaque(conf, r);
    char cerr[512];
    r->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, cerr, sizeof cerr);
    if (!r->rk) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, errsize, "%s: kafka client: %s", what, cerr);
        *config_error = true;
        kr_close(&r->base);
        return NULL;
    }
    r->live.rk = r->rk;
    r->base.where = r->where;
    r->base.bounded = false;
    r->until_caught_up = until_caught_up;
    r->nparts = topic_partitions(r->rk, def->topic, what, err, errsize);
    if (r->nparts < 0) {
        r->nparts = 0;
        kr_close(&r->base);
        return NULL;
    }
    r->base.npartitions = r->nparts;
    r->parts = xcalloc((size_t)r->nparts, sizeof(KPart));
    if (!start_offsets(r, resume, resume_len, stops, nstops, err, errsize)) {
        kr_close(&r->base);
        return NULL;
    }
    /* the simple consumer: partitions started on one queue (no group protocol; the
     * balanced consumer's fetch path is several times slower on the same cluster) */
    r->rkt = rd_kafka_topic_new(r->rk, def->topic, NULL);
    r->live.rkt = r->rkt;
    if (!verify_positions(r, err, errsize)) {
        kr_close(&r->base);
        return NULL;
    }
    r->queue = rd_kafka_queue_new(r->rk);
    for (int i = 0; i < r->nparts; i++) {
        if (until_caught_up && r->parts[i].end <= r->parts[i].next) {
            mark_done(r, i);
            continue;
        }
        KPart *kp = &r->parts[i];
        if (rd_kafka_consume_start_queue(r->rkt, i, kp->next, r->queue) != 0) {
            snprintf(err, errsize, "%s: topic %s partition %d: cannot start reading: %s", what, def->topic, i,
                     rd_kafka_err2str(rd_kafka_last_error()));
            kr_close(&r->base);
            return NULL;
        }
        r->parts[i].started = true;
    }
    return &r->base;
}

/* ---------------------------------------------------------------- sink */

typedef struct KafkaSink {
    ConnSink base;
    char *target;                /* "kafka:TOPIC" */
    char *topic;
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    SinkFormatter fmt;
    DataFormat format;
    const int *key;
    int nkey;
    StrBuf value, keybuf;
    int64_t failed;              /* messages the broker did not take (delivery reports) */
    char first_error[256];
    /* durable runs: each delivery is a transaction that also commits the checkpoint id
     * as the offset of partition 0 of the topic for the group `txn_id` (the marker) */
    char *txn_id;                /* transactional.id and marker group, NULL: not durable */
    rd_kafka_t *marker;          /* a consumer that reads the marker */
    bool marker_checked;
    bool in_txn;
    char what[300];              /* "model NAME: sink" */
    KLive live;
} KafkaSink;

static void sink_on_error(rd_kafka_t *rk, int e, const char *reason, void *opaque)
{
    (void)rk;
    live_error(&((KafkaSink *)opaque)->live, e, reason);
}

/* Waits until the cluster acknowledged every message produced, at most
 * FLUSH_TIMEOUT_MS, and fails early when no broker answers (live_check). */
static bool flush_all(KafkaSink *s, char *err, size_t errsize)
{
    double t0 = mono_s(), deadline = t0 + FLUSH_TIMEOUT_MS / 1000.0;
    while (rd_kafka_flush(s->rk, 100) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        live_waiting(&s->live, t0);
        if (!live_check(&s->live, err, errsize)) return false;
        if (mono_s() > deadline) {
            snprintf(err, errsize, "model %s: sink %s: %d messages not acknowledged within %d s by the kafka cluster %s",
                     s->base.model, s->target, rd_kafka_outq_len(s->rk), FLUSH_TIMEOUT_MS / 1000, s->live.cluster);
            return false;
        }
    }
    if (s->failed) {
        snprintf(err, errsize, "model %s: sink %s: %lld messages were not delivered: %s", s->base.model, s->target,
                 (long long)s->failed, s->first_error);
        return false;
    }
    return true;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    KafkaSink *s = opaque;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) return;
    if (s->failed++ == 0) snprintf(s->first_error, sizeof s->first_error, "%s", rd_kafka_err2str(m->err));
}

static void format_key(KafkaSink *s, const Value *row)
{
    sb_clear(&s->keybuf);
    sb_putc(&s->keybuf, '{');
    for (int k = 0; k < s->nkey; k++) {
        int c = s->key[k];
        if (k) sb_putc(&s->keybuf, ',');
        const char *n = s->fmt.cols[c].name ? s->fmt.cols[c].name : "";
        sb_json_str(&s->keybuf, n, strlen(n));
        sb_putc(&s->keybuf, ':');
        value_format_json(s->fmt.cols[c].type, &row[c], &s->keybuf);
    }
    sb_putc(&s->keybuf, '}');
}

static bool produce(KafkaSink *s, const void *val, size_t vlen, char *err, size_t errsize)
{
    const void *key = s->nkey > 0 ? s->keybuf.data : NULL;
    size_t klen = s->nkey > 0 ? s->keybuf.len : 0;
    for (;;) {
        if (rd_kafka_produce(s->rkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, (void *)val, vlen, key, klen,
                             NULL) == 0)
            return true;
        rd_kafka_resp_err_t e = rd_kafka_last_error();
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            snprintf(err, errsize, "model %s: sink %s: %s", s->base.model, s->target, rd_kafka_err2str(e));
            return false;
        }
        rd_kafka_poll(s->rk, 10);  /* the local queue is full: let deliveries drain it */
        if (!live_check(&s->live, err, errsize)) return false;
    }
}

static bool ks_write(ConnSink *base, const EngChange *changes, int n, char *err, size_t errsize)
{
    KafkaSink *s = (KafkaSink *)base;
    for (int i = 0; i < n; i++) {
        const EngChange *c = &changes[i];
        if (s->nkey > 0) format_key(s, c->row);
        sb_clear(&s->value);
        if (s->format == FMT_UPSERT) {
            if (c->op == CHANGE_DELETE) {
                if (!produce(s, NULL, 0, err, errsize)) return false;
                continue;
            }
            sink_format_row(&s->fmt, c->row, &s->value);
        } else {
            if (!sink_format_change(&s->fmt, c, &s->value, err, errsize)) return false;
            s->value.len--;  /* the line's '\n': a message is its own frame */
        }
        if (!produce(s, s->value.data, s->value.len, err, errsize)) return false;
    }
    rd_kafka_poll(s->rk, 0);
    return true;
}

static bool ks_commit(ConnSink *base, char *err, size_t errsize)
{
    return flush_all((KafkaSink *)base, err, errsize);
}

static bool ks_close(ConnSink *base, char *err, size_t errsize)
{
    (void)err; (void)errsize;
    KafkaSink *s = (KafkaSink *)base;
    if (s->rk) {
        /* what was not committed is not sent (a cluster that is gone cannot be told;
         * the next run's producer fences the transaction and aborts it) */
        if (s->in_txn && !s->live.suspect) {
            rd_kafka_error_t *e = rd_kafka_abort_transaction(s->rk, FLUSH_TIMEOUT_MS);
            if (e) rd_kafka_error_destroy(e);
        }
        rd_kafka_purge(s->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        rd_kafka_poll(s->rk, 0);
        if (s->rkt) rd_kafka_topic_destroy(s->rkt);
        rd_kafka_destroy(s->rk);
    }
    if (s->marker) {
        rd_kafka_consumer_close(s->marker);
        rd_kafka_destroy(s->marker);
    }
    live_fini(&s->live);
    free(s->txn_id);
    sink_formatter_fini(&s->fmt);
    sb_free(&s->value);
    sb_free(&s->keybuf);
    free(s->target);
    free(s->topic);
    free(s);
    return true;
}

/* Durable runs: a delivery is one transaction (read_committed consumers see all of it
 * or nothing) that also commits the checkpoint id to the marker group. A delivery made
 * again after a crash reads the marker first and is skipped when its checkpoint is in. */
static uint64_t ks_delivery_base(ConnSink *base)
{
    (void)base;
    return 0;
}

static bool txn_error(KafkaSink *s, const char *what, rd_kafka_error_t *e, char *err, size_t errsize)
{
    snprintf(err, errsize, "model %s: sink %s: %s: %s", s->base.model, s->target, what, rd_kafka_error_string(e));
    if (rd_kafka_error_txn_requires_abort(e) && s->in_txn) {
        rd_kafka_error_t *a = rd_kafka_abort_transaction(s->rk, FLUSH_TIMEOUT_MS);
        if (a) rd_kafka_error_destroy(a);
    }
    s->in_txn = false;
    rd_kafka_error_destroy(e);
    return false;
}

/* The checkpoint id the marker holds (0: none). */
static bool marker_read(KafkaSink *s, int64_t *out, char *err, size_t errsize)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, s->topic, 0);
    rd_kafka_resp_err_t e = rd_kafka_committed(s->marker, l, OPEN_TIMEOUT_MS);
    int64_t off = l->elems[0].offset;
    rd_kafka_resp_err_t pe = l->elems[0].err;
    rd_kafka_topic_partition_list_destroy(l);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR || pe != RD_KAFKA_RESP_ERR_NO_ERROR) {
        snprintf(err, errsize, "model %s: sink %s: cannot read its delivery marker: %s", s->base.model, s->target,
                 rd_kafka_err2str(e != RD_KAFKA_RESP_ERR_NO_ERROR ? e : pe));
        return false;
    }
    *out = off > 0 ? off : 0;
    return true;
}

static bool ks_begin_delivery(ConnSink *base, uint64_t ckpt, uint64_t at, bool replace, bool *already, char *err,
                              size_t errsize)
{
    if (replace) {
        snprintf(err, errsize, "model %s: kafka sink %s: a topic cannot be rewritten (weir apply --staged writes a "
                 "versioned topic)", base->model, base->target);
        return false;
    }
    (void)at;
    KafkaSink *s = (KafkaSink *)base;
    *already = false;
    if (!s->txn_id) return true;
    if (!s->marker_checked) {
        int64_t done;
        if (!marker_read(s, &done, err, errsize)) return false;
        s->marker_checked = true;
        if ((uint64_t)done >= ckpt) {
            *already = true;
            return true;
        }
    }
    rd_kafka_error_t *e = rd_kafka_begin_transaction(s->rk);
    if (e) return txn_error(s, "begin transaction", e, err, errsize);
    s->in_txn = true;
    return true;
}

/* One of the delivery's two transactional calls, made in short steps: librdkafka lets
 * a call that timed out be made again to go on waiting, and between the steps
 * live_check notices a cluster that has gone away. NULL when it succeeded. */
static rd_kafka_error_t *txn_call(KafkaSink *s, bool commit, uint64_t ckpt, bool *gone, char *err, size_t errsize)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, s->topic, 0)->offset = (int64_t)ckpt;
    rd_kafka_consumer_group_metadata_t *g = rd_kafka_consumer_group_metadata_new(s->txn_id);
    double t0 = mono_s(), deadline = t0 + FLUSH_TIMEOUT_MS / 1000.0;
    rd_kafka_error_t *e;
    *gone = false;
    for (;;) {
        e = commit ? rd_kafka_commit_transaction(s->rk, TXN_STEP_MS)
                   : rd_kafka_send_offsets_to_transaction(s->rk, l, g, TXN_STEP_MS);
        if (!e || !rd_kafka_error_is_retriable(e) || mono_s() > deadline) break;
        live_waiting(&s->live, t0);
        if (!live_check(&s->live, err, errsize)) {
            *gone = true;
            break;
        }
        rd_kafka_error_destroy(e);
    }
    rd_kafka_consumer_group_metadata_destroy(g);
    rd_kafka_topic_partition_list_destroy(l);
    return e;
}

static bool ks_end_delivery(ConnSink *base, uint64_t ckpt, char *err, size_t errsize)
{
    KafkaSink *s = (KafkaSink *)base;
    if (!flush_all(s, err, errsize)) return false;
    if (!s->txn_id) return true;
    if (!live_confirm(&s->live, err, errsize)) return false;
    for (int step = 0; step < 2; step++) {
        bool gone;
        rd_kafka_error_t *e = txn_call(s, step == 1, ckpt, &gone, err, errsize);
        if (e && gone) {
            rd_kafka_error_destroy(e);
            return false;  /* the message is live_check's */
        }
        if (e) return txn_error(s, step ? "commit transaction" : "commit the delivery marker", e, err, errsize);
    }
    s->in_txn = false;
    if (s->failed) {
        snprintf(err, errsize, "model %s: sink %s: %lld messages were not delivered: %s", s->base.model, s->target,
                 (long long)s->failed, s->first_error);
        return false;
    }
    return true;
}

static const SinkOps kafka_sink_ops = {
    .write = ks_write,
    .commit = ks_commit,
    .close = ks_close,
    .delivery_base = ks_delivery_base,
    .begin_delivery = ks_begin_delivery,
    .end_delivery = ks_end_delivery,
};

/* Durable runs: register the transactional producer (fencing an older one) and open
 * the consumer that reads the delivery marker. */
static bool open_transactions(KafkaSink *s, Project *p, const SinkDef *d, const char *what, char *err, size_t errsize)
{
    rd_kafka_error_t *e = rd_kafka_init_transactions(s->rk, OPEN_TIMEOUT_MS);
    if (e) {
        snprintf(err, errsize, "%s: kafka transactions: %s", what, rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
        return false;
    }
    const char *fixed[] = {"group.id", s->txn_id, "enable.auto.commit", "false", "isolation.level", "read_committed"};
    bool config_error;
    rd_kafka_conf_t *conf = make_conf(p, what, d->bootstrap_servers, NULL, 0, fixed, 3, NULL, &config_error, err,
                                      errsize);
    if (!conf) return false;
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    char cerr[512];
    s->marker = rd_kafka_new(RD_KAFKA_CONSUMER, conf, cerr, sizeof cerr);
    if (!s->marker) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, errsize, "%s: kafka client: %s", what, cerr);
        return false;
    }
    return true;
}

ConnSink *sink_kafka_open(Project *p, const ConnSinkSpec *spec, DataFormat format, char *err, size_t errsize)
{
    const SinkDef *d = spec->def;
    if (format != FMT_JSON && format != FMT_CHANGELOG_JSON && format != FMT_DEBEZIUM_JSON && format != FMT_UPSERT) {
        snprintf(err, errsize, "model %s: format %s is not supported by the kafka sink", spec->model,
                 data_format_name(format));
        return NULL;
    }
    if (format == FMT_UPSERT && spec->nkey <= 0) {
        snprintf(err, errsize, "model %s: the kafka sink's upsert format needs a model key (`key: [...]`)",
                 spec->model);
        return NULL;
    }
    if (!d->topic) {
        snprintf(err, errsize, "model %s: kafka sink without a topic", spec->model);
        return NULL;
    }
    char what[300];
    snprintf(what, sizeof what, "model %s: sink", spec->model);
    static const char *const defaults[] = {
        "partitioner", "murmur2_random",     /* the Java client's key -> partition mapping */
        "linger.ms", "5",
    };
    /* durable: the transactional id names the project, target and model, so a new run
     * fences a zombie of the previous one (its open transaction is aborted) */
    char *txn_id = NULL;
    if (spec->durable) {
        const char *proj = p->name ? p->name : "", *target = p->target ? p->target->name : "";
        size_t n = strlen(proj) + strlen(target) + strlen(spec->model) + 8;
        txn_id = xmalloc(n);
        snprintf(txn_id, n, "weir.%s.%s.%s", proj, target, spec->model);
    }
    const char *fixed[] = {
        "allow.auto.create.topics", "false", /* a sink writes topics that exist */
        "enable.idempotence", "true",        /* retries never duplicate or reorder */
        "transactional.id", txn_id,
    };
    bool config_error;
    const char *cluster = NULL;
    rd_kafka_conf_t *conf = make_conf(p, what, d->bootstrap_servers, defaults, 2, fixed, txn_id ? 3 : 2, &cluster,
                                      &config_error, err, errsize);
    if (!conf) {
        free(txn_id);
        return NULL;
    }
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_error_cb(conf, sink_on_error);
    KafkaSink *s = xcalloc(1, sizeof *s);
    s->txn_id = txn_id;
    snprintf(s->what, sizeof s->what, "%s", what);
    live_init(&s->live, p, s->what, cluster);
    /* a run that starts afresh numbers its checkpoints from 1 again: only a resumed
     * run's first delivery can already be in */
    s->marker_checked = !spec->resume;
    rd_kafka_conf_set_opaque(conf, s);
    char cerr[512];
    s->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, cerr, sizeof cerr);
    if (!s->rk) {
        rd_kafka_conf_destroy(conf);
        snprintf(err, errsize, "%s: kafka client: %s", what, cerr);
        live_fini(&s->live);
        free(s->txn_id);
        free(s);
        return NULL;
    }
    s->live.rk = s->rk;
    s->base.ops = &kafka_sink_ops;
    s->base.model = spec->model;
    s->topic = xstrdup(d->topic);
    size_t tl = strlen(d->topic) + 7;
    s->target = xmalloc(tl);
    snprintf(s->target, tl, "kafka:%s", d->topic);
    s->base.target = s->target;
    s->format = format;
    s->key = spec->key;
    s->nkey = spec->nkey > 0 ? spec->nkey : 0;
    sink_formatter_init(&s->fmt, spec, format);
    sb_init(&s->value);
    sb_init(&s->keybuf);
    if (topic_partitions(s->rk, d->topic, what, err, errsize) < 0) {
        ks_close(&s->base, NULL, 0);
        return NULL;
    }
    s->rkt = rd_kafka_topic_new(s->rk, d->topic, NULL);
    s->live.rkt = s->rkt;
    if (s->txn_id && !open_transactions(s, p, d, what, err, errsize)) {
        ks_close(&s->base, NULL, 0);
        return NULL;
    }
    return &s->base;
}
