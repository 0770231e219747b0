/* SPDX-License-Identifier: MIT */
/* Energy of a stretch of a run from a tracking file's cumulative energy
 * columns (joules since the first sample, one value per timepoint): the
 * difference of the cumulative values at its two ends, each interpolated
 * linearly between the samples around it. */
#ifndef GT_ENERGY_SPAN_H
#define GT_ENERGY_SPAN_H
#include <stddef.h>

/* Joules between t0 and t1 (t0 <= t1).  ts[] ascending (NaN-free), cum[i]
 * the cumulative joules at ts[i] (NaN: unavailable).  Ends outside the
 * sampled span are clamped to it.  NaN when [t0, t1] does not meet the
 * span, n < 2, or a value needed is NaN: unavailable, never 0. */
double gt_energy_between(const double *ts, const double *cum, size_t n, double t0, double t1);
#endif
