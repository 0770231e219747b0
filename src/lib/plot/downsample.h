/* SPDX-License-Identifier: MIT */
/* Min/max downsampling of a time series for drawing: each of `buckets`
 * equal slices of the time axis keeps its smallest and its largest value,
 * in time order, so a line drawn through the result passes through every
 * peak and every trough of the full series, whatever its length. */
#ifndef GT_PLOT_DOWNSAMPLE_H
#define GT_PLOT_DOWNSAMPLE_H
#include <stddef.h>

/* Reduces the n points (t[i], v[i]), t ascending, to at most 2 * buckets
 * points written to out_t / out_v (each with room for that many, or for n
 * when n is smaller); returns how many were written.  The slices divide
 * [t0, t1] (t0 < t1).  NaN values are unavailable: a slice holding only NaN
 * keeps one NaN point, so the drawn line shows a gap there.  When n is at
 * most 2 * buckets the points are copied unchanged. */
size_t gt_downsample_minmax(const double *t, const double *v, size_t n, double t0, double t1, size_t buckets,
                            double *out_t, double *out_v);
#endif
