/* SPDX-License-Identifier: MIT */
/* See sqlrow.h. */
#include "store/sqlrow.h"
#include "store/sqltext.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *gt_sqlrow_create(const char *table, const char *const *names, const char *const *types, int n)
{
    size_t size = 64 + strlen(table);
    for (int i = 0; i < n; i++)
        size += strlen(names[i]) + strlen(types[i]) + 8;
    char *sql = malloc(size);
    if (!sql)
        return NULL;
    size_t len = (size_t)snprintf(sql, size, "CREATE TABLE %s (\n", table);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(sql + len, size - len, "\t%s %s%s\n", names[i], types[i], i + 1 < n ? ", " : "");
    snprintf(sql + len, size - len, ")");
    return sql;
}

char *gt_sqlrow_insert(const char *table, const char *const *names, int n)
{
    size_t size = 64 + strlen(table);
    for (int i = 0; i < n; i++)
        size += strlen(names[i]) + 5;
    char *sql = malloc(size);
    if (!sql)
        return NULL;
    size_t len = (size_t)snprintf(sql, size, "INSERT INTO %s (", table);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(sql + len, size - len, "%s%s", i ? ", " : "", names[i]);
    len += (size_t)snprintf(sql + len, size - len, ") VALUES (");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(sql + len, size - len, "%s?", i ? ", " : "");
    snprintf(sql + len, size - len, ")");
    return sql;
}

int gt_sqlrow_bind(sqlite3_stmt *st, const gt_cell *c, int n, const char *text)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < n && rc == SQLITE_OK; i++) {
        switch (c[i].kind) {
        case GT_CELL_FLOAT:
            rc = sqlite3_bind_double(st, i + 1, c[i].f);
            break;
        case GT_CELL_INT:
            rc = sqlite3_bind_int64(st, i + 1, c[i].i);
            break;
        case GT_CELL_TEXT:
            rc = gt_sqltext_bind(st, i + 1, text ? text + c[i].i : c[i].s);
            break;
        case GT_CELL_NULL:
            rc = sqlite3_bind_null(st, i + 1);
            break;
        }
    }
    return rc;
}

int gt_sqlrow_run(sqlite3_stmt *st, const gt_cell *c, int n, const char *text, int *sys_errno)
{
    int rc = gt_sqlrow_bind(st, c, n, text);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
        else if (sys_errno && ((rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_FULL))
            /* sqlite3_system_errno() is often 0 for a failed write; errno
             * still holds the write's reason here. */
            *sys_errno = sqlite3_system_errno(sqlite3_db_handle(st)) ? sqlite3_system_errno(sqlite3_db_handle(st))
                                                                     : errno;
    }
    sqlite3_reset(st);
    return rc;
}

int gt_sqlrow_write_all(sqlite3 *db, sqlite3_stmt *st, const gt_cell *rows, size_t nrows, int n, size_t stride,
                        const char *text, int *sys_errno, char *msg, size_t size)
{
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    for (size_t r = 0; r < nrows && rc == SQLITE_OK; r++)
        rc = gt_sqlrow_run(st, rows + r * stride, n, text, sys_errno);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        snprintf(msg, size, "%s", sqlite3_errmsg(db));
        if (!sqlite3_get_autocommit(db))
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    return rc;
}
