/* SPDX-License-Identifier: MIT */
/* The library API: option validation, lifecycle errors, and tracking a
 * region of this very process (which must not count the sampling thread). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker.h"

static gt_options quiet(void)
{
    gt_options o;
    gt_options_init(&o, GT_STRUCT_VERSION);
    o.disable_logs = 1;
    o.sleep_time = 0.01;
    return o;
}

static void test_defaults(void **state)
{
    (void)state;
    gt_options o;
    assert_int_equal(gt_options_init(&o, GT_STRUCT_VERSION), GT_OK);
    assert_int_equal(o.version, GT_STRUCT_VERSION);
    assert_true(o.sleep_time == 1.0);
    assert_int_equal(o.ram_unit, GT_RAM_UNIT_GIGABYTES);
    assert_int_equal(o.gpu_ram_unit, GT_RAM_UNIT_GIGABYTES);
    assert_int_equal(o.time_unit, GT_TIME_UNIT_HOURS);
    assert_int_equal(o.n_expected_cores, 0);
    assert_null(o.tracking_file);
    assert_true(o.walk_budget == 0);
}

static void expect_invalid(gt_options o, const char *needle)
{
    gt_tracker *t = (gt_tracker *)&t; /* must be reset to NULL */
    gt_error e = {{0}};
    assert_int_equal(gt_tracker_new(&o, &t, &e), GT_ERR_INVALID);
    assert_null(t);
    assert_non_null(strstr(e.msg, needle));
}

static void test_invalid_options(void **state)
{
    (void)state;
    gt_options o = quiet();
    o.sleep_time = 0;
    expect_invalid(o, "sleep time");
    o = quiet();
    o.sleep_time = -1;
    expect_invalid(o, "sleep time");
    o = quiet();
    o.ram_unit = (gt_ram_unit)9;
    expect_invalid(o, "'kilobytes'");
    o = quiet();
    o.time_unit = (gt_time_unit)9;
    expect_invalid(o, "'days'");
    o = quiet();
    o.n_expected_cores = -2;
    expect_invalid(o, "cores");
    const double bad_budgets[] = {-0.01, 1.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_budgets / sizeof *bad_budgets; i++) {
        o = quiet();
        o.walk_budget = bad_budgets[i];
        expect_invalid(o, "walk_budget");
        expect_invalid(o, "at most 1");
    }
    o = quiet();
    o.tracking_file = "x.txt";
    gt_tracker *t;
    gt_error e;
    assert_int_not_equal(gt_tracker_new(&o, &t, &e), GT_OK);
    assert_null(t);
}

/* The bounds themselves are valid: 0 is the default, 1 a whole core. */
static void test_walk_budget_accepted(void **state)
{
    (void)state;
    const double budgets[] = {0, 1e-9, 0.05, 1};
    for (size_t i = 0; i < sizeof budgets / sizeof *budgets; i++) {
        gt_options o = quiet();
        o.walk_budget = budgets[i];
        gt_tracker *t;
        gt_error e = {{0}};
        assert_int_equal(gt_tracker_new(&o, &t, &e), GT_OK);
        assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
        assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
        gt_tracker_free(&t);
    }
}

static void test_unit_names(void **state)
{
    (void)state;
    gt_ram_unit r;
    gt_time_unit u;
    assert_int_equal(gt_ram_unit_parse("megabytes", &r), GT_OK);
    assert_int_equal(r, GT_RAM_UNIT_MEGABYTES);
    assert_int_equal(gt_ram_unit_parse("MB", &r), GT_ERR_INVALID);
    assert_int_equal(gt_time_unit_parse("days", &u), GT_OK);
    assert_int_equal(gt_time_unit_parse("weeks", &u), GT_ERR_INVALID);
    assert_string_equal(gt_ram_unit_name(GT_RAM_UNIT_TERABYTES), "terabytes");
    assert_string_equal(gt_time_unit_name(GT_TIME_UNIT_MINUTES), "minutes");
}

static void test_lifecycle_errors(void **state)
{
    (void)state;
    gt_options o = quiet();
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_ERR_STATE);
    gt_error e;
    assert_int_equal(gt_tracker_stop(t, &e), GT_ERR_STATE);
    assert_non_null(strstr(e.msg, "not started"));
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    assert_int_equal(gt_tracker_start(t, NULL), GT_ERR_STATE);
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK); /* while running */
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_ERR_STATE);
    assert_int_equal(gt_tracker_start(t, NULL), GT_ERR_STATE);
    gt_tracker_free(&t);
    assert_null(t);
    gt_tracker_free(&t); /* NULL-safe */
}

struct stopper {
    gt_tracker *t;
    pthread_barrier_t *go;
    gt_status st;
    gt_usage u; /* read as soon as the stop returned */
    gt_error err;
};

static void *stop_at_once(void *arg)
{
    struct stopper *s = arg;
    pthread_barrier_wait(s->go);
    s->st = gt_tracker_stop(s->t, &s->err);
    memset(&s->u, 0, sizeof s->u); /* padding too: compared whole */
    s->u.version = GT_STRUCT_VERSION;
    if (gt_tracker_usage(s->t, &s->u, NULL) != GT_OK)
        s->u.n_samples = 0;
    return NULL;
}

/* Two threads stopping one tracker at once: the thread is joined once, both
 * calls return, one with the run's result and the other with GT_ERR_STATE
 * (after the stop is complete: the usage either reads as soon as its stop
 * returned is the final one).
 * Repeated, since the race is narrow; 60 s bounds a stop that never returns. */
static void test_concurrent_stop(void **state)
{
    (void)state;
    for (int round = 0; round < 100; round++) {
        gt_options o = quiet();
        o.sleep_time = 0.001;
        gt_tracker *t;
        assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
        assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        struct stopper s[2] = {{.t = t, .go = &go, .st = -1}, {.t = t, .go = &go, .st = -1}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&th[i], NULL, stop_at_once, &s[i]), 0);
        for (int i = 0; i < 2; i++) {
            struct timespec limit;
            clock_gettime(CLOCK_REALTIME, &limit);
            limit.tv_sec += 60;
            assert_int_equal(pthread_timedjoin_np(th[i], NULL, &limit), 0);
        }
        pthread_barrier_destroy(&go);
        assert_true((s[0].st == GT_OK && s[1].st == GT_ERR_STATE) ||
                    (s[0].st == GT_ERR_STATE && s[1].st == GT_OK));
        assert_non_null(strstr(s[s[0].st == GT_OK].err.msg, "already stopped"));
        gt_usage u;
        memset(&u, 0, sizeof u);
        u.version = GT_STRUCT_VERSION;
        assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
        assert_true(u.n_samples >= 2); /* the first and the last */
        /* The caller told "already stopped" read the final usage too. */
        for (int i = 0; i < 2; i++)
            if (memcmp(&s[i].u, &u, sizeof u) != 0)
                fail_msg("round %d: the usage read when stop returned %s (%zu samples) is not the final one "
                         "(%zu samples)", round, s[i].st == GT_OK ? "GT_OK" : "GT_ERR_STATE",
                         (size_t)s[i].u.n_samples, (size_t)u.n_samples);
        gt_tracker_free(&t);
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Seconds on the monotonic clock. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Private_Clean + Private_Dirty of this process, bytes. */
static double self_private_rss(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    assert_non_null(f);
    char line[256];
    double kb = 0, v;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Private_Clean: %lf", &v) == 1 || sscanf(line, "Private_Dirty: %lf", &v) == 1)
            kb += v;
    fclose(f);
    return kb * 1024;
}

/* Threads of this process; waits (up to a second) until only `want` are
 * left, since a thread that pthread_join has returned for can still be
 * counted by the kernel for a moment. */
static int settle_threads(int want)
{
    int n = -1;
    for (int i = 0; i < 1000 && n != want; i++) {
        FILE *f = fopen("/proc/self/status", "r");
        assert_non_null(f);
        char line[256];
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Threads: %d", &n) == 1)
                break;
        fclose(f);
        if (n != want)
            sleep_ms(1);
    }
    return n;
}

/* Tracking our own region: 64 MiB touched shows up as private RSS, and the
 * sampling thread is not counted as one of our threads. */
static void test_self_region(void **state)
{
    (void)state;
    gt_options o = quiet();
    o.ram_unit = GT_RAM_UNIT_BYTES;
    o.time_unit = GT_TIME_UNIT_SECONDS;
    /* What we hold before the region (more under valgrind, whose shadow
     * memory also grows with the region). */
    double before = self_private_rss();
    /* The previous test's sampling thread must be gone from the count. */
    assert_int_equal(settle_threads(1), 1);
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    double t0 = now_s();
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    size_t n = 64u << 20;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 1, n);
    sleep_ms(100);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    double wall = now_s() - t0;
    munmap(p, n);
    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    assert_true(u.max_ram.main.private_rss >= (double)n);
    assert_true(u.max_ram.main.private_rss < before + (double)n * 1.5);
    assert_true(u.max_ram.main.total_rss >= u.max_ram.main.private_rss);
    assert_int_equal(u.cpu_utilization.main_n_threads, 1);
    /* At least the sleep, at most the time from start to stop (however
     * long a loaded machine makes it). */
    assert_true(u.compute_time.time >= 0.1 && u.compute_time.time < wall + 0.05);
    assert_true(u.n_samples >= 3);
    assert_true(u.peak_ram.main >= (double)n);
    /* Touching 64 MiB takes CPU time, all within a run shorter than the
     * CPU window: the figure covers the whole run and is never 0. */
    assert_true(u.cpu_utilization.main.max_sum_percent > 0);
    assert_true(u.cpu_utilization.main.mean_sum_percent > 0);
    assert_string_equal(u.max_ram.unit, "bytes");
    assert_string_equal(u.compute_time.unit, "seconds");
    gt_tracker_free(&t);
}

/* A single sample closes no interval: the CPU percents are unavailable
 * (-1, "unavailable" in text, null in JSON), never 0; the last sample at
 * stop gives them. */
static void test_one_sample_cpu_unavailable(void **state)
{
    (void)state;
    gt_options o = quiet();
    o.sleep_time = 3600; /* no sample between the first and the last */
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    assert_int_equal(u.n_samples, 1);
    const gt_percentages *p[] = {&u.cpu_utilization.system, &u.cpu_utilization.main,
                                 &u.cpu_utilization.descendants, &u.cpu_utilization.combined};
    for (int i = 0; i < 4; i++) {
        assert_true(p[i]->max_sum_percent < 0 && p[i]->max_hardware_percent < 0);
        assert_true(p[i]->mean_sum_percent < 0 && p[i]->mean_hardware_percent < 0);
    }
    char *text, *json;
    assert_int_equal(gt_usage_string(&u, GT_FORMAT_TEXT, &text), GT_OK);
    assert_int_equal(gt_usage_string(&u, GT_FORMAT_JSON, &json), GT_OK);
    assert_non_null(strstr(text, "   Main:\n      Max sum percent: unavailable\n"
                                 "      Max hardware percent: unavailable\n"
                                 "      Mean sum percent: unavailable\n"
                                 "      Mean hardware percent: unavailable\n"));
    assert_non_null(strstr(json, "\"main\": {\n   \"max_sum_percent\": null,"));
    gt_string_free(&text);
    gt_string_free(&json);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    assert_int_equal(u.n_samples, 2);
    assert_true(u.cpu_utilization.main.max_sum_percent >= 0);
    assert_true(u.cpu_utilization.system.mean_sum_percent >= 0);
    gt_tracker_free(&t);
}

typedef struct seen {
    unsigned long calls, last_n, first_cpu_valid;
    double last_elapsed, cpu_seconds;
    int ordered, nan_before_cpu;
    uint64_t max_main;
} seen;

static void count_timepoint(void *ctx, const gt_timepoint *tp)
{
    seen *s = ctx;
    if (s->calls == 0) {
        s->first_cpu_valid = (unsigned long)tp->cpu_valid;
        s->nan_before_cpu = isnan(tp->cpu_main_sum);
    }
    s->calls++;
    s->ordered &= tp->n_samples == s->calls && tp->elapsed >= s->last_elapsed;
    s->last_n = tp->n_samples;
    s->last_elapsed = tp->elapsed;
    s->cpu_seconds = tp->cpu_main_seconds;
    if (tp->main_ram > s->max_main)
        s->max_main = tp->main_ram;
}

/* The per-sample callback sees every sample, in order, in base units. */
static void test_timepoint_callback(void **state)
{
    (void)state;
    gt_options o = quiet();
    seen s = {0};
    s.ordered = 1;
    o.on_timepoint = count_timepoint;
    o.on_timepoint_ctx = &s;
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    struct timespec m0, m1; /* this thread's CPU time: the truth */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &m0);
    size_t n = 32u << 20;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 1, n);
    /* Burn about 0.6 s of CPU on this thread, measured by its own clock. */
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    volatile unsigned long spin = 0;
    do {
        for (int i = 0; i < 100000; i++)
            spin = spin + 1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    } while ((double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9 < 0.6);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &m1);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    munmap(p, n);
    double truth = (double)(m1.tv_sec - m0.tv_sec) + (double)(m1.tv_nsec - m0.tv_nsec) / 1e9;
    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    assert_int_equal(s.calls, u.n_samples);
    assert_int_equal(s.last_n, u.n_samples);
    assert_true(s.ordered);
    assert_int_equal(s.first_cpu_valid, 0);
    assert_true(s.nan_before_cpu);
    assert_true(s.max_main >= n);
    /* Summed over the intervals, the percents give back this thread's CPU
     * seconds, less at most the first 0.25 s of wall time (whose samples
     * have no CPU figures: the CPU window) and the tick lag at each end. */
    if (!(s.cpu_seconds >= truth - 0.25 - 0.02 && s.cpu_seconds <= truth + 0.02))
        fail_msg("%.3f CPU seconds over the intervals; the thread's own: %.3f", s.cpu_seconds,
                 truth);
    gt_tracker_free(&t);
}

/* Another process by PID, with its child as a descendant. */
static void test_other_process(void **state)
{
    (void)state;
    /* The grandchild says when its memory is touched and holds it until
     * released, so the figures do not depend on how fast a loaded machine
     * forks and faults. */
    int ready[2], release[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(release), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        close(release[1]);
        char c;
        if (fork() == 0) {
            size_t n = 16u << 20;
            /* volatile: the compiler may not elide memory nobody reads. */
            char *buf = malloc(n);
            volatile char *p = buf;
            for (size_t i = 0; p && i < n; i += 4096)
                p[i] = 1;
            if (write(ready[1], "r", 1) != 1 || read(release[0], &c, 1) < 0)
                _exit(1);
            free(buf);
            _exit(0);
        }
        close(ready[1]);
        if (read(release[0], &c, 1) < 0)
            _exit(1);
        wait(NULL);
        _exit(0);
    }
    close(ready[1]);
    close(release[0]);
    gt_options o = quiet();
    o.process_id = pid;
    o.ram_unit = GT_RAM_UNIT_BYTES;
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    sleep_ms(300); /* samples while the memory is held */
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    close(release[1]); /* both processes end */
    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    assert_int_equal(u.cpu_utilization.descendants_n_threads, 1);
    assert_true(u.max_ram.descendants.private_rss >= (double)(16u << 20));
    gt_tracker_free(&t);
    waitpid(pid, NULL, 0);
    close(ready[0]);
}

static void test_missing_process(void **state)
{
    (void)state;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0); /* now no such process */
    gt_options o = quiet();
    o.process_id = pid;
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    gt_error e;
    assert_int_equal(gt_tracker_start(t, &e), GT_ERR_NOPROC);
    assert_non_null(strstr(e.msg, "does not exist"));
    gt_tracker_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),        cmocka_unit_test(test_invalid_options),
        cmocka_unit_test(test_walk_budget_accepted),
        cmocka_unit_test(test_unit_names),      cmocka_unit_test(test_lifecycle_errors),
        cmocka_unit_test(test_self_region),     cmocka_unit_test(test_other_process),
        cmocka_unit_test(test_missing_process), cmocka_unit_test(test_timepoint_callback),
        cmocka_unit_test(test_one_sample_cpu_unavailable),
        cmocka_unit_test(test_concurrent_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
