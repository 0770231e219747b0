/* SPDX-License-Identifier: MIT */
/* Interns mapping paths to small integer ids so the per-path shared memory
 * of many processes can be combined with array lookups instead of string
 * compares on every sample. */
#ifndef GT_SAMPLER_PATHS_H
#define GT_SAMPLER_PATHS_H
#include <stddef.h>
#include <stdint.h>

typedef struct gt_paths gt_paths;

gt_paths *gt_paths_new(void);           /* NULL when out of memory */
/* Id of path (len bytes, need not be NUL-terminated), adding it if new.
 * Returns -1 only when out of memory. */
int gt_paths_intern(gt_paths *p, const char *path, size_t len, uint32_t *id);
size_t gt_paths_count(const gt_paths *p);
void gt_paths_free(gt_paths **p);
#endif
