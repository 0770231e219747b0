#include "store/table_impl.h"
#include "util/error.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const GT_TABLE_ALL_TEXT[] = {NULL};

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

static int wanted_as_text(const char *name, const char *const *text_columns)
{
    if (text_columns == GT_TABLE_ALL_TEXT)
        return 1;
    for (; text_columns && *text_columns; text_columns++)
        if (strcmp(*text_columns, name) == 0)
            return 1;
    return 0;
}

gt_status gt_table_init(gt_table *t, const char *const *names, int n, const char *const *columns,
                        const char *const *text_columns, gt_error *err)
{
    int want = n;
    if (columns)
        for (want = 0; columns[want]; want++)
            ;
    t->nfile = n;
    if (!(t->cols = calloc((size_t)(want > 0 ? want : 1), sizeof *t->cols)) ||
        !(t->map = malloc((size_t)(n > 0 ? n : 1) * sizeof *t->map)))
        return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", t->path);
    for (int f = 0; f < n; f++)
        t->map[f] = columns ? -1 : f;
    for (int i = 0; i < want; i++) {
        const char *name = columns ? columns[i] : names[i];
        if (columns) {
            int f = 0;
            while (f < n && (strcmp(names[f], name) != 0 || t->map[f] >= 0))
                f++;
            if (f == n)
                return gt_err(err, GT_ERR_FORMAT, "'%s' has no column '%s'", t->path, name);
            t->map[f] = i;
        }
        if (!(t->cols[i].name = strdup(name)))
            return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", t->path);
        t->ncols = i + 1;
        t->cols[i].is_text = wanted_as_text(name, text_columns);
        t->cols[i].integer = 1;
    }
    return GT_OK;
}

gt_status gt_table_grow(gt_table *t, gt_error *err)
{
    if (t->nrows < t->cap)
        return GT_OK;
    size_t cap = t->cap ? t->cap * 2 : 1024;
    for (int i = 0; i < t->ncols; i++) {
        gt_table_col *c = &t->cols[i];
        if (c->is_text) {
            char **p = realloc(c->text, cap * sizeof *p);
            if (!p)
                goto nomem;
            /* NULL until set, so a row abandoned half-way is freed too. */
            memset(p + t->cap, 0, (cap - t->cap) * sizeof *p);
            c->text = p;
        } else {
            double *p = realloc(c->num, cap * sizeof *p);
            if (!p)
                goto nomem;
            c->num = p;
        }
    }
    t->cap = cap;
    return GT_OK;
nomem:
    return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory after %zu rows", t->path, t->nrows);
}

gt_status gt_table_set(gt_table *t, int col, const char *s, size_t len, const char *where,
                       gt_error *err)
{
    gt_table_col *c = &t->cols[col];
    if (c->is_text) {
        char *copy = malloc(len + 1);
        if (!copy)
            return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", t->path);
        memcpy(copy, s, len);
        copy[len] = '\0';
        c->text[t->nrows] = copy;
        return GT_OK;
    }
    if (len == 0) {
        c->num[t->nrows] = NAN;
        return GT_OK;
    }
    int is_int;
    if (gt_table_parse_number(s, &c->num[t->nrows], &is_int) != 0)
        return gt_err(err, GT_ERR_FORMAT, "'%s', %s: column '%s' holds '%.40s', not a number",
                      t->path, where, c->name, s);
    if (!is_int)
        c->integer = 0;
    return GT_OK;
}

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Clinger's fast path: a mantissa below 2^53 and a power of ten up to 22 are
 * both exact doubles, so one multiplication or division rounds correctly.
 * Everything else goes to strtod, which is exact too but slower. */
int gt_table_parse_number(const char *s, double *out, int *is_int)
{
    const char *p = s;
    int neg = 0, any = 0, dot = 0, big = 0, has_exp = 0;
    uint64_t m = 0;
    long exp10 = 0;

    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            any = 1;
            if (m < (UINT64_C(1) << 53) / 10 + 1 && !big) {
                m = m * 10 + (uint64_t)(*p - '0');
                if (dot)
                    exp10--;
            } else {
                big = 1;
            }
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    if (any && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int eneg = 0;
        long e = 0;
        if (*q == '+' || *q == '-')
            eneg = *q++ == '-';
        if (*q < '0' || *q > '9')
            goto slow;
        for (; *q >= '0' && *q <= '9'; q++)
            if (e < 100000)
                e = e * 10 + (*q - '0');
        exp10 += eneg ? -e : e;
        has_exp = 1;
        p = q;
    }
    if (!any || *p != '\0')
        goto slow;
    *is_int = !dot && !has_exp;
    if (!big && m <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)m;
        v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
        *out = neg ? -v : v;
        return 0;
    }
    *out = strtod(s, NULL);
    return 0;
slow:
    /* nan, inf, hex floats, leading blanks: what Python's float() accepts
     * and strtod agrees with. */
    {
        char *end;
        double v = strtod(s, &end);
        if (end == s || *end != '\0')
            return -1;
        *is_int = 0;
        *out = v;
        return 0;
    }
}

gt_status gt_table_read(const char *path, gt_table_part part, const char *const *text_columns,
                        gt_table **out, gt_error *err)
{
    return gt_table_read_columns(path, part, NULL, text_columns, out, err);
}

gt_status gt_table_read_columns(const char *path, gt_table_part part, const char *const *columns,
                                const char *const *text_columns, gt_table **out, gt_error *err)
{
    gt_status st;
    gt_table *t = NULL;

    *out = NULL;
    if (!path)
        return gt_err(err, GT_ERR_INVALID, "no file given");
    int csv = has_suffix(path, ".csv");
    if (!csv && !has_suffix(path, ".sqlite"))
        return gt_err(err, GT_ERR_INVALID,
                      "invalid file name '%s': the extension must be '.csv' or '.sqlite'", path);
    if (!(t = calloc(1, sizeof *t)) || !(t->path = strdup(path))) {
        st = gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", path);
        goto fail;
    }
    st = csv ? gt_table_read_csv(t, part, columns, text_columns, err)
             : gt_table_read_sqlite(t, part, columns, text_columns, err);
    if (st != GT_OK)
        goto fail;
    *out = t;
    return GT_OK;
fail:
    gt_table_free(&t);
    return st;
}

size_t gt_table_nrows(const gt_table *t) { return t->nrows; }
int gt_table_ncols(const gt_table *t) { return t->ncols; }
const char *gt_table_name(const gt_table *t, int col) { return t->cols[col].name; }
const char *gt_table_path(const gt_table *t) { return t->path; }

int gt_table_find(const gt_table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i].name, name) == 0)
            return i;
    return -1;
}

const double *gt_table_numbers(const gt_table *t, int col)
{
    return t->cols[col].is_text ? NULL : t->cols[col].num;
}

const char *gt_table_text(const gt_table *t, int col, size_t row)
{
    return t->cols[col].is_text ? t->cols[col].text[row] : NULL;
}

int gt_table_is_integer(const gt_table *t, int col) { return t->cols[col].integer; }

gt_status gt_table_require(const gt_table *t, const char *const *names, const char *what,
                           gt_error *err)
{
    for (; *names; names++)
        if (gt_table_find(t, *names) < 0)
            return gt_err(err, GT_ERR_FORMAT, "%s '%s' has no column '%s'", what, t->path,
                          *names);
    return GT_OK;
}

void gt_table_free(gt_table **tp)
{
    if (!tp || !*tp)
        return;
    gt_table *t = *tp;
    for (int i = 0; t->cols && i < t->ncols; i++) {
        gt_table_col *c = &t->cols[i];
        if (c->text)
            for (size_t r = 0; r < t->cap; r++)
                free(c->text[r]);
        free(c->text);
        free(c->num);
        free(c->name);
    }
    free(t->cols);
    free(t->map);
    free(t->path);
    free(t);
    *tp = NULL;
}
