/* SPDX-License-Identifier: MIT */
/* The options of the track command (gpu-tracker [options] -e CMD | -- CMD |
 * --attach=PID): their one table, and what reads it: the parser, --help and
 * the --tconfig file's keys. */
#ifndef GT_CLI_TRACK_OPTIONS_H
#define GT_CLI_TRACK_OPTIONS_H
#include <stdio.h>
#include <sys/types.h>

#include "gpu_tracker.h"
#include "options.h"

/* What the options set: --tconfig first, then the command line. */
typedef struct gt_cli_track_settings {
    gt_options o;
    const char *execute, *output, *format, *metrics;
    pid_t attach;
    char **cmd; /* after "--", in argv */
    int quiet, wait_descendants;
    int efficiency; /* the report ends with the Efficiency section */
    int cgroup;     /* the command runs in a cgroup made for it */
    const char *config; /* the --tconfig file while it is read, for its values' messages */
    char **kept;        /* the config file's values, owned: options keep pointers into them */
    size_t n_kept;
} gt_cli_track_settings;

/* The table, in --help's order. */
extern const gt_cli_opt gt_cli_track_opts[];
extern const size_t gt_cli_track_n_opts;

/* Zeroes s and gives s->o the library's defaults. */
void gt_cli_track_settings_init(gt_cli_track_settings *s);
/* Frees what the settings own; s may be NULL. */
void gt_cli_track_settings_free(gt_cli_track_settings *s);

/* Parses argv (argv[0] the program) into s: --tconfig first, then the
 * rest in order, and checks that exactly one thing is to be tracked.
 * Returns 0, an exit status after a one-line message, or -1 after --help
 * or --version (exit 0). */
int gt_cli_track_parse(int argc, char **argv, gt_cli_track_settings *s);

/* Reads the --tconfig JSON object at path into s: each key is the option's
 * of the same entry, checked and stored by the same code.  Returns 0 or an
 * exit status after a message (GT_EXIT_USAGE, GT_EXIT_FAILURE when out of
 * memory). */
int gt_cli_track_load_tconfig(gt_cli_track_settings *s, const char *path);

/* Prints --help; returns 0, or -1 if out could not be written. */
int gt_cli_track_usage(FILE *out);

#endif
