/* SPDX-License-Identifier: MIT */
/* Reports as strings (src/lib/report/to_string.c): byte for byte what the *_write
 * functions print, and the string released by gt_string_free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker.h"

/* What write(obj, fmt, FILE *) prints, as a malloc'd string. */
#define WRITTEN(write, obj, fmt, out)                                  \
    do {                                                               \
        size_t len_ = 0;                                               \
        FILE *f_ = open_memstream(&(out), &len_);                      \
        assert_non_null(f_);                                           \
        assert_int_equal(write((obj), (fmt), f_), GT_OK);              \
        assert_int_equal(fclose(f_), 0);                               \
    } while (0)

static void usage_string_is_the_report(void **state)
{
    (void)state;
    gt_options o;
    gt_options_init(&o, GT_STRUCT_VERSION);
    o.sleep_time = 0.01;
    o.disable_logs = 1;
    o.ram_unit = GT_RAM_UNIT_MEGABYTES;
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    for (int fmt = GT_FORMAT_TEXT; fmt <= GT_FORMAT_JSON; fmt++) {
        char *expected = NULL, *s = NULL;
        WRITTEN(gt_usage_write, &u, (gt_format)fmt, expected);
        assert_int_equal(gt_usage_string(&u, (gt_format)fmt, &s), GT_OK);
        assert_string_equal(s, expected);
        const char *start = fmt == GT_FORMAT_TEXT ? "Max RAM:\n   Unit: megabytes\n" : "{\n \"max_ram\": {";
        assert_true(strncmp(s, start, strlen(start)) == 0);
        gt_string_free(&s);
        assert_null(s);
        free(expected);
    }
    gt_string_free(NULL); /* accepted, as every release function */
    gt_tracker_free(&t);
}

static void comparison_string_is_the_report(void **state)
{
    (void)state;
    const char *d = getenv("GT_REF");
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/comparison/results-F.json", d ? d : "tests/fixtures/reference");
    snprintf(b, sizeof b, "%s/comparison/results-G.json", d ? d : "tests/fixtures/reference");
    const char *names[] = {"F", "G"}, *files[] = {a, b};
    gt_comparison *c;
    gt_error err;
    assert_int_equal(gt_compare(names, files, 2, NULL, &c, &err), GT_OK);
    for (int fmt = GT_FORMAT_TEXT; fmt <= GT_FORMAT_JSON; fmt++) {
        char *expected = NULL, *s = NULL;
        WRITTEN(gt_comparison_write, c, (gt_format)fmt, expected);
        assert_int_equal(gt_comparison_string(c, (gt_format)fmt, &s), GT_OK);
        assert_string_equal(s, expected);
        assert_true(strlen(s) > 100);
        gt_string_free(&s);
        free(expected);
    }
    gt_comparison_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(usage_string_is_the_report),
        cmocka_unit_test(comparison_string_is_the_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
