/* SPDX-License-Identifier: MIT */
/* Python-compatible float formatting, in one place: the text and JSON
 * reports, CSV files and analysis tables must print numbers exactly as the
 * Python package (float.__repr__, round()) does so users can diff outputs. */
#ifndef GT_UTIL_PYFLOAT_H
#define GT_UTIL_PYFLOAT_H
#include <stddef.h>

/* Writes repr(x) as Python prints it: shortest round-trip digits, "1.0" not
 * "1", scientific below 1e-4 and from 1e16 ("1e+16", "1.5e-05"), "nan",
 * "inf", "-inf".  Returns the length written (buf always NUL-terminated);
 * 32 bytes are always enough. */
size_t gt_pyfloat_repr(double x, char *buf, size_t size);

/* Python's round(x, ndigits): correctly rounded, ties to even on the exact
 * binary value. */
double gt_pyround(double x, int ndigits);

#define GT_PYFLOAT_BUFSZ 32
#endif
