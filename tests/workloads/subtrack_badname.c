/* SPDX-License-Identifier: MIT */
/* subtrack_badname MARKS_FILE SECONDS: names itself with bytes that are
 * not UTF-8 and control characters (prctl PR_SET_NAME "\xff\xfebad\x1b[31m\n",
 * as any program may), then marks two code blocks of SECONDS each whose
 * names hold the same: "\xff\xfeblock" and "red\x1b[31m\nline".  Links
 * libgputracker for the marks. */
#include <sys/prctl.h>

#include "gpu_tracker.h"
#include "wl.h"

#define USAGE "subtrack_badname MARKS_FILE SECONDS"

static int block(gt_subtracker *st, const char *name, double seconds, gt_error *err)
{
    if (gt_subtracker_mark(st, name, 0, err) != GT_OK)
        return -1;
    wl_sleep(seconds);
    return gt_subtracker_mark(st, name, 1, err) == GT_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        wl_usage(USAGE);
    double seconds = wl_seconds(argv[2], USAGE);
    if (prctl(PR_SET_NAME, "\xff\xfe" "bad\x1b[31m\n", 0, 0, 0) != 0)
        wl_die("prctl");
    gt_subtracker *st;
    gt_error err;
    if (gt_subtracker_open(argv[1], 0, &st, &err) != GT_OK) {
        fprintf(stderr, "workload: %s\n", err.msg);
        return 1;
    }
    int rc = block(st, "\xff\xfe" "block", seconds, &err) == 0 && block(st, "red\x1b[31m\nline", seconds, &err) == 0
                 ? 0
                 : 1;
    if (rc)
        fprintf(stderr, "workload: %s\n", err.msg);
    gt_subtracker_free(&st);
    return rc;
}
