/* SPDX-License-Identifier: MIT */
/* Where a process's groups are.  See where.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup.h"
#include "cgroup/where.h"
#include "proc/procfs.h"

/* The directory of the group at path (len bytes) in a hierarchy mounted
 * at base showing its subtree root: base + the part of path below root;
 * -1 when path lies outside that subtree or does not fit. */
static int below_root(const char *base, const char *root, const char *path, size_t len, char *rel, size_t rel_size,
                      char *dir, size_t dir_size)
{
    size_t rlen = strcmp(root, "/") == 0 ? 0 : strlen(root);
    if (len < rlen || strncmp(path, root, rlen) != 0 || (len > rlen && path[rlen] != '/'))
        return -1;
    const char *below = path + rlen;
    size_t blen = len - rlen;
    if (blen == 1 && below[0] == '/')
        blen = 0; /* the root itself */
    if (snprintf(rel, rel_size, "%.*s", (int)blen, below) >= (int)rel_size ||
        snprintf(dir, dir_size, "%s%s", base, rel) >= (int)dir_size)
        return -1;
    return 0;
}

/* One controller's place (v1 where the process's file names it). */
static void locate(const char *fs_root, const char *pid_text, const char *self_text, const char *mountinfo,
                   const char *controller, gt_cgroup_where *w)
{
    memset(w, 0, sizeof *w);
    size_t len, self_len = 0;
    const char *path = gt_cgroup_path(pid_text, controller, &len);
    const char *ctl = controller;
    w->version = 1;
    if (!path) {
        ctl = NULL;
        w->version = 2;
        path = gt_cgroup_path(pid_text, NULL, &len);
    }
    if (!path) {
        snprintf(w->why, sizeof w->why, "the process is in no %s hierarchy", controller);
        return;
    }
    const char *self = gt_cgroup_path(self_text, ctl, &self_len);
    snprintf(w->path, sizeof w->path, "%.*s", (int)len, path);
    w->own = !self || self_len != len || strncmp(self, path, len) != 0;
    char point[PATH_MAX], root[PATH_MAX];
    if (gt_cgroup_mount(mountinfo, ctl, point, sizeof point, root, sizeof root) != 0) {
        snprintf(w->why, sizeof w->why, "no cgroup %s hierarchy is mounted", ctl ? ctl : "v2");
        return;
    }
    const char *prefix = fs_root && strcmp(fs_root, "/") != 0 ? fs_root : "";
    if (snprintf(w->base, sizeof w->base, "%s%s", prefix, point) >= (int)sizeof w->base) {
        snprintf(w->why, sizeof w->why, "the mount point is too long");
        return;
    }
    char rel[PATH_MAX];
    if (self && below_root(w->base, root, self, self_len, rel, sizeof rel, w->self_dir, sizeof w->self_dir) != 0)
        w->self_dir[0] = '\0';
    if (below_root(w->base, root, path, len, w->rel, sizeof w->rel, w->dir, sizeof w->dir) != 0) {
        w->dir[0] = '\0';
        snprintf(w->why, sizeof w->why, "the group %.64s is outside the part of the hierarchy mounted here (%.64s)",
                 w->path, root);
    }
}

int gt_cgroup_where_of(const char *proc_root, const char *fs_root, pid_t pid, gt_cgroup_where *mem,
                       gt_cgroup_where *cpu)
{
    return gt_cgroup_where_ctl(proc_root, fs_root, pid, "memory", "cpuacct", mem, cpu);
}

int gt_cgroup_where_ctl(const char *proc_root, const char *fs_root, pid_t pid, const char *mem_ctl,
                        const char *cpu_ctl, gt_cgroup_where *mem, gt_cgroup_where *cpu)
{
    gt_procfs *p;
    gt_error e;
    if (gt_procfs_open(proc_root, &p, &e) != GT_OK)
        return -1;
    char name[32];
    snprintf(name, sizeof name, "%d/cgroup", (int)pid);
    char *text[3] = {NULL, NULL, NULL}; /* the process's groups, ours, our mounts */
    const char *names[3] = {name, "self/cgroup", "self/mountinfo"};
    int rc = -1;
    for (int i = 0; i < 3; i++) {
        const char *data;
        ssize_t n = gt_procfs_read(p, gt_procfs_root(p), names[i], &data);
        /* Without mountinfo no group can be reached: each says why. */
        if (n < 0 && i == 2)
            n = 0, data = "";
        if (n < 0 || !(text[i] = strndup(data, (size_t)n)))
            goto out;
    }
    locate(fs_root, text[0], text[1], text[2], mem_ctl, mem);
    locate(fs_root, text[0], text[1], text[2], cpu_ctl, cpu);
    rc = 0;
out:
    for (int i = 0; i < 3; i++)
        free(text[i]);
    gt_procfs_close(&p);
    return rc;
}
