/* SPDX-License-Identifier: MIT */
#include "store/csvfield.h"

#include <string.h>

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
        for (; *q; q++) {
            if (quote && *q == '"')
                dst[n++] = '"';
            dst[n++] = *q;
        }
    }
    if (quote)
        dst[n++] = '"';
    dst[n] = '\0';
    return n;
}
