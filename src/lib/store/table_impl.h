/* SPDX-License-Identifier: MIT */
/* Shared by the table readers: the column store both formats fill. */
#ifndef GT_STORE_TABLE_IMPL_H
#define GT_STORE_TABLE_IMPL_H
#include <stdint.h>

#include "store/table.h"

/* A numeric column is kept as compactly as its values allow, and widened
 * when a value needs it: one constant while every value is the same, 32-bit
 * integers while every value is one (INT32_MIN marks a missing value), else
 * doubles.  Tracking files have many such columns (thread counts, GPU
 * figures that stay 0), so a million rows need far less than 8 bytes a
 * cell; every value still reads back as the exact double. */
typedef enum { GT_COL_CONST, GT_COL_INT32, GT_COL_DOUBLE } gt_col_store;

typedef struct gt_table_col {
    char *name;
    int is_text;
    int integer;
    gt_col_store store;
    double cval;
    int32_t *i32;
    double *num;
    char **text;
} gt_table_col;

struct gt_table {
    char *path;
    const char *where; /* "line" (CSV) or "row" (SQLite), for messages */
    int ncols;
    gt_table_col *cols;
    int nfile;  /* columns in the file */
    int *map;   /* file column -> table column, -1 when not read */
    size_t nrows, cap;
    int absent; /* GT_TABLE_GPUS: the file has no such table (set by the reader) */
};

/* Creates the columns from the file's n column names: all of them, or the
 * ones in columns (NULL-terminated, in that order; a missing one is
 * GT_ERR_FORMAT); which are text follows text_columns. */
gt_status gt_table_init(gt_table *t, const char *const *names, int n, const char *const *columns,
                        const char *const *text_columns, gt_error *err);
/* Makes room for one more row (index t->nrows); the caller fills every
 * column's cell and then increments nrows. */
gt_status gt_table_grow(gt_table *t, gt_error *err);
/* Stores cell s (NUL-terminated, len bytes) into column col of the new row:
 * copied for a text column, parsed for a numeric one ("" is NaN).  where is
 * the line (CSV) or row (SQLite) number for messages. */
gt_status gt_table_set(gt_table *t, int col, const char *s, size_t len, long where,
                       gt_error *err);
/* Stores a number into a numeric column of the new row. */
gt_status gt_table_set_number(gt_table *t, int col, double v, gt_error *err);

gt_status gt_table_read_csv(gt_table *t, gt_table_part part, const char *const *columns,
                            const char *const *text_columns, gt_error *err);
gt_status gt_table_read_sqlite(gt_table *t, gt_table_part part, const char *const *columns,
                               const char *const *text_columns, gt_error *err);
#endif
