/* SPDX-License-Identifier: MIT */
/* When an unchanged process's page tables are walked again: after the
 * refresh, and no more often than a tenth of the walk budget allows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sampler/walk_due.h"

static void test_cheap_walk_at_refresh(void **state)
{
    (void)state;
    /* 30 µs (a small process): every second with 1 % of a core. */
    assert_false(gt_walk_refresh_due(0.99, 30e-6, 0.01, 1.0));
    assert_true(gt_walk_refresh_due(1.0, 30e-6, 0.01, 1.0));
    /* Refresh 0: as often as the cost allows, every 30 ms. */
    assert_false(gt_walk_refresh_due(0.029, 30e-6, 0.01, 0.0));
    assert_true(gt_walk_refresh_due(0.031, 30e-6, 0.01, 0.0));
}

static void test_costly_walk_spaced(void **state)
{
    (void)state;
    /* 16 ms (4 GiB): every 16 s at 1 %, every 1.6 s at 10 %. */
    assert_false(gt_walk_refresh_due(15.9, 0.016, 0.01, 1.0));
    assert_true(gt_walk_refresh_due(16.01, 0.016, 0.01, 1.0));
    assert_false(gt_walk_refresh_due(1.5, 0.016, 0.1, 1.0));
    assert_true(gt_walk_refresh_due(1.61, 0.016, 0.1, 1.0));
    /* Never sooner than the refresh, however large the budget. */
    assert_false(gt_walk_refresh_due(0.5, 0.016, 100, 1.0));
    assert_true(gt_walk_refresh_due(0.5, 0.016, 0, 0.5)); /* no budget to scale by */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cheap_walk_at_refresh),
        cmocka_unit_test(test_costly_walk_spaced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
