/* SPDX-License-Identifier: MIT */
#include "argv.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"

void gt_argv_free(char ***argv)
{
    if (!argv || !*argv)
        return;
    for (char **a = *argv; *a; a++)
        free(*a);
    free(*argv);
    *argv = NULL;
}

gt_status gt_argv_split(const char *line, int *argc, char ***argv, gt_error *err)
{
    size_t n = strlen(line);
    /* No word is longer than the line, and there are at most n/2+1 words. */
    char **v = calloc(n / 2 + 2, sizeof *v);
    char *word = malloc(n + 1);
    int count = 0;
    gt_status st = GT_OK;
    if (!v || !word) {
        st = gt_err(err, GT_ERR_NOMEM, "out of memory");
        goto out;
    }
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        size_t w = 0;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'') {
                const char *end = strchr(p + 1, '\'');
                if (!end) {
                    st = gt_err(err, GT_ERR_INVALID, "unterminated single quote in command '%s'", line);
                    goto out;
                }
                memcpy(word + w, p + 1, (size_t)(end - p - 1));
                w += (size_t)(end - p - 1);
                p = end + 1;
            } else if (*p == '"') {
                p++;
                while (*p && *p != '"') {
                    /* Inside double quotes a backslash escapes only these. */
                    if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1]))
                        p++;
                    word[w++] = *p++;
                }
                if (*p != '"') {
                    st = gt_err(err, GT_ERR_INVALID, "unterminated double quote in command '%s'", line);
                    goto out;
                }
                p++;
            } else if (*p == '\\') {
                if (!p[1]) {
                    st = gt_err(err, GT_ERR_INVALID, "trailing backslash in command '%s'", line);
                    goto out;
                }
                word[w++] = p[1];
                p += 2;
            } else {
                word[w++] = *p++;
            }
        }
        if (!(v[count] = strndup(word, w))) {
            st = gt_err(err, GT_ERR_NOMEM, "out of memory");
            goto out;
        }
        count++;
    }
out:
    free(word);
    if (st != GT_OK) {
        gt_argv_free(&v);
        return st;
    }
    *argc = count;
    *argv = v;
    return GT_OK;
}
