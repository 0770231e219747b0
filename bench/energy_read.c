/* SPDX-License-Identifier: MIT */
/* Cost of one energy reading: every RAPL counter re-read through its open
 * fd (one pread each) and folded into the totals, as each sample does.
 * Prints the domains found and the mean wall and CPU time per reading.
 *
 *   energy_read SYSFS_ROOT [READINGS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "energy/energy.h"

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: energy_read SYSFS_ROOT [READINGS]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 100000;
    gt_energy *e;
    gt_error err;
    if (n <= 0 || gt_energy_open(argv[1], &e, &err) != GT_OK) {
        fprintf(stderr, "energy_read: cannot open counters\n");
        return 1;
    }
    gt_usage u;
    gt_energy_usage(e, GT_ENERGY_UNIT_JOULES, &u);
    int readable = 0;
    gt_energy_reading r;
    gt_sample s;
    memset(&s, 0, sizeof s);
    gt_energy_read(e, &r);
    for (int i = 0; i < u.energy.n_domains; i++)
        readable += r.ok[i];
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < n; i++) {
        gt_energy_read(e, &r);
        gt_energy_fold(e, &r, &s);
    }
    double w = now(CLOCK_MONOTONIC) - w0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    printf("domains: %d (%d readable) under %s\n", u.energy.n_domains, readable, argv[1]);
    printf("readings: %ld\n", n);
    printf("per reading: %.2f us wall, %.2f us CPU\n", w / (double)n * 1e6, c / (double)n * 1e6);
    gt_energy_close(&e);
    return 0;
}
