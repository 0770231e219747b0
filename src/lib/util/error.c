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

/* A message cut to fit msg ends in "...", on a character boundary (a
 * multibyte UTF-8 character is left out whole), so that a reader knows
 * there was more. */
static void mark_cut(char *msg, size_t size)
{
    size_t len = strnlen(msg, size - 1);
    size_t p = len + 3 < size ? len : size - 4;
    while (p > 0 && ((unsigned char)msg[p] & 0xC0) == 0x80)
        p--;
    memcpy(msg + p, "...", 4);
}

gt_status gt_err(gt_error *err, gt_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (n >= (int)sizeof err->msg)
            mark_cut(err->msg, sizeof err->msg);
    }
    return st;
}

__attribute__((format(printf, 4, 0)))
static void text_at(char *dst, size_t size, size_t at, const char *fmt, va_list ap)
{
    if (!dst || size < 4)
        return;
    if (at + 1 >= size) { /* full already: more was to come */
        mark_cut(dst, size);
        return;
    }
    int n = vsnprintf(dst + at, size - at, fmt, ap);
    if (n >= (int)(size - at))
        mark_cut(dst, size);
}

void gt_text_fit(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_at(dst, size, 0, fmt, ap);
    va_end(ap);
}

void gt_text_vappend(char *dst, size_t size, const char *fmt, va_list ap)
{
    text_at(dst, size, dst ? strnlen(dst, size) : 0, fmt, ap);
}

void gt_text_append(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gt_text_vappend(dst, size, fmt, ap);
    va_end(ap);
}

void gt_err_join(gt_error *err, const gt_error *more)
{
    size_t n = strnlen(err->msg, sizeof err->msg - 1);
    size_t m = strnlen(more->msg, sizeof more->msg - 1);
    if (n + 2 + m < sizeof err->msg) {
        memcpy(err->msg + n, "; ", 2);
        memcpy(err->msg + n + 2, more->msg, m);
        err->msg[n + 2 + m] = '\0';
        return;
    }
    /* As much of the second as fits, then the mark; the first message is
     * kept whole where it leaves room for "; " and the mark. */
    if (n + 2 + 3 < sizeof err->msg) {
        memcpy(err->msg + n, "; ", 2);
        memcpy(err->msg + n + 2, more->msg, sizeof err->msg - 1 - n - 2);
        err->msg[sizeof err->msg - 1] = '\0';
    }
    mark_cut(err->msg, sizeof err->msg);
}
