/* SPDX-License-Identifier: MIT */
#include "outfile.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "options.h"
#include "store/side.h"

/* path with its folder resolved (path itself need not exist); caller frees;
 * NULL when the folder does not exist. */
static char *resolve(const char *path)
{
    char *r = realpath(path, NULL);
    if (r)
        return r;
    char *d = strdup(path), *b = strdup(path);
    char *dir = d ? realpath(dirname(d), NULL) : NULL;
    const char *base = b ? basename(b) : NULL;
    if (dir && base) {
        size_t n = strlen(dir) + strlen(base) + 2;
        if ((r = malloc(n)))
            snprintf(r, n, "%s/%s", dir, base);
    }
    free(dir);
    free(d);
    free(b);
    return r;
}

/* The output, looked up once for a check against every input. */
typedef struct target {
    const char *path;
    int exists;
    struct stat sb;
    char *resolved; /* when it does not exist */
} target;

/* Whether path names t's file: the same inode when both exist (a link, a
 * hard link), otherwise the same resolved path ("x", "./x", "d/../x"). */
static int is_target(const target *t, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0)
        return t->exists && sb.st_dev == t->sb.st_dev && sb.st_ino == t->sb.st_ino;
    if (t->exists)
        return 0;
    char *r = resolve(path);
    int same = r && t->resolved ? !strcmp(r, t->resolved) : !strcmp(path, t->path);
    free(r);
    return same;
}

/* Whether t is a file kept beside input (see gt_cli_outfile_check); its
 * name into *beside (malloc'd).  -1: out of memory. */
static int kept_beside(const target *t, const char *input, char **beside)
{
    static const char *const sqlite_files[] = {"-journal", "-wal", "-shm"};
    *beside = NULL;
    for (size_t i = 0; i < sizeof sqlite_files / sizeof *sqlite_files; i++) {
        size_t n = strlen(input) + strlen(sqlite_files[i]) + 1;
        char *p = malloc(n);
        if (!p)
            return -1;
        snprintf(p, n, "%s%s", input, sqlite_files[i]);
        if (is_target(t, p)) {
            *beside = p;
            return 1;
        }
        free(p);
    }
    size_t n = strlen(input);
    if (n < 4 || strcmp(input + n - 4, ".csv") != 0)
        return 0;
    for (const char *const *name = gt_side_tables; *name; name++) {
        char *p = gt_side_csv_path(input, *name);
        if (!p)
            return -1;
        if (is_target(t, p)) {
            *beside = p;
            return 1;
        }
        free(p);
    }
    return 0;
}

int gt_cli_outfile_check(const char *output, const char *option, const char *const *inputs, size_t n,
                         const char *what)
{
    target t = {.path = output};
    t.exists = stat(output, &t.sb) == 0;
    if (!t.exists)
        t.resolved = resolve(output);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (is_target(&t, inputs[i])) {
            rc = gt_cli_usage_error("the output file (%s '%s') and %s '%s' must be different files", option,
                                    output, what, inputs[i]);
            break;
        }
        char *beside;
        int k = kept_beside(&t, inputs[i], &beside);
        if (k < 0) {
            fputs("gpu-tracker: out of memory\n", stderr);
            rc = GT_EXIT_FAILURE;
        } else if (k) {
            rc = gt_cli_usage_error("the output file (%s '%s') is '%s', which is kept beside %s '%s' and holds "
                                    "its data: they must be different files",
                                    option, output, beside, what, inputs[i]);
            free(beside);
        }
    }
    free(t.resolved);
    return rc;
}

int gt_cli_outfile_open(const char *path, gt_cli_outfile *o)
{
    gt_error err;
    if (gt_outfile_open(path, "output file", o, &err) == GT_OK)
        return 0;
    fprintf(stderr, "gpu-tracker: %s\n", err.msg);
    return GT_EXIT_USAGE;
}

int gt_cli_outfile_commit(gt_cli_outfile *o)
{
    gt_error err;
    if (gt_outfile_commit(o, &err) == GT_OK)
        return 0;
    fprintf(stderr, "gpu-tracker: %s\n", err.msg);
    return GT_EXIT_FAILURE;
}

void gt_cli_outfile_discard(gt_cli_outfile *o) { gt_outfile_discard(o); }
