/* SPDX-License-Identifier: MIT */
/* The output file of every command (-o, --output): the checks that keep it
 * from replacing an input, and the file itself, written under a temporary
 * name beside it and renamed into place once complete (util/outfile.h), so
 * that a run that fails before its output, a write that fails half-way (a
 * full disk) or a check that refuses to run leaves the old file as it was. */
#ifndef GT_CLI_OUTFILE_H
#define GT_CLI_OUTFILE_H
#include <stddef.h>
#include <stdio.h>

#include "util/outfile.h"

typedef gt_outfile gt_cli_outfile;

/* Refuses an output that is one of the command's inputs, or a file kept
 * beside one, however either is spelt ("x", "./x", "d/../x", a symbolic or
 * hard link to x): SQLite's x-journal, x-wal and x-shm, and the side files
 * of a CSV tracking file x.csv (x.processes.csv, x.gpus.csv), which hold
 * samples too.  option names the output's option in the message
 * ("--output"), what names the inputs in the message ("the input", "the
 * tracking file (--tf)").  Returns 0, or GT_EXIT_USAGE after a message
 * naming both files. */
int gt_cli_outfile_check(const char *output, const char *option, const char *const *inputs, size_t n,
                         const char *what);

/* Opens o for path (gt_outfile_open).  Returns 0, or prints the reason and
 * returns GT_EXIT_USAGE with o left closed. */
int gt_cli_outfile_open(const char *path, gt_cli_outfile *o);

/* Completes o (gt_outfile_commit).  Returns 0, or prints the reason and
 * returns GT_EXIT_FAILURE; the old file is then as it was.  0 on an
 * unopened o. */
int gt_cli_outfile_commit(gt_cli_outfile *o);

/* Closes o without touching its destination; safe on an unopened o. */
void gt_cli_outfile_discard(gt_cli_outfile *o);
#endif
