/* Shared by the table readers: the column store both formats fill. */
#ifndef GT_STORE_TABLE_IMPL_H
#define GT_STORE_TABLE_IMPL_H
#include "store/table.h"

typedef struct gt_table_col {
    char *name;
    int is_text;
    int integer;
    double *num;
    char **text;
} gt_table_col;

struct gt_table {
    char *path;
    int ncols;
    gt_table_col *cols;
    int nfile;  /* columns in the file */
    int *map;   /* file column -> table column, -1 when not read */
    size_t nrows, cap;
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
 * copied for a text column, parsed for a numeric one ("" is NaN). where
 * names the position for messages ("line 12", "row 3"). */
gt_status gt_table_set(gt_table *t, int col, const char *s, size_t len, const char *where,
                       gt_error *err);

gt_status gt_table_read_csv(gt_table *t, gt_table_part part, const char *const *columns,
                            const char *const *text_columns, gt_error *err);
gt_status gt_table_read_sqlite(gt_table *t, gt_table_part part, const char *const *columns,
                               const char *const *text_columns, gt_error *err);
#endif
