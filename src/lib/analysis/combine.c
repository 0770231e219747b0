/* SPDX-License-Identifier: MIT */
/* gt_subtrack_combine: the rows of several sub-tracking files, in the order
 * given, into one new file of the same format.  The output is written only
 * after every input was read and checked, and removed again on failure.
 * The host column (files written on a cluster's nodes) is carried when any
 * input has it, empty for the rows of inputs without it; when none has it
 * the output has the Python package's four columns only. */
#include "gpu_tracker.h"
#include "analysis/calls.h"
#include "store/csvfield.h"
#include "store/store.h"
#include "store/table.h"
#include "util/error.h"
#include "util/pyfloat.h"
#include "store/sqltext.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Indexes into gt_mark_columns. */
enum { PID, NAME, POS, TS, HOST, NCOLS };

static const char *extension(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && !strcmp(path + n - 4, ".csv"))
        return ".csv";
    if (n > 7 && !strcmp(path + n - 7, ".sqlite"))
        return ".sqlite";
    return NULL;
}

typedef struct input {
    gt_table *t;
    int col[NCOLS]; /* col[HOST] -1: no host column */
} input;

static const char *host_of(const input *in, size_t r)
{
    return in->col[HOST] >= 0 ? gt_table_text(in->t, in->col[HOST], r) : "";
}

/* Room for a CSV field of len characters in *field. */
static int reserve(char **field, size_t *cap, size_t len)
{
    size_t need = GT_CSV_FIELD_MAX(len);
    if (need <= *cap)
        return 0;
    char *p = realloc(*field, need);
    if (!p)
        return -1;
    *field = p;
    *cap = need;
    return 0;
}

/* A number as the file had it: integers without ".0", floats as repr,
 * missing values empty. */
static void put_number(FILE *f, double x, int integer)
{
    char b[GT_PYFLOAT_BUFSZ];
    if (isnan(x))
        return;
    if (integer && fabs(x) < 9.2e18)
        fprintf(f, "%lld", (long long)x);
    else if (gt_pyfloat_repr(x, b, sizeof b))
        fputs(b, f);
}

static gt_status write_csv(int fd, const char *out, const input *in, size_t n, int hosts, gt_error *err)
{
    FILE *f = fdopen(fd, "w");
    char *field = NULL;
    size_t cap = 0;
    if (!f) {
        close(fd);
        return gt_err(err, GT_ERR_IO, "cannot write sub-tracking file '%s'", out);
    }
    fputs(gt_marks_layout_of(hosts)->csv_header, f);
    for (size_t k = 0; k < n; k++) {
        const gt_table *t = in[k].t;
        int pid_int = gt_table_is_integer(t, in[k].col[PID]);
        int pos_int = gt_table_is_integer(t, in[k].col[POS]);
        int ts_int = gt_table_is_integer(t, in[k].col[TS]);
        for (size_t r = 0; r < gt_table_nrows(t); r++) {
            const char *name = gt_table_text(t, in[k].col[NAME], r);
            const char *host = host_of(&in[k], r);
            if (reserve(&field, &cap, strlen(name)) != 0 || reserve(&field, &cap, strlen(host)) != 0) {
                free(field);
                fclose(f);
                return gt_err(err, GT_ERR_NOMEM, "combine: out of memory");
            }
            gt_csv_field(field, name, NULL);
            put_number(f, gt_table_number(t, in[k].col[PID], r), pid_int);
            fputc(',', f);
            fputs(field, f);
            fputc(',', f);
            put_number(f, gt_table_number(t, in[k].col[POS], r), pos_int);
            fputc(',', f);
            put_number(f, gt_table_number(t, in[k].col[TS], r), ts_int);
            if (hosts) {
                gt_csv_field(field, host, NULL);
                fputc(',', f);
                fputs(field, f);
            }
            fputc('\n', f);
        }
    }
    free(field);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return gt_err(err, GT_ERR_IO, "cannot write sub-tracking file '%s'", out);
    return GT_OK;
}

static void bind_number(sqlite3_stmt *q, int i, double x, int integer)
{
    if (isnan(x))
        sqlite3_bind_null(q, i);
    else if (integer && fabs(x) < 9.2e18)
        sqlite3_bind_int64(q, i, (sqlite3_int64)x);
    else
        sqlite3_bind_double(q, i, x);
}

static gt_status write_sqlite(const char *out, const input *in, size_t n, int hosts, gt_error *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    gt_status st = GT_OK;
    const gt_marks_layout *layout = gt_marks_layout_of(hosts);
    if (sqlite3_open_v2(out, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, layout->sql_create, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, layout->sql_insert, -1, &q, NULL) != SQLITE_OK)
        goto db_fail;
    for (size_t k = 0; k < n; k++) {
        const gt_table *t = in[k].t;
        for (size_t r = 0; r < gt_table_nrows(t); r++) {
            bind_number(q, 1, gt_table_number(t, in[k].col[PID], r),
                        gt_table_is_integer(t, in[k].col[PID]));
            int rc = gt_sqltext_bind(q, 2, gt_table_text(t, in[k].col[NAME], r));
            bind_number(q, 3, gt_table_number(t, in[k].col[POS], r),
                        gt_table_is_integer(t, in[k].col[POS]));
            bind_number(q, 4, gt_table_number(t, in[k].col[TS], r),
                        gt_table_is_integer(t, in[k].col[TS]));
            if (hosts && rc == SQLITE_OK)
                rc = gt_sqltext_bind(q, 5, host_of(&in[k], r));
            if (rc == SQLITE_OK)
                rc = sqlite3_step(q);
            sqlite3_reset(q);
            if (rc != SQLITE_DONE)
                goto db_fail;
        }
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto db_fail;
    goto done;
db_fail:
    st = gt_err(err, GT_ERR_IO, "cannot write sub-tracking file '%s': %s", out,
                db ? sqlite3_errmsg(db) : "out of memory");
done:
    sqlite3_finalize(q);
    if (db && sqlite3_close(db) != SQLITE_OK && st == GT_OK)
        st = gt_err(err, GT_ERR_IO, "cannot close sub-tracking file '%s'", out);
    return st;
}

gt_status gt_subtrack_combine(const char *out_file, const char *const *inputs, size_t n_inputs,
                              gt_error *err)
{
    gt_status st = GT_OK;
    input *in = NULL;
    int fd = -1, hosts = 0;

    if (!out_file)
        return gt_err(err, GT_ERR_INVALID, "combine: no sub-tracking file to create");
    const char *ext = extension(out_file);
    if (!ext)
        return gt_err(err, GT_ERR_INVALID,
                      "invalid sub-tracking file '%s': the extension must be '.csv' or '.sqlite'",
                      out_file);
    if (n_inputs == 0 || !inputs)
        return gt_err(err, GT_ERR_INVALID, "combine: no sub-tracking files to combine into '%s'",
                      out_file);
    if (access(out_file, F_OK) == 0)
        return gt_err(err, GT_ERR_EXISTS, "cannot create sub-tracking file '%s': it already exists",
                      out_file);
    for (size_t k = 0; k < n_inputs; k++) {
        const char *e = inputs[k] ? extension(inputs[k]) : NULL;
        if (!e || strcmp(e, ext) != 0)
            return gt_err(err, GT_ERR_INVALID,
                          "cannot combine '%s' into '%s': every file must end in '%s' like it",
                          inputs[k] ? inputs[k] : "(null)", out_file, ext);
    }
    if (!(in = calloc(n_inputs, sizeof *in)))
        return gt_err(err, GT_ERR_NOMEM, "combine: out of memory");
    for (size_t k = 0; k < n_inputs; k++) {
        if ((st = gt_table_read_columns(inputs[k], GT_TABLE_MARKS, gt_mark_columns, gt_mark_text_columns,
                                        &in[k].t, err)) != GT_OK)
            goto done;
        for (int c = 0; c < NCOLS; c++)
            in[k].col[c] = gt_table_find(in[k].t, gt_mark_columns[c] + (gt_mark_columns[c][0] == '?'));
        hosts |= in[k].col[HOST] >= 0;
    }
    if ((st = gt_store_create_file(out_file, 0, "sub-tracking file", "it is never replaced", &fd,
                                   err)) != GT_OK)
        goto done;
    if (!strcmp(ext, ".csv")) {
        st = write_csv(fd, out_file, in, n_inputs, hosts, err);
    } else {
        close(fd); /* SQLite opens it by name */
        st = write_sqlite(out_file, in, n_inputs, hosts, err);
    }
    fd = -1;
    if (st != GT_OK)
        unlink(out_file);
done:
    for (size_t k = 0; k < n_inputs; k++)
        gt_table_free(&in[k].t);
    free(in);
    return st;
}
