/* SPDX-License-Identifier: MIT */
/* Splits a command line the way a POSIX shell splits words, without a
 * shell: quotes and backslashes are honoured, nothing is expanded ($VAR,
 * `cmd` and $(cmd) stay literal text), so -e never runs a shell. */
#ifndef GT_CLI_ARGV_H
#define GT_CLI_ARGV_H
#include "gpu_tracker.h"

/* On success *argv is a NULL-terminated array (free with gt_argv_free) and
 * *argc its length (0 for a blank line).  GT_ERR_INVALID for an unterminated
 * quote or a trailing backslash, with the message in err. */
gt_status gt_argv_split(const char *line, int *argc, char ***argv, gt_error *err);
void gt_argv_free(char ***argv);
#endif
