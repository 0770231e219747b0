/* SPDX-License-Identifier: MIT */
/* The run's aggregate: the samples folded one by one into maxima, sums and
 * time-weighted sums (base units), and what is made of it: each sample's
 * public timepoint and the usage sections that come from the samples.  No
 * locking and no I/O: the tracker holds it under its lock and copies it
 * out to read it. */
#ifndef GT_TRACKER_AGGREGATE_H
#define GT_TRACKER_AGGREGATE_H
#include <stddef.h>
#include <stdint.h>

#include "gpu_tracker.h"
#include "events/events.h"
#include "metric/fold.h"
#include "tracker/gpu_tally.h"
#include "sample.h"

/* Running maxima and sums in base units. */
typedef struct gt_aggregate {
    gt_rss max_main, max_desc, max_comb; /* each field maximised on its own */
    /* The sample with the largest total, kept in parts: the Python package
     * reports total = converted private + converted shared. */
    gt_rss at_max_main, at_max_desc, at_max_comb;
    uint64_t max_system_ram;
    uint64_t max_gpu_main, max_gpu_desc, max_gpu_comb, max_gpu_system;
    double max_gpu, sum_gpu;
    int max_threads_main, max_threads_desc, max_threads_comb;
    double max_cpu[4], sum_cpu[4]; /* system, main, descendants, combined */
    /* The percents weighed by the seconds they are over (the timestamps'
     * differences, which the tracking file holds, so the mean can be
     * recomputed from it), and those seconds: the mean is over time, so the
     * short last interval (taken at stop) weighs as little as it lasted. */
    double wsum_cpu[4], span_cpu;
    unsigned long n, n_cpu;
    uint64_t main_hwm, desc_hwm;
    int main_hwm_exact, desc_hwm_exact;  /* as of the last sample */
    int desc_running;                    /* descendants alive at the last sample */
    int main_denied, desc_denied;        /* errno: memory unreadable at some sample */
    pid_t denied_pid;
    double max_sm[3], sum_sm[3];        /* main, descendants, combined */
    unsigned long n_sm;
    double max_power, sum_power;
    unsigned long n_power;
    double cpu_seconds[3]; /* main, descendants, combined */
    double first_timestamp, last_timestamp;
    gt_gpu_tally gpus;     /* each selected GPU (--efficiency) */
    gt_metric_fold own;    /* the metric table's rows of gpu-tracker's own */
} gt_aggregate;

/* Adds one sample. */
void gt_aggregate_fold(gt_aggregate *a, const gt_sample *s);

/* The sample as the on_timepoint callback gets it: this version's fields,
 * labelled with the program's version; elapsed: seconds since start. */
void gt_aggregate_timepoint(const gt_aggregate *a, const gt_sample *s, const gt_static_data *sd,
                            unsigned int version, double elapsed, gt_timepoint *tp);

/* What the usage needs beside the aggregate. */
typedef struct gt_aggregate_run {
    const gt_static_data *sd;
    double elapsed;         /* seconds tracked so far */
    uint64_t main_maxrss;   /* wait4's figure for main; 0: none */
    int none_ran;           /* the process had ended before the first sample */
    const gt_events_reading *ev; /* the event backend's last reading; NULL: none */
    size_t ev_unfollowed;   /* descendants running before the backend was loaded */
    const char *events_off; /* why there is no backend; "" where unknown */
} gt_aggregate_run;

/* Fills the sample-derived sections of u (RAM, GPU RAM, CPU and GPU
 * utilization, GPU power, compute time, peaks and their methods, the
 * samples' count); the rest of u is left as it is. */
void gt_aggregate_usage(const gt_aggregate *a, const gt_aggregate_run *r, gt_usage *u);
#endif
