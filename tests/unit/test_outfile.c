/* SPDX-License-Identifier: MIT */
/* Output files (util/outfile.h): written whole or not at all, the old
 * file's mode kept; and the refusal of a file the caller may not write,
 * which rename() would replace regardless (checked as user nobody in a
 * child, since root may write anything; skipped when not root). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpdir.h"
#include "util/outfile.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = calloc(1, 4096);
    assert_non_null(b);
    size_t n = fread(b, 1, 4095, f);
    b[n] = '\0';
    fclose(f);
    return b;
}

static void test_commit_and_discard(void **state)
{
    (void)state;
    tmpdir_write("r.txt", "old\n");
    assert_int_equal(chmod("r.txt", 0640), 0);
    gt_outfile o;
    gt_error err;
    assert_int_equal(gt_outfile_open("r.txt", "output file", &o, &err), GT_OK);
    fputs("half", o.f);
    gt_outfile_discard(&o);
    char *t = slurp("r.txt");
    assert_string_equal(t, "old\n");
    free(t);
    assert_int_equal(gt_outfile_open("r.txt", "output file", &o, &err), GT_OK);
    fputs("new report\n", o.f);
    assert_int_equal(gt_outfile_commit(&o, &err), GT_OK);
    t = slurp("r.txt");
    assert_string_equal(t, "new report\n");
    free(t);
    struct stat sb;
    assert_int_equal(stat("r.txt", &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
}

/* Root's 0644 file in a folder anyone may write: nobody may not replace
 * it, though rename() would let them. */
static void test_not_writable_refused(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        fprintf(stderr, "SKIPPED: the refusal of a file the user may not write: needs root to run as nobody\n");
        return;
    }
    assert_int_equal(mkdir("shared", 0777), 0);
    assert_int_equal(chmod("shared", 0777), 0);
    assert_int_equal(chmod(tmpdir_path, 0755), 0);
    tmpdir_write("shared/root.txt", "root's\n");
    assert_int_equal(chmod("shared/root.txt", 0644), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
            _exit(3);
        gt_outfile o;
        gt_error err;
        gt_status st = gt_outfile_open("shared/root.txt", "output file", &o, &err);
        if (st == GT_OK) {
            fputs("nobody's\n", o.f);
            gt_outfile_commit(&o, &err);
            _exit(1);
        }
        _exit(strstr(err.msg, "cannot write output file 'shared/root.txt': Permission denied") ? 0 : 2);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char *t = slurp("shared/root.txt");
    assert_string_equal(t, "root's\n");
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_and_discard),
        cmocka_unit_test(test_not_writable_refused),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
