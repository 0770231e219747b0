/* SPDX-License-Identifier: MIT */
/* thread_fork K MiB HOLD: K threads started one after another, each of
 * which forks a child that touches MiB and holds it (HOLD: seconds, or an
 * event as wl.h's wl_hold_parse reads it), waits for it and
 * exits before the next thread starts.  A child forked by a thread other
 * than the main one is listed only in that thread's children file, and the
 * threads come and go. */
#include <pthread.h>

#include "wl.h"

#define USAGE "thread_fork K MiB HOLD"

static long mib;
static wl_hold_spec hold;

static void *forker(void *arg)
{
    (void)arg;
    pid_t pid = wl_fork_holding(mib, hold);
    int status;
    if (waitpid(pid, &status, 0) != pid)
        wl_die("waitpid");
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        wl_usage(USAGE);
    long k = wl_long(argv[1], 1, 64, USAGE);
    mib = wl_long(argv[2], 0, 1L << 20, USAGE);
    hold = wl_hold_parse(argv[3], USAGE);
    for (long i = 0; i < k; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, forker, NULL) != 0)
            wl_die("pthread_create");
        pthread_join(t, NULL);
    }
    return wl_wait_children();
}
