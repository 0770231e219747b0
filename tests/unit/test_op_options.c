/* SPDX-License-Identifier: MIT */
/* The options of each operation (gt_analyze_options, gt_plot_options,
 * gt_merge_options, gt_compare_options): their initializers give the
 * documented defaults in the fields of the version asked for and nothing
 * past them, a struct of no known version (0, older than the struct, newer
 * than the library) is refused by the initializer and by the operation
 * with a message that names the struct, and the fields the program sets are
 * the ones the operation uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "tmpdir.h"

static char root[PATH_MAX]; /* the checkout: the fixtures */

static const char *fixture(const char *rel)
{
    static char paths[4][PATH_MAX + 128];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/tests/fixtures/reference/%s", root, rel);
    return p;
}

static void expect_message(const gt_error *e, const char *part)
{
    if (!strstr(e->msg, part))
        fail_msg("message '%s' lacks '%s'", e->msg, part);
}

/* Canary bytes on every field: the initializer must set each one. */
#define CANARY(x) memset(&(x), 0xa5, sizeof(x))

static void test_defaults(void **state)
{
    (void)state;
    gt_analyze_options a;
    CANARY(a);
    assert_int_equal(gt_analyze_options_init(&a, GT_STRUCT_VERSION), GT_OK);
    assert_int_equal(a.version, GT_STRUCT_VERSION);
    assert_null(a.sub_tracking_file);
    assert_null(a.host);

    gt_plot_options p;
    CANARY(p);
    assert_int_equal(gt_plot_options_init(&p, GT_STRUCT_VERSION), GT_OK);
    assert_int_equal(p.version, GT_STRUCT_VERSION);
    assert_null(p.sub_tracking_file);
    assert_null(p.host);

    gt_merge_options m;
    CANARY(m);
    assert_int_equal(gt_merge_options_init(&m, GT_STRUCT_VERSION), GT_OK);
    assert_int_equal(m.version, GT_STRUCT_VERSION);
    assert_true(m.align_seconds == 1.0);

    gt_compare_options c;
    CANARY(c);
    assert_int_equal(gt_compare_options_init(&c, GT_STRUCT_VERSION), GT_OK);
    assert_int_equal(c.version, GT_STRUCT_VERSION);
    assert_null(c.statistic);
    assert_null(c.log);
    assert_null(c.log_ctx);
}

/* An unknown version writes the version alone, so that the operation can
 * say what is wrong; nothing else of the program's memory is touched. */
static void test_init_unknown_versions(void **state)
{
    (void)state;
    const unsigned int bad[] = {0, 3, GT_STRUCT_VERSION + 1};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gt_merge_options m;
        CANARY(m);
        assert_int_equal(gt_merge_options_init(&m, bad[i]), GT_ERR_INVALID);
        assert_int_equal(m.version, bad[i]);
        unsigned char canary[sizeof m.align_seconds];
        memset(canary, 0xa5, sizeof canary);
        assert_memory_equal(&m.align_seconds, canary, sizeof canary);
        gt_analyze_options a;
        assert_int_equal(gt_analyze_options_init(&a, bad[i]), GT_ERR_INVALID);
        gt_plot_options p;
        assert_int_equal(gt_plot_options_init(&p, bad[i]), GT_ERR_INVALID);
        gt_compare_options c;
        assert_int_equal(gt_compare_options_init(&c, bad[i]), GT_ERR_INVALID);
    }
}

/* Each operation refuses options of an unknown version, naming them. */
static void test_operations_refuse_unknown_versions(void **state)
{
    (void)state;
    const char *tf = fixture("sub-tracking/tracking.csv");
    const char *names[] = {"A", "B"};
    const char *files[] = {fixture("comparison/results-A.json"), fixture("comparison/results-B.json")};
    const struct {
        unsigned int version;
        const char *says;
    } bad[] = {
        {0, "has version 0: it was not initialised"},
        {3, "has version 3, older than the struct (version 4"},
        {GT_STRUCT_VERSION + 1, "newer than this library's"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gt_error e = {{0}};
        gt_results *r = NULL;
        gt_analyze_options a = GT_ANALYZE_OPTIONS_INIT;
        a.version = bad[i].version;
        assert_int_equal(gt_analyze(tf, &a, &r, &e), GT_ERR_INVALID);
        assert_null(r);
        expect_message(&e, "gt_analyze_options");
        expect_message(&e, bad[i].says);

        gt_plot_options p = GT_PLOT_OPTIONS_INIT;
        p.version = bad[i].version;
        assert_int_equal(gt_plot_write(tf, "p.svg", &p, &e), GT_ERR_INVALID);
        expect_message(&e, "gt_plot_options");
        expect_message(&e, bad[i].says);
        assert_int_equal(access("p.svg", F_OK), -1);

        gt_merge *m = NULL;
        gt_merge_options mo = GT_MERGE_OPTIONS_INIT;
        mo.version = bad[i].version;
        assert_int_equal(gt_merge_files(&tf, 1, &mo, &m, &e), GT_ERR_INVALID);
        assert_null(m);
        expect_message(&e, "gt_merge_options");
        expect_message(&e, bad[i].says);

        gt_comparison *c = NULL;
        gt_compare_options co = GT_COMPARE_OPTIONS_INIT;
        co.version = bad[i].version;
        assert_int_equal(gt_compare(names, files, 2, &co, &c, &e), GT_ERR_INVALID);
        assert_null(c);
        expect_message(&e, "gt_compare_options");
        expect_message(&e, bad[i].says);
    }
}

static void quiet(void *ctx, const char *msg)
{
    (void)msg;
    ++*(int *)ctx;
}

/* The fields the program sets are read: a grid step below the minimum, a
 * statistic no one knows and a host without marks are refused; the
 * comparison's statistic and log reach it. */
static void test_fields_are_used(void **state)
{
    (void)state;
    const char *tf = fixture("sub-tracking/tracking.csv"), *stf = fixture("sub-tracking/sub-tracking.csv");
    gt_error e = {{0}};

    gt_merge *m = NULL;
    gt_merge_options mo = GT_MERGE_OPTIONS_INIT;
    mo.align_seconds = 0.0001;
    assert_int_equal(gt_merge_files(&tf, 1, &mo, &m, &e), GT_ERR_INVALID);
    expect_message(&e, "invalid grid step 0.0001");

    gt_results *r = NULL;
    gt_analyze_options a = GT_ANALYZE_OPTIONS_INIT;
    a.sub_tracking_file = stf;
    a.host = "no-such-host";
    assert_int_equal(gt_analyze(tf, &a, &r, &e), GT_ERR_INVALID);
    expect_message(&e, "no-such-host");

    gt_plot_options p = GT_PLOT_OPTIONS_INIT;
    p.sub_tracking_file = stf;
    p.host = "no-such-host";
    assert_int_equal(gt_plot_write(tf, "p.svg", &p, &e), GT_ERR_INVALID);
    expect_message(&e, "no-such-host");

    const char *names[] = {"A", "B"};
    const char *files[] = {fixture("comparison/results-A.json"), fixture("comparison/results-B.json")};
    gt_comparison *c = NULL;
    gt_compare_options co = GT_COMPARE_OPTIONS_INIT;
    co.statistic = "median";
    assert_int_equal(gt_compare(names, files, 2, &co, &c, &e), GT_ERR_INVALID);
    expect_message(&e, "invalid statistic 'median'");

    /* The default statistic is the mean: the same comparison as asking. */
    int logged = 0;
    co.statistic = NULL;
    co.log = quiet;
    co.log_ctx = &logged;
    char *by_default = NULL, *by_mean = NULL, *by_max = NULL;
    assert_int_equal(gt_compare(names, files, 2, &co, &c, &e), GT_OK);
    assert_int_equal(gt_comparison_string(c, GT_FORMAT_JSON, &by_default), GT_OK);
    gt_comparison_free(&c);
    co.statistic = "mean";
    assert_int_equal(gt_compare(names, files, 2, &co, &c, &e), GT_OK);
    assert_int_equal(gt_comparison_string(c, GT_FORMAT_JSON, &by_mean), GT_OK);
    gt_comparison_free(&c);
    co.statistic = "max";
    assert_int_equal(gt_compare(names, files, 2, &co, &c, &e), GT_OK);
    assert_int_equal(gt_comparison_string(c, GT_FORMAT_JSON, &by_max), GT_OK);
    gt_comparison_free(&c);
    assert_string_equal(by_default, by_mean);
    assert_string_not_equal(by_mean, by_max);
    gt_string_free(&by_default);
    gt_string_free(&by_mean);
    gt_string_free(&by_max);
}

int main(void)
{
    if (!getcwd(root, sizeof root))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_init_unknown_versions),
        cmocka_unit_test(test_operations_refuse_unknown_versions),
        cmocka_unit_test(test_fields_are_used),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
