/* SPDX-License-Identifier: MIT */
/* gpu-tracker: dispatches to the subcommand; every command is a thin layer
 * over libgputracker. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

/* Started with stdin, stdout or stderr closed, the next file we open would
 * take its number: the report file would become stdout, receiving our
 * messages and the tracked command's output.  /dev/null holds the place. */
static void hold_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) /* a lower number was free too: it is filled in its turn */
                close(n);
        }
}

int main(int argc, char **argv)
{
    hold_std_fds();
    if (argc > 1 && strcmp(argv[1], "sub-track") == 0)
        return gt_cli_subtrack(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "plot") == 0)
        return gt_cli_plot(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return gt_cli_merge(argc - 1, argv + 1);
    return gt_cli_track(argc, argv);
}
