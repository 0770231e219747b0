/* SPDX-License-Identifier: MIT */
#ifndef GT_TRACKER_OPTIONS_H
#define GT_TRACKER_OPTIONS_H
#include "gpu_tracker.h"

/* GT_OK where every option of o (this version's layout, defaults filled
 * in) is in its range; otherwise GT_ERR_INVALID with what is wrong and what
 * is valid. */
gt_status gt_tracker_options_check(const gt_options *o, gt_error *err);
#endif
