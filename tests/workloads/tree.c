/* SPDX-License-Identifier: MIT */
/* tree K SECONDS [MiB]: K child processes that each (touch MiB and) sleep
 * SECONDS; the parent waits for them.  Exits 1 if a child failed. */
#include "wl.h"

#define USAGE "tree K SECONDS [MiB]"

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        wl_usage(USAGE);
    long k = wl_long(argv[1], 0, 4096, USAGE);
    double secs = wl_seconds(argv[2], USAGE);
    long mib = argc == 4 ? wl_long(argv[3], 0, 1L << 20, USAGE) : 0;
    for (long i = 0; i < k; i++)
        wl_fork_holding(mib, secs);
    return wl_wait_children();
}
