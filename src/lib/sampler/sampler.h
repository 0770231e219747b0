/* SPDX-License-Identifier: MIT */
/* The sampler reads one timepoint of a process tree and the system: RAM
 * (private/shared, deduplicated per mapping path like the Python package),
 * CPU time deltas, thread counts, kernel high-water marks, and GPU figures
 * through gpu/, whose handle it opens and owns: everything else learns of
 * the GPUs from the samples (and gt_sampler_gpus).  It keeps per-process
 * state between samples so it never re-reads what did not change and
 * allocates only when the tree grows. */
#ifndef GT_SAMPLER_SAMPLER_H
#define GT_SAMPLER_SAMPLER_H
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include "gpu_tracker.h"
#include "sample.h"

typedef struct gt_sampler gt_sampler;

typedef struct gt_sampler_config {
    pid_t main_pid;
    pid_t tree_root;        /* 0: main_pid */
    const char *proc_root;  /* NULL: /proc */
    /* 1: open the GPUs (gpu/, as gt_gpu_open: never fails for lack of
     * GPUs, fails for a gpu_uuids entry that names no device); 0: none.
     * sysfs_root (NULL: /sys) is where the GPUs are looked for; log
     * (unless disable_logs) hears the GPU layer's warnings. */
    int gpus;
    gt_gpu_brand gpu_brand;
    const char *gpu_uuids;  /* NULL: every GPU */
    const char *sysfs_root;
    gt_log_fn log;
    void *log_ctx;
    int disable_logs;
    /* 1: listen to the kernel's exit records (taskstats) for exact peaks
     * where the privilege allows; 0: sampled peaks only. */
    int exit_records;
} gt_sampler_config;

gt_status gt_sampler_new(const gt_sampler_config *cfg, gt_sampler **out, gt_error *err);
/* Share of one core that the page-table walks splitting RSS into private
 * and shared (smaps_rollup, smaps) may use, 0.01 unless set; a value not
 * above 0 keeps the current one.  The total RSS is read at every sample
 * whatever the budget. */
#define GT_SAMPLER_WALK_BUDGET 0.01
void gt_sampler_set_walk_budget(gt_sampler *s, double share_of_core);
/* A process whose CPU clock has not moved since the last sample has not
 * run: its stat and children are taken from that sample instead of read,
 * and read again at least every this many seconds (1 unless set; 0: at
 * every sample) for what others can change meanwhile: its RSS falling
 * (reclaim, swap) or rising by another's hand (process_vm_writev). */
#define GT_SAMPLER_IDLE_REFRESH 1.0
void gt_sampler_set_idle_refresh(gt_sampler *s, double seconds);
/* CPU clocks are read only on the real /proc; a test over a fake tree whose
 * PIDs are live processes turns them on, to reach the idle paths. */
void gt_sampler_use_clocks(gt_sampler *s);
/* The system-wide figures (RAM used, the cores' CPU) are read at most every
 * this many seconds (0.04 unless set; 0: at every sample), and always at the
 * first and the last sample; a sample in between repeats the last reading.
 * /proc/meminfo and /proc/stat are the largest texts a sample reads, and
 * /proc/stat counts in 10 ms ticks. */
#define GT_SAMPLER_SYSTEM_PERIOD 0.04
void gt_sampler_set_system_period(gt_sampler *s, double seconds);
uint64_t gt_sampler_ram_capacity(const gt_sampler *s);  /* MemTotal, bytes */
/* The GPUs the sampler opened, constant for its life (all 0 without). */
typedef struct gt_sampler_gpu_info {
    int count;              /* the machine's GPUs */
    int expected;           /* those selected (gpu_uuids) */
    uint64_t capacity;      /* the selected GPUs' total memory, bytes */
    /* The selected GPUs with their identity, in the order every sample
     * lists them; valid for the sampler's life. */
    size_t n_devices;
    const gt_gpu_device_reading *devices;
} gt_sampler_gpu_info;
void gt_sampler_gpus(const gt_sampler *s, gt_sampler_gpu_info *out);
int gt_sampler_core_count(const gt_sampler *s);         /* cores in /proc/stat */

/* Takes one sample.  Must always be called from the same thread: when the
 * tracked process is the caller's own, that thread's CPU time and the thread
 * itself are left out, so the tracker never counts itself.  Fails
 * (GT_ERR_NOPROC) only when the main process is gone at the first sample;
 * later a vanished process simply stops contributing.  out's views (its
 * processes, devices, GPU processes and exits) point into s until the next
 * sample (sample.h). */
gt_status gt_sampler_take(gt_sampler *s, gt_sample *out, gt_error *err);
/* Takes the run's last sample, as gt_sampler_take.  When no sample so far
 * had CPU figures (a run shorter than the CPU window), this one has them,
 * measured over the whole run since the first sample (cpu_since_first). */
gt_status gt_sampler_take_last(gt_sampler *s, gt_sample *out, gt_error *err);

/* Whether the main process was present at the last sample. */
int gt_sampler_main_alive(const gt_sampler *s);
/* Descendants that were running (not zombies) at the last sample. */
size_t gt_sampler_descendants_alive(const gt_sampler *s);
void gt_sampler_free(gt_sampler **s);
#endif
