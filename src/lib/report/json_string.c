/* SPDX-License-Identifier: MIT */
/* See json_string.h. */
#include "report/json_string.h"

#include "util/text.h"

void gt_json_put_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        unsigned long c = *p;
        int len = 1;
        if (c >= 0x80) {
            unsigned long cp = gt_utf8_decode(p, &len);
            if (!len) { /* not UTF-8: the text \xNN (util/text.h) */
                fprintf(out, "\\\\x%02lx", c);
                p++;
                continue;
            }
            c = cp;
        }
        p += len;
        switch (c) {
        case '"': fputs("\\\"", out); continue;
        case '\\': fputs("\\\\", out); continue;
        case '\n': fputs("\\n", out); continue;
        case '\r': fputs("\\r", out); continue;
        case '\t': fputs("\\t", out); continue;
        case '\b': fputs("\\b", out); continue;
        case '\f': fputs("\\f", out); continue;
        }
        if (c >= 0x20 && c < 0x7f)
            fputc((int)c, out);
        else if (c > 0xffff)
            fprintf(out, "\\u%04lx\\u%04lx", 0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff));
        else
            fprintf(out, "\\u%04lx", c);
    }
    fputc('"', out);
}
