/* SPDX-License-Identifier: MIT */
/* Per-GPU figures of a run: see gpu_tally.h. */
#include <stdio.h>

#include "tracker/gpu_tally.h"

void gt_gpu_tally_fold(gt_gpu_tally *t, const gt_sample *s)
{
    size_t n = s->n_gpus < GT_SAMPLE_MAX_GPUS ? s->n_gpus : GT_SAMPLE_MAX_GPUS;
    for (size_t i = 0; i < n; i++) {
        const gt_gpu_device_reading *r = &s->gpus[i];
        struct gt_gpu_tally_device *d = &t->dev[i];
        if ((int)i >= t->n) {
            d->index = r->index;
            snprintf(d->uuid, sizeof d->uuid, "%s", r->uuid ? r->uuid : "");
            d->total = r->mem_total_bytes;
            t->n = (int)i + 1;
        }
        if (r->util_valid) {
            d->n_util++;
            d->sum_util += r->util_percent;
        }
        if (r->mem_valid) {
            d->mem_read = 1;
            if (r->mem_used_bytes > d->max_mem)
                d->max_mem = r->mem_used_bytes;
        }
    }
}
