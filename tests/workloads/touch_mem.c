/* SPDX-License-Identifier: MIT */
/* touch_mem MiB SECONDS: holds exactly MiB of private, written memory for
 * SECONDS, so a tracker's private RSS and peak can be checked against it. */
#include "wl.h"

#define USAGE "touch_mem MiB SECONDS"

int main(int argc, char **argv)
{
    if (argc != 3)
        wl_usage(USAGE);
    long mib = wl_long(argv[1], 0, 1L << 20, USAGE);
    double secs = wl_seconds(argv[2], USAGE);
    char *p = wl_touch(mib);
    wl_sleep(secs);
    wl_release(p, mib);
    return 0;
}
