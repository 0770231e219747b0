/* SPDX-License-Identifier: MIT */
/* Efficiency of a run against its request: CPU time over the allocated
 * cores' time, the memory peak over the memory requested, the GPUs' mean
 * utilization and memory peak over their capacity, a bar per figure as
 * Slurm job reports draw them, and advice for the next request with the
 * thresholds below (docs/tracking.md, "Efficiency").  Pure arithmetic. */
#ifndef GT_ANALYSIS_EFFICIENCY_H
#define GT_ANALYSIS_EFFICIENCY_H
#include <stddef.h>

#include "analysis/request.h"

/* Memory advised for next time: the peak plus this share, rounded up. */
#define GT_EFF_MEM_HEADROOM 0.20
/* Memory advice when the peak is below this share of the request ... */
#define GT_EFF_MEM_LOW 0.50
/* ... or at or above this one (the run came near its limit). */
#define GT_EFF_NEAR_LIMIT 0.90
/* GPUs whose mean utilization is below this percent are idle or nearly. */
#define GT_EFF_GPU_IDLE_PERCENT 5.0
/* Characters of a bar between its brackets, before the percent. */
#define GT_EFF_BAR_WIDTH 40

#define GT_EFF_MAX_GPUS 16

/* One GPU over the run; every figure < 0 is unknown. */
typedef struct gt_eff_gpu {
    int index;                  /* the vendor's */
    char uuid[96];
    double mean_percent;        /* mean utilization over the samples that read it */
    double mem_peak_bytes, mem_capacity_bytes;
} gt_eff_gpu;

/* What the run used; every figure < 0 is unknown. */
typedef struct gt_eff_usage {
    double wall_s;
    double cpu_s;               /* CPU seconds of the tracked processes */
    const char *cpu_method;     /* how cpu_s was obtained */
    int cpu_is_bound;           /* 1: cpu_s is a lower bound */
    double mem_peak_bytes;      /* the tracked processes' RAM peak */
    const char *mem_method;
    int mem_is_bound;           /* 1: mem_peak_bytes is a lower bound */
    /* The peak of the cgroup the command runs in, where it has one of its
     * own (page cache and kernel memory included: what the group's limit
     * compares); < 0 where none. */
    double cgroup_mem_peak_bytes;
    const char *cgroup_mem_method;
    int n_gpus;                 /* GPUs tracked (the figures below are over them) */
    double gpu_mean_percent;    /* mean utilization of one GPU, over the GPUs */
    double gpu_mem_peak_bytes, gpu_mem_capacity_bytes;
    int n_devices;              /* each tracked GPU's own figures, where known */
    gt_eff_gpu devices[GT_EFF_MAX_GPUS];
} gt_eff_usage;

#define GT_EFF_TEXT 256

typedef struct gt_efficiency {
    gt_request req;
    gt_eff_usage use;
    /* Percents; < 0 where a figure behind them is unknown. */
    double cpu_percent, mem_percent, gpu_percent, gpu_mem_percent, time_percent, cgroup_mem_percent;
    double advised_mem_bytes;   /* < 0: no memory figure */
    char advised_mem[32];       /* "--mem=12G", "" without */
    double device_mem_percent[GT_EFF_MAX_GPUS]; /* parallel to use.devices */
    char device_key[GT_EFF_MAX_GPUS][12];       /* its index, the JSON key */
    /* Advice lines, "" where none. */
    char advice_mem[GT_EFF_TEXT], advice_cores[GT_EFF_TEXT], advice_gpus[4 * GT_EFF_TEXT],
        advice_time[GT_EFF_TEXT];
} gt_efficiency;

/* Fills e from the request and the usage. */
void gt_efficiency_compute(const gt_request *req, const gt_eff_usage *use, gt_efficiency *e);

/* "[||||      50%]": one '|' per GT_EFF_BAR_WIDTH-th of 100 %, rounded to
 * the nearest, at most a full bar; the percent rounded to a whole one. */
void gt_eff_bar(double percent, char *buf, size_t size);

/* The memory to ask for after a peak of peak_bytes: the peak plus
 * GT_EFF_MEM_HEADROOM, rounded up to a multiple of 128 MiB up to 1 GiB and
 * to whole GiB above, written as Slurm's --mem takes it ("--mem=256M",
 * "--mem=12G").  Returns the bytes. */
double gt_eff_advised_mem(double peak_bytes, char *buf, size_t size);

#endif
