/* SPDX-License-Identifier: MIT */
/* The report's top processes (--per-process) over a fake /proc tree: ties
 * ranked by PID with more equal processes than places, and which processes
 * count with all their CPU time (started since tracking began, to the clock
 * tick) and which from their first sample on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perproc/perproc.h"
#include "sampler/sampler.h"
#include "unit/fakeproc.h"

/* A process with utime ticks of CPU, started at starttime ticks after
 * boot, priv kB of private memory, and the children in list. */
static void put_proc(int pid, int ppid, unsigned long long utime, unsigned long long starttime, unsigned priv,
                     const char *list)
{
    char rel[64], text[1024];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (p%d) S %d %d %d 0 -1 4194304 10 0 0 0 %llu 0 0 0 20 0 1 0 %llu 1000000 250\n", pid, pid,
             ppid, pid, pid, utime, starttime);
    put(rel, text);
    snprintf(rel, sizeof rel, "%d/smaps_rollup", pid);
    snprintf(text, sizeof text,
             "00400000-7fff0000 ---p 00000000 00:00 0 [rollup]\nRss: %u kB\nPss: %u kB\n"
             "Shared_Clean: 0 kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\nPrivate_Dirty: %u kB\n",
             priv, priv, priv);
    put(rel, text);
    snprintf(rel, sizeof rel, "%d/status", pid);
    snprintf(text, sizeof text, "Name:\tp\nVmHWM:\t%u kB\nVmRSS:\t%u kB\n", priv, priv);
    put(rel, text);
    snprintf(rel, sizeof rel, "%d/task/%d/children", pid, pid);
    put(rel, list);
}

static int setup(void **state)
{
    (void)state;
    fakeproc_new(1, 1);
    copy_fixture("meminfo", "meminfo");
    copy_fixture("proc_stat", "stat");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fakeproc_drop("");
    return 0;
}

static gt_perproc *top_only(void)
{
    gt_perproc_config pc = {.per_process = 1, .ram_unit = GT_RAM_UNIT_KILOBYTES, .gpu_ram_unit = GT_RAM_UNIT_KILOBYTES};
    gt_perproc *p = NULL;
    gt_error err;
    assert_int_equal(gt_perproc_open(&pc, &p, &err), GT_OK);
    return p;
}

static void close_top(gt_perproc **p)
{
    gt_error err;
    assert_int_equal(gt_perproc_close(p, &err), GT_OK);
}

/* One sample of the tree under main into p; the top processes into u. */
static void sample(gt_perproc *p, int main_pid, gt_usage *u)
{
    gt_sampler_config c = {.main_pid = main_pid, .proc_root = root};
    gt_sampler *s = NULL;
    gt_error err;
    assert_int_equal(gt_sampler_new(&c, &s, &err), GT_OK);
    gt_sample a;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(gt_perproc_sample(p, &a, &err), GT_OK);
    gt_perproc_top(p, u);
    gt_sampler_free(&s);
}

/* Seven children as large as each other (more than the five places): the
 * lowest PIDs rank first, in order, whatever order the tree lists them. */
static void test_ties_by_pid(void **state)
{
    (void)state;
    put_proc(1000, 1, 0, 100, 4000, "2006 2002 2007 2001 2004 2003 2005 ");
    for (int pid = 2001; pid <= 2007; pid++)
        put_proc(pid, 1000, 0, 100, 1000, "");
    gt_perproc *p = top_only();
    gt_usage u = GT_USAGE_INIT;
    sample(p, 1000, &u);
    assert_int_equal(u.top_processes.available, 1);
    assert_int_equal(u.top_processes.n, GT_TOP_PROCESSES);
    static const pid_t by_ram[GT_TOP_PROCESSES] = {1000, 2001, 2002, 2003, 2004};
    for (int i = 0; i < GT_TOP_PROCESSES; i++) {
        assert_int_equal(u.top_processes.by_peak_ram[i].pid, by_ram[i]);
        /* All started before tracking: no CPU time of theirs counted yet. */
        assert_true(u.top_processes.by_cpu_seconds[i].cpu_seconds == 0.0);
        assert_int_equal(u.top_processes.by_cpu_seconds[i].pid, by_ram[i]);
    }
    close_top(&p);
}

static double boot_ticks(double hz)
{
    struct timespec t;
    clock_gettime(CLOCK_BOOTTIME, &t);
    return ((double)t.tv_sec + (double)t.tv_nsec / 1e9) * hz;
}

/* A process's start time is in whole ticks, cut down: one started in the
 * tick in which tracking began shows that tick, before the tracker's own
 * start, and still counts with all its CPU time; one started a tick
 * earlier counts from its first sample (0 s here).  The tracker opens
 * again until its start falls inside one tick, so the tick is known. */
static void test_started_in_the_first_tick(void **state)
{
    (void)state;
    double hz = (double)sysconf(_SC_CLK_TCK);
    gt_perproc *p = NULL;
    double tick = -1;
    for (int attempt = 0; attempt < 1000 && tick < 0; attempt++) {
        double before = boot_ticks(hz);
        p = top_only();
        double after = boot_ticks(hz);
        if (floor(before) == floor(after) && before > floor(before))
            tick = floor(before);
        else
            close_top(&p);
    }
    assert_true(tick >= 1);
    put_proc(1000, 1, 0, 100, 4000, "3000 3001 ");
    put_proc(3000, 1000, 50, (unsigned long long)tick, 1000, "");
    put_proc(3001, 1000, 70, (unsigned long long)tick - 1, 1000, "");
    gt_usage u = GT_USAGE_INIT;
    sample(p, 1000, &u);
    const struct gt_top_process *c = u.top_processes.by_cpu_seconds;
    assert_int_equal(u.top_processes.n, 3);
    assert_int_equal(c[0].pid, 3000);
    assert_true(fabs(c[0].cpu_seconds - 50 / hz) < 1e-9);
    assert_int_equal(c[1].pid, 1000);
    assert_int_equal(c[2].pid, 3001);
    assert_true(c[2].cpu_seconds == 0.0);
    close_top(&p);
}

/* The whole text of file path (at most 4 KiB). */
static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* The rows come from the sample alone, no sampler nor GPU handle behind
 * it: each process's memory on a device adds up what that device listed
 * of it (twice here), a process a device did not list shows 0 where the
 * device listed its processes and nothing where it did not, and a listing
 * from no selected device (SIZE_MAX) counts nowhere; the GPUs' columns
 * are named by their index and the gpus table takes each device as the
 * sample has it. */
static void test_rows_from_the_sample(void **state)
{
    (void)state;
    char tf[128], side[160], text[4096];
    snprintf(tf, sizeof tf, "%s/t.csv", root);
    static const gt_gpu_device_reading dev[2] = {
        {.index = 0, .uuid = "GPU-a", .procs_valid = 1, .sm_valid = 1, .mem_valid = 1, .mem_used_bytes = 4000,
         .util_valid = 1, .util_percent = 50, .power_valid = 1, .power_watts = 70, .mem_total_bytes = 16000},
        {.index = 3, .uuid = "GPU-b"},
    };
    gt_perproc_config pc = {.per_process = 1, .per_gpu = 1, .tracking_file = tf,
                            .ram_unit = GT_RAM_UNIT_KILOBYTES, .gpu_ram_unit = GT_RAM_UNIT_KILOBYTES,
                            .ram_capacity = 8000 * 1000, .gpus = dev, .n_gpus = 2};
    gt_perproc *p = NULL;
    gt_error err;
    assert_int_equal(gt_perproc_open(&pc, &p, &err), GT_OK);
    static const gt_sample_proc procs[2] = {
        {.pid = 10, .ppid = 1, .comm = "main", .is_main = 1, .threads = 2, .mem_valid = 1,
         .private_rss = 1000 * 1000, .shared_rss = 1000 * 1000, .values = {4096, 1048576}},
        /* Its disk counters could not be read: empty, not 0. */
        {.pid = 11, .ppid = 10, .comm = "kid\x01", .threads = 1, .values = {NAN, NAN}},
    };
    static const gt_sample_gpu_proc gp[4] = {
        {.pid = 10, .device = 0, .mem_valid = 1, .mem_bytes = 2000, .sm_valid = 1, .sm_percent = 20},
        {.pid = 10, .device = 0, .mem_valid = 1, .mem_bytes = 1000, .sm_valid = 1, .sm_percent = 5},
        {.pid = 11, .device = SIZE_MAX, .mem_valid = 1, .mem_bytes = 999 * 1000},
        {.pid = 11, .device = 1, .mem_valid = 1, .mem_bytes = 7 * 1000},
    };
    gt_sample s = {.timestamp = 100, .n_procs = 2, .procs = procs, .n_devices = 2, .devices = dev,
                   .n_gpu_procs = 4, .gpu_procs = gp};
    assert_int_equal(gt_perproc_sample(p, &s, &err), GT_OK);
    assert_int_equal(gt_perproc_close(&p, &err), GT_OK);
    snprintf(side, sizeof side, "%s/t.processes.csv", root);
    slurp(side, text, sizeof text);
    assert_string_equal(text,
        "timestamp,pid,ppid,command,cpu_percent,total_rss,private_rss,shared_rss,ram_percent,n_threads,"
        "disk_read_bytes,disk_write_bytes,gpu0_ram,gpu0_sm_percent,gpu3_ram,gpu3_sm_percent\n"
        "100.0,10,1,main,,2000.0,1000.0,1000.0,25.0,2,4096,1048576,3.0,25.0,,\n"
        "100.0,11,10,kid?,,,,,,1,,,0.0,0.0,,\n");
    snprintf(side, sizeof side, "%s/t.gpus.csv", root);
    slurp(side, text, sizeof text);
    assert_string_equal(text,
        "timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts,total_gpu_ram\n"
        "100.0,0,GPU-a,4.0,50.0,70.0,16.0\n"
        "100.0,3,GPU-b,,,,\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ties_by_pid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_started_in_the_first_tick, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows_from_the_sample, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
