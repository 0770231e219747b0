/* SPDX-License-Identifier: MIT */
/* The metrics server's parts that the public header leaves out. */
#ifndef GT_METRICS_METRICS_H
#define GT_METRICS_METRICS_H
#include "gpu_tracker.h"
#include "metric/metric.h"

/* gt_metrics_open with timeout_ms (above 0) for each exchange instead of
 * 2 s: tests that must tell eviction from expiry set it beyond their own
 * length. */
gt_status gt_metrics_open_timeout(const char *address, int timeout_ms, gt_metrics **out, gt_error *err);

/* gt_metrics_update with the sample's value of each own metric of the
 * metric table beside tp (own[k]: own column k, metric/fold.h, base
 * units, NaN where unread; NULL: none), which no timepoint holds. */
gt_status gt_metrics_update_own(gt_metrics *m, const gt_timepoint *tp, const double *own);

#endif
