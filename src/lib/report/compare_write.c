/* SPDX-License-Identifier: MIT */
/* Writes a comparison as the Python package prints its ComparisonResults
 * (text: every comparison a one-row pandas table) or its to_json() as
 * json.dumps writes it (one line, ASCII only). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "report/json_indent.h"
#include "report/json_string.h"
#include "util/pyfloat.h"
#include "util/text.h"

/* A key as a heading: Python's key.replace("_", " ").title(), except the
 * names of code blocks, which are printed as they are. */
static void put_label(FILE *out, const gt_comparison *c, const char *key)
{
    for (size_t b = 0; b < c->n_blocks; b++)
        if (!strcmp(c->blocks[b], key)) {
            gt_text_put(out, key, GT_TEXT_CONTROLS, 0);
            return;
        }
    int prev_cased = 0;
    for (const char *p = key; *p; p++) {
        int ch = *p == '_' ? ' ' : (unsigned char)*p;
        int cased = isalpha(ch) != 0;
        fputc(cased ? (prev_cased ? tolower(ch) : toupper(ch)) : ch, out);
        prev_cased = cased;
    }
}

static void put_tabs(FILE *out, int n)
{
    while (n-- > 0)
        fputc('\t', out);
}

/* One value as the table shows it: integers with pandas' sign column,
 * floats as Python's float(f"{x:.8f}"). */
static void format_value(const gt_cmp_series *s, const gt_cmp_value *v, char *buf, size_t size)
{
    if (!v->avail)
        snprintf(buf, size, "nan");
    else if (s->all_int)
        snprintf(buf, size, "% .0f", v->v == 0 ? 0.0 : v->v);
    else
        gt_pyfloat_repr(gt_pyround(v->v, 8), buf, size);
}

/* The table: a header of session names, a row of values, each column
 * right-aligned to its wider cell and preceded by one space. */
static void write_table(FILE *out, const gt_comparison *c, const gt_cmp_series *s, int tabs)
{
    for (int row = 0; row < 2; row++) {
        put_tabs(out, tabs);
        for (size_t k = 0; k < c->n_sessions; k++) {
            size_t j = s->order[k];
            char cell[GT_PYFLOAT_BUFSZ + 8];
            format_value(s, &s->vals[j], cell, sizeof cell);
            /* Characters, not bytes: pandas pads columns by len() of the
             * text; session names are shown escaped. */
            size_t wn = gt_text_width(c->sessions[j], GT_TEXT_CONTROLS), wv = gt_text_width(cell, 0);
            size_t w = wn > wv ? wn : wv;
            fprintf(out, " %*s", (int)(w - (row == 0 ? wn : wv)), "");
            gt_text_put(out, row == 0 ? c->sessions[j] : cell, GT_TEXT_CONTROLS, 0);
        }
        fputc('\n', out);
    }
}

static void write_text(FILE *out, const gt_comparison *c)
{
    put_label(out, c, "overall_resource_usage");
    fputs(":\n", out);
    for (size_t m = 0; m < c->n_meas; m++) {
        fputc('\t', out);
        put_label(out, c, c->meas[m]);
        fputs(":\n", out);
        write_table(out, c, &c->overall[m], 2);
    }
    /* Sessions without code blocks leave these two sections empty (where the
     * Python package fails to print them at all). */
    put_label(out, c, "code_block_resource_usage");
    fputs(":\n", out);
    for (size_t m = 0; m < c->n_meas && c->n_blocks; m++) {
        fputc('\t', out);
        put_label(out, c, c->meas[m]);
        fputs(":\n", out);
        for (size_t b = 0; b < c->n_blocks; b++) {
            fputs("\t\t", out);
            gt_text_put(out, c->blocks[b], GT_TEXT_CONTROLS, 0);
            fputs(":\n", out);
            write_table(out, c, &c->usage[m * c->n_blocks + b], 3);
        }
    }
    put_label(out, c, "code_block_compute_time");
    fputs(":\n", out);
    for (size_t b = 0; b < c->n_blocks; b++) {
        fputc('\t', out);
        gt_text_put(out, c->blocks[b], GT_TEXT_CONTROLS, 0);
        fputs(":\n", out);
        write_table(out, c, &c->time[b], 2);
    }
}

/* {"session": value, ...} in ascending order; full precision. */
static void write_json_series(FILE *out, const gt_comparison *c, const gt_cmp_series *s)
{
    fputc('{', out);
    for (size_t k = 0; k < c->n_sessions; k++) {
        size_t j = s->order[k];
        const gt_cmp_value *v = &s->vals[j];
        char num[GT_PYFLOAT_BUFSZ + 8];
        if (!v->avail)
            snprintf(num, sizeof num, "null");
        else if (s->all_int)
            snprintf(num, sizeof num, "%.0f", v->v == 0 ? 0.0 : v->v);
        else
            gt_pyfloat_repr(v->v, num, sizeof num);
        if (k)
            fputs(", ", out);
        gt_json_put_string(out, c->sessions[j]);
        fprintf(out, ": %s", num);
    }
    fputc('}', out);
}

/* {"block": {...}, ...} for one measurement's series (or compute time). */
static void write_json_blocks(FILE *out, const gt_comparison *c, const gt_cmp_series *first)
{
    fputc('{', out);
    for (size_t b = 0; b < c->n_blocks; b++) {
        if (b)
            fputs(", ", out);
        gt_json_put_string(out, c->blocks[b]);
        fputs(": ", out);
        write_json_series(out, c, &first[b]);
    }
    fputc('}', out);
}

static void write_json(FILE *out, const gt_comparison *c)
{
    fputs("{\"overall_resource_usage\": {", out);
    for (size_t m = 0; m < c->n_meas; m++) {
        if (m)
            fputs(", ", out);
        gt_json_put_string(out, c->meas[m]);
        fputs(": ", out);
        write_json_series(out, c, &c->overall[m]);
    }
    fputs("}, \"code_block_resource_usage\": {", out);
    for (size_t m = 0; m < c->n_meas && c->n_blocks; m++) {
        if (m)
            fputs(", ", out);
        gt_json_put_string(out, c->meas[m]);
        fputs(": ", out);
        write_json_blocks(out, c, &c->usage[m * c->n_blocks]);
    }
    fputs("}, \"code_block_compute_time\": ", out);
    write_json_blocks(out, c, c->time);
    fputc('}', out);
}

static void write_json_ctx(FILE *out, const void *c)
{
    write_json(out, c);
}

gt_status gt_comparison_write(const gt_comparison *c, gt_format fmt, FILE *out)
{
    if (!c || !out || (fmt != GT_FORMAT_TEXT && fmt != GT_FORMAT_JSON))
        return GT_ERR_INVALID;
    if (fmt == GT_FORMAT_TEXT)
        write_text(out, c);
    else if (gt_json_indented(write_json_ctx, c, 1, out) != 0) /* as the Python package's command line */
        return ferror(out) ? GT_ERR_IO : GT_ERR_NOMEM;
    return ferror(out) ? GT_ERR_IO : GT_OK;
}
