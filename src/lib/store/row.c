/* SPDX-License-Identifier: MIT */
#include "store/row.h"
#include "store/store.h"
#include "util/error.h"
#include "util/units.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

const char *const gt_store_static_columns[GT_STORE_NSTATIC_COLUMNS] = {
    "ram_unit", "gpu_ram_unit", "time_unit", "ram_system_capacity",
    "gpu_ram_system_capacity", "system_core_count", "n_expected_cores",
    "system_gpu_count", "n_expected_gpus",
};
const int gt_store_nstatic_columns = GT_STORE_NSTATIC_COLUMNS;

const char *const gt_store_static_column_types[GT_STORE_NSTATIC_COLUMNS] = {
    "TEXT", "TEXT", "TEXT", "FLOAT", "FLOAT", "BIGINT", "BIGINT", "BIGINT", "BIGINT",
};

static gt_cell fcell(double v)
{
    /* SQLite stores NaN as NULL; CSV does the same so both files agree. */
    return isnan(v) ? (gt_cell){.kind = GT_CELL_NULL}
                    : (gt_cell){.kind = GT_CELL_FLOAT, .f = v};
}

static gt_cell icell(long long v)
{
    return (gt_cell){.kind = GT_CELL_INT, .i = v};
}

gt_cell gt_store_count_cell(double v)
{
    /* Beyond a long long (a counter that hostile text could set to
     * 2^64 - 1) it stays a float rather than wrap. */
    return !(v >= -9.2e18 && v <= 9.2e18) ? fcell(v) : icell((long long)v);
}

static gt_cell tcell(const char *s)
{
    return (gt_cell){.kind = GT_CELL_TEXT, .s = s};
}

const char *gt_store_column_name(int i)
{
    const gt_metric_column *c = i < GT_STORE_NCOLUMNS ? gt_metric_column_at(i, NULL) : NULL;
    return c ? c->name : NULL;
}

const char *gt_store_column_type(int i)
{
    const gt_metric *m;
    return i < GT_STORE_NCOLUMNS && gt_metric_column_at(i, &m) ? m->sql_type : NULL;
}

static gt_cell cell_of(const gt_metric_column *col, const gt_static_data *sd, const gt_sample *s)
{
    const char *f = (const char *)s + col->field;
    double d;
    switch (col->cell) {
    case GT_MC_RSS: {
        const gt_rss *r = (const gt_rss *)(const void *)f;
        return fcell(gt_ram_in_unit((double)r->private_rss, sd->ram_unit) +
                     gt_ram_in_unit((double)r->shared_rss, sd->ram_unit));
    }
    case GT_MC_RAM:
        return fcell(gt_ram_in_unit((double)*(const uint64_t *)(const void *)f, sd->ram_unit));
    case GT_MC_GPU_RAM:
        return fcell(gt_gpu_ram_in_unit((double)*(const uint64_t *)(const void *)f, sd->gpu_ram_unit));
    case GT_MC_FLOAT:
        return fcell(*(const double *)(const void *)f);
    case GT_MC_INT:
        return icell(*(const int *)(const void *)f);
    case GT_MC_COUNT:
        return gt_store_count_cell(*(const double *)(const void *)f);
    case GT_MC_GPU_HW:
        d = *(const double *)(const void *)f;
        return fcell(sd->n_expected_gpus > 0 ? d / sd->n_expected_gpus : 0.0);
    case GT_MC_CPU:
    case GT_MC_CPU_HW:
    case GT_MC_SYS_HW:
        if (!s->cpu_valid)
            return (gt_cell){.kind = GT_CELL_NULL};
        d = *(const double *)(const void *)f;
        return fcell(col->cell == GT_MC_CPU      ? d
                     : col->cell == GT_MC_CPU_HW ? d / sd->n_expected_cores
                                             : d / sd->system_core_count);
    }
    return (gt_cell){.kind = GT_CELL_NULL};
}

void gt_store_row_fill(const gt_static_data *sd, const gt_sample *s, gt_cell *c)
{
    gt_metric_iter it = {0};
    const gt_metric_column *col;
    for (int i = 0; i < GT_STORE_NCOLUMNS && (col = gt_metric_next(&it, NULL)) != NULL; i++)
        c[i] = cell_of(col, sd, s);
}

void gt_store_row_fill_power(const gt_sample *s, const gt_power_column *power, int n, gt_cell *c)
{
    for (int k = 0; k < n; k++)
        c[k] = fcell(s->power_watts[power[k].slot]);
}

void gt_store_static_fill(const gt_static_data *sd, gt_cell *c)
{
    c[0] = tcell(gt_ram_unit_name(sd->ram_unit));
    c[1] = tcell(gt_ram_unit_name(sd->gpu_ram_unit));
    c[2] = tcell(gt_time_unit_name(sd->time_unit));
    c[3] = fcell(gt_ram_in_unit((double)sd->ram_system_capacity, sd->ram_unit));
    c[4] = fcell(gt_gpu_ram_in_unit((double)sd->gpu_ram_system_capacity, sd->gpu_ram_unit));
    c[5] = icell(sd->system_core_count);
    c[6] = icell(sd->n_expected_cores);
    c[7] = icell(sd->system_gpu_count);
    c[8] = icell(sd->n_expected_gpus);
}

gt_status gt_store_static_check(const gt_static_data *sd, gt_error *err)
{
    if ((unsigned)sd->ram_unit > GT_RAM_UNIT_TERABYTES || (unsigned)sd->gpu_ram_unit > GT_RAM_UNIT_TERABYTES ||
        (unsigned)sd->time_unit > GT_TIME_UNIT_DAYS)
        return gt_err(err, GT_ERR_INVALID, "tracking file: invalid unit in static data");
    if (sd->system_core_count < 1 || sd->n_expected_cores < 1)
        return gt_err(err, GT_ERR_INVALID,
                      "tracking file: core counts must be at least 1 (system %d, expected %d)",
                      sd->system_core_count, sd->n_expected_cores);
    if (sd->system_gpu_count < 0 || sd->n_expected_gpus < 0)
        return gt_err(err, GT_ERR_INVALID, "tracking file: GPU counts must not be negative");
    return GT_OK;
}
