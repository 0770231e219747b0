/* SPDX-License-Identifier: MIT */
/* When to walk a process's page tables (smaps_rollup, smaps) again although
 * its RSS and the tree's members are as at its last walk.  Its own pages
 * cannot have moved between private and shared then; only another program
 * mapping the same file pages (or unmapping them) can move them.  Such a
 * refresh is worth a little CPU, not a walk of gigabytes every second. */
#ifndef GT_SAMPLER_WALK_DUE_H
#define GT_SAMPLER_WALK_DUE_H

/* age: seconds since the last walk; cost: the CPU seconds it took, times
 * the number of processes refreshed alike (so that together they keep to
 * the share); budget: the share of a core the walks may use; refresh: the
 * shortest age.  Due once age reaches refresh and the time in which cost is
 * a tenth of the budget (a lone 4 GiB process's walk of 16 ms: every 16 s
 * at 1 % of a core; 100 small ones of 50 µs: each every 5 s). */
int gt_walk_refresh_due(double age, double cost, double budget, double refresh);
#endif
