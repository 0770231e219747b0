/* SPDX-License-Identifier: MIT */
/* A program of the library's users, built by tests/e2e/header.sh as C and as
 * C++ (-x c++) in each standard, with warnings as errors: every initializer
 * macro gives the values the library's own initializers give (the tracker's
 * options and each operation's), the units'
 * old names are aliases of the new (unless GT_NO_DEPRECATED), the scoped
 * marks compile and write their marks, and every function the header
 * declares is referenced (header_funcs.h, which the script writes from the
 * header), so that linking proves each is exported.  It prints the number of
 * functions it referenced, and exits 1 with a message for a wrong value. */
#include <stdio.h>
#include <string.h>

#include "gpu_tracker.h"
#include "header_funcs.h"

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "header_use: %s\n", what);
        failures++;
    }
}

/* GT_OPTIONS_INIT against gt_options_init(), field by field (every field up
 * to the struct version of the header). */
static void check_options(void)
{
    gt_options a = GT_OPTIONS_INIT;
    gt_options b;
    memset(&b, 0xff, sizeof b);
    check(gt_options_init(&b, GT_STRUCT_VERSION) == GT_OK, "gt_options_init failed");
    check(a.version == GT_STRUCT_VERSION && b.version == GT_STRUCT_VERSION, "gt_options version");
    check(a.sleep_time == b.sleep_time && a.sleep_time == 1.0, "sleep_time");
    check(a.ram_unit == b.ram_unit && a.gpu_ram_unit == b.gpu_ram_unit && a.time_unit == b.time_unit,
          "units");
    check(a.n_expected_cores == b.n_expected_cores && a.gpu_uuids == b.gpu_uuids, "cores, GPUs");
    check(a.disable_logs == b.disable_logs && a.gpu_brand == b.gpu_brand, "logs, brand");
    check(a.tracking_file == b.tracking_file && a.overwrite == b.overwrite, "tracking file");
    check(a.process_id == b.process_id && a.tree_root == b.tree_root, "processes");
    check(a.log == b.log && a.log_ctx == b.log_ctx, "log");
    check(a.energy_unit == b.energy_unit, "energy_unit");
    check(a.on_timepoint == b.on_timepoint && a.on_timepoint_ctx == b.on_timepoint_ctx, "on_timepoint");
    check(a.per_process == b.per_process && a.per_gpu == b.per_gpu && a.walk_budget == b.walk_budget,
          "version 2 fields");
    check(a.events == b.events, "version 3 fields");
}

/* Each operation's GT_<OP>_OPTIONS_INIT against its gt_<op>_options_init(),
 * field by field, and the defaults the header documents. */
static void check_operation_options(void)
{
    gt_analyze_options aa = GT_ANALYZE_OPTIONS_INIT, ab;
    memset(&ab, 0xff, sizeof ab);
    check(gt_analyze_options_init(&ab, GT_STRUCT_VERSION) == GT_OK, "gt_analyze_options_init failed");
    check(aa.version == GT_STRUCT_VERSION && ab.version == GT_STRUCT_VERSION, "gt_analyze_options version");
    check(aa.sub_tracking_file == NULL && ab.sub_tracking_file == NULL && aa.host == NULL && ab.host == NULL,
          "gt_analyze_options defaults");

    gt_plot_options pa = GT_PLOT_OPTIONS_INIT, pb;
    memset(&pb, 0xff, sizeof pb);
    check(gt_plot_options_init(&pb, GT_STRUCT_VERSION) == GT_OK, "gt_plot_options_init failed");
    check(pa.version == GT_STRUCT_VERSION && pb.version == GT_STRUCT_VERSION, "gt_plot_options version");
    check(pa.sub_tracking_file == NULL && pb.sub_tracking_file == NULL && pa.host == NULL && pb.host == NULL,
          "gt_plot_options defaults");

    gt_merge_options ma = GT_MERGE_OPTIONS_INIT, mb;
    memset(&mb, 0xff, sizeof mb);
    check(gt_merge_options_init(&mb, GT_STRUCT_VERSION) == GT_OK, "gt_merge_options_init failed");
    check(ma.version == GT_STRUCT_VERSION && mb.version == GT_STRUCT_VERSION, "gt_merge_options version");
    check(ma.align_seconds == 1.0 && mb.align_seconds == 1.0, "gt_merge_options defaults");

    gt_compare_options ca = GT_COMPARE_OPTIONS_INIT, cb;
    memset(&cb, 0xff, sizeof cb);
    check(gt_compare_options_init(&cb, GT_STRUCT_VERSION) == GT_OK, "gt_compare_options_init failed");
    check(ca.version == GT_STRUCT_VERSION && cb.version == GT_STRUCT_VERSION, "gt_compare_options version");
    check(ca.statistic == NULL && cb.statistic == NULL && ca.log == NULL && cb.log == NULL && ca.log_ctx == NULL &&
              cb.log_ctx == NULL,
          "gt_compare_options defaults");
}

/* The units' names without their type's prefix: deprecated aliases of the
 * same values, left out under GT_NO_DEPRECATED. */
static void check_aliases(void)
{
#ifndef GT_NO_DEPRECATED
    check(GT_BYTES == GT_RAM_UNIT_BYTES && GT_KILOBYTES == GT_RAM_UNIT_KILOBYTES &&
              GT_MEGABYTES == GT_RAM_UNIT_MEGABYTES && GT_GIGABYTES == GT_RAM_UNIT_GIGABYTES &&
              GT_TERABYTES == GT_RAM_UNIT_TERABYTES,
          "RAM unit aliases");
    check(GT_SECONDS == GT_TIME_UNIT_SECONDS && GT_MINUTES == GT_TIME_UNIT_MINUTES && GT_HOURS == GT_TIME_UNIT_HOURS &&
              GT_DAYS == GT_TIME_UNIT_DAYS,
          "time unit aliases");
    check(GT_JOULES == GT_ENERGY_UNIT_JOULES && GT_KILOJOULES == GT_ENERGY_UNIT_KILOJOULES &&
              GT_WATT_HOURS == GT_ENERGY_UNIT_WATT_HOURS && GT_KILOWATT_HOURS == GT_ENERGY_UNIT_KILOWATT_HOURS,
          "energy unit aliases");
    gt_ram_unit r = GT_GIGABYTES; /* an alias has its enum's type */
    check(r == GT_RAM_UNIT_GIGABYTES, "an alias as a gt_ram_unit");
#elif defined(GT_BYTES) || defined(GT_SECONDS) || defined(GT_JOULES) || defined(GT_KILOWATT_HOURS)
#error "GT_NO_DEPRECATED leaves the aliases defined"
#endif
    check(strcmp(gt_ram_unit_name(GT_RAM_UNIT_TERABYTES), "terabytes") == 0 &&
              strcmp(gt_time_unit_name(GT_TIME_UNIT_DAYS), "days") == 0 &&
              strcmp(gt_energy_unit_name(GT_ENERGY_UNIT_KILOWATT_HOURS), "kilowatt-hours") == 0,
          "unit names");
}

static void check_results(void)
{
    gt_usage u = GT_USAGE_INIT;
    check(u.version == GT_STRUCT_VERSION, "GT_USAGE_INIT version");
    check(u.n_samples == 0 && u.max_ram.unit == NULL && u.energy.unit == NULL && u.energy.n_domains == 0,
          "GT_USAGE_INIT figures");
    check(u.ram_unavailable[0] == '\0' && u.max_ram_method.reason[0] == '\0', "GT_USAGE_INIT texts");

    gt_timepoint tp = GT_TIMEPOINT_INIT;
    check(tp.version == GT_STRUCT_VERSION, "GT_TIMEPOINT_INIT version");
    check(tp.n_samples == 0 && tp.gpu_valid == 0 && tp.cpu_valid == 0 && tp.n_gpus == 0 &&
              tp.gpus[0].uuid[0] == '\0',
          "GT_TIMEPOINT_INIT figures");
}

/* Marks of one block each way: GT_SUBTRACK_SCOPE / GT_SUBTRACK_FUNCTION
 * where the compiler has the cleanup attribute, and the pair of calls that
 * does the same with every compiler. */
#if defined(__GNUC__)
static void scoped(gt_subtracker *s)
{
    GT_SUBTRACK_FUNCTION(s);
    {
        GT_SUBTRACK_SCOPE(s, "scope");
    }
}
#endif

static void check_marks(void)
{
    gt_subtracker *s = NULL;
    gt_error err;
    if (gt_subtracker_open("marks.csv", 1, &s, &err) != GT_OK) {
        check(0, err.msg);
        return;
    }
#if defined(__GNUC__)
    scoped(s);
#endif
    gt_subtrack_scope scope = gt_subtrack_scope_begin(s, "by hand", NULL, NULL);
    gt_subtrack_scope_end(&scope);
    check(gt_subtracker_status(s, &err) == GT_OK, err.msg);
    gt_subtracker_free(&s);
    check(s == NULL, "gt_subtracker_free");
}

int main(void)
{
    check(strcmp(gt_version(), GT_VERSION) == 0, "gt_version() is not GT_VERSION");
    check_options();
    check_operation_options();
    check_aliases();
    check_results();
    check_marks();
    size_t n = 0;
    for (size_t i = 0; i < sizeof gt_header_funcs / sizeof gt_header_funcs[0]; i++)
        n += gt_header_funcs[i] != NULL;
    printf("%zu\n", n);
    return failures ? 1 : 0;
}
