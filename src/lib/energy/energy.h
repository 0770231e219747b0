/* Energy of a tracking run.  Every counter is read once per sample and
 * folded into per-domain totals (counter differences, never sampled power
 * added up), mean and max power, and the tracked processes' estimated share.
 * Reading and folding are split so the tracker can read without its lock. */
#ifndef GT_ENERGY_ENERGY_H
#define GT_ENERGY_ENERGY_H
#include <stdint.h>
#include "gpu_tracker.h"
#include "sampler/sample.h"

typedef struct gt_energy gt_energy;

typedef struct gt_energy_reading {
    double t; /* CLOCK_MONOTONIC, seconds */
    uint64_t uj[GT_ENERGY_MAX_DOMAINS];
    unsigned char ok[GT_ENERGY_MAX_DOMAINS];
} gt_energy_reading;

/* How CPU energy is attributed to the tracked processes (named in JSON). */
extern const char gt_energy_cpu_method[];

/* Opens the counters under sysfs_root (NULL: "/sys").  Fails only for lack
 * of memory; counters that cannot be read are reported by gt_energy_usage. */
gt_status gt_energy_open(const char *sysfs_root, gt_energy **out, gt_error *err);
/* NULL-safe; sets *e to NULL. */
void gt_energy_close(gt_energy **e);

/* Reads every counter now.  Sampling thread only; touches no totals. */
void gt_energy_read(gt_energy *e, gt_energy_reading *r);

/* Folds r into the totals.  The interval since the previous reading is
 * attributed by s's CPU figures (the tracked processes' share of the
 * machine's busy CPU time); s's energy columns are set to the joules since
 * the first reading (NaN: unavailable). */
void gt_energy_fold(gt_energy *e, const gt_energy_reading *r, gt_sample *s);

/* Fills out->energy in unit u. */
void gt_energy_usage(const gt_energy *e, gt_energy_unit u, gt_usage *out);

/* The tracked processes' share of the machine's busy CPU time in the
 * interval that ends at s, in [0, 1]; 0 when s closes no interval. */
double gt_energy_cpu_share(const gt_sample *s);
#endif
