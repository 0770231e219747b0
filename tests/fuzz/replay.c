/* SPDX-License-Identifier: MIT */
/* Replays fuzz inputs without libFuzzer: every file named on the command line
 * (or found in a folder named there) is passed once to the target, in a
 * buffer of exactly its size so an overread is caught under ASan or
 * valgrind.  This is how the seed corpus and every kept crashing input run
 * as ordinary regression tests with any compiler. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open '%s'\n", path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: out of memory reading '%s'\n", path);
        return -1;
    }
    /* Exactly len bytes, as libFuzzer passes them. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int replay(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file or folder '%s'\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return replay_file(path);
    }
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char sub[4096];
        if (names[i]->d_name[0] != '.' && rc == 0) {
            snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
            rc = replay(sub, count);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int count = 0;
    for (int i = 1; i < argc; i++)
        if (replay(argv[i], &count) != 0)
            return 1;
    printf("%s: %d inputs replayed\n", argv[0], count);
    return count > 0 ? 0 : 1;
}
