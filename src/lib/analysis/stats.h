/* SPDX-License-Identifier: MIT */
/* Summary statistics exactly as the Python package computes them with pandas
 * (numpy's pairwise summation, population standard deviation, missing values
 * skipped), so analysis results agree with it to the last bit. */
#ifndef GT_ANALYSIS_STATS_H
#define GT_ANALYSIS_STATS_H
#include <stddef.h>

typedef struct gt_stats {
    double min, max, mean, std; /* NaN when no value is available */
    size_t count;               /* values that were not NaN */
} gt_stats;

/* numpy's pairwise sum of a[0..n-1] (blocks of 8 accumulators up to 128
 * values, halves split at a multiple of 8 above), so sums have the same
 * rounding as numpy's.  0.0 for n == 0. */
double gt_pairwise_sum(const double *a, size_t n);

/* min, max, mean and population std of a[0..n-1], NaN values skipped as
 * pandas skips them (they stay in place as zeros for the sums, which keeps
 * numpy's summation order).  scratch must hold n doubles; a is not changed.
 * With no value all four are NaN; with one, std is 0. */
void gt_stats_compute(const double *a, size_t n, double *scratch, gt_stats *out);

#endif
