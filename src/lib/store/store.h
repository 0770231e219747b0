/* SPDX-License-Identifier: MIT */
/* Tracking files: every sample written as it is taken, in the Python
 * package's layouts (CSV: static header+row, then timepoint header+rows;
 * SQLite: tables static_data and data).  The format follows the extension. */
#ifndef GT_STORE_STORE_H
#define GT_STORE_STORE_H
#include <sys/types.h>

#include "gpu_tracker.h"
#include "sample.h"
#include "store/append.h"
#include "store/extra.h"

typedef struct gt_store gt_store;
struct gt_lockwait;

/* Creates path (".csv" or ".sqlite", else GT_ERR_INVALID).  An existing file
 * is GT_ERR_EXISTS unless overwrite; a planted symlink is never followed
 * without overwrite.  Writes the static data immediately.  with_energy: the
 * energy columns follow the Python package's (energy is measured); without,
 * the file has the package's columns alone, so its readers see no empty
 * columns. */
gt_status gt_store_open(const char *path, int overwrite, const gt_static_data *sd, int with_energy,
                        gt_store **out, gt_error *err);
/* gt_store_open with nextra static columns of text after the Python
 * package's.  A key is lowercase letters, digits and '_' (a letter first),
 * at most 64 of them, and names no other static column; a value is at most
 * 4096 bytes.  Else GT_ERR_INVALID, nothing created.  The strings are not
 * kept.  With with_energy, the npower power columns power[] (at most
 * GT_POWER_SLOTS; copied) follow the energy columns. */
gt_status gt_store_open_extra(const char *path, int overwrite, const gt_static_data *sd, int with_energy,
                              const gt_store_extra *extra, size_t nextra, const gt_power_column *power,
                              int npower, gt_store **out, gt_error *err);
/* Adds a static column (rules of gt_store_open_extra) to a file that has
 * no sample yet: GT_ERR_STATE after the first gt_store_append.  On failure
 * the file is as before, except after a failed write (GT_ERR_IO). */
gt_status gt_store_add_static(gt_store *s, const char *key, const char *value, gt_error *err);
/* Appends one timepoint; the row is on disk (written, not fsynced) when this
 * returns, so a killed tracker leaves every earlier sample readable. */
gt_status gt_store_append(gt_store *s, const gt_sample *smp, gt_error *err);
/* Where close reports a tracking file that was deleted while tracking and
 * re-created from the still-open file (NULL: not reported). */
void gt_store_set_log(gt_store *s, gt_log_fn log, void *ctx);
/* Gives a CSV tracking file to uid:gid through the descriptor the store
 * holds, never by name, and so the file close re-creates if it was deleted
 * while tracking: for a privileged program writing into a user's folder.
 * GT_ERR_INVALID for an SQLite file, whose -wal and -shm files SQLite makes
 * by name itself; GT_ERR_IO when fchown fails. */
gt_status gt_store_chown(gt_store *s, uid_t uid, gid_t gid, gt_error *err);
/* An SQLite file's connection waits for the write lock by w
 * (store/lockwait.h), shared with the side tables' connections, instead of
 * its own timeouts; w outlives s.  Nothing for a CSV file. */
void gt_store_set_lockwait(gt_store *s, struct gt_lockwait *w);
/* Closes and removes the file (and SQLite's files beside it), for a file
 * just created and never used; NULL-safe, sets *s to NULL. */
void gt_store_discard(gt_store **s);
/* Flushes and closes; NULL-safe; sets *s to NULL.  A file deleted while
 * tracking is re-created with every sample (an error if its name has been
 * taken meanwhile). */
gt_status gt_store_close(gt_store **s, gt_error *err);

/* Whether gt_store_create_file could create path, or with overwrite
 * replace what is there, without changing anything: GT_ERR_EXISTS (unless
 * overwrite), or GT_ERR_IO when what is there cannot be replaced (a
 * folder, a folder the caller may not write, another user's file in a
 * sticky folder).  Run on every file of a run before any is replaced, so a
 * refused run deletes nothing. */
gt_status gt_store_check_file(const char *path, int overwrite, const char *what, const char *hint, gt_error *err);
/* Creates path empty for writing (what names the file in messages, hint
 * says how to replace it).  An existing file is GT_ERR_EXISTS unless
 * overwrite (gt_store_check_file); a symbolic link is never followed. */
gt_status gt_store_create_file(const char *path, int overwrite, const char *what,
                               const char *hint, int *fd_out, gt_error *err);

typedef struct gt_file_owner {
    uid_t uid;
    gid_t gid;
} gt_file_owner;
/* A file deleted while tracking: re-created under path from the complete
 * contents still held by from, given to owner through its descriptor
 * (unless NULL: see gt_store_chown), and log (unless NULL) says so.  If
 * another file has taken the name, that file is left alone and GT_ERR_IO
 * says the samples are lost. */
gt_status gt_store_rescue(int from, const char *path, const gt_file_owner *owner, gt_log_fn log, void *log_ctx,
                          gt_error *err);

/* Timepoint columns: gt_store_column_name() in row.h (the Python
 * package's 21 measurements and "timestamp", gpu-tracker's own, then the
 * energy columns, which a file has only with_energy; its power columns
 * follow, named by the gt_power_column list). */
/* Static-data column names in file order. */
extern const char *const gt_store_static_columns[];
extern const int gt_store_nstatic_columns;
#endif
