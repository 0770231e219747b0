/* SPDX-License-Identifier: MIT */
/* The Efficiency of a merged job: each node's figures against the request
 * its files record (see merge.h). */
#include <math.h>
#include <stdio.h>

#include "analysis/merge.h"
#include "util/units.h"

void gt_merge_node_efficiency(const gt_merge *m, size_t k, gt_efficiency *e)
{
    const gt_merge_node *nd = &m->nodes[k];
    gt_request req;
    gt_request_init(&req);
    for (size_t i = 0; i < m->nparts; i++)
        if (m->parts[i].node == k) {
            req = m->parts[i].request;
            break;
        }
    double ram = nd->peak[GT_MERGE_RAM], cpu = nd->cpu_seconds, wall = nd->stop - nd->start;
    /* The files hold samples: CPU time of a process in the interval it
     * exited in, and RAM between samples, are missing. */
    gt_eff_usage use = {
        .wall_s = isnan(wall) ? -1 : wall,
        .cpu_s = isnan(cpu) ? -1 : cpu,
        .cpu_method = "sampled, a lower bound",
        .cpu_is_bound = 1,
        .mem_peak_bytes = isnan(ram) ? -1 : round(ram / gt_ram_in_unit(1.0, m->ram_unit)),
        .mem_method = "the largest sum of its files at one time, sampled, a lower bound",
        .mem_is_bound = 1,
        .cgroup_mem_peak_bytes = -1,
        .gpu_mean_percent = -1,
        .gpu_mem_peak_bytes = -1,
        .gpu_mem_capacity_bytes = -1,
    };
    for (size_t i = 0; i < nd->ngpus && use.n_devices < GT_EFF_MAX_GPUS; i++) {
        const gt_merge_gpu *d = &nd->gpus[i];
        gt_eff_gpu *g = &use.devices[use.n_devices++];
        g->index = d->index;
        snprintf(g->uuid, sizeof g->uuid, "%s", d->uuid);
        g->mean_percent = d->n_util ? d->sum_util / (double)d->n_util : -1;
        g->mem_peak_bytes = isnan(d->mem_peak_bytes) ? -1 : d->mem_peak_bytes;
        g->mem_capacity_bytes = isnan(d->capacity_bytes) ? -1 : d->capacity_bytes;
    }
    gt_efficiency_compute(&req, &use, e);
}

const char *gt_merge_node_gpu_note(const gt_merge *m, size_t k, char *buf, size_t size)
{
    const gt_merge_node *nd = &m->nodes[k];
    size_t without = 0;
    for (size_t i = 0; i < m->nparts; i++)
        without += m->parts[i].node == k && m->parts[i].has_gpus && !m->parts[i].has_gpu_table;
    if (!without)
        return NULL;
    if (!nd->files_with_gpu_table)
        snprintf(buf, size, "its files tracked GPUs but hold no per-GPU rows: each GPU's figures need --per-gpu");
    else
        snprintf(buf, size, "%zu of its %zu files that tracked GPUs hold no per-GPU rows: the GPUs only they saw are "
                 "missing; each GPU's figures need --per-gpu", without, nd->files_with_gpus);
    return buf;
}

double gt_merge_cpu_efficiency(const gt_merge *m)
{
    double used = 0, given = 0;
    for (size_t k = 0; k < m->nnodes; k++) {
        gt_efficiency e;
        gt_merge_node_efficiency(m, k, &e);
        if (e.cpu_percent < 0)
            return -1;
        used += e.use.cpu_s;
        given += e.req.cores * e.use.wall_s;
    }
    return given > 0 ? 100 * used / given : -1;
}
