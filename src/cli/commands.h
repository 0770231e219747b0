/* Subcommands of the gpu-tracker CLI.  Each takes the arguments after its
 * name and returns the process exit status (0 ok, 1 failure, 2 usage). */
#ifndef GT_CLI_COMMANDS_H
#define GT_CLI_COMMANDS_H

/* gpu-tracker sub-track combine|analyze|compare ... (argv[0] is "sub-track") */
int gt_cli_subtrack(int argc, char **argv);

#endif
