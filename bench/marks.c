/* SPDX-License-Identifier: MIT */
/* marks DIR N: the cost of one sub-tracking mark, writing N marks (start and
 * stop in turn) to a CSV and to an SQLite file in DIR, from one thread and
 * from 4 threads at once; prints nanoseconds of wall time per mark. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpu_tracker.h"

static long n_marks;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *marker(void *arg)
{
    gt_subtracker *s = arg;
    for (long i = 0; i < n_marks; i++)
        if (gt_subtracker_mark(s, "bench-block", (int)(i % 2), NULL) != GT_OK)
            return (void *)1;
    return NULL;
}

static int run(const char *dir, const char *ext, int threads)
{
    char path[4096];
    gt_subtracker *s;
    gt_error err;
    pthread_t th[4];
    snprintf(path, sizeof path, "%s/marks-%d.%s", dir, threads, ext);
    if (gt_subtracker_open(path, 1, &s, &err) != GT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double t0 = now();
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, marker, s);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    double t = now() - t0;
    int rc = gt_subtracker_status(s, NULL) != GT_OK;
    gt_subtracker_free(&s);
    printf("%-7s %d thread%s  %8.0f ns per mark\n", ext, threads, threads > 1 ? "s" : " ",
           t * 1e9 / (double)(n_marks * threads));
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: marks DIR N\n");
        return 2;
    }
    n_marks = atol(argv[2]);
    return run(argv[1], "csv", 1) | run(argv[1], "csv", 4) | run(argv[1], "sqlite", 1) |
           run(argv[1], "sqlite", 4);
}
