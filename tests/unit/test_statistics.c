/* SPDX-License-Identifier: MIT */
/* The report's statistics are those of the samples: every max and mean of
 * gt_usage is recomputed from the tracking file of the same run (which holds
 * each sample's exact doubles, as repr() round-trips) and must be equal to
 * the last bit.  The workload varies memory, CPU and threads over time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker.h"

/* Where the spinning goes, so the compiler keeps the loop. */
static volatile unsigned long sink;

static void burn(double secs)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 100000; i++)
            sink += (unsigned long)i;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
}

/* The tracking file, whose rows the workload counts. */
static const char *tracking;

static long lines_of(const char *path)
{
    FILE *f = fopen(path, "r");
    long n = 0;
    int c;
    if (!f)
        return 0;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/* Burns 0.1 s, then on until n more rows are in the tracking file: n - 1
 * samples at least taken wholly within this phase, however slowly a loaded
 * machine lets the tracker sample. */
static void burn_sampled(long n)
{
    long want = lines_of(tracking) + n;
    burn(0.1);
    while (lines_of(tracking) < want)
        burn(0.005);
}

static void *burner(void *arg)
{
    (void)arg;
    burn_sampled(5);
    return NULL;
}

/* Grows in steps, burns on two threads for a while, forks a child that
 * holds memory and burns, then idles.  Each phase lasts until samples saw
 * it. */
static void workload(void)
{
    size_t step = 4u << 20;
    char *blocks[4] = {0};
    for (int i = 0; i < 4; i++) {
        blocks[i] = malloc(step);
        if (blocks[i])
            memset(blocks[i], i + 1, step);
        burn(0.03);
    }
    pthread_t th;
    if (pthread_create(&th, NULL, burner, NULL) == 0) {
        burn_sampled(5);
        pthread_join(th, NULL);
    }
    pid_t c = fork();
    if (c == 0) {
        char *m = malloc(8u << 20);
        if (m)
            memset(m, 7, 8u << 20);
        burn_sampled(5);
        free(m);
        _exit(0);
    }
    if (c > 0)
        waitpid(c, NULL, 0);
    struct timespec idle = {0, 50 * 1000000L};
    nanosleep(&idle, NULL);
    for (int i = 0; i < 4; i++)
        free(blocks[i]);
}

typedef struct stats {
    double max[4], sum[4]; /* CPU sum percents: system, main, descendants, combined */
    /* The same weighed by the time since the row before (the first row with
     * a figure: since the first row), and that time summed: the mean is
     * over time. */
    double wsum[4], span;
    unsigned long n_cpu, n;
    double max_ram[4];     /* main, descendants, combined, system */
    long max_threads[3];
} stats;

static double cell(char **f, int i)
{
    return f[i][0] ? strtod(f[i], NULL) : -1;
}

/* Reads the rows of a CSV tracking file: one stats from the exact values. */
static stats from_file(const char *path)
{
    stats s;
    memset(&s, 0, sizeof s);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char line[2048];
    double first_t = 0, last_t = 0;
    for (int l = 0; fgets(line, sizeof line, in); l++) {
        if (l < 3)
            continue; /* static header, static row, timepoint header */
        char *f[22], *p = line;
        int n = 0;
        for (; n < 22; n++) {
            f[n] = p;
            p += strcspn(p, ",\n");
            if (!*p)
                break;
            *p++ = '\0';
        }
        assert_int_equal(n, 22);
        s.n++;
        const int ram_cols[4] = {0, 1, 2, 3};
        for (int k = 0; k < 4; k++)
            if (cell(f, ram_cols[k]) > s.max_ram[k])
                s.max_ram[k] = cell(f, ram_cols[k]);
        for (int k = 0; k < 3; k++)
            if (strtol(f[10 + k], NULL, 10) > s.max_threads[k])
                s.max_threads[k] = strtol(f[10 + k], NULL, 10);
        double t = strtod(f[21], NULL);
        if (s.n == 1)
            first_t = t;
        double dt = t - (s.n_cpu ? last_t : first_t);
        last_t = t;
        if (!f[13][0])
            continue; /* the first sample closes no CPU interval */
        s.n_cpu++;
        const int cpu_cols[4] = {13, 15, 17, 19};
        for (int k = 0; k < 4; k++) {
            double v = cell(f, cpu_cols[k]);
            if (v > s.max[k])
                s.max[k] = v;
            s.sum[k] += v;
            if (dt > 0)
                s.wsum[k] += v * dt;
        }
        if (dt > 0)
            s.span += dt;
    }
    fclose(in);
    return s;
}

static void expect_pct(const gt_percentages *p, const stats *s, int k, int div)
{
    assert_true(p->max_sum_percent == s->max[k]);
    assert_true(p->max_hardware_percent == s->max[k] / div);
    double mean = s->wsum[k] / s->span;
    if (mean > s->max[k]) /* rounding of a single interval's figure */
        mean = s->max[k];
    assert_true(p->mean_sum_percent == mean);
    assert_true(p->mean_hardware_percent == mean / div / 1.0);
}

static void test_usage_is_the_samples_statistics(void **state)
{
    (void)state;
    char path[] = "/tmp/gt-test-stats-XXXXXX.csv";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    tracking = path;
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) == 1)
            workload();
        _exit(0);
    }
    close(go[0]);

    gt_options o;
    gt_options_init(&o, GT_STRUCT_VERSION);
    o.disable_logs = 1;
    o.sleep_time = 0.01;
    o.ram_unit = GT_RAM_UNIT_BYTES;
    o.n_expected_cores = 3;
    o.process_id = pid;
    o.tracking_file = path;
    o.overwrite = 1;
    /* The samples' statistics: the event backend would give Max RAM's
     * totals from the kernel's events instead (track_events.sh). */
    o.events = GT_EVENTS_OFF;
    gt_tracker *t;
    assert_int_equal(gt_tracker_new(&o, &t, NULL), GT_OK);
    assert_int_equal(gt_tracker_start(t, NULL), GT_OK);
    assert_int_equal(write(go[1], "g", 1), 1);
    close(go[1]);
    /* Until the workload exits (the tracker stops sampling it by itself). */
    siginfo_t si;
    assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
    assert_int_equal(gt_tracker_stop(t, NULL), GT_OK);
    waitpid(pid, NULL, 0);
    gt_usage u = GT_USAGE_INIT;
    assert_int_equal(gt_tracker_usage(t, &u, NULL), GT_OK);
    gt_tracker_free(&t);

    stats s = from_file(path);
    assert_true(s.n >= 10); /* two phases of 5 rows, and the first and last samples */
    assert_int_equal(u.n_samples, s.n);
    /* Samples in the first 0.25 s have no CPU figures (the CPU window). */
    assert_true(s.n_cpu >= 1 && s.n_cpu <= s.n - 1);
    int cores = u.cpu_utilization.system_core_count;
    assert_int_equal(u.cpu_utilization.n_expected_cores, 3);
    expect_pct(&u.cpu_utilization.system, &s, 0, cores);
    expect_pct(&u.cpu_utilization.main, &s, 1, 3);
    expect_pct(&u.cpu_utilization.descendants, &s, 2, 3);
    expect_pct(&u.cpu_utilization.combined, &s, 3, 3);
    assert_true(u.max_ram.main.total_rss == s.max_ram[0]);
    assert_true(u.max_ram.descendants.total_rss == s.max_ram[1]);
    assert_true(u.max_ram.combined.total_rss == s.max_ram[2]);
    assert_true(u.max_ram.system == s.max_ram[3]);
    assert_int_equal(u.cpu_utilization.main_n_threads, s.max_threads[0]);
    assert_int_equal(u.cpu_utilization.descendants_n_threads, s.max_threads[1]);
    assert_int_equal(u.cpu_utilization.combined_n_threads, s.max_threads[2]);
    /* The workload did vary: 16 MiB, a second thread, a child with 8 MiB. */
    assert_true(s.max_ram[0] >= 16 << 20);
    assert_true(s.max_ram[1] >= 8 << 20);
    assert_true(s.max_threads[0] == 2 && s.max_threads[1] == 1);
    assert_true(s.max[1] > 0 && s.max[2] > 0);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage_is_the_samples_statistics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
