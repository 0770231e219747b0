/* SPDX-License-Identifier: MIT */
/* touch_mem MiB HOLD: holds exactly MiB of private, written memory for HOLD
 * (seconds, or an event such as rows=N@FILE or file=PATH, see wl.h), so a
 * tracker's private RSS and peak can be checked against it. */
#include "wl.h"

#define USAGE "touch_mem MiB HOLD"

int main(int argc, char **argv)
{
    if (argc != 3)
        wl_usage(USAGE);
    long mib = wl_long(argv[1], 0, 1L << 20, USAGE);
    wl_hold_spec hold = wl_hold_parse(argv[2], USAGE);
    char *p = wl_touch(mib);
    wl_hold(hold);
    wl_release(p, mib);
    return 0;
}
