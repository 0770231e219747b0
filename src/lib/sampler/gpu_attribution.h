/* SPDX-License-Identifier: MIT */
/* A sample's GPU figures: the devices' readings, and their memory and SM
 * shares attributed to main and the descendants by the PIDs of this
 * sample's members (gpu/ matches them against each device's processes). */
#ifndef GT_SAMPLER_GPU_ATTRIBUTION_H
#define GT_SAMPLER_GPU_ATTRIBUTION_H
#include "sampler/sampler_state.h"

/* Fills out's GPU figures from s->gpu (not NULL) for the members in s->cur,
 * sorted by PID; at the run's last sample every device is read.  Returns
 * -1 when out of memory, else 0. */
int gt_gpu_attribute(gt_sampler *s, gt_sample *out);
#endif
