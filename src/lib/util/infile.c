/* SPDX-License-Identifier: MIT */
#include "util/infile.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
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
