/* SPDX-License-Identifier: MIT */
/* Side tables (store/side.h).  CSV: every cell as written, a float
 * column's first 0.0 included; a write that fails (the file-size limit)
 * keeps every complete sample before it, exactly as many as fit.  SQLite:
 * a failed write says SQLite's reason; while another connection holds the
 * lock, rows wait in memory up to GT_LOCKWAIT_QUEUE_BYTES, later samples
 * are dropped and counted, and the rest written once the lock is free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "heap.h"
#include "store/lockwait.h"
#include "store/side.h"
#include "tmpdir.h"

static const char *const names[] = {"timestamp", "x", "n"};
static const char *const types[] = {"FLOAT", "FLOAT", "BIGINT"};

static gt_cell fl(double v) { return (gt_cell){.kind = GT_CELL_FLOAT, .f = v}; }
static gt_cell in(long long v) { return (gt_cell){.kind = GT_CELL_INT, .i = v}; }

/* The whole file, NUL-terminated; caller frees. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = calloc(1, 1 << 16);
    assert_non_null(b);
    size_t n = fread(b, 1, (1 << 16) - 1, f);
    b[n] = '\0';
    fclose(f);
    return b;
}

/* A column's memo of its last float starts zeroed: a first 0.0 must still
 * be written as "0.0", never as an empty cell (read back as NaN). */
static void test_zero_first(void **state)
{
    (void)state;
    gt_side *s;
    gt_error err;
    assert_int_equal(gt_side_open("z.csv", "processes", names, types, 3, 0, &s, &err), GT_OK);
    gt_cell row[] = {fl(0.0), fl(0.0), in(0)};
    assert_int_equal(gt_side_add(s, row, &err), GT_OK);
    assert_int_equal(gt_side_end_sample(s, &err), GT_OK);
    gt_cell row2[] = {fl(0.5), fl(-0.0), in(3)};
    assert_int_equal(gt_side_add(s, row2, &err), GT_OK);
    gt_cell row3[] = {fl(0.5), fl(0.0), in(4)};
    assert_int_equal(gt_side_add(s, row3, &err), GT_OK);
    assert_int_equal(gt_side_end_sample(s, &err), GT_OK);
    assert_int_equal(gt_side_close(&s, &err), GT_OK);
    char *text = slurp("z.processes.csv");
    assert_string_equal(text, "timestamp,x,n\n0.0,0.0,0\n0.5,-0.0,3\n0.5,0.0,4\n");
    free(text);
}

/* Under a file-size limit, samples are written until one does not fit: that
 * one fails with the reason and is cut off again, and every sample before
 * it stays, exactly as many as the limit holds. */
static void test_failed_write_keeps_rows(void **state)
{
    (void)state;
    enum { LIMIT = 4000, HEAD = 14 /* "timestamp,x,n\n" */, ROW = 12 /* "1.5,2.25,17\n" */ };
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
    gt_side *s;
    gt_error err;
    assert_int_equal(gt_side_open("f.csv", "processes", names, types, 3, 0, &s, &err), GT_OK);
    struct rlimit lim = {LIMIT, old.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int ok = 0;
    gt_status st = GT_OK;
    gt_cell row[] = {fl(1.5), fl(2.25), in(17)};
    while (ok < 10 * LIMIT / ROW) {
        assert_int_equal(gt_side_add(s, row, &err), GT_OK);
        if ((st = gt_side_end_sample(s, &err)) != GT_OK)
            break;
        ok++;
    }
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_xfsz);
    assert_int_equal(st, GT_ERR_IO);
    assert_non_null(strstr(err.msg, "File too large"));
    assert_int_equal(ok, (LIMIT - HEAD) / ROW);
    assert_int_equal(gt_side_close(&s, &err), GT_OK);
    struct stat sb;
    assert_int_equal(stat("f.processes.csv", &sb), 0);
    assert_int_equal(sb.st_size, HEAD + ok * ROW);
    char *text = slurp("f.processes.csv");
    assert_memory_equal(text, "timestamp,x,n\n1.5,2.25,17\n", HEAD + ROW);
    assert_memory_equal(text + HEAD + (ok - 1) * ROW, "1.5,2.25,17\n", ROW);
    free(text);
}

/* An empty SQLite tracking file with a second connection to it. */
static sqlite3 *sqlite_pair(const char *path, gt_side **s, gt_lockwait *w)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    gt_error err;
    assert_int_equal(gt_side_open(path, "processes", names, types, 3, 0, s, &err), GT_OK);
    gt_lockwait_arm(w, 0); /* no waiting: the test holds the lock */
    gt_side_set_lockwait(*s, w);
    sqlite3 *other;
    assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
    return other;
}

/* A side table is created as the main file's tables are (the Python
 * package's `.schema` text), and its rows, text included, read back. */
static void test_sqlite_table_text_and_rows(void **state)
{
    (void)state;
    gt_side *s = NULL;
    gt_lockwait w;
    sqlite3 *other = sqlite_pair("t.sqlite", &s, &w);
    gt_error err;
    gt_cell row[3] = {{.kind = GT_CELL_FLOAT, .f = 1.5}, {.kind = GT_CELL_FLOAT, .f = 2.25}, {.kind = GT_CELL_INT, .i = 17}};
    assert_int_equal(gt_side_add(s, row, &err), GT_OK);
    assert_int_equal(gt_side_end_sample(s, &err), GT_OK);
    assert_int_equal(gt_side_close(&s, &err), GT_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(other, "SELECT sql FROM sqlite_master WHERE name = 'processes'", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    char want[256];
    snprintf(want, sizeof want, "CREATE TABLE processes (\n\t%s %s, \n\t%s %s, \n\t%s %s\n)", names[0], types[0],
             names[1], types[1], names[2], types[2]);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), want);
    sqlite3_finalize(q);
    assert_int_equal(sqlite3_prepare_v2(other, "SELECT * FROM processes", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_true(sqlite3_column_double(q, 0) == 1.5 && sqlite3_column_double(q, 1) == 2.25);
    assert_int_equal(sqlite3_column_int64(q, 2), 17);
    sqlite3_finalize(q);
    sqlite3_close(other);
}

static long long count_rows(sqlite3 *db)
{
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM processes", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    long long n = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return n;
}

/* SQLite's own reason, read before the ROLLBACK that would turn it into
 * "not an error". */
static void test_sqlite_error_message(void **state)
{
    (void)state;
    gt_side *s;
    gt_lockwait w;
    sqlite3 *other = sqlite_pair("e.sqlite", &s, &w);
    assert_int_equal(sqlite3_exec(other, "DROP TABLE processes", NULL, NULL, NULL), SQLITE_OK);
    gt_error err;
    gt_cell row[] = {fl(1.5), fl(2.25), in(17)};
    assert_int_equal(gt_side_add(s, row, &err), GT_OK);
    assert_int_equal(gt_side_end_sample(s, &err), GT_ERR_IO);
    assert_non_null(strstr(err.msg, "no such table"));
    assert_null(strstr(err.msg, "not an error"));
    gt_side_close(&s, &err);
    sqlite3_close(other);
}

/* 1000 rows of 3 cells a sample: sample k finds k * 1000 rows in the queue,
 * so the first that does not fit GT_LOCKWAIT_QUEUE_BYTES and all after it
 * are dropped; the others are written, in full, once the lock is free. */
static void test_sqlite_queue_cap(void **state)
{
    (void)state;
    enum { ROWS = 1000, SAMPLES = 200 };
    const size_t sample_bytes = ROWS * 3 * sizeof(gt_cell);
    const size_t fit = GT_LOCKWAIT_QUEUE_BYTES / sample_bytes;
    assert_true(fit < SAMPLES);
    gt_side *s;
    gt_lockwait w;
    sqlite3 *other = sqlite_pair("q.sqlite", &s, &w);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    gt_error err;
    for (int k = 0; k < SAMPLES; k++) {
        for (int r = 0; r < ROWS; r++) {
            gt_cell row[] = {fl(k), fl(r), in(k * ROWS + r)};
            assert_int_equal(gt_side_add(s, row, &err), GT_OK);
        }
        assert_int_equal(gt_side_end_sample(s, &err), GT_OK);
    }
    assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    gt_lockwait_arm(&w, GT_LOCKWAIT_CLOSE_MS);
    assert_int_equal(gt_side_close(&s, &err), GT_ERR_IO);
    char want[96];
    snprintf(want, sizeof want, "cannot write %zu rows (%zu samples) to table 'processes'",
             (SAMPLES - fit) * ROWS, SAMPLES - fit);
    assert_non_null(strstr(err.msg, want));
    assert_int_equal(count_rows(other), (long long)(fit * ROWS));
    sqlite3_close(other);
}

/* The rows that waited for a lock are not kept once written: a long wait's
 * queue (half the cap here) is given back to the allocator, where it was
 * kept before at its largest for the rest of the run. */
static void test_sqlite_queue_released(void **state)
{
    (void)state;
    enum { ROWS = 1000 };
    const size_t sample_bytes = ROWS * 3 * sizeof(gt_cell), samples = GT_LOCKWAIT_QUEUE_BYTES / sample_bytes / 2;
    gt_side *s;
    gt_lockwait w;
    sqlite3 *other = sqlite_pair("r.sqlite", &s, &w);
    assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    gt_error err;
    size_t held = 0;
    for (size_t k = 0; k <= samples; k++) {
        if (k == samples) {
            held = heap_in_use();
            assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
        }
        for (int r = 0; r < ROWS; r++) {
            gt_cell row[] = {fl((double)k), fl(r), in((long long)k * ROWS + r)};
            assert_int_equal(gt_side_add(s, row, &err), GT_OK);
        }
        /* The last sample writes the queue and its own rows. */
        assert_int_equal(gt_side_end_sample(s, &err), GT_OK);
    }
    size_t after = heap_in_use();
    /* Half the queue's bytes at least: SQLite's page cache (2 MiB by
     * default) may grow while it writes the rows. */
    if (!(after + samples * sample_bytes / 2 <= held))
        fail_msg("%zu bytes in use with %zu samples waiting, %zu after they were written: the queue was kept", held,
                 samples, after);
    assert_int_equal(count_rows(other), (long long)((samples + 1) * ROWS));
    gt_lockwait_arm(&w, GT_LOCKWAIT_CLOSE_MS);
    assert_int_equal(gt_side_close(&s, &err), GT_OK);
    sqlite3_close(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_first),
        cmocka_unit_test(test_failed_write_keeps_rows),
        cmocka_unit_test(test_sqlite_error_message),
        cmocka_unit_test(test_sqlite_table_text_and_rows),
        cmocka_unit_test(test_sqlite_queue_cap),
        cmocka_unit_test(test_sqlite_queue_released),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
