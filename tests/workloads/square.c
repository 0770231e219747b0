/* SPDX-License-Identifier: MIT */
/* square N BURST_MS SLEEP_MS LOG: N times, one thread spins for BURST_MS of
 * wall time, then sleeps for SLEEP_MS: a square wave of CPU use.  Its
 * ground truth goes to LOG, one line a sleep: "START END CPU_START
 * CPU_END", the Unix times (CLOCK_REALTIME) just before and just after the
 * sleep and the process's CPU time (seconds) read at each, so that a
 * tracker's rows inside a sleep can be checked against the CPU time the
 * process used there (none but the reads).  It prints its CPU seconds,
 * then "tick T", the scheduler tick in seconds. */
#include "wl.h"

#define USAGE "square N BURST_MS SLEEP_MS LOG"

static volatile unsigned long sink;

static double seconds(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        wl_die("clock_gettime");
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        wl_usage(USAGE);
    long n = wl_long(argv[1], 1, 100000, USAGE);
    double burst = (double)wl_long(argv[2], 0, 86400000L, USAGE) / 1000;
    double pause = (double)wl_long(argv[3], 0, 86400000L, USAGE) / 1000;
    FILE *log = fopen(argv[4], "w");
    if (!log)
        wl_die(argv[4]);
    for (long i = 0; i < n; i++) {
        double until = seconds(CLOCK_MONOTONIC) + burst;
        while (seconds(CLOCK_MONOTONIC) < until)
            for (int k = 0; k < 10000; k++)
                sink += (unsigned long)k;
        double t0 = seconds(CLOCK_REALTIME), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
        wl_sleep(pause);
        double t1 = seconds(CLOCK_REALTIME), c1 = seconds(CLOCK_PROCESS_CPUTIME_ID);
        fprintf(log, "%.6f %.6f %.6f %.6f\n", t0, t1, c0, c1);
    }
    if (fclose(log) != 0)
        wl_die(argv[4]);
    printf("%.6f\n", seconds(CLOCK_PROCESS_CPUTIME_ID));
    /* The scheduler tick (the coarse clock's resolution): how late a
     * running thread's time may reach its process's clock. */
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0)
        wl_die("clock_getres");
    printf("tick %.6f\n", (double)res.tv_sec + (double)res.tv_nsec / 1e9);
    return 0;
}
