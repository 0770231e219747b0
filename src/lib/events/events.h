/* SPDX-License-Identifier: MIT */
/* The event backend: the tracked tree's membership and resident memory kept
 * in the kernel by a BPF program (events.bpf.c) on the scheduler's
 * fork/exec/exit tracepoints and the mm counters' rss_stat, so that the
 * peaks of the RSS sums (main, descendants, combined) are those of every
 * change of a counter, not of the samples.  Reading the sums is one map
 * lookup, whatever the number of processes.
 *
 * Built only where libbpf, bpftool and clang's BPF target are found
 * (GT_HAVE_EVENTS); elsewhere gt_events_open fails and says so. */
#ifndef GT_EVENTS_EVENTS_H
#define GT_EVENTS_EVENTS_H
#include <stdint.h>
#include <sys/types.h>
#include "gpu_tracker.h"

typedef struct gt_events gt_events;

/* Loads the program, attaches it and makes main (a process of this
 * machine, running or held before its exec) the tree's main process; its
 * later children and theirs are added by the kernel as they fork.  Fails
 * (GT_ERR_SYS, GT_ERR_INVALID) with the reason in err: built without the
 * backend, not privileged (root, or CAP_BPF with CAP_PERFMON), no BTF or no
 * such tracepoint in the kernel.  The test build's hooks (util/test_hooks.h)
 * attach to a tracepoint no kernel has, so that tests see that failure on a
 * kernel that has it, and shrink the maps, so that tests can fill them. */
gt_status gt_events_open(pid_t main, gt_events **out, gt_error *err);

typedef struct gt_events_reading {
    /* [0] main, [1] descendants, [2] combined: RSS now and its peak, bytes,
     * and the peak's time in Unix seconds (0: no peak yet). */
    uint64_t now[3], peak[3];
    double peak_time[3];
    uint64_t n_members;  /* processes added by fork events */
    uint64_t n_exited;
    /* 1 while nothing was lost and main's memory is known; else 0 and why
     * says what makes the figures lower bounds. */
    int exact;
    char why[160];
} gt_events_reading;

/* The sums as of now: one lookup (each peak read with its time, under the
 * lock the program sets them under) and the programs' recursion misses. */
void gt_events_read(gt_events *e, gt_events_reading *r);

/* How far an exact figure can be from the kernel's true count of a sum, in
 * bytes per process alive in it: each of the three counters (file, anon,
 * shmem) is a percpu_counter whose global count lags by less than the batch
 * on each CPU (percpu_counter_batch: max(32, 2 x online CPUs) pages). */
uint64_t gt_events_bound_per_process(void);

/* The process's own largest RSS (bytes) so far as the tree's member and
 * whether it has exited; 0 where it is not a member (a descendant leaves
 * at its exit; the main process stays). */
int gt_events_member(gt_events *e, pid_t pid, uint64_t *hwm_bytes, int *exited);

/* Detaches and unloads; NULL-safe. */
void gt_events_close(gt_events **e);

#endif
