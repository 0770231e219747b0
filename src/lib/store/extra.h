/* SPDX-License-Identifier: MIT */
/* The static-data columns of gpu-tracker's own, the one type the store and
 * its two formats (csv.c, sqlite.c) share; apart from store.h so that the
 * formats need nothing of the store above them. */
#ifndef GT_STORE_EXTRA_H
#define GT_STORE_EXTRA_H

/* A static-data column of gpu-tracker's own, written after the Python
 * package's nine (whose readers take the static row by name, so they still
 * find theirs): the node's name, Slurm's job, step and task, a model's
 * complexity.  value NULL: unavailable (empty CSV cell, SQL NULL).  Stored
 * as text (SQL type TEXT). */
typedef struct gt_store_extra {
    const char *key;
    const char *value;
} gt_store_extra;

#endif
