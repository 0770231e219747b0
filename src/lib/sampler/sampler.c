/* SPDX-License-Identifier: MIT */
/* A sample, in order: the system-wide figures (system.c), the walk of the
 * tree (walk.c), the exits since the last sample (exit_peaks.c), the
 * memory figures (memory.c), the CPU interval and percents (cpu.c), GPU
 * attribution (gpu_attribution.c); then the lists rotate for the next.
 * Also the sampler's life (its creation, settings and release) and the
 * sample's views of its processes and exits. */
#include "sampler/sampler.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "metric/probe.h"
#include "proc/procfs.h"
#include "sampler/cpu.h"
#include "sampler/exit_peaks.h"
#include "sampler/gpu_attribution.h"
#include "sampler/kept.h"
#include "sampler/memory.h"
#include "sampler/paths.h"
#include "sampler/sampler_state.h"
#include "sampler/system.h"
#include "sampler/walk.h"
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

/* Keeps an exit record of the tree for the sample's exits. */
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
    s->meminfo_fd = s->stat_fd = s->loadavg_fd = -1;
    s->fd_budget = gt_kept_budget();
    s->use_clock = clocks_usable(cfg->proc_root);
    gt_cpu_books_init(&s->cpu, CPU_WINDOW_SPAN);
    s->walk_budget = GT_SAMPLER_WALK_BUDGET;
    s->idle_refresh = GT_SAMPLER_IDLE_REFRESH;
    s->system_period = GT_SAMPLER_SYSTEM_PERIOD;
    gt_kept_none(&s->root_files);
    s->hz = sysconf(_SC_CLK_TCK);
    if (s->hz <= 0)
        s->hz = 100;
    s->launched = cfg->tree_root == s->self_pid && cfg->main_pid != s->self_pid;
    /* The coarse clocks advance at the scheduler tick: their resolution is
     * its length. */
    struct timespec res;
    s->cpu.user_tick = s->cpu.tick = 1.0 / (double)s->hz;
    if (s->use_clock && clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 && gt_ts_seconds(&res) > 0)
        s->cpu.tick = gt_ts_seconds(&res);
    struct timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    s->prev_boot_ticks = gt_ts_seconds(&boot) * (double)s->hz;
    /* The root's reaped children until now are not the command's (the
     * first sample's root reading is the baseline otherwise). */
    if (s->root != s->main_pid) {
        proc_entry e = {0};
        s->prev_root_ccpu = s->root == s->self_pid && s->use_clock && gt_walk_read_self_root(&e) == 0 ? e.ccpu : -1;
    }
    gt_status st = GT_OK;
    if (cfg->gpus)
        st = gt_gpu_open(cfg->gpu_brand, cfg->gpu_uuids, cfg->sysfs_root, cfg->log, cfg->log_ctx,
                         cfg->disable_logs, &s->gpu, err);
    if (st == GT_OK)
        st = gt_procfs_open(cfg->proc_root, &s->fs, err);
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

void gt_sampler_gpus(const gt_sampler *s, gt_sampler_gpu_info *out)
{
    *out = (gt_sampler_gpu_info){gt_gpu_count(s->gpu), gt_gpu_expected(s->gpu), gt_gpu_capacity(s->gpu), 0, NULL};
    out->devices = gt_gpu_devices(s->gpu, &out->n_devices);
}
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
    free(s->procs_view);
    free(s->gpu_procs_view);
    free(s->gpu_slot);
    gt_paths_free(&s->paths);
    gt_procfs_close(&s->fs);
    gt_gpu_close(&s->gpu);
    free(s);
    *sp = NULL;
}

/* One process's CPU time at a sample, for the arithmetic of cpu.h. */
static gt_cpu_reading cpu_reading(const proc_entry *e)
{
    return (gt_cpu_reading){e->is_main, e->starttime, e->cpu, e->ccpu, e->cpu_from_clock};
}

/* CPU seconds of the interval since the last sample, added to the running
 * totals.  Each process's delta comes from its own clock; the time of
 * members that exited comes through their reaper's cutime, less what
 * earlier intervals counted (cpu.h). */
static void cpu_interval(gt_sampler *s, double thread_cpu, double rccpu)
{
    gt_cpu_interval iv = {0, 0, 0};
    for (size_t i = 0; i < s->cur.n; i++) {
        const proc_entry *e = &s->cur.v[i];
        const proc_entry *p = gt_walk_prev(s, e);
        gt_cpu_reading now = cpu_reading(e), last = p ? cpu_reading(p) : now;
        gt_cpu_interval_member(&iv, p ? &last : NULL, &now, s->prev_boot_ticks, s->launched);
    }
    /* A member that exited was reaped by a member (or by the root). */
    for (size_t i = 0; i < s->prev.n; i++) {
        const proc_entry *p = &s->prev.v[i];
        if (p->matched || p->is_main || gt_walk_still_alive(s, p))
            continue;
        gt_cpu_reading last = cpu_reading(p);
        gt_cpu_interval_exited(&iv, &last);
    }
    gt_cpu_interval_root(&iv, s->prev_root_ccpu, rccpu);
    if (s->self_tracking && s->have_prev) /* the sampling thread is not tracked */
        gt_cpu_interval_self(&iv, s->prev_self_thread_cpu, thread_cpu);
    gt_cpu_books_add(&s->cpu, &iv, s->read_mono);
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
        double m = (gt_ts_seconds(&m0) + gt_ts_seconds(&m1)) / 2;
        if (gt_ts_seconds(&m1) - gt_ts_seconds(&m0) < 1e-6 || tries == 4)
            return gt_ts_seconds(&real) - m;
    }
}

/* The sample's view of its processes, from s->prev (the lists have just
 * rotated), in a buffer reused from sample to sample.  -1: out of memory. */
static int processes_view(gt_sampler *s, gt_sample *out)
{
    const proc_list *l = &s->prev;
    if (grow((void **)&s->procs_view, &s->procs_view_cap, l->n, sizeof *s->procs_view) != 0)
        return -1;
    for (size_t i = 0; i < l->n; i++) {
        const proc_entry *e = &l->v[i];
        int self = e->is_main && s->self_tracking;
        int zombie = e->state == 'Z' || e->state == 'X';
        s->procs_view[i] = (gt_sample_proc){
            .pid = e->pid, .ppid = e->ppid, .is_main = e->is_main, .starttime = e->starttime, .state = e->state,
            .threads = gt_walk_counted_threads(s, e),
            .cpu_seconds = e->cpu - (self ? gt_ts_seconds(&s->self_thread_cpu) : 0),
            .mem_valid = !e->mem_denied && (e->walked || zombie), .mem_denied = e->mem_denied,
            .private_rss = e->private_rss, .shared_rss = e->shared_rss,
            .hwm = e->hwm,
        };
        memcpy(s->procs_view[i].comm, e->comm, sizeof s->procs_view[i].comm);
        memcpy(s->procs_view[i].values, e->values, sizeof e->values);
        memcpy(s->procs_view[i].probe_err, e->probe_err, sizeof e->probe_err);
        for (int f = 0; f < GT_PROBE_COUNT; f++)
            if (e->probe_err[f] && !out->probe_err[f])
                out->probe_err[f] = e->probe_err[f];
    }
    out->n_procs = l->n;
    out->procs = s->procs_view;
    return 0;
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
    s->now = gt_ts_seconds(&boot);
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
        s->read_mono = s->read_mono_main = gt_ts_seconds(&t);
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
    out->descendants_alive = s->desc_alive;
    out->fd_short = gt_procfs_take_fd_short(s->fs) || fd_short;

    /* CPU over the interval since the last sample. */
    double now_boot_ticks = gt_ts_seconds(&boot) * (double)s->hz;
    double thread_cpu = gt_ts_seconds(&s->self_thread_cpu);
    double rccpu = s->root == s->main_pid ? 0 : s->root_ccpu_now;
    /* The first sample too: processes born since the sampler was created
     * (the command released after it, say) ran before any sample, and
     * their CPU time until now belongs to the run. */
    cpu_interval(s, thread_cpu, rccpu);
    gt_cpu_point pt = {s->read_mono, s->cpu.cum_main, s->cpu.cum_desc, out->main_n_threads, out->descendants_n_threads,
                       s->read_mono_main};
    if (!s->have_prev) {
        s->cpu.first_t = s->read_mono;
        s->cpu.first_t_main = s->read_mono_main;
    }
    if (!s->last_pid || s->last_pid != s->prev_last_pid)
        s->cpu.spawn_t = s->read_mono;
    gt_cpu_books_percents(&s->cpu, &pt, ncores, s->closing, out);
    gt_system_cpu(s, out, ncores, fresh);

    /* GPU memory is attributed by PID. */
    if (s->gpu && gt_gpu_attribute(s, out) != 0)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");

    gt_walk_rotate(s);
    if (processes_view(s, out) != 0)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    gt_probe_tree(out->procs, out->n_procs, s->have_tree ? s->tree_prev : NULL, out->timestamp - s->tree_prev_t,
                  out->tree);
    memcpy(s->tree_prev, out->tree, sizeof s->tree_prev);
    s->tree_prev_t = out->timestamp;
    s->have_tree = 1;
    out->n_exits = s->n_taken;
    out->exits = s->taken;
    out->exits_short = s->taken_short;
    s->prev_last_pid = s->last_pid;
    s->cpu.last_t = s->read_mono;
    s->prev_boot_ticks = now_boot_ticks;
    s->prev_self_thread_cpu = thread_cpu;
    s->prev_root_ccpu = rccpu;
    s->have_prev = 1;
    return GT_OK;
}
