/* SPDX-License-Identifier: MIT */
/* The CPU window and flow: which earlier sample a rate is measured from,
 * and how an interval's credit is bounded with the rest carried, so that
 * credits plus carry always equal what the kernel reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "sampler/cpu_window.h"

static void near(double v, double want)
{
    if (fabs(v - want) > 1e-9)
        fail_msg("%.12g, expected %.12g", v, want);
}

static const gt_cpu_point *add(gt_cpu_window *w, double t, double main_cpu)
{
    gt_cpu_point p = {t, main_cpu, 0, 1, 0, t};
    return gt_cpu_window_add(w, &p);
}

static void test_window_start(void **state)
{
    (void)state;
    static gt_cpu_window w;
    gt_cpu_window_init(&w, 0.25);
    assert_null(add(&w, 0.0, 0));
    /* Until a point is a span old, the rate is measured from the first. */
    near(add(&w, 0.1, 0.1)->t, 0.0);
    near(add(&w, 0.2, 0.2)->t, 0.0);
    near(add(&w, 0.25, 0.25)->t, 0.0);
    /* Then from the latest point at least a span older. */
    near(add(&w, 0.3, 0.3)->t, 0.0);
    near(add(&w, 0.46, 0.46)->t, 0.2);
    near(add(&w, 0.5, 0.5)->t, 0.25);
    /* An interval longer than the span: the previous point. */
    near(add(&w, 2.0, 2.0)->t, 0.5);
}

static void test_window_full(void **state)
{
    (void)state;
    static gt_cpu_window w;
    gt_cpu_window_init(&w, 10);
    for (int i = 0; i < GT_CPU_WINDOW_POINTS + 5; i++)
        add(&w, i * 0.001, 0);
    /* More points than kept within a span: the oldest kept. */
    near(add(&w, 2, 0)->t, 0.001 * 6);
    assert_int_equal(w.n, GT_CPU_WINDOW_POINTS);
}

static void test_flow(void **state)
{
    (void)state;
    gt_cpu_flow f = {0};
    /* A tick's 4 ms reported in a 1 ms interval of one core: 1 ms now, the
     * rest within the hold of 10 ms. */
    near(gt_cpu_flow_credit(&f, 0.004, 0.001, 1, 1, 0.01), 0.001);
    near(f.carry, 0.003);
    /* Nothing reported: the carry is paid out, within the rate. */
    near(gt_cpu_flow_credit(&f, 0, 0.001, 1, 1, 0.01), 0.001);
    near(gt_cpu_flow_credit(&f, 0, 0.001, 1.5, 2, 0.01), 0.0015);
    near(gt_cpu_flow_credit(&f, 0, 0.001, 1, 1, 0.01), 0.0005);
    near(f.carry, 0);
    /* A negative report is a debt, never a negative credit. */
    near(gt_cpu_flow_credit(&f, -0.002, 0.001, 1, 1, 0.01), 0);
    near(gt_cpu_flow_credit(&f, 0.0015, 0.001, 1, 1, 0.01), 0);
    near(gt_cpu_flow_credit(&f, 0.001, 0.001, 1, 1, 0.01), 0.0005);
    near(f.carry, 0);
    /* No time or no threads: nothing credited, all carried. */
    near(gt_cpu_flow_credit(&f, 0.003, 0, 1, 1, 0.01), 0);
    near(gt_cpu_flow_credit(&f, 0, 0.01, 0, 0, 0.01), 0);
    near(f.carry, 0.003);
}

/* Settling: the carry kept to the clocks' lateness (tol), the rest
 * credited now up to what can run in the interval (most); a carry within
 * tol, or a debt, is left as it is. */
static void test_settle(void **state)
{
    (void)state;
    gt_cpu_flow f = {0.030};
    near(gt_cpu_flow_settle(&f, 0.010, 0.004, 0.020), 0.020); /* most reached: 0.020 still carried */
    near(f.carry, 0.020);
    near(gt_cpu_flow_settle(&f, 0.005, 0.004, 0.040), 0.021);
    near(f.carry, 0.004);
    near(gt_cpu_flow_settle(&f, 0.002, 0.004, 0.040), 0.002);
    near(f.carry, 0.004);
    f.carry = -0.003;
    near(gt_cpu_flow_settle(&f, 0, 0.004, 0.040), 0);
    near(f.carry, -0.003);
}

/* A rate that lags (threads started since the window's start): what is
 * carried beyond the hold is credited up to the bound, never above it. */
static void test_flow_lag(void **state)
{
    (void)state;
    gt_cpu_flow f = {0};
    /* 2 cores' 20 ms in a 10 ms interval at a window rate of 1 core: the
     * rate's 10 ms, and the hold (20 ms) not exceeded. */
    near(gt_cpu_flow_credit(&f, 0.02, 0.01, 1, 2, 0.02), 0.01);
    near(f.carry, 0.01);
    /* Again: 30 ms due; 10 ms would be carried above the hold of 5 ms, so
     * 25 ms... but the bound (2 cores) allows 20 ms. */
    near(gt_cpu_flow_credit(&f, 0.02, 0.01, 1, 2, 0.005), 0.02);
    near(f.carry, 0.01);
    /* The bound pays out down to the hold. */
    near(gt_cpu_flow_credit(&f, 0.0, 0.01, 0.1, 2, 0.004), 0.006);
    near(f.carry, 0.004);
    /* Hold 0: everything within the bound. */
    near(gt_cpu_flow_credit(&f, 0.001, 0.01, 0.1, 2, 0), 0.005);
    near(f.carry, 0);
    /* A bound no higher than the rate changes nothing. */
    near(gt_cpu_flow_credit(&f, 0.05, 0.01, 1, 1, 0), 0.01);
    near(f.carry, 0.04);
}

/* Above the rate only after threads started or processes came. */
static void test_payout_bound(void **state)
{
    (void)state;
    near(gt_cpu_payout_bound(2, 2, 0, 1.02, 2), 1.02);
    near(gt_cpu_payout_bound(3, 2, 0, 1.02, 2), 1.02);
    near(gt_cpu_payout_bound(1, 2, 0, 1.02, 2), 2);
    near(gt_cpu_payout_bound(2, 2, 1, 1.02, 2), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_start),
        cmocka_unit_test(test_window_full),
        cmocka_unit_test(test_flow),
        cmocka_unit_test(test_flow_lag),
        cmocka_unit_test(test_payout_bound),
        cmocka_unit_test(test_settle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
