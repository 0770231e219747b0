/* SPDX-License-Identifier: MIT */
/* Results read the stable way: gt_tracker_report gives the report the
 * library writes for the usage (byte for byte what gt_report_string writes
 * for a gt_usage of this version and the run's own metrics, whatever the
 * version of the tracker's options), and gt_tracker_figure one figure of
 * its JSON by its path: equal to the struct's field or the own metric's
 * figure, which no struct has, NaN for an unavailable (null) figure, and
 * an error naming a path the report does not have or that is not a
 * number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker.h"
#include "report/usage_write.h"
#include "tracker/owner.h"

static gt_tracker *new_tracker(unsigned int version, double sleep_time)
{
    gt_options o;
    assert_int_equal(gt_options_init(&o, version), GT_OK);
    o.disable_logs = 1;
    o.sleep_time = sleep_time;
    gt_tracker *t = NULL;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    return t;
}

static void expect_message(const gt_error *e, const char *part)
{
    if (!strstr(e->msg, part))
        fail_msg("message '%s' lacks '%s'", e->msg, part);
}

/* After the stop the figures are final: the report is the struct's, in
 * both formats, and each figure read by its path is the struct's field.
 * The tracker's options are of version 1, whose gt_usage has fewer
 * figures: the report still has all of this version's. */
static void test_report_and_figures(void **state)
{
    (void)state;
    gt_tracker *t = new_tracker(1, 0.01);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    char *keep = malloc(8 << 20);
    assert_non_null(keep);
    memset(keep, 1, 8 << 20);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    free(keep);

    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    gt_usage all;
    gt_metric_run own;
    assert_int_equal(gt_tracker_results(t, &all, &own, NULL), GT_OK);
    for (int fmt = GT_FORMAT_TEXT; fmt <= GT_FORMAT_JSON; fmt++) {
        char *report = NULL, *expected = NULL;
        gt_error e = {{0}};
        assert_int_equal(gt_tracker_report(t, (gt_format)fmt, &report, &e), GT_OK);
        assert_int_equal(gt_report_string(&u, &own, (gt_format)fmt, &expected), GT_OK);
        assert_string_equal(report, expected);
        gt_string_free(&report);
        gt_string_free(&expected);
    }
    /* A section of version 3, which the tracker's version-1 usage lacks. */
    char *json = NULL;
    assert_int_equal(gt_tracker_report(t, GT_FORMAT_JSON, &json, NULL), GT_OK);
    assert_non_null(strstr(json, "\"max_ram_method\": {"));
    gt_usage *old = NULL;
    assert_int_equal(gt_tracker_usage_new(t, &old, NULL), GT_OK);
    char *old_json = NULL;
    assert_int_equal(gt_usage_string(old, GT_FORMAT_JSON, &old_json), GT_OK);
    assert_null(strstr(old_json, "\"max_ram_method\": {"));
    gt_string_free(&old_json);
    gt_usage_free(&old);
    gt_string_free(&json);

    const struct {
        const char *path;
        double want;
    } figures[] = {
        {"max_ram.main.total_rss", u.max_ram.main.total_rss},
        {"max_ram.combined.private_rss", u.max_ram.combined.private_rss},
        {"max_ram.system_capacity", u.max_ram.system_capacity},
        {"max_gpu_ram.main", u.max_gpu_ram.main},
        {"cpu_utilization.system_core_count", u.cpu_utilization.system_core_count},
        {"cpu_utilization.main.mean_sum_percent", u.cpu_utilization.main.mean_sum_percent},
        {"cpu_utilization.main_n_threads", u.cpu_utilization.main_n_threads},
        {"gpu_utilization.gpu_percentages.max_hardware_percent",
         u.gpu_utilization.gpu_percentages.max_hardware_percent},
        {"compute_time.time", u.compute_time.time},
        {"peak_ram.main", u.peak_ram.main},
    };
    assert_true(u.max_ram.main.total_rss > 0);
    /* The tracker's own counters: /proc/self/io is ours to read. */
    const gt_metric_column *c;
    for (int k = 0; (c = gt_metric_own_column(k, NULL)) != NULL; k++) {
        const gt_metric *m;
        gt_metric_own_column(k, &m);
        if (!m->label || isnan(own.value[k]) || strncmp(c->name, "main_", 5))
            continue;
        char path[160];
        snprintf(path, sizeof path, "other_metrics.%s.%s", m->id, c->label ? c->label : c->name);
        double v = -1;
        gt_error e = {{0}};
        if (gt_tracker_figure(t, path, &v, &e) != GT_OK)
            fail_msg("%s: %s", path, e.msg);
        if (v != own.value[k])
            fail_msg("%s: %.17g, the run has %.17g", path, v, own.value[k]);
    }
    assert_false(isnan(own.value[0]));
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++) {
        double v = -1;
        gt_error e = {{0}};
        if (gt_tracker_figure(t, figures[i].path, &v, &e) != GT_OK)
            fail_msg("%s: %s", figures[i].path, e.msg);
        if (v != figures[i].want)
            fail_msg("%s: %.17g, the struct has %.17g", figures[i].path, v, figures[i].want);
    }
    gt_tracker_free(&t);
}

/* A single sample closes no interval: the CPU percents are null in the
 * report, NaN here, never 0. */
static void test_unavailable_is_nan(void **state)
{
    (void)state;
    gt_tracker *t = new_tracker(GT_STRUCT_VERSION, 3600);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    double v = 0;
    assert_int_equal(gt_tracker_figure(t, "cpu_utilization.main.max_sum_percent", &v, NULL), GT_OK);
    assert_true(isnan(v));
    assert_int_equal(gt_tracker_figure(t, "max_ram.main.total_rss", &v, NULL), GT_OK);
    assert_true(v > 0);
    gt_tracker_free(&t);
}

static void test_errors(void **state)
{
    (void)state;
    gt_tracker *t = new_tracker(GT_STRUCT_VERSION, 0.01);
    gt_error e = {{0}};
    double v = 0;
    char *s = (char *)&e;
    assert_int_equal(gt_tracker_report(t, GT_FORMAT_JSON, &s, &e), GT_ERR_STATE);
    assert_null(s);
    expect_message(&e, "tracking has not started");
    assert_int_equal(gt_tracker_figure(t, "compute_time.time", &v, &e), GT_ERR_STATE);
    assert_true(isnan(v));
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);

    const struct {
        const char *path, *says;
    } bad[] = {
        {"max_ram.main.nothing", "figure 'max_ram.main.nothing': the report has no 'max_ram.main.nothing'"},
        {"no_section.x", "the report has no 'no_section'"},
        {"max_ram.main.total_rss.more", "the report has no 'max_ram.main.total_rss.more'"},
        {"max_ram..main", "an empty key"},
        {"", "an empty key"},
        {"max_ram.", "an empty key"},
        {"max_ram.unit", "figure 'max_ram.unit' is not a number but text"},
        {"max_ram.main", "figure 'max_ram.main' is not a number but a section of the report"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = 0;
        assert_int_equal(gt_tracker_figure(t, bad[i].path, &v, &e), GT_ERR_INVALID);
        assert_true(isnan(v));
        expect_message(&e, bad[i].says);
    }
    assert_int_equal(gt_tracker_report(t, (gt_format)7, &s, &e), GT_ERR_INVALID);
    assert_null(s);
    expect_message(&e, "report format 7");
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    gt_tracker_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_and_figures),
        cmocka_unit_test(test_unavailable_is_nan),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
