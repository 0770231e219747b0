/* SPDX-License-Identifier: MIT */
/* Fuzz target: splitting an -e command line into words (no shell).  A
 * successful split never yields more words or longer words than the line
 * allows, and a line without quotes or backslashes splits exactly at
 * blanks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0'; /* the CLI gets a C string: stop at the first NUL */
    size_t n = strlen(line);
    int argc = -1;
    char **argv = NULL;
    gt_error err;
    if (gt_argv_split(line, &argc, &argv, &err) == GT_OK) {
        CHECK(argc >= 0 && (size_t)argc <= n / 2 + 1 && argv[argc] == NULL);
        size_t total = 0;
        for (int i = 0; i < argc; i++)
            total += strlen(argv[i]);
        CHECK(total <= n);
        if (!strpbrk(line, "'\"\\")) {
            int k = 0;
            for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"), k++)
                CHECK(k < argc && !strcmp(tok, argv[k]));
            CHECK(k == argc);
        }
        gt_argv_free(&argv);
        CHECK(argv == NULL);
    } else {
        CHECK(err.msg[0] != '\0');
    }
    free(line);
    return 0;
}
