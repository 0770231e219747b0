/* SPDX-License-Identifier: MIT */
/* The memory figures of a sample: each member's RSS (VmRSS, read at every
 * sample) split into private and shared by page-table walks (smaps_rollup,
 * or smaps where shared memory must be combined per mapping path) that
 * run within a CPU budget, and the sums of main, the descendants and both,
 * with a path mapped by several processes counted once, as the Python
 * package does. */
#ifndef GT_SAMPLER_MEMORY_H
#define GT_SAMPLER_MEMORY_H
#include <stddef.h>

#include "sampler/sampler_state.h"

/* Fills in the memory figures of this sample's members (s->cur, sorted by
 * PID and matched with the last sample's), reusing the last sample's for a
 * process whose faults and RSS did not change while the tree's membership
 * stayed the same (a change of membership can move pages between shared
 * and private), until its split is due for a refresh, and never at the
 * last sample.  A failed read sets s->read_failed. */
void gt_memory_read(gt_sampler *s);

/* Makes room for a per-path maximum of every interned path (zeroed).
 * -1 when out of memory, else 0. */
int gt_memory_path_scratch(gt_sampler *s);

/* Memory, threads and peaks of main, the descendants (n_desc of them) and
 * both into out; s->desc_alive counts the descendants still running. */
void gt_memory_sum(gt_sampler *s, gt_sample *out, size_t n_desc);
#endif
