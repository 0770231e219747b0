/* SPDX-License-Identifier: MIT */
/* The live status line: elapsed time, current and peak RAM, GPU RAM, CPU
 * and GPU utilization, redrawn about once a second on the bottom row of the
 * terminal while a command runs.  The row is kept out of the terminal's
 * scrolling region, so the command's own output scrolls above it and never
 * runs into it. */
#ifndef GT_CLI_LIVE_H
#define GT_CLI_LIVE_H
#include "gpu_tracker.h"

typedef struct gt_cli_live gt_cli_live;

/* Starts drawing on fd if it is a terminal; NULL (nothing drawn) when it is
 * not, or when the line cannot be set up. */
gt_cli_live *gt_cli_live_start(int fd);
/* Records the latest timepoint; safe from the sampling thread. */
void gt_cli_live_update(gt_cli_live *l, const gt_timepoint *tp);
/* Stops drawing and clears the line, restoring the terminal; NULL-safe. */
void gt_cli_live_stop(gt_cli_live **l);

/* Formats the status text for tp into buf (at most cap bytes with the NUL,
 * cut to width columns); peak_valid 0: some sample's memory could not be
 * read, so the peak is unavailable.  Exposed for tests. */
void gt_cli_live_format(const gt_timepoint *tp, double elapsed, uint64_t peak_ram, int peak_valid, char *buf,
                        size_t cap, int width);
#endif
