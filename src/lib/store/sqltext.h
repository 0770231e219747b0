/* SPDX-License-Identifier: MIT */
/* Text bound into SQLite files as valid UTF-8 (util/text.h), so that
 * Python's sqlite3 and every other reader decode the file. */
#ifndef GT_STORE_SQLTEXT_H
#define GT_STORE_SQLTEXT_H
#include <sqlite3.h>

/* sqlite3_bind_text of s, with bytes that are not UTF-8 as \xNN; s must
 * outlive the statement's step when it needs no escaping (SQLITE_STATIC),
 * an escaped copy is SQLite's to free.  Returns SQLite's code
 * (SQLITE_NOMEM when the copy cannot be made). */
int gt_sqltext_bind(sqlite3_stmt *st, int index, const char *s);

#endif
