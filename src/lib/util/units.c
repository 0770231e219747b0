/* SPDX-License-Identifier: MIT */
#include "gpu_tracker.h"
#include "util/units.h"

#include <string.h>

static const char *const ram_names[] = {"bytes", "kilobytes", "megabytes",
                                        "gigabytes", "terabytes"};
static const char *const time_names[] = {"seconds", "minutes", "hours", "days"};
/* The Python package multiplies by a coefficient (1 / 1e6, ...) and sums
 * converted parts (total = private + shared, each converted): doing the same
 * keeps every last digit identical. */
static const double ram_div[] = {1.0, 1e3, 1e6, 1e9, 1e12};
static const double time_div[] = {1.0, 60.0, 3600.0, 86400.0};
/* GPU RAM: the Python package reads megabytes from the vendor tool and
 * multiplies by these (its own constants, e.g. 1 / 1e3 for gigabytes). */
static const double gpu_coef[] = {1e6, 1e3, 1.0, 1.0 / 1e3, 1.0 / 1e6};
static const char *const energy_names[] = {"joules", "kilojoules", "watt-hours",
                                           "kilowatt-hours"};
static const double energy_div[] = {1.0, 1e3, 3600.0, 3.6e6};

const char *gt_ram_unit_name(gt_ram_unit u)
{
    return (unsigned)u < 5 ? ram_names[u] : "?";
}

const char *gt_time_unit_name(gt_time_unit u)
{
    return (unsigned)u < 4 ? time_names[u] : "?";
}

gt_status gt_ram_unit_parse(const char *s, gt_ram_unit *out)
{
    if (!out)
        return GT_ERR_INVALID;
    for (int i = 0; s && i < 5; i++)
        if (strcmp(s, ram_names[i]) == 0) {
            *out = (gt_ram_unit)i;
            return GT_OK;
        }
    return GT_ERR_INVALID;
}

gt_status gt_time_unit_parse(const char *s, gt_time_unit *out)
{
    if (!out)
        return GT_ERR_INVALID;
    for (int i = 0; s && i < 4; i++)
        if (strcmp(s, time_names[i]) == 0) {
            *out = (gt_time_unit)i;
            return GT_OK;
        }
    return GT_ERR_INVALID;
}

double gt_ram_in_unit(double bytes, gt_ram_unit u)
{
    return bytes * (1.0 / ram_div[(unsigned)u < 5 ? u : 0]);
}

double gt_time_in_unit(double seconds, gt_time_unit u)
{
    return seconds * (1.0 / time_div[(unsigned)u < 4 ? u : 0]);
}

double gt_gpu_ram_in_unit(double bytes, gt_ram_unit u)
{
    return bytes / 1e6 * gpu_coef[(unsigned)u < 5 ? u : 0];
}

const char *gt_energy_unit_name(gt_energy_unit u)
{
    return (unsigned)u < 4 ? energy_names[u] : "?";
}

gt_status gt_energy_unit_parse(const char *s, gt_energy_unit *out)
{
    if (!out)
        return GT_ERR_INVALID;
    for (int i = 0; s && i < 4; i++)
        if (strcmp(s, energy_names[i]) == 0) {
            *out = (gt_energy_unit)i;
            return GT_OK;
        }
    return GT_ERR_INVALID;
}

double gt_energy_in_unit(double joules, gt_energy_unit u)
{
    return joules / energy_div[(unsigned)u < 4 ? u : 0];
}

double gt_parse_count(const char *s, size_t len)
{
    if (!s || len == 0 || len > 16)
        return -1;
    double v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= 9007199254740992.0 ? v : -1;
}
