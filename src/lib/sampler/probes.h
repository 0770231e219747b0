/* SPDX-License-Identifier: MIT */
/* The metric table's probe files (metric/probe.h) of one member, read in
 * the walk through descriptors kept across samples. */
#ifndef GT_SAMPLER_PROBES_H
#define GT_SAMPLER_PROBES_H
#include "sampler/sampler_state.h"

/* Fills e->values and e->probe_err from each probe's file; idle: the
 * last sample's entry of the same process when it has not run since
 * (NULL otherwise), whose values stand for the probes that say so. */
void gt_probes_read(gt_sampler *s, proc_entry *e, const proc_entry *idle);
#endif
