/* SPDX-License-Identifier: MIT */
/* short_lived N MiB TRUTH: N processes, one after the other, each writing
 * MiB of private memory and exiting at once (about a millisecond each for
 * 10 MiB), far shorter than any sampling interval.  TRUTH gets
 *     created max_rss_bytes
 * created: the children that ran; max_rss_bytes: the largest VmRSS a child
 * read of itself (/proc/self/statm) once it held its memory. */
#include "wl.h"

#define USAGE "short_lived N MiB TRUTH"

static long rss_bytes(void)
{
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2)
        wl_die("/proc/self/statm");
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

int main(int argc, char **argv)
{
    if (argc != 4)
        wl_usage(USAGE);
    long n = wl_long(argv[1], 1, 1000000, USAGE);
    long mib = wl_long(argv[2], 0, 1L << 20, USAGE);
    FILE *truth = fopen(argv[3], "w");
    if (!truth)
        wl_die(argv[3]);
    long created = 0, max_rss = 0;
    for (long i = 0; i < n; i++) {
        int fd[2];
        if (pipe(fd))
            wl_die("pipe");
        pid_t pid = fork();
        if (pid < 0)
            wl_die("fork");
        if (pid == 0) {
            wl_touch(mib);
            long rss = rss_bytes();
            if (write(fd[1], &rss, sizeof rss) != (ssize_t)sizeof rss)
                wl_die("write");
            _exit(0);
        }
        close(fd[1]);
        long rss = 0;
        if (read(fd[0], &rss, sizeof rss) != (ssize_t)sizeof rss)
            wl_die("read");
        close(fd[0]);
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            wl_die("waitpid");
        created++;
        if (rss > max_rss)
            max_rss = rss;
    }
    fprintf(truth, "%ld %ld\n", created, max_rss);
    return fclose(truth) != 0;
}
