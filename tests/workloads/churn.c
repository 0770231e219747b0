/* SPDX-License-Identifier: MIT */
/* churn SECONDS MAX_PROCS [bomb [RELEASE_FILE]]: creates and reaps short-lived processes
 * for SECONDS or until MAX_PROCS have been created, whichever comes first,
 * then prints "created N refused M" (M: forks the system refused).
 *
 * Default: at most 8 children at a time, each forking one grandchild that
 * exits at once (a steady churn, for soak tests).  "bomb": rounds of forking
 * children that live until released, until a fork is refused (the process
 * limit, ulimit -u) or a safety cap of 1000 are alive; then all are released
 * and reaped, and the next round starts.  A limit under the cap therefore
 * bites in every round, however fast or slow the machine forks.  With
 * RELEASE_FILE, a last round holds its children, at the limit, until that
 * file exists (or SECONDS have passed), so a test can let a tracker sample
 * the bomb as long as it needs, however slow the tracker.  Exits 0 unless a
 * child failed. */
#include "wl.h"

#define USAGE "churn SECONDS MAX_PROCS [bomb [RELEASE_FILE]]"
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

/* One round of the bomb; adds to *created and *refused.  With release, the
 * children are held until that file exists or the time is up.  Returns -1
 * if a child failed, 0 otherwise. */
static int bomb_round(long max, long *created, long *refused, const char *release, double end)
{
    int hold[2];
    if (pipe(hold) != 0)
        wl_die("pipe");
    long alive = 0;
    while (*created < max && alive < MAX_ALIVE_BOMB) {
        pid_t pid = fork();
        if (pid < 0) {
            if (errno != EAGAIN)
                wl_die("fork");
            (*refused)++;
            break;
        }
        if (pid == 0) {
            char c;
            close(hold[1]);
            /* Lives until the parent closes its end: EOF. */
            while (read(hold[0], &c, 1) < 0 && errno == EINTR)
                ;
            _exit(0);
        }
        (*created)++;
        alive++;
    }
    while (release && access(release, F_OK) != 0 && now() < end)
        wl_sleep(0.01);
    close(hold[0]);
    close(hold[1]);
    int failed = 0;
    while (alive > 0) {
        int r = reap(1);
        if (r == 0)
            break;
        alive--;
        failed |= r < 0;
    }
    return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5)
        wl_usage(USAGE);
    double secs = wl_seconds(argv[1], USAGE);
    long max = wl_long(argv[2], 1, 1000000000, USAGE);
    int bomb = argc >= 4;
    const char *release = argc == 5 ? argv[4] : NULL;
    if (bomb && strcmp(argv[3], "bomb") != 0)
        wl_usage(USAGE);
    long created = 0, refused = 0, alive = 0;
    int failed = 0;
    double end = now() + secs;
    if (bomb) {
        while (created < max && now() < end)
            failed |= bomb_round(max, &created, &refused, NULL, end) < 0;
        if (release)
            failed |= bomb_round(created + MAX_ALIVE_BOMB, &created, &refused, release, end) < 0;
        printf("created %ld refused %ld\n", created, refused);
        return failed;
    }
    while (created < max && now() < end) {
        if (alive >= MAX_ALIVE_STEADY) {
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
