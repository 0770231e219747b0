/* SPDX-License-Identifier: MIT */
/* gpu-tracker sub-track combine|analyze|compare: dispatches to the command's
 * own file. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} subcommands[] = {
    {"combine", gt_cli_subtrack_combine},
    {"analyze", gt_cli_subtrack_analyze},
    {"compare", gt_cli_subtrack_compare},
};

int gt_cli_subtrack(int argc, char **argv)
{
    if (argc > 1)
        for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
            if (strcmp(argv[1], subcommands[i].name) == 0)
                return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gpu-tracker: sub-track needs a command: 'combine', 'analyze' or 'compare'%s%s%s\n",
            argc > 1 ? " (not '" : "", argc > 1 ? argv[1] : "", argc > 1 ? "')" : "");
    return GT_EXIT_USAGE;
}
