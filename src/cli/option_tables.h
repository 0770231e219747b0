/* SPDX-License-Identifier: MIT */
/* Every command's option table with the --help that prints it, in one
 * list, so that what documents all commands (the man page's generator in
 * tools/gen_man.c, the tests) cannot miss one. */
#ifndef GT_CLI_OPTION_TABLES_H
#define GT_CLI_OPTION_TABLES_H
#include <stddef.h>
#include <stdio.h>

#include "options.h"

typedef struct gt_cli_command_opts {
    const char *name; /* as typed: "gpu-tracker", "gpu-tracker sub-track combine", ... */
    const gt_cli_opt *opts;
    const size_t *n_opts; /* a pointer: the tables' lengths are no constant expressions here */
    int (*usage)(FILE *out); /* prints --help; 0, or -1 if out could not be written */
} gt_cli_command_opts;

/* The track command first, then the subcommands in the man page's order. */
extern const gt_cli_command_opts gt_cli_commands[];
extern const size_t gt_cli_n_commands;

/* Each subcommand's table, in --help's order, and its --help. */
extern const gt_cli_opt gt_cli_combine_opts[];
extern const size_t gt_cli_combine_n_opts;
int gt_cli_combine_usage(FILE *out);
extern const gt_cli_opt gt_cli_analyze_opts[];
extern const size_t gt_cli_analyze_n_opts;
int gt_cli_analyze_usage(FILE *out);
extern const gt_cli_opt gt_cli_compare_opts[];
extern const size_t gt_cli_compare_n_opts;
int gt_cli_compare_usage(FILE *out);
extern const gt_cli_opt gt_cli_plot_opts[];
extern const size_t gt_cli_plot_n_opts;
int gt_cli_plot_usage(FILE *out);
extern const gt_cli_opt gt_cli_merge_opts[];
extern const size_t gt_cli_merge_n_opts;
int gt_cli_merge_usage(FILE *out);

#endif
