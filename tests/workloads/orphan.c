/* SPDX-License-Identifier: MIT */
/* orphan HOLD MiB: a child forks a grandchild and exits at once, so the
 * grandchild is orphaned (re-parented away from this process); it touches
 * MiB, says so on a pipe and holds it (HOLD: seconds, or an event such as
 * rows=N@FILE, see wl.h), then exits.  This process waits for the word and
 * then for the grandchild's end (the pipe's EOF), so the grandchild is
 * tracked while it holds its memory, however long a loaded machine takes. */
#include "wl.h"

#define USAGE "orphan HOLD MiB"

int main(int argc, char **argv)
{
    if (argc != 3)
        wl_usage(USAGE);
    wl_hold_spec hold = wl_hold_parse(argv[1], USAGE);
    long mib = wl_long(argv[2], 0, 1L << 20, USAGE);
    int touched[2];
    if (pipe(touched) != 0)
        wl_die("pipe");
    pid_t child = fork();
    if (child < 0)
        wl_die("fork");
    if (child == 0) {
        pid_t grandchild = fork();
        if (grandchild < 0)
            _exit(1);
        if (grandchild == 0) {
            close(touched[0]);
            char *p = wl_touch(mib);
            if (write(touched[1], "t", 1) != 1)
                _exit(1);
            wl_hold(hold);
            wl_release(p, mib);
        }
        _exit(0);
    }
    close(touched[1]);
    char word;
    ssize_t n;
    while ((n = read(touched[0], &word, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        wl_die("the grandchild touched nothing");
    int rc = wl_wait_children();
    /* The grandchild's end closes the pipe's last write end. */
    while ((n = read(touched[0], &word, 1)) != 0)
        if (n < 0 && errno != EINTR)
            wl_die("read");
    return rc;
}
