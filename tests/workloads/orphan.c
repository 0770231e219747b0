/* SPDX-License-Identifier: MIT */
/* orphan SECONDS MiB: a child forks a grandchild and exits at once, so the
 * grandchild is orphaned (re-parented away from this process); it touches
 * MiB and lives SECONDS.  This process waits SECONDS + 0.2 and exits. */
#include "wl.h"

#define USAGE "orphan SECONDS MiB"

int main(int argc, char **argv)
{
    if (argc != 3)
        wl_usage(USAGE);
    double secs = wl_seconds(argv[1], USAGE);
    long mib = wl_long(argv[2], 0, 1L << 20, USAGE);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t child = fork();
    if (child < 0)
        wl_die("fork");
    if (child == 0) {
        pid_t grandchild = fork();
        if (grandchild < 0)
            _exit(1);
        if (grandchild == 0) {
            char *p = wl_touch(mib);
            wl_sleep(secs);
            wl_release(p, mib);
        }
        _exit(0);
    }
    int rc = wl_wait_children();
    /* SECONDS + 0.2 from the fork, whatever the intermediate took. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double left = secs + 0.2 - ((double)(now.tv_sec - start.tv_sec) +
                                (double)(now.tv_nsec - start.tv_nsec) / 1e9);
    if (left > 0)
        wl_sleep(left);
    return rc;
}
