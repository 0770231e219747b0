/* SPDX-License-Identifier: MIT */
#include "tracker/aggregate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"
#include "util/units.h"

static void keep_larger(gt_rss *at_max, const gt_rss *v)
{
    if (v->private_rss + v->shared_rss > at_max->private_rss + at_max->shared_rss)
        *at_max = *v;
}

void gt_aggregate_fold(gt_aggregate *a, const gt_sample *s)
{
#define MAXU(dst, v) do { if ((v) > (dst)) (dst) = (v); } while (0)
    MAXU(a->max_main.private_rss, s->main.private_rss);
    MAXU(a->max_main.shared_rss, s->main.shared_rss);
    MAXU(a->max_desc.private_rss, s->descendants.private_rss);
    MAXU(a->max_desc.shared_rss, s->descendants.shared_rss);
    MAXU(a->max_comb.private_rss, s->combined.private_rss);
    MAXU(a->max_comb.shared_rss, s->combined.shared_rss);
    keep_larger(&a->at_max_main, &s->main);
    keep_larger(&a->at_max_desc, &s->descendants);
    keep_larger(&a->at_max_comb, &s->combined);
    MAXU(a->max_system_ram, s->system_ram);
    MAXU(a->max_gpu_main, s->main_gpu_ram);
    MAXU(a->max_gpu_desc, s->descendants_gpu_ram);
    MAXU(a->max_gpu_comb, s->combined_gpu_ram);
    MAXU(a->max_gpu_system, s->system_gpu_ram);
    MAXU(a->max_gpu, s->gpu_sum_percent);
    MAXU(a->max_threads_main, s->main_n_threads);
    MAXU(a->max_threads_desc, s->descendants_n_threads);
    MAXU(a->max_threads_comb, s->combined_n_threads);
    MAXU(a->main_hwm, s->main_hwm);
    MAXU(a->desc_hwm, s->descendants_max_hwm);
    a->main_hwm_exact = s->main_hwm_exact;
    a->desc_hwm_exact = s->descendants_hwm_exact;
    if (s->main_mem_denied && !a->main_denied)
        a->main_denied = s->main_mem_denied;
    if (s->descendants_mem_denied && !a->desc_denied)
        a->desc_denied = s->descendants_mem_denied;
    if (s->mem_denied_pid && !a->denied_pid)
        a->denied_pid = s->mem_denied_pid;
    a->sum_gpu += s->gpu_sum_percent;
    gt_gpu_tally_fold(&a->gpus, s);
    gt_metric_fold_add(&a->own, s);
    a->n++;
    if (a->n == 1)
        a->first_timestamp = s->timestamp;
    double dt = 0;
    if (s->cpu_valid && a->n > 1) {
        /* The percents are CPU time over the interval's wall time, or over
         * the time since the first sample for the first figure. */
        dt = s->timestamp - (s->cpu_since_first ? a->first_timestamp : a->last_timestamp);
        if (dt > 0) {
            a->cpu_seconds[0] += s->cpu_main_sum / 100.0 * dt;
            a->cpu_seconds[1] += s->cpu_descendants_sum / 100.0 * dt;
            a->cpu_seconds[2] += s->cpu_combined_sum / 100.0 * dt;
        }
    }
    a->last_timestamp = s->timestamp;
    if (s->cpu_valid) {
        const double v[4] = {s->cpu_system_sum, s->cpu_main_sum, s->cpu_descendants_sum,
                             s->cpu_combined_sum};
        for (int i = 0; i < 4; i++) {
            MAXU(a->max_cpu[i], v[i]);
            a->sum_cpu[i] += v[i];
            if (dt > 0)
                a->wsum_cpu[i] += v[i] * dt;
        }
        if (dt > 0)
            a->span_cpu += dt;
        a->n_cpu++;
    }
    if (s->gpu_sm_valid) {
        const double v[3] = {s->gpu_sm_main, s->gpu_sm_descendants, s->gpu_sm_combined};
        for (int i = 0; i < 3; i++) {
            MAXU(a->max_sm[i], v[i]);
            a->sum_sm[i] += v[i];
        }
        a->n_sm++;
    }
    if (s->gpu_power_valid) {
        MAXU(a->max_power, s->gpu_power_watts);
        a->sum_power += s->gpu_power_watts;
        a->n_power++;
    }
#undef MAXU
}

static uint64_t total(const gt_rss *r)
{
    return r->private_rss + r->shared_rss;
}

void gt_aggregate_timepoint(const gt_aggregate *a, const gt_sample *s, const gt_static_data *sd,
                            unsigned int version, double elapsed, gt_timepoint *tp_out)
{
    /* This version's fields, labelled with the program's version, which
     * reads only its own: a copy it makes of *tp is then of its version. */
    gt_timepoint tp = {
        .version = version,
        .timestamp = s->timestamp,
        .elapsed = elapsed,
        .n_samples = a->n,
        .main_ram = total(&s->main),
        .descendants_ram = total(&s->descendants),
        .combined_ram = total(&s->combined),
        .main_ram_unavailable = s->main_mem_denied != 0,
        .descendants_ram_unavailable = s->descendants_mem_denied != 0,
        .combined_ram_unavailable = s->main_mem_denied || s->descendants_mem_denied,
        .system_ram = s->system_ram,
        .system_ram_capacity = sd->ram_system_capacity,
        .gpu_valid = sd->n_expected_gpus > 0,
        .main_gpu_ram = s->main_gpu_ram,
        .descendants_gpu_ram = s->descendants_gpu_ram,
        .combined_gpu_ram = s->combined_gpu_ram,
        .system_gpu_ram = s->system_gpu_ram,
        .system_gpu_ram_capacity = sd->gpu_ram_system_capacity,
        .gpu_sum_percent = sd->n_expected_gpus > 0 ? s->gpu_sum_percent : NAN,
        .n_expected_gpus = sd->n_expected_gpus,
        .gpu_sm_valid = s->gpu_sm_valid,
        .gpu_sm_main = s->gpu_sm_valid ? s->gpu_sm_main : NAN,
        .gpu_sm_descendants = s->gpu_sm_valid ? s->gpu_sm_descendants : NAN,
        .gpu_sm_combined = s->gpu_sm_valid ? s->gpu_sm_combined : NAN,
        .gpu_power_valid = s->gpu_power_valid,
        .gpu_power_watts = s->gpu_power_valid ? s->gpu_power_watts : NAN,
        .cpu_valid = s->cpu_valid,
        .cpu_system_sum = s->cpu_valid ? s->cpu_system_sum : NAN,
        .cpu_main_sum = s->cpu_valid ? s->cpu_main_sum : NAN,
        .cpu_descendants_sum = s->cpu_valid ? s->cpu_descendants_sum : NAN,
        .cpu_combined_sum = s->cpu_valid ? s->cpu_combined_sum : NAN,
        .cpu_main_seconds = a->cpu_seconds[0],
        .cpu_descendants_seconds = a->cpu_seconds[1],
        .cpu_combined_seconds = a->cpu_seconds[2],
        .system_core_count = sd->system_core_count,
        .n_expected_cores = sd->n_expected_cores,
        .main_n_threads = s->main_n_threads,
        .descendants_n_threads = s->descendants_n_threads,
        .combined_n_threads = s->combined_n_threads,
    };
    /* The devices' readings as this sample carries them. */
    const gt_gpu_device_reading *dev = s->gpus;
    for (size_t i = 0; i < s->n_gpus && i < GT_TIMEPOINT_MAX_GPUS; i++) {
        gt_timepoint_gpu *g = &tp.gpus[tp.n_gpus++];
        snprintf(g->uuid, sizeof g->uuid, "%s", dev[i].uuid ? dev[i].uuid : "");
        g->power_valid = dev[i].power_valid;
        g->power_watts = dev[i].power_valid ? dev[i].power_watts : NAN;
        g->energy_valid = dev[i].energy_valid;
        g->energy_joules = dev[i].energy_valid ? dev[i].energy_joules : NAN;
    }
    *tp_out = tp;
}

#define PEAK_EXACT "exact"
#define PEAK_SAMPLED "lower bound (sampled)"
/* A descendant still running when tracking stopped may grow after it. */
#define PEAK_EXACT_AT_STOP "exact up to the end of tracking (descendants still running)"

/* The peak_ram section: each figure with how far it can be trusted. */
static void peaks(gt_usage *u, const gt_aggregate *a, uint64_t maxrss, gt_ram_unit ru)
{
    /* wait4's figure bounds main's own peak from above (it includes the
     * children main reaped): not above the sampled one, both are exact. */
    int main_exact = a->main_hwm_exact || (maxrss > 0 && maxrss <= a->main_hwm);
    u->peak_ram.unit = u->max_ram.unit;
    u->peak_ram.main = a->main_hwm ? gt_ram_in_unit((double)a->main_hwm, ru) : -1.0;
    u->peak_ram.largest_descendant = gt_ram_in_unit((double)a->desc_hwm, ru);
    u->peak_ram_method.main = a->main_hwm ? (main_exact ? PEAK_EXACT : PEAK_SAMPLED) : NULL;
    u->peak_ram_method.largest_descendant =
        !a->desc_hwm_exact ? PEAK_SAMPLED : a->desc_running ? PEAK_EXACT_AT_STOP : PEAK_EXACT;
}

#define RAM_EXACT_EVENTS "exact (kernel events)"
#define RAM_BOUND_EVENTS "lower bound (kernel events)"
#define RAM_SAMPLED "lower bound (sampled)"

/* The max_ram total RSS figures from the event backend's peaks where it
 * ran, each with its method; private and shared stay sampled. */
static void ram_method(gt_usage *u, const gt_events_reading *ev, const char *events_off, size_t unfollowed,
                       gt_ram_unit ru)
{
    gt_rss_values *v[3] = {&u->max_ram.main, &u->max_ram.descendants, &u->max_ram.combined};
    const char **method[3] = {&u->max_ram_method.main, &u->max_ram_method.descendants,
                              &u->max_ram_method.combined};
    double *when[3] = {&u->max_ram_method.main_peak_time, &u->max_ram_method.descendants_peak_time,
                       &u->max_ram_method.combined_peak_time};
    u->max_ram_method.bound_per_process = gt_ram_in_unit((double)gt_events_bound_per_process(), ru);
    if (!ev) {
        for (int i = 0; i < 3; i++)
            *method[i] = RAM_SAMPLED;
        gt_text_fit(u->max_ram_method.reason, sizeof u->max_ram_method.reason, "%s",
                 events_off && events_off[0] ? events_off : "no sample was taken");
        return;
    }
    for (int i = 0; i < 3; i++) {
        double peak = gt_ram_in_unit((double)ev->peak[i], ru);
        *when[i] = ev->peak_time[i];
        /* Descendants the backend does not follow: its descendants' and
         * combined sums lack them, the main process's is whole. */
        if (ev->exact && !(i > 0 && unfollowed)) {
            v[i]->total_rss = peak;
            *method[i] = RAM_EXACT_EVENTS;
        } else {
            if (peak > v[i]->total_rss)
                v[i]->total_rss = peak;
            *method[i] = RAM_BOUND_EVENTS;
        }
    }
    if (ev->exact && unfollowed)
        gt_text_fit(u->max_ram_method.reason, sizeof u->max_ram_method.reason,
                 "%zu descendants were running before tracking began: the event backend follows only the "
                 "processes forked since",
                 unfollowed);
    else
        gt_text_fit(u->max_ram_method.reason, sizeof u->max_ram_method.reason, "%s", ev->why);
    u->max_ram_method.processes = (unsigned long)ev->n_members + 1;
}

/* Memory that could not be read is unavailable, never 0. */
static void unreadable(gt_usage *u, const gt_aggregate *a)
{
    const gt_rss_values none = {-1.0, -1.0, -1.0};
    if (a->main_denied)
        u->max_ram.main = none;
    if (a->desc_denied)
        u->max_ram.descendants = none;
    if (a->main_denied || a->desc_denied) {
        u->max_ram.combined = none;
        gt_text_fit(u->ram_unavailable, sizeof u->ram_unavailable,
                 "the memory of process %d cannot be read: %s", (int)a->denied_pid,
                 strerror(a->main_denied ? a->main_denied : a->desc_denied));
    }
}

static void pct(gt_percentages *p, double max, double sum, unsigned long n, int div)
{
    double d = div > 0 ? div : 1;
    p->max_sum_percent = max;
    p->max_hardware_percent = max / d;
    p->mean_sum_percent = n ? sum / (double)n : 0.0;
    p->mean_hardware_percent = n ? sum / d / (double)n : 0.0;
}

/* CPU percents with no figure at all (a single sample closes no interval)
 * are unavailable, never 0: every field -1; but 0 where none_ran (the
 * process had ended before tracking began).  The mean is over time: each
 * interval's percent weighed by its length (wsum over span), or the
 * samples' mean where the clock gave no length (stepped back). */
static void cpu_pct(gt_percentages *p, double max, double sum, double wsum, double span, unsigned long n,
                    int div, int none_ran)
{
    if (!n && !none_ran) {
        *p = (gt_percentages){-1.0, -1.0, -1.0, -1.0};
        return;
    }
    if (!(span > 0)) {
        pct(p, max, sum, n, div);
        return;
    }
    /* A single interval's percent weighed and divided back may round above
     * it: the mean is never above the max. */
    double mean = wsum / span;
    pct(p, max, mean < max ? mean : max, 1, div);
}

static void rss(gt_rss_values *v, const gt_rss *max, const gt_rss *at_max, gt_ram_unit u)
{
    v->private_rss = gt_ram_in_unit((double)max->private_rss, u);
    v->shared_rss = gt_ram_in_unit((double)max->shared_rss, u);
    v->total_rss = gt_ram_in_unit((double)at_max->private_rss, u) +
                   gt_ram_in_unit((double)at_max->shared_rss, u);
}

void gt_aggregate_usage(const gt_aggregate *a, const gt_aggregate_run *r, gt_usage *u)
{
    const gt_static_data *sd = r->sd;
    gt_ram_unit ru = sd->ram_unit, gu = sd->gpu_ram_unit;

    u->max_ram.unit = gt_ram_unit_name(ru);
    u->max_ram.system_capacity = gt_ram_in_unit((double)sd->ram_system_capacity, ru);
    u->max_ram.system = gt_ram_in_unit((double)a->max_system_ram, ru);
    rss(&u->max_ram.main, &a->max_main, &a->at_max_main, ru);
    rss(&u->max_ram.descendants, &a->max_desc, &a->at_max_desc, ru);
    rss(&u->max_ram.combined, &a->max_comb, &a->at_max_comb, ru);

    u->max_gpu_ram.unit = gt_ram_unit_name(gu);
    u->max_gpu_ram.system_capacity = gt_gpu_ram_in_unit((double)sd->gpu_ram_system_capacity, gu);
    u->max_gpu_ram.system = gt_gpu_ram_in_unit((double)a->max_gpu_system, gu);
    u->max_gpu_ram.main = gt_gpu_ram_in_unit((double)a->max_gpu_main, gu);
    u->max_gpu_ram.descendants = gt_gpu_ram_in_unit((double)a->max_gpu_desc, gu);
    u->max_gpu_ram.combined = gt_gpu_ram_in_unit((double)a->max_gpu_comb, gu);

    u->cpu_utilization.system_core_count = sd->system_core_count;
    u->cpu_utilization.n_expected_cores = sd->n_expected_cores;
    int none = r->none_ran;
    cpu_pct(&u->cpu_utilization.system, a->max_cpu[0], a->sum_cpu[0], a->wsum_cpu[0], a->span_cpu, a->n_cpu,
            sd->system_core_count, none);
    cpu_pct(&u->cpu_utilization.main, a->max_cpu[1], a->sum_cpu[1], a->wsum_cpu[1], a->span_cpu, a->n_cpu,
            sd->n_expected_cores, none);
    cpu_pct(&u->cpu_utilization.descendants, a->max_cpu[2], a->sum_cpu[2], a->wsum_cpu[2], a->span_cpu, a->n_cpu,
            sd->n_expected_cores, none);
    cpu_pct(&u->cpu_utilization.combined, a->max_cpu[3], a->sum_cpu[3], a->wsum_cpu[3], a->span_cpu, a->n_cpu,
            sd->n_expected_cores, none);
    u->cpu_utilization.main_n_threads = a->max_threads_main;
    u->cpu_utilization.descendants_n_threads = a->max_threads_desc;
    u->cpu_utilization.combined_n_threads = a->max_threads_comb;

    u->gpu_utilization.system_gpu_count = sd->system_gpu_count;
    u->gpu_utilization.n_expected_gpus = sd->n_expected_gpus;
    pct(&u->gpu_utilization.gpu_percentages, a->max_gpu, a->sum_gpu, a->n, sd->n_expected_gpus);
    u->gpu_process_utilization.available = a->n_sm > 0;
    pct(&u->gpu_process_utilization.main, a->max_sm[0], a->sum_sm[0], a->n_sm, sd->n_expected_gpus);
    pct(&u->gpu_process_utilization.descendants, a->max_sm[1], a->sum_sm[1], a->n_sm, sd->n_expected_gpus);
    pct(&u->gpu_process_utilization.combined, a->max_sm[2], a->sum_sm[2], a->n_sm, sd->n_expected_gpus);
    u->gpu_power.available = a->n_power > 0;
    u->gpu_power.unit = "watts";
    u->gpu_power.max = a->max_power;
    u->gpu_power.mean = a->n_power ? a->sum_power / (double)a->n_power : 0.0;

    u->compute_time.unit = gt_time_unit_name(sd->time_unit);
    u->compute_time.time = gt_time_in_unit(r->elapsed, sd->time_unit);

    peaks(u, a, r->main_maxrss, ru);
    ram_method(u, r->ev, r->events_off, r->ev_unfollowed, ru);
    unreadable(u, a);
    u->n_samples = a->n;
}
