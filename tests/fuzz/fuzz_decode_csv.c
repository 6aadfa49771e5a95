/* Fuzz target for CSV sources: the input is read as a file through the line reader
 * (CSV framing, gzip detection: an input starting with the gzip magic is inflated)
 * and decoded: the first record is the header, the rest are rows of a fixed schema
 * with every column type. Checks that text cells are inside the record or the arena. */
#include "connectors/source.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static ColumnDef cols[8];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *names[8] = {"id", "amount", "ratio", "flag", "name", "code", "created_at", "span"};
    Type types[8] = {type_make(T_INT8), type_numeric(12, 2), type_make(T_FLOAT8), type_make(T_BOOL),
                     type_make(T_TEXT), {T_TEXT, 3, -1, 0}, type_make(T_TIMESTAMP), type_make(T_INTERVAL)};
    for (int c = 0; c < 8; c++) {
        cols[c].name = names[c];
        cols[c].type = types[c];
    }
    int fd = memfd_create("fuzz_csv", 0);
    if (fd < 0) return 0;
    size_t off = 0;
    while (off < size) {
        ssize_t k = write(fd, data + off, size - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    lseek(fd, 0, SEEK_SET);
    char err[512];
    ConnReader *r = src_fd_reader_open(fd, true, "fuzz.csv", FRAME_CSV, err, sizeof err);
    if (!r) { close(fd); return 0; }
    char delim = size > 0 && data[0] == ';' ? ';' : ',';
    ConnCsvDecoder *d = conn_csv_new(cols, 8, delim);
    Arena arena;
    arena_init(&arena, 4096);
    Value row[8];
    ConnRecord recs[16];
    bool header_ok = false, header_tried = false;
    while (!r->eof) {
        int n = r->ops->read(r, recs, 16, err, sizeof err);
        if (n <= 0) break;
        for (int i = 0; i < n; i++) {
            if (!header_tried) {
                header_tried = true;
                header_ok = conn_csv_header(d, recs[i].data, recs[i].len, err, sizeof err);
                continue;
            }
            if (!header_ok) break;
            if (conn_csv_decode(d, recs[i].data, recs[i].len, row, &arena, err, sizeof err)) {
                StrBuf sb = STRBUF_INIT;
                for (int c = 0; c < 8; c++) value_format_json(cols[c].type, &row[c], &sb);
                sb_free(&sb);
            }
        }
        arena_reset(&arena);
    }
    conn_csv_free(d);
    arena_fini(&arena);
    r->ops->close(r);
    return 0;
}
