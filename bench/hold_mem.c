/* SPDX-License-Identifier: MIT */
/* hold_mem MiB SECONDS: writes MiB of private memory, says "held" on
 * stdout, then spins for SECONDS (so a tracker sees it active), and prints
 * its own CPU seconds on stderr.
 * hold_mem -f MiB ROUNDS: a page-fault-heavy workload instead: ROUNDS
 * times maps MiB, writes every page, unmaps it; prints its wall seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* populate: let the kernel fill the pages in one call rather than one
 * fault per page (much faster in a virtual machine). */
static char *touch(size_t bytes, int populate)
{
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < bytes; i += (size_t)page)
        p[i] = 1;
    return p;
}

int main(int argc, char **argv)
{
    int faults = argc == 4 && strcmp(argv[1], "-f") == 0;
    if (argc != 3 && !faults) {
        fprintf(stderr, "usage: hold_mem MiB SECONDS | hold_mem -f MiB ROUNDS\n");
        return 2;
    }
    size_t bytes = (size_t)atol(argv[1 + faults]) << 20;
    if (faults) {
        double t0 = now(CLOCK_MONOTONIC);
        for (long r = atol(argv[3]); r > 0; r--)
            munmap(touch(bytes, 0), bytes);
        fprintf(stderr, "%.6f\n", now(CLOCK_MONOTONIC) - t0);
        return 0;
    }
    touch(bytes, 1);
    printf("held\n");
    fflush(stdout);
    volatile unsigned long sink = 0;
    double until = now(CLOCK_MONOTONIC) + atof(argv[2]);
    while (now(CLOCK_MONOTONIC) < until)
        for (int i = 0; i < 100000; i++)
            sink += (unsigned long)i;
    fprintf(stderr, "%.6f\n", now(CLOCK_PROCESS_CPUTIME_ID));
    return 0;
}
