/* SPDX-License-Identifier: MIT */
/* The walk of the tree at a sample: from the root through each member's
 * children, reading every member's CPU clock once, and its stat and
 * children only where it ran since the last sample (an idle process's are
 * taken from that sample, see idle_since() in walk.c), into s->cur; then
 * the members sorted by PID, matched with the last sample's (s->prev), and
 * the lists swapped at the sample's end. */
#ifndef GT_SAMPLER_WALK_H
#define GT_SAMPLER_WALK_H
#include <sys/types.h>

#include "sampler/sampler_state.h"

/* Walks the tree from the root into s->cur (in the walk's order; see
 * gt_walk_drop_duplicates).  Sets s->read_mono and s->read_mono_main when
 * main's clock is read, s->read_failed where some read failed.  -1 when
 * out of memory, else 0. */
int gt_walk_discover(gt_sampler *s);

/* Sorts this sample's members by PID; a PID read twice (reparented between
 * two children lists) counts once.  An unchanged tree's walk is usually in
 * PID order already, which one pass tells. */
void gt_walk_drop_duplicates(gt_sampler *s);

/* The last sample's entry of the same process as e (same PID and
 * starttime), as the walk found it; NULL if none. */
proc_entry *gt_walk_prev(gt_sampler *s, const proc_entry *e);

/* Whether pid was a member at this walk or the one before (see
 * exit_peaks.h: a gt_member_fn, ctx the sampler); both lists are sorted by
 * PID. */
int gt_walk_is_member(void *ctx, pid_t pid);

/* Whether the process of a previous sample still exists (it left the tree
 * rather than exiting, e.g. reparented to init outside a subreaper). */
int gt_walk_still_alive(gt_sampler *s, const proc_entry *p);

/* The root when it is this process (it runs the command and adopts its
 * orphans): of its stat only the reaped children's CPU time is used, which
 * getrusage() gives without /proc text, in microseconds.  -1 when it
 * cannot be read. */
int gt_walk_read_self_root(proc_entry *e);

/* The threads of e that the main table and the per-process rows count.  A
 * zombie's stat still says 1 thread until it is reaped, but none runs:
 * counted, it would add to the threads of whoever replaced it within the
 * same walk (a sample is not an instant).  gpu-tracker's own sampling
 * thread is left out when it tracks itself. */
int gt_walk_counted_threads(const gt_sampler *s, const proc_entry *e);

/* This sample becomes the baseline of the next interval; the lists swap
 * so their memory is reused.  Caches not carried over belonged to
 * processes that are gone. */
void gt_walk_rotate(gt_sampler *s);
#endif
