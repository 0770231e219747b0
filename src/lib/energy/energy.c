/* SPDX-License-Identifier: MIT */
#include "energy/energy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"
#include "util/units.h"
#include "util/timespec.h"

const char gt_energy_cpu_method[] =
    "cpu_time_share: each sample interval's energy times the tracked processes' share of the "
    "machine's busy CPU time in that interval (their utime+stime over /proc/stat's busy time)";
const char gt_energy_gpu_method[] =
    "gpu_utilization_share: each sample interval's energy times the tracked processes' share of "
    "the selected GPUs at the end of that interval: their SM percent over the devices' "
    "utilization percent (summed over the selected GPUs), or, where the driver gives no "
    "per-process samples, their share of the devices' used memory";
const char gt_energy_dram_memory_method[] =
    "memory_share: each sample interval's DRAM energy times the tracked processes' share of the "
    "machine's memory at the end of that interval (their total RSS over the used system RAM), "
    "as AIPowerMeter attributes DRAM power";

/* Running figures of one domain, in joules and seconds. */
typedef struct total {
    int started;            /* a first reading was taken */
    uint64_t prev_uj;       /* RAPL: the counter at the last reading */
    double prev_j, prev_w;  /* GPU: counter and power at the last reading */
    double t_first, t_last;
    double joules, attributed, max_watts;
    double mem_attributed; /* by gt_energy_mem_share (reported for DRAM) */
} total;

typedef enum gpu_mode { GPU_UNDECIDED, GPU_COUNTER, GPU_POWER } gpu_mode;

struct gt_energy {
    gt_rapl *rapl;
    total cpu[GT_RAPL_MAX_DOMAINS];
    size_t n_gpus;
    int gpu_index[GT_ENERGY_MAX_GPUS];
    gpu_mode mode[GT_ENERGY_MAX_GPUS];
    total gpu[GT_ENERGY_MAX_GPUS];
};

gt_status gt_energy_open(const char *sysfs_root, gt_energy **out, gt_error *err)
{
    *out = NULL;
    gt_energy *e = calloc(1, sizeof *e);
    if (!e)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    gt_status st = gt_rapl_open(sysfs_root, &e->rapl, err);
    if (st != GT_OK) {
        free(e);
        return st;
    }
    *out = e;
    return GT_OK;
}

void gt_energy_close(gt_energy **ep)
{
    if (!ep || !*ep)
        return;
    gt_rapl_close(&(*ep)->rapl);
    free(*ep);
    *ep = NULL;
}

void gt_energy_read(gt_energy *e, gt_energy_reading *r)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r->t = gt_ts_seconds(&ts);
    int n = gt_rapl_count(e->rapl);
    for (int i = 0; i < n; i++)
        r->ok[i] = gt_rapl_readable(e->rapl, i) && gt_rapl_read(e->rapl, i, &r->uj[i]) == 0;
}

static double clamp01(double num, double den)
{
    if (!(num > 0))
        return 0.0;
    /* Tick-granular CPU times can put the tracked processes a little above
     * the machine's total over a short interval. */
    return den > num ? num / den : 1.0;
}

double gt_energy_cpu_share(const gt_sample *s)
{
    return s->cpu_valid ? clamp01(s->cpu_combined_sum, s->cpu_system_sum) : 0.0;
}

double gt_energy_gpu_share(const gt_sample *s)
{
    if (s->gpu_sm_valid && s->gpu_sum_percent > 0)
        return clamp01(s->gpu_sm_combined, s->gpu_sum_percent);
    return clamp01((double)s->combined_gpu_ram, (double)s->system_gpu_ram);
}

double gt_energy_mem_share(const gt_sample *s)
{
    return clamp01((double)s->combined.private_rss + (double)s->combined.shared_rss, (double)s->system_ram);
}

double gt_energy_power(double joules, double seconds)
{
    return seconds > 0 && !isnan(joules) ? joules / seconds : NAN;
}

/* The attribution shares of one interval. */
typedef struct shares {
    double cpu, gpu, mem;
} shares;

/* Adds one interval's joules ending at time t to a domain; returns the
 * interval's power. */
static double add(total *d, double joules, double share, double mem_share, double t)
{
    double watts = gt_energy_power(joules, t - d->t_last);
    d->joules += joules;
    d->attributed += joules * share;
    d->mem_attributed += joules * mem_share;
    if (watts > d->max_watts)
        d->max_watts = watts;
    return watts;
}

static int power_slot(gt_rapl_kind k)
{
    switch (k) {
    case GT_RAPL_PACKAGE: return GT_POWER_PACKAGE;
    case GT_RAPL_CORE: return GT_POWER_CORE;
    case GT_RAPL_UNCORE: return GT_POWER_UNCORE;
    case GT_RAPL_DRAM: return GT_POWER_DRAM;
    case GT_RAPL_PSYS: return GT_POWER_PSYS;
    default: return -1;
    }
}

static void fold_cpu(gt_energy *e, const gt_energy_reading *r, shares sh, gt_sample *s)
{
    double pkg = 0, dram = 0;
    int have_pkg = 0, have_dram = 0;
    /* A kind's power is the sum over its domains (one per package), or NaN
     * when any of them closes no interval here: a part is not the whole. */
    double watts[GT_POWER_GPU0] = {0};
    int have_watts[GT_POWER_GPU0] = {0}, missing_watts[GT_POWER_GPU0] = {0};
    for (int i = 0; i < gt_rapl_count(e->rapl); i++) {
        total *d = &e->cpu[i];
        gt_rapl_kind kind = gt_rapl_kind_of(e->rapl, i);
        int slot = power_slot(kind);
        double w = NAN;
        if (r->ok[i]) {
            if (!d->started) {
                d->started = 1;
                d->t_first = r->t;
            } else {
                /* A failed read in between only widens this interval. */
                double j = (double)gt_rapl_delta(d->prev_uj, r->uj[i], gt_rapl_max_range(e->rapl, i)) / 1e6;
                w = add(d, j, sh.cpu, kind == GT_RAPL_DRAM ? sh.mem : 0.0, r->t);
            }
            d->prev_uj = r->uj[i];
            d->t_last = r->t;
        }
        if (slot >= 0) {
            if (isnan(w))
                missing_watts[slot] = 1;
            else
                watts[slot] += w;
            have_watts[slot] = 1;
        }
        if (!d->started)
            continue;
        switch (kind) {
        case GT_RAPL_PACKAGE: pkg += d->joules; have_pkg = 1; break;
        case GT_RAPL_DRAM: dram += d->joules; have_dram = 1; break;
        default: break;
        }
    }
    for (int k = 0; k < GT_POWER_GPU0; k++)
        s->power_watts[k] = have_watts[k] && !missing_watts[k] ? watts[k] : NAN;
    s->cpu_energy = have_pkg ? pkg : NAN;
    s->dram_energy = have_dram ? dram : NAN;
}

/* A device is measured by its energy counter when the first reading has
 * one, else by its power draw integrated over the samples (trapezoids). */
static void fold_gpu(gt_energy *e, const gt_energy_reading *r, shares sh, gt_sample *s)
{
    double sum = 0;
    int have = 0;
    size_t n = s->n_gpus < GT_ENERGY_MAX_GPUS ? s->n_gpus : GT_ENERGY_MAX_GPUS;
    if (!e->n_gpus) {
        e->n_gpus = n;
        for (size_t i = 0; i < e->n_gpus; i++)
            e->gpu_index[i] = s->gpus[i].index;
    }
    for (size_t i = 0; i < GT_SAMPLE_MAX_GPUS; i++)
        s->power_watts[GT_POWER_GPU0 + i] = NAN;
    for (size_t i = 0; i < e->n_gpus && i < n; i++) {
        const gt_gpu_device_reading *g = &s->gpus[i];
        total *d = &e->gpu[i];
        double w = NAN;
        if (e->mode[i] == GPU_UNDECIDED)
            e->mode[i] = g->energy_valid ? GPU_COUNTER : g->power_valid ? GPU_POWER : GPU_UNDECIDED;
        int ok = e->mode[i] == GPU_COUNTER ? g->energy_valid : e->mode[i] == GPU_POWER && g->power_valid;
        if (ok) {
            if (!d->started) {
                d->started = 1;
                d->t_first = r->t;
            } else if (e->mode[i] == GPU_COUNTER) {
                /* A counter that went back (driver reloaded) gives no figure
                 * for this interval rather than a negative one. */
                if (g->energy_joules >= d->prev_j)
                    w = add(d, g->energy_joules - d->prev_j, sh.gpu, 0.0, r->t);
            } else {
                w = add(d, (d->prev_w + g->power_watts) / 2 * (r->t - d->t_last), sh.gpu, 0.0, r->t);
            }
            d->prev_j = g->energy_joules;
            d->prev_w = g->power_watts;
            d->t_last = r->t;
        }
        s->power_watts[GT_POWER_GPU0 + i] = w;
        if (d->started) {
            sum += d->joules;
            have = 1;
        }
    }
    s->gpu_energy = have ? sum : NAN;
}

void gt_energy_fold(gt_energy *e, const gt_energy_reading *r, gt_sample *s)
{
    shares sh = {gt_energy_cpu_share(s), gt_energy_gpu_share(s), gt_energy_mem_share(s)};
    fold_cpu(e, r, sh, s);
    fold_gpu(e, r, sh, s);
}

static const char *const power_names[GT_POWER_GPU0] = {
    "package_power_watts", "core_power_watts", "uncore_power_watts", "dram_power_watts", "psys_power_watts",
};

int gt_energy_power_columns(const gt_energy *e, const gt_gpu_device_reading *gpus, size_t n_gpus,
                            gt_power_column *cols)
{
    int present[GT_POWER_GPU0] = {0}, n = 0;
    for (int i = 0; e && i < gt_rapl_count(e->rapl); i++) {
        int slot = power_slot(gt_rapl_kind_of(e->rapl, i));
        if (slot >= 0)
            present[slot] = 1;
    }
    for (int k = 0; k < GT_POWER_GPU0; k++)
        if (present[k]) {
            cols[n].slot = k;
            snprintf(cols[n].name, sizeof cols[n].name, "%s", power_names[k]);
            n++;
        }
    for (size_t i = 0; i < n_gpus && i < GT_SAMPLE_MAX_GPUS && i < GT_ENERGY_MAX_GPUS; i++, n++) {
        cols[n].slot = GT_POWER_GPU0 + (int)i;
        snprintf(cols[n].name, sizeof cols[n].name, "gpu_%d_power_watts", gpus[i].index);
    }
    return n;
}

static void fill(struct gt_energy_domain *d, const total *t, gt_energy_unit u)
{
    double span = t->t_last - t->t_first;
    d->available = t->started;
    d->energy = t->started ? gt_energy_in_unit(t->joules, u) : -1.0;
    d->attributed_energy = t->started ? gt_energy_in_unit(t->attributed, u) : -1.0;
    d->mean_power_watts = t->started && span > 0 ? t->joules / span : -1.0;
    d->max_power_watts = t->started && span > 0 ? t->max_watts : -1.0;
}

const char *gt_energy_cpu_missing(const gt_energy *e)
{
    return e && gt_rapl_count(e->rapl) == 0 ? gt_rapl_unavailable(e->rapl) : NULL;
}

int gt_energy_measured(const gt_energy *e, size_t n_gpus)
{
    return (e && gt_rapl_count(e->rapl) > 0) || n_gpus > 0;
}

void gt_energy_usage(const gt_energy *e, gt_energy_unit u, gt_usage *out)
{
    memset(&out->energy, 0, sizeof out->energy);
    out->energy.unit = gt_energy_unit_name(u);
    out->energy.cpu_attribution_method = gt_energy_cpu_method;
    out->energy.gpu_attribution_method = gt_energy_gpu_method;
    snprintf(out->energy.cpu_unavailable, sizeof out->energy.cpu_unavailable, "%s",
             gt_rapl_unavailable(e->rapl));
    out->dram_memory_share.method = gt_energy_dram_memory_method;
    for (int i = 0; i < GT_ENERGY_MAX_DOMAINS; i++)
        out->dram_memory_share.attributed_energy[i] = -1.0;
    int n = 0;
    for (int i = 0; i < gt_rapl_count(e->rapl); i++, n++) {
        struct gt_energy_domain *d = &out->energy.domains[n];
        snprintf(d->name, sizeof d->name, "%s", gt_rapl_name(e->rapl, i));
        d->source = "rapl";
        fill(d, &e->cpu[i], u);
        if (gt_rapl_kind_of(e->rapl, i) == GT_RAPL_DRAM && e->cpu[i].started)
            out->dram_memory_share.attributed_energy[n] = gt_energy_in_unit(e->cpu[i].mem_attributed, u);
    }
    char *why = out->energy.gpu_unavailable;
    size_t cap = sizeof out->energy.gpu_unavailable;
    for (size_t i = 0; i < e->n_gpus; i++, n++) {
        struct gt_energy_domain *d = &out->energy.domains[n];
        snprintf(d->name, sizeof d->name, "gpu-%d", e->gpu_index[i]);
        d->gpu = 1;
        d->source = e->mode[i] == GPU_POWER     ? "power_integrated"
                    : e->mode[i] == GPU_COUNTER ? "energy_counter"
                                                : "none";
        fill(d, &e->gpu[i], u);
        if (!d->available) {
            size_t len = strlen(why);
            snprintf(why + len, cap - len, "%s%s: the vendor library gave neither its energy counter "
                     "nor its power draw", len ? "; " : "", d->name);
        }
    }
    out->energy.n_domains = n;
}
