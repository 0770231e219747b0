/* SPDX-License-Identifier: MIT */
/* cpu_account OUT CMD [ARG...]: runs CMD as a child, waits for it, and
 * writes to OUT the CPU seconds each part used, measured by the kernel:
 * "child_s self_s exit_s".  child_s is CMD's whole life (wait4's rusage:
 * its exec, its threads, its exit); self_s is this process's own (its
 * getrusage just before it writes, which covers its life since it was
 * forked, a launcher's held child before its exec included); exit_s is the
 * whole life of a child forked only to exit at once, which bounds what
 * this process's own exit after the write costs.  So a cgroup made for
 * this process before its exec counts between child_s and child_s +
 * self_s + exit_s of CPU time. */
#include <sys/resource.h>

#include "wl.h"

#define USAGE "cpu_account OUT CMD [ARG...]"

static double seconds(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 + (double)ru->ru_stime.tv_sec +
           (double)ru->ru_stime.tv_usec / 1e6;
}

/* Runs argv (NULL: a child that exits at once); its CPU seconds. */
static double run(char **argv)
{
    pid_t pid = fork();
    if (pid < 0)
        wl_die("fork");
    if (pid == 0) {
        if (argv)
            execvp(argv[0], argv);
        _exit(argv ? 127 : 0);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid)
        wl_die("wait4");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "cpu_account: the command failed (status %d)\n", st);
        exit(1);
    }
    return seconds(&ru);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        wl_usage(USAGE);
    /* Opened first, so that after the read of our own time only one write
     * and the exit remain. */
    FILE *f = fopen(argv[1], "w");
    if (!f)
        wl_die(argv[1]);
    double child = run(argv + 2), exit_s = run(NULL);
    struct rusage self;
    if (getrusage(RUSAGE_SELF, &self) != 0)
        wl_die("getrusage");
    if (fprintf(f, "%.6f %.6f %.6f\n", child, seconds(&self), exit_s) < 0 || fflush(f) != 0)
        wl_die(argv[1]);
    _exit(0);
}
