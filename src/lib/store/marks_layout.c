/* SPDX-License-Identifier: MIT */
/* The sub-tracking file's layout (see marks_layout.h). */
#include "store/marks_layout.h"

#include <stddef.h>

#define CSV_COLUMNS "process_id,code_block_name,position,timestamp"
#define SQL_COLUMNS "process_id BIGINT, code_block_name TEXT, position BIGINT, timestamp FLOAT"
#define SQL_INSERT "INSERT INTO data VALUES (?, ?, ?, ?"

static const gt_marks_layout layouts[2] = {
    {CSV_COLUMNS "\n", "CREATE TABLE data (" SQL_COLUMNS ")", SQL_INSERT ")"},
    {CSV_COLUMNS ",host\n", "CREATE TABLE data (" SQL_COLUMNS ", host TEXT)", SQL_INSERT ", ?)"},
};

const gt_marks_layout *gt_marks_layout_of(int host)
{
    return &layouts[host != 0];
}

const char *const gt_mark_columns[] = {"process_id", "code_block_name", "position", "timestamp", "?host", NULL};
const char *const gt_mark_text_columns[] = {"code_block_name", "host", NULL};
