/* SPDX-License-Identifier: MIT */
/* The metric table's own rows in the exposition: a family per row with a
 * Prometheus name (help and name from the table), a counter where the row
 * aggregates a running total, a series per column labelled set= its
 * label, NaN where unread, the job's labels before it under Slurm; none
 * without the rows' values (a program's own gt_metrics_update) and none
 * for a row without a name (the disk rate). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metric/fold.h"
#include "metrics/exposition.h"
#include "own_column.h"

static char buf[1 << 16];

static void format(const double *values, int om)
{
    gt_timepoint tp;
    memset(&tp, 0, sizeof tp);
    tp.n_samples = 3;
    size_t n = gt_exposition_format(&tp, values, om, buf, sizeof buf);
    assert_true(n < sizeof buf);
}

static void expect(const char *text)
{
    if (!strstr(buf, text))
        fail_msg("no\n%s\nin\n%s", text, buf);
}

static void test_own_rows(void **state)
{
    (void)state;
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_STEP_ID");
    unsetenv("SLURMD_NODENAME");
    double v[GT_METRIC_NOWN_COLUMNS];
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++)
        v[k] = 7;
    v[own("main_disk_read_bytes")] = 1048576;
    v[own("descendants_disk_read_bytes")] = 0;
    v[own("combined_disk_read_bytes")] = NAN;
    format(v, 0);
    expect("# HELP gpu_tracker_disk_read_bytes_total Bytes the tracked processes read from storage.\n"
           "# TYPE gpu_tracker_disk_read_bytes_total counter\n"
           "gpu_tracker_disk_read_bytes_total{set=\"main\"} 1048576\n"
           "gpu_tracker_disk_read_bytes_total{set=\"descendants\"} 0\n"
           "gpu_tracker_disk_read_bytes_total{set=\"combined\"} NaN\n"
           "# HELP gpu_tracker_disk_write_bytes_total ");
    expect("gpu_tracker_disk_write_bytes_total{set=\"combined\"} 7\n");
    assert_null(strstr(buf, "per_second"));
    /* Before the families every scrape ends with. */
    assert_true(strstr(buf, "disk_read_bytes_total") < strstr(buf, "gpu_tracker_elapsed_seconds"));

    format(v, 1);
    expect("# HELP gpu_tracker_disk_read_bytes Bytes the tracked processes read from storage.\n"
           "# TYPE gpu_tracker_disk_read_bytes counter\n"
           "# UNIT gpu_tracker_disk_read_bytes bytes\n"
           "gpu_tracker_disk_read_bytes_total{set=\"main\"} 1048576\n");

    setenv("SLURM_JOB_ID", "4242", 1);
    format(v, 0);
    expect("\ngpu_tracker_disk_write_bytes_total{job=\"4242\",set=\"main\"} 7\n");
    unsetenv("SLURM_JOB_ID");

    format(NULL, 0);
    assert_null(strstr(buf, "disk"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_own_rows)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
