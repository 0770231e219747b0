/* SPDX-License-Identifier: MIT */
/* Beyond the public API, for the gpu-tracker command (which links the
 * static library): each selected GPU's figures over the run, for the
 * Efficiency section. */
#ifndef GT_TRACKER_TALLY_H
#define GT_TRACKER_TALLY_H
#include "gpu_tracker.h"
#include "tracker/gpu_tally.h"

/* A copy of t's per-GPU tally (all zero before the first sample). */
void gt_tracker_gpu_tally(gt_tracker *t, gt_gpu_tally *out);
#endif
