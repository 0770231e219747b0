/* SPDX-License-Identifier: MIT */
/* short_peaks N BASE_MIB OUT: forks N children one after another, child i
 * touching BASE_MIB + (37 i mod N) MiB (with N not a multiple of 37, every
 * size once, the largest not last) and exiting at once, so that each lives
 * a few milliseconds, between any two samples a tracker takes.  Each child
 * appends its own ground truth to OUT: "PID VMHWM_KB", its high-water mark
 * as the kernel reports it to the child itself. */
#include <fcntl.h>

#include "wl.h"

#define USAGE "short_peaks N BASE_MIB OUT"

static long own_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        wl_die("/proc/self/status");
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    fclose(f);
    if (kb < 0)
        wl_die("VmHWM");
    return kb;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        wl_usage(USAGE);
    long n = wl_long(argv[1], 1, 100000, USAGE);
    long base = wl_long(argv[2], 0, 1L << 20, USAGE);
    int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        wl_die(argv[3]);
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            wl_die("fork");
        if (pid == 0) {
            long mib = base + (37 * i) % n;
            wl_touch(mib);
            char line[64];
            int len = snprintf(line, sizeof line, "%d %ld\n", (int)getpid(), own_hwm_kb());
            if (write(fd, line, (size_t)len) != len)
                wl_die("write");
            _exit(0);
        }
        int st;
        while (waitpid(pid, &st, 0) < 0)
            if (errno != EINTR)
                wl_die("waitpid");
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    }
    close(fd);
    return 0;
}
