/* kafka-admin: the topic administration the tests need against a real broker
 * (scripts/kafka-broker-start), through librdkafka's admin API; kcat reads and writes
 * messages but cannot create, delete or configure topics.
 *
 *   kafka-admin -b BOOTSTRAP create NAME[:PARTITIONS] [-c KEY=VALUE]...
 *   kafka-admin -b BOOTSTRAP delete NAME...
 *   kafka-admin -b BOOTSTRAP config NAME KEY=VALUE...
 *   kafka-admin -b BOOTSTRAP start-offsets NAME
 *   kafka-admin -b BOOTSTRAP committed GROUP NAME
 *
 * create makes the topics (1 partition unless given; every -c setting applies to all of
 * them) and returns once each partition has a leader; delete returns once the topics
 * are gone from the cluster's metadata; config sets the topic's dynamic settings (an
 * AlterConfigs request: settings not named go back to the broker's defaults);
 * start-offsets prints each partition's earliest retained offset, one per line;
 * committed prints the offset GROUP committed for each partition of the topic (-1001:
 * none), one per line. Exit 0 on success, 1 with a message otherwise. */
#include <librdkafka/rdkafka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TIMEOUT_MS 30000

static void usage(void)
{
    fprintf(stderr, "usage: kafka-admin -b BOOTSTRAP create NAME[:PARTITIONS] [-c KEY=VALUE]...\n"
                    "       kafka-admin -b BOOTSTRAP delete NAME...\n"
                    "       kafka-admin -b BOOTSTRAP config NAME KEY=VALUE...\n"
                    "       kafka-admin -b BOOTSTRAP start-offsets NAME\n"
                    "       kafka-admin -b BOOTSTRAP committed GROUP NAME\n");
    exit(2);
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "kafka-admin: %s: %s\n", what, msg);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Splits KEY=VALUE in place; dies on a pair without '='. */
static char *split_pair(char *kv)
{
    char *eq = strchr(kv, '=');
    if (!eq || eq == kv) die(kv, "expected KEY=VALUE");
    *eq = '\0';
    return eq + 1;
}

/* Waits for the result event of one admin request. */
static rd_kafka_event_t *await(rd_kafka_queue_t *q, const char *what)
{
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, TIMEOUT_MS + 5000);
    if (!ev) die(what, "no answer from the cluster");
    if (rd_kafka_event_error(ev)) die(what, rd_kafka_event_error_string(ev));
    return ev;
}

static void check_topic_results(const rd_kafka_topic_result_t **res, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rd_kafka_topic_result_error(res[i]))
            die(rd_kafka_topic_result_name(res[i]), rd_kafka_topic_result_error_string(res[i]));
}

/* Polls the cluster's metadata until every named topic is present with a leader for
 * each partition (want_present) or absent from it. */
static void wait_topics(rd_kafka_t *rk, char **names, int n, int want_present)
{
    double deadline = now_s() + TIMEOUT_MS / 1000.0;
    for (;;) {
        const struct rd_kafka_metadata *md = NULL;
        int ok = 0;
        if (rd_kafka_metadata(rk, 1, NULL, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
            for (int i = 0; i < n; i++) {
                int found = 0;
                for (int t = 0; t < md->topic_cnt; t++) {
                    const struct rd_kafka_metadata_topic *mt = &md->topics[t];
                    if (strcmp(mt->topic, names[i]) != 0) continue;
                    found = mt->err == RD_KAFKA_RESP_ERR_NO_ERROR && mt->partition_cnt > 0;
                    for (int p = 0; found && p < mt->partition_cnt; p++)
                        if (mt->partitions[p].leader < 0 || mt->partitions[p].err) found = 0;
                }
                if (found == want_present) ok++;
            }
            rd_kafka_metadata_destroy(md);
        }
        if (ok == n) return;
        if (now_s() > deadline) die(names[0], want_present ? "topics not ready in time" : "topics not gone in time");
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* The number of partitions of a topic; dies when it does not exist. */
static int partition_count(rd_kafka_t *rk, const char *topic)
{
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 1, NULL, &md, TIMEOUT_MS);
    if (e) die("metadata", rd_kafka_err2str(e));
    int n = -1;
    for (int t = 0; t < md->topic_cnt; t++)
        if (strcmp(md->topics[t].topic, topic) == 0) n = md->topics[t].partition_cnt;
    rd_kafka_metadata_destroy(md);
    if (n < 0) die(topic, "no such topic");
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[1], "-b") != 0) usage();
    const char *bootstrap = argv[2], *cmd = argv[3];
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err) != RD_KAFKA_CONF_OK) die("bootstrap", err);
    rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
    if (strcmp(cmd, "committed") == 0 && rd_kafka_conf_set(conf, "group.id", argv[4], err, sizeof err) != RD_KAFKA_CONF_OK)
        die("group", err);
    /* a consumer handle: start-offsets and committed need one, and it serves the admin
     * API as well */
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk) die("client", err);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_AdminOptions_t *opts = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_ANY);
    rd_kafka_AdminOptions_set_request_timeout(opts, TIMEOUT_MS, err, sizeof err);
    rd_kafka_AdminOptions_set_operation_timeout(opts, TIMEOUT_MS, err, sizeof err);

    if (strcmp(cmd, "create") == 0) {
        char *names[256];
        char *configs[256];
        int n = 0, nc = 0;
        int parts[256];
        for (int i = 4; i < argc; i++) {
            if (strcmp(argv[i], "-c") == 0) {
                if (i + 1 >= argc || nc == 256) usage();
                configs[nc++] = argv[++i];
                continue;
            }
            if (n == 256) usage();
            char *colon = strrchr(argv[i], ':');
            parts[n] = 1;
            if (colon) {
                *colon = '\0';
                parts[n] = atoi(colon + 1);
                if (parts[n] < 1) die(argv[i], "partitions must be a positive number");
            }
            names[n++] = argv[i];
        }
        if (n == 0) usage();
        rd_kafka_NewTopic_t *nt[256];
        for (int i = 0; i < n; i++) {
            nt[i] = rd_kafka_NewTopic_new(names[i], parts[i], 1, err, sizeof err);
            if (!nt[i]) die(names[i], err);
            for (int c = 0; c < nc; c++) {
                char kv[512];
                snprintf(kv, sizeof kv, "%s", configs[c]);
                const char *val = split_pair(kv);
                if (rd_kafka_NewTopic_set_config(nt[i], kv, val)) die(configs[c], "invalid setting");
            }
        }
        rd_kafka_CreateTopics(rk, nt, (size_t)n, opts, q);
        rd_kafka_event_t *ev = await(q, "create");
        size_t cnt;
        const rd_kafka_topic_result_t **res = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &cnt);
        check_topic_results(res, cnt);
        rd_kafka_event_destroy(ev);
        rd_kafka_NewTopic_destroy_array(nt, (size_t)n);
        wait_topics(rk, names, n, 1);
    } else if (strcmp(cmd, "delete") == 0) {
        int n = argc - 4;
        if (n > 256) usage();
        rd_kafka_DeleteTopic_t *dt[256];
        for (int i = 0; i < n; i++) dt[i] = rd_kafka_DeleteTopic_new(argv[4 + i]);
        rd_kafka_DeleteTopics(rk, dt, (size_t)n, opts, q);
        rd_kafka_event_t *ev = await(q, "delete");
        size_t cnt;
        const rd_kafka_topic_result_t **res = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev), &cnt);
        check_topic_results(res, cnt);
        rd_kafka_event_destroy(ev);
        rd_kafka_DeleteTopic_destroy_array(dt, (size_t)n);
        wait_topics(rk, argv + 4, n, 0);
    } else if (strcmp(cmd, "config") == 0) {
        if (argc < 6) usage();
        rd_kafka_ConfigResource_t *cr = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, argv[4]);
        for (int i = 5; i < argc; i++) {
            const char *val = split_pair(argv[i]);
            if (rd_kafka_ConfigResource_set_config(cr, argv[i], val)) die(argv[i], "invalid setting");
        }
        rd_kafka_AlterConfigs(rk, &cr, 1, opts, q);
        rd_kafka_event_t *ev = await(q, "config");
        size_t cnt;
        const rd_kafka_ConfigResource_t **res = rd_kafka_AlterConfigs_result_resources(rd_kafka_event_AlterConfigs_result(ev), &cnt);
        for (size_t i = 0; i < cnt; i++)
            if (rd_kafka_ConfigResource_error(res[i])) die(argv[4], rd_kafka_ConfigResource_error_string(res[i]));
        rd_kafka_event_destroy(ev);
        rd_kafka_ConfigResource_destroy(cr);
    } else if (strcmp(cmd, "start-offsets") == 0) {
        int n = partition_count(rk, argv[4]);
        for (int p = 0; p < n; p++) {
            int64_t lo, hi;
            rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(rk, argv[4], p, &lo, &hi, TIMEOUT_MS);
            if (e) die(argv[4], rd_kafka_err2str(e));
            printf("%lld\n", (long long)lo);
        }
    } else if (strcmp(cmd, "committed") == 0) {
        if (argc != 6) usage();
        int n = partition_count(rk, argv[5]);
        rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n);
        for (int p = 0; p < n; p++) rd_kafka_topic_partition_list_add(l, argv[5], p);
        rd_kafka_resp_err_t e = rd_kafka_committed(rk, l, TIMEOUT_MS);
        if (e) die(argv[4], rd_kafka_err2str(e));
        for (int p = 0; p < l->cnt; p++) {
            if (l->elems[p].err) die(argv[5], rd_kafka_err2str(l->elems[p].err));
            printf("%lld\n", (long long)l->elems[p].offset);
        }
        rd_kafka_topic_partition_list_destroy(l);
    } else {
        usage();
    }
    rd_kafka_AdminOptions_destroy(opts);
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return 0;
}
