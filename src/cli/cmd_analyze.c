/* gpu-tracker sub-track analyze (placeholder until it lands). */
#include <stdio.h>

#include "commands.h"

int gt_cli_subtrack_analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("gpu-tracker: sub-track analyze is not available in this build\n", stderr);
    return GT_EXIT_USAGE;
}
