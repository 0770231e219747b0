/* SPDX-License-Identifier: MIT */
/* The two tracking-file formats behind gt_store: each backend gets a file
 * that store.c has just created safely (empty, no symlink followed) and owns
 * it from then on. */
#ifndef GT_STORE_BACKEND_H
#define GT_STORE_BACKEND_H
#include "store/row.h"
#include "store/store.h"

typedef struct gt_store_backend {
    /* Writes the file's columns of one row of GT_STORE_MAX_COLUMNS cells; on
     * disk when it returns. */
    gt_status (*append)(void *impl, const gt_cell *cells, gt_error *err);
    /* Releases impl whatever happens; the status says whether the file is
     * complete. */
    gt_status (*close)(void *impl, gt_error *err);
    /* Before the first row: the static data gets extra[nextra - 1], a new
     * column after the others (extra[0..nextra - 1) are already there). */
    gt_status (*add_static)(void *impl, const gt_cell *static_cells, const gt_store_extra *extra, size_t nextra,
                            gt_error *err);
    /* The shared wait for a lock (NULL: the file has no lock to wait for). */
    void (*set_lockwait)(void *impl, struct gt_lockwait *w);
} gt_store_backend;

/* Takes ownership of fd (an empty file created for path), closing it on
 * failure too; writes the static data (then the nextra extra columns) and the timepoint header of the ncols
 * columns names[] (the first GT_STORE_NBASE_COLUMNS or more of the timepoint columns, then any power columns),
 * which must stay valid until close.  path is copied.  On failure *impl is NULL. */
gt_status gt_store_csv_open(int fd, const char *path, const gt_cell *static_cells,
                            const gt_store_extra *extra, size_t nextra, const char *const *names, int ncols,
                            void **impl, gt_error *err);
extern const gt_store_backend gt_store_csv_backend;

/* path is an empty file that was just created; creates the tables (data with
 * the ncols columns data_names[] of SQL types data_types[]), writes the
 * static data.
 * On failure *impl is NULL. */
gt_status gt_store_sqlite_open(const char *path, const gt_cell *static_cells,
                               const gt_store_extra *extra, size_t nextra, const char *const *data_names,
                               const char *const *data_types, int ncols, void **impl, gt_error *err);
extern const gt_store_backend gt_store_sqlite_backend;
#endif
