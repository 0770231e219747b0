/* SPDX-License-Identifier: MIT */
/* A report file (-o) written under a temporary name beside it and renamed
 * into place once complete: a run that fails before its report, or a check
 * that refuses to run, leaves the old file as it was, and a reader never
 * sees half a report.  The descriptor is close-on-exec, so a tracked
 * command never inherits it. */
#ifndef GT_CLI_OUTFILE_H
#define GT_CLI_OUTFILE_H
#include <stdio.h>

typedef struct gt_cli_outfile {
    FILE *f;    /* where to write; NULL until opened */
    char *dest; /* the name to rename to; NULL when f is the file itself */
    char *tmp;  /* the temporary name, unlinked unless committed */
    const char *path; /* as the user gave it, for messages */
    int in_place;     /* f is the file itself, cut to the report's length at commit */
} gt_cli_outfile;

/* Opens o for path.  A path naming something other than a regular file (a
 * terminal, /dev/null, a pipe) is opened as it is, never truncated; so is
 * a file the user may write in a folder where no temporary file can be
 * made, which is cut to the report's length only at commit; a folder, or
 * a file the user cannot write, is refused.  Returns 0, or
 * prints the reason and returns GT_EXIT_USAGE with o left closed. */
int gt_cli_outfile_open(const char *path, gt_cli_outfile *o);

/* Closes o's stream and renames the temporary file into place.  Returns 0,
 * or prints the reason and returns GT_EXIT_FAILURE; the temporary file is
 * removed either way.  NULL-safe on an unopened o. */
int gt_cli_outfile_commit(gt_cli_outfile *o);

/* Closes o without touching its destination; NULL-safe on an unopened o. */
void gt_cli_outfile_discard(gt_cli_outfile *o);

/* Whether a and b name the same file: the same inode when both exist,
 * otherwise the same resolved path ("x", "./x", "d/../x" and a link to x
 * are all x). */
int gt_cli_same_file(const char *a, const char *b);
#endif
