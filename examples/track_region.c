/* SPDX-License-Identifier: MIT */
/* Tracks a region of this program's own code with libgputracker and prints
 * the report: the C counterpart of Python's `with Tracker() as t: ...`.
 *
 *   build/examples/track_region [MiB]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker.h"

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    /* The version the initializer sets lets later libraries run this
     * program as it was built, whatever fields they add. */
    gt_options opts = GT_OPTIONS_INIT;
    opts.sleep_time = 0.01;
    opts.ram_unit = GT_RAM_UNIT_MEGABYTES;
    opts.time_unit = GT_TIME_UNIT_SECONDS;
    opts.disable_logs = 1;

    gt_tracker *t = NULL;
    gt_error err;
    if (gt_tracker_new(&opts, &t, &err) != GT_OK) {
        fprintf(stderr, "track_region: %s\n", err.msg);
        return 1;
    }
    /* Every failure's message is in the gt_error the call was given. */
    if (gt_tracker_start(t, &err) != GT_OK) {
        fprintf(stderr, "track_region: %s\n", err.msg);
        gt_tracker_free(&t);
        return 1;
    }

    /* The region being measured: touch every page of a buffer. */
    char *buf = malloc(mib << 20);
    if (buf)
        memset(buf, 1, mib << 20);

    gt_status st = gt_tracker_stop(t, &err);
    free(buf);
    gt_usage usage = GT_USAGE_INIT;
    if (st != GT_OK || gt_tracker_usage(t, &usage, &err) != GT_OK) {
        fprintf(stderr, "track_region: %s\n", err.msg);
        gt_tracker_free(&t);
        return 1;
    }
    gt_usage_write(&usage, GT_FORMAT_TEXT, stdout);
    printf("\n");
    gt_tracker_free(&t);
    return 0;
}
