/* SPDX-License-Identifier: MIT */
/* The public structs in the layouts of older struct versions (see "Struct
 * versions" in gpu_tracker.h).  Inside the library every gt_options,
 * gt_usage and gt_timepoint is of GT_STRUCT_VERSION; these functions are
 * the only places where a program's struct, of its own version, is read or
 * written. */
#ifndef GT_ABI_H
#define GT_ABI_H
#include <stddef.h>

#include "gpu_tracker.h"

/* The end of a field: where a struct version whose last field it is ends. */
#define GT_END_OF(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

typedef enum gt_abi_struct {
    GT_ABI_OPTIONS,
    GT_ABI_TIMEPOINT,
    GT_ABI_USAGE,
    GT_ABI_ANALYZE_OPTIONS,
    GT_ABI_MERGE_OPTIONS,
    GT_ABI_COMPARE_OPTIONS,
    GT_ABI_PLOT_OPTIONS,
} gt_abi_struct;

/* Bytes of the struct that a program of the given version has; 0 for a
 * version this library does not know (0, older than the struct, or newer
 * than GT_STRUCT_VERSION). */
size_t gt_abi_size(gt_abi_struct s, unsigned int version);

/* GT_OK for a known version; otherwise GT_ERR_INVALID with a message that
 * names the struct and says what is wrong into err (may be NULL). */
gt_status gt_abi_check(gt_abi_struct s, unsigned int version, gt_error *err);

/* Copies a program's struct (of a known version, checked before) into *full,
 * whose fields the program's version lacks keep what *full held: defaults,
 * or zeros.  full->version becomes GT_STRUCT_VERSION. */
void gt_abi_read(gt_abi_struct s, const void *in, void *full);

/* Copies the fields of version out_version from *full into *out, which is
 * that version's size: nothing past it is written.  out->version becomes
 * out_version. */
void gt_abi_write(gt_abi_struct s, const void *full, void *out, unsigned int out_version);

/* The *_options_init() of an operation's options: the fields of the given
 * version from *defaults (of GT_STRUCT_VERSION).  An unknown version is
 * GT_ERR_INVALID and writes only the version, for the operation to refuse
 * with a message. */
gt_status gt_abi_init(gt_abi_struct s, const void *defaults, void *out, unsigned int version);

/* An operation's options as the library reads them: *full is *defaults
 * where in is NULL (the documented default), else in's fields of its
 * version over the defaults; GT_ERR_INVALID with a message for an unknown
 * version.  size is sizeof *full. */
gt_status gt_abi_take(gt_abi_struct s, const void *in, const void *defaults, void *full, size_t size,
                      gt_error *err);

#endif
