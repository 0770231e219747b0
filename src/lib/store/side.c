/* SPDX-License-Identifier: MIT */
#include "store/side.h"
#include "store/csvfield.h"
#include "store/store.h"
#include "util/error.h"
#include "util/pyfloat.h"
#include "util/grow.h"
#include "store/sqltext.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sampling thread waits at most this long for the SQLite file's write
 * lock (another program's, e.g. a reader recovering the log); then the
 * rows wait in memory for the next sample, as the main table's do.  At
 * close they may wait SIDE_BUSY_CLOSE_MS. */
#define SIDE_BUSY_MS 250
#define SIDE_BUSY_CLOSE_MS 10000

struct gt_side {
    int ncols;
    char *path;
    char table[32];    /* its name, for messages */
    /* CSV: the sibling file, and the current sample's lines. */
    int fd;
    off_t size;        /* bytes of complete samples */
    char *buf;
    size_t len, cap;
    /* Each column's last float and its text: a sample's rows share their
     * timestamp, and Python's shortest repr is the costly part of a row. */
    double *memo_v;
    char (*memo_t)[GT_PYFLOAT_BUFSZ];
    unsigned char *memo_len;
    /* SQLite: a connection of our own to the tracking file. */
    sqlite3 *db;
    sqlite3_stmt *insert;
    /* Rows not yet in the file, ncols cells each; a text cell's text is in
     * text at offset .i (the cells' own strings are the caller's). */
    gt_cell *rows;
    size_t n_rows, cap_rows;
    char *text;
    size_t text_len, text_cap;
};

static int reserve(gt_side *s, size_t more)
{
    if (s->len + more <= s->cap)
        return 0;
    size_t cap = gt_grow_cap(s->cap, s->len + more, 4096, 1);
    char *b = cap ? realloc(s->buf, cap) : NULL;
    if (!b)
        return -1;
    s->buf = b;
    s->cap = cap;
    return 0;
}

/* "dir/track.csv" -> "dir/track.NAME.csv". */
static char *sibling(const char *path, const char *name)
{
    size_t n = strlen(path) - 4; /* ".csv", checked by gt_store_open */
    char *p = malloc(n + strlen(name) + 6);
    if (p)
        sprintf(p, "%.*s.%s.csv", (int)n, path, name);
    return p;
}

static gt_status db_fail(gt_side *s, const char *what, gt_error *err)
{
    return gt_err(err, GT_ERR_IO, "cannot %s table '%s' of tracking file '%s': %s", what, s->table, s->path,
                  s->db ? sqlite3_errmsg(s->db) : "out of memory");
}

static gt_status open_sqlite(gt_side *s, const char *name, const char *const *names,
                             const char *const *types, int ncols, gt_error *err)
{
    if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
        return db_fail(s, "open", err);
    sqlite3_busy_timeout(s->db, SIDE_BUSY_MS);
    /* Column names are ours (fixed words and GPU indexes): no quoting. */
    size_t size = 64 + strlen(name);
    for (int i = 0; i < ncols; i++)
        size += strlen(names[i]) + strlen(types[i]) + 16;
    char *create = malloc(size), *ins = malloc(size);
    gt_status st = GT_OK;
    if (!create || !ins) {
        st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", s->path);
        goto done;
    }
    size_t a = (size_t)snprintf(create, size, "CREATE TABLE %s (\n", name);
    size_t b = (size_t)snprintf(ins, size, "INSERT INTO %s VALUES (", name);
    for (int i = 0; i < ncols; i++) {
        a += (size_t)snprintf(create + a, size - a, "\t%s %s%s\n", names[i], types[i], i + 1 < ncols ? ", " : "");
        b += (size_t)snprintf(ins + b, size - b, "%s?", i ? ", " : "");
    }
    snprintf(create + a, size - a, ")");
    snprintf(ins + b, size - b, ")");
    if (sqlite3_exec(s->db, create, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(s->db, ins, -1, SQLITE_PREPARE_PERSISTENT, &s->insert, NULL) != SQLITE_OK)
        st = db_fail(s, "create", err);
done:
    free(create);
    free(ins);
    return st;
}

static gt_status add_header(gt_side *s, const char *const *names, gt_error *err)
{
    for (int i = 0; i < s->ncols; i++) {
        size_t m = strlen(names[i]);
        if (reserve(s, m + 2) != 0)
            return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", s->path);
        if (i)
            s->buf[s->len++] = ',';
        memcpy(s->buf + s->len, names[i], m);
        s->len += m;
    }
    s->buf[s->len++] = '\n';
    return gt_side_end_sample(s, err);
}

gt_status gt_side_open(const char *tracking_file, const char *name, const char *const *names,
                       const char *const *types, int ncols, int overwrite, gt_side **out, gt_error *err)
{
    *out = NULL;
    size_t n = strlen(tracking_file);
    int csv = n > 4 && !strcmp(tracking_file + n - 4, ".csv");
    gt_side *s = calloc(1, sizeof *s);
    if (!s || !(s->path = csv ? sibling(tracking_file, name) : strdup(tracking_file))) {
        free(s);
        return gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", tracking_file);
    }
    s->ncols = ncols;
    s->fd = -1;
    snprintf(s->table, sizeof s->table, "%s", name);
    gt_status st;
    if (csv && (!(s->memo_v = calloc((size_t)ncols, sizeof *s->memo_v)) ||
                !(s->memo_t = calloc((size_t)ncols, sizeof *s->memo_t)) ||
                !(s->memo_len = calloc((size_t)ncols, 1)))) {
        st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", tracking_file);
    } else if (csv) {
        st = gt_store_create_file(s->path, overwrite, "tracking file", "pass --overwrite to replace it",
                                  &s->fd, err);
        if (st == GT_OK && (st = add_header(s, names, err)) != GT_OK)
            unlink(s->path);
    } else {
        st = open_sqlite(s, name, names, types, ncols, err);
    }
    if (st != GT_OK) {
        gt_error ignored;
        gt_side_close(&s, &ignored);
        return st;
    }
    *out = s;
    return GT_OK;
}

const char *gt_side_path(const gt_side *s) { return s->path; }

static gt_status add_csv(gt_side *s, const gt_cell *c, gt_error *err)
{
    for (int i = 0; i < s->ncols; i++) {
        size_t tl = c[i].kind == GT_CELL_TEXT ? strlen(c[i].s) : 0;
        if (reserve(s, GT_PYFLOAT_BUFSZ + GT_CSV_FIELD_MAX(tl + 1) + 2) != 0)
            return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", s->path);
        if (i)
            s->buf[s->len++] = ',';
        switch (c[i].kind) {
        case GT_CELL_FLOAT:
            /* Bitwise equality: -0.0 and 0.0 print differently. */
            if (!s->memo_len[i] || memcmp(&s->memo_v[i], &c[i].f, sizeof c[i].f) != 0) {
                s->memo_v[i] = c[i].f;
                s->memo_len[i] = (unsigned char)gt_pyfloat_repr(c[i].f, s->memo_t[i], GT_PYFLOAT_BUFSZ);
            }
            memcpy(s->buf + s->len, s->memo_t[i], s->memo_len[i]);
            s->len += s->memo_len[i];
            break;
        case GT_CELL_INT:
            s->len += (size_t)snprintf(s->buf + s->len, GT_PYFLOAT_BUFSZ, "%lld", c[i].i);
            break;
        case GT_CELL_TEXT:
            s->len += gt_csv_field(s->buf + s->len, c[i].s, NULL);
            break;
        case GT_CELL_NULL:
            break;
        }
    }
    s->buf[s->len++] = '\n';
    return GT_OK;
}

static int grow_rows(gt_side *s, size_t *cap)
{
    if (s->n_rows < *cap)
        return 0;
    size_t nc = gt_grow_cap(*cap, *cap + 1, 64, (size_t)s->ncols * sizeof *s->rows);
    gt_cell *v = nc ? realloc(s->rows, nc * (size_t)s->ncols * sizeof *v) : NULL;
    if (!v)
        return -1;
    s->rows = v;
    s->cap_rows = *cap = nc;
    return 0;
}

/* Binds a queued row (its text in text, see gt_side). */
static int bind_row(sqlite3_stmt *st, const gt_cell *c, int n, const char *text)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < n && rc == SQLITE_OK; i++) {
        switch (c[i].kind) {
        case GT_CELL_FLOAT: rc = sqlite3_bind_double(st, i + 1, c[i].f); break;
        case GT_CELL_INT: rc = sqlite3_bind_int64(st, i + 1, c[i].i); break;
        case GT_CELL_TEXT: rc = gt_sqltext_bind(st, i + 1, text + c[i].i); break;
        case GT_CELL_NULL: rc = sqlite3_bind_null(st, i + 1); break;
        }
    }
    return rc;
}

gt_status gt_side_add(gt_side *s, const gt_cell *cells, gt_error *err)
{
    if (!s->db)
        return add_csv(s, cells, err);
    size_t cap = s->cap_rows;
    if (grow_rows(s, &cap) != 0)
        return gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", s->path);
    gt_cell *row = s->rows + s->n_rows * (size_t)s->ncols;
    for (int i = 0; i < s->ncols; i++) {
        row[i] = cells[i];
        if (cells[i].kind != GT_CELL_TEXT)
            continue;
        size_t m = strlen(cells[i].s) + 1;
        if (s->text_len + m > s->text_cap) {
            size_t tc = gt_grow_cap(s->text_cap, s->text_len + m, 4096, 1);
            char *t = tc ? realloc(s->text, tc) : NULL;
            if (!t)
                return gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", s->path);
            s->text = t;
            s->text_cap = tc;
        }
        memcpy(s->text + s->text_len, cells[i].s, m);
        row[i].s = NULL;
        row[i].i = (long long)s->text_len;
        s->text_len += m;
    }
    s->n_rows++;
    return GT_OK;
}

/* Writes the waiting rows in one transaction (one a row would be a commit
 * each), all or none: SQLITE_OK empties the queue. */
static int flush_rows(gt_side *s)
{
    int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    for (size_t r = 0; r < s->n_rows && rc == SQLITE_OK; r++) {
        const gt_cell *row = s->rows + r * (size_t)s->ncols;
        rc = bind_row(s->insert, row, s->ncols, s->text);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(s->insert);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        sqlite3_reset(s->insert);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        if (!sqlite3_get_autocommit(s->db))
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    s->n_rows = s->text_len = 0;
    return SQLITE_OK;
}

/* All of buf, after signals and short writes; a sample cut off half-way
 * (disk full) is truncated away so the file ends with a complete row. */
static gt_status write_csv(gt_side *s, gt_error *err)
{
    size_t done = 0;
    while (done < s->len) {
        ssize_t w = write(s->fd, s->buf + done, s->len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            if (ftruncate(s->fd, s->size) == 0)
                lseek(s->fd, s->size, SEEK_SET);
            s->len = 0;
            return gt_err(err, GT_ERR_IO, "cannot write tracking file '%s': %s", s->path, strerror(e));
        }
        done += (size_t)w;
    }
    s->size += (off_t)s->len;
    s->len = 0;
    return GT_OK;
}

gt_status gt_side_end_sample(gt_side *s, gt_error *err)
{
    if (!s->db)
        return s->len ? write_csv(s, err) : GT_OK;
    if (s->n_rows == 0)
        return GT_OK;
    int rc = flush_rows(s);
    /* Locked: the rows wait for the next sample (or the close). */
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
        return db_fail(s, "write", err);
    return GT_OK;
}

gt_status gt_side_close(gt_side **sp, gt_error *err)
{
    if (!sp || !*sp)
        return GT_OK;
    gt_side *s = *sp;
    gt_status st = GT_OK;
    if (s->db && s->n_rows) {
        sqlite3_busy_timeout(s->db, SIDE_BUSY_CLOSE_MS);
        if (flush_rows(s) != SQLITE_OK)
            st = db_fail(s, "write", err);
    }
    if (s->fd >= 0 && close(s->fd) != 0 && st == GT_OK)
        st = gt_err(err, GT_ERR_IO, "cannot close tracking file '%s': %s", s->path, strerror(errno));
    sqlite3_finalize(s->insert);
    if (s->db && sqlite3_close(s->db) != SQLITE_OK && st == GT_OK)
        st = db_fail(s, "close", err);
    free(s->buf);
    free(s->memo_v);
    free(s->memo_t);
    free(s->memo_len);
    free(s->rows);
    free(s->text);
    free(s->path);
    free(s);
    *sp = NULL;
    return st;
}
