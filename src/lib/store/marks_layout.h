/* SPDX-License-Identifier: MIT */
/* The sub-tracking file's layout, spelled once for what writes one (the
 * subtracker, combine) and what reads one (the pairing of marks, combine):
 * the Python package's four columns, then a host column in files written
 * on a cluster's nodes.  CSV: a header line; SQLite: a table named data. */
#ifndef GT_STORE_MARKS_LAYOUT_H
#define GT_STORE_MARKS_LAYOUT_H

typedef struct gt_marks_layout {
    const char *csv_header; /* the header line, "\n" included */
    const char *sql_create; /* CREATE TABLE data (...) */
    const char *sql_insert; /* INSERT INTO data VALUES (?, ...), one ? a column */
} gt_marks_layout;

/* The layout with the host column (host nonzero) or without. */
const gt_marks_layout *gt_marks_layout_of(int host);

/* The columns a reader asks gt_table_read_columns for, host optional (the
 * Python package's files have none), and those read as text. */
extern const char *const gt_mark_columns[];
extern const char *const gt_mark_text_columns[];

#endif
