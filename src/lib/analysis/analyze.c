/* SPDX-License-Identifier: MIT */
/* gt_analyze: summary statistics of a tracking file, overall and inside the
 * calls of every code block of a sub-tracking file.
 *
 * Calls are paired as the Python package pairs them (analysis/calls.c, which
 * plots share).  The timepoints
 * of a code block are those inside any of its calls (start <= t <= stop),
 * found by a sweep: the timestamps sorted once, each block's calls merged
 * into disjoint intervals, each interval located by binary search.  That is
 * O((N + M) log N) for N timepoints and M calls, where one SQL condition per
 * call is not. */
#include "abi.h"
#include "analysis/calls.h"
#include "analysis/results.h"
#include "analysis/stats.h"
#include "energy/span.h"
#include "store/table.h"
#include "util/error.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const timepoint_required[] = {"timestamp", NULL};

typedef gt_call pair;

/* The timestamps in ascending order, NaN left out; row[i] is the file row of
 * ts[i] (NULL when the file was in order already, so row[i] == i). */
typedef struct timeline {
    const double *ts;
    size_t *row;
    double *own_ts;
    size_t n;
} timeline;

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->stop > y->stop) - (x->stop < y->stop);
}

typedef struct tsrow {
    double ts;
    size_t row;
} tsrow;

static int cmp_tsrow(const void *a, const void *b)
{
    const tsrow *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static gt_status nomem(gt_error *err)
{
    return gt_err(err, GT_ERR_NOMEM, "analysis: out of memory");
}

static gt_status timeline_build(const double *ts, size_t n, timeline *tl, gt_error *err)
{
    int sorted = 1;
    for (size_t i = 0; i < n && sorted; i++)
        if (isnan(ts[i]) || (i && ts[i] < ts[i - 1]))
            sorted = 0;
    if (sorted) {
        tl->ts = ts;
        tl->n = n;
        return GT_OK;
    }
    tsrow *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return nomem(err);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(ts[i]))
            v[m++] = (tsrow){ts[i], i};
    qsort(v, m, sizeof *v, cmp_tsrow);
    tl->own_ts = malloc((m ? m : 1) * sizeof *tl->own_ts);
    tl->row = malloc((m ? m : 1) * sizeof *tl->row);
    if (!tl->own_ts || !tl->row) {
        free(v);
        return nomem(err);
    }
    for (size_t i = 0; i < m; i++) {
        tl->own_ts[i] = v[i].ts;
        tl->row[i] = v[i].row;
    }
    free(v);
    tl->ts = tl->own_ts;
    tl->n = m;
    return GT_OK;
}

/* First index whose timestamp is >= x. */
static size_t lower_bound(const timeline *tl, double x)
{
    size_t lo = 0, hi = tl->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->ts[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct work {
    const gt_table *tp;
    const timeline *tl;
    int ts_col;
    size_t *rows;   /* timepoint rows of the current block */
    pair *merged;
    double *vals, *scratch;
    double *vals2, *scratch2; /* a second thread's, NULL when there is none */
    double **energy;          /* each energy column in timeline order */
} work;

/* The statistics of measures [from, to) over the given rows (NULL: rows
 * 0..n-1), each measure's values gathered into vals first. */
typedef struct colstats_job {
    const gt_table *tp;
    int ts_col;
    const size_t *rows;
    size_t n;
    int from, to;
    double *vals, *scratch;
    gt_stats *out;
} colstats_job;

/* Below this many values a second thread costs more than it saves. */
#define PARALLEL_MIN_VALUES ((size_t)1 << 18)

static void *colstats(void *arg)
{
    colstats_job *j = arg;
    for (int m = j->from; m < j->to; m++) {
        int c = m < j->ts_col ? m : m + 1; /* every column but the timestamp */
        if (j->rows)
            gt_table_gather(j->tp, c, j->rows, j->n, j->vals);
        else
            gt_table_copy_numbers(j->tp, c, 0, j->n, j->vals);
        gt_stats_compute(j->vals, j->n, j->scratch, &j->out[m]);
    }
    return NULL;
}

/* Every measure's statistics into out[]; large jobs are split by measure
 * with a second thread.  The measures are independent, so the numbers do
 * not depend on the split.  The table is only read meanwhile. */
static void all_colstats(const work *w, int nmeasures, const size_t *rows, size_t n,
                         gt_stats *out)
{
    colstats_job a = {w->tp, w->ts_col, rows, n, 0, nmeasures, w->vals, w->scratch, out};
    if (w->vals2 && nmeasures > 1 && n * (size_t)nmeasures >= PARALLEL_MIN_VALUES) {
        colstats_job b = a;
        pthread_t th;
        a.to = b.from = nmeasures / 2;
        b.vals = w->vals2;
        b.scratch = w->scratch2;
        if (pthread_create(&th, NULL, colstats, &b) == 0) {
            colstats(&a);
            pthread_join(th, NULL);
            return;
        }
        a.to = nmeasures; /* no thread: all here */
    }
    colstats(&a);
}

/* Each call's energy is the cumulative value interpolated at its stop
 * minus that at its start, so a call shorter than the sampling interval
 * still gets its share of the interval it falls in. */
static gt_status block_energy(const work *w, const gt_results *r, const pair *pairs, size_t np,
                              gt_block_result *b, gt_error *err)
{
    if (!r->nenergy)
        return GT_OK;
    if (!(b->energy = calloc((size_t)r->nenergy, sizeof *b->energy)))
        return nomem(err);
    for (int e = 0; e < r->nenergy; e++) {
        double *v = w->vals;
        size_t calls = 0;
        for (size_t i = 0; i < np; i++) {
            double j = gt_energy_between(w->tl->ts, w->energy[e], w->tl->n, pairs[i].start,
                                         pairs[i].stop);
            if (!isnan(j))
                v[calls++] = j;
        }
        b->energy[e].calls = calls;
        b->energy[e].total = calls ? gt_pairwise_sum(v, calls) : NAN;
        b->energy[e].mean = calls ? b->energy[e].total / (double)calls : NAN;
    }
    return GT_OK;
}

/* Counts the columns after the timestamp whose names end in suffix, going
 * back from the last column but skip. */
static int count_trailing(const gt_table *tp, int ts_col, int skip, const char *suffix)
{
    size_t sl = strlen(suffix);
    int n = 0;
    for (int c = gt_table_ncols(tp) - 1 - skip; c > ts_col; c--, n++) {
        const char *name = gt_table_name(tp, c);
        size_t len = strlen(name);
        if (len <= sl || strcmp(name + len - sl, suffix))
            break;
    }
    return n;
}

/* gpu-tracker's power columns, the file's last ("_power_watts"): a power
 * series is read by `plot`; the analysis takes energy from the cumulative
 * columns, so it leaves these out. */
static int count_power_columns(const gt_table *tp, int ts_col)
{
    return count_trailing(tp, ts_col, 0, "_power_watts");
}

/* Counts gpu-tracker's energy columns: the columns after the timestamp,
 * before any power columns, whose names end in "_energy_joules". */
static int count_energy_columns(const gt_table *tp, int ts_col)
{
    return count_trailing(tp, ts_col, count_power_columns(tp, ts_col), "_energy_joules");
}

/* The energy columns in timeline order, and their overall joules. */
static gt_status load_energy(const gt_table *tp, const timeline *tl, gt_results *r, work *w,
                             gt_error *err)
{
    int first = gt_table_ncols(tp) - count_power_columns(tp, w->ts_col) - r->nenergy;
    if (!r->nenergy)
        return GT_OK;
    if (!(r->energy_names = calloc((size_t)r->nenergy, sizeof *r->energy_names)) ||
        !(r->overall_energy = calloc((size_t)r->nenergy, sizeof *r->overall_energy)) ||
        !(w->energy = calloc((size_t)r->nenergy, sizeof *w->energy)))
        return nomem(err);
    for (int e = 0; e < r->nenergy; e++) {
        if (!(r->energy_names[e] = strdup(gt_table_name(tp, first + e))) ||
            !(w->energy[e] = malloc((tl->n ? tl->n : 1) * sizeof **w->energy)))
            return nomem(err);
        if (tl->row)
            gt_table_gather(tp, first + e, tl->row, tl->n, w->energy[e]);
        else
            gt_table_copy_numbers(tp, first + e, 0, tl->n, w->energy[e]);
        r->overall_energy[e] = tl->n ? gt_energy_between(tl->ts, w->energy[e], tl->n, tl->ts[0],
                                                          tl->ts[tl->n - 1])
                                     : NAN;
    }
    return GT_OK;
}

static gt_status block_stats(work *w, const gt_results *r, const pair *pairs, size_t np,
                             gt_block_result *b, gt_error *err)
{
    const timeline *tl = w->tl;
    b->num_calls = np;

    /* Compute time, in the order of the calls. */
    for (size_t i = 0; i < np; i++)
        w->vals[i] = pairs[i].stop - pairs[i].start;
    gt_stats_compute(w->vals, np, w->scratch, &b->compute_time);
    b->compute_total = gt_pairwise_sum(w->vals, np);

    size_t nonempty = 0;
    for (size_t i = 0; i < np; i++) {
        size_t k = lower_bound(tl, pairs[i].start);
        nonempty += k < tl->n && tl->ts[k] <= pairs[i].stop;
    }
    b->num_non_empty_calls = nonempty;

    /* Disjoint intervals covering the calls, then the rows inside them. */
    memcpy(w->merged, pairs, np * sizeof *pairs);
    qsort(w->merged, np, sizeof *w->merged, cmp_pair);
    size_t nm = 0;
    for (size_t i = 0; i < np; i++) {
        if (nm && w->merged[i].start <= w->merged[nm - 1].stop) {
            if (w->merged[i].stop > w->merged[nm - 1].stop)
                w->merged[nm - 1].stop = w->merged[i].stop;
        } else {
            w->merged[nm++] = w->merged[i];
        }
    }
    size_t k = 0;
    int ascending = 1;
    for (size_t i = 0; i < nm; i++) {
        for (size_t j = lower_bound(tl, w->merged[i].start);
             j < tl->n && tl->ts[j] <= w->merged[i].stop; j++) {
            size_t row = tl->row ? tl->row[j] : j;
            if (k && row < w->rows[k - 1])
                ascending = 0;
            w->rows[k++] = row;
        }
    }
    /* pandas keeps the file's row order, and the sums follow it. */
    if (!ascending)
        qsort(w->rows, k, sizeof *w->rows, cmp_size);
    b->num_timepoints = k;

    if (!(b->usage = calloc((size_t)(r->nmeasures ? r->nmeasures : 1), sizeof *b->usage)))
        return nomem(err);
    all_colstats(w, r->nmeasures, w->rows, k, b->usage);
    return block_energy(w, r, pairs, np, b, err);
}

static gt_status load_static(const gt_table *t, gt_results *r, gt_error *err)
{
    int n = gt_table_ncols(t);
    if (!(r->statics = calloc((size_t)(n ? n : 1), sizeof *r->statics)))
        return nomem(err);
    r->nstatic = n;
    for (int c = 0; c < n; c++) {
        gt_static_value *v = &r->statics[c];
        const char *s = gt_table_text(t, c, 0);
        double x;
        int is_int;
        if (!(v->name = strdup(gt_table_name(t, c))))
            return nomem(err);
        if (!*s) {
            v->kind = GT_STATIC_NULL;
        } else if (gt_table_parse_number(s, &x, &is_int) == 0) {
            v->kind = is_int ? GT_STATIC_INT : GT_STATIC_FLOAT;
            v->i = is_int ? strtoll(s, NULL, 10) : 0;
            v->f = x;
        } else {
            v->kind = GT_STATIC_TEXT;
            if (!(v->text = strdup(s)))
                return nomem(err);
        }
    }
    return GT_OK;
}

static gt_status analyze(const gt_table *st_tab, gt_table *tp, const gt_table *mk, const char *host,
                         gt_results *r, gt_error *err)
{
    gt_status st;
    gt_block_set set = {0};
    size_t ncalls = 0;
    timeline tl = {0};
    work w = {0};

    if ((st = load_static(st_tab, r, err)) != GT_OK)
        return st;
    if ((st = gt_table_require(tp, timepoint_required, "tracking file", err)) != GT_OK)
        return st;
    int ts_col = gt_table_find(tp, "timestamp");
    int ncols = gt_table_ncols(tp);
    size_t n = gt_table_nrows(tp);
    for (int c = 0; c < ncols; c++)
        if (!gt_table_is_numeric(tp, c))
            return gt_err(err, GT_ERR_FORMAT, "tracking file '%s': column '%s' is not numeric",
                          gt_table_path(tp), gt_table_name(tp, c));

    r->nenergy = count_energy_columns(tp, ts_col);
    /* energy columns, then power columns, come last */
    r->nmeasures = ncols - 1 - r->nenergy - count_power_columns(tp, ts_col);
    r->measures = calloc((size_t)(ncols ? ncols : 1), sizeof *r->measures);
    r->overall = calloc((size_t)(ncols ? ncols : 1), sizeof *r->overall);
    if (mk && (st = gt_blocks_pair(mk, &(gt_blocks_want){.host = host}, &set, err)) != GT_OK)
        goto done;
    for (size_t b = 0; b < set.nblocks; b++)
        ncalls += set.blocks[b].ncalls;
    /* Room for a block's timepoints or its compute times. */
    size_t nwork = n > ncalls ? n : ncalls;
    w.vals = malloc((nwork ? nwork : 1) * sizeof *w.vals);
    w.scratch = malloc((nwork ? nwork : 1) * sizeof *w.scratch);
    if (!r->measures || !r->overall || !w.vals || !w.scratch) {
        st = nomem(err);
        goto done;
    }
    for (int m = 0, c = 0; m < r->nmeasures; m++, c++) {
        if (c == ts_col)
            c++;
        if (!(r->measures[m] = strdup(gt_table_name(tp, c)))) {
            st = nomem(err);
            goto done;
        }
    }
    w.tp = tp;
    w.ts_col = ts_col;
    /* A second thread's buffers; without them all runs in this thread. */
    if ((w.vals2 = malloc((n ? n : 1) * sizeof *w.vals2)) &&
        !(w.scratch2 = malloc((n ? n : 1) * sizeof *w.scratch2))) {
        free(w.vals2);
        w.vals2 = NULL;
    }
    all_colstats(&w, r->nmeasures, NULL, n, r->overall);

    const double *ts = gt_table_numbers(tp, ts_col);
    if (!ts) {
        st = nomem(err);
        goto done;
    }
    if ((st = timeline_build(ts, n, &tl, err)) != GT_OK ||
        (st = load_energy(tp, &tl, r, &w, err)) != GT_OK)
        goto done;
    w.merged = malloc((ncalls ? ncalls : 1) * sizeof *w.merged);
    w.rows = malloc((tl.n ? tl.n : 1) * sizeof *w.rows);
    if (!w.merged || !w.rows) {
        st = nomem(err);
        goto done;
    }
    w.tl = &tl;

    if (!(r->blocks = calloc(set.nblocks ? set.nblocks : 1, sizeof *r->blocks))) {
        st = nomem(err);
        goto done;
    }
    for (size_t i = 0; i < set.nblocks; i++) {
        const gt_block_calls *bc = &set.blocks[i];
        gt_block_result *b = &r->blocks[r->nblocks++];
        if (!(b->name = strdup(bc->name))) {
            st = nomem(err);
            goto done;
        }
        if ((st = block_stats(&w, r, bc->calls, bc->ncalls, b, err)) != GT_OK)
            goto done;
    }
done:
    gt_block_set_free(&set);
    free(tl.own_ts);
    free(tl.row);
    for (int e = 0; w.energy && e < r->nenergy; e++)
        free(w.energy[e]);
    free(w.energy);
    free(w.merged);
    free(w.rows);
    free(w.vals);
    free(w.scratch);
    free(w.vals2);
    free(w.scratch2);
    return st;
}

static const gt_analyze_options analyze_defaults = GT_ANALYZE_OPTIONS_INIT;

gt_status gt_analyze_options_init(gt_analyze_options *o, unsigned int version)
{
    return gt_abi_init(GT_ABI_ANALYZE_OPTIONS, &analyze_defaults, o, version);
}

gt_status gt_analyze(const char *tracking_file, const gt_analyze_options *opts, gt_results **out, gt_error *err)
{
    gt_status st;
    gt_table *st_tab = NULL, *tp = NULL, *mk = NULL;
    gt_results *r = NULL;
    gt_analyze_options o;

    if (!out)
        return gt_err(err, GT_ERR_INVALID, "analysis: no place for the results");
    *out = NULL;
    if (!tracking_file)
        return gt_err(err, GT_ERR_INVALID, "analysis needs a tracking file");
    if ((st = gt_abi_take(GT_ABI_ANALYZE_OPTIONS, opts, &analyze_defaults, &o, sizeof o, err)) != GT_OK)
        return st;
    const char *sub_tracking_file = o.sub_tracking_file, *host = o.host;
    /* The sub-tracking file first: it is small, and its errors say most. */
    if ((sub_tracking_file && (st = gt_table_read_columns(sub_tracking_file, GT_TABLE_MARKS, gt_mark_columns,
                                                          gt_mark_text_columns, &mk, err)) != GT_OK) ||
        (st = gt_table_read(tracking_file, GT_TABLE_STATIC, GT_TABLE_ALL_TEXT, &st_tab, err)) !=
            GT_OK ||
        (st = gt_table_read(tracking_file, GT_TABLE_TIMEPOINTS, NULL, &tp, err)) != GT_OK)
        goto done;
    if (!(r = calloc(1, sizeof *r))) {
        st = nomem(err);
        goto done;
    }
    if ((st = analyze(st_tab, tp, mk, host, r, err)) != GT_OK)
        goto done;
    *out = r;
    r = NULL;
done:
    gt_results_free(&r);
    gt_table_free(&mk);
    gt_table_free(&st_tab);
    gt_table_free(&tp);
    return st;
}

void gt_results_free(gt_results **rp)
{
    if (!rp || !*rp)
        return;
    gt_results *r = *rp;
    for (int i = 0; r->measures && i < r->nmeasures; i++)
        free(r->measures[i]);
    free(r->measures);
    free(r->overall);
    for (int i = 0; r->statics && i < r->nstatic; i++) {
        free(r->statics[i].name);
        free(r->statics[i].text);
    }
    free(r->statics);
    for (size_t i = 0; i < r->nblocks; i++) {
        free(r->blocks[i].name);
        free(r->blocks[i].usage);
        free(r->blocks[i].energy);
    }
    free(r->blocks);
    for (int i = 0; r->energy_names && i < r->nenergy; i++)
        free(r->energy_names[i]);
    free(r->energy_names);
    free(r->overall_energy);
    free(r);
    *rp = NULL;
}
