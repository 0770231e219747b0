/* SPDX-License-Identifier: MIT */
/* The brands --gb takes, as messages and --help list them; read from the
 * vendor table (vendors.c), so a new vendor is listed where it is taken. */
#ifndef GT_GPU_BRANDS_H
#define GT_GPU_BRANDS_H
#include <stddef.h>

/* Writes the brands in their enumerators' order, quoted, joined by ", " and
 * the last two by last_sep: "'nvidia', 'amd'" (last_sep ", ") or
 * "'nvidia' or 'amd'" (" or ").  Returns the length the list needs, as
 * snprintf does: at least size means it was cut. */
int gt_gpu_brand_list(char *buf, size_t size, const char *last_sep);
#endif
