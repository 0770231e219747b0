/* SPDX-License-Identifier: MIT */
/* See sqltext.h. */
#include "store/sqltext.h"

#include <stdlib.h>

#include "util/text.h"

int gt_sqltext_bind(sqlite3_stmt *st, int index, const char *s)
{
    if (gt_text_clean(s, 0))
        return sqlite3_bind_text(st, index, s, -1, SQLITE_STATIC);
    char *e = gt_text_escape_dup(s, 0);
    if (!e)
        return SQLITE_NOMEM;
    return sqlite3_bind_text(st, index, e, -1, free);
}
