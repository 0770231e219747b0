/* SPDX-License-Identifier: MIT */
/* Tracker lifecycle: what it opens (the GPU, the sampler, the event
 * backend, energy, the tracking files), the sampling thread, start, stop and
 * the usage (the aggregate's figures: tracker/aggregate.c).  All samples are taken on one background thread, so the
 * sampler can leave that thread out when a process tracks itself. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "abi.h"
#include "cgroup/cgroup.h"
#include "energy/energy.h"
#include "events/events.h"
#include "perproc/perproc.h"
#include "sampler/sampler.h"
#include "store/row.h"
#include "store/lockwait.h"
#include "store/store.h"
#include "tracker/aggregate.h"
#include "tracker/identity.h"
#include "tracker/options.h"
#include "tracker/owner.h"
#include "tracker/gpu_tally.h"
#include "util/error.h"
#include "util/test_hooks.h"
#include "util/timespec.h"

/* ST_STOPPING: one caller's gt_tracker_stop is joining the thread and
 * closing the files; a concurrent stop waits for ST_STOPPED. */
enum state { ST_NEW, ST_RUNNING, ST_STOPPING, ST_STOPPED };

/* The message for a NULL tracker. */
#define NO_TRACKER "no tracker: the gt_tracker pointer is NULL"

struct gt_tracker {
    gt_options opts;        /* the program's, read into this version's layout */
    unsigned int version;   /* the program's struct version: its timepoints' and usage's */
    char *uuids, *tracking_file;
    gt_sampler *sampler;
    gt_energy *energy;
    gt_store *store;
    gt_perproc *perproc;    /* NULL without per_process / per_gpu */
    /* The event backend; NULL where it is off or could not be loaded, and
     * events_off says why. */
    gt_events *events;
    char events_off[sizeof ((gt_usage *)0)->max_ram_method.reason];
    gt_events_reading ev;   /* as of the last sample; under mu */
    int have_ev;
    /* Descendants running before the backend was loaded, which it does not
     * follow: seen at the first sample as more descendants than it saw
     * forked (0 for a command the tracker started held before its exec). */
    size_t ev_unfollowed;
    /* The tracked process's own cgroup; NULL where it is in ours.  Its
     * counters as read at stop (under mu). */
    gt_cgroup *cgroup;
    gt_cgroup_reading cg_end;
    int have_cg_end;
    gt_static_data sd;
    enum state state;       /* changed under mu */
    pthread_t thread;
    int has_thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int go, stop_requested, first_done;
    gt_aggregate agg;
    struct timespec t_start, t_stop;
    /* The process had ended before the first sample: nothing ran while
     * tracked, so every figure is 0 (the Python package's report), the CPU
     * percents included, which are otherwise unavailable without a second
     * sample. */
    int ended_before_start;
    uint64_t main_maxrss;
    int warned_denied, warned_fds;
    gt_status status;       /* first failure while running */
    int store_failed, perproc_failed;
    gt_error err;           /* its message, for the start or stop that reports it */
    /* One wait for an SQLite file's lock for all its connections (the
     * main table's, the side tables'): armed before each sample's rows and
     * before the close. */
    gt_lockwait lockwait;
};

static void *sampling_thread(void *arg);

static void default_log(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "gpu-tracker: warning: %s\n", msg);
}

static gt_status fail(gt_tracker *t, gt_status st, gt_error *err)
{
    if (err)
        *err = t->err;
    gt_tracker_free(&t);
    return st;
}

/* The event backend, as opts.events asks: where it cannot be loaded, "on"
 * fails with the reason, "auto" keeps the sampled figures and says why
 * once (the report's max_ram_method.reason says it again). */
static gt_status open_events(gt_tracker *t)
{
    if (t->opts.events == GT_EVENTS_OFF) {
        snprintf(t->events_off, sizeof t->events_off, "the event backend is off (events off)");
        return GT_OK;
    }
    gt_error e;
    if (gt_events_open(t->opts.process_id, &t->events, &e) == GT_OK)
        return GT_OK;
    if (t->opts.events == GT_EVENTS_ON)
        return gt_err(&t->err, GT_ERR_SYS, "events on: %s", e.msg);
    snprintf(t->events_off, sizeof t->events_off, "%.*s", (int)sizeof t->events_off - 1, e.msg);
    if (!t->opts.disable_logs) {
        char msg[sizeof e.msg + 96];
        snprintf(msg, sizeof msg, "the max RAM figures are sampled (lower bounds): %s", e.msg);
        t->opts.log(t->opts.log_ctx, msg);
    }
    return GT_OK;
}

gt_status gt_tracker_new(const gt_options *program_opts, gt_tracker **out, gt_error *err)
{
    gt_error scratch;
    if (!err)
        err = &scratch;
    if (!out)
        return gt_err(err, GT_ERR_INVALID, "no place for the tracker: out is NULL");
    *out = NULL;
    if (!program_opts)
        return gt_err(err, GT_ERR_INVALID, "options are required");
    gt_status st = gt_abi_check(GT_ABI_OPTIONS, program_opts->version, err);
    if (st != GT_OK)
        return st;
    /* The fields a program of an older version lacks have their defaults. */
    gt_options full = GT_OPTIONS_INIT;
    gt_abi_read(GT_ABI_OPTIONS, program_opts, &full);
    const gt_options *opts = &full;
    if ((st = gt_tracker_options_check(opts, err)) != GT_OK)
        return st;

    gt_tracker *t = calloc(1, sizeof *t);
    if (!t)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    t->opts = *opts;
    t->version = program_opts->version;
    if (!t->opts.log)
        t->opts.log = default_log;
    if (!t->opts.process_id)
        t->opts.process_id = getpid();
    pthread_mutex_init(&t->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->cv, &ca);
    pthread_condattr_destroy(&ca);
    if ((opts->gpu_uuids && !(t->uuids = strdup(opts->gpu_uuids))) ||
        (opts->tracking_file && !(t->tracking_file = strdup(opts->tracking_file))))
        return fail(t, gt_err(&t->err, GT_ERR_NOMEM, "out of memory"), err);
    t->opts.gpu_uuids = t->uuids;
    t->opts.tracking_file = t->tracking_file;

    /* NULL (/sys) but in the test build, which points the GPU detection
     * and the RAPL reader at a fixture tree. */
    const char *sysfs_root = gt_hook_sysfs_root();
    gt_sampler_config sc = {
        .main_pid = t->opts.process_id, .tree_root = opts->tree_root,
        .exit_records = !gt_hook_sampled_peaks(),
        .gpus = 1, .gpu_brand = opts->gpu_brand, .gpu_uuids = t->uuids, .sysfs_root = sysfs_root,
        .log = t->opts.log, .log_ctx = t->opts.log_ctx, .disable_logs = opts->disable_logs,
    };
    if ((st = gt_sampler_new(&sc, &t->sampler, &t->err)) != GT_OK)
        return fail(t, st, err);
    gt_sampler_gpu_info gpus;
    gt_sampler_gpus(t->sampler, &gpus);
    if (opts->walk_budget > 0)
        gt_sampler_set_walk_budget(t->sampler, opts->walk_budget);
    if ((st = open_events(t)) != GT_OK)
        return fail(t, st, err);
    if ((st = gt_cgroup_open(NULL, NULL, t->opts.process_id, &t->cgroup, &t->err)) != GT_OK)
        return fail(t, st, err);
    if ((st = gt_energy_open(sysfs_root, &t->energy, &t->err)) != GT_OK)
        return fail(t, st, err);
    /* The report leaves out an energy group with nothing measured: why is
     * said once here instead. */
    const char *no_cpu_energy = gt_energy_cpu_missing(t->energy);
    if (no_cpu_energy && *no_cpu_energy && !opts->disable_logs) {
        char msg[sizeof t->err.msg + 64];
        snprintf(msg, sizeof msg, "CPU energy is not measured: %s", no_cpu_energy);
        t->opts.log(t->opts.log_ctx, msg);
    }

    t->sd = (gt_static_data){
        .ram_unit = opts->ram_unit,
        .gpu_ram_unit = opts->gpu_ram_unit,
        .time_unit = opts->time_unit,
        .ram_system_capacity = gt_sampler_ram_capacity(t->sampler),
        .gpu_ram_system_capacity = gpus.capacity,
        .system_core_count = gt_sampler_core_count(t->sampler),
        .n_expected_cores = opts->n_expected_cores ? opts->n_expected_cores
                                                   : gt_sampler_core_count(t->sampler),
        .system_gpu_count = gpus.count,
        .n_expected_gpus = gpus.expected,
    };
    /* The file is created here so that "exists" fails before anything runs. */
    gt_power_column power[GT_POWER_SLOTS];
    int npower = gt_energy_power_columns(t->energy, gpus.devices, gpus.n_devices, power);
    gt_perproc_config pc = {opts->per_process, opts->per_gpu, t->tracking_file, opts->overwrite,
                            opts->ram_unit, opts->gpu_ram_unit, opts->disable_logs ? NULL : t->opts.log,
                            t->opts.log_ctx, &t->lockwait, t->sd.ram_system_capacity, gpus.devices,
                            gpus.n_devices};
    /* Every file is checked before any is replaced: --overwrite must not
     * delete the old tracking file and then refuse over a side file. */
    if (t->tracking_file &&
        ((st = gt_store_check_file(t->tracking_file, opts->overwrite, "tracking file",
                                   "pass --overwrite to replace it", &t->err)) != GT_OK ||
         (st = gt_perproc_check(&pc, &t->err)) != GT_OK))
        return fail(t, st, err);
    if (t->tracking_file) {
        char node[256];
        gt_store_extra extra[GT_RUN_IDENTITY_MAX];
        size_t nextra = 0;
        if ((st = gt_run_identity(node, sizeof node, extra, &nextra, &t->err)) != GT_OK ||
            (st = gt_store_open_extra(t->tracking_file, opts->overwrite, &t->sd,
                                      gt_energy_measured(t->energy, gpus.n_devices), extra, nextra, power, npower,
                                      &t->store, &t->err)) != GT_OK)
            return fail(t, st, err);
    }
    if (t->store && !opts->disable_logs)
        gt_store_set_log(t->store, t->opts.log, t->opts.log_ctx);
    if (t->store)
        gt_store_set_lockwait(t->store, &t->lockwait);
    if (opts->per_process || opts->per_gpu) {
        if ((st = gt_perproc_open(&pc, &t->perproc, &t->err)) != GT_OK) {
            /* The tracking file was created just now and holds no sample:
             * left there, it would make the next attempt fail with "exists". */
            gt_store_discard(&t->store);
            return fail(t, st, err);
        }
    }
    int rc = pthread_create(&t->thread, NULL, sampling_thread, t);
    if (rc != 0)
        return fail(t, gt_err(&t->err, GT_ERR_SYS, "cannot start the sampling thread: %s", strerror(rc)),
                    err);
    t->has_thread = 1;
    *out = t;
    return GT_OK;
}

/* A tracking file (or its side tables) failed: set *failed so it is not
 * written again, keep the first error for stop, and say it once. */
static void writer_failed(gt_tracker *t, int *failed, const gt_error *e)
{
    pthread_mutex_lock(&t->mu);
    *failed = 1;
    if (t->status == GT_OK) {
        t->status = GT_ERR_IO;
        t->err = *e;
    }
    pthread_mutex_unlock(&t->mu);
    if (!t->opts.disable_logs)
        t->opts.log(t->opts.log_ctx, e->msg);
}

/* Says once what the samples cannot see, so that a missing figure never
 * passes for a small one. */
static void warn_unseen(gt_tracker *t, const gt_sample *s)
{
    char msg[320];
    if (t->opts.disable_logs)
        return;
    if ((s->main_mem_denied || s->descendants_mem_denied) && !t->warned_denied) {
        t->warned_denied = 1;
        snprintf(msg, sizeof msg,
                 "cannot read the memory of process %d (/proc/%d/smaps_rollup: %s): it belongs to another "
                 "user or runs a setuid program; the RAM figures of %s are unavailable (run gpu-tracker as "
                 "that user or as root)",
                 (int)s->mem_denied_pid, (int)s->mem_denied_pid,
                 strerror(s->main_mem_denied ? s->main_mem_denied : s->descendants_mem_denied),
                 s->main_mem_denied ? "the main process" : "the descendants");
        t->opts.log(t->opts.log_ctx, msg);
    }
    if (s->fd_short && !t->warned_fds) {
        t->warned_fds = 1;
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        snprintf(msg, sizeof msg,
                 "too few file descriptors (open files limit %llu): some processes could not be read, so "
                 "figures are missing from some samples; raise the limit (ulimit -n)",
                 (unsigned long long)rl.rlim_cur);
        t->opts.log(t->opts.log_ctx, msg);
    }
}

/* Takes one sample and records it (last: the run's final one); called on
 * the sampling thread only. */
static void take(gt_tracker *t, int last)
{
    gt_sample s;
    gt_error e;
    gt_status st = last ? gt_sampler_take_last(t->sampler, &s, &e) : gt_sampler_take(t->sampler, &s, &e);
    gt_energy_reading er;
    gt_events_reading ev;
    if (st == GT_OK) {
        gt_energy_read(t->energy, &er);
        /* After the sample: the event peaks then cover every change the
         * sample could have seen. */
        if (t->events)
            gt_events_read(t->events, &ev);
    }
    pthread_mutex_lock(&t->mu);
    if (st == GT_OK && t->events) {
        if (!t->have_ev) {
            if (s.descendants_alive > ev.n_members)
                t->ev_unfollowed = s.descendants_alive - (size_t)ev.n_members;
        }
        t->ev = ev;
        t->have_ev = 1;
    }
    if (st != GT_OK) {
        if (t->status == GT_OK) {
            t->status = st;
            t->err = e;
        }
        pthread_mutex_unlock(&t->mu);
        return;
    }
    gt_aggregate_fold(&t->agg, &s);
    t->agg.desc_running = s.descendants_alive > 0;
    gt_energy_fold(t->energy, &er, &s);
    gt_aggregate a = t->agg;
    pthread_mutex_unlock(&t->mu);
    warn_unseen(t, &s);
    if (t->opts.on_timepoint) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        gt_timepoint tp;
        gt_aggregate_timepoint(&a, &s, &t->sd, t->version, gt_ts_elapsed(&t->t_start, &now), &tp);
        t->opts.on_timepoint(t->opts.on_timepoint_ctx, &tp);
    }
    /* A failing tracking file never stops tracking: the report still comes,
     * and the failure is reported once at stop. */
    gt_lockwait_arm(&t->lockwait, GT_LOCKWAIT_SAMPLE_MS);
    if (t->store && !t->store_failed && gt_store_append(t->store, &s, &e) != GT_OK)
        writer_failed(t, &t->store_failed, &e);
    /* The same for the per-process and per-GPU rows: once it fails, the
     * top processes are still followed, the rows no longer written. */
    if (t->perproc && gt_perproc_sample(t->perproc, &s, &e) != GT_OK &&
        !t->perproc_failed) {
        writer_failed(t, &t->perproc_failed, &e);
        gt_perproc_finish(t->perproc, &e);
    }
}

static void *sampling_thread(void *arg)
{
    gt_tracker *t = arg;
    /* Created with the tracker, parked until start: a command that fills
     * the process limit (ulimit -u) cannot keep tracking from starting. */
    pthread_mutex_lock(&t->mu);
    while (!t->go && !t->stop_requested)
        pthread_cond_wait(&t->cv, &t->mu);
    int go = t->go;
    pthread_mutex_unlock(&t->mu);
    if (!go)
        return NULL; /* freed without being started */
    take(t, 0);
    pthread_mutex_lock(&t->mu);
    t->first_done = 1;
    pthread_cond_broadcast(&t->cv);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!t->stop_requested && t->status != GT_ERR_NOPROC) {
        gt_ts_add(&next, t->opts.sleep_time);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (gt_ts_before(&next, &now)) /* fell behind: keep the interval, skip the backlog */
            next = now;
        while (!t->stop_requested &&
               pthread_cond_timedwait(&t->cv, &t->mu, &next) != ETIMEDOUT)
            ;
        if (t->stop_requested)
            break;
        pthread_mutex_unlock(&t->mu);
        take(t, 0);
        pthread_mutex_lock(&t->mu);
    }
    int gone = t->status == GT_ERR_NOPROC;
    pthread_mutex_unlock(&t->mu);
    /* The last sample, so a run shorter than one interval is still covered. */
    if (!gone)
        take(t, 1);
    return NULL;
}

static enum state current_state(gt_tracker *t)
{
    pthread_mutex_lock(&t->mu);
    enum state st = t->state;
    pthread_mutex_unlock(&t->mu);
    return st;
}

gt_status gt_tracker_add_static(gt_tracker *t, const char *key, const char *value, gt_error *err)
{
    gt_error scratch;
    if (!err)
        err = &scratch;
    if (!t || !key)
        return gt_err(err, GT_ERR_INVALID, "static data: no tracker or no key");
    if (current_state(t) != ST_NEW)
        return gt_err(err, GT_ERR_STATE, "static data '%s' must be added before tracking starts", key);
    if (!t->store)
        return GT_OK; /* no tracking file: nowhere to record it */
    return gt_store_add_static(t->store, key, value, err);
}

gt_status gt_tracker_chown_files(gt_tracker *t, uid_t uid, gid_t gid, gt_error *err)
{
    if (!t->store)
        return gt_err(err, GT_ERR_INVALID, "no tracking file to give to user %lu", (unsigned long)uid);
    if (t->perproc)
        return gt_err(err, GT_ERR_INVALID, "tracking file '%s': its side files cannot be given to another user",
                      t->tracking_file);
    if (t->state != ST_NEW)
        return gt_err(err, GT_ERR_STATE, "tracking file '%s' is given to another user before tracking starts",
                      t->tracking_file);
    return gt_store_chown(t->store, uid, gid, err);
}

/* The cgroup's counters at the end of tracking, kept for the report (a
 * launcher removes a group it made after the stop).  Called on the
 * stopping thread after the last sample. */
static void keep_cgroup_end(gt_tracker *t)
{
    if (!t->cgroup)
        return;
    gt_cgroup_reading cg;
    gt_cgroup_read(t->cgroup, &cg);
    pthread_mutex_lock(&t->mu);
    t->cg_end = cg;
    t->have_cg_end = 1;
    pthread_mutex_unlock(&t->mu);
}

/* The run's failure for the caller that reports it; under t->mu. */
static gt_status run_failure(const gt_tracker *t, gt_status st, gt_error *err)
{
    if (st != GT_OK && err)
        *err = t->err;
    return st;
}

gt_status gt_tracker_start(gt_tracker *t, gt_error *err)
{
    if (!t)
        return gt_err(err, GT_ERR_INVALID, NO_TRACKER);
    pthread_mutex_lock(&t->mu);
    if (t->state != ST_NEW) {
        int running = t->state == ST_RUNNING;
        pthread_mutex_unlock(&t->mu);
        return gt_err(err, GT_ERR_STATE,
                      running ? "tracking has already started" : "a stopped tracker cannot be restarted");
    }
    clock_gettime(CLOCK_MONOTONIC, &t->t_start);
    t->state = ST_RUNNING;
    t->go = 1;
    pthread_cond_broadcast(&t->cv);
    while (!t->first_done)
        pthread_cond_wait(&t->cv, &t->mu);
    gt_status st = t->status;
    if (st != GT_ERR_NOPROC || t->state != ST_RUNNING) {
        /* Running, or a stop from another thread already under way. */
        st = run_failure(t, st == GT_ERR_NOPROC ? st : GT_OK, err);
        pthread_mutex_unlock(&t->mu);
        return st;
    }
    t->state = ST_STOPPING;
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    keep_cgroup_end(t);
    pthread_mutex_lock(&t->mu);
    t->t_stop = t->t_start;
    t->ended_before_start = 1;
    t->state = ST_STOPPED;
    pthread_cond_broadcast(&t->cv);
    st = run_failure(t, st, err);
    pthread_mutex_unlock(&t->mu);
    return st;
}

/* One caller stops: the state moves to ST_STOPPING under the lock, so the
 * thread is joined once.  Another stop, concurrent or later, waits for the
 * first to finish and gets GT_ERR_STATE; the failure of the run is the
 * first stop's result. */
gt_status gt_tracker_stop(gt_tracker *t, gt_error *err)
{
    if (!t)
        return gt_err(err, GT_ERR_INVALID, NO_TRACKER);
    pthread_mutex_lock(&t->mu);
    while (t->state == ST_STOPPING)
        pthread_cond_wait(&t->cv, &t->mu);
    if (t->state != ST_RUNNING) {
        int never_started = t->state == ST_NEW;
        pthread_mutex_unlock(&t->mu);
        return gt_err(err, GT_ERR_STATE, never_started ? "tracking has not started" : "tracking has already stopped");
    }
    t->state = ST_STOPPING;
    t->stop_requested = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    struct timespec t_stop;
    clock_gettime(CLOCK_MONOTONIC, &t_stop);
    keep_cgroup_end(t);
    /* The last sample read the final sums: the programs stop costing the
     * machine anything now. */
    gt_events_close(&t->events);
    /* The side tables first: their connection to an SQLite file would keep
     * the store's close from checkpointing the log into the file.  Rows
     * still waiting for a lock wait GT_LOCKWAIT_CLOSE_MS in all, and every
     * table that lost rows is named. */
    gt_lockwait_arm(&t->lockwait, GT_LOCKWAIT_CLOSE_MS);
    gt_error e_side, e_store;
    int side_failed = t->perproc && gt_perproc_finish(t->perproc, &e_side) != GT_OK;
    int store_failed = t->store && gt_store_close(&t->store, &e_store) != GT_OK;
    pthread_mutex_lock(&t->mu);
    if ((side_failed || store_failed) && t->status == GT_OK) {
        t->status = GT_ERR_IO;
        t->err = side_failed ? e_side : e_store;
        if (side_failed && store_failed)
            gt_err_join(&t->err, &e_store);
    }
    t->t_stop = t_stop;
    t->state = ST_STOPPED;
    gt_status st = run_failure(t, t->status == GT_ERR_NOPROC ? GT_OK : t->status, err);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return st;
}

void gt_tracker_set_main_maxrss(gt_tracker *t, uint64_t maxrss, uint64_t inherited)
{
    /* An upper bound of main's own peak (see the header); it adds nothing
     * that the launcher's own high-water mark could explain. */
    (void)inherited;
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->main_maxrss = maxrss;
    pthread_mutex_unlock(&t->mu);
}

void gt_tracker_aggregate(gt_tracker *t, gt_aggregate *out)
{
    pthread_mutex_lock(&t->mu);
    *out = t->agg;
    pthread_mutex_unlock(&t->mu);
}

size_t gt_tracker_descendants_alive(const gt_tracker *t)
{
    if (!t)
        return 0;
    return gt_sampler_descendants_alive(t->sampler);
}

/* Fills *u, of this version, with the usage so far, and *own (unless
 * NULL) with the run's figures of the metric table's own rows. */
static void fill_usage(gt_tracker *t, gt_usage *u, gt_metric_run *own)
{
    memset(u, 0, sizeof *u);
    u->version = GT_STRUCT_VERSION;
    pthread_mutex_lock(&t->mu);
    gt_aggregate a = t->agg;
    uint64_t maxrss = t->main_maxrss;
    /* A stop under way has not set t_stop yet: the time so far. */
    struct timespec end = t->t_stop;
    if (t->state == ST_RUNNING || t->state == ST_STOPPING)
        clock_gettime(CLOCK_MONOTONIC, &end);
    gt_events_reading ev = t->ev;
    int have_ev = t->have_ev;
    gt_cgroup_reading cg;
    int have_cg = t->have_cg_end;
    if (have_cg)
        cg = t->cg_end;
    size_t unfollowed = t->ev_unfollowed;
    pthread_mutex_unlock(&t->mu);
    gt_aggregate_run r = {&t->sd, gt_ts_elapsed(&t->t_start, &end), maxrss, t->ended_before_start, have_ev ? &ev : NULL,
                          unfollowed, t->events_off};
    gt_aggregate_usage(&a, &r, u);
    if (own)
        gt_metric_run_of(&a.own, &t->sd, own);
    if (!have_cg && t->cgroup) { /* still running: the counters now */
        gt_cgroup_read(t->cgroup, &cg);
        have_cg = 1;
    }
    if (have_cg)
        gt_cgroup_usage(&cg, t->sd.ram_unit, u);
    pthread_mutex_lock(&t->mu);
    gt_energy_usage(t->energy, t->opts.energy_unit, u);
    pthread_mutex_unlock(&t->mu);
    /* Kept after stop (the side tables closed, the figures still there). */
    gt_perproc_top(t->perproc, u);
}

gt_status gt_tracker_results(gt_tracker *t, gt_usage *u, gt_metric_run *own, gt_error *err)
{
    if (!t)
        return gt_err(err, GT_ERR_INVALID, NO_TRACKER);
    if (current_state(t) == ST_NEW)
        return gt_err(err, GT_ERR_STATE, "tracking has not started");
    fill_usage(t, u, own);
    return GT_OK;
}

gt_status gt_tracker_usage(gt_tracker *t, gt_usage *out, gt_error *err)
{
    if (t && !out)
        return gt_err(err, GT_ERR_INVALID, "no usage to fill: out is NULL");
    gt_usage u;
    gt_status st = gt_tracker_results(t, &u, NULL, err);
    if (st == GT_OK && (st = gt_abi_check(GT_ABI_USAGE, out->version, err)) == GT_OK)
        gt_abi_write(GT_ABI_USAGE, &u, out, out->version);
    return st;
}

gt_status gt_tracker_usage_new(gt_tracker *t, gt_usage **out, gt_error *err)
{
    if (!out)
        return gt_err(err, GT_ERR_INVALID, t ? "no place for the usage: out is NULL" : NO_TRACKER);
    *out = NULL;
    gt_usage u;
    gt_status st = gt_tracker_results(t, &u, NULL, err);
    if (st != GT_OK)
        return st;
    /* Allocated whole, filled to the tracker's version: fields of later
     * versions stay zero, as in the program's own struct. */
    gt_usage *copy = calloc(1, sizeof *copy);
    if (!copy)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    gt_abi_write(GT_ABI_USAGE, &u, copy, t->version);
    *out = copy;
    return GT_OK;
}

void gt_usage_free(gt_usage **u)
{
    if (!u)
        return;
    free(*u);
    *u = NULL;
}

void gt_tracker_free(gt_tracker **tp)
{
    if (!tp || !*tp)
        return;
    gt_tracker *t = *tp;
    enum state state = current_state(t);
    if (state == ST_RUNNING || state == ST_STOPPING) {
        gt_tracker_stop(t, NULL);
    } else if (state == ST_NEW && t->has_thread) {
        pthread_mutex_lock(&t->mu);
        t->stop_requested = 1;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->thread, NULL);
    }
    /* Never started: the files hold no sample (see the header). */
    if (t->state == ST_NEW) {
        if (t->perproc)
            gt_perproc_discard(t->perproc);
        gt_store_discard(&t->store);
    }
    gt_error e;
    gt_perproc_close(&t->perproc, &e);
    gt_store_close(&t->store, &e);
    gt_sampler_free(&t->sampler);
    gt_events_close(&t->events);
    gt_cgroup_close(&t->cgroup);
    gt_energy_close(&t->energy);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t->uuids);
    free(t->tracking_file);
    free(t);
    *tp = NULL;
}
