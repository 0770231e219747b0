/* SPDX-License-Identifier: MIT */
/* Rows appended to a CSV file that other programs may touch: the main
 * tracking file (csv.c) and its side files (side.c). */
#ifndef GT_STORE_APPEND_H
#define GT_STORE_APPEND_H
#include <stddef.h>
#include <sys/types.h>

#include "gpu_tracker.h"

/* Appends len bytes of complete rows to the CSV file fd (opened
 * O_APPEND), whose rows so far end at *size; advances *size.  A file whose
 * size is not *size (another program truncated or wrote to it) gets no
 * more rows: GT_ERR_IO, saying so.  A write that fails half-way is cut off
 * again, so the file ends with its last complete row. */
gt_status gt_store_append_rows(int fd, const char *path, off_t *size, const char *buf, size_t len,
                               gt_error *err);
/* Whether fd's file has been deleted (no name left). */
int gt_store_unlinked(int fd);

#endif
