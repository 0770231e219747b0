/* What the sampler sees of GPUs: one handle over whichever vendor backend
 * was selected (backend.h holds the vendor table). */
#ifndef GT_GPU_GPU_H
#define GT_GPU_GPU_H
#include <stdint.h>
#include <sys/types.h>
#include "gpu_tracker.h"

typedef struct gt_gpu gt_gpu;

/* Process sets to attribute per-process GPU memory to. Sorted ascending. */
typedef struct gt_pidset {
    const pid_t *main;  size_t n_main;
    const pid_t *desc;  size_t n_desc;
} gt_pidset;

typedef struct gt_gpu_reading {
    uint64_t main_bytes, descendants_bytes, combined_bytes, system_bytes;
    double sum_util_percent;        /* over the selected devices */
} gt_gpu_reading;

/* Detects and opens a backend (brand GT_GPU_AUTO: NVIDIA then AMD).  Never
 * fails for lack of GPUs: then *out is a handle with zero devices and a
 * warning was sent to log (unless disable_logs).  Fails (GT_ERR_GPU) for a
 * --guuids entry that names no device, listing the valid UUIDs. */
gt_status gt_gpu_open(gt_gpu_brand brand, const char *uuids, gt_log_fn log,
                      void *log_ctx, int disable_logs, gt_gpu **out, gt_error *err);
int gt_gpu_count(const gt_gpu *g);           /* system GPU count */
int gt_gpu_expected(const gt_gpu *g);        /* devices selected by --guuids */
uint64_t gt_gpu_capacity(const gt_gpu *g);   /* sum of total memory, bytes */
/* Reads one sample.  Degraded figures are reported once via log, and leave
 * the reading's other fields intact; never fails the tracker. */
void gt_gpu_sample(gt_gpu *g, const gt_pidset *pids, gt_gpu_reading *out);
void gt_gpu_close(gt_gpu **g);
#endif
