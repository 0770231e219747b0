/* SPDX-License-Identifier: MIT */
/* share_later MiB WAIT HOLD: writes MiB of shared anonymous memory and
 * forks a child at once; after WAIT the child maps those pages too (by
 * reading them: a fork does not copy a shared mapping's page tables) and
 * holds them for HOLD.  WAIT and HOLD are seconds, or events such as
 * rows=N@FILE or file=PATH (see wl.h), so that a test can have the child
 * seen before it maps the pages, and sampled as long as it needs after,
 * however slow the machine.  The parent's pages then turn from
 * private (mapped by it alone) to shared without a change in its RSS or in
 * the tree's members: only a page-table walk of the parent can tell, so the
 * parent's shared RSS shows whether a tracker's walk budget allowed one. */
#include "wl.h"

#define USAGE "share_later MiB WAIT HOLD"

int main(int argc, char **argv)
{
    if (argc != 4)
        wl_usage(USAGE);
    long mib = wl_long(argv[1], 1, 1L << 20, USAGE);
    wl_hold_spec wait_s = wl_hold_parse(argv[2], USAGE), hold = wl_hold_parse(argv[3], USAGE);
    size_t bytes = (size_t)mib * WL_MIB;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        wl_die("mmap");
    memset(p, 1, bytes);
    pid_t child = fork();
    if (child < 0)
        wl_die("fork");
    if (child == 0) {
        wl_hold(wait_s);
        volatile char sum = 0;
        for (size_t i = 0; i < bytes; i += 4096)
            sum = (char)(sum + p[i]);
        wl_hold(hold);
        _exit(0); /* sum is volatile: the reads happen */
    }
    return wl_wait_children();
}
