/* SPDX-License-Identifier: MIT */
/* Fuzz target: the JSON results files that `sub-track compare` reads.  The
 * first byte picks the statistic; the rest is split at NUL bytes into up to
 * three results files, compared as sessions A, B, C.  An accepted set must
 * give a comparison that both writers can write, and the JSON one must be
 * valid JSON; a refused set must say why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gpu_tracker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)
#define MAX_FILES 3

static void quiet(void *ctx, const char *msg)
{
    (void)ctx;
    CHECK(msg && msg[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const stats[] = {"min", "max", "mean", "std", "median"};
    if (size < 1)
        return 0;
    const char *stat = stats[data[0] % 5];
    int fds[MAX_FILES];
    char paths[MAX_FILES][64];
    const char *files[MAX_FILES], *names[MAX_FILES] = {"A", "B", "C"};
    size_t n = 0;
    const uint8_t *p = data + 1, *end = data + size;
    while (n < MAX_FILES) {
        const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
        const uint8_t *stop = nul ? nul : end;
        fds[n] = memfd_create("results", MFD_CLOEXEC);
        if (fds[n] < 0)
            break;
        if (write(fds[n], p, (size_t)(stop - p)) != stop - p) {
            close(fds[n]);
            break;
        }
        snprintf(paths[n], sizeof paths[n], "/proc/self/fd/%d", fds[n]);
        files[n] = paths[n];
        n++;
        if (!nul)
            break;
        p = nul + 1;
    }
    gt_comparison *c = NULL;
    gt_error err = {{0}};
    gt_compare_options o = {.version = GT_STRUCT_VERSION, .statistic = stat, .log = quiet};
    gt_status st = gt_compare(names, files, n, &o, &c, &err);
    if (st == GT_OK) {
        CHECK(c != NULL);
        char *text = NULL;
        CHECK(gt_comparison_string(c, GT_FORMAT_TEXT, &text) == GT_OK);
        gt_string_free(&text);
        CHECK(gt_comparison_string(c, GT_FORMAT_JSON, &text) == GT_OK);
        cJSON *j = cJSON_Parse(text);
        CHECK(j != NULL); /* the JSON writer writes JSON */
        cJSON_Delete(j);
        gt_string_free(&text);
    } else {
        CHECK(c == NULL && err.msg[0]);
    }
    gt_comparison_free(&c);
    for (size_t i = 0; i < n; i++)
        close(fds[i]);
    return 0;
}
