/* SPDX-License-Identifier: MIT */
/* File listing shared by the commands that take a directory of inputs. */
#ifndef GT_CLI_FILES_H
#define GT_CLI_FILES_H
#include <stddef.h>

/* Whether path names a tracking or sub-tracking file: ".csv" or ".sqlite". */
int gt_cli_is_data_file(const char *path);
/* The data files of dir (gt_cli_is_data_file) but dot files, as "dir/name", sorted by name, into
 * *out (each string and the array malloc'd; release with gt_cli_list_free).
 * Returns 0, or -1 after printing why on stderr. */
int gt_cli_list_dir(const char *dir, char ***out, size_t *n);
void gt_cli_list_free(char **v, size_t n);

#endif
