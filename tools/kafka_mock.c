/* kafka-mock: a Kafka cluster for tests and local runs, served by librdkafka's mock
 * cluster (the real Kafka protocol on 127.0.0.1; topics live in memory).
 *
 *   kafka-mock [--brokers N] [--topic NAME[:PARTITIONS]]...
 *
 * Creates the topics (1 partition unless given), prints the bootstrap servers on the
 * first line of standard output, and serves until SIGINT or SIGTERM. */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void usage(void)
{
    fprintf(stderr, "usage: kafka-mock [--brokers N] [--topic NAME[:PARTITIONS]]...\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int brokers = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--brokers") == 0 && i + 1 < argc) {
            brokers = atoi(argv[++i]);
            if (brokers < 1) usage();
        } else if (strcmp(argv[i], "--topic") == 0 && i + 1 < argc) {
            i++;
        } else {
            usage();
        }
    }
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* the handle only carries the cluster; it never connects anywhere */
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "kafka-mock: %s\n", err);
        return 1;
    }
    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, brokers);
    if (!mc) {
        fprintf(stderr, "kafka-mock: cannot start the mock cluster\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--topic") != 0) {
            if (strcmp(argv[i], "--brokers") == 0) i++;
            continue;
        }
        char *name = argv[++i];
        int parts = 1;
        char *colon = strrchr(name, ':');
        if (colon) {
            *colon = '\0';
            parts = atoi(colon + 1);
            if (parts < 1) usage();
        }
        rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(mc, name, parts, brokers < 3 ? brokers : 3);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
            fprintf(stderr, "kafka-mock: topic %s: %s\n", name, rd_kafka_err2str(e));
            return 1;
        }
    }
    /* signals stay blocked except inside sigsuspend, so none is lost between the
     * check of `stop` and the wait */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
    fflush(stdout);
    while (!stop) sigsuspend(&old);
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return 0;
}
