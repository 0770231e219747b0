/* SPDX-License-Identifier: MIT */
/* orphan SECONDS MiB: a child forks a grandchild and exits at once, so the
 * grandchild is orphaned (re-parented away from this process); it touches
 * MiB, says so on a pipe and lives SECONDS more.  This process waits for the
 * word, then SECONDS + 0.2, and exits: the grandchild holds its memory for
 * SECONDS however long a loaded machine takes to touch it. */
#include "wl.h"

#define USAGE "orphan SECONDS MiB"

int main(int argc, char **argv)
{
    if (argc != 3)
        wl_usage(USAGE);
    double secs = wl_seconds(argv[1], USAGE);
    long mib = wl_long(argv[2], 0, 1L << 20, USAGE);
    int touched[2];
    if (pipe(touched) != 0)
        wl_die("pipe");
    pid_t child = fork();
    if (child < 0)
        wl_die("fork");
    if (child == 0) {
        pid_t grandchild = fork();
        if (grandchild < 0)
            _exit(1);
        if (grandchild == 0) {
            char *p = wl_touch(mib);
            if (write(touched[1], "t", 1) != 1)
                _exit(1);
            wl_sleep(secs);
            wl_release(p, mib);
        }
        _exit(0);
    }
    close(touched[1]);
    char word;
    if (read(touched[0], &word, 1) != 1)
        wl_die("the grandchild touched nothing");
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int rc = wl_wait_children();
    /* SECONDS + 0.2 from the touch, whatever the intermediate took. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double left = secs + 0.2 - ((double)(now.tv_sec - start.tv_sec) +
                                (double)(now.tv_nsec - start.tv_nsec) / 1e9);
    if (left > 0)
        wl_sleep(left);
    return rc;
}
