/* churn SECONDS MAX_PROCS [bomb]: creates and reaps short-lived processes
 * for SECONDS or until MAX_PROCS have been created, whichever comes first,
 * then prints "created N refused M" (M: forks the system refused).
 *
 * Default: at most 8 children at a time, each forking one grandchild that
 * exits at once (a steady churn, for soak tests).  "bomb": forks as fast as
 * it can without waiting, each child living 100 ms, so the number alive is
 * bounded only by the process limit (ulimit -u) and a safety cap of 1000;
 * a refused fork reaps and retries.  Exits 0 unless a child failed. */
#include "wl.h"

#define USAGE "churn SECONDS MAX_PROCS [bomb]"
#define MAX_ALIVE_BOMB 1000
#define MAX_ALIVE_STEADY 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reaps one child (blocking or not); 1 if one was reaped, -1 on a failed one. */
static int reap(int block)
{
    int st;
    pid_t pid = waitpid(-1, &st, block ? 0 : WNOHANG);
    if (pid <= 0)
        return 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 1 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        wl_usage(USAGE);
    double secs = wl_seconds(argv[1], USAGE);
    long max = wl_long(argv[2], 1, 1000000000, USAGE);
    int bomb = argc == 4;
    if (bomb && strcmp(argv[3], "bomb") != 0)
        wl_usage(USAGE);
    long created = 0, refused = 0, alive = 0;
    int failed = 0;
    double end = now() + secs;
    while (created < max && now() < end) {
        if (alive >= (bomb ? MAX_ALIVE_BOMB : MAX_ALIVE_STEADY)) {
            int r = reap(1);
            alive -= r != 0;
            failed |= r < 0;
            continue;
        }
        pid_t pid = fork();
        if (pid < 0) {
            if (errno != EAGAIN)
                wl_die("fork");
            refused++;
            int r = reap(1); /* at the limit: make room */
            alive -= r != 0;
            failed |= r < 0;
            continue;
        }
        if (pid == 0) {
            if (bomb) {
                wl_sleep(0.1);
                _exit(0);
            }
            pid_t g = fork();
            if (g == 0)
                _exit(0);
            if (g > 0)
                waitpid(g, NULL, 0);
            _exit(0);
        }
        created++;
        alive++;
        int r;
        while ((r = reap(0)) != 0) {
            alive--;
            failed |= r < 0;
        }
    }
    while (alive > 0) {
        int r = reap(1);
        if (r == 0)
            break;
        alive--;
        failed |= r < 0;
    }
    printf("created %ld refused %ld\n", created, refused);
    return failed;
}
