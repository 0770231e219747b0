/* SPDX-License-Identifier: MIT */
/* Parsers for /proc text.  The buffers come straight from read(2): they are
 * not NUL-terminated, so every scan is bounded by an end pointer.  A file
 * read in full always ends with '\n', so a line-oriented file whose last
 * line lacks it was cut short and is rejected rather than half-read; and a
 * number must be followed by a separator, so "12" cut from "1234" is never
 * taken for a reading. */
#include "proc/parse.h"

#include <limits.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_blank(char c) { return c == ' ' || c == '\t'; }

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Decimal digits at *p (at least one) into *v; -1 on no digit or on a
 * value above UINT64_MAX.  *p moves past the digits. */
static int scan_u64(const char **p, const char *end, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    if (s >= end || !is_digit(*s))
        return -1;
    for (; s < end && is_digit(*s); s++) {
        uint64_t d = (uint64_t)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    *p = s;
    *v = x;
    return 0;
}

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && is_blank(*s))
        s++;
    return s;
}

static int add_u64(uint64_t *acc, uint64_t v)
{
    if (*acc > UINT64_MAX - v)
        return -1;
    *acc += v;
    return 0;
}

/* The next '\n'-terminated line from *pos: 1 with [*line, *line_end) set
 * (newline excluded), 0 at the end of the buffer, -1 when the last line is
 * not terminated (a file cut short). */
static int next_line(const char **pos, const char *end, const char **line,
                     const char **line_end)
{
    const char *s = *pos;
    if (s >= end)
        return 0;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    if (!nl)
        return -1;
    *line = s;
    *line_end = nl;
    *pos = nl + 1;
    return 1;
}

/* If [s, e) starts with key (which includes its ':'), returns the text
 * after it, else NULL. */
static const char *after_key(const char *s, const char *e, const char *key)
{
    size_t n = strlen(key);
    if ((size_t)(e - s) < n || memcmp(s, key, n) != 0)
        return NULL;
    return s + n;
}

/* The value part of a "Key:   1234 kB" line, in bytes. */
static int scan_kb(const char *s, const char *e, uint64_t *bytes)
{
    uint64_t kb;
    s = skip_blanks(s, e);
    if (scan_u64(&s, e, &kb) != 0)
        return -1;
    s = skip_blanks(s, e);
    if (e - s < 2 || s[0] != 'k' || s[1] != 'B')
        return -1;
    if (skip_blanks(s + 2, e) != e || kb > UINT64_MAX / 1024)
        return -1;
    *bytes = kb * 1024;
    return 0;
}

/* One space-separated field of stat: an optionally negative integer (some
 * fields, such as tpgid and nice, are signed), followed by a blank or the
 * line's end.  *v gets the value when it is not negative. */
static int stat_field(const char **p, const char *end, uint64_t *v, int *negative)
{
    const char *s = skip_blanks(*p, end);
    int neg = 0;
    if (s < end && *s == '-') {
        neg = 1;
        s++;
    }
    if (scan_u64(&s, end, v) != 0)
        return -1;
    if (s >= end || (!is_blank(*s) && *s != '\n'))
        return -1;
    *p = s;
    *negative = neg;
    return 0;
}

/* stat fields after the command name, numbered as in proc(5). */
enum {
    F_STATE = 3, F_PPID = 4, F_MINFLT = 10, F_MAJFLT = 12, F_UTIME = 14,
    F_STIME = 15, F_CUTIME = 16, F_CSTIME = 17, F_NUM_THREADS = 20,
    F_STARTTIME = 22, F_RSS = 24
};

int gt_parse_stat(const char *buf, size_t len, gt_proc_stat *out)
{
    if (!buf || !out || len == 0 || buf[len - 1] != '\n')
        return -1;
    const char *end = buf + len, *p = buf;
    uint64_t pid;
    if (scan_u64(&p, end, &pid) != 0 || pid == 0 || pid > INT_MAX)
        return -1;
    if (end - p < 2 || p[0] != ' ' || p[1] != '(')
        return -1;
    const char *open = p + 1, *close = NULL;
    for (const char *s = end - 1; s > open; s--)
        if (*s == ')') {
            close = s;
            break;
        }
    if (!close)
        return -1;
    p = close + 1;
    /* Field 3, the state: one character between blanks. */
    if (end - p < 3 || p[0] != ' ' || is_blank(p[1]) || p[1] == '\n' || p[2] != ' ')
        return -1;
    gt_proc_stat st = {.pid = (pid_t)pid, .state = p[1]};
    size_t clen = (size_t)(close - open - 1);
    if (clen >= sizeof st.comm)
        clen = sizeof st.comm - 1;
    memcpy(st.comm, open + 1, clen);
    p += 2;
    for (int f = F_STATE + 1; f <= F_RSS; f++) {
        uint64_t v;
        int neg;
        if (stat_field(&p, end, &v, &neg) != 0)
            return -1;
        int want_unsigned = 1;
        switch (f) {
        case F_PPID:
            if (v > INT_MAX)
                return -1;
            st.ppid = (pid_t)v;
            break;
        case F_UTIME: st.utime = v; break;
        case F_STIME: st.stime = v; break;
        case F_CUTIME: st.cutime = v; break;
        case F_CSTIME: st.cstime = v; break;
        case F_NUM_THREADS:
            if (v > INT_MAX)
                return -1;
            st.num_threads = (int)v;
            break;
        case F_MINFLT: st.minflt = v; break;
        case F_MAJFLT: st.majflt = v; break;
        case F_STARTTIME: st.starttime = v; break;
        case F_RSS: st.rss_pages = v; break;
        default: want_unsigned = 0; break;
        }
        if (want_unsigned && neg)
            return -1;
    }
    *out = st;
    return 0;
}

int gt_parse_smaps_rollup(const char *buf, size_t len, gt_mem_rollup *out)
{
    static const char *const keys[] = {"Rss:", "Private_Clean:", "Private_Dirty:",
                                       "Shared_Clean:", "Shared_Dirty:"};
    if (!buf || !out)
        return -1;
    uint64_t vals[5] = {0};
    unsigned seen = 0;
    const char *pos = buf, *end = buf + len, *l, *le;
    int r;
    while ((r = next_line(&pos, end, &l, &le)) == 1) {
        for (int k = 0; k < 5; k++) {
            const char *v = after_key(l, le, keys[k]);
            if (v) {
                if (scan_kb(v, le, &vals[k]) != 0)
                    return -1;
                seen |= 1u << k;
                break;
            }
        }
    }
    if (r < 0 || seen != 0x1f)
        return -1;
    *out = (gt_mem_rollup){vals[0], vals[1], vals[2], vals[3], vals[4]};
    return 0;
}

/* A mapping's header line, "start-end perms offset dev inode [path]": 1 with
 * the path (possibly empty) when [s, e) is one, 0 when it is not. */
static int smaps_header(const char *s, const char *e, const char **path,
                        const char **path_end)
{
    const char *p = s;
    uint64_t inode;
    /* start-end */
    if (p >= e || !is_hex(*p))
        return 0;
    while (p < e && is_hex(*p))
        p++;
    if (p >= e || *p++ != '-' || p >= e || !is_hex(*p))
        return 0;
    while (p < e && is_hex(*p))
        p++;
    /* perms: four characters */
    if (e - p < 6 || *p++ != ' ')
        return 0;
    for (int i = 0; i < 4; i++, p++)
        if (is_blank(*p))
            return 0;
    /* offset, dev major:minor */
    if (p >= e || *p++ != ' ' || p >= e || !is_hex(*p))
        return 0;
    while (p < e && is_hex(*p))
        p++;
    if (p >= e || *p++ != ' ' || p >= e || !is_hex(*p))
        return 0;
    while (p < e && is_hex(*p))
        p++;
    if (p >= e || *p++ != ':' || p >= e || !is_hex(*p))
        return 0;
    while (p < e && is_hex(*p))
        p++;
    if (p >= e || *p++ != ' ' || scan_u64(&p, e, &inode) != 0)
        return 0;
    if (p < e && *p != ' ')
        return 0;
    /* The kernel pads with blanks up to the path column; the path itself
     * (absolute, or a bracketed name) never starts with one. */
    *path = skip_blanks(p, e);
    *path_end = e;
    return 1;
}

/* A field line, "Name: ...", with Name made of letters, digits and '_'. */
static int smaps_field(const char *s, const char *e)
{
    const char *p = s;
    while (p < e && (is_digit(*p) || *p == '_' || (*p >= 'a' && *p <= 'z') ||
                     (*p >= 'A' && *p <= 'Z')))
        p++;
    return p > s && p < e && *p == ':';
}

int gt_parse_smaps(const char *buf, size_t len, gt_smaps_cb cb, void *ctx)
{
    static const char *const keys[] = {"Private_Clean:", "Private_Dirty:",
                                       "Shared_Clean:", "Shared_Dirty:"};
    if (!buf || !cb)
        return -1;
    const char *pos = buf, *end = buf + len, *l, *le;
    const char *path = NULL, *path_end = NULL;
    uint64_t priv = 0, shared = 0;
    unsigned seen = 0;
    int in_mapping = 0, r;
    /* A mapping is reported when the next header (or the end) shows it is
     * complete; a mapping without all four fields means the file was cut. */
    while ((r = next_line(&pos, end, &l, &le)) == 1) {
        const char *np, *npe;
        if (smaps_header(l, le, &np, &npe)) {
            if (in_mapping) {
                if (seen != 0xf)
                    return -1;
                cb(ctx, path, (size_t)(path_end - path), priv, shared);
            }
            in_mapping = 1;
            path = np;
            path_end = npe;
            priv = shared = 0;
            seen = 0;
            continue;
        }
        if (!in_mapping || !smaps_field(l, le))
            return -1;
        for (int k = 0; k < 4; k++) {
            const char *v = after_key(l, le, keys[k]);
            uint64_t bytes;
            if (!v)
                continue;
            if (scan_kb(v, le, &bytes) != 0 || add_u64(k < 2 ? &priv : &shared, bytes) != 0)
                return -1;
            seen |= 1u << k;
            break;
        }
    }
    if (r < 0)
        return -1;
    if (in_mapping) {
        if (seen != 0xf)
            return -1;
        cb(ctx, path, (size_t)(path_end - path), priv, shared);
    }
    return 0;
}

int gt_parse_status_hwm(const char *buf, size_t len, uint64_t *vmhwm)
{
    if (!buf || !vmhwm)
        return -1;
    const char *pos = buf, *end = buf + len, *l, *le;
    uint64_t hwm = 0;
    int r;
    while ((r = next_line(&pos, end, &l, &le)) == 1) {
        const char *v = after_key(l, le, "VmHWM:");
        if (v && scan_kb(v, le, &hwm) != 0)
            return -1;
    }
    if (r < 0)
        return -1;
    *vmhwm = hwm;
    return 0;
}

int gt_parse_keyed(const char *buf, size_t len, const char *const *keys, int n, uint64_t *out)
{
    if (!buf || !keys || !out || n < 0 || n > 32)
        return -1;
    const char *pos = buf, *end = buf + len, *l, *le;
    uint32_t seen = 0;
    int r;
    while ((r = next_line(&pos, end, &l, &le)) == 1)
        for (int k = 0; k < n; k++) {
            const char *v = after_key(l, le, keys[k]);
            if (!v)
                continue;
            v = skip_blanks(v, le);
            if ((seen & 1u << k) || scan_u64(&v, le, &out[k]) != 0 || skip_blanks(v, le) != le)
                return -1;
            seen |= 1u << k;
            break;
        }
    return r < 0 || seen != (n == 32 ? UINT32_MAX : (1u << n) - 1) ? -1 : 0;
}

int gt_parse_status_rss(const char *buf, size_t len, uint64_t *vmrss, int *found)
{
    if (!buf || !vmrss || !found)
        return -1;
    const char *pos = buf, *end = buf + len, *l, *le;
    uint64_t rss = 0;
    int r, seen = 0;
    while ((r = next_line(&pos, end, &l, &le)) == 1) {
        const char *v = after_key(l, le, "VmRSS:");
        if (v) {
            if (scan_kb(v, le, &rss) != 0)
                return -1;
            seen = 1;
        }
    }
    if (r < 0)
        return -1;
    *vmrss = rss;
    *found = seen;
    return 0;
}

int gt_parse_meminfo(const char *buf, size_t len, gt_meminfo *out)
{
    enum { TOTAL, FREE, BUFFERS, CACHED, SRECLAIMABLE, SHMEM, AVAILABLE, NKEYS };
    static const char *const keys[NKEYS] = {"MemTotal:", "MemFree:", "Buffers:", "Cached:",
                                            "SReclaimable:", "Shmem:", "MemAvailable:"};
    /* Every kernel this runs on has the first four.  SReclaimable and Shmem
     * are absent on very old kernels, where psutil takes them as 0. */
    const unsigned required = 1u << TOTAL | 1u << FREE | 1u << BUFFERS | 1u << CACHED;
    if (!buf || !out)
        return -1;
    uint64_t v[NKEYS] = {0};
    unsigned seen = 0;
    const char *pos = buf, *end = buf + len, *l, *le;
    int r;
    while ((r = next_line(&pos, end, &l, &le)) == 1) {
        for (int k = 0; k < NKEYS; k++) {
            const char *val = after_key(l, le, keys[k]);
            if (val) {
                if (scan_kb(val, le, &v[k]) != 0)
                    return -1;
                seen |= 1u << k;
                break;
            }
        }
    }
    if (r < 0 || (seen & required) != required)
        return -1;
    /* Kernels before 3.14 lack MemAvailable; psutil's last-resort estimate
     * is free + cached. */
    if (!(seen & 1u << AVAILABLE)) {
        v[AVAILABLE] = v[FREE];
        if (add_u64(&v[AVAILABLE], v[CACHED]) != 0)
            return -1;
    }
    *out = (gt_meminfo){.total = v[TOTAL], .free = v[FREE], .buffers = v[BUFFERS],
                        .cached = v[CACHED], .sreclaimable = v[SRECLAIMABLE],
                        .shmem = v[SHMEM], .available = v[AVAILABLE]};
    return 0;
}

uint64_t gt_meminfo_used(const gt_meminfo *m)
{
    /* Summed with saturation: a sum past total means "negative" in psutil's
     * signed arithmetic, whatever the exact value. */
    uint64_t sub = m->free;
    const uint64_t more[] = {m->buffers, m->cached, m->sreclaimable};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        if (add_u64(&sub, more[i]) != 0)
            sub = UINT64_MAX;
    if (sub <= m->total)
        return m->total - sub;
    return m->free <= m->total ? m->total - m->free : 0;
}

int gt_parse_proc_stat(const char *buf, size_t len, gt_cpu_times *cpus, int max, int *n)
{
    if (!buf || !n || max < 0 || (max > 0 && !cpus))
        return -1;
    const char *pos = buf, *end = buf + len, *l, *le;
    int found = 0, r;
    while ((r = next_line(&pos, end, &l, &le)) == 1) {
        /* "cpuN": the aggregate "cpu " line and other keys are skipped. */
        if (le - l < 4 || memcmp(l, "cpu", 3) != 0 || !is_digit(l[3]))
            continue;
        const char *p = l + 3;
        uint64_t core, f[10] = {0}, total = 0;
        if (scan_u64(&p, le, &core) != 0 || p >= le || *p != ' ')
            return -1;
        /* user nice system idle, then what later kernels added: iowait irq
         * softirq (2.6), steal (2.6.11), guest (2.6.24), guest_nice
         * (2.6.33).  Fields beyond these are ignored. */
        int nf = 0;
        for (;;) {
            p = skip_blanks(p, le);
            if (p == le)
                break;
            uint64_t x;
            if (scan_u64(&p, le, &x) != 0 || (p < le && !is_blank(*p)))
                return -1;
            if (nf < 10)
                f[nf] = x;
            nf++;
        }
        if (nf < 4)
            return -1;
        for (int i = 0; i < 8; i++)
            if (add_u64(&total, f[i]) != 0)
                return -1;
        if (found == INT_MAX)
            return -1;
        if (found < max)
            cpus[found] = (gt_cpu_times){.busy = total - f[3] - f[4], .total = total};
        found++;
    }
    if (r < 0 || found == 0)
        return -1;
    *n = found;
    return 0;
}

int gt_parse_loadavg_last_pid(const char *buf, size_t len, pid_t *pid)
{
    if (!buf || !pid)
        return -1;
    const char *pos = buf, *end = buf + len, *l, *le;
    if (next_line(&pos, end, &l, &le) != 1)
        return -1;
    /* Four fields, then the last PID and nothing more. */
    const char *p = l;
    for (int f = 0; f < 4; f++) {
        p = skip_blanks(p, le);
        if (p == le)
            return -1;
        while (p < le && !is_blank(*p))
            p++;
    }
    p = skip_blanks(p, le);
    uint64_t v;
    if (scan_u64(&p, le, &v) != 0 || skip_blanks(p, le) != le || v > INT_MAX)
        return -1;
    *pid = (pid_t)v;
    return 0;
}

int gt_parse_pid_list(const char *buf, size_t len, pid_t *out, int max)
{
    if (!buf || max < 0 || (max > 0 && !out))
        return -1;
    const char *p = buf, *end = buf + len;
    int count = 0;
    for (;;) {
        while (p < end && (is_blank(*p) || *p == '\n'))
            p++;
        if (p == end)
            break;
        uint64_t pid;
        if (scan_u64(&p, end, &pid) != 0 || pid == 0 || pid > INT_MAX)
            return -1;
        if (p < end && !is_blank(*p) && *p != '\n')
            return -1;
        if (count == INT_MAX)
            return -1;
        if (count < max)
            out[count] = (pid_t)pid;
        count++;
    }
    return count;
}
