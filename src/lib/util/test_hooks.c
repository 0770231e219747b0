/* SPDX-License-Identifier: MIT */
#include "util/test_hooks.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef GT_TEST_HOOKS

const char *gt_hook_sysfs_root(void)
{
    return getenv("GT_SYSFS_ROOT");
}

const char *gt_hook_fdinfo_proc_root(void)
{
    return getenv("GT_FDINFO_PROC_ROOT");
}

int gt_hook_sampled_peaks(void)
{
    const char *v = getenv("GT_PEAKS");
    return v && !strcmp(v, "sampled");
}

long gt_hook_events_max_procs(void)
{
    const char *v = getenv("GT_EVENTS_MAX_PROCS");
    long n = v ? strtol(v, NULL, 10) : 0;
    return n > 0 ? n : 0;
}

int gt_hook_events_no_rss_stat(void)
{
    const char *v = getenv("GT_EVENTS_SIMULATE");
    return v && !strcmp(v, "no-rss-stat");
}

#else
/* The production build: every hook at its default, whatever the
 * environment holds. */
const char *gt_hook_sysfs_root(void)
{
    return NULL;
}

const char *gt_hook_fdinfo_proc_root(void)
{
    return NULL;
}

int gt_hook_sampled_peaks(void)
{
    return 0;
}

long gt_hook_events_max_procs(void)
{
    return 0;
}

int gt_hook_events_no_rss_stat(void)
{
    return 0;
}
#endif
