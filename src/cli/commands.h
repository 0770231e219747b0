/* SPDX-License-Identifier: MIT */
/* Subcommands of the gpu-tracker CLI.  Each takes the arguments after its
 * name and returns the process exit status. */
#ifndef GT_CLI_COMMANDS_H
#define GT_CLI_COMMANDS_H

/* Exit statuses of gpu-tracker itself; a tracked command's own status is
 * passed through unchanged. */
enum {
    GT_EXIT_FAILURE = 1, /* tracking or I/O failed */
    GT_EXIT_USAGE = 2,   /* invalid options or input files */
    GT_EXIT_NOEXEC = 127 /* the command could not be started */
};

/* gpu-tracker [options] -e CMD | -- CMD ARGS... | --attach=PID (argv[0] is
 * the program name). */
int gt_cli_track(int argc, char **argv);

/* gpu-tracker sub-track combine|analyze|compare ... (argv[0] is "sub-track") */
int gt_cli_subtrack(int argc, char **argv);

/* The sub-track commands, each in its own file (argv[0] is the command's
 * name). */
int gt_cli_subtrack_combine(int argc, char **argv);
int gt_cli_subtrack_analyze(int argc, char **argv);
int gt_cli_subtrack_compare(int argc, char **argv);

/* gpu-tracker plot --tf=FILE [--stf=FILE] -o FILE (argv[0] is "plot") */
int gt_cli_plot(int argc, char **argv);

/* gpu-tracker merge DIR|FILE... [-f text|json] [-o FILE] [--align=SECONDS]
 * (argv[0] is "merge") */
int gt_cli_merge(int argc, char **argv);

#endif
