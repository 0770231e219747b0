/* SPDX-License-Identifier: MIT */
/* orphan_cpu MS HOLD OUT: a child forks a grandchild and exits at once, so
 * the grandchild is orphaned and reaped by the tracker (a subreaper); the
 * grandchild burns MS milliseconds of CPU in a child of its own that it
 * reaps, then exits.  This process waits until the grandchild has been
 * reaped, holds (HOLD: seconds, or an event such as rows=N@FILE, see wl.h)
 * so that samples after the reaping are taken, and writes to OUT the CPU
 * seconds its descendants used, measured by themselves: the grandchild's
 * getrusage (itself and the child it reaped), just before it exits, plus
 * this process's reaped child's.  That is the truth a tracker's descendants'
 * CPU time is checked against, whatever else a loaded machine runs. */
#include <signal.h>
#include <sys/resource.h>

#include "wl.h"

#define USAGE "orphan_cpu MS HOLD OUT"

static double cpu_of(int who)
{
    struct rusage ru;
    if (getrusage(who, &ru) != 0)
        wl_die("getrusage");
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

/* The grandchild: burns in a child, reaps it, and says its PID and CPU
 * seconds on fd; its exit closes fd. */
static void orphan(long ms, int fd)
{
    pid_t burner = fork();
    if (burner < 0)
        _exit(1);
    if (burner == 0) {
        wl_burn((double)ms / 1000);
        _exit(0);
    }
    int st;
    if (waitpid(burner, &st, 0) != burner || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        _exit(1);
    char line[64];
    int n = snprintf(line, sizeof line, "%d %.6f\n", (int)getpid(),
                     cpu_of(RUSAGE_SELF) + cpu_of(RUSAGE_CHILDREN));
    if (write(fd, line, (size_t)n) != n)
        _exit(1);
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc != 4)
        wl_usage(USAGE);
    long ms = wl_long(argv[1], 0, 86400000L, USAGE);
    wl_hold_spec hold = wl_hold_parse(argv[2], USAGE);
    const char *out = argv[3];
    int said[2];
    if (pipe(said) != 0)
        wl_die("pipe");
    pid_t child = fork();
    if (child < 0)
        wl_die("fork");
    if (child == 0) {
        close(said[0]);
        pid_t grandchild = fork();
        if (grandchild < 0)
            _exit(1);
        if (grandchild == 0)
            orphan(ms, said[1]);
        _exit(0);
    }
    close(said[1]);
    if (wl_wait_children() != 0)
        wl_die("the child failed");
    /* The grandchild's line, then EOF at its exit. */
    char buf[64];
    size_t len = 0;
    ssize_t n;
    while ((n = read(said[0], buf + len, sizeof buf - 1 - len)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            wl_die("read");
        len += (size_t)n;
        if (len == sizeof buf - 1)
            break;
    }
    buf[len] = 0;
    int pid;
    double orphan_cpu;
    if (sscanf(buf, "%d %lf", &pid, &orphan_cpu) != 2) {
        fprintf(stderr, "orphan_cpu: the grandchild said nothing (it failed)\n");
        return 1;
    }
    /* Exited; a zombie until its new parent reaps it. */
    double end = wl_mono() + WL_HOLD_CAP;
    while (kill(pid, 0) == 0 || errno != ESRCH) {
        if (wl_mono() > end) {
            fprintf(stderr, "orphan_cpu: the grandchild %d was not reaped in %.0f s\n", pid, WL_HOLD_CAP);
            return 1;
        }
        wl_sleep(0.01);
    }
    wl_hold(hold);
    FILE *f = fopen(out, "w");
    if (!f)
        wl_die(out);
    fprintf(f, "%.6f\n", orphan_cpu + cpu_of(RUSAGE_CHILDREN));
    if (fclose(f) != 0)
        wl_die(out);
    return 0;
}
