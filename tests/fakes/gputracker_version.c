/* SPDX-License-Identifier: MIT */
/* A library that says it is libgputracker of another version: gt_version()
 * returns GT_FAKE_VERSION (default "0.0.1") and nothing else is defined.
 * The Python package must refuse to load it. */
#include <stdlib.h>

const char *gt_version(void);

const char *gt_version(void)
{
    const char *v = getenv("GT_FAKE_VERSION");
    return v ? v : "0.0.1";
}
