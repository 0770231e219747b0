/* SPDX-License-Identifier: MIT */
/* gt_grow_cap: doubling from the first capacity, and 0 rather than a
 * wrapped size when the capacity or its byte count passes SIZE_MAX. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/grow.h"

static void test_doubles(void **state)
{
    (void)state;
    assert_int_equal(gt_grow_cap(0, 1, 16, 8), 16);
    assert_int_equal(gt_grow_cap(0, 16, 16, 8), 16);
    assert_int_equal(gt_grow_cap(0, 17, 16, 8), 32);
    assert_int_equal(gt_grow_cap(16, 17, 99, 8), 32);
    assert_int_equal(gt_grow_cap(16, 100, 99, 8), 128);
    /* Room enough already: the capacity as it is. */
    assert_int_equal(gt_grow_cap(64, 10, 16, 8), 64);
    assert_int_equal(gt_grow_cap(0, 0, 16, 8), 16);
    assert_int_equal(gt_grow_cap(3, 4, 1, 1), 6);
}

static void test_overflow(void **state)
{
    (void)state;
    size_t half = SIZE_MAX / 2 + 1; /* the largest power of two */
    assert_int_equal(gt_grow_cap(half / 2, half, 1, 1), half);
    /* Doubling half would wrap to 0. */
    assert_int_equal(gt_grow_cap(half, half + 1, 1, 1), 0);
    assert_int_equal(gt_grow_cap(0, SIZE_MAX, 1, 1), 0);
    /* The count fits, its bytes do not. */
    assert_int_equal(gt_grow_cap(SIZE_MAX / 16, SIZE_MAX / 16 + 1, 1, 16), 0);
    assert_int_equal(gt_grow_cap(0, 2, SIZE_MAX / 8 + 1, 8), 0);
    assert_int_equal(gt_grow_cap(SIZE_MAX / 8 + 1, 1, 1, 8), 0);
    /* The largest that fits in bytes is still given. */
    assert_int_equal(gt_grow_cap(SIZE_MAX / 32, SIZE_MAX / 32 + 1, 1, 16), (SIZE_MAX / 32) * 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
