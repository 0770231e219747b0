/* SPDX-License-Identifier: MIT */
/* The run's figures of gpu-tracker's own rows of the metric table
 * (GT_METRIC_OWN): each column folded sample by sample by its row's
 * aggregation, and the latest sample's value of each.  The Python
 * package's figures keep their own fold (tracker/aggregate.c), as their
 * report's layout is fixed.  Pure: no locking, no I/O. */
#ifndef GT_METRIC_FOLD_H
#define GT_METRIC_FOLD_H
#include "metric/metric.h"
#include "sample.h"

/* One column over the run, in base units; every field 0 before the first
 * sample (a zeroed fold is an empty one). */
typedef struct gt_metric_acc {
    double now;         /* the latest sample's value; NaN: unread there */
    double last, max, sum;
    double wsum, span;  /* value times the interval it ends, and those intervals */
    unsigned long n;    /* samples that read it */
} gt_metric_acc;

typedef struct gt_metric_fold {
    gt_metric_acc col[GT_METRIC_NOWN_COLUMNS]; /* the own columns in file order */
    double prev_timestamp;
    unsigned long n_samples;
} gt_metric_fold;

/* The own columns in file order: column k (0 .. GT_METRIC_NOWN_COLUMNS-1)
 * and its row in *metric; NULL past the last. */
const gt_metric_column *gt_metric_own_column(int k, const gt_metric **metric);

/* A column's value in s, in base units (bytes, percent, counts); NaN where
 * the sample has none (an unread counter, CPU before its first interval),
 * and for the cell kinds that need the run's static data (*_HW), which an
 * own row may not take (gt_metric_check). */
double gt_metric_value(const gt_metric_column *col, const gt_sample *s);

/* Adds value v (NaN: not read, left out of every figure but now), which
 * ends an interval of dt seconds (0: none, the first sample). */
void gt_metric_acc_add(gt_metric_acc *a, double v, double dt);
/* The figure of a over the run by aggregation agg: the largest value
 * (GT_MA_MAX), the mean weighed by the interval each value ends
 * (GT_MA_TIME_MEAN; the plain mean where no interval was closed), the last
 * value read (GT_MA_LAST), the sum (GT_MA_SUM); NaN where no value was
 * read, or for GT_MA_NONE. */
double gt_metric_acc_figure(const gt_metric_acc *a, gt_metric_agg agg);

/* Adds one sample to each own column. */
void gt_metric_fold_add(gt_metric_fold *f, const gt_sample *s);

/* Column k's figure over the run by its row's aggregation. */
double gt_metric_fold_figure(const gt_metric_fold *f, int k);

/* The run's figures as the report gives them: each own column's, in the
 * report's units (GT_MU_RAM and GT_MU_GPU_RAM converted), NaN: unavailable. */
typedef struct gt_metric_run {
    unsigned long n_samples;
    gt_ram_unit ram_unit, gpu_ram_unit;
    double value[GT_METRIC_NOWN_COLUMNS];
} gt_metric_run;

void gt_metric_run_of(const gt_metric_fold *f, const gt_static_data *sd, gt_metric_run *out);

/* The unit a row's figures are given in: "bytes", "bytes per second",
 * "percent", ..., the RAM unit's name for GT_MU_RAM and GT_MU_GPU_RAM. */
const char *gt_metric_unit_name(const gt_metric *m, const gt_metric_run *run);
#endif
