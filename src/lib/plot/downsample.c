/* SPDX-License-Identifier: MIT */
/* Min/max downsampling; see downsample.h. */
#include <math.h>
#include <string.h>

#include "plot/downsample.h"

typedef struct bucket {
    size_t first, imin, imax;
    int any_finite;
} bucket;

/* Emits a finished slice: its min and max in time order (one point when
 * they are the same sample), or one NaN point for a slice without values. */
static size_t flush(const bucket *b, const double *t, const double *v, double *out_t, double *out_v)
{
    if (!b->any_finite) {
        out_t[0] = t[b->first];
        out_v[0] = NAN;
        return 1;
    }
    size_t a = b->imin < b->imax ? b->imin : b->imax, z = b->imin < b->imax ? b->imax : b->imin;
    out_t[0] = t[a];
    out_v[0] = v[a];
    if (a == z)
        return 1;
    out_t[1] = t[z];
    out_v[1] = v[z];
    return 2;
}

size_t gt_downsample_minmax(const double *t, const double *v, size_t n, double t0, double t1, size_t buckets,
                            double *out_t, double *out_v)
{
    if (n <= 2 * buckets) {
        if (n) {
            memcpy(out_t, t, n * sizeof *t);
            memcpy(out_v, v, n * sizeof *v);
        }
        return n;
    }
    double scale = (double)buckets / (t1 - t0);
    size_t out = 0, cur = (size_t)-1;
    bucket b = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        double x = (t[i] - t0) * scale;
        size_t k = x <= 0 || isnan(x) ? 0 : x >= (double)buckets ? buckets - 1 : (size_t)x;
        if (k != cur) {
            /* A new slice; t ascending means the old one is complete.  The
             * cap keeps unsorted input within the output's room. */
            if (cur != (size_t)-1 && out + 2 <= 2 * buckets)
                out += flush(&b, t, v, out_t + out, out_v + out);
            cur = k;
            b = (bucket){i, i, i, 0};
        }
        if (isnan(v[i]))
            continue;
        if (!b.any_finite) {
            b.imin = b.imax = i;
            b.any_finite = 1;
        } else if (v[i] < v[b.imin]) {
            b.imin = i;
        } else if (v[i] > v[b.imax]) {
            b.imax = i;
        }
    }
    if (cur != (size_t)-1 && out + 2 <= 2 * buckets)
        out += flush(&b, t, v, out_t + out, out_v + out);
    return out;
}
