/* SPDX-License-Identifier: MIT */
#include "proc/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/error.h"
#include "util/grow.h"

struct gt_procfs {
    int rootfd;
    char *buf;
    size_t cap;
    int has_rollup, has_children;
    int fd_short; /* an open failed for want of descriptors */
};

/* An open that fails for want of descriptors would read as a vanished
 * process: noted, so the caller can say that figures are missing. */
static int noted(gt_procfs *p, int fd)
{
    if (fd < 0 && (errno == EMFILE || errno == ENFILE))
        p->fd_short = 1;
    return fd;
}

int gt_procfs_note_open(gt_procfs *p, int fd)
{
    return noted(p, fd);
}

int gt_procfs_take_fd_short(gt_procfs *p)
{
    int v = p->fd_short;
    p->fd_short = 0;
    return v;
}

gt_status gt_procfs_open(const char *root, gt_procfs **out, gt_error *err)
{
    *out = NULL;
    gt_procfs *p = calloc(1, sizeof *p);
    if (!p)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    p->cap = 64 * 1024;
    p->buf = malloc(p->cap);
    p->rootfd = open(root ? root : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!p->buf || p->rootfd < 0) {
        int e = errno;
        gt_procfs_close(&p);
        return gt_err(err, GT_ERR_SYS, "cannot open '%s': %s", root ? root : "/proc",
                      strerror(e));
    }
    p->has_rollup = faccessat(p->rootfd, "self/smaps_rollup", R_OK, 0) == 0;
    char path[64];
    snprintf(path, sizeof path, "%d/task/%d/children", (int)getpid(), (int)getpid());
    p->has_children = faccessat(p->rootfd, path, R_OK, 0) == 0;
    *out = p;
    return GT_OK;
}

void gt_procfs_close(gt_procfs **pp)
{
    if (!pp || !*pp)
        return;
    gt_procfs *p = *pp;
    if (p->rootfd >= 0)
        close(p->rootfd);
    free(p->buf);
    free(p);
    *pp = NULL;
}

int gt_procfs_open_pid(gt_procfs *p, pid_t pid)
{
    char name[24];
    snprintf(name, sizeof name, "%d", (int)pid);
    return noted(p, openat(p->rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

int gt_procfs_root(const gt_procfs *p) { return p->rootfd; }

ssize_t gt_pread_full(int fd, void *buf, size_t len, off_t off)
{
    ssize_t n;
    do
        n = pread(fd, buf, len, off);
    while (n < 0 && errno == EINTR);
    return n;
}

int gt_procfs_each_pid(int dirfd, gt_procfs_entry_fn fn, void *ctx)
{
    char dents[8192];
    long nread;
    while ((nread = syscall(SYS_getdents64, dirfd, dents, sizeof dents)) > 0) {
        for (long off = 0; off < nread;) {
            /* struct linux_dirent64: ino(8) off(8) reclen(2) type(1) name */
            unsigned short reclen;
            memcpy(&reclen, dents + off + 16, sizeof reclen);
            const char *name = dents + off + 19;
            off += reclen;
            if (name[0] < '0' || name[0] > '9')
                continue;
            int rc = fn(ctx, name);
            if (rc < 0)
                return rc;
        }
    }
    return nread < 0 ? -1 : 0;
}
int gt_procfs_has_rollup(const gt_procfs *p) { return p->has_rollup; }
int gt_procfs_has_children(const gt_procfs *p) { return p->has_children; }

/* Reads fd from offset 0 until EOF.  A /proc seq_file read stops early
 * only when the kernel's page-sized buffer cannot take the next record, so
 * for files of small records (stat, children, meminfo) a read shorter than
 * half a page is the end, and the read that would return 0 is saved.
 * Files with large records (smaps) pass short_eof = 0. */
static ssize_t read_all(gt_procfs *p, int fd, int short_eof)
{
    size_t len = 0;
    for (;;) {
        if (len == p->cap) {
            /* smaps of a large process can be megabytes; grow rarely. */
            size_t nc = gt_grow_cap(p->cap, p->cap + 1, p->cap, 1);
            char *nb = nc ? realloc(p->buf, nc) : NULL;
            if (!nb) {
                errno = ENOMEM;
                return -1;
            }
            p->buf = nb;
            p->cap = nc;
        }
        ssize_t n = gt_pread_full(fd, p->buf + len, p->cap - len, (off_t)len);
        if (n < 0)
            return -1;
        len += (size_t)n;
        if (n == 0 || (short_eof && n < 2048))
            break;
    }
    return (ssize_t)len;
}

static ssize_t read_at(gt_procfs *p, int dirfd, const char *name, const char **data,
                       int short_eof)
{
    int fd = noted(p, openat(dirfd, name, O_RDONLY | O_CLOEXEC));
    if (fd < 0)
        return -1;
    ssize_t n = read_all(p, fd, short_eof);
    int e = errno;
    close(fd);
    errno = e;
    *data = p->buf;
    return n;
}

ssize_t gt_procfs_read(gt_procfs *p, int dirfd, const char *name, const char **data)
{
    return read_at(p, dirfd, name, data, 0);
}

ssize_t gt_procfs_read_small(gt_procfs *p, int dirfd, const char *name, const char **data)
{
    return read_at(p, dirfd, name, data, 1);
}

ssize_t gt_procfs_pread(gt_procfs *p, int fd, const char **data)
{
    *data = p->buf;
    return read_all(p, fd, 1);
}
