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

void gt_request_from_cgroup(const char *root, const char *proc_cgroup, gt_request *r)
{
    char base[PATH_MAX];
    const char *path;
    size_t len;
    gt_cgroup_limits mem = {-1, -1}, cpu = {-1, -1};
    const char *mem_source = NULL, *cpu_source = NULL;
    if ((path = gt_cgroup_path(proc_cgroup, "memory", &len)) &&
        snprintf(base, sizeof base, "%s/memory", root) < (int)sizeof base && access(base, F_OK) == 0) {
        mem = gt_cgroup_walk_limits(base, path, len, 1, 0);
        mem_source = "cgroup v1 memory.limit_in_bytes";
    }
    if ((path = gt_cgroup_path(proc_cgroup, "cpu", &len)) &&
        snprintf(base, sizeof base, "%s/cpu", root) < (int)sizeof base && access(base, F_OK) == 0) {
        cpu = gt_cgroup_walk_limits(base, path, len, 0, 1);
        cpu_source = "cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us";
    }
    if ((!mem_source || !cpu_source) && (path = gt_cgroup_path(proc_cgroup, NULL, &len))) {
        gt_cgroup_limits v2 = gt_cgroup_walk_limits(root, path, len, 0, 0);
        if (!mem_source) {
            mem = v2;
            mem_source = "cgroup v2 memory.max";
        }
        if (!cpu_source) {
            cpu = v2;
            cpu_source = "cgroup v2 cpu.max";
        }
    }
    if (r->mem_bytes < 0 && mem.mem > 0) {
        r->mem_bytes = mem.mem;
        r->mem_source = mem_source;
    }
    if (r->cores < 0 && cpu.cores > 0) {
        r->cores = cpu.cores;
        r->cores_source = cpu_source;
    }
}

void gt_request_detect(gt_request *r, double machine_cores, double machine_mem_bytes, int machine_gpus)
{
    gt_request_init(r);
    gt_request_from_env((const char *const *)environ, r);
    if (r->mem_bytes < 0 || r->cores < 0) {
        char root[PATH_MAX], text[4096];
        const char *sys = gt_hook_sysfs_root();
        if (snprintf(root, sizeof root, "%s/fs/cgroup", sys && *sys ? sys : "/sys") < (int)sizeof root &&
            gt_cgroup_read_small("/proc/self", "cgroup", text, sizeof text))
            gt_request_from_cgroup(root, text, r);
    }
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
