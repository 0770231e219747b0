/* SPDX-License-Identifier: MIT */
/* Exact peaks of processes that exit: the kernel's exit records (taskstats)
 * of the tracked tree, told apart from the rest of the machine's exits by
 * following parent links to a process the sampler has seen.  A record whose
 * parent is not known yet waits (a child's exit can arrive before its
 * parent's, and its parent may be younger than the last walk of the tree);
 * after two drains it is taken for another user's. */
#ifndef GT_SAMPLER_EXIT_PEAKS_H
#define GT_SAMPLER_EXIT_PEAKS_H
#include <stdint.h>
#include <sys/types.h>
#include "gpu_tracker.h"
#include "proc/taskstats.h"

typedef struct gt_exit_peaks gt_exit_peaks;

/* main: the tracked process; root: the tree's root (the launcher, which is
 * not tracked, or main itself); self: this process, never counted unless it
 * is main.  Fails where taskstats cannot be used (see taskstats.h). */
gt_status gt_exit_peaks_open(pid_t main, pid_t root, pid_t self, gt_exit_peaks **out,
                             gt_error *err);

/* The same without a taskstats socket: records come from
 * gt_exit_peaks_add (for tests of the attribution).  NULL: out of memory. */
gt_exit_peaks *gt_exit_peaks_new(pid_t main, pid_t root, pid_t self);

/* 1 when pid is a tracked process at the last walk of the tree or the one
 * before (it may have exited since). */
typedef int (*gt_member_fn)(void *ctx, pid_t pid);

/* Starts a drain with the latest walk of the tree (records that waited for
 * their parent are settled or, after two drains, dropped), then reads the
 * exit records received so far; no allocation. */
void gt_exit_peaks_drain(gt_exit_peaks *x, gt_member_fn is_member, void *ctx);
/* Attributes one exit record, against the walk given to the last drain. */
void gt_exit_peaks_add(gt_exit_peaks *x, const gt_exit_record *r);

/* Called with every record attributed to the tracked tree (main's too),
 * during gt_exit_peaks_drain; NULL: none. */
typedef void (*gt_exit_taken_fn)(void *ctx, const gt_exit_record *r);
void gt_exit_peaks_on_taken(gt_exit_peaks *x, gt_exit_taken_fn fn, void *ctx);

/* High-water marks at exit, bytes (0: no such exit seen). */
uint64_t gt_exit_peaks_main(const gt_exit_peaks *x);
uint64_t gt_exit_peaks_descendants(const gt_exit_peaks *x);
/* 0 once the kernel dropped records (its buffer overflowed). */
int gt_exit_peaks_complete(const gt_exit_peaks *x);

void gt_exit_peaks_close(gt_exit_peaks **x);
#endif
