/* SPDX-License-Identifier: MIT */
/* faults MiB ROUNDS: a page-fault-heavy program.  Each round maps MiB of
 * anonymous memory, writes every page (one fault and one RSS counter
 * update each) and unmaps it.  Prints its own wall time in seconds on
 * stderr, so a tracker's start and stop are not in the figure. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: faults MiB ROUNDS\n");
        return 2;
    }
    size_t len = (size_t)atol(argv[1]) << 20, page = (size_t)sysconf(_SC_PAGESIZE);
    long rounds = atol(argv[2]);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long r = 0; r < rounds; r++) {
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        for (size_t i = 0; i < len; i += page)
            p[i] = 1;
        munmap(p, len);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    fprintf(stderr, "%.6f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
