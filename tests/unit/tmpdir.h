/* SPDX-License-Identifier: MIT */
/* A cmocka group fixture for tests that write files: the group runs in a
 * fresh directory under /tmp, removed afterwards.  Include after cmocka.h. */
#ifndef GT_TEST_TMPDIR_H
#define GT_TEST_TMPDIR_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char tmpdir_path[] = "/tmp/gt-test-XXXXXX";

static int tmpdir_setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir_path) && chdir(tmpdir_path) == 0 ? 0 : -1;
}

static int tmpdir_teardown(void **state)
{
    (void)state;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir_path);
    return system(cmd);
}

/* Writes text to path; a file that cannot be written fails the test. */
static inline void tmpdir_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}
#endif
