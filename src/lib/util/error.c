/* SPDX-License-Identifier: MIT */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* No default: -Wswitch names a status added without its text. */
const char *gt_strerror(gt_status st)
{
    switch (st) {
    case GT_OK:
        return "success";
    case GT_ERR_INVALID:
        return "invalid argument";
    case GT_ERR_STATE:
        return "not allowed in the current state";
    case GT_ERR_IO:
        return "file read or write error";
    case GT_ERR_EXISTS:
        return "file exists";
    case GT_ERR_NOMEM:
        return "out of memory";
    case GT_ERR_SYS:
        return "system call failed";
    case GT_ERR_NOPROC:
        return "no such process";
    case GT_ERR_FORMAT:
        return "malformed input";
    case GT_ERR_GPU:
        return "invalid GPU selection";
    }
    return "unknown status";
}

gt_status gt_err(gt_error *err, gt_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

void gt_err_join(gt_error *err, const gt_error *more)
{
    size_t n = strnlen(err->msg, sizeof err->msg - 1);
    size_t room = sizeof err->msg - 1 - n;
    if (room < 3)
        return;
    memcpy(err->msg + n, "; ", 2);
    size_t m = strnlen(more->msg, room - 2);
    memcpy(err->msg + n + 2, more->msg, m);
    err->msg[n + 2 + m] = '\0';
}
