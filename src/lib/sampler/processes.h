/* SPDX-License-Identifier: MIT */
/* The per-process view of the sampler's last sample, for --per-process
 * (perproc/): what the sampler already read of each tracked process, handed
 * out without reading anything again. */
#ifndef GT_SAMPLER_PROCESSES_H
#define GT_SAMPLER_PROCESSES_H
#include <stdint.h>
#include <sys/types.h>
#include "proc/taskstats.h"
#include "sampler/sampler.h"

typedef struct gt_sampler_proc {
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
} gt_sampler_proc;

/* Copies up to cap processes of the last sample (sorted by PID) into out and
 * returns how many the sample had (may exceed cap: call again with more
 * room).  0 before the first sample. */
size_t gt_sampler_processes(const gt_sampler *s, gt_sampler_proc *out, size_t cap);

/* The kernel's exit records (taskstats) of tracked processes that the last
 * sample attributed to the tree, one per exiting thread: every process that
 * exited since the sample before, however short its life, with its
 * high-water mark.  None without taskstats; *short_out is set where some
 * could not be kept (out of memory).  Valid until the next sample. */
size_t gt_sampler_exits(const gt_sampler *s, const gt_exit_record **out, int *short_out);
#endif
