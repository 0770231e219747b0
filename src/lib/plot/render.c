/* SPDX-License-Identifier: MIT */
/* Draws gt_plot_data as SVG; see plot.h.  Every series is downsampled to
 * two points per horizontal pixel (min and max), so a file of any length
 * draws in constant size and no peak is lost. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plot/downsample.h"
#include "plot/plot.h"
#include "util/error.h"
#include "util/text.h"

/* Layout, in SVG pixels. */
#define WIDTH 1100
#define LEFT 90
#define RIGHT 230
#define PLOT_W (WIDTH - LEFT - RIGHT)
#define CHART_TOP 34    /* title above a chart's plot area */
#define PLOT_H 190
#define CHART_BOTTOM 46 /* x tick labels and axis title */
#define CHART_H (CHART_TOP + PLOT_H + CHART_BOTTOM)
#define LANE_H 18
#define MAX_LANES 24
#define HEADER_H 16

static const char *const palette[GT_PLOT_MAX_SERIES] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#7f7f7f"};
/* The third series (combined) is the sum of the first two and often lies on
 * one of them: dashed, so the one below stays visible. */
static const char *const dashes[GT_PLOT_MAX_SERIES] = {"none", "none", "7 4", "none"};
static const char *const span_palette[] = {"#8c564b", "#9467bd", "#e377c2", "#17becf",
                                           "#bcbd22", "#d62728", "#393b79", "#637939"};

typedef struct ctx {
    FILE *out;
    double t0, t1;
    double *bt, *bv;      /* downsampling buffers, 2 * PLOT_W each */
    gt_plot_span *spans;  /* sorted by name, then start */
    size_t n_spans;
    int n_lanes;          /* distinct names, at most MAX_LANES drawn */
} ctx;

/* Text from files (code-block names, titles) as XML 1.0 character data:
 * valid UTF-8 and no control character, by the rule of util/text.h (XML
 * forbids them even as references), then the markup characters as
 * entities. */
static void xml_text(FILE *f, const char *s)
{
    char c[GT_TEXT_CHAR_MAX];
    for (size_t len; *s; s += len) {
        len = gt_text_next(s, GT_TEXT_CONTROLS, c);
        switch (c[1] ? 0 : c[0]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputs(c, f);
        }
    }
}

static double x_of(const ctx *c, double t)
{
    return LEFT + (t - c->t0) / (c->t1 - c->t0) * PLOT_W;
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double range, int n)
{
    double raw = range / n, mag = pow(10, floor(log10(raw))), norm = raw / mag;
    return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
}

/* Trailing zeros and a trailing '.' cut, so ticks read "2.5", "10". */
static void fmt_num(double v, double step, char *buf, size_t cap)
{
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    snprintf(buf, cap, "%.*f", dec, fabs(v) < step * 1e-6 ? 0.0 : v);
}

typedef struct time_axis {
    double div;
    const char *unit;
} time_axis;

static time_axis time_unit_for(double seconds)
{
    if (seconds <= 180)
        return (time_axis){1, "s"};
    if (seconds <= 180 * 60)
        return (time_axis){60, "min"};
    if (seconds <= 72 * 3600)
        return (time_axis){3600, "h"};
    return (time_axis){86400, "days"};
}

typedef struct byte_unit {
    double div;
    const char *name;
} byte_unit;

static byte_unit byte_unit_for(double max)
{
    static const char *const names[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    double div = 1;
    while (max / div >= 1000 && u < 4) {
        div *= 1000;
        u++;
    }
    return (byte_unit){div, names[u]};
}

static void x_axis(const ctx *c, double y_top)
{
    FILE *f = c->out;
    time_axis ta = time_unit_for(c->t1 - c->t0);
    double range = (c->t1 - c->t0) / ta.div, step = nice_step(range, 8);
    double y = y_top + PLOT_H;
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", LEFT, y, LEFT + PLOT_W, y);
    for (double v = 0; v <= range + step * 1e-9; v += step) {
        double x = LEFT + v / range * PLOT_W;
        char num[32];
        fmt_num(v, step, num, sizeof num);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y_top, x, y);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, y + 16, num);
    }
    fprintf(f, "<text class=\"label\" x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">time since start (%s)</text>\n",
            LEFT + PLOT_W / 2, y + 36, ta.unit);
}

/* Largest finite value of the chart's series (0 when none). */
static double chart_max(const gt_plot_data *d, const gt_plot_chart *ch, int s)
{
    double m = 0;
    for (size_t i = 0; i < d->n; i++)
        if (ch->series[s].v[i] > m) /* false for NaN */
            m = ch->series[s].v[i];
    return m;
}

typedef void (*span_fn)(const ctx *c, int lane, double x0, double x1, size_t calls, const gt_plot_span *first,
                        double last_stop, double y);

/* Calls fn for the spans of each lane, merging overlapping spans and
 * narrow spans less than a pixel apart, so a block called a million times
 * draws as a few hundred rects, while calls wide enough to see stay apart. */
static void each_span(const ctx *c, span_fn fn, double y)
{
    int lane = -1;
    size_t i = 0;
    while (i < c->n_spans) {
        if (i == 0 || strcmp(c->spans[i].name, c->spans[i - 1].name))
            lane++;
        if (lane >= MAX_LANES)
            return;
        const gt_plot_span *first = &c->spans[i];
        double x0 = x_of(c, first->start), x1 = x_of(c, first->stop), last = first->stop;
        size_t calls = 1;
        /* Overlapping calls (from several processes) always merge. */
        while (++i < c->n_spans && !strcmp(c->spans[i].name, first->name) &&
               (x_of(c, c->spans[i].start) < x1 ||
                (x_of(c, c->spans[i].start) - x1 < 1 &&
                 (x1 - x0 < 3 || x_of(c, c->spans[i].stop) - x_of(c, c->spans[i].start) < 3)))) {
            double nx1 = x_of(c, c->spans[i].stop);
            if (nx1 > x1) {
                x1 = nx1;
                last = c->spans[i].stop;
            }
            calls++;
        }
        fn(c, lane, x0, x1, calls, first, last, y);
    }
}

static void band(const ctx *c, int lane, double x0, double x1, size_t calls, const gt_plot_span *first,
                 double last_stop, double y_top)
{
    (void)calls, (void)first, (void)last_stop;
    fprintf(c->out, "<rect class=\"band\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>\n",
            span_palette[lane % 8], x0, y_top, x1 - x0 < 1 ? 1 : x1 - x0, PLOT_H);
}

static void spans_bands(const ctx *c, double y_top)
{
    each_span(c, band, y_top);
}

static void chart(const ctx *c, const gt_plot_data *d, const gt_plot_chart *ch, double y0)
{
    FILE *f = c->out;
    double y_top = y0 + CHART_TOP;
    double maxes[GT_PLOT_MAX_SERIES] = {0}, ymax = 0;
    for (int s = 0; s < ch->n_series; s++) {
        maxes[s] = chart_max(d, ch, s);
        if (maxes[s] > ymax)
            ymax = maxes[s];
    }
    /* In the chart's values from here on: the axis unit folds in scale. */
    double sc = ch->scale > 0 ? ch->scale : 1;
    ymax *= sc;
    for (int s = 0; s < ch->n_series; s++)
        maxes[s] *= sc;
    double div = 1;
    const char *unit = ch->kind == GT_PLOT_WATTS ? "W" : "%";
    if (ch->kind == GT_PLOT_BYTES) {
        byte_unit bu = byte_unit_for(ymax);
        div = bu.div;
        unit = bu.name;
    }
    double top = ymax / div, step;
    if (!(top > 0))
        top = ch->kind == GT_PLOT_PERCENT ? 100 : 1;
    step = nice_step(top, 5);
    top = ceil(top / step - 1e-9) * step;
    if (top * div < ymax) /* rounding: the largest value must fit */
        top += step;

    fprintf(f, "<g class=\"chart\" data-chart=\"");
    xml_text(f, ch->title);
    fprintf(f, "\">\n<text class=\"title\" x=\"%d\" y=\"%.1f\">", LEFT, y0 + 20);
    xml_text(f, ch->title);
    fprintf(f, "</text>\n<rect class=\"plot\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>\n", LEFT, y_top, PLOT_W,
            PLOT_H);
    spans_bands(c, y_top);
    x_axis(c, y_top);
    if (ch->note) { /* no values: no value axis either */
        fprintf(f, "<text class=\"note\" x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">", LEFT + PLOT_W / 2,
                y_top + PLOT_H / 2.0);
        xml_text(f, ch->note);
        fputs("</text>\n</g>\n", f);
        return;
    }
    for (double v = 0; v <= top + step * 1e-9; v += step) {
        double y = y_top + PLOT_H - v / top * PLOT_H;
        char num[32];
        fmt_num(v, step, num, sizeof num);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", LEFT, y, LEFT + PLOT_W, y);
        fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT - 6, y + 4, num);
    }
    fprintf(f, "<text class=\"label\" transform=\"translate(%d,%.1f) rotate(-90)\" text-anchor=\"middle\">", 22,
            y_top + PLOT_H / 2.0);
    xml_text(f, unit);
    if (ch->y_label) {
        fputc(' ', f);
        xml_text(f, ch->y_label);
    }
    fputs("</text>\n", f);
    for (int s = 0; s < ch->n_series; s++) {
        size_t m = gt_downsample_minmax(d->t, ch->series[s].v, d->n, c->t0, c->t1, PLOT_W, c->bt, c->bv);
        fprintf(f, "<path class=\"series\" data-series=\"");
        xml_text(f, ch->series[s].label);
        fprintf(f, "\" stroke=\"%s\" stroke-dasharray=\"%s\" d=\"", palette[s], dashes[s]);
        int pen = 0;
        for (size_t i = 0; i < m; i++) {
            if (isnan(c->bv[i])) {
                pen = 0;
                continue;
            }
            double y = y_top + PLOT_H - c->bv[i] * sc / div / top * PLOT_H;
            fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', x_of(c, c->bt[i]), y);
            /* A lone point between gaps still shows as a dot. */
            if (!pen && (i + 1 >= m || isnan(c->bv[i + 1])))
                fputs("h0.01", f);
            pen = 1;
        }
        fputs("\"/>\n", f);
        /* Legend: colour, name and the largest value, readable at a glance. */
        double ly = y_top + 14 + s * 22;
        char num[32];
        double mv = maxes[s] / div; /* three significant digits, and 0 as "0" */
        fmt_num(mv, mv >= 100 || mv == 0 ? 1 : mv >= 10 ? 0.1 : 0.01, num, sizeof num);
        fprintf(f, "<line stroke=\"%s\" stroke-dasharray=\"%s\" stroke-width=\"3\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
                palette[s], dashes[s], LEFT + PLOT_W + 14, ly - 4, LEFT + PLOT_W + 34, ly - 4);
        fprintf(f, "<text class=\"legend\" x=\"%d\" y=\"%.1f\">", LEFT + PLOT_W + 40, ly);
        xml_text(f, ch->series[s].label);
        fprintf(f, " (max %s %s)</text>\n", num, unit);
    }
    fputs("</g>\n", f);
}

static void bar(const ctx *c, int lane, double x0, double x1, size_t calls, const gt_plot_span *first,
                double last_stop, double y0)
{
    FILE *f = c->out;
    double y = y0 + lane * LANE_H;
    fprintf(f, "<rect class=\"span\" data-block=\"");
    xml_text(f, first->name);
    fprintf(f, "\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>", span_palette[lane % 8],
            x0, y + 2, x1 - x0 < 1 ? 1 : x1 - x0, LANE_H - 4);
    xml_text(f, first->name);
    fprintf(f, ": %zu call%s, %.3f s to %.3f s after start</title></rect>\n", calls, calls == 1 ? "" : "s",
            first->start - c->t0, last_stop - c->t0);
}

/* The strip of code blocks above the charts: one lane per name. */
static void span_strip(const ctx *c, double y0)
{
    FILE *f = c->out;
    fprintf(f, "<g class=\"blocks\">\n<text class=\"title\" x=\"%d\" y=\"%.1f\">Code blocks</text>\n", LEFT, y0 + 20);
    double top = y0 + CHART_TOP;
    int lane = -1;
    for (size_t i = 0; i < c->n_spans; i++) {
        if (i && !strcmp(c->spans[i].name, c->spans[i - 1].name))
            continue;
        if (++lane >= MAX_LANES)
            break;
        char name[24];
        snprintf(name, sizeof name, "%s", c->spans[i].name);
        if (strlen(c->spans[i].name) >= sizeof name)
            memcpy(name + sizeof name - 4, "...", 4);
        fprintf(f, "<text class=\"lane\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LEFT - 6, top + lane * LANE_H + 13);
        xml_text(f, name);
        fputs("</text>\n", f);
    }
    if (c->n_lanes > MAX_LANES)
        fprintf(f, "<text class=\"note\" x=\"%d\" y=\"%.1f\">%d more code blocks not drawn</text>\n", LEFT,
                top + MAX_LANES * LANE_H + 13, c->n_lanes - MAX_LANES);
    each_span(c, bar, top);
    fputs("</g>\n", f);
}

static int by_name_start(const void *a, const void *b)
{
    const gt_plot_span *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    if (r)
        return r;
    return (x->start > y->start) - (x->start < y->start);
}

static int lanes_shown(const ctx *c)
{
    return c->n_lanes > MAX_LANES ? MAX_LANES + 1 : c->n_lanes;
}

static int strip_height(const ctx *c)
{
    return c->n_lanes ? CHART_TOP + lanes_shown(c) * LANE_H + 12 : 0;
}

static const char style[] =
    "text{font-family:sans-serif;fill:#222}"
    ".title{font-size:15px;font-weight:bold}.tick{font-size:11px;fill:#555}.label{font-size:12px;fill:#333}"
    ".legend{font-size:12px}.lane{font-size:11px}.note{font-size:13px;fill:#888}"
    ".plot{fill:#fff;stroke:#bbb}.grid{stroke:#e6e6e6}.axis{stroke:#888}"
    ".series{fill:none;stroke-width:1.4;stroke-linejoin:round}.band{opacity:.10}.span{opacity:.85;stroke:#fff;stroke-width:.5}";

static void svg_body(const ctx *c, const gt_plot_data *d, int height, int standalone)
{
    FILE *f = c->out;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", WIDTH,
            height, WIDTH, height);
    fprintf(f, "<style>%s</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", style);
    double y = 0;
    if (standalone) {
        fprintf(f, "<text class=\"title\" x=\"%d\" y=\"22\">gpu-tracker: ", LEFT);
        xml_text(f, d->title ? d->title : "tracking session");
        fputs("</text>\n", f);
        y += HEADER_H + 20;
    }
    if (c->n_lanes) {
        span_strip(c, y);
        y += strip_height(c);
    }
    for (int i = 0; i < d->n_charts; i++, y += CHART_H)
        chart(c, d, &d->charts[i], y);
    fputs("</svg>\n", f);
}

static void html_page(const ctx *c, const gt_plot_data *d, int height)
{
    FILE *f = c->out;
    time_t start = (time_t)c->t0;
    struct tm tm;
    char when[64] = "";
    if (gmtime_r(&start, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>gpu-tracker: ", f);
    xml_text(f, d->title ? d->title : "tracking session");
    fputs("</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222;background:#fafafa}"
          "h1{font-size:20px;margin:0 0 4px}p{margin:0 0 12px;color:#555}svg{background:#fff;"
          "box-shadow:0 1px 3px #ccc}</style>\n</head>\n<body>\n<h1>gpu-tracker: ", f);
    xml_text(f, d->title ? d->title : "tracking session");
    fprintf(f, "</h1>\n<p>%zu samples over %.3f s, starting %s; %zu code-block span%s.</p>\n", d->n, c->t1 - c->t0,
            when, c->n_spans, c->n_spans == 1 ? "" : "s");
    svg_body(c, d, height, 0);
    fputs("</body>\n</html>\n", f);
}

gt_status gt_plot_render(const gt_plot_data *d, gt_plot_format fmt, FILE *out, gt_error *err)
{
    if (!d->n)
        return gt_err(err, GT_ERR_INVALID, "no samples to plot");
    ctx c = {out, d->t[0], d->t[d->n - 1], NULL, NULL, NULL, 0, 0};
    if (!(c.t1 > c.t0))
        c.t1 = c.t0 + 1; /* a single sample still gets an axis */
    c.bt = malloc(2 * PLOT_W * sizeof *c.bt);
    c.bv = malloc(2 * PLOT_W * sizeof *c.bv);
    if (d->n_spans)
        c.spans = malloc(d->n_spans * sizeof *c.spans);
    gt_status st = GT_OK;
    if (!c.bt || !c.bv || (d->n_spans && !c.spans)) {
        st = gt_err(err, GT_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (d->n_spans) {
        memcpy(c.spans, d->spans, d->n_spans * sizeof *c.spans);
        qsort(c.spans, d->n_spans, sizeof *c.spans, by_name_start);
        c.n_spans = d->n_spans;
        for (size_t i = 0; i < c.n_spans; i++)
            if (i == 0 || strcmp(c.spans[i].name, c.spans[i - 1].name))
                c.n_lanes++;
    }
    int height = strip_height(&c) + d->n_charts * CHART_H + (fmt == GT_PLOT_SVG ? HEADER_H + 20 : 0);
    errno = 0;
    if (fmt == GT_PLOT_SVG) {
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
        svg_body(&c, d, height, 1);
    } else {
        html_page(&c, d, height);
    }
    if (fflush(out) != 0 || ferror(out))
        st = gt_err(err, GT_ERR_IO, "cannot write the plot: %s", strerror(errno ? errno : EIO));
done:
    free(c.bt);
    free(c.bv);
    free(c.spans);
    return st;
}
