/* SPDX-License-Identifier: MIT */
#include "analysis/stats.h"

#include <math.h>

/* numpy's pairwise_sum (its block size is 128, unrolled by 8): the same
 * association of additions gives the same rounding. */
double gt_pairwise_sum(const double *a, size_t n)
{
    if (n < 8) {
        double res = 0.0;
        for (size_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return gt_pairwise_sum(a, n2) + gt_pairwise_sum(a + n2, n - n2);
}

void gt_stats_compute(const double *a, size_t n, double *scratch, gt_stats *out)
{
    size_t count = 0;
    double mn = INFINITY, mx = -INFINITY;
    /* Branch-free, so the compiler can vectorize it: a NaN compares false
     * and leaves mn and mx as they are. */
    for (size_t i = 0; i < n; i++) {
        double v = a[i];
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        count += v == v;
    }
    out->count = count;
    out->min = count ? mn : NAN;
    out->max = count ? mx : NAN;
    if (count == 0) {
        out->mean = out->std = NAN;
        return;
    }
    /* pandas: mean = sum / count; var = sum((mean - x)^2) / count, with the
     * missing values as zeros in their places in both sums (which keeps
     * numpy's order of additions). */
    const double *vals = a;
    if (count < n) {
        for (size_t i = 0; i < n; i++)
            scratch[i] = isnan(a[i]) ? 0.0 : a[i];
        vals = scratch;
    }
    double mean = gt_pairwise_sum(vals, n) / (double)count;
    /* Only a missing value counts as zero: an infinite one makes mean - x
     * NaN, and the std NaN, as in pandas. */
    for (size_t i = 0; i < n; i++) {
        double d = mean - a[i];
        scratch[i] = isnan(a[i]) ? 0.0 : d * d;
    }
    out->mean = mean;
    out->std = sqrt(gt_pairwise_sum(scratch, n) / (double)count);
}
