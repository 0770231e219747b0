/* SPDX-License-Identifier: MIT */
/* What a run was given to use: the Slurm job's allocation on this node (from
 * the job's environment), the limits of the cgroup it runs in, or else the
 * machine's own capacity.  The parsers take text in and give a struct out,
 * so they are tested on fixtures; gt_request_detect reads the real ones. */
#ifndef GT_ANALYSIS_REQUEST_H
#define GT_ANALYSIS_REQUEST_H
#include <stddef.h>
#include <stdint.h>

#include "cgroup/cgroup.h" /* the limits' parsers */

/* Where a figure of the request comes from: a Slurm variable, a cgroup
 * file, or the machine ("machine capacity").  NULL: unknown. */
typedef struct gt_request {
    /* Every figure < 0 is unknown: missing or malformed, never 0. */
    double mem_bytes;       /* per node */
    const char *mem_source;
    double cores;           /* per node; a cgroup's CPU quota may be fractional */
    const char *cores_source;
    int cpus_per_task;      /* SLURM_CPUS_PER_TASK; < 0 unset */
    int gpus;               /* per node */
    const char *gpus_source;
    int nodes;              /* SLURM_JOB_NUM_NODES; < 0 outside Slurm */
    double time_limit_s;    /* SLURM_JOB_END_TIME - SLURM_JOB_START_TIME */
    const char *time_source;
} gt_request;

/* Every figure unknown. */
void gt_request_init(gt_request *r);

/* The Slurm allocation from an environment (NULL-terminated "NAME=value"
 * strings, as environ): figures it lacks, or holds malformed, stay as they
 * were in r.  Memory: SLURM_MEM_PER_NODE (MiB), else SLURM_MEM_PER_CPU (MiB)
 * times the node's CPUs.  Cores: SLURM_CPUS_ON_NODE.  GPUs:
 * SLURM_GPUS_ON_NODE, else the count of SLURM_JOB_GPUS, else of
 * CUDA_VISIBLE_DEVICES (also outside Slurm). */
void gt_request_from_env(const char *const *env, gt_request *r);

/* The limits of the cgroup this process is in (its proc_root/self/cgroup;
 * proc_root NULL: /proc), each hierarchy found where mountinfo says it is
 * mounted, as the Cgroup section finds it (cgroup/where.h): v1 where this
 * process's cgroup file names the controller (memory, cpu), else v2,
 * wherever it is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified beside
 * v1).  A mount point under /sys is read under sysfs_root instead where it
 * is given (the test build's GT_SYSFS_ROOT).  The smallest limit of the cgroup
 * and its ancestors, as the kernel enforces it.  Fills the figures r does
 * not know yet. */
void gt_request_from_cgroup(const char *proc_root, const char *sysfs_root, gt_request *r);

/* The request of this process's run: Slurm's environment, then its cgroup
 * (its mount points under /sys read under the test build's fixture tree where
 * one is given), then the
 * machine: cores, RAM and GPUs given by the caller (< 0: unknown). */
void gt_request_detect(gt_request *r, double machine_cores, double machine_mem_bytes, int machine_gpus);

#endif
