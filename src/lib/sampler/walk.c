/* SPDX-License-Identifier: MIT */
/* The walk of the tree: see walk.h. */
#include "sampler/walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "proc/parse.h"
#include "sampler/children.h"
#include "sampler/kept.h"
#include "sampler/probes.h"

/* The id clock_getcpuclockid() gives for pid's whole-process CPU time
 * (Linux: ~pid << 3 | CPUCLOCK_SCHED), without the system call it spends
 * checking that pid exists: the read that follows tells. */
static clockid_t process_clock(pid_t pid)
{
    return (clockid_t)((~(unsigned)pid << 3) | 2u);
}

/* Reads a process's CPU clock into e->clock_ns; 0 when it cannot be read.
 * Read before stat: a stat read that then succeeds through a kept
 * descriptor proves the process was the same one when its clock was read.
 * One system call, no permission needed, every thread live or exited in
 * nanoseconds (see cpu_flow.h for how late it can be). */
static int read_clock(gt_sampler *s, proc_entry *e)
{
    struct timespec clk, t;
    if (e->is_main) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        s->read_mono_main = gt_ts_seconds(&t);
    }
    int have_clk = s->use_clock && clock_gettime(process_clock(e->pid), &clk) == 0;
    e->clock_ns = have_clk ? (uint64_t)clk.tv_sec * 1000000000u + (uint64_t)clk.tv_nsec : 0;
    e->cpu = have_clk ? gt_ts_seconds(&clk) : 0;
    if (e->is_main) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        s->read_mono = gt_ts_seconds(&t);
        if (s->self_tracking)
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &s->self_thread_cpu);
    }
    return have_clk;
}

/* Reads a process's stat into e (through its kept fd when it has one),
 * its CPU time from the clock read_clock() read when have_clk; returns -1
 * if it is gone. */
static int read_stat(gt_sampler *s, proc_entry *e, int have_clk)
{
    char rel[32];
    const char *d;
    ssize_t n = -1;
    snprintf(rel, sizeof rel, "%d/stat", (int)e->pid);
    if (e->stat_fd >= 0)
        n = gt_procfs_pread(s->fs, e->stat_fd, &d);
    if (n <= 0) {
        /* No kept fd yet, or the process it referred to has exited (the
         * PID may now belong to a new process: open afresh). */
        gt_kept_release(s, e);
        e->stat_fd = gt_kept_open(s, rel);
        n = e->stat_fd >= 0 ? gt_procfs_pread(s->fs, e->stat_fd, &d)
                            : gt_procfs_read_small(s->fs, gt_procfs_root(s->fs), rel, &d);
    }
    gt_proc_stat ps;
    if ((n <= 0 || gt_parse_stat(d, (size_t)n, &ps) != 0) && e->is_main) {
        /* The main process is declared gone only if a fresh open fails too:
         * one failed read must not end the tracking of a live command. */
        gt_kept_release(s, e);
        n = gt_procfs_read(s->fs, gt_procfs_root(s->fs), rel, &d);
    }
    if (n <= 0 || gt_parse_stat(d, (size_t)n, &ps) != 0)
        return -1;
    e->starttime = ps.starttime;
    if (!have_clk)
        e->cpu = (double)(ps.utime + ps.stime) / (double)s->hz;
    e->cpu_from_clock = have_clk;
    e->ccpu = (double)(ps.cutime + ps.cstime) / (double)s->hz;
    e->threads = ps.num_threads;
    e->state = ps.state;
    e->ppid = ps.ppid;
    memcpy(e->comm, ps.comm, sizeof e->comm);
    e->activity[0] = ps.minflt + ps.majflt;
    e->activity[1] = ps.rss_pages;
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    const proc_entry *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static proc_entry *find_prev_pid(gt_sampler *s, pid_t pid)
{
    if (s->prev.n == 0)
        return NULL;
    proc_entry key = {.pid = pid};
    return bsearch(&key, s->prev.v, s->prev.n, sizeof key, cmp_entry);
}

/* find_prev_pid() trying *next first: a tree that did not change is walked
 * in much the order of the last (sorted) list, so the entry after the one
 * found last is usually the one sought. */
static proc_entry *find_prev_near(gt_sampler *s, pid_t pid, size_t *next)
{
    proc_entry *p = *next < s->prev.n && s->prev.v[*next].pid == pid ? &s->prev.v[*next]
                                                                       : find_prev_pid(s, pid);
    if (p)
        *next = (size_t)(p - s->prev.v) + 1;
    return p;
}

proc_entry *gt_walk_prev(gt_sampler *s, const proc_entry *e)
{
    return e->prev_i ? &s->prev.v[e->prev_i - 1] : NULL;
}

/* The state of one walk of the tree. */
typedef struct walk {
    size_t qn;        /* PIDs queued */
    size_t matched;   /* members of the last sample found again */
    size_t skipped;   /* members (or the root) whose children were not read */
    int root_skipped; /* the root's were not */
    int orphans;      /* a member became a zombie: its children moved */
    size_t sorted_n;  /* completing: cur[0..sorted_n) sorted and visited */
    size_t prev_next; /* where in the last list the next look-up starts */
} walk;

/* Whether a process's stat and children can be taken from the last sample
 * (p) instead of read: its CPU clock has not moved since, so it has not run,
 * and all that only it can change (threads, state, faults, cutime, its
 * own children: a fork by any thread runs and moves the clock) is as it
 * was.  What others can change is bounded: its RSS may fall while it sleeps
 * (reclaim, swap, a mapped file truncated) or rise by another's hand
 * (process_vm_writev, ptrace, khugepaged), and a subreaper's children may
 * change by adoption, so an idle process is read afresh every idle_refresh
 * seconds; and when a member exited (its children moved) the children of
 * every idle one are read again (complete_walk()). */
static int idle_since(const gt_sampler *s, const proc_entry *p, const proc_entry *e)
{
    return !s->full_walk && !p->kids_unread && p->cpu_from_clock && p->clock_ns == e->clock_ns &&
           s->now - p->full_t < s->idle_refresh;
}

/* Whether the children of a process that ran (or of the root) can be
 * taken from the last sample (last): no task was created since the last
 * sample's start (no PID given out in this PID namespace, where every
 * member and every task it creates has one), so none of its threads forked
 * and it has no new thread.  The children it can lose meanwhile show as
 * members gone, after which complete_walk() reads them again; a thread that
 * exits leaves its children to another thread of the same process.  Read
 * afresh every idle_refresh seconds like an idle process's. */
static int kids_stand(const gt_sampler *s, const proc_entry *last, const proc_entry *e, int is_root)
{
    return s->no_new_tasks && last && last->full_t > 0 && !last->kids_unread &&
           (is_root || last->starttime == e->starttime) && s->now - last->full_t < s->idle_refresh;
}

/* Queues the children last had at the last sample as e's, which are then
 * read again if a member turns out gone (complete_walk()). */
static int reuse_kids(gt_sampler *s, proc_entry *e, const proc_entry *last, walk *w)
{
    e->skipped = 1;
    w->skipped++;
    e->full_t = last->full_t;
    e->kids_at = w->qn;
    for (size_t k = 0; k < last->nkids; k++)
        if (gt_queue_push(s, &w->qn, s->prev_queue[last->kids_at + k].pid, 1) != 0)
            return -1;
    e->nkids = w->qn - e->kids_at;
    return 0;
}

/* Takes an idle process's figures from the last sample, and queues the
 * children it had then. */
static int reuse_idle(gt_sampler *s, proc_entry *e, proc_entry *p, walk *w)
{
    e->starttime = p->starttime;
    e->cpu = p->cpu;
    e->cpu_from_clock = 1;
    e->ccpu = p->ccpu;
    e->threads = p->threads;
    e->state = p->state;
    e->ppid = p->ppid;
    memcpy(e->comm, p->comm, sizeof e->comm);
    memcpy(e->activity, p->activity, sizeof e->activity);
    return reuse_kids(s, e, p, w);
}

static int is_dead(char state)
{
    return state == 'Z' || state == 'X';
}

int gt_walk_read_self_root(proc_entry *e)
{
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
        return -1;
    e->ccpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
              (double)ru.ru_stime.tv_usec / 1e6;
    e->state = 'R';
    e->threads = 2; /* at least the caller's and the sampling thread: list them */
    return 0;
}

/* Keeps the root's files and children list for the next sample. */
static void keep_root(gt_sampler *s, proc_entry *e, int read)
{
    gt_kept_move(&s->root_files, e);
    s->root_files.pid = e->pid;
    s->root_files.threads = e->threads;
    s->root_files.kids_at = e->kids_at;
    s->root_files.nkids = e->nkids;
    s->root_files.kids_unread = e->kids_unread;
    s->root_files.full_t = read ? e->full_t : 0;
}

/* Visits one queued PID: reads its clock, then its stat and children unless
 * it is idle (idle_since()), and adds it to this sample's members. */
static int visit(gt_sampler *s, queued q, walk *w)
{
    proc_list *cur = &s->cur;
    pid_t pid = q.pid;
    proc_entry key = {.pid = pid};
    if (w->sorted_n && bsearch(&key, cur->v, w->sorted_n, sizeof key, cmp_entry))
        return 0; /* completing the walk: already a member */
    if (grow((void **)&cur->v, &cur->cap, cur->n + 1, sizeof *cur->v) != 0)
        return -1;
    proc_entry *e = &cur->v[cur->n];
    memset(e, 0, sizeof *e);
    e->pid = pid;
    e->is_main = pid == s->main_pid;
    gt_kept_none(e);
    int is_root_only = pid == s->root && s->root != s->main_pid;
    /* Tracking an ancestor of this process: the tracker is never one
     * of the tracked (nor what it runs, e.g. the metrics thread). */
    if (pid == s->self_pid && !s->self_tracking && !is_root_only)
        return 0;
    proc_entry *p = find_prev_near(s, pid, &w->prev_next);
    /* Whose children at the last sample stand for this one's if none can be new. */
    const proc_entry *last = is_root_only ? &s->root_files : p;
    if (is_root_only)
        gt_kept_move(e, &s->root_files);
    else if (p) /* its open files move to this sample's entry */
        gt_kept_move(e, p);
    int have_clk = !is_root_only && read_clock(s, e); /* the root's CPU is not counted */
    int rc = 0;
    int idle = p && have_clk && !is_root_only && idle_since(s, p, e);
    if (idle) {
        rc = reuse_idle(s, e, p, w);
    } else {
        /* Gone: its children were re-parented and show up elsewhere.  One
         * listed by an idle parent's kept list must be the process seen
         * then: a new one with its PID is no member. */
        int self_root = is_root_only && pid == s->self_pid && s->use_clock;
        if ((self_root ? gt_walk_read_self_root(e) : read_stat(s, e, have_clk)) != 0 ||
            (q.from_kept && (!p || p->starttime != e->starttime))) {
            gt_kept_release(s, e);
            if (is_root_only)
                keep_root(s, e, 0);
            s->read_failed = 1;
            return 0;
        }
        if (is_root_only)
            s->root_ccpu_now = e->ccpu;
        if (kids_stand(s, last, e, is_root_only)) {
            rc = reuse_kids(s, e, last, w);
            w->root_skipped |= is_root_only;
        } else {
            e->full_t = s->now;
            rc = gt_children_queue(s, e, &w->qn);
        }
    }
    int same = p && p->starttime == e->starttime;
    if (!is_root_only)
        gt_probes_read(s, e, same ? p : NULL, idle);
    if (same)
        e->prev_i = (size_t)(p - s->prev.v) + 1;
    if (same && !p->matched) {
        p->matched = 1;
        w->matched++;
    }
    if (is_dead(e->state) && !(same && is_dead(p->state)))
        w->orphans = 1;
    if (is_root_only) /* the launcher itself is not tracked */
        keep_root(s, e, 1);
    else
        cur->n++;
    return rc;
}

/* After a member exited or became a zombie, its children belong to a
 * subreaper, which may be a member whose children were taken from the last
 * sample, or the root: their children are read now, and the new ones
 * visited. */
static int complete_walk(gt_sampler *s, walk *w)
{
    proc_list *cur = &s->cur;
    qsort(cur->v, cur->n, sizeof *cur->v, cmp_entry);
    w->sorted_n = cur->n;
    size_t from = w->qn;
    for (size_t i = 0; i < w->sorted_n; i++) {
        proc_entry *e = &cur->v[i];
        if (e->skipped && gt_children_queue(s, e, &w->qn) != 0)
            return -1;
        e->skipped = 0;
    }
    if (w->root_skipped) { /* the root adopts orphans too */
        if (gt_children_queue(s, &s->root_files, &w->qn) != 0)
            return -1;
        s->root_files.full_t = s->now;
        w->root_skipped = 0;
    }
    for (size_t qi = from; qi < w->qn; qi++)
        if (visit(s, s->queue[qi], w) != 0)
            return -1;
    return 0;
}

int gt_walk_discover(gt_sampler *s)
{
    walk w = {0};
    s->cur.n = 0;
    if (gt_queue_push(s, &w.qn, s->root, 0) != 0)
        return -1;
    for (size_t qi = 0; qi < w.qn; qi++)
        if (visit(s, s->queue[qi], &w) != 0)
            return -1;
    if (w.skipped && (w.matched < s->prev.n || w.orphans))
        return complete_walk(s, &w);
    return 0;
}

int gt_walk_is_member(void *ctx, pid_t pid)
{
    gt_sampler *s = ctx;
    proc_entry key = {.pid = pid};
    return (s->cur.n && bsearch(&key, s->cur.v, s->cur.n, sizeof key, cmp_entry)) ||
           find_prev_pid(s, pid) != NULL;
}

int gt_walk_still_alive(gt_sampler *s, const proc_entry *p)
{
    int dirfd = gt_procfs_open_pid(s->fs, p->pid);
    if (dirfd < 0)
        return 0;
    const char *d;
    gt_proc_stat ps;
    ssize_t n = gt_procfs_read_small(s->fs, dirfd, "stat", &d);
    close(dirfd);
    return n > 0 && gt_parse_stat(d, (size_t)n, &ps) == 0 && ps.starttime == p->starttime &&
           ps.state != 'Z';
}

static int sorted_by_pid(const proc_list *l)
{
    for (size_t i = 1; i < l->n; i++)
        if (l->v[i - 1].pid > l->v[i].pid)
            return 0;
    return 1;
}

void gt_walk_drop_duplicates(gt_sampler *s)
{
    if (!sorted_by_pid(&s->cur))
        qsort(s->cur.v, s->cur.n, sizeof *s->cur.v, cmp_entry);
    size_t w = 0;
    for (size_t i = 0; i < s->cur.n; i++) {
        proc_entry *e = &s->cur.v[i];
        if (w > 0 && s->cur.v[w - 1].pid == e->pid) {
            /* A new process under a reused PID: its predecessor was not
             * found again after all, unless the entry kept is it. */
            if (e->prev_i && e->prev_i != s->cur.v[w - 1].prev_i)
                s->prev.v[e->prev_i - 1].matched = 0;
            gt_kept_release(s, e);
            continue;
        }
        if (w != i) /* a copy onto itself would still cost a memmove */
            s->cur.v[w] = *e;
        w++;
    }
    s->cur.n = w;
}

int gt_walk_counted_threads(const gt_sampler *s, const proc_entry *e)
{
    int threads = is_dead(e->state) ? 0 : e->threads;
    return threads - (e->is_main && s->self_tracking && threads ? 1 : 0);
}

void gt_walk_rotate(gt_sampler *s)
{
    for (size_t i = 0; i < s->prev.n; i++)
        gt_kept_release(s, &s->prev.v[i]);
    proc_list tmp = s->prev;
    s->prev = s->cur;
    s->cur = tmp;
    s->cur.n = 0;
    queued *q = s->prev_queue; /* holds the children lists of idle members */
    size_t qcap = s->prev_queue_cap;
    s->prev_queue = s->queue;
    s->prev_queue_cap = s->queue_cap;
    s->queue = q;
    s->queue_cap = qcap;
}
