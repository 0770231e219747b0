/* SPDX-License-Identifier: MIT */
/* Side tables of a tracking file (--per-process, --per-gpu): rows that the
 * Python package's layout has no place for, kept apart so that its tables
 * stay exactly as they are.  In an SQLite tracking file a side table is one
 * more table of the same file; beside a CSV tracking file it is a sibling
 * file named after it ("track.csv" -> "track.processes.csv") with a header
 * line of its own.  Each sample's rows are on disk when gt_side_end_sample
 * returns (one write(2); one SQLite transaction), or, while another program
 * holds the SQLite file's write lock, kept in memory and written with a
 * later sample's (store/lockwait.h says how long they wait, and how many
 * may). */
#ifndef GT_STORE_SIDE_H
#define GT_STORE_SIDE_H
#include "store/row.h"

typedef struct gt_side gt_side;
struct gt_lockwait;

/* The side tables there are (--per-process, --per-gpu), NULL-terminated. */
extern const char *const gt_side_tables[];
/* The sibling CSV file of table name beside a CSV tracking file:
 * "dir/track.csv" -> "dir/track.NAME.csv", malloc'd; NULL when
 * tracking_file does not end in ".csv", or out of memory. */
char *gt_side_csv_path(const char *tracking_file, const char *name);

/* Creates side table `name` of tracking_file (which gt_store_open has just
 * created) with ncols columns of the given names and SQL types.  The CSV
 * sibling is refused when it exists, unless overwrite; a symbolic link is
 * never followed.  On failure *out is NULL. */
gt_status gt_side_open(const char *tracking_file, const char *name, const char *const *names,
                       const char *const *types, int ncols, int overwrite, gt_side **out, gt_error *err);
/* For a path named as the CSV sibling of side table `name` beside a
 * tracking file ("dir/track.NAME.csv"), the length of the tracking file's
 * name without its ".csv" ("dir/track"); 0 for any other name. */
size_t gt_side_stem_len(const char *path, const char *name);
/* Whether gt_side_open could create side table name of tracking_file
 * (gt_store_check_file on the CSV sibling; an SQLite table needs no
 * check), changing nothing. */
gt_status gt_side_check(const char *tracking_file, const char *name, int overwrite, gt_error *err);
/* Closes a side table just opened and removes its CSV file, for a run
 * refused after it was created; NULL-safe, sets *s to NULL. */
void gt_side_discard(gt_side **s);
/* An SQLite side table's connection waits for the write lock by w
 * (store/lockwait.h), shared with the main table's, instead of its own
 * timeouts; w outlives s.  Nothing for a CSV file. */
void gt_side_set_lockwait(gt_side *s, struct gt_lockwait *w);
/* Where gt_side_close says that a CSV file deleted while tracking was
 * re-created (NULL: not said). */
void gt_side_set_log(gt_side *s, gt_log_fn log, void *ctx);
/* The path rows go to: the sibling CSV file, or the SQLite file itself. */
const char *gt_side_path(const gt_side *s);
/* Adds one row of ncols cells (text cells are copied) to the current
 * sample's rows. */
gt_status gt_side_add(gt_side *s, const gt_cell *cells, gt_error *err);
/* Writes the current sample's rows. */
gt_status gt_side_end_sample(gt_side *s, gt_error *err);
/* Closes; NULL-safe, sets *s to NULL. */
gt_status gt_side_close(gt_side **s, gt_error *err);
#endif
