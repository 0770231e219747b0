/* SPDX-License-Identifier: MIT */
/* Fuzz target: `sub-track analyze` over a CSV tracking file and a CSV
 * sub-tracking file, the input split at the first NUL byte into the two.
 * Accepted files must give results that both writers write, the JSON one
 * valid JSON; refused ones must say why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpu_tracker.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t tlen = nul ? (size_t)(nul - data) : size;
    const uint8_t *sub = nul ? nul + 1 : data + size;
    char tb[128], sb[128];
    const char *tpath = scratch_write("tracking.csv", data, tlen, tb, sizeof tb);
    const char *spath = scratch_write("sub.csv", sub, (size_t)(data + size - sub), sb, sizeof sb);
    if (!tpath || !spath)
        return 0;
    gt_results *r = NULL;
    gt_error err = {{0}};
    if (gt_analyze(tpath, &(gt_analyze_options){GT_STRUCT_VERSION, spath, NULL}, &r, &err) != GT_OK) {
        CHECK(r == NULL && err.msg[0]);
        return 0;
    }
    char *text = NULL;
    CHECK(gt_results_string(r, GT_FORMAT_TEXT, &text) == GT_OK);
    gt_string_free(&text);
    CHECK(gt_results_string(r, GT_FORMAT_JSON, &text) == GT_OK);
    cJSON *j = cJSON_Parse(text);
    CHECK(j != NULL); /* the JSON writer writes JSON */
    cJSON_Delete(j);
    gt_string_free(&text);
    gt_results_free(&r);
    return 0;
}
