/* SPDX-License-Identifier: MIT */
/* Descriptors kept open across samples: see kept.h. */
#include "sampler/kept.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int gt_kept_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 512;
    rlim_t cur = rl.rlim_cur > (rlim_t)1 << 30 ? (rlim_t)1 << 30 : rl.rlim_cur;
    rlim_t reserve = cur / 4 < 32 ? 32 : cur / 4 > 1024 ? 1024 : cur / 4;
    return cur > reserve ? (int)(cur - reserve) : 0;
}

void gt_kept_close(gt_sampler *s, int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        s->kept_fds--;
    }
    *fd = -1;
}

void gt_kept_release_threads(gt_sampler *s, proc_entry *e)
{
    for (uint32_t i = 0; i < e->ntf; i++)
        gt_kept_close(s, &e->tf[i].fd);
    free(e->tf);
    e->tf = NULL;
    e->ntf = e->tfcap = 0;
    gt_kept_close(s, &e->task_fd);
}

void gt_kept_release(gt_sampler *s, proc_entry *e)
{
    free(e->paths);
    e->paths = NULL;
    e->npaths = e->cap = 0;
    gt_kept_release_threads(s, e);
    if (e->stat_fd >= 0) {
        close(e->stat_fd);
        s->kept_fds--;
    }
    if (e->children_fd >= 0) {
        close(e->children_fd);
        s->kept_fds--;
    }
    e->stat_fd = e->children_fd = -1;
    gt_kept_close(s, &e->status_fd);
    for (int f = 0; f < GT_PROBE_COUNT; f++)
        gt_kept_close(s, &e->probe_fd[f]);
}

void gt_kept_none(proc_entry *e)
{
    e->stat_fd = e->children_fd = e->task_fd = e->status_fd = -1;
    for (int f = 0; f < GT_PROBE_SLOTS; f++)
        e->probe_fd[f] = -1;
}

void gt_kept_release_list(gt_sampler *s, proc_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        gt_kept_release(s, &l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

int gt_kept_open_at(gt_sampler *s, int dirfd, const char *rel, int flags)
{
    if (s->kept_fds >= s->fd_budget) {
        /* The limit may have been raised since (once per sample). */
        if (s->budget_checked)
            return -1;
        s->budget_checked = 1;
        s->fd_budget = gt_kept_budget();
        if (s->kept_fds >= s->fd_budget)
            return -1;
    }
    int fd = gt_procfs_note_open(s->fs, openat(dirfd, rel, O_RDONLY | O_CLOEXEC | flags));
    if (fd >= 0)
        s->kept_fds++;
    return fd;
}

int gt_kept_open(gt_sampler *s, const char *rel)
{
    return gt_kept_open_at(s, gt_procfs_root(s->fs), rel, 0);
}

void gt_kept_move(proc_entry *dst, proc_entry *src)
{
    dst->stat_fd = src->stat_fd;
    dst->children_fd = src->children_fd;
    dst->status_fd = src->status_fd;
    src->status_fd = -1;
    dst->task_fd = src->task_fd;
    dst->tf = src->tf;
    dst->ntf = src->ntf;
    dst->tfcap = src->tfcap;
    src->stat_fd = src->children_fd = src->task_fd = -1;
    for (int f = 0; f < GT_PROBE_COUNT; f++) {
        dst->probe_fd[f] = src->probe_fd[f];
        src->probe_fd[f] = -1;
    }
    src->tf = NULL;
    src->ntf = src->tfcap = 0;
}
