/* SPDX-License-Identifier: MIT */
/* Descriptors of a process's files (stat, status, children, the task
 * folder and each thread's children, the metric table's probe files) kept open across samples, within a
 * budget from the open-files soft limit: beyond it a process's files are
 * opened and closed each sample, so a huge tree cannot exhaust the limit.
 * s->kept_fds counts the ones open. */
#ifndef GT_SAMPLER_KEPT_H
#define GT_SAMPLER_KEPT_H
#include "sampler/sampler_state.h"

/* Descriptors the sampler may keep: the open-files soft limit less a
 * quarter (at least 32, at most 1024) left to the rest of the program
 * (tracking files, GPU libraries, the caller's own). */
int gt_kept_budget(void);

/* Opens rel (relative to dirfd, with O_RDONLY | O_CLOEXEC | flags) to keep,
 * within the budget (checked again once per sample, for a raised limit);
 * -1 when over it or the open fails. */
int gt_kept_open_at(gt_sampler *s, int dirfd, const char *rel, int flags);
/* The same relative to the /proc root. */
int gt_kept_open(gt_sampler *s, const char *rel);
/* Closes a kept descriptor (none: -1) and sets it to -1. */
void gt_kept_close(gt_sampler *s, int *fd);

/* Closes the per-thread files of e (kept while it has several threads). */
void gt_kept_release_threads(gt_sampler *s, proc_entry *e);
/* Marks all of e's descriptors as not kept (-1), for a new entry. */
void gt_kept_none(proc_entry *e);
/* Closes all of e's kept files and frees its per-path data. */
void gt_kept_release(gt_sampler *s, proc_entry *e);
/* Releases every entry of l and l's array. */
void gt_kept_release_list(gt_sampler *s, proc_list *l);
/* Moves the descriptors kept for a process from src to dst. */
void gt_kept_move(proc_entry *dst, proc_entry *src);
#endif
