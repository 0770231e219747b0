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

/* A whole decimal number from s[0..len) with nothing else; -1 when empty,
 * malformed or past 2^53 (where a double stops being exact). */
static double parse_count(const char *s, size_t len)
{
    if (!s || len == 0 || len > 16)
        return -1;
    double v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= 9007199254740992.0 ? v : -1;
}

static double env_count(const char *const *env, const char *name)
{
    const char *v = env_get(env, name);
    return v ? parse_count(v, strlen(v)) : -1;
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
        if (len == 0 || (digits_only && parse_count(s, len) < 0))
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

/* The first line of text without its newline, as a count; -1 otherwise. */
static double line_count(const char *text)
{
    if (!text)
        return -1;
    size_t len = strcspn(text, "\n");
    if (text[len] == '\n' && text[len + 1] != '\0')
        return -1; /* one line only */
    return parse_count(text, len);
}

double gt_cgroup_v2_memory_max(const char *text)
{
    return line_count(text); /* "max" is malformed as a count: none */
}

/* The v1 memory controller's "no limit" is LONG_MAX rounded down to a page,
 * past the 2^53 that line_count takes: none. */
double gt_cgroup_v1_memory_limit(const char *text)
{
    return line_count(text);
}

double gt_cgroup_v2_cpu_max(const char *text)
{
    if (!text)
        return -1;
    size_t qlen = strcspn(text, " \n");
    if (text[qlen] != ' ')
        return -1;
    const char *p = text + qlen + 1;
    size_t plen = strcspn(p, "\n");
    if (p[plen] == '\n' && p[plen + 1] != '\0')
        return -1;
    double quota = parse_count(text, qlen), period = parse_count(p, plen);
    return quota > 0 && period > 0 ? quota / period : -1;
}

double gt_cgroup_v1_cpu_quota(const char *quota_text, const char *period_text)
{
    double quota = line_count(quota_text), period = line_count(period_text);
    return quota > 0 && period > 0 ? quota / period : -1; /* "-1": no quota */
}

/* Reads a small file under dir into buf; NULL when it cannot. */
static const char *read_small(const char *dir, const char *name, char *buf, size_t size)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return buf;
}

typedef struct limits {
    double mem, cores;
} limits;

/* One cgroup directory's limits (v1: the controller's hierarchy given). */
static limits dir_limits(const char *dir, int v1_mem, int v1_cpu)
{
    char a[64], b[64];
    limits l = {-1, -1};
    if (v1_mem)
        l.mem = gt_cgroup_v1_memory_limit(read_small(dir, "memory.limit_in_bytes", a, sizeof a));
    else if (v1_cpu)
        l.cores = gt_cgroup_v1_cpu_quota(read_small(dir, "cpu.cfs_quota_us", a, sizeof a),
                                         read_small(dir, "cpu.cfs_period_us", b, sizeof b));
    else {
        l.mem = gt_cgroup_v2_memory_max(read_small(dir, "memory.max", a, sizeof a));
        l.cores = gt_cgroup_v2_cpu_max(read_small(dir, "cpu.max", b, sizeof b));
    }
    return l;
}

static double smaller(double a, double b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* The smallest limits of base/path and its ancestors up to base.  A path
 * that is not there (a cgroup namespace shows "/" or a path of the host's)
 * is read from base alone. */
static limits walk_up(const char *base, const char *path, size_t path_len, int v1_mem, int v1_cpu)
{
    char dir[PATH_MAX];
    limits best = {-1, -1};
    if (snprintf(dir, sizeof dir, "%s%.*s", base, (int)path_len, path) >= (int)sizeof dir ||
        access(dir, F_OK) != 0)
        snprintf(dir, sizeof dir, "%s", base);
    size_t stop = strlen(base);
    for (;;) {
        limits l = dir_limits(dir, v1_mem, v1_cpu);
        best.mem = smaller(best.mem, l.mem);
        best.cores = smaller(best.cores, l.cores);
        char *slash = strrchr(dir + stop, '/');
        if (!slash)
            return best;
        *slash = '\0';
    }
}

/* The path of the line "N:controllers:path" of proc_cgroup whose
 * controllers list has want (v1), or of "0::path" (want NULL). */
static const char *find_line(const char *proc_cgroup, const char *want, size_t *len)
{
    for (const char *line = proc_cgroup; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *c1 = memchr(line, ':', n);
        const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            const char *ctl = c1 + 1;
            size_t ctl_len = (size_t)(c2 - ctl);
            int match = 0;
            if (!want) {
                match = ctl_len == 0;
            } else {
                for (const char *p = ctl; p < c2;) {
                    size_t w = strcspn(p, ",:");
                    if (w == strlen(want) && strncmp(p, want, w) == 0)
                        match = 1;
                    p += w + 1;
                }
            }
            if (match) {
                *len = n - (size_t)(c2 + 1 - line);
                return c2 + 1;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

void gt_request_from_cgroup(const char *root, const char *proc_cgroup, gt_request *r)
{
    char base[PATH_MAX];
    const char *path;
    size_t len;
    limits mem = {-1, -1}, cpu = {-1, -1};
    const char *mem_source = NULL, *cpu_source = NULL;
    if ((path = find_line(proc_cgroup, "memory", &len)) &&
        snprintf(base, sizeof base, "%s/memory", root) < (int)sizeof base && access(base, F_OK) == 0) {
        mem = walk_up(base, path, len, 1, 0);
        mem_source = "cgroup v1 memory.limit_in_bytes";
    }
    if ((path = find_line(proc_cgroup, "cpu", &len)) &&
        snprintf(base, sizeof base, "%s/cpu", root) < (int)sizeof base && access(base, F_OK) == 0) {
        cpu = walk_up(base, path, len, 0, 1);
        cpu_source = "cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us";
    }
    if ((!mem_source || !cpu_source) && (path = find_line(proc_cgroup, NULL, &len))) {
        limits v2 = walk_up(root, path, len, 0, 0);
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
        const char *sys = getenv("GT_SYSFS_ROOT");
        if (snprintf(root, sizeof root, "%s/fs/cgroup", sys && *sys ? sys : "/sys") < (int)sizeof root &&
            read_small("/proc/self", "cgroup", text, sizeof text))
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
