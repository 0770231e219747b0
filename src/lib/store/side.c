/* SPDX-License-Identifier: MIT */
#include "store/side.h"
#include "store/csvfield.h"
#include "store/store.h"
#include "util/error.h"
#include "util/pyfloat.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sampling thread waits at most this long for a lock another program
 * holds on the SQLite file; the main table has its own queue for that. */
#define SIDE_BUSY_MS 250

struct gt_side {
    int ncols;
    char *path;
    /* CSV: the sibling file, and the current sample's lines. */
    int fd;
    off_t size;        /* bytes of complete samples */
    char *buf;
    size_t len, cap;
    /* SQLite: a connection of our own to the tracking file. */
    sqlite3 *db;
    sqlite3_stmt *insert;
    int in_tx;
};

static int reserve(gt_side *s, size_t more)
{
    if (s->len + more <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->len + more)
        cap *= 2;
    char *b = realloc(s->buf, cap);
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
    return gt_err(err, GT_ERR_IO, "cannot %s table of tracking file '%s': %s", what, s->path,
                  s->db ? sqlite3_errmsg(s->db) : "out of memory");
}

static gt_status open_sqlite(gt_side *s, const char *name, const char *const *names,
                             const char *const *types, int ncols, gt_error *err)
{
    if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
        return db_fail(s, "open the side", err);
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
        st = db_fail(s, "create the side", err);
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
    gt_status st;
    if (csv) {
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
            s->len += gt_pyfloat_repr(c[i].f, s->buf + s->len, GT_PYFLOAT_BUFSZ);
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

static int bind_row(sqlite3_stmt *st, const gt_cell *c, int n)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < n && rc == SQLITE_OK; i++) {
        switch (c[i].kind) {
        case GT_CELL_FLOAT: rc = sqlite3_bind_double(st, i + 1, c[i].f); break;
        case GT_CELL_INT: rc = sqlite3_bind_int64(st, i + 1, c[i].i); break;
        case GT_CELL_TEXT: rc = sqlite3_bind_text(st, i + 1, c[i].s, -1, SQLITE_TRANSIENT); break;
        case GT_CELL_NULL: rc = sqlite3_bind_null(st, i + 1); break;
        }
    }
    return rc;
}

gt_status gt_side_add(gt_side *s, const gt_cell *cells, gt_error *err)
{
    if (!s->db)
        return add_csv(s, cells, err);
    /* One transaction per sample: a row each would be a commit each. */
    if (!s->in_tx) {
        if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
            return db_fail(s, "write to the side", err);
        s->in_tx = 1;
    }
    int rc = bind_row(s->insert, cells, s->ncols);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s->insert) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    gt_status st = rc == SQLITE_OK ? GT_OK : db_fail(s, "write to the side", err);
    sqlite3_reset(s->insert);
    return st;
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
    if (!s->in_tx)
        return GT_OK;
    s->in_tx = 0;
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        gt_status st = db_fail(s, "write to the side", err);
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return st;
    }
    return GT_OK;
}

gt_status gt_side_close(gt_side **sp, gt_error *err)
{
    if (!sp || !*sp)
        return GT_OK;
    gt_side *s = *sp;
    gt_status st = GT_OK;
    if (s->in_tx)
        st = gt_side_end_sample(s, err);
    if (s->fd >= 0 && close(s->fd) != 0 && st == GT_OK)
        st = gt_err(err, GT_ERR_IO, "cannot close tracking file '%s': %s", s->path, strerror(errno));
    sqlite3_finalize(s->insert);
    if (s->db && sqlite3_close(s->db) != SQLITE_OK && st == GT_OK)
        st = db_fail(s, "close the side", err);
    free(s->buf);
    free(s->path);
    free(s);
    *sp = NULL;
    return st;
}
