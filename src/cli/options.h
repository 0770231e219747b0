/* SPDX-License-Identifier: MIT */
/* Pieces every subcommand's option handling shares: one-line usage errors,
 * warnings on stderr, and the option scanner (--name=value, --name value,
 * -xvalue, -x value). */
#ifndef GT_CLI_OPTIONS_H
#define GT_CLI_OPTIONS_H
#include <stddef.h>

typedef struct gt_cli_opt {
    const char *longname; /* canonical, e.g. "--output" (or "-m" for a short-only option) */
    char shortname;       /* 0: none */
    int has_arg;
} gt_cli_opt;

/* Prints "gpu-tracker: <message>" on one line; returns GT_EXIT_USAGE. */
int gt_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A gt_log_fn: "gpu-tracker: warning: <message>" on stderr. */
void gt_cli_log_stderr(void *ctx, const char *msg);

/* Reads the option at argv[*i] (advancing *i past a separate value) into
 * *def and *value (NULL for an option without one).  Returns 0, or the
 * usage error's exit status for an unknown option, a missing value or a
 * value given to an option that takes none; help names the command for
 * "see '<help> --help'". */
int gt_cli_next_opt(int argc, char **argv, int *i, const gt_cli_opt *defs, size_t n_defs, const char *help,
                    const gt_cli_opt **def, const char **value);

#endif
