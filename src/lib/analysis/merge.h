/* SPDX-License-Identifier: MIT */
/* The job report of `gpu-tracker merge`: tracking files of one job (one per
 * node, or one per task) read one at a time, each reduced to its own figures
 * and added into a shared time grid, so the job's peaks are peaks of sums at
 * one time, not sums of each file's peak.  Files that record the same host
 * (several tasks on one node) are first summed the same way into a node.
 * The metric table's own rows (disk I/O) come from each file's fold of its
 * columns (gt_merge_own). */
#ifndef GT_ANALYSIS_MERGE_H
#define GT_ANALYSIS_MERGE_H
#include <stddef.h>

#include "gpu_tracker.h"
#include "analysis/efficiency.h"
#include "analysis/request.h"
#include "metric/fold.h"

/* The smallest grid step, in seconds: a millisecond, finer than any
 * tracker samples. */
#define GT_MERGE_MIN_ALIGN 0.001

/* The summed series, in the order of the grid's arrays. */
enum { GT_MERGE_RAM, GT_MERGE_GPU_RAM, GT_MERGE_CPU, GT_MERGE_GPU, GT_MERGE_NSERIES };

/* One GPU of a node, from the per-GPU rows (--per-gpu) of the node's
 * files: told apart by its UUID (by its index where the vendor gives none),
 * so a GPU that several tasks of the node saw is one GPU, its rows from
 * every file pooled. */
typedef struct gt_merge_gpu {
    int index;                     /* the vendor's */
    char uuid[96];
    size_t files;                  /* the node's files whose rows name it */
    unsigned long n_util;          /* rows that read its utilization */
    double sum_util;               /* percent, summed over them */
    double mem_peak_bytes;         /* the largest used memory of its rows; NaN: none read */
    double capacity_bytes;         /* its total memory (total_gpu_ram); NaN: no row records it */
} gt_merge_gpu;

/* One tracking file's figures.  NaN: unavailable in that file. */
typedef struct gt_merge_part {
    char *name;                    /* the file's base name without extension */
    char *path;
    size_t samples;
    double start, stop;            /* first and last timestamp (Unix seconds) */
    double max[GT_MERGE_NSERIES];  /* RAM and GPU RAM in the report's units; CPU and GPU in percent */
    double mean_cpu_percent;
    double cpu_seconds;            /* sum of CPU percent / 100 times each sample's interval */
    double energy_joules;          /* all energy columns, last value minus first */
    char *task;                    /* Slurm's task (slurm_task_id), NULL when not recorded */
    size_t node;                   /* index of its node in gt_merge.nodes */
    gt_request request;            /* the Slurm request it records, else its machine's capacity */
    int has_gpus;                  /* its static data says it tracked GPUs (n_expected_gpus > 0) */
    int has_gpu_table;             /* it has per-GPU rows (--per-gpu), read into its node's gpus */
    /* Each column of the metric table's own rows over the file's samples,
     * folded as the run's aggregate folds it (metric/fold.c), in the
     * report's units; n 0 where the file lacks the column (written before
     * its row existed) or never read it. */
    gt_metric_acc own[GT_METRIC_NOWN_COLUMNS];
} gt_merge_part;

/* One node: the files whose static data name the same host, or one file
 * that names none (own_file).  Figures as for the job, over its files. */
typedef struct gt_merge_node {
    char *name;                    /* the host, or the file's name when own_file */
    int own_file;                  /* the file records no host: it stands for its node */
    size_t nparts, samples;
    double start, stop;
    double peak[GT_MERGE_NSERIES];      /* maxima over grid steps of the sums across its files */
    double peak_time[GT_MERGE_NSERIES];
    double cpu_seconds;            /* sum over its files */
    double energy_joules;          /* the largest of its files': each file measures the whole node */
    gt_merge_gpu *gpus;            /* its GPUs, by index then UUID */
    size_t ngpus;
    size_t files_with_gpus;        /* its files that tracked GPUs ... */
    size_t files_with_gpu_table;   /* ... and those with per-GPU rows (any file) */
    double own[GT_METRIC_NOWN_COLUMNS]; /* each own column's figure over its files (gt_merge_own); NaN: unknown */
} gt_merge_node;

struct gt_merge {
    double align;                  /* grid step in seconds */
    gt_ram_unit ram_unit, gpu_ram_unit; /* the first file's, used for every file */
    gt_merge_part *parts;
    size_t nparts;
    /* The job: maxima over grid steps of the sums across files, and totals. */
    double peak[GT_MERGE_NSERIES];
    double peak_time[GT_MERGE_NSERIES]; /* start of the step where each peak is */
    double cpu_seconds, energy_joules, start, stop;
    size_t largest;                /* index of the part with the largest RAM peak */
    gt_merge_node *nodes;          /* in the order of their first file */
    size_t nnodes;
    size_t without_node;           /* files that record no host */
    size_t with_request;           /* files that record a Slurm request (the report's Efficiency) */
    double own[GT_METRIC_NOWN_COLUMNS]; /* each own column's figure over every file (gt_merge_own) */
};

/* The figure of own column k (gt_metric_own_column) over a set of files,
 * by its row's aggregation, from each file's fold: a running total
 * (GT_MA_LAST) or a sum (GT_MA_SUM) is the sum of the files' figures, as
 * the files are of different processes; a time-weighted mean (a rate) is
 * the sum of the files' value-times-interval over the span from the set's
 * first sample to its last, so the mean over time of the rate summed
 * across the files.  NaN (unknown, never 0) where a file of the set has no
 * figure, and for GT_MA_MAX, whose peak of a sum at one time the files'
 * folds cannot give.  Node k's files (node < nnodes), or every file of
 * the job (node SIZE_MAX). */
double gt_merge_own(const gt_merge *m, size_t node, int k);

/* Node k's efficiency: its CPU time, wall time and RAM peak (sampled: lower
 * bounds) against the request of its first file, and each of its GPUs
 * (the first GT_EFF_MAX_GPUS) with its mean utilization over its rows and
 * its memory peak against its capacity. */
void gt_merge_node_efficiency(const gt_merge *m, size_t k, gt_efficiency *e);

/* Adds file p's per-GPU rows (--per-gpu), where it has them, into its node's
 * GPUs (merge_gpus.c): one GPU per UUID whichever files saw it, its rows
 * pooled; a file without them is no error. */
gt_status gt_merge_add_gpu_rows(gt_merge *m, gt_merge_part *p, gt_ram_unit unit, gt_error *err);
/* The job's CPU efficiency: the nodes' CPU seconds over their cores times
 * their wall time, percent; < 0 where a node's cores are unknown. */
double gt_merge_cpu_efficiency(const gt_merge *m);

/* How a merged GPU's mean utilization is taken, as the report says it. */
#define GT_MERGE_GPU_MEAN_METHOD \
    "the mean over the per-GPU rows of the node's files that read it (each file's samples, as a run's own)"
/* Why node k has no per-GPU figures, or NULL where it has them or tracked
 * no GPU: its files tracked GPUs but some hold no per-GPU rows. */
const char *gt_merge_node_gpu_note(const gt_merge *m, size_t k, char *buf, size_t size);

#endif
