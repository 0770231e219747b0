/* SPDX-License-Identifier: MIT */
/* A private folder under /tmp for fuzz targets whose readers pick the format
 * from a file name's extension: created on first use, removed at exit. */
#ifndef GT_FUZZ_SCRATCH_H
#define GT_FUZZ_SCRATCH_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_dir[] = "/tmp/gt-fuzz-XXXXXX";

static void scratch_remove(void)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", scratch_dir);
}

/* path of name in the folder (NULL if it cannot be made). */
static const char *scratch_path(const char *name, char *buf, size_t size)
{
    static int made;
    if (!made) {
        if (!mkdtemp(scratch_dir))
            return NULL;
        atexit(scratch_remove);
        made = 1;
    }
    snprintf(buf, size, "%s/%s", scratch_dir, name);
    return buf;
}

/* Writes data to the named file (replacing it); its path, or NULL. */
static const char *scratch_write(const char *name, const void *data, size_t size, char *buf,
                                 size_t bufsize)
{
    const char *path = scratch_path(name, buf, bufsize);
    if (!path)
        return NULL;
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    size_t n = fwrite(data, 1, size, f);
    if (fclose(f) != 0 || n != size)
        return NULL;
    return path;
}
#endif
