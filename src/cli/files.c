/* SPDX-License-Identifier: MIT */
/* Directory listing for commands that take a directory of inputs. */
#include "files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* An identity and the index of its path, sorted by identity then index, so
 * the first of equal identities is the path given first. */
typedef struct file_ref {
    gt_cli_file_id id;
    size_t index;
} file_ref;

static int cmp_id(const gt_cli_file_id *a, const gt_cli_file_id *b)
{
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return a->ino < b->ino ? -1 : a->ino > b->ino;
}

static int cmp_ref(const void *a, const void *b)
{
    const file_ref *x = a, *y = b;
    int c = cmp_id(&x->id, &y->id);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

int gt_cli_unique_files(const char **paths, size_t *n, gt_cli_file_id **ids, size_t *nids)
{
    size_t m = 0, kept = 0, nref = 0;
    /* first[i]: the index of the earlier path naming the same file as path i, or i. */
    size_t *first = malloc((*n ? *n : 1) * sizeof *first);
    file_ref *ref = malloc((*n ? *n : 1) * sizeof *ref);
    *ids = NULL;
    *nids = 0;
    if (!first || !ref) {
        free(first);
        free(ref);
        fputs("gpu-tracker: out of memory\n", stderr);
        return -1;
    }
    for (size_t i = 0; i < *n; i++) {
        struct stat sb;
        first[i] = i;
        if (stat(paths[i], &sb) == 0)
            ref[nref++] = (file_ref){{sb.st_dev, sb.st_ino}, i};
    }
    if (nref)
        qsort(ref, nref, sizeof *ref, cmp_ref);
    for (size_t r = 0; r < nref; r++) {
        if (m && cmp_id(&ref[r].id, &ref[m - 1].id) == 0) {
            first[ref[r].index] = ref[m - 1].index;
            continue;
        }
        ref[m++] = ref[r];
    }
    for (size_t i = 0; i < *n; i++) {
        if (first[i] != i) {
            fprintf(stderr, "gpu-tracker: warning: '%s' is the same file as '%s': read once\n", paths[i],
                    paths[first[i]]);
            continue;
        }
        paths[kept++] = paths[i];
    }
    *n = kept;
    free(first);
    gt_cli_file_id *v = malloc((m ? m : 1) * sizeof *v);
    for (size_t r = 0; v && r < m; r++)
        v[r] = ref[r].id;
    free(ref);
    if (!v) {
        fputs("gpu-tracker: out of memory\n", stderr);
        return -1;
    }
    *ids = v;
    *nids = m;
    return 0;
}

static int cmp_id_void(const void *a, const void *b) { return cmp_id(a, b); }

int gt_cli_file_known(const gt_cli_file_id *ids, size_t nids, const char *path)
{
    struct stat sb;
    if (!nids || stat(path, &sb) != 0)
        return 0;
    gt_cli_file_id key = {sb.st_dev, sb.st_ino};
    return bsearch(&key, ids, nids, sizeof *ids, cmp_id_void) != NULL;
}
