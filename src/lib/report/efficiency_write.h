/* SPDX-License-Identifier: MIT */
/* The tracking report with gpu-tracker's Efficiency section after every
 * other section (gpu-tracker --efficiency). */
#ifndef GT_REPORT_EFFICIENCY_WRITE_H
#define GT_REPORT_EFFICIENCY_WRITE_H
#include <stdio.h>

#include "gpu_tracker.h"
#include "analysis/efficiency.h"

/* gt_usage_write's report, then the Efficiency section of e (none where e is NULL). */
gt_status gt_usage_write_efficiency(const gt_usage *u, const gt_efficiency *e, gt_format fmt, FILE *out);

#endif
