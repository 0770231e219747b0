/* SPDX-License-Identifier: MIT */
/* proc_family PARENT_MiB A_MiB A_MS B_MiB B_MS: a parent and two children
 * with known PIDs, names and use, for per-process rows.  The parent forks
 * child A ("pf_child_a") and child B ("pf_child_b"), writes the PIDs to
 * pf_parent.pid, pf_a.pid and pf_b.pid in the current folder (each written
 * whole, then renamed into place), then touches PARENT_MiB.  Each child
 * touches its MiB, uses its MS milliseconds of CPU time (its own CPU clock,
 * so a loaded machine only makes it take longer), writes pf_a.done /
 * pf_b.done, and holds its memory until a file named "release" appears
 * (at most 120 s: then it fails), so a test can make sure that samples saw
 * it whole.  The parent exits 0 when both children did. */
#include <sys/prctl.h>

#include "wl.h"

#define USAGE "proc_family PARENT_MiB A_MiB A_MS B_MiB B_MS"

static volatile unsigned long sink;

static double cpu_seconds(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        wl_die("clock_gettime");
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put_file(const char *name, long v)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s.tmp", name);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%ld\n", v) < 0 || fclose(f) != 0 || rename(tmp, name) != 0)
        wl_die(name);
}

static pid_t child(const char *name, long mib, long ms, const char *done)
{
    pid_t pid = fork();
    if (pid < 0)
        wl_die("fork");
    if (pid > 0)
        return pid;
    if (prctl(PR_SET_NAME, name, 0, 0, 0) != 0)
        wl_die("prctl");
    char *p = wl_touch(mib);
    while (cpu_seconds() < (double)ms / 1000)
        for (int i = 0; i < 100000; i++)
            sink += (unsigned long)i;
    put_file(done, 1);
    for (int i = 0; i < 12000 && access("release", F_OK) != 0; i++)
        wl_sleep(0.01);
    if (access("release", F_OK) != 0) {
        fprintf(stderr, "proc_family: no 'release' file after 120 s\n");
        _exit(1);
    }
    wl_release(p, mib);
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc != 6)
        wl_usage(USAGE);
    long parent_mib = wl_long(argv[1], 0, 1L << 20, USAGE);
    long a_mib = wl_long(argv[2], 0, 1L << 20, USAGE), a_ms = wl_long(argv[3], 0, 86400000L, USAGE);
    long b_mib = wl_long(argv[4], 0, 1L << 20, USAGE), b_ms = wl_long(argv[5], 0, 86400000L, USAGE);
    /* Children first, so none of them shares the parent's touched pages. */
    pid_t a = child("pf_child_a", a_mib, a_ms, "pf_a.done");
    pid_t b = child("pf_child_b", b_mib, b_ms, "pf_b.done");
    put_file("pf_a.pid", a);
    put_file("pf_b.pid", b);
    put_file("pf_parent.pid", getpid());
    char *p = wl_touch(parent_mib);
    int rc = wl_wait_children();
    wl_release(p, parent_mib);
    return rc;
}
