/* SPDX-License-Identifier: MIT */
/* The comparison of tracking sessions, shared by the code that builds it
 * (compare.c: reading results files, matching code blocks) and the code that
 * writes it (report/compare_write.c: text and JSON). */
#ifndef GT_ANALYSIS_COMPARE_H
#define GT_ANALYSIS_COMPARE_H
#include <stddef.h>

#include "gpu_tracker.h"

/* One statistic of one session.  A JSON null in the results file is a value
 * that was not available: it sorts last and prints as nan (text) or null. */
typedef struct gt_cmp_value {
    double v;
    int avail;
    int is_int; /* written without a fraction in the results file */
} gt_cmp_value;

/* One comparison: the statistic of every session, and the session indexes
 * in ascending order of value (stable; unavailable values last). */
typedef struct gt_cmp_series {
    gt_cmp_value *vals; /* [n_sessions], in session order */
    size_t *order;      /* [n_sessions] */
    int all_int;        /* every value an integer: printed as integers */
} gt_cmp_series;

struct gt_comparison {
    size_t n_sessions;
    char **sessions;     /* names, in the order given */
    size_t n_meas;
    char **meas;         /* measurement keys, in the first session's order */
    size_t n_blocks;
    char **blocks;       /* matched code-block names ("a -> b" when they differ) */
    gt_cmp_series *overall;  /* [n_meas] */
    gt_cmp_series *usage;    /* [n_meas * n_blocks], measurement-major */
    gt_cmp_series *time;     /* [n_blocks] */
    /* Storage behind the arrays above, one allocation each. */
    gt_cmp_series *series_pool;
    gt_cmp_value *value_pool;
    size_t *order_pool;
};

#endif
