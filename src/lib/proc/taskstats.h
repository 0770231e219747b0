/* SPDX-License-Identifier: MIT */
/* Exit records from the kernel's taskstats interface (generic netlink): for
 * every task that exits on this machine, its PID, thread group, parent and
 * the high-water mark of its memory at exit, which no sampling can miss.
 * Listening needs CAP_NET_ADMIN; without it gt_taskstats_open fails and the
 * caller falls back to sampled figures. */
#ifndef GT_PROC_TASKSTATS_H
#define GT_PROC_TASKSTATS_H
#include <stdint.h>
#include <sys/types.h>
#include "gpu_tracker.h"

typedef struct gt_taskstats gt_taskstats;

typedef struct gt_exit_record {
    pid_t pid;          /* the exiting thread */
    pid_t tgid;         /* its process (thread group) */
    pid_t ppid;         /* the process's parent at exit */
    uint64_t hiwater_rss; /* bytes: the process's VmHWM at this exit */
    char comm[16];      /* the exiting thread's command name */
    double cpu_seconds; /* the exiting thread's own user + system time */
} gt_exit_record;

/* Registers for exit records of every CPU.  GT_ERR_SYS when that is not
 * possible: no privilege (EPERM), a kernel without taskstats, or one too old
 * to name the thread group (before version 12); err says which. */
gt_status gt_taskstats_open(gt_taskstats **out, gt_error *err);

typedef void (*gt_exit_fn)(void *ctx, const gt_exit_record *r);

/* Hands every record received so far to fn, without blocking and without
 * allocating.  Returns the number of records, or -1 when the kernel dropped
 * some (the socket's buffer overflowed): the figures are then incomplete. */
int gt_taskstats_drain(gt_taskstats *t, gt_exit_fn fn, void *ctx);

/* Deregisters and closes; NULL-safe. */
void gt_taskstats_close(gt_taskstats **t);
#endif
