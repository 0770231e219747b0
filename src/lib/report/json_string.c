/* SPDX-License-Identifier: MIT */
/* See json_string.h. */
#include "report/json_string.h"

/* The code point of the UTF-8 sequence at p, its length in *len; 0 in *len
 * when p starts no valid sequence (overlong forms and surrogates included,
 * as Python's decoder refuses them). */
static unsigned long utf8_decode(const unsigned char *p, int *len)
{
    unsigned c = p[0];
    int n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    unsigned long cp = n == 4 ? c & 0x07 : n == 3 ? c & 0x0f : c & 0x1f;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80) {
            *len = 0;
            return 0;
        }
        cp = cp << 6 | (p[k] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        n = 0;
    *len = n;
    return cp;
}

void gt_json_put_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        unsigned long c = *p;
        int len = 1;
        if (c >= 0x80) {
            unsigned long cp = utf8_decode(p, &len);
            if (len)
                c = cp;
            else
                len = 1;
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
