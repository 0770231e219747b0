/* SPDX-License-Identifier: MIT */
/* The cgroup files' text: /proc/PID/cgroup, mountinfo, limits and
 * counters, and the walk up a group's ancestors for its limits.  See
 * cgroup.h. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "util/units.h"

const char *gt_cgroup_path(const char *proc_cgroup, const char *controller, size_t *len)
{
    for (const char *line = proc_cgroup; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *c1 = memchr(line, ':', n);
        const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            const char *ctl = c1 + 1;
            int match = 0;
            if (!controller) {
                match = c2 == ctl;
            } else {
                for (const char *p = ctl; p < c2;) {
                    size_t w = strcspn(p, ",:");
                    if (w == strlen(controller) && strncmp(p, controller, w) == 0)
                        match = 1;
                    p += w + 1;
                }
            }
            if (match) {
                *len = n - (size_t)(c2 + 1 - line);
                return c2 + 1;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

/* Copies the field [s, s+len) into out with mountinfo's octal escapes
 * (\040 for a space) decoded; -1 when it does not fit. */
static int unescape(const char *s, size_t len, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' &&
            s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
            c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        }
        if (o + 1 >= size)
            return -1;
        out[o++] = c;
    }
    out[o] = '\0';
    return 0;
}

/* Whether the comma-separated list [s, s+len) has word. */
static int has_word(const char *s, size_t len, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = s, *end = s + len; p < end;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);
        if (n == w && strncmp(p, word, n) == 0)
            return 1;
        p += n + 1;
    }
    return 0;
}

int gt_cgroup_mount(const char *mountinfo, const char *controller, char *point, size_t point_size, char *root,
                    size_t root_size)
{
    /* "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS" */
    for (const char *line = mountinfo; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *f[6];
        size_t flen[6], k = 0;
        const char *p = line, *stop = line + n;
        while (k < 6 && p < stop) {
            while (p < stop && *p == ' ')
                p++;
            const char *w = p;
            while (p < stop && *p != ' ')
                p++;
            if (p > w) {
                f[k] = w;
                flen[k++] = (size_t)(p - w);
            }
        }
        const char *dash = k == 6 ? strstr(f[5], " - ") : NULL;
        if (dash && dash < stop) {
            /* after the separator: fstype, source, super options */
            const char *q = dash + 3, *fs = q;
            while (q < stop && *q != ' ')
                q++;
            size_t fs_len = (size_t)(q - fs);
            while (q < stop && *q == ' ')
                q++;
            while (q < stop && *q != ' ') /* the source */
                q++;
            while (q < stop && *q == ' ')
                q++;
            int match = controller ? fs_len == 6 && strncmp(fs, "cgroup", 6) == 0 &&
                                         has_word(q, (size_t)(stop - q), controller)
                                   : fs_len == 7 && strncmp(fs, "cgroup2", 7) == 0;
            if (match)
                return unescape(f[4], flen[4], point, point_size) == 0 &&
                               unescape(f[3], flen[3], root, root_size) == 0
                           ? 0
                           : -1;
        }
        line = end ? end + 1 : NULL;
    }
    return -1;
}

/* The first line of text without its newline, as a count; -1 otherwise. */
static double line_count(const char *text)
{
    if (!text)
        return -1;
    size_t len = strcspn(text, "\n");
    if (text[len] == '\n' && text[len + 1] != '\0')
        return -1; /* one line only */
    return gt_parse_count(text, len);
}

double gt_cgroup_v2_memory_max(const char *text)
{
    return line_count(text); /* "max" is malformed as a count: none */
}

/* LONG_MAX rounded down to a page is past the 2^53 that line_count takes. */
double gt_cgroup_v1_memory_limit(const char *text)
{
    return line_count(text);
}

double gt_cgroup_v2_cpu_max(const char *text)
{
    if (!text)
        return -1;
    size_t qlen = strcspn(text, " \n");
    if (text[qlen] != ' ')
        return -1;
    const char *p = text + qlen + 1;
    size_t plen = strcspn(p, "\n");
    if (p[plen] == '\n' && p[plen + 1] != '\0')
        return -1;
    double quota = gt_parse_count(text, qlen), period = gt_parse_count(p, plen);
    return quota > 0 && period > 0 ? quota / period : -1;
}

double gt_cgroup_v1_cpu_quota(const char *quota_text, const char *period_text)
{
    double quota = line_count(quota_text), period = line_count(period_text);
    return quota > 0 && period > 0 ? quota / period : -1; /* "-1": no quota */
}

/* Digits [s, s+len) as an int64; -1 when empty, malformed or too large. */
static int64_t parse_int64(const char *s, size_t len)
{
    if (len == 0 || len > 19)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return v <= INT64_MAX ? (int64_t)v : -1;
}

int64_t gt_cgroup_count(const char *text)
{
    if (!text)
        return -1;
    size_t len = strcspn(text, "\n");
    if (text[len] != '\n' || text[len + 1] != '\0')
        return -1; /* one whole line: a short read is no figure */
    return parse_int64(text, len);
}

int64_t gt_cgroup_cpu_stat_usec(const char *text)
{
    static const char key[] = "usage_usec ";
    for (const char *line = text; line && *line;) {
        size_t n = strcspn(line, "\n");
        if (n > sizeof key - 1 && strncmp(line, key, sizeof key - 1) == 0)
            return line[n] == '\n' ? parse_int64(line + sizeof key - 1, n - (sizeof key - 1)) : -1;
        line = line[n] ? line + n + 1 : NULL;
    }
    return -1;
}

const char *gt_cgroup_read_small(const char *dir, const char *name, char *buf, size_t size)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return buf;
}

/* One cgroup directory's limits (v1: the controller's hierarchy given). */
static gt_cgroup_limits dir_limits(const char *dir, int v1_mem, int v1_cpu)
{
    char a[64], b[64];
    gt_cgroup_limits l = {-1, -1};
    if (v1_mem)
        l.mem = gt_cgroup_v1_memory_limit(gt_cgroup_read_small(dir, "memory.limit_in_bytes", a, sizeof a));
    else if (v1_cpu)
        l.cores = gt_cgroup_v1_cpu_quota(gt_cgroup_read_small(dir, "cpu.cfs_quota_us", a, sizeof a),
                                         gt_cgroup_read_small(dir, "cpu.cfs_period_us", b, sizeof b));
    else {
        l.mem = gt_cgroup_v2_memory_max(gt_cgroup_read_small(dir, "memory.max", a, sizeof a));
        l.cores = gt_cgroup_v2_cpu_max(gt_cgroup_read_small(dir, "cpu.max", b, sizeof b));
    }
    return l;
}

static double smaller(double a, double b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

gt_cgroup_limits gt_cgroup_walk_limits(const char *base, const char *path, size_t path_len, int v1_mem,
                                       int v1_cpu)
{
    char dir[PATH_MAX];
    gt_cgroup_limits best = {-1, -1};
    if (snprintf(dir, sizeof dir, "%s%.*s", base, (int)path_len, path) >= (int)sizeof dir ||
        access(dir, F_OK) != 0)
        snprintf(dir, sizeof dir, "%s", base);
    size_t stop = strlen(base);
    for (;;) {
        gt_cgroup_limits l = dir_limits(dir, v1_mem, v1_cpu);
        best.mem = smaller(best.mem, l.mem);
        best.cores = smaller(best.cores, l.cores);
        char *slash = strrchr(dir + stop, '/');
        if (!slash)
            return best;
        *slash = '\0';
    }
}
