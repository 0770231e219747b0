#include "store/store.h"
#include "store/backend.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gt_store {
    const gt_store_backend *backend;
    void *impl;
    gt_static_data sd;
    gt_cell cells[GT_STORE_NCOLUMNS];
};

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

/* O_EXCL makes creation fail on anything already there, a symbolic link
 * included (even a dangling one), so nothing is followed; with overwrite the
 * old entry is unlinked first, which replaces a link rather than writing
 * through it. */
gt_status gt_store_create_file(const char *path, int overwrite, const char *what,
                               const char *hint, int *fd_out, gt_error *err)
{
    if (overwrite && unlink(path) != 0 && errno != ENOENT)
        return gt_err(err, GT_ERR_IO, "cannot replace %s '%s': %s", what, path,
                      strerror(errno));
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        if (errno == EEXIST)
            return gt_err(err, GT_ERR_EXISTS, "%s '%s' already exists; %s", what, path, hint);
        return gt_err(err, GT_ERR_IO, "cannot create %s '%s': %s", what, path,
                      strerror(errno));
    }
    *fd_out = fd;
    return GT_OK;
}

gt_status gt_store_open(const char *path, int overwrite, const gt_static_data *sd,
                        gt_store **out, gt_error *err)
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
    if ((st = gt_store_static_check(sd, err)) != GT_OK)
        return st;
    if (!(s = calloc(1, sizeof *s))) {
        st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", path);
        goto done;
    }
    s->sd = *sd;
    if ((st = gt_store_create_file(path, overwrite, "tracking file",
                                   "pass --overwrite to replace it", &fd, err)) != GT_OK)
        goto done;
    gt_store_static_fill(sd, static_cells);
    if (csv) {
        s->backend = &gt_store_csv_backend;
        st = gt_store_csv_open(fd, path, static_cells, &s->impl, err);
        fd = -1; /* owned by the backend, closed by it on failure */
    } else {
        /* SQLite opens the file by name itself; the empty file stays. */
        close(fd);
        fd = -1;
        s->backend = &gt_store_sqlite_backend;
        st = gt_store_sqlite_open(path, static_cells, &s->impl, err);
    }
    if (st != GT_OK) {
        /* The file is ours and holds no sample: leaving it would only make
         * the next attempt fail with "exists". */
        unlink(path);
        goto done;
    }
    *out = s;
    s = NULL;
done:
    if (fd >= 0)
        close(fd);
    free(s);
    return st;
}

gt_status gt_store_append(gt_store *s, const gt_sample *smp, gt_error *err)
{
    /* cells live in the handle: nothing is allocated per sample. */
    gt_store_row_fill(&s->sd, smp, s->cells);
    return s->backend->append(s->impl, s->cells, err);
}

gt_status gt_store_close(gt_store **sp, gt_error *err)
{
    if (!sp || !*sp)
        return GT_OK;
    gt_store *s = *sp;
    gt_status st = s->backend->close(s->impl, err);
    free(s);
    *sp = NULL;
    return st;
}
