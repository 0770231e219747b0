/* SPDX-License-Identifier: MIT */
/* The calls of code blocks: a sub-tracking file's start and stop marks
 * paired as the Python package pairs them.  The one pairing that analysis,
 * plots and gt_subtrack_calls() share. */
#ifndef GT_ANALYSIS_CALLS_H
#define GT_ANALYSIS_CALLS_H

#include <stddef.h>

#include "gpu_tracker.h"
#include "store/table.h"

typedef struct gt_mark {
    const char *name; /* the table's text: valid while the table is */
    long long pid;
    int position;     /* 0 start, 1 stop */
    double ts;
} gt_mark;

typedef struct gt_call {
    double start, stop;
} gt_call;

/* Reads the marks of a sub-tracking table (columns process_id,
 * code_block_name, position, timestamp) into *out (caller frees), sorted by
 * code block name, then as the Python package sorts a block's marks: by
 * process ID, timestamp, position.  GT_ERR_FORMAT naming the row for a
 * process ID, position or timestamp that is not one; GT_ERR_NOMEM. */
gt_status gt_marks_load(const gt_table *t, gt_mark **out, size_t *n, gt_error *err);

/* Pairs the sorted marks m[0..n) of one code block: the last mark of a
 * process is dropped when it is a start (a call still open when the file
 * was read), then the marks are taken two by two in that order (so a
 * recursive block's nested marks pair by time, as in the package).
 * calls needs room for n / 2; open (NULL: not wanted) for one timestamp per
 * process, receiving the dropped starts.  GT_ERR_FORMAT, naming path and
 * the block, for a pair of two processes, a stop paired with a later start,
 * or a mark left without a partner. */
gt_status gt_marks_pair(const char *path, const gt_mark *m, size_t n, gt_call *calls, size_t *ncalls,
                        double *open, size_t *nopen, gt_error *err);

#endif
