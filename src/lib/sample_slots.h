/* SPDX-License-Identifier: MIT */
/* Where the figures of the metric table's probes sit in a sample: the
 * values each process's probe files give (gt_sample_proc.values), and what
 * the tree makes of them (gt_sample.tree).  Kept apart from metric.h so
 * that sample.h can size its arrays without the table's types. */
#ifndef GT_SAMPLE_SLOTS_H
#define GT_SAMPLE_SLOTS_H

/* The /proc/PID files the probes read, one descriptor each per process. */
enum gt_probe_file {
    GT_PROBE_IO, /* /proc/PID/io */
    GT_PROBE_COUNT
};

/* The values read per process, in the probes' order. */
enum gt_proc_value {
    GT_PV_DISK_READ, GT_PV_DISK_WRITE, /* io: read_bytes, write_bytes */
    GT_PV_COUNT
};

/* ISO C has no empty arrays: a table without probes still sizes them 1. */
#define GT_PROBE_SLOTS (GT_PROBE_COUNT > 0 ? GT_PROBE_COUNT : 1)
#define GT_PV_SLOTS (GT_PV_COUNT > 0 ? GT_PV_COUNT : 1)

/* The tree's figures of value pv: its sum over main (set 0), the
 * descendants (1) and the whole tree (2), then the whole tree's rate per
 * second over the interval that ends at the sample. */
#define GT_TREE_SUM(pv, set) (3 * (pv) + (set))
#define GT_TREE_RATE(pv) (3 * GT_PV_COUNT + (pv))
#define GT_TREE_SLOTS (GT_PV_COUNT > 0 ? 4 * GT_PV_COUNT : 1)
#endif
