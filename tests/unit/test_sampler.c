/* SPDX-License-Identifier: MIT */
/* The sampler's arithmetic on a /proc tree written by the test: memory sums
 * with shared mappings counted once per path, thread counts, high-water
 * marks, and CPU percents across a descendant that exits between samples
 * (its final time arrives in its parent's cutime).  Every expected figure
 * follows from the files; the only real-time input is the wall time between
 * the two samples, which the test brackets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proc/parse.h"
#include "sampler/sampler.h"
#include "unit/fakeproc.h"

#define KB 1024ULL

/* /proc/PID/stat up to rss and a little beyond; times in ticks; minflt:
 * page faults, which tell the sampler that memory may have changed. */
static void put_stat_faults(int pid, int ppid, int threads, unsigned utime, unsigned cutime, unsigned minflt)
{
    char rel[64], text[512];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (w %d) S %d %d %d 0 -1 4194304 %u 0 0 0 %u 0 %u 0 20 0 %d 0 1000 10000000 500 "
             "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
             pid, pid, ppid, ppid, ppid, minflt, utime, cutime, threads);
    put(rel, text);
}

static void put_stat(int pid, int ppid, int threads, unsigned utime, unsigned cutime)
{
    put_stat_faults(pid, ppid, threads, utime, cutime, 100);
}

/* A child that exited and was not reaped yet: no memory files to read. */
static void put_zombie(int pid, int ppid)
{
    char rel[64], text[512];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (w) Z %d %d %d 0 -1 4194316 100 0 0 0 3 0 0 0 20 0 1 0 1000 0 0 "
             "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
             pid, ppid, ppid, ppid);
    put(rel, text);
}

static void put_status(int pid, unsigned hwm_kb)
{
    char rel[64], text[256];
    snprintf(rel, sizeof rel, "%d/status", pid);
    snprintf(text, sizeof text, "Name:\tw\nState:\tS (sleeping)\nVmHWM:\t%8u kB\nVmRSS:\t%8u kB\n",
             hwm_kb, hwm_kb / 2);
    put(rel, text);
}

/* One smaps mapping with the four fields the sampler reads. */
static void mapping(char *buf, size_t size, const char *path, unsigned priv_kb, unsigned shared_kb)
{
    size_t n = strlen(buf);
    snprintf(buf + n, size - n,
             "7f0000000000-7f0000100000 r-xp 00000000 fe:00 1234                       %s\n"
             "Size:               1024 kB\nRss:                %u kB\n"
             "Shared_Clean:       %u kB\nShared_Dirty:          0 kB\n"
             "Private_Clean:         0 kB\nPrivate_Dirty:      %u kB\nSwap:                  0 kB\n",
             path, priv_kb + shared_kb, shared_kb, priv_kb);
}

static void put_smaps(int pid, const char *text)
{
    char rel[64];
    snprintf(rel, sizeof rel, "%d/smaps", pid);
    put(rel, text);
    /* smaps_rollup: the same totals (the sampler uses smaps when it needs
     * paths, as here). */
    snprintf(rel, sizeof rel, "%d/smaps_rollup", pid);
    put(rel, "00400000-7fff00000000 ---p 00000000 00:00 0 [rollup]\nRss: 0 kB\n"
             "Shared_Clean: 0 kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\nPrivate_Dirty: 0 kB\n");
}

static void put_system(unsigned user0, unsigned idle0, unsigned user1, unsigned idle1)
{
    char text[256];
    snprintf(text, sizeof text, "cpu  %u 0 0 %u 0 0 0 0 0 0\ncpu0 %u 0 0 %u 0 0 0 0 0 0\n"
             "cpu1 %u 0 0 %u 0 0 0 0 0 0\nctxt 1\nbtime 1\n",
             user0 + user1, idle0 + idle1, user0, idle0, user1, idle1);
    put("stat", text);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void within(double v, double lo, double hi)
{
    if (!(v >= lo && v <= hi))
        fail_msg("%.9g not in [%.9g, %.9g]", v, lo, hi);
}

static void test_tree(void **state)
{
    (void)state;
    /* What gt_procfs probes once: smaps_rollup and children files exist. */
    fakeproc_new(1, 1);
    put("meminfo", "MemTotal:  8000000 kB\nMemFree:  1000000 kB\nMemAvailable: 5000000 kB\n"
                   "Buffers:  100000 kB\nCached:  2000000 kB\nShmem:  10000 kB\n"
                   "SReclaimable:  300000 kB\n");
    put_system(100, 900, 100, 900);

    /* main 100 (2 threads) -> child 101 -> grandchild 102 (3 threads) */
    char m[2048] = "";
    put_stat(100, 1, 2, 10, 0);
    put("100/task/100/children", "101 ");
    put("100/task/1001/children", "");
    put_status(100, 5000);
    mapping(m, sizeof m, "/usr/lib/libc.so.6", 0, 100);
    mapping(m, sizeof m, "", 1000, 0);
    put_smaps(100, m);

    put_stat(101, 100, 1, 5, 0);
    put("101/task/101/children", "102 ");
    put_status(101, 3000);
    m[0] = '\0';
    mapping(m, sizeof m, "/usr/lib/libc.so.6", 0, 100);
    mapping(m, sizeof m, "", 2000, 0);
    put_smaps(101, m);

    put_stat(102, 101, 3, 30, 0);
    put("102/task/102/children", "");
    put_status(102, 7000);
    m[0] = '\0';
    mapping(m, sizeof m, "/usr/lib/libc.so.6", 0, 60);
    mapping(m, sizeof m, "/data/x (deleted)", 0, 40);
    mapping(m, sizeof m, "", 500, 0);
    put_smaps(102, m);

    gt_sampler_config cfg = {.main_pid = 100, .proc_root = root};
    gt_sampler *s;
    gt_error err;
    assert_int_equal(gt_sampler_new(&cfg, &s, &err), GT_OK);
    assert_int_equal(gt_sampler_core_count(s), 2);
    assert_true(gt_sampler_ram_capacity(s) == 8000000 * KB);

    gt_sample a, b;
    double t0 = now();
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    double t1 = now();
    assert_int_equal(a.cpu_valid, 0);
    assert_true(a.main.private_rss == 1000 * KB && a.main.shared_rss == 100 * KB);
    assert_true(a.descendants.private_rss == 2500 * KB);
    /* libc counted once (its largest share, 100), plus /data/x */
    assert_true(a.descendants.shared_rss == 140 * KB);
    assert_true(a.combined.private_rss == 3500 * KB && a.combined.shared_rss == 140 * KB);
    assert_int_equal(a.main_n_threads, 2);
    assert_int_equal(a.descendants_n_threads, 4);
    assert_int_equal(a.combined_n_threads, 6);
    assert_true(a.main_hwm == 5000 * KB && a.descendants_max_hwm == 7000 * KB);
    /* psutil's used: total - free - buffers - cached - sreclaimable */
    assert_true(a.system_ram == (8000000 - 1000000 - 100000 - 2000000 - 300000) * KB);
    assert_int_equal(gt_sampler_main_alive(s), 1);

    /* Half a second of main's CPU and 0.2 s of the child's; the grandchild
     * ran 0.1 s more, exited, and its parent reaped its 0.4 s in total. */
    put_stat(100, 1, 2, 60, 0);
    put_stat(101, 100, 1, 25, 40);
    put("101/task/101/children", "");
    fakeproc_drop("102");
    put_system(130, 970, 200, 900); /* cpu0: 30 of 100 ticks busy; cpu1: 100 of 100 */
    m[0] = '\0';
    mapping(m, sizeof m, "/usr/lib/libc.so.6", 0, 100);
    mapping(m, sizeof m, "", 1500, 0);
    put_smaps(100, m);
    /* Long enough for the CPU window (a shorter span has no CPU figures)
     * and for 0.8 s of CPU time to fit on the fixture's 2 cores. */
    struct timespec pause = {0, 500 * 1000000L};
    nanosleep(&pause, NULL);
    double t2 = now();
    assert_int_equal(gt_sampler_take(s, &b, &err), GT_OK);
    double t3 = now();
    assert_int_equal(b.cpu_valid, 1);
    double lo = t2 - t1, hi = t3 - t0; /* the sampler's wall time is within */
    within(b.cpu_main_sum, 0.5 / hi * 100, 0.5 / lo * 100);
    within(b.cpu_descendants_sum, 0.3 / hi * 100, 0.3 / lo * 100);
    within(b.cpu_combined_sum - b.cpu_main_sum - b.cpu_descendants_sum, -1e-9, 1e-9);
    within(b.cpu_system_sum, 130 - 1e-9, 130 + 1e-9);
    assert_true(b.main.private_rss == 1500 * KB);
    assert_true(b.descendants.private_rss == 2000 * KB && b.descendants.shared_rss == 100 * KB);
    assert_true(b.combined.shared_rss == 100 * KB);
    assert_int_equal(b.descendants_n_threads, 1);
    assert_int_equal(b.combined_n_threads, 3);
    /* a high-water mark is kept after its process is gone */
    assert_true(b.descendants_max_hwm == 7000 * KB);

    /* A zombie child (exited, not yet reaped) holds no memory and does not
     * stop libc, mapped by main and the live child, from counting once.
     * Nor does it run a thread, although its stat still says 1. */
    put("100/task/100/children", "101 103 ");
    put_zombie(103, 100);
    gt_sample c;
    assert_int_equal(gt_sampler_take(s, &c, &err), GT_OK);
    assert_true(c.descendants.private_rss == 2000 * KB && c.descendants.shared_rss == 100 * KB);
    assert_true(c.combined.shared_rss == 100 * KB);
    assert_int_equal(c.descendants_n_threads, 1);
    /* The per-process rows count threads by the same rule: the zombie's
     * row says 0, and the rows add up to the main table's figures. */
    const gt_sample_proc *pr = c.procs;
    size_t np = c.n_procs;
    assert_int_equal(np, 3);
    int row_threads = 0, zombies = 0;
    for (size_t i = 0; i < np; i++) {
        if (pr[i].pid == 103) {
            zombies++;
            assert_int_equal(pr[i].threads, 0);
        }
        row_threads += pr[i].threads;
    }
    assert_int_equal(zombies, 1);
    assert_int_equal(row_threads, c.combined_n_threads);

    gt_sampler_free(&s);
    assert_null(s);
    fakeproc_drop("");
}

/* A fixture root with the system files; children: whether the kernel has
 * /proc/PID/task/TID/children (otherwise the sampler scans /proc). */
static void new_root(int children)
{
    fakeproc_new(1, children);
    put("meminfo", "MemTotal:  8000000 kB\nMemFree:  1000000 kB\nBuffers:  1 kB\nCached:  1 kB\n");
    put_system(100, 900, 100, 900);
}

static void remove_root(void)
{
    fakeproc_drop("");
}

static gt_sampler *new_sampler(int main_pid)
{
    gt_sampler_config cfg = {.main_pid = main_pid, .proc_root = root};
    gt_sampler *s;
    gt_error err;
    assert_int_equal(gt_sampler_new(&cfg, &s, &err), GT_OK);
    return s;
}

/* A path main maps with a larger share than any descendant counts at the
 * descendants' share for them, and at main's for the combined figure. */
static void test_main_share_apart(void **state)
{
    (void)state;
    new_root(1);
    char m[1024] = "";
    put_stat(100, 1, 1, 0, 0);
    put("100/task/100/children", "101 ");
    put_status(100, 1000);
    mapping(m, sizeof m, "/lib/big.so", 0, 500);
    put_smaps(100, m);
    m[0] = '\0';
    put_stat(101, 100, 1, 0, 0);
    put("101/task/101/children", "");
    put_status(101, 1000);
    mapping(m, sizeof m, "/lib/big.so", 10, 50);
    put_smaps(101, m);
    gt_sampler *s = new_sampler(100);
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.descendants.shared_rss == 50 * KB);
    assert_true(a.descendants.private_rss == 10 * KB);
    assert_true(a.combined.shared_rss == 500 * KB);
    assert_true(a.main.shared_rss == 500 * KB);
    gt_sampler_free(&s);
    remove_root();
}

/* A lone process's figures come from smaps_rollup: private is clean plus
 * dirty, shared likewise. */
static void test_lone_rollup(void **state)
{
    (void)state;
    new_root(1);
    put_stat(100, 1, 1, 0, 0);
    put("100/task/100/children", "");
    put_status(100, 1000);
    put("100/smaps_rollup", "00400000-7fff00000000 ---p 00000000 00:00 0 [rollup]\n"
                            "Rss: 1210 kB\nShared_Clean: 200 kB\nShared_Dirty: 10 kB\n"
                            "Private_Clean: 300 kB\nPrivate_Dirty: 700 kB\n");
    gt_sampler *s = new_sampler(100);
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 1000 * KB);
    assert_true(a.main.shared_rss == 210 * KB);
    assert_true(a.combined.private_rss == 1000 * KB && a.combined.shared_rss == 210 * KB);
    gt_sampler_free(&s);
    remove_root();
}

/* Children listed out of PID order make a walk out of PID order: each
 * process must still get its own last-sample entry (its kept files and
 * figures) and the sample's list must come out sorted. */
static void test_walk_out_of_pid_order(void **state)
{
    (void)state;
    new_root(1);
    const int pids[] = {100, 300, 200}, threads[] = {1, 5, 2};
    put("100/task/100/children", "300 200 ");
    for (int i = 0; i < 3; i++) {
        char rel[64], m[1024] = "";
        put_stat(pids[i], i ? 100 : 1, threads[i], 0, 0);
        snprintf(rel, sizeof rel, "%d/task/%d/children", pids[i], pids[i]);
        if (i)
            put(rel, "");
        put_status(pids[i], 1000);
        mapping(m, sizeof m, "", (unsigned)pids[i], 0);
        put_smaps(pids[i], m);
    }
    gt_sampler *s = new_sampler(100);
    gt_sample a;
    gt_error err;
    for (int k = 0; k < 2; k++) {
        assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
        const gt_sample_proc *pr = a.procs;
        assert_int_equal(a.n_procs, 3);
        const int want_pid[] = {100, 200, 300}, want_threads[] = {1, 2, 5};
        for (int i = 0; i < 3; i++) {
            char comm[16];
            snprintf(comm, sizeof comm, "w %d", want_pid[i]);
            assert_int_equal(pr[i].pid, want_pid[i]);
            assert_int_equal(pr[i].threads, want_threads[i]);
            assert_string_equal(pr[i].comm, comm);
            assert_true(pr[i].private_rss == (uint64_t)want_pid[i] * KB);
        }
        assert_int_equal(a.descendants_n_threads, 7);
    }
    gt_sampler_free(&s);
    remove_root();
}

/* A zombie member seen again is no exit: its time (counted while it ran)
 * must not be taken out of the descendants' as a departed member's is. */
static void test_zombie_seen_again(void **state)
{
    (void)state;
    new_root(1);
    put_stat(100, 1, 1, 0, 0);
    put("100/task/100/children", "101 102 ");
    put_zombie(101, 100);
    put("101/task/101/children", "");
    put_stat(102, 100, 1, 10, 0);
    put("102/task/102/children", "");
    gt_sampler *s = new_sampler(100);
    gt_sample a, b;
    gt_error err;
    double t0 = now();
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    double t1 = now();
    put_stat(102, 100, 1, 15, 0); /* ran 0.05 s; the zombie stays */
    struct timespec pause = {0, 300 * 1000000L};
    nanosleep(&pause, NULL);
    double t2 = now();
    assert_int_equal(gt_sampler_take(s, &b, &err), GT_OK);
    double t3 = now();
    assert_int_equal(b.cpu_valid, 1);
    within(b.cpu_descendants_sum, 0.05 / (t3 - t0) * 100, 0.05 / (t2 - t1) * 100);
    gt_sampler_free(&s);
    remove_root();
}

/* A process listed by two parents (reparented between the reads of their
 * children lists) counts once, and the members after it keep their
 * places. */
static void test_pid_listed_twice(void **state)
{
    (void)state;
    new_root(1);
    put("100/task/100/children", "101 102 ");
    put("101/task/101/children", "103 ");
    put("102/task/102/children", "103 104 ");
    for (int pid = 100; pid <= 104; pid++) {
        char rel[64];
        put_stat(pid, pid == 100 ? 1 : 100, pid - 99, 0, 0);
        snprintf(rel, sizeof rel, "%d/task/%d/children", pid, pid);
        if (pid > 102)
            put(rel, "");
    }
    gt_sampler *s = new_sampler(100);
    gt_sample a;
    gt_error err;
    for (int k = 0; k < 2; k++) {
        assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
        const gt_sample_proc *pr = a.procs;
        assert_int_equal(a.n_procs, 5);
        for (int i = 0; i < 5; i++) {
            assert_int_equal(pr[i].pid, 100 + i);
            assert_int_equal(pr[i].threads, i + 1);
        }
        assert_int_equal(a.descendants_n_threads, 2 + 3 + 4 + 5);
    }
    gt_sampler_free(&s);
    remove_root();
}

/* Without children files the tree comes from a scan of every stat: a
 * process belongs by its parent's PID, and unrelated ones stay out. */
static void test_scan_without_children(void **state)
{
    (void)state;
    new_root(0);
    put_stat(100, 1, 1, 0, 0);
    put_stat(101, 100, 3, 0, 0);
    put_stat(102, 101, 2, 0, 0);
    put_stat(103, 1, 5, 0, 0); /* not in the tree */
    gt_sampler *s = new_sampler(100);
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_int_equal(a.main_n_threads, 1);
    assert_int_equal(a.descendants_n_threads, 5);
    gt_sampler_free(&s);
    remove_root();
}

/* A member that had reaped children of its own exits and is reaped: its
 * parent's cutime then holds its time and its children's, all of which
 * but the last interval's was counted before. */
static void test_exited_reaper(void **state)
{
    (void)state;
    new_root(1);
    put_stat(100, 1, 1, 0, 0);
    put("100/task/100/children", "101 ");
    put_stat(101, 100, 1, 10, 20); /* 0.1 s its own, 0.2 s reaped */
    put("101/task/101/children", "");
    gt_sampler *s = new_sampler(100);
    gt_sample a, b;
    gt_error err;
    double t0 = now();
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    double t1 = now();
    /* It ran 0.05 s more, exited, and main reaped 0.1 + 0.05 + 0.2 s. */
    put_stat(100, 1, 1, 0, 35);
    put("100/task/100/children", "");
    fakeproc_drop("101");
    struct timespec pause = {0, 300 * 1000000L};
    nanosleep(&pause, NULL);
    double t2 = now();
    assert_int_equal(gt_sampler_take(s, &b, &err), GT_OK);
    double t3 = now();
    assert_int_equal(b.cpu_valid, 1);
    within(b.cpu_descendants_sum, 0.05 / (t3 - t0) * 100, 0.05 / (t2 - t1) * 100);
    within(b.cpu_main_sum, 0, 0);
    gt_sampler_free(&s);
    remove_root();
}

static void put_rollup(int pid, unsigned private_kb, unsigned shared_kb)
{
    char rel[64], text[512];
    snprintf(rel, sizeof rel, "%d/smaps_rollup", pid);
    snprintf(text, sizeof text, "00400000-7fff00000000 ---p 00000000 00:00 0 [rollup]\n"
             "Rss: %u kB\nShared_Clean: %u kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\n"
             "Private_Dirty: %u kB\n", private_kb + shared_kb, shared_kb, private_kb);
    put(rel, text);
}

/* Out of walk budget, the total is the kernel's VmRSS of this sample and
 * shared the last walk's (never above the total); with budget, a walk. */
static void test_walk_budget(void **state)
{
    (void)state;
    new_root(1);
    put_stat(100, 1, 1, 0, 0);
    put("100/task/100/children", "");
    put_status(100, 2000); /* VmRSS 1000 kB */
    put_rollup(100, 700, 300);
    gt_sampler *s = new_sampler(100);
    gt_sampler_set_walk_budget(s, 1e-12);
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK); /* never walked: walks */
    assert_true(a.main.private_rss == 700 * KB && a.main.shared_rss == 300 * KB);

    put_stat_faults(100, 1, 1, 5, 0, 200); /* it faulted, so its memory is read again */
    put_status(100, 8000);                 /* VmRSS 4000 kB */
    put_rollup(100, 3500, 500);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.shared_rss == 300 * KB && a.main.private_rss == 3700 * KB);

    put_stat_faults(100, 1, 1, 10, 0, 300);
    put_status(100, 400); /* VmRSS 200 kB, below the last walk's shared */
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.shared_rss == 200 * KB && a.main.private_rss == 0);

    gt_sampler_set_walk_budget(s, 0.5);
    struct timespec pause = {0, 20 * 1000000L};
    nanosleep(&pause, NULL);
    put_stat_faults(100, 1, 1, 15, 0, 400);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 3500 * KB && a.main.shared_rss == 500 * KB);
    gt_sampler_free(&s);
    remove_root();
}

/* A process that ran but whose RSS is as at its last walk keeps that walk's
 * split (its pages did not move), whatever the budget; a new RSS, or the
 * idle refresh's age, walks again. */
static void test_walk_on_change(void **state)
{
    (void)state;
    new_root(1);
    put_stat(100, 1, 1, 0, 0);
    put("100/task/100/children", "");
    put_status(100, 2000); /* VmRSS 1000 kB */
    put_rollup(100, 700, 300);
    gt_sampler *s = new_sampler(100);
    gt_sampler_set_walk_budget(s, 0.5);
    gt_sampler_set_idle_refresh(s, 3600);
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 700 * KB && a.main.shared_rss == 300 * KB);

    put_stat(100, 1, 1, 5, 0); /* it ran; same RSS: no walk */
    put_rollup(100, 600, 400);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 700 * KB && a.main.shared_rss == 300 * KB);

    put_stat_faults(100, 1, 1, 10, 0, 200);
    put_status(100, 2400); /* VmRSS 1200 kB: walked */
    put_rollup(100, 800, 400);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 800 * KB && a.main.shared_rss == 400 * KB);

    gt_sampler_set_idle_refresh(s, 0.001); /* the last walk is old now */
    struct timespec pause = {0, 100 * 1000000L}; /* and 20 times its cost (budget 0.5) */
    nanosleep(&pause, NULL);
    put_stat(100, 1, 1, 15, 0);
    put_rollup(100, 900, 300);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 900 * KB && a.main.shared_rss == 300 * KB);
    gt_sampler_free(&s);
    remove_root();
}

/* /proc/loadavg with the PID last given out. */
static void put_last_pid(int pid)
{
    char text[64];
    snprintf(text, sizeof text, "0.50 0.40 0.30 1/99 %d\n", pid);
    put("loadavg", text);
}

/* The sample just taken by take_ok (its views valid until the next). */
static gt_sample taken;

/* The members of the sample just taken, as "PID PID ...". */
static void expect_members(const gt_sample *a, const char *want)
{
    char got[128] = "";
    for (size_t i = 0; i < a->n_procs && i < 16; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", i ? " " : "", (int)a->procs[i].pid);
    if (strcmp(got, want) != 0)
        fail_msg("members \"%s\", expected \"%s\"", got, want);
}

static void take_ok(gt_sampler *s)
{
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &taken, &err), GT_OK);
}

static void put_proc(int pid, int ppid, unsigned utime, const char *children)
{
    char rel[64];
    put_stat(pid, ppid, 1, utime, 0);
    snprintf(rel, sizeof rel, "%d/task/%d/children", pid, pid);
    put(rel, children);
    put_status(pid, 1000);
    put_smaps(pid, ""); /* its memory reads (a failed read makes the next sample read all) */
}

/* An exited process: its files are gone, and what descriptors kept open
 * read is empty. */
static void drop_proc(int pid)
{
    char cmd[160];
    static const char *const files[] = {"stat", "status", "smaps", "smaps_rollup"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(cmd, sizeof cmd, "%s/%d/%s", root, pid, files[i]);
        FILE *f = fopen(cmd, "w");
        if (f)
            fclose(f);
    }
    snprintf(cmd, sizeof cmd, "%d", pid);
    fakeproc_drop(cmd);
}

/* While no PID is given out, a process that ran keeps the last sample's
 * children (none can be new); a new PID, the refresh's age, or a member
 * gone (whose children may have been adopted) reads them again. */
static void test_children_while_no_new_pid(void **state)
{
    (void)state;
    new_root(1);
    put_last_pid(500);
    put_proc(100, 1, 0, "101 ");
    put_proc(101, 100, 0, "103 ");
    put_proc(103, 101, 0, "");
    gt_sampler *s = new_sampler(100);
    gt_sampler_set_idle_refresh(s, 3600);
    take_ok(s);
    expect_members(&taken, "100 101 103");

    put_proc(100, 1, 5, "101 102 "); /* it ran, and lists a child no PID was given out for */
    put_proc(102, 100, 0, "");
    take_ok(s);
    expect_members(&taken, "100 101 103");
    put_last_pid(501);
    take_ok(s);
    expect_members(&taken, "100 101 102 103");

    /* 101 exits and main, a subreaper, adopts 103; no task was created. */
    drop_proc(101);
    put_proc(100, 1, 10, "102 103 ");
    put_proc(103, 100, 0, "");
    take_ok(s);
    expect_members(&taken, "100 102 103");

    put_proc(100, 1, 15, "102 103 104 ");
    put_proc(104, 100, 0, "");
    take_ok(s); /* after the failed read: all read */
    expect_members(&taken, "100 102 103 104");
    put_proc(100, 1, 20, "102 103 104 105 ");
    put_proc(105, 100, 0, "");
    take_ok(s);
    expect_members(&taken, "100 102 103 104");
    gt_sampler_set_idle_refresh(s, 0.001);
    struct timespec pause = {0, 20 * 1000000L};
    nanosleep(&pause, NULL);
    take_ok(s);
    expect_members(&taken, "100 102 103 104 105");
    gt_sampler_free(&s);
    remove_root();
}

/* The same for the root (the launcher, not tracked): an orphan it adopts
 * while no task is created is found in the sample that misses its parent. */
static void test_root_children_while_no_new_pid(void **state)
{
    (void)state;
    new_root(1);
    put_last_pid(500);
    put_proc(50, 1, 0, "100 ");
    put_proc(100, 50, 0, "101 ");
    put_proc(101, 100, 0, "103 ");
    put_proc(103, 101, 0, "");
    gt_sampler_config cfg = {.main_pid = 100, .tree_root = 50, .proc_root = root};
    gt_sampler *s;
    gt_error err;
    assert_int_equal(gt_sampler_new(&cfg, &s, &err), GT_OK);
    gt_sampler_set_idle_refresh(s, 3600);
    take_ok(s);
    expect_members(&taken, "100 101 103");
    drop_proc(101);
    put_proc(100, 50, 5, "");
    put_proc(103, 50, 0, "");
    put_proc(50, 1, 0, "100 103 ");
    take_ok(s);
    expect_members(&taken, "100 103");
    gt_sampler_free(&s);
    remove_root();
}

/* A process that ran without a page fault and with the same RSS keeps its
 * memory figures, whatever its status says meanwhile (it cannot have
 * changed); its split's refresh and the last sample read them again. */
static void test_memory_without_faults(void **state)
{
    (void)state;
    new_root(1);
    put_proc(100, 1, 0, "");
    put_status(100, 2000); /* VmRSS 1000 kB */
    put_rollup(100, 700, 300);
    gt_sampler *s = new_sampler(100);
    gt_sampler_set_idle_refresh(s, 3600);
    gt_sampler_set_walk_budget(s, 0.5);
    gt_sample a;
    gt_error err;
    struct timespec pause = {0, 20 * 1000000L};
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 700 * KB && a.main.shared_rss == 300 * KB);

    put_proc(100, 1, 5, "");
    put_status(100, 4000); /* VmRSS 2000 kB */
    put_rollup(100, 1500, 500);
    nanosleep(&pause, NULL);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 700 * KB && a.main.shared_rss == 300 * KB);

    gt_sampler_set_idle_refresh(s, 0.001); /* the walk is due: 20 times its cost ago */
    nanosleep(&(struct timespec){0, 100 * 1000000L}, NULL);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 1500 * KB && a.main.shared_rss == 500 * KB);

    gt_sampler_set_idle_refresh(s, 3600);
    put_status(100, 6000); /* VmRSS 3000 kB */
    put_rollup(100, 2500, 500);
    nanosleep(&pause, NULL);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 1500 * KB && a.main.shared_rss == 500 * KB);
    nanosleep(&pause, NULL);
    assert_int_equal(gt_sampler_take_last(s, &a, &err), GT_OK);
    assert_true(a.main.private_rss == 2500 * KB && a.main.shared_rss == 500 * KB);
    gt_sampler_free(&s);
    remove_root();
}

/* Samples closer together than the system period repeat the last reading
 * of system RAM and system CPU; a sample after it, and the last sample,
 * read them afresh. */
static void test_system_period(void **state)
{
    (void)state;
    new_root(1);
    put_proc(100, 1, 0, "");
    gt_sampler *s = new_sampler(100);
    gt_sampler_set_system_period(s, 3600);
    gt_sample a;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.system_ram == (8000000ULL - 1000000 - 2) * KB);
    put_system(200, 1000, 100, 1000); /* core 0: 100 of 200 ticks busy; core 1: none */
    put("meminfo", "MemTotal:  8000000 kB\nMemFree:  3000000 kB\nBuffers:  1 kB\nCached:  1 kB\n");
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.system_ram == (8000000ULL - 1000000 - 2) * KB);
    within(a.cpu_system_sum, 0, 0);

    gt_sampler_set_system_period(s, 0);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    assert_true(a.system_ram == (8000000ULL - 3000000 - 2) * KB);
    within(a.cpu_system_sum, 50, 50);
    put_system(300, 1000, 100, 1100); /* core 0: all 100 busy; core 1: none of 100 */
    gt_sampler_set_system_period(s, 3600);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    within(a.cpu_system_sum, 50, 50); /* the last reading's figure */
    /* Read afresh; it is the run's first CPU figure too, so it covers the
     * time since the first sample: core 0 200 of 300 ticks busy. */
    assert_int_equal(gt_sampler_take_last(s, &a, &err), GT_OK);
    within(a.cpu_system_sum, 200.0 / 3 - 1e-9, 200.0 / 3 + 1e-9);
    gt_sampler_free(&s);
    remove_root();
}

/* A main process that does not exist is an error at the first sample. */
static void test_missing_main(void **state)
{
    (void)state;
    fakeproc_new(0, 0);
    put("meminfo", "MemTotal:  8000000 kB\nMemFree:  1000000 kB\nBuffers:  1 kB\nCached:  1 kB\n");
    put_system(1, 1, 1, 1);
    gt_sampler_config cfg = {.main_pid = 4242, .proc_root = root};
    gt_sampler *s;
    gt_error err;
    assert_int_equal(gt_sampler_new(&cfg, &s, &err), GT_OK);
    gt_sample a;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_ERR_NOPROC);
    assert_non_null(strstr(err.msg, "4242"));
    gt_sampler_free(&s);
    fakeproc_drop("");
}

/* A sample's timestamp is the instant its CPU interval ends, so the time
 * between two rows is the interval the percents are over however long the
 * reads before main's took: here the first sample reads a /proc/stat of
 * 1024 cores (tens of microseconds and more), the second none (the system
 * period has not passed), and percent x interval gives back main's 0.05 s
 * exactly (to the timestamps' rounding). */
static void test_timestamp_ends_the_interval(void **state)
{
    (void)state;
    new_root(0);
    size_t cap = 1100 * 64, len = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    len += (size_t)snprintf(big + len, cap - len, "cpu  409600 0 0 409600 0 0 0 0 0 0\n");
    for (int i = 0; i < 1024; i++)
        len += (size_t)snprintf(big + len, cap - len, "cpu%d 100 0 0 100 0 0 0 0 0 0\n", i);
    snprintf(big + len, cap - len, "ctxt 1\nbtime 1\n");
    put("stat", big);
    free(big);
    char m[1024] = "";
    put_stat(100, 1, 1, 0, 0);
    put("100/task/100/children", "");
    put_status(100, 1000);
    mapping(m, sizeof m, "", 100, 0);
    put_smaps(100, m);
    gt_sampler *s = new_sampler(100);
    gt_sampler_set_system_period(s, 0);
    gt_sample a, b;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    struct timespec pause = {0, 300 * 1000000L}; /* longer than the CPU window */
    nanosleep(&pause, NULL);
    put_stat(100, 1, 1, 5, 0); /* 5 ticks: 0.05 s at USER_HZ 100 */
    gt_sampler_set_system_period(s, 3600);
    assert_int_equal(gt_sampler_take(s, &b, &err), GT_OK);
    assert_int_equal(b.cpu_valid, 1);
    double secs = 5.0 / (double)sysconf(_SC_CLK_TCK);
    double interval = b.timestamp - a.timestamp;
    /* To the wall clock's reading (within 0.5 us each) and the rounding of a
     * timestamp near 1.8e9 s to a double (2.4e-7 s): 2 us over the interval. */
    within(b.cpu_main_sum / 100 * interval, secs * (1 - 2e-6 / interval), secs * (1 + 2e-6 / interval));
    gt_sampler_free(&s);
    remove_root();
}

/* Threads created and joined between two samples are in neither sample's
 * thread count, but their time is in the group's clock: where a task was
 * created in the interval (the last PID moved), the interval is credited
 * with all of it, up to the cores; where none was, the sampled count bounds
 * the rate (a one-thread process cannot run 1.8 cores). */
static void test_threads_between_samples(void **state)
{
    (void)state;
    new_root(1);
    put_last_pid(500);
    put_proc(100, 1, 0, "");
    gt_sampler *s = new_sampler(100);
    gt_sample a;
    gt_error err;
    long hz = sysconf(_SC_CLK_TCK);
    unsigned ticks = 0;
    for (int spawned = 1; spawned >= 0; spawned--) {
        assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
        double t0 = now();
        struct timespec pause = {0, 300000000L};
        nanosleep(&pause, NULL);
        /* 1.8 cores over at least the time slept; two tasks created, or none. */
        unsigned d = (unsigned)(1.8 * (now() - t0) * (double)hz);
        ticks += d;
        put_stat(100, 1, 1, ticks, 0);
        if (spawned)
            put_last_pid(502);
        assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
        assert_true(a.cpu_valid);
        assert_false(a.cpu_since_first && !spawned);
        double credited = a.cpu_main_sum / 100 * a.cpu_span;
        if (spawned) /* all of it, at 1.8 cores or a little less (the wall is longer) */
            within(credited, (double)d / (double)hz - 1e-9, (double)d / (double)hz + 1e-9);
        else         /* one core, the rest carried */
            within(a.cpu_main_sum, 99.0, 100.0 + 1e-9);
    }
    gt_sampler_free(&s);
    remove_root();
}

/* A process born after the sampler was created ran before any sample (a
 * command released once the tracker exists forks at once): its CPU time
 * until the first sample is the run's, and the first figure credits it.
 * One that was there before the sampler is a baseline at the first sample. */
static void test_born_before_the_first_sample(void **state)
{
    (void)state;
    new_root(1);
    put_last_pid(500);
    put_proc(100, 1, 0, "200 300 ");
    put_proc(200, 100, 0, "");
    put_proc(300, 100, 40, "");
    gt_sampler *s = new_sampler(100);
    struct timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    long hz = sysconf(_SC_CLK_TCK);
    unsigned born = (unsigned)(((double)boot.tv_sec + (double)boot.tv_nsec / 1e9) * (double)hz) + 1;
    char rel[64] = "200/stat", text[512];
    snprintf(text, sizeof text,
             "200 (w) S 100 100 100 0 -1 4194304 100 0 0 0 30 0 0 0 20 0 1 0 %u 10000000 500 "
             "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
             born);
    put(rel, text); /* 30 ticks since its birth, after the sampler's */
    gt_sample a, b;
    gt_error err;
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    struct timespec pause = {0, 300 * 1000000L}; /* longer than the CPU window */
    nanosleep(&pause, NULL);
    assert_int_equal(gt_sampler_take(s, &b, &err), GT_OK);
    assert_true(b.cpu_valid && b.cpu_since_first);
    double want = 30.0 / (double)hz; /* 200's; not 300's 40 ticks from before */
    within(b.cpu_descendants_sum / 100 * b.cpu_span, want - 1e-9, want + 1e-9);
    within(b.cpu_main_sum, 0, 0);
    gt_sampler_free(&s);

    /* Main launched by the caller (the tree's root), held until the
     * sampler existed: all its time is the run's, however old the process. */
    int self = (int)getpid();
    char kids[32];
    snprintf(kids, sizeof kids, "100 ");
    put_proc(self, 1, 0, kids);
    put_proc(100, self, 20, ""); /* less than the interval: one thread ran it */
    gt_sampler_config cfg = {.main_pid = 100, .tree_root = self, .proc_root = root};
    assert_int_equal(gt_sampler_new(&cfg, &s, &err), GT_OK);
    assert_int_equal(gt_sampler_take(s, &a, &err), GT_OK);
    nanosleep(&pause, NULL);
    assert_int_equal(gt_sampler_take(s, &b, &err), GT_OK);
    assert_true(b.cpu_valid && b.cpu_since_first);
    want = 20.0 / (double)hz;
    within(b.cpu_main_sum / 100 * b.cpu_span, want - 1e-9, want + 1e-9);
    gt_sampler_free(&s);
    remove_root();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timestamp_ends_the_interval),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_missing_main),
        cmocka_unit_test(test_main_share_apart),
        cmocka_unit_test(test_lone_rollup),
        cmocka_unit_test(test_scan_without_children),
        cmocka_unit_test(test_exited_reaper),
        cmocka_unit_test(test_walk_budget),
        cmocka_unit_test(test_walk_on_change),
        cmocka_unit_test(test_walk_out_of_pid_order),
        cmocka_unit_test(test_zombie_seen_again),
        cmocka_unit_test(test_pid_listed_twice),
        cmocka_unit_test(test_children_while_no_new_pid),
        cmocka_unit_test(test_root_children_while_no_new_pid),
        cmocka_unit_test(test_memory_without_faults),
        cmocka_unit_test(test_system_period),
        cmocka_unit_test(test_threads_between_samples),
        cmocka_unit_test(test_born_before_the_first_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
