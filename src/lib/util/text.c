/* SPDX-License-Identifier: MIT */
/* See text.h. */
#include "util/text.h"

#include <stdlib.h>
#include <string.h>

unsigned long gt_utf8_decode(const unsigned char *p, int *len)
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

/* C0, DEL, C1, and the two code points XML 1.0 forbids besides. */
static int is_control(unsigned long cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xfffe || cp == 0xffff;
}

size_t gt_text_next(const char *s, unsigned flags, char out[GT_TEXT_CHAR_MAX])
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    int len = 1;
    unsigned long cp = p[0], escape = 0;
    if (p[0] >= 0x80) {
        cp = gt_utf8_decode(p, &len);
        if (!len) { /* not UTF-8: the byte */
            len = 1;
            cp = p[0];
            escape = 1;
        }
    }
    if (!escape && (flags & GT_TEXT_CONTROLS) && is_control(cp))
        escape = 1;
    if (!escape) {
        memcpy(out, s, (size_t)len);
        out[len] = '\0';
        return (size_t)len;
    }
    size_t n = 0;
    out[n++] = '\\';
    out[n++] = cp > 0xff ? 'u' : 'x';
    for (int shift = cp > 0xff ? 12 : 4; shift >= 0; shift -= 4)
        out[n++] = hex[cp >> shift & 0xf];
    out[n] = '\0';
    return (size_t)len;
}

int gt_text_clean(const char *s, unsigned flags)
{
    char c[GT_TEXT_CHAR_MAX];
    for (size_t len; *s; s += len) {
        len = gt_text_next(s, flags, c);
        if (c[0] == '\\' && *s != '\\')
            return 0;
    }
    return 1;
}

size_t gt_text_escape(char *dst, const char *s, unsigned flags)
{
    size_t n = 0;
    for (size_t len; *s; s += len) {
        len = gt_text_next(s, flags, dst + n);
        n += strlen(dst + n);
    }
    dst[n] = '\0';
    return n;
}

char *gt_text_escape_dup(const char *s, unsigned flags)
{
    size_t len = strlen(s);
    char *d = len < ((size_t)-1 - 1) / 4 ? malloc(GT_TEXT_MAX(len)) : NULL;
    if (d)
        gt_text_escape(d, s, flags);
    return d;
}

size_t gt_text_width(const char *s, unsigned flags)
{
    char c[GT_TEXT_CHAR_MAX];
    size_t n = 0;
    for (size_t len; *s; s += len) {
        len = gt_text_next(s, flags, c);
        n += c[0] == '\\' && *s != '\\' ? strlen(c) : 1;
    }
    return n;
}

void gt_text_put(FILE *out, const char *s, unsigned flags, int width)
{
    char c[GT_TEXT_CHAR_MAX];
    size_t written = 0;
    for (size_t len; *s; s += len) {
        len = gt_text_next(s, flags, c);
        fputs(c, out);
        written += c[0] == '\\' && *s != '\\' ? strlen(c) : 1;
    }
    for (; (int)written < width; written++)
        fputc(' ', out);
}
