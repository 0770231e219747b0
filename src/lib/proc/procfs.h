/* SPDX-License-Identifier: MIT */
/* Cheap /proc access for the sampler: one directory fd per process, every
 * file read relative to it with one open/read/close into a buffer reused
 * across samples (no FILE*, no path building, no allocation once warm). */
#ifndef GT_PROC_PROCFS_H
#define GT_PROC_PROCFS_H
#include <sys/types.h>
#include "gpu_tracker.h"

typedef struct gt_procfs gt_procfs;

/* Opens root (NULL: "/proc"; tests pass a fixture tree). */
gt_status gt_procfs_open(const char *root, gt_procfs **out, gt_error *err);
void gt_procfs_close(gt_procfs **p);

/* O_DIRECTORY fd of root/PID, or -1 with errno (ENOENT: no such process). */
int gt_procfs_open_pid(gt_procfs *p, pid_t pid);
/* fd of the root itself, for system files (meminfo, stat). */
int gt_procfs_root(const gt_procfs *p);

/* Reads all of name (relative to dirfd) into the shared buffer; *data stays
 * valid until the next read.  Returns the length, or -1 with errno set (the
 * process may have exited between open and read: a normal event). */
ssize_t gt_procfs_read(gt_procfs *p, int dirfd, const char *name, const char **data);
/* The same for files of small records (stat, status, children,
 * smaps_rollup): a short read is the end, which saves the read that would
 * return 0.  Not for smaps, whose records can fill a page. */
ssize_t gt_procfs_read_small(gt_procfs *p, int dirfd, const char *name, const char **data);

/* Re-reads an fd kept open across samples (the kernel regenerates /proc
 * text on each read from offset 0), saving an open and a close per file.
 * Only for files of small records (stat, children, meminfo, /proc/stat).
 * An fd of an exited process fails with ESRCH and never shows another
 * process that reused the PID. */
ssize_t gt_procfs_pread(gt_procfs *p, int fd, const char **data);

/* Passes fd through, noting an open the caller made itself that failed
 * with EMFILE or ENFILE (errno is kept). */
int gt_procfs_note_open(gt_procfs *p, int fd);
/* Whether any open since the last call failed with EMFILE or ENFILE (too
 * few descriptors: some processes could not be read); clears the note. */
int gt_procfs_take_fd_short(gt_procfs *p);

/* pread that retries when a signal interrupts it; -1 with errno otherwise. */
ssize_t gt_pread_full(int fd, void *buf, size_t len, off_t off);

/* Calls fn(ctx, name) for each entry of the directory dirfd whose name
 * starts with a digit (PIDs, TIDs), from the directory's current offset.
 * Stops at the first negative return of fn and returns it; returns 0 at the
 * end, -1 with errno when the listing fails. */
typedef int (*gt_procfs_entry_fn)(void *ctx, const char *name);
int gt_procfs_each_pid(int dirfd, gt_procfs_entry_fn fn, void *ctx);

/* Whether this kernel has /proc/PID/smaps_rollup (4.14+) and
 * /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN); checked once. */
int gt_procfs_has_rollup(const gt_procfs *p);
int gt_procfs_has_children(const gt_procfs *p);
#endif
