/* Decode throughput of a file source: reads a Nexmark bid JSON-lines file through the
 * runtime's source path (line reader -> JSON decoder -> source batch) with a trivial
 * passthrough "engine" that clears the batch after every step, and prints lines/s and
 * MB/s. Usage: bench_decode FILE [--batch N] [--copy-text] [--repeat N]
 * Build and numbers: docs/run.md ("Throughput"). Generate input with
 * `build/nexmark_gen --events 2000000 --out-dir /tmp/nx` (FILE = /tmp/nx/bid.jsonl).
 * Rates are per CPU second (getrusage), so a busy machine does not distort them. */
#include "connectors/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_decode FILE [--batch N] [--copy-text] [--repeat N]\n");
        return 2;
    }
    const char *file = argv[1];
    int batch_size = 4096, repeat = 3;
    bool copy = false;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--batch") && i + 1 < argc) batch_size = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--copy-text")) copy = true;
    }
    static const char *names[] = {"auction", "bidder", "price", "channel", "url", "date_time", "extra"};
    static const TypeId types[] = {T_INT8, T_INT8, T_INT8, T_TEXT, T_TEXT, T_TIMESTAMP, T_TEXT};
    ColumnDef cols[7];
    for (int c = 0; c < 7; c++) {
        memset(&cols[c], 0, sizeof cols[c]);
        cols[c].name = names[c];
        cols[c].type = type_make(types[c]);
    }
    Project p;
    memset(&p, 0, sizeof p);
    arena_init(&p.arena, 4096);
    p.dir = "/tmp/weir-bench-decode";
    SourceDef src;
    memset(&src, 0, sizeof src);
    src.name = "nexmark.bid";
    src.connector = SRC_FILE;
    src.path = file;
    src.format = FMT_JSON;
    src.columns = cols;
    src.ncolumns = 7;
    src.event_time_col = 5;
    src.watermark_delay_us = 4000000;
    src.on_error = ONERR_DEAD_LETTER;
    p.sources = &src;
    p.nsources = 1;

    double best = 1e30;
    int64_t lines = 0, bytes = 0;
    for (int rep = 0; rep < repeat; rep++) {
        char err[512];
        ConnReader *r = src_file_reader_open(file, file, FRAME_LINES, err, sizeof err);
        if (!r) { fprintf(stderr, "%s\n", err); return 1; }
        SrcOptions so = {.copy_text = copy};
        ConnSource *s = src_open_reader(&p, 0, r, &so, err, sizeof err);
        if (!s) { fprintf(stderr, "%s\n", err); return 1; }
        Batch b;
        batch_init(&b, 7);
        double t0 = now_s(), c0 = cpu_s();
        int64_t n = 0, checksum = 0;
        while (!src_done(s)) {
            int k = src_read_batch(s, &b, NULL, NULL, batch_size, err, sizeof err);
            if (k < 0) { fprintf(stderr, "%s\n", err); return 1; }
            n += b.n;
            /* the trivial passthrough: touch every row once, then end the step */
            for (int i = 0; i < b.n; i++) checksum += batch_row(&b, i)[2].i;
            batch_clear(&b);
        }
        double el = now_s() - t0, cpu = cpu_s() - c0;
        int64_t done, total;
        src_progress(s, &done, &total);
        bytes = total;
        lines = n;
        if (cpu < best) best = cpu;
        printf("run %d: %lld rows, %.3f s wall, %.3f s cpu, %.2f M lines/s, %.0f MB/s (per cpu second; bad %lld, "
               "checksum %lld)\n",
               rep + 1, (long long)n, el, cpu, (double)n / cpu / 1e6, (double)total / cpu / 1e6,
               (long long)src_stats(s)->bad, (long long)checksum);
        batch_fini(&b);
        src_close(s, err, sizeof err);
    }
    printf("best: %.2f M lines/s, %.0f MB/s per cpu second (%s, batch %d)\n", (double)lines / best / 1e6, (double)bytes / best / 1e6,
           copy ? "copy text" : "zero-copy text", batch_size);
    arena_fini(&p.arena);
    return 0;
}
