/* SPDX-License-Identifier: MIT */
/* File listing shared by the commands that take a directory of inputs. */
#ifndef GT_CLI_FILES_H
#define GT_CLI_FILES_H
#include <stddef.h>
#include <sys/types.h>

/* Whether path names a tracking or sub-tracking file: ".csv" or ".sqlite". */
int gt_cli_is_data_file(const char *path);
/* The data files of dir (gt_cli_is_data_file) but dot files, as "dir/name", sorted by name, into
 * *out (each string and the array malloc'd; release with gt_cli_list_free).
 * Returns 0, or -1 after printing why on stderr. */
int gt_cli_list_dir(const char *dir, char ***out, size_t *n);
void gt_cli_list_free(char **v, size_t n);

/* A file's identity: its device and inode. */
typedef struct gt_cli_file_id {
    dev_t dev;
    ino_t ino;
} gt_cli_file_id;

/* Drops from paths[0..*n), keeping their order, every path that names the
 * same file as an earlier one (device and inode, symbolic links followed:
 * a file given twice, through overlapping globs, a link or another
 * spelling), each with a warning on stderr naming both paths; a path that
 * cannot be stat'ed stays, for its reader to say why.  *ids: the kept
 * files' identities, sorted, for gt_cli_file_known (malloc'd, *nids of
 * them).  Returns 0, or -1 after printing why (out of memory). */
int gt_cli_unique_files(const char **paths, size_t *n, gt_cli_file_id **ids, size_t *nids);
/* Whether path names one of the files of ids (gt_cli_unique_files). */
int gt_cli_file_known(const gt_cli_file_id *ids, size_t nids, const char *path);

#endif
