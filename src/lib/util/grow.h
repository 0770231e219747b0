/* SPDX-License-Identifier: MIT */
/* Capacity growth by doubling, for arrays that grow one element (or one
 * record) at a time: amortised constant cost per element, and the size
 * arithmetic checked once here rather than at every realloc.  Header-only so
 * that the CLI and the Slurm plugin, which link the library's public API
 * only, use the same checks. */
#ifndef GT_UTIL_GROW_H
#define GT_UTIL_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The capacity, in elements of size bytes, for at least need elements:
 * cap doubled until it holds need, starting from first when cap is 0.
 * Returns cap itself when it already holds need.  Returns 0, never a
 * wrapped value, when that capacity (or its size in bytes) does not fit in
 * a size_t: the caller treats it as out of memory.  first and size must
 * not be 0. */
static inline size_t gt_grow_cap(size_t cap, size_t need, size_t first, size_t size)
{
    size_t max = SIZE_MAX / size;
    size_t c = cap ? cap : first;
    while (c < need) {
        if (c > max / 2)
            return 0;
        c *= 2;
    }
    return c <= max ? c : 0;
}

/* Grows *v (an array of *cap elements of size bytes, malloc'd or NULL) to
 * hold at least need, doubling from first.  0, or -1 when out of memory
 * (*v and *cap then unchanged). */
static inline int gt_grow_array(void **v, size_t *cap, size_t need, size_t first, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t nc = gt_grow_cap(*cap, need, first, size);
    void *nv = nc ? realloc(*v, nc * size) : NULL;
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}

#endif
