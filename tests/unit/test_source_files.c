/* Unit tests of the directory/glob reader's positions (source_files.c): a position
 * stays bounded however many files were read (the last FILES_KEEP listed, the rest
 * behind a boundary with their count and hash), resuming from it anywhere continues
 * exactly, an `until` position ends a reader exactly there (the files it holds, each
 * up to its records, in the order read), and files added or removed behind its
 * boundary make such a replay an error rather than a different history. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/bytes.h"
#include "base/strbuf.h"
#include "connectors/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFILES 700

static char dir[256];

static void put_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/weir-files-XXXXXX");
    assert_non_null(mkdtemp(dir));
    /* f0000.jsonl .. : two records each, "<file>.<line>" */
    for (int i = 0; i < NFILES; i++) {
        char name[32], text[64];
        snprintf(name, sizeof name, "f%04d.jsonl", i);
        snprintf(text, sizeof text, "%d.1\n%d.2\n", i, i);
        put_file(name, text);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

static ConnReader *open_reader(const StrBuf *resume, const StrBuf *until, char *err)
{
    err[0] = '\0';
    return src_files_reader_open(dir, "landing", FRAME_LINES, false, false, resume ? resume->data : NULL,
                                 resume ? resume->len : 0, until ? until->data : NULL, until ? until->len : 0, err, 512);
}

/* Reads up to `limit` records (-1: all) one call of at most `batch` at a time, appending
 * each record's text and a space to out. */
static int64_t read_some(ConnReader *r, int64_t limit, int batch, StrBuf *out)
{
    ConnRecord recs[64];
    char err[512];
    int64_t got = 0;
    while (!r->eof && (limit < 0 || got < limit)) {
        int max = batch;
        if (limit >= 0 && max > limit - got) max = (int)(limit - got);
        int n = r->ops->read(r, recs, max, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "%s\n", err);
            fail();
        }
        for (int i = 0; i < n; i++) {
            sb_append(out, recs[i].data, recs[i].len);
            sb_putc(out, ' ');
        }
        got += n;
    }
    return got;
}

static void position_of(ConnReader *r, StrBuf *pos)
{
    sb_clear(pos);
    r->ops->position(r, pos);
}

static void all_text(StrBuf *want)
{
    for (int i = 0; i < NFILES; i++) sb_printf(want, "%d.1 %d.2 ", i, i);
}

static void bounded_and_exact(void **state)
{
    (void)state;
    char err[512];
    StrBuf want = STRBUF_INIT, got = STRBUF_INIT, pos = STRBUF_INIT;
    all_text(&want);
    ConnReader *r = open_reader(NULL, NULL, err);
    assert_non_null(r);
    assert_int_equal(read_some(r, -1, 3, &got), 2 * NFILES);
    assert_string_equal(sb_cstr(&got), sb_cstr(&want));
    position_of(r, &pos);
    /* 700 files read, 256 listed: a listed file takes about 40 bytes */
    assert_true(pos.len < 256 * 48);
    int64_t records;
    int files;
    assert_true(src_files_position_records(pos.data, pos.len, &records, &files));
    assert_int_equal(records, 2 * NFILES);
    assert_int_equal(files, NFILES);
    r->ops->close(r);

    /* stopped anywhere (also in the middle of a file, before and after the boundary
     * moved), a resumed reader continues exactly */
    const int64_t cuts[] = {1, 2, 3, 257, 512, 513, 901, 2 * NFILES - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        sb_clear(&got);
        r = open_reader(NULL, NULL, err);
        assert_int_equal(read_some(r, cuts[c], 5, &got), cuts[c]);
        position_of(r, &pos);
        r->ops->close(r);
        r = open_reader(&pos, NULL, err);
        assert_non_null(r);
        read_some(r, -1, 7, &got);
        assert_string_equal(sb_cstr(&got), sb_cstr(&want));
        r->ops->close(r);
    }
    sb_free(&want);
    sb_free(&got);
    sb_free(&pos);
}

static void until_ends_exactly(void **state)
{
    (void)state;
    char err[512];
    StrBuf first = STRBUF_INIT, got = STRBUF_INIT, pos = STRBUF_INIT, origin = STRBUF_INIT;
    ConnReader *r = open_reader(NULL, NULL, err);
    assert_int_equal(read_some(r, 2 * 600 + 1, 4, &first), 1201); /* into f0600.jsonl */
    position_of(r, &pos);
    r->ops->close(r);
    /* files that land later, after the position's files, are not part of it */
    put_file("g0000.jsonl", "late.1\n");
    r = open_reader(NULL, &pos, err);
    assert_non_null(r);
    assert_true(r->bounded);
    assert_int_equal(read_some(r, -1, 9, &got), 1201);
    assert_true(r->eof);
    assert_string_equal(sb_cstr(&got), sb_cstr(&first));
    r->ops->close(r);

    /* from a resume position to the until position: the records between */
    sb_clear(&got);
    r = open_reader(NULL, NULL, err);
    StrBuf skipped = STRBUF_INIT;
    read_some(r, 301, 4, &skipped);
    position_of(r, &origin);
    r->ops->close(r);
    r = open_reader(&origin, &pos, err);
    assert_non_null(r);
    assert_int_equal(read_some(r, -1, 9, &got), 1201 - 301);
    sb_append(&skipped, got.data, got.len);
    assert_string_equal(sb_cstr(&skipped), sb_cstr(&first));
    r->ops->close(r);

    /* a file added behind the boundary: the replay would differ, so it is an error */
    put_file("f0100b.jsonl", "x.1\n");
    r = open_reader(NULL, &pos, err);
    assert_non_null(r);
    ConnRecord recs[8];
    assert_int_equal(r->ops->read(r, recs, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "landing: the files up to landing/f0"));
    assert_non_null(strstr(err, "they cannot be read again as they were"));
    r->ops->close(r);
    /* ... while a reader that continues from the position passes over it */
    char path[512];
    snprintf(path, sizeof path, "%s/f0100b.jsonl", dir);
    sb_clear(&got);
    r = open_reader(&pos, NULL, err);
    read_some(r, -1, 9, &got);
    assert_null(strstr(sb_cstr(&got), "x.1"));
    assert_non_null(strstr(sb_cstr(&got), "late.1"));
    r->ops->close(r);
    unlink(path);
    /* a listed file that is gone */
    snprintf(path, sizeof path, "%s/f0599.jsonl", dir);
    unlink(path);
    r = open_reader(NULL, &pos, err);
    int n;
    while ((n = r->ops->read(r, recs, 8, err, sizeof err)) >= 0 && !r->eof) {}
    assert_int_equal(n, -1);
    assert_string_equal(err, "landing: landing/f0599.jsonl, which the checkpoint read, is gone; it cannot be read again");
    r->ops->close(r);
    sb_free(&first);
    sb_free(&got);
    sb_free(&pos);
    sb_free(&origin);
    sb_free(&skipped);
}

/* A position written before positions were compact (every file listed, "WFS1") is
 * still read: the run continues after the files it lists. */
static void old_positions_still_read(void **state)
{
    (void)state;
    char err[512];
    StrBuf pos = STRBUF_INIT, got = STRBUF_INIT, want = STRBUF_INIT;
    bytes_put_u32(&pos, 0x31534657u);
    bytes_put_u32(&pos, 300);
    for (int i = 0; i < 300; i++) {
        char name[64];
        snprintf(name, sizeof name, "landing/f%04d.jsonl", i);
        bytes_put_str(&pos, name, strlen(name));
        bytes_put_u64(&pos, 2);
        bytes_put_u64(&pos, 0);
        bytes_put_u64(&pos, 0);
    }
    bytes_put_u8(&pos, 1); /* in the middle of f0300.jsonl, under its identity */
    char path[512];
    snprintf(path, sizeof path, "%s/f0300.jsonl", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    bytes_put_str(&pos, "landing/f0300.jsonl", 19);
    bytes_put_u64(&pos, 1);
    bytes_put_u64(&pos, (uint64_t)st.st_dev);
    bytes_put_u64(&pos, (uint64_t)st.st_ino);
    int64_t records;
    assert_true(src_files_position_records(pos.data, pos.len, &records, NULL));
    assert_int_equal(records, 601);
    ConnReader *r = open_reader(&pos, NULL, err);
    assert_non_null(r);
    read_some(r, -1, 8, &got);
    sb_puts(&want, "300.2 ");
    for (int i = 301; i < NFILES; i++) sb_printf(&want, "%d.1 %d.2 ", i, i);
    assert_string_equal(sb_cstr(&got), sb_cstr(&want));
    /* what it writes now is compact, and says the same */
    StrBuf now = STRBUF_INIT;
    position_of(r, &now);
    assert_true(now.len < pos.len);
    assert_true(src_files_position_records(now.data, now.len, &records, NULL));
    assert_int_equal(records, 2 * NFILES);
    r->ops->close(r);
    sb_free(&pos);
    sb_free(&got);
    sb_free(&want);
    sb_free(&now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(bounded_and_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(until_ends_exactly, setup, teardown),
        cmocka_unit_test_setup_teardown(old_positions_still_read, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
