/* SPDX-License-Identifier: MIT */
/* Re-layout of compact JSON (see json_indent.h). */
#include "report/json_indent.h"

#include <stdlib.h>

static void newline(FILE *out, int depth, int width)
{
    fputc('\n', out);
    for (int i = 0; i < depth * width; i++)
        fputc(' ', out);
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

int gt_json_indent(const char *p, int width, FILE *out)
{
    int depth = 0;
    while (*p) {
        char c = *p++;
        switch (c) {
        case '"':
            /* A string is copied as it is, escapes included. */
            fputc(c, out);
            while (*p && *p != '"') {
                if (*p == '\\' && p[1])
                    fputc(*p++, out);
                fputc(*p++, out);
            }
            if (*p)
                fputc(*p++, out);
            break;
        case '{':
        case '[': {
            const char *next = skip_space(p);
            fputc(c, out);
            if (*next == (c == '{' ? '}' : ']')) { /* json.dumps keeps {} and [] on one line */
                fputc(*next, out);
                p = next + 1;
            } else {
                newline(out, ++depth, width);
                p = next;
            }
            break;
        }
        case '}':
        case ']':
            newline(out, --depth, width);
            fputc(c, out);
            break;
        case ',':
            fputc(c, out);
            newline(out, depth, width);
            p = skip_space(p);
            break;
        case ':':
            fputs(": ", out);
            p = skip_space(p);
            break;
        case ' ':
        case '\n':
        case '\t':
        case '\r':
            break;
        default:
            fputc(c, out);
        }
    }
    return ferror(out) ? -1 : 0;
}

int gt_json_indented(void (*write)(FILE *tmp, const void *ctx), const void *ctx, int width, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *tmp = open_memstream(&buf, &len);
    if (!tmp)
        return -1;
    write(tmp, ctx);
    int failed = ferror(tmp);
    if (fclose(tmp) != 0 || failed) {
        free(buf);
        return -1;
    }
    int rc = gt_json_indent(buf, width, out);
    free(buf);
    return rc;
}
