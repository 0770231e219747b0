/* SPDX-License-Identifier: MIT */
/* Where a process's memory and CPU groups are: in which hierarchy (v1's
 * memory and cpuacct, or v2's), under which path, at which directory as
 * mounted here, and whether they are other than this process's own.  Used
 * by the probe and by the making of a group. */
#ifndef GT_CGROUP_WHERE_H
#define GT_CGROUP_WHERE_H
#include <limits.h>
#include <sys/types.h>

typedef struct gt_cgroup_where {
    int version;             /* 1 or 2 */
    int own;                 /* the process's group is not this process's */
    char path[512];          /* the process's group in the hierarchy, "/a/b" */
    char base[PATH_MAX];     /* the hierarchy as mounted here (under the fs root) */
    char rel[PATH_MAX];      /* the group below base ("" for base itself) */
    char dir[PATH_MAX];      /* base + rel; "" where it cannot be reached (why says why) */
    char self_dir[PATH_MAX]; /* this process's group's directory; "" where it cannot be reached */
    char why[256];
} gt_cgroup_where;

/* The memory and CPU (v1: cpuacct) groups of pid under proc_root (NULL:
 * /proc), mount points under fs_root (NULL: /).  A controller of a v1
 * hierarchy (a line "N:...memory...:path") is v1's; otherwise v2's.
 * Returns 0, or -1 when pid's cgroup file cannot be read. */
int gt_cgroup_where_of(const char *proc_root, const char *fs_root, pid_t pid, gt_cgroup_where *mem,
                       gt_cgroup_where *cpu);
/* The same for the groups of the v1 controllers mem_ctl and cpu_ctl (the
 * request's limits are in "memory" and "cpu", whose v1 hierarchy may be
 * another than cpuacct's). */
int gt_cgroup_where_ctl(const char *proc_root, const char *fs_root, pid_t pid, const char *mem_ctl,
                        const char *cpu_ctl, gt_cgroup_where *mem, gt_cgroup_where *cpu);
#endif
