/* gpu-tracker sub-track compare (placeholder until it lands). */
#include <stdio.h>

#include "commands.h"

int gt_cli_subtrack_compare(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("gpu-tracker: sub-track compare is not available in this build\n", stderr);
    return GT_EXIT_USAGE;
}
