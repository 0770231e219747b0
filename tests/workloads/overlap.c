/* SPDX-License-Identifier: MIT */
/* overlap MiB MILLISECONDS N TRUTH: the burst a sampler misses.  Forks
 * two children that each write MiB of private memory; the second starts
 * only once the first holds all of its memory, and both hold it together
 * for MILLISECONDS, then exit.  Repeats this N times, one pair after the
 * other (the parent touches nothing).  TRUTH gets one line per pair, the
 * ground truth of its overlap:
 *     both_rss_bytes start_unix end_unix
 * both_rss_bytes: the two children's VmRSS, each read by the child itself
 * (/proc/self/statm) once it held all its memory and knew the other did;
 * start/end: CLOCK_REALTIME when the second child began to write its
 * memory (the pair's sum cannot peak before) and when the first began to
 * exit (nor after). */
#include "wl.h"

#define USAGE "overlap MiB MILLISECONDS N TRUTH"

static double now_unix(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_bytes(void)
{
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2)
        wl_die("/proc/self/statm");
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

static void put(int fd, const void *p, size_t n)
{
    if (write(fd, p, n) != (ssize_t)n)
        wl_die("write");
}

static void get(int fd, void *p, size_t n)
{
    if (read(fd, p, n) != (ssize_t)n)
        wl_die("read");
}

/* One pair: a (first) and b (second) talk over two pipes; a reports the
 * truth to the parent over a third. */
static void pair(long mib, double hold, FILE *truth)
{
    int ab[2], ba[2], out[2];
    if (pipe(ab) || pipe(ba) || pipe(out))
        wl_die("pipe");
    pid_t a = fork();
    if (a < 0)
        wl_die("fork");
    if (a == 0) {
        char *p = wl_touch(mib);
        long mine = rss_bytes();
        put(ab[1], &mine, sizeof mine);
        long theirs;
        double start;
        get(ba[0], &theirs, sizeof theirs);
        get(ba[0], &start, sizeof start);
        wl_sleep(hold);
        double end = now_unix();
        long both = mine + theirs;
        put(out[1], &both, sizeof both);
        put(out[1], &start, sizeof start);
        put(out[1], &end, sizeof end);
        wl_release(p, mib);
        _exit(0);
    }
    long first;
    get(ab[0], &first, sizeof first);
    pid_t b = fork();
    if (b < 0)
        wl_die("fork");
    if (b == 0) {
        double start = now_unix();
        char *p = wl_touch(mib);
        long mine = rss_bytes();
        put(ba[1], &mine, sizeof mine);
        put(ba[1], &start, sizeof start);
        wl_sleep(hold);
        wl_release(p, mib);
        _exit(0);
    }
    long both;
    double start, end;
    get(out[0], &both, sizeof both);
    get(out[0], &start, sizeof start);
    get(out[0], &end, sizeof end);
    fprintf(truth, "%ld %.6f %.6f\n", both, start, end);
    fflush(truth);
    close(ab[0]), close(ab[1]), close(ba[0]), close(ba[1]), close(out[0]), close(out[1]);
}

int main(int argc, char **argv)
{
    if (argc != 5)
        wl_usage(USAGE);
    long mib = wl_long(argv[1], 1, 1L << 20, USAGE);
    double hold = (double)wl_long(argv[2], 0, 86400000L, USAGE) / 1000;
    long n = wl_long(argv[3], 1, 1000000, USAGE);
    FILE *truth = fopen(argv[4], "w");
    if (!truth)
        wl_die(argv[4]);
    for (long i = 0; i < n; i++)
        pair(mib, hold, truth);
    if (wl_wait_children() != 0 || fclose(truth) != 0)
        return 1;
    return 0;
}
