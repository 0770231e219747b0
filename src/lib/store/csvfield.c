/* SPDX-License-Identifier: MIT */
#include "store/csvfield.h"

#include <string.h>

#include "util/text.h"

/* Doubles the quotes of the len bytes at p in place (room after them
 * assumed); returns the new length. */
static size_t double_quotes(char *p, size_t len)
{
    size_t quotes = 0;
    for (size_t i = 0; i < len; i++)
        quotes += p[i] == '"';
    for (size_t i = len, j = len + quotes; i > 0;) {
        char c = p[--i];
        p[--j] = c;
        if (c == '"')
            p[--j] = c;
    }
    return len + quotes;
}

size_t gt_csv_field(char *dst, const char *a, const char *b)
{
    static const char special[] = ",\"\r\n";
    size_t n = 0;
    int quote = strpbrk(a, special) || (b && strpbrk(b, special));
    if (quote)
        dst[n++] = '"';
    for (int part = 0; part < 2; part++) {
        const char *q = part ? b : a;
        if (!q)
            continue;
        if (part)
            dst[n++] = ':';
        /* Valid UTF-8 whatever the bytes, by the rule of util/text.h; its
         * escapes hold no quote. */
        size_t m = gt_text_escape(dst + n, q, 0);
        n += quote ? double_quotes(dst + n, m) : m;
    }
    if (quote)
        dst[n++] = '"';
    dst[n] = '\0';
    return n;
}
