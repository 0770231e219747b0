/* SPDX-License-Identifier: MIT */
/* The cgroup probe: /proc/PID/cgroup lines, mountinfo, the counters'
 * text, and the probe and the making of a group on fake cgroupfs trees (v1
 * and v2) in a folder: limits "max" and v1's huge "no limit", the
 * ancestors' limit, missing files, a process in the tracker's own group,
 * and the report's Cgroup section. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "gpu_tracker.h"

static char tree[64];

/* Writes root-relative rel (parents made) with text. */
static void put(const char *rel, const char *text)
{
    char path[512], cmd[640];
    snprintf(path, sizeof path, "%s/%s", tree, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int exists(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tree, rel);
    return access(path, F_OK) == 0;
}

static int make_tree(void **state)
{
    (void)state;
    snprintf(tree, sizeof tree, "/tmp/gt_test_cgroup_XXXXXX");
    return mkdtemp(tree) ? 0 : -1;
}

static int remove_tree(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
    return system(cmd) == 0 ? 0 : -1;
}

/* This machine's kind of /proc/PID/cgroup: v1 controllers, one co-mounted
 * pair, the unified line last. */
static const char v1_lines[] = "9:name=systemd:/\n"
                               "4:memory:/slurm/job_7/step_0\n"
                               "2:cpu,cpuacct:/slurm/job_7\n"
                               "0::/\n";

static void proc_cgroup_lines(void **state)
{
    (void)state;
    size_t len;
    const char *p = gt_cgroup_path(v1_lines, "memory", &len);
    assert_non_null(p);
    assert_int_equal(len, strlen("/slurm/job_7/step_0"));
    assert_memory_equal(p, "/slurm/job_7/step_0", len);
    p = gt_cgroup_path(v1_lines, "cpuacct", &len);
    assert_non_null(p);
    assert_memory_equal(p, "/slurm/job_7", len);
    assert_int_equal(len, strlen("/slurm/job_7"));
    p = gt_cgroup_path(v1_lines, NULL, &len);
    assert_non_null(p);
    assert_int_equal(len, 1);
    assert_null(gt_cgroup_path(v1_lines, "pids", &len));
    assert_null(gt_cgroup_path(v1_lines, "systemd", &len)); /* "name=systemd" is no controller */
    assert_null(gt_cgroup_path(v1_lines, "cpuac", &len));   /* whole names only */
    /* v2 only, no final newline, a malformed line skipped */
    p = gt_cgroup_path("garbage\n0::/user.slice/x.scope", NULL, &len);
    assert_non_null(p);
    assert_memory_equal(p, "/user.slice/x.scope", len);
    assert_null(gt_cgroup_path("0::/a\n", "memory", &len));
}

/* This machine's mounts: v1 controllers under /sys/fs/cgroup/<ctrl>, v2
 * at /sys/fs/cgroup/unified. */
static const char mountinfo[] =
    "25 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu\\054cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static void mountinfo_lines(void **state)
{
    (void)state;
    char point[256], root[256];
    assert_int_equal(gt_cgroup_mount(mountinfo, "memory", point, sizeof point, root, sizeof root), 0);
    assert_string_equal(point, "/sys/fs/cgroup/memory");
    assert_string_equal(root, "/");
    assert_int_equal(gt_cgroup_mount(mountinfo, "cpuacct", point, sizeof point, root, sizeof root), 0);
    assert_string_equal(point, "/sys/fs/cgroup/cpu,cpuacct"); /* \054 decoded */
    assert_int_equal(gt_cgroup_mount(mountinfo, NULL, point, sizeof point, root, sizeof root), 0);
    assert_string_equal(point, "/sys/fs/cgroup/unified");
    assert_int_equal(gt_cgroup_mount(mountinfo, "pids", point, sizeof point, root, sizeof root), -1);
    assert_int_equal(gt_cgroup_mount(mountinfo, "cpuac", point, sizeof point, root, sizeof root), -1);
    /* a subtree mounted (a container's view), a space in the mount point */
    assert_int_equal(gt_cgroup_mount("7 1 0:5 /slurm /cg\\040v2 rw - cgroup2 none rw,nsdelegate\n", NULL, point,
                                     sizeof point, root, sizeof root),
                     0);
    assert_string_equal(point, "/cg v2");
    assert_string_equal(root, "/slurm");
    /* too long for the buffer: none rather than a cut path */
    assert_int_equal(gt_cgroup_mount(mountinfo, "memory", point, 8, root, sizeof root), -1);
    assert_int_equal(gt_cgroup_mount("", NULL, point, sizeof point, root, sizeof root), -1);
}

static void counters_text(void **state)
{
    (void)state;
    assert_true(gt_cgroup_count("104857600\n") == 104857600);
    assert_true(gt_cgroup_count("9223372036854771712\n") == 9223372036854771712LL);
    assert_true(gt_cgroup_count("99999999999999999999\n") < 0);
    assert_true(gt_cgroup_count("12") < 0); /* cut short: no figure */
    assert_true(gt_cgroup_count("max\n") < 0);
    assert_true(gt_cgroup_count("") < 0);
    assert_true(gt_cgroup_count(NULL) < 0);
    assert_true(gt_cgroup_cpu_stat_usec("usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n") == 1500000);
    assert_true(gt_cgroup_cpu_stat_usec("user_usec 3\nusage_usec 7\n") == 7);
    assert_true(gt_cgroup_cpu_stat_usec("user_usec 3\n") < 0);
    assert_true(gt_cgroup_cpu_stat_usec("usage_usec 12") < 0);
    /* the limits: v2 "max" and v1's page-rounded LONG_MAX are none */
    assert_true(gt_cgroup_v2_memory_max("max\n") < 0);
    assert_true(gt_cgroup_v1_memory_limit("9223372036854771712\n") < 0);
    assert_true(gt_cgroup_v1_memory_limit("2147483648\n") == 2147483648.0);
}

/* A fake /proc for process 100 and the tracker ("self"). */
static void fake_proc(const char *pid_lines, const char *self_lines, const char *mounts)
{
    put("proc/100/cgroup", pid_lines);
    put("proc/self/cgroup", self_lines);
    put("proc/self/mountinfo", mounts);
}

static gt_cgroup *open_fake(void)
{
    char proc[128];
    snprintf(proc, sizeof proc, "%s/proc", tree);
    gt_cgroup *cg = NULL;
    gt_error e;
    assert_int_equal(gt_cgroup_open(proc, tree, 100, &cg, &e), GT_OK);
    return cg;
}

#define V2_MOUNT "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
#define V2_DIR "sys/fs/cgroup/job/step/"

static void v2_tree(void **state)
{
    (void)state;
    fake_proc("0::/job/step\n", "0::/tracker\n", V2_MOUNT);
    put(V2_DIR "memory.peak", "104857600\n");
    put(V2_DIR "memory.current", "1048576\n");
    put(V2_DIR "memory.max", "max\n");
    put("sys/fs/cgroup/job/memory.max", "209715200\n"); /* the ancestor's limit binds */
    put("sys/fs/cgroup/memory.max", "max\n");
    put(V2_DIR "cpu.stat", "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n");
    gt_cgroup *cg = open_fake();
    assert_non_null(cg);
    gt_cgroup_reading r;
    gt_cgroup_read(cg, &r);
    assert_int_equal(r.version, 2);
    assert_string_equal(r.mem_path, "/job/step");
    assert_string_equal(r.cpu_path, "/job/step");
    assert_true(r.mem_peak == 104857600);
    assert_true(r.mem_current == 1048576);
    assert_true(r.mem_limit == 209715200);
    assert_int_equal(r.limit_none, 0);
    assert_true(r.cpu_ns == 1500000000LL);
    assert_string_equal(r.why, "");
    /* read again through the same descriptors: the figures of now */
    put(V2_DIR "memory.peak", "209715200\n");
    gt_cgroup_read(cg, &r);
    assert_true(r.mem_peak == 209715200);
    /* no limit anywhere: none, not unavailable */
    put("sys/fs/cgroup/job/memory.max", "max\n");
    gt_cgroup_read(cg, &r);
    assert_true(r.mem_limit < 0);
    assert_int_equal(r.limit_none, 1);
    gt_cgroup_close(&cg);
    assert_null(cg);
}

/* A kernel before 5.19 has no memory.peak: that figure alone is
 * unavailable, and why names the file; a malformed counter too. */
static void v2_missing_files(void **state)
{
    (void)state;
    fake_proc("0::/job/step\n", "0::/tracker\n", V2_MOUNT);
    put(V2_DIR "memory.current", "1048576\n");
    put(V2_DIR "cpu.stat", "user_usec 1\n");
    gt_cgroup *cg = open_fake();
    assert_non_null(cg);
    gt_cgroup_reading r;
    gt_cgroup_read(cg, &r);
    assert_true(r.mem_peak < 0);
    assert_true(r.mem_current == 1048576);
    assert_true(r.mem_limit < 0);
    assert_int_equal(r.limit_none, 0); /* unread, not "none" */
    assert_true(r.cpu_ns < 0);
    assert_non_null(strstr(r.why, "memory.peak: No such file or directory"));
    assert_non_null(strstr(r.why, "memory.max: No such file or directory"));
    assert_non_null(strstr(r.why, "cpu.stat: no usage_usec"));
    gt_cgroup_close(&cg);
}

#define V1_MOUNTS                                                                            \
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"            \
    "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
#define V1_MEM "sys/fs/cgroup/memory/slurm/job_7/step_0/"
#define V1_CPU "sys/fs/cgroup/cpu,cpuacct/slurm/job_7/"
#define HUGE_V1 "9223372036854771712\n"

static void v1_tree(void **state)
{
    (void)state;
    fake_proc(v1_lines, "4:memory:/\n2:cpu,cpuacct:/\n0::/\n", V1_MOUNTS);
    put(V1_MEM "memory.max_usage_in_bytes", "52428800\n");
    put(V1_MEM "memory.usage_in_bytes", "4096\n");
    put(V1_MEM "memory.limit_in_bytes", HUGE_V1);
    put("sys/fs/cgroup/memory/slurm/job_7/memory.limit_in_bytes", "2147483648\n");
    put("sys/fs/cgroup/memory/slurm/memory.limit_in_bytes", HUGE_V1);
    put("sys/fs/cgroup/memory/memory.limit_in_bytes", HUGE_V1);
    put(V1_CPU "cpuacct.usage", "123456789\n");
    gt_cgroup *cg = open_fake();
    assert_non_null(cg);
    gt_cgroup_reading r;
    gt_cgroup_read(cg, &r);
    assert_int_equal(r.version, 1);
    assert_string_equal(r.mem_path, "/slurm/job_7/step_0");
    assert_string_equal(r.cpu_path, "/slurm/job_7");
    assert_true(r.mem_peak == 52428800);
    assert_true(r.mem_current == 4096);
    assert_true(r.mem_limit == 2147483648LL);
    assert_true(r.cpu_ns == 123456789);
    assert_string_equal(r.why, "");
    /* v1's huge value everywhere: none */
    put("sys/fs/cgroup/memory/slurm/job_7/memory.limit_in_bytes", HUGE_V1);
    gt_cgroup_read(cg, &r);
    assert_true(r.mem_limit < 0);
    assert_int_equal(r.limit_none, 1);
    gt_cgroup_close(&cg);
}

/* The tracker's own groups count the tracker too: no section; a command
 * in its own CPU group but the tracker's memory group has only the CPU
 * figure, and why says why not the memory's. */
static void own_group(void **state)
{
    (void)state;
    fake_proc("4:memory:/a\n2:cpu,cpuacct:/b\n0::/\n", "4:memory:/a\n2:cpu,cpuacct:/b\n0::/\n", V1_MOUNTS);
    assert_null(open_fake());
    fake_proc("4:memory:/a\n2:cpu,cpuacct:/c\n0::/\n", "4:memory:/a\n2:cpu,cpuacct:/b\n0::/\n", V1_MOUNTS);
    put("sys/fs/cgroup/cpu,cpuacct/c/cpuacct.usage", "5\n");
    gt_cgroup *cg = open_fake();
    assert_non_null(cg);
    gt_cgroup_reading r;
    gt_cgroup_read(cg, &r);
    assert_string_equal(r.mem_path, "");
    assert_string_equal(r.cpu_path, "/c");
    assert_true(r.mem_peak < 0 && r.mem_limit < 0 && !r.limit_none);
    assert_true(r.cpu_ns == 5);
    assert_non_null(strstr(r.why, "memory: the command shares gpu-tracker's own group (/a)"));
    gt_cgroup_close(&cg);
    /* a process gone (no cgroup file): nothing */
    char proc[128];
    snprintf(proc, sizeof proc, "%s/proc", tree);
    gt_cgroup *none = NULL;
    assert_int_equal(gt_cgroup_open(proc, tree, 999, &none, NULL), GT_OK);
    assert_null(none);
}

/* A subtree mounted (a container sees /slurm as its root): the group is
 * found below it; a group outside it, and a hierarchy not mounted, say
 * so. */
static void mount_root(void **state)
{
    (void)state;
    fake_proc("0::/slurm/job_7\n", "0::/slurm\n", "41 31 0:38 /slurm /cg rw - cgroup2 cgroup2 rw\n");
    put("cg/job_7/memory.peak", "8192\n");
    gt_cgroup *cg = open_fake();
    assert_non_null(cg);
    gt_cgroup_reading r;
    gt_cgroup_read(cg, &r);
    assert_true(r.mem_peak == 8192);
    gt_cgroup_close(&cg);
    fake_proc("0::/other/job\n", "0::/slurm\n", "41 31 0:38 /slurm /cg rw - cgroup2 cgroup2 rw\n");
    cg = open_fake();
    assert_non_null(cg);
    gt_cgroup_read(cg, &r);
    assert_true(r.mem_peak < 0 && r.cpu_ns < 0);
    assert_non_null(strstr(r.why, "the group /other/job is outside the part of the hierarchy mounted here"));
    gt_cgroup_close(&cg);
    fake_proc("0::/job\n", "0::/\n", "");
    cg = open_fake();
    assert_non_null(cg);
    gt_cgroup_read(cg, &r);
    assert_non_null(strstr(r.why, "no cgroup v2 hierarchy is mounted"));
    gt_cgroup_close(&cg);
}

static void create_v2_no_memory(void **state)
{
    (void)state;
    /* the tracker in /user/run.scope: the group goes beside it, in /user,
     * whose children get no memory controller in a fake tree */
    fake_proc("0::/user/run.scope\n", "0::/user/run.scope\n", V2_MOUNT);
    put("sys/fs/cgroup/user/run.scope/cgroup.procs", "100\n");
    char proc[128];
    snprintf(proc, sizeof proc, "%s/proc", tree);
    gt_cgroup_made m;
    gt_error e;
    assert_int_equal(gt_cgroup_create(proc, tree, 100, &m, &e), GT_ERR_SYS);
    assert_non_null(strstr(e.msg, "gives its children no memory controller"));
    assert_non_null(strstr(e.msg, "sys/fs/cgroup/user"));
    assert_false(exists("sys/fs/cgroup/user/gpu-tracker.100")); /* nothing left made */
    assert_int_equal(m.n, 0);
}

static void create_v1_fails_cleanly(void **state)
{
    (void)state;
    /* made under the tracker's own groups; a fake tree has no
     * cgroup.procs in a new directory, so the move fails */
    fake_proc("4:memory:/a\n2:cpu,cpuacct:/b\n0::/\n", "4:memory:/a\n2:cpu,cpuacct:/b\n0::/\n", V1_MOUNTS);
    put("sys/fs/cgroup/memory/a/cgroup.procs", "100\n");
    put("sys/fs/cgroup/cpu,cpuacct/b/cgroup.procs", "100\n");
    char proc[128];
    snprintf(proc, sizeof proc, "%s/proc", tree);
    gt_cgroup_made m;
    gt_error e;
    assert_int_equal(gt_cgroup_create(proc, tree, 100, &m, &e), GT_ERR_SYS);
    assert_non_null(strstr(e.msg, "cannot move process 100 into cgroup"));
    assert_non_null(strstr(e.msg, "memory/a/gpu-tracker.100"));
    assert_false(exists("sys/fs/cgroup/memory/a/gpu-tracker.100"));
    assert_false(exists("sys/fs/cgroup/cpu,cpuacct/b/gpu-tracker.100"));
    /* no hierarchy at all */
    fake_proc("0::/\n", "0::/\n", "");
    assert_int_equal(gt_cgroup_create(proc, tree, 100, &m, &e), GT_ERR_SYS);
    assert_non_null(strstr(e.msg, "cannot use cgroup v2: no cgroup v2 hierarchy is mounted"));
}

/* A group that keeps processes is kept, and the message counts them. */
static void remove_busy(void **state)
{
    (void)state;
    gt_cgroup_made m = {.version = 1, .n = 2};
    snprintf(m.dir[0], sizeof m.dir[0], "%s/busy", tree);
    snprintf(m.dir[1], sizeof m.dir[1], "%s/acct", tree);
    put("busy/cgroup.procs", "7\n8\n");
    put("acct/cgroup.procs", "7\n");
    gt_error e;
    assert_int_equal(gt_cgroup_remove(&m, &e), GT_ERR_SYS);
    assert_non_null(strstr(e.msg, "/acct: Directory not empty (1 process is still in it); cannot remove cgroup "));
    assert_non_null(strstr(e.msg, "/busy: Directory not empty (2 processes are still in it)"));
    assert_int_equal(m.n, 2);
    /* one emptied: the next call removes it and names the other */
    char acct[512];
    snprintf(acct, sizeof acct, "%s/acct/cgroup.procs", tree);
    assert_int_equal(unlink(acct), 0);
    assert_int_equal(gt_cgroup_remove(&m, &e), GT_ERR_SYS);
    assert_null(strstr(e.msg, "acct"));
    assert_false(exists("acct"));
    char path[512];
    snprintf(path, sizeof path, "%s/busy/cgroup.procs", tree);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(gt_cgroup_remove(&m, &e), GT_OK);
    assert_int_equal(m.n, 0);
    assert_false(exists("busy"));
}

/* The report's section: "none" for no limit (JSON null), unavailable
 * figures with their reason, the CPU path only where it differs. */
static void report_section(void **state)
{
    (void)state;
    gt_usage u = GT_USAGE_INIT;
    u.max_ram.unit = "megabytes";
    u.cgroup.available = 1;
    u.cgroup.version = 1;
    snprintf(u.cgroup.path, sizeof u.cgroup.path, "/a/gpu-tracker.7");
    snprintf(u.cgroup.cpu_path, sizeof u.cgroup.cpu_path, "/gpu-tracker.7");
    u.cgroup.memory_peak = 105.5;
    u.cgroup.memory_current = -1;
    u.cgroup.memory_limit = -1;
    u.cgroup.limit_none = 1;
    u.cgroup.memory_headroom = -1;
    u.cgroup.cpu_ns = 600000000;
    u.cgroup.cpu_seconds = 0.6;
    u.cgroup.memory_method = "m";
    snprintf(u.cgroup.unavailable, sizeof u.cgroup.unavailable, "memory.usage_in_bytes: gone");
    char *text = NULL, *json = NULL;
    assert_int_equal(gt_usage_string(&u, GT_FORMAT_TEXT, &text), GT_OK);
    assert_non_null(strstr(text, "\nCgroup:\n   Path: /a/gpu-tracker.7\n   CPU path: /gpu-tracker.7\n"
                                 "   Version: 1\n   Unit: megabytes\n   Memory peak: 105.5\n"
                                 "   Memory current: unavailable\n   Memory limit: none\n"
                                 "   Memory headroom: unavailable\n   CPU time (ns): 600000000\n"
                                 "   CPU seconds: 0.6\n   Memory method: m\n"
                                 "   Unavailable: memory.usage_in_bytes: gone"));
    assert_int_equal(gt_usage_string(&u, GT_FORMAT_JSON, &json), GT_OK);
    assert_non_null(strstr(json, "\"memory_limit\": null,"));
    assert_non_null(strstr(json, "\"cpu_ns\": 600000000,"));
    gt_string_free(&text);
    gt_string_free(&json);
    /* one path for both: said once; no reason: no line */
    snprintf(u.cgroup.cpu_path, sizeof u.cgroup.cpu_path, "/a/gpu-tracker.7");
    u.cgroup.unavailable[0] = '\0';
    u.cgroup.memory_limit = 200;
    u.cgroup.limit_none = 0;
    assert_int_equal(gt_usage_string(&u, GT_FORMAT_TEXT, &text), GT_OK);
    assert_null(strstr(text, "CPU path"));
    assert_null(strstr(text, "Unavailable"));
    assert_non_null(strstr(text, "   Memory limit: 200.0\n"));
    gt_string_free(&text);
    /* no group of its own: no section */
    u.cgroup.available = 0;
    assert_int_equal(gt_usage_string(&u, GT_FORMAT_TEXT, &text), GT_OK);
    assert_null(strstr(text, "Cgroup"));
    gt_string_free(&text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(proc_cgroup_lines),
        cmocka_unit_test(mountinfo_lines),
        cmocka_unit_test(counters_text),
        cmocka_unit_test_setup_teardown(v2_tree, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(v2_missing_files, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(v1_tree, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(own_group, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(mount_root, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(create_v2_no_memory, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(create_v1_fails_cleanly, make_tree, remove_tree),
        cmocka_unit_test_setup_teardown(remove_busy, make_tree, remove_tree),
        cmocka_unit_test(report_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
