/* SPDX-License-Identifier: MIT */
#include "util/outfile.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gt_status refuse(const gt_outfile *o, int e, gt_error *err)
{
    return gt_err(err, GT_ERR_IO, "cannot write %s '%s': %s", o->what, o->path, strerror(e));
}

/* o->f on the file itself, opened for writing without truncation. */
static int open_as_is(gt_outfile *o, const char *path)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0 && (o->f = fdopen(fd, "w")))
        return 0;
    int e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
    return -1;
}

gt_status gt_outfile_open(const char *path, const char *what, gt_outfile *o, gt_error *err)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->what = what;
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode))
        return refuse(o, EISDIR, err);
    if (exists && !S_ISREG(sb.st_mode))
        return open_as_is(o, path) == 0 ? GT_OK : refuse(o, errno, err);
    /* rename() ignores the old file's permissions, which fopen would have
     * honoured: a file the user may not write stays refused. */
    if (exists && access(path, W_OK) != 0)
        return refuse(o, errno, err);
    /* Through a link to the file it names, as writing to the path would. */
    o->dest = exists ? realpath(path, NULL) : strdup(path);
    size_t n = o->dest ? strlen(o->dest) + 16 : 0;
    if (!o->dest || !(o->tmp = malloc(n))) {
        gt_outfile_discard(o);
        return refuse(o, ENOMEM, err);
    }
    snprintf(o->tmp, n, "%s.tmp.XXXXXX", o->dest);
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        /* A file the user may write in a folder they may not (or on a
         * read-only mount's writable file): written in place, still not
         * truncated before the output is complete. */
        if (exists && (e == EACCES || e == EPERM || e == EROFS)) {
            if (open_as_is(o, o->dest) == 0) {
                free(o->dest);
                o->dest = NULL;
                o->in_place = 1;
                return GT_OK;
            }
            e = errno;
        }
        gt_outfile_discard(o);
        return refuse(o, e, err);
    }
    /* mkostemp makes the file 0600: the output gets the mode the old file
     * had, or the one a new file gets (0666 less the umask). */
    mode_t mode;
    if (exists) {
        mode = sb.st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um;
    }
    if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        gt_outfile_discard(o);
        return refuse(o, e, err);
    }
    return GT_OK;
}

gt_status gt_outfile_commit(gt_outfile *o, gt_error *err)
{
    if (!o->f)
        return GT_OK;
    gt_status st = GT_OK;
    /* A write that failed before the last flush leaves only the error flag;
     * EIO stands in for the errno it had. */
    int bad = ferror(o->f), e = EIO;
    if (fflush(o->f) != 0)
        bad = 1, e = errno;
    /* In place, the old file may be longer than the new one. */
    off_t end = !bad && o->in_place ? ftello(o->f) : 0;
    if (!bad && o->in_place && (end < 0 || ftruncate(fileno(o->f), end) != 0))
        bad = 1, e = errno;
    if (fclose(o->f) != 0 && !bad)
        bad = 1, e = errno;
    o->f = NULL;
    if (!bad && o->tmp && rename(o->tmp, o->dest) != 0)
        bad = 1, e = errno;
    if (bad)
        st = refuse(o, e, err);
    else {
        free(o->tmp);
        o->tmp = NULL;
    }
    gt_outfile_discard(o);
    return st;
}

void gt_outfile_discard(gt_outfile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->dest);
    o->tmp = o->dest = NULL;
}
