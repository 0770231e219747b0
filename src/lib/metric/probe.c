/* SPDX-License-Identifier: MIT */
/* The metric table's probes: see probe.h. */
#include "metric/probe.h"

#include <math.h>

const gt_probe gt_probes[GT_PROBE_SLOTS] = {
    {0},
};

void gt_probe_tree(const gt_sample_proc *procs, size_t n, const double *prev, double dt, double *tree)
{
    for (int k = 0; k < GT_TREE_SLOTS; k++)
        tree[k] = NAN;
    for (int v = 0; v < GT_PV_COUNT; v++) {
        double sum[2] = {0, 0};
        for (size_t i = 0; i < n; i++)
            sum[!procs[i].is_main] += procs[i].values[v];
        tree[GT_TREE_SUM(v, 0)] = sum[0];
        tree[GT_TREE_SUM(v, 1)] = sum[1];
        double all = tree[GT_TREE_SUM(v, 2)] = sum[0] + sum[1];
        if (prev && dt > 0 && all >= prev[GT_TREE_SUM(v, 2)])
            tree[GT_TREE_RATE(v)] = (all - prev[GT_TREE_SUM(v, 2)]) / dt;
    }
}
