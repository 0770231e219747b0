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

#endif
