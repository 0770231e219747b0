/* SPDX-License-Identifier: MIT */
/* What the sampler sees of GPUs: one handle over whichever vendor backend
 * was selected (backend.h holds the vendor table).  A handle is used by one
 * thread at a time (the sampling thread, once tracking runs). */
#ifndef GT_GPU_GPU_H
#define GT_GPU_GPU_H
#include <stdint.h>
#include <sys/types.h>
#include "gpu_tracker.h"
#include "sample.h" /* gt_gpu_device_reading, what a sample carries of each device */

typedef struct gt_gpu gt_gpu;

/* Process sets to attribute per-process GPU memory to. Sorted ascending. */
typedef struct gt_pidset {
    const pid_t *main;  size_t n_main;
    const pid_t *desc;  size_t n_desc;
} gt_pidset;

#define GT_GPU_UUID_MAX 96

typedef struct gt_gpu_reading {
    uint64_t main_bytes, descendants_bytes, combined_bytes, system_bytes;
    double sum_util_percent;        /* over the selected devices */
    /* gpu-tracker's own: SM utilization of the tracked processes, percent,
     * summed over the selected devices; sm_valid is 0 where the vendor
     * library gives no per-process utilization. */
    int sm_valid;
    double main_sm_percent, descendants_sm_percent, combined_sm_percent;
    /* Each selected device's reading (gt_gpu_device_reading, sample.h). */
    size_t n_devices;
    const gt_gpu_device_reading *devices;
} gt_gpu_reading;

/* Detects and opens a backend (brand GT_GPU_AUTO: NVIDIA then AMD).  Never
 * fails for lack of GPUs: then *out is a handle with zero devices and a
 * warning was sent to log (unless disable_logs).  Fails (GT_ERR_GPU) for a
 * --guuids entry that names no device, listing the valid UUIDs.
 * sysfs_root (NULL: /sys) is where backends look for devices before
 * initializing their library (tests point it at a fixture tree). */
gt_status gt_gpu_open(gt_gpu_brand brand, const char *uuids, const char *sysfs_root, gt_log_fn log,
                      void *log_ctx, int disable_logs, gt_gpu **out, gt_error *err);
int gt_gpu_count(const gt_gpu *g);           /* system GPU count */
int gt_gpu_expected(const gt_gpu *g);        /* devices selected by --guuids */
uint64_t gt_gpu_capacity(const gt_gpu *g);   /* sum of total memory, bytes */
/* The selected devices (index and UUID are set from open on; power and
 * energy from the first sample on).  Owned by g. */
const gt_gpu_device_reading *gt_gpu_devices(const gt_gpu *g, size_t *n);
/* Reads one sample.  Degraded figures are reported once via log, and leave
 * the reading's other fields intact; never fails the tracker. */
void gt_gpu_sample(gt_gpu *g, const gt_pidset *pids, gt_gpu_reading *out);
/* Makes the next gt_gpu_sample read every figure, those held to the slow
 * readings' budget too (the energy counter, per-process SM utilization):
 * for the run's last sample.  The first sample reads them all anyway. */
void gt_gpu_read_all(gt_gpu *g);
/* The processes every device listed at the last gt_gpu_sample (all
 * processes of the machine, not only the tracked ones; owned by g) and, in
 * *slot, for each the index into gt_gpu_devices() of the selected device
 * that listed it, or SIZE_MAX (a device not selected, or a vendor that
 * lists processes system-wide). */
struct gt_gpu_proc;
size_t gt_gpu_last_procs(const gt_gpu *g, const struct gt_gpu_proc **procs, size_t *slot, size_t cap);
void gt_gpu_close(gt_gpu **g);
#endif
