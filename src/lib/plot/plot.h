/* SPDX-License-Identifier: MIT */
/* Timeline charts of a tracking session, drawn from series in memory: one
 * chart per quantity (RAM, GPU RAM, CPU, GPU, gpu-tracker's own such as disk
 * I/O, and the power of each energy domain where the file has power
 * columns), code blocks as labelled spans
 * on the time axis.  Output is a self-contained HTML page (inline SVG and
 * CSS; no script, nothing fetched) or a standalone SVG file. */
#ifndef GT_PLOT_PLOT_H
#define GT_PLOT_PLOT_H
#include <stddef.h>
#include <stdio.h>

#include "gpu_tracker.h"

#define GT_PLOT_MAX_SERIES 4
/* RAM, GPU RAM, CPU, GPU, one chart per plot group of gpu-tracker's own
 * quantities (the metric table), then one power chart per domain (RAPL
 * kinds and GPUs) a tracking file has. */
#define GT_PLOT_MAX_CHARTS 32

typedef enum gt_plot_kind {
    GT_PLOT_BYTES,  /* values in bytes; the axis picks B, kB, MB, GB or TB */
    GT_PLOT_PERCENT, /* values in percent */
    GT_PLOT_WATTS    /* values in watts */
} gt_plot_kind;

typedef struct gt_plot_series {
    const char *label; /* "main", "descendants", ... */
    const double *v;   /* parallel to gt_plot_data.t; NaN: unavailable */
} gt_plot_series;

typedef struct gt_plot_chart {
    const char *title;   /* "RAM" */
    const char *y_label; /* axis text after the unit, e.g. "% of one core" */
    gt_plot_kind kind;
    const char *note;    /* non-NULL: drawn instead of the series ("no GPU tracked") */
    double scale;        /* values times scale are bytes / percent; 0 means 1 */
    int n_series;
    gt_plot_series series[GT_PLOT_MAX_SERIES];
} gt_plot_chart;

typedef struct gt_plot_span {
    const char *name;   /* code block */
    double start, stop; /* Unix seconds */
} gt_plot_span;

typedef struct gt_plot_data {
    const char *title;  /* shown at the top, e.g. the tracking file's name */
    const double *t;    /* Unix seconds, ascending */
    size_t n;
    int n_charts;
    gt_plot_chart charts[GT_PLOT_MAX_CHARTS];
    const gt_plot_span *spans;
    size_t n_spans;
} gt_plot_data;

typedef enum gt_plot_format { GT_PLOT_HTML, GT_PLOT_SVG } gt_plot_format;

/* Writes the charts to out.  GT_ERR_INVALID for no samples; GT_ERR_NOMEM;
 * GT_ERR_IO when writing fails. */
gt_status gt_plot_render(const gt_plot_data *d, gt_plot_format fmt, FILE *out, gt_error *err);
#endif
