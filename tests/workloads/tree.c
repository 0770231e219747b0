/* SPDX-License-Identifier: MIT */
/* tree K HOLD [MiB]: K child processes that each (touch MiB and) live until
 * released; the parent releases them all together once every one has
 * touched its memory and HOLD has passed (seconds, or an event such as
 * rows=N@FILE or file=PATH, see wl.h), so that all K are alive and whole for
 * the whole hold however slowly a loaded machine forks them.  The parent
 * waits for them; exits 1 if a child failed. */
#include "wl.h"

#define USAGE "tree K HOLD [MiB]"

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        wl_usage(USAGE);
    long k = wl_long(argv[1], 0, 4096, USAGE);
    wl_hold_spec hold = wl_hold_parse(argv[2], USAGE);
    long mib = argc == 4 ? wl_long(argv[3], 0, 1L << 20, USAGE) : 0;
    int touched[2], release[2];
    if (pipe(touched) != 0 || pipe(release) != 0)
        wl_die("pipe");
    for (long i = 0; i < k; i++) {
        pid_t pid = fork();
        if (pid < 0)
            wl_die("fork");
        if (pid == 0) {
            char c;
            close(touched[0]);
            close(release[1]);
            char *p = wl_touch(mib);
            if (write(touched[1], "t", 1) != 1)
                _exit(1);
            /* Lives until the parent closes its end: EOF. */
            while (read(release[0], &c, 1) < 0 && errno == EINTR)
                ;
            wl_release(p, mib);
            _exit(0);
        }
    }
    close(touched[1]);
    close(release[0]);
    for (long i = 0; i < k; i++) {
        char c;
        ssize_t n = read(touched[0], &c, 1);
        if (n < 0 && errno == EINTR) {
            i--;
            continue;
        }
        if (n != 1)
            wl_die("a child touched nothing");
    }
    wl_hold(hold);
    close(release[1]);
    return wl_wait_children();
}
