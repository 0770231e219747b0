/* SPDX-License-Identifier: MIT */
/* What `sub-track compare` reads from its options and --cconfig file. */
#ifndef GT_CLI_COMPARE_H
#define GT_CLI_COMPARE_H
#include <stddef.h>

/* The sessions, in the order a Python dict would keep them: a name given
 * again replaces its file where it first appeared.  Strings are owned. */
typedef struct gt_cli_sessions {
    char **names, **files;
    size_t n, cap;
} gt_cli_sessions;

typedef struct gt_cli_compare_settings {
    gt_cli_sessions ss;
    char *stat; /* owned */
    const char *output, *format;
    const char *cconfig; /* the config file read, if any */
} gt_cli_compare_settings;

/* Reads --cconfig, {"file_path_map": {name: file, ...}, "statistic": s},
 * into s.  Returns 0 or an exit status after a message (GT_EXIT_USAGE,
 * GT_EXIT_FAILURE when out of memory). */
int gt_cli_compare_load_config(gt_cli_compare_settings *s, const char *path);

/* Frees what s owns (s itself is the caller's). */
void gt_cli_compare_settings_free(gt_cli_compare_settings *s);

#endif
