/* SPDX-License-Identifier: MIT */
/* One timepoint, in base units (bytes, percent of one core), as the sampler
 * produces it and every consumer reads it: the stores, the aggregate,
 * energy/ and the per-process and per-GPU tables (perproc/).  Converting to
 * the user's units happens only when writing (store/, report/). */
#ifndef GT_SAMPLE_H
#define GT_SAMPLE_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "gpu_tracker.h"
#include "sample_slots.h"
#include "proc/taskstats.h"

/* GPUs a sample carries, at most (the first of the selected ones). */
#define GT_SAMPLE_MAX_GPUS 16

/* Slots of gt_sample.power_watts: the RAPL domain kinds, each summed over
 * the packages, then the sample's GPUs in order. */
enum {
    GT_POWER_PACKAGE, GT_POWER_CORE, GT_POWER_UNCORE, GT_POWER_DRAM, GT_POWER_PSYS,
    GT_POWER_GPU0, /* gpus[i] is slot GT_POWER_GPU0 + i */
    GT_POWER_SLOTS = GT_POWER_GPU0 + GT_SAMPLE_MAX_GPUS
};

typedef struct gt_rss {
    uint64_t private_rss, shared_rss; /* total = private + shared */
} gt_rss;

/* One selected GPU at a sample, as the GPU layer (gpu/) read it: its
 * identity, readings and capacity.  The GPU handle's array of these keeps
 * its order (the vendor's device index, ascending) for the whole session,
 * and is overwritten by each gt_gpu_sample. */
typedef struct gt_gpu_device_reading {
    int index;                 /* the vendor's device index (nvidia-smi's, rocm-smi's) */
    const char *uuid;          /* as --guuids takes it; valid until gt_gpu_close */
    /* 0: not read at this sample (the reason was warned once); a lost
     * device stays 0 from then on. */
    int power_valid;
    double power_watts;        /* NVML: nvmlDeviceGetPowerUsage; ROCm SMI: average power */
    int energy_valid;
    /* Cumulative counter (NVML: nvmlDeviceGetTotalEnergyConsumption, since
     * the driver was loaded; ROCm SMI: the energy accumulator): use the
     * difference between two samples.  A value below the previous one
     * means the counter restarted (driver reload). */
    double energy_joules;
    /* For --per-gpu and --per-process: this device's used memory (bytes) and
     * utilization (percent) at this sample, each 0-valid where not read;
     * procs_valid: its processes were listed (per device, NVML), so a
     * process absent from the list used none of its memory; sm_valid: their
     * SM utilization was read (absent: idle). */
    int mem_valid, util_valid, procs_valid, sm_valid;
    uint64_t mem_used_bytes;
    double util_percent;
    uint64_t mem_total_bytes;  /* its capacity, set from open on */
} gt_gpu_device_reading;

/* One tracked process as the sample read it (nothing is read anew). */
typedef struct gt_sample_proc {
    pid_t pid, ppid;
    char comm[16];          /* the kernel's command name, as /proc gives it */
    int is_main;
    uint64_t starttime;     /* ticks after boot: tells a reused PID apart */
    char state;             /* 'R', 'S', 'Z', ... */
    int threads;            /* the sampling thread left out when self-tracking */
    /* CPU time of all its threads since it started, seconds (the sampling
     * thread's left out when self-tracking). */
    double cpu_seconds;
    /* mem_valid: private/shared hold a split that was read (a page-table
     * walk at this sample or an earlier one, see README "What is measured"),
     * or 0 and 0 for a zombie.  0 where it was never walked or its memory
     * cannot be read (mem_denied: errno). */
    int mem_valid, mem_denied;
    uint64_t private_rss, shared_rss;
    uint64_t hwm;           /* VmHWM as last read while it lived, bytes; 0: never read */
    /* The metric table's per-process values (sample_slots.h), NaN where
     * the probe's file could not be read: probe_err[f] is then its errno
     * (EACCES: another user's process). */
    double values[GT_PV_SLOTS];
    int probe_err[GT_PROBE_SLOTS];
} gt_sample_proc;

/* One process a GPU listed at the sample: any process of the machine, not
 * only a tracked one, as often as the vendor listed it. */
typedef struct gt_sample_gpu_proc {
    pid_t pid;
    /* Index into gt_sample.devices of the selected device that listed it;
     * SIZE_MAX: a device not selected, or a vendor that lists processes
     * system-wide. */
    size_t device;
    int mem_valid;          /* 0: the vendor gave no memory figure for it */
    uint64_t mem_bytes;
    int sm_valid;           /* its SM utilization is known */
    double sm_percent;
} gt_sample_gpu_proc;

typedef struct gt_sample {
    double timestamp;               /* Unix seconds */
    gt_rss main, descendants, combined;
    uint64_t system_ram;            /* psutil's "used" */
    uint64_t main_gpu_ram, descendants_gpu_ram, combined_gpu_ram, system_gpu_ram;
    double gpu_sum_percent;         /* sum over the selected GPUs */
    int main_n_threads, descendants_n_threads, combined_n_threads;
    size_t descendants_alive;       /* descendants running (not zombies) */
    /* CPU percent of one core over the interval that ends at this sample;
     * cpu_valid is 0 for the first sample, which closes no interval. */
    int cpu_valid;
    /* 1: the CPU percents are over the time since the first sample, not
     * over the last interval: the first sample with CPU figures covers the
     * samples before it, which had none (see cpu_percents in sampler.c). */
    int cpu_since_first;
    /* Seconds the CPU percents are over (monotonic): percent x span is the
     * CPU time this sample credits.  (The report's means weigh each sample
     * by its timestamp's distance from the one before, which the tracking
     * file holds.) */
    double cpu_span;
    double cpu_system_sum, cpu_main_sum, cpu_descendants_sum, cpu_combined_sum;
    /* gpu-tracker's own GPU figures (not in tracking files): SM percent of
     * the tracked processes and total power of the selected GPUs; each
     * valid flag is 0 where the vendor library gave none this sample. */
    int gpu_sm_valid;
    double gpu_sm_main, gpu_sm_descendants, gpu_sm_combined;
    int gpu_power_valid;
    double gpu_power_watts;
    /* Kernel high-water marks seen so far, bytes: the main process's own
     * VmHWM, and the largest VmHWM of any single descendant, each from the
     * samples and, where taskstats is available, from the kernel's record
     * of every exit. */
    uint64_t main_hwm, descendants_max_hwm;
    /* main_hwm_exact: main's VmHWM was read at this sample while it lived,
     * or its exit record arrived.  descendants_hwm_exact: every exit of the
     * tree is known (taskstats, no record dropped), so no descendant's peak
     * fell between samples.  0: the figure is a lower bound. */
    int main_hwm_exact, descendants_hwm_exact;
    /* errno (EACCES) when the memory of main / of a descendant could not be
     * read (another user's process, a setuid program), 0 otherwise; the
     * first such process is mem_denied_pid. */
    int main_mem_denied, descendants_mem_denied;
    pid_t mem_denied_pid;
    /* Some /proc file could not be opened for want of descriptors. */
    int fd_short;
    /* The metric table's tree figures (sample_slots.h, metric/probe.h),
     * NaN where unavailable; probe_err[f]: the errno of the first member
     * whose probe file f could not be read, 0 where all were. */
    double tree[GT_TREE_SLOTS];
    int probe_err[GT_PROBE_SLOTS];
    /* Joules since the first sample: RAPL package and DRAM domains summed,
     * and the selected GPUs.  NaN: unavailable.  Set by energy/. */
    double cpu_energy, dram_energy, gpu_energy;
    /* Each selected GPU as the GPU layer read it for this sample, in the
     * vendor's index order, the same devices at every sample: energy/ and
     * the timepoint callback take power and energy from here, never from
     * the backend's handle.  Set by the sampler. */
    size_t n_gpus;
    gt_gpu_device_reading gpus[GT_SAMPLE_MAX_GPUS];
    /* Power over the interval that ends at this sample, watts, by GT_POWER_*
     * slot: the interval's energy over its length.  NaN: no interval yet
     * (first sample), a counter not read, or no such domain.  Set by
     * energy/. */
    double power_watts[GT_POWER_SLOTS];
    /* Views into buffers the sampler owns and reuses (no allocation per
     * sample once they are large enough): valid until its next sample or
     * its release, on the sampling thread.  A copy of the sample kept past
     * that must not follow these pointers.
     * procs: every tracked process, sorted by PID.  devices: every
     * selected GPU (gpus above holds the first GT_SAMPLE_MAX_GPUS of them
     * by value), the same devices in the same order at every sample.
     * gpu_procs: the processes the GPUs listed, each with its memory and
     * SM share on one device.  exits: the kernel's exit records (taskstats)
     * of tracked processes since the sample before, one per exiting thread,
     * with each one's high-water mark; none without taskstats;
     * exits_short: some could not be kept (out of memory). */
    size_t n_procs;
    const gt_sample_proc *procs;
    size_t n_devices;
    const gt_gpu_device_reading *devices;
    size_t n_gpu_procs;
    const gt_sample_gpu_proc *gpu_procs;
    size_t n_exits;
    const gt_exit_record *exits;
    int exits_short;
} gt_sample;

/* One power column of a tracking file: the slot of gt_sample.power_watts
 * it writes, under name. */
typedef struct gt_power_column {
    int slot;
    char name[32];
} gt_power_column;

/* Constant for a session; written once at the head of a tracking file. */
typedef struct gt_static_data {
    gt_ram_unit ram_unit, gpu_ram_unit;
    gt_time_unit time_unit;
    uint64_t ram_system_capacity;     /* bytes */
    uint64_t gpu_ram_system_capacity; /* bytes */
    int system_core_count, n_expected_cores;
    int system_gpu_count, n_expected_gpus;
} gt_static_data;

#endif
