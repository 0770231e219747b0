/* SPDX-License-Identifier: MIT */
/* Fuzz target: the --cconfig JSON file of `sub-track compare`.  The CLI's
 * own reader runs on the input as a file (only the reader: no results file
 * is opened); whatever it accepts names sessions with non-empty names and
 * paths. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("cconfig", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    gt_cli_compare_settings s;
    memset(&s, 0, sizeof s);
    int rc = gt_cli_compare_load_config(&s, path);
    if (rc == 0) {
        for (size_t i = 0; i < s.ss.n; i++)
            CHECK(s.ss.names[i][0] && s.ss.files[i][0]);
        /* names are unique: a name given again replaces its file */
        for (size_t i = 0; i < s.ss.n; i++)
            for (size_t k = i + 1; k < s.ss.n; k++)
                CHECK(strcmp(s.ss.names[i], s.ss.names[k]) != 0);
    } else {
        CHECK(rc == GT_EXIT_USAGE || rc == GT_EXIT_FAILURE);
    }
    gt_cli_compare_settings_free(&s);
    close(fd);
    return 0;
}
