/* SPDX-License-Identifier: MIT */
/* spike MiB HOLD_MS IDLE_MS: idles, holds MiB for HOLD_MS, frees it, idles
 * again.  A short peak that sampling usually misses but the kernel's
 * high-water mark (VmHWM) keeps. */
#include "wl.h"

#define USAGE "spike MiB HOLD_MS IDLE_MS"

int main(int argc, char **argv)
{
    if (argc != 4)
        wl_usage(USAGE);
    long mib = wl_long(argv[1], 0, 1L << 20, USAGE);
    long hold = wl_long(argv[2], 0, 86400000L, USAGE);
    long idle = wl_long(argv[3], 0, 86400000L, USAGE);
    wl_sleep((double)idle / 1000);
    char *p = wl_touch(mib);
    wl_sleep((double)hold / 1000);
    wl_release(p, mib);
    wl_sleep((double)idle / 1000);
    return 0;
}
