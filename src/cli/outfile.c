/* SPDX-License-Identifier: MIT */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"

/* path with its folder resolved (path itself need not exist); caller frees;
 * NULL when the folder does not exist. */
static char *resolve(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    char *d = strdup(path), *b = strdup(path);
    char *dir = d ? realpath(dirname(d), NULL) : NULL;
    const char *base = b ? basename(b) : NULL;
    if (dir && base) {
        size_t n = strlen(dir) + strlen(base) + 2;
        if ((r = malloc(n)))
            snprintf(r, n, "%s/%s", dir, base);
    }
    free(dir);
    free(d);
    free(b);
    return r;
}

int gt_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ra = resolve(a), *rb = resolve(b);
    int same = ra && rb ? !strcmp(ra, rb) : !strcmp(a, b);
    free(ra);
    free(rb);
    return same;
}

static int refuse(const char *path, const char *why)
{
    fprintf(stderr, "gpu-tracker: cannot write output file '%s': %s\n", path, why);
    return GT_EXIT_USAGE;
}

int gt_cli_outfile_open(const char *path, gt_cli_outfile *o)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode))
        return refuse(path, strerror(EISDIR));
    if (exists && !S_ISREG(sb.st_mode)) {
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return refuse(path, strerror(e));
        }
        return 0;
    }
    /* rename() ignores the old file's permissions, which fopen would have
     * honoured: a file the user may not write stays refused. */
    if (exists && access(path, W_OK) != 0)
        return refuse(path, strerror(errno));
    /* Through a link to the file it names, as writing to the path would. */
    o->dest = exists ? realpath(path, NULL) : strdup(path);
    size_t n = o->dest ? strlen(o->dest) + 16 : 0;
    if (!o->dest || !(o->tmp = malloc(n))) {
        gt_cli_outfile_discard(o);
        return refuse(path, strerror(ENOMEM));
    }
    snprintf(o->tmp, n, "%s.tmp.XXXXXX", o->dest);
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        /* A file the user may write in a folder they may not (or on a
         * read-only mount's writable file): written in place, still not
         * truncated before the report is complete. */
        if (exists && (e == EACCES || e == EPERM || e == EROFS)) {
            fd = open(o->dest, O_WRONLY | O_CLOEXEC | O_NOCTTY);
            if (fd >= 0 && (o->f = fdopen(fd, "w"))) {
                free(o->dest);
                o->dest = NULL;
                o->in_place = 1;
                return 0;
            }
            e = errno;
            if (fd >= 0)
                close(fd);
        }
        gt_cli_outfile_discard(o);
        return refuse(path, strerror(e));
    }
    /* mkostemp makes the file 0600: the report gets the mode the old file
     * had, or the one a new file gets (0666 less the umask). */
    mode_t mode;
    if (exists) {
        mode = sb.st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um;
    }
    fchmod(fd, mode);
    if (!(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        gt_cli_outfile_discard(o);
        return refuse(path, strerror(e));
    }
    return 0;
}

int gt_cli_outfile_commit(gt_cli_outfile *o)
{
    if (!o->f)
        return 0;
    int rc = 0;
    /* In place, the old report may be longer than the new one. */
    off_t end = o->in_place && fflush(o->f) == 0 ? ftello(o->f) : -1;
    if (o->in_place && (end < 0 || ftruncate(fileno(o->f), end) != 0)) {
        fprintf(stderr, "gpu-tracker: cannot write output file '%s': %s\n", o->path, strerror(errno));
        rc = GT_EXIT_FAILURE;
    }
    if (fclose(o->f) != 0 && rc == 0) {
        fprintf(stderr, "gpu-tracker: cannot write output file '%s': %s\n", o->path, strerror(errno));
        rc = GT_EXIT_FAILURE;
    }
    o->f = NULL;
    if (rc == 0 && o->tmp && rename(o->tmp, o->dest) != 0) {
        fprintf(stderr, "gpu-tracker: cannot write output file '%s': %s\n", o->path, strerror(errno));
        rc = GT_EXIT_FAILURE;
    }
    if (rc == 0) {
        free(o->tmp);
        o->tmp = NULL;
    }
    gt_cli_outfile_discard(o);
    return rc;
}

void gt_cli_outfile_discard(gt_cli_outfile *o)
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
