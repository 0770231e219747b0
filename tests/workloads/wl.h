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

/* Forks a child that touches mib MiB, holds it for secs and exits 0;
 * returns the child's PID. */
static inline pid_t wl_fork_holding(long mib, double secs)
{
    pid_t pid = fork();
    if (pid < 0)
        wl_die("fork");
    if (pid == 0) {
        char *p = wl_touch(mib);
        wl_sleep(secs);
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
