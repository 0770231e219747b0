/* SPDX-License-Identifier: MIT */
/* The request of a run: Slurm's environment, the cgroup's limits, the
 * machine.  See request.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/request.h"
#include "cgroup/where.h"
#include "util/test_hooks.h"
#include "util/units.h"

extern char **environ;

void gt_request_init(gt_request *r)
{
    *r = (gt_request){.mem_bytes = -1, .cores = -1, .cpus_per_task = -1, .gpus = -1, .nodes = -1,
                      .time_limit_s = -1};
}

/* The value of name in env, or NULL. */
static const char *env_get(const char *const *env, const char *name)
{
    size_t len = strlen(name);
    for (; env && *env; env++)
        if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
            return *env + len + 1;
    return NULL;
}

static double env_count(const char *const *env, const char *name)
{
    const char *v = env_get(env, name);
    return v ? gt_parse_count(v, strlen(v)) : -1;
}

/* Items of a comma-separated list ("0,1", "GPU-ab...,GPU-cd..."), each
 * non-empty; -1 when one is empty.  "" has none. */
static int list_count(const char *s, int digits_only)
{
    int n = 0;
    if (!*s)
        return 0;
    for (;;) {
        size_t len = strcspn(s, ",");
        if (len == 0 || (digits_only && gt_parse_count(s, len) < 0))
            return -1;
        if (n == INT_MAX)
            return -1;
        n++;
        if (!s[len])
            return n;
        s += len + 1;
    }
}

#define MIB 1048576.0

void gt_request_from_env(const char *const *env, gt_request *r)
{
    double cpus = env_count(env, "SLURM_CPUS_ON_NODE");
    if (cpus > 0 && cpus <= INT_MAX) {
        r->cores = cpus;
        r->cores_source = "SLURM_CPUS_ON_NODE";
    }
    double per_task = env_count(env, "SLURM_CPUS_PER_TASK");
    if (per_task > 0 && per_task <= INT_MAX)
        r->cpus_per_task = (int)per_task;
    double nodes = env_count(env, "SLURM_JOB_NUM_NODES");
    if (nodes > 0 && nodes <= INT_MAX)
        r->nodes = (int)nodes;
    /* --mem=0 asks for all of the node's memory: no figure of its own, so
     * the cgroup's or the machine's stands. */
    double per_node = env_count(env, "SLURM_MEM_PER_NODE");
    double per_cpu = env_count(env, "SLURM_MEM_PER_CPU");
    if (per_node > 0) {
        r->mem_bytes = per_node * MIB;
        r->mem_source = "SLURM_MEM_PER_NODE";
    } else if (per_cpu > 0 && cpus > 0) {
        r->mem_bytes = per_cpu * cpus * MIB;
        r->mem_source = "SLURM_MEM_PER_CPU x SLURM_CPUS_ON_NODE";
    }
    double gpus = env_count(env, "SLURM_GPUS_ON_NODE");
    const char *job_gpus = env_get(env, "SLURM_JOB_GPUS"), *visible = env_get(env, "CUDA_VISIBLE_DEVICES");
    int n;
    if (gpus >= 0 && gpus <= INT_MAX) {
        r->gpus = (int)gpus;
        r->gpus_source = "SLURM_GPUS_ON_NODE";
    } else if (job_gpus && (n = list_count(job_gpus, 1)) >= 0) {
        r->gpus = n;
        r->gpus_source = "SLURM_JOB_GPUS";
    } else if (visible && (n = list_count(visible, 0)) >= 0) {
        r->gpus = n;
        r->gpus_source = "CUDA_VISIBLE_DEVICES";
    }
    double start = env_count(env, "SLURM_JOB_START_TIME"), end = env_count(env, "SLURM_JOB_END_TIME");
    if (start > 0 && end > start) {
        r->time_limit_s = end - start;
        r->time_source = "SLURM_JOB_END_TIME - SLURM_JOB_START_TIME";
    }
}

/* The limits of the group w, read at its hierarchy's mount point (a point
 * under /sys read under sysfs_root instead, where one is given): the
 * group's and its ancestors'.  A group outside the part of the hierarchy
 * mounted here is read from the mount point alone, as a path absent in
 * this namespace is. */
static gt_cgroup_limits limits_of(const gt_cgroup_where *w, const char *sysfs_root, int v1_mem, int v1_cpu)
{
    gt_cgroup_limits none = {-1, -1};
    char moved[PATH_MAX];
    const char *base = w->base;
    if (!base[0])
        return none;
    if (sysfs_root && *sysfs_root && strncmp(base, "/sys", 4) == 0 && (base[4] == '/' || !base[4])) {
        if (snprintf(moved, sizeof moved, "%s%s", sysfs_root, base + 4) >= (int)sizeof moved)
            return none;
        base = moved;
    }
    const char *rel = w->dir[0] ? w->rel : "";
    return gt_cgroup_walk_limits(base, rel, strlen(rel), v1_mem, v1_cpu);
}

void gt_request_from_cgroup(const char *proc_root, const char *sysfs_root, gt_request *r)
{
    gt_cgroup_where mem, cpu;
    if (gt_cgroup_where_ctl(proc_root, NULL, getpid(), "memory", "cpu", &mem, &cpu) != 0)
        return;
    int v1_mem = mem.version == 1, v1_cpu = cpu.version == 1;
    gt_cgroup_limits m = limits_of(&mem, sysfs_root, v1_mem, 0), c = limits_of(&cpu, sysfs_root, 0, v1_cpu);
    if (r->mem_bytes < 0 && m.mem > 0) {
        r->mem_bytes = m.mem;
        r->mem_source = v1_mem ? "cgroup v1 memory.limit_in_bytes" : "cgroup v2 memory.max";
    }
    if (r->cores < 0 && c.cores > 0) {
        r->cores = c.cores;
        r->cores_source = v1_cpu ? "cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us" : "cgroup v2 cpu.max";
    }
}

void gt_request_detect(gt_request *r, double machine_cores, double machine_mem_bytes, int machine_gpus)
{
    gt_request_init(r);
    gt_request_from_env((const char *const *)environ, r);
    if (r->mem_bytes < 0 || r->cores < 0)
        gt_request_from_cgroup(NULL, gt_hook_sysfs_root(), r);
    if (r->mem_bytes < 0 && machine_mem_bytes > 0) {
        r->mem_bytes = machine_mem_bytes;
        r->mem_source = "machine capacity";
    }
    if (r->cores < 0 && machine_cores > 0) {
        r->cores = machine_cores;
        r->cores_source = "machine capacity";
    }
    if (r->gpus < 0 && machine_gpus >= 0) {
        r->gpus = machine_gpus;
        r->gpus_source = "machine capacity";
    }
}
