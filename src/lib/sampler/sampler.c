/* SPDX-License-Identifier: MIT */
#include "sampler/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proc/parse.h"
#include "proc/procfs.h"
#include "sampler/cpu_window.h"
#include "sampler/exit_peaks.h"
#include "sampler/children.h"
#include "sampler/gpu_attribution.h"
#include "sampler/kept.h"
#include "sampler/memory.h"
#include "sampler/paths.h"
#include "sampler/processes.h"
#include "sampler/sampler_state.h"
#include "sampler/system.h"
#include "sampler/walk.h"
#include "sampler/walk_due.h"
#include "util/error.h"
#include "util/grow.h"

/* Window of the CPU percents, seconds: one tick per running thread is 2 %
 * of it at HZ=250 (5 % at HZ=100), a reaped child's rounding 5 %. */
#define CPU_WINDOW_SPAN 0.25

/* Whether the CPU clock of another process can be read here: the tree is
 * the live /proc (a fixture's PIDs are not processes) and the kernel
 * answers for this process's clock. */
static int clocks_usable(const char *proc_root)
{
    clockid_t id;
    struct timespec t;
    return (!proc_root || strcmp(proc_root, "/proc") == 0) &&
           clock_getcpuclockid(getpid(), &id) == 0 && clock_gettime(id, &t) == 0;
}

/* Keeps an exit record of the tree for gt_sampler_exits. */
static void keep_exit(void *ctx, const gt_exit_record *r)
{
    gt_sampler *s = ctx;
    if (s->n_taken == s->taken_cap &&
        gt_grow_array((void **)&s->taken, &s->taken_cap, s->n_taken + 1, 64, sizeof *s->taken) != 0) {
        s->taken_short = 1;
        return;
    }
    s->taken[s->n_taken++] = *r;
}

gt_status gt_sampler_new(const gt_sampler_config *cfg, gt_sampler **out, gt_error *err)
{
    *out = NULL;
    gt_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    s->main_pid = cfg->main_pid;
    s->root = cfg->tree_root ? cfg->tree_root : cfg->main_pid;
    s->self_pid = getpid();
    s->self_tracking = cfg->main_pid == s->self_pid;
    s->gpu = cfg->gpu;
    s->meminfo_fd = s->stat_fd = s->loadavg_fd = -1;
    s->fd_budget = gt_kept_budget();
    s->use_clock = clocks_usable(cfg->proc_root);
    gt_cpu_window_init(&s->window, CPU_WINDOW_SPAN);
    s->walk_budget = GT_SAMPLER_WALK_BUDGET;
    s->idle_refresh = GT_SAMPLER_IDLE_REFRESH;
    s->system_period = GT_SAMPLER_SYSTEM_PERIOD;
    s->root_files.stat_fd = s->root_files.children_fd = s->root_files.task_fd = -1;
    s->root_files.status_fd = -1;
    s->hz = sysconf(_SC_CLK_TCK);
    if (s->hz <= 0)
        s->hz = 100;
    s->launched = cfg->tree_root == s->self_pid && cfg->main_pid != s->self_pid;
    struct timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    s->prev_boot_ticks = ts_seconds(&boot) * (double)s->hz;
    /* The root's reaped children until now are not the command's (the
     * first sample's root reading is the baseline otherwise). */
    if (s->root != s->main_pid) {
        proc_entry e = {0};
        s->prev_root_ccpu = s->root == s->self_pid && s->use_clock && gt_walk_read_self_root(&e) == 0 ? e.ccpu : -1;
    }
    gt_status st = gt_procfs_open(cfg->proc_root, &s->fs, err);
    if (st == GT_OK && !(s->paths = gt_paths_new()))
        st = gt_err(err, GT_ERR_NOMEM, "out of memory");
    uint64_t used;
    int e = st == GT_OK ? gt_system_read(s, &used, &s->ncores) : 0;
    if (e)
        st = gt_err(err, GT_ERR_SYS, "cannot read /proc/meminfo and /proc/stat: %s", strerror(e));
    if (st != GT_OK) {
        gt_sampler_free(&s);
        return st;
    }
    /* Registered before the command starts, so no exit escapes.  Without
     * the privilege the peaks are sampled, and the report says so. */
    gt_error xe;
    if (cfg->exit_records && gt_exit_peaks_open(s->main_pid, s->root, s->self_pid, &s->exits, &xe) == GT_OK)
        gt_exit_peaks_on_taken(s->exits, keep_exit, s);
    *out = s;
    return GT_OK;
}

void gt_sampler_set_walk_budget(gt_sampler *s, double share_of_core)
{
    if (share_of_core > 0)
        s->walk_budget = share_of_core;
}

void gt_sampler_set_idle_refresh(gt_sampler *s, double seconds)
{
    if (seconds >= 0)
        s->idle_refresh = seconds;
}

void gt_sampler_use_clocks(gt_sampler *s)
{
    s->use_clock = clocks_usable(NULL);
}

void gt_sampler_set_system_period(gt_sampler *s, double seconds)
{
    if (seconds >= 0)
        s->system_period = seconds;
}

uint64_t gt_sampler_ram_capacity(const gt_sampler *s) { return s->ram_capacity; }
int gt_sampler_core_count(const gt_sampler *s) { return s->ncores; }
int gt_sampler_main_alive(const gt_sampler *s) { return s->main_alive; }
size_t gt_sampler_descendants_alive(const gt_sampler *s) { return s->desc_alive; }

void gt_sampler_free(gt_sampler **sp)
{
    if (!sp || !*sp)
        return;
    gt_sampler *s = *sp;
    gt_kept_release_list(s, &s->prev);
    gt_kept_release_list(s, &s->cur);
    gt_system_close(s);
    gt_kept_release(s, &s->root_files);
    free(s->queue);
    free(s->prev_queue);
    free(s->pids_main);
    free(s->pids_desc);
    free(s->max_desc);
    free(s->max_comb);
    gt_exit_peaks_close(&s->exits);
    free(s->taken);
    gt_paths_free(&s->paths);
    gt_procfs_close(&s->fs);
    free(s);
    *sp = NULL;
}

/* CPU seconds of the interval since the last sample, added to the running
 * totals.  Each process's delta comes from its own clock; the time of
 * members that exited comes through their reaper's cutime, less what
 * earlier intervals counted (so a total may step back by a tick's
 * rounding, which the window absorbs). */
static void cpu_interval(gt_sampler *s, double thread_cpu, double rccpu)
{
    double main_cpu = 0, desc_cpu = 0;
    int churn = 0;
    for (size_t i = 0; i < s->cur.n; i++) {
        proc_entry *e = &s->cur.v[i];
        proc_entry *p = gt_walk_prev(s, e);
        double dcpu, dccpu;
        if (p && p->cpu_from_clock == e->cpu_from_clock) {
            dcpu = e->cpu - p->cpu;
            dccpu = e->ccpu - p->ccpu;
        } else if (!p && ((double)e->starttime >= s->prev_boot_ticks - 1 || (e->is_main && s->launched))) {
            dcpu = e->cpu; /* born during the interval */
            dccpu = e->ccpu;
            churn = 1;
        } else {
            dcpu = 0; /* first seen now, or its clock changed: baseline only */
            dccpu = p ? e->ccpu - p->ccpu : 0;
        }
        if (e->is_main)
            main_cpu += dcpu;
        else
            desc_cpu += dcpu;
        /* Time of reaped children shows up in their parent's cutime. */
        desc_cpu += dccpu;
        churn |= dccpu != 0;
    }
    /* A member that exited was reaped by a member (or by the root): its
     * final time arrived through cutime above, so take out the part
     * counted in earlier intervals. */
    for (size_t i = 0; i < s->prev.n; i++) {
        proc_entry *p = &s->prev.v[i];
        if (p->matched || p->is_main || gt_walk_still_alive(s, p))
            continue;
        desc_cpu -= p->cpu + p->ccpu;
        churn = 1;
    }
    if (s->prev_root_ccpu >= 0) { /* below 0: unknown before the first sample */
        desc_cpu += rccpu - s->prev_root_ccpu;
        churn |= rccpu != s->prev_root_ccpu;
    }
    if (s->self_tracking && s->have_prev) /* the sampling thread is not tracked */
        main_cpu -= thread_cpu - s->prev_self_thread_cpu;
    s->int_main = main_cpu;
    s->int_desc = desc_cpu;
    s->cum_main += main_cpu;
    s->cum_desc += desc_cpu;
    if (churn)
        s->churn_t = s->read_mono;
}

static double clamp(double v, double hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

/* CPU percents of the interval that ends at a sample: what the kernel
 * reported in it, credited at most at the window's rate (cpu_window.h), or
 * at what could have run while more than ticks' rounding is carried and
 * threads started since the window's start: main by its threads, the
 * descendants by theirs (by all cores when processes came or went, whose
 * threads are unknown), and main + descendants by the cores. */
static void cpu_percents(gt_sampler *s, gt_sample *out, const gt_cpu_point *now, int ncores)
{
    const gt_cpu_point *from = gt_cpu_window_add(&s->window, now);
    double span = from ? now->t - from->t : 0;
    double wall = now->t - s->prev_read_mono;
    /* Until the window spans its length, the rate is tick noise: such a
     * sample has no CPU figures, except the run's last, whose rate over the
     * whole run is the best there is (otherwise a short run reads 0 %). */
    int ready = span >= s->window.span || s->window.n >= GT_CPU_WINDOW_POINTS;
    if (wall <= 0 || !from || (!ready && !(s->closing && span > 0)))
        return;
    /* The first sample with figures covers all the time since the first
     * sample, so the CPU time seen before the window filled belongs to an
     * interval too: its rate is the whole run's (CPU clocks are exact up to
     * one tick per thread over it), and the sum of the intervals' CPU
     * seconds is the kernel's total. */
    int since_first = !s->cpu_seen;
    double dm = s->int_main, dd = s->int_desc;
    gt_cpu_point first = {s->first_mono, 0, 0, 0, 0, s->first_mono_main}; /* cum_main and cum_desc start there */
    if (since_first) {
        from = &first;
        span = wall = now->t - first.t;
        dm = now->main;
        dd = now->desc;
    }
    double cores = ncores > 0 ? ncores : 1;
    double mt = now->main_threads > from->main_threads ? now->main_threads : from->main_threads;
    double dt = now->desc_threads > from->desc_threads ? now->desc_threads : from->desc_threads;
    for (unsigned i = 0; since_first && i < s->window.n; i++) { /* threads at any sample kept */
        const gt_cpu_point *q = &s->window.p[(s->window.head + i) % GT_CPU_WINDOW_POINTS];
        if (q->main_threads > mt)
            mt = q->main_threads;
        if (q->desc_threads > dt)
            dt = q->desc_threads;
    }
    if (s->churn_t > from->t)
        dt = cores;
    /* A thread created and joined between two samples is in no sampled
     * count, but its CPU time is in the group's clock: where a task was
     * created within the span, only the cores bound the rate. */
    if (s->spawn_t > from->t)
        mt = dt = cores;
    double bm = mt < cores ? mt : cores, bd = dt < cores ? dt : cores;
    double rm = clamp((now->main - from->main) / (now->t - from->t_main) + GT_CPU_SLACK, bm);
    double rd = clamp((now->desc - from->desc) / span + GT_CPU_SLACK, bd);
    if (rm + rd > cores) /* the descendants' bound was the looser */
        rd = cores - rm;
    double m = gt_cpu_flow_credit(&s->flow_main, dm, wall, rm,
                                  gt_cpu_payout_bound(from->main_threads, now->main_threads, 0, rm, bm),
                                  bm * GT_CPU_HOLD_PER_CORE);
    if (bd > cores - m / wall) /* main took more than its window's rate */
        bd = cores - m / wall;
    if (rd > bd)
        rd = bd;
    double d = gt_cpu_flow_credit(&s->flow_desc, dd, wall, rd,
                                  gt_cpu_payout_bound(from->desc_threads, now->desc_threads,
                                                      s->churn_t > from->t, rd, bd),
                                  bd * GT_CPU_HOLD_PER_CORE);
    out->cpu_valid = 1;
    out->cpu_since_first = since_first;
    out->cpu_span = wall;
    s->cpu_seen = 1;
    out->cpu_main_sum = m / wall * 100;
    out->cpu_descendants_sum = d / wall * 100;
    out->cpu_combined_sum = out->cpu_main_sum + out->cpu_descendants_sum;
}

gt_status gt_sampler_take_last(gt_sampler *s, gt_sample *out, gt_error *err)
{
    s->closing = 1;
    gt_status st = gt_sampler_take(s, out, err);
    s->closing = 0;
    return st;
}

/* The wall clock less the monotonic one, now: read between two monotonic
 * readings close together, so that a thread preempted between the reads
 * (a loaded machine) does not shift it by the time it waited. */
static double wall_clock_offset(void)
{
    struct timespec m0, real, m1;
    for (int tries = 0;; tries++) {
        clock_gettime(CLOCK_MONOTONIC, &m0);
        clock_gettime(CLOCK_REALTIME, &real);
        clock_gettime(CLOCK_MONOTONIC, &m1);
        double m = (ts_seconds(&m0) + ts_seconds(&m1)) / 2;
        if (ts_seconds(&m1) - ts_seconds(&m0) < 1e-6 || tries == 4)
            return ts_seconds(&real) - m;
    }
}

gt_status gt_sampler_take(gt_sampler *s, gt_sample *out, gt_error *err)
{
    memset(out, 0, sizeof *out);
    if (!s->self_tid)
        s->self_tid = gettid(); /* always the same thread, see sampler.h */
    struct timespec boot;
    double wall_minus_mono = wall_clock_offset();
    clock_gettime(CLOCK_BOOTTIME, &boot);
    s->budget_checked = 0;
    s->read_mono = -1;
    s->self_thread_cpu = (struct timespec){0, 0};
    s->now = ts_seconds(&boot);
    /* The last sample reads everything: the run's final figures are exact. */
    s->full_walk = s->closing || s->read_failed;
    s->read_failed = 0;

    int ncores = s->ncores;
    int fresh = !s->have_prev || s->closing || s->now - s->system_t >= s->system_period;
    if (fresh) {
        int e = gt_system_read(s, &s->system_used, &ncores);
        if (e)
            return gt_err(err, GT_ERR_SYS, "cannot read /proc/meminfo or /proc/stat: %s", strerror(e));
        s->system_t = s->now;
    }
    out->system_ram = s->system_used;
    s->last_pid = gt_system_last_pid(s);
    s->no_new_tasks = !s->full_walk && s->last_pid && s->last_pid == s->prev_last_pid;
    if (gt_walk_discover(s) != 0)
        return gt_err(err, GT_ERR_NOMEM, "out of memory while reading the process tree");
    if (s->read_mono < 0) { /* main was not read: gone */
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        s->read_mono = s->read_mono_main = ts_seconds(&t);
    }
    /* The timestamp is the instant the CPU interval ends (main's read), on
     * the wall clock: the time between two rows is then the interval the
     * CPU percents are over, so percent x interval gives back the CPU
     * seconds, however long the reads before main took on a loaded
     * machine. */
    out->timestamp = s->read_mono + wall_minus_mono;
    gt_walk_drop_duplicates(s);
    /* Exits since the last sample, now that the walk tells whose they are. */
    s->n_taken = 0;
    s->taken_short = 0;
    if (s->exits)
        gt_exit_peaks_drain(s->exits, gt_walk_is_member, s);

    proc_entry *main_e = NULL;
    size_t n_desc = 0;
    for (size_t i = 0; i < s->cur.n; i++) {
        if (s->cur.v[i].is_main)
            main_e = &s->cur.v[i];
        else
            n_desc++;
    }
    /* A process that could not be read for want of descriptors is not
     * gone: the sample goes on with what was read and says it is short (the
     * tracker warns once), and later samples read it when they can. */
    int fd_short = gt_procfs_take_fd_short(s->fs);
    if (!main_e && !s->have_prev && !fd_short)
        return gt_err(err, GT_ERR_NOPROC, "process %d does not exist", (int)s->main_pid);
    s->main_alive = main_e != NULL;
    /* Per-path data is only needed when shared memory of several processes
     * must be combined. */
    s->need_paths = n_desc > 0;
    gt_memory_read(s);
    if (s->need_paths && gt_memory_path_scratch(s) != 0)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");

    gt_memory_sum(s, out, n_desc);
    out->fd_short = gt_procfs_take_fd_short(s->fs) || fd_short;

    /* CPU over the interval since the last sample. */
    double now_boot_ticks = ts_seconds(&boot) * (double)s->hz;
    double thread_cpu = ts_seconds(&s->self_thread_cpu);
    double rccpu = s->root == s->main_pid ? 0 : s->root_ccpu_now;
    /* The first sample too: processes born since the sampler was created
     * (the command released after it, say) ran before any sample, and
     * their CPU time until now belongs to the run. */
    cpu_interval(s, thread_cpu, rccpu);
    gt_cpu_point pt = {s->read_mono, s->cum_main, s->cum_desc, out->main_n_threads, out->descendants_n_threads,
                       s->read_mono_main};
    if (!s->have_prev) {
        s->first_mono = s->read_mono;
        s->first_mono_main = s->read_mono_main;
    }
    if (!s->last_pid || s->last_pid != s->prev_last_pid)
        s->spawn_t = s->read_mono;
    cpu_percents(s, out, &pt, ncores);
    gt_system_cpu(s, out, ncores, fresh);

    /* GPU memory is attributed by PID. */
    if (s->gpu && gt_gpu_attribute(s, out) != 0)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");

    gt_walk_rotate(s);
    s->prev_last_pid = s->last_pid;
    s->prev_read_mono = s->read_mono;
    s->prev_boot_ticks = now_boot_ticks;
    s->prev_self_thread_cpu = thread_cpu;
    s->prev_root_ccpu = rccpu;
    s->have_prev = 1;
    return GT_OK;
}

/* After gt_sampler_take the sample just taken is in s->prev (the lists
 * swap at its end). */
size_t gt_sampler_processes(const gt_sampler *s, gt_sampler_proc *out, size_t cap)
{
    const proc_list *l = s->have_prev ? &s->prev : NULL;
    for (size_t i = 0; l && i < l->n && i < cap; i++) {
        const proc_entry *e = &l->v[i];
        int self = e->is_main && s->self_tracking;
        int zombie = e->state == 'Z' || e->state == 'X';
        out[i] = (gt_sampler_proc){
            .pid = e->pid, .ppid = e->ppid, .is_main = e->is_main, .starttime = e->starttime, .state = e->state,
            .threads = gt_walk_counted_threads(s, e),
            .cpu_seconds = e->cpu - (self ? ts_seconds(&s->self_thread_cpu) : 0),
            .mem_valid = !e->mem_denied && (e->walked || zombie), .mem_denied = e->mem_denied,
            .private_rss = e->private_rss, .shared_rss = e->shared_rss,
            .hwm = e->hwm,
        };
        memcpy(out[i].comm, e->comm, sizeof out[i].comm);
    }
    return l ? l->n : 0;
}

size_t gt_sampler_exits(const gt_sampler *s, const gt_exit_record **out, int *short_out)
{
    *out = s->taken;
    *short_out = s->taken_short;
    return s->n_taken;
}
