/* SPDX-License-Identifier: MIT */
/* A fake /proc for the tests of what reads one (the sampler, per-process
 * figures): a folder under /tmp, the sampler's proc_root, whose files are
 * rewritten in place, so that a descriptor the sampler keeps open sees the
 * new text as a kept /proc fd of a live process does.  Include after
 * cmocka.h; tests are run from the repository root (fixtures). */
#ifndef GT_TEST_FAKEPROC_H
#define GT_TEST_FAKEPROC_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

/* Writes text to root/rel, making its folders. */
static inline void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* tests/fixtures/proc/name as root/rel. */
static inline void copy_fixture(const char *name, const char *rel)
{
    char path[256], buf[65536];
    snprintf(path, sizeof path, "tests/fixtures/proc/%s", name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    put(rel, buf);
}

/* A new empty root; with probes, the files the reader probes once: this
 * kernel has smaps_rollup, and (children) /proc/PID/task/TID/children, else
 * it scans /proc. */
static inline void fakeproc_new(int probes, int children)
{
    strcpy(root, "/tmp/gt-fakeproc-XXXXXX");
    assert_non_null(mkdtemp(root));
    if (!probes)
        return;
    put("self/smaps_rollup", "");
    if (children) {
        char rel[64];
        snprintf(rel, sizeof rel, "%d/task/%d/children", (int)getpid(), (int)getpid());
        put(rel, "");
    }
}

/* Removes root/rel, a process's folder (a process that exited), or the
 * whole root for rel "". */
static inline void fakeproc_drop(const char *rel)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/%s'", root, rel);
    assert_int_equal(system(cmd), 0);
}
#endif
