/* SPDX-License-Identifier: MIT */
/* gt_merge_files: the job report of several tracking files.
 *
 * Each file is read, reduced and released before the next, so memory holds
 * one file plus the grid (a few doubles per step of the job's span), which
 * is what lets a 1,000-node job merge on a laptop.  Files are aligned on a
 * grid of fixed steps from the Unix epoch: clocks of cluster nodes agree to
 * well under a second, and samples of different nodes never share exact
 * timestamps, so summing "at the same time" needs steps, not timestamps. */
#include "analysis/merge.h"
#include "abi.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perproc/perproc.h"
#include "store/side.h"
#include "store/table.h"
#include "util/error.h"
#include "util/units.h"

/* A span longer than this many steps is refused rather than allocated:
 * a year at one second, far beyond any job, but a bad timestamp would
 * otherwise ask for terabytes.  Step numbers themselves stay far inside a
 * long: timestamps are at most GT_TABLE_MAX_ABS_TIMESTAMP in magnitude
 * (read_series) and steps at least GT_MERGE_MIN_ALIGN seconds, so a step
 * number is at most 1e14 in magnitude and a span at most twice that. */
#define MAX_STEPS 40000000L

static const char *const series_columns[GT_MERGE_NSERIES] = {
    [GT_MERGE_RAM] = "combined_ram",
    [GT_MERGE_GPU_RAM] = "combined_gpu_ram",
    [GT_MERGE_CPU] = "cpu_combined_sum_utilization_percent",
    [GT_MERGE_GPU] = "gpu_sum_utilization_percent",
};

/* The time grid: sums across files of each series, step k at index k - base. */
typedef struct grid {
    long base, len;
    double *sum[GT_MERGE_NSERIES];
    int valid[GT_MERGE_NSERIES]; /* some file had a value of this series */
} grid;

static void grid_free(grid *g)
{
    for (int s = 0; s < GT_MERGE_NSERIES; s++)
        free(g->sum[s]);
}

/* Widens g to cover steps [k0, k1], new steps zero. */
static gt_status grid_cover(grid *g, long k0, long k1, gt_error *err)
{
    long base = g->len ? (k0 < g->base ? k0 : g->base) : k0;
    long end = g->len ? (k1 > g->base + g->len - 1 ? k1 : g->base + g->len - 1) : k1;
    long len = end - base + 1;
    if (len > MAX_STEPS)
        return gt_err(err, GT_ERR_FORMAT,
                      "the files span %ld steps of the grid, more than %ld: a timestamp is wrong, or "
                      "the grid step is too small",
                      len, MAX_STEPS);
    if (g->len && base == g->base && len == g->len)
        return GT_OK;
    for (int s = 0; s < GT_MERGE_NSERIES; s++) {
        double *p = calloc((size_t)len, sizeof *p);
        if (!p)
            return gt_err(err, GT_ERR_NOMEM, "out of memory for a grid of %ld steps", len);
        if (g->len)
            memcpy(p + (g->base - base), g->sum[s], (size_t)g->len * sizeof *p);
        free(g->sum[s]);
        g->sum[s] = p;
    }
    g->base = base;
    g->len = len;
    return GT_OK;
}

/* The columns of one file, as read; own[k]: own column k of the metric
 * table, NULL where the file has none. */
typedef struct series {
    size_t n;
    double *ts, *v[GT_MERGE_NSERIES], *energy[3], *own[GT_METRIC_NOWN_COLUMNS];
    int nenergy;
} series;

static void series_free(series *x)
{
    free(x->ts);
    for (int s = 0; s < GT_MERGE_NSERIES; s++)
        free(x->v[s]);
    for (int e = 0; e < 3; e++)
        free(x->energy[e]);
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++)
        free(x->own[k]);
}

/* For a file whose static data could not be read (err says why): when it
 * is a side file beside a tracking file, an error that says so and names
 * the tracking file to give instead; otherwise err as it is. */
static gt_status side_file_error(const char *path, gt_error *err)
{
    const char *table = gt_perproc_table_of(path);
    if (!table)
        return GT_ERR_FORMAT;
    size_t stem = gt_side_stem_len(path, table);
    if (stem)
        return gt_err(err, GT_ERR_FORMAT, "'%s' is not a tracking file: it is the '%s' table that %s writes beside "
                      "tracking file '%.*s.csv'; give that file instead", path, table, gt_perproc_option(table),
                      (int)stem, path);
    return gt_err(err, GT_ERR_FORMAT, "'%s' is not a tracking file: it is the '%s' table that %s writes beside "
                  "a tracking file; give that file instead", path, table, gt_perproc_option(table));
}

/* The request a file records (the Slurm variables of its run, as the
 * tracker stored them), parsed as --efficiency parses the environment;
 * where it records none, its machine's capacity.  *recorded: a Slurm
 * figure was found. */
static void read_request(const gt_table *t, gt_ram_unit ram, gt_request *req, int *recorded)
{
    static const char *const vars[][2] = {
        {"slurm_mem_per_node", "SLURM_MEM_PER_NODE"}, {"slurm_mem_per_cpu", "SLURM_MEM_PER_CPU"},
        {"slurm_cpus_on_node", "SLURM_CPUS_ON_NODE"}, {"slurm_gpus_on_node", "SLURM_GPUS_ON_NODE"},
        {"slurm_job_gpus", "SLURM_JOB_GPUS"}, {"slurm_cpus_per_task", "SLURM_CPUS_PER_TASK"},
        {"slurm_job_num_nodes", "SLURM_JOB_NUM_NODES"}, {"slurm_job_start_time", "SLURM_JOB_START_TIME"},
        {"slurm_job_end_time", "SLURM_JOB_END_TIME"}};
    enum { NVARS = sizeof vars / sizeof *vars };
    char env_text[NVARS][96];
    const char *env[NVARS + 1];
    size_t n = 0;
    for (size_t i = 0; i < NVARS; i++) {
        int c = gt_table_find(t, vars[i][0]);
        const char *v = c >= 0 ? gt_table_text(t, c, 0) : NULL;
        if (v && *v && snprintf(env_text[n], sizeof env_text[n], "%s=%s", vars[i][1], v) < (int)sizeof env_text[n])
            env[n] = env_text[n], n++;
    }
    env[n] = NULL;
    gt_request_init(req);
    gt_request_from_env(env, req);
    *recorded = req->mem_bytes >= 0 || req->cores >= 0 || req->gpus >= 0;
    int cap = gt_table_find(t, "ram_system_capacity"), cores = gt_table_find(t, "system_core_count");
    double mem = cap >= 0 ? gt_table_number(t, cap, 0) / gt_ram_in_unit(1.0, ram)
                          : NAN;
    if (req->mem_bytes < 0 && mem > 0) {
        req->mem_bytes = round(mem);
        req->mem_source = "machine capacity";
    }
    double c = cores >= 0 ? gt_table_number(t, cores, 0) : NAN;
    if (req->cores < 0 && c > 0) {
        req->cores = c;
        req->cores_source = "machine capacity";
    }
}

/* The file's units, its host and Slurm task where its static data records
 * them (NULL otherwise; "" counts as not recorded), and its request. */
static gt_status read_static(const char *path, gt_ram_unit *ram, gt_ram_unit *gpu_ram, char **host, char **task,
                             gt_request *req, int *recorded, int *has_gpus, gt_error *err)
{
    static const char *const cols[] = {"ram_unit", "gpu_ram_unit", "?host", "?slurm_task_id", "?n_expected_gpus",
                                       "?ram_system_capacity", "?system_core_count", "?slurm_mem_per_node",
                                       "?slurm_mem_per_cpu", "?slurm_cpus_on_node", "?slurm_gpus_on_node",
                                       "?slurm_job_gpus", "?slurm_cpus_per_task", "?slurm_job_num_nodes",
                                       "?slurm_job_start_time", "?slurm_job_end_time", NULL};
    static const char *const text[] = {"ram_unit", "gpu_ram_unit", "host", "slurm_task_id", "slurm_mem_per_node",
                                       "slurm_mem_per_cpu", "slurm_cpus_on_node", "slurm_gpus_on_node",
                                       "slurm_job_gpus", "slurm_cpus_per_task", "slurm_job_num_nodes",
                                       "slurm_job_start_time", "slurm_job_end_time", NULL};
    gt_table *t = NULL;
    *host = *task = NULL;
    gt_status st = gt_table_read_columns(path, GT_TABLE_STATIC, cols, text, &t, err);
    if (st == GT_ERR_FORMAT)
        return side_file_error(path, err);
    if (st != GT_OK)
        return st;
    if (gt_table_nrows(t) < 1) {
        st = gt_err(err, GT_ERR_FORMAT, "tracking file '%s' has no static data", path);
    } else if (gt_ram_unit_parse(gt_table_text(t, 0, 0), ram) != GT_OK ||
               gt_ram_unit_parse(gt_table_text(t, 1, 0), gpu_ram) != GT_OK) {
        st = gt_err(err, GT_ERR_FORMAT, "tracking file '%s': invalid RAM unit '%s' or '%s': must be one of " GT_RAM_UNITS_VALID,
                    path, gt_table_text(t, 0, 0), gt_table_text(t, 1, 0));
    } else {
        int h = gt_table_find(t, "host"), k = gt_table_find(t, "slurm_task_id");
        const char *hv = h >= 0 ? gt_table_text(t, h, 0) : NULL, *kv = k >= 0 ? gt_table_text(t, k, 0) : NULL;
        if ((hv && *hv && !(*host = strdup(hv))) || (kv && *kv && !(*task = strdup(kv))))
            st = gt_err(err, GT_ERR_NOMEM, "out of memory reading '%s'", path);
        read_request(t, *ram, req, recorded);
        int g = gt_table_find(t, "n_expected_gpus");
        *has_gpus = g >= 0 && gt_table_number(t, g, 0) > 0;
    }
    gt_table_free(&t);
    return st;
}

/* Room for an own column's name with its '?' before it and its NUL. */
#define OWN_NAME_MAX 64

/* The columns read_series reads: the series, the energy columns (those of
 * with_energy, or none), then each own column of the metric table as an
 * optional one ("?name"), so that a file written before the row existed
 * is read without it; names NULL-terminated, the own names in buf.
 * GT_ERR_INVALID where an own column's name does not fit buf. */
static gt_status series_columns_of(const char *const *base, char buf[][OWN_NAME_MAX], const char **names,
                                   gt_error *err)
{
    size_t n = 0;
    while (base[n]) {
        names[n] = base[n];
        n++;
    }
    const gt_metric_column *c;
    for (int k = 0; (c = gt_metric_own_column(k, NULL)) != NULL; k++) {
        if (snprintf(buf[k], OWN_NAME_MAX, "?%s", c->name) >= OWN_NAME_MAX)
            return gt_err(err, GT_ERR_INVALID, "merge: the metric table's column '%s' has a name longer than %d",
                          c->name, OWN_NAME_MAX - 2);
        names[n++] = buf[k];
    }
    names[n] = NULL;
    return GT_OK;
}

/* Reads the series and, when the file has them, gpu-tracker's three energy
 * columns (the Python package's files have none) and own columns. */
static gt_status read_series(const char *path, series *x, gt_error *err)
{
    static const char *const with_energy[] = {
        "timestamp", "combined_ram", "combined_gpu_ram", "cpu_combined_sum_utilization_percent",
        "gpu_sum_utilization_percent", "cpu_energy_joules", "dram_energy_joules", "gpu_energy_joules", NULL};
    static const char *const without_energy[] = {
        "timestamp", "combined_ram", "combined_gpu_ram", "cpu_combined_sum_utilization_percent",
        "gpu_sum_utilization_percent", NULL};
    char own_names[GT_METRIC_NOWN_COLUMNS][OWN_NAME_MAX];
    const char *names[sizeof with_energy / sizeof *with_energy + GT_METRIC_NOWN_COLUMNS];
    gt_table *t = NULL;
    gt_status st = series_columns_of(with_energy, own_names, names, err);
    if (st != GT_OK)
        return st;
    st = gt_table_read_columns(path, GT_TABLE_TIMEPOINTS, names, NULL, &t, err);
    x->nenergy = 3;
    if (st == GT_ERR_FORMAT) {
        series_columns_of(without_energy, own_names, names, err);
        st = gt_table_read_columns(path, GT_TABLE_TIMEPOINTS, names, NULL, &t, err);
        x->nenergy = 0;
    }
    if (st != GT_OK)
        return st;
    size_t n = x->n = gt_table_nrows(t);
    size_t sz = (n ? n : 1) * sizeof(double);
    if (!(x->ts = malloc(sz)))
        goto nomem;
    gt_table_copy_numbers(t, 0, 0, n, x->ts);
    for (int s = 0; s < GT_MERGE_NSERIES; s++) {
        if (!(x->v[s] = malloc(sz)))
            goto nomem;
        gt_table_copy_numbers(t, gt_table_find(t, series_columns[s]), 0, n, x->v[s]);
    }
    for (int e = 0; e < x->nenergy; e++) {
        if (!(x->energy[e] = malloc(sz)))
            goto nomem;
        gt_table_copy_numbers(t, 5 + e, 0, n, x->energy[e]);
    }
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++) {
        int c = gt_table_find(t, gt_metric_own_column(k, NULL)->name);
        if (c < 0)
            continue;
        if (!(x->own[k] = malloc(sz)))
            goto nomem;
        gt_table_copy_numbers(t, c, 0, n, x->own[k]);
    }
    gt_table_free(&t);
    /* A clock reading in every sample, memory and percents never negative,
     * energy (joules since the first sample) bounded in magnitude as plot
     * bounds it: beyond these, grid steps and sums would be nonsense. */
    st = gt_table_check_range(path, "timestamp", x->ts, n, -GT_TABLE_MAX_ABS_TIMESTAMP, GT_TABLE_MAX_ABS_TIMESTAMP,
                              0, err);
    for (int s = 0; s < GT_MERGE_NSERIES && st == GT_OK; s++)
        st = gt_table_check_range(path, series_columns[s], x->v[s], n, 0, GT_TABLE_MAX_ABS_VALUE, 1, err);
    for (int e = 0; e < x->nenergy && st == GT_OK; e++)
        st = gt_table_check_range(path, with_energy[5 + e], x->energy[e], n, -GT_TABLE_MAX_ABS_VALUE,
                                  GT_TABLE_MAX_ABS_VALUE, 1, err);
    /* Byte counts, rates, percents and counts: never negative. */
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS && st == GT_OK; k++)
        if (x->own[k])
            st = gt_table_check_range(path, gt_metric_own_column(k, NULL)->name, x->own[k], n, 0,
                                      GT_TABLE_MAX_ABS_VALUE, 1, err);
    if (st != GT_OK)
        return st;
    for (size_t i = 1; i < n; i++)
        if (x->ts[i] < x->ts[i - 1])
            return gt_err(err, GT_ERR_FORMAT, "tracking file '%s': timestamp of sample %zu is earlier than the one "
                          "before", path, i + 1);
    return GT_OK;
nomem:
    gt_table_free(&t);
    return gt_err(err, GT_ERR_NOMEM, "out of memory reading '%s'", path);
}

static double ram_convert(double v, gt_ram_unit from, gt_ram_unit to)
{
    return from == to ? v : gt_ram_in_unit(v / gt_ram_in_unit(1.0, from), to);
}

/* The file's own figures from its series. */
static void reduce(const series *x, gt_merge_part *p)
{
    p->samples = x->n;
    p->start = x->n ? x->ts[0] : NAN;
    p->stop = x->n ? x->ts[x->n - 1] : NAN;
    for (int s = 0; s < GT_MERGE_NSERIES; s++) {
        double m = NAN;
        for (size_t i = 0; i < x->n; i++)
            if (!isnan(x->v[s][i]) && (isnan(m) || x->v[s][i] > m))
                m = x->v[s][i];
        p->max[s] = m;
    }
    /* A CPU percent is the use over the interval that ends at its sample;
     * the first one in a file covers all the time since the first sample
     * (samples before it had no figure yet: docs/measurements.md). */
    double sum = 0, secs = 0;
    size_t count = 0;
    const double *cpu = x->v[GT_MERGE_CPU];
    for (size_t i = 0; i < x->n; i++) {
        if (isnan(cpu[i]))
            continue;
        secs += cpu[i] / 100.0 * (x->ts[i] - x->ts[count ? i - 1 : 0]);
        sum += cpu[i];
        count++;
    }
    p->mean_cpu_percent = count ? sum / (double)count : NAN;
    p->cpu_seconds = count ? secs : NAN;
    p->energy_joules = NAN;
    for (int e = 0; e < x->nenergy; e++) {
        double first = NAN, last = NAN;
        for (size_t i = 0; i < x->n; i++)
            if (!isnan(x->energy[e][i])) {
                if (isnan(first))
                    first = x->energy[e][i];
                last = x->energy[e][i];
            }
        if (!isnan(first))
            p->energy_joules = (isnan(p->energy_joules) ? 0 : p->energy_joules) + (last - first);
    }
    /* Each own column as the run's aggregate folds it, sample by sample,
     * each value weighing the interval it ends. */
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++) {
        p->own[k] = (gt_metric_acc){0};
        for (size_t i = 0; x->own[k] && i < x->n; i++)
            gt_metric_acc_add(&p->own[k], x->own[k][i], i ? x->ts[i] - x->ts[i - 1] : 0);
    }
}

/* Adds the file into the grid: in each step it counts with the largest
 * value its sample-and-hold series takes there: its last value before the
 * step (a node between two samples still holds its memory, so it held that
 * until its first sample in the step) and what it sampled in the step. */
static gt_status add_to_grid(grid *g, const series *x, double align, gt_error *err)
{
    if (!x->n)
        return GT_OK;
    long k0 = (long)floor(x->ts[0] / align), k1 = (long)floor(x->ts[x->n - 1] / align);
    gt_status st = grid_cover(g, k0, k1, err);
    if (st != GT_OK)
        return st;
    double held[GT_MERGE_NSERIES];
    for (int s = 0; s < GT_MERGE_NSERIES; s++)
        held[s] = NAN;
    size_t i = 0;
    for (long k = k0; k <= k1; k++) {
        /* Held into the step unless a sample opens it exactly. */
        int opened = i < x->n && x->ts[i] == (double)k * align;
        double step_max[GT_MERGE_NSERIES];
        for (int s = 0; s < GT_MERGE_NSERIES; s++)
            step_max[s] = opened ? NAN : held[s];
        for (; i < x->n && (long)floor(x->ts[i] / align) == k; i++)
            for (int s = 0; s < GT_MERGE_NSERIES; s++) {
                double v = x->v[s][i];
                if (isnan(v))
                    continue;
                if (isnan(step_max[s]) || v > step_max[s])
                    step_max[s] = v;
                held[s] = v;
            }
        for (int s = 0; s < GT_MERGE_NSERIES; s++) {
            double v = step_max[s];
            if (!isnan(v)) {
                g->sum[s][k - g->base] += v;
                g->valid[s] = 1;
            }
        }
    }
    return GT_OK;
}

static char *stem(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
    return strndup(b, n);
}

/* The maxima over the grid's steps of each series, and the start of the
 * step where each is (NaN for a series no file had). */
static void grid_peaks(const grid *g, double align, double *peak, double *peak_time)
{
    for (int s = 0; s < GT_MERGE_NSERIES; s++) {
        peak[s] = peak_time[s] = NAN;
        if (!g->valid[s])
            continue;
        for (long k = 0; k < g->len; k++)
            if (isnan(peak[s]) || g->sum[s][k] > peak[s]) {
                peak[s] = g->sum[s][k];
                peak_time[s] = (double)(g->base + k) * align;
            }
    }
}

/* Adds a node's grid into the job's: the job is the sum of its nodes. */
static gt_status add_grid(grid *job, const grid *node, gt_error *err)
{
    if (!node->len)
        return GT_OK;
    gt_status st = grid_cover(job, node->base, node->base + node->len - 1, err);
    if (st != GT_OK)
        return st;
    for (int s = 0; s < GT_MERGE_NSERIES; s++) {
        if (!node->valid[s])
            continue;
        job->valid[s] = 1;
        for (long k = 0; k < node->len; k++)
            job->sum[s][node->base - job->base + k] += node->sum[s][k];
    }
    return GT_OK;
}

static double add_nan(double total, double v)
{
    return isnan(v) ? total : (isnan(total) ? 0 : total) + v;
}

static int by_index(const void *a, const void *b)
{
    const gt_merge_gpu *x = a, *y = b;
    return x->index != y->index ? (x->index > y->index) - (x->index < y->index) : strcmp(x->uuid, y->uuid);
}

/* A node's totals from its files' figures (its peaks come from its grid). */
static void finish_node(const gt_merge *m, gt_merge_node *nd, size_t index)
{
    nd->cpu_seconds = nd->energy_joules = nd->start = nd->stop = NAN;
    if (nd->ngpus)
        qsort(nd->gpus, nd->ngpus, sizeof *nd->gpus, by_index);
    for (size_t i = 0; i < m->nparts; i++) {
        const gt_merge_part *p = &m->parts[i];
        if (p->node != index)
            continue;
        nd->files_with_gpus += p->has_gpus;
        nd->files_with_gpu_table += p->has_gpu_table;
        nd->samples += p->samples;
        nd->cpu_seconds = add_nan(nd->cpu_seconds, p->cpu_seconds);
        if (!isnan(p->energy_joules) && (isnan(nd->energy_joules) || p->energy_joules > nd->energy_joules))
            nd->energy_joules = p->energy_joules;
        if (!isnan(p->start) && (isnan(nd->start) || p->start < nd->start))
            nd->start = p->start;
        if (!isnan(p->stop) && (isnan(nd->stop) || p->stop > nd->stop))
            nd->stop = p->stop;
    }
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++)
        nd->own[k] = gt_merge_own(m, index, k);
}

double gt_merge_own(const gt_merge *m, size_t node, int k)
{
    const gt_metric *row;
    if (!gt_metric_own_column(k, &row))
        return NAN;
    double total = 0, start = NAN, stop = NAN;
    size_t files = 0;
    for (size_t i = 0; i < m->nparts; i++) {
        const gt_merge_part *p = &m->parts[i];
        if (node != SIZE_MAX && p->node != node)
            continue;
        const gt_metric_acc *a = &p->own[k];
        /* A file without a figure leaves the sum unknown: its processes'
         * bytes are not 0. */
        if (!a->n)
            return NAN;
        files++;
        switch (row->agg) {
        case GT_MA_LAST:
        case GT_MA_SUM: total += gt_metric_acc_figure(a, row->agg); break;
        case GT_MA_TIME_MEAN:
            total += a->wsum;
            if (isnan(start) || p->start < start)
                start = p->start;
            if (isnan(stop) || p->stop > stop)
                stop = p->stop;
            break;
        case GT_MA_MAX:
        case GT_MA_NONE: return NAN;
        }
    }
    if (!files)
        return NAN;
    if (row->agg == GT_MA_TIME_MEAN)
        return stop > start ? total / (stop - start) : NAN;
    return total;
}

/* The job's figures once every node is in the grid. */
static void finish(gt_merge *m, const grid *g)
{
    grid_peaks(g, m->align, m->peak, m->peak_time);
    m->cpu_seconds = m->energy_joules = m->start = m->stop = NAN;
    for (size_t n = 0; n < m->nnodes; n++) {
        const gt_merge_node *nd = &m->nodes[n];
        m->cpu_seconds = add_nan(m->cpu_seconds, nd->cpu_seconds);
        m->energy_joules = add_nan(m->energy_joules, nd->energy_joules);
        if (!isnan(nd->start) && (isnan(m->start) || nd->start < m->start))
            m->start = nd->start;
        if (!isnan(nd->stop) && (isnan(m->stop) || nd->stop > m->stop))
            m->stop = nd->stop;
    }
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++)
        m->own[k] = gt_merge_own(m, SIZE_MAX, k);
    double largest = NAN;
    for (size_t i = 0; i < m->nparts; i++) {
        const gt_merge_part *p = &m->parts[i];
        if (!isnan(p->max[GT_MERGE_RAM]) && (isnan(largest) || p->max[GT_MERGE_RAM] > largest)) {
            largest = p->max[GT_MERGE_RAM];
            m->largest = i;
        }
    }
}

/* Reads the static data of every file: units, and the node each belongs
 * to.  Files naming the same host share a node, in the order of the first;
 * a file naming none is a node of its own, called after the file. */
static gt_status assign_nodes(gt_merge *m, const char *const *paths, size_t n, gt_ram_unit *units,
                              gt_error *err)
{
    for (size_t i = 0; i < n; i++) {
        gt_merge_part *p = &m->parts[m->nparts++];
        char *host = NULL;
        gt_status st;
        if (!(p->name = stem(paths[i])) || !(p->path = strdup(paths[i])))
            return gt_err(err, GT_ERR_NOMEM, "out of memory");
        int recorded = 0;
        if ((st = read_static(paths[i], &units[2 * i], &units[2 * i + 1], &host, &p->task, &p->request, &recorded,
                              &p->has_gpus, err)) != GT_OK)
            return st;
        m->with_request += recorded;
        size_t k = 0;
        while (host && k < m->nnodes && (m->nodes[k].own_file || strcmp(m->nodes[k].name, host) != 0))
            k++;
        if (!host || k == m->nnodes) {
            gt_merge_node *nd = &m->nodes[m->nnodes];
            nd->own_file = !host;
            nd->name = host ? host : strdup(p->name);
            if (!nd->name)
                return gt_err(err, GT_ERR_NOMEM, "out of memory");
            host = NULL;
            k = m->nnodes++;
        }
        free(host);
        if (m->nodes[k].own_file)
            m->without_node++;
        m->nodes[k].nparts++;
        p->node = k;
    }
    return GT_OK;
}

/* Reads file i, reduces it to its figures and adds it into g. */
static gt_status add_file(gt_merge *m, size_t i, const gt_ram_unit *units, grid *g, gt_error *err)
{
    series x = {0};
    gt_merge_part *p = &m->parts[i];
    gt_status st = read_series(p->path, &x, err);
    if (st == GT_OK) {
        for (size_t k = 0; k < x.n; k++) {
            x.v[GT_MERGE_RAM][k] = ram_convert(x.v[GT_MERGE_RAM][k], units[2 * i], m->ram_unit);
            x.v[GT_MERGE_GPU_RAM][k] = ram_convert(x.v[GT_MERGE_GPU_RAM][k], units[2 * i + 1], m->gpu_ram_unit);
        }
        for (int c = 0; c < GT_METRIC_NOWN_COLUMNS; c++) {
            const gt_metric *row;
            gt_metric_own_column(c, &row);
            int ram = row->unit == GT_MU_RAM, gpu = row->unit == GT_MU_GPU_RAM;
            for (size_t k = 0; x.own[c] && (ram || gpu) && k < x.n; k++)
                x.own[c][k] = ram ? ram_convert(x.own[c][k], units[2 * i], m->ram_unit)
                                  : ram_convert(x.own[c][k], units[2 * i + 1], m->gpu_ram_unit);
        }
        reduce(&x, p);
        st = add_to_grid(g, &x, m->align, err);
    }
    if (st == GT_OK)
        st = gt_merge_add_gpu_rows(m, p, units[2 * i + 1], err);
    series_free(&x);
    return st;
}

static const gt_merge_options merge_defaults = GT_MERGE_OPTIONS_INIT;

gt_status gt_merge_options_init(gt_merge_options *o, unsigned int version)
{
    return gt_abi_init(GT_ABI_MERGE_OPTIONS, &merge_defaults, o, version);
}

gt_status gt_merge_files(const char *const *paths, size_t n, const gt_merge_options *opts, gt_merge **out,
                         gt_error *err)
{
    if (!out)
        return gt_err(err, GT_ERR_INVALID, "merge: no place for the report");
    *out = NULL;
    gt_merge_options o;
    gt_status st = gt_abi_take(GT_ABI_MERGE_OPTIONS, opts, &merge_defaults, &o, sizeof o, err);
    if (st != GT_OK)
        return st;
    double align_seconds = o.align_seconds;
    if (!paths || n == 0)
        return gt_err(err, GT_ERR_INVALID, "merge: no tracking file given");
    for (size_t i = 0; i < n; i++)
        if (!paths[i])
            return gt_err(err, GT_ERR_INVALID, "merge: tracking file %zu is NULL", i + 1);
    if (!(align_seconds >= GT_MERGE_MIN_ALIGN) || !isfinite(align_seconds))
        return gt_err(err, GT_ERR_INVALID, "merge: invalid grid step %g: must be a number of seconds, at least %g",
                      align_seconds, GT_MERGE_MIN_ALIGN);
    gt_merge *m = calloc(1, sizeof *m);
    gt_ram_unit *units = calloc(2 * n, sizeof *units);
    grid g = {0};
    if (!m || !units || !(m->parts = calloc(n, sizeof *m->parts)) || !(m->nodes = calloc(n, sizeof *m->nodes))) {
        if (m)
            free(m->parts);
        free(m);
        free(units);
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    }
    m->align = align_seconds;
    st = assign_nodes(m, paths, n, units, err);
    m->ram_unit = units[0];
    m->gpu_ram_unit = units[1];
    /* Node by node, so memory holds two grids and one file. */
    for (size_t k = 0; k < m->nnodes && st == GT_OK; k++) {
        grid node = {0};
        for (size_t i = 0; i < m->nparts && st == GT_OK; i++)
            if (m->parts[i].node == k)
                st = add_file(m, i, units, &node, err);
        if (st == GT_OK) {
            grid_peaks(&node, m->align, m->nodes[k].peak, m->nodes[k].peak_time);
            finish_node(m, &m->nodes[k], k);
            st = add_grid(&g, &node, err);
        }
        grid_free(&node);
    }
    if (st == GT_OK)
        finish(m, &g);
    grid_free(&g);
    free(units);
    if (st != GT_OK)
        gt_merge_free(&m);
    *out = m;
    return st;
}

void gt_merge_free(gt_merge **m)
{
    if (!m || !*m)
        return;
    for (size_t i = 0; i < (*m)->nparts; i++) {
        free((*m)->parts[i].name);
        free((*m)->parts[i].path);
        free((*m)->parts[i].task);
    }
    for (size_t i = 0; i < (*m)->nnodes; i++) {
        free((*m)->nodes[i].name);
        free((*m)->nodes[i].gpus);
    }
    free((*m)->nodes);
    free((*m)->parts);
    free(*m);
    *m = NULL;
}
