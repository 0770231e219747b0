/* SPDX-License-Identifier: MIT */
/* The request of a run (Slurm's environment, cgroup v1 and v2 limits on
 * fixture trees), the efficiency figures against it, the bars, the --mem
 * advised, each advice threshold on both of its sides, and the section's
 * place in the report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/efficiency.h"
#include "analysis/request.h"
#include "report/usage_write.h"

#define MIB 1048576.0
#define GIB 1073741824.0

static gt_request from_env(const char *const *env)
{
    gt_request r;
    gt_request_init(&r);
    gt_request_from_env(env, &r);
    return r;
}

static void slurm_mem_per_node(void **state)
{
    (void)state;
    const char *env[] = {"PATH=/bin", "SLURM_MEM_PER_NODE=1024", "SLURM_CPUS_ON_NODE=2", "SLURM_CPUS_PER_TASK=1",
                         "SLURM_JOB_NUM_NODES=2", "SLURM_JOB_START_TIME=1000", "SLURM_JOB_END_TIME=4600", NULL};
    gt_request r = from_env(env);
    assert_true(r.mem_bytes == 1024 * MIB);
    assert_string_equal(r.mem_source, "SLURM_MEM_PER_NODE");
    assert_true(r.cores == 2);
    assert_string_equal(r.cores_source, "SLURM_CPUS_ON_NODE");
    assert_int_equal(r.cpus_per_task, 1);
    assert_int_equal(r.nodes, 2);
    assert_true(r.time_limit_s == 3600);
    assert_int_equal(r.gpus, -1);
}

static void slurm_mem_per_cpu(void **state)
{
    (void)state;
    const char *env[] = {"SLURM_MEM_PER_CPU=512", "SLURM_CPUS_ON_NODE=4", NULL};
    gt_request r = from_env(env);
    assert_true(r.mem_bytes == 2048 * MIB);
    assert_string_equal(r.mem_source, "SLURM_MEM_PER_CPU x SLURM_CPUS_ON_NODE");
    /* per CPU without the CPUs: no figure */
    const char *alone[] = {"SLURM_MEM_PER_CPU=512", NULL};
    assert_true(from_env(alone).mem_bytes < 0);
}

/* Missing, empty, malformed, negative, --mem=0 (all of the node): unknown,
 * never 0. */
static void slurm_malformed_is_unknown(void **state)
{
    (void)state;
    const char *bad[][2] = {{"SLURM_MEM_PER_NODE=", "SLURM_CPUS_ON_NODE="},
                            {"SLURM_MEM_PER_NODE=12G", "SLURM_CPUS_ON_NODE=2x"},
                            {"SLURM_MEM_PER_NODE=-5", "SLURM_CPUS_ON_NODE=-1"},
                            {"SLURM_MEM_PER_NODE=0", "SLURM_CPUS_ON_NODE=0"},
                            {"SLURM_MEM_PER_NODE=99999999999999999999", "SLURM_CPUS_ON_NODE=99999999999"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *env[] = {bad[i][0], bad[i][1], "SLURM_JOB_START_TIME=10", "SLURM_JOB_END_TIME=5", NULL};
        gt_request r = from_env(env);
        assert_true(r.mem_bytes < 0);
        assert_null(r.mem_source);
        assert_true(r.cores < 0);
        assert_true(r.time_limit_s < 0);
    }
    const char *none[] = {NULL};
    gt_request r = from_env(none);
    assert_true(r.mem_bytes < 0 && r.cores < 0 && r.gpus < 0 && r.nodes < 0 && r.cpus_per_task < 0);
}

static void gpus_from_env(void **state)
{
    (void)state;
    const char *on_node[] = {"SLURM_GPUS_ON_NODE=2", "SLURM_JOB_GPUS=0,1,2", "CUDA_VISIBLE_DEVICES=0", NULL};
    assert_int_equal(from_env(on_node).gpus, 2);
    const char *job[] = {"SLURM_JOB_GPUS=0,3,5", "CUDA_VISIBLE_DEVICES=0", NULL};
    gt_request r = from_env(job);
    assert_int_equal(r.gpus, 3);
    assert_string_equal(r.gpus_source, "SLURM_JOB_GPUS");
    const char *visible[] = {"CUDA_VISIBLE_DEVICES=GPU-aa,GPU-bb", NULL};
    assert_int_equal(from_env(visible).gpus, 2);
    const char *hidden[] = {"CUDA_VISIBLE_DEVICES=", NULL};
    assert_int_equal(from_env(hidden).gpus, 0);
    const char *bad[] = {"SLURM_JOB_GPUS=0,,1", "CUDA_VISIBLE_DEVICES=1,", NULL};
    assert_int_equal(from_env(bad).gpus, -1);
}

static void cgroup_parsers(void **state)
{
    (void)state;
    assert_true(gt_cgroup_v2_memory_max("536870912\n") == 536870912.0);
    assert_true(gt_cgroup_v2_memory_max("max\n") < 0);
    assert_true(gt_cgroup_v2_memory_max("") < 0);
    assert_true(gt_cgroup_v2_memory_max(NULL) < 0);
    assert_true(gt_cgroup_v2_cpu_max("150000 100000\n") == 1.5);
    assert_true(gt_cgroup_v2_cpu_max("max 100000\n") < 0);
    assert_true(gt_cgroup_v2_cpu_max("200000\n") < 0);
    assert_true(gt_cgroup_v2_cpu_max("200000 0\n") < 0);
    assert_true(gt_cgroup_v1_memory_limit("1073741824\n") == GIB);
    assert_true(gt_cgroup_v1_memory_limit("9223372036854771712\n") < 0);
    assert_true(gt_cgroup_v1_memory_limit("12\n13\n") < 0);
    assert_true(gt_cgroup_v1_cpu_quota("200000\n", "100000\n") == 2);
    assert_true(gt_cgroup_v1_cpu_quota("-1\n", "100000\n") < 0);
    assert_true(gt_cgroup_v1_cpu_quota("200000\n", NULL) < 0);
}

static char tree[64];

static void put(const char *rel, const char *text)
{
    char path[256], cmd[320];
    snprintf(path, sizeof path, "%s/%s", tree, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int make_tree(void **state)
{
    (void)state;
    snprintf(tree, sizeof tree, "/tmp/gt_test_eff_XXXXXX");
    return mkdtemp(tree) ? 0 : -1;
}

static int remove_tree(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
    return system(cmd) == 0 ? 0 : -1;
}

/* This process's /proc/self/cgroup (and /proc/PID/cgroup) and mountinfo
 * in the fixture tree's proc/; its cgroupfs under sys/. */
static void proc_self(const char *cgroup, const char *mountinfo)
{
    char rel[64];
    snprintf(rel, sizeof rel, "proc/%d/cgroup", (int)getpid());
    put(rel, cgroup);
    put("proc/self/cgroup", cgroup);
    put("proc/self/mountinfo", mountinfo);
}

static gt_request from_cgroup(const char *cgroup, const char *mountinfo)
{
    char proc[128], sys[128];
    snprintf(proc, sizeof proc, "%s/proc", tree);
    snprintf(sys, sizeof sys, "%s/sys", tree);
    proc_self(cgroup, mountinfo);
    gt_request r;
    gt_request_init(&r);
    gt_request_from_cgroup(proc, sys, &r);
    return r;
}

#define MOUNT_TMPFS "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
#define MOUNT_V1_MEMORY "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
#define MOUNT_V1_CPU "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"

/* v1: the smallest limit of the cgroup and its ancestors; the root's
 * "no limit" is none.  The cpu controller's hierarchy is found by its
 * mount's options, whatever its directory is called. */
static void cgroup_v1_tree(void **state)
{
    (void)state;
    put("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    put("sys/fs/cgroup/memory/slurm/memory.limit_in_bytes", "4294967296\n");
    put("sys/fs/cgroup/memory/slurm/job_7/memory.limit_in_bytes", "2147483648\n");
    put("sys/fs/cgroup/memory/slurm/job_7/step_0/memory.limit_in_bytes", "9223372036854771712\n");
    put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
    put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    put("sys/fs/cgroup/cpu,cpuacct/slurm/job_7/cpu.cfs_quota_us", "300000\n");
    put("sys/fs/cgroup/cpu,cpuacct/slurm/job_7/cpu.cfs_period_us", "100000\n");
    put("sys/fs/cgroup/cpu,cpuacct/slurm/job_7/step_0/cpu.cfs_quota_us", "-1\n");
    const char *mounts = MOUNT_TMPFS MOUNT_V1_CPU MOUNT_V1_MEMORY;
    gt_request r = from_cgroup("12:memory:/slurm/job_7/step_0\n4:cpu,cpuacct:/slurm/job_7/step_0\n0::/\n", mounts);
    assert_true(r.mem_bytes == 2 * GIB);
    assert_string_equal(r.mem_source, "cgroup v1 memory.limit_in_bytes");
    assert_true(r.cores == 3);
    assert_string_equal(r.cores_source, "cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us");
    /* a figure already known (Slurm's) stands */
    char proc[128], sys[128];
    snprintf(proc, sizeof proc, "%s/proc", tree);
    snprintf(sys, sizeof sys, "%s/sys", tree);
    proc_self("12:memory:/slurm/job_7\n", mounts);
    gt_request k;
    gt_request_init(&k);
    k.mem_bytes = 1;
    k.mem_source = "SLURM_MEM_PER_NODE";
    gt_request_from_cgroup(proc, sys, &k);
    assert_true(k.mem_bytes == 1);
    /* a path of the host's, absent in this namespace: the root's, none */
    r = from_cgroup("12:memory:/elsewhere/x\n", mounts);
    assert_true(r.mem_bytes < 0);
    /* a v1 memory hierarchy that is not mounted: unknown, not v2's */
    put("sys/fs/cgroup/memory.max", "1073741824\n");
    r = from_cgroup("12:memory:/slurm/job_7\n0::/\n", MOUNT_TMPFS);
    assert_true(r.mem_bytes < 0);
}

static void cgroup_v2_tree(void **state)
{
    (void)state;
    put("sys/fs/cgroup/memory.max", "max\n");
    put("sys/fs/cgroup/user.slice/memory.max", "8589934592\n");
    put("sys/fs/cgroup/user.slice/run.scope/memory.max", "max\n");
    put("sys/fs/cgroup/user.slice/run.scope/cpu.max", "50000 100000\n");
    const char *mounts = "30 23 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
    gt_request r = from_cgroup("0::/user.slice/run.scope\n", mounts);
    assert_true(r.mem_bytes == 8 * GIB);
    assert_string_equal(r.mem_source, "cgroup v2 memory.max");
    assert_true(r.cores == 0.5);
    assert_string_equal(r.cores_source, "cgroup v2 cpu.max");
    /* no limits anywhere: unknown */
    r = from_cgroup("0::/\n", mounts);
    assert_true(r.mem_bytes < 0 && r.cores < 0);
}

/* A hybrid machine: v1 hierarchies for some controllers, v2 mounted at
 * /sys/fs/cgroup/unified for the rest (memory and cpu here).  The limits
 * are read where v2 is mounted, not at /sys/fs/cgroup. */
static void cgroup_hybrid_tree(void **state)
{
    (void)state;
    put("sys/fs/cgroup/unified/user.slice/memory.max", "1073741824\n");
    put("sys/fs/cgroup/unified/user.slice/run.scope/cpu.max", "200000 100000\n");
    /* what a fixed /sys/fs/cgroup would read instead */
    put("sys/fs/cgroup/user.slice/memory.max", "4294967296\n");
    gt_request r = from_cgroup("1:name=systemd:/user.slice/run.scope\n0::/user.slice/run.scope\n",
                               MOUNT_TMPFS
                               "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
                               "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
    assert_true(r.mem_bytes == GIB);
    assert_string_equal(r.mem_source, "cgroup v2 memory.max");
    assert_true(r.cores == 2);
    assert_string_equal(r.cores_source, "cgroup v2 cpu.max");
}

static void bars(void **state)
{
    (void)state;
    char b[96];
    gt_eff_bar(50, b, sizeof b);
    assert_string_equal(b, "[||||||||||||||||||||                     50%]");
    gt_eff_bar(0, b, sizeof b);
    assert_string_equal(b, "[                                         0%]");
    gt_eff_bar(250, b, sizeof b); /* over the request: a full bar, the true percent */
    assert_string_equal(b, "[|||||||||||||||||||||||||||||||||||||||| 250%]");
    gt_eff_bar(1.2, b, sizeof b); /* 0.48 of a '|': none */
    assert_string_equal(b, "[                                         1%]");
    gt_eff_bar(1.3, b, sizeof b); /* 0.52 of one: one */
    assert_string_equal(b, "[|                                        1%]");
}

static void advised_mem(void **state)
{
    (void)state;
    char b[32];
    /* 100 MiB + 20 % = 120 MiB: 128M */
    assert_true(gt_eff_advised_mem(100 * MIB, b, sizeof b) == 128 * MIB);
    assert_string_equal(b, "--mem=128M");
    /* exactly 128 MiB after the headroom stays 128M; a byte more is 256M */
    assert_true(gt_eff_advised_mem(128 * MIB / 1.2, b, sizeof b) == 128 * MIB);
    gt_eff_advised_mem(128 * MIB / 1.2 + 1, b, sizeof b);
    assert_string_equal(b, "--mem=256M");
    assert_true(gt_eff_advised_mem(0, b, sizeof b) == 128 * MIB);
    /* 1 GiB after the headroom: 1024M; above it, whole GiB */
    gt_eff_advised_mem(GIB / 1.2, b, sizeof b);
    assert_string_equal(b, "--mem=1024M");
    gt_eff_advised_mem(GIB / 1.2 + 1, b, sizeof b);
    assert_string_equal(b, "--mem=2G");
    gt_eff_advised_mem(10 * GIB, b, sizeof b);
    assert_string_equal(b, "--mem=12G");
}

static gt_request req(double mem, double cores, int gpus, double limit)
{
    gt_request r;
    gt_request_init(&r);
    r.mem_bytes = mem;
    r.mem_source = "SLURM_MEM_PER_NODE";
    r.cores = cores;
    r.cores_source = "SLURM_CPUS_ON_NODE";
    r.gpus = gpus;
    r.gpus_source = "CUDA_VISIBLE_DEVICES";
    r.time_limit_s = limit;
    r.time_source = "SLURM_JOB_END_TIME - SLURM_JOB_START_TIME";
    return r;
}

static gt_eff_usage use(double wall, double cpu, double mem)
{
    return (gt_eff_usage){.wall_s = wall, .cpu_s = cpu, .cpu_method = "exact", .mem_peak_bytes = mem,
                          .mem_method = "exact", .cgroup_mem_peak_bytes = -1, .gpu_mean_percent = -1,
                          .gpu_mem_peak_bytes = -1, .gpu_mem_capacity_bytes = -1};
}

static void figures(void **state)
{
    (void)state;
    gt_efficiency e;
    gt_request r = req(GIB, 2, 0, -1);
    gt_eff_usage u = use(10, 10, 100 * MIB);
    gt_efficiency_compute(&r, &u, &e);
    assert_true(fabs(e.cpu_percent - 50) < 1e-9);
    assert_true(fabs(e.mem_percent - 100.0 / 1024 * 100) < 1e-9);
    assert_true(e.gpu_percent < 0 && e.gpu_mem_percent < 0 && e.time_percent < 0);
    assert_string_equal(e.advised_mem, "--mem=128M");
    /* unknown request: no percent, no advice but the --mem of the peak */
    gt_request none;
    gt_request_init(&none);
    gt_efficiency_compute(&none, &u, &e);
    assert_true(e.cpu_percent < 0 && e.mem_percent < 0);
    assert_string_equal(e.advice_mem, "");
    assert_string_equal(e.advice_cores, "");
    assert_string_equal(e.advised_mem, "--mem=128M");
}

/* Memory advice below GT_EFF_MEM_LOW and at or above GT_EFF_NEAR_LIMIT,
 * none between; a bound says so. */
static void memory_thresholds(void **state)
{
    (void)state;
    gt_efficiency e;
    gt_request r = req(1000 * MIB, 1, 0, -1);
    gt_eff_usage u = use(10, 10, 499.9 * MIB);
    gt_efficiency_compute(&r, &u, &e);
    assert_non_null(strstr(e.advice_mem, "ask for --mem=640M"));
    assert_null(strstr(e.advice_mem, "lower bound"));
    u.mem_peak_bytes = 500 * MIB;
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_mem, "");
    u.mem_peak_bytes = 899.9 * MIB;
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_mem, "");
    u.mem_peak_bytes = 900 * MIB;
    u.mem_is_bound = 1;
    gt_efficiency_compute(&r, &u, &e);
    assert_non_null(strstr(e.advice_mem, "within 10 % of the limit"));
    assert_non_null(strstr(e.advice_mem, "lower bound"));
    assert_non_null(strstr(e.advice_mem, "--mem=2G"));
}

/* Idle cores: a whole core left over, and only from an exact CPU time. */
static void core_thresholds(void **state)
{
    (void)state;
    gt_efficiency e;
    gt_request r = req(GIB, 2, 0, -1);
    gt_eff_usage u = use(10, 10, 600 * MIB); /* 1.0 core busy of 2 */
    gt_efficiency_compute(&r, &u, &e);
    assert_non_null(strstr(e.advice_cores, "1 of 2 allocated cores"));
    assert_non_null(strstr(e.advice_cores, "ask for 1 core next time"));
    u.cpu_s = 10.01; /* a little more than one core: none idle */
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_cores, "");
    u.cpu_s = 1;
    u.cpu_is_bound = 1;
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_cores, "");
    assert_true(e.cpu_percent == 5);
}

static void gpu_thresholds(void **state)
{
    (void)state;
    gt_efficiency e;
    gt_request r = req(GIB, 1, 2, -1);
    gt_eff_usage u = use(10, 10, 600 * MIB);
    u.n_gpus = 2;
    u.gpu_mean_percent = 4.9;
    u.gpu_mem_peak_bytes = 1 * GIB;
    u.gpu_mem_capacity_bytes = 80 * GIB;
    gt_efficiency_compute(&r, &u, &e);
    assert_non_null(strstr(e.advice_gpus, "the 2 GPUs (CUDA_VISIBLE_DEVICES) stayed idle or nearly"));
    assert_non_null(strstr(e.advice_gpus, "mean utilization 4.9 %"));
    assert_non_null(strstr(e.advice_gpus, "memory peak 1.2 % of capacity"));
    u.gpu_mean_percent = 5;
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_gpus, "");
    u.gpu_mean_percent = -1; /* unknown: no figure, no advice */
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_gpus, "");
}

/* Per GPU: the idle ones named with their figures, the busy ones not; the
 * threshold on both sides for each device. */
static void device_thresholds(void **state)
{
    (void)state;
    gt_efficiency e;
    gt_request r = req(GIB, 1, 2, -1);
    gt_eff_usage u = use(10, 10, 600 * MIB);
    u.n_gpus = u.n_devices = 2;
    u.gpu_mean_percent = 47.45;
    u.devices[0] = (gt_eff_gpu){.index = 0, .uuid = "GPU-a", .mean_percent = 90, .mem_peak_bytes = 8 * GIB,
                                .mem_capacity_bytes = 16 * GIB};
    u.devices[1] = (gt_eff_gpu){.index = 3, .uuid = "GPU-b", .mean_percent = 4.9, .mem_peak_bytes = 1 * GIB,
                                .mem_capacity_bytes = 16 * GIB};
    gt_efficiency_compute(&r, &u, &e);
    assert_true(e.device_mem_percent[0] == 50 && e.device_mem_percent[1] == 6.25);
    assert_string_equal(e.device_key[1], "3");
    assert_string_equal(e.advice_gpus, "1 of the 2 GPUs (CUDA_VISIBLE_DEVICES) stayed idle or nearly (mean "
                                       "utilization below 5 %): GPU 3 (GPU-b) 4.9 %, memory peak 6.2 % of "
                                       "capacity; ask for 1 GPU next time");
    u.devices[1].mean_percent = 5;
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_gpus, "");
    u.devices[0].mean_percent = 0;
    u.devices[1].mean_percent = 0;
    u.devices[1].mem_capacity_bytes = -1; /* unknown: no share given */
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_gpus, "2 of the 2 GPUs (CUDA_VISIBLE_DEVICES) stayed idle or nearly (mean "
                                       "utilization below 5 %): GPU 0 (GPU-a) 0.0 %, memory peak 50.0 % of "
                                       "capacity; GPU 3 (GPU-b) 0.0 %; ask for 0 GPUs next time");
    u.devices[0].mean_percent = u.devices[1].mean_percent = -1; /* never read: no advice */
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_gpus, "");
    /* Many GPUs with long names: the line is cut, never overrun. */
    u.n_gpus = u.n_devices = GT_EFF_MAX_GPUS + 3;
    for (int i = 0; i < GT_EFF_MAX_GPUS; i++) {
        u.devices[i] = (gt_eff_gpu){.index = i, .mean_percent = 0, .mem_peak_bytes = 1, .mem_capacity_bytes = 2};
        memset(u.devices[i].uuid, 'x', sizeof u.devices[i].uuid - 1);
    }
    gt_efficiency_compute(&r, &u, &e);
    assert_int_equal(e.use.n_devices, GT_EFF_MAX_GPUS);
    assert_true(strlen(e.advice_gpus) == sizeof e.advice_gpus - 1);
}

static void time_thresholds(void **state)
{
    (void)state;
    gt_efficiency e;
    gt_request r = req(GIB, 1, 0, 100);
    gt_eff_usage u = use(89.9, 80, 600 * MIB);
    gt_efficiency_compute(&r, &u, &e);
    assert_string_equal(e.advice_time, "");
    u.wall_s = 90;
    gt_efficiency_compute(&r, &u, &e);
    assert_non_null(strstr(e.advice_time, "ran 90 s of a 100 s time limit"));
}

/* The section comes last; JSON keeps every advice key (null where none),
 * text gives only the lines there are. */
static void report_section(void **state)
{
    (void)state;
    gt_usage u = GT_USAGE_INIT;
    u.max_ram.unit = u.max_gpu_ram.unit = u.compute_time.unit = u.peak_ram.unit = "gigabytes";
    gt_efficiency e;
    gt_request r = req(GIB, 2, 0, -1);
    gt_eff_usage g = use(10, 10, 100 * MIB);
    gt_efficiency_compute(&r, &g, &e);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(gt_report_write(&u, NULL, &e, GT_FORMAT_JSON, f), GT_OK);
    fclose(f);
    const char *sec = strstr(buf, "\n \"efficiency\": {");
    assert_non_null(sec);
    assert_null(strstr(sec + 1, "\n \"")); /* nothing after it at the top level */
    assert_non_null(strstr(sec, "\"gpus\": null,\n   \"time\": null"));
    assert_non_null(strstr(sec, "\"cpus_per_task\": null"));
    assert_non_null(strstr(sec, "\"efficiency_percent\": 50.0"));
    assert_null(strstr(sec, "bar"));
    assert_null(strstr(sec, "\"gpu\"")); /* no GPU tracked: no GPU section */
    assert_null(strstr(sec, "\"cgroup\"")); /* no cgroup of its own: no cgroup peak */
    free(buf);
    /* The cgroup's peak beside the RSS peak, each with its method. */
    g.cgroup_mem_peak_bytes = 512 * MIB;
    g.cgroup_mem_method = "cgroup v2 memory.peak";
    gt_efficiency_compute(&r, &g, &e);
    assert_true(e.cgroup_mem_percent == 50);
    f = open_memstream(&buf, &len);
    assert_int_equal(gt_report_write(&u, NULL, &e, GT_FORMAT_JSON, f), GT_OK);
    fclose(f);
    assert_non_null(strstr(buf, "\"peak_method\": \"exact\",\n"));
    assert_non_null(strstr(buf, "\"cgroup\": {\n    \"peak_bytes\": 536870912.0,\n    \"peak_method\": \"cgroup v2 "
                                "memory.peak\",\n    \"percent_of_request\": 50.0\n   }\n"));
    free(buf);
    f = open_memstream(&buf, &len);
    assert_int_equal(gt_report_write(&u, NULL, &e, GT_FORMAT_TEXT, f), GT_OK);
    fclose(f);
    assert_non_null(strstr(buf, "      Cgroup:\n         Peak bytes: 536870912.0\n         Peak method: cgroup v2 "
                                "memory.peak\n         Percent of request: 50.0\n         Bar: [||||"));
    free(buf);
    g.cgroup_mem_peak_bytes = -1;
    g.n_gpus = g.n_devices = 1;
    g.gpu_mean_percent = 0;
    g.devices[0] = (gt_eff_gpu){.index = 2, .uuid = "GPU-z", .mean_percent = 0, .mem_peak_bytes = 1,
                                .mem_capacity_bytes = 4};
    gt_efficiency_compute(&r, &g, &e);
    f = open_memstream(&buf, &len);
    assert_int_equal(gt_report_write(&u, NULL, &e, GT_FORMAT_JSON, f), GT_OK);
    fclose(f);
    assert_non_null(strstr(buf, "\"devices\": {\n    \"2\": {\n     \"uuid\": \"GPU-z\",\n"));
    assert_non_null(strstr(buf, "\"memory_percent_of_capacity\": 25.0\n"));
    assert_non_null(strstr(buf, "\"gpus\": \"1 of the 1 GPU (CUDA_VISIBLE_DEVICES) stayed idle"));
    free(buf);
    f = open_memstream(&buf, &len);
    assert_int_equal(gt_report_write(&u, NULL, &e, GT_FORMAT_TEXT, f), GT_OK);
    fclose(f);
    sec = strstr(buf, "\nEfficiency:\n");
    assert_non_null(sec);
    assert_non_null(strstr(sec, "      Bar: [||||||||||||||||||||                     50%]\n"));
    assert_non_null(strstr(sec, "   Advice:\n      Memory: "));
    assert_non_null(strstr(sec, "\n      Cores: 1 of 2"));
    assert_null(strstr(sec, "GPUs: the"));
    assert_null(strstr(sec, "Time: "));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slurm_mem_per_node),
        cmocka_unit_test(slurm_mem_per_cpu),
        cmocka_unit_test(slurm_malformed_is_unknown),
        cmocka_unit_test(gpus_from_env),
        cmocka_unit_test(cgroup_parsers),
        cmocka_unit_test_setup_teardown(cgroup_v1_tree, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(cgroup_v2_tree, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(cgroup_hybrid_tree, make_tree, remove_tree),
        cmocka_unit_test(bars),
        cmocka_unit_test(advised_mem),
        cmocka_unit_test(figures),
        cmocka_unit_test(memory_thresholds),
        cmocka_unit_test(core_thresholds),
        cmocka_unit_test(gpu_thresholds),
        cmocka_unit_test(device_thresholds),
        cmocka_unit_test(time_thresholds),
        cmocka_unit_test(report_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
