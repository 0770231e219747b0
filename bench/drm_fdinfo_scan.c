/* SPDX-License-Identifier: MIT */
/* What the DRM fdinfo backend costs per sample for a tracked process with
 * many descriptors: this process opens N character devices (/dev/null) and N
 * pipes, then the backend, over this machine's real /proc and a one-card
 * fixture /sys (argv[1]), lists it SAMPLES times.  The first sample reads
 * the fdinfo of every character device; the later ones find them known and
 * stat each descriptor only.  Prints thread CPU microseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "gpu/drm_fdinfo.h"

static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s SYSFS_ROOT N SAMPLES\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[2]), samples = atoi(argv[3]);
    for (int k = 0; k < n; k++) {
        int p[2];
        if (open("/dev/null", O_RDONLY) < 0 || pipe(p) != 0) {
            perror("open");
            return 1;
        }
    }
    void *st = NULL;
    int count = 0;
    gt_gpu_why why = {0};
    if (gt_drm_fdinfo_open(NULL, argv[1], NULL, &st, &count, &why) != GT_GPU_FOUND) {
        fprintf(stderr, "no DRM card under %s\n", argv[1]);
        return 1;
    }
    pid_t me = getpid();
    gt_pidset pids = {&me, 1, NULL, 0};
    gt_gpu_procs p = {.pids = &pids, .want_sm = 1};
    double first = 0, t0 = cpu_us();
    for (int s = 1; s <= samples + 1; s++) {
        p.seq = (unsigned long)s;
        p.n = 0;
        if (gt_gpu_drm_fdinfo.processes(st, 0, &p, &why) != GT_GPU_OK) {
            fprintf(stderr, "%s\n", why.detail);
            return 1;
        }
        if (s == 1) {
            first = cpu_us() - t0;
            t0 = cpu_us();
        }
    }
    double steady = (cpu_us() - t0) / samples;
    printf("%d character devices + %d pipes (both ends): first sample %.0f us, then %.1f us a sample (%.2f us a descriptor)\n",
           n, n, first, steady, steady / (3.0 * n + 3));
    free(p.v);
    gt_gpu_drm_fdinfo.shutdown(st);
    return 0;
}
