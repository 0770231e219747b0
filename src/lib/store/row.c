/* SPDX-License-Identifier: MIT */
#include "store/row.h"
#include "store/store.h"
#include "util/error.h"
#include "util/units.h"

#include <math.h>

const char *const gt_store_columns[GT_STORE_NCOLUMNS] = {
    "main_ram", "descendants_ram", "combined_ram", "system_ram",
    "main_gpu_ram", "descendants_gpu_ram", "combined_gpu_ram", "system_gpu_ram",
    "gpu_sum_utilization_percent", "gpu_hardware_utilization_percent",
    "main_n_threads", "descendants_n_threads", "combined_n_threads",
    "cpu_system_sum_utilization_percent", "cpu_system_hardware_utilization_percent",
    "cpu_main_sum_utilization_percent", "cpu_main_hardware_utilization_percent",
    "cpu_descendants_sum_utilization_percent", "cpu_descendants_hardware_utilization_percent",
    "cpu_combined_sum_utilization_percent", "cpu_combined_hardware_utilization_percent",
    "timestamp",
    /* gpu-tracker's own, after the Python package's columns so its readers
     * still find theirs in place: joules since the first sample. */
    "cpu_energy_joules", "dram_energy_joules", "gpu_energy_joules",
};
const int gt_store_ncolumns = GT_STORE_NCOLUMNS;

/* The types pandas gave these columns in the Python package's files (see
 * `.schema` of a tracking.sqlite it wrote); readers may rely on them. */
const char *const gt_store_column_types[GT_STORE_NCOLUMNS] = {
    "FLOAT", "FLOAT", "FLOAT", "FLOAT",
    "BIGINT", "BIGINT", "BIGINT", "FLOAT",
    "BIGINT", "BIGINT",
    "BIGINT", "BIGINT", "BIGINT",
    "FLOAT", "FLOAT", "FLOAT", "FLOAT", "FLOAT", "FLOAT", "FLOAT", "FLOAT",
    "FLOAT",
    "FLOAT", "FLOAT", "FLOAT",
};

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

static gt_cell tcell(const char *s)
{
    return (gt_cell){.kind = GT_CELL_TEXT, .s = s};
}

static gt_cell cpu_cell(int valid, double v)
{
    return valid ? fcell(v) : (gt_cell){.kind = GT_CELL_NULL};
}

static double rss_in_unit(const gt_rss *r, gt_ram_unit u)
{
    return gt_ram_in_unit((double)r->private_rss, u) + gt_ram_in_unit((double)r->shared_rss, u);
}

void gt_store_row_fill(const gt_static_data *sd, const gt_sample *s, gt_cell *c)
{
    const gt_ram_unit ru = sd->ram_unit, gu = sd->gpu_ram_unit;
    const double cores = sd->n_expected_cores, sys_cores = sd->system_core_count;
    const int v = s->cpu_valid;

    c[0] = fcell(rss_in_unit(&s->main, ru));
    c[1] = fcell(rss_in_unit(&s->descendants, ru));
    c[2] = fcell(rss_in_unit(&s->combined, ru));
    c[3] = fcell(gt_ram_in_unit((double)s->system_ram, ru));
    c[4] = fcell(gt_gpu_ram_in_unit((double)s->main_gpu_ram, gu));
    c[5] = fcell(gt_gpu_ram_in_unit((double)s->descendants_gpu_ram, gu));
    c[6] = fcell(gt_gpu_ram_in_unit((double)s->combined_gpu_ram, gu));
    c[7] = fcell(gt_gpu_ram_in_unit((double)s->system_gpu_ram, gu));
    c[8] = fcell(s->gpu_sum_percent);
    c[9] = fcell(sd->n_expected_gpus > 0 ? s->gpu_sum_percent / sd->n_expected_gpus : 0.0);
    c[10] = icell(s->main_n_threads);
    c[11] = icell(s->descendants_n_threads);
    c[12] = icell(s->combined_n_threads);
    c[13] = cpu_cell(v, s->cpu_system_sum);
    c[14] = cpu_cell(v, s->cpu_system_sum / sys_cores);
    c[15] = cpu_cell(v, s->cpu_main_sum);
    c[16] = cpu_cell(v, s->cpu_main_sum / cores);
    c[17] = cpu_cell(v, s->cpu_descendants_sum);
    c[18] = cpu_cell(v, s->cpu_descendants_sum / cores);
    c[19] = cpu_cell(v, s->cpu_combined_sum);
    c[20] = cpu_cell(v, s->cpu_combined_sum / cores);
    c[21] = fcell(s->timestamp);
    c[22] = fcell(s->cpu_energy);
    c[23] = fcell(s->dram_energy);
    c[24] = fcell(s->gpu_energy);
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
