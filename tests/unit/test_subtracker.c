/* SPDX-License-Identifier: MIT */
/* The sub-tracking mark writer: file creation rules, CSV quoting and SQLite
 * parameters that round-trip any name, scoped marks, threads, removal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "unit/tmpdir.h"
#include "store/table.h"

static gt_table *read_marks(const char *path)
{
    static const char *const text[] = {"code_block_name", NULL};
    gt_table *t = NULL;
    gt_error err;
    gt_status st = gt_table_read(path, GT_TABLE_MARKS, text, &t, &err);
    if (st != GT_OK)
        fail_msg("%s", err.msg);
    return t;
}

static void test_default_path_and_exists(void **state)
{
    (void)state;
    gt_subtracker *s = NULL;
    gt_error err;
    char want[64];
    snprintf(want, sizeof want, "%lld.csv", (long long)getpid());
    assert_int_equal(gt_subtracker_open(NULL, 0, &s, &err), GT_OK);
    assert_int_equal(gt_subtracker_mark(s, "a", 0, NULL), GT_OK);
    gt_subtracker_free(&s);
    assert_null(s);
    assert_int_equal(access(want, R_OK), 0);

    assert_int_equal(gt_subtracker_open(want, 0, &s, &err), GT_ERR_EXISTS);
    assert_null(s);
    assert_non_null(strstr(err.msg, want));
    gt_table *t = read_marks(want);
    assert_int_equal(gt_table_nrows(t), 1); /* untouched */
    gt_table_free(&t);

    assert_int_equal(gt_subtracker_open(want, 1, &s, &err), GT_OK);
    gt_subtracker_free(&s);
    t = read_marks(want);
    assert_int_equal(gt_table_nrows(t), 0);
    gt_table_free(&t);

    assert_int_equal(gt_subtracker_open("marks.txt", 0, &s, &err), GT_ERR_INVALID);
    assert_non_null(strstr(err.msg, "'.csv' or '.sqlite'"));
    gt_subtracker_free(&s); /* NULL-safe */
}

static const char *const odd_names[] = {
    "plain", "with,comma", "with \"quotes\"", "multi\nline", "crlf\r\nend", "'single'", "",
    "trailing space ", "ünïcödé",
};
#define N_ODD (sizeof odd_names / sizeof *odd_names)

static void roundtrip(const char *path)
{
    gt_subtracker *s = NULL;
    gt_error err;
    assert_int_equal(gt_subtracker_open(path, 0, &s, &err), GT_OK);
    for (size_t i = 0; i < N_ODD; i++) {
        assert_int_equal(gt_subtracker_mark(s, odd_names[i], 0, NULL), GT_OK);
        assert_int_equal(gt_subtracker_mark(s, odd_names[i], 1, NULL), GT_OK);
    }
    assert_int_equal(gt_subtracker_status(s, NULL), GT_OK);
    gt_subtracker_free(&s);

    gt_table *t = read_marks(path);
    assert_int_equal(gt_table_nrows(t), 2 * N_ODD);
    int name = gt_table_find(t, "code_block_name");
    const double *pid = gt_table_numbers(t, gt_table_find(t, "process_id"));
    const double *pos = gt_table_numbers(t, gt_table_find(t, "position"));
    const double *ts = gt_table_numbers(t, gt_table_find(t, "timestamp"));
    assert_true(gt_table_is_integer(t, gt_table_find(t, "process_id")));
    for (size_t r = 0; r < 2 * N_ODD; r++) {
        assert_string_equal(gt_table_text(t, name, r), odd_names[r / 2]);
        assert_true(pid[r] == (double)getpid());
        assert_true(pos[r] == (double)(r % 2));
        assert_true(ts[r] > 1.7e9 && ts[r] < 4e9);
        if (r)
            assert_true(ts[r] >= ts[r - 1]);
    }
    gt_table_free(&t);
}

static void test_names_roundtrip_csv(void **state)
{
    (void)state;
    roundtrip("odd.csv");
}

static void test_names_roundtrip_sqlite(void **state)
{
    (void)state;
    roundtrip("odd.sqlite");
}

/* gt_subtracker_mark_at writes the caller's process ID and time exactly
 * (a binding's own clock), beside marks of this process now. */
static void given_pid_and_time(const char *path)
{
    gt_subtracker *s = NULL;
    gt_error err;
    assert_int_equal(gt_subtracker_open(path, 0, &s, &err), GT_OK);
    assert_int_equal(gt_subtracker_mark_at(s, "given", 0, 1234, 0.0, NULL), GT_OK);
    assert_int_equal(gt_subtracker_mark_at(s, "given", 1, 1234, 1745449613.5325918, NULL), GT_OK);
    assert_int_equal(gt_subtracker_mark(s, "now", 0, NULL), GT_OK);
    assert_int_equal(gt_subtracker_mark_at(s, NULL, 0, 1, 1.0, NULL), GT_ERR_INVALID);
    assert_int_equal(gt_subtracker_status(s, NULL), GT_OK);
    gt_subtracker_free(&s);

    gt_table *t = read_marks(path);
    assert_int_equal(gt_table_nrows(t), 3);
    const double *pid = gt_table_numbers(t, gt_table_find(t, "process_id"));
    const double *ts = gt_table_numbers(t, gt_table_find(t, "timestamp"));
    assert_true(pid[0] == 1234 && pid[1] == 1234 && pid[2] == (double)getpid());
    assert_true(ts[0] == 0.0 && ts[1] == 1745449613.5325918 && ts[2] > 1.7e9);
    gt_table_free(&t);
}

static void test_given_pid_and_time_csv(void **state)
{
    (void)state;
    given_pid_and_time("given.csv");
}

static void test_given_pid_and_time_sqlite(void **state)
{
    (void)state;
    given_pid_and_time("given.sqlite");
}

static void test_invalid_mark_is_not_sticky(void **state)
{
    (void)state;
    gt_subtracker *s = NULL;
    gt_error err;
    assert_int_equal(gt_subtracker_open("inv.csv", 0, &s, &err), GT_OK);
    assert_int_equal(gt_subtracker_mark(s, "a", 2, &err), GT_ERR_INVALID);
    assert_non_null(strstr(err.msg, "position"));
    assert_int_equal(gt_subtracker_mark(s, NULL, 0, NULL), GT_ERR_INVALID);
    assert_int_equal(gt_subtracker_mark(s, "a", 0, NULL), GT_OK);
    assert_int_equal(gt_subtracker_status(s, NULL), GT_OK);
    assert_int_equal(gt_subtracker_mark(NULL, "a", 0, NULL), GT_ERR_INVALID);
    gt_subtracker_free(&s);
}

static void removed(const char *path)
{
    gt_subtracker *s = NULL;
    gt_error err;
    assert_int_equal(gt_subtracker_open(path, 0, &s, &err), GT_OK);
    assert_int_equal(gt_subtracker_mark(s, "a", 0, NULL), GT_OK);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(gt_subtracker_mark(s, "a", 1, &err), GT_ERR_IO);
    assert_non_null(strstr(err.msg, "removed while in use"));
    assert_non_null(strstr(err.msg, path));
    /* Kept: every later mark and the status give the first failure again. */
    gt_error later = {{0}}, status = {{0}};
    assert_int_equal(gt_subtracker_mark(s, "b", 0, &later), GT_ERR_IO);
    assert_string_equal(later.msg, err.msg);
    assert_int_equal(gt_subtracker_status(s, &status), GT_ERR_IO);
    assert_string_equal(status.msg, err.msg);
    assert_int_equal(gt_subtracker_status(s, NULL), GT_ERR_IO);
    /* A new file of the same name is not the one we were writing. */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(gt_subtracker_mark(s, "a", 0, NULL), GT_ERR_IO);
    gt_subtracker_free(&s);
}

static void test_removed_csv(void **state)
{
    (void)state;
    removed("gone.csv");
}

static void test_removed_sqlite(void **state)
{
    (void)state;
    removed("gone.sqlite");
}

static gt_subtracker *scoped_st;
static int scope_line;

static int scoped_function(int early)
{
    GT_SUBTRACK_FUNCTION(scoped_st);
    if (early)
        return 1; /* the stop is still written */
    {
        scope_line = __LINE__ + 1;
        GT_SUBTRACK_SCOPE(scoped_st, NULL);
        for (int i = 0; i < 2; i++) {
            GT_SUBTRACK_SCOPE(scoped_st, "loop");
            if (i == 1)
                break;
        }
    }
    return 0;
}

static void test_scoped_marks(void **state)
{
    (void)state;
    gt_error err;
    assert_int_equal(gt_subtracker_open("scoped.csv", 0, &scoped_st, &err), GT_OK);
    scoped_function(1);
    scoped_function(0);
    gt_subtracker_free(&scoped_st);

    char fn[256], blk[256];
    snprintf(fn, sizeof fn, "%s:scoped_function", __FILE__);
    snprintf(blk, sizeof blk, "%s:%d", __FILE__, scope_line);
    const char *want_name[] = {fn, fn, fn, blk, "loop", "loop", "loop", "loop", blk, fn};
    const int want_pos[] = {0, 1, 0, 0, 0, 1, 0, 1, 1, 1};
    gt_table *t = read_marks("scoped.csv");
    assert_int_equal(gt_table_nrows(t), 10);
    int name = gt_table_find(t, "code_block_name");
    const double *pos = gt_table_numbers(t, gt_table_find(t, "position"));
    for (size_t r = 0; r < 10; r++) {
        assert_string_equal(gt_table_text(t, name, r), want_name[r]);
        assert_true(pos[r] == want_pos[r]);
    }
    gt_table_free(&t);
}

#define THREADS 4
#define MARKS 2000

static void *marker(void *arg)
{
    gt_subtracker *s = *(gt_subtracker **)arg;
    char name[16];
    snprintf(name, sizeof name, "t%ld", (long)pthread_self() % 100000);
    for (int i = 0; i < MARKS; i++)
        if (gt_subtracker_mark(s, name, i % 2, NULL) != GT_OK)
            return (void *)1;
    return NULL;
}

static void threads(const char *path)
{
    gt_subtracker *s = NULL;
    gt_error err;
    pthread_t th[THREADS];
    assert_int_equal(gt_subtracker_open(path, 0, &s, &err), GT_OK);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, marker, &s), 0);
    for (int i = 0; i < THREADS; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        assert_null(rv);
    }
    gt_subtracker_free(&s);
    gt_table *t = read_marks(path);
    assert_int_equal(gt_table_nrows(t), THREADS * MARKS);
    /* Every row whole, and the time order is the file order. */
    const double *ts = gt_table_numbers(t, gt_table_find(t, "timestamp"));
    for (size_t r = 1; r < gt_table_nrows(t); r++)
        assert_true(ts[r] >= ts[r - 1]);
    gt_table_free(&t);
}

/* The name of a process ID the caller gives (a binding's own, such as
 * Python's os.getpid(), which tests replace), with the node's name in front
 * on a multi-node run, as for the calling process. */
static void test_default_path_of_a_given_process_id(void **state)
{
    (void)state;
    char buf[300];
    gt_error err;
    assert_int_equal(unsetenv("SLURM_JOB_ID"), 0);
    assert_int_equal(unsetenv("GT_SUBTRACK_HOST"), 0);
    assert_int_equal(gt_subtracker_default_path_of(1234, buf, sizeof buf, &err), GT_OK);
    assert_string_equal(buf, "1234.csv");
    assert_int_equal(setenv("GT_SUBTRACK_HOST", "1", 1), 0);
    assert_int_equal(setenv("SLURMD_NODENAME", "n3", 1), 0);
    assert_int_equal(gt_subtracker_default_path_of(1234, buf, sizeof buf, &err), GT_OK);
    assert_string_equal(buf, "n3-1234.csv");
    assert_int_equal(unsetenv("GT_SUBTRACK_HOST"), 0);
    assert_int_equal(unsetenv("SLURMD_NODENAME"), 0);
    assert_int_equal(gt_subtracker_default_path_of(0, buf, sizeof buf, &err), GT_ERR_INVALID);
    assert_non_null(strstr(err.msg, "process ID 0"));
    assert_int_equal(gt_subtracker_default_path_of(1234, buf, 8, &err), GT_ERR_INVALID); /* "1234.csv" and NUL */
}

static void test_threads_csv(void **state)
{
    (void)state;
    threads("threads.csv");
}

static void test_threads_sqlite(void **state)
{
    (void)state;
    threads("threads.sqlite");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_path_and_exists),
        cmocka_unit_test(test_default_path_of_a_given_process_id),
        cmocka_unit_test(test_names_roundtrip_csv),
        cmocka_unit_test(test_names_roundtrip_sqlite),
        cmocka_unit_test(test_given_pid_and_time_csv),
        cmocka_unit_test(test_given_pid_and_time_sqlite),
        cmocka_unit_test(test_invalid_mark_is_not_sticky),
        cmocka_unit_test(test_removed_csv),
        cmocka_unit_test(test_removed_sqlite),
        cmocka_unit_test(test_scoped_marks),
        cmocka_unit_test(test_threads_csv),
        cmocka_unit_test(test_threads_sqlite),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
