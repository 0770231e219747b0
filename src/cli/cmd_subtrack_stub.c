/* Placeholder until sub-tracking lands. */
#include <stdio.h>

#include "commands.h"

int gt_cli_subtrack(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("gpu-tracker: sub-track is not available in this build\n", stderr);
    return GT_EXIT_USAGE;
}
