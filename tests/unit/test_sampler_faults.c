/* SPDX-License-Identifier: MIT */
/* The sampler over a fake /proc tree (the injectable proc root): a PID reused
 * by a new process between two samples, files that vanish between a
 * process's stat and its memory files, a listed child whose folder is gone,
 * garbage in a stat file, and the main process vanishing.  Each must give a
 * sample with the figures the tree really had, never a failure, a crash or
 * the dead process's numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sampler/sampler.h"
#include "unit/fakeproc.h"

#define KB 1024ull

/* Empties a file in place: an fd the sampler keeps open on it reads
 * nothing, as a kept /proc fd of an exited process fails. */
static void vanish(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd >= 0)
        close(fd);
}

/* minflt: page faults, which tell the sampler that memory may have changed. */
static void put_stat_faults(int pid, int ppid, unsigned long long utime, unsigned long long cutime,
                            unsigned long long starttime, unsigned minflt)
{
    char rel[64], text[512];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (p%d) S %d %d %d 0 -1 4194304 %u 0 0 0 %llu 0 %llu 0 20 0 1 0 %llu 1000000 250\n",
             pid, pid, ppid, pid, pid, minflt, utime, cutime, starttime);
    put(rel, text);
}

static void put_stat(int pid, int ppid, unsigned long long utime, unsigned long long cutime,
                     unsigned long long starttime)
{
    put_stat_faults(pid, ppid, utime, cutime, starttime, 10);
}

/* Memory files of a process with `priv` kB private and 100 kB shared. */
static void put_memory(int pid, unsigned priv)
{
    char rel[64], text[1024];
    snprintf(rel, sizeof rel, "%d/smaps_rollup", pid);
    snprintf(text, sizeof text,
             "00400000-7fff0000 ---p 00000000 00:00 0 [rollup]\nRss: %u kB\nPss: %u kB\n"
             "Shared_Clean: 100 kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\nPrivate_Dirty: %u kB\n",
             priv + 100, priv, priv);
    put(rel, text);
    snprintf(rel, sizeof rel, "%d/smaps", pid);
    snprintf(text, sizeof text,
             "00400000-00500000 r-xp 00000000 08:02 1234 /usr/bin/p\nRss: 100 kB\n"
             "Shared_Clean: 100 kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\nPrivate_Dirty: 0 kB\n"
             "01000000-02000000 rw-p 00000000 00:00 0 [heap]\nRss: %u kB\n"
             "Shared_Clean: 0 kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\nPrivate_Dirty: %u kB\n",
             priv, priv);
    put(rel, text);
    snprintf(rel, sizeof rel, "%d/status", pid);
    snprintf(text, sizeof text, "Name:\tp\nVmHWM:\t%u kB\nVmRSS:\t%u kB\n", priv + 200, priv + 100);
    put(rel, text);
}

static void put_children(int pid, const char *list)
{
    char rel[64];
    snprintf(rel, sizeof rel, "%d/task/%d/children", pid, pid);
    put(rel, list);
}

/* main 1000 with child 2000. */
static int setup(void **state)
{
    (void)state;
    fakeproc_new(1, 1);
    copy_fixture("meminfo", "meminfo");
    copy_fixture("proc_stat", "stat");
    put_stat(1000, 1, 100, 0, 400);
    put_memory(1000, 4000);
    put_children(1000, "2000 ");
    put_stat(2000, 1000, 1000, 0, 500);
    put_memory(2000, 1000);
    put_children(2000, "");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fakeproc_drop("");
    return 0;
}

static gt_sampler *new_sampler(void)
{
    gt_sampler_config c = {.main_pid = 1000, .proc_root = root};
    gt_sampler *s = NULL;
    gt_error e;
    assert_int_equal(gt_sampler_new(&c, &s, &e), GT_OK);
    return s;
}

static void take(gt_sampler *s, gt_sample *out)
{
    gt_error e;
    gt_status st = gt_sampler_take(s, out, &e);
    if (st != GT_OK)
        fail_msg("sample failed: %s", e.msg);
}

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_pid_reuse(void **state)
{
    (void)state;
    gt_sampler *s = new_sampler();
    gt_sample a, b;
    take(s, &a);
    assert_int_equal(a.descendants.private_rss, 1000 * KB);
    /* Longer than the CPU window (0.25 s): the next sample has CPU figures. */
    pause_ms(400);
    /* 2000 ran 0.5 s more, exited and was reaped by 1000 (whose cutime now
     * holds its 10.5 s); a new process got PID 2000: 0.07 s of CPU, a later
     * start time, 3000 kB. */
    vanish("2000/stat");
    fakeproc_drop("2000/stat"); /* a new file: the old fd never shows the new process */
    put_stat(1000, 1, 100, 1050, 400);
    put_stat(2000, 1000, 7, 0, 900);
    put_memory(2000, 3000);
    take(s, &b);
    /* The new process's memory, not the old one's kept from the cache. */
    assert_int_equal(b.descendants.private_rss, 3000 * KB);
    assert_int_equal(b.main.private_rss, 4000 * KB);
    /* Descendants' CPU over the interval: the old 2000's last 0.5 s; the new
     * one is a baseline, not a continuation of the old (a delta of -9.93 s). */
    assert_true(b.cpu_valid);
    double wall = b.timestamp - a.timestamp;
    double desc_seconds = b.cpu_descendants_sum / 100.0 * wall;
    if (desc_seconds < 0.49 || desc_seconds > 0.51)
        fail_msg("descendants' CPU %.3f s over the interval, expected 0.5 s", desc_seconds);
    assert_true(b.cpu_main_sum == 0.0);
    gt_sampler_free(&s);
}

static void test_vanishing_files(void **state)
{
    (void)state;
    gt_sampler *s = new_sampler();
    gt_sample a;
    take(s, &a);
    /* 2000 exits between its stat and its memory files (its faults say
     * its memory changed). */
    put_stat_faults(2000, 1000, 1010, 0, 500, 11);
    fakeproc_drop("2000/smaps_rollup");
    fakeproc_drop("2000/smaps");
    vanish("2000/status"); /* what a descriptor kept open reads now */
    fakeproc_drop("2000/status");
    take(s, &a);
    assert_int_equal(a.main.private_rss, 4000 * KB);
    assert_int_equal(a.descendants.private_rss, 0);
    assert_int_equal(a.combined.private_rss, 4000 * KB);
    /* Its folder is gone although its parent still lists it. */
    vanish("2000/stat");
    fakeproc_drop("2000");
    take(s, &a);
    assert_int_equal(a.descendants_n_threads, 0);
    assert_int_equal(a.main_n_threads, 1);
    assert_true(a.cpu_descendants_sum >= 0 && a.cpu_main_sum >= 0);
    /* A new child whose stat is garbage is left out. */
    put("3000/stat", "3000 (p3000) S 1000 garbage\n");
    put_children(1000, "3000 ");
    take(s, &a);
    assert_int_equal(a.descendants_n_threads, 0);
    assert_int_equal(a.main.private_rss, 4000 * KB);
    /* The main process vanishes: the sample still comes, without it. */
    vanish("1000/stat");
    fakeproc_drop("1000");
    take(s, &a);
    assert_false(gt_sampler_main_alive(s));
    assert_int_equal(a.main.private_rss, 0);
    gt_sampler_free(&s);
}

/* A live process parked in a read (its CPU clock stands still), and
 * whether the kernel shows it asleep. */
static pid_t parked(const int hold[2])
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = hold[0];
        close(hold[1]); /* so that the test's close ends the read */
        char c;
        while (read(fd, &c, 1) < 0)
            ;
        _exit(0);
    }
    return pid;
}

static void wait_asleep(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (int i = 0; i < 600000; i++) {
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        if (p && p[1] == ' ' && p[2] == 'S')
            return;
        pause_ms(1);
    }
    fail_msg("process %d never went to sleep", (int)pid);
}

/* An idle process whose children list could not be read: the list is
 * incomplete, and the next sample must read it again although the process
 * did not run (its figures are otherwise reused).  The tree is fake, its
 * PIDs live processes whose clocks stand still. */
static void test_idle_incomplete_children(void **state)
{
    (void)state;
    int hold[2];
    assert_int_equal(pipe(hold), 0);
    pid_t p = parked(hold), k = parked(hold);
    wait_asleep(p);
    wait_asleep(k);
    put_stat(p, 1, 100, 0, 400);
    put_memory(p, 4000);
    put_stat(k, p, 10, 0, 500);
    put_memory(k, 1000);
    put_children(k, "");
    /* p's children file cannot be read at the first sample. */
    gt_sampler_config c = {.main_pid = p, .proc_root = root};
    gt_sampler *s = NULL;
    gt_error e;
    assert_int_equal(gt_sampler_new(&c, &s, &e), GT_OK);
    gt_sampler_use_clocks(s);
    gt_sampler_set_idle_refresh(s, 1e9); /* no refresh: only the failure makes it read again */
    gt_sample a;
    take(s, &a);
    assert_int_equal(gt_sampler_descendants_alive(s), 0);
    char list[32];
    snprintf(list, sizeof list, "%d ", (int)k);
    put_children(p, list);
    take(s, &a);
    assert_int_equal(gt_sampler_descendants_alive(s), 1);
    assert_int_equal(a.descendants.private_rss, 1000 * KB);
    take(s, &a); /* idle now, its complete list reused */
    assert_int_equal(gt_sampler_descendants_alive(s), 1);
    gt_sampler_free(&s);
    close(hold[1]);
    assert_int_equal(waitpid(p, NULL, 0), p);
    assert_int_equal(waitpid(k, NULL, 0), k);
    close(hold[0]);
}

static void put_io(int pid, unsigned long long rb, unsigned long long wb)
{
    char rel[64], text[256];
    snprintf(rel, sizeof rel, "%d/io", pid);
    snprintf(text, sizeof text, "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: %llu\nwrite_bytes: %llu\n"
             "cancelled_write_bytes: 0\n", rb, wb);
    put(rel, text);
}

static double disk_read(const gt_sample *a, int set)
{
    return a->tree[GT_TREE_SUM(GT_PV_DISK_READ, set)];
}

/* Children reaped between their stat and their io file: their disk
 * counters are their last ones (the parent holds their final ones once
 * read after the reaping) or, for a process never read before, 0; not
 * unreadable, which would blank the tree's figure.  A live process without
 * the file (a kernel built without the counters) is unreadable. */
static void test_reaped_between_stat_and_io(void **state)
{
    (void)state;
    put_io(1000, 4096, 8192);
    put_io(2000, 1000000, 2000000);
    put_children(1000, "2000 3000 ");
    put_stat(3000, 1000, 5, 0, 600);
    put_memory(3000, 10);
    put_children(3000, "");
    put_io(3000, 50000, 0);
    gt_sampler *s = new_sampler();
    gt_sample a;
    take(s, &a);
    assert_true(disk_read(&a, 1) == 1050000 && disk_read(&a, 2) == 1054096);
    /* 2000 ran (its faults moved), then was reaped after its stat was
     * read: the descriptor kept on its stat reads on, its folder is gone.
     * PID 3000 is a new process (a later start), reaped the same way. */
    put_stat_faults(2000, 1000, 1010, 0, 500, 11);
    vanish("2000/io");
    fakeproc_drop("2000");
    put_stat(3000, 1000, 5, 0, 900);
    vanish("3000/io");
    fakeproc_drop("3000");
    take(s, &a);
    assert_int_equal(a.descendants_n_threads, 2); /* both read, from their stat */
    assert_true(disk_read(&a, 1) == 1000000 && disk_read(&a, 2) == 1004096);
    assert_int_equal(a.probe_err[GT_PROBE_IO], 0);
    /* 4000 lives, without an io file. */
    put_children(1000, "4000 ");
    put_stat(4000, 1000, 5, 0, 950);
    put_memory(4000, 10);
    put_children(4000, "");
    take(s, &a);
    assert_true(disk_read(&a, 0) == 4096 && isnan(disk_read(&a, 1)) && isnan(disk_read(&a, 2)));
    assert_int_equal(a.probe_err[GT_PROBE_IO], ENOENT);
    gt_sampler_free(&s);
}

static void test_main_missing_at_start(void **state)
{
    (void)state;
    vanish("1000/stat");
    fakeproc_drop("1000");
    gt_sampler *s = new_sampler();
    gt_sample a;
    gt_error e;
    assert_int_equal(gt_sampler_take(s, &a, &e), GT_ERR_NOPROC);
    assert_non_null(strstr(e.msg, "1000"));
    gt_sampler_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pid_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vanishing_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_main_missing_at_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reaped_between_stat_and_io, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idle_incomplete_children, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
