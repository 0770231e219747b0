/* SPDX-License-Identifier: MIT */
/* Helpers shared by the ground-truth workloads (each .c file here is
 * a separate program that includes this).  Failures print one line on
 * stderr and exit: 2 for a bad argument, 1 for a failed system call. */
#ifndef GT_WORKLOAD_H
#define GT_WORKLOAD_H
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WL_MIB ((size_t)1 << 20)

static inline void wl_usage(const char *usage)
{
    fprintf(stderr, "usage: %s\n", usage);
    exit(2);
}

static inline void wl_die(const char *what)
{
    fprintf(stderr, "workload: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* A whole decimal argument in [lo, hi], or the usage message. */
static inline long wl_long(const char *s, long lo, long hi, const char *usage)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "invalid number '%s': expected an integer from %ld to %ld\n", s, lo, hi);
        wl_usage(usage);
    }
    return v;
}

/* A number of seconds (fractions allowed), 0 to one day. */
static inline double wl_seconds(const char *s, const char *usage)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 86400) {
        fprintf(stderr, "invalid duration '%s': expected seconds from 0 to 86400\n", s);
        wl_usage(usage);
    }
    return v;
}

/* Sleeps the whole duration, resuming after signal handlers. */
static inline void wl_sleep(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* How long a workload holds a state for the tracker to sample it: a
 * duration, or until an event, so that a test needs no guess of how soon a
 * loaded machine (or a tracker under valgrind) takes its samples.
 *   SECONDS          that long
 *   rows=N@FILE      until the tracking file FILE (CSV, which must exist)
 *                    has N more lines than when the hold began: N - 1
 *                    samples at least were taken wholly after it began
 *                    (the first may have been under way)
 *   file=PATH        until PATH exists (a test that waits for what it
 *                    expects in the tracker's output, then releases)
 * An event that has not come after WL_HOLD_CAP seconds fails the workload
 * (exit 1), so a tracker that died cannot leave it waiting for ever. */
#define WL_HOLD_CAP 600.0

typedef struct wl_hold_spec {
    double secs;
    long rows;
    const char *path; /* NULL for a duration */
} wl_hold_spec;

static inline wl_hold_spec wl_hold_parse(const char *s, const char *usage)
{
    wl_hold_spec h = {0, 0, NULL};
    if (strncmp(s, "file=", 5) == 0 && s[5]) {
        h.path = s + 5;
        return h;
    }
    if (strncmp(s, "rows=", 5) == 0) {
        const char *at = strchr(s, '@');
        char n[24];
        if (!at || !at[1] || at - (s + 5) < 1 || at - (s + 5) >= (long)sizeof n) {
            fprintf(stderr, "invalid hold '%s': expected rows=N@FILE\n", s);
            wl_usage(usage);
        }
        memcpy(n, s + 5, (size_t)(at - (s + 5)));
        n[at - (s + 5)] = 0;
        h.rows = wl_long(n, 1, 1000000, usage);
        h.path = at + 1;
        return h;
    }
    h.secs = wl_seconds(s, usage);
    return h;
}

/* Lines of a file, 0 while it does not exist. */
static inline long wl_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static inline double wl_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void wl_hold(wl_hold_spec h)
{
    if (!h.path) {
        wl_sleep(h.secs);
        return;
    }
    /* A tracking file is there, header and all, before its command runs:
     * one that is not was named wrongly (or belongs to a tracker started
     * later, whose header lines would count as rows). */
    if (h.rows && access(h.path, F_OK) != 0)
        wl_die(h.path);
    long want = h.rows ? wl_lines(h.path) + h.rows : 0;
    double end = wl_mono() + WL_HOLD_CAP;
    while (h.rows ? wl_lines(h.path) < want : access(h.path, F_OK) != 0) {
        if (wl_mono() > end) {
            fprintf(stderr, "workload: gave up waiting for '%s' after %.0f s\n", h.path, WL_HOLD_CAP);
            exit(1);
        }
        wl_sleep(0.01);
    }
}

/* Uses secs of the calling thread's CPU time (its own clock, not wall
 * time, so a loaded machine only makes it take longer). */
static inline void wl_burn(double secs)
{
    struct timespec ts;
    unsigned long sink = 0;
    for (;;) {
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
            wl_die("clock_gettime");
        if ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 >= secs)
            return;
        for (int i = 0; i < 100000; i++) {
            sink += (unsigned long)i;
            __asm__ volatile("" : "+r"(sink)); /* so the compiler keeps the loop */
        }
    }
}

/* Maps mib MiB of private anonymous memory and writes every page, so the
 * process's private RSS grows by exactly that much.  NULL for 0 MiB. */
static inline char *wl_touch(long mib)
{
    if (mib == 0)
        return NULL;
    size_t len = (size_t)mib * WL_MIB, page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        wl_die("mmap");
    for (size_t i = 0; i < len; i += page)
        p[i] = 1;
    return p;
}

static inline void wl_release(char *p, long mib)
{
    if (p && munmap(p, (size_t)mib * WL_MIB) != 0)
        wl_die("munmap");
}

/* Forks a child that touches mib MiB, holds it (wl_hold) and exits 0;
 * returns the child's PID. */
static inline pid_t wl_fork_holding(long mib, wl_hold_spec hold)
{
    pid_t pid = fork();
    if (pid < 0)
        wl_die("fork");
    if (pid == 0) {
        char *p = wl_touch(mib);
        wl_hold(hold);
        wl_release(p, mib);
        _exit(0);
    }
    return pid;
}

/* Waits for every child; 0 if all exited with status 0. */
static inline int wl_wait_children(void)
{
    int rc = 0, st;
    pid_t pid;
    while ((pid = wait(&st)) > 0 || (pid < 0 && errno == EINTR))
        if (pid > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
            rc = 1;
    return rc;
}
#endif
