/* SPDX-License-Identifier: MIT */
#include "energy/span.h"

#include <math.h>

/* First index whose timestamp is >= t (n when none). */
static size_t lower_bound(const double *ts, size_t n, double t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ts[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Cumulative joules at t, ts[0] <= t <= ts[n-1]. */
static double at(const double *ts, const double *cum, size_t n, double t)
{
    size_t i = lower_bound(ts, n, t);
    if (ts[i] == t)
        return cum[i];
    /* ts[i-1] < t < ts[i]: i >= 1 because t >= ts[0]. */
    double f = (t - ts[i - 1]) / (ts[i] - ts[i - 1]);
    return cum[i - 1] + f * (cum[i] - cum[i - 1]);
}

double gt_energy_between(const double *ts, const double *cum, size_t n, double t0, double t1)
{
    if (n < 2 || !(t0 <= t1) || t1 < ts[0] || t0 > ts[n - 1])
        return NAN;
    if (t0 < ts[0])
        t0 = ts[0];
    if (t1 > ts[n - 1])
        t1 = ts[n - 1];
    return at(ts, cum, n, t1) - at(ts, cum, n, t0); /* NaN propagates */
}
