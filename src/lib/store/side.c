/* SPDX-License-Identifier: MIT */
#include "store/side.h"
#include "store/csvfield.h"
#include "store/lockwait.h"
#include "store/store.h"
#include "util/error.h"
#include "util/pyfloat.h"
#include "util/grow.h"
#include "store/sqlrow.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sampling thread waits for the SQLite file's write lock (another
 * program's, e.g. a reader recovering the log) as store/lockwait.h says,
 * in one wait shared with the main table's connection when the tracker
 * attaches it; then the rows wait in memory for the next sample, as the
 * main table's do, up to GT_LOCKWAIT_QUEUE_BYTES. */

struct gt_side {
    int ncols;
    char *path;
    char table[32];    /* its name, for messages */
    gt_log_fn log;     /* says that a deleted CSV file was re-created */
    void *log_ctx;
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
    size_t sample_rows, sample_text; /* where the current sample's rows begin */
    size_t queued_samples;           /* samples whose rows wait in the queue */
    size_t dropped_samples, dropped_rows; /* with the queue full */
    char failed_msg[256];            /* SQLite's message, read before the ROLLBACK that clears it */
    gt_lockwait *lockwait;           /* shared with the main table; NULL: a busy timeout of our own */
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

const char *const gt_side_tables[] = {"processes", "gpus", NULL};

char *gt_side_csv_path(const char *tracking_file, const char *name)
{
    size_t n = strlen(tracking_file);
    if (n < 4 || strcmp(tracking_file + n - 4, ".csv") != 0)
        return NULL;
    n -= 4;
    char *p = malloc(n + strlen(name) + 6);
    if (p)
        sprintf(p, "%.*s.%s.csv", (int)n, tracking_file, name);
    return p;
}

size_t gt_side_stem_len(const char *path, const char *name)
{
    size_t n = strlen(path), m = strlen(name) + 5; /* ".NAME.csv" */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    /* The tracking file's own name is not empty ("dir/.processes.csv" is no sibling). */
    if (n <= m || path + n - m <= base || path[n - m] != '.' || strncmp(path + n - m + 1, name, m - 5) ||
        strcmp(path + n - 4, ".csv"))
        return 0;
    return n - m;
}

static gt_status db_fail(gt_side *s, const char *what, gt_error *err)
{
    return gt_err(err, GT_ERR_IO, "cannot %s table '%s' of tracking file '%s': %s", what, s->table, s->path,
                  s->failed_msg[0] ? s->failed_msg : s->db ? sqlite3_errmsg(s->db) : "out of memory");
}

static gt_status open_sqlite(gt_side *s, const char *name, const char *const *names,
                             const char *const *types, int ncols, gt_error *err)
{
    if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
        return db_fail(s, "open", err);
    sqlite3_busy_timeout(s->db, GT_LOCKWAIT_SAMPLE_MS);
    char *create = gt_sqlrow_create(name, names, types, ncols);
    char *ins = gt_sqlrow_insert(name, names, ncols);
    gt_status st = GT_OK;
    if (!create || !ins) {
        st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", s->path);
        goto done;
    }
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
    if (!s || !(s->path = csv ? gt_side_csv_path(tracking_file, name) : strdup(tracking_file))) {
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
        int fl = st == GT_OK ? fcntl(s->fd, F_GETFL) : 0;
        if (st == GT_OK && (fl < 0 || fcntl(s->fd, F_SETFL, fl | O_APPEND) != 0))
            st = gt_err(err, GT_ERR_IO, "tracking file '%s': %s", s->path, strerror(errno));
        if (st == GT_OK)
            st = add_header(s, names, err);
        if (st != GT_OK && s->fd >= 0)
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

gt_status gt_side_check(const char *tracking_file, const char *name, int overwrite, gt_error *err)
{
    size_t n = strlen(tracking_file);
    if (n <= 4 || strcmp(tracking_file + n - 4, ".csv") != 0)
        return GT_OK;
    char *p = gt_side_csv_path(tracking_file, name);
    if (!p)
        return gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", tracking_file);
    gt_status st = gt_store_check_file(p, overwrite, "tracking file", "pass --overwrite to replace it", err);
    free(p);
    return st;
}

void gt_side_discard(gt_side **sp)
{
    if (!sp || !*sp)
        return;
    char *path = (*sp)->fd >= 0 ? strdup((*sp)->path) : NULL;
    gt_error ignored;
    gt_side_close(sp, &ignored);
    if (path)
        unlink(path);
    free(path);
}

const char *gt_side_path(const gt_side *s) { return s->path; }

void gt_side_set_lockwait(gt_side *s, gt_lockwait *w)
{
    if (!s->db)
        return;
    s->lockwait = w;
    if (w)
        gt_lockwait_attach(w, s->db);
    else
        sqlite3_busy_timeout(s->db, GT_LOCKWAIT_SAMPLE_MS);
}

void gt_side_set_log(gt_side *s, gt_log_fn log, void *ctx)
{
    s->log = log;
    s->log_ctx = ctx;
}

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
    /* The rows' text is in s->text (see gt_side). */
    int rc = gt_sqlrow_write_all(s->db, s->insert, s->rows, s->n_rows, s->ncols, (size_t)s->ncols, s->text, NULL,
                                 s->failed_msg, sizeof s->failed_msg);
    if (rc != SQLITE_OK)
        return rc;
    s->n_rows = s->text_len = s->queued_samples = 0;
    /* A long wait's queue is not kept once written. */
    if (s->cap_rows * (size_t)s->ncols * sizeof *s->rows + s->text_cap > (1u << 20)) {
        free(s->rows);
        free(s->text);
        s->rows = NULL;
        s->text = NULL;
        s->cap_rows = s->text_cap = 0;
    }
    return SQLITE_OK;
}

/* The sample's rows, with the main CSV file's protections
 * (gt_store_append_rows): a sample cut off half-way (disk full) is
 * truncated away, and a file another program truncated or wrote to gets
 * no more rows. */
static gt_status write_csv(gt_side *s, gt_error *err)
{
    gt_status st = gt_store_append_rows(s->fd, s->path, &s->size, s->buf, s->len, err);
    s->len = 0;
    return st;
}

gt_status gt_side_end_sample(gt_side *s, gt_error *err)
{
    if (!s->db)
        return s->len ? write_csv(s, err) : GT_OK;
    if (s->n_rows == 0)
        return GT_OK;
    size_t new_rows = s->n_rows - s->sample_rows;
    s->failed_msg[0] = '\0';
    int rc = flush_rows(s);
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
        return db_fail(s, "write", err);
    if (rc != SQLITE_OK && new_rows) {
        /* Locked: the rows wait for the next sample (or the close), unless
         * the queue is full; then this sample's are dropped and counted. */
        if (s->n_rows * (size_t)s->ncols * sizeof *s->rows + s->text_len > GT_LOCKWAIT_QUEUE_BYTES) {
            s->dropped_samples++;
            s->dropped_rows += new_rows;
            s->n_rows = s->sample_rows;
            s->text_len = s->sample_text;
        } else {
            s->queued_samples++;
        }
    }
    s->sample_rows = s->n_rows;
    s->sample_text = s->text_len;
    return GT_OK;
}

gt_status gt_side_close(gt_side **sp, gt_error *err)
{
    if (!sp || !*sp)
        return GT_OK;
    gt_side *s = *sp;
    gt_status st = GT_OK;
    if (s->db && s->n_rows) {
        /* A shared wait is armed by its owner for all its connections. */
        if (!s->lockwait)
            sqlite3_busy_timeout(s->db, GT_LOCKWAIT_CLOSE_MS);
        s->failed_msg[0] = '\0';
        size_t rows = s->n_rows, samples = s->queued_samples;
        if (flush_rows(s) != SQLITE_OK) {
            char what[96];
            snprintf(what, sizeof what, "write %zu rows (%zu samples) to", rows + s->dropped_rows,
                     samples + s->dropped_samples);
            st = db_fail(s, what, err);
            s->dropped_samples = 0;
        }
    }
    if (s->dropped_samples && st == GT_OK)
        st = gt_err(err, GT_ERR_IO, "cannot write %zu rows (%zu samples) to table '%s' of tracking file '%s': it "
                    "was locked by another program while more than %u MiB of rows waited in memory",
                    s->dropped_rows, s->dropped_samples, s->table, s->path, GT_LOCKWAIT_QUEUE_BYTES >> 20);
    /* Deleted while tracking: every row is still in the open file. */
    if (gt_store_unlinked(s->fd)) {
        gt_error e;
        if (gt_store_rescue(s->fd, s->path, NULL, s->log, s->log_ctx, &e) != GT_OK && st == GT_OK) {
            st = GT_ERR_IO;
            if (err)
                *err = e;
        }
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
