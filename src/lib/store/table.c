/* SPDX-License-Identifier: MIT */
/* The column store both readers fill, and what reads it (see table.h);
 * table_read.c picks the reader. */
#include "store/table_impl.h"
#include "util/error.h"
#include "util/grow.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const GT_TABLE_ALL_TEXT[] = {NULL};

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
    for (int k = 0; k < want; k++) {
        const char *name = columns ? columns[k] : names[k];
        int i = t->ncols;
        if (columns) {
            int optional = name[0] == '?';
            name += optional;
            int f = 0;
            while (f < n && (strcmp(names[f], name) != 0 || t->map[f] >= 0))
                f++;
            if (f == n && optional)
                continue;
            if (f == n)
                return gt_err(err, GT_ERR_FORMAT, "'%s' has no column '%s'", t->path, name);
            t->map[f] = i;
        }
        if (!(t->cols[i].name = strdup(name)))
            return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory", t->path);
        t->ncols = i + 1;
        t->cols[i].is_text = wanted_as_text(name, text_columns);
        t->cols[i].integer = 1;
        t->cols[i].store = GT_COL_CONST;
    }
    return GT_OK;
}

gt_status gt_table_grow(gt_table *t, gt_error *err)
{
    if (t->nrows < t->cap)
        return GT_OK;
    /* Sized for the widest cell a column may come to store (see widen). */
    size_t widest = sizeof(double) > sizeof(char *) ? sizeof(double) : sizeof(char *);
    size_t cap = gt_grow_cap(t->cap, t->nrows + 1, 1024, widest);
    if (!cap)
        goto nomem;
    for (int i = 0; i < t->ncols; i++) {
        gt_table_col *c = &t->cols[i];
        if (c->is_text) {
            char **p = realloc(c->text, cap * sizeof *p);
            if (!p)
                goto nomem;
            /* NULL until set, so a row abandoned half-way is freed too. */
            memset(p + t->cap, 0, (cap - t->cap) * sizeof *p);
            c->text = p;
        } else if (c->store == GT_COL_INT32) {
            int32_t *p = realloc(c->i32, cap * sizeof *p);
            if (!p)
                goto nomem;
            c->i32 = p;
        } else if (c->store == GT_COL_DOUBLE) {
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

/* An int32 that is exactly v (INT32_MIN is the missing value), or 0. */
static int as_int32(double v, int32_t *out)
{
    if (isnan(v)) {
        *out = INT32_MIN;
        return 1;
    }
    if (!(v > (double)INT32_MIN && v <= (double)INT32_MAX))
        return 0;
    int32_t i = (int32_t)v;
    if ((double)i != v || (i == 0 && signbit(v)))
        return 0;
    *out = i;
    return 1;
}

static double cell(const gt_table_col *c, size_t row)
{
    switch (c->store) {
    case GT_COL_CONST: return c->cval;
    case GT_COL_INT32: return c->i32[row] == INT32_MIN ? NAN : (double)c->i32[row];
    default: return c->num[row];
    }
}

/* Widens column c to the next store that holds v as well as rows [0, n). */
static gt_status widen(gt_table *t, gt_table_col *c, double v, gt_error *err)
{
    size_t n = t->nrows, cap = t->cap ? t->cap : 1;
    int32_t iv, ic;
    if (c->store == GT_COL_CONST && as_int32(v, &iv) && as_int32(c->cval, &ic)) {
        if (!(c->i32 = malloc(cap * sizeof *c->i32)))
            goto nomem;
        for (size_t r = 0; r < n; r++)
            c->i32[r] = ic;
        c->store = GT_COL_INT32;
        return GT_OK;
    }
    double *num = malloc(cap * sizeof *num);
    if (!num)
        goto nomem;
    for (size_t r = 0; r < n; r++)
        num[r] = cell(c, r);
    free(c->i32);
    c->i32 = NULL;
    c->num = num;
    c->store = GT_COL_DOUBLE;
    return GT_OK;
nomem:
    return gt_err(err, GT_ERR_NOMEM, "'%s': out of memory after %zu rows", t->path, t->nrows);
}

gt_status gt_table_set_number(gt_table *t, int col, double v, gt_error *err)
{
    gt_table_col *c = &t->cols[col];
    gt_status st;
    int32_t iv;
    if (c->store == GT_COL_DOUBLE) {
        c->num[t->nrows] = v;
        return GT_OK;
    }
    for (;;) {
        switch (c->store) {
        case GT_COL_CONST:
            if (t->nrows == 0 || memcmp(&v, &c->cval, sizeof v) == 0) {
                c->cval = v;
                return GT_OK;
            }
            break;
        case GT_COL_INT32:
            if (as_int32(v, &iv)) {
                c->i32[t->nrows] = iv;
                return GT_OK;
            }
            break;
        case GT_COL_DOUBLE:
            c->num[t->nrows] = v;
            return GT_OK;
        }
        if ((st = widen(t, c, v, err)) != GT_OK)
            return st;
    }
}

gt_status gt_table_set(gt_table *t, int col, const char *s, size_t len, long where,
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
    if (len == 0)
        return gt_table_set_number(t, col, NAN, err);
    int is_int;
    double v;
    if (gt_table_parse_number(s, &v, &is_int) != 0)
        return gt_err(err, GT_ERR_FORMAT, "'%s', %s %ld: column '%s' holds '%.40s', not a number",
                      t->path, t->where, where, c->name, s);
    if (!is_int)
        c->integer = 0;
    return gt_table_set_number(t, col, v, err);
}

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int bitlen128(unsigned __int128 q)
{
    uint64_t hi = (uint64_t)(q >> 64), lo = (uint64_t)q;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* q * 2^exp2, rounded to nearest (ties to even) as one rounding of the exact
 * value; sticky says the exact value lies a little above q. */
static double round_binary(unsigned __int128 q, int sticky, int exp2)
{
    int bits = bitlen128(q);
    if (bits <= 53)
        return ldexp((double)(uint64_t)q, exp2); /* exact: sticky is never set here */
    int shift = bits - 53;
    uint64_t mant = (uint64_t)(q >> shift);
    unsigned __int128 rest = q & (((unsigned __int128)1 << shift) - 1);
    unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
    if (rest > half || (rest == half && (sticky || (mant & 1))))
        mant++;
    if (mant >> 53) {
        mant >>= 1;
        shift++;
    }
    return ldexp((double)mant, exp2 + shift);
}

static const uint64_t pow10_u64[] = {1ULL,
                                     10ULL,
                                     100ULL,
                                     1000ULL,
                                     10000ULL,
                                     100000ULL,
                                     1000000ULL,
                                     10000000ULL,
                                     100000000ULL,
                                     1000000000ULL,
                                     10000000000ULL,
                                     100000000000ULL,
                                     1000000000000ULL,
                                     10000000000000ULL,
                                     100000000000000ULL,
                                     1000000000000000ULL,
                                     10000000000000000ULL,
                                     100000000000000000ULL,
                                     1000000000000000000ULL,
                                     10000000000000000000ULL};

/* Decimal m * 10^e10 to the nearest double: Clinger's fast path when both
 * are exact doubles, otherwise exact integer arithmetic in 128 bits for up
 * to 19 digits and |e10| <= 19 (the 17 significant digits of a Python repr
 * land here); -1 for the rest, which strtod takes.  All round correctly, so
 * a cell reads as the same double as Python's float(). */
static int decimal_to_double(uint64_t m, long e10, double *out)
{
    if (m <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
        double v = (double)m;
        *out = e10 < 0 ? v / pow10_exact[-e10] : v * pow10_exact[e10];
    } else if (m == 0) {
        *out = 0.0;
    } else if (e10 >= 0 && e10 <= 19) {
        *out = round_binary((unsigned __int128)m * pow10_u64[e10], 0, 0);
    } else if (e10 < 0 && e10 >= -19) {
        uint64_t d = pow10_u64[-e10];
        int s = 127 - (64 - __builtin_clzll(m));
        unsigned __int128 n = (unsigned __int128)m << s;
        unsigned __int128 q = n / d, r = n % d;
        *out = round_binary(q, r != 0, -s);
    } else {
        return -1;
    }
    return 0;
}

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
            if (m < UINT64_C(1000000000000000000)) {
                m = m * 10 + (uint64_t)(*p - '0');
                if (dot)
                    exp10--;
            } else {
                big = 1; /* more than 19 digits: strtod */
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
    double v;
    if (big || decimal_to_double(m, exp10, &v) != 0) {
        *out = strtod(s, NULL);
        return 0;
    }
    *out = neg ? -v : v;
    return 0;
slow:
    /* nan, inf, hex floats, leading blanks: what Python's float() accepts
     * and strtod agrees with. */
    {
        char *end;
        double x = strtod(s, &end);
        if (end == s || *end != '\0')
            return -1;
        *is_int = 0;
        *out = x;
        return 0;
    }
}

gt_status gt_table_check_range(const char *path, const char *column, const double *v, size_t n, double lo,
                               double hi, int nan_ok, gt_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]) ? nan_ok : v[i] >= lo && v[i] <= hi)
            continue;
        if (isnan(v[i]))
            return gt_err(err, GT_ERR_FORMAT, "tracking file '%s', sample %zu: the %s is missing", path, i + 1,
                          column);
        if (lo == -hi)
            return gt_err(err, GT_ERR_FORMAT, "tracking file '%s', sample %zu: %s %g is out of range (at most %g "
                          "in magnitude)", path, i + 1, column, v[i], hi);
        return gt_err(err, GT_ERR_FORMAT, "tracking file '%s', sample %zu: %s %g is out of range (%g to %g)", path,
                      i + 1, column, v[i], lo, hi);
    }
    return GT_OK;
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

const double *gt_table_numbers(gt_table *t, int col)
{
    gt_table_col *c = &t->cols[col];
    if (c->is_text)
        return NULL;
    if (c->store != GT_COL_DOUBLE) {
        /* Widening by a NaN that is not the constant makes doubles. */
        double *num = malloc((t->nrows ? t->nrows : 1) * sizeof *num);
        if (!num)
            return NULL;
        gt_table_copy_numbers(t, col, 0, t->nrows, num);
        free(c->i32);
        c->i32 = NULL;
        c->num = num;
        c->store = GT_COL_DOUBLE;
    }
    return c->num;
}

double gt_table_number(const gt_table *t, int col, size_t row)
{
    return t->cols[col].is_text ? NAN : cell(&t->cols[col], row);
}

void gt_table_copy_numbers(const gt_table *t, int col, size_t first, size_t n, double *out)
{
    const gt_table_col *c = &t->cols[col];
    if (c->store == GT_COL_DOUBLE && !c->is_text) {
        memcpy(out, c->num + first, n * sizeof *out);
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = c->is_text ? NAN : cell(c, first + i);
}

void gt_table_gather(const gt_table *t, int col, const size_t *rows, size_t n, double *out)
{
    const gt_table_col *c = &t->cols[col];
    if (c->is_text) {
        for (size_t i = 0; i < n; i++)
            out[i] = NAN;
    } else if (c->store == GT_COL_DOUBLE) {
        for (size_t i = 0; i < n; i++)
            out[i] = c->num[rows[i]];
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = cell(c, rows[i]);
    }
}

int gt_table_is_numeric(const gt_table *t, int col)
{
    return !t->cols[col].is_text;
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
        free(c->i32);
        free(c->num);
        free(c->name);
    }
    free(t->cols);
    free(t->map);
    free(t->path);
    free(t);
    *tp = NULL;
}
