/* SPDX-License-Identifier: MIT */
/* Opening an input file (a tracking or sub-tracking file, a results file,
 * a config file): only a regular file is read.  A FIFO would block the
 * open itself until a writer came, and a device or a pipe may never end,
 * so the file is opened without blocking and checked on the descriptor
 * (no window between a check by name and the open). */
#ifndef GT_UTIL_INFILE_H
#define GT_UTIL_INFILE_H
#include "gpu_tracker.h"

/* Opens path read-only and close-on-exec into *fd, a regular file in
 * blocking mode.  GT_ERR_IO otherwise: "cannot read WHAT 'path': reason"
 * ("not a regular file" for a FIFO, a device, a folder); what may be NULL
 * ("cannot read 'path': ..."). */
gt_status gt_infile_open(const char *path, const char *what, int *fd, gt_error *err);

/* The whole of such a file in *out, NUL-terminated, released with free();
 * GT_ERR_IO (as gt_infile_open, or "cannot read WHAT 'path': reason") or
 * GT_ERR_NOMEM otherwise. */
gt_status gt_infile_read(const char *path, const char *what, char **out, gt_error *err);
#endif
