/* SPDX-License-Identifier: MIT */
/* gt_plot_write: a tracking file (and optionally its sub-tracking file) read
 * through store/table.h into the charts of plot.h, written to a temporary
 * file beside the output and renamed into place when complete
 * (util/outfile.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi.h"
#include "analysis/calls.h"
#include "gpu_tracker.h"
#include "metric/metric.h"
#include "plot/plot.h"
#include "store/table.h"
#include "util/error.h"
#include "util/outfile.h"

/* Base-unit multiplier of a RAM unit name of the file's static data. */
static gt_status ram_scale(const gt_table *st, const char *column, double *scale, gt_error *err)
{
    int c = gt_table_find(st, column);
    const char *name = c >= 0 && gt_table_nrows(st) ? gt_table_text(st, c, 0) : NULL;
    gt_ram_unit u;
    if (!name || gt_ram_unit_parse(name, &u) != GT_OK)
        return gt_err(err, GT_ERR_FORMAT, "tracking file '%s': static data has no valid %s",
                      gt_table_path(st), column);
    *scale = pow(1000, (int)u);
    return GT_OK;
}

/* The numbers of column name (which the table must have). */
static gt_status numbers(gt_table *t, const char *name, const double **out, gt_error *err)
{
    int c = gt_table_find(t, name);
    *out = c >= 0 ? gt_table_numbers(t, c) : NULL;
    if (*out)
        return GT_OK;
    if (c < 0)
        return gt_err(err, GT_ERR_FORMAT, "'%s' has no column '%s'", gt_table_path(t), name);
    return gt_err(err, GT_ERR_NOMEM, "out of memory");
}

/* Adds the series of the named columns (labels parallel to columns). */
static gt_status add_series(gt_plot_chart *ch, gt_table *t, const char *const *labels, const char *const *cols,
                            int n, gt_error *err)
{
    for (int i = 0; i < n; i++) {
        gt_plot_series *s = &ch->series[ch->n_series++];
        s->label = labels[i];
        gt_status st = numbers(t, cols[i], &s->v, err);
        if (st != GT_OK)
            return st;
    }
    return GT_OK;
}

/* The chart kind of a metric table row's unit; -1: none draws it. */
static int plot_kind(gt_metric_unit unit)
{
    return unit == GT_MU_BYTES || unit == GT_MU_BYTES_PER_S ? GT_PLOT_BYTES
           : unit == GT_MU_PERCENT                          ? GT_PLOT_PERCENT
                                                            : -1;
}

/* Whether row m of the metric table is drawn by own_charts(). */
static int own_plotted(const gt_metric *m)
{
    return m->place == GT_METRIC_OWN && m->plot && plot_kind(m->unit) >= 0;
}

/* One chart per plot group of gpu-tracker's own quantities (the metric
 * table), in the table's order, its series the group's columns that the
 * file has: a file without them (an older one, the Python package's) gets
 * no chart for them. */
static gt_status own_charts(gt_plot_data *d, gt_table *tp, const char *path, gt_error *err)
{
    int first = d->n_charts;
    for (size_t r = 0; r < gt_metric_count; r++) {
        const gt_metric *m = &gt_metric_table[r];
        if (!own_plotted(m))
            continue;
        for (int k = 0; k < GT_METRIC_MAX_COLUMNS && m->col[k].name; k++) {
            const gt_metric_column *col = &m->col[k];
            if (gt_table_find(tp, col->name) < 0)
                continue;
            gt_plot_chart *ch = NULL;
            for (int c = first; c < d->n_charts && !ch; c++)
                if (!strcmp(d->charts[c].title, m->plot))
                    ch = &d->charts[c];
            if (!ch && d->n_charts == GT_PLOT_MAX_CHARTS)
                return GT_OK;
            if (!ch) {
                ch = &d->charts[d->n_charts++];
                *ch = (gt_plot_chart){.title = m->plot, .kind = (gt_plot_kind)plot_kind(m->unit),
                                      .y_label = m->unit == GT_MU_BYTES_PER_S ? "per second" : NULL};
            }
            if (ch->n_series == GT_PLOT_MAX_SERIES)
                continue;
            gt_plot_series *s = &ch->series[ch->n_series++];
            s->label = col->label ? col->label : col->name;
            gt_status st = numbers(tp, col->name, &s->v, err);
            if (st == GT_OK)
                st = gt_table_check_range(path, col->name, s->v, gt_table_nrows(tp), -GT_TABLE_MAX_ABS_VALUE,
                                          GT_TABLE_MAX_ABS_VALUE, 1, err);
            if (st != GT_OK)
                return st;
        }
    }
    return GT_OK;
}

/* The calls of every code block, paired as the analysis pairs them
 * (analysis/calls.c), so a plot shows the calls `sub-track analyze` counts.
 * A call still open at the end of a process's marks (a run that was killed)
 * is drawn to end_ts, the last sample. */
static gt_status load_spans(const char *path, const char *host, double end_ts, gt_table **tab, gt_plot_span **out,
                            size_t *nout, gt_error *err)
{
    gt_status st = gt_table_read_columns(path, GT_TABLE_MARKS, gt_mark_columns, gt_mark_text_columns, tab, err);
    if (st != GT_OK)
        return st;
    /* One tracking file is one node's timeline: marks of several hosts on
     * it would mix nodes, so they are refused as analyze refuses them,
     * unless host picks that node's. */
    gt_block_set set;
    if ((st = gt_blocks_pair(*tab, &(gt_blocks_want){.host = host}, &set, err)) != GT_OK)
        return st;
    size_t total = 0;
    for (size_t b = 0; b < set.nblocks; b++)
        total += set.blocks[b].ncalls + set.blocks[b].nopen;
    gt_plot_span *sp = malloc((total ? total : 1) * sizeof *sp);
    if (!sp) {
        gt_block_set_free(&set);
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    }
    size_t k = 0;
    for (size_t b = 0; b < set.nblocks; b++) {
        const gt_block_calls *bc = &set.blocks[b];
        for (size_t c = 0; c < bc->ncalls; c++)
            sp[k++] = (gt_plot_span){bc->name, bc->calls[c].start, bc->calls[c].stop};
        for (size_t c = 0; c < bc->nopen; c++)
            sp[k++] = (gt_plot_span){bc->name, bc->open[c], end_ts > bc->open[c] ? end_ts : bc->open[c]};
    }
    gt_block_set_free(&set);
    *out = sp;
    *nout = k;
    return GT_OK;
}

static gt_status format_of(const char *path, gt_plot_format *fmt, gt_error *err)
{
    const char *dot = strrchr(path, '.');
    if (dot && (!strcmp(dot, ".html") || !strcmp(dot, ".htm")))
        *fmt = GT_PLOT_HTML;
    else if (dot && !strcmp(dot, ".svg"))
        *fmt = GT_PLOT_SVG;
    else
        return gt_err(err, GT_ERR_INVALID, "invalid plot file '%s': the name must end in .html or .svg", path);
    return GT_OK;
}

/* Renders through util/outfile.h, so a failed run never leaves a
 * half-written plot under the real name, nor an older plot cut short. */
static gt_status write_atomically(const gt_plot_data *d, gt_plot_format fmt, const char *out_path, gt_error *err)
{
    gt_outfile o;
    gt_status st = gt_outfile_open(out_path, "plot file", &o, err);
    if (st != GT_OK)
        return st;
    if ((st = gt_plot_render(d, fmt, o.f, err)) != GT_OK) {
        gt_outfile_discard(&o);
        return st;
    }
    return gt_outfile_commit(&o, err);
}

static const gt_plot_options plot_defaults = GT_PLOT_OPTIONS_INIT;

gt_status gt_plot_options_init(gt_plot_options *o, unsigned int version)
{
    return gt_abi_init(GT_ABI_PLOT_OPTIONS, &plot_defaults, o, version);
}

gt_status gt_plot_write(const char *tracking_file, const char *out_path, const gt_plot_options *opts, gt_error *err)
{
    gt_error scratch;
    if (!err)
        err = &scratch;
    if (!tracking_file || !out_path)
        return gt_err(err, GT_ERR_INVALID, "a tracking file and an output file are required");
    gt_plot_options o;
    gt_status st = gt_abi_take(GT_ABI_PLOT_OPTIONS, opts, &plot_defaults, &o, sizeof o, err);
    if (st != GT_OK)
        return st;
    const char *sub_tracking_file = o.sub_tracking_file, *host = o.host;
    gt_plot_format fmt = GT_PLOT_HTML;
    if ((st = format_of(out_path, &fmt, err)) != GT_OK)
        return st;
    /* Only the static columns it uses: gpu-tracker's own after them (the
     * host, a model's complexity) are text of any kind. */
    static const char *const static_cols[] = {"?ram_unit", "?gpu_ram_unit", "?n_expected_gpus", NULL};
    static const char *const static_text[] = {"ram_unit", "gpu_ram_unit", NULL};
    static const char *const sets[] = {"main", "descendants", "combined", "system"};
    static const char *const ram_cols[] = {"main_ram", "descendants_ram", "combined_ram", "system_ram"};
    static const char *const gpu_ram_cols[] = {"main_gpu_ram", "descendants_gpu_ram", "combined_gpu_ram",
                                               "system_gpu_ram"};
    static const char *const cpu_cols[] = {"cpu_main_sum_utilization_percent",
                                           "cpu_descendants_sum_utilization_percent",
                                           "cpu_combined_sum_utilization_percent",
                                           "cpu_system_sum_utilization_percent"};
    static const char *const gpu_label[] = {"sum"}, *const gpu_cols[] = {"gpu_sum_utilization_percent"};
    /* Only the drawn columns are parsed: a long file reads in a fraction of
     * the time. */
    static const char *const wanted[] = {"timestamp", "main_ram", "descendants_ram", "combined_ram", "system_ram",
                                         "main_gpu_ram", "descendants_gpu_ram", "combined_gpu_ram",
                                         "system_gpu_ram", "gpu_sum_utilization_percent",
                                         "cpu_main_sum_utilization_percent",
                                         "cpu_descendants_sum_utilization_percent",
                                         "cpu_combined_sum_utilization_percent",
                                         "cpu_system_sum_utilization_percent", NULL};
    /* gpu-tracker's power columns, drawn where the file has them: the RAPL
     * domain kinds, then GPUs by the vendor's device index (0 to
     * MAX_GPU_INDEX, far beyond any one machine's GPU count). */
    static const char *const rapl_power[] = {"package", "core", "uncore", "dram", "psys"};
    enum { N_RAPL = sizeof rapl_power / sizeof *rapl_power, N_BASE = sizeof wanted / sizeof *wanted - 1,
           MAX_GPU_INDEX = 63, N_POWER = N_RAPL + MAX_GPU_INDEX + 1, N_OWN = GT_METRIC_NOWN_COLUMNS };
    char power_names[N_POWER][40], own_names[N_OWN][72];
    const char *want[N_BASE + N_OWN + N_POWER + 1];
    int n_want = 0;
    for (int i = 0; i < N_BASE; i++)
        want[n_want++] = wanted[i];
    /* gpu-tracker's own columns that own_charts() draws, where the file
     * has them ("?": optional). */
    for (size_t r = 0; r < gt_metric_count; r++)
        for (int k = 0; own_plotted(&gt_metric_table[r]) && k < GT_METRIC_MAX_COLUMNS &&
                        gt_metric_table[r].col[k].name && n_want - N_BASE < N_OWN;
             k++) {
            snprintf(own_names[n_want - N_BASE], sizeof own_names[0], "?%s", gt_metric_table[r].col[k].name);
            want[n_want] = own_names[n_want - N_BASE];
            n_want++;
        }
    for (int k = 0; k < N_POWER; k++) {
        if (k < N_RAPL)
            snprintf(power_names[k], sizeof power_names[k], "?%s_power_watts", rapl_power[k]);
        else
            snprintf(power_names[k], sizeof power_names[k], "?gpu_%d_power_watts", k - N_RAPL);
        want[n_want++] = power_names[k];
    }
    want[n_want] = NULL;
    char power_titles[GT_PLOT_MAX_CHARTS][48];
    gt_table *stat = NULL, *tp = NULL, *marks = NULL;
    gt_plot_span *spans = NULL;
    size_t n_spans = 0;
    double ram_sc = 1, gpu_sc = 1;
    const double *ts, *gpus;
    if ((st = gt_table_read_columns(tracking_file, GT_TABLE_STATIC, static_cols, static_text, &stat, err)) != GT_OK ||
        (st = ram_scale(stat, "ram_unit", &ram_sc, err)) != GT_OK ||
        (st = ram_scale(stat, "gpu_ram_unit", &gpu_sc, err)) != GT_OK ||
        (st = numbers(stat, "n_expected_gpus", &gpus, err)) != GT_OK ||
        (st = gt_table_read_columns(tracking_file, GT_TABLE_TIMEPOINTS, want, NULL, &tp, err)) != GT_OK ||
        (st = numbers(tp, "timestamp", &ts, err)) != GT_OK)
        goto done;
    size_t n = gt_table_nrows(tp);
    if (n == 0) {
        st = gt_err(err, GT_ERR_FORMAT, "tracking file '%s' has no samples to plot", tracking_file);
        goto done;
    }
    if ((st = gt_table_check_range(tracking_file, "timestamp", ts, n, -GT_TABLE_MAX_ABS_TIMESTAMP,
                                   GT_TABLE_MAX_ABS_TIMESTAMP, 0, err)) != GT_OK)
        goto done;
    if (sub_tracking_file &&
        (st = load_spans(sub_tracking_file, host, ts[n - 1], &marks, &spans, &n_spans, err)) != GT_OK)
        goto done;
    const char *no_gpu = gt_table_nrows(stat) && gpus[0] > 0 ? NULL : "no GPU tracked";
    const char *base = strrchr(tracking_file, '/');
    gt_plot_data d = {.title = base ? base + 1 : tracking_file, .t = ts, .n = n, .n_charts = 4,
                      .spans = spans, .n_spans = n_spans};
    d.charts[0] = (gt_plot_chart){.title = "RAM (total RSS)", .kind = GT_PLOT_BYTES, .scale = ram_sc};
    d.charts[1] = (gt_plot_chart){.title = "GPU RAM", .kind = GT_PLOT_BYTES, .note = no_gpu, .scale = gpu_sc};
    d.charts[2] = (gt_plot_chart){.title = "CPU utilization", .y_label = "of one core", .kind = GT_PLOT_PERCENT};
    d.charts[3] = (gt_plot_chart){.title = "GPU utilization", .y_label = "of one GPU (sum over GPUs)",
                                  .kind = GT_PLOT_PERCENT, .note = no_gpu};
    if ((st = add_series(&d.charts[0], tp, sets, ram_cols, 4, err)) != GT_OK ||
        (st = add_series(&d.charts[1], tp, sets, gpu_ram_cols, 4, err)) != GT_OK ||
        (st = add_series(&d.charts[2], tp, sets, cpu_cols, 4, err)) != GT_OK ||
        (st = add_series(&d.charts[3], tp, gpu_label, gpu_cols, 1, err)) != GT_OK)
        goto done;
    for (int c = 1; wanted[c]; c++) {
        const double *v;
        if ((st = numbers(tp, wanted[c], &v, err)) != GT_OK ||
            (st = gt_table_check_range(tracking_file, wanted[c], v, n, -GT_TABLE_MAX_ABS_VALUE,
                                       GT_TABLE_MAX_ABS_VALUE, 1, err)) != GT_OK)
            goto done;
    }
    if ((st = own_charts(&d, tp, tracking_file, err)) != GT_OK)
        goto done;
    /* One chart per power column, in the file's order (empty cells, as in
     * the first row, are gaps). */
    for (int k = 0; k < N_POWER && d.n_charts < GT_PLOT_MAX_CHARTS; k++) {
        const char *col = power_names[k] + 1; /* without the '?' */
        if (gt_table_find(tp, col) < 0)
            continue;
        gt_plot_chart *ch = &d.charts[d.n_charts];
        int len = (int)(strlen(col) - strlen("_power_watts"));
        snprintf(power_titles[d.n_charts], sizeof power_titles[d.n_charts], "Power: %.*s", len, col);
        *ch = (gt_plot_chart){.title = power_titles[d.n_charts], .y_label = "over each sample interval",
                              .kind = GT_PLOT_WATTS, .n_series = 1};
        ch->series[0].label = power_titles[d.n_charts] + strlen("Power: ");
        if ((st = numbers(tp, col, &ch->series[0].v, err)) != GT_OK ||
            (st = gt_table_check_range(tracking_file, col, ch->series[0].v, n, -GT_TABLE_MAX_ABS_VALUE,
                                       GT_TABLE_MAX_ABS_VALUE, 1, err)) != GT_OK)
            goto done;
        d.n_charts++;
    }
    st = write_atomically(&d, fmt, out_path, err);
done:
    free(spans);
    gt_table_free(&marks);
    gt_table_free(&tp);
    gt_table_free(&stat);
    return st;
}
