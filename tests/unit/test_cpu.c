/* SPDX-License-Identifier: MIT */
/* The sampler's CPU arithmetic over readings alone, without a /proc: what
 * each process adds to an interval's CPU seconds (its own and its reaped
 * children's time since the last sample; all of it when born within the
 * interval; none across a change of clock), and the interval's percents:
 * none until the window spans its length, the whole run at the first
 * figures or the run's last sample, each bounded by threads and cores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sampler/cpu.h"

static void near(double v, double want)
{
    if (fabs(v - want) > 1e-9)
        fail_msg("%.12g, expected %.12g", v, want);
}

static gt_cpu_reading reading(int is_main, uint64_t starttime, double cpu, double ccpu, int from_clock)
{
    return (gt_cpu_reading){is_main, starttime, cpu, ccpu, from_clock};
}

/* A process seen at both samples adds its own time to main's or the
 * descendants' sum, and its reaped children's to the descendants'. */
static void test_member_seen(void **state)
{
    (void)state;
    gt_cpu_interval iv = {0, 0, 0};
    gt_cpu_reading m0 = reading(1, 500, 1.0, 0.5, 1), m1 = reading(1, 500, 1.25, 0.5, 1);
    gt_cpu_interval_member(&iv, &m0, &m1, 1000, 0);
    near(iv.main, 0.25);
    near(iv.desc, 0);
    assert_int_equal(iv.churn, 0);
    /* A descendant that reaped a child: that child's time came and went. */
    gt_cpu_reading d0 = reading(0, 600, 2.0, 0.1, 1), d1 = reading(0, 600, 2.5, 0.35, 1);
    gt_cpu_interval_member(&iv, &d0, &d1, 1000, 0);
    near(iv.main, 0.25);
    near(iv.desc, 0.75);
    assert_int_equal(iv.churn, 1);
    /* Main's reaped children count as descendants. */
    gt_cpu_reading m2 = reading(1, 500, 1.25, 0.75, 1);
    gt_cpu_interval_member(&iv, &m1, &m2, 1000, 0);
    near(iv.main, 0.25);
    near(iv.desc, 1.0);
}

/* A process not seen before counts with all its time when it was born
 * within the interval (from one tick before the last sample on); an older
 * one is only a baseline, unless it is main launched held by the caller. */
static void test_member_new(void **state)
{
    (void)state;
    gt_cpu_interval iv = {0, 0, 0};
    gt_cpu_reading born = reading(0, 999, 0.3, 0.1, 1);
    gt_cpu_interval_member(&iv, NULL, &born, 1000, 0);
    near(iv.desc, 0.4);
    assert_int_equal(iv.churn, 1);

    iv = (gt_cpu_interval){0, 0, 0};
    gt_cpu_reading older = reading(0, 998, 0.3, 0.1, 1);
    gt_cpu_interval_member(&iv, NULL, &older, 1000, 0);
    near(iv.desc, 0);
    assert_int_equal(iv.churn, 0);

    gt_cpu_reading main_old = reading(1, 10, 0.7, 0.2, 1);
    gt_cpu_interval_member(&iv, NULL, &main_old, 1000, 0);
    near(iv.main, 0);
    near(iv.desc, 0);
    gt_cpu_interval_member(&iv, NULL, &main_old, 1000, 1);
    near(iv.main, 0.7);
    near(iv.desc, 0.2);
    assert_int_equal(iv.churn, 1);
}

/* A clock that changed source (ticks to nanoseconds) starts a new
 * baseline for the process's own time; its reaped children's still count. */
static void test_member_clock_changed(void **state)
{
    (void)state;
    gt_cpu_interval iv = {0, 0, 0};
    gt_cpu_reading t0 = reading(1, 5, 3.0, 1.0, 0), t1 = reading(1, 5, 3.4, 1.2, 1);
    gt_cpu_interval_member(&iv, &t0, &t1, 1000, 1);
    near(iv.main, 0);
    near(iv.desc, 0.2);
    assert_int_equal(iv.churn, 1);
}

/* An exited descendant's total arrived in its reaper's cutime: the part
 * counted before is taken out.  The root's reaped children count once
 * known; the sampling thread's time is not main's. */
static void test_exited_root_self(void **state)
{
    (void)state;
    gt_cpu_interval iv = {0, 2.0, 0};
    gt_cpu_reading gone = reading(0, 700, 1.5, 0.25, 1);
    gt_cpu_interval_exited(&iv, &gone);
    near(iv.desc, 0.25);
    assert_int_equal(iv.churn, 1);

    iv = (gt_cpu_interval){1.0, 0, 0};
    gt_cpu_interval_root(&iv, -1, 5.0);
    near(iv.desc, 0);
    gt_cpu_interval_root(&iv, 5.0, 5.0);
    near(iv.desc, 0);
    assert_int_equal(iv.churn, 0);
    gt_cpu_interval_root(&iv, 5.0, 5.5);
    near(iv.desc, 0.5);
    assert_int_equal(iv.churn, 1);
    gt_cpu_interval_self(&iv, 0.01, 0.04);
    near(iv.main, 0.97);
}

/* An interval's seconds become the last interval's and add to the totals;
 * churn marks when. */
static void test_books_add(void **state)
{
    (void)state;
    static gt_cpu_books b;
    gt_cpu_books_init(&b, 0.25);
    gt_cpu_interval a = {0.1, 0.2, 0}, c = {0.3, -0.05, 1};
    gt_cpu_books_add(&b, &a, 1.0);
    gt_cpu_books_add(&b, &c, 2.0);
    near(b.int_main, 0.3);
    near(b.int_desc, -0.05);
    near(b.cum_main, 0.4);
    near(b.cum_desc, 0.15);
    near(b.churn_t, 2.0);
    gt_cpu_books_add(&b, &a, 3.0);
    near(b.churn_t, 2.0);
}

/* One sample as the sampler takes it: the interval, then the point, the
 * first sample's times, a spawn seen, the percents. */
typedef struct run {
    gt_cpu_books b;
    int n;
    int ncores;
} run;

static gt_sample step(run *r, double t, double dm, double dd, int churn, int main_threads, int desc_threads,
                      int spawn, int closing)
{
    gt_sample out;
    memset(&out, 0, sizeof out);
    gt_cpu_interval iv = {dm, dd, churn};
    gt_cpu_books_add(&r->b, &iv, t);
    gt_cpu_point pt = {t, r->b.cum_main, r->b.cum_desc, main_threads, desc_threads, t};
    if (r->n++ == 0) {
        r->b.first_t = t;
        r->b.first_t_main = t;
    }
    if (spawn)
        r->b.spawn_t = t;
    gt_cpu_books_percents(&r->b, &pt, r->ncores, closing, &out);
    r->b.last_t = t;
    return out;
}

static void start(run *r, int ncores)
{
    memset(r, 0, sizeof *r);
    gt_cpu_books_init(&r->b, 0.25);
    r->ncores = ncores;
}

/* A one-thread spin: no figures until the window spans 0.25 s, then the
 * whole run's rate, then each interval's. */
static void test_percents_window(void **state)
{
    (void)state;
    static run r;
    start(&r, 2);
    assert_int_equal(step(&r, 0.0, 0, 0, 0, 1, 0, 0, 0).cpu_valid, 0);
    assert_int_equal(step(&r, 0.1, 0.1, 0, 0, 1, 0, 0, 0).cpu_valid, 0);
    assert_int_equal(step(&r, 0.2, 0.1, 0, 0, 1, 0, 0, 0).cpu_valid, 0);
    gt_sample s = step(&r, 0.3, 0.1, 0, 0, 1, 0, 0, 0);
    assert_int_equal(s.cpu_valid, 1);
    assert_int_equal(s.cpu_since_first, 1);
    near(s.cpu_span, 0.3);
    near(s.cpu_main_sum, 100);
    near(s.cpu_descendants_sum, 0);
    near(s.cpu_combined_sum, 100);
    s = step(&r, 0.4, 0.1, 0, 0, 1, 0, 0, 0);
    assert_int_equal(s.cpu_valid, 1);
    assert_int_equal(s.cpu_since_first, 0);
    near(s.cpu_span, 0.1);
    near(s.cpu_main_sum, 100);
}

/* A run shorter than the window has figures at its last sample, over the
 * whole run; a run of one sample has none. */
static void test_percents_closing(void **state)
{
    (void)state;
    static run r;
    start(&r, 2);
    step(&r, 0.0, 0, 0, 0, 1, 1, 0, 0);
    gt_sample s = step(&r, 0.1, 0.05, 0.02, 0, 1, 1, 0, 1);
    assert_int_equal(s.cpu_valid, 1);
    assert_int_equal(s.cpu_since_first, 1);
    near(s.cpu_span, 0.1);
    near(s.cpu_main_sum, 50);
    near(s.cpu_descendants_sum, 20);
    near(s.cpu_combined_sum, 70);
    start(&r, 2);
    assert_int_equal(step(&r, 0.0, 0, 0, 0, 1, 0, 0, 1).cpu_valid, 0);
}

/* Main reports two cores' time with one sampled thread: its threads bound
 * the rate (the rest is carried) unless a task was created within the
 * span, whose threads no sample counted. */
static void test_percents_spawn(void **state)
{
    (void)state;
    static run r;
    for (int spawn = 0; spawn <= 1; spawn++) {
        start(&r, 2);
        step(&r, 0.0, 0, 0, 0, 1, 0, 0, 0);
        step(&r, 0.1, 0.2, 0, 0, 1, 0, spawn, 0);
        step(&r, 0.2, 0.2, 0, 0, 1, 0, 0, 0);
        gt_sample s = step(&r, 0.3, 0.2, 0, 0, 1, 0, 0, 0);
        assert_int_equal(s.cpu_valid, 1);
        near(s.cpu_main_sum, spawn ? 200 : 100);
        near(r.b.flow_main.carry, spawn ? 0 : 0.3);
    }
}

/* Main and the descendants each report two cores' time on two cores:
 * together they never read more than the cores. */
static void test_percents_cores(void **state)
{
    (void)state;
    static run r;
    start(&r, 2);
    step(&r, 0.0, 0, 0, 0, 2, 2, 0, 0);
    step(&r, 0.1, 0.2, 0.2, 0, 2, 2, 0, 0);
    step(&r, 0.2, 0.2, 0.2, 0, 2, 2, 0, 0);
    gt_sample s = step(&r, 0.3, 0.2, 0.2, 0, 2, 2, 0, 0);
    assert_int_equal(s.cpu_valid, 1);
    near(s.cpu_main_sum, 200);
    near(s.cpu_descendants_sum, 0);
    near(s.cpu_combined_sum, 200);
    near(r.b.flow_desc.carry, 0.6);
}

/* Descendants that come and go run more threads than any sample counts:
 * with churn only the cores left by main bound them. */
static void test_percents_churn(void **state)
{
    (void)state;
    static run r;
    for (int churn = 0; churn <= 1; churn++) {
        start(&r, 2);
        step(&r, 0.0, 0, 0, 0, 1, 1, 0, 0);
        step(&r, 0.1, 0, 0.2, churn, 1, 1, 0, 0);
        step(&r, 0.2, 0, 0.2, churn, 1, 1, 0, 0);
        gt_sample s = step(&r, 0.3, 0, 0.2, churn, 1, 1, 0, 0);
        assert_int_equal(s.cpu_valid, 1);
        near(s.cpu_main_sum, 0);
        /* Main's slack (0.02 cores) is the room main keeps. */
        near(s.cpu_descendants_sum, churn ? 198 : 100);
    }
}

/* A burst from idle at intervals under the window: the window's rate lags,
 * but what is carried beyond a tick a thread (4 ms here) is credited at once,
 * so the rows after the burst, in which nothing ran, get at most that; a
 * second thread that sleeps does not let the first read two cores. */
static void test_percents_settle(void **state)
{
    (void)state;
    static run r;
    start(&r, 4);
    r.b.tick = 0.004;
    double t = 0;
    step(&r, t, 0, 0, 0, 2, 0, 0, 0);
    for (int i = 0; i < 15; i++) /* idle for 0.3 s */
        step(&r, t += 0.02, 0, 0, 0, 2, 0, 0, 0);
    double burst = 0, after = 0;
    for (int i = 0; i < 10; i++) { /* one thread spins for 0.2 s */
        gt_sample s = step(&r, t += 0.02, 0.02, 0, 0, 2, 0, 0, 0);
        assert_true(s.cpu_main_sum <= 100 + 1e-9);
        burst += s.cpu_main_sum / 100 * s.cpu_span;
    }
    for (int i = 0; i < 10; i++) { /* asleep */
        gt_sample s = step(&r, t += 0.02, 0, 0, 0, 2, 0, 0, 0);
        after += s.cpu_main_sum / 100 * s.cpu_span;
    }
    assert_true(after <= 2 * 0.004 + 1e-9); /* a tick for each thread seen */
    near(burst + after + r.b.flow_main.carry, 0.2);
    /* Read every millisecond, its clock moves a tick (4 ms) at a time, and
     * a slice it waited for shows at once: the carry beyond the tick a
     * thread is paid at the one core it keeps busy, not at the two threads'. */
    for (int i = 0; i < 600; i++) {
        double d = i % 8 == 7 ? 0.008 : 0;
        gt_sample s = step(&r, t += 0.001, d, 0, 0, 2, 0, 0, 0);
        /* the window's bound: an 8 ms lump over its 0.25 s, and its slack */
        assert_true(s.cpu_main_sum <= 100 + 100 * 0.008 / 0.25 + 100 * GT_CPU_SLACK + 1e-9);
    }
}

/* The credits plus the carry always add up to the reported totals, over
 * irregular intervals, a negative report and a spawn. */
static void test_percents_add_up(void **state)
{
    (void)state;
    static run r;
    start(&r, 4);
    static const double dt[] = {0.05, 0.3, 0.01, 0.2, 0.12, 0.5, 0.002, 0.25, 0.07, 0.4};
    static const double dm[] = {0.04, 0.5, 0.0, 0.3, -0.01, 0.6, 0.004, 0.2, 0.1, 0.1};
    static const double dd[] = {0.1, 0.0, 0.03, 0.8, 0.2, 1.1, 0.0, -0.02, 0.3, 0.9};
    double t = 0, credited_m = 0, credited_d = 0;
    int with_figures = 0;
    step(&r, t, 0, 0, 0, 2, 3, 0, 0);
    for (size_t i = 0; i < sizeof dt / sizeof *dt; i++) {
        t += dt[i];
        gt_sample s = step(&r, t, dm[i], dd[i], i == 3, 2, 3, i == 5, i + 1 == sizeof dt / sizeof *dt);
        if (!s.cpu_valid)
            continue;
        with_figures++;
        assert_true(s.cpu_main_sum >= 0 && s.cpu_descendants_sum >= 0);
        assert_true(s.cpu_combined_sum <= 400 + 1e-9);
        credited_m += s.cpu_main_sum * s.cpu_span / 100;
        credited_d += s.cpu_descendants_sum * s.cpu_span / 100;
    }
    assert_true(with_figures >= 5);
    near(credited_m + r.b.flow_main.carry, r.b.cum_main);
    near(credited_d + r.b.flow_desc.carry, r.b.cum_desc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_member_seen),
        cmocka_unit_test(test_member_new),
        cmocka_unit_test(test_member_clock_changed),
        cmocka_unit_test(test_exited_root_self),
        cmocka_unit_test(test_books_add),
        cmocka_unit_test(test_percents_window),
        cmocka_unit_test(test_percents_closing),
        cmocka_unit_test(test_percents_spawn),
        cmocka_unit_test(test_percents_cores),
        cmocka_unit_test(test_percents_churn),
        cmocka_unit_test(test_percents_settle),
        cmocka_unit_test(test_percents_add_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
