/* SPDX-License-Identifier: MIT */
/* events_read N...: the cost of one sample's read of the event backend
 * (gt_events_read: the sums under their lock, the programs' recursion
 * misses, the main process's record) with N processes in the tree: for
 * each N, forks N idle children after the backend is loaded (each one a
 * member through its fork event), times 20,000 reads and prints the
 * microseconds per read; then ends the children.  Needs root, or CAP_BPF
 * with CAP_PERFMON. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "events/events.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    gt_events *e;
    gt_error err;
    if (gt_events_open(getpid(), &e, &err) != GT_OK) {
        fprintf(stderr, "events_read: %s\n", err.msg);
        return 1;
    }
    for (int a = 1; a < argc; a++) {
        int n = atoi(argv[a]);
        pid_t *kids = calloc((size_t)n, sizeof *kids);
        for (int i = 0; i < n && kids; i++)
            if ((kids[i] = fork()) == 0) {
                pause();
                _exit(0);
            }
        gt_events_reading r;
        gt_events_read(e, &r);
        const int reads = 20000;
        double t0 = now();
        for (int i = 0; i < reads; i++)
            gt_events_read(e, &r);
        double t1 = now();
        printf("  N=%-5d processes in the tree %-5llu %.2f us per read\n", n,
               (unsigned long long)(r.n_members - r.n_exited) + 1, (t1 - t0) * 1e6 / reads);
        for (int i = 0; i < n && kids; i++)
            kill(kids[i], SIGKILL);
        while (wait(NULL) > 0)
            ;
        free(kids);
    }
    gt_events_close(&e);
    return 0;
}
