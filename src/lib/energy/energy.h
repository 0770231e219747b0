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
#include "gpu_tracker.h"
#include "sample.h"

#define GT_ENERGY_MAX_GPUS (GT_ENERGY_MAX_DOMAINS - GT_RAPL_MAX_DOMAINS)

/* The RAPL counters at one sample.  The GPUs' power and energy travel in
 * the sample itself (gt_sample.gpus), read by the sampler. */
typedef struct gt_energy_reading {
    double t; /* CLOCK_MONOTONIC, seconds */
    uint64_t uj[GT_RAPL_MAX_DOMAINS];
    unsigned char ok[GT_RAPL_MAX_DOMAINS];
} gt_energy_reading;

/* How energy is attributed to the tracked processes (named in JSON). */
extern const char gt_energy_cpu_method[];
extern const char gt_energy_gpu_method[];
extern const char gt_energy_dram_memory_method[];

typedef struct gt_energy gt_energy;

/* Opens the RAPL counters under sysfs_root (NULL: "/sys").  Fails only for
 * lack of memory; counters that cannot be read are reported by
 * gt_energy_usage. */
gt_status gt_energy_open(const char *sysfs_root, gt_energy **out, gt_error *err);
/* NULL-safe; sets *e to NULL. */
void gt_energy_close(gt_energy **e);

/* Reads every RAPL counter now.  Sampling thread only; touches no
 * totals. */
void gt_energy_read(gt_energy *e, gt_energy_reading *r);

/* Folds r and s's GPU devices (s->gpus, the same devices in the same order
 * at every sample) into the totals.  The interval since the previous
 * reading is attributed by s's figures (gt_energy_cpu_share,
 * gt_energy_gpu_share, and for DRAM also gt_energy_mem_share); s's energy
 * columns are set to the joules since the first reading and s->power_watts
 * to each domain's power over the interval (NaN: unavailable). */
void gt_energy_fold(gt_energy *e, const gt_energy_reading *r, gt_sample *s);

/* Power of an interval: joules over seconds; NaN when the interval has no
 * length or no energy figure (joules NaN), never a made-up 0. */
double gt_energy_power(double joules, double seconds);

/* The power columns of a tracking file, in file order: the RAPL domain
 * kinds present (package, core, uncore, dram, psys; each summed over the
 * packages), then each selected GPU (gpus: as every sample's devices list
 * them, only their index read; n_gpus 0: none).  Fills at most
 * GT_POWER_SLOTS entries of cols; returns how many. */
int gt_energy_power_columns(const gt_energy *e, const gt_gpu_device_reading *gpus, size_t n_gpus,
                            gt_power_column *cols);

/* Why no CPU energy is measured (no RAPL domain at all), or NULL when some
 * domain is there: a report leaves an empty CPU group out, so the tracker
 * says this once on its log instead. */
const char *gt_energy_cpu_missing(const gt_energy *e);

/* Whether any energy is measured: some RAPL domain, or some of n_gpus
 * selected GPUs.  Decides whether tracking files get energy columns. */
int gt_energy_measured(const gt_energy *e, size_t n_gpus);

/* Fills out->energy in unit u. */
void gt_energy_usage(const gt_energy *e, gt_energy_unit u, gt_usage *out);

/* The tracked processes' share of the machine's busy CPU time in the
 * interval that ends at s, in [0, 1]; 0 when s closes no interval. */
double gt_energy_cpu_share(const gt_sample *s);
/* The tracked processes' share of the selected GPUs at s, in [0, 1]: their
 * SM percent over the devices' utilization where the driver gives
 * per-process samples, else their share of the devices' used memory. */
double gt_energy_gpu_share(const gt_sample *s);
/* The tracked processes' share of the machine's memory at s, in [0, 1]:
 * their total RSS over the used system RAM (AIPowerMeter's attribution of
 * DRAM power). */
double gt_energy_mem_share(const gt_sample *s);
#endif
