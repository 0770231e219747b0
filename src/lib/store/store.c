/* SPDX-License-Identifier: MIT */
#include "store/store.h"
#include "store/backend.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct gt_store {
    const gt_store_backend *backend;
    void *impl;
    gt_static_data sd;
    gt_cell cells[GT_STORE_MAX_COLUMNS];
    gt_cell static_cells[GT_STORE_NSTATIC_COLUMNS];
    /* The timepoint columns' names and SQL types, read by the backends for
     * as long as the file is open; the power columns come last. */
    const char *names[GT_STORE_MAX_COLUMNS], *types[GT_STORE_MAX_COLUMNS];
    int npower;
    gt_power_column power[GT_POWER_SLOTS];
    gt_store_extra *extra; /* the file's extra static columns, pointing into own */
    char **own;            /* their copies: key, value of each (value may be NULL) */
    size_t nextra;
    int appended;          /* a row was written: the static data is final */
    char *path;
    /* The created file, held open so that a file deleted while tracking can
     * be re-created from its contents at close. */
    int watch_fd;
    int chowned; /* gt_store_chown gave the file to owner:group */
    uid_t owner;
    gid_t group;
    gt_log_fn log;
    void *log_ctx;
};

static void free_extra(gt_store *s)
{
    for (size_t i = 0; s->own && i < 2 * s->nextra; i++)
        free(s->own[i]);
    free(s->own);
    free(s->extra);
    s->extra = NULL;
    s->own = NULL;
    s->nextra = 0;
}

/* Appends a copy of (key, value) to the store's extra columns. */
static gt_status keep_extra(gt_store *s, const char *key, const char *value, gt_error *err)
{
    gt_store_extra *x = realloc(s->extra, (s->nextra + 1) * sizeof *x);
    if (x)
        s->extra = x;
    char **own = x ? realloc(s->own, 2 * (s->nextra + 1) * sizeof *own) : NULL;
    if (own)
        s->own = own;
    char *k = own && key ? strdup(key) : NULL, *v = k && value ? strdup(value) : NULL;
    if (!k || (value && !v)) {
        free(k);
        return gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", s->path);
    }
    own[2 * s->nextra] = k;
    own[2 * s->nextra + 1] = v;
    x[s->nextra++] = (gt_store_extra){k, v};
    return GT_OK;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

/* SQLite's log and shared-memory files beside a database we just created
 * and failed to set up. */
static void unlink_sidecars(const char *path)
{
    static const char *const suffixes[] = {"-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        char *p = malloc(strlen(path) + 9);
        if (!p)
            return;
        strcpy(p, path);
        strcat(p, suffixes[i]);
        unlink(p);
        free(p);
    }
}

gt_status gt_store_check_file(const char *path, int overwrite, const char *what, const char *hint, gt_error *err)
{
    struct stat sb, ds;
    if (lstat(path, &sb) != 0)
        return GT_OK; /* nothing to replace; creation says why it fails */
    if (!overwrite)
        return gt_err(err, GT_ERR_EXISTS, "%s '%s' already exists; %s", what, path, hint);
    if (S_ISDIR(sb.st_mode))
        return gt_err(err, GT_ERR_IO, "cannot replace %s '%s': %s", what, path, strerror(EISDIR));
    char *d = strdup(path);
    if (!d)
        return gt_err(err, GT_ERR_NOMEM, "%s '%s': out of memory", what, path);
    const char *dir = dirname(d);
    int e = 0;
    if (access(dir, W_OK | X_OK) != 0)
        e = errno;
    /* In a sticky folder (/tmp) only the file's owner, the folder's or root
     * may unlink it. */
    else if (stat(dir, &ds) == 0 && (ds.st_mode & S_ISVTX) && geteuid() != 0 && sb.st_uid != geteuid() &&
             ds.st_uid != geteuid())
        e = EPERM;
    free(d);
    if (e)
        return gt_err(err, GT_ERR_IO, "cannot replace %s '%s': %s", what, path, strerror(e));
    return GT_OK;
}

/* O_EXCL makes creation fail on anything already there, a symbolic link
 * included (even a dangling one), so nothing is followed; with overwrite the
 * old entry is unlinked first, which replaces a link rather than writing
 * through it. */
gt_status gt_store_create_file(const char *path, int overwrite, const char *what,
                               const char *hint, int *fd_out, gt_error *err)
{
    gt_status st = gt_store_check_file(path, overwrite, what, hint, err);
    if (st != GT_OK)
        return st;
    if (overwrite && unlink(path) != 0 && errno != ENOENT)
        return gt_err(err, GT_ERR_IO, "cannot replace %s '%s': %s", what, path,
                      strerror(errno));
    /* Mode 0666 less the umask, as for any file the user creates. */
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        if (errno == EEXIST)
            return gt_err(err, GT_ERR_EXISTS, "%s '%s' already exists; %s", what, path, hint);
        return gt_err(err, GT_ERR_IO, "cannot create %s '%s': %s", what, path,
                      strerror(errno));
    }
    *fd_out = fd;
    return GT_OK;
}

/* What a store holds besides its backend, released (NULL: nothing). */
static void store_free(gt_store *s)
{
    if (!s)
        return;
    if (s->watch_fd >= 0)
        close(s->watch_fd);
    free(s->path);
    free_extra(s);
    free(s);
}

gt_status gt_store_open(const char *path, int overwrite, const gt_static_data *sd, int with_energy,
                        gt_store **out, gt_error *err)
{
    return gt_store_open_extra(path, overwrite, sd, with_energy, NULL, 0, NULL, 0, out, err);
}

/* Keys become CSV header cells and SQL column names: a plain identifier
 * needs neither quoting nor escaping in either. */
static gt_status check_extra(const gt_store_extra *extra, size_t nextra, gt_error *err)
{
    for (size_t i = 0; i < nextra; i++) {
        const char *k = extra[i].key;
        size_t n = k ? strlen(k) : 0;
        int ok = n > 0 && n <= 64 && k[0] >= 'a' && k[0] <= 'z';
        for (size_t j = 0; ok && j < n; j++)
            ok = (k[j] >= 'a' && k[j] <= 'z') || (k[j] >= '0' && k[j] <= '9') || k[j] == '_';
        if (!ok)
            return gt_err(err, GT_ERR_INVALID,
                          "invalid static data key '%s': must be 1 to 64 lowercase letters, digits or '_', "
                          "starting with a letter",
                          k ? k : "");
        for (int j = 0; j < GT_STORE_NSTATIC_COLUMNS; j++)
            if (!strcmp(k, gt_store_static_columns[j]))
                return gt_err(err, GT_ERR_INVALID, "static data key '%s' is already a static column", k);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(k, extra[j].key))
                return gt_err(err, GT_ERR_INVALID, "static data key '%s' is given twice", k);
        if (extra[i].value && strlen(extra[i].value) > 4096)
            return gt_err(err, GT_ERR_INVALID, "static data '%s': the value is longer than 4096 bytes", k);
    }
    return GT_OK;
}

gt_status gt_store_open_extra(const char *path, int overwrite, const gt_static_data *sd, int with_energy,
                              const gt_store_extra *extra, size_t nextra, const gt_power_column *power,
                              int npower, gt_store **out, gt_error *err)
{
    gt_store *s = NULL;
    int fd = -1;
    gt_status st;
    gt_cell static_cells[GT_STORE_NSTATIC_COLUMNS];

    *out = NULL;
    if (!path || !sd)
        return gt_err(err, GT_ERR_INVALID, "tracking file: no path or static data");
    int csv = has_suffix(path, ".csv");
    if (!csv && !has_suffix(path, ".sqlite"))
        return gt_err(err, GT_ERR_INVALID,
                      "invalid tracking file '%s': the extension must be '.csv' or '.sqlite'",
                      path);
    if ((st = gt_store_static_check(sd, err)) != GT_OK || (st = check_extra(extra, nextra, err)) != GT_OK)
        return st;
    if (!with_energy || npower < 0)
        npower = 0;
    if (npower > GT_POWER_SLOTS)
        return gt_err(err, GT_ERR_INVALID, "tracking file: %d power columns, at most %d", npower,
                      GT_POWER_SLOTS);
    if (!(s = calloc(1, sizeof *s))) {
        st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", path);
        goto done;
    }
    s->sd = *sd;
    s->watch_fd = -1;
    if (!(s->path = strdup(path))) {
        st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", path);
        goto done;
    }
    if ((st = gt_store_create_file(path, overwrite, "tracking file",
                                   "pass --overwrite to replace it", &fd, err)) != GT_OK)
        goto done;
    gt_store_static_fill(sd, static_cells);
    memcpy(s->static_cells, static_cells, sizeof static_cells);
    for (size_t i = 0; i < nextra; i++)
        if ((st = keep_extra(s, extra[i].key, extra[i].value, err)) != GT_OK)
            goto done;
    int ncols = with_energy ? GT_STORE_NCOLUMNS : GT_STORE_NBASE_COLUMNS;
    for (int c = 0; c < ncols; c++) {
        s->names[c] = gt_store_column_name(c);
        s->types[c] = gt_store_column_type(c);
    }
    s->npower = npower;
    for (int k = 0; k < npower; k++, ncols++) {
        s->power[k] = power[k];
        s->names[ncols] = s->power[k].name;
        s->types[ncols] = "FLOAT";
    }
    if (csv) {
        s->backend = &gt_store_csv_backend;
        s->watch_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        st = gt_store_csv_open(fd, path, static_cells, extra, nextra, s->names, ncols, &s->impl, err);
        fd = -1; /* owned by the backend, closed by it on failure */
    } else {
        /* SQLite opens the file by name itself.  The fd stays open until
         * SQLite has closed the file: closing any fd of a file drops the
         * process's POSIX locks on it, SQLite's included. */
        s->watch_fd = fd;
        fd = -1;
        s->backend = &gt_store_sqlite_backend;
        st = gt_store_sqlite_open(path, static_cells, extra, nextra, s->names, s->types, ncols, &s->impl, err);
    }
    if (st != GT_OK) {
        /* The file is ours and holds no sample: leaving it would only make
         * the next attempt fail with "exists". */
        unlink(path);
        if (!csv)
            unlink_sidecars(path);
        goto done;
    }
    *out = s;
    s = NULL;
done:
    if (fd >= 0)
        close(fd);
    store_free(s);
    return st;
}

void gt_store_set_lockwait(gt_store *s, struct gt_lockwait *w)
{
    if (s->backend->set_lockwait)
        s->backend->set_lockwait(s->impl, w);
}

gt_status gt_store_add_static(gt_store *s, const char *key, const char *value, gt_error *err)
{
    if (s->appended)
        return gt_err(err, GT_ERR_STATE, "static data '%s': the tracking file has samples already; static data "
                      "is added before tracking starts", key ? key : "");
    gt_status st = keep_extra(s, key, value, err);
    if (st == GT_OK && (st = check_extra(s->extra, s->nextra, err)) != GT_OK) {
        /* refused: the file stays as it was */
        s->nextra--;
        free(s->own[2 * s->nextra]);
        free(s->own[2 * s->nextra + 1]);
    }
    if (st != GT_OK)
        return st;
    return s->backend->add_static(s->impl, s->static_cells, s->extra, s->nextra, err);
}

void gt_store_set_log(gt_store *s, gt_log_fn log, void *ctx)
{
    s->log = log;
    s->log_ctx = ctx;
}

gt_status gt_store_chown(gt_store *s, uid_t uid, gid_t gid, gt_error *err)
{
    if (s->backend != &gt_store_csv_backend)
        return gt_err(err, GT_ERR_INVALID,
                      "tracking file '%s': only a CSV file can be given to another user (SQLite makes its "
                      "-wal and -shm files by name)", s->path);
    if (fchown(s->watch_fd, uid, gid) != 0)
        return gt_err(err, GT_ERR_IO, "cannot give tracking file '%s' to user %lu: %s", s->path,
                      (unsigned long)uid, strerror(errno));
    s->chowned = 1;
    s->owner = uid;
    s->group = gid;
    return GT_OK;
}

gt_status gt_store_append(gt_store *s, const gt_sample *smp, gt_error *err)
{
    /* cells live in the handle: nothing is allocated per sample. */
    gt_store_row_fill(&s->sd, smp, s->cells);
    gt_store_row_fill_power(smp, s->power, s->npower, s->cells + GT_STORE_NCOLUMNS);
    s->appended = 1;
    return s->backend->append(s->impl, s->cells, err);
}

gt_status gt_store_rescue(int from, const char *path, const gt_file_owner *owner, gt_log_fn log, void *log_ctx,
                          gt_error *err)
{
    int fd = -1;
    gt_error why;
    gt_status st = gt_store_create_file(path, 0, "tracking file", "", &fd, &why);
    if (st != GT_OK)
        return gt_err(err, GT_ERR_IO,
                      "tracking file '%s' was deleted while tracking and cannot be re-created "
                      "(%s): its samples are lost", path,
                      st == GT_ERR_EXISTS ? "another file has taken its name" : why.msg);
    if (owner && fchown(fd, owner->uid, owner->gid) != 0)
        st = gt_err(err, GT_ERR_IO, "cannot give re-created tracking file '%s' to user %lu: %s", path,
                    (unsigned long)owner->uid, strerror(errno));
    char buf[65536];
    off_t off = 0;
    while (st == GT_OK) {
        ssize_t n = pread(from, buf, sizeof buf, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0)
                st = gt_err(err, GT_ERR_IO, "cannot re-read deleted tracking file '%s': %s",
                            path, strerror(errno));
            break;
        }
        for (ssize_t w = 0; w < n && st == GT_OK;) {
            ssize_t k = write(fd, buf + w, (size_t)(n - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0)
                st = gt_err(err, GT_ERR_IO, "cannot re-create deleted tracking file '%s': %s",
                            path, strerror(errno));
            else
                w += k;
        }
        if (st != GT_OK)
            break;
        off += n;
    }
    if (close(fd) != 0 && st == GT_OK)
        st = gt_err(err, GT_ERR_IO, "cannot re-create deleted tracking file '%s': %s", path,
                    strerror(errno));
    if (st == GT_OK && log) {
        char msg[600];
        snprintf(msg, sizeof msg,
                 "tracking file '%s' was deleted while tracking; re-created with every sample",
                 path);
        log(log_ctx, msg);
    }
    return st;
}

void gt_store_discard(gt_store **sp)
{
    if (!sp || !*sp)
        return;
    char *path = strdup((*sp)->path);
    gt_error ignored;
    gt_store_close(sp, &ignored);
    if (path) {
        unlink(path);
        if (!has_suffix(path, ".csv"))
            unlink_sidecars(path);
    }
    free(path);
}

gt_status gt_store_close(gt_store **sp, gt_error *err)
{
    if (!sp || !*sp)
        return GT_OK;
    gt_store *s = *sp;
    /* Rescued after the backend has closed, when the inode's contents are
     * complete. */
    gt_status st = s->backend->close(s->impl, err);
    if (gt_store_unlinked(s->watch_fd)) {
        gt_error e;
        gt_status rs = gt_store_rescue(s->watch_fd, s->path,
                                        s->chowned ? &(gt_file_owner){s->owner, s->group} : NULL, s->log,
                                        s->log_ctx, &e);
        if (rs != GT_OK && st == GT_OK) {
            st = rs;
            if (err)
                *err = e;
        }
    }
    store_free(s);
    *sp = NULL;
    return st;
}
