/* SPDX-License-Identifier: MIT */
/* The library's version at run time: GT_VERSION of the header it was built
 * with. */
#include "gpu_tracker.h"

const char *gt_version(void)
{
    return GT_VERSION;
}
