/* SPDX-License-Identifier: MIT */
/* Plots: min/max downsampling keeps every bucket's extremes, and the
 * renderer draws every series, the spans and the notes, escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/downsample.h"
#include "plot/plot.h"
#include "util/text.h"

static void test_short_series_copied(void **state)
{
    (void)state;
    const double t[] = {0, 1, 2, 3}, v[] = {5, NAN, 7, 1};
    double ot[8], ov[8];
    assert_int_equal(gt_downsample_minmax(t, v, 4, 0, 3, 2, ot, ov), 4);
    assert_memory_equal(ot, t, sizeof t);
    assert_true(ov[0] == 5 && isnan(ov[1]) && ov[2] == 7 && ov[3] == 1);
    assert_int_equal(gt_downsample_minmax(t, v, 0, 0, 3, 2, ot, ov), 0);
}

/* A deterministic noisy series with one-sample spikes and dips. */
static double value_at(size_t i)
{
    double v = (double)((i * 2654435761u) % 1000) / 10.0;
    if (i % 9973 == 17)
        v = 1000 + (double)(i % 7); /* a peak no bucket may lose */
    if (i % 7919 == 3)
        v = -50;
    return v;
}

static void test_min_max_kept_per_bucket(void **state)
{
    (void)state;
    const size_t n = 200000, buckets = 300;
    double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
    double *ot = malloc(2 * buckets * sizeof *ot), *ov = malloc(2 * buckets * sizeof *ov);
    assert_true(t && v && ot && ov);
    for (size_t i = 0; i < n; i++) {
        t[i] = 1000.0 + (double)i * 0.01;
        v[i] = value_at(i);
    }
    double t0 = t[0], t1 = t[n - 1];
    size_t m = gt_downsample_minmax(t, v, n, t0, t1, buckets, ot, ov);
    assert_true(m <= 2 * buckets && m >= buckets);
    for (size_t i = 1; i < m; i++)
        assert_true(ot[i] > ot[i - 1]); /* time order, no duplicates */
    /* For each bucket, the true min and max are among its output points. */
    for (size_t b = 0; b < buckets; b++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            double x = (t[i] - t0) * (double)buckets / (t1 - t0);
            size_t k = x >= (double)buckets ? buckets - 1 : (size_t)x;
            if (k != b)
                continue;
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
        int got_lo = 0, got_hi = 0;
        for (size_t j = 0; j < m; j++) {
            double x = (ot[j] - t0) * (double)buckets / (t1 - t0);
            size_t k = x >= (double)buckets ? buckets - 1 : (size_t)x;
            if (k != b)
                continue;
            got_lo |= ov[j] == lo;
            got_hi |= ov[j] == hi;
        }
        assert_true(got_lo && got_hi);
    }
    /* Every spike of the whole series survives. */
    size_t spikes = 0, kept = 0;
    for (size_t i = 0; i < n; i++)
        spikes += v[i] >= 1000;
    for (size_t j = 0; j < m; j++)
        kept += ov[j] >= 1000;
    assert_true(spikes > 10);
    assert_int_equal(kept, spikes);
    free(t);
    free(v);
    free(ot);
    free(ov);
}

static void test_gaps_kept(void **state)
{
    (void)state;
    enum { N = 100 };
    double t[N], v[N], ot[20], ov[20];
    for (int i = 0; i < N; i++) {
        t[i] = i;
        v[i] = i >= 40 && i < 60 ? NAN : 1.0; /* unavailable in the middle */
    }
    size_t m = gt_downsample_minmax(t, v, N, 0, N, 10, ot, ov);
    int nan_points = 0;
    for (size_t j = 0; j < m; j++)
        nan_points += isnan(ov[j]);
    assert_int_equal(nan_points, 2); /* buckets 4 and 5 */
    /* A constant bucket keeps one point, not two copies. */
    assert_int_equal(m, 8 + 2);
}

static char *render(const gt_plot_data *d, gt_plot_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    gt_error e;
    assert_int_equal(gt_plot_render(d, fmt, f, &e), GT_OK);
    fclose(f);
    return buf;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void test_render(void **state)
{
    (void)state;
    enum { N = 50000 };
    double *t = malloc(N * sizeof *t), *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    assert_true(t && a && b);
    for (int i = 0; i < N; i++) {
        t[i] = 1.7e9 + i * 0.01;
        a[i] = 1e6 * (1 + (i % 100));
        b[i] = i == 12345 ? 9e9 : 2e6; /* one sample at 9 GB */
    }
    const gt_plot_span spans[] = {
        {"load <data> & \"parse\"", 1.7e9 + 10, 1.7e9 + 20},
        {"train", 1.7e9 + 100, 1.7e9 + 200},
        {"train", 1.7e9 + 300, 1.7e9 + 400},
    };
    gt_plot_data d = {.title = "run.csv", .t = t, .n = N, .n_charts = 2, .spans = spans, .n_spans = 3};
    d.charts[0] = (gt_plot_chart){"RAM", NULL, GT_PLOT_BYTES, NULL, 0, 2, {{"main", a}, {"system", b}}};
    d.charts[1] = (gt_plot_chart){"GPU RAM", NULL, GT_PLOT_BYTES, "no GPU tracked", 0, 1, {{"main", a}}};
    char *h = render(&d, GT_PLOT_HTML);
    assert_non_null(strstr(h, "<!DOCTYPE html>"));
    assert_int_equal(count(h, "<path class=\"series\""), 2);
    assert_non_null(strstr(h, "data-series=\"main\""));
    assert_non_null(strstr(h, "data-series=\"system\""));
    assert_non_null(strstr(h, ">no GPU tracked</text>"));
    /* The axis fits the 9 GB spike and says GB; the legend gives the max. */
    assert_non_null(strstr(h, ">GB</text>"));
    assert_non_null(strstr(h, "system (max 9.00 GB)"));
    assert_non_null(strstr(h, "load &lt;data&gt; &amp; &quot;parse&quot;"));
    assert_null(strstr(h, "<data>"));
    assert_int_equal(count(h, "class=\"span\""), 3);
    assert_non_null(strstr(h, "train: 1 call, 100.000 s to 200.000 s after start"));
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "href="));
    /* Two series downsampled to at most two points per pixel. */
    assert_true(strlen(h) < 200000);
    free(h);
    char *s = render(&d, GT_PLOT_SVG);
    const char *head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"";
    assert_memory_equal(s, head, strlen(head));
    assert_int_equal(count(s, "<path class=\"series\""), 2);
    free(s);
    free(t);
    free(a);
    free(b);
}

/* Many narrow calls merge into few rects; wide adjacent calls stay apart. */
static void test_span_merging(void **state)
{
    (void)state;
    enum { CALLS = 20000 };
    double t[2] = {0, 1000}, v[2] = {0, 0};
    gt_plot_span *sp = malloc((CALLS + 4) * sizeof *sp);
    assert_non_null(sp);
    for (int i = 0; i < CALLS; i++) /* 10 ms calls, 10 ms apart, over 400 s */
        sp[i] = (gt_plot_span){"step", i * 0.02, i * 0.02 + 0.01};
    sp[CALLS] = (gt_plot_span){"epoch", 500, 700};
    sp[CALLS + 1] = (gt_plot_span){"epoch", 700.001, 900};
    sp[CALLS + 2] = (gt_plot_span){"io", 100, 300}; /* two processes at once */
    sp[CALLS + 3] = (gt_plot_span){"io", 200, 400};
    gt_plot_data d = {.t = t, .n = 2, .n_charts = 1, .spans = sp, .n_spans = CALLS + 4};
    d.charts[0] = (gt_plot_chart){.title = "CPU", .kind = GT_PLOT_PERCENT, .n_series = 1};
    d.charts[0].series[0] = (gt_plot_series){"main", v};
    char *h = render(&d, GT_PLOT_HTML);
    assert_int_equal(count(h, "data-block=\"epoch\""), 2);
    assert_int_equal(count(h, "data-block=\"io\""), 1);
    assert_non_null(strstr(h, "io: 2 calls, 100.000 s to 400.000 s after start"));
    /* The value axis of a percent chart without values ends at 100. */
    assert_non_null(strstr(h, ">100</text>"));
    assert_null(strstr(h, ">120</text>"));
    size_t steps = count(h, "data-block=\"step\"");
    assert_true(steps >= 1 && steps < 100);
    assert_non_null(strstr(h, "step: 20000 calls, 0.000 s to 399.990 s after start"));
    free(h);
    free(sp);
}

/* Code-block names and a title from a file no tracker wrote (a sub-tracking
 * file's names are escaped when marked; a foreign or edited one's are not):
 * bytes that are not UTF-8 and control characters.  SVG and HTML stay
 * well-formed UTF-8 without a control character (XML forbids them even as
 * references), each by the rule of util/text.h, as the text \xNN. */
static void test_names_not_utf8(void **state)
{
    (void)state;
    double t[2] = {0, 10}, v[2] = {1, 2};
    const gt_plot_span spans[] = {{"\xff\xfe" "block", 1, 2}, {"red\x1b[31m\nline", 3, 4}};
    gt_plot_data d = {.title = "t\xfe.csv", .t = t, .n = 2, .n_charts = 1, .spans = spans, .n_spans = 2};
    d.charts[0] = (gt_plot_chart){.title = "CPU", .kind = GT_PLOT_PERCENT, .n_series = 1};
    d.charts[0].series[0] = (gt_plot_series){"main", v};
    for (int fmt = 0; fmt < 2; fmt++) {
        char *h = render(&d, fmt ? GT_PLOT_SVG : GT_PLOT_HTML);
        if (!gt_text_clean(h, 0) || strchr(h, '\x1b'))
            fail_msg("%s holds bytes that are not UTF-8 or an escape:\n%s", fmt ? "SVG" : "HTML", h);
        assert_non_null(strstr(h, "\\xff\\xfeblock"));
        assert_non_null(strstr(h, "red\\x1b[31m\\x0aline"));
        assert_non_null(strstr(h, "t\\xfe.csv"));
        free(h);
    }
}

static void test_render_edges(void **state)
{
    (void)state;
    double t = 5, v = 3;
    gt_plot_data d = {.t = &t, .n = 1, .n_charts = 1};
    d.charts[0] = (gt_plot_chart){"CPU", "% of one core", GT_PLOT_PERCENT, NULL, 0, 1, {{"main", &v}}};
    char *h = render(&d, GT_PLOT_HTML);
    assert_non_null(strstr(h, "data-series=\"main\" stroke=\"#1f77b4\" stroke-dasharray=\"none\" d=\"M"));
    assert_non_null(strstr(h, "h0.01")); /* a lone sample shows as a dot */
    free(h);
    /* Values in the file's unit (here megabytes) reach the axis as bytes. */
    double mb[2] = {1.5, 2500}, tt[2] = {0, 1};
    gt_plot_data d2 = {.t = tt, .n = 2, .n_charts = 1};
    d2.charts[0] = (gt_plot_chart){.title = "RAM", .kind = GT_PLOT_BYTES, .scale = 1e6, .n_series = 1};
    d2.charts[0].series[0] = (gt_plot_series){"main", mb};
    h = render(&d2, GT_PLOT_SVG);
    assert_non_null(strstr(h, ">main (max 2.50 GB)</text>"));
    free(h);
    d.n = 0;
    gt_error e;
    assert_int_equal(gt_plot_render(&d, GT_PLOT_HTML, stdout, &e), GT_ERR_INVALID);
    assert_non_null(strstr(e.msg, "no samples"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_series_copied), cmocka_unit_test(test_min_max_kept_per_bucket),
        cmocka_unit_test(test_gaps_kept),           cmocka_unit_test(test_render),
        cmocka_unit_test(test_render_edges),        cmocka_unit_test(test_span_merging),
        cmocka_unit_test(test_names_not_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
