/* SPDX-License-Identifier: MIT */
/* burn THREADS MS: THREADS threads each use MS milliseconds of CPU time
 * (their own thread CPU clock, not wall time, so a loaded machine only makes
 * it take longer), then exit.  The main thread only waits. */
#include <pthread.h>

#include "wl.h"

#define USAGE "burn THREADS MS"

static void *spin(void *arg)
{
    wl_burn(*(const double *)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        wl_usage(USAGE);
    long n = wl_long(argv[1], 1, 1024, USAGE);
    double secs = (double)wl_long(argv[2], 0, 86400000L, USAGE) / 1000;
    pthread_t *t = calloc((size_t)n, sizeof *t);
    if (!t)
        wl_die("calloc");
    for (long i = 0; i < n; i++) {
        errno = pthread_create(&t[i], NULL, spin, &secs);
        if (errno)
            wl_die("pthread_create");
    }
    for (long i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    free(t);
    return 0;
}
