/* SPDX-License-Identifier: MIT */
/* /proc parsers: exact values from captured and hand-made files
 * (tests/fixtures/proc/README.md), error returns, and survival of every
 * prefix of every fixture.  Buffers are allocated at their exact length so
 * that AddressSanitizer (make SAN=1) catches a read past len. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/parse.h"

#define KB 1024ull

static char fixture_dir[PATH_MAX] = "tests/fixtures/proc";

/* The whole file in a malloc'd buffer of exactly *len bytes (never NUL
 * terminated); fails the test if it cannot be read. */
static char *load(const char *name, size_t *len)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open fixture '%s'", path);
    char tmp[65536];
    size_t n = fread(tmp, 1, sizeof tmp, f);
    int big = !feof(f);
    fclose(f);
    if (big)
        fail_msg("fixture '%s' is larger than the test's buffer", path);
    char *buf = malloc(n ? n : 1);
    assert_non_null(buf);
    memcpy(buf, tmp, n);
    *len = n;
    return buf;
}

/* A string literal as an exact-length heap buffer. */
static char *dup_text(const char *s, size_t *len)
{
    *len = strlen(s);
    char *buf = malloc(*len ? *len : 1);
    assert_non_null(buf);
    memcpy(buf, s, *len);
    return buf;
}

/* ---- stat ---- */

static gt_proc_stat stat_of(const char *name)
{
    size_t len;
    char *b = load(name, &len);
    gt_proc_stat st;
    memset(&st, 0x5a, sizeof st);
    assert_int_equal(gt_parse_stat(b, len, &st), 0);
    free(b);
    return st;
}

static int stat_text(const char *s)
{
    size_t len;
    char *b = dup_text(s, &len);
    gt_proc_stat st;
    int r = gt_parse_stat(b, len, &st);
    free(b);
    return r;
}

static void test_stat_captured(void **state)
{
    (void)state;
    gt_proc_stat st = stat_of("stat_sleep");
    assert_int_equal(st.pid, 7909);
    assert_int_equal(st.ppid, 7907);
    assert_string_equal(st.comm, "sleep");
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.num_threads, 1);
    assert_int_equal(st.starttime, 1009801);
    assert_int_equal(st.minflt, 132);
    assert_int_equal(st.majflt, 0);
    assert_int_equal(st.rss_pages, 391);
    assert_int_equal(st.utime + st.stime + st.cutime + st.cstime, 0);

    st = stat_of("stat_busy");
    assert_int_equal(st.pid, 8524);
    assert_int_equal(st.ppid, 8522);
    assert_int_equal(st.state, 'T');
    assert_int_equal(st.utime, 69);
    assert_int_equal(st.stime, 0);
    assert_int_equal(st.starttime, 1016455);

    st = stat_of("stat_zombie");
    assert_int_equal(st.pid, 7919);
    assert_int_equal(st.ppid, 7917);
    assert_int_equal(st.state, 'Z');
    assert_int_equal(st.starttime, 1009836);
}

static void test_stat_odd_name(void **state)
{
    (void)state;
    /* "4242 (a) (b c) S 1 ...": an early ')' must not shift the fields. */
    gt_proc_stat st = stat_of("stat_odd_name");
    assert_int_equal(st.pid, 4242);
    assert_string_equal(st.comm, "a) (b c");
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.ppid, 1);
    assert_int_equal(st.utime, 123);
    assert_int_equal(st.stime, 45);
    assert_int_equal(st.cutime, 6);
    assert_int_equal(st.cstime, 7);
    assert_int_equal(st.num_threads, 3);
    assert_int_equal(st.starttime, 987654);
}

static void test_stat_limits(void **state)
{
    (void)state;
    gt_proc_stat st = stat_of("stat_max");
    assert_true(st.utime == UINT64_MAX);
    assert_true(st.starttime == UINT64_MAX);
    assert_int_equal(st.num_threads, INT_MAX);

    size_t len;
    const char *bad[] = {"stat_overflow", "stat_short"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *b = load(bad[i], &len);
        assert_int_equal(gt_parse_stat(b, len, &st), -1);
        free(b);
    }
}

static void test_stat_malformed(void **state)
{
    (void)state;
    const char *tail = " S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n";
    char ok[128];
    snprintf(ok, sizeof ok, "5 (x)%s", tail);
    assert_int_equal(stat_text(ok), 0);
    /* The same line without its newline was cut short. */
    ok[strlen(ok) - 1] = '\0';
    assert_int_equal(stat_text(ok), -1);
    assert_int_equal(stat_text(""), -1);
    assert_int_equal(stat_text("\n"), -1);
    assert_int_equal(stat_text("5 (x S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("0 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("2147483648 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("x5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("5(x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n"), -1);
    /* A negative ppid, utime, thread count or start time is not a reading;
     * signed fields in between (tty, tpgid, nice) may be negative. */
    assert_int_equal(stat_text("5 (x) S -1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 -1 2 3 4 20 0 1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 -1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 -99 0 7\n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 -5 -1 0 0 0 0 0 1 2 3 4 -2 -20 1 0 99 0 7\n"), 0);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 2147483648 0 99 0 7\n"), -1);
    /* A missing state, junk in a number, a number cut by the end. */
    assert_int_equal(stat_text("5 (x)  1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1x 2 3 4 20 0 1 0 99 0 7\n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99 0 7\n"), 0);
    /* Fields up to rss (24) are required; a line that ends earlier was cut. */
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99\n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 \n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 99x\n"), -1);
    assert_int_equal(stat_text("5 (x) S 1 1 1 0 -1 0 0 0 0 0 1-2 3 4 20 0 1 0 99 0 0\n"), -1);
    gt_proc_stat st;
    assert_int_equal(gt_parse_stat(NULL, 3, &st), -1);
}

/* ---- smaps_rollup ---- */

static void test_rollup(void **state)
{
    (void)state;
    size_t len;
    char *b = load("smaps_rollup_sleep", &len);
    gt_mem_rollup r;
    assert_int_equal(gt_parse_smaps_rollup(b, len, &r), 0);
    assert_true(r.rss == 1736 * KB);
    assert_true(r.private_clean == 0);
    assert_true(r.private_dirty == 108 * KB);
    assert_true(r.shared_clean == 1628 * KB);
    assert_true(r.shared_dirty == 0);
    free(b);

    b = load("smaps_rollup_missing", &len);
    assert_int_equal(gt_parse_smaps_rollup(b, len, &r), -1);
    free(b);

    const char *cases[] = {
        "",
        "Rss: 1 kB\nPrivate_Clean: 2 kB\nPrivate_Dirty: 3 kB\nShared_Clean: 4 kB\nShared_Dirty: 5 kB",
        "Rss: 1 kB\nPrivate_Clean: 2 kB\nPrivate_Dirty: 3 kB\nShared_Clean: 4 kB\nShared_Dirty: 5\n",
        "Rss: 1 kB\nPrivate_Clean: 2 MB\nPrivate_Dirty: 3 kB\nShared_Clean: 4 kB\nShared_Dirty: 5 kB\n",
        ("Rss: 18014398509481984 kB\nPrivate_Clean: 2 kB\nPrivate_Dirty: 3 kB\nShared_Clean: 4 kB\n"
         "Shared_Dirty: 5 kB\n"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b = dup_text(cases[i], &len);
        assert_int_equal(gt_parse_smaps_rollup(b, len, &r), -1);
        free(b);
    }
    /* The largest kB value that still fits in bytes. */
    b = dup_text("Rss: 18014398509481983 kB\nPrivate_Clean: 2 kB\nPrivate_Dirty: 3 kB\n"
                 "Shared_Clean: 4 kB\nShared_Dirty: 5 kB\n", &len);
    assert_int_equal(gt_parse_smaps_rollup(b, len, &r), 0);
    assert_true(r.rss == 18014398509481983ull * KB);
    assert_true(r.shared_dirty == 5 * KB);
    free(b);
}

/* ---- smaps ---- */

#define MAX_MAPS 64
typedef struct maps {
    int n;
    char path[MAX_MAPS][128];
    uint64_t priv[MAX_MAPS], shared[MAX_MAPS];
} maps;

static void collect(void *ctx, const char *path, size_t path_len, uint64_t priv, uint64_t shared)
{
    maps *m = ctx;
    assert_true(m->n < MAX_MAPS);
    assert_true(path_len < sizeof m->path[0]);
    memcpy(m->path[m->n], path, path_len);
    m->path[m->n][path_len] = '\0';
    m->priv[m->n] = priv;
    m->shared[m->n] = shared;
    m->n++;
}

static int smaps_of(const char *name, maps *m)
{
    size_t len;
    char *b = load(name, &len);
    memset(m, 0, sizeof *m);
    int r = gt_parse_smaps(b, len, collect, m);
    free(b);
    return r;
}

static int smaps_text(const char *s, maps *m)
{
    size_t len;
    char *b = dup_text(s, &len);
    memset(m, 0, sizeof *m);
    int r = gt_parse_smaps(b, len, collect, m);
    free(b);
    return r;
}

static void test_smaps_captured(void **state)
{
    (void)state;
    static maps m;
    assert_int_equal(smaps_of("smaps_sleep", &m), 0);
    assert_int_equal(m.n, 37);
    uint64_t priv = 0, shared = 0;
    for (int i = 0; i < m.n; i++) {
        priv += m.priv[i];
        shared += m.shared[i];
    }
    /* The same totals as smaps_rollup_sleep, read at the same moment. */
    assert_true(priv == 108 * KB);
    assert_true(shared == 1628 * KB);
    assert_string_equal(m.path[0], "/usr/bin/sleep");
    assert_true(m.shared[0] == 8 * KB);
    assert_string_equal(m.path[5], "[heap]");
    assert_true(m.priv[5] == 16 * KB);
    assert_string_equal(m.path[14], "");
    assert_true(m.priv[14] == 8 * KB);
    assert_string_equal(m.path[16], "/usr/lib/x86_64-linux-gnu/libc.so.6");
    assert_true(m.shared[16] == 884 * KB);
    assert_string_equal(m.path[24], "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache");
    assert_true(m.shared[24] == 28 * KB);
    assert_string_equal(m.path[35], "[stack]");
    assert_true(m.priv[35] == 12 * KB);
    assert_string_equal(m.path[36], "[vsyscall]");
    assert_true(m.priv[36] == 0 && m.shared[36] == 0);
}

static void test_smaps_odd_paths(void **state)
{
    (void)state;
    static maps m;
    assert_int_equal(smaps_of("smaps_odd", &m), 0);
    const char *paths[] = {"/root/.pyenv/versions/3.11.7/bin/python3.11", "[heap]", "", "",
                           "/tmp/gt dir (x)/data file.bin (deleted)", "[stack]", "[vsyscall]"};
    const uint64_t priv[] = {4, 1572, 20, 20, 8, 48, 0};
    assert_int_equal(m.n, 7);
    for (int i = 0; i < 7; i++) {
        assert_string_equal(m.path[i], paths[i]);
        assert_true(m.priv[i] == priv[i] * KB);
        assert_true(m.shared[i] == 0);
    }
}

static void test_smaps_malformed(void **state)
{
    (void)state;
    static maps m;
    const char *fields = "Rss: 8 kB\nShared_Clean: 1 kB\nShared_Dirty: 2 kB\n"
                         "Private_Clean: 3 kB\nPrivate_Dirty: 4 kB\nVmFlags: rd mr \n";
    char text[512];

    /* No path at all, and a header with the kernel's trailing blank. */
    snprintf(text, sizeof text, "1000-2000 rw-p 00000000 00:00 0\n%s1000-2000 rw-p 00000000 00:00 0 \n%s",
             fields, fields);
    assert_int_equal(smaps_text(text, &m), 0);
    assert_int_equal(m.n, 2);
    assert_string_equal(m.path[0], "");
    assert_string_equal(m.path[1], "");
    assert_true(m.priv[0] == 7 * KB && m.shared[0] == 3 * KB);

    assert_int_equal(smaps_of("smaps_truncated", &m), -1);
    /* A mapping without its four fields, followed by a complete one. */
    snprintf(text, sizeof text, "1000-2000 rw-p 00000000 00:00 0 /a\nRss: 8 kB\n"
             "2000-3000 rw-p 00000000 00:00 0 /b\n%s", fields);
    assert_int_equal(smaps_text(text, &m), -1);
    assert_int_equal(smaps_text("", &m), 0);
    assert_int_equal(m.n, 0);
    /* A field before any header, a line that is neither, no final newline. */
    assert_int_equal(smaps_text(fields, &m), -1);
    snprintf(text, sizeof text, "1000-2000 rw-p 00000000 00:00 0 /a\n%sgarbage\n", fields);
    assert_int_equal(smaps_text(text, &m), -1);
    snprintf(text, sizeof text, "1000-2000 rw-p 00000000 00:00 0 /a\n%s", fields);
    text[strlen(text) - 1] = '\0';
    assert_int_equal(smaps_text(text, &m), -1);
    /* Sums that overflow. */
    assert_int_equal(smaps_text("1000-2000 rw-p 00000000 00:00 0 /a\nShared_Clean: 0 kB\n"
                                "Shared_Dirty: 0 kB\nPrivate_Clean: 18014398509481983 kB\n"
                                "Private_Dirty: 1 kB\n", &m), -1);
    /* Header lookalikes: no inode, bad dev, short perms, junk inode. */
    assert_int_equal(smaps_text("1000-2000 rw-p 00000000 00:00\nRss: 1 kB\n", &m), -1);
    assert_int_equal(smaps_text("1000-2000 rw-p 00000000 0000 0\nRss: 1 kB\n", &m), -1);
    assert_int_equal(smaps_text("1000-2000 rw 00000000 00:00 0\nRss: 1 kB\n", &m), -1);
    snprintf(text, sizeof text, "1000-2000 rw-p 00000000 00:00 12ab\n%s", fields);
    assert_int_equal(smaps_text(text, &m), -1);
    assert_int_equal(gt_parse_smaps("x", 1, NULL, NULL), -1);
}

/* ---- status ---- */

static void test_status(void **state)
{
    (void)state;
    size_t len;
    uint64_t hwm = 77;
    char *b = load("status_sleep", &len);
    assert_int_equal(gt_parse_status_hwm(b, len, &hwm), 0);
    assert_true(hwm == 1736 * KB);
    free(b);

    hwm = 77;
    b = load("status_zombie", &len);
    assert_int_equal(gt_parse_status_hwm(b, len, &hwm), 0);
    assert_true(hwm == 0);
    free(b);

    /* VmRSS: the kernel's counters, present or absent (a zombie). */
    uint64_t rss = 77;
    int found = 7;
    b = load("status_sleep", &len);
    assert_int_equal(gt_parse_status_rss(b, len, &rss, &found), 0);
    assert_true(rss == 1736 * KB && found == 1);
    free(b);
    b = load("status_zombie", &len);
    assert_int_equal(gt_parse_status_rss(b, len, &rss, &found), 0);
    assert_true(rss == 0 && found == 0);
    free(b);
    b = dup_text("Name:\tx\nVmRSS:\t   12\n", &len);
    assert_int_equal(gt_parse_status_rss(b, len, &rss, &found), -1);
    free(b);

    const char *bad[] = {"Name:\tx\nVmHWM:\t   12 kB", "Name:\tx\nVmHWM:\t   12\n",
                         "VmHWM:\t kB\n", "VmHWM:\t99999999999999999999 kB\n", "Name:\tx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b = dup_text(bad[i], &len);
        hwm = 77;
        assert_int_equal(gt_parse_status_hwm(b, len, &hwm), -1);
        assert_true(hwm == 77);
        free(b);
    }
}

/* ---- key: number files (io) ---- */

static void test_keyed(void **state)
{
    (void)state;
    size_t len;
    const char *keys[] = {"read_bytes:", "write_bytes:", "rchar:"};
    uint64_t v[3] = {7, 7, 7};
    char *b = load("io", &len);
    assert_int_equal(gt_parse_keyed(b, len, keys, 3, v), 0);
    assert_true(v[0] == 3076096 && v[1] == 307920896 && v[2] == 2751665772ull);
    free(b);
    /* A key missing, twice, a number malformed, cut short or followed by
     * text: refused, not read as 0. */
    const char *bad[] = {"read_bytes: 1\nrchar: 2\n", "read_bytes: 1\nwrite_bytes: 2\nrchar: 3\nrchar: 3\n",
                         "read_bytes: x\nwrite_bytes: 2\nrchar: 3\n",
                         "read_bytes: 1\nwrite_bytes: 2\nrchar: 3",
                         "read_bytes: 1 kB\nwrite_bytes: 2\nrchar: 3\n",
                         "read_bytes: 99999999999999999999\nwrite_bytes: 2\nrchar: 3\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b = dup_text(bad[i], &len);
        assert_int_equal(gt_parse_keyed(b, len, keys, 3, v), -1);
        free(b);
    }
    b = dup_text("rchar:\t5  \nread_bytes: 0\nwrite_bytes:18446744073709551615\n", &len);
    assert_int_equal(gt_parse_keyed(b, len, keys, 3, v), 0);
    assert_true(v[0] == 0 && v[1] == UINT64_MAX && v[2] == 5);
    free(b);
}

/* ---- meminfo ---- */

static void test_meminfo(void **state)
{
    (void)state;
    size_t len;
    gt_meminfo mi;
    char *b = load("meminfo", &len);
    assert_int_equal(gt_parse_meminfo(b, len, &mi), 0);
    assert_true(mi.total == 24683620 * KB);
    assert_true(mi.free == 24220316 * KB);
    assert_true(mi.buffers == 2832 * KB);
    assert_true(mi.cached == 340732 * KB);
    assert_true(mi.sreclaimable == 20000 * KB);
    assert_true(mi.shmem == 8884 * KB);
    assert_true(mi.available == 24359940 * KB);
    /* 24683620 - 24220316 - 2832 - 340732 - 20000 */
    assert_true(gt_meminfo_used(&mi) == 99740 * KB);
    free(b);

    b = load("meminfo_old", &len);
    assert_int_equal(gt_parse_meminfo(b, len, &mi), 0);
    assert_true(mi.sreclaimable == 0 && mi.shmem == 0);
    assert_true(mi.available == (24220316 + 340732) * KB);
    assert_true(gt_meminfo_used(&mi) == (24683620 - 24220316 - 2832 - 340732) * KB);
    free(b);

    const char *bad[] = {"meminfo_missing", "meminfo_overflow", "meminfo_truncated"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        b = load(bad[i], &len);
        assert_int_equal(gt_parse_meminfo(b, len, &mi), -1);
        free(b);
    }
}

static void test_meminfo_used(void **state)
{
    (void)state;
    gt_meminfo m = {.total = 1000, .free = 100, .buffers = 50, .cached = 200, .sreclaimable = 30};
    assert_true(gt_meminfo_used(&m) == 620);
    /* Cache larger than what is not free (containers): psutil falls back. */
    m.cached = 900;
    assert_true(gt_meminfo_used(&m) == 900);
    m.cached = UINT64_MAX;
    assert_true(gt_meminfo_used(&m) == 900);
    m = (gt_meminfo){.total = 10, .free = 20};
    assert_true(gt_meminfo_used(&m) == 0);
    m = (gt_meminfo){.total = 1000, .free = 1000};
    assert_true(gt_meminfo_used(&m) == 0);
}

/* ---- /proc/stat ---- */

static int cpus_of(const char *name, gt_cpu_times *c, int max, int *n)
{
    size_t len;
    char *b = load(name, &len);
    int r = gt_parse_proc_stat(b, len, c, max, n);
    free(b);
    return r;
}

static void test_proc_stat(void **state)
{
    (void)state;
    gt_cpu_times c[4];
    int n = -1;
    assert_int_equal(cpus_of("proc_stat", c, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_true(c[0].total == 1008433 && c[0].busy == 5397);
    assert_true(c[1].total == 1008992 && c[1].busy == 6578);

    /* More cores than room: all are counted, only max are stored. */
    c[1] = (gt_cpu_times){7, 7};
    assert_int_equal(cpus_of("proc_stat", c, 1, &n), 0);
    assert_int_equal(n, 2);
    assert_true(c[0].total == 1008433);
    assert_true(c[1].total == 7 && c[1].busy == 7);
    assert_int_equal(cpus_of("proc_stat", NULL, 0, &n), 0);
    assert_int_equal(n, 2);

    assert_int_equal(cpus_of("proc_stat_old", c, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_true(c[0].total == 2689 && c[0].busy == 169);
    assert_true(c[1].total == 2789 && c[1].busy == 269);

    assert_int_equal(cpus_of("proc_stat_gap", c, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_true(c[0].total == 10 && c[0].busy == 6);
    assert_true(c[1].total == UINT64_MAX && c[1].busy == UINT64_MAX);

    n = 99;
    assert_int_equal(cpus_of("proc_stat_overflow", c, 4, &n), -1);
    assert_int_equal(n, 99);
}

static int last_pid_of(const char *text, size_t len, pid_t *pid)
{
    char *b = malloc(len ? len : 1);
    assert_non_null(b);
    memcpy(b, text, len);
    int r = gt_parse_loadavg_last_pid(b, len, pid);
    free(b);
    return r;
}

static void test_loadavg_last_pid(void **state)
{
    (void)state;
    pid_t p = 7;
#define LAST(t) last_pid_of(t, sizeof t - 1, &p)
    assert_int_equal(LAST("0.88 1.10 1.42 2/345 12345\n"), 0);
    assert_int_equal(p, 12345);
    assert_int_equal(LAST("0.00 0.00 0.00 1/1 2147483647 \n"), 0);
    assert_int_equal(p, 2147483647);
    p = 7;
    assert_int_equal(LAST("0.00 0.00 0.00 1/1 2147483648\n"), -1);
    assert_int_equal(LAST("0.00 0.00 0.00 1/1\n"), -1);
    assert_int_equal(LAST("0.00 0.00 0.00 1/1 12 13\n"), -1);
    assert_int_equal(LAST("0.00 0.00 0.00 1/1 x\n"), -1);
    assert_int_equal(LAST("0.00 0.00 0.00 1/1 12"), -1); /* cut short */
    assert_int_equal(LAST(""), -1);
    assert_int_equal(p, 7);
#undef LAST
}

static int cpus_text(const char *s, gt_cpu_times *c, int *n)
{
    size_t len;
    char *b = dup_text(s, &len);
    int r = gt_parse_proc_stat(b, len, c, 4, n);
    free(b);
    return r;
}

static void test_proc_stat_fields(void **state)
{
    (void)state;
    gt_cpu_times c[4];
    int n;
    /* guest and guest_nice are already in user and nice. */
    assert_int_equal(cpus_text("cpu0 1 2 3 4 5 6 7 8 9 10\n", c, &n), 0);
    assert_true(c[0].total == 36 && c[0].busy == 27);
    /* A field a future kernel might add is ignored. */
    assert_int_equal(cpus_text("cpu0 1 2 3 4 5 6 7 8 9 10 11\n", c, &n), 0);
    assert_true(c[0].total == 36);
    assert_int_equal(cpus_text("cpu  1 2 3 4\nintr 5\n", c, &n), -1);
    assert_int_equal(cpus_text("cpu0 1 2 3\n", c, &n), -1);
    assert_int_equal(cpus_text("cpu0 1 2 3 4", c, &n), -1);
    assert_int_equal(cpus_text("cpu0 1 2 x 4\n", c, &n), -1);
    assert_int_equal(cpus_text("cpu0 1 2 -3 4\n", c, &n), -1);
    assert_int_equal(cpus_text("cpu0x 1 2 3 4\n", c, &n), -1);
    assert_int_equal(cpus_text("", c, &n), -1);
}

/* ---- pid lists ---- */

static int pids_text(const char *s, pid_t *out, int max)
{
    size_t len;
    char *b = dup_text(s, &len);
    int r = gt_parse_pid_list(b, len, out, max);
    free(b);
    return r;
}

static void test_pid_list(void **state)
{
    (void)state;
    pid_t p[4] = {0};
    assert_int_equal(pids_text("123 456 ", p, 4), 2);
    assert_int_equal(p[0], 123);
    assert_int_equal(p[1], 456);
    assert_int_equal(pids_text("\t7\n8  9\n", p, 4), 3);
    assert_int_equal(p[2], 9);
    p[1] = -5;
    assert_int_equal(pids_text("1 2 3 4 5 6", p, 1), 6);
    assert_int_equal(p[0], 1);
    assert_int_equal(p[1], -5);
    assert_int_equal(pids_text("", p, 4), 0);
    assert_int_equal(pids_text(" \n ", p, 4), 0);
    assert_int_equal(pids_text("2147483647", p, 4), 1);
    assert_int_equal(p[0], INT_MAX);
    assert_int_equal(pids_text("2147483648", p, 4), -1);
    assert_int_equal(pids_text("99999999999999999999999", p, 4), -1);
    assert_int_equal(pids_text("12a", p, 4), -1);
    assert_int_equal(pids_text("0", p, 4), -1);
    assert_int_equal(pids_text("-3", p, 4), -1);
    assert_int_equal(pids_text("5", NULL, 0), 1);
}

/* ---- robustness ---- */

static const char *const all_fixtures[] = {
    "stat_sleep", "stat_busy", "stat_zombie", "stat_odd_name", "stat_max", "stat_overflow",
    "stat_short", "smaps_sleep", "smaps_odd", "smaps_truncated", "smaps_rollup_sleep",
    "smaps_rollup_missing", "status_sleep", "status_zombie", "meminfo", "meminfo_old",
    "meminfo_missing", "meminfo_overflow", "meminfo_truncated", "proc_stat", "proc_stat_old",
    "proc_stat_gap", "proc_stat_overflow",
};

static void count_cb(void *ctx, const char *path, size_t path_len, uint64_t priv, uint64_t shared)
{
    (void)path;
    (void)path_len;
    (void)priv;
    (void)shared;
    ++*(int *)ctx;
}

/* Every parser on buf; returns how many of the line-oriented ones said 0. */
static int run_all(const char *buf, size_t len)
{
    gt_proc_stat st;
    gt_mem_rollup r;
    uint64_t hwm;
    gt_meminfo mi;
    gt_cpu_times c[8];
    pid_t pids[8];
    int n, nmaps = 0, ok = 0;
    ok += gt_parse_stat(buf, len, &st) == 0;
    ok += gt_parse_smaps_rollup(buf, len, &r) == 0;
    ok += gt_parse_status_hwm(buf, len, &hwm) == 0;
    ok += gt_parse_meminfo(buf, len, &mi) == 0;
    ok += gt_parse_proc_stat(buf, len, c, 8, &n) == 0;
    (void)gt_parse_pid_list(buf, len, pids, 8);
    (void)gt_parse_loadavg_last_pid(buf, len, &pids[0]);
    /* An empty smaps is a process without memory: valid, with no mapping. */
    ok += gt_parse_smaps(buf, len, count_cb, &nmaps) == 0 && len > 0;
    return ok;
}

static void test_every_prefix(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof all_fixtures / sizeof all_fixtures[0]; f++) {
        size_t len;
        char *whole = load(all_fixtures[f], &len);
        for (size_t cut = 0; cut <= len; cut++) {
            char *b = malloc(cut ? cut : 1);
            assert_non_null(b);
            memcpy(b, whole, cut);
            int ok = run_all(b, cut);
            /* A prefix that stops inside a line is always refused. */
            if (cut > 0 && cut < len && b[cut - 1] != '\n' && ok != 0)
                fail_msg("%s cut at %zu accepted by a parser", all_fixtures[f], cut);
            free(b);
        }
        free(whole);
    }
}

/* Random text over the characters /proc files are made of. */
/* Whether text (len bytes) holds needle. */
static int holds(const char *text, size_t len, const char *needle)
{
    return memmem(text, len, needle, strlen(needle)) != NULL;
}

/* Blank- or newline-separated words in buf. */
static int count_words(const char *buf, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && (i == 0 || buf[i - 1] == ' ' ||
                                                                   buf[i - 1] == '\t' || buf[i - 1] == '\n'))
            n++;
    return n;
}

/* Runs every parser on arbitrary text and checks what each accepted: a
 * parser may refuse anything, but what it accepts must make sense.  Returns
 * how many parsers accepted the text. */
static int check_accepted(const char *buf, size_t len)
{
    int ok = 0;
    gt_proc_stat st;
    if (gt_parse_stat(buf, len, &st) == 0) {
        ok++;
        assert_true(st.pid > 0 && st.ppid >= 0 && st.num_threads >= 0);
        assert_true(st.state != ' ' && st.state != '\t' && st.state != '\n');
        assert_true(buf[len - 1] == '\n' && holds(buf, len, ")"));
    }
    gt_mem_rollup r;
    if (gt_parse_smaps_rollup(buf, len, &r) == 0) {
        ok++;
        assert_true(holds(buf, len, "Rss:") && holds(buf, len, "Shared_Dirty:"));
        assert_true(r.rss % 1024 == 0 && r.private_clean % 1024 == 0 && r.shared_dirty % 1024 == 0);
    }
    uint64_t hwm = 1;
    if (gt_parse_status_hwm(buf, len, &hwm) == 0) {
        ok++;
        assert_true(hwm % 1024 == 0);
        if (hwm)
            assert_true(holds(buf, len, "VmHWM:"));
    }
    gt_meminfo mi;
    if (gt_parse_meminfo(buf, len, &mi) == 0) {
        ok++;
        assert_true(holds(buf, len, "MemTotal:") && holds(buf, len, "Cached:"));
    }
    gt_cpu_times c[8];
    int n = -7;
    if (gt_parse_proc_stat(buf, len, c, 8, &n) == 0) {
        ok++;
        assert_true(n >= 1 && holds(buf, len, "cpu"));
        for (int i = 0; i < n && i < 8; i++)
            assert_true(c[i].busy <= c[i].total);
    }
    pid_t pids[8];
    int np = gt_parse_pid_list(buf, len, pids, 8);
    assert_true(np >= -1);
    if (np >= 0) {
        ok++;
        assert_int_equal(np, count_words(buf, len)); /* every word is a PID */
        for (int i = 0; i < np && i < 8; i++)
            assert_true(pids[i] > 0);
    }
    int nmaps = 0;
    if (gt_parse_smaps(buf, len, count_cb, &nmaps) == 0) {
        ok++;
        assert_true(nmaps >= 0);
    }
    return ok;
}

static void test_random_text(void **state)
{
    (void)state;
    static const char alphabet[] = "0123456789abcdef-:() \t\nkBSZcpuVmHWMRs_[]/x";
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    char tmp[256];
    int accepted = 0;
    /* 50,000 texts: enough for every parser to accept some and reject
     * many; the libFuzzer target fuzz_proc explores them far further. */
    for (int iter = 0; iter < 50000; iter++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        size_t len = (size_t)(seed >> 33) % sizeof tmp;
        for (size_t i = 0; i < len; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            tmp[i] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
        }
        char *b = malloc(len ? len : 1);
        assert_non_null(b);
        memcpy(b, tmp, len);
        accepted += check_accepted(b, len) > 0;
        free(b);
    }
    /* Short texts of digits and blanks are PID lists, the empty text is
     * several things: some were accepted and checked. */
    assert_true(accepted > 0);
}

int main(int argc, char **argv)
{
    /* Run from the repository root (as tests/run.sh does) or from
     * anywhere, found from this program's path: BUILD/tests/test_parse. */
    FILE *probe = fopen("tests/fixtures/proc/meminfo", "rb");
    if (probe)
        fclose(probe);
    else if (argc > 0) {
        const char *slash = strrchr(argv[0], '/');
        int dir = slash ? (int)(slash - argv[0]) : 1;
        snprintf(fixture_dir, sizeof fixture_dir, "%.*s/../../tests/fixtures/proc", dir,
                 slash ? argv[0] : ".");
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_captured),
        cmocka_unit_test(test_stat_odd_name),
        cmocka_unit_test(test_stat_limits),
        cmocka_unit_test(test_stat_malformed),
        cmocka_unit_test(test_rollup),
        cmocka_unit_test(test_smaps_captured),
        cmocka_unit_test(test_smaps_odd_paths),
        cmocka_unit_test(test_smaps_malformed),
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_keyed),
        cmocka_unit_test(test_meminfo),
        cmocka_unit_test(test_meminfo_used),
        cmocka_unit_test(test_proc_stat),
        cmocka_unit_test(test_loadavg_last_pid),
        cmocka_unit_test(test_proc_stat_fields),
        cmocka_unit_test(test_pid_list),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_random_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
