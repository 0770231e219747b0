/* SPDX-License-Identifier: MIT */
/* Sub-tracking marks written at once by several threads and several
 * processes lose none and tear none: one file shared by the threads of a
 * process, one file shared by forked processes (each with threads), and
 * per-process files combined afterwards, in CSV and in SQLite.  Every mark
 * is named after its writer, so each must appear exactly once; the names
 * hold CSV separators, quotes and SQL, which must come back as written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "store/table.h"
#include "tmpdir.h"

#define THREADS 4
#define MARKS 200 /* start and stop marks per thread */
#define PROCS 4
#define SQL_TAIL "'); DROP TABLE data; --"

typedef struct job {
    gt_subtracker *s;
    int proc, thread;
    int failures;
} job;

static void *mark_many(void *arg)
{
    job *j = arg;
    char name[96];
    for (int i = 0; i < MARKS; i++) {
        /* A comma and quotes: the CSV field must be quoted whole; SQL in
         * the name: SQLite must take it as a bound value. */
        snprintf(name, sizeof name, "p%d,t%d \"block\" %d" SQL_TAIL, j->proc, j->thread, i);
        gt_error e;
        if (gt_subtracker_mark(j->s, name, 0, &e) != GT_OK || gt_subtracker_mark(j->s, name, 1, &e) != GT_OK) {
            fprintf(stderr, "process %d thread %d: %s\n", j->proc, j->thread, e.msg);
            j->failures++;
        }
    }
    return NULL;
}

/* THREADS threads marking through s; returns the number of failed marks. */
static int run_threads(gt_subtracker *s, int proc)
{
    pthread_t th[THREADS];
    job jobs[THREADS];
    int failures = 0;
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (job){s, proc, t, 0};
        if (pthread_create(&th[t], NULL, mark_many, &jobs[t]) != 0)
            return -1;
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        failures += jobs[t].failures;
    }
    return failures;
}

/* Forks PROCS children; each runs fn(proc) and exits with its result. */
static void in_processes(int (*fn)(int proc, void *ctx), void *ctx)
{
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        assert_true(pids[p] >= 0);
        if (pids[p] == 0)
            _exit(fn(p, ctx) == 0 ? 0 : 1);
    }
    for (int p = 0; p < PROCS; p++) {
        int st;
        assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
}

/* Every mark of procs processes x THREADS threads x MARKS, each position
 * once, nothing else. */
static void expect_marks(const char *path, int procs)
{
    gt_table *t = NULL;
    gt_error e;
    static const char *const text[] = {"code_block_name", NULL};
    if (gt_table_read(path, GT_TABLE_MARKS, text, &t, &e) != GT_OK)
        fail_msg("%s", e.msg);
    size_t want = (size_t)procs * THREADS * MARKS * 2;
    assert_int_equal(gt_table_nrows(t), want);
    int name = gt_table_find(t, "code_block_name"), pos = gt_table_find(t, "position");
    assert_true(name >= 0 && pos >= 0);
    unsigned char *seen = calloc(want, 1);
    assert_non_null(seen);
    for (size_t r = 0; r < want; r++) {
        int p, th, i, n = 0;
        const char *s = gt_table_text(t, name, r);
        if (sscanf(s, "p%d,t%d \"block\" %d%n", &p, &th, &i, &n) != 3 || strcmp(s + n, SQL_TAIL) || p < 0 ||
            p >= procs ||
            th < 0 || th >= THREADS || i < 0 || i >= MARKS)
            fail_msg("row %zu: unexpected code block name '%s'", r, s);
        double position = gt_table_number(t, pos, r);
        assert_true(position == 0 || position == 1);
        size_t k = (((size_t)p * THREADS + (size_t)th) * MARKS + (size_t)i) * 2 + (size_t)position;
        if (seen[k]++)
            fail_msg("mark '%s' position %g written twice", s, position);
    }
    free(seen);
    gt_table_free(&t);
}

static void threads_one_file(const char *path)
{
    gt_subtracker *s = NULL;
    gt_error e;
    assert_int_equal(gt_subtracker_open(path, 1, &s, &e), GT_OK);
    assert_int_equal(run_threads(s, 0), 0);
    gt_subtracker_free(&s);
    expect_marks(path, 1);
}

static void test_threads_csv(void **state)
{
    (void)state;
    threads_one_file("threads.csv");
}

static void test_threads_sqlite(void **state)
{
    (void)state;
    threads_one_file("threads.sqlite");
}

static int shared_child(int proc, void *ctx)
{
    gt_subtracker *s = ctx; /* this process's copy of the parent's handle */
    int rc = run_threads(s, proc);
    gt_subtracker_free(&s);
    return rc;
}

/* A file opened once, then written by forked processes with threads. */
static void forked_one_file(const char *path)
{
    gt_subtracker *s = NULL;
    gt_error e;
    assert_int_equal(gt_subtracker_open(path, 1, &s, &e), GT_OK);
    in_processes(shared_child, s);
    gt_subtracker_free(&s);
    expect_marks(path, PROCS);
}

static void test_forked_csv(void **state)
{
    (void)state;
    forked_one_file("forked.csv");
}

static void test_forked_sqlite(void **state)
{
    (void)state;
    forked_one_file("forked.sqlite");
}

static int own_file_child(int proc, void *ctx)
{
    char path[64];
    snprintf(path, sizeof path, "own-%d.%s", proc, (const char *)ctx);
    gt_subtracker *s = NULL;
    gt_error e;
    if (gt_subtracker_open(path, 1, &s, &e) != GT_OK)
        return 1;
    int rc = run_threads(s, proc);
    gt_subtracker_free(&s);
    return rc;
}

/* One file per process (the Python package's way), combined. */
static void per_process_files(char *ext)
{
    in_processes(own_file_child, ext);
    char names[PROCS][64], out[64];
    const char *inputs[PROCS];
    for (int p = 0; p < PROCS; p++) {
        snprintf(names[p], sizeof names[p], "own-%d.%s", p, ext);
        inputs[p] = names[p];
    }
    snprintf(out, sizeof out, "combined.%s", ext);
    unlink(out);
    gt_error e;
    if (gt_subtrack_combine(out, inputs, PROCS, &e) != GT_OK)
        fail_msg("%s", e.msg);
    expect_marks(out, PROCS);
}

static void test_per_process_csv(void **state)
{
    (void)state;
    per_process_files((char[]){"csv"});
}

static void test_per_process_sqlite(void **state)
{
    (void)state;
    per_process_files((char[]){"sqlite"});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_csv),     cmocka_unit_test(test_threads_sqlite),
        cmocka_unit_test(test_forked_csv),      cmocka_unit_test(test_forked_sqlite),
        cmocka_unit_test(test_per_process_csv), cmocka_unit_test(test_per_process_sqlite),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
