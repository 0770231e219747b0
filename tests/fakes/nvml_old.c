/* SPDX-License-Identifier: MIT */
/* The fake NVML as a driver from before the versioned functions: see
 * nvml.c, FAKE_NVML_OLD. */
#define FAKE_NVML_OLD
#include "nvml.c"
