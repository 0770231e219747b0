/* SPDX-License-Identifier: MIT */
#include "util/pyfloat.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t gt_pyfloat_repr(double x, char *buf, size_t size)
{
    if (isnan(x))
        return (size_t)snprintf(buf, size, "nan");
    if (isinf(x))
        return (size_t)snprintf(buf, size, x < 0 ? "-inf" : "inf");
    if (x == 0)
        return (size_t)snprintf(buf, size, signbit(x) ? "-0.0" : "0.0");

    /* Shortest digits that read back as x, as Python's repr.  For a normal
     * double, when some string of at most 15 significant digits reads back
     * it is the only one (15-digit decimals lie further apart than doubles:
     * DBL_DIG), so it is x correctly rounded to 15 digits with its trailing
     * zeros dropped; otherwise 16 digits when x correctly rounded to 16
     * reads back (then the nearest such), else 17, which always does: at
     * most three conversions each way.  Subnormals have fewer bits, so any
     * length may be the shortest: the bisection below finds it (if p digits
     * read back, so do p+1). */
    char e[40];
    if (fabs(x) >= DBL_MIN) {
        snprintf(e, sizeof e, "%.14e", x);
        if (strtod(e, NULL) != x) {
            snprintf(e, sizeof e, "%.15e", x);
            if (strtod(e, NULL) != x)
                snprintf(e, sizeof e, "%.16e", x);
        }
    } else {
        int lo = 0, hi = 16;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            snprintf(e, sizeof e, "%.*e", mid, x);
            if (strtod(e, NULL) == x)
                hi = mid;
            else
                lo = mid + 1;
        }
        snprintf(e, sizeof e, "%.*e", lo, x);
    }
    /* e is "[-]d.ddde[+-]XX": split into sign, digit string and exponent. */
    const char *p = e;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    char digits[24];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int exp10 = atoi(p + 1);

    char out[48];
    size_t n = 0;
    if (neg)
        out[n++] = '-';
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            out[n++] = '0';
            out[n++] = '.';
            for (int i = -1; i > exp10; i--)
                out[n++] = '0';
            memcpy(out + n, digits, nd);
            n += nd;
        } else {
            size_t intlen = (size_t)exp10 + 1;
            for (size_t i = 0; i < intlen; i++)
                out[n++] = i < nd ? digits[i] : '0';
            out[n++] = '.';
            if (nd > intlen) {
                memcpy(out + n, digits + intlen, nd - intlen);
                n += nd - intlen;
            } else {
                out[n++] = '0';
            }
        }
    } else {
        out[n++] = digits[0];
        if (nd > 1) {
            out[n++] = '.';
            memcpy(out + n, digits + 1, nd - 1);
            n += nd - 1;
        }
        int ax = exp10 < 0 ? -exp10 : exp10;
        out[n++] = 'e';
        out[n++] = exp10 < 0 ? '-' : '+';
        if (ax >= 100)
            out[n++] = (char)('0' + ax / 100);
        out[n++] = (char)('0' + ax / 10 % 10);
        out[n++] = (char)('0' + ax % 10);
    }
    if (size == 0)
        return n;
    size_t k = n < size - 1 ? n : size - 1; /* as snprintf: cut, NUL-terminated */
    memcpy(buf, out, k);
    buf[k] = '\0';
    return n;
}

double gt_pyround(double x, int ndigits)
{
    if (!isfinite(x))
        return x;
    /* glibc's printf rounds the exact binary value correctly, which is what
     * Python's round() does too. */
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%.*f", ndigits, x);
    return strtod(tmp, NULL);
}
