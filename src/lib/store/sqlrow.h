/* SPDX-License-Identifier: MIT */
/* The SQL of a tracking file's SQLite tables, one way for the main file
 * (sqlite.c) and its side tables (side.c): a table's CREATE TABLE, its
 * INSERT of one row, and a row's cells bound. */
#ifndef GT_STORE_SQLROW_H
#define GT_STORE_SQLROW_H
#include <sqlite3.h>

#include "store/row.h"

/* "CREATE TABLE name (\n\tcol TYPE, \n\t...\n)", spelled as in the Python
 * package's files so `.schema` shows the same text.  Column names are ours
 * (fixed words and GPU indexes): no quoting.  NULL when out of memory;
 * caller frees. */
char *gt_sqlrow_create(const char *table, const char *const *names, const char *const *types, int n);

/* "INSERT INTO name (a, b, ...) VALUES (?, ?, ...)".  NULL when out of
 * memory; caller frees. */
char *gt_sqlrow_insert(const char *table, const char *const *names, int n);

/* Binds cells c[0..n) to st's parameters 1..n, text as valid UTF-8
 * (sqltext.h).  A text cell's text is c[i].s, or, with text given, the
 * string at offset c[i].i of text (rows kept while a lock is held).
 * Returns SQLite's code. */
int gt_sqlrow_bind(sqlite3_stmt *st, const gt_cell *c, int n, const char *text);

/* Binds (as gt_sqlrow_bind) and runs st once, leaving it reset for the next
 * row.  A failed write's system errno goes to *sys_errno (NULL: not
 * wanted), read before the reset's own I/O clears it.  Returns SQLITE_OK
 * or SQLite's code. */
int gt_sqlrow_run(sqlite3_stmt *st, const gt_cell *c, int n, const char *text, int *sys_errno);

/* Writes nrows rows with st in one transaction, all or none: row r is the
 * n cells at rows + r * stride (text as gt_sqlrow_bind).  On failure the
 * transaction is rolled back and SQLite's message, which the rollback
 * clears, is kept in msg[size].  Returns SQLITE_OK or SQLite's code. */
int gt_sqlrow_write_all(sqlite3 *db, sqlite3_stmt *st, const gt_cell *rows, size_t nrows, int n, size_t stride,
                        const char *text, int *sys_errno, char *msg, size_t size);

#endif
