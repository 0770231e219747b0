/* SPDX-License-Identifier: MIT */
#include "energy/rapl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "util/error.h"

#define MAX_DOMAINS GT_RAPL_MAX_DOMAINS
#define ZONE_PREFIX "intel-rapl:"

typedef struct domain {
    char zone[32];  /* "intel-rapl:0:1" */
    char name[32];  /* "package-0:dram" */
    gt_rapl_kind kind;
    int fd;         /* energy_uj, -1 when unreadable */
    int err;        /* errno of the failure when fd < 0 */
    uint64_t max_range;
} domain;

struct gt_rapl {
    int n;
    domain d[MAX_DOMAINS];
    char unavailable[640];
};

int gt_rapl_parse_u64(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    if (len == 0 || s[0] < '0' || s[0] > '9')
        return -1;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned digit = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return -1;
        v = v * 10 + digit;
    }
    if (i < len && s[i] != '\n')
        return -1;
    *out = v;
    return 0;
}

uint64_t gt_rapl_delta(uint64_t prev, uint64_t cur, uint64_t max_range)
{
    if (cur >= prev)
        return cur - prev;
    /* Wrapped: the counter went from prev up to max_range, then from 0. */
    return max_range >= prev ? max_range - prev + cur : cur;
}

/* One pread of a small sysfs attribute into buf (NUL-terminated).
 * Returns the length, or -1 with errno set. */
static ssize_t read_attr(int fd, char *buf, size_t size)
{
    ssize_t n = gt_pread_full(fd, buf, size - 1, 0);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

static ssize_t read_file_at(int dirfd, const char *name, char *buf, size_t size)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read_attr(fd, buf, size);
    int e = errno;
    close(fd);
    errno = e;
    return n;
}

static gt_rapl_kind kind_of(const char *name)
{
    static const struct { const char *prefix; gt_rapl_kind k; } kinds[] = {
        {"package", GT_RAPL_PACKAGE}, {"core", GT_RAPL_CORE}, {"uncore", GT_RAPL_UNCORE},
        {"dram", GT_RAPL_DRAM},       {"psys", GT_RAPL_PSYS},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strncmp(name, kinds[i].prefix, strlen(kinds[i].prefix)))
            return kinds[i].k;
    return GT_RAPL_OTHER;
}

/* Zone names sort as versions, so "intel-rapl:0" < "intel-rapl:0:1" <
 * "intel-rapl:1" < "intel-rapl:10": each package before its subzones. */
static int zone_cmp(const void *a, const void *b)
{
    return strverscmp(((const domain *)a)->zone, ((const domain *)b)->zone);
}

/* Names the domain after its zone.  memcpy, not snprintf: gcc's -O1
 * -fsanitize=address build cannot tell the two arrays of one struct apart
 * and reports an overlap (-Werror=restrict). */
static void name_after_zone(domain *d)
{
    _Static_assert(sizeof d->name >= sizeof d->zone, "a zone name fits the domain name");
    memcpy(d->name, d->zone, strnlen(d->zone, sizeof d->zone - 1) + 1);
    d->name[sizeof d->zone - 1] = '\0';
}

/* The domain's own name from its "name" file, kept to characters that are
 * safe as a JSON key and a report label. */
static void read_name(int zfd, domain *d)
{
    char buf[32];
    ssize_t n = read_file_at(zfd, "name", buf, sizeof buf);
    size_t j = 0;
    for (ssize_t i = 0; i < n && j + 1 < sizeof d->name; i++) {
        char c = buf[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_')
            d->name[j++] = c;
    }
    d->name[j] = '\0';
    if (!j) /* no name file: the zone's own name says at least where it is */
        name_after_zone(d);
}

/* Opens one zone's counter and range; on failure fd stays -1 with err set. */
static void open_zone(int dirfd, domain *d)
{
    d->fd = -1;
    int zfd = openat(dirfd, d->zone, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (zfd < 0) {
        d->err = errno;
        name_after_zone(d);
        return;
    }
    read_name(zfd, d);
    d->kind = kind_of(d->name);
    char buf[32];
    ssize_t n = read_file_at(zfd, "max_energy_range_uj", buf, sizeof buf);
    if (n < 0 || gt_rapl_parse_u64(buf, (size_t)n, &d->max_range) != 0 || !d->max_range) {
        d->err = n < 0 ? errno : EINVAL;
        close(zfd);
        return;
    }
    int fd = openat(zfd, "energy_uj", O_RDONLY | O_CLOEXEC);
    d->err = errno;
    close(zfd);
    if (fd < 0)
        return;
    /* Read once now: some kernels let open succeed and fail the read. */
    uint64_t v;
    n = read_attr(fd, buf, sizeof buf);
    if (n < 0 || gt_rapl_parse_u64(buf, (size_t)n, &v) != 0) {
        d->err = n < 0 ? errno : EINVAL;
        close(fd);
        return;
    }
    d->fd = fd;
}

/* A subzone ("intel-rapl:0:1") is named after its parent: "package-0:dram". */
static void prefix_parents(gt_rapl *r)
{
    for (int i = 0; i < r->n; i++) {
        domain *d = &r->d[i];
        const char *last = strrchr(d->zone, ':');
        if (last == strchr(d->zone, ':'))
            continue; /* a top-level zone */
        size_t plen = (size_t)(last - d->zone);
        for (int j = 0; j < r->n; j++) {
            if (strlen(r->d[j].zone) == plen && !strncmp(r->d[j].zone, d->zone, plen)) {
                char full[sizeof d->name];
                snprintf(full, sizeof full, "%.15s:%.15s", r->d[j].name, d->name);
                memcpy(d->name, full, sizeof full);
                break;
            }
        }
    }
}

/* States once which domains cannot be read, why, and what fixes it. */
static void explain(gt_rapl *r, const char *base)
{
    int denied = 0, bad = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->d[i].fd >= 0)
            continue;
        denied += r->d[i].err == EACCES || r->d[i].err == EPERM;
        bad++;
    }
    if (!bad)
        return;
    gt_text_append(r->unavailable, sizeof r->unavailable, "%s of %d RAPL domains cannot be read (",
           bad == r->n ? "all" : "some", r->n);
    for (int i = 0, k = 0; i < r->n; i++)
        if (r->d[i].fd < 0)
            gt_text_append(r->unavailable, sizeof r->unavailable, "%s%s: %s", k++ ? ", " : "",
                   r->d[i].name, strerror(r->d[i].err));
    gt_text_append(r->unavailable, sizeof r->unavailable, ")");
    if (denied)
        gt_text_append(r->unavailable, sizeof r->unavailable,
               "; energy_uj is readable by root only since Linux 5.10: allow reading until reboot "
               "with 'sudo chmod o+r %s/class/powercap/intel-rapl:*/energy_uj', or at every boot "
               "with the udev rule 'ACTION==\"add\", SUBSYSTEM==\"powercap\", "
               "RUN+=\"/bin/chmod o+r /sys%%p/energy_uj\"' in /etc/udev/rules.d/99-rapl.rules",
               base);
}

gt_status gt_rapl_open(const char *sysfs_root, gt_rapl **out, gt_error *err)
{
    const char *base = sysfs_root ? sysfs_root : "/sys";
    *out = NULL;
    gt_rapl *r = calloc(1, sizeof *r);
    if (!r)
        return gt_err(err, GT_ERR_NOMEM, "out of memory");
    char path[512];
    snprintf(path, sizeof path, "%s/class/powercap", base);
    DIR *dir = opendir(path);
    if (!dir) {
        gt_text_append(r->unavailable, sizeof r->unavailable,
                 "no RAPL energy counters: cannot open '%s': %s (a virtual machine, a processor "
                 "without RAPL, or a kernel without powercap; on bare metal try 'sudo modprobe "
                 "intel_rapl_msr')", path, strerror(errno));
        *out = r;
        return GT_OK;
    }
    int extra = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        /* intel-rapl-mmio:* repeats a package domain; reading both would
         * count its energy twice. */
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, ZONE_PREFIX, strlen(ZONE_PREFIX)) || len >= sizeof r->d[0].zone)
            continue;
        if (r->n == MAX_DOMAINS) {
            extra++;
            continue;
        }
        /* The length is checked above, which gcc 12's -Wformat-truncation
         * does not see through snprintf. */
        memcpy(r->d[r->n++].zone, e->d_name, len + 1);
    }
    qsort(r->d, (size_t)r->n, sizeof *r->d, zone_cmp);
    for (int i = 0; i < r->n; i++)
        open_zone(dirfd(dir), &r->d[i]);
    closedir(dir);
    prefix_parents(r);
    if (!r->n)
        gt_text_append(r->unavailable, sizeof r->unavailable,
                 "no RAPL energy counters: '%s' has no intel-rapl zones (a virtual machine, a "
                 "processor without RAPL, or the driver not loaded: try 'sudo modprobe "
                 "intel_rapl_msr')", path);
    explain(r, base);
    if (extra)
        gt_text_append(r->unavailable, sizeof r->unavailable, "%s%d RAPL domains beyond the first %d are not read",
               r->unavailable[0] ? "; " : "", extra, MAX_DOMAINS);
    *out = r;
    return GT_OK;
}

void gt_rapl_close(gt_rapl **rp)
{
    if (!rp || !*rp)
        return;
    for (int i = 0; i < (*rp)->n; i++)
        if ((*rp)->d[i].fd >= 0)
            close((*rp)->d[i].fd);
    free(*rp);
    *rp = NULL;
}

int gt_rapl_count(const gt_rapl *r) { return r->n; }
const char *gt_rapl_name(const gt_rapl *r, int i) { return r->d[i].name; }
gt_rapl_kind gt_rapl_kind_of(const gt_rapl *r, int i) { return r->d[i].kind; }
int gt_rapl_readable(const gt_rapl *r, int i) { return r->d[i].fd >= 0; }
const char *gt_rapl_unavailable(const gt_rapl *r) { return r->unavailable; }
uint64_t gt_rapl_max_range(const gt_rapl *r, int i) { return r->d[i].max_range; }

int gt_rapl_read(gt_rapl *r, int i, uint64_t *uj)
{
    if (r->d[i].fd < 0) {
        errno = EBADF;
        return -1;
    }
    char buf[32];
    ssize_t n = read_attr(r->d[i].fd, buf, sizeof buf);
    if (n < 0)
        return -1;
    if (gt_rapl_parse_u64(buf, (size_t)n, uj) != 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}
