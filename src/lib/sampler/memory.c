/* SPDX-License-Identifier: MIT */
/* The memory figures of a sample: see memory.h. */
#include "sampler/memory.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc/parse.h"
#include "sampler/kept.h"
#include "sampler/walk.h"
#include "sampler/walk_due.h"

static void on_mapping(void *ctx, const char *path, size_t path_len, uint64_t priv,
                       uint64_t shared)
{
    gt_sampler *s = ctx;
    proc_entry *e = s->smaps_target;
    if (!e)
        return;
    s->smaps_private += priv;
    s->smaps_shared += shared;
    uint32_t id;
    if (gt_paths_intern(s->paths, path, path_len, &id) != 0) {
        s->smaps_target = NULL; /* out of memory: give up on this process */
        e->paths_valid = 0;
        return;
    }
    /* psutil groups a process's mappings by path; sum within the process. */
    for (uint32_t i = 0; i < e->npaths; i++)
        if (e->paths[i].id == id) {
            e->paths[i].shared += shared;
            return;
        }
    size_t cap = e->cap;
    if (grow((void **)&e->paths, &cap, (size_t)e->npaths + 1, sizeof *e->paths) != 0) {
        s->smaps_target = NULL;
        e->paths_valid = 0;
        return;
    }
    e->cap = (uint32_t)cap;
    e->paths[e->npaths++] = (path_use){id, shared};
}

/* Per-path shared memory from smaps, and the process's totals. */
static void read_paths(gt_sampler *s, int dirfd, proc_entry *e)
{
    const char *d;
    ssize_t n = gt_procfs_read(s->fs, dirfd, "smaps", &d);
    e->npaths = 0;
    if (n < 0)
        return;
    e->paths_valid = 1;
    s->smaps_target = e;
    s->smaps_private = s->smaps_shared = 0;
    if (gt_parse_smaps(d, (size_t)n, on_mapping, s) != 0)
        e->paths_valid = 0;
    s->smaps_target = NULL;
    /* Totals from the same read as the paths, so that main, descendants and
     * combined describe one instant (smaps_rollup was read a moment ago). */
    if (e->paths_valid) {
        e->private_rss = s->smaps_private;
        e->shared_rss = s->smaps_shared;
    }
}

static double thread_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return gt_ts_seconds(&t);
}

/* Whether the split of a process unchanged since its last walk is due
 * for a refresh: all the members' refreshes together within a tenth of
 * the walk budget (see walk_due.h). */
static int refresh_due(const gt_sampler *s, const proc_entry *e)
{
    double members = s->cur.n ? (double)s->cur.n : 1;
    return gt_walk_refresh_due(s->now - e->walk_t, e->walk_cost * members, s->walk_budget, s->idle_refresh);
}

/* Whether a page-table walk may run now: always for a process never
 * walked (or walked without the per-path data now needed), otherwise while
 * the budget has CPU time left. */
static int may_walk(const gt_sampler *s, const proc_entry *e, uint64_t rss)
{
    if (!e->walked || (s->need_paths && !e->walked_paths))
        return 1;
    /* Pages move between private and shared when they are mapped or
     * unmapped, or when the processes that map them come and go: while its
     * RSS and the tree's members are as at its last walk, the split stands
     * until the refresh for what others can change. */
    if (s->same_members && rss == e->walk_rss && !refresh_due(s, e))
        return 0;
    return s->walk_allowance > 0;
}

/* The private/shared split by walking the page tables: smaps_rollup, or
 * smaps where shared memory must be combined per path.  Costs time in
 * proportion to the process's mappings and RSS (and holds its mmap lock). */
static int walk_memory(gt_sampler *s, int dirfd, proc_entry *e)
{
    double t0 = thread_cpu_now();
    const char *d;
    gt_mem_rollup r;
    int ok = 0;
    e->npaths = 0;
    e->paths_valid = 0;
    e->mem_denied = 0;
    if (gt_procfs_has_rollup(s->fs)) {
        ssize_t n = gt_procfs_read_small(s->fs, dirfd, "smaps_rollup", &d);
        /* Another user's process, or a setuid one: status is readable, its
         * memory map is not; the figures are unavailable, not 0. */
        if (n < 0 && (errno == EACCES || errno == EPERM))
            e->mem_denied = errno;
        if (n > 0 && gt_parse_smaps_rollup(d, (size_t)n, &r) == 0) {
            e->private_rss = r.private_clean + r.private_dirty;
            e->shared_rss = r.shared_clean + r.shared_dirty;
            ok = 1;
        }
    }
    if (s->need_paths || !gt_procfs_has_rollup(s->fs)) {
        read_paths(s, dirfd, e);
        ok = e->paths_valid;
    }
    double cost = thread_cpu_now() - t0;
    /* Only a complete walk stands in for the ones skipped later. */
    if (ok) {
        e->walked = 1;
        e->walked_paths = s->need_paths;
        e->walk_shared = e->shared_rss;
        e->walk_cost = cost;
    }
    s->walk_allowance -= cost;
    return ok;
}

/* Reads a process's status through a descriptor kept while it lives and
 * the fd budget allows; -1 when it is gone. */
static ssize_t read_status(gt_sampler *s, proc_entry *e, const char **d)
{
    char rel[40];
    ssize_t n = e->status_fd >= 0 ? gt_procfs_pread(s->fs, e->status_fd, d) : -1;
    if (n > 0)
        return n;
    /* Not kept yet, or its process exited (the PID may be another's now:
     * the stat read of this sample said it is the same one). */
    gt_kept_close(s, &e->status_fd);
    snprintf(rel, sizeof rel, "%d/status", (int)e->pid);
    e->status_fd = gt_kept_open(s, rel);
    return e->status_fd >= 0 ? gt_procfs_pread(s->fs, e->status_fd, d)
                             : gt_procfs_read_small(s->fs, gt_procfs_root(s->fs), rel, d);
}

/* Reads the memory figures of one process.  The total is the kernel's
 * VmRSS at every read; the split comes from a fresh page-table walk when
 * the budget allows one, otherwise shared is the last walk's (at most the
 * total) and private the rest, so private + shared = total always. */
static int read_memory(gt_sampler *s, proc_entry *e)
{
    e->private_rss = e->shared_rss = e->hwm = 0;
    e->hwm_ok = 0;
    if (e->state == 'Z' || e->state == 'X') {
        /* A zombie, or a process gone before its folder opens, holds no
         * memory: its empty path list is exact, so the others' shared
         * memory is still counted once per path (only a read cut short
         * mid-way is unknown).  Its CPU times are final, though. */
        e->npaths = 0;
        e->paths_valid = 1;
        e->mem_denied = 0;
        e->mem_read = 1;
        return 0;
    }
    const char *d;
    uint64_t rss = 0;
    int have_rss = 0;
    ssize_t n = read_status(s, e, &d);
    e->mem_read = n >= 0;
    if (n < 0) { /* gone, or a failed read: not to be reused as its figures */
        s->read_failed = 1;
        e->npaths = 0;
        e->paths_valid = 1;
        e->mem_denied = 0;
        return 0;
    }
    if (n > 0) {
        if (gt_parse_status_hwm(d, (size_t)n, &e->hwm) == 0)
            e->hwm_ok = e->hwm > 0;
        if (gt_parse_status_rss(d, (size_t)n, &rss, &have_rss) != 0)
            have_rss = 0;
    }
    int walk = !have_rss || may_walk(s, e, rss);
    /* The folder is opened only for a walk, which reads several files. */
    int dirfd = walk ? gt_procfs_open_pid(s->fs, e->pid) : -1;
    int walked = dirfd >= 0 && walk_memory(s, dirfd, e);
    if (walked) {
        e->walk_rss = have_rss ? rss : UINT64_MAX; /* no RSS to compare with: walk again */
        e->walk_t = s->now;
    }
    /* A walk cut short (the process exiting) leaves the last one's split. */
    if (!walked && have_rss && e->walked) {
        e->shared_rss = e->walk_shared < rss ? e->walk_shared : rss;
        e->private_rss = rss - e->shared_rss;
    }
    e->mem_read = walked || (have_rss && e->walked);
    s->read_failed |= !e->mem_read;
    if (dirfd >= 0)
        close(dirfd);
    return !walk;
}

/* Moves the last sample's walk (its per-path data, split and when it was
 * taken) from p to e; mem_denied stands until a walk says otherwise. */
static void take_last_walk(proc_entry *e, proc_entry *p)
{
    e->paths = p->paths;
    e->cap = p->cap;
    e->npaths = p->npaths;
    e->paths_valid = p->paths_valid;
    e->walked = p->walked;
    e->walked_paths = p->walked_paths;
    e->walk_shared = p->walk_shared;
    e->walk_rss = p->walk_rss;
    e->walk_t = p->walk_t;
    e->walk_cost = p->walk_cost;
    e->mem_denied = p->mem_denied;
    p->paths = NULL;
    p->npaths = p->cap = 0;
}

void gt_memory_read(gt_sampler *s)
{
    int same_members = s->cur.n == s->prev.n;
    for (size_t i = 0; same_members && i < s->cur.n; i++)
        same_members = s->cur.v[i].pid == s->prev.v[i].pid &&
                       s->cur.v[i].starttime == s->prev.v[i].starttime;
    s->same_members = same_members;
    /* The walks' budget refills with wall time, at most one second's worth
     * saved up; a round starts where the last one ran out of budget, so
     * every process gets its turn. */
    s->walk_allowance += (s->read_mono - s->walk_refill_t) * s->walk_budget;
    if (s->walk_allowance > s->walk_budget)
        s->walk_allowance = s->walk_budget;
    s->walk_refill_t = s->read_mono;
    size_t start = s->cur.n ? s->walk_next % s->cur.n : 0, denied = SIZE_MAX;
    for (size_t k = 0; k < s->cur.n; k++) {
        size_t i = (start + k) % s->cur.n;
        proc_entry *e = &s->cur.v[i];
        proc_entry *p = gt_walk_prev(s, e);
        int same = p && same_members && p->mem_read && p->paths_valid == s->need_paths &&
                   !memcmp(p->activity, e->activity, sizeof e->activity) && p->state == e->state &&
                   !s->closing && !(p->walked && refresh_due(s, p));
        if (p) /* the last walk's figures, until the next walk */
            take_last_walk(e, p);
        if (same) {
            e->private_rss = p->private_rss;
            e->shared_rss = p->shared_rss;
            e->hwm = p->hwm;
            e->hwm_ok = p->hwm_ok;
            e->mem_read = 1;
            continue;
        }
        if (read_memory(s, e) && denied == SIZE_MAX)
            denied = i;
    }
    s->walk_next = denied == SIZE_MAX ? start : denied;
}

int gt_memory_path_scratch(gt_sampler *s)
{
    size_t need = gt_paths_count(s->paths);
    size_t cap = s->max_cap, c2 = s->max_cap;
    if (need <= cap)
        return 0;
    if (grow((void **)&s->max_desc, &cap, need, sizeof *s->max_desc) != 0 ||
        grow((void **)&s->max_comb, &c2, need, sizeof *s->max_comb) != 0)
        return -1;
    memset(s->max_desc + s->max_cap, 0, (cap - s->max_cap) * sizeof *s->max_desc);
    memset(s->max_comb + s->max_cap, 0, (cap - s->max_cap) * sizeof *s->max_comb);
    s->max_cap = cap;
    return 0;
}

/* Shared memory of the descendants and of main+descendants with a path
 * mapped by several processes counted once (its largest share), as the
 * Python package does. */
static void dedup_shared(gt_sampler *s, uint64_t *desc_shared, uint64_t *comb_shared)
{
    for (size_t i = 0; i < s->cur.n; i++) {
        proc_entry *e = &s->cur.v[i];
        for (uint32_t k = 0; k < e->npaths; k++) {
            uint32_t id = e->paths[k].id;
            uint64_t v = e->paths[k].shared;
            if (v > s->max_comb[id])
                s->max_comb[id] = v;
            if (!e->is_main && v > s->max_desc[id])
                s->max_desc[id] = v;
        }
    }
    /* Paths are few (hundreds) and stable: a pass over all is cheap. */
    uint64_t d = 0, c = 0;
    size_t n = gt_paths_count(s->paths);
    for (size_t id = 0; id < n; id++) {
        d += s->max_desc[id];
        c += s->max_comb[id];
        s->max_desc[id] = s->max_comb[id] = 0;
    }
    *desc_shared = d;
    *comb_shared = c;
}

void gt_memory_sum(gt_sampler *s, gt_sample *out, size_t n_desc)
{
    uint64_t desc_priv = 0, desc_shared_sum = 0;
    int all_paths = 1;
    s->desc_alive = 0;
    for (size_t i = 0; i < s->cur.n; i++) {
        proc_entry *e = &s->cur.v[i];
        int threads = gt_walk_counted_threads(s, e);
        if (e->is_main) {
            out->main.private_rss = e->private_rss;
            out->main.shared_rss = e->shared_rss;
            out->main_n_threads = threads;
            out->main_hwm = e->hwm;
            out->main_hwm_exact = e->hwm_ok;
            out->main_mem_denied = e->mem_denied;
            if (e->mem_denied && !out->mem_denied_pid)
                out->mem_denied_pid = e->pid;
        } else {
            s->desc_alive += e->state != 'Z' && e->state != 'X';
            if (e->mem_denied && !out->descendants_mem_denied) {
                out->descendants_mem_denied = e->mem_denied;
                if (!out->mem_denied_pid)
                    out->mem_denied_pid = e->pid;
            }
            desc_priv += e->private_rss;
            desc_shared_sum += e->shared_rss;
            out->descendants_n_threads += threads;
            if (e->hwm > s->desc_hwm_max)
                s->desc_hwm_max = e->hwm;
        }
        if (!e->paths_valid && n_desc > 0)
            all_paths = 0;
    }
    out->descendants.private_rss = desc_priv;
    out->combined.private_rss = desc_priv + out->main.private_rss;
    if (n_desc > 0 && all_paths) {
        dedup_shared(s, &out->descendants.shared_rss, &out->combined.shared_rss);
    } else {
        /* No per-path data (process vanished mid-read): an upper bound. */
        out->descendants.shared_rss = desc_shared_sum;
        out->combined.shared_rss = desc_shared_sum + out->main.shared_rss;
    }
    out->combined_n_threads = out->main_n_threads + out->descendants_n_threads;
    out->descendants_max_hwm = s->desc_hwm_max;
    if (s->exits) {
        /* A record is the process's VmHWM at its very end; the samples'
         * figures of live processes are exact at this instant. */
        int complete = gt_exit_peaks_complete(s->exits);
        uint64_t xm = gt_exit_peaks_main(s->exits), xd = gt_exit_peaks_descendants(s->exits);
        if (xm > out->main_hwm)
            out->main_hwm = xm;
        if (xd > out->descendants_max_hwm)
            out->descendants_max_hwm = xd;
        out->main_hwm_exact |= complete && xm > 0;
        out->descendants_hwm_exact = complete;
    }
}
