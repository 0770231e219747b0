/* SPDX-License-Identifier: MIT */
/* Reading tracking files and sub-tracking files (CSV or SQLite, chosen by
 * the extension) into columns, for the analysis and for any command that
 * needs a file's numbers (plots, exports).
 *
 * A table is read whole into memory, one array per column:
 *  - columns are found by name (gt_table_find); their order is the file's;
 *  - numeric columns hold doubles; an empty CSV cell or an SQL NULL is NaN
 *    (unavailable, never 0); integer cells are converted exactly up to 2^53;
 *  - columns named in text_columns keep their text instead (an empty cell or
 *    NULL is ""), and GT_TABLE_ALL_TEXT keeps every column as text (a REAL
 *    SQLite cell is then written as Python's repr() would write it);
 *  - a cell of a numeric column that is not a number is GT_ERR_FORMAT, with a
 *    message naming the file, the line (CSV) or row (SQLite) and the column.
 * CSV follows the Python csv module: fields with commas, quotes or newlines
 * are quoted with doubled quotes inside; CRLF line ends and blank lines are
 * accepted.  SQLite files are opened read-only.  Numbers parse to the same
 * double as Python's float(). */
#ifndef GT_STORE_TABLE_H
#define GT_STORE_TABLE_H
#include <stddef.h>

#include "gpu_tracker.h"

typedef enum gt_table_part {
    GT_TABLE_STATIC,     /* tracking file: static data (CSV lines 1-2; SQLite table static_data) */
    GT_TABLE_TIMEPOINTS, /* tracking file: timepoints (CSV from line 3; SQLite table data) */
    GT_TABLE_MARKS,      /* sub-tracking file (CSV from line 1; SQLite table data) */
    GT_TABLE_HEADER,     /* the column names alone, no rows (CSV line 1; SQLite table data): what a
                            file is, read without reading its rows */
    GT_TABLE_GPUS        /* a tracking file's per-GPU rows (--per-gpu): the SQLite table gpus of the
                            file, or beside a CSV tracking file its sibling NAME.gpus.csv (from line
                            1); a file without them reads as GT_OK with *out NULL */
} gt_table_part;

typedef struct gt_table gt_table;

/* Pass as text_columns to keep every column as text. */
extern const char *const GT_TABLE_ALL_TEXT[];

/* Reads one part of path.  text_columns: NULL-terminated names kept as text,
 * NULL for none.  On failure *out is NULL and err says why (GT_ERR_INVALID
 * for an unknown extension, GT_ERR_IO for a missing or unreadable file,
 * GT_ERR_FORMAT for malformed content, GT_ERR_NOMEM). */
gt_status gt_table_read(const char *path, gt_table_part part, const char *const *text_columns,
                        gt_table **out, gt_error *err);

/* Reads only the named columns (NULL-terminated), in that order; the file
 * may have others, which are skipped unparsed.  A missing one is
 * GT_ERR_FORMAT ("'PATH' has no column 'NAME'"), except a name written with
 * a leading '?' ("?host"): that column is optional, read when the file has
 * it and otherwise left out of the table (gt_table_find gives -1).
 * columns NULL: all. */
gt_status gt_table_read_columns(const char *path, gt_table_part part, const char *const *columns,
                                const char *const *text_columns, gt_table **out, gt_error *err);

size_t gt_table_nrows(const gt_table *t);
int gt_table_ncols(const gt_table *t);
const char *gt_table_name(const gt_table *t, int col);
/* Index of the first column called name, or -1. */
int gt_table_find(const gt_table *t, const char *name);
/* 1 for a numeric column, 0 for a text one. */
int gt_table_is_numeric(const gt_table *t, int col);
/* One number (NaN: missing, or a text column). */
double gt_table_number(const gt_table *t, int col, size_t row);
/* Numbers of rows [first, first + n) into out. */
void gt_table_copy_numbers(const gt_table *t, int col, size_t first, size_t n, double *out);
/* Numbers of the given rows into out (out[i] = row rows[i]). */
void gt_table_gather(const gt_table *t, int col, const size_t *rows, size_t n, double *out);
/* The column's nrows numbers as one array, or NULL for a text column or
 * when out of memory.  Columns are stored compactly (a constant, 32-bit
 * integers) until this asks for the array, which then stays; prefer the
 * copying accessors above for large tables. */
const double *gt_table_numbers(gt_table *t, int col);
/* A text column's cell, or NULL for a numeric column. */
const char *gt_table_text(const gt_table *t, int col, size_t row);
/* 1 when every non-empty cell of the column was written as an integer (CSV
 * text without '.' or exponent, SQLite INTEGER). */
int gt_table_is_integer(const gt_table *t, int col);
/* The path the table was read from. */
const char *gt_table_path(const gt_table *t);
/* GT_ERR_FORMAT naming the first of names (NULL-terminated) that the table
 * lacks; what describes the file in the message ("sub-tracking file"). */
gt_status gt_table_require(const gt_table *t, const char *const *names, const char *what,
                           gt_error *err);
void gt_table_free(gt_table **t);

/* Bounds of the numbers a tracking file's readers accept: a Unix time
 * within about 3,000 years of 1970 (beyond, the column is surely not a
 * clock), and figures far beyond any machine's, yet far from where the
 * arithmetic on them (sums, scales, grid steps) overflows: 1e308 made every
 * coordinate of a plot NaN. */
#define GT_TABLE_MAX_ABS_TIMESTAMP 1e11
#define GT_TABLE_MAX_ABS_VALUE 1e18

/* GT_ERR_FORMAT naming path, the sample (1-based index into v) and column
 * for the first of v[0..n) outside [lo, hi]: infinite, huge, negative where
 * lo is 0, or (where nan_ok is 0) missing; GT_OK when all are within. */
gt_status gt_table_check_range(const char *path, const char *column, const double *v, size_t n, double lo,
                               double hi, int nan_ok, gt_error *err);

/* Python float() of s, as the readers parse cells: 0 and *out on success, -1
 * when s is not a number; *is_int says whether it was written as an integer
 * (no '.', no exponent). */
int gt_table_parse_number(const char *s, double *out, int *is_int);

#endif
