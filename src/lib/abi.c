/* SPDX-License-Identifier: MIT */
/* Sizes of the public structs in each struct version, and the copies between
 * a program's struct and the library's.  A version's size is the end of its
 * last field, not sizeof: the next version's first field may lie in the tail
 * padding, or past it where it needs a larger alignment. */
#include <string.h>

#include "abi.h"
#include "util/error.h"

/* Every version starts with the version: it is read before anything else. */
_Static_assert(offsetof(gt_options, version) == 0, "gt_options starts with its version");
_Static_assert(offsetof(gt_timepoint, version) == 0, "gt_timepoint starts with its version");
_Static_assert(offsetof(gt_usage, version) == 0, "gt_usage starts with its version");
_Static_assert(offsetof(gt_analyze_options, version) == 0, "gt_analyze_options starts with its version");
_Static_assert(offsetof(gt_merge_options, version) == 0, "gt_merge_options starts with its version");
_Static_assert(offsetof(gt_compare_options, version) == 0, "gt_compare_options starts with its version");
_Static_assert(offsetof(gt_plot_options, version) == 0, "gt_plot_options starts with its version");

/* [N]: the size in version N, for the versions in which the struct changed;
 * a version without an entry has its predecessor's size, and one before
 * the struct's first entry is not a version of it.  Adding a field
 * of version N to a struct adds its [N] here (see gpu_tracker.h). */
static const size_t options_sizes[GT_STRUCT_VERSION + 1] = {
    [1] = GT_END_OF(gt_options, on_timepoint_ctx),
    [2] = GT_END_OF(gt_options, walk_budget), /* per_process, per_gpu, walk_budget */
    [3] = GT_END_OF(gt_options, events),
};
static const size_t timepoint_sizes[GT_STRUCT_VERSION + 1] = {
    [1] = GT_END_OF(gt_timepoint, combined_n_threads),
    [2] = GT_END_OF(gt_timepoint, combined_ram_unavailable), /* the *_ram_unavailable flags */
};
static const size_t usage_sizes[GT_STRUCT_VERSION + 1] = {
    [1] = GT_END_OF(gt_usage, ram_unavailable),
    [2] = GT_END_OF(gt_usage, dram_memory_share), /* top_processes, dram_memory_share */
    [3] = GT_END_OF(gt_usage, cgroup), /* max_ram_method, cgroup */
};
/* The operations' options, new in version 4. */
static const size_t analyze_options_sizes[GT_STRUCT_VERSION + 1] = {
    [4] = GT_END_OF(gt_analyze_options, host),
};
static const size_t merge_options_sizes[GT_STRUCT_VERSION + 1] = {
    [4] = GT_END_OF(gt_merge_options, align_seconds),
};
static const size_t compare_options_sizes[GT_STRUCT_VERSION + 1] = {
    [4] = GT_END_OF(gt_compare_options, log_ctx),
};
static const size_t plot_options_sizes[GT_STRUCT_VERSION + 1] = {
    [4] = GT_END_OF(gt_plot_options, host),
};

static const struct {
    const char *name;
    const size_t *sizes;
    const char *init; /* how a program sets the version */
} structs[] = {
    [GT_ABI_OPTIONS] = {"gt_options", options_sizes, "GT_OPTIONS_INIT or gt_options_init()"},
    [GT_ABI_TIMEPOINT] = {"gt_timepoint", timepoint_sizes, "GT_TIMEPOINT_INIT"},
    [GT_ABI_USAGE] = {"gt_usage", usage_sizes, "GT_USAGE_INIT"},
    [GT_ABI_ANALYZE_OPTIONS] = {"gt_analyze_options", analyze_options_sizes,
                                "GT_ANALYZE_OPTIONS_INIT or gt_analyze_options_init()"},
    [GT_ABI_MERGE_OPTIONS] = {"gt_merge_options", merge_options_sizes,
                              "GT_MERGE_OPTIONS_INIT or gt_merge_options_init()"},
    [GT_ABI_COMPARE_OPTIONS] = {"gt_compare_options", compare_options_sizes,
                                "GT_COMPARE_OPTIONS_INIT or gt_compare_options_init()"},
    [GT_ABI_PLOT_OPTIONS] = {"gt_plot_options", plot_options_sizes, "GT_PLOT_OPTIONS_INIT or gt_plot_options_init()"},
};

size_t gt_abi_size(gt_abi_struct s, unsigned int version)
{
    if (version > GT_STRUCT_VERSION)
        return 0;
    while (version > 0 && !structs[s].sizes[version])
        version--;
    return structs[s].sizes[version]; /* [0] is 0 */
}

/* The version that introduced the struct: its first entry. */
static unsigned int first_version(gt_abi_struct s)
{
    unsigned int v = 1;
    while (!structs[s].sizes[v])
        v++;
    return v;
}

gt_status gt_abi_check(gt_abi_struct s, unsigned int version, gt_error *err)
{
    if (version == 0)
        return gt_err(err, GT_ERR_INVALID, "%s has version 0: it was not initialised (use %s)", structs[s].name,
                      structs[s].init);
    if (version > GT_STRUCT_VERSION)
        return gt_err(err, GT_ERR_INVALID,
                      "%s has version %u, newer than this library's %u: the program was built with the header "
                      "of a later gpu-tracker than libgputracker %s (use a library at least as new as that header)",
                      structs[s].name, version, (unsigned)GT_STRUCT_VERSION, gt_version());
    if (gt_abi_size(s, version) == 0)
        return gt_err(err, GT_ERR_INVALID, "%s has version %u, older than the struct (version %u; use %s)",
                      structs[s].name, version, first_version(s), structs[s].init);
    return GT_OK;
}

void gt_abi_read(gt_abi_struct s, const void *in, void *full)
{
    unsigned int version;
    memcpy(&version, in, sizeof version); /* every version starts with it */
    memcpy(full, in, gt_abi_size(s, version));
    unsigned int current = GT_STRUCT_VERSION;
    memcpy(full, &current, sizeof current);
}

void gt_abi_write(gt_abi_struct s, const void *full, void *out, unsigned int out_version)
{
    memcpy(out, full, gt_abi_size(s, out_version));
    memcpy(out, &out_version, sizeof out_version);
}

gt_status gt_abi_init(gt_abi_struct s, const void *defaults, void *out, unsigned int version)
{
    if (!out)
        return GT_ERR_INVALID;
    /* Only the fields of the program's version: its struct may be smaller
     * than this library's. */
    if (gt_abi_size(s, version) == 0) {
        memcpy(out, &version, sizeof version); /* for the operation's message */
        return GT_ERR_INVALID;
    }
    gt_abi_write(s, defaults, out, version);
    return GT_OK;
}

gt_status gt_abi_take(gt_abi_struct s, const void *in, const void *defaults, void *full, size_t size,
                      gt_error *err)
{
    memcpy(full, defaults, size);
    if (!in)
        return GT_OK;
    unsigned int version;
    memcpy(&version, in, sizeof version);
    gt_status st = gt_abi_check(s, version, err);
    if (st == GT_OK)
        gt_abi_read(s, in, full);
    return st;
}
