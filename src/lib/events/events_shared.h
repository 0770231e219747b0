/* SPDX-License-Identifier: MIT */
/* What the event backend's BPF program (events.bpf.c) and its loader
 * (events.c) share: the layout of its maps' values.  Included by both, so
 * only fixed-size kernel types. */
#ifndef GT_EVENTS_SHARED_H
#define GT_EVENTS_SHARED_H
#include <linux/types.h>

/* Processes alive at once (and their mms) the maps hold; a tree that
 * outgrows them sets GT_EVENTS_LOST_FULL and its figures become bounds. */
#define GT_EVENTS_MAX_PROCS 65536
/* The counters are in pages; the loader refuses a kernel of another page
 * size (getpagesize()), where the figures would be wrong. */
#define GT_EVENTS_PAGE_SIZE 4096

/* Bits of gt_events_sums.lost: why a figure is no longer exact. */
#define GT_EVENTS_LOST_FULL 1u /* a process or mm did not fit the maps */

/* One living process of the tree (and the main process, also after its
 * exit), by tgid (the map's key). */
struct gt_events_member {
    __u64 mm;        /* its mm_struct's address; 0: not known yet */
    __u32 cls;       /* 0: the main process, 1: a descendant */
    __u32 parent;    /* tgid of the member that forked it; 0 for those user space gave */
    __u64 hwm_bytes; /* its largest RSS over the mms it left (exec, exit) */
    __u64 start_ns;  /* CLOCK_BOOTTIME of its fork; 0 for those user space gave */
    __u64 exit_ns;   /* CLOCK_BOOTTIME of its exit; 0 while it runs */
    __u32 attached;  /* 1 once its mm was known: its memory is in the sums since */
    __u32 pad;
};

/* One per mm the tree owns, by the mm_struct's address: threads share it,
 * so a thread group's RSS is counted once.  A process that shares its
 * parent's mm (vfork, CLONE_VM) points at the parent's record until it
 * execs. */
struct gt_events_mm {
    __u32 tgid;  /* the member that owns it */
    __u32 cls;
    __s64 pages; /* file + anon + shmem at its last event */
    __s64 hwm;   /* the largest of those */
};

/* The running sums of the tree's RSS, in pages: [0] main, [1] descendants,
 * [2] combined, each with its peak and the CLOCK_BOOTTIME it was reached. */
struct gt_events_sums {
    __s64 sum[3];
    __s64 peak[3];
    __u64 peak_ns[3];
    __u64 n_members;  /* processes the fork events added */
    __u64 n_exited;
    __u64 lost;       /* GT_EVENTS_LOST_* bits */
};
#endif
