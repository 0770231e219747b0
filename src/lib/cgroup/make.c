/* SPDX-License-Identifier: MIT */
/* A group made for a command (--cgroup) and removed after it.  See
 * cgroup.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cgroup/where.h"
#include "util/error.h"

/* Writes text to dir/name (a cgroup control file: one write); 0, or -1
 * with errno set. */
static int write_control(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX + 64];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int e = errno;
    if (close(fd) != 0 && n == (ssize_t)len)
        return -1; /* the kernel may refuse a migration at close */
    errno = e;
    return n == (ssize_t)len ? 0 : -1;
}

/* What a failure to make or enter a group is for want of rights. */
static const char *rights_hint(int e, int version)
{
    if (e != EACCES && e != EPERM && e != EROFS)
        return "";
    return version == 1 ? " (--cgroup needs root on cgroup v1)"
                        : " (--cgroup needs a cgroup v2 subtree delegated to this user)";
}

/* Moves pid back to where it was and removes what was made, after a
 * failure; errno is kept. */
static void undo(gt_cgroup_made *m, char back[][PATH_MAX], int moved, pid_t pid)
{
    int e = errno;
    char text[32];
    snprintf(text, sizeof text, "%d\n", (int)pid);
    for (int i = m->n - 1; i >= 0; i--) {
        if (i < moved)
            write_control(back[i], "cgroup.procs", text);
        rmdir(m->dir[i]);
    }
    m->n = 0;
    errno = e;
}

/* Makes the directories of m (parents given) and moves pid into each. */
static gt_status make_and_enter(gt_cgroup_made *m, char parent[][PATH_MAX], char back[][PATH_MAX], int n,
                                pid_t pid, gt_error *err)
{
    char text[32];
    snprintf(text, sizeof text, "%d\n", (int)pid);
    m->n = 0;
    for (int i = 0; i < n; i++) {
        if ((size_t)snprintf(m->dir[i], sizeof m->dir[i], "%s/gpu-tracker.%d", parent[i], (int)pid) >=
            sizeof m->dir[i])
            return gt_err(err, GT_ERR_SYS, "cannot create a cgroup under %s: the path is too long", parent[i]);
        if (mkdir(m->dir[i], 0755) != 0) {
            int e = errno;
            undo(m, back, 0, pid);
            return gt_err(err, GT_ERR_SYS, "cannot create cgroup %s: %s%s", m->dir[i], strerror(e),
                          rights_hint(e, m->version));
        }
        m->n = i + 1;
    }
    /* Checked before anything moves: a v2 group whose parent gives its
     * children no memory controller has no memory files. */
    if (m->version == 2) {
        char probe[PATH_MAX + 32];
        snprintf(probe, sizeof probe, "%s/memory.current", m->dir[0]);
        if (access(probe, F_OK) != 0) {
            undo(m, back, 0, pid);
            return gt_err(err, GT_ERR_SYS,
                          "cannot use cgroup v2 under %s: it gives its children no memory controller (its "
                          "cgroup.subtree_control lacks 'memory')",
                          parent[0]);
        }
    }
    for (int i = 0; i < n; i++)
        if (write_control(m->dir[i], "cgroup.procs", text) != 0) {
            int e = errno;
            undo(m, back, i, pid);
            return gt_err(err, GT_ERR_SYS, "cannot move process %d into cgroup %s: %s%s", (int)pid, m->dir[i],
                          strerror(e), rights_hint(e, m->version));
        }
    /* The held process has not run yet: its old pages stay charged where
     * they were, so the peak from here on is the command's. */
    if (m->version == 1 && write_control(m->dir[0], "memory.max_usage_in_bytes", "0\n") != 0) {
        int e = errno;
        undo(m, back, n, pid);
        return gt_err(err, GT_ERR_SYS, "cannot reset the memory peak of cgroup %s: %s", m->dir[0], strerror(e));
    }
    return GT_OK;
}

/* dir's parent into out; "/" stays itself. */
static void parent_of(const char *dir, const char *base, char *out, size_t size)
{
    snprintf(out, size, "%s", dir);
    char *slash = strrchr(out, '/');
    if (slash && (size_t)(slash - out) >= strlen(base))
        *slash = '\0';
}

gt_status gt_cgroup_create(const char *proc_root, const char *fs_root, pid_t pid, gt_cgroup_made *m,
                           gt_error *err)
{
    memset(m, 0, sizeof *m);
    gt_cgroup_where mem, cpu;
    if (gt_cgroup_where_of(proc_root, fs_root, pid, &mem, &cpu) != 0)
        return gt_err(err, GT_ERR_SYS, "cannot read the cgroups of process %d: %s", (int)pid, strerror(errno));
    char parent[2][PATH_MAX], back[2][PATH_MAX];
    int n = 0;
    if (mem.version == 1 && cpu.version == 1) {
        if (!mem.self_dir[0] || !cpu.self_dir[0])
            return gt_err(err, GT_ERR_SYS, "cannot use cgroup v1: %s",
                          mem.why[0] ? mem.why : cpu.why[0] ? cpu.why : "gpu-tracker's own group is not mounted here");
        m->version = 1;
        snprintf(parent[n], sizeof parent[n], "%s", mem.self_dir);
        snprintf(back[n++], sizeof back[0], "%s", mem.dir);
        /* cpuacct co-mounted with memory is one hierarchy: one group */
        if (strcmp(cpu.base, mem.base) != 0) {
            snprintf(parent[n], sizeof parent[n], "%s", cpu.self_dir);
            snprintf(back[n++], sizeof back[0], "%s", cpu.dir);
        }
    } else if (mem.version == 2) {
        if (!mem.self_dir[0] || !mem.dir[0])
            return gt_err(err, GT_ERR_SYS, "cannot use cgroup v2: %s",
                          mem.why[0] ? mem.why : "gpu-tracker's own group is not mounted here");
        m->version = 2;
        parent_of(mem.self_dir, mem.base, parent[0], sizeof parent[0]);
        snprintf(back[n++], sizeof back[0], "%s", mem.dir);
    } else {
        return gt_err(err, GT_ERR_SYS, "cannot use cgroup v1: %s", cpu.why[0] ? cpu.why : "no cpuacct hierarchy");
    }
    return make_and_enter(m, parent, back, n, pid, err);
}

gt_status gt_cgroup_remove(gt_cgroup_made *m, gt_error *err)
{
    gt_status st = GT_OK;
    int left = 0;
    for (int i = m->n - 1; i >= 0; i--) {
        if (!m->dir[i][0])
            continue;
        if (rmdir(m->dir[i]) == 0 || errno == ENOENT) {
            m->dir[i][0] = '\0';
            continue;
        }
        int e = errno;
        char procs[PATH_MAX + 32], buf[4096];
        snprintf(procs, sizeof procs, "%s", m->dir[i]);
        const char *text = gt_cgroup_read_small(procs, "cgroup.procs", buf, sizeof buf);
        int count = 0;
        for (const char *p = text; p && *p; p++)
            count += *p == '\n';
        char still[64] = "";
        if (count)
            snprintf(still, sizeof still, " (%d process%s still in it)", count, count == 1 ? " is" : "es are");
        gt_error one;
        st = gt_err(&one, GT_ERR_SYS, "cannot remove cgroup %s: %s%s", m->dir[i], strerror(e), still);
        if (err && left++)
            gt_err_join(err, &one); /* every group left is named */
        else if (err)
            *err = one;
    }
    if (!left)
        m->n = 0;
    return st;
}
