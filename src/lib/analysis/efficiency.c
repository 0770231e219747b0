/* SPDX-License-Identifier: MIT */
/* Efficiency figures and advice; see efficiency.h for the thresholds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/efficiency.h"

#define MIB 1048576.0
#define GIB 1073741824.0

void gt_eff_bar(double percent, char *buf, size_t size)
{
    char bar[GT_EFF_BAR_WIDTH + 1];
    double p = percent < 0 ? 0 : percent;
    long fill = lround(p / 100.0 * GT_EFF_BAR_WIDTH);
    if (fill > GT_EFF_BAR_WIDTH)
        fill = GT_EFF_BAR_WIDTH;
    memset(bar, ' ', GT_EFF_BAR_WIDTH);
    memset(bar, '|', (size_t)fill);
    bar[GT_EFF_BAR_WIDTH] = '\0';
    snprintf(buf, size, "[%s %.0f%%]", bar, p);
}

double gt_eff_advised_mem(double peak_bytes, char *buf, size_t size)
{
    double need = (peak_bytes > 0 ? peak_bytes : 0) * (1 + GT_EFF_MEM_HEADROOM);
    double bytes;
    if (need <= GIB) {
        double steps = ceil(need / (128 * MIB));
        bytes = (steps < 1 ? 1 : steps) * 128 * MIB;
        snprintf(buf, size, "--mem=%.0fM", bytes / MIB);
    } else {
        bytes = ceil(need / GIB) * GIB;
        snprintf(buf, size, "--mem=%.0fG", bytes / GIB);
    }
    return bytes;
}

/* Bytes as Slurm counts them (MiB, GiB), for advice lines. */
static void human(double bytes, char *buf, size_t size)
{
    if (bytes >= GIB)
        snprintf(buf, size, "%.1f GiB", bytes / GIB);
    else
        snprintf(buf, size, "%.1f MiB", bytes / MIB);
}

static void advise_memory(gt_efficiency *e)
{
    const gt_eff_usage *u = &e->use;
    char used[32], asked[32];
    if (u->mem_peak_bytes < 0)
        return;
    e->advised_mem_bytes = gt_eff_advised_mem(u->mem_peak_bytes, e->advised_mem, sizeof e->advised_mem);
    if (e->mem_percent < 0)
        return;
    double share = e->mem_percent / 100;
    if (share >= GT_EFF_MEM_LOW && share < GT_EFF_NEAR_LIMIT)
        return;
    human(u->mem_peak_bytes, used, sizeof used);
    human(e->req.mem_bytes, asked, sizeof asked);
    const char *bound = u->mem_is_bound ? " at least (a lower bound)" : "";
    if (share < GT_EFF_MEM_LOW)
        snprintf(e->advice_mem, sizeof e->advice_mem,
                 "%s requested (%s), %s used%s, %.1f %%: ask for %s next time (the peak plus %.0f %%, rounded up)",
                 asked, e->req.mem_source, used, bound, e->mem_percent, e->advised_mem, GT_EFF_MEM_HEADROOM * 100);
    else
        snprintf(e->advice_mem, sizeof e->advice_mem,
                 "%s used%s of %s requested (%s), %.1f %%, within %.0f %% of the limit: ask for %s next time "
                 "(the peak plus %.0f %%, rounded up)",
                 used, bound, asked, e->req.mem_source, e->mem_percent, (1 - GT_EFF_NEAR_LIMIT) * 100,
                 e->advised_mem, GT_EFF_MEM_HEADROOM * 100);
}

/* Whole cores that sat idle: the allocation less the cores busy on average.
 * Left out where the CPU time is a lower bound (the idle cores would then be
 * an upper bound, advice that could cost the next run its cores). */
static void advise_cores(gt_efficiency *e)
{
    const gt_eff_usage *u = &e->use;
    if (e->cpu_percent < 0 || u->cpu_is_bound)
        return;
    double busy = u->cpu_s / u->wall_s;
    double idle = floor(e->req.cores - busy);
    if (idle < 1)
        return;
    double keep = ceil(e->req.cores) - idle;
    snprintf(e->advice_cores, sizeof e->advice_cores,
             "%.0f of %g allocated cores (%s) sat idle: %.2f cores busy on average over %.1f s; ask for %.0f "
             "core%s next time",
             idle, e->req.cores, e->req.cores_source, busy, u->wall_s, keep < 1 ? 1 : keep, keep > 1 ? "s" : "");
}

/* Each GPU idle or nearly, with its figures; the count left busy. */
static void advise_devices(gt_efficiency *e)
{
    const gt_eff_usage *u = &e->use;
    char *p = e->advice_gpus;
    size_t left = sizeof e->advice_gpus;
    int idle = 0;
    for (int i = 0; i < u->n_devices; i++)
        idle += u->devices[i].mean_percent >= 0 && u->devices[i].mean_percent < GT_EFF_GPU_IDLE_PERCENT;
    if (!idle)
        return;
    int w = snprintf(p, left, "%d of the %d GPU%s (%s) stayed idle or nearly (mean utilization below %.0f %%):", idle,
                     u->n_devices, u->n_devices == 1 ? "" : "s", e->req.gpus_source ? e->req.gpus_source : "tracked",
                     GT_EFF_GPU_IDLE_PERCENT);
    for (int i = 0; i < u->n_devices && w >= 0 && (size_t)w < left; i++) {
        const gt_eff_gpu *d = &u->devices[i];
        if (!(d->mean_percent >= 0 && d->mean_percent < GT_EFF_GPU_IDLE_PERCENT))
            continue;
        p += w;
        left -= (size_t)w;
        w = snprintf(p, left, " GPU %d (%s) %.1f %%", d->index, d->uuid, d->mean_percent);
        if (w >= 0 && (size_t)w < left && e->device_mem_percent[i] >= 0) {
            p += w;
            left -= (size_t)w;
            w = snprintf(p, left, ", memory peak %.1f %% of capacity", e->device_mem_percent[i]);
        }
        if (w >= 0 && (size_t)w < left) {
            p += w;
            left -= (size_t)w;
            w = snprintf(p, left, ";");
        }
    }
    if (w >= 0 && (size_t)w < left)
        snprintf(p + w, left - (size_t)w, " ask for %d GPU%s next time", u->n_devices - idle,
                 u->n_devices - idle == 1 ? "" : "s");
}

static void advise_gpus(gt_efficiency *e)
{
    const gt_eff_usage *u = &e->use;
    if (u->n_devices > 0) {
        advise_devices(e);
        return;
    }
    if (e->gpu_percent < 0 || e->gpu_percent >= GT_EFF_GPU_IDLE_PERCENT)
        return;
    char mem[64] = "";
    if (e->gpu_mem_percent >= 0)
        snprintf(mem, sizeof mem, ", memory peak %.1f %% of capacity", e->gpu_mem_percent);
    snprintf(e->advice_gpus, sizeof e->advice_gpus,
             "the %d GPU%s (%s) stayed idle or nearly: mean utilization %.1f %% (below %.0f %%)%s; ask for fewer "
             "GPUs, or none",
             u->n_gpus, u->n_gpus == 1 ? "" : "s", e->req.gpus_source ? e->req.gpus_source : "tracked",
             e->gpu_percent, GT_EFF_GPU_IDLE_PERCENT, mem);
}

static void advise_time(gt_efficiency *e)
{
    if (e->time_percent < 0 || e->time_percent / 100 < GT_EFF_NEAR_LIMIT)
        return;
    snprintf(e->advice_time, sizeof e->advice_time,
             "ran %.0f s of a %.0f s time limit (%s), %.1f %%, within %.0f %% of the limit: ask for more time next "
             "time",
             e->use.wall_s, e->req.time_limit_s, e->req.time_source, e->time_percent,
             (1 - GT_EFF_NEAR_LIMIT) * 100);
}

void gt_efficiency_compute(const gt_request *req, const gt_eff_usage *use, gt_efficiency *e)
{
    memset(e, 0, sizeof *e);
    e->req = *req;
    e->use = *use;
    e->cpu_percent = e->mem_percent = e->gpu_percent = e->gpu_mem_percent = e->time_percent = -1;
    e->cgroup_mem_percent = -1;
    e->advised_mem_bytes = -1;
    if (use->cpu_s >= 0 && use->wall_s > 0 && req->cores > 0)
        e->cpu_percent = 100 * use->cpu_s / (req->cores * use->wall_s);
    if (use->mem_peak_bytes >= 0 && req->mem_bytes > 0)
        e->mem_percent = 100 * use->mem_peak_bytes / req->mem_bytes;
    if (use->cgroup_mem_peak_bytes >= 0 && req->mem_bytes > 0)
        e->cgroup_mem_percent = 100 * use->cgroup_mem_peak_bytes / req->mem_bytes;
    if (use->n_gpus > 0 && use->gpu_mean_percent >= 0)
        e->gpu_percent = use->gpu_mean_percent;
    if (use->n_gpus > 0 && use->gpu_mem_peak_bytes >= 0 && use->gpu_mem_capacity_bytes > 0)
        e->gpu_mem_percent = 100 * use->gpu_mem_peak_bytes / use->gpu_mem_capacity_bytes;
    if (e->use.n_devices > GT_EFF_MAX_GPUS)
        e->use.n_devices = GT_EFF_MAX_GPUS;
    for (int i = 0; i < e->use.n_devices; i++) {
        const gt_eff_gpu *d = &e->use.devices[i];
        e->device_mem_percent[i] = d->mem_peak_bytes >= 0 && d->mem_capacity_bytes > 0
                                       ? 100 * d->mem_peak_bytes / d->mem_capacity_bytes
                                       : -1;
        snprintf(e->device_key[i], sizeof e->device_key[i], "%d", d->index);
    }
    if (use->wall_s >= 0 && req->time_limit_s > 0)
        e->time_percent = 100 * use->wall_s / req->time_limit_s;
    advise_memory(e);
    advise_cores(e);
    advise_gpus(e);
    advise_time(e);
}
