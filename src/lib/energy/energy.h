/* SPDX-License-Identifier: MIT */
/* Energy of a tracking run.  Every counter is read once per sample and
 * folded into per-domain totals (counter differences, never sampled power
 * added up, except for a GPU without an energy counter, where power is
 * integrated and labelled so), mean and max power, and the tracked
 * processes' estimated share.  Reading and folding are split so the tracker
 * can read without holding its lock. */
#ifndef GT_ENERGY_ENERGY_H
#define GT_ENERGY_ENERGY_H
#include <stddef.h>
#include <stdint.h>
#include "energy/rapl.h"
#include "gpu/gpu.h"
#include "gpu_tracker.h"
#include "sampler/sample.h"

#define GT_ENERGY_MAX_GPUS (GT_ENERGY_MAX_DOMAINS - GT_RAPL_MAX_DOMAINS)

/* One GPU device at one sample, as the GPU backend read it (a copy of
 * gt_gpu_device_reading's energy figures). */
typedef struct gt_energy_gpu {
    int index;            /* the vendor's device index: names the domain */
    int energy_valid;     /* the cumulative counter was read */
    double energy_joules; /* cumulative counter (any origin) */
    int power_valid;
    double power_watts;
} gt_energy_gpu;

typedef struct gt_energy_reading {
    double t; /* CLOCK_MONOTONIC, seconds */
    uint64_t uj[GT_RAPL_MAX_DOMAINS];
    unsigned char ok[GT_RAPL_MAX_DOMAINS];
    /* The same devices in the same order at every sample of a session. */
    size_t n_gpus;
    gt_energy_gpu gpu[GT_ENERGY_MAX_GPUS];
} gt_energy_reading;

/* How energy is attributed to the tracked processes (named in JSON). */
extern const char gt_energy_cpu_method[];
extern const char gt_energy_gpu_method[];

typedef struct gt_energy gt_energy;

/* Opens the RAPL counters under sysfs_root (NULL: "/sys").  Fails only for
 * lack of memory; counters that cannot be read are reported by
 * gt_energy_usage. */
gt_status gt_energy_open(const char *sysfs_root, gt_energy **out, gt_error *err);
/* NULL-safe; sets *e to NULL. */
void gt_energy_close(gt_energy **e);

/* Reads every RAPL counter now, and copies the GPU devices' latest power
 * and energy from gpu (NULL: none), which the sampler has just read.
 * Sampling thread only; touches no totals. */
void gt_energy_read(gt_energy *e, const gt_gpu *gpu, gt_energy_reading *r);

/* Folds r into the totals.  The interval since the previous reading is
 * attributed by s's figures (gt_energy_cpu_share, gt_energy_gpu_share); s's
 * energy columns are set to the joules since the first reading (NaN:
 * unavailable). */
void gt_energy_fold(gt_energy *e, const gt_energy_reading *r, gt_sample *s);

/* Why no CPU energy is measured (no RAPL domain at all), or NULL when some
 * domain is there: a report leaves an empty CPU group out, so the tracker
 * says this once on its log instead. */
const char *gt_energy_cpu_missing(const gt_energy *e);

/* Whether any energy is measured: some RAPL domain, or a GPU selected in
 * gpu (NULL: none).  Decides whether tracking files get energy columns. */
int gt_energy_measured(const gt_energy *e, const gt_gpu *gpu);

/* Fills out->energy in unit u. */
void gt_energy_usage(const gt_energy *e, gt_energy_unit u, gt_usage *out);

/* The tracked processes' share of the machine's busy CPU time in the
 * interval that ends at s, in [0, 1]; 0 when s closes no interval. */
double gt_energy_cpu_share(const gt_sample *s);
/* The tracked processes' share of the selected GPUs at s, in [0, 1]: their
 * SM percent over the devices' utilization where the driver gives
 * per-process samples, else their share of the devices' used memory. */
double gt_energy_gpu_share(const gt_sample *s);
#endif
