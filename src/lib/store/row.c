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

static gt_cell tcell(const char *s)
{
    return (gt_cell){.kind = GT_CELL_TEXT, .s = s};
}

/* How a column's cell comes from its field of the sample. */
typedef enum value_kind {
    V_RSS,     /* a gt_rss: private and shared converted apart, then added */
    V_RAM,     /* uint64_t bytes in the RAM unit */
    V_GPU_RAM, /* uint64_t bytes in the GPU RAM unit */
    V_FLOAT,   /* a double as it is (NaN: NULL) */
    V_INT,     /* an int */
    V_GPU_HW,  /* a GPU sum percent over the expected GPUs (0 when none) */
    V_CPU,     /* a CPU sum percent, NULL while the sample has none */
    V_CPU_HW,  /* the same over the expected cores */
    V_SYS_HW,  /* the same over the system's cores */
} value_kind;

/* One column of the timepoint table: its name and SQL type (the types
 * pandas gave them in the Python package's files, `.schema` of a
 * tracking.sqlite it wrote: readers may rely on them), and its value. */
typedef struct column {
    const char *name, *type;
    value_kind kind;
    size_t field; /* offset in gt_sample */
} column;

#define COL(name, type, kind, field) {name, type, kind, offsetof(gt_sample, field)}
static const column columns[] = {
    COL("main_ram", "FLOAT", V_RSS, main),
    COL("descendants_ram", "FLOAT", V_RSS, descendants),
    COL("combined_ram", "FLOAT", V_RSS, combined),
    COL("system_ram", "FLOAT", V_RAM, system_ram),
    COL("main_gpu_ram", "BIGINT", V_GPU_RAM, main_gpu_ram),
    COL("descendants_gpu_ram", "BIGINT", V_GPU_RAM, descendants_gpu_ram),
    COL("combined_gpu_ram", "BIGINT", V_GPU_RAM, combined_gpu_ram),
    COL("system_gpu_ram", "FLOAT", V_GPU_RAM, system_gpu_ram),
    COL("gpu_sum_utilization_percent", "BIGINT", V_FLOAT, gpu_sum_percent),
    COL("gpu_hardware_utilization_percent", "BIGINT", V_GPU_HW, gpu_sum_percent),
    COL("main_n_threads", "BIGINT", V_INT, main_n_threads),
    COL("descendants_n_threads", "BIGINT", V_INT, descendants_n_threads),
    COL("combined_n_threads", "BIGINT", V_INT, combined_n_threads),
    COL("cpu_system_sum_utilization_percent", "FLOAT", V_CPU, cpu_system_sum),
    COL("cpu_system_hardware_utilization_percent", "FLOAT", V_SYS_HW, cpu_system_sum),
    COL("cpu_main_sum_utilization_percent", "FLOAT", V_CPU, cpu_main_sum),
    COL("cpu_main_hardware_utilization_percent", "FLOAT", V_CPU_HW, cpu_main_sum),
    COL("cpu_descendants_sum_utilization_percent", "FLOAT", V_CPU, cpu_descendants_sum),
    COL("cpu_descendants_hardware_utilization_percent", "FLOAT", V_CPU_HW, cpu_descendants_sum),
    COL("cpu_combined_sum_utilization_percent", "FLOAT", V_CPU, cpu_combined_sum),
    COL("cpu_combined_hardware_utilization_percent", "FLOAT", V_CPU_HW, cpu_combined_sum),
    COL("timestamp", "FLOAT", V_FLOAT, timestamp),
    /* gpu-tracker's own, after the Python package's columns so its readers
     * still find theirs in place: joules since the first sample. */
    COL("cpu_energy_joules", "FLOAT", V_FLOAT, cpu_energy),
    COL("dram_energy_joules", "FLOAT", V_FLOAT, dram_energy),
    COL("gpu_energy_joules", "FLOAT", V_FLOAT, gpu_energy),
};
#undef COL
_Static_assert(sizeof columns / sizeof *columns == GT_STORE_NCOLUMNS, "one entry per timepoint column");

const char *gt_store_column_name(int i)
{
    return i >= 0 && i < GT_STORE_NCOLUMNS ? columns[i].name : NULL;
}

const char *gt_store_column_type(int i)
{
    return i >= 0 && i < GT_STORE_NCOLUMNS ? columns[i].type : NULL;
}

static gt_cell cell_of(const column *col, const gt_static_data *sd, const gt_sample *s)
{
    const char *f = (const char *)s + col->field;
    double d;
    switch (col->kind) {
    case V_RSS: {
        const gt_rss *r = (const gt_rss *)(const void *)f;
        return fcell(gt_ram_in_unit((double)r->private_rss, sd->ram_unit) +
                     gt_ram_in_unit((double)r->shared_rss, sd->ram_unit));
    }
    case V_RAM:
        return fcell(gt_ram_in_unit((double)*(const uint64_t *)(const void *)f, sd->ram_unit));
    case V_GPU_RAM:
        return fcell(gt_gpu_ram_in_unit((double)*(const uint64_t *)(const void *)f, sd->gpu_ram_unit));
    case V_FLOAT:
        return fcell(*(const double *)(const void *)f);
    case V_INT:
        return icell(*(const int *)(const void *)f);
    case V_GPU_HW:
        d = *(const double *)(const void *)f;
        return fcell(sd->n_expected_gpus > 0 ? d / sd->n_expected_gpus : 0.0);
    case V_CPU:
    case V_CPU_HW:
    case V_SYS_HW:
        if (!s->cpu_valid)
            return (gt_cell){.kind = GT_CELL_NULL};
        d = *(const double *)(const void *)f;
        return fcell(col->kind == V_CPU      ? d
                     : col->kind == V_CPU_HW ? d / sd->n_expected_cores
                                             : d / sd->system_core_count);
    }
    return (gt_cell){.kind = GT_CELL_NULL};
}

void gt_store_row_fill(const gt_static_data *sd, const gt_sample *s, gt_cell *c)
{
    for (int i = 0; i < GT_STORE_NCOLUMNS; i++)
        c[i] = cell_of(&columns[i], sd, s);
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
