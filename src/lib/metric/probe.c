/* SPDX-License-Identifier: MIT */
/* The metric table's probes: see probe.h. */
#include "metric/probe.h"

#include <math.h>
#include <stdint.h>

#include "proc/parse.h"

/* /proc/PID/io: the storage I/O the process caused, its live threads' and
 * its dead threads' and reaped children's (wait_task_zombie() adds a
 * child's counters to its parent's, as getrusage's children figures do):
 * read_bytes fetched from storage, write_bytes dirtied in the page cache
 * of a file that is written back to storage (tmpfs and pipes count in
 * neither; pages truncated before writeback still count). */
static int parse_io(const char *text, size_t len, double *out)
{
    static const char *const keys[] = {"read_bytes:", "write_bytes:"};
    uint64_t v[2];
    if (gt_parse_keyed(text, len, keys, 2, v) != 0)
        return -1;
    out[0] = (double)v[0];
    out[1] = (double)v[1];
    return 0;
}

const gt_probe gt_probes[GT_PROBE_SLOTS] = {
    /* Only the process's own tasks move its counters, and a child's
     * counters join its parent's when the parent reaps it, which takes
     * the parent running: an idle process's stand. */
    [GT_PROBE_IO] = {"io", GT_PV_DISK_READ, 2, 1, parse_io},
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
