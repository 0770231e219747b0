/* SPDX-License-Identifier: MIT */
/* The node a run is on, as recorded in tracking and sub-tracking files.
 *
 * A run counts as multi-node under Slurm (SLURM_JOB_ID set) or when
 * GT_SUBTRACK_HOST is set to anything but "" or "0": only then do files get
 * the node's name, so that elsewhere they keep the Python package's layout
 * exactly. */
#ifndef GT_UTIL_NODE_H
#define GT_UTIL_NODE_H
#include <stddef.h>

#include "gpu_tracker.h"

/* Writes the node's name into buf (Slurm's SLURMD_NODENAME, else the
 * kernel's host name) and sets *multi to 1 when the run is multi-node; with
 * *multi 0 buf is "".  GT_ERR_SYS with a message when the host name cannot
 * be read. */
gt_status gt_node_name(char *buf, size_t size, int *multi, gt_error *err);

#endif
