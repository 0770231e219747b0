/* SPDX-License-Identifier: MIT */
/* SQLite tracking files: tables static_data and data with the Python
 * package's column types.  WAL with synchronous=NORMAL makes each row's
 * autocommit a single append to the log, without an fsync, and a log left by
 * a killed tracker is replayed by the next reader.  One prepared INSERT is
 * reused for every row.
 *
 * Another program may write to the file while we track (a user's sqlite3
 * shell, a script adding a table).  A row that finds the file locked waits
 * for the lock (store/lockwait.h: GT_LOCKWAIT_SAMPLE_MS, shared with the
 * side tables' connections when the tracker attaches its wait), then is
 * queued in memory and written before the next row, oldest first; at close
 * the queue waits GT_LOCKWAIT_CLOSE_MS.  So a lock held for a while delays
 * rows; only a queue past GT_LOCKWAIT_QUEUE_BYTES drops samples, counted
 * and reported at close. */
#include "store/backend.h"
#include "store/lockwait.h"
#include "store/store.h"
#include "util/error.h"
#include "util/grow.h"
#include "store/sqlrow.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A queued row's size: the queue's rows are GT_STORE_MAX_COLUMNS cells. */
#define ROW_BYTES (GT_STORE_MAX_COLUMNS * sizeof(gt_cell))

typedef struct sqlite_store {
    sqlite3 *db;
    sqlite3_stmt *insert;
    int ncols; /* timepoint columns of table data */
    char *path;
    int sys_errno; /* of the last failed step, taken before the reset */
    char failed_msg[256]; /* SQLite's message for a failure undone by ROLLBACK */
    gt_cell *pending; /* rows waiting for the lock, GT_STORE_MAX_COLUMNS cells each (ncols written) */
    size_t n_pending, cap_pending;
    size_t dropped;       /* samples dropped with the queue full */
    gt_lockwait *lockwait; /* shared with the side tables; NULL: a busy timeout of our own */
} sqlite_store;

static gt_status db_err(const sqlite_store *s, const char *what, gt_error *err)
{
    /* SQLite's "disk I/O error" does not say which: add the system's reason
     * (EFBIG, ENOSPC, EROFS ...) when there is one. */
    int e = s->sys_errno ? s->sys_errno : s->db ? sqlite3_system_errno(s->db) : 0;
    const char *msg = s->failed_msg[0] ? s->failed_msg : s->db ? sqlite3_errmsg(s->db) : "out of memory";
    return gt_err(err, GT_ERR_IO, "cannot %s tracking file '%s': %s%s%s", what, s->path, msg,
                  e ? ": " : "", e ? strerror(e) : "");
}

static int is_busy(int rc)
{
    return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* Adds a row to the queue; -1 when out of memory.  Text cells point to
 * static storage, so a copy of the cells is a copy of the row. */
static int queue_row(sqlite_store *s, const gt_cell *cells)
{
    if (s->n_pending == s->cap_pending) {
        size_t cap = gt_grow_cap(s->cap_pending, s->n_pending + 1, 16, GT_STORE_MAX_COLUMNS * sizeof *s->pending);
        gt_cell *p = cap ? realloc(s->pending, cap * GT_STORE_MAX_COLUMNS * sizeof *p) : NULL;
        if (!p)
            return -1;
        s->pending = p;
        s->cap_pending = cap;
    }
    memcpy(s->pending + s->n_pending * GT_STORE_MAX_COLUMNS, cells, GT_STORE_MAX_COLUMNS * sizeof *cells);
    s->n_pending++;
    return 0;
}

/* Writes the queued rows in one transaction, all or none; the queue is
 * empty on SQLITE_OK and unchanged otherwise. */
static int flush_pending(sqlite_store *s)
{
    int rc = gt_sqlrow_write_all(s->db, s->insert, s->pending, s->n_pending, s->ncols, GT_STORE_MAX_COLUMNS, NULL,
                                 &s->sys_errno, s->failed_msg, sizeof s->failed_msg);
    if (rc != SQLITE_OK)
        return rc;
    s->n_pending = 0;
    /* A long wait's queue is not kept once written. */
    if (s->cap_pending * ROW_BYTES > (1u << 20)) {
        free(s->pending);
        s->pending = NULL;
        s->cap_pending = 0;
    }
    return SQLITE_OK;
}

static gt_status sqlite_append(void *impl, const gt_cell *cells, gt_error *err)
{
    sqlite_store *s = impl;
    s->failed_msg[0] = '\0';
    int rc;
    if (s->n_pending == 0) {
        rc = gt_sqlrow_run(s->insert, cells, s->ncols, NULL, &s->sys_errno);
    } else if ((s->n_pending + 1) * ROW_BYTES > GT_LOCKWAIT_QUEUE_BYTES) {
        /* Full: the queue alone, in order, and this row after it. */
        if ((rc = flush_pending(s)) == SQLITE_OK)
            rc = gt_sqlrow_run(s->insert, cells, s->ncols, NULL, &s->sys_errno);
        else if (is_busy(rc)) {
            s->dropped++;
            return GT_OK;
        }
    } else {
        if (queue_row(s, cells) != 0)
            return gt_err(err, GT_ERR_NOMEM, "tracking file '%s' is locked and there is no memory to "
                          "hold the sample until it is free", s->path);
        if ((rc = flush_pending(s)) != SQLITE_OK)
            cells = NULL; /* queued already */
    }
    if (is_busy(rc) && cells && queue_row(s, cells) != 0)
        return gt_err(err, GT_ERR_NOMEM, "tracking file '%s' is locked and there is no memory to "
                      "hold the sample until it is free", s->path);
    if (rc != SQLITE_OK && !is_busy(rc))
        return db_err(s, "write", err);
    return GT_OK;
}

static gt_status sqlite_close(void *impl, gt_error *err)
{
    sqlite_store *s = impl;
    gt_status st = GT_OK;
    if (s->n_pending) {
        /* A shared wait is armed by its owner for all its connections. */
        if (!s->lockwait)
            sqlite3_busy_timeout(s->db, GT_LOCKWAIT_CLOSE_MS);
        s->failed_msg[0] = '\0';
        size_t n = s->n_pending + s->dropped;
        if (flush_pending(s) != SQLITE_OK) {
            char what[96];
            snprintf(what, sizeof what, "write %zu sample%s to table 'data' of", n, n == 1 ? "" : "s");
            st = db_err(s, what, err);
            s->dropped = 0;
        }
    }
    if (s->dropped && st == GT_OK)
        st = gt_err(err, GT_ERR_IO, "cannot write %zu sample%s to table 'data' of tracking file '%s': it was "
                    "locked by another program while more than %u MiB of rows waited in memory",
                    s->dropped, s->dropped == 1 ? "" : "s", s->path, GT_LOCKWAIT_QUEUE_BYTES >> 20);
    free(s->pending);
    sqlite3_finalize(s->insert);
    if (s->db) {
        /* Back to a rollback journal: this checkpoints the log into the main
         * file and removes it, so the finished file is one self-contained
         * database as the Python package writes it, readable without write
         * access to its folder.  If this fails the data is still complete
         * (a WAL database is a valid database), so it is not an error. */
        sqlite3_exec(s->db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
        if (sqlite3_close(s->db) != SQLITE_OK && st == GT_OK)
            st = db_err(s, "close", err);
    }
    free(s->path);
    free(s);
    return st;
}

/* The key is an identifier (checked by store.c), so it needs no quoting;
 * the value is bound. */
static gt_status sqlite_add_static(void *impl, const gt_cell *static_cells, const gt_store_extra *extra,
                                   size_t nextra, gt_error *err)
{
    sqlite_store *s = impl;
    const gt_store_extra *x = &extra[nextra - 1];
    (void)static_cells;
    char *alter = sqlite3_mprintf("ALTER TABLE static_data ADD COLUMN %s TEXT", x->key);
    char *update = sqlite3_mprintf("UPDATE static_data SET %s = ?", x->key);
    sqlite3_stmt *st = NULL;
    gt_status rc = GT_OK;
    if (!alter || !update)
        rc = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", s->path);
    else if (sqlite3_exec(s->db, alter, NULL, NULL, NULL) != SQLITE_OK ||
             sqlite3_prepare_v2(s->db, update, -1, &st, NULL) != SQLITE_OK ||
             gt_sqlrow_run(st,
                           x->value ? &(gt_cell){.kind = GT_CELL_TEXT, .s = x->value}
                                    : &(gt_cell){.kind = GT_CELL_NULL},
                           1, NULL, &s->sys_errno) != SQLITE_OK)
        rc = db_err(s, "write", err);
    sqlite3_finalize(st);
    sqlite3_free(alter);
    sqlite3_free(update);
    return rc;
}

static void sqlite_set_lockwait(void *impl, gt_lockwait *w)
{
    sqlite_store *s = impl;
    s->lockwait = w;
    if (w)
        gt_lockwait_attach(w, s->db);
    else
        sqlite3_busy_timeout(s->db, GT_LOCKWAIT_SAMPLE_MS);
}

const gt_store_backend gt_store_sqlite_backend = {sqlite_append, sqlite_close, sqlite_add_static,
                                                  sqlite_set_lockwait};

gt_status gt_store_sqlite_open(const char *path, const gt_cell *static_cells,
                               const gt_store_extra *extra, size_t nextra, const char *const *data_names,
                               const char *const *data_types, int ncols, void **impl, gt_error *err)
{
    gt_status st = GT_OK;
    sqlite_store *s = NULL;
    sqlite3_stmt *static_insert = NULL;
    char *sql = NULL;
    /* The static columns: the Python package's, then the extra ones. */
    int nstatic = GT_STORE_NSTATIC_COLUMNS + (int)nextra;
    const char **names = calloc((size_t)nstatic, sizeof *names);
    const char **types = calloc((size_t)nstatic, sizeof *types);
    gt_cell *cells = calloc((size_t)nstatic, sizeof *cells);

    *impl = NULL;
    if (!names || !types || !cells)
        goto nomem;
    for (int i = 0; i < nstatic; i++) {
        int x = i - GT_STORE_NSTATIC_COLUMNS;
        names[i] = x < 0 ? gt_store_static_columns[i] : extra[x].key;
        types[i] = x < 0 ? gt_store_static_column_types[i] : "TEXT";
        cells[i] = x < 0 ? static_cells[i]
                         : extra[x].value ? (gt_cell){.kind = GT_CELL_TEXT, .s = extra[x].value}
                                          : (gt_cell){.kind = GT_CELL_NULL};
    }
    if (!(s = calloc(1, sizeof *s)) || !(s->path = strdup(path))) {
        st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", path);
        goto fail;
    }
    s->ncols = ncols;
    /* NOFOLLOW: the file was created without following links; a link
     * swapped in since then is refused rather than written through. */
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) !=
        SQLITE_OK) {
        st = db_err(s, "open", err);
        goto fail;
    }
    sqlite3_busy_timeout(s->db, GT_LOCKWAIT_SAMPLE_MS);
    if (sqlite3_exec(s->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; BEGIN",
                     NULL, NULL, NULL) != SQLITE_OK)
        goto db_fail;

    if (!(sql = gt_sqlrow_create("static_data", names, types, nstatic)))
        goto nomem;
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        goto db_fail;
    free(sql);
    if (!(sql = gt_sqlrow_create("data", data_names, data_types, ncols)))
        goto nomem;
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        goto db_fail;
    free(sql);

    if (!(sql = gt_sqlrow_insert("static_data", names, nstatic)))
        goto nomem;
    if (sqlite3_prepare_v2(s->db, sql, -1, &static_insert, NULL) != SQLITE_OK ||
        gt_sqlrow_run(static_insert, cells, nstatic, NULL, &s->sys_errno) != SQLITE_OK)
        goto db_fail;
    free(sql);
    if (!(sql = gt_sqlrow_insert("data", data_names, ncols)))
        goto nomem;
    /* PERSISTENT: the statement lives as long as the file. */
    if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->insert, NULL) !=
        SQLITE_OK)
        goto db_fail;
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto db_fail;
    goto done;

nomem:
    st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", path);
    goto fail;
db_fail:
    st = db_err(s, "create", err);
fail:
    if (s)
        sqlite_close(s, NULL);
    s = NULL;
done:
    sqlite3_finalize(static_insert);
    free(sql);
    free(names);
    free(types);
    free(cells);
    *impl = s;
    return st;
}
