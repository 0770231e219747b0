/* SPDX-License-Identifier: MIT */
/* gt_results_write: the analysis as the Python package prints it (its
 * SubTrackingResults text, made of pandas tables) or as JSON (its to_json(),
 * serialized as json.dumps does, missing values as null). */
#include "analysis/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_indent.h"
#include "report/json_string.h"
#include "util/pyfloat.h"
#include "util/text.h"

#define CELL 48

static const char *const stat_names[] = {"min", "max", "mean", "std"};

/* ---- text: pandas DataFrame.to_string with float_format
 * lambda x: str(float(f"{x:.8f}")) ---- */

/* A table of nrows x ncols cells, rendered as pandas renders it: the index
 * left-justified, each column right-justified to its widest cell or header,
 * one space between columns. */
typedef struct table {
    size_t nrows, ncols;
    const char *const *index;
    char (*headers)[CELL];
    char (*cells)[CELL];
} table;

static void put_pad(FILE *out, size_t n)
{
    while (n--)
        fputc(' ', out);
}

static void table_print(FILE *out, const char *indent, const table *t)
{
    /* The index holds code-block names: shown escaped (util/text.h). */
    size_t wi = 0;
    for (size_t r = 0; r < t->nrows; r++)
        if (gt_text_width(t->index[r], GT_TEXT_CONTROLS) > wi)
            wi = gt_text_width(t->index[r], GT_TEXT_CONTROLS);
    size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
    if (!w)
        return;
    for (size_t c = 0; c < t->ncols; c++) {
        w[c] = strlen(t->headers[c]);
        for (size_t r = 0; r < t->nrows; r++)
            if (strlen(t->cells[r * t->ncols + c]) > w[c])
                w[c] = strlen(t->cells[r * t->ncols + c]);
    }
    fputs(indent, out);
    put_pad(out, wi);
    for (size_t c = 0; c < t->ncols; c++) {
        put_pad(out, 1 + w[c] - strlen(t->headers[c]));
        fputs(t->headers[c], out);
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs(indent, out);
        gt_text_put(out, t->index[r], GT_TEXT_CONTROLS, (int)wi);
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            put_pad(out, 1 + w[c] - strlen(s));
            fputs(s, out);
        }
        fputc('\n', out);
    }
    free(w);
}

static void text_float(double x, char *b)
{
    if (isnan(x))
        snprintf(b, CELL, "NaN");
    else
        gt_pyfloat_repr(gt_pyround(x, 8), b, CELL);
}

/* Columns of float dtype: pandas puts a space before their headers. */
static void float_header(char *h, const char *name)
{
    snprintf(h, CELL, " %s", name);
}

static int stats_table(FILE *out, const char *indent, char **names, const gt_stats *s, int n)
{
    char(*headers)[CELL] = calloc(4, CELL);
    char(*cells)[CELL] = calloc((size_t)(n ? n : 1) * 4, CELL);
    if (!headers || !cells) {
        free(headers);
        free(cells);
        return -1;
    }
    for (int c = 0; c < 4; c++)
        float_header(headers[c], stat_names[c]);
    for (int r = 0; r < n; r++) {
        text_float(s[r].min, cells[r * 4 + 0]);
        text_float(s[r].max, cells[r * 4 + 1]);
        text_float(s[r].mean, cells[r * 4 + 2]);
        text_float(s[r].std, cells[r * 4 + 3]);
    }
    table t = {(size_t)n, 4, (const char *const *)names, headers, cells};
    table_print(out, indent, &t);
    free(headers);
    free(cells);
    return 0;
}

static int static_table(FILE *out, const gt_results *r)
{
    size_t n = (size_t)r->nstatic;
    char(*headers)[CELL] = calloc(n ? n : 1, CELL);
    char(*cells)[CELL] = calloc(n ? n : 1, CELL);
    char **heads = calloc(n ? n : 1, sizeof *heads);
    int rc = -1;
    if (!headers || !cells || !heads)
        goto done;
    /* A mixed row is of object dtype: headers as they are, non-float cells
     * with a leading space, floats through float_format. */
    for (size_t c = 0; c < n; c++) {
        const gt_static_value *v = &r->statics[c];
        /* Names and texts from the file (a host name): shown escaped. */
        char *name = gt_text_escape_dup(v->name, GT_TEXT_CONTROLS);
        char *text = v->kind == GT_STATIC_TEXT ? gt_text_escape_dup(v->text, GT_TEXT_CONTROLS) : NULL;
        if (!name || (v->kind == GT_STATIC_TEXT && !text)) {
            free(name);
            free(text);
            goto done;
        }
        snprintf(headers[c], CELL, "%s", name);
        if (text)
            snprintf(cells[c], CELL, " %s", text);
        free(name);
        free(text);
        switch (v->kind) {
        case GT_STATIC_TEXT: break;
        case GT_STATIC_INT: snprintf(cells[c], CELL, " %lld", v->i); break;
        case GT_STATIC_FLOAT: text_float(v->f, cells[c]); break;
        case GT_STATIC_NULL: snprintf(cells[c], CELL, "nan"); break;
        }
    }
    const char *index[] = {""};
    table t = {1, n, index, headers, cells};
    table_print(out, "\t", &t);
    rc = 0;
done:
    free(headers);
    free(cells);
    free(heads);
    return rc;
}

/* gpu-tracker's own: a block's energy per energy column (joules between
 * each call's start and stop, summed over the calls and averaged per call);
 * overall (e == NULL), the joules from the first timepoint to the last. */
static int energy_table(FILE *out, const char *indent, const gt_results *r,
                        const gt_block_energy *e)
{
    size_t n = (size_t)r->nenergy, nc = e ? 3 : 1;
    char(*headers)[CELL] = calloc(nc, CELL);
    char(*cells)[CELL] = calloc(n * nc, CELL);
    if (!headers || !cells) {
        free(headers);
        free(cells);
        return -1;
    }
    float_header(headers[0], "total");
    if (e) {
        float_header(headers[1], "mean");
        snprintf(headers[2], CELL, "calls");
    }
    for (size_t i = 0; i < n; i++) {
        text_float(e ? e[i].total : r->overall_energy[i], cells[i * nc]);
        if (e) {
            text_float(e[i].mean, cells[i * nc + 1]);
            snprintf(cells[i * nc + 2], CELL, "%zu", e[i].calls);
        }
    }
    table t = {n, nc, (const char *const *)r->energy_names, headers, cells};
    table_print(out, indent, &t);
    free(headers);
    free(cells);
    return 0;
}

static int write_text(FILE *out, const gt_results *r)
{
    fputs("Overall:\n", out);
    if (stats_table(out, "\t", r->measures, r->overall, r->nmeasures) != 0)
        return -1;
    fputs("Static Data:\n", out);
    if (static_table(out, r) != 0)
        return -1;
    fputs("Code Block Results:\n", out);
    for (size_t i = 0; i < r->nblocks; i++) {
        const gt_block_result *b = &r->blocks[i];
        /* Keys padded to the longest, "\tNum Non Empty Calls". */
        fputs("\tName:                ", out);
        gt_text_put(out, b->name, GT_TEXT_CONTROLS, 0);
        fputc('\n', out);
        fprintf(out, "\tNum Timepoints:      %zu\n", b->num_timepoints);
        fprintf(out, "\tNum Calls:           %zu\n", b->num_calls);
        fprintf(out, "\tNum Non Empty Calls: %zu\n", b->num_non_empty_calls);
        fputs("\tCompute Time:\n", out);
        static const char *const ct_names[] = {"min", "max", "mean", "std", "total"};
        char headers[5][CELL], cells[5][CELL];
        const gt_stats *ct = &b->compute_time;
        double v[5] = {ct->min, ct->max, ct->mean, ct->std, b->compute_total};
        for (int c = 0; c < 5; c++) {
            float_header(headers[c], ct_names[c]);
            text_float(v[c], cells[c]);
        }
        const char *index[] = {""};
        table t = {1, 5, index, headers, cells};
        table_print(out, "\t\t", &t);
        fputs("\tResource Usage:\n", out);
        if (stats_table(out, "\t\t", r->measures, b->usage, r->nmeasures) != 0)
            return -1;
        if (r->nenergy) {
            fputs("\tEnergy (joules):\n", out);
            if (energy_table(out, "\t\t", r, b->energy) != 0)
                return -1;
        }
        fputc('\n', out);
    }
    if (r->nenergy) {
        fputs("Overall Energy (joules):\n", out);
        if (energy_table(out, "\t", r, NULL) != 0)
            return -1;
    }
    return 0;
}

/* ---- JSON, as json.dumps writes it (", " and ": ", ASCII only) ---- */

static void json_float(FILE *out, double x)
{
    char b[GT_PYFLOAT_BUFSZ];
    if (!isfinite(x)) {
        fputs("null", out);
        return;
    }
    gt_pyfloat_repr(x, b, sizeof b);
    fputs(b, out);
}

static void json_stats_map(FILE *out, char **names, const gt_stats *s, int n)
{
    fputc('{', out);
    for (int i = 0; i < n; i++) {
        if (i)
            fputs(", ", out);
        gt_json_put_string(out, names[i]);
        double v[4] = {s[i].min, s[i].max, s[i].mean, s[i].std};
        fputs(": {", out);
        for (int k = 0; k < 4; k++) {
            fprintf(out, "%s\"%s\": ", k ? ", " : "", stat_names[k]);
            json_float(out, v[k]);
        }
        fputc('}', out);
    }
    fputc('}', out);
}

static void write_json(FILE *out, const gt_results *r)
{
    fputs("{\"overall\": ", out);
    json_stats_map(out, r->measures, r->overall, r->nmeasures);
    fputs(", \"static_data\": {", out);
    for (int i = 0; i < r->nstatic; i++) {
        const gt_static_value *v = &r->statics[i];
        if (i)
            fputs(", ", out);
        gt_json_put_string(out, v->name);
        fputs(": ", out);
        switch (v->kind) {
        case GT_STATIC_TEXT: gt_json_put_string(out, v->text); break;
        case GT_STATIC_INT: fprintf(out, "%lld", v->i); break;
        case GT_STATIC_FLOAT: json_float(out, v->f); break;
        case GT_STATIC_NULL: fputs("null", out); break;
        }
    }
    fputs("}, \"code_block_results\": [", out);
    for (size_t i = 0; i < r->nblocks; i++) {
        const gt_block_result *b = &r->blocks[i];
        const gt_stats *ct = &b->compute_time;
        if (i)
            fputs(", ", out);
        fputs("{\"name\": ", out);
        gt_json_put_string(out, b->name);
        fprintf(out, ", \"num_timepoints\": %zu, \"num_calls\": %zu, \"num_non_empty_calls\": %zu",
                b->num_timepoints, b->num_calls, b->num_non_empty_calls);
        fputs(", \"compute_time\": {\"min\": ", out);
        json_float(out, ct->min);
        fputs(", \"max\": ", out);
        json_float(out, ct->max);
        fputs(", \"mean\": ", out);
        json_float(out, ct->mean);
        fputs(", \"std\": ", out);
        json_float(out, ct->std);
        fputs(", \"total\": ", out);
        json_float(out, b->compute_total);
        fputs("}, \"resource_usage\": ", out);
        json_stats_map(out, r->measures, b->usage, r->nmeasures);
        if (r->nenergy) {
            fputs(", \"energy\": {", out);
            for (int e = 0; e < r->nenergy; e++) {
                fputs(e ? ", " : "", out);
                gt_json_put_string(out, r->energy_names[e]);
                fputs(": {\"total\": ", out);
                json_float(out, b->energy[e].total);
                fputs(", \"mean\": ", out);
                json_float(out, b->energy[e].mean);
                fprintf(out, ", \"calls\": %zu}", b->energy[e].calls);
            }
            fputc('}', out);
        }
        fputc('}', out);
    }
    fputs("]", out);
    if (r->nenergy) {
        fputs(", \"energy\": {", out);
        for (int e = 0; e < r->nenergy; e++) {
            fputs(e ? ", " : "", out);
            gt_json_put_string(out, r->energy_names[e]);
            fputs(": ", out);
            json_float(out, r->overall_energy[e]);
        }
        fputc('}', out);
    }
    fputc('}', out);
}

static void write_json_ctx(FILE *out, const void *r)
{
    write_json(out, r);
}

gt_status gt_results_write(const gt_results *r, gt_format fmt, FILE *out)
{
    if (!r || !out || (fmt != GT_FORMAT_TEXT && fmt != GT_FORMAT_JSON))
        return GT_ERR_INVALID;
    if (fmt == GT_FORMAT_TEXT) {
        if (write_text(out, r) != 0)
            return GT_ERR_NOMEM;
    } else if (gt_json_indented(write_json_ctx, r, 1, out) != 0) {
        /* Laid out as the Python package's command line prints it. */
        return ferror(out) ? GT_ERR_IO : GT_ERR_NOMEM;
    }
    return ferror(out) ? GT_ERR_IO : GT_OK;
}
