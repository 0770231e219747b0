/* SPDX-License-Identifier: MIT */
/* The children of a process: see children.h. */
#include "sampler/children.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "proc/parse.h"
#include "sampler/kept.h"

int gt_queue_push(gt_sampler *s, size_t *qn, pid_t pid, int from_kept)
{
    if (grow((void **)&s->queue, &s->queue_cap, *qn + 1, sizeof *s->queue) != 0)
        return -1;
    s->queue[(*qn)++] = (queued){pid, from_kept};
    return 0;
}

static int push_pid(gt_sampler *s, size_t *qn, pid_t pid)
{
    return gt_queue_push(s, qn, pid, 0);
}

static int queue_pid_text(gt_sampler *s, const char *d, ssize_t n, size_t *qn)
{
    size_t start = 0;
    for (size_t i = 0; n > 0 && i <= (size_t)n; i++) {
        if (i == (size_t)n || d[i] == ' ' || d[i] == '\n') {
            pid_t pid;
            if (i > start && gt_parse_pid_list(d + start, i - start, &pid, 1) == 1 &&
                push_pid(s, qn, pid) != 0)
                return -1;
            start = i + 1;
        }
    }
    return 0;
}

/* Queues the PIDs listed in a children file (relative to dirfd). */
static int queue_children_file(gt_sampler *s, int dirfd, const char *rel, size_t *qn)
{
    const char *d;
    ssize_t n = gt_procfs_read_small(s->fs, dirfd, rel, &d);
    /* 1: not read (exited meanwhile, or a failed read), not "none" */
    return n > 0 ? queue_pid_text(s, d, n, qn) : n < 0;
}

/* Queues the children listed in thread tid's file, through a descriptor kept
 * in e->tf[*w] (moved there from later in the array, or opened): entries
 * before *w are the threads seen in this pass. */
static int queue_thread_children(gt_sampler *s, proc_entry *e, int tfd, const char *name,
                                 uint32_t *w, size_t *qn)
{
    char rel[40];
    pid_t tid = (pid_t)atoi(name);
    uint32_t k = *w;
    while (k < e->ntf && e->tf[k].tid != tid)
        k++;
    snprintf(rel, sizeof rel, "%.20s/children", name);
    if (k == e->ntf) { /* a thread not seen before */
        size_t cap = e->tfcap;
        int fd = gt_kept_open_at(s, tfd, rel, 0);
        if (fd < 0 || grow((void **)&e->tf, &cap, (size_t)e->ntf + 1, sizeof *e->tf) != 0) {
            gt_kept_close(s, &fd);
            return queue_children_file(s, tfd, rel, qn); /* over budget: read once */
        }
        e->tfcap = (uint32_t)cap;
        e->tf[e->ntf++] = (thread_file){tid, fd};
    }
    thread_file t = e->tf[k];
    e->tf[k] = e->tf[*w];
    e->tf[(*w)++] = t;
    const char *d;
    ssize_t n = gt_procfs_pread(s->fs, t.fd, &d);
    if (n < 0) { /* that thread exited and its TID came back: open afresh */
        thread_file *kept = &e->tf[*w - 1];
        gt_kept_close(s, &kept->fd);
        kept->fd = gt_kept_open_at(s, tfd, rel, 0);
        n = kept->fd >= 0 ? gt_procfs_pread(s->fs, kept->fd, &d)
                          : gt_procfs_read_small(s->fs, tfd, rel, &d);
    }
    return n > 0 ? queue_pid_text(s, d, n, qn) : n < 0;
}

/* One listing of a process's task folder. */
typedef struct thread_walk {
    gt_sampler *s;
    proc_entry *e;
    int tfd;
    uint32_t w;     /* threads seen so far (see queue_thread_children) */
    size_t *qn;
    int unread;     /* some thread's children could not be read */
} thread_walk;

static int on_thread(void *ctx, const char *name)
{
    thread_walk *tw = ctx;
    /* The sampling thread (the caller) forks nothing. */
    if (tw->e->pid == tw->s->self_pid && atoi(name) == tw->s->self_tid)
        return 0;
    int r = queue_thread_children(tw->s, tw->e, tw->tfd, name, &tw->w, tw->qn);
    tw->unread |= r > 0;
    return r < 0 ? -1 : 0;
}

/* Appends the children of every thread of pid to the queue.  A child may be
 * forked by any thread, but most processes have one. */
static int queue_children(gt_sampler *s, proc_entry *e, size_t *qn)
{
    char rel[64];
    pid_t pid = e->pid;
    if (e->threads <= 1) {
        gt_kept_release_threads(s, e);
        if (e->children_fd < 0) {
            snprintf(rel, sizeof rel, "%d/task/%d/children", (int)pid, (int)pid);
            if ((e->children_fd = gt_kept_open(s, rel)) < 0)
                return queue_children_file(s, gt_procfs_root(s->fs), rel, qn);
        }
        const char *d;
        ssize_t n = gt_procfs_pread(s->fs, e->children_fd, &d);
        return n > 0 ? queue_pid_text(s, d, n, qn) : n < 0;
    }
    /* The task folder stays open and is listed again from its start; each
     * thread's children file stays open while the thread lives. */
    int tfd = e->task_fd;
    if (tfd < 0 || lseek(tfd, 0, SEEK_SET) != 0) {
        gt_kept_close(s, &e->task_fd);
        snprintf(rel, sizeof rel, "%d/task", (int)pid);
        tfd = e->task_fd = gt_kept_open_at(s, gt_procfs_root(s->fs), rel, O_DIRECTORY);
        if (tfd < 0)
            tfd = gt_procfs_note_open(s->fs,
                                      openat(gt_procfs_root(s->fs), rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (tfd < 0)
            return 1;
    }
    thread_walk tw = {s, e, tfd, 0, qn, 0};
    int rc = gt_procfs_each_pid(tfd, on_thread, &tw) < 0 ? -1 : 0;
    uint32_t w = tw.w;
    int unread = tw.unread;
    /* Files of threads that have exited. */
    for (uint32_t k = w; k < e->ntf; k++)
        gt_kept_close(s, &e->tf[k].fd);
    e->ntf = w;
    if (tfd != e->task_fd)
        close(tfd);
    return rc ? rc : unread;
}

typedef struct scan_walk {
    gt_sampler *s;
    int dfd;
    pid_t parent;
    size_t *qn;
} scan_walk;

static int on_scanned(void *ctx, const char *name)
{
    scan_walk *sw = ctx;
    char rel[40];
    snprintf(rel, sizeof rel, "%.20s/stat", name);
    const char *d;
    ssize_t n = gt_procfs_read_small(sw->s->fs, sw->dfd, rel, &d);
    gt_proc_stat ps;
    if (n > 0 && gt_parse_stat(d, (size_t)n, &ps) == 0 && ps.ppid == sw->parent)
        return push_pid(sw->s, sw->qn, ps.pid);
    return 0;
}

/* Without CONFIG_PROC_CHILDREN: one pass over /proc, parent links by stat. */
static int queue_children_by_scan(gt_sampler *s, pid_t parent, size_t *qn)
{
    int dfd = gt_procfs_note_open(s->fs, openat(gt_procfs_root(s->fs), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd < 0)
        return 1;
    scan_walk sw = {s, dfd, parent, qn};
    int rc = gt_procfs_each_pid(dfd, on_scanned, &sw) < 0 ? -1 : 0;
    close(dfd);
    return rc;
}

int gt_children_queue(gt_sampler *s, proc_entry *e, size_t *qn)
{
    e->kids_at = *qn;
    int rc = gt_procfs_has_children(s->fs) ? queue_children(s, e, qn)
                                           : queue_children_by_scan(s, e->pid, qn);
    e->nkids = *qn - e->kids_at;
    e->kids_unread = rc > 0; /* an incomplete list is never reused */
    s->read_failed |= rc > 0;
    return rc < 0 ? -1 : 0;
}
