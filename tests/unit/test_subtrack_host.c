/* SPDX-License-Identifier: MIT */
/* Sub-tracking files of several nodes: the host column the writer adds under
 * Slurm (or when asked), combine carrying it, pairing keyed on (host,
 * process ID) when two nodes' PIDs and timestamps collide, and analyze
 * refusing a mix of hosts unless one is chosen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gpu_tracker.h"
#include "unit/tmpdir.h"

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void sql(sqlite3 *db, const char *q)
{
    char *msg = NULL;
    if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", q, msg);
}

static void write_sqlite(const char *path, const char *script)
{
    sqlite3 *db = NULL;
    unlink(path);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sql(db, script);
    sqlite3_close(db);
}

/* Timepoints at t = 1..10, main_ram = 10 t. */
static void write_tracking(void)
{
    FILE *f = fopen("t.csv", "w");
    assert_non_null(f);
    fputs("ram_unit\nmegabytes\nmain_ram,timestamp\n", f);
    for (int t = 1; t <= 10; t++)
        fprintf(f, "%d,%d\n", 10 * t, t);
    fclose(f);
}

/* Two nodes whose rank has the same process ID 7 and starts block X at the
 * same instant; n1's call is (2, 4), n2's (2, 7).  Sorted by process ID and
 * time alone they would pair as (2, 2) and (4, 7), a silent mix.  n1's
 * start at 5 is still open (a killed rank): it is the last mark of its
 * process only when the process is (host, PID), and dropped as such.  A file
 * of the Python package's layout adds process 7 of no host: (8, 9). */
static const char n1_csv[] = "process_id,code_block_name,position,timestamp,host\n"
                             "7,X,0,2,n1\n7,X,1,4,n1\n7,X,0,5,n1\n";
static const char n2_csv[] = "process_id,code_block_name,position,timestamp,host\n"
                             "7,X,0,2.0,n2\n7,X,1,7.0,n2\n";
static const char old_csv[] = "process_id,code_block_name,position,timestamp\n"
                              "7,X,0,8\n7,X,1,9\n";

static void expect_calls(const char *path, const double *want, size_t n)
{
    double *calls = NULL;
    size_t nc = 0;
    gt_error err;
    if (gt_subtrack_calls(path, "X", &calls, &nc, &err) != GT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(nc, n);
    for (size_t i = 0; i < 2 * n; i++)
        assert_true(calls[i] == want[i]);
    gt_calls_free(&calls);
}

/* The block X of the results of analyzing stf's marks of host. */
static void expect_block(const char *stf, const char *host, double calls, double timepoints, double total)
{
    gt_results *r = NULL;
    gt_error err;
    char *s = NULL;
    if (gt_analyze("t.csv", &(gt_analyze_options){GT_STRUCT_VERSION, stf, host}, &r, &err) != GT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(gt_results_string(r, GT_FORMAT_JSON, &s), GT_OK);
    cJSON *j = cJSON_Parse(s);
    assert_non_null(j);
    const cJSON *blocks = cJSON_GetObjectItem(j, "code_block_results");
    assert_int_equal(cJSON_GetArraySize(blocks), 1);
    const cJSON *b = cJSON_GetArrayItem(blocks, 0);
    assert_string_equal(cJSON_GetObjectItem(b, "name")->valuestring, "X");
    assert_true(cJSON_GetObjectItem(b, "num_calls")->valuedouble == calls);
    assert_true(cJSON_GetObjectItem(b, "num_timepoints")->valuedouble == timepoints);
    assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "compute_time"), "total")->valuedouble == total);
    cJSON_Delete(j);
    gt_string_free(&s);
    gt_results_free(&r);
}

static void expect_refused(const char *stf, const char *host, const char *msg)
{
    gt_results *r = NULL;
    gt_error err;
    gt_analyze_options o = {GT_STRUCT_VERSION, stf, host};
    assert_int_equal(gt_analyze("t.csv", &o, &r, &err), GT_ERR_INVALID);
    assert_null(r);
    if (!strstr(err.msg, msg))
        fail_msg("'%s' lacks '%s'", err.msg, msg);
}

/* Host n1, host n2, then the host-less process, each by time. */
static const double all_calls[] = {8, 9, 2, 4, 2, 7};

static void check_combined(const char *c)
{
    expect_calls(c, all_calls, 3);
    expect_refused(c, NULL, "holds marks of several hosts ('', 'n1')");
    expect_refused(c, "n3", "has no marks of host 'n3'");
    expect_block(c, "n1", 1, 3, 2);
    expect_block(c, "n2", 1, 6, 5);
    expect_block(c, "", 1, 2, 1);
}

static void test_combine_and_pair_csv(void **state)
{
    (void)state;
    write_tracking();
    tmpdir_write("n1.csv", n1_csv);
    tmpdir_write("n2.csv", n2_csv);
    tmpdir_write("old.csv", old_csv);
    const char *in[] = {"n1.csv", "n2.csv", "old.csv"};
    gt_error err;
    unlink("c.csv");
    if (gt_subtrack_combine("c.csv", in, 3, &err) != GT_OK)
        fail_msg("%s", err.msg);
    /* The inputs' numbers as written, the host-less rows with an empty host. */
    assert_string_equal(slurp("c.csv"), "process_id,code_block_name,position,timestamp,host\n"
                                        "7,X,0,2,n1\n7,X,1,4,n1\n7,X,0,5,n1\n7,X,0,2.0,n2\n7,X,1,7.0,n2\n"
                                        "7,X,0,8,\n7,X,1,9,\n");
    check_combined("c.csv");
    /* One host alone analyzes without naming it. */
    expect_block("n2.csv", NULL, 1, 6, 5);

    /* Files without the column combine into the Python package's layout. */
    const char *old[] = {"old.csv", "old.csv"};
    unlink("c2.csv");
    assert_int_equal(gt_subtrack_combine("c2.csv", old, 2, &err), GT_OK);
    assert_string_equal(slurp("c2.csv"), "process_id,code_block_name,position,timestamp\n"
                                         "7,X,0,8\n7,X,1,9\n7,X,0,8\n7,X,1,9\n");
}

static void test_combine_and_pair_sqlite(void **state)
{
    (void)state;
    write_tracking();
    write_sqlite("n1.sqlite", "CREATE TABLE data (process_id BIGINT, code_block_name TEXT,"
                              " position BIGINT, timestamp FLOAT, host TEXT);"
                              "INSERT INTO data VALUES (7, 'X', 0, 2, 'n1'), (7, 'X', 1, 4, 'n1'), (7, 'X', 0, 5, 'n1')");
    write_sqlite("n2.sqlite", "CREATE TABLE data (process_id BIGINT, code_block_name TEXT,"
                              " position BIGINT, timestamp FLOAT, host TEXT);"
                              "INSERT INTO data VALUES (7, 'X', 1, 7, 'n2'), (7, 'X', 0, 2, 'n2')");
    write_sqlite("old.sqlite", "CREATE TABLE data (process_id BIGINT, code_block_name TEXT,"
                               " position BIGINT, timestamp FLOAT);"
                               "INSERT INTO data VALUES (7, 'X', 0, 8), (7, 'X', 1, 9)");
    const char *in[] = {"n1.sqlite", "n2.sqlite", "old.sqlite"};
    gt_error err;
    unlink("c.sqlite");
    if (gt_subtrack_combine("c.sqlite", in, 3, &err) != GT_OK)
        fail_msg("%s", err.msg);
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open("c.sqlite", &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(quote(host), ' ') FROM data", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), "'n1' 'n1' 'n1' 'n2' 'n2' '' ''");
    sqlite3_finalize(q);
    sqlite3_close(db);
    check_combined("c.sqlite");
}

/* A pair that would join two hosts' marks names both processes. */
static void test_pair_across_hosts_is_an_error(void **state)
{
    (void)state;
    tmpdir_write("bad.csv", "process_id,code_block_name,position,timestamp,host\n"
                            "7,X,1,4,n1\n7,X,1,5,n2\n");
    double *calls = NULL;
    size_t n = 0;
    gt_error err;
    assert_int_equal(gt_subtrack_calls("bad.csv", "X", &calls, &n, &err), GT_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "(4.0, 5.0) of two processes: process ID 7 on host 'n1' and process ID 7 on host 'n2'"));
}

/* gt_subtrack_calls pairs the one block asked for: another block's marks
 * that do not pair are no error of it, and marks of every host are its. */
static void test_calls_of_one_block_only(void **state)
{
    (void)state;
    tmpdir_write("two.csv", "process_id,code_block_name,position,timestamp,host\n"
                            "7,A,1,4,n1\n"
                            "7,X,0,1,n1\n7,X,1,2,n1\n7,X,0,3,n2\n7,X,1,6,n2\n");
    double *calls = NULL;
    size_t n = 0;
    gt_error err;
    assert_int_equal(gt_subtrack_calls("two.csv", "X", &calls, &n, &err), GT_OK);
    assert_int_equal(n, 2);
    assert_true(calls[0] == 1 && calls[1] == 2 && calls[2] == 3 && calls[3] == 6);
    gt_calls_free(&calls);
    assert_int_equal(gt_subtrack_calls("two.csv", "none", &calls, &n, &err), GT_OK);
    assert_int_equal(n, 0);
    gt_calls_free(&calls);
    assert_int_equal(gt_subtrack_calls("two.csv", "A", &calls, &n, &err), GT_ERR_FORMAT);
}

static void clear_env(void)
{
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURMD_NODENAME");
    unsetenv("GT_SUBTRACK_HOST");
}

static void mark_once(const char *path)
{
    gt_subtracker *s = NULL;
    gt_error err;
    unlink(path);
    if (gt_subtracker_open(path, 0, &s, &err) != GT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(gt_subtracker_mark(s, "b", 0, NULL), GT_OK);
    gt_subtracker_free(&s);
}

/* The header, and the end of the first row after its timestamp. */
static void expect_csv(const char *header, const char *row_end)
{
    mark_once("w.csv");
    const char *s = slurp("w.csv");
    assert_memory_equal(s, header, strlen(header));
    const char *nl = strchr(s + strlen(header), '\n');
    assert_non_null(nl);
    size_t n = strlen(row_end);
    assert_true((size_t)(nl - s) >= n);
    assert_memory_equal(nl + 1 - n, row_end, n);
    assert_string_equal(nl + 1, "");
}

static const char plain[] = "process_id,code_block_name,position,timestamp\n";
static const char with_host[] = "process_id,code_block_name,position,timestamp,host\n";

static void test_writer_host_column(void **state)
{
    (void)state;
    char host[256] = "";
    char row_end[300];
    clear_env();
    expect_csv(plain, "\n"); /* the Python package's columns, nothing after the timestamp */
    setenv("GT_SUBTRACK_HOST", "0", 1);
    expect_csv(plain, "\n");
    setenv("GT_SUBTRACK_HOST", "1", 1);
    setenv("SLURMD_NODENAME", "node,a", 1);
    expect_csv(with_host, ",\"node,a\"\n");
    clear_env();
    /* Under Slurm by itself; the kernel's host name without Slurm's. */
    setenv("SLURM_JOB_ID", "42", 1);
    assert_int_equal(gethostname(host, sizeof host - 1), 0);
    snprintf(row_end, sizeof row_end, ",%s\n", host);
    expect_csv(with_host, row_end);

    setenv("SLURMD_NODENAME", "n7", 1);
    mark_once("w.sqlite");
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open("w.sqlite", &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT host, process_id FROM data", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(q, 0), "n7");
    assert_int_equal(sqlite3_column_int64(q, 1), getpid());
    sqlite3_finalize(q);
    sqlite3_close(db);
    clear_env();
    mark_once("w.sqlite");
    assert_int_equal(sqlite3_open("w.sqlite", &db), SQLITE_OK);
    assert_int_not_equal(sqlite3_prepare_v2(db, "SELECT host FROM data", -1, &q, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* The schema text of path's data table (static, for one comparison). */
static const char *schema_of(const char *path)
{
    static char text[512];
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE name = 'data'", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    snprintf(text, sizeof text, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    sqlite3_close(db);
    return text;
}

/* The writer and combine create the one table, word for word, with and
 * without the host column. */
static void test_writer_and_combine_share_the_schema(void **state)
{
    (void)state;
    static const char *const want[2] = {
        "CREATE TABLE data (process_id BIGINT, code_block_name TEXT, position BIGINT, timestamp FLOAT)",
        "CREATE TABLE data (process_id BIGINT, code_block_name TEXT, position BIGINT, timestamp FLOAT, host TEXT)"};
    for (int host = 0; host < 2; host++) {
        clear_env();
        if (host) {
            setenv("GT_SUBTRACK_HOST", "1", 1);
            setenv("SLURMD_NODENAME", "n1", 1);
        }
        mark_once("w.sqlite");
        clear_env();
        assert_string_equal(schema_of("w.sqlite"), want[host]);
        const char *in[] = {"w.sqlite"};
        gt_error err;
        unlink("c.sqlite");
        if (gt_subtrack_combine("c.sqlite", in, 1, &err) != GT_OK)
            fail_msg("%s", err.msg);
        assert_string_equal(schema_of("c.sqlite"), want[host]);
    }
}

/* The default name: "<pid>.csv" (the Python package's) on one node, with
 * the host in front on a multi-node run, where PIDs repeat across nodes. */
static void test_default_name(void **state)
{
    (void)state;
    char want[300], got[300];
    gt_error err;
    gt_subtracker *s = NULL;
    clear_env();
    snprintf(want, sizeof want, "%lld.csv", (long long)getpid());
    assert_int_equal(gt_subtracker_default_path(got, sizeof got, &err), GT_OK);
    assert_string_equal(got, want);
    setenv("SLURM_JOB_ID", "42", 1);
    setenv("SLURMD_NODENAME", "n7", 1);
    snprintf(want, sizeof want, "n7-%lld.csv", (long long)getpid());
    assert_int_equal(gt_subtracker_default_path(got, sizeof got, &err), GT_OK);
    assert_string_equal(got, want);
    unlink(want);
    assert_int_equal(gt_subtracker_open(NULL, 0, &s, &err), GT_OK);
    assert_int_equal(gt_subtracker_mark(s, "b", 0, NULL), GT_OK);
    gt_subtracker_free(&s);
    assert_int_equal(access(want, F_OK), 0);
    clear_env();
    setenv("GT_SUBTRACK_HOST", "1", 1);
    setenv("SLURMD_NODENAME", "a/b", 1);
    snprintf(want, sizeof want, "a_b-%lld.csv", (long long)getpid());
    assert_int_equal(gt_subtracker_default_path(got, sizeof got, &err), GT_OK);
    assert_string_equal(got, want);
    assert_int_equal(gt_subtracker_default_path(got, 4, &err), GT_ERR_INVALID);
    clear_env();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_combine_and_pair_csv),
        cmocka_unit_test(test_combine_and_pair_sqlite),
        cmocka_unit_test(test_pair_across_hosts_is_an_error),
        cmocka_unit_test(test_calls_of_one_block_only),
        cmocka_unit_test(test_writer_host_column),
        cmocka_unit_test(test_writer_and_combine_share_the_schema),
        cmocka_unit_test(test_default_name),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
