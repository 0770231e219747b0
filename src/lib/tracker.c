/* SPDX-License-Identifier: MIT */
/* Tracker lifecycle: options, the sampling thread, the running aggregate and
 * the tracking file.  All samples are taken on one background thread, so the
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
#include "energy/energy.h"
#include "events/events.h"
#include "gpu/brands.h"
#include "gpu/gpu.h"
#include "perproc/perproc.h"
#include "sampler/sampler.h"
#include "store/row.h"
#include "store/lockwait.h"
#include "store/store.h"
#include "tracker_owner.h"
#include "tracker_tally.h"
#include "util/node.h"
#include "util/error.h"
#include "util/units.h"

/* ST_STOPPING: one caller's gt_tracker_stop is joining the thread and
 * closing the files; a concurrent stop waits for ST_STOPPED. */
enum state { ST_NEW, ST_RUNNING, ST_STOPPING, ST_STOPPED };

/* gt_tracker_error's text for a NULL tracker. */
#define NO_TRACKER "no tracker: the gt_tracker pointer is NULL"

/* Running maxima and sums in base units. */
typedef struct aggregate {
    gt_rss max_main, max_desc, max_comb; /* each field maximised on its own */
    /* The sample with the largest total, kept in parts: the Python package
     * reports total = converted private + converted shared. */
    gt_rss at_max_main, at_max_desc, at_max_comb;
    uint64_t max_system_ram;
    uint64_t max_gpu_main, max_gpu_desc, max_gpu_comb, max_gpu_system;
    double max_gpu, sum_gpu;
    int max_threads_main, max_threads_desc, max_threads_comb;
    double max_cpu[4], sum_cpu[4]; /* system, main, descendants, combined */
    /* The percents weighed by the seconds they are over (the timestamps'
     * differences, which the tracking file holds, so the mean can be
     * recomputed from it), and those seconds: the mean is over time, so the
     * short last interval (taken at stop) weighs as little as it lasted. */
    double wsum_cpu[4], span_cpu;
    unsigned long n, n_cpu;
    uint64_t main_hwm, desc_hwm;
    int main_hwm_exact, desc_hwm_exact;  /* as of the last sample */
    int desc_running;                    /* descendants alive at the last sample */
    int main_denied, desc_denied;        /* errno: memory unreadable at some sample */
    pid_t denied_pid;
    double max_sm[3], sum_sm[3];        /* main, descendants, combined */
    unsigned long n_sm;
    double max_power, sum_power;
    unsigned long n_power;
    double cpu_seconds[3]; /* main, descendants, combined */
    double first_timestamp, last_timestamp;
    gt_gpu_tally gpus;     /* each selected GPU (--efficiency) */
} aggregate;

struct gt_tracker {
    gt_options opts;        /* the program's, read into this version's layout */
    unsigned int version;   /* the program's struct version: its timepoints' and usage's */
    char *uuids, *tracking_file;
    gt_gpu *gpu;
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
    gt_static_data sd;
    enum state state;       /* changed under mu */
    pthread_t thread;
    int has_thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int go, stop_requested, first_done;
    aggregate agg;
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
    gt_error err;
    /* One wait for an SQLite file's lock for all its connections (the
     * main table's, the side tables'): armed before each sample's rows and
     * before the close. */
    gt_lockwait lockwait;
};

static void *sampling_thread(void *arg);

/* The static columns that say where a tracking file was made, so that
 * `gpu-tracker merge` can group a job's per-task files by node: on a
 * multi-node run (see util/node.h) the node's name, and under Slurm its
 * job, step and task, then the job's request on the node as Slurm's
 * variables give it (raw: merge parses them as --efficiency does; NULL
 * where Slurm left one unset).  Elsewhere none, and the file keeps the
 * Python package's static columns exactly.  extra holds RUN_IDENTITY_MAX;
 * its strings point into node and the environment. */
#define RUN_IDENTITY_MAX 9
static gt_status run_identity(char *node, size_t size, gt_store_extra *extra, size_t *n, gt_error *err)
{
    static const char *const slurm[][2] = {
        {"slurm_job_id", "SLURM_JOB_ID"}, {"slurm_step_id", "SLURM_STEP_ID"}, {"slurm_task_id", "SLURM_PROCID"},
        {"slurm_mem_per_node", "SLURM_MEM_PER_NODE"}, {"slurm_mem_per_cpu", "SLURM_MEM_PER_CPU"},
        {"slurm_cpus_on_node", "SLURM_CPUS_ON_NODE"}, {"slurm_gpus_on_node", "SLURM_GPUS_ON_NODE"},
        {"slurm_job_gpus", "SLURM_JOB_GPUS"}};
    int multi;
    gt_status st = gt_node_name(node, size, &multi, err);
    *n = 0;
    if (st != GT_OK || !multi)
        return st;
    extra[(*n)++] = (gt_store_extra){"host", node};
    const char *job = getenv("SLURM_JOB_ID");
    if (job && *job)
        for (size_t i = 0; i < sizeof slurm / sizeof *slurm; i++) {
            const char *v = getenv(slurm[i][1]);
            extra[(*n)++] = (gt_store_extra){slurm[i][0], v && *v ? v : NULL};
        }
    return GT_OK;
}

static void default_log(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "gpu-tracker: warning: %s\n", msg);
}

gt_status gt_options_init(gt_options *o, unsigned int version)
{
    if (!o)
        return GT_ERR_INVALID;
    /* Only the fields of the program's version: its struct may be smaller
     * than this library's. */
    if (gt_abi_size(GT_ABI_OPTIONS, version) == 0) {
        memcpy(o, &version, sizeof version); /* for gt_tracker_new's message */
        return GT_ERR_INVALID;
    }
    const gt_options defaults = GT_OPTIONS_INIT;
    gt_abi_write(GT_ABI_OPTIONS, &defaults, o, version);
    return GT_OK;
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
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
    if (!isfinite(opts->sleep_time) || opts->sleep_time < GT_SLEEP_TIME_MIN)
        return gt_err(err, GT_ERR_INVALID,
                      "sleep time of %g is invalid: must be at least %g seconds",
                      opts->sleep_time, GT_SLEEP_TIME_MIN);
    /* The next wake-up time must fit a time_t (1e19 s overflowed it into a
     * busy loop); a day between samples is already more than any use. */
    if (opts->sleep_time > GT_SLEEP_TIME_MAX)
        return gt_err(err, GT_ERR_INVALID, "sleep time of %g is invalid: must be at most %g seconds",
                      opts->sleep_time, GT_SLEEP_TIME_MAX);
    if ((unsigned)opts->ram_unit > GT_TERABYTES || (unsigned)opts->gpu_ram_unit > GT_TERABYTES)
        return gt_err(err, GT_ERR_INVALID, "invalid RAM unit: valid units are " GT_RAM_UNITS_VALID);
    if ((unsigned)opts->time_unit > GT_DAYS)
        return gt_err(err, GT_ERR_INVALID, "invalid time unit: valid units are " GT_TIME_UNITS_VALID);
    if (opts->n_expected_cores < 0)
        return gt_err(err, GT_ERR_INVALID, "the number of expected cores must be positive");
    if (opts->gpu_brand != GT_GPU_AUTO && !gt_gpu_brand_name(opts->gpu_brand)) {
        char brands[256];
        gt_gpu_brand_list(brands, sizeof brands, ", ");
        return gt_err(err, GT_ERR_INVALID, "invalid GPU brand: valid brands are %s", brands);
    }
    if ((unsigned)opts->energy_unit > GT_KILOWATT_HOURS)
        return gt_err(err, GT_ERR_INVALID, "invalid energy unit: valid units are " GT_ENERGY_UNITS_VALID);
    /* More than one core would let the walks outrun the sampling they serve. */
    if (opts->events != GT_EVENTS_AUTO && opts->events != GT_EVENTS_ON && opts->events != GT_EVENTS_OFF)
        return gt_err(err, GT_ERR_INVALID, "events of %d is invalid: valid are auto (0), on (1), off (2)",
                      opts->events);
    if (!(opts->walk_budget >= 0 && opts->walk_budget <= 1))
        return gt_err(err, GT_ERR_INVALID,
                      "walk_budget of %g is invalid: must be above 0 and at most 1 (a share of one core), "
                      "or 0 for the default 0.01",
                      opts->walk_budget);

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

    /* GT_SYSFS_ROOT points the GPU detection and the RAPL reader at a
     * fixture tree in tests. */
    const char *sysfs_root = getenv("GT_SYSFS_ROOT");
    st = gt_gpu_open(opts->gpu_brand, t->uuids, sysfs_root, t->opts.log, t->opts.log_ctx, opts->disable_logs,
                     &t->gpu, &t->err);
    if (st != GT_OK)
        return fail(t, st, err);
    /* GT_PEAKS=sampled forces the method used without taskstats' privilege,
     * so that tests can check it as root. */
    const char *peaks = getenv("GT_PEAKS");
    gt_sampler_config sc = {t->opts.process_id, opts->tree_root, NULL, t->gpu,
                            !(peaks && !strcmp(peaks, "sampled"))};
    if ((st = gt_sampler_new(&sc, &t->sampler, &t->err)) != GT_OK)
        return fail(t, st, err);
    if (opts->walk_budget > 0)
        gt_sampler_set_walk_budget(t->sampler, opts->walk_budget);
    if ((st = open_events(t)) != GT_OK)
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
        .gpu_ram_system_capacity = gt_gpu_capacity(t->gpu),
        .system_core_count = gt_sampler_core_count(t->sampler),
        .n_expected_cores = opts->n_expected_cores ? opts->n_expected_cores
                                                   : gt_sampler_core_count(t->sampler),
        .system_gpu_count = gt_gpu_count(t->gpu),
        .n_expected_gpus = gt_gpu_expected(t->gpu),
    };
    /* The file is created here so that "exists" fails before anything runs. */
    gt_power_column power[GT_POWER_SLOTS];
    int npower = gt_energy_power_columns(t->energy, t->gpu, power);
    gt_perproc_config pc = {opts->per_process, opts->per_gpu, t->tracking_file, opts->overwrite,
                            opts->ram_unit, opts->gpu_ram_unit, opts->disable_logs ? NULL : t->opts.log,
                            t->opts.log_ctx, &t->lockwait};
    /* Every file is checked before any is replaced: --overwrite must not
     * delete the old tracking file and then refuse over a side file. */
    if (t->tracking_file &&
        ((st = gt_store_check_file(t->tracking_file, opts->overwrite, "tracking file",
                                   "pass --overwrite to replace it", &t->err)) != GT_OK ||
         (st = gt_perproc_check(&pc, &t->err)) != GT_OK))
        return fail(t, st, err);
    if (t->tracking_file) {
        char node[256];
        gt_store_extra extra[RUN_IDENTITY_MAX];
        size_t nextra = 0;
        if ((st = run_identity(node, sizeof node, extra, &nextra, &t->err)) != GT_OK ||
            (st = gt_store_open_extra(t->tracking_file, opts->overwrite, &t->sd,
                                      gt_energy_measured(t->energy, t->gpu), extra, nextra, power, npower,
                                      &t->store, &t->err)) != GT_OK)
            return fail(t, st, err);
    }
    if (t->store && !opts->disable_logs)
        gt_store_set_log(t->store, t->opts.log, t->opts.log_ctx);
    if (t->store)
        gt_store_set_lockwait(t->store, &t->lockwait);
    if (opts->per_process || opts->per_gpu) {
        if ((st = gt_perproc_open(&pc, t->gpu, &t->perproc, &t->err)) != GT_OK) {
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

static void keep_larger(gt_rss *at_max, const gt_rss *v)
{
    if (v->private_rss + v->shared_rss > at_max->private_rss + at_max->shared_rss)
        *at_max = *v;
}

static void fold(aggregate *a, const gt_sample *s)
{
#define MAXU(dst, v) do { if ((v) > (dst)) (dst) = (v); } while (0)
    MAXU(a->max_main.private_rss, s->main.private_rss);
    MAXU(a->max_main.shared_rss, s->main.shared_rss);
    MAXU(a->max_desc.private_rss, s->descendants.private_rss);
    MAXU(a->max_desc.shared_rss, s->descendants.shared_rss);
    MAXU(a->max_comb.private_rss, s->combined.private_rss);
    MAXU(a->max_comb.shared_rss, s->combined.shared_rss);
    keep_larger(&a->at_max_main, &s->main);
    keep_larger(&a->at_max_desc, &s->descendants);
    keep_larger(&a->at_max_comb, &s->combined);
    MAXU(a->max_system_ram, s->system_ram);
    MAXU(a->max_gpu_main, s->main_gpu_ram);
    MAXU(a->max_gpu_desc, s->descendants_gpu_ram);
    MAXU(a->max_gpu_comb, s->combined_gpu_ram);
    MAXU(a->max_gpu_system, s->system_gpu_ram);
    MAXU(a->max_gpu, s->gpu_sum_percent);
    MAXU(a->max_threads_main, s->main_n_threads);
    MAXU(a->max_threads_desc, s->descendants_n_threads);
    MAXU(a->max_threads_comb, s->combined_n_threads);
    MAXU(a->main_hwm, s->main_hwm);
    MAXU(a->desc_hwm, s->descendants_max_hwm);
    a->main_hwm_exact = s->main_hwm_exact;
    a->desc_hwm_exact = s->descendants_hwm_exact;
    if (s->main_mem_denied && !a->main_denied)
        a->main_denied = s->main_mem_denied;
    if (s->descendants_mem_denied && !a->desc_denied)
        a->desc_denied = s->descendants_mem_denied;
    if (s->mem_denied_pid && !a->denied_pid)
        a->denied_pid = s->mem_denied_pid;
    a->sum_gpu += s->gpu_sum_percent;
    gt_gpu_tally_fold(&a->gpus, s);
    a->n++;
    if (a->n == 1)
        a->first_timestamp = s->timestamp;
    double dt = 0;
    if (s->cpu_valid && a->n > 1) {
        /* The percents are CPU time over the interval's wall time, or over
         * the time since the first sample for the first figure. */
        dt = s->timestamp - (s->cpu_since_first ? a->first_timestamp : a->last_timestamp);
        if (dt > 0) {
            a->cpu_seconds[0] += s->cpu_main_sum / 100.0 * dt;
            a->cpu_seconds[1] += s->cpu_descendants_sum / 100.0 * dt;
            a->cpu_seconds[2] += s->cpu_combined_sum / 100.0 * dt;
        }
    }
    a->last_timestamp = s->timestamp;
    if (s->cpu_valid) {
        const double v[4] = {s->cpu_system_sum, s->cpu_main_sum, s->cpu_descendants_sum,
                             s->cpu_combined_sum};
        for (int i = 0; i < 4; i++) {
            MAXU(a->max_cpu[i], v[i]);
            a->sum_cpu[i] += v[i];
            if (dt > 0)
                a->wsum_cpu[i] += v[i] * dt;
        }
        if (dt > 0)
            a->span_cpu += dt;
        a->n_cpu++;
    }
    if (s->gpu_sm_valid) {
        const double v[3] = {s->gpu_sm_main, s->gpu_sm_descendants, s->gpu_sm_combined};
        for (int i = 0; i < 3; i++) {
            MAXU(a->max_sm[i], v[i]);
            a->sum_sm[i] += v[i];
        }
        a->n_sm++;
    }
    if (s->gpu_power_valid) {
        MAXU(a->max_power, s->gpu_power_watts);
        a->sum_power += s->gpu_power_watts;
        a->n_power++;
    }
#undef MAXU
}

static uint64_t total(const gt_rss *r)
{
    return r->private_rss + r->shared_rss;
}

/* Hands the sample to the on_timepoint callback in public form. */
static void publish(const gt_tracker *t, const gt_sample *s, const aggregate *a)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const gt_static_data *sd = &t->sd;
    /* This version's fields, labelled with the program's version, which
     * reads only its own: a copy it makes of *tp is then of its version. */
    gt_timepoint tp = {
        .version = t->version,
        .timestamp = s->timestamp,
        .elapsed = elapsed(&t->t_start, &now),
        .n_samples = a->n,
        .main_ram = total(&s->main),
        .descendants_ram = total(&s->descendants),
        .combined_ram = total(&s->combined),
        .main_ram_unavailable = s->main_mem_denied != 0,
        .descendants_ram_unavailable = s->descendants_mem_denied != 0,
        .combined_ram_unavailable = s->main_mem_denied || s->descendants_mem_denied,
        .system_ram = s->system_ram,
        .system_ram_capacity = sd->ram_system_capacity,
        .gpu_valid = sd->n_expected_gpus > 0,
        .main_gpu_ram = s->main_gpu_ram,
        .descendants_gpu_ram = s->descendants_gpu_ram,
        .combined_gpu_ram = s->combined_gpu_ram,
        .system_gpu_ram = s->system_gpu_ram,
        .system_gpu_ram_capacity = sd->gpu_ram_system_capacity,
        .gpu_sum_percent = sd->n_expected_gpus > 0 ? s->gpu_sum_percent : NAN,
        .n_expected_gpus = sd->n_expected_gpus,
        .gpu_sm_valid = s->gpu_sm_valid,
        .gpu_sm_main = s->gpu_sm_valid ? s->gpu_sm_main : NAN,
        .gpu_sm_descendants = s->gpu_sm_valid ? s->gpu_sm_descendants : NAN,
        .gpu_sm_combined = s->gpu_sm_valid ? s->gpu_sm_combined : NAN,
        .gpu_power_valid = s->gpu_power_valid,
        .gpu_power_watts = s->gpu_power_valid ? s->gpu_power_watts : NAN,
        .cpu_valid = s->cpu_valid,
        .cpu_system_sum = s->cpu_valid ? s->cpu_system_sum : NAN,
        .cpu_main_sum = s->cpu_valid ? s->cpu_main_sum : NAN,
        .cpu_descendants_sum = s->cpu_valid ? s->cpu_descendants_sum : NAN,
        .cpu_combined_sum = s->cpu_valid ? s->cpu_combined_sum : NAN,
        .cpu_main_seconds = a->cpu_seconds[0],
        .cpu_descendants_seconds = a->cpu_seconds[1],
        .cpu_combined_seconds = a->cpu_seconds[2],
        .system_core_count = sd->system_core_count,
        .n_expected_cores = sd->n_expected_cores,
        .main_n_threads = s->main_n_threads,
        .descendants_n_threads = s->descendants_n_threads,
        .combined_n_threads = s->combined_n_threads,
    };
    /* The devices' readings as this sample carries them. */
    const gt_gpu_device_reading *dev = s->gpus;
    for (size_t i = 0; i < s->n_gpus && i < GT_TIMEPOINT_MAX_GPUS; i++) {
        gt_timepoint_gpu *g = &tp.gpus[tp.n_gpus++];
        snprintf(g->uuid, sizeof g->uuid, "%s", dev[i].uuid ? dev[i].uuid : "");
        g->power_valid = dev[i].power_valid;
        g->power_watts = dev[i].power_valid ? dev[i].power_watts : NAN;
        g->energy_valid = dev[i].energy_valid;
        g->energy_joules = dev[i].energy_valid ? dev[i].energy_joules : NAN;
    }
    t->opts.on_timepoint(t->opts.on_timepoint_ctx, &tp);
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
            size_t alive = gt_sampler_descendants_alive(t->sampler);
            if (alive > ev.n_members)
                t->ev_unfollowed = alive - (size_t)ev.n_members;
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
    fold(&t->agg, &s);
    t->agg.desc_running = gt_sampler_descendants_alive(t->sampler) > 0;
    gt_energy_fold(t->energy, &er, &s);
    aggregate a = t->agg;
    pthread_mutex_unlock(&t->mu);
    warn_unseen(t, &s);
    if (t->opts.on_timepoint)
        publish(t, &s, &a);
    /* A failing tracking file never stops tracking: the report still comes,
     * and the failure is reported once at stop. */
    gt_lockwait_arm(&t->lockwait, GT_LOCKWAIT_SAMPLE_MS);
    if (t->store && !t->store_failed && gt_store_append(t->store, &s, &e) != GT_OK)
        writer_failed(t, &t->store_failed, &e);
    /* The same for the per-process and per-GPU rows: once it fails, the
     * top processes are still followed, the rows no longer written. */
    if (t->perproc && gt_perproc_sample(t->perproc, t->sampler, s.timestamp, &e) != GT_OK &&
        !t->perproc_failed) {
        writer_failed(t, &t->perproc_failed, &e);
        gt_perproc_finish(t->perproc, &e);
    }
}

static void add_seconds(struct timespec *ts, double sec)
{
    double whole = floor(sec);
    ts->tv_sec += (time_t)whole;
    ts->tv_nsec += (long)((sec - whole) * 1e9);
    while (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
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
        add_seconds(&next, t->opts.sleep_time);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (before(&next, &now)) /* fell behind: keep the interval, skip the backlog */
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

gt_status gt_tracker_start(gt_tracker *t)
{
    if (!t)
        return GT_ERR_INVALID;
    pthread_mutex_lock(&t->mu);
    if (t->state != ST_NEW) {
        gt_err(&t->err, GT_ERR_STATE,
               t->state == ST_RUNNING ? "tracking has already started" : "a stopped tracker cannot be restarted");
        pthread_mutex_unlock(&t->mu);
        return GT_ERR_STATE;
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
        pthread_mutex_unlock(&t->mu);
        return st == GT_ERR_NOPROC ? st : GT_OK;
    }
    t->state = ST_STOPPING;
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    pthread_mutex_lock(&t->mu);
    t->t_stop = t->t_start;
    t->ended_before_start = 1;
    t->state = ST_STOPPED;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return st;
}

/* One caller stops: the state moves to ST_STOPPING under the lock, so the
 * thread is joined once.  Another stop, concurrent or later, waits for the
 * first to finish and gets GT_ERR_STATE; its message never replaces a
 * failure of the run, which is the first stop's result. */
gt_status gt_tracker_stop(gt_tracker *t)
{
    if (!t)
        return GT_ERR_INVALID;
    pthread_mutex_lock(&t->mu);
    while (t->state == ST_STOPPING)
        pthread_cond_wait(&t->cv, &t->mu);
    if (t->state != ST_RUNNING) {
        if (t->state == ST_NEW || t->status == GT_OK || t->status == GT_ERR_NOPROC)
            gt_err(&t->err, GT_ERR_STATE,
                   t->state == ST_NEW ? "tracking has not started" : "tracking has already stopped");
        pthread_mutex_unlock(&t->mu);
        return GT_ERR_STATE;
    }
    t->state = ST_STOPPING;
    t->stop_requested = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    struct timespec t_stop;
    clock_gettime(CLOCK_MONOTONIC, &t_stop);
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
    gt_status st = t->status;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    return st == GT_ERR_NOPROC ? GT_OK : st;
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

void gt_tracker_gpu_tally(gt_tracker *t, gt_gpu_tally *out)
{
    pthread_mutex_lock(&t->mu);
    *out = t->agg.gpus;
    pthread_mutex_unlock(&t->mu);
}

size_t gt_tracker_descendants_alive(const gt_tracker *t)
{
    if (!t)
        return 0;
    return gt_sampler_descendants_alive(t->sampler);
}

#define PEAK_EXACT "exact"
#define PEAK_SAMPLED "lower bound (sampled)"
/* A descendant still running when tracking stopped may grow after it. */
#define PEAK_EXACT_AT_STOP "exact up to the end of tracking (descendants still running)"

/* The peak_ram section: each figure with how far it can be trusted. */
static void peaks(gt_usage *u, const aggregate *a, uint64_t maxrss, gt_ram_unit ru)
{
    /* wait4's figure bounds main's own peak from above (it includes the
     * children main reaped): not above the sampled one, both are exact. */
    int main_exact = a->main_hwm_exact || (maxrss > 0 && maxrss <= a->main_hwm);
    u->peak_ram.unit = u->max_ram.unit;
    u->peak_ram.main = a->main_hwm ? gt_ram_in_unit((double)a->main_hwm, ru) : -1.0;
    u->peak_ram.largest_descendant = gt_ram_in_unit((double)a->desc_hwm, ru);
    u->peak_ram_method.main = a->main_hwm ? (main_exact ? PEAK_EXACT : PEAK_SAMPLED) : NULL;
    u->peak_ram_method.largest_descendant =
        !a->desc_hwm_exact ? PEAK_SAMPLED : a->desc_running ? PEAK_EXACT_AT_STOP : PEAK_EXACT;
}

#define RAM_EXACT_EVENTS "exact (kernel events)"
#define RAM_BOUND_EVENTS "lower bound (kernel events)"
#define RAM_SAMPLED "lower bound (sampled)"

/* The max_ram total RSS figures from the event backend's peaks where it
 * ran, each with its method; private and shared stay sampled. */
static void ram_method(gt_usage *u, const gt_tracker *t, const gt_events_reading *ev, int have_ev,
                       size_t unfollowed, gt_ram_unit ru)
{
    gt_rss_values *v[3] = {&u->max_ram.main, &u->max_ram.descendants, &u->max_ram.combined};
    const char **method[3] = {&u->max_ram_method.main, &u->max_ram_method.descendants,
                              &u->max_ram_method.combined};
    double *when[3] = {&u->max_ram_method.main_peak_time, &u->max_ram_method.descendants_peak_time,
                       &u->max_ram_method.combined_peak_time};
    u->max_ram_method.bound_per_process = gt_ram_in_unit((double)gt_events_bound_per_process(), ru);
    if (!have_ev) {
        for (int i = 0; i < 3; i++)
            *method[i] = RAM_SAMPLED;
        snprintf(u->max_ram_method.reason, sizeof u->max_ram_method.reason, "%s",
                 t->events_off[0] ? t->events_off : "no sample was taken");
        return;
    }
    for (int i = 0; i < 3; i++) {
        double peak = gt_ram_in_unit((double)ev->peak[i], ru);
        *when[i] = ev->peak_time[i];
        /* Descendants the backend does not follow: its descendants' and
         * combined sums lack them, the main process's is whole. */
        if (ev->exact && !(i > 0 && unfollowed)) {
            v[i]->total_rss = peak;
            *method[i] = RAM_EXACT_EVENTS;
        } else {
            if (peak > v[i]->total_rss)
                v[i]->total_rss = peak;
            *method[i] = RAM_BOUND_EVENTS;
        }
    }
    if (ev->exact && unfollowed)
        snprintf(u->max_ram_method.reason, sizeof u->max_ram_method.reason,
                 "%zu descendants were running before tracking began: the event backend follows only the "
                 "processes forked since",
                 unfollowed);
    else
        snprintf(u->max_ram_method.reason, sizeof u->max_ram_method.reason, "%s", ev->why);
    u->max_ram_method.processes = (unsigned long)ev->n_members + 1;
}

/* Memory that could not be read is unavailable, never 0. */
static void unreadable(gt_usage *u, const aggregate *a)
{
    const gt_rss_values none = {-1.0, -1.0, -1.0};
    if (a->main_denied)
        u->max_ram.main = none;
    if (a->desc_denied)
        u->max_ram.descendants = none;
    if (a->main_denied || a->desc_denied) {
        u->max_ram.combined = none;
        snprintf(u->ram_unavailable, sizeof u->ram_unavailable,
                 "the memory of process %d cannot be read: %s", (int)a->denied_pid,
                 strerror(a->main_denied ? a->main_denied : a->desc_denied));
    }
}

static void pct(gt_percentages *p, double max, double sum, unsigned long n, int div)
{
    double d = div > 0 ? div : 1;
    p->max_sum_percent = max;
    p->max_hardware_percent = max / d;
    p->mean_sum_percent = n ? sum / (double)n : 0.0;
    p->mean_hardware_percent = n ? sum / d / (double)n : 0.0;
}

/* CPU percents with no figure at all (a single sample closes no interval)
 * are unavailable, never 0: every field -1; but 0 where none_ran (the
 * process had ended before tracking began).  The mean is over time: each
 * interval's percent weighed by its length (wsum over span), or the
 * samples' mean where the clock gave no length (stepped back). */
static void cpu_pct(gt_percentages *p, double max, double sum, double wsum, double span, unsigned long n,
                    int div, int none_ran)
{
    if (!n && !none_ran) {
        *p = (gt_percentages){-1.0, -1.0, -1.0, -1.0};
        return;
    }
    if (!(span > 0)) {
        pct(p, max, sum, n, div);
        return;
    }
    /* A single interval's percent weighed and divided back may round above
     * it: the mean is never above the max. */
    double mean = wsum / span;
    pct(p, max, mean < max ? mean : max, 1, div);
}

static void rss(gt_rss_values *v, const gt_rss *max, const gt_rss *at_max, gt_ram_unit u)
{
    v->private_rss = gt_ram_in_unit((double)max->private_rss, u);
    v->shared_rss = gt_ram_in_unit((double)max->shared_rss, u);
    v->total_rss = gt_ram_in_unit((double)at_max->private_rss, u) +
                   gt_ram_in_unit((double)at_max->shared_rss, u);
}

/* Fills *u, of this version, with the usage so far. */
static void fill_usage(gt_tracker *t, gt_usage *u)
{
    memset(u, 0, sizeof *u);
    u->version = GT_STRUCT_VERSION;
    pthread_mutex_lock(&t->mu);
    aggregate a = t->agg;
    uint64_t maxrss = t->main_maxrss;
    /* A stop under way has not set t_stop yet: the time so far. */
    struct timespec end = t->t_stop;
    if (t->state == ST_RUNNING || t->state == ST_STOPPING)
        clock_gettime(CLOCK_MONOTONIC, &end);
    gt_events_reading ev = t->ev;
    int have_ev = t->have_ev;
    size_t unfollowed = t->ev_unfollowed;
    pthread_mutex_unlock(&t->mu);
    const gt_static_data *sd = &t->sd;
    gt_ram_unit ru = sd->ram_unit, gu = sd->gpu_ram_unit;

    u->max_ram.unit = gt_ram_unit_name(ru);
    u->max_ram.system_capacity = gt_ram_in_unit((double)sd->ram_system_capacity, ru);
    u->max_ram.system = gt_ram_in_unit((double)a.max_system_ram, ru);
    rss(&u->max_ram.main, &a.max_main, &a.at_max_main, ru);
    rss(&u->max_ram.descendants, &a.max_desc, &a.at_max_desc, ru);
    rss(&u->max_ram.combined, &a.max_comb, &a.at_max_comb, ru);

    u->max_gpu_ram.unit = gt_ram_unit_name(gu);
    u->max_gpu_ram.system_capacity = gt_gpu_ram_in_unit((double)sd->gpu_ram_system_capacity, gu);
    u->max_gpu_ram.system = gt_gpu_ram_in_unit((double)a.max_gpu_system, gu);
    u->max_gpu_ram.main = gt_gpu_ram_in_unit((double)a.max_gpu_main, gu);
    u->max_gpu_ram.descendants = gt_gpu_ram_in_unit((double)a.max_gpu_desc, gu);
    u->max_gpu_ram.combined = gt_gpu_ram_in_unit((double)a.max_gpu_comb, gu);

    u->cpu_utilization.system_core_count = sd->system_core_count;
    u->cpu_utilization.n_expected_cores = sd->n_expected_cores;
    int none = t->ended_before_start;
    cpu_pct(&u->cpu_utilization.system, a.max_cpu[0], a.sum_cpu[0], a.wsum_cpu[0], a.span_cpu, a.n_cpu,
            sd->system_core_count, none);
    cpu_pct(&u->cpu_utilization.main, a.max_cpu[1], a.sum_cpu[1], a.wsum_cpu[1], a.span_cpu, a.n_cpu,
            sd->n_expected_cores, none);
    cpu_pct(&u->cpu_utilization.descendants, a.max_cpu[2], a.sum_cpu[2], a.wsum_cpu[2], a.span_cpu, a.n_cpu,
            sd->n_expected_cores, none);
    cpu_pct(&u->cpu_utilization.combined, a.max_cpu[3], a.sum_cpu[3], a.wsum_cpu[3], a.span_cpu, a.n_cpu,
            sd->n_expected_cores, none);
    u->cpu_utilization.main_n_threads = a.max_threads_main;
    u->cpu_utilization.descendants_n_threads = a.max_threads_desc;
    u->cpu_utilization.combined_n_threads = a.max_threads_comb;

    u->gpu_utilization.system_gpu_count = sd->system_gpu_count;
    u->gpu_utilization.n_expected_gpus = sd->n_expected_gpus;
    pct(&u->gpu_utilization.gpu_percentages, a.max_gpu, a.sum_gpu, a.n, sd->n_expected_gpus);
    u->gpu_process_utilization.available = a.n_sm > 0;
    pct(&u->gpu_process_utilization.main, a.max_sm[0], a.sum_sm[0], a.n_sm, sd->n_expected_gpus);
    pct(&u->gpu_process_utilization.descendants, a.max_sm[1], a.sum_sm[1], a.n_sm, sd->n_expected_gpus);
    pct(&u->gpu_process_utilization.combined, a.max_sm[2], a.sum_sm[2], a.n_sm, sd->n_expected_gpus);
    u->gpu_power.available = a.n_power > 0;
    u->gpu_power.unit = "watts";
    u->gpu_power.max = a.max_power;
    u->gpu_power.mean = a.n_power ? a.sum_power / (double)a.n_power : 0.0;

    u->compute_time.unit = gt_time_unit_name(sd->time_unit);
    u->compute_time.time = gt_time_in_unit(elapsed(&t->t_start, &end), sd->time_unit);

    peaks(u, &a, maxrss, ru);
    ram_method(u, t, &ev, have_ev, unfollowed, ru);
    unreadable(u, &a);
    u->n_samples = a.n;
    pthread_mutex_lock(&t->mu);
    gt_energy_usage(t->energy, t->opts.energy_unit, u);
    pthread_mutex_unlock(&t->mu);
    /* Kept after stop (the side tables closed, the figures still there). */
    gt_perproc_top(t->perproc, u);
}

gt_status gt_tracker_usage(gt_tracker *t, gt_usage *out)
{
    if (!t)
        return GT_ERR_INVALID;
    if (!out)
        return gt_err(&t->err, GT_ERR_INVALID, "no usage to fill: out is NULL");
    if (current_state(t) == ST_NEW)
        return gt_err(&t->err, GT_ERR_STATE, "tracking has not started");
    gt_status st = gt_abi_check(GT_ABI_USAGE, out->version, &t->err);
    if (st != GT_OK)
        return st;
    gt_usage u;
    fill_usage(t, &u);
    gt_abi_write(GT_ABI_USAGE, &u, out, out->version);
    return GT_OK;
}

gt_status gt_tracker_usage_new(gt_tracker *t, gt_usage **out)
{
    if (out)
        *out = NULL;
    if (!t)
        return GT_ERR_INVALID;
    if (!out)
        return gt_err(&t->err, GT_ERR_INVALID, "no place for the usage: out is NULL");
    if (current_state(t) == ST_NEW)
        return gt_err(&t->err, GT_ERR_STATE, "tracking has not started");
    /* Allocated whole, filled to the tracker's version: fields of later
     * versions stay zero, as in the program's own struct. */
    gt_usage *copy = calloc(1, sizeof *copy);
    if (!copy)
        return gt_err(&t->err, GT_ERR_NOMEM, "out of memory");
    gt_usage u;
    fill_usage(t, &u);
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

const char *gt_tracker_error(const gt_tracker *t)
{
    return t ? t->err.msg : NO_TRACKER;
}

void gt_tracker_free(gt_tracker **tp)
{
    if (!tp || !*tp)
        return;
    gt_tracker *t = *tp;
    enum state state = current_state(t);
    if (state == ST_RUNNING || state == ST_STOPPING) {
        gt_tracker_stop(t);
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
    gt_energy_close(&t->energy);
    gt_gpu_close(&t->gpu);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t->uuids);
    free(t->tracking_file);
    free(t);
    *tp = NULL;
}
