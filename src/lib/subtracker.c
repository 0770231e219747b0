/* SPDX-License-Identifier: MIT */
/* Sub-tracking marks: one row (process ID, code block name, 0 = start or
 * 1 = stop, Unix timestamp) per mark, appended to a file kept open.
 *
 * CSV: one write(2) per row on an O_APPEND descriptor, so rows are on disk
 * when the call returns and rows of forked children sharing the file never
 * interleave.  SQLite: one prepared INSERT per row with a rollback journal,
 * not WAL, so the file is whole after every mark: a pool worker ended by
 * SIGTERM or os._exit() runs no close, and a WAL file would keep its marks in
 * "-wal" and "-shm" files beside it that a copy of the ".sqlite" leaves
 * behind.  synchronous=OFF: no fsync per mark (with it a mark costs
 * milliseconds); a process killed at any point still leaves a consistent
 * file, only an OS crash can lose or damage the latest marks.  A forked
 * child gets its own connection, and writers of several processes wait for
 * the write lock up to 10 s, so no mark is lost to a busy database.  A mutex
 * serializes threads; the timestamp is taken under it, so within a process
 * the rows are in time order, which the analysis relies on to pair them.
 *
 * Under Slurm (SLURM_JOB_ID set) or with GT_SUBTRACK_HOST=1, each row also
 * gets a trailing host column (and the default name the host), the node's name: every node of a job has its
 * own PIDs, so only (host, process ID) tells the ranks of several nodes
 * apart once their files are combined.  Elsewhere the file has exactly the
 * Python package's four columns. */
#include "gpu_tracker.h"
#include "store/csvfield.h"
#include "store/marks_layout.h"
#include "store/store.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/node.h"
#include "util/pyfloat.h"
#include "store/sqltext.h"
#include "util/timespec.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


struct gt_subtracker {
    pthread_mutex_t lock;
    char *path;
    int fd;             /* CSV; -1 for SQLite */
    sqlite3 *db;
    sqlite3_stmt *insert;
    pid_t owner;        /* the process whose connection db is (SQLite) */
    dev_t dev;          /* the file as created, to notice its removal */
    ino_t ino;
    gt_status failed;   /* the first failure; every later mark returns it */
    char *host;         /* the node's name, or NULL: no host column */
    char *buf;          /* the row (CSV) or the name (SQLite) being written */
    size_t cap;
    gt_error err;       /* the message of failed, for every mark that returns it */
};

/* The host name to write with each mark, or NULL when the file keeps the
 * Python package's columns (see util/node.h). */
static gt_status host_name(char **out, gt_error *err)
{
    char buf[256];
    int multi;
    gt_status st = gt_node_name(buf, sizeof buf, &multi, err);
    *out = NULL;
    if (st != GT_OK || !multi)
        return st;
    if (!(*out = strdup(buf)))
        return gt_err(err, GT_ERR_NOMEM, "sub-tracking file: out of memory");
    return GT_OK;
}

gt_status gt_subtracker_default_path(char *buf, size_t size, gt_error *err)
{
    return gt_subtracker_default_path_of(getpid(), buf, size, err);
}

gt_status gt_subtracker_default_path_of(long long process_id, char *buf, size_t size, gt_error *err)
{
    char host[256];
    int multi, n;
    if (!buf || size == 0)
        return gt_err(err, GT_ERR_INVALID, "sub-tracking file: no buffer for the default name");
    if (process_id <= 0)
        return gt_err(err, GT_ERR_INVALID, "sub-tracking file: process ID %lld is not a process's", process_id);
    gt_status st = gt_node_name(host, sizeof host, &multi, err);
    if (st != GT_OK)
        return st;
    for (char *c = host; *c; c++)
        if (*c == '/')
            *c = '_';
    /* PIDs repeat across nodes: marks of two nodes' ranks in one shared
     * directory would otherwise collide, or one rank would be refused. */
    if (multi)
        n = snprintf(buf, size, "%s-%lld.csv", host, process_id);
    else
        n = snprintf(buf, size, "%lld.csv", process_id);
    if (n < 0 || (size_t)n >= size)
        return gt_err(err, GT_ERR_INVALID, "sub-tracking file: the default name needs %d bytes, more than %zu",
                      n + 1, size);
    return GT_OK;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

static gt_status fail(gt_subtracker *s, gt_status st)
{
    s->failed = st;
    return st;
}

static int reserve(gt_subtracker *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    size_t cap = gt_grow_cap(s->cap, n, 256, 1);
    char *p = cap ? realloc(s->buf, cap) : NULL;
    if (!p)
        return -1;
    s->buf = p;
    s->cap = cap;
    return 0;
}

/* The file must still be the one created: Python's SubTracker refuses to go
 * on writing to a file removed (or replaced) under it, and so do we. */
static gt_status check_file(gt_subtracker *s)
{
    struct stat st;
    int gone;
    if (s->fd >= 0)
        gone = fstat(s->fd, &st) != 0 || st.st_nlink == 0;
    else
        gone = stat(s->path, &st) != 0 || st.st_dev != s->dev || st.st_ino != s->ino;
    if (gone)
        return fail(s, gt_err(&s->err, GT_ERR_IO,
                              "sub-tracking file '%s' was removed while in use", s->path));
    return GT_OK;
}


/* Connections inherited across fork: SQLite forbids using or closing them
 * in the child, so they stay here, reachable rather than leaked, until the
 * process exits (a child rarely inherits more than one). */
static sqlite3 *inherited[16];

static void keep_inherited(sqlite3 *db)
{
    for (size_t i = 0; db && i < sizeof inherited / sizeof *inherited; i++) {
        sqlite3 *none = NULL;
        if (__atomic_compare_exchange_n(&inherited[i], &none, db, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
    }
}

/* Opens this process's connection to the file and its INSERT.  A process
 * forked from the one that opened the file must not use the inherited
 * connection (SQLite's rule), so it gets its own on its first mark; the
 * inherited one is left untouched, its descriptors open, since closing them
 * would drop this process's locks on the file.  Writers of several
 * processes take turns on the database's write lock, waiting up to 10 s. */
static gt_status connect_sqlite(gt_subtracker *s, gt_error *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *insert = NULL;
    if (sqlite3_open_v2(s->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK ||
        sqlite3_busy_timeout(db, 10000) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA synchronous=OFF", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db, gt_marks_layout_of(s->host != NULL)->sql_insert, -1, SQLITE_PREPARE_PERSISTENT,
                           &insert, NULL) != SQLITE_OK) {
        gt_status st = gt_err(err, GT_ERR_IO, "cannot open sub-tracking file '%s': %s", s->path,
                              db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return st;
    }
    if (s->owner != getpid())
        keep_inherited(s->db);
    s->db = db;
    s->insert = insert;
    s->owner = getpid();
    return GT_OK;
}

/* A mark of process pid at time ts, or (now set) of the calling process at
 * the current time, read under the lock so that one process's marks are in
 * time order in the file. */
static gt_status write_mark(gt_subtracker *s, const char *a, const char *b, int position, int now, long long pid,
                            double ts)
{
    gt_status st;
    if (s->failed)
        return s->failed;
    if ((st = check_file(s)) != GT_OK)
        return st;
    size_t len = strlen(a) + (b ? strlen(b) + 1 : 0);
    size_t host_len = s->host ? GT_CSV_FIELD_MAX(strlen(s->host)) + 1 : 0;
    if (reserve(s, GT_CSV_FIELD_MAX(len) + 3 * GT_PYFLOAT_BUFSZ + host_len) != 0)
        return fail(s, gt_err(&s->err, GT_ERR_NOMEM, "sub-tracking file '%s': out of memory",
                              s->path));
    if (now) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        ts = gt_ts_seconds(&t);
        pid = (long long)getpid(); /* a forked child writes its own */
    }

    if (s->fd < 0) {
        if (s->owner != getpid() && (st = connect_sqlite(s, &s->err)) != GT_OK)
            return fail(s, st);
        snprintf(s->buf, s->cap, "%s%s%s", a, b ? ":" : "", b ? b : "");
        sqlite3_bind_int64(s->insert, 1, pid);
        int rc = gt_sqltext_bind(s->insert, 2, s->buf);
        sqlite3_bind_int(s->insert, 3, position);
        sqlite3_bind_double(s->insert, 4, ts);
        if (s->host && rc == SQLITE_OK)
            rc = gt_sqltext_bind(s->insert, 5, s->host);
        if (rc != SQLITE_OK)
            return fail(s, gt_err(&s->err, GT_ERR_NOMEM, "cannot write sub-tracking file '%s': out of memory",
                                  s->path));
        /* A write that finds another process's commit newer than the
         * snapshot it started from fails with SQLITE_BUSY at once, without
         * the busy handler: retry, within the same 10 s. */
        for (int tries = 0;; tries++) {
            rc = sqlite3_step(s->insert);
            sqlite3_reset(s->insert);
            if ((rc & 0xff) != SQLITE_BUSY || tries == 1000)
                break;
            usleep(10000);
        }
        if (rc != SQLITE_DONE)
            return fail(s, gt_err(&s->err, GT_ERR_IO, "cannot write sub-tracking file '%s': %s",
                                  s->path, sqlite3_errmsg(s->db)));
        return GT_OK;
    }
    size_t n = (size_t)snprintf(s->buf, s->cap, "%lld,", pid);
    n += gt_csv_field(s->buf + n, a, b);
    n += (size_t)snprintf(s->buf + n, s->cap - n, ",%d,", position);
    n += gt_pyfloat_repr(ts, s->buf + n, GT_PYFLOAT_BUFSZ);
    if (s->host) {
        s->buf[n++] = ',';
        n += gt_csv_field(s->buf + n, s->host, NULL);
    }
    s->buf[n++] = '\n';
    const char *p = s->buf;
    while (n) {
        ssize_t w = write(s->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return fail(s, gt_err(&s->err, GT_ERR_IO, "cannot write sub-tracking file '%s': %s",
                                  s->path, strerror(errno)));
        p += w;
        n -= (size_t)w;
    }
    return GT_OK;
}

static gt_status mark_at(gt_subtracker *s, const char *a, const char *b, int position, int now, long long pid,
                         double ts, gt_error *err)
{
    if (!s)
        return gt_err(err, GT_ERR_INVALID, "no sub-tracker: the gt_subtracker pointer is NULL");
    if (!a || (position != 0 && position != 1))
        /* A caller's mistake, not the file's: later marks still work. */
        return gt_err(err, GT_ERR_INVALID, "sub-tracking mark: %s",
                      !a ? "no code block name" : "position must be 0 (start) or 1 (stop)");
    pthread_mutex_lock(&s->lock);
    gt_status st = write_mark(s, a, b, position, now, pid, ts);
    if (st != GT_OK && err)
        *err = s->err;
    pthread_mutex_unlock(&s->lock);
    return st;
}

static gt_status mark(gt_subtracker *s, const char *a, const char *b, int position, gt_error *err)
{
    return mark_at(s, a, b, position, 1, 0, 0.0, err);
}

gt_status gt_subtracker_mark(gt_subtracker *s, const char *code_block_name, int position, gt_error *err)
{
    return mark(s, code_block_name, NULL, position, err);
}

gt_status gt_subtracker_mark_at(gt_subtracker *s, const char *code_block_name, int position, long long process_id,
                                double timestamp, gt_error *err)
{
    return mark_at(s, code_block_name, NULL, position, 0, process_id, timestamp, err);
}

static gt_status open_sqlite(gt_subtracker *s, gt_error *err)
{
    const gt_marks_layout *layout = gt_marks_layout_of(s->host != NULL);
    if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) !=
            SQLITE_OK ||
        sqlite3_busy_timeout(s->db, 10000) != SQLITE_OK ||
        sqlite3_exec(s->db, "PRAGMA synchronous=OFF", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(s->db, layout->sql_create, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(s->db, layout->sql_insert, -1, SQLITE_PREPARE_PERSISTENT, &s->insert, NULL) !=
            SQLITE_OK)
        return gt_err(err, GT_ERR_IO, "cannot create sub-tracking file '%s': %s", s->path,
                      s->db ? sqlite3_errmsg(s->db) : "out of memory");
    return GT_OK;
}

gt_status gt_subtracker_open(const char *path, int overwrite, gt_subtracker **out, gt_error *err)
{
    gt_status st;
    gt_subtracker *s = NULL;
    char def[300];
    struct stat sb;

    if (!out)
        return gt_err(err, GT_ERR_INVALID, "sub-tracking file: no place for the handle");
    *out = NULL;
    if (!path) {
        if ((st = gt_subtracker_default_path(def, sizeof def, err)) != GT_OK)
            return st;
        path = def;
    }
    int csv = has_suffix(path, ".csv");
    if (!csv && !has_suffix(path, ".sqlite"))
        return gt_err(err, GT_ERR_INVALID,
                      "invalid sub-tracking file '%s': the extension must be '.csv' or '.sqlite'",
                      path);
    if (!(s = calloc(1, sizeof *s)) || !(s->path = strdup(path))) {
        free(s);
        return gt_err(err, GT_ERR_NOMEM, "sub-tracking file '%s': out of memory", path);
    }
    s->fd = -1;
    pthread_mutex_init(&s->lock, NULL);
    int fd = -1;
    if ((st = host_name(&s->host, err)) != GT_OK)
        goto fail;
    if ((st = gt_store_create_file(path, overwrite, "sub-tracking file",
                                   "set overwrite to replace it", &fd, err)) != GT_OK)
        goto fail;
    if (fstat(fd, &sb) != 0) {
        st = gt_err(err, GT_ERR_IO, "sub-tracking file '%s': %s", path, strerror(errno));
        close(fd);
        goto fail_created;
    }
    s->dev = sb.st_dev;
    s->ino = sb.st_ino;
    if (csv) {
        s->fd = fd;
        const char *h = gt_marks_layout_of(s->host != NULL)->csv_header;
        if (fcntl(fd, F_SETFL, O_APPEND) != 0 || write(fd, h, strlen(h)) != (ssize_t)strlen(h)) {
            st = gt_err(err, GT_ERR_IO, "cannot write sub-tracking file '%s': %s", path,
                        strerror(errno));
            goto fail_created;
        }
    } else {
        close(fd); /* SQLite opens it by name */
        if ((st = open_sqlite(s, err)) != GT_OK)
            goto fail_created;
        s->owner = getpid();
    }
    *out = s;
    return GT_OK;
fail_created:
    unlink(path); /* ours, and holding no mark */
fail:
    gt_subtracker_free(&s);
    return st;
}

gt_status gt_subtracker_status(gt_subtracker *s, gt_error *err)
{
    if (!s)
        return gt_err(err, GT_ERR_INVALID, "no sub-tracker: the gt_subtracker pointer is NULL");
    pthread_mutex_lock(&s->lock);
    gt_status st = s->failed;
    if (st != GT_OK && err)
        *err = s->err;
    pthread_mutex_unlock(&s->lock);
    return st;
}

void gt_subtracker_free(gt_subtracker **sp)
{
    if (!sp || !*sp)
        return;
    gt_subtracker *s = *sp;
    if (s->fd >= 0)
        close(s->fd);
    if (s->db && s->owner != getpid()) {
        /* A forked process that never marked: the connection is the
         * parent's, left to the parent. */
        keep_inherited(s->db);
        s->db = NULL;
        s->insert = NULL;
    }
    sqlite3_finalize(s->insert);
    sqlite3_close(s->db);
    pthread_mutex_destroy(&s->lock);
    free(s->buf);
    free(s->host);
    free(s->path);
    free(s);
    *sp = NULL;
}

gt_subtrack_scope gt_subtrack_scope_begin(gt_subtracker *s, const char *name, const char *file,
                                          const char *attr)
{
    gt_subtrack_scope sc = {s, name ? name : file, name ? NULL : attr};
    mark(s, sc.name, sc.attr, 0, NULL);
    return sc;
}

void gt_subtrack_scope_end(gt_subtrack_scope *sc)
{
    if (!sc)
        return;
    mark(sc->s, sc->name, sc->attr, 1, NULL);
}
