/* SPDX-License-Identifier: MIT */
/* A process's cgroup counters, read through descriptors opened once.  See
 * cgroup.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cgroup/where.h"
#include "proc/procfs.h"
#include "util/error.h"

struct gt_cgroup {
    int version;
    char mem_path[512], cpu_path[512];
    int peak_fd, current_fd, limit_fd, cpu_fd; /* -1: not open (why says why) */
    int cpu_v2;                                /* cpu_fd is a v2 cpu.stat, else cpuacct.usage */
    /* The memory group's hierarchy as mounted and the group below it, for
     * the limits of its ancestors. */
    char mem_base[PATH_MAX], mem_rel[PATH_MAX];
    char why[sizeof ((gt_cgroup_reading *)0)->why];
};

/* Appends "; "-joined reasons to why (size bytes), cut to fit. */
static void add_why(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_why(char *why, size_t size, const char *fmt, ...)
{
    if (why[0])
        gt_text_append(why, size, "; ");
    va_list ap;
    va_start(ap, fmt);
    gt_text_vappend(why, size, fmt, ap);
    va_end(ap);
}

/* Opens name in dirfd, or notes why it cannot. */
static int open_counter(gt_cgroup *cg, int dirfd, const char *name)
{
    int fd = dirfd < 0 ? -1 : openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && dirfd >= 0)
        add_why(cg->why, sizeof cg->why, "%s: %s", name, strerror(errno));
    return fd;
}

/* The group of one controller: its directory opened, or why not. */
static int open_group(gt_cgroup *cg, const gt_cgroup_where *w, const char *what)
{
    if (!w->own) {
        add_why(cg->why, sizeof cg->why, "%s: the command shares gpu-tracker's own group (%s), which counts "
                "gpu-tracker too", what, w->path);
        return -1;
    }
    if (!w->dir[0]) {
        add_why(cg->why, sizeof cg->why, "%s: %s", what, w->why);
        return -1;
    }
    int fd = open(w->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        add_why(cg->why, sizeof cg->why, "%s: cannot open %s: %s", what, w->dir, strerror(errno));
    return fd;
}

gt_status gt_cgroup_open(const char *proc_root, const char *fs_root, pid_t pid, gt_cgroup **out, gt_error *err)
{
    *out = NULL;
    gt_cgroup_where mem, cpu;
    if (gt_cgroup_where_of(proc_root, fs_root, pid, &mem, &cpu) != 0)
        return GT_OK; /* no cgroup file: the process is gone, or no cgroups */
    if (!mem.own && !cpu.own)
        return GT_OK;
    gt_cgroup *cg = calloc(1, sizeof *cg);
    if (!cg)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    cg->peak_fd = cg->current_fd = cg->limit_fd = cg->cpu_fd = -1;
    cg->version = mem.version;
    if (mem.own)
        snprintf(cg->mem_path, sizeof cg->mem_path, "%s", mem.path);
    if (cpu.own)
        snprintf(cg->cpu_path, sizeof cg->cpu_path, "%s", cpu.path);
    int dfd = open_group(cg, &mem, "memory");
    if (dfd >= 0) {
        int v1 = mem.version == 1;
        cg->peak_fd = open_counter(cg, dfd, v1 ? "memory.max_usage_in_bytes" : "memory.peak");
        cg->current_fd = open_counter(cg, dfd, v1 ? "memory.usage_in_bytes" : "memory.current");
        cg->limit_fd = open_counter(cg, dfd, v1 ? "memory.limit_in_bytes" : "memory.max");
        snprintf(cg->mem_base, sizeof cg->mem_base, "%s", mem.base);
        snprintf(cg->mem_rel, sizeof cg->mem_rel, "%s", mem.rel);
        close(dfd);
    }
    dfd = open_group(cg, &cpu, "CPU");
    if (dfd >= 0) {
        cg->cpu_v2 = cpu.version == 2;
        cg->cpu_fd = open_counter(cg, dfd, cg->cpu_v2 ? "cpu.stat" : "cpuacct.usage");
        close(dfd);
    }
    *out = cg;
    return GT_OK;
}

/* The text of a counter's descriptor, or NULL (why noted). */
static const char *pread_text(int fd, char *buf, size_t size, const char *name, gt_cgroup_reading *r)
{
    if (fd < 0)
        return NULL; /* noted at open */
    ssize_t n = gt_pread_full(fd, buf, size - 1, 0);
    if (n < 0) {
        add_why(r->why, sizeof r->why, "%s: %s", name, strerror(errno));
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* A counter of one number; -1 (why noted) when unreadable or malformed. */
static int64_t read_count(int fd, const char *name, gt_cgroup_reading *r)
{
    char buf[64];
    const char *text = pread_text(fd, buf, sizeof buf, name, r);
    if (!text)
        return -1;
    int64_t v = gt_cgroup_count(text);
    if (v < 0)
        add_why(r->why, sizeof r->why, "%s: not a count: '%.24s'", name, text);
    return v;
}

void gt_cgroup_read(const gt_cgroup *cg, gt_cgroup_reading *r)
{
    memset(r, 0, sizeof *r);
    r->version = cg->version;
    snprintf(r->mem_path, sizeof r->mem_path, "%s", cg->mem_path);
    snprintf(r->cpu_path, sizeof r->cpu_path, "%s", cg->cpu_path);
    snprintf(r->why, sizeof r->why, "%s", cg->why);
    int v1 = cg->version == 1;
    r->mem_peak = read_count(cg->peak_fd, v1 ? "memory.max_usage_in_bytes" : "memory.peak", r);
    r->mem_current = read_count(cg->current_fd, v1 ? "memory.usage_in_bytes" : "memory.current", r);
    /* The limit that binds is the smallest of the group's and its
     * ancestors'; the group's own file read first says whether limits can
     * be read at all ("none" is only said of files that were read). */
    char buf[64];
    r->mem_limit = -1;
    if (pread_text(cg->limit_fd, buf, sizeof buf, v1 ? "memory.limit_in_bytes" : "memory.max", r)) {
        double lim = gt_cgroup_walk_limits(cg->mem_base, cg->mem_rel, strlen(cg->mem_rel), v1, 0).mem;
        r->mem_limit = lim >= 0 ? (int64_t)lim : -1;
        r->limit_none = lim < 0;
    }
    r->cpu_ns = -1;
    if (cg->cpu_v2) {
        char stat[1024];
        const char *text = pread_text(cg->cpu_fd, stat, sizeof stat, "cpu.stat", r);
        int64_t us = text ? gt_cgroup_cpu_stat_usec(text) : -1;
        if (text && (us < 0 || us > INT64_MAX / 1000))
            add_why(r->why, sizeof r->why, "cpu.stat: no usage_usec");
        else if (text)
            r->cpu_ns = us * 1000;
    } else {
        r->cpu_ns = read_count(cg->cpu_fd, "cpuacct.usage", r);
    }
}

void gt_cgroup_close(gt_cgroup **cgp)
{
    if (!cgp || !*cgp)
        return;
    gt_cgroup *cg = *cgp;
    int fds[] = {cg->peak_fd, cg->current_fd, cg->limit_fd, cg->cpu_fd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(cg);
    *cgp = NULL;
}
