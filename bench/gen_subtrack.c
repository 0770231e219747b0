/* SPDX-License-Identifier: MIT */
/* gen_subtrack tracking DIR TIMEPOINTS: writes DIR/tracking.{csv,sqlite}
 * with TIMEPOINTS rows in the tracking-file layout (a sample every 0.1 s,
 * values shaped like real ones and written as the tracker writes them).
 * gen_subtrack marks DIR TIMEPOINTS CALLS: writes DIR/sub-tracking.{csv,
 * sqlite} with CALLS calls of 10 code blocks in 4 processes over the same
 * time span, each call spanning twice the average spacing of calls.
 * For bench/analyze. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/pyfloat.h"

#define NCOL 22

static const char *const names[NCOL] = {
    "main_ram", "descendants_ram", "combined_ram", "system_ram", "main_gpu_ram",
    "descendants_gpu_ram", "combined_gpu_ram", "system_gpu_ram", "gpu_sum_utilization_percent",
    "gpu_hardware_utilization_percent", "main_n_threads", "descendants_n_threads",
    "combined_n_threads", "cpu_system_sum_utilization_percent",
    "cpu_system_hardware_utilization_percent", "cpu_main_sum_utilization_percent",
    "cpu_main_hardware_utilization_percent", "cpu_descendants_sum_utilization_percent",
    "cpu_descendants_hardware_utilization_percent", "cpu_combined_sum_utilization_percent",
    "cpu_combined_hardware_utilization_percent", "timestamp"};

static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* One row of values as the tracker writes them. */
static void row(long i, double *v, int *is_int)
{
    double main = (double)(80000 + next() % 400000) * 4096 / 1e9;
    double desc = (double)(next() % 3000000) * 4096 / 1e9;
    double cpu_main = (double)(next() % 1200) / 10, cpu_desc = (double)(next() % 3000) / 10;
    double cpu_sys = cpu_main + cpu_desc + (double)(next() % 500) / 10;
    double vals[NCOL] = {main, desc, main + desc, (double)(12000000 + next() % 3000000) * 4096 / 1e9,
                         0, 0, 0, 0.216, 0, 0,
                         (double)(13 + next() % 3), (double)(next() % 40), 0,
                         cpu_sys, cpu_sys / 12, cpu_main, cpu_main / 12, cpu_desc, cpu_desc / 12,
                         cpu_main + cpu_desc, (cpu_main + cpu_desc) / 12,
                         1745449609.0 + (double)i * 0.1};
    vals[12] = vals[10] + vals[11];
    memcpy(v, vals, sizeof vals);
    for (int c = 0; c < NCOL; c++)
        is_int[c] = (c >= 4 && c <= 6) || c == 8 || c == 9 || (c >= 10 && c <= 12);
}

static void sql(sqlite3 *db, const char *q)
{
    char *msg;
    if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "gen_subtrack: %s\n", msg);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int marks = argc == 5 && !strcmp(argv[1], "marks");
    if (!marks && !(argc == 4 && !strcmp(argv[1], "tracking"))) {
        fprintf(stderr, "usage: gen_subtrack tracking DIR TIMEPOINTS\n"
                        "       gen_subtrack marks DIR TIMEPOINTS CALLS\n");
        return 2;
    }
    const char *dir = argv[2];
    long n = atol(argv[3]), m = marks ? atol(argv[4]) : 0;
    char path[4096];
    sqlite3 *db;
    sqlite3_stmt *q;
    FILE *f;

    if (marks)
        goto marks;

    snprintf(path, sizeof path, "%s/tracking.csv", dir);
    f = fopen(path, "w");
    snprintf(path, sizeof path, "%s/tracking.sqlite", dir);
    remove(path);
    if (!f || sqlite3_open(path, &db) != SQLITE_OK)
        return 1;
    fputs("ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,gpu_ram_system_capacity,"
          "system_core_count,n_expected_cores,system_gpu_count,n_expected_gpus\n"
          "gigabytes,gigabytes,hours,67.25414912000001,16.376,12,12,1,1\n", f);
    sql(db, "CREATE TABLE static_data (ram_unit TEXT, gpu_ram_unit TEXT, time_unit TEXT,"
            " ram_system_capacity FLOAT, gpu_ram_system_capacity FLOAT, system_core_count BIGINT,"
            " n_expected_cores BIGINT, system_gpu_count BIGINT, n_expected_gpus BIGINT);"
            "INSERT INTO static_data VALUES ('gigabytes', 'gigabytes', 'hours', 67.25414912000001,"
            " 16.376, 12, 12, 1, 1); BEGIN");
    char create[2048] = "CREATE TABLE data (", ins[512] = "INSERT INTO data VALUES (";
    for (int c = 0; c < NCOL; c++) {
        fprintf(f, "%s%c", names[c], c + 1 < NCOL ? ',' : '\n');
        strcat(create, names[c]);
        strcat(create, c + 1 < NCOL ? " FLOAT, " : " FLOAT)");
        strcat(ins, c + 1 < NCOL ? "?," : "?)");
    }
    sql(db, create);
    sqlite3_prepare_v2(db, ins, -1, &q, NULL);
    for (long i = 0; i < n; i++) {
        double v[NCOL];
        int is_int[NCOL];
        row(i, v, is_int);
        for (int c = 0; c < NCOL; c++) {
            if (is_int[c]) {
                fprintf(f, "%lld", (long long)v[c]);
                sqlite3_bind_int64(q, c + 1, (long long)v[c]);
            } else {
                char b[GT_PYFLOAT_BUFSZ];
                gt_pyfloat_repr(v[c], b, sizeof b); /* as the tracker writes it */
                fputs(b, f);
                sqlite3_bind_double(q, c + 1, v[c]);
            }
            fputc(c + 1 < NCOL ? ',' : '\n', f);
        }
        sqlite3_step(q);
        sqlite3_reset(q);
    }
    sqlite3_finalize(q);
    sql(db, "COMMIT");
    sqlite3_close(db);
    fclose(f);
    return 0;

marks:
    snprintf(path, sizeof path, "%s/sub-tracking.csv", dir);
    f = fopen(path, "w");
    snprintf(path, sizeof path, "%s/sub-tracking.sqlite", dir);
    remove(path);
    if (!f || sqlite3_open(path, &db) != SQLITE_OK)
        return 1;
    fputs("process_id,code_block_name,position,timestamp\n", f);
    sql(db, "CREATE TABLE data (process_id BIGINT, code_block_name TEXT, position BIGINT,"
            " timestamp FLOAT); BEGIN");
    sqlite3_prepare_v2(db, "INSERT INTO data VALUES (?, ?, ?, ?)", -1, &q, NULL);
    double span = (double)n * 0.1, step = span / (double)m;
    for (long k = 0; k < m; k++) {
        char name[32];
        snprintf(name, sizeof name, "block-%ld", k % 10);
        double start = 1745449609.0 + (double)k * step;
        for (int pos = 0; pos < 2; pos++) {
            double t = pos ? start + 2 * step : start;
            char b[GT_PYFLOAT_BUFSZ];
            gt_pyfloat_repr(t, b, sizeof b);
            fprintf(f, "%ld,%s,%d,%s\n", 1000 + k % 4, name, pos, b);
            sqlite3_bind_int64(q, 1, 1000 + k % 4);
            sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int(q, 3, pos);
            sqlite3_bind_double(q, 4, t);
            sqlite3_step(q);
            sqlite3_reset(q);
        }
    }
    sqlite3_finalize(q);
    sql(db, "COMMIT");
    sqlite3_close(db);
    fclose(f);
    return 0;
}
