/* SPDX-License-Identifier: MIT */
/* An output file (a report, a plot) written under a temporary name beside
 * it and renamed into place once complete: a write that fails (a full
 * disk, the file-size limit) or a run refused before its output leaves the
 * old file as it was, and a reader never sees half a file.  The descriptor
 * is close-on-exec, so a command run meanwhile never inherits it.  Every
 * writer of an output file by name goes through here: the CLI's -o of each
 * command and gt_plot_write. */
#ifndef GT_UTIL_OUTFILE_H
#define GT_UTIL_OUTFILE_H
#include <stdio.h>

#include "gpu_tracker.h"

typedef struct gt_outfile {
    FILE *f;          /* where to write; NULL until opened */
    char *dest;       /* the name to rename to; NULL when f is the file itself */
    char *tmp;        /* the temporary name, unlinked unless committed */
    const char *path; /* as the caller gave it, for messages */
    const char *what; /* "output file", "plot file": for messages */
    int in_place;     /* f is the file itself, cut to the output's length at commit */
} gt_outfile;

/* Opens o for path (what names it in messages; both must outlive o).  A
 * path naming something other than a regular file (a terminal, /dev/null,
 * a pipe) is opened as it is, never truncated; so is a file the caller may
 * write in a folder where no temporary file can be made, which is cut to
 * the output's length only at commit; a folder, or a file the caller may
 * not write (checked by access(W_OK): rename() would replace it
 * regardless of its permissions), is refused.  The new file gets the old
 * file's mode, or 0666 less the umask.  GT_ERR_IO with o left closed. */
gt_status gt_outfile_open(const char *path, const char *what, gt_outfile *o, gt_error *err);

/* Closes o's stream and renames the temporary file into place.  GT_ERR_IO
 * when anything written could not be (the old file then stays as it was);
 * the temporary file is removed either way.  GT_OK on an unopened o. */
gt_status gt_outfile_commit(gt_outfile *o, gt_error *err);

/* Closes o without touching its destination; safe on an unopened o. */
void gt_outfile_discard(gt_outfile *o);
#endif
