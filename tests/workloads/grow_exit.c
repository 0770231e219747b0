/* SPDX-License-Identifier: MIT */
/* grow_exit MiB IDLE_MS HOLD_MS FILE: idles, then grows by MiB, holds it for
 * HOLD_MS and exits right after writing its own VmHWM (kB, from
 * /proc/self/status) to FILE: a peak in the last moments of a process,
 * which only a figure taken at its exit can see, with the truth beside it. */
#include <fcntl.h>

#include "wl.h"

#define USAGE "grow_exit MiB IDLE_MS HOLD_MS FILE"

int main(int argc, char **argv)
{
    if (argc != 5)
        wl_usage(USAGE);
    long mib = wl_long(argv[1], 0, 1L << 20, USAGE);
    long idle = wl_long(argv[2], 0, 86400000L, USAGE);
    long hold = wl_long(argv[3], 0, 86400000L, USAGE);
    wl_sleep((double)idle / 1000);
    char *p = wl_touch(mib);
    wl_sleep((double)hold / 1000);
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (n <= 0)
        wl_die("/proc/self/status");
    buf[n] = '\0';
    const char *h = strstr(buf, "VmHWM:");
    FILE *out = fopen(argv[4], "w");
    if (!h || !out || fprintf(out, "%ld\n", strtol(h + 6, NULL, 10)) < 0 || fclose(out) != 0)
        wl_die(argv[4]);
    (void)p; /* held to the end: the peak is at exit */
    return 0;
}
