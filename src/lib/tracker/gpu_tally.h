/* SPDX-License-Identifier: MIT */
/* Each selected GPU over a run: its mean utilization and its memory peak
 * against its capacity, folded sample by sample from the readings a sample
 * carries (the Efficiency section's per-GPU figures). */
#ifndef GT_TRACKER_GPU_TALLY_H
#define GT_TRACKER_GPU_TALLY_H
#include <stdint.h>

#include "gpu_tracker.h"
#include "sample.h"

typedef struct gt_gpu_tally {
    int n;
    struct gt_gpu_tally_device {
        int index;              /* the vendor's */
        char uuid[96];
        unsigned long n_util;   /* samples that read its utilization */
        double sum_util;        /* percent, summed over them */
        int mem_read;           /* 1: some sample read its used memory */
        uint64_t max_mem, total;
    } dev[GT_SAMPLE_MAX_GPUS];
} gt_gpu_tally;

/* Adds the sample's device readings (the same devices at every sample). */
void gt_gpu_tally_fold(gt_gpu_tally *t, const gt_sample *s);

#endif
