/* SPDX-License-Identifier: MIT */
/* gt_table_read: the reader of a file's format (table_csv.c, table_sqlite.c)
 * fills a new table.  Kept apart from the column store (table.c) that the
 * readers call, so that nothing calls back up. */
#include "store/side.h"
#include "store/table_impl.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

gt_status gt_table_read(const char *path, gt_table_part part, const char *const *text_columns,
                        gt_table **out, gt_error *err)
{
    return gt_table_read_columns(path, part, NULL, text_columns, out, err);
}

gt_status gt_table_read_columns(const char *path, gt_table_part part, const char *const *columns,
                                const char *const *text_columns, gt_table **out, gt_error *err)
{
    gt_status st;
    gt_table *t = NULL;

    *out = NULL;
    if (!path)
        return gt_err(err, GT_ERR_INVALID, "no file given");
    int csv = has_suffix(path, ".csv");
    if (!csv && !has_suffix(path, ".sqlite"))
        return gt_err(err, GT_ERR_INVALID,
                      "invalid file name '%s': the extension must be '.csv' or '.sqlite'", path);
    /* A CSV tracking file's per-GPU rows are a file of their own. */
    if (!(t = calloc(1, sizeof *t)) ||
        !(t->path = csv && part == GT_TABLE_GPUS ? gt_side_csv_path(path, "gpus") : strdup(path))) {
        st = gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", path);
        goto fail;
    }
    struct stat sb;
    if (csv && part == GT_TABLE_GPUS && lstat(t->path, &sb) != 0 && errno == ENOENT) {
        gt_table_free(&t);
        return GT_OK;
    }
    st = csv ? gt_table_read_csv(t, part, columns, text_columns, err)
             : gt_table_read_sqlite(t, part, columns, text_columns, err);
    if (st != GT_OK)
        goto fail;
    if (t->absent)
        gt_table_free(&t);
    *out = t;
    return GT_OK;
fail:
    gt_table_free(&t);
    return st;
}
