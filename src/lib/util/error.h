/* SPDX-License-Identifier: MIT */
/* Error values with a message.  Internal code fills a gt_error and returns a
 * gt_status; nothing below the CLI prints or exits. */
#ifndef GT_UTIL_ERROR_H
#define GT_UTIL_ERROR_H
#include <stdarg.h>

#include "gpu_tracker.h"

/* Formats the message into err (if err is not NULL) and returns st, so a
 * failing path reads: return gt_err(err, GT_ERR_IO, "cannot open '%s': %s", ...).
 * A message too long for err->msg is cut to end in "...". */
gt_status gt_err(gt_error *err, gt_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Adds more's message to err's ("first; second"), cut to fit and then
 * ending in "...": a failure that follows another is still named. */
void gt_err_join(gt_error *err, const gt_error *more);

/* Formats into a fixed text field of size bytes (a reason or a path in
 * gt_usage), cut as gt_err cuts: a text that did not fit ends in "...". */
void gt_text_fit(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, appended to the text already in dst. */
void gt_text_append(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void gt_text_vappend(char *dst, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
