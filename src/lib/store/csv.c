/* SPDX-License-Identifier: MIT */
/* CSV tracking files: the static header and row, the timepoint header, then
 * one line per sample, each written with a single write(2) from a buffer in
 * the handle, so no row ever waits in a user-space buffer. */
#include "store/backend.h"
#include "store/csvfield.h"
#include "store/append.h"
#include "store/extra.h"
#include "util/error.h"
#include "util/pyfloat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* GT_STORE_MAX_COLUMNS cells of at most GT_PYFLOAT_BUFSZ bytes plus separators. */
#define LINE_MAX_BYTES (GT_STORE_MAX_COLUMNS * (GT_PYFLOAT_BUFSZ + 1) + 2)

/* The last text of each timepoint column: most cells repeat from one row to
 * the next (an idle process's memory, zero GPU figures), and reusing the text
 * of an identical double saves the costly shortest-repr search. */
typedef struct float_memo {
    double v[GT_STORE_MAX_COLUMNS];
    char text[GT_STORE_MAX_COLUMNS][GT_PYFLOAT_BUFSZ];
    unsigned char len[GT_STORE_MAX_COLUMNS]; /* 0: nothing kept */
} float_memo;

typedef struct csv_store {
    int fd;
    off_t size; /* bytes of complete rows */
    int ncols;  /* timepoint columns written */
    const char *const *names; /* their names (the caller's, valid until close) */
    char *path;
    float_memo memo;
    char line[LINE_MAX_BYTES];
} csv_store;

/* repr(v) into p, through column i of memo when there is one. */
static size_t put_float(char *p, double v, float_memo *memo, int i)
{
    if (!memo)
        return gt_pyfloat_repr(v, p, GT_PYFLOAT_BUFSZ);
    /* Bitwise equality: -0.0 and 0.0 print differently. */
    if (memo->len[i] && memcmp(&memo->v[i], &v, sizeof v) == 0) {
        memcpy(p, memo->text[i], memo->len[i]);
        return memo->len[i];
    }
    size_t n = gt_pyfloat_repr(v, memo->text[i], GT_PYFLOAT_BUFSZ);
    memo->v[i] = v;
    memo->len[i] = (unsigned char)n;
    memcpy(p, memo->text[i], n);
    return n;
}

static size_t put_int(char *p, long long v)
{
    char tmp[24];
    size_t n = 0, len = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        p[len++] = '-';
    while (n)
        p[len++] = tmp[--n];
    return len;
}

/* Formats cells as one CSV line (with '\n') into buf of size LINE_MAX_BYTES;
 * text cells are unit names, which need no quoting.  memo: see float_memo,
 * NULL for the static row. */
static size_t format_line(const gt_cell *c, int n, char *buf, float_memo *memo)
{
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (i)
            buf[len++] = ',';
        switch (c[i].kind) {
        case GT_CELL_FLOAT:
            len += put_float(buf + len, c[i].f, memo, i);
            break;
        case GT_CELL_INT:
            len += put_int(buf + len, c[i].i);
            break;
        case GT_CELL_TEXT: {
            size_t m = strlen(c[i].s);
            if (m > GT_PYFLOAT_BUFSZ)
                m = GT_PYFLOAT_BUFSZ;
            memcpy(buf + len, c[i].s, m);
            len += m;
            break;
        }
        case GT_CELL_NULL:
            break;
        }
    }
    buf[len++] = '\n';
    return len;
}

static size_t format_header(const char *const *names, int n, char *buf, size_t size)
{
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        size_t m = strlen(names[i]);
        if (len + m + 2 > size)
            break; /* cannot happen with the fixed column names */
        if (i)
            buf[len++] = ',';
        memcpy(buf + len, names[i], m);
        len += m;
    }
    buf[len++] = '\n';
    return len;
}

static gt_status write_all(csv_store *s, const char *buf, size_t len, gt_error *err)
{
    return gt_store_append_rows(s->fd, s->path, &s->size, buf, len, err);
}

static gt_status csv_append(void *impl, const gt_cell *cells, gt_error *err)
{
    csv_store *s = impl;
    size_t len = format_line(cells, s->ncols, s->line, &s->memo);
    return write_all(s, s->line, len, err);
}

static gt_status csv_close(void *impl, gt_error *err)
{
    csv_store *s = impl;
    gt_status st = GT_OK;
    if (s->fd >= 0 && close(s->fd) != 0)
        st = gt_err(err, GT_ERR_IO, "cannot close tracking file '%s': %s", s->path,
                    strerror(errno));
    free(s->path);
    free(s);
    return st;
}

/* Writes the static header and row (the Python package's columns, then the
 * extra ones) and the timepoint header. */
static gt_status write_head(csv_store *s, const gt_cell *static_cells, const gt_store_extra *extra, size_t nextra,
                            gt_error *err)
{
    /* Both headers (~700 bytes) and the static row fit in 2 KiB; the extra
     * columns add their keys and values, quoted where needed. */
    size_t size = 2048, len = 0;
    for (int c = GT_STORE_NCOLUMNS; c < s->ncols; c++) /* the power columns */
        size += strlen(s->names[c]) + 1;
    for (size_t i = 0; i < nextra; i++)
        size += strlen(extra[i].key) + 2 + GT_CSV_FIELD_MAX(extra[i].value ? strlen(extra[i].value) : 0);
    char *head = malloc(size);
    if (!head)
        return gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", s->path);
    len += format_header(gt_store_static_columns, GT_STORE_NSTATIC_COLUMNS, head, size);
    for (size_t i = 0; i < nextra; i++) /* over the '\n' of the line before */
        len += (size_t)snprintf(head + len - 1, size - len + 1, ",%s\n", extra[i].key) - 1;
    len += format_line(static_cells, GT_STORE_NSTATIC_COLUMNS, head + len, NULL);
    for (size_t i = 0; i < nextra; i++) {
        head[len - 1] = ',';
        len += gt_csv_field(head + len, extra[i].value ? extra[i].value : "", NULL);
        head[len++] = '\n';
    }
    len += format_header(s->names, s->ncols, head + len, size - len);
    gt_status st = write_all(s, head, len, err);
    free(head);
    return st;
}

/* A file with no sample yet is written anew, with one more static column:
 * the static row is the second line, so it cannot grow in place. */
static gt_status csv_add_static(void *impl, const gt_cell *static_cells, const gt_store_extra *extra,
                                size_t nextra, gt_error *err)
{
    csv_store *s = impl;
    if (ftruncate(s->fd, 0) != 0)
        return gt_err(err, GT_ERR_IO, "cannot write tracking file '%s': %s", s->path, strerror(errno));
    s->size = 0;
    return write_head(s, static_cells, extra, nextra, err);
}

const gt_store_backend gt_store_csv_backend = {csv_append, csv_close, csv_add_static, NULL};

gt_status gt_store_csv_open(int fd, const char *path, const gt_cell *static_cells,
                            const gt_store_extra *extra, size_t nextra, const char *const *names, int ncols,
                            void **impl, gt_error *err)
{
    gt_status st;
    csv_store *s = NULL;

    *impl = NULL;
    if (!(s = calloc(1, sizeof *s)) || !(s->path = strdup(path))) {
        st = gt_err(err, GT_ERR_NOMEM, "tracking file '%s': out of memory", path);
        goto fail;
    }
    s->fd = fd;
    s->ncols = ncols;
    s->names = names;
    fd = -1;
    int fl = fcntl(s->fd, F_GETFL);
    if (fl < 0 || fcntl(s->fd, F_SETFL, fl | O_APPEND) != 0) {
        st = gt_err(err, GT_ERR_IO, "tracking file '%s': %s", path, strerror(errno));
        goto fail;
    }
    if ((st = write_head(s, static_cells, extra, nextra, err)) != GT_OK)
        goto fail;
    *impl = s;
    return GT_OK;
fail:
    if (fd >= 0)
        close(fd);
    if (s)
        csv_close(s, NULL);
    return st;
}
