/* SPDX-License-Identifier: MIT */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

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
