/* SPDX-License-Identifier: MIT */
/* The run's figures of gpu-tracker's own rows: see fold.h. */
#include "metric/fold.h"

#include <math.h>
#include <stdint.h>

#include "util/units.h"

const gt_metric_column *gt_metric_own_column(int k, const gt_metric **metric)
{
    if (k < 0 || k >= GT_METRIC_NOWN_COLUMNS)
        return NULL;
    return gt_metric_column_at(GT_METRIC_NPACKAGE_COLUMNS + k, metric);
}

double gt_metric_value(const gt_metric_column *col, const gt_sample *s)
{
    const char *f = (const char *)s + col->field;
    switch (col->cell) {
    case GT_MC_RSS: {
        const gt_rss *r = (const gt_rss *)(const void *)f;
        return (double)r->private_rss + (double)r->shared_rss;
    }
    case GT_MC_RAM:
    case GT_MC_GPU_RAM: return (double)*(const uint64_t *)(const void *)f;
    case GT_MC_FLOAT:
    case GT_MC_COUNT: return *(const double *)(const void *)f;
    case GT_MC_INT: return *(const int *)(const void *)f;
    case GT_MC_CPU: return s->cpu_valid ? *(const double *)(const void *)f : NAN;
    case GT_MC_GPU_HW:
    case GT_MC_CPU_HW:
    case GT_MC_SYS_HW: break;
    }
    return NAN;
}

void gt_metric_acc_add(gt_metric_acc *a, double v, double dt)
{
    a->now = v;
    if (isnan(v))
        return;
    if (!a->n || v > a->max)
        a->max = v;
    a->last = v;
    a->sum += v;
    if (dt > 0) {
        a->wsum += v * dt;
        a->span += dt;
    }
    a->n++;
}

double gt_metric_acc_figure(const gt_metric_acc *a, gt_metric_agg agg)
{
    if (!a->n)
        return NAN;
    switch (agg) {
    case GT_MA_MAX: return a->max;
    case GT_MA_TIME_MEAN: return a->span > 0 ? a->wsum / a->span : a->sum / (double)a->n;
    case GT_MA_LAST: return a->last;
    case GT_MA_SUM: return a->sum;
    case GT_MA_NONE: break;
    }
    return NAN;
}

void gt_metric_fold_add(gt_metric_fold *f, const gt_sample *s)
{
    /* The interval a value ends: a rate or percent over it weighs as long
     * as it lasted.  None at the first sample. */
    double dt = f->n_samples ? s->timestamp - f->prev_timestamp : 0;
    /* One walk of the own columns: this runs at every sample. */
    gt_metric_iter it = {.place = GT_METRIC_OWN};
    const gt_metric_column *col;
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS && (col = gt_metric_next(&it, NULL)) != NULL; k++)
        gt_metric_acc_add(&f->col[k], gt_metric_value(col, s), dt);
    f->prev_timestamp = s->timestamp;
    f->n_samples++;
}

double gt_metric_fold_figure(const gt_metric_fold *f, int k)
{
    const gt_metric *m;
    return gt_metric_own_column(k, &m) ? gt_metric_acc_figure(&f->col[k], m->agg) : NAN;
}

void gt_metric_run_of(const gt_metric_fold *f, const gt_static_data *sd, gt_metric_run *out)
{
    out->n_samples = f->n_samples;
    out->ram_unit = sd->ram_unit;
    out->gpu_ram_unit = sd->gpu_ram_unit;
    for (int k = 0; k < GT_METRIC_NOWN_COLUMNS; k++) {
        const gt_metric *m;
        gt_metric_own_column(k, &m);
        double v = gt_metric_fold_figure(f, k);
        if (m->unit == GT_MU_RAM)
            v = gt_ram_in_unit(v, sd->ram_unit);
        else if (m->unit == GT_MU_GPU_RAM)
            v = gt_gpu_ram_in_unit(v, sd->gpu_ram_unit);
        out->value[k] = v;
    }
}

const char *gt_metric_unit_name(const gt_metric *m, const gt_metric_run *run)
{
    switch (m->unit) {
    case GT_MU_RAM: return gt_ram_unit_name(run->ram_unit);
    case GT_MU_GPU_RAM: return gt_ram_unit_name(run->gpu_ram_unit);
    case GT_MU_BYTES: return "bytes";
    case GT_MU_BYTES_PER_S: return "bytes per second";
    case GT_MU_PERCENT: return "percent";
    case GT_MU_COUNT: return "count";
    case GT_MU_SECONDS: return "seconds";
    case GT_MU_JOULES: return "joules";
    }
    return "";
}
