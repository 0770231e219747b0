/* SPDX-License-Identifier: MIT */
/* The GPU vendor table (src/lib/gpu/vendors.h) and everything read from it:
 * each entry complete, the brands --gb takes numbered 1..n without gaps and
 * parsed and named both ways, and the lists that the library's error, the
 * CLI's error and --help give built from the table, so a new backend is
 * listed everywhere by its line in vendors.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "cli/track_options.h"
#include "gpu/backend.h"
#include "gpu/brands.h"
#include "gpu_tracker.h"

/* The brands' list as the test builds it from the table: "'a', 'b'" with
 * last_sep before the last. */
static void expected_list(char *buf, size_t size, const char *last_sep)
{
    size_t n = 0, k = 0;
    for (size_t j = 0; j < GT_GPU_N_VENDORS; j++)
        n += gt_gpu_vendors[j]->brand != GT_GPU_AUTO;
    buf[0] = '\0';
    for (size_t j = 0; j < GT_GPU_N_VENDORS; j++)
        if (gt_gpu_vendors[j]->brand != GT_GPU_AUTO) {
            size_t at = strlen(buf);
            snprintf(buf + at, size - at, "%s'%s'", k == 0 ? "" : k + 1 == n ? last_sep : ", ",
                     gt_gpu_vendors[j]->name);
            k++;
        }
}

static void test_every_entry_complete(void **state)
{
    (void)state;
    assert_true(GT_GPU_N_VENDORS >= 1);
    for (size_t k = 0; k < GT_GPU_N_VENDORS; k++) {
        const gt_gpu_vendor *v = gt_gpu_vendors[k];
        assert_non_null(v->name);
        assert_true(v->name[0] != '\0');
        assert_non_null(v->tool);
        assert_true(v->tool[0] != '\0');
        assert_non_null(v->init);
        assert_non_null(v->shutdown);
        assert_non_null(v->uuid);
        assert_non_null(v->memory_total);
        assert_non_null(v->memory_used);
        assert_non_null(v->utilization);
        assert_non_null(v->power);
        assert_non_null(v->energy);
        assert_non_null(v->processes);
        for (size_t j = 0; j < k; j++) {
            assert_true(strcmp(v->name, gt_gpu_vendors[j]->name) != 0);
            assert_true(v->brand == GT_GPU_AUTO || v->brand != gt_gpu_vendors[j]->brand);
        }
    }
}

static void test_brands_both_ways(void **state)
{
    (void)state;
    size_t n = 0;
    gt_gpu_brand last = GT_GPU_AUTO;
    for (size_t k = 0; k < GT_GPU_N_VENDORS; k++) {
        const gt_gpu_vendor *v = gt_gpu_vendors[k];
        gt_gpu_brand b = (gt_gpu_brand)-1;
        if (v->brand == GT_GPU_AUTO) {
            /* Detection only: --gb does not take its name. */
            assert_int_equal(gt_gpu_brand_parse(v->name, &b), GT_ERR_INVALID);
            continue;
        }
        n++;
        /* The table lists the brands in their enumerators' order, which is
         * the order the lists give them in. */
        assert_true(v->brand > last);
        last = v->brand;
        assert_int_equal(gt_gpu_brand_parse(v->name, &b), GT_OK);
        assert_int_equal(b, v->brand);
        assert_string_equal(gt_gpu_brand_name(v->brand), v->name);
    }
    /* Numbered 1..n without gaps: how the Python binding lists them. */
    for (size_t b = 1; b <= n; b++)
        assert_non_null(gt_gpu_brand_name((gt_gpu_brand)b));
    assert_null(gt_gpu_brand_name((gt_gpu_brand)(n + 1)));
    assert_null(gt_gpu_brand_name(GT_GPU_AUTO));
    gt_gpu_brand b;
    assert_int_equal(gt_gpu_brand_parse("", &b), GT_ERR_INVALID);
    assert_int_equal(gt_gpu_brand_parse("NVIDIA", &b), GT_ERR_INVALID);
    /* The Python package's two come first, with its numbers. */
    assert_string_equal(gt_gpu_brand_name(GT_GPU_NVIDIA), "nvidia");
    assert_string_equal(gt_gpu_brand_name(GT_GPU_AMD), "amd");
}

static void test_lists(void **state)
{
    (void)state;
    char want[256], got[256];
    expected_list(want, sizeof want, ", ");
    assert_int_equal(gt_gpu_brand_list(got, sizeof got, ", "), (int)strlen(want));
    assert_string_equal(got, want);
    assert_true(strncmp(got, "'nvidia', 'amd'", 15) == 0);
    expected_list(want, sizeof want, " or ");
    gt_gpu_brand_list(got, sizeof got, " or ");
    assert_string_equal(got, want);
    /* Cut to size, terminated, and the length it needs said. */
    char small[5];
    assert_true(gt_gpu_brand_list(small, sizeof small, ", ") >= (int)sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
}

static void test_messages_list_the_table(void **state)
{
    (void)state;
    size_t n = 0;
    while (gt_gpu_brand_name((gt_gpu_brand)(n + 1)))
        n++;
    char list[256], want[512];
    expected_list(list, sizeof list, ", ");

    /* The library refuses a number no backend has, naming every brand. */
    gt_options o = GT_OPTIONS_INIT;
    o.disable_logs = 1;
    o.gpu_brand = (gt_gpu_brand)(n + 1);
    gt_tracker *t = NULL;
    gt_error e = {0};
    assert_int_equal(gt_tracker_new(&o, &t, &e), GT_ERR_INVALID);
    snprintf(want, sizeof want, "invalid GPU brand: valid brands are %s", list);
    assert_string_equal(e.msg, want);

    /* --help gives the brands of the table where --gb's help says {brands}. */
    expected_list(list, sizeof list, " or ");
    size_t k = 0;
    while (k < gt_cli_track_n_opts && strcmp(gt_cli_track_opts[k].longname, "--gb"))
        k++;
    assert_true(k < gt_cli_track_n_opts);
    char help[1024];
    assert_int_equal(gt_cli_opt_help(&gt_cli_track_opts[k], "", help, sizeof help), 0);
    snprintf(want, sizeof want, "%s. Defaults to the brand detected, checking NVIDIA first.", list);
    assert_string_equal(help, want);
    /* A help cut to size says so. */
    assert_int_equal(gt_cli_opt_help(&gt_cli_track_opts[k], "", help, 8), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_entry_complete),
        cmocka_unit_test(test_brands_both_ways),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_messages_list_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
