/* gpu-tracker sub-track combine (placeholder until it lands). */
#include <stdio.h>

#include "commands.h"

int gt_cli_subtrack_combine(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("gpu-tracker: sub-track combine is not available in this build\n", stderr);
    return GT_EXIT_USAGE;
}
