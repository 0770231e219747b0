/* SPDX-License-Identifier: MIT */
/* syscall_floor SAMPLES PID: the CPU time per sample of a loop that makes
 * only the system calls a steady sample of one busy process needs, and
 * nothing else (no parsing, no formatting): sleep to a 10 ms deadline,
 * /proc/loadavg, the process's CPU clock and its stat, an lseek and a
 * 190-byte write appended to a file, and /proc/meminfo and /proc/stat at
 * every 4th.  What a sample cannot cost less than on this machine. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: syscall_floor SAMPLES PID OUTFILE\n");
        return 2;
    }
    int n = atoi(argv[1]);
    pid_t pid = (pid_t)atoi(argv[2]);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int la = open("/proc/loadavg", O_RDONLY), mi = open("/proc/meminfo", O_RDONLY);
    int st = open("/proc/stat", O_RDONLY), ps = open(path, O_RDONLY);
    int out = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (n <= 0 || la < 0 || mi < 0 || st < 0 || ps < 0 || out < 0) {
        perror("syscall_floor");
        return 1;
    }
    clockid_t clock = (clockid_t)((~(unsigned)pid << 3) | 2u); /* pid's process CPU clock */
    memset(buf, '1', 190);
    struct timespec next, c;
    clock_gettime(CLOCK_MONOTONIC, &next);
    double c0 = thread_cpu();
    for (int i = 0; i < n; i++) {
        next.tv_nsec += 10000000;
        if (next.tv_nsec >= 1000000000) {
            next.tv_nsec -= 1000000000;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        if (i % 4 == 0 && (pread(mi, buf + 256, 60000, 0) < 0 || pread(st, buf + 256, 60000, 0) < 0))
            return 1;
        if (pread(la, buf + 256, 4096, 0) < 0 || clock_gettime(clock, &c) != 0 ||
            pread(ps, buf + 256, 4096, 0) < 0 || lseek(out, 0, SEEK_END) < 0 || write(out, buf, 190) != 190)
            return 1;
    }
    printf("%.3f ms per sample\n", (thread_cpu() - c0) / n * 1e3);
    return 0;
}
