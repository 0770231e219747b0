/* SPDX-License-Identifier: MIT */
/* The sub-tracking analysis result behind the opaque gt_results: built by
 * analyze.c, written by report/results_write.c. */
#ifndef GT_ANALYSIS_RESULTS_H
#define GT_ANALYSIS_RESULTS_H
#include "analysis/stats.h"
#include "gpu_tracker.h"

/* One static-data value with the type it had in the file, so it prints as
 * the Python package prints it (text unquoted, integers without ".0"). */
typedef enum { GT_STATIC_NULL, GT_STATIC_TEXT, GT_STATIC_INT, GT_STATIC_FLOAT } gt_static_kind;

typedef struct gt_static_value {
    char *name;
    gt_static_kind kind;
    char *text;  /* GT_STATIC_TEXT */
    long long i; /* GT_STATIC_INT */
    double f;    /* GT_STATIC_FLOAT */
} gt_static_value;

/* Energy of a code block from one cumulative energy column: each call's
 * joules between its start and stop, summed and averaged over the calls
 * whose energy is known (calls; NaN total when none is). */
typedef struct gt_block_energy {
    double total, mean;
    size_t calls;
} gt_block_energy;

typedef struct gt_block_result {
    char *name;
    size_t num_timepoints, num_calls, num_non_empty_calls;
    gt_stats compute_time;
    double compute_total;
    gt_stats *usage; /* one per measurement */
    gt_block_energy *energy; /* one per energy column */
} gt_block_result;

struct gt_results {
    int nmeasures;
    char **measures; /* timepoint columns but timestamp and energy, in file order */
    gt_stats *overall;
    int nstatic;
    gt_static_value *statics;
    size_t nblocks;
    gt_block_result *blocks; /* sorted by name (bytewise) */
    /* gpu-tracker's cumulative energy columns ("cpu_energy_joules", ...),
     * the last columns of its tracking files; none in the Python package's.
     * overall_energy: joules from the first timepoint to the last. */
    int nenergy;
    char **energy_names;
    double *overall_energy;
};

#endif
