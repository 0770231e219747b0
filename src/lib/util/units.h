/* SPDX-License-Identifier: MIT */
/* Unit conversion as the Python package does it: decimal multiples of bytes
 * (1 kilobyte = 1000 bytes) and seconds/minutes/hours/days. */
#ifndef GT_UTIL_UNITS_H
#define GT_UTIL_UNITS_H
#include "gpu_tracker.h"

#define GT_RAM_UNITS_VALID "'bytes', 'kilobytes', 'megabytes', 'gigabytes', 'terabytes'"
#define GT_TIME_UNITS_VALID "'seconds', 'minutes', 'hours', 'days'"

double gt_ram_in_unit(double bytes, gt_ram_unit u);
double gt_time_in_unit(double seconds, gt_time_unit u);
/* GPU RAM goes through megabytes, as in the Python package: 4.3e9 bytes are
 * 4300 MB * (1 / 1e3) = 4.3 gigabytes, where bytes * (1 / 1e9) would give
 * 4.300000000000001. */
double gt_gpu_ram_in_unit(double bytes, gt_ram_unit u);

/* A whole decimal number from s[0..len) with nothing else (a count in a
 * kernel file or an environment variable); -1 when empty, malformed or past
 * 2^53, where a double stops being exact. */
double gt_parse_count(const char *s, size_t len);

#define GT_ENERGY_UNITS_VALID "'joules', 'kilojoules', 'watt-hours', 'kilowatt-hours'"
double gt_energy_in_unit(double joules, gt_energy_unit u);
#endif
