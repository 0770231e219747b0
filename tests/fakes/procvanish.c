/* SPDX-License-Identifier: MIT */
/* LD_PRELOAD shim: per-process /proc files that vanish between open and
 * read.  One read in N (pseudo-random) of a file opened under a process's folder (a name
 * with a '/', such as "123/stat", or "status", "smaps", "smaps_rollup"
 * opened relative to a process's folder; not gpu-tracker's own) fails with
 * ESRCH, as a read does
 * when the process exits after the open.  System files (meminfo, the root's
 * stat) and opening the folders themselves are left alone.
 *
 * GT_VANISH_EVERY=N (default 3) picks N; GT_VANISH_LOG names a file that
 * gets the number of failures injected, at exit.  It acts only in a
 * process named gpu-tracker, and removes itself from that one's environment
 * so the tracked command runs unaffected. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FD 65536

static unsigned char watched[MAX_FD];
static uint64_t every = 3, reads, injected;
static char log_path[4096];

static int active;

__attribute__((constructor)) static void init(void)
{
    /* Only in gpu-tracker itself, which may be started through a wrapper
     * script or valgrind: the variables pass through those untouched. */
    if (strcmp(program_invocation_short_name, "gpu-tracker") != 0)
        return;
    active = 1;
    const char *e = getenv("GT_VANISH_EVERY");
    if (e && atol(e) > 0)
        every = (uint64_t)atol(e);
    const char *l = getenv("GT_VANISH_LOG");
    if (l)
        snprintf(log_path, sizeof log_path, "%s", l);
    unsetenv("LD_PRELOAD");
    unsetenv("GT_VANISH_EVERY");
    unsetenv("GT_VANISH_LOG");
}

__attribute__((destructor)) static void fini(void)
{
    if (!active || !log_path[0])
        return;
    FILE *f = fopen(log_path, "w");
    if (f) {
        fprintf(f, "%llu\n", (unsigned long long)__atomic_load_n(&injected, __ATOMIC_RELAXED));
        fclose(f);
    }
}

static int per_process(const char *path)
{
    if (path[0] == '/' || path[0] == '.')
        return 0;
    /* gpu-tracker's own folder: it is the one process that cannot vanish
     * while it reads. */
    char self[32];
    int n = snprintf(self, sizeof self, "%d/", (int)getpid());
    if (!strncmp(path, self, (size_t)n))
        return 0;
    return strchr(path, '/') || !strcmp(path, "status") || !strcmp(path, "smaps") ||
           !strcmp(path, "smaps_rollup");
}

int openat(int dirfd, const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...)
{
    static int (*real)(int, const char *, int, ...);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "openat");
    mode_t mode = 0;
    if (flags & (O_CREAT | __O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    int fd = real(dirfd, path, flags, mode);
    if (active && fd >= 0 && fd < MAX_FD)
        watched[fd] = !(flags & O_DIRECTORY) && per_process(path);
    return fd;
}

static int inject(int fd)
{
    if (fd < 0 || fd >= MAX_FD || !watched[fd])
        return 0;
    /* A fixed pseudo-random sequence (splitmix64 of the read count): a
     * plain "every Nth" would hit the same file at every sample. */
    uint64_t z = __atomic_add_fetch(&reads, 1, __ATOMIC_RELAXED) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    if ((z ^ (z >> 31)) % every != 0)
        return 0;
    __atomic_add_fetch(&injected, 1, __ATOMIC_RELAXED);
    errno = ESRCH;
    return 1;
}

ssize_t read(int fd, void *buf, size_t n)
{
    static ssize_t (*real)(int, void *, size_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "read");
    return inject(fd) ? -1 : real(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pread");
    return inject(fd) ? -1 : real(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off);
ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pread64");
    return inject(fd) ? -1 : real(fd, buf, n, off);
}
