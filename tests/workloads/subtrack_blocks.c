/* SPDX-License-Identifier: MIT */
/* subtrack_blocks MARKS_FILE MiB: marks named code blocks whose truth is
 * known while a tracker samples it: "idle" (3 calls of 0.3 s, no extra
 * memory), "hold" (the whole function: MiB of written memory held 0.6 s),
 * and an unnamed block (named file:line) of 0.2 s after the memory is gone.
 * Links libgputracker for the marks. */
#include "gpu_tracker.h"
#include "wl.h"

#define USAGE "subtrack_blocks MARKS_FILE MiB"

static gt_subtracker *st;

static void hold(long mib)
{
    GT_SUBTRACK_FUNCTION(st);
    char *p = wl_touch(mib);
    wl_sleep(0.6);
    wl_release(p, mib);
}

int main(int argc, char **argv)
{
    gt_error err;
    if (argc != 3)
        wl_usage(USAGE);
    long mib = wl_long(argv[2], 1, 1L << 20, USAGE);
    if (gt_subtracker_open(argv[1], 0, &st, &err) != GT_OK) {
        fprintf(stderr, "workload: %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        GT_SUBTRACK_SCOPE(st, "idle");
        wl_sleep(0.3);
    }
    hold(mib);
    {
        GT_SUBTRACK_SCOPE(st, NULL);
        wl_sleep(0.2);
    }
    int rc = gt_subtracker_status(st, &err) == GT_OK ? 0 : 1;
    if (rc)
        fprintf(stderr, "workload: %s\n", err.msg);
    gt_subtracker_free(&st);
    return rc;
}
