/* SPDX-License-Identifier: MIT */
/* A sample's GPU figures: see gpu_attribution.h. */
#include "sampler/gpu_attribution.h"
#include "gpu/backend.h"

#include <string.h>

/* The processes the devices listed, each with the selected device that
 * listed it, into the sample's view (a buffer reused from sample to
 * sample).  -1: out of memory. */
static int gpu_procs_view(gt_sampler *s, gt_sample *out)
{
    const gt_gpu_proc *gp;
    size_t n = gt_gpu_last_procs(s->gpu, &gp, s->gpu_slot, s->gpu_slot_cap);
    if (n > s->gpu_slot_cap) {
        if (grow((void **)&s->gpu_slot, &s->gpu_slot_cap, n, sizeof *s->gpu_slot) != 0)
            return -1;
        n = gt_gpu_last_procs(s->gpu, &gp, s->gpu_slot, s->gpu_slot_cap);
    }
    if (grow((void **)&s->gpu_procs_view, &s->gpu_procs_view_cap, n, sizeof *s->gpu_procs_view) != 0)
        return -1;
    for (size_t k = 0; k < n; k++)
        s->gpu_procs_view[k] = (gt_sample_gpu_proc){gp[k].pid, s->gpu_slot[k], gp[k].mem_valid, gp[k].mem_bytes,
                                                    gp[k].sm_valid, gp[k].sm_percent};
    out->n_gpu_procs = n;
    out->gpu_procs = s->gpu_procs_view;
    return 0;
}

int gt_gpu_attribute(gt_sampler *s, gt_sample *out)
{
    if (grow((void **)&s->pids_main, &s->pids_main_cap, 1, sizeof(pid_t)) != 0 ||
        grow((void **)&s->pids_desc, &s->pids_cap, s->cur.n + 1, sizeof(pid_t)) != 0)
        return -1;
    gt_pidset set = {s->pids_main, 0, s->pids_desc, 0};
    for (size_t i = 0; i < s->cur.n; i++) {
        if (s->cur.v[i].is_main)
            s->pids_main[set.n_main++] = s->cur.v[i].pid;
        else
            s->pids_desc[set.n_desc++] = s->cur.v[i].pid;
    }
    /* Sorted as gt_pidset requires: cur is (gt_walk_drop_duplicates()). */
    gt_gpu_reading g;
    if (s->closing)
        gt_gpu_read_all(s->gpu);
    gt_gpu_sample(s->gpu, &set, &g);
    out->main_gpu_ram = g.main_bytes;
    out->descendants_gpu_ram = g.descendants_bytes;
    out->combined_gpu_ram = g.combined_bytes;
    out->system_gpu_ram = g.system_bytes;
    out->gpu_sum_percent = g.sum_util_percent;
    out->gpu_sm_valid = g.sm_valid;
    out->gpu_sm_main = g.main_sm_percent;
    out->gpu_sm_descendants = g.descendants_sm_percent;
    out->gpu_sm_combined = g.combined_sm_percent;
    out->gpu_power_valid = 0;
    out->gpu_power_watts = 0;
    /* The devices' readings travel in the sample to energy/. */
    out->n_gpus = g.n_devices < GT_SAMPLE_MAX_GPUS ? g.n_devices : GT_SAMPLE_MAX_GPUS;
    if (out->n_gpus)
        memcpy(out->gpus, g.devices, out->n_gpus * sizeof *out->gpus);
    out->n_devices = g.n_devices;
    out->devices = g.devices;
    for (size_t i = 0; i < g.n_devices; i++)
        if (g.devices[i].power_valid) {
            out->gpu_power_valid = 1;
            out->gpu_power_watts += g.devices[i].power_watts;
        }
    return gpu_procs_view(s, out);
}
