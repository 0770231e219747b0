/* SPDX-License-Identifier: MIT */
#include "util/infile.h"
#include "util/error.h"
#include "util/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gt_status gt_infile_open(const char *path, const char *what, int *fd, gt_error *err)
{
    *fd = -1;
    const char *w = what ? what : "", *sp = what ? " " : "";
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (f < 0)
        return gt_err(err, GT_ERR_IO, "cannot read %s%s'%s': %s", w, sp, path, strerror(errno));
    struct stat sb;
    int fl;
    if (fstat(f, &sb) != 0 || (S_ISREG(sb.st_mode) && ((fl = fcntl(f, F_GETFL)) < 0 ||
                                                      fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0))) {
        int e = errno;
        close(f);
        return gt_err(err, GT_ERR_IO, "cannot read %s%s'%s': %s", w, sp, path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(f);
        return gt_err(err, GT_ERR_IO, "cannot read %s%s'%s': not a regular file", w, sp, path);
    }
    *fd = f;
    return GT_OK;
}
gt_status gt_infile_read(const char *path, const char *what, char **out, gt_error *err)
{
    int fd;
    gt_status st = gt_infile_open(path, what, &fd, err);
    if (st != GT_OK)
        return st;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return gt_err(err, GT_ERR_NOMEM, "out of memory reading %s '%s'", what, path);
    }
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 == cap) {
            size_t more = gt_grow_cap(cap, cap + 1, 4096, 1);
            char *grown = more ? realloc(buf, more) : NULL;
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap = more;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int failed = !buf || ferror(f);
    int e = errno;
    fclose(f);
    if (!buf)
        return gt_err(err, GT_ERR_NOMEM, "out of memory reading %s '%s'", what, path);
    if (failed) {
        free(buf);
        return gt_err(err, GT_ERR_IO, "cannot read %s '%s': %s", what, path, strerror(e));
    }
    buf[len] = '\0';
    *out = buf;
    return GT_OK;
}
