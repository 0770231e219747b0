/* SPDX-License-Identifier: MIT */
/* Fuzz target: the DRM fdinfo parser of the fdinfo GPU backend.  Beyond "no
 * crash, no overread" (ASan/UBSan, over an input not NUL-terminated), what it
 * returns must satisfy its contract: a DRM file names its driver, names are
 * terminated and within their tables, capacities are at least one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/drm_fdinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_drm_client_info c;
    int drm = gt_drm_fdinfo_parse((const char *)data, size, &c);
    CHECK(drm == 0 || drm == 1);
    CHECK(memchr(c.driver, 0, sizeof c.driver) && memchr(c.pdev, 0, sizeof c.pdev));
    CHECK(!drm || c.driver[0]);
    CHECK(c.n_eng <= GT_DRM_MAX_ENGINES);
    for (size_t k = 0; k < c.n_eng; k++) {
        CHECK(c.eng[k].name[0] && memchr(c.eng[k].name, 0, sizeof c.eng[k].name));
        CHECK(c.eng[k].capacity >= 1);
    }
    CHECK(c.mem_valid || c.mem_bytes == 0);
    return 0;
}
