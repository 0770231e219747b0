/* SPDX-License-Identifier: MIT */
/* One tracking-file row as typed cells, in file order: the single place where
 * a sample's base units become the user's units, shared by the CSV and
 * SQLite writers so both files always hold the same figures. */
#ifndef GT_STORE_ROW_H
#define GT_STORE_ROW_H
#include "metric/metric.h"
#include "sample.h"

/* The timepoint columns, laid out by the metric table (metric/metric.h):
 * the Python package's, timestamp last, then gpu-tracker's own, which every
 * file has (GT_STORE_NBASE_COLUMNS in all), then the energy columns, which
 * only files of runs that measure energy have. */
#define GT_STORE_NCOLUMNS (GT_STORE_NBASE_COLUMNS + GT_METRIC_NENERGY_COLUMNS)
#define GT_STORE_NBASE_COLUMNS (GT_METRIC_NPACKAGE_COLUMNS + GT_METRIC_NOWN_COLUMNS)
#define GT_STORE_NSTATIC_COLUMNS 9
/* Columns a file may have: the fixed ones, then the power columns
 * (gt_power_column), which follow the energy columns in files of runs that
 * measure energy. */
#define GT_STORE_MAX_COLUMNS (GT_STORE_NCOLUMNS + GT_POWER_SLOTS)

typedef enum gt_cell_kind {
    GT_CELL_NULL = 0, /* unavailable: empty CSV cell, SQL NULL */
    GT_CELL_FLOAT,
    GT_CELL_INT,
    GT_CELL_TEXT
} gt_cell_kind;

typedef struct gt_cell {
    gt_cell_kind kind;
    double f;
    long long i;
    const char *s; /* static storage (unit names) */
} gt_cell;

/* The timepoint table's column i (0 .. GT_STORE_NCOLUMNS - 1, in file
 * order): its name and SQL type; NULL out of range.  The metric table
 * describes each column once: name, type, and how its cell is made. */
const char *gt_store_column_name(int i);
const char *gt_store_column_type(int i);
/* SQL column types of the static-data table, parallel to
 * gt_store_static_columns. */
extern const char *const gt_store_static_column_types[];

/* Fills the GT_STORE_NCOLUMNS cells of one timepoint.  RAM is converted part
 * by part (private, shared) and then added, as the Python package does, so the
 * last digits agree; hardware percents divide by the expected cores / GPUs
 * (GPU: 0 when none is expected); CPU cells are NULL when !cpu_valid and NaN
 * is NULL anywhere.  sd must have passed gt_store_static_check(). */
void gt_store_row_fill(const gt_static_data *sd, const gt_sample *s, gt_cell *cells);
/* Fills the n power cells after those: power[k]'s slot of s->power_watts,
 * NULL where NaN (no interval yet, or the counter was not read). */
void gt_store_row_fill_power(const gt_sample *s, const gt_power_column *power, int n, gt_cell *cells);

/* The cell of a whole number held in a double (a counter): an integer,
 * NULL where NaN, a float beyond a long long's range. */
gt_cell gt_store_count_cell(double v);

/* Fills the GT_STORE_NSTATIC_COLUMNS cells of the static-data row. */
void gt_store_static_fill(const gt_static_data *sd, gt_cell *cells);

/* GT_ERR_INVALID (with a message) when sd has units out of range or core
 * counts below 1, which would make the rows meaningless. */
gt_status gt_store_static_check(const gt_static_data *sd, gt_error *err);
#endif
