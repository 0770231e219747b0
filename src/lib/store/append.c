/* SPDX-License-Identifier: MIT */
/* See append.h. */
#include "store/append.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes all of buf, retrying after signals and short writes.  A row that
 * fails half-way (disk full, file-size limit) is cut off again, so the file
 * ends with the last complete row and stays readable.
 *
 * The file is opened O_APPEND, and a file whose size is not what we wrote
 * (another program truncated it, or wrote to it) gets no more rows: written
 * at our own offset they would follow a hole of NUL bytes, and appended
 * they would be rows without the header above them.  The check is one
 * lseek per row, with no I/O. */
gt_status gt_store_append_rows(int fd, const char *path, off_t *size, const char *buf, size_t len, gt_error *err)
{
    size_t total = len;
    off_t end = lseek(fd, 0, SEEK_END);
    if (end >= 0 && end != *size)
        return gt_err(err, GT_ERR_IO, "tracking file '%s' was %s by another program while tracking (%lld bytes "
                      "where %lld were written): no more samples are written to it", path,
                      end < *size ? "truncated" : "written to", (long long)end, (long long)*size);
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            if (ftruncate(fd, *size) == 0)
                lseek(fd, *size, SEEK_SET);
            return gt_err(err, GT_ERR_IO, "cannot write tracking file '%s': %s", path, strerror(e));
        }
        buf += w;
        len -= (size_t)w;
    }
    *size += (off_t)total;
    return GT_OK;
}

int gt_store_unlinked(int fd)
{
    struct stat sb;
    return fd >= 0 && fstat(fd, &sb) == 0 && sb.st_nlink == 0;
}
