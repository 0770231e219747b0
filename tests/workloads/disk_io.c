/* SPDX-License-Identifier: MIT */
/* disk_io DIR MAIN_KIB REAPED_KIB LIVE_KIB HOLD: storage I/O of known
 * bytes in a tree.  This process writes MAIN_KIB KiB to DIR/main and
 * fsyncs it; a child writes REAPED_KIB KiB to DIR/reaped, fsyncs and exits,
 * and this process reaps it (so its counters join this process's); a
 * second child writes LIVE_KIB KiB to DIR/live and fsyncs it.  Each then
 * reads its file back with O_DIRECT (from storage, past the page cache),
 * and the live child and then this process print their own /proc/self/io
 * counters as "io WHO READ_BYTES WRITE_BYTES" on stdout (a pipe in the
 * tests: pipes count in neither counter), WHO "live" and "main", and hold
 * (HOLD: seconds, or an event such as file=PATH, see wl.h).  After the
 * hold they print them again ("live-end", "main-held": the filesystem may
 * dirty a page of metadata for a process a moment later), and this
 * process, once it has reaped the live child, once more ("main-end").  DIR must be on a filesystem that writes back to storage
 * (not tmpfs), KiB a multiple of 4 (whole pages). */
#include <fcntl.h>

#include "wl.h"

#define USAGE "disk_io DIR MAIN_KIB REAPED_KIB LIVE_KIB HOLD"

/* Writes kib KiB to dir/name, synced to storage, then reads it back from
 * storage. */
static void write_read(const char *dir, const char *name, long kib)
{
    static char buf[64 * 1024] __attribute__((aligned(4096)));
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        wl_die(path);
    memset(buf, 'x', sizeof buf);
    for (long left = kib * 1024; left > 0;) {
        size_t n = left < (long)sizeof buf ? (size_t)left : sizeof buf;
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            wl_die("write");
        left -= w;
    }
    if (fsync(fd) != 0)
        wl_die("fsync");
    close(fd);
    if ((fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC)) < 0)
        wl_die(path);
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) != 0)
        if (r < 0 && errno != EINTR)
            wl_die("read");
    close(fd);
}

/* Prints who's /proc/self/io read_bytes and write_bytes on stdout, in
 * one write. */
static void say_io(const char *who)
{
    char text[4096], line[128];
    unsigned long long rb = 0, wb = 0;
    int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (n <= 0)
        wl_die("/proc/self/io");
    close(fd);
    text[n] = 0;
    const char *r = strstr(text, "read_bytes: "), *w = strstr(text, "\nwrite_bytes: ");
    if (!r || !w || sscanf(r, "read_bytes: %llu", &rb) != 1 || sscanf(w, "\nwrite_bytes: %llu", &wb) != 1)
        wl_die("/proc/self/io has no read_bytes or write_bytes");
    int len = snprintf(line, sizeof line, "io %s %llu %llu\n", who, rb, wb);
    if (write(1, line, (size_t)len) != len)
        wl_die("write");
}

int main(int argc, char **argv)
{
    if (argc != 6)
        wl_usage(USAGE);
    const char *dir = argv[1];
    long kib[3];
    for (int i = 0; i < 3; i++)
        if ((kib[i] = wl_long(argv[2 + i], 0, 1L << 24, USAGE)) % 4)
            wl_usage(USAGE);
    wl_hold_spec hold = wl_hold_parse(argv[5], USAGE);
    write_read(dir, "main", kib[0]);
    pid_t reaped = fork();
    if (reaped < 0)
        wl_die("fork");
    if (reaped == 0) {
        write_read(dir, "reaped", kib[1]);
        _exit(0);
    }
    int st;
    while (waitpid(reaped, &st, 0) < 0)
        if (errno != EINTR)
            wl_die("waitpid");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return 1;
    int said[2];
    if (pipe(said) != 0)
        wl_die("pipe");
    pid_t live = fork();
    if (live < 0)
        wl_die("fork");
    if (live == 0) {
        close(said[0]);
        write_read(dir, "live", kib[2]);
        say_io("live");
        if (write(said[1], "s", 1) != 1)
            _exit(1);
        wl_hold(hold);
        say_io("live-end");
        _exit(0);
    }
    close(said[1]);
    char word;
    ssize_t n;
    while ((n = read(said[0], &word, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        wl_die("the live child said nothing");
    say_io("main");
    wl_hold(hold);
    say_io("main-held");
    int rc = wl_wait_children();
    say_io("main-end");
    return rc;
}
