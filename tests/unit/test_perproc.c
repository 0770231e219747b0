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
    assert_int_equal(gt_perproc_open(&pc, NULL, &p, &err), GT_OK);
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
    assert_int_equal(gt_perproc_sample(p, s, a.timestamp, &err), GT_OK);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ties_by_pid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_started_in_the_first_tick, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
