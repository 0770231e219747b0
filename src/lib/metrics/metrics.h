/* SPDX-License-Identifier: MIT */
/* The metrics server's parts that the public header leaves out. */
#ifndef GT_METRICS_METRICS_H
#define GT_METRICS_METRICS_H
#include "gpu_tracker.h"

/* gt_metrics_open with timeout_ms (above 0) for each exchange instead of
 * 2 s: tests that must tell eviction from expiry set it beyond their own
 * length. */
gt_status gt_metrics_open_timeout(const char *address, int timeout_ms, gt_metrics **out, gt_error *err);

#endif
