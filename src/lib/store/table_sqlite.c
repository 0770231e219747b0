/* SPDX-License-Identifier: MIT */
/* SQLite tables: SELECT * of the part's table, read-only. */
#include "store/table_impl.h"
#include "util/error.h"
#include "util/pyfloat.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Stores result column f of q into table column c. */
static gt_status set_cell(gt_table *t, sqlite3_stmt *q, int f, int c, long where, gt_error *err)
{
    gt_table_col *col = &t->cols[c];
    int type = sqlite3_column_type(q, f);
    /* A column known to hold REALs.  Only a number is read as one: SQLite
     * would convert text ("abc" to 0, "12abc" to 12) and blobs too, where
     * the CSV reader refuses them; they take the checks below. */
    if (!col->is_text && !col->integer && (type == SQLITE_FLOAT || type == SQLITE_INTEGER))
        return gt_table_set_number(t, c, sqlite3_column_double(q, f), err);
    switch (type) {
    case SQLITE_NULL:
        return gt_table_set(t, c, "", 0, where, err);
    case SQLITE_INTEGER:
        if (!col->is_text)
            return gt_table_set_number(t, c, (double)sqlite3_column_int64(q, f), err);
        break;
    case SQLITE_FLOAT:
        if (!col->is_text) {
            col->integer = 0;
            return gt_table_set_number(t, c, sqlite3_column_double(q, f), err);
        } else {
            /* SQLite's own text of a REAL has 15 digits; repr keeps them all. */
            char b[GT_PYFLOAT_BUFSZ];
            size_t n = gt_pyfloat_repr(sqlite3_column_double(q, f), b, sizeof b);
            return gt_table_set(t, c, b, n, where, err);
        }
    case SQLITE_BLOB:
        return gt_err(err, GT_ERR_FORMAT, "'%s', row %ld: column '%s' holds a blob", t->path,
                      where, col->name);
    default:
        break;
    }
    const char *s = (const char *)sqlite3_column_text(q, f);
    if (!s)
        return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", t->path);
    return gt_table_set(t, c, s, (size_t)sqlite3_column_bytes(q, f), where, err);
}

gt_status gt_table_read_sqlite(gt_table *t, gt_table_part part, const char *const *columns,
                               const char *const *text_columns, gt_error *err)
{
    gt_status st = GT_OK;
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    const char *table = part == GT_TABLE_STATIC ? "static_data" : part == GT_TABLE_GPUS ? "gpus" : "data";
    const char **names = NULL;
    char sql[64];
    int rc;

    /* Without URI parsing or creation: a missing file is an error, not a new
     * empty database. */
    t->where = "row";
    /* A device or a pipe is no database (and a FIFO would block the open). */
    struct stat sb;
    if (stat(t->path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return gt_err(err, GT_ERR_IO, "cannot read '%s': not a regular file", t->path);
    /* NOMUTEX: the connection is this function's alone, and SQLite's
     * per-call locking would otherwise cost a third of the time. */
    if (sqlite3_open_v2(t->path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        st = gt_err(err, GT_ERR_IO, "cannot open '%s': %s", t->path,
                    db ? sqlite3_errmsg(db) : "out of memory");
        goto done;
    }
    if (part == GT_TABLE_GPUS) {
        /* Only --per-gpu made the table: its absence is no error. */
        rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gpus'", -1, &q,
                                NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(q);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            st = gt_err(err, GT_ERR_IO, "cannot read '%s': %s", t->path, sqlite3_errmsg(db));
            goto done;
        }
        t->absent = rc == SQLITE_DONE;
        sqlite3_finalize(q);
        q = NULL;
        if (t->absent)
            goto done;
    }
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", table);
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        st = gt_err(err, sqlite3_errcode(db) == SQLITE_ERROR ? GT_ERR_FORMAT : GT_ERR_IO,
                    "cannot read table '%s' of '%s': %s", table, t->path, sqlite3_errmsg(db));
        goto done;
    }
    int n = sqlite3_column_count(q);
    if (!(names = calloc((size_t)(n > 0 ? n : 1), sizeof *names))) {
        st = gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", t->path);
        goto done;
    }
    for (int c = 0; c < n; c++)
        names[c] = sqlite3_column_name(q, c);
    if ((st = gt_table_init(t, names, n, columns, text_columns, err)) != GT_OK || part == GT_TABLE_HEADER)
        goto done;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        long where = (long)t->nrows + 1;
        if ((st = gt_table_grow(t, err)) != GT_OK)
            goto done;
        for (int f = 0; f < n; f++)
            if (t->map[f] >= 0 && (st = set_cell(t, q, f, t->map[f], where, err)) != GT_OK)
                goto done;
        t->nrows++;
        if (part == GT_TABLE_STATIC)
            break;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        st = gt_err(err, GT_ERR_IO, "cannot read '%s': %s", t->path, sqlite3_errmsg(db));
        goto done;
    }
    if (part == GT_TABLE_STATIC && t->nrows == 0)
        st = gt_err(err, GT_ERR_FORMAT, "'%s' has no static data row", t->path);
done:
    free(names);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return st;
}
