/* SPDX-License-Identifier: MIT */
/* The run's figures of gpu-tracker's own rows of the metric table: each
 * aggregation kind on values the test gives (unread values left out, the
 * mean weighed by the interval each value ends), and the table's disk rows
 * folded from samples the test writes, as the aggregate folds them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "metric/fold.h"
#include "tracker/aggregate.h"
#include "own_column.h"

static void test_kinds(void **state)
{
    (void)state;
    gt_metric_acc a;
    memset(&a, 0, sizeof a);
    for (int g = GT_MA_MAX; g <= GT_MA_NONE; g++)
        assert_true(isnan(gt_metric_acc_figure(&a, (gt_metric_agg)g))); /* nothing read */
    /* 4 over no interval (the first sample), 10 over 1 s, unread, 1 over 3 s. */
    gt_metric_acc_add(&a, 4, 0);
    assert_true(gt_metric_acc_figure(&a, GT_MA_TIME_MEAN) == 4); /* no interval: the plain mean */
    gt_metric_acc_add(&a, 10, 1);
    gt_metric_acc_add(&a, NAN, 2);
    assert_true(isnan(a.now));
    gt_metric_acc_add(&a, 1, 3);
    assert_true(a.now == 1);
    assert_true(gt_metric_acc_figure(&a, GT_MA_MAX) == 10);
    assert_true(gt_metric_acc_figure(&a, GT_MA_TIME_MEAN) == (10 * 1 + 1 * 3) / 4.0);
    assert_true(gt_metric_acc_figure(&a, GT_MA_LAST) == 1);
    assert_true(gt_metric_acc_figure(&a, GT_MA_SUM) == 15);
    assert_true(isnan(gt_metric_acc_figure(&a, GT_MA_NONE)));
    /* A maximum below zero is still the largest. */
    gt_metric_acc b;
    memset(&b, 0, sizeof b);
    gt_metric_acc_add(&b, -3, 0);
    gt_metric_acc_add(&b, -5, 1);
    assert_true(gt_metric_acc_figure(&b, GT_MA_MAX) == -3);
    assert_true(gt_metric_acc_figure(&b, GT_MA_LAST) == -5);
}

static gt_sample disk(double t, double read, double rate)
{
    gt_sample s;
    memset(&s, 0, sizeof s);
    s.timestamp = t;
    for (int set = 0; set < 3; set++)
        s.tree[GT_TREE_SUM(GT_PV_DISK_READ, set)] = read;
    s.tree[GT_TREE_RATE(GT_PV_DISK_READ)] = rate;
    for (int set = 0; set < 3; set++)
        s.tree[GT_TREE_SUM(GT_PV_DISK_WRITE, set)] = NAN;
    s.tree[GT_TREE_RATE(GT_PV_DISK_WRITE)] = NAN;
    return s;
}

static void test_table_rows(void **state)
{
    (void)state;
    gt_aggregate a;
    memset(&a, 0, sizeof a);
    gt_sample s[] = {disk(100, 1000, NAN), disk(101, 3000, 2000), disk(104, 6000, 1000)};
    for (size_t i = 0; i < 3; i++)
        gt_aggregate_fold(&a, &s[i]);
    /* A running total: the last sample's. */
    assert_true(gt_metric_fold_figure(&a.own, own("combined_disk_read_bytes")) == 6000);
    assert_true(gt_metric_fold_figure(&a.own, own("main_disk_read_bytes")) == 6000);
    /* The rate over time: 2000 for 1 s, 1000 for 3 s. */
    assert_true(gt_metric_fold_figure(&a.own, own("combined_disk_read_bytes_per_second")) == 5000 / 4.0);
    /* Never read: unavailable, not 0. */
    assert_true(isnan(gt_metric_fold_figure(&a.own, own("combined_disk_write_bytes"))));
    assert_true(isnan(gt_metric_fold_figure(&a.own, own("combined_disk_write_bytes_per_second"))));
    assert_true(a.own.col[own("combined_disk_read_bytes")].now == 6000);
    assert_true(isnan(gt_metric_fold_figure(&a.own, GT_METRIC_NOWN_COLUMNS)));

    gt_static_data sd;
    memset(&sd, 0, sizeof sd);
    gt_metric_run run;
    gt_metric_run_of(&a.own, &sd, &run);
    assert_int_equal(run.n_samples, 3);
    assert_true(run.value[own("combined_disk_read_bytes")] == 6000);
    const gt_metric *m;
    gt_metric_own_column(own("combined_disk_read_bytes_per_second"), &m);
    assert_string_equal(gt_metric_unit_name(m, &run), "bytes per second");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_table_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
