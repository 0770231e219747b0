/* SPDX-License-Identifier: MIT */
/* Metric families of one timepoint.  Names follow Prometheus conventions:
 * base units in the name (_bytes, _seconds, _percent), counters end in
 * _total, and the process set (main, descendants, combined, system) is the
 * "set" label rather than part of the name, so one query sums or compares
 * them. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/exposition.h"
#include "metric/fold.h"
#include "util/pyfloat.h"
#include "util/text.h"

typedef struct out {
    char *buf;
    size_t cap, len;
    int om; /* OpenMetrics */
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->cap ? o->cap - o->len : 0;
    int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* HELP, TYPE and (OpenMetrics) UNIT lines.  A counter's family name drops
 * "_total" in OpenMetrics; its samples keep it in both formats. */
static void family(out *o, const char *name, const char *type, const char *unit, const char *help)
{
    size_t n = strlen(name);
    int counter = !strcmp(type, "counter");
    if (o->om && counter && n > 6 && !strcmp(name + n - 6, "_total"))
        n -= 6;
    put(o, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name, type);
    if (o->om && unit)
        put(o, "# UNIT %.*s %s\n", (int)n, name, unit);
}

/* A label value with \\, " and newlines escaped, as both formats want;
 * both want UTF-8 too: bytes that are not are the text \xNN
 * (util/text.h), whose backslash is escaped in turn. */
static void label_value(out *o, const char *v)
{
    char c[GT_TEXT_CHAR_MAX];
    for (size_t len; *v; v += len) {
        len = gt_text_next(v, 0, c);
        for (const char *b = c; *b; b++) {
            if (*b == '\\' || *b == '"')
                put(o, "\\%c", *b);
            else if (*b == '\n')
                put(o, "\\n");
            else
                put(o, "%c", *b);
        }
    }
}

/* Under Slurm every series carries the job, step and node it comes from,
 * so one Prometheus scraping every node can sum a job across nodes
 * (sum by (job) (...)).  Read from the environment Slurm gives each task;
 * absent outside Slurm. */
static const char *const job_labels[][2] = {
    {"job", "SLURM_JOB_ID"}, {"step", "SLURM_STEP_ID"}, {"node", "SLURMD_NODENAME"}};

/* One sample line; label may be NULL (no label but the job's). */
static void sample(out *o, const char *name, const char *label, const char *lval, double v)
{
    char num[GT_PYFLOAT_BUFSZ];
    /* Integers (bytes, counts) without a ".0"; other values in the shortest
     * form that reads back exactly. */
    if (isnan(v))
        snprintf(num, sizeof num, "NaN");
    else if (v == floor(v) && fabs(v) < 9.007199254740992e15)
        snprintf(num, sizeof num, "%.0f", v);
    else
        gt_pyfloat_repr(v, num, sizeof num);
    put(o, "%s", name);
    int n = 0;
    for (size_t i = 0; i < sizeof job_labels / sizeof *job_labels; i++) {
        const char *env = getenv(job_labels[i][1]);
        if (env && *env) {
            put(o, "%s%s=\"", n++ ? "," : "{", job_labels[i][0]);
            label_value(o, env);
            put(o, "\"");
        }
    }
    if (label) {
        put(o, "%s%s=\"", n++ ? "," : "{", label);
        label_value(o, lval);
        put(o, "\"");
    }
    put(o, "%s %s\n", n ? "}" : "", num);
}

static void value(out *o, const char *name, const char *set, double v)
{
    sample(o, name, set ? "set" : NULL, set, v);
}

static const char *const sets[] = {"main", "descendants", "combined", "system"};

static void four(out *o, const char *name, const char *type, const char *unit, const char *help,
                 const double *v, int n)
{
    family(o, name, type, unit, help);
    for (int i = 0; i < n; i++)
        value(o, name, sets[i], v[i]);
}

/* Power and energy of each GPU, labelled with its UUID; a GPU whose
 * figure was not read at this sample is left out of that family. */
static void gpu_devices(out *o, const gt_timepoint *tp)
{
    size_t n = tp->n_gpus < GT_TIMEPOINT_MAX_GPUS ? tp->n_gpus : GT_TIMEPOINT_MAX_GPUS;
    int any_power = 0, any_energy = 0;
    for (size_t i = 0; i < n; i++) {
        any_power |= tp->gpus[i].power_valid;
        any_energy |= tp->gpus[i].energy_valid;
    }
    if (any_power) {
        family(o, "gpu_tracker_gpu_power_watts", "gauge", "watts", "Power draw of each selected GPU.");
        for (size_t i = 0; i < n; i++)
            if (tp->gpus[i].power_valid)
                sample(o, "gpu_tracker_gpu_power_watts", "uuid", tp->gpus[i].uuid, tp->gpus[i].power_watts);
    }
    if (any_energy) {
        family(o, "gpu_tracker_gpu_energy_joules_total", "counter", "joules",
               "Energy counter of each selected GPU (since its driver was loaded).");
        for (size_t i = 0; i < n; i++)
            if (tp->gpus[i].energy_valid)
                sample(o, "gpu_tracker_gpu_energy_joules_total", "uuid", tp->gpus[i].uuid,
                       tp->gpus[i].energy_joules);
    }
}

/* OpenMetrics' UNIT of a row's base unit; NULL: none (a count). */
static const char *base_unit(gt_metric_unit u)
{
    switch (u) {
    case GT_MU_RAM:
    case GT_MU_GPU_RAM:
    case GT_MU_BYTES: return "bytes";
    case GT_MU_BYTES_PER_S: return "bytes_per_second";
    case GT_MU_PERCENT: return "percent";
    case GT_MU_SECONDS: return "seconds";
    case GT_MU_JOULES: return "joules";
    case GT_MU_COUNT: break;
    }
    return NULL;
}

/* The metric table's own rows with a Prometheus name: one family each, a
 * counter where the row aggregates a running total (GT_MA_LAST) or a sum,
 * else a gauge, with a series per column labelled set="<the column's
 * label>" (its name where it has none), in base units; NaN where unread,
 * as the memory series. */
static void own_families(out *o, const double *own)
{
    const gt_metric *m, *row = NULL;
    const gt_metric_column *c;
    for (int k = 0; (c = gt_metric_own_column(k, &m)) != NULL; k++) {
        if (!m->prom)
            continue;
        if (m != row) {
            row = m;
            family(o, m->prom, m->agg == GT_MA_LAST || m->agg == GT_MA_SUM ? "counter" : "gauge",
                   base_unit(m->unit), m->help ? m->help : m->label ? m->label : m->id);
        }
        value(o, m->prom, c->label ? c->label : c->name, own[k]);
    }
}

size_t gt_exposition_format(const gt_timepoint *tp, const double *own, int openmetrics, char *buf, size_t cap)
{
    out o = {buf, cap, 0, openmetrics};
    if (cap)
        buf[0] = '\0';
    if (tp) {
        /* Memory that could not be read is NaN, Prometheus's unknown. */
        const double ram[4] = {tp->main_ram_unavailable ? NAN : (double)tp->main_ram,
                               tp->descendants_ram_unavailable ? NAN : (double)tp->descendants_ram,
                               tp->combined_ram_unavailable ? NAN : (double)tp->combined_ram,
                               (double)tp->system_ram};
        four(&o, "gpu_tracker_ram_bytes", "gauge", "bytes",
             "Resident memory (private + shared RSS); system: the machine's used RAM.", ram, 4);
        family(&o, "gpu_tracker_ram_capacity_bytes", "gauge", "bytes", "The machine's total RAM.");
        value(&o, "gpu_tracker_ram_capacity_bytes", NULL, (double)tp->system_ram_capacity);
        if (tp->cpu_valid) {
            const double cpu[4] = {tp->cpu_main_sum, tp->cpu_descendants_sum, tp->cpu_combined_sum,
                                   tp->cpu_system_sum};
            four(&o, "gpu_tracker_cpu_utilization_percent", "gauge", "percent",
                 "CPU use over the last sampling interval, in percent of one core.", cpu, 4);
        }
        const double secs[3] = {tp->cpu_main_seconds, tp->cpu_descendants_seconds, tp->cpu_combined_seconds};
        four(&o, "gpu_tracker_cpu_seconds_total", "counter", "seconds",
             "CPU time used since tracking started.", secs, 3);
        const double thr[3] = {tp->main_n_threads, tp->descendants_n_threads, tp->combined_n_threads};
        four(&o, "gpu_tracker_threads", "gauge", NULL, "Number of threads.", thr, 3);
        family(&o, "gpu_tracker_cpu_cores", "gauge", NULL,
               "Cores of the machine (set=\"system\") and cores the job is expected to use (set=\"expected\").");
        value(&o, "gpu_tracker_cpu_cores", "system", tp->system_core_count);
        value(&o, "gpu_tracker_cpu_cores", "expected", tp->n_expected_cores);
        if (tp->gpu_valid) {
            const double g[4] = {(double)tp->main_gpu_ram, (double)tp->descendants_gpu_ram,
                                 (double)tp->combined_gpu_ram, (double)tp->system_gpu_ram};
            four(&o, "gpu_tracker_gpu_ram_bytes", "gauge", "bytes",
                 "GPU memory; system: used on the selected GPUs.", g, 4);
            family(&o, "gpu_tracker_gpu_ram_capacity_bytes", "gauge", "bytes", "Total memory of the GPUs.");
            value(&o, "gpu_tracker_gpu_ram_capacity_bytes", NULL, (double)tp->system_gpu_ram_capacity);
            family(&o, "gpu_tracker_gpu_utilization_percent", "gauge", "percent",
                   "GPU utilization summed over the selected GPUs, in percent of one GPU.");
            value(&o, "gpu_tracker_gpu_utilization_percent", NULL, tp->gpu_sum_percent);
            family(&o, "gpu_tracker_gpus", "gauge", NULL, "Number of GPUs tracked.");
            value(&o, "gpu_tracker_gpus", NULL, tp->n_expected_gpus);
            if (tp->gpu_sm_valid) {
                const double sm[3] = {tp->gpu_sm_main, tp->gpu_sm_descendants, tp->gpu_sm_combined};
                four(&o, "gpu_tracker_gpu_process_utilization_percent", "gauge", "percent",
                     "SM utilization of the tracked processes, summed over the selected GPUs.", sm, 3);
            }
            gpu_devices(&o, tp);
        }
        if (own)
            own_families(&o, own);
        family(&o, "gpu_tracker_elapsed_seconds", "gauge", "seconds", "Time since tracking started.");
        value(&o, "gpu_tracker_elapsed_seconds", NULL, tp->elapsed);
        family(&o, "gpu_tracker_last_sample_timestamp_seconds", "gauge", "seconds",
               "Unix time of the latest sample.");
        value(&o, "gpu_tracker_last_sample_timestamp_seconds", NULL, tp->timestamp);
    }
    family(&o, "gpu_tracker_samples_total", "counter", NULL, "Samples taken since tracking started.");
    value(&o, "gpu_tracker_samples_total", NULL, tp ? (double)tp->n_samples : 0);
    if (openmetrics)
        put(&o, "# EOF\n");
    return o.len;
}
