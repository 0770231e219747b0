/* SPDX-License-Identifier: MIT */
/* The metric table's probe files (metric/probe.h) of one member, read in
 * the walk through descriptors kept across samples. */
#ifndef GT_SAMPLER_PROBES_H
#define GT_SAMPLER_PROBES_H
#include "sampler/sampler_state.h"

/* Fills e->values and e->probe_err from each probe's file.  last: the
 * last sample's entry of the same process (NULL: none); idle: it has not
 * run since, so its values stand for the probes that say so.  A file that
 * is gone (the process exited after its stat was read, and was reaped) is
 * no unreadable file: the process's last values stand, or 0 where it was
 * never read (a reaped child's counters are its parent's now). */
void gt_probes_read(gt_sampler *s, proc_entry *e, const proc_entry *last, int idle);
#endif
