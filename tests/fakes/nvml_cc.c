/* SPDX-License-Identifier: MIT */
/* The fake NVML as a driver of R525 to R530, whose _v3 process listings
 * write 32-byte entries: see nvml.c, FAKE_NVML_CC. */
#define FAKE_NVML_CC
#include "nvml.c"
