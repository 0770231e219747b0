/* SPDX-License-Identifier: MIT */
/* Fuzz target: reading tracking and sub-tracking files, CSV and SQLite.
 * The first byte picks the part (static data, timepoints, marks), the format
 * and whether every column is kept as text.  For CSV the rest is the file;
 * for SQLite it is SQL run on a fresh database (bounded), which lets the
 * fuzzer vary tables, column types and cell values rather than SQLite's page
 * format.  A file that is read must give cells that keep the reader's
 * promises: a column said to be integer holds whole numbers or NaN, a text
 * column gives text. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "scratch.h"
#include "store/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static int stop_runaway(void *steps)
{
    return ++*(int *)steps > 1000; /* x 1000 VM steps: a bounded script */
}

/* The script may only build tables in its own database: no other file is
 * attached or written (ATTACH, VACUUM INTO). */
static int only_here(void *ctx, int action, const char *a, const char *b, const char *c, const char *d)
{
    (void)ctx, (void)a, (void)b, (void)c, (void)d;
    return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

/* A fresh database at path built by the SQL text; 0 if it could be made. */
static int build_sqlite(const char *path, const uint8_t *sql, size_t len)
{
    unlink(path);
    sqlite3 *db = NULL;
    int steps = 0;
    char *text = malloc(len + 1);
    if (!text)
        return -1;
    memcpy(text, sql, len);
    text[len] = '\0';
    if (strcasestr(text, "vacuum") || strcasestr(text, "attach")) {
        free(text);
        return -1;
    }
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100000);
        sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
        sqlite3_set_authorizer(db, only_here, NULL);
        sqlite3_progress_handler(db, 1000, stop_runaway, &steps);
        sqlite3_exec(db, text, NULL, NULL, NULL); /* a script that fails half-way still leaves a file */
    }
    sqlite3_close(db);
    free(text);
    return rc == SQLITE_OK ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    gt_table_part part = (gt_table_part)(data[0] % 3);
    int sqlite = data[0] & 4, all_text = data[0] & 8;
    char buf[128];
    const char *path;
    if (sqlite) {
        path = scratch_path("t.sqlite", buf, sizeof buf);
        if (!path || build_sqlite(path, data + 1, size - 1) != 0)
            return 0;
    } else {
        path = scratch_write("t.csv", data + 1, size - 1, buf, sizeof buf);
        if (!path)
            return 0;
    }
    gt_table *t = NULL;
    gt_error err = {{0}};
    gt_status st = gt_table_read(path, part, all_text ? GT_TABLE_ALL_TEXT : NULL, &t, &err);
    if (st != GT_OK) {
        CHECK(t == NULL && err.msg[0]);
        return 0;
    }
    size_t rows = gt_table_nrows(t);
    int cols = gt_table_ncols(t);
    for (int c = 0; c < cols; c++) {
        CHECK(gt_table_name(t, c) != NULL);
        CHECK(gt_table_find(t, gt_table_name(t, c)) <= c);
        if (!gt_table_is_numeric(t, c)) {
            for (size_t r = 0; r < rows; r++)
                CHECK(gt_table_text(t, c, r) != NULL);
            continue;
        }
        CHECK(!all_text);
        int integer = gt_table_is_integer(t, c);
        for (size_t r = 0; r < rows; r++) {
            double v = gt_table_number(t, c, r);
            CHECK(!integer || isnan(v) || v == trunc(v));
        }
        const double *all = gt_table_numbers(t, c);
        for (size_t r = 0; all && r < rows; r++) {
            double v = gt_table_number(t, c, r);
            CHECK((isnan(all[r]) && isnan(v)) || all[r] == v);
        }
    }
    gt_table_free(&t);
    CHECK(t == NULL);
    return 0;
}
