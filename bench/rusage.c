/* SPDX-License-Identifier: MIT */
/* Runs a command and prints its CPU seconds (user+system, including the
 * children it reaped), max RSS in kB and the Unix time just before it was
 * launched, as "cpu_s maxrss_kb launch_s" on stderr.  A tiny stand-in for
 * GNU time so the benchmarks need nothing extra. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: rusage command [args...]\n");
        return 2;
    }
    struct timespec launch;
    clock_gettime(CLOCK_REALTIME, &launch);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
        perror("rusage");
        return 1;
    }
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    fprintf(stderr, "%.6f %ld %ld.%09ld\n", cpu, ru.ru_maxrss, (long)launch.tv_sec, launch.tv_nsec);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
