/* SPDX-License-Identifier: MIT */
/* The workload of `make demo` (about 2 s): the main process grows to 64 MiB
 * in steps, runs 2 CPU threads for 0.5 s, then forks 2 children that each
 * hold 32 MiB for 1 s.  One line per phase on stderr. */
#include <pthread.h>

#include "wl.h"

#define MAIN_MIB 64
#define STEPS 8
#define CHILD_MIB 32

/* Where the spinning goes, so the compiler keeps the loop. */
static volatile unsigned long sink;

static void *spin(void *arg)
{
    (void)arg;
    struct timespec ts;
    do {
        for (int i = 0; i < 100000; i++)
            sink += (unsigned long)i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    } while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < 0.5);
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1)
        wl_usage("demo");
    fprintf(stderr, "demo: allocating %d MiB in %d steps\n", MAIN_MIB, STEPS);
    char *step[STEPS];
    for (int i = 0; i < STEPS; i++) {
        step[i] = wl_touch(MAIN_MIB / STEPS);
        /* Children should not share these pages: they would turn the main
         * process's private memory into shared memory for a second. */
        madvise(step[i], (size_t)(MAIN_MIB / STEPS) * WL_MIB, MADV_DONTFORK);
        wl_sleep(0.02);
    }

    fprintf(stderr, "demo: 2 threads busy for 0.5 s of CPU each\n");
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        errno = pthread_create(&t[i], NULL, spin, NULL);
        if (errno)
            wl_die("pthread_create");
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);

    fprintf(stderr, "demo: 2 child processes holding %d MiB each for 1 s\n", CHILD_MIB);
    for (int i = 0; i < 2; i++) {
        pid_t pid = fork();
        if (pid < 0)
            wl_die("fork");
        if (pid == 0) {
            char *p = wl_touch(CHILD_MIB);
            wl_sleep(1.0);
            wl_release(p, CHILD_MIB);
            _exit(0);
        }
    }
    int rc = wl_wait_children();
    for (int i = 0; i < STEPS; i++)
        wl_release(step[i], MAIN_MIB / STEPS);
    fprintf(stderr, "demo: done\n");
    return rc;
}
