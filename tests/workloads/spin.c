/* SPDX-License-Identifier: MIT */
/* spin THREADS MS [LOG]: THREADS threads spin for MS milliseconds of wall
 * time without a system call (the monotonic clock is read through the
 * vDSO), so the kernel updates their CPU time only at its scheduler tick,
 * the case where a naive per-interval CPU percent is noise.  At the end it
 * prints its own ground truth on stdout, measured by the kernel for this
 * process: "cpu_s wall_s", its whole CPU time (all threads) and the wall
 * time from its start to that read.  With LOG, the main thread (otherwise
 * waiting) also writes "unix_time cpu_s" lines there every 5 ms, to
 * compare any span of a tracking file with; each is late by at most one
 * scheduler tick per spinning thread. */
#include <pthread.h>

#include "wl.h"

#define USAGE "spin THREADS MS [LOG]"

static volatile unsigned long sink;

static double seconds(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        wl_die("clock_gettime");
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
    double until = *(const double *)arg;
    while (seconds(CLOCK_MONOTONIC) < until)
        for (int i = 0; i < 10000; i++)
            sink += (unsigned long)i;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        wl_usage(USAGE);
    long n = wl_long(argv[1], 1, 1024, USAGE);
    double start = seconds(CLOCK_MONOTONIC);
    double until = start + (double)wl_long(argv[2], 0, 86400000L, USAGE) / 1000;
    pthread_t *t = calloc((size_t)n, sizeof *t);
    if (!t)
        wl_die("calloc");
    for (long i = 0; i < n; i++) {
        errno = pthread_create(&t[i], NULL, spin, &until);
        if (errno)
            wl_die("pthread_create");
    }
    if (argc == 4) {
        FILE *log = fopen(argv[3], "w");
        if (!log)
            wl_die(argv[3]);
        struct timespec pause = {0, 5000000L};
        do {
            fprintf(log, "%.6f %.6f\n", seconds(CLOCK_REALTIME), seconds(CLOCK_PROCESS_CPUTIME_ID));
            nanosleep(&pause, NULL);
        } while (seconds(CLOCK_MONOTONIC) < until);
        if (fclose(log) != 0)
            wl_die(argv[3]);
    }
    for (long i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    free(t);
    double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
    printf("%.6f %.6f\n", cpu, seconds(CLOCK_MONOTONIC) - start);
    return 0;
}
