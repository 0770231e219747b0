/* SPDX-License-Identifier: MIT */
/* The run's aggregate on samples the test writes: CPU seconds and the mean
 * weighed by each interval's length (the first figure covering the time
 * since the first sample, the short last interval weighing as little as it
 * lasted), maxima of RAM parts and of the total kept in parts, and what a
 * run without figures reports: unavailable (-1), or 0 when the process had
 * ended before tracking began. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "tracker/aggregate.h"

static gt_static_data sd(void)
{
    gt_static_data d;
    memset(&d, 0, sizeof d);
    d.ram_unit = GT_RAM_UNIT_BYTES;
    d.gpu_ram_unit = GT_RAM_UNIT_BYTES;
    d.time_unit = GT_TIME_UNIT_SECONDS;
    d.system_core_count = 4;
    d.n_expected_cores = 4;
    return d;
}

static gt_sample at(double t, int cpu_valid, int since_first, double main_pct)
{
    gt_sample s;
    memset(&s, 0, sizeof s);
    s.timestamp = t;
    s.cpu_valid = cpu_valid;
    s.cpu_since_first = since_first;
    s.cpu_main_sum = main_pct;
    s.cpu_combined_sum = main_pct;
    return s;
}

static gt_usage usage_of(const gt_aggregate *a, const gt_static_data *d, int none_ran)
{
    gt_usage u;
    memset(&u, 0, sizeof u);
    gt_aggregate_run r = {d, 10.0, 0, none_ran, NULL, 0, "off"};
    gt_aggregate_usage(a, &r, &u);
    return u;
}

static void test_cpu_weighed_by_time(void **state)
{
    (void)state;
    gt_aggregate a;
    memset(&a, 0, sizeof a);
    gt_static_data d = sd();
    gt_sample s[] = {at(100.0, 0, 0, 0), at(100.1, 0, 0, 0),  /* no figure yet */
                     at(101.0, 1, 1, 50),                    /* 1 s since the first sample at 50 % */
                     at(102.0, 1, 0, 100),                   /* 1 s at 100 % */
                     at(102.01, 1, 0, 0)};                   /* the stop's 10 ms at 0 % */
    for (size_t i = 0; i < sizeof s / sizeof *s; i++)
        gt_aggregate_fold(&a, &s[i]);
    assert_int_equal(a.n, 5);
    assert_int_equal(a.n_cpu, 3);
    assert_true(a.cpu_seconds[0] > 1.5 - 1e-9 && a.cpu_seconds[0] < 1.5 + 1e-9);
    gt_usage u = usage_of(&a, &d, 0);
    /* (50 x 1 + 100 x 1 + 0 x 0.01) / 2.01, not the samples' mean 50 */
    double want = 150.0 / 2.01;
    assert_true(u.cpu_utilization.main.mean_sum_percent > want - 1e-9 &&
                u.cpu_utilization.main.mean_sum_percent < want + 1e-9);
    assert_true(u.cpu_utilization.main.max_sum_percent == 100.0);
    assert_true(u.cpu_utilization.main.max_hardware_percent == 25.0);
    assert_int_equal(u.n_samples, 5);
    assert_string_equal(u.max_ram_method.main, "lower bound (sampled)");
    assert_string_equal(u.max_ram_method.reason, "off");
}

static void test_ram_parts_and_total(void **state)
{
    (void)state;
    gt_aggregate a;
    memset(&a, 0, sizeof a);
    gt_static_data d = sd();
    gt_sample x = at(1, 0, 0, 0), y = at(2, 0, 0, 0);
    x.main = (gt_rss){.private_rss = 100, .shared_rss = 10};
    y.main = (gt_rss){.private_rss = 50, .shared_rss = 70};
    gt_aggregate_fold(&a, &x);
    gt_aggregate_fold(&a, &y);
    gt_usage u = usage_of(&a, &d, 0);
    /* Each part's own max; the total of the sample with the largest total. */
    assert_true(u.max_ram.main.private_rss == 100 && u.max_ram.main.shared_rss == 70);
    assert_true(u.max_ram.main.total_rss == 120);
}

static void test_no_figure(void **state)
{
    (void)state;
    gt_aggregate a;
    memset(&a, 0, sizeof a);
    gt_static_data d = sd();
    gt_sample x = at(1, 0, 0, 0);
    gt_aggregate_fold(&a, &x);
    gt_usage u = usage_of(&a, &d, 0);
    assert_true(u.cpu_utilization.main.max_sum_percent == -1.0 && u.cpu_utilization.main.mean_sum_percent == -1.0);
    u = usage_of(&a, &d, 1); /* ended before tracking began: nothing ran */
    assert_true(u.cpu_utilization.main.max_sum_percent == 0.0 && u.cpu_utilization.main.mean_sum_percent == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_weighed_by_time),
        cmocka_unit_test(test_ram_parts_and_total),
        cmocka_unit_test(test_no_figure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
