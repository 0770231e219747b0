/* SPDX-License-Identifier: MIT */
/* Directory listing for commands that take a directory of inputs. */
#include "files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

int gt_cli_is_data_file(const char *path)
{
    return has_suffix(path, ".csv") || has_suffix(path, ".sqlite");
}

int gt_cli_list_dir(const char *dir, char ***out, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;
    size_t len = 0, cap = 0;
    if (!d) {
        perror(dir);
        return -1;
    }
    while ((e = readdir(d))) {
        /* A directory of data files may also hold what SQLite keeps beside a
         * database ("-journal", "-wal", "-shm"), reports, and whatever else a
         * run wrote there. */
        if (e->d_name[0] == '.' || !gt_cli_is_data_file(e->d_name))
            continue;
        if (len == cap) {
            cap = gt_grow_cap(cap, len + 1, 16, sizeof *v);
            char **p = cap ? realloc(v, cap * sizeof *p) : NULL;
            if (!p)
                goto nomem;
            v = p;
        }
        size_t sz = strlen(dir) + strlen(e->d_name) + 2;
        if (!(v[len] = malloc(sz)))
            goto nomem;
        snprintf(v[len++], sz, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (len)
        qsort(v, len, sizeof *v, cmp_str);
    *out = v;
    *n = len;
    return 0;
nomem:
    closedir(d);
    gt_cli_list_free(v, len);
    fputs("gpu-tracker: out of memory\n", stderr);
    return -1;
}

void gt_cli_list_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
