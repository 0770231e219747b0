/* gpu-tracker: dispatches to the subcommand; every command is a thin layer
 * over libgputracker. */
#include <string.h>

#include "commands.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "sub-track") == 0)
        return gt_cli_subtrack(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "plot") == 0)
        return gt_cli_plot(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return gt_cli_merge(argc - 1, argv + 1);
    return gt_cli_track(argc, argv);
}
