/* SPDX-License-Identifier: MIT */
/* The children of a process, queued for the walk of the tree (s->queue):
 * from /proc/PID/task/TID/children through descriptors kept while the
 * process (and each of its threads) lives, or, without
 * CONFIG_PROC_CHILDREN, by one pass over /proc comparing parent links. */
#ifndef GT_SAMPLER_CHILDREN_H
#define GT_SAMPLER_CHILDREN_H
#include <stddef.h>
#include <sys/types.h>

#include "sampler/sampler_state.h"

/* Appends pid to s->queue at *qn (from_kept: listed by the last sample's
 * children of an idle parent).  -1 when out of memory. */
int gt_queue_push(gt_sampler *s, size_t *qn, pid_t pid, int from_kept);

/* Queues the children of every thread of e, and notes where they are
 * (e->kids_at, e->nkids) and whether the list is complete (e->kids_unread;
 * an incomplete one sets s->read_failed and is never reused).  -1 when out
 * of memory, else 0. */
int gt_children_queue(gt_sampler *s, proc_entry *e, size_t *qn);
#endif
