/* SPDX-License-Identifier: MIT */
/* Exit records from the kernel's taskstats interface (generic netlink): for
 * every task that exits on this machine, its PID, thread group, parent and
 * the high-water mark of its memory at exit, which no sampling can miss.
 * Listening needs CAP_NET_ADMIN; without it gt_taskstats_open fails and the
 * caller falls back to sampled figures. */
#ifndef GT_PROC_TASKSTATS_H
#define GT_PROC_TASKSTATS_H
#include <stddef.h>
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

/* The parts of gt_taskstats_drain, apart from the socket so that tests can
 * hand them crafted messages.  gt_taskstats_parse hands fn every exit record
 * of the taskstats family in one datagram of n bytes (buf aligned as a
 * netlink header) and returns their number; malformed parts are skipped. */
int gt_taskstats_parse(const void *buf, size_t n, uint16_t family, gt_exit_fn fn, void *ctx);
/* Like recv(2) without blocking: the datagram's length, or -1 with errno
 * EAGAIN when none is left, ENOBUFS when the kernel dropped records. */
typedef ssize_t (*gt_recv_fn)(void *ctx, void *buf, size_t cap);
/* gt_taskstats_drain over recv_fn, into buf (cap bytes). */
int gt_taskstats_drain_from(gt_recv_fn recv_fn, void *recv_ctx, uint16_t family, void *buf, size_t cap,
                            gt_exit_fn fn, void *ctx);

/* Deregisters and closes; NULL-safe. */
void gt_taskstats_close(gt_taskstats **t);
#endif
