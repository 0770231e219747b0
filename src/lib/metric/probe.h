/* SPDX-License-Identifier: MIT */
/* The metric table's probes: the /proc/PID files read for its per-process
 * values (sample_slots.h), each with a pure parser, and what the tree
 * makes of the values at a sample.  The sampler's walk reads each probe's
 * file through a descriptor kept across samples, and takes an idle
 * process's values from the last sample (a process that has not run
 * cannot have moved them: the probe says so, or is read every sample). */
#ifndef GT_METRIC_PROBE_H
#define GT_METRIC_PROBE_H
#include <stddef.h>

#include "sample_slots.h"
#include "sample.h"

typedef struct gt_probe {
    const char *file; /* under /proc/PID/ */
    int first, n;     /* the GT_PV_* slots it fills: first .. first + n - 1 */
    /* 1: the values change only while the process runs (its CPU clock
     * moves), so an idle process's last values stand. */
    int idle_stable;
    /* Fills out[0 .. n) from the file's text; -1 when a value is missing
     * or malformed. */
    int (*parse)(const char *text, size_t len, double *out);
} gt_probe;

/* The probes, GT_PROBE_COUNT of them, in enum gt_probe_file's order. */
extern const gt_probe gt_probes[GT_PROBE_SLOTS];

/* The tree's figures (gt_sample.tree, GT_TREE_SLOTS) from the sample's
 * processes: each value summed over main, the descendants and all, NaN
 * where one member's could not be read; each total's rate over dt seconds
 * since prev (the last sample's tree; NULL: none), NaN where either total
 * is NaN, dt is not positive, or the total fell (a member left the tree
 * with its counts, which no member reaped). */
void gt_probe_tree(const gt_sample_proc *procs, size_t n, const double *prev, double dt, double *tree);
#endif
