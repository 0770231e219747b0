/* SPDX-License-Identifier: MIT */
/* Efficiency figures of a tracked command: see efficiency.h. */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

#include "efficiency.h"
#include "analysis/request.h"

/* Bytes (seconds) of one of the report's units. */
static double ram_scale(const char *unit)
{
    gt_ram_unit u;
    if (!unit || gt_ram_unit_parse(unit, &u) != GT_OK)
        return -1;
    static const double bytes[] = {1, 1e3, 1e6, 1e9, 1e12};
    return bytes[u];
}

static double time_scale(const char *unit)
{
    gt_time_unit u;
    if (!unit || gt_time_unit_parse(unit, &u) != GT_OK)
        return -1;
    static const double seconds[] = {1, 60, 3600, 86400};
    return seconds[u];
}

/* v in the report's unit, back in seconds (to the microsecond) or bytes
 * (whole): the unit's floating-point noise off. */
static double scaled(double v, double scale)
{
    return v >= 0 && scale > 0 ? round(v * scale * 1e6) / 1e6 : -1;
}

static double scaled_bytes(double v, double scale)
{
    return v >= 0 && scale > 0 ? round(v * scale) : -1;
}

/* The tracked processes' RAM peak.  With no descendant ever seen, the
 * command's own high-water mark, exact where the report says so; else the
 * largest of the sampled sum and each process's high-water mark: the tree's
 * true peak is at least that (processes peak at different times, and the
 * sum is seen only at samples). */
static void memory_peak(const gt_usage *u, gt_eff_usage *use)
{
    double b = ram_scale(u->max_ram.unit);
    double main = scaled_bytes(u->peak_ram.main, b), desc = scaled_bytes(u->peak_ram.largest_descendant, b);
    double combined = scaled_bytes(u->max_ram.combined.total_rss, b);
    int no_descendants = u->max_ram.descendants.total_rss == 0 && u->peak_ram.largest_descendant <= 0;
    if (no_descendants && main >= 0) {
        use->mem_peak_bytes = main;
        use->mem_is_bound = !(u->peak_ram_method.main && u->peak_ram_method.main[0] == 'e');
        use->mem_method = use->mem_is_bound ? "the command's high-water mark, a lower bound (sampled)"
                                            : "the command's high-water mark, exact";
        return;
    }
    double peak = combined;
    if (main > peak)
        peak = main;
    if (desc > peak)
        peak = desc;
    use->mem_peak_bytes = peak;
    use->mem_is_bound = 1;
    use->mem_method = "the largest of the sampled sum and each process's high-water mark, a lower bound";
}

void gt_cli_efficiency(const gt_usage *u, const gt_cli_eff_facts *f, gt_efficiency *e)
{
    gt_eff_usage use = {.wall_s = -1, .cpu_s = -1, .mem_peak_bytes = -1, .cgroup_mem_peak_bytes = -1,
                        .gpu_mean_percent = -1, .gpu_mem_peak_bytes = -1, .gpu_mem_capacity_bytes = -1};
    use.wall_s = f->wall_s >= 0 ? f->wall_s : scaled(u->compute_time.time, time_scale(u->compute_time.unit));
    /* Our children's rusage counts every process of the tree that was
     * reaped: the command, and each orphan, reparented to us as the
     * subreaper.  Those still running when tracking stopped are missing. */
    struct rusage ru;
    if (!f->attached && getrusage(RUSAGE_CHILDREN, &ru) == 0) {
        use.cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                    (double)ru.ru_stime.tv_usec / 1e6;
        use.cpu_is_bound = f->descendants_left > 0;
        use.cpu_method = use.cpu_is_bound ? "getrusage of the exited processes, a lower bound (some still ran)"
                                          : "getrusage of the exited processes, exact";
    } else if (f->sampled_cpu_s >= 0) {
        use.cpu_s = f->sampled_cpu_s;
        use.cpu_is_bound = 1;
        use.cpu_method = "sampled, a lower bound";
    }
    memory_peak(u, &use);
    if (u->cgroup.available && u->cgroup.memory_peak >= 0 && u->cgroup.memory_method) {
        use.cgroup_mem_peak_bytes = scaled_bytes(u->cgroup.memory_peak, ram_scale(u->max_ram.unit));
        use.cgroup_mem_method = u->cgroup.memory_method;
    }
    if (u->gpu_utilization.system_gpu_count > 0 && u->gpu_utilization.n_expected_gpus > 0) {
        double b = ram_scale(u->max_gpu_ram.unit);
        use.n_gpus = u->gpu_utilization.n_expected_gpus;
        use.gpu_mean_percent = u->gpu_utilization.gpu_percentages.mean_hardware_percent;
        use.gpu_mem_peak_bytes = scaled_bytes(u->max_gpu_ram.system, b);
        use.gpu_mem_capacity_bytes = scaled_bytes(u->max_gpu_ram.system_capacity, b);
        for (int i = 0; f->gpus && i < f->gpus->n && i < GT_EFF_MAX_GPUS; i++) {
            const struct gt_gpu_tally_device *d = &f->gpus->dev[i];
            gt_eff_gpu *g = &use.devices[use.n_devices++];
            g->index = d->index;
            snprintf(g->uuid, sizeof g->uuid, "%s", d->uuid);
            g->mean_percent = d->n_util ? d->sum_util / (double)d->n_util : -1;
            g->mem_peak_bytes = d->mem_read ? (double)d->max_mem : -1;
            g->mem_capacity_bytes = d->total ? (double)d->total : -1;
        }
    }
    gt_request req;
    gt_request_detect(&req, u->cpu_utilization.system_core_count,
                      scaled_bytes(u->max_ram.system_capacity, ram_scale(u->max_ram.unit)),
                      u->gpu_utilization.system_gpu_count);
    gt_efficiency_compute(&req, &use, e);
}
