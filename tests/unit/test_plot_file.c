/* SPDX-License-Identifier: MIT */
/* gt_plot_write: a tracking file and a sub-tracking file on disk to a page,
 * with the marks paired leniently and the output written whole or not at
 * all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "tmpdir.h"

/* Plot options with a sub-tracking file (in static storage: one at a time). */
static const gt_plot_options *marks(const char *sub_tracking_file)
{
    static gt_plot_options o;
    o = (gt_plot_options)GT_PLOT_OPTIONS_INIT;
    o.sub_tracking_file = sub_tracking_file;
    return &o;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static const char tracking[] =
    "ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,gpu_ram_system_capacity,system_core_count,"
    "n_expected_cores,system_gpu_count,n_expected_gpus\n"
    "megabytes,gigabytes,seconds,16000.0,0.0,4,4,0,0\n"
    "main_ram,descendants_ram,combined_ram,system_ram,main_gpu_ram,descendants_gpu_ram,combined_gpu_ram,"
    "system_gpu_ram,gpu_sum_utilization_percent,gpu_hardware_utilization_percent,main_n_threads,"
    "descendants_n_threads,combined_n_threads,cpu_system_sum_utilization_percent,"
    "cpu_system_hardware_utilization_percent,cpu_main_sum_utilization_percent,"
    "cpu_main_hardware_utilization_percent,cpu_descendants_sum_utilization_percent,"
    "cpu_descendants_hardware_utilization_percent,cpu_combined_sum_utilization_percent,"
    "cpu_combined_hardware_utilization_percent,timestamp\n"
    "10.0,0.0,10.0,5000.0,0.0,0.0,0.0,0.0,0.0,0.0,1,0,1,,,,,,,,,1000.0\n"
    "2500.0,0.0,2500.0,7500.0,0.0,0.0,0.0,0.0,0.0,0.0,1,0,1,50.0,12.5,99.0,24.75,0.0,0.0,99.0,24.75,1010.0\n"
    "20.0,0.0,20.0,5000.0,0.0,0.0,0.0,0.0,0.0,0.0,1,0,1,40.0,10.0,1.0,0.25,0.0,0.0,1.0,0.25,1020.0\n";

static void test_write(void **state)
{
    (void)state;
    tmpdir_write("t.csv", tracking);
    /* load: paired; train: two processes at once, marks out of file order;
     * open: a start without a stop runs to the last sample. */
    tmpdir_write("m.csv", "process_id,code_block_name,position,timestamp\n"
                          "7,load,0,1001.0\n7,load,1,1003.0\n"
                          "7,train,1,1009.0\n8,train,0,1005.0\n8,train,1,1008.0\n7,train,0,1004.0\n"
                          "9,open,0,1015.0\n");
    gt_error e;
    assert_int_equal(gt_plot_write("t.csv", "p.html", marks("m.csv"), &e), GT_OK);
    const char *h = slurp("p.html");
    assert_non_null(strstr(h, "3 samples over 20.000 s"));
    /* The file's megabytes reach the axis as bytes: 2500 MB is 2.50 GB. */
    assert_non_null(strstr(h, ">main (max 2.50 GB)<"));
    assert_non_null(strstr(h, ">main (max 99.0 %)<"));
    assert_non_null(strstr(h, "load: 1 call, 1.000 s to 3.000 s after start"));
    assert_non_null(strstr(h, "train: 2 calls, 4.000 s to 9.000 s after start"));
    assert_non_null(strstr(h, "open: 1 call, 15.000 s to 20.000 s after start"));
    assert_non_null(strstr(h, ">no GPU tracked<"));
    /* The Python package's layout has no disk columns: no chart for them. */
    assert_null(strstr(h, "Disk"));
    struct stat st;
    assert_int_equal(stat("p.html", &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* as any file under umask 022, not mkstemp's 0600 */

    assert_int_equal(gt_plot_write("t.csv", "p.svg", NULL, &e), GT_OK);
    assert_int_equal(strncmp(slurp("p.svg"), "<?xml", 5), 0);
}

/* gpu-tracker's own columns (the metric table's plot groups): one chart per
 * group, the disk totals in bytes, the rate per second, an empty cell a gap. */
static void test_own_charts(void **state)
{
    (void)state;
    char *t = malloc(sizeof tracking + 1024);
    assert_non_null(t);
    const char *cols = ",main_disk_read_bytes,descendants_disk_read_bytes,combined_disk_read_bytes,"
                       "main_disk_write_bytes,descendants_disk_write_bytes,combined_disk_write_bytes,"
                       "combined_disk_read_bytes_per_second,combined_disk_write_bytes_per_second";
    const char *cells[] = {",0,0,0,0,0,0,,", ",0,0,0,2000000,,,0.0,200000.0", ",0,0,0,3000000,0,3000000,0.0,100000.0"};
    /* The tracking text's lines, with the disk cells after each line's
     * timestamp (the last cell). */
    const char *line = tracking;
    size_t len = 0;
    for (int i = 0; *line; i++) {
        const char *nl = strchr(line, '\n');
        memcpy(t + len, line, (size_t)(nl - line));
        len += (size_t)(nl - line);
        const char *add = i == 2 ? cols : i > 2 ? cells[i - 3] : "";
        memcpy(t + len, add, strlen(add));
        len += strlen(add);
        t[len++] = '\n';
        line = nl + 1;
    }
    t[len] = '\0';
    tmpdir_write("d.csv", t);
    free(t);
    gt_error e;
    assert_int_equal(gt_plot_write("d.csv", "d.html", NULL, &e), GT_OK);
    const char *h = slurp("d.html");
    assert_non_null(strstr(h, ">Disk read<"));
    assert_non_null(strstr(h, ">Disk written<"));
    assert_non_null(strstr(h, ">Disk I/O rate<"));
    assert_non_null(strstr(h, ">main (max 3.00 MB)<"));
    assert_non_null(strstr(h, ">written (max 200 kB)<"));
    assert_non_null(strstr(h, ">read (max 0 kB)<"));
}

static void test_errors(void **state)
{
    (void)state;
    tmpdir_write("t.csv", tracking);
    gt_error e;
    assert_int_equal(gt_plot_write("t.csv", "p.png", NULL, &e), GT_ERR_INVALID);
    assert_non_null(strstr(e.msg, ".html or .svg"));
    assert_int_equal(gt_plot_write("missing.csv", "q.html", NULL, &e), GT_ERR_IO);
    assert_non_null(strstr(e.msg, "missing.csv"));
    tmpdir_write("bad.csv", "process_id,code_block_name,position,timestamp\n7,x,2,1001.0\n");
    assert_int_equal(gt_plot_write("t.csv", "q.html", marks("bad.csv"), &e), GT_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "neither 0 (start) nor 1 (stop)"));
    /* Calls are the analysis's: a stop alone is refused by both alike. */
    tmpdir_write("stray.csv", "process_id,code_block_name,position,timestamp\n7,stray,1,1002.0\n");
    assert_int_equal(gt_plot_write("t.csv", "q.html", marks("stray.csv"), &e), GT_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "'stray': the stop at 1002.0 of process ID 7 has no partner"));
    /* Nothing is left behind by a failed plot, not even a temporary file. */
    assert_int_equal(access("q.html", F_OK), -1);
    assert_int_equal(system("ls | grep -q '\\.tmp\\.'"), 256);
    assert_int_equal(gt_plot_write("t.csv", "no-such-dir/p.html", NULL, &e), GT_ERR_IO);
    assert_non_null(strstr(e.msg, "no-such-dir/p.html"));
}

/* tracking with the last sample's text old replaced by new. */
static void write_changed(const char *path, const char *old, const char *new)
{
    char buf[sizeof tracking + 64];
    const char *at = strstr(tracking, old);
    assert_non_null(at);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - tracking), tracking, new, at + strlen(old));
    tmpdir_write(path, buf);
}

/* Times and figures no chart can place are refused with the sample named,
 * rather than drawn as NaN coordinates into a blank chart. */
static void test_numbers_out_of_range(void **state)
{
    (void)state;
    static const char *const times[] = {"nan", "inf", "-inf", "1e300", ""};
    gt_error e;
    for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
        char cell[32];
        snprintf(cell, sizeof cell, ",%s\n", times[i]); /* "": no timestamp */
        write_changed("h.csv", ",1020.0\n", cell);
        assert_int_equal(gt_plot_write("h.csv", "h.svg", NULL, &e), GT_ERR_FORMAT);
        assert_non_null(strstr(e.msg, "'h.csv', sample 3: "));
        assert_non_null(strstr(e.msg, "timestamp"));
    }
    write_changed("h.csv", "20.0,0.0,20.0,5000.0", "1e308,0.0,20.0,5000.0");
    assert_int_equal(gt_plot_write("h.csv", "h.svg", NULL, &e), GT_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "sample 3: main_ram 1e+308 is out of range"));
    assert_int_equal(access("h.svg", F_OK), -1);
}

int main(void)
{
    umask(022);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_own_charts),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_numbers_out_of_range),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
