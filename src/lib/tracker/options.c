/* SPDX-License-Identifier: MIT */
/* The tracker's options: their defaults for a program's struct version, and
 * the check of their ranges before anything is opened. */
#include "tracker/options.h"

#include <math.h>
#include <string.h>

#include "abi.h"
#include "gpu/brands.h"
#include "util/error.h"
#include "util/units.h"

gt_status gt_options_init(gt_options *o, unsigned int version)
{
    const gt_options defaults = GT_OPTIONS_INIT;
    return gt_abi_init(GT_ABI_OPTIONS, &defaults, o, version);
}

gt_status gt_tracker_options_check(const gt_options *opts, gt_error *err)
{
    if (!isfinite(opts->sleep_time) || opts->sleep_time < GT_SLEEP_TIME_MIN)
        return gt_err(err, GT_ERR_INVALID,
                      "sleep time of %g is invalid: must be at least %g seconds",
                      opts->sleep_time, GT_SLEEP_TIME_MIN);
    /* The next wake-up time must fit a time_t (1e19 s overflowed it into a
     * busy loop); a day between samples is already more than any use. */
    if (opts->sleep_time > GT_SLEEP_TIME_MAX)
        return gt_err(err, GT_ERR_INVALID, "sleep time of %g is invalid: must be at most %g seconds",
                      opts->sleep_time, GT_SLEEP_TIME_MAX);
    if ((unsigned)opts->ram_unit > GT_RAM_UNIT_TERABYTES || (unsigned)opts->gpu_ram_unit > GT_RAM_UNIT_TERABYTES)
        return gt_err(err, GT_ERR_INVALID, "invalid RAM unit: valid units are " GT_RAM_UNITS_VALID);
    if ((unsigned)opts->time_unit > GT_TIME_UNIT_DAYS)
        return gt_err(err, GT_ERR_INVALID, "invalid time unit: valid units are " GT_TIME_UNITS_VALID);
    if (opts->n_expected_cores < 0)
        return gt_err(err, GT_ERR_INVALID, "the number of expected cores must be positive");
    if (opts->gpu_brand != GT_GPU_AUTO && !gt_gpu_brand_name(opts->gpu_brand)) {
        char brands[256];
        gt_gpu_brand_list(brands, sizeof brands, ", ");
        return gt_err(err, GT_ERR_INVALID, "invalid GPU brand: valid brands are %s", brands);
    }
    if ((unsigned)opts->energy_unit > GT_ENERGY_UNIT_KILOWATT_HOURS)
        return gt_err(err, GT_ERR_INVALID, "invalid energy unit: valid units are " GT_ENERGY_UNITS_VALID);
    /* More than one core would let the walks outrun the sampling they serve. */
    if (opts->events != GT_EVENTS_AUTO && opts->events != GT_EVENTS_ON && opts->events != GT_EVENTS_OFF)
        return gt_err(err, GT_ERR_INVALID, "events of %d is invalid: valid are auto (0), on (1), off (2)",
                      opts->events);
    if (!(opts->walk_budget >= 0 && opts->walk_budget <= 1))
        return gt_err(err, GT_ERR_INVALID,
                      "walk_budget of %g is invalid: must be above 0 and at most 1 (a share of one core), "
                      "or 0 for the default 0.01",
                      opts->walk_budget);
    return GT_OK;
}
