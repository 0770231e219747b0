/* SPDX-License-Identifier: MIT */
/* The wait for an SQLite tracking file's write lock, held by another
 * program, shared by every connection a tracker has to the file (the main
 * table's and each side table's): a sample waits GT_LOCKWAIT_SAMPLE_MS in
 * all, not that much per connection, and the close GT_LOCKWAIT_CLOSE_MS in
 * all.  Rows that miss the lock wait in memory (at most
 * GT_LOCKWAIT_QUEUE_BYTES per table; later samples are dropped and
 * counted) for a later sample or the close. */
#ifndef GT_STORE_LOCKWAIT_H
#define GT_STORE_LOCKWAIT_H
#include <sqlite3.h>
#include <time.h>

#define GT_LOCKWAIT_SAMPLE_MS 250
#define GT_LOCKWAIT_CLOSE_MS 10000
#define GT_LOCKWAIT_QUEUE_BYTES (16u << 20)

typedef struct gt_lockwait {
    struct timespec deadline; /* CLOCK_MONOTONIC */
} gt_lockwait;

/* From now on, connections attached to w wait for the lock until ms from
 * now, all of them together. */
void gt_lockwait_arm(gt_lockwait *w, int ms);
/* db waits for the lock while w's deadline has not passed (its busy
 * handler; replaces a busy timeout). */
void gt_lockwait_attach(gt_lockwait *w, sqlite3 *db);
#endif
