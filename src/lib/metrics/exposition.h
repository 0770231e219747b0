/* SPDX-License-Identifier: MIT */
/* The Prometheus text exposition format (version 0.0.4) and OpenMetrics 1.0
 * text of one timepoint: pure formatting, no I/O, so it is tested alone. */
#ifndef GT_METRICS_EXPOSITION_H
#define GT_METRICS_EXPOSITION_H
#include <stddef.h>
#include "gpu_tracker.h"

#define GT_PROMETHEUS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define GT_OPENMETRICS_CONTENT_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* Writes the metrics of tp (NULL: before the first sample, only the
 * families without a value are left out) and, after them, a family for
 * each own row of the metric table with a Prometheus name, of own (its
 * sample's value of each own column, metric/fold.h; NULL: none) into buf,
 * NUL-terminated, like snprintf: returns the length the full text needs,
 * which is >= cap when it was cut short. */
size_t gt_exposition_format(const gt_timepoint *tp, const double *own, int openmetrics, char *buf, size_t cap);
#endif
