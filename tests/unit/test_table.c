/* SPDX-License-Identifier: MIT */
/* Table readers: numbers parse to the same double as strtod (Python's
 * float()), compact column storage reads back exactly, CSV quoting and line
 * numbers, named columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gpu_tracker.h"
#include "unit/tmpdir.h"
#include "store/table.h"
#include "util/pyfloat.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void check_parse(const char *s)
{
    double got, want = strtod(s, NULL);
    int is_int;
    assert_int_equal(gt_table_parse_number(s, &got, &is_int), 0);
    if (memcmp(&got, &want, sizeof got) != 0)
        fail_msg("'%s': %.17g, strtod gives %.17g", s, got, want);
}

/* Every path of the parser (the fast one, 128-bit products and quotients,
 * strtod) against strtod, on 100000 numbers of many shapes (each three ways). */
static void test_parse_matches_strtod(void **state)
{
    (void)state;
    char b[64];
    for (int i = 0; i < 100000; i++) {
        uint64_t bits = next();
        double x;
        switch (i % 4) {
        case 0: /* any finite double */
            memcpy(&x, &bits, sizeof x);
            if (!isfinite(x))
                continue;
            break;
        case 1: /* tracker-like magnitudes */
            x = (double)(bits % 1000000000000ULL) / pow(10, (double)(next() % 16));
            break;
        case 2: /* timestamps */
            x = 1.7e9 + (double)(bits % 1000000000ULL) / 1e6;
            break;
        default: /* ratios with long expansions */
            x = (double)(bits % 100000) / (double)(1 + next() % 97);
            break;
        }
        gt_pyfloat_repr(x, b, sizeof b);
        check_parse(b);
        snprintf(b, sizeof b, "%.17g", x);
        check_parse(b);
        snprintf(b, sizeof b, "%.*f", (int)(next() % 20), x);
        if (strlen(b) < sizeof b - 1)
            check_parse(b);
    }
    /* Halfway cases and 19-20 digit mantissas. */
    const char *edge[] = {"9007199254740993", "9007199254740993.0", "0.30000000000000004",
                          "1e22", "1e23", "123456789012345678901", "0.1234567890123456789",
                          "5e-324", "1.7976931348623157e308", "1234567890123456789e-19",
                          "2.2250738585072014e-308", "0.000000000000000000001"};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        check_parse(edge[i]);
}

static void test_compact_columns_read_back(void **state)
{
    (void)state;
    /* a: constant, then integers, then a missing value, then a fraction;
     * b: integers with a missing value; c: a constant fraction; d: -0.0. */
    FILE *f = fopen("c.csv", "w");
    assert_non_null(f);
    fputs("process_id,code_block_name,position,timestamp,a,b,c,d\n", f);
    const char *a[] = {"0", "0", "0", "5", "", "2.5", "-7", "0"};
    const char *bb[] = {"1", "2", "", "4", "5", "6", "7", "8"};
    for (int r = 0; r < 8; r++)
        fprintf(f, "%d,\"n,%d\",%d,%d.25,%s,%s,0.216,%s\n", r, r, r % 2, r, a[r], bb[r],
                r == 3 ? "-0.0" : "0");
    fclose(f);
    static const char *const text[] = {"code_block_name", NULL};
    gt_table *t = NULL;
    gt_error err;
    assert_int_equal(gt_table_read("c.csv", GT_TABLE_MARKS, text, &t, &err), GT_OK);
    assert_int_equal(gt_table_nrows(t), 8);
    int ca = gt_table_find(t, "a"), cb = gt_table_find(t, "b"), cc = gt_table_find(t, "c");
    int cd = gt_table_find(t, "d");
    double want_a[] = {0, 0, 0, 5, NAN, 2.5, -7, 0};
    for (size_t r = 0; r < 8; r++) {
        double v = gt_table_number(t, ca, r);
        assert_true(isnan(want_a[r]) ? isnan(v) : v == want_a[r]);
        assert_true(r == 2 ? isnan(gt_table_number(t, cb, r)) : gt_table_number(t, cb, r) == r + 1.0);
        assert_true(gt_table_number(t, cc, r) == 0.216);
        assert_true(gt_table_number(t, cd, r) == 0 && (signbit(gt_table_number(t, cd, r)) == (r == 3)));
        char name[8];
        snprintf(name, sizeof name, "n,%zu", r);
        assert_string_equal(gt_table_text(t, gt_table_find(t, "code_block_name"), r), name);
    }
    assert_true(gt_table_is_integer(t, cb));
    assert_false(gt_table_is_integer(t, ca));
    size_t rows[] = {7, 3, 4};
    double out[3];
    gt_table_gather(t, cb, rows, 3, out);
    assert_true(out[0] == 8 && out[1] == 4 && out[2] == 5);
    const double *all = gt_table_numbers(t, cb);
    assert_non_null(all);
    assert_true(all[0] == 1 && isnan(all[2]) && all[7] == 8);
    assert_null(gt_table_numbers(t, gt_table_find(t, "code_block_name")));
    gt_table_free(&t);
    assert_null(t);
}

static void test_named_columns(void **state)
{
    (void)state;
    FILE *f = fopen("n.csv", "w");
    assert_non_null(f);
    fputs("x,note,y\r\n1,\"free \"\"text\"\"\nover two lines\",2\r\n\r\n3,plain,4\r\n5,bad", f);
    fclose(f);
    static const char *const cols[] = {"y", "x", NULL};
    gt_table *t = NULL;
    gt_error err;
    /* "bad" sits in a column not asked for; the last line has no newline. */
    assert_int_equal(gt_table_read_columns("n.csv", GT_TABLE_MARKS, cols, NULL, &t, &err), GT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "line 6: 2 fields, but the header has 3"));
    f = fopen("n.csv", "a");
    fputs(",6\n", f);
    fclose(f);
    assert_int_equal(gt_table_read_columns("n.csv", GT_TABLE_MARKS, cols, NULL, &t, &err), GT_OK);
    assert_int_equal(gt_table_ncols(t), 2);
    assert_string_equal(gt_table_name(t, 0), "y");
    assert_int_equal(gt_table_nrows(t), 3);
    assert_true(gt_table_number(t, 0, 0) == 2 && gt_table_number(t, 1, 2) == 5);
    gt_table_free(&t);
    static const char *const missing[] = {"x", "z", NULL};
    assert_int_equal(gt_table_read_columns("n.csv", GT_TABLE_MARKS, missing, NULL, &t, &err),
                     GT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "no column 'z'"));
    assert_int_equal(gt_table_read("n.csv", GT_TABLE_MARKS, NULL, &t, &err), GT_ERR_FORMAT);
    if (!strstr(err.msg, "line 2: column 'note' holds 'free \"text\""))
        fail_msg("%s", err.msg);
}

/* In SQLite, text or a blob in a numeric column is refused as the CSV
 * reader refuses it, wherever it stands (SQLite itself would read it as 0,
 * or as the number it starts with). */
static void test_sqlite_text_in_numeric_column(void **state)
{
    (void)state;
    static const char *const bad[] = {"'abc'", "'12abc'", "x'00'", "''"};
    static const char *const why[] = {"holds 'abc'", "holds '12abc'", "holds a blob", NULL};
    for (int first = 0; first < 3; first++) /* after a REAL, an INTEGER, or first of all */
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            unlink("t.sqlite");
            sqlite3 *db;
            assert_int_equal(sqlite3_open("t.sqlite", &db), SQLITE_OK);
            char sql[256];
            snprintf(sql, sizeof sql, "CREATE TABLE data (process_id, code_block_name TEXT, position, timestamp);"
                     "%s INSERT INTO data VALUES (7, 'b', 0, %s);",
                     first == 0 ? "INSERT INTO data VALUES (7, 'b', 0, 1.5);"
                     : first == 1 ? "INSERT INTO data VALUES (7, 'b', 0, 2);" : "", bad[i]);
            assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
            sqlite3_close(db);
            gt_table *t = NULL;
            gt_error err;
            static const char *const text[] = {"code_block_name", NULL};
            gt_status st = gt_table_read("t.sqlite", GT_TABLE_MARKS, text, &t, &err);
            if (!why[i]) { /* an empty text cell: missing, as an empty CSV cell */
                assert_int_equal(st, GT_OK);
                assert_true(isnan(gt_table_number(t, gt_table_find(t, "timestamp"), first < 2)));
                gt_table_free(&t);
                continue;
            }
            assert_int_equal(st, GT_ERR_FORMAT);
            if (!strstr(err.msg, why[i]) || !strstr(err.msg, "'timestamp'"))
                fail_msg("%s after %d: %s", bad[i], first, err.msg);
        }
}

/* Inputs that never end are refused, not read into memory: a link to a
 * device (/dev/zero has no line end, ever), or a file of one endless line. */
static void test_endless_inputs(void **state)
{
    (void)state;
    gt_table *t = NULL;
    gt_error err;
    unlink("z.csv");
    unlink("z.sqlite");
    assert_int_equal(symlink("/dev/zero", "z.csv"), 0);
    assert_int_equal(symlink("/dev/zero", "z.sqlite"), 0);
    assert_int_equal(gt_table_read("z.csv", GT_TABLE_MARKS, NULL, &t, &err), GT_ERR_IO);
    assert_non_null(strstr(err.msg, "'z.csv': not a regular file"));
    assert_int_equal(gt_table_read("z.sqlite", GT_TABLE_MARKS, NULL, &t, &err), GT_ERR_IO);
    assert_non_null(strstr(err.msg, "'z.sqlite': not a regular file"));
    FILE *f = fopen("long.csv", "w");
    assert_non_null(f);
    fputs("process_id,code_block_name,position,timestamp\n7,", f);
    static char chunk[1 << 16];
    memset(chunk, 'a', sizeof chunk);
    for (int i = 0; i < 160; i++) /* 10 MiB in one field */
        assert_int_equal(fwrite(chunk, 1, sizeof chunk, f), sizeof chunk);
    fputs(",0,1.0\n", f);
    fclose(f);
    assert_int_equal(gt_table_read("long.csv", GT_TABLE_MARKS, NULL, &t, &err), GT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "'long.csv', line 2: a record longer than 7 MiB"));
    assert_null(t);
    unlink("long.csv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_matches_strtod),
        cmocka_unit_test(test_compact_columns_read_back),
        cmocka_unit_test(test_named_columns),
        cmocka_unit_test(test_sqlite_text_in_numeric_column),
        cmocka_unit_test(test_endless_inputs),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
