/* SPDX-License-Identifier: MIT */
/* The cgroup of a process: its place in each hierarchy (/proc/PID/cgroup),
 * where the hierarchies are mounted (/proc/self/mountinfo), the group's
 * own counters (memory peak, usage and limit, CPU time) read through
 * descriptors opened once, and a group made for a command (--cgroup).
 * cgroup v1 (a hierarchy per controller: memory, cpuacct) and v2 (one
 * unified hierarchy) alike.  The parsers take text and are tested on
 * fixtures; the probe takes a /proc root and a root under which the mount
 * points lie, so tests build a fake cgroupfs in a folder. */
#ifndef GT_CGROUP_CGROUP_H
#define GT_CGROUP_CGROUP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gpu_tracker.h"

/* The path of the line "N:controllers:path" of proc_cgroup (the text of
 * /proc/PID/cgroup) whose controller list has controller (v1), or of the
 * unified line "0::path" (controller NULL); *len its length.  NULL when
 * there is none. */
const char *gt_cgroup_path(const char *proc_cgroup, const char *controller, size_t *len);

/* The mount of a hierarchy in mountinfo (the text of /proc/self/mountinfo):
 * the v1 hierarchy whose options name controller, or the v2 one (controller
 * NULL).  Writes its mount point and the path of the hierarchy it shows
 * (the mount's root, "/" unless a subtree is mounted), escapes decoded.
 * Returns 0, or -1 when there is none or it does not fit. */
int gt_cgroup_mount(const char *mountinfo, const char *controller, char *point, size_t point_size, char *root,
                    size_t root_size);

/* A cgroup's limits, bytes and cores; < 0 when the file says "no limit" or
 * is malformed (the caller cannot tell them apart and needs not: both mean
 * that the cgroup sets no figure).  The v1 memory controller's "no limit"
 * is LONG_MAX rounded down to a page: none. */
double gt_cgroup_v2_memory_max(const char *text);
double gt_cgroup_v2_cpu_max(const char *text);
double gt_cgroup_v1_memory_limit(const char *text);
double gt_cgroup_v1_cpu_quota(const char *quota_text, const char *period_text);

/* A counter file of one whole number and a newline (memory.peak,
 * cpuacct.usage); -1 when malformed. */
int64_t gt_cgroup_count(const char *text);
/* usage_usec of a v2 cpu.stat; -1 when it has none. */
int64_t gt_cgroup_cpu_stat_usec(const char *text);

/* Reads the small file dir/name into buf (size bytes, NUL-terminated);
 * NULL when it cannot. */
const char *gt_cgroup_read_small(const char *dir, const char *name, char *buf, size_t size);

/* The smallest limits of base/path and of its ancestors up to base, as the
 * kernel enforces them (v1: the memory or the cpu hierarchy, as v1_mem or
 * v1_cpu say; v2: both).  A path that is not there (a cgroup namespace
 * shows "/" or a path of the host's) is read from base alone. */
typedef struct gt_cgroup_limits {
    double mem, cores; /* < 0: none */
} gt_cgroup_limits;
gt_cgroup_limits gt_cgroup_walk_limits(const char *base, const char *path, size_t path_len, int v1_mem,
                                       int v1_cpu);

/* What the probe read.  A figure < 0 is unavailable, and why says why
 * (several reasons joined by "; "); mem_limit < 0 with limit_none set means
 * no limit on the group or its ancestors. */
typedef struct gt_cgroup_reading {
    int version;          /* the memory figures' hierarchy: 1 or 2; 0 unknown */
    char mem_path[512];   /* the group in its hierarchy, "/a/b"; "" where not the command's own */
    char cpu_path[512];
    int64_t mem_peak, mem_current, mem_limit, cpu_ns;
    int limit_none;
    char why[320];
} gt_cgroup_reading;

typedef struct gt_cgroup gt_cgroup;

/* Finds the groups of process pid under proc_root (NULL: /proc) and opens
 * their counters; mount points are looked up under fs_root (NULL: /).
 * *out is NULL (and GT_OK) where pid is in the same memory and CPU groups
 * as this process (proc_root's "self"), which then count the tracker too,
 * or where pid's cgroup file cannot be read; *out set where pid has a
 * group of its own in either, even if some counters cannot be opened
 * (the reading says why).  GT_ERR_NOMEM only. */
gt_status gt_cgroup_open(const char *proc_root, const char *fs_root, pid_t pid, gt_cgroup **out, gt_error *err);
/* The counters now.  Safe from any thread (preads on descriptors). */
void gt_cgroup_read(const gt_cgroup *cg, gt_cgroup_reading *r);
void gt_cgroup_close(gt_cgroup **cg);

/* Fills u's cgroup section from a reading, RAM in unit ru. */
void gt_cgroup_usage(const gt_cgroup_reading *r, gt_ram_unit ru, gt_usage *u);

/* A group made for a command: one directory per hierarchy (v1: memory and
 * cpuacct; v2: one). */
typedef struct gt_cgroup_made {
    int version, n;
    char dir[2][4096];
} gt_cgroup_made;

/* Makes the group "gpu-tracker.<pid>" for process pid, held before it runs:
 * v1 where memory and cpuacct hierarchies are mounted, under this
 * process's own group in each; else v2, beside this process's own group
 * (a v2 group with processes cannot give controllers to children), which
 * must give its children the memory controller.  Moves pid into it and
 * resets the v1 memory peak.  On failure (not root, no controller, a
 * subtree not delegated) nothing is left made, and err says why
 * (GT_ERR_SYS). */
gt_status gt_cgroup_create(const char *proc_root, const char *fs_root, pid_t pid, gt_cgroup_made *m,
                           gt_error *err);
/* Removes the group once its processes have ended.  GT_ERR_SYS where it
 * cannot (processes left in it: err names each directory left and counts
 * them); m is then kept, so a later call removes the rest.  Nothing to do
 * for a group never made. */
gt_status gt_cgroup_remove(gt_cgroup_made *m, gt_error *err);

#endif
