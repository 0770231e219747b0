/* SPDX-License-Identifier: MIT */
/* Test hooks: what the tests need to steer and no user should, such as a
 * fixture tree read in place of /sys, or a path forced that this machine
 * would not take.
 *
 * Only the test build reads them: test_hooks.c compiled with
 * -DGT_TEST_HOOKS (build/hooks/, and the unit tests) takes each from an
 * environment variable.  The production build (`make`) compiles every hook
 * to its default, so no variable left in an environment, least of all in
 * one that a privileged process inherits from a user, steers the product.
 * docs/development.md ("Test hooks") lists them and the tests that set
 * them.  This file's object holds these functions and nothing else: the
 * test build links its own before the library's archive, in its place. */
#ifndef GT_UTIL_TEST_HOOKS_H
#define GT_UTIL_TEST_HOOKS_H

/* GT_SYSFS_ROOT: the folder read in place of /sys (RAPL counters, DRM cards,
 * AMD's KFD topology, the cgroup file system); NULL: /sys itself. */
const char *gt_hook_sysfs_root(void);

/* GT_FDINFO_PROC_ROOT: the folder the DRM fdinfo backend reads processes'
 * descriptors under in place of /proc; NULL: /proc itself. */
const char *gt_hook_fdinfo_proc_root(void);

/* GT_PEAKS=sampled: 1 to leave out taskstats' exit records, the method used
 * without their privilege, so that it can be checked as root; else 0. */
int gt_hook_sampled_peaks(void);

/* GT_EVENTS_MAX_PROCS: the event backend's maps hold this many processes
 * (taken only when smaller than its own size), so that a test can fill
 * them; 0: the backend's size. */
long gt_hook_events_max_procs(void);

/* GT_EVENTS_SIMULATE=no-rss-stat: 1 to load the event backend as on a kernel
 * without the rss_stat tracepoint; else 0. */
int gt_hook_events_no_rss_stat(void);

#endif
