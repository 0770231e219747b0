/* SPDX-License-Identifier: MIT */
/* Merging tracking files of one job: peaks of sums at one time (not sums of
 * peaks), unit conversion, CPU seconds, energy, held values between
 * samples, and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "analysis/merge.h"
#include "gpu_tracker.h"
#include "store/table.h"
#include "util/text.h"
#include "tmpdir.h"

static const char static_header[] =
    "ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,gpu_ram_system_capacity,system_core_count,"
    "n_expected_cores,system_gpu_count,n_expected_gpus\n";
static const char data_header[] =
    "main_ram,descendants_ram,combined_ram,system_ram,main_gpu_ram,descendants_gpu_ram,combined_gpu_ram,"
    "system_gpu_ram,gpu_sum_utilization_percent,gpu_hardware_utilization_percent,main_n_threads,"
    "descendants_n_threads,combined_n_threads,cpu_system_sum_utilization_percent,"
    "cpu_system_hardware_utilization_percent,cpu_main_sum_utilization_percent,"
    "cpu_main_hardware_utilization_percent,cpu_descendants_sum_utilization_percent,"
    "cpu_descendants_hardware_utilization_percent,cpu_combined_sum_utilization_percent,"
    "cpu_combined_hardware_utilization_percent,timestamp";

/* Writes a tracking file of n samples at t0, t0 + dt, ...: RAM ram[i] in
 * unit, CPU cpu percent throughout, GPU RAM 0, and (energy) a cumulative
 * CPU energy of energy_rate joules per second, or no energy columns. */
/* The host and Slurm task the next write_file records (NULL: none). */
static const char *file_host, *file_task;
/* The first rows of the next write_file without a CPU figure. */
static size_t file_cpu_empty;
/* Where file_disk_r is not 0, the next write_file has gpu-tracker's disk
 * columns (metric/table.c): main read file_disk_r bytes per second, its
 * descendants none; main and descendants each wrote file_disk_w per
 * second; the rates those of the combined totals (none on the first row). */
static double file_disk_r, file_disk_w;
static const char disk_header[] =
    ",main_disk_read_bytes,descendants_disk_read_bytes,combined_disk_read_bytes,main_disk_write_bytes,"
    "descendants_disk_write_bytes,combined_disk_write_bytes,combined_disk_read_bytes_per_second,"
    "combined_disk_write_bytes_per_second";

static void write_file(const char *path, const char *unit, double t0, double dt, const double *ram, size_t n,
                       double cpu, int energy, double energy_rate)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    if (file_host) {
        fprintf(f, "%.*s,host,slurm_job_id,slurm_step_id,slurm_task_id\n", (int)strlen(static_header) - 1,
                static_header);
        fprintf(f, "%s,gigabytes,hours,64.0,0.0,8,8,0,0,%s,77,0,%s\n", unit, file_host, file_task ? file_task : "");
    } else {
        fputs(static_header, f);
        fprintf(f, "%s,gigabytes,hours,64.0,0.0,8,8,0,0\n", unit);
    }
    fprintf(f, "%s%s%s\n", data_header, file_disk_r ? disk_header : "",
            energy ? ",cpu_energy_joules,dram_energy_joules,gpu_energy_joules" : "");
    for (size_t i = 0; i < n; i++) {
        if (i < file_cpu_empty)
            fprintf(f, "%.17g,0,%.17g,1,0,0,0,0,0,0,1,0,1,,,,,,,,,%.17g", ram[i], ram[i], t0 + dt * (double)i);
        else
            fprintf(f, "%.17g,0,%.17g,1,0,0,0,0,0,0,1,0,1,0,0,%.17g,0,0,0,%.17g,0,%.17g", ram[i], ram[i], cpu, cpu,
                    t0 + dt * (double)i);
        if (file_disk_r) {
            double r = file_disk_r * dt * (double)i, w = file_disk_w * dt * (double)i;
            fprintf(f, ",%.17g,0,%.17g,%.17g,%.17g,%.17g", r, r, w, w, 2 * w);
            if (i)
                fprintf(f, ",%.17g,%.17g", file_disk_r, 2 * file_disk_w);
            else
                fputs(",,", f);
        }
        if (energy)
            fprintf(f, ",%.17g,,", energy_rate * dt * (double)i);
        fputc('\n', f);
    }
    assert_int_equal(fclose(f), 0);
}

/* cmocka's float assertion rounds to float, too coarse for timestamps. */
#define assert_near(a, b, eps)                                                                             \
    do {                                                                                                   \
        double a_ = (a), b_ = (b);                                                                         \
        if (!(fabs(a_ - b_) <= (eps)))                                                                     \
            fail_msg("%s is %.17g, not %.17g", #a, a_, b_);                                                \
    } while (0)

static gt_merge *merge(const char *const *paths, size_t n, double align)
{
    gt_merge *m = NULL;
    gt_error err;
    gt_merge_options o = {.version = GT_STRUCT_VERSION, .align_seconds = align};
    gt_status st = gt_merge_files(paths, n, &o, &m, &err);
    if (st != GT_OK)
        fail_msg("merge failed: %s", err.msg);
    return m;
}

/* Samples in a file's first 0.25 s have no CPU figure at short intervals;
 * the first figure covers all the time since the first sample, so 3 empty
 * rows then 2 rows at 100 % every 0.1 s are 0.4 CPU seconds, not 0.2. */
static void test_cpu_seconds_first_figure(void **state)
{
    (void)state;
    const double ram[] = {1, 1, 1, 1, 1};
    file_cpu_empty = 3;
    write_file("e.csv", "gigabytes", 1000.0, 0.1, ram, 5, 100, 0, 0);
    file_cpu_empty = 0;
    const char *const paths[] = {"e.csv"};
    gt_merge *m = merge(paths, 1, 1.0);
    assert_near(m->parts[0].cpu_seconds, 0.4, 1e-9);
    assert_near(m->parts[0].mean_cpu_percent, 100, 1e-9);
    gt_merge_free(&m);
}

/* Node a peaks early, node b late: the job's peak is the larger sum at
 * one time (1 + 0.5 early, 0.5 + 2 late), not 1 + 2. */
static void test_peak_is_max_of_sums(void **state)
{
    (void)state;
    const double a[] = {1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5};
    const double b_mb[] = {500, 500, 500, 500, 500, 2000, 2000, 2000, 2000, 2000};
    write_file("a.csv", "gigabytes", 1000.0, 1.0, a, 10, 100, 1, 2.0);
    write_file("b.csv", "megabytes", 1000.2, 1.0, b_mb, 10, 50, 0, 0);
    const char *const paths[] = {"a.csv", "b.csv"};
    gt_merge *m = merge(paths, 2, 1.0);
    assert_int_equal(m->nparts, 2);
    assert_int_equal(m->ram_unit, GT_RAM_UNIT_GIGABYTES);
    assert_near(m->parts[1].max[GT_MERGE_RAM], 2.0, 1e-12);
    assert_near(m->peak[GT_MERGE_RAM], 2.5, 1e-12);
    assert_near(m->peak_time[GT_MERGE_RAM], 1005.0, 1e-9);
    assert_near(m->peak[GT_MERGE_CPU], 150.0, 1e-12);
    /* 9 intervals of 1 s at 100 % and at 50 % */
    assert_near(m->parts[0].cpu_seconds, 9.0, 1e-9);
    assert_near(m->cpu_seconds, 13.5, 1e-9);
    /* energy only in a: 2 W for 9 s; b's is unavailable, not 0 */
    assert_near(m->parts[0].energy_joules, 18.0, 1e-9);
    assert_true(isnan(m->parts[1].energy_joules));
    assert_near(m->energy_joules, 18.0, 1e-9);
    assert_string_equal(m->parts[m->largest].name, "b");
    assert_near(m->stop - m->start, 9.2, 1e-9);
    gt_merge_free(&m);
    assert_null(m);
}

/* A node sampled every 3 s still holds its memory in the steps between its
 * samples, so a peak of the other node there adds to it. */
static void test_held_between_samples(void **state)
{
    (void)state;
    const double slow[] = {4, 4, 4};
    const double fast[] = {1, 1, 1, 1, 3, 1, 1};
    write_file("slow.csv", "gigabytes", 2000.0, 3.0, slow, 3, 0, 0, 0);
    write_file("fast.csv", "gigabytes", 2000.0, 1.0, fast, 7, 0, 0, 0);
    const char *const paths[] = {"slow.csv", "fast.csv"};
    gt_merge *m = merge(paths, 2, 1.0);
    assert_near(m->peak[GT_MERGE_RAM], 7.0, 1e-12);
    assert_near(m->peak_time[GT_MERGE_RAM], 2004.0, 1e-9);
    gt_merge_free(&m);
}

/* A node holds its memory into a step until its first sample there: a
 * releases 1 GB at its sample at 2005.6, after b took 1 GB at 2005.3, so
 * both held 1 GB at once in step 2005 (2 GB), though a's only sample in
 * the step reads 0.  A sample that opens a step exactly ends the value
 * held before it (test_peak_is_max_of_sums). */
static void test_held_into_the_step(void **state)
{
    (void)state;
    const double a[] = {1, 1, 0};
    const double b[] = {0, 0, 1, 1};
    write_file("a.csv", "gigabytes", 2003.6, 1.0, a, 3, 0, 0, 0);
    write_file("b.csv", "gigabytes", 2003.3, 1.0, b, 4, 0, 0, 0);
    const char *const paths[] = {"a.csv", "b.csv"};
    gt_merge *m = merge(paths, 2, 1.0);
    assert_near(m->peak[GT_MERGE_RAM], 2.0, 1e-12);
    assert_near(m->peak_time[GT_MERGE_RAM], 2005.0, 1e-9);
    gt_merge_free(&m);
}

/* Nodes that do not overlap in time never add up. */
static void test_disjoint_in_time(void **state)
{
    (void)state;
    const double x[] = {3, 3, 3};
    write_file("early.csv", "gigabytes", 3000.0, 1.0, x, 3, 0, 0, 0);
    write_file("late.csv", "gigabytes", 3010.0, 1.0, x, 3, 0, 0, 0);
    const char *const paths[] = {"early.csv", "late.csv"};
    gt_merge *m = merge(paths, 2, 1.0);
    assert_near(m->peak[GT_MERGE_RAM], 3.0, 1e-12);
    gt_merge_free(&m);
}

/* Four files, two tasks on node n1, one on n2, one recording no host (in
 * this order: n1, n2, none, n1).  n1's tasks peak at different times, so n1
 * peaks at 2.5 (1 + 0.5 early, 0.5 + 2 late), not 3; each file measures
 * its node's whole energy over its own span, so a node's energy is its
 * largest file's (22.5 J of 18 and 22.5), not the sum nor the smallest. */
static void test_nodes(void **state)
{
    (void)state;
    const double early[] = {1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5};
    const double late[] = {0.5, 0.5, 0.5, 0.5, 0.5, 2, 2, 2, 2, 2};
    const double flat4[] = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
    const double flat1[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    file_host = "n1", file_task = "0";
    write_file("t-n1-0.csv", "gigabytes", 1000.0, 1.0, early, 10, 100, 1, 2.0);
    file_task = "1";
    write_file("t-n1-1.csv", "gigabytes", 1000.1, 1.0, late, 10, 50, 1, 2.5);
    file_host = "n2", file_task = "2";
    write_file("t-n2-2.csv", "gigabytes", 1000.2, 1.0, flat4, 10, 10, 1, 3.0);
    file_host = file_task = NULL;
    write_file("solo.csv", "gigabytes", 1000.3, 1.0, flat1, 10, 0, 0, 0);
    const char *const paths[] = {"t-n1-0.csv", "t-n2-2.csv", "solo.csv", "t-n1-1.csv"};
    gt_merge *m = merge(paths, 4, 1.0);
    assert_int_equal(m->nnodes, 3);
    assert_int_equal(m->without_node, 1);
    assert_string_equal(m->nodes[0].name, "n1");
    assert_int_equal(m->nodes[0].nparts, 2);
    assert_false(m->nodes[0].own_file);
    assert_string_equal(m->nodes[1].name, "n2");
    assert_string_equal(m->nodes[2].name, "solo");
    assert_true(m->nodes[2].own_file);
    assert_int_equal(m->parts[0].node, 0);
    assert_int_equal(m->parts[3].node, 0);
    assert_int_equal(m->parts[1].node, 1);
    assert_string_equal(m->parts[3].task, "1");
    assert_null(m->parts[2].task);
    assert_near(m->nodes[0].peak[GT_MERGE_RAM], 2.5, 1e-12);
    assert_near(m->nodes[0].peak_time[GT_MERGE_RAM], 1005.0, 1e-9);
    assert_near(m->nodes[0].peak[GT_MERGE_CPU], 150.0, 1e-12);
    assert_near(m->nodes[0].cpu_seconds, 13.5, 1e-9);
    assert_near(m->parts[0].energy_joules, 18.0, 1e-9);
    assert_near(m->parts[3].energy_joules, 22.5, 1e-9);
    assert_near(m->nodes[0].energy_joules, 22.5, 1e-9);
    assert_int_equal(m->nodes[0].samples, 20);
    assert_near(m->nodes[1].peak[GT_MERGE_RAM], 4.0, 1e-12);
    assert_near(m->nodes[1].energy_joules, 27.0, 1e-9);
    assert_near(m->nodes[2].peak[GT_MERGE_RAM], 1.0, 1e-12);
    /* The job: the sum of its nodes at one time, energy the sum of nodes'. */
    assert_near(m->peak[GT_MERGE_RAM], 7.5, 1e-12);
    assert_near(m->peak_time[GT_MERGE_RAM], 1005.0, 1e-9);
    assert_near(m->energy_joules, 49.5, 1e-9);
    assert_near(m->cpu_seconds, 13.5 + 0.9, 1e-9);
    FILE *out = fopen("nodes.txt", "w+");
    assert_int_equal(gt_merge_write(m, GT_FORMAT_TEXT, out), GT_OK);
    rewind(out);
    char text[8192];
    text[fread(text, 1, sizeof text - 1, out)] = '\0';
    fclose(out);
    assert_non_null(strstr(text, "Job (4 tracking files on 3 nodes"));
    assert_non_null(strstr(text, "1 of the files record no host"));
    assert_non_null(strstr(text, "\n      n1\n        t-n1-0 "));
    gt_merge_free(&m);
}

/* A file that records no host is a node of its own even when its name is
 * a host's: "n1.csv" never takes in the file of host n1, before or after
 * it. */
static void test_hostless_named_as_host(void **state)
{
    (void)state;
    const double x[] = {1, 1, 1};
    const double y[] = {2, 2, 2};
    write_file("n1.csv", "gigabytes", 1000.0, 1.0, x, 3, 0, 0, 0);
    file_host = "n1", file_task = "0";
    write_file("t-n1-0.csv", "gigabytes", 1000.0, 1.0, y, 3, 0, 0, 0);
    file_host = file_task = NULL;
    const char *const paths[] = {"n1.csv", "t-n1-0.csv"};
    gt_merge *m = merge(paths, 2, 1.0);
    assert_int_equal(m->nnodes, 2);
    assert_int_equal(m->without_node, 1);
    assert_true(m->nodes[0].own_file);
    assert_false(m->nodes[1].own_file);
    assert_string_equal(m->nodes[1].name, "n1");
    assert_int_equal(m->parts[1].node, 1);
    assert_int_equal(m->nodes[0].nparts, 1);
    assert_near(m->nodes[0].peak[GT_MERGE_RAM], 1.0, 1e-12);
    assert_near(m->nodes[1].peak[GT_MERGE_RAM], 2.0, 1e-12);
    gt_merge_free(&m);
    /* the host's file first, the host-less one after */
    const char *const reversed[] = {"t-n1-0.csv", "n1.csv"};
    m = merge(reversed, 2, 1.0);
    assert_int_equal(m->nnodes, 2);
    assert_int_equal(m->parts[1].node, 1);
    assert_true(m->nodes[1].own_file);
    gt_merge_free(&m);
}

static void test_json(void **state)
{
    (void)state;
    const double a[] = {1, 2};
    write_file("j.csv", "gigabytes", 4000.0, 1.0, a, 2, 100, 0, 0);
    const char *const paths[] = {"j.csv"};
    gt_merge *m = merge(paths, 1, 1.0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(gt_merge_write(m, GT_FORMAT_JSON, f), GT_OK);
    fclose(f);
    assert_non_null(strstr(buf, "\"energy_joules\":\tnull"));
    assert_non_null(strstr(buf, "\"largest_by_ram\":\t\"j\""));
    assert_non_null(strstr(buf, "\"ram\":\t2"));
    free(buf);
    gt_merge_free(&m);
}

/* The report of a merge as text or JSON, in memory (caller frees). */
static char *report(const gt_merge *m, gt_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(gt_merge_write(m, fmt, f), GT_OK);
    fclose(f);
    return buf;
}

/* Names from files, as a hostile or foreign writer leaves them: a host of
 * bytes that are not UTF-8 and a terminal escape, in a file whose name is
 * not UTF-8 either.  The JSON report stays valid UTF-8 (each bad byte as
 * the text \xNN, which json.load reads), the text report prints no control
 * character, and both keep the names apart from each other. */
static void test_names_not_utf8(void **state)
{
    (void)state;
    const double a[] = {1, 2};
    file_host = "\xff\xfenode\x1b[31m", file_task = "0";
    write_file("j\xfe.csv", "gigabytes", 4000.0, 1.0, a, 2, 100, 0, 0);
    file_host = file_task = NULL;
    const char *const paths[] = {"j\xfe.csv"};
    gt_merge *m = merge(paths, 1, 1.0);
    char *json = report(m, GT_FORMAT_JSON);
    if (!gt_text_clean(json, 0))
        fail_msg("the JSON report is not UTF-8:\n%s", json);
    assert_non_null(strstr(json, "\"host\":\t\"\\\\xff\\\\xfenode\\u001b[31m\""));
    assert_non_null(strstr(json, "\"largest_by_ram\":\t\"j\\\\xfe\""));
    free(json);
    char *text = report(m, GT_FORMAT_TEXT);
    if (!gt_text_clean(text, 0) || strchr(text, '\x1b'))
        fail_msg("the text report holds bytes that are not UTF-8 or an escape:\n%s", text);
    assert_non_null(strstr(text, "\\xff\\xfenode\\x1b[31m"));
    assert_non_null(strstr(text, "j\\xfe"));
    free(text);
    gt_merge_free(&m);
}

static void expect_error(const char *const *paths, size_t n, double align, gt_status want, const char *text)
{
    gt_merge *m = (gt_merge *)1;
    gt_error err;
    gt_merge_options o = {.version = GT_STRUCT_VERSION, .align_seconds = align};
    assert_int_equal(gt_merge_files(paths, n, &o, &m, &err), want);
    assert_null(m);
    if (!strstr(err.msg, text))
        fail_msg("message '%s' lacks '%s'", err.msg, text);
}

static void test_errors(void **state)
{
    (void)state;
    const double x[] = {1, 1};
    write_file("ok.csv", "gigabytes", 5000.0, 1.0, x, 2, 0, 0, 0);
    const char *const missing[] = {"ok.csv", "missing.csv"};
    expect_error(missing, 2, 1.0, GT_ERR_IO, "missing.csv");
    const char *const one[] = {"ok.csv"};
    expect_error(one, 0, 1.0, GT_ERR_INVALID, "no tracking file");
    expect_error(one, 1, 0.0, GT_ERR_INVALID, "grid step");
    const double back[] = {1, 1, 1};
    write_file("back.csv", "gigabytes", 5000.0, -1.0, back, 3, 0, 0, 0);
    const char *const b[] = {"back.csv"};
    expect_error(b, 1, 1.0, GT_ERR_FORMAT, "sample 2");
    /* a bad clock on one node would ask for years of grid */
    write_file("far.csv", "gigabytes", 5.0e9, 1.0, x, 2, 0, 0, 0);
    const char *const far[] = {"ok.csv", "far.csv"};
    expect_error(far, 2, 1.0, GT_ERR_FORMAT, "steps");
    FILE *f = fopen("units.csv", "w");
    fprintf(f, "%spetabytes,gigabytes,hours,1,0,1,1,0,0\n%s\n", static_header, data_header);
    fclose(f);
    const char *const u[] = {"units.csv"};
    expect_error(u, 1, 1.0, GT_ERR_FORMAT, "petabytes");
}

/* Expects merging one file of samples t0, t0 + dt with RAM ram, CPU cpu
 * and energy rate energy (NaN: no energy columns) to fail naming the
 * file, the sample and the column, or (column NULL) to succeed. */
static void expect_range(double t0, double dt, double ram, double cpu, double energy, const char *column,
                         const char *sample)
{
    const double r[] = {1, ram};
    write_file("range.csv", "gigabytes", t0, dt, r, 2, cpu, !isnan(energy), isnan(energy) ? 0 : energy);
    const char *const one[] = {"range.csv"};
    gt_merge *m = NULL;
    gt_error err;
    gt_status st = gt_merge_files(one, 1, NULL, &m, &err);
    if (!column) {
        if (st != GT_OK)
            fail_msg("t0 %g, RAM %g, CPU %g, energy %g refused: %s", t0, ram, cpu, energy, err.msg);
        gt_merge_free(&m);
        return;
    }
    assert_int_equal(st, GT_ERR_FORMAT);
    assert_null(m);
    if (!strstr(err.msg, "'range.csv'") || !strstr(err.msg, sample) || !strstr(err.msg, column))
        fail_msg("message '%s' lacks the file, '%s' or '%s'", err.msg, sample, column);
}

/* Numbers a tracker never writes are refused at the bounds plot has
 * (store/table.h), before they reach the grid's arithmetic: timestamps
 * beyond 1e11 s in magnitude or missing, figures below 0 or beyond 1e18,
 * infinite; the bounds themselves are accepted. */
static void test_out_of_range(void **state)
{
    (void)state;
    const double ts_max = GT_TABLE_MAX_ABS_TIMESTAMP, v_max = GT_TABLE_MAX_ABS_VALUE;
    expect_range(ts_max, 0, 1, 0, NAN, NULL, NULL);
    expect_range(-ts_max, 0, 1, 0, NAN, NULL, NULL);
    expect_range(ts_max - 1, 1, 1, 0, NAN, NULL, NULL);
    expect_range(ts_max, 0, 0, 0, NAN, NULL, NULL);
    expect_range(1000, 1, v_max, v_max, 1, NULL, NULL);
    expect_range(1000, 1, 1, 0, v_max, NULL, NULL);
    expect_range(1000, 1, -0.0, 0, NAN, NULL, NULL);
    expect_range(nextafter(ts_max, INFINITY), 0, 1, 0, NAN, "timestamp", "sample 1");
    expect_range(ts_max, 1, 1, 0, NAN, "timestamp", "sample 2");
    expect_range(-nextafter(ts_max, INFINITY), 0, 1, 0, NAN, "timestamp", "sample 1");
    expect_range(1e300, 1, 1, 0, NAN, "timestamp", "sample 1");
    expect_range(-9.2e18, 1, 1, 0, NAN, "timestamp", "sample 1");
    expect_range(NAN, 1, 1, 0, NAN, "timestamp", "sample 1");
    expect_range(1000, 1, -5, 0, NAN, "combined_ram", "sample 2");
    expect_range(1000, 1, -DBL_MIN, 0, NAN, "combined_ram", "sample 2");
    expect_range(1000, 1, nextafter(v_max, INFINITY), 0, NAN, "combined_ram", "sample 2");
    expect_range(1000, 1, INFINITY, 0, NAN, "combined_ram", "sample 2");
    expect_range(1000, 1, 1e308, 0, NAN, "combined_ram", "sample 2");
    expect_range(1000, 1, 1, -1, NAN, "cpu_combined_sum_utilization_percent", "sample 1");
    expect_range(1000, 1, 1, INFINITY, NAN, "cpu_combined_sum_utilization_percent", "sample 1");
    expect_range(1000, 1, 1, 0, 1e300, "cpu_energy_joules", "sample 2");
    expect_range(1000, 1, 1, 0, -INFINITY, "cpu_energy_joules", "sample 2");
}

/* The grid never spans more steps than it may allocate, however far apart
 * two files' clocks are, and its step is at least a millisecond. */
static void test_grid_bounds(void **state)
{
    (void)state;
    const double x[] = {1, 1};
    write_file("past.csv", "gigabytes", -GT_TABLE_MAX_ABS_TIMESTAMP, 1.0, x, 2, 0, 0, 0);
    write_file("future.csv", "gigabytes", GT_TABLE_MAX_ABS_TIMESTAMP - 1, 1.0, x, 2, 0, 0, 0);
    const char *const both[] = {"past.csv", "future.csv"};
    expect_error(both, 2, 1.0, GT_ERR_FORMAT, "steps");
    expect_error(both, 2, GT_MERGE_MIN_ALIGN, GT_ERR_FORMAT, "steps");
    expect_error(both, 2, nextafter(GT_MERGE_MIN_ALIGN, 0), GT_ERR_INVALID, "grid step");
    expect_error(both, 2, 1e-300, GT_ERR_INVALID, "grid step");
    expect_error(both, 2, INFINITY, GT_ERR_INVALID, "grid step");
    const char *const one[] = {"future.csv"};
    gt_merge *m = merge(one, 1, GT_MERGE_MIN_ALIGN);
    assert_near(m->peak[GT_MERGE_RAM], 1.0, 1e-12);
    gt_merge_free(&m);
    m = merge(both, 2, 1e10);
    assert_near(m->peak[GT_MERGE_RAM], 1.0, 1e-12);
    gt_merge_free(&m);
}

/* A side file (--per-process, --per-gpu) given as a tracking file: the
 * error says what it is and which file to give; its header alone tells,
 * with no rows and whatever its name. */
static void test_side_file(void **state)
{
    (void)state;
    tmpdir_write("t.processes.csv", "timestamp,pid,ppid,command,cpu_percent,total_rss,private_rss,shared_rss,"
                                    "ram_percent,n_threads,gpu0_ram,gpu0_sm_percent\n"
                                    "1000.5,10,1,python,,1.5,1,0.5,2.5,4,0.0,0.0\n");
    tmpdir_write("t.gpus.csv", "timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts\n");
    tmpdir_write("renamed.csv", "timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts\n");
    const char *const procs[] = {"t.processes.csv"};
    expect_error(procs, 1, 1.0, GT_ERR_FORMAT, "'t.processes.csv' is not a tracking file: it is the 'processes' "
                                               "table that --per-process writes beside tracking file 't.csv'");
    const char *const gpus[] = {"t.gpus.csv"};
    expect_error(gpus, 1, 1.0, GT_ERR_FORMAT, "--per-gpu writes beside tracking file 't.csv'");
    const char *const renamed[] = {"renamed.csv"};
    expect_error(renamed, 1, 1.0, GT_ERR_FORMAT, "--per-gpu writes beside a tracking file");
    /* a tracking file named like a side file is read as the tracking file it is */
    const double x[] = {1, 2};
    write_file("u.gpus.csv", "gigabytes", 1000.0, 1.0, x, 2, 0, 0, 0);
    const char *const named[] = {"u.gpus.csv"};
    gt_merge *m = merge(named, 1, 1.0);
    assert_near(m->peak[GT_MERGE_RAM], 2.0, 1e-12);
    gt_merge_free(&m);
    /* any other file keeps the reader's message */
    tmpdir_write("other.csv", "a,b\n1,2\n");
    const char *const other[] = {"other.csv"};
    expect_error(other, 1, 1.0, GT_ERR_FORMAT, "has no column 'ram_unit'");
}

/* A file whose tracker died before its first sample still counts as a
 * file, with nothing available. */
static void test_no_samples(void **state)
{
    (void)state;
    const double x[] = {1, 1};
    write_file("full.csv", "gigabytes", 6000.0, 1.0, x, 2, 0, 0, 0);
    write_file("empty.csv", "gigabytes", 6000.0, 1.0, x, 0, 0, 0, 0);
    const char *const paths[] = {"empty.csv", "full.csv"};
    gt_merge *m = merge(paths, 2, 1.0);
    assert_int_equal(m->parts[0].samples, 0);
    assert_true(isnan(m->parts[0].max[GT_MERGE_RAM]));
    assert_near(m->peak[GT_MERGE_RAM], 1.0, 1e-12);
    assert_int_equal(m->largest, 1);
    gt_merge_free(&m);
}

/* A file with the request columns: one with SLURM_MEM_PER_NODE and
 * SLURM_CPUS_ON_NODE, one whose memory is malformed ("12X": unknown, so its
 * machine's 64 GB stand in, said so) and one without the columns.  The
 * job's start and end times (Unix seconds) give its time limit. */
static void write_request_file(const char *path, const char *host, const char *mem, const char *cpus,
                               const char *start, const char *end)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*s,host,slurm_job_id,slurm_step_id,slurm_task_id,slurm_mem_per_node,slurm_mem_per_cpu,"
               "slurm_cpus_on_node,slurm_gpus_on_node,slurm_job_gpus,slurm_cpus_per_task,slurm_job_num_nodes,"
               "slurm_job_start_time,slurm_job_end_time\n",
            (int)strlen(static_header) - 1, static_header);
    fprintf(f, "megabytes,gigabytes,hours,64000.0,0.0,8,8,0,0,%s,77,0,0,%s,,%s,,,1,2,%s,%s\n", host, mem, cpus, start,
            end);
    fprintf(f, "%s\n", data_header);
    /* 2 samples 1 s apart, 100 MB, 50 % CPU: 0.5 CPU seconds over 1 s. */
    for (int i = 0; i < 2; i++)
        fprintf(f, "100,0,100,1,0,0,0,0,0,0,1,0,1,0,0,50,0,0,0,50,0,%d\n", 1000 + i);
    assert_int_equal(fclose(f), 0);
}

static void test_efficiency(void **state)
{
    (void)state;
    write_request_file("r1.csv", "n1", "1024", "2", "1700000000", "1700000001");
    write_request_file("r2.csv", "n2", "12X", "4", "", "");
    const char *const paths[] = {"r1.csv", "r2.csv"};
    gt_merge *m = merge(paths, 2, 1.0);
    assert_int_equal(m->with_request, 2);
    gt_efficiency e;
    gt_merge_node_efficiency(m, 0, &e);
    assert_string_equal(e.req.mem_source, "SLURM_MEM_PER_NODE");
    assert_near(e.req.mem_bytes, 1073741824.0, 0);
    assert_near(e.use.mem_peak_bytes, 100e6, 0);
    assert_int_equal(e.use.mem_is_bound, 1);
    assert_near(e.mem_percent, 100 * 100e6 / 1073741824.0, 1e-9);
    assert_near(e.cpu_percent, 100 * 0.5 / (2 * 1.0), 1e-9);
    assert_string_equal(e.advised_mem, "--mem=128M");
    assert_string_equal(e.advice_cores, ""); /* sampled CPU time: a bound */
    assert_int_equal(e.req.cpus_per_task, 1);
    assert_int_equal(e.req.nodes, 2);
    /* its 1 s of samples took the whole 1 s limit */
    assert_near(e.req.time_limit_s, 1, 0);
    assert_string_equal(e.req.time_source, "SLURM_JOB_END_TIME - SLURM_JOB_START_TIME");
    assert_non_null(strstr(e.advice_time, "ran 1 s of a 1 s time limit"));
    gt_merge_node_efficiency(m, 1, &e);
    assert_true(e.req.time_limit_s < 0);
    assert_string_equal(e.advice_time, "");
    assert_string_equal(e.req.mem_source, "machine capacity");
    assert_near(e.req.mem_bytes, 64e9, 0);
    assert_near(e.req.cores, 4, 0);
    assert_near(gt_merge_cpu_efficiency(m), 100 * 1.0 / (2 * 1.0 + 4 * 1.0), 1e-9);
    gt_merge_free(&m);
    /* Files without the columns record no request. */
    const double ram[] = {1, 1};
    write_file("plain.csv", "gigabytes", 1000.0, 1.0, ram, 2, 100, 0, 0);
    const char *const plain[] = {"plain.csv"};
    m = merge(plain, 1, 1.0);
    assert_int_equal(m->with_request, 0);
    gt_merge_free(&m);
}

/* A task's tracking file on host with n_gpus GPUs tracked (n_expected_gpus)
 * and Slurm's SLURM_GPUS_ON_NODE=2 with 4 GiB and 2 cores: 2 samples 1 s
 * apart, GPU RAM in gigabytes. */
static void write_gpu_task(const char *path, const char *host, const char *task, int n_gpus)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*s,host,slurm_job_id,slurm_step_id,slurm_task_id,slurm_mem_per_node,slurm_cpus_on_node,"
               "slurm_gpus_on_node\n",
            (int)strlen(static_header) - 1, static_header);
    fprintf(f, "megabytes,gigabytes,hours,64000.0,32.0,8,8,2,%d,%s,77,0,%s,4096,2,2\n", n_gpus, host, task);
    fprintf(f, "%s\n", data_header);
    for (int i = 0; i < 2; i++)
        fprintf(f, "100,0,100,1,0,0,0,0,0,0,1,0,1,0,0,50,0,0,0,50,0,%d\n", 1000 + i);
    assert_int_equal(fclose(f), 0);
}

/* Each GPU of a node from its tasks' per-GPU rows: tasks 0 and 1 of n1
 * share GPU 0 (one GPU, its four rows pooled: mean 85 %, peak 12 GB of
 * 16 GB), task 0 alone also sees GPU 1, idle (1 %), which the advice names;
 * a GPU known by its index alone (no UUID) in a table of the older layout
 * (no total_gpu_ram) has its capacity unknown, never 0.  Node n2 tracked
 * GPUs without --per-gpu: the report says the figures need it. */
static void test_gpus(void **state)
{
    (void)state;
    write_gpu_task("a.csv", "n1", "0", 2);
    tmpdir_write("a.gpus.csv", "timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts,total_gpu_ram\n"
                               "1000,0,GPU-A,8.0,90.0,50.0,16.0\n"
                               "1000,1,GPU-B,1.0,0.0,,16.0\n"
                               "1001,0,GPU-A,10.0,70.0,50.0,16.0\n"
                               "1001,1,GPU-B,1.0,2.0,,16.0\n");
    write_gpu_task("b.csv", "n1", "1", 1);
    tmpdir_write("b.gpus.csv", "timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts,total_gpu_ram\n"
                               "1000.5,0,GPU-A,9.0,80.0,,16.0\n"
                               "1001.5,0,GPU-A,12.0,100.0,,16.0\n");
    write_gpu_task("c.csv", "n2", "2", 1);
    write_gpu_task("d.csv", "n3", "3", 1);
    tmpdir_write("d.gpus.csv", "timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts\n"
                               "1000,3,,2.0,,\n"
                               "1001,3,,3.0,40.0,\n");
    const char *const paths[] = {"a.csv", "b.csv", "c.csv", "d.csv"};
    gt_merge *m = merge(paths, 4, 1.0);
    assert_int_equal(m->nnodes, 3);
    const gt_merge_node *n1 = &m->nodes[0];
    assert_int_equal(n1->ngpus, 2);
    assert_int_equal(n1->files_with_gpus, 2);
    assert_int_equal(n1->files_with_gpu_table, 2);
    assert_int_equal(n1->gpus[0].files, 2);
    assert_int_equal(n1->gpus[1].files, 1);
    gt_efficiency e;
    gt_merge_node_efficiency(m, 0, &e);
    assert_int_equal(e.use.n_devices, 2);
    assert_int_equal(e.use.devices[0].index, 0);
    assert_string_equal(e.use.devices[0].uuid, "GPU-A");
    assert_near(e.use.devices[0].mean_percent, (90 + 70 + 80 + 100) / 4.0, 1e-12);
    assert_near(e.use.devices[0].mem_peak_bytes, 12e9, 0);
    assert_near(e.use.devices[0].mem_capacity_bytes, 16e9, 0);
    assert_near(e.device_mem_percent[0], 75, 1e-12);
    assert_string_equal(e.use.devices[1].uuid, "GPU-B");
    assert_near(e.use.devices[1].mean_percent, 1, 1e-12);
    assert_near(e.use.devices[1].mem_peak_bytes, 1e9, 0);
    assert_string_equal(e.advice_gpus, "1 of the 2 GPUs (SLURM_GPUS_ON_NODE) stayed idle or nearly (mean utilization "
                                       "below 5 %): GPU 1 (GPU-B) 1.0 %, memory peak 6.2 % of capacity; ask for 1 "
                                       "GPU next time");
    char note[256];
    assert_null(gt_merge_node_gpu_note(m, 0, note, sizeof note));
    /* n2: GPUs tracked, no per-GPU rows */
    gt_merge_node_efficiency(m, 1, &e);
    assert_int_equal(e.use.n_devices, 0);
    assert_string_equal(e.advice_gpus, "");
    assert_non_null(gt_merge_node_gpu_note(m, 1, note, sizeof note));
    assert_non_null(strstr(note, "need --per-gpu"));
    /* n3: the older table, a GPU without UUID */
    gt_merge_node_efficiency(m, 2, &e);
    assert_int_equal(e.use.n_devices, 1);
    assert_int_equal(e.use.devices[0].index, 3);
    assert_near(e.use.devices[0].mean_percent, 40, 1e-12);
    assert_near(e.use.devices[0].mem_peak_bytes, 3e9, 0);
    assert_true(e.use.devices[0].mem_capacity_bytes < 0);
    assert_true(e.device_mem_percent[0] < 0);
    char *text = report(m, GT_FORMAT_TEXT);
    assert_non_null(strstr(text, "      GPUs: 2 (from the per-GPU rows of 2 files; mean utilization: the mean over"));
    assert_non_null(strstr(text, "      GPU 0 (GPU-A): utilization [||||||||||||||||||||||||||||||||||       85%] "
                                 "85.000 %, memory peak 11.2 GiB of 14.9 GiB [||||||||||||||||||||||||||||||           "
                                 "75%] 75.000 %\n"));
    assert_non_null(strstr(text, "      Advice (gpus): 1 of the 2 GPUs"));
    assert_non_null(strstr(text, "      GPU figures: its files tracked GPUs but hold no per-GPU rows: each GPU's "
                                 "figures need --per-gpu\n"));
    assert_non_null(strstr(text, "      GPU 3: utilization [||||||||||||||||                         40%] 40.000 %, "
                                 "memory peak 2.8 GiB, capacity unknown\n"));
    free(text);
    char *json = report(m, GT_FORMAT_JSON);
    assert_non_null(strstr(json, "\"files_with_per_gpu_rows\":\t2"));
    assert_non_null(strstr(json, "\"uuid\":\t\"GPU-A\",\n"));
    assert_non_null(strstr(json, "\"mean_utilization_percent\":\t85,"));
    assert_non_null(strstr(json, "\"memory_capacity_bytes\":\t16000000000,"));
    assert_non_null(strstr(json, "\"memory_capacity_bytes\":\tnull,"));
    assert_non_null(strstr(json, "\"note\":\t\"its files tracked GPUs but hold no per-GPU rows"));
    free(json);
    gt_merge_free(&m);
    /* A node that tracked no GPU: "gpu" is null. */
    write_gpu_task("z.csv", "n9", "0", 0);
    const char *const none[] = {"z.csv"};
    m = merge(none, 1, 1.0);
    json = report(m, GT_FORMAT_JSON);
    assert_non_null(strstr(json, "\"gpu\":\tnull"));
    free(json);
    gt_merge_free(&m);
}

/* A node where one task has per-GPU rows and another tracked GPUs without
 * them: the GPUs of the first are given, and the note says how many files
 * lack rows (the GPUs only they saw are missing). */
static void test_gpus_partial(void **state)
{
    (void)state;
    write_gpu_task("p0.csv", "n1", "0", 1);
    tmpdir_write("p0.gpus.csv", "timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts,total_gpu_ram\n"
                                "1000,0,GPU-A,8.0,90.0,,16.0\n");
    write_gpu_task("p1.csv", "n1", "1", 1);
    const char *const paths[] = {"p0.csv", "p1.csv"};
    gt_merge *m = merge(paths, 2, 1.0);
    gt_efficiency e;
    gt_merge_node_efficiency(m, 0, &e);
    assert_int_equal(e.use.n_devices, 1);
    char note[256];
    assert_non_null(gt_merge_node_gpu_note(m, 0, note, sizeof note));
    assert_string_equal(note, "1 of its 2 files that tracked GPUs hold no per-GPU rows: the GPUs only they saw are "
                              "missing; each GPU's figures need --per-gpu");
    gt_merge_free(&m);
}

/* A per-GPU table that is malformed is an error naming it, never figures. */
static void test_gpus_malformed(void **state)
{
    (void)state;
    write_gpu_task("bad.csv", "n1", "0", 1);
    tmpdir_write("bad.gpus.csv", "timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts\n"
                                 "1000,0,GPU-A,-1.0,10.0,\n");
    const char *const paths[] = {"bad.csv"};
    expect_error(paths, 1, 1.0, GT_ERR_FORMAT, "bad.gpus.csv");
}

/* A JSON report's number at a path of object keys (NULL-terminated);
 * NaN for null, and a failure where the path is missing. */
static double json_at(const cJSON *root, const char *const *path)
{
    const cJSON *o = root;
    for (; *path; path++)
        if (!(o = cJSON_GetObjectItemCaseSensitive(o, *path)))
            fail_msg("no %s in the JSON report", *path);
    if (cJSON_IsNull(o))
        return NAN;
    assert_true(cJSON_IsNumber(o));
    return o->valuedouble;
}

/* The metric table's own rows from the files: per node, the totals are the
 * sum of its files' last values (tasks a and b of n1 differ threefold, so
 * a max or one file's instead of the sum fails), the job's the sum of its
 * nodes'; the rate the mean over the span of the sum across files.  Every
 * figure in the JSON report (job.other_metrics, nodes[].other_metrics,
 * keyed as the run's report) and in the text's Other metrics section,
 * after the files and before Efficiency. */
static void test_own_rows(void **state)
{
    (void)state;
    const double ram[] = {1, 1, 1, 1, 1};
    file_host = "n1", file_task = "0";
    file_disk_r = 250, file_disk_w = 100;
    write_file("d-n1-0.csv", "gigabytes", 1000.0, 1.0, ram, 5, 10, 0, 0);
    file_task = "1";
    file_disk_r = 750, file_disk_w = 300;
    write_file("d-n1-1.csv", "gigabytes", 1000.0, 1.0, ram, 5, 10, 0, 0);
    file_host = "n2", file_task = "2";
    file_disk_r = 250, file_disk_w = 50;
    write_file("d-n2-2.csv", "gigabytes", 1002.0, 1.0, ram, 3, 10, 0, 0);
    file_host = file_task = NULL;
    file_disk_r = file_disk_w = 0;
    const char *const paths[] = {"d-n1-0.csv", "d-n1-1.csv", "d-n2-2.csv"};
    gt_merge *m = merge(paths, 3, 1.0);
    char *json = report(m, GT_FORMAT_JSON), *text = report(m, GT_FORMAT_TEXT);
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    const cJSON *n1 = cJSON_GetArrayItem(nodes, 0), *n2 = cJSON_GetArrayItem(nodes, 1);
    assert_non_null(n2);
    /* n1: 4 s at 250 and at 750 bytes/s read: 1000 + 3000; n2: 2 s at 250 */
    assert_near(json_at(n1, (const char *[]){"other_metrics", "disk_read", "combined", NULL}), 4000, 1e-9);
    assert_near(json_at(n1, (const char *[]){"other_metrics", "disk_read", "main", NULL}), 4000, 1e-9);
    assert_near(json_at(n1, (const char *[]){"other_metrics", "disk_read", "descendants", NULL}), 0, 1e-9);
    assert_near(json_at(n2, (const char *[]){"other_metrics", "disk_read", "combined", NULL}), 500, 1e-9);
    assert_near(json_at(root, (const char *[]){"job", "other_metrics", "disk_read", "combined", NULL}), 4500, 1e-9);
    /* written: each set 4 s at 100 and 300, 2 s at 50; combined twice that */
    assert_near(json_at(n1, (const char *[]){"other_metrics", "disk_write", "descendants", NULL}), 1600, 1e-9);
    assert_near(json_at(root, (const char *[]){"job", "other_metrics", "disk_write", "main", NULL}), 1700, 1e-9);
    assert_near(json_at(root, (const char *[]){"job", "other_metrics", "disk_write", "combined", NULL}), 3400,
                1e-9);
    /* The rate: n1 reads 250 + 750 bytes/s over its 4 s; n2 250 over 2 s;
     * the job 4500 bytes over its 4 s. */
    assert_near(json_at(n1, (const char *[]){"other_metrics", "disk_rate", "read", NULL}), 1000, 1e-9);
    assert_near(json_at(n2, (const char *[]){"other_metrics", "disk_rate", "read", NULL}), 250, 1e-9);
    assert_near(json_at(root, (const char *[]){"job", "other_metrics", "disk_rate", "read", NULL}), 1125, 1e-9);
    assert_near(json_at(root, (const char *[]){"job", "other_metrics", "disk_rate", "written", NULL}), 850, 1e-9);
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
                                             cJSON_GetObjectItemCaseSensitive(root, "job"), "other_metrics"),
                                         "disk_rate"),
        "unit");
    assert_string_equal(cJSON_GetStringValue(unit), "bytes per second");
    /* The text: the section after the files, a table per row. */
    const char *files = strstr(text, "Files by node"), *own = strstr(text, "Other metrics (");
    assert_non_null(own);
    assert_true(files && files < own);
    assert_non_null(strstr(own, "   Disk read (bytes)\n      name                 "));
    /* each figure in a column of its own, labelled by the table */
    assert_non_null(strstr(own, "Main      Descendants         Combined\n"));
    assert_non_null(strstr(own, "\n      job                              4500.000            0.000         4500.000\n"));
    assert_non_null(strstr(own, "\n      n1                               4000.000            0.000         4000.000\n"));
    assert_non_null(strstr(own, "\n      n2                                500.000            0.000          500.000\n"));
    assert_non_null(strstr(own, "   Disk I/O rate (bytes per second)\n"));
    cJSON_Delete(root);
    free(json);
    free(text);
    gt_merge_free(&m);
}

/* A file written before the rows existed lacks their columns: its node's
 * figures and the job's are unknown (null, n/a), never the other files'
 * sum; a node whose files all have them still has its own.  A file with
 * none of them in any node leaves the section out. */
static void test_own_rows_missing(void **state)
{
    (void)state;
    const double ram[] = {1, 1, 1};
    file_host = "n1", file_task = "0";
    file_disk_r = 250, file_disk_w = 100;
    write_file("o-n1-0.csv", "gigabytes", 1000.0, 1.0, ram, 3, 10, 0, 0);
    file_host = "n2";
    write_file("o-n2-0.csv", "gigabytes", 1000.0, 1.0, ram, 3, 10, 0, 0);
    file_disk_r = file_disk_w = 0;
    file_task = "1";
    write_file("o-n2-1.csv", "gigabytes", 1000.0, 1.0, ram, 3, 10, 0, 0);
    file_host = file_task = NULL;
    const char *const paths[] = {"o-n1-0.csv", "o-n2-0.csv", "o-n2-1.csv"};
    gt_merge *m = merge(paths, 3, 1.0);
    char *json = report(m, GT_FORMAT_JSON), *text = report(m, GT_FORMAT_TEXT);
    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    assert_near(json_at(cJSON_GetArrayItem(nodes, 0), (const char *[]){"other_metrics", "disk_read", "combined",
                                                                       NULL}),
                500, 1e-9);
    assert_true(isnan(json_at(cJSON_GetArrayItem(nodes, 1),
                              (const char *[]){"other_metrics", "disk_read", "combined", NULL})));
    assert_true(isnan(json_at(root, (const char *[]){"job", "other_metrics", "disk_read", "combined", NULL})));
    assert_true(isnan(json_at(root, (const char *[]){"job", "other_metrics", "disk_rate", "read", NULL})));
    assert_non_null(strstr(text, "\n      job                                   n/a"));
    cJSON_Delete(root);
    free(json);
    free(text);
    gt_merge_free(&m);
    /* Only files without the columns: no section. */
    const char *const old[] = {"o-n2-1.csv"};
    m = merge(old, 1, 1.0);
    json = report(m, GT_FORMAT_JSON);
    text = report(m, GT_FORMAT_TEXT);
    assert_null(strstr(json, "other_metrics"));
    assert_null(strstr(text, "Other metrics"));
    free(json);
    free(text);
    gt_merge_free(&m);
}

/* A negative byte count is no tracker's: refused with the file, sample and
 * column, as the other figures are. */
static void test_own_rows_out_of_range(void **state)
{
    (void)state;
    file_disk_r = -5, file_disk_w = 1;
    write_file("neg.csv", "gigabytes", 1000.0, 1.0, (const double[]){1, 1}, 2, 10, 0, 0);
    file_disk_r = file_disk_w = 0;
    const char *const paths[] = {"neg.csv"};
    expect_error(paths, 1, 1.0, GT_ERR_FORMAT, "main_disk_read_bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peak_is_max_of_sums),
        cmocka_unit_test(test_cpu_seconds_first_figure),
        cmocka_unit_test(test_held_between_samples), cmocka_unit_test(test_held_into_the_step),
        cmocka_unit_test(test_disjoint_in_time),    cmocka_unit_test(test_json),
        cmocka_unit_test(test_names_not_utf8),
        cmocka_unit_test(test_errors),              cmocka_unit_test(test_no_samples),
        cmocka_unit_test(test_nodes),              cmocka_unit_test(test_hostless_named_as_host),
        cmocka_unit_test(test_out_of_range),       cmocka_unit_test(test_grid_bounds),
        cmocka_unit_test(test_side_file),           cmocka_unit_test(test_efficiency),
        cmocka_unit_test(test_gpus),                cmocka_unit_test(test_gpus_malformed),
        cmocka_unit_test(test_gpus_partial),
        cmocka_unit_test(test_own_rows),            cmocka_unit_test(test_own_rows_missing),
        cmocka_unit_test(test_own_rows_out_of_range),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
