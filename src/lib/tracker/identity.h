/* SPDX-License-Identifier: MIT */
#ifndef GT_TRACKER_IDENTITY_H
#define GT_TRACKER_IDENTITY_H
#include <stddef.h>

#include "gpu_tracker.h"
#include "store/store.h"

/* The static columns that say where a tracking file was made, so that
 * `gpu-tracker merge` can group a job's per-task files by node: on a
 * multi-node run (see util/node.h) the node's name, and under Slurm its
 * job, step and task, then the job's request on the node as Slurm's
 * variables give it (raw: merge parses them as --efficiency does; NULL
 * where Slurm left one unset).  Elsewhere none, and the file keeps the
 * Python package's static columns exactly.  extra holds GT_RUN_IDENTITY_MAX;
 * its strings point into node and the environment. */
#define GT_RUN_IDENTITY_MAX 13
gt_status gt_run_identity(char *node, size_t size, gt_store_extra *extra, size_t *n, gt_error *err);
#endif
