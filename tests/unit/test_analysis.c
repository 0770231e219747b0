/* SPDX-License-Identifier: MIT */
/* Statistics and the sweep: pandas' numbers, calls that overlap or hold no
 * timepoint, several processes and code blocks, ties at the boundaries, an
 * open start at the end of a log, missing values, unsorted timestamps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "analysis/stats.h"
#include "gpu_tracker.h"
#include "unit/tmpdir.h"
#include "store/table.h"

static void test_pairwise_sum(void **state)
{
    (void)state;
    double v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = 0.1;
    /* numpy's np.full(1000, 0.1).sum(); a plain loop gives 99.9999999999986. */
    assert_true(gt_pairwise_sum(v, 1000) == 100.00000000000001);
    assert_true(gt_pairwise_sum(v, 0) == 0.0);
    assert_true(gt_pairwise_sum(v, 3) == 0.1 + 0.1 + 0.1);
}

static void test_stats_like_pandas(void **state)
{
    (void)state;
    /* The reference session's system_gpu_ram: 25 x 0.216, whose mean and
     * std pandas gives as 0.21600000000000003 and 2.7755575615628914e-17. */
    double v[25], scratch[25];
    gt_stats s;
    for (int i = 0; i < 25; i++)
        v[i] = 0.216;
    gt_stats_compute(v, 25, scratch, &s);
    assert_true(s.mean == 0.21600000000000003);
    assert_true(s.std == 2.7755575615628914e-17);
    assert_true(s.min == 0.216 && s.max == 0.216);
    assert_int_equal(s.count, 25);
}

static void test_stats_missing_values(void **state)
{
    (void)state;
    double v[] = {NAN, 1.0, NAN, 3.0}, scratch[4];
    gt_stats s;
    gt_stats_compute(v, 4, scratch, &s);
    assert_int_equal(s.count, 2);
    assert_true(s.min == 1.0 && s.max == 3.0 && s.mean == 2.0 && s.std == 1.0); /* population */
    assert_true(isnan(v[0])); /* input untouched */

    double one[] = {NAN, 7.5};
    gt_stats_compute(one, 2, scratch, &s);
    assert_true(s.mean == 7.5 && s.std == 0.0);

    double none[] = {NAN, NAN};
    gt_stats_compute(none, 2, scratch, &s);
    assert_int_equal(s.count, 0);
    assert_true(isnan(s.min) && isnan(s.max) && isnan(s.mean) && isnan(s.std));
    gt_stats_compute(none, 0, scratch, &s);
    assert_true(isnan(s.mean));
}

/* An infinite value: pandas' mean is infinite and its std NaN (inf - inf
 * is no number), never 0 as if the value were missing. */
static void test_stats_infinite_values(void **state)
{
    (void)state;
    double v[] = {1.0, INFINITY, NAN, 3.0}, scratch[4];
    gt_stats s;
    gt_stats_compute(v, 4, scratch, &s);
    assert_int_equal(s.count, 3);
    assert_true(s.max == INFINITY && s.min == 1.0 && s.mean == INFINITY);
    assert_true(isnan(s.std));
    double both[] = {-INFINITY, INFINITY};
    gt_stats_compute(both, 2, scratch, &s);
    assert_true(isnan(s.mean) && isnan(s.std));
}

static void test_parse_number(void **state)
{
    (void)state;
    double x;
    int is_int;
    assert_int_equal(gt_table_parse_number("0.086913024", &x, &is_int), 0);
    assert_true(x == 0.086913024 && !is_int);
    assert_int_equal(gt_table_parse_number("1745449613.5325919", &x, &is_int), 0);
    assert_true(x == 1745449613.5325919);
    assert_int_equal(gt_table_parse_number("330.40000000000003", &x, &is_int), 0);
    assert_true(x == 330.40000000000003);
    assert_int_equal(gt_table_parse_number("-12", &x, &is_int), 0);
    assert_true(x == -12.0 && is_int);
    assert_int_equal(gt_table_parse_number("1.5e-05", &x, &is_int), 0);
    assert_true(x == 1.5e-05 && !is_int);
    assert_int_equal(gt_table_parse_number("1e+16", &x, &is_int), 0);
    assert_true(x == 1e16);
    assert_int_equal(gt_table_parse_number("nan", &x, &is_int), 0);
    assert_true(isnan(x));
    assert_int_equal(gt_table_parse_number("12abc", &x, &is_int), -1);
    assert_int_equal(gt_table_parse_number("", &x, &is_int), -1);
    assert_int_equal(gt_table_parse_number(".", &x, &is_int), -1);
    assert_int_equal(gt_table_parse_number("1e", &x, &is_int), -1);
}

/* ---- the sweep, on small files whose answers are known ---- */

static const char static_csv[] =
    "ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,gpu_ram_system_capacity,"
    "system_core_count,n_expected_cores,system_gpu_count,n_expected_gpus\n"
    "megabytes,gigabytes,seconds,16.5,0.0,4,2,0,0\n";

/* main_ram = 10 * t; cpu = t - 0.5 with the first missing. */
static void write_tracking_csv(const char *path, int shuffled)
{
    static const int order[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    static const int shuffle[] = {7, 3, 10, 1, 5, 9, 2, 6, 4, 8};
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(static_csv, f);
    fputs("main_ram,cpu,timestamp\n", f);
    for (int i = 0; i < 10; i++) {
        int t = shuffled ? shuffle[i] : order[i];
        if (t == 1)
            fprintf(f, "%d,,%d\n", 10 * t, t);
        else
            fprintf(f, "%d,%g,%d\n", 10 * t, t - 0.5, t);
    }
    fclose(f);
}

static const char marks_csv[] = "process_id,code_block_name,position,timestamp\n"
                                "1,A,0,2\n"
                                "2,A,0,3\n"
                                "1,A,1,4\n"
                                "2,A,1,6\n"
                                "1,\"tie, \"\"q\"\"\",0,4\n"
                                "1,\"tie, \"\"q\"\"\",1,4\n"
                                "1,B,0,6.5\n"
                                "1,B,1,6.9\n"
                                "1,A,0,9.5\n";

static void sql(sqlite3 *db, const char *q)
{
    char *msg = NULL;
    if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", q, msg);
}

static void write_sqlite_pair(void)
{
    sqlite3 *db;
    unlink("t.sqlite");
    unlink("m.sqlite");
    assert_int_equal(sqlite3_open("t.sqlite", &db), SQLITE_OK);
    sql(db, "CREATE TABLE static_data (ram_unit TEXT, gpu_ram_unit TEXT, time_unit TEXT,"
            " ram_system_capacity FLOAT, gpu_ram_system_capacity FLOAT, system_core_count BIGINT,"
            " n_expected_cores BIGINT, system_gpu_count BIGINT, n_expected_gpus BIGINT);"
            "INSERT INTO static_data VALUES ('megabytes', 'gigabytes', 'seconds', 16.5, 0.0, 4, 2, 0, 0);"
            "CREATE TABLE data (main_ram FLOAT, cpu FLOAT, timestamp FLOAT);");
    for (int t = 1; t <= 10; t++) {
        char q[128];
        if (t == 1)
            snprintf(q, sizeof q, "INSERT INTO data VALUES (%d, NULL, %d)", 10 * t, t);
        else
            snprintf(q, sizeof q, "INSERT INTO data VALUES (%d, %g, %d)", 10 * t, t - 0.5, t);
        sql(db, q);
    }
    sqlite3_close(db);
    assert_int_equal(sqlite3_open("m.sqlite", &db), SQLITE_OK);
    sql(db, "CREATE TABLE data (process_id BIGINT, code_block_name TEXT, position BIGINT,"
            " timestamp FLOAT);"
            "INSERT INTO data VALUES (1, 'A', 0, 2), (2, 'A', 0, 3), (1, 'A', 1, 4), (2, 'A', 1, 6),"
            " (1, 'tie, \"q\"', 0, 4), (1, 'tie, \"q\"', 1, 4), (1, 'B', 0, 6.5), (1, 'B', 1, 6.9),"
            " (1, 'A', 0, 9.5)");
    sqlite3_close(db);
}

static cJSON *analyze_json(const char *tf, const char *stf, char **text)
{
    gt_results *r = NULL;
    gt_error err;
    char *json = NULL;
    if (gt_analyze(tf, &(gt_analyze_options){GT_STRUCT_VERSION, stf, NULL}, &r, &err) != GT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(gt_results_string(r, GT_FORMAT_JSON, &json), GT_OK);
    assert_int_equal(gt_results_string(r, GT_FORMAT_TEXT, text), GT_OK);
    gt_results_free(&r);
    assert_null(r);
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    gt_string_free(&json);
    return j;
}

static double num(const cJSON *j, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *x = j;
    for (char *k = strtok(buf, "/"); k; k = strtok(NULL, "/")) {
        if (cJSON_IsArray(x))
            x = cJSON_GetArrayItem(x, atoi(k));
        else
            x = cJSON_GetObjectItemCaseSensitive(x, k);
        if (!x)
            fail_msg("no %s", path);
    }
    if (cJSON_IsNull(x))
        return NAN;
    assert_true(cJSON_IsNumber(x));
    return x->valuedouble;
}

static void check_known(const char *tf, const char *stf)
{
    char *text = NULL;
    cJSON *j = analyze_json(tf, stf, &text);

    /* overall: main_ram 10..100; cpu 1.5..9.5 with the first missing */
    assert_true(num(j, "overall/main_ram/mean") == 55.0);
    assert_true(num(j, "overall/main_ram/std") == sqrt(825.0));
    assert_true(num(j, "overall/cpu/min") == 1.5);
    assert_true(num(j, "overall/cpu/mean") == 5.5);
    assert_true(fabs(num(j, "overall/cpu/std") - sqrt(60.0 / 9)) < 1e-15);
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "overall"), "timestamp"));

    const cJSON *sd = cJSON_GetObjectItem(j, "static_data");
    assert_string_equal(cJSON_GetObjectItem(sd, "ram_unit")->valuestring, "megabytes");
    assert_true(num(sd, "ram_system_capacity") == 16.5);
    assert_true(num(sd, "system_core_count") == 4);

    const cJSON *blocks = cJSON_GetObjectItem(j, "code_block_results");
    assert_int_equal(cJSON_GetArraySize(blocks), 3);
    /* Sorted by name. */
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(blocks, 0), "name")->valuestring, "A");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(blocks, 1), "name")->valuestring, "B");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(blocks, 2), "name")->valuestring,
                        "tie, \"q\"");

    /* A: calls (2,4) of process 1 and (3,6) of process 2 overlap; the start
     * at 9.5 ends process 1's log and is dropped.  Timepoints 2..6. */
    assert_true(num(blocks, "0/num_calls") == 2);
    assert_true(num(blocks, "0/num_timepoints") == 5);
    assert_true(num(blocks, "0/num_non_empty_calls") == 2);
    assert_true(num(blocks, "0/compute_time/min") == 2.0);
    assert_true(num(blocks, "0/compute_time/max") == 3.0);
    assert_true(num(blocks, "0/compute_time/std") == 0.5);
    assert_true(num(blocks, "0/compute_time/total") == 5.0);
    assert_true(num(blocks, "0/resource_usage/main_ram/min") == 20.0);
    assert_true(num(blocks, "0/resource_usage/main_ram/max") == 60.0);
    assert_true(num(blocks, "0/resource_usage/main_ram/mean") == 40.0);
    assert_true(num(blocks, "0/resource_usage/main_ram/std") == sqrt(200.0));

    /* B: a call between two timepoints: no timepoint, statistics missing. */
    assert_true(num(blocks, "1/num_calls") == 1);
    assert_true(num(blocks, "1/num_timepoints") == 0);
    assert_true(num(blocks, "1/num_non_empty_calls") == 0);
    assert_true(num(blocks, "1/compute_time/total") == 6.9 - 6.5);
    assert_true(isnan(num(blocks, "1/resource_usage/main_ram/mean")));
    assert_true(isnan(num(blocks, "1/resource_usage/cpu/min")));

    /* A call starting and stopping exactly at a timepoint holds it. */
    assert_true(num(blocks, "2/num_timepoints") == 1);
    assert_true(num(blocks, "2/num_non_empty_calls") == 1);
    assert_true(num(blocks, "2/compute_time/total") == 0.0);
    assert_true(num(blocks, "2/resource_usage/main_ram/mean") == 40.0);
    assert_true(num(blocks, "2/resource_usage/main_ram/std") == 0.0);

    /* Text: pandas prints the missing statistics as NaN. */
    const char *b = strstr(text, "\tName:                B\n");
    assert_non_null(b);
    assert_non_null(strstr(b, "\t\tmain_ram  NaN  NaN   NaN  NaN\n"));
    assert_non_null(strstr(text, "Static Data:\n\t   ram_unit gpu_ram_unit time_unit "));
    free(text);
    cJSON_Delete(j);
}

static void test_sweep_csv(void **state)
{
    (void)state;
    write_tracking_csv("t.csv", 0);
    tmpdir_write("m.csv", marks_csv);
    check_known("t.csv", "m.csv");
}

static void test_sweep_sqlite(void **state)
{
    (void)state;
    write_sqlite_pair();
    check_known("t.sqlite", "m.sqlite");
    write_tracking_csv("t.csv", 0);
    check_known("t.csv", "m.sqlite");
}

static void test_sweep_unsorted_timestamps(void **state)
{
    (void)state;
    /* Integer sums are exact in any order, so the numbers are the same. */
    write_tracking_csv("shuffled.csv", 1);
    tmpdir_write("m.csv", marks_csv);
    check_known("shuffled.csv", "m.csv");
}

static void test_no_code_blocks(void **state)
{
    (void)state;
    char *text = NULL;
    write_tracking_csv("t.csv", 0);
    tmpdir_write("none.csv", "process_id,code_block_name,position,timestamp\n");
    cJSON *j = analyze_json("t.csv", "none.csv", &text);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "code_block_results")), 0);
    size_t n = strlen(text);
    assert_true(n > 20 && !strcmp(text + n - 20, "Code Block Results:\n"));
    free(text);
    cJSON_Delete(j);
}

/* Large enough for the statistics to be split across two threads: every
 * measure must still get its own numbers. */
static void test_large_split_across_threads(void **state)
{
    (void)state;
    const int n = 140000;
    FILE *f = fopen("big.csv", "w");
    assert_non_null(f);
    fputs(static_csv, f);
    fputs("a,b,c,timestamp\n", f);
    for (int t = 1; t <= n; t++)
        fprintf(f, "%d,%d,%d,%d\n", t, 2 * t, t % 2 ? 7 : -7, t);
    fclose(f);
    tmpdir_write("bm.csv", "process_id,code_block_name,position,timestamp\n"
                           "1,all,0,1\n1,all,1,140000\n1,some,0,100\n1,some,1,200\n");
    char *text = NULL;
    cJSON *j = analyze_json("big.csv", "bm.csv", &text);
    assert_true(num(j, "overall/a/mean") == (n + 1) / 2.0);
    assert_true(num(j, "overall/b/mean") == n + 1.0);
    assert_true(num(j, "overall/b/max") == 2.0 * n);
    assert_true(num(j, "overall/c/mean") == 0.0 && num(j, "overall/c/std") == 7.0);
    const cJSON *blocks = cJSON_GetObjectItem(j, "code_block_results");
    assert_true(num(blocks, "0/num_timepoints") == n);
    assert_true(num(blocks, "0/resource_usage/a/min") == 1.0);
    assert_true(num(blocks, "0/resource_usage/b/mean") == n + 1.0);
    assert_true(num(blocks, "0/resource_usage/c/std") == 7.0);
    assert_true(num(blocks, "1/num_timepoints") == 101);
    assert_true(num(blocks, "1/resource_usage/a/mean") == 150.0);
    assert_true(num(blocks, "1/resource_usage/b/mean") == 300.0);
    free(text);
    cJSON_Delete(j);
}

static void expect_failure(const char *tf, const char *stf, gt_status want, const char *pattern)
{
    gt_results *r = NULL;
    gt_error err;
    assert_int_equal(gt_analyze(tf, &(gt_analyze_options){GT_STRUCT_VERSION, stf, NULL}, &r, &err), want);
    assert_null(r);
    if (!strstr(err.msg, pattern))
        fail_msg("'%s' not in '%s'", pattern, err.msg);
}

static void test_invalid_inputs(void **state)
{
    (void)state;
    write_tracking_csv("t.csv", 0);
    tmpdir_write("ragged.csv", "process_id,code_block_name,position,timestamp\n1,A,0\n");
    expect_failure("t.csv", "ragged.csv", GT_ERR_FORMAT, "line 2: 3 fields, but the header has 4");
    tmpdir_write("quote.csv", "process_id,code_block_name,position,timestamp\n1,\"A,0,1\n");
    expect_failure("t.csv", "quote.csv", GT_ERR_FORMAT, "never ends");
    tmpdir_write("text.csv", "ram_unit\nx\nmain_ram,timestamp\n1,2\nabc,3\n");
    tmpdir_write("m.csv", marks_csv);
    expect_failure("text.csv", "m.csv", GT_ERR_FORMAT, "line 5: column 'main_ram' holds 'abc'");
    tmpdir_write("nots.csv", "ram_unit\nx\nmain_ram\n1\n");
    expect_failure("nots.csv", "m.csv", GT_ERR_FORMAT, "no column 'timestamp'");
    tmpdir_write("short.csv", "ram_unit\n");
    expect_failure("short.csv", "m.csv", GT_ERR_FORMAT, "short.csv");
    expect_failure(NULL, "m.csv", GT_ERR_INVALID, "tracking file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairwise_sum),
        cmocka_unit_test(test_stats_like_pandas),
        cmocka_unit_test(test_stats_missing_values),
        cmocka_unit_test(test_stats_infinite_values),
        cmocka_unit_test(test_parse_number),
        cmocka_unit_test(test_sweep_csv),
        cmocka_unit_test(test_sweep_sqlite),
        cmocka_unit_test(test_sweep_unsorted_timestamps),
        cmocka_unit_test(test_no_code_blocks),
        cmocka_unit_test(test_large_split_across_threads),
        cmocka_unit_test(test_invalid_inputs),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
