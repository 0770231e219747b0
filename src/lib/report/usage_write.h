/* SPDX-License-Identifier: MIT */
/* The tracking report with the sections of gpu-tracker's that a gt_usage
 * does not hold: the run's figures of the metric table's own rows, and the
 * Efficiency section (gpu-tracker --efficiency). */
#ifndef GT_REPORT_USAGE_WRITE_H
#define GT_REPORT_USAGE_WRITE_H
#include <stdio.h>

#include "gpu_tracker.h"
#include "analysis/efficiency.h"
#include "metric/fold.h"

/* gt_usage_write's report with the Other metrics section of own after the
 * Energy section and before Top processes (none where own is NULL, or
 * where no row has a figure that was read), and the Efficiency section of
 * e after every other (none where e is NULL). */
gt_status gt_report_write(const gt_usage *u, const gt_metric_run *own, const gt_efficiency *e, gt_format fmt,
                          FILE *out);
/* The same (without Efficiency) as a string released with gt_string_free(). */
gt_status gt_report_string(const gt_usage *u, const gt_metric_run *own, gt_format fmt, char **out);

#endif
