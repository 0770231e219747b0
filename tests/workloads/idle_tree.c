/* SPDX-License-Identifier: MIT */
/* idle_tree N SECONDS: N child processes that sleep SECONDS while the parent
 * waits; what the overhead benchmark tracks. */
#include "wl.h"

#define USAGE "idle_tree N SECONDS"

int main(int argc, char **argv)
{
    if (argc != 3)
        wl_usage(USAGE);
    long n = wl_long(argv[1], 0, 4096, USAGE);
    double secs = wl_seconds(argv[2], USAGE);
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            wl_die("fork");
        if (pid == 0) {
            wl_sleep(secs);
            _exit(0);
        }
    }
    return wl_wait_children();
}
